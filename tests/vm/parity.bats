#!/usr/bin/env bats
# Parity of loading through a BPF token with loading as root, for a corpus
# of real-world-shaped libbpf objects (tests/progs: CO-RE kprobe,
# tracepoint, raw_tp, fentry, tc, cgroup_skb, sk_lookup, XDP, socket filter,
# with .rodata/.data/.bss/.kconfig, ring and perf buffers, maps of maps,
# tail calls, spin locks) and for the BPF objects Debian ships in xdp-tools
# and libxdp1 (/usr/lib/<multiarch>/bpf).
#
# Each object is loaded three ways, by `bpftool prog loadall OBJ DIR [token
# TOKEN] pinmaps DIR2` (tests/parity/load.sh, one fresh BPF FS per load):
#   root     as root, no token;
#   token    as nobody (uid 65534, no groups, no capabilities) through a
#            token that root created allowing exactly the object's needs
#            (tests/progs/NAME.needs, tests/parity/xdp-tools/NAME.needs),
#            owned by nobody;
#   no token as nobody, without the token.
# Parity: root loads the object; through the token nobody gets the same
# programs and maps (names, types, BTF, frozen state) as root; without the
# token the load fails with EPERM and leaves nothing pinned. The last tests
# print the table and check that every item of every .needs is needed.

bats_require_minimum_version 1.5.0

setup() {
	TOP=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	BUILD=${BUILD:-$TOP/build}
	BPFTOOL=${BPFTOOL:-$BUILD/bpftool/bpftool}
	export BPFTOOL
	PROGS=$BUILD/progs
	LOAD=$TOP/tests/parity/load.sh
	DEB_NEEDS=$TOP/tests/parity/xdp-tools
	DEB_OBJS=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/bpf
	# results of the three loads, shared by the tests of this file
	RESULTS=$BATS_FILE_TMPDIR/parity
	mkdir -p "$RESULTS"
	[[ -x $BPFTOOL ]] || { echo "no $BPFTOOL: build bpftool"; return 1; }
	[[ -f $PROGS/syscount.bpf.o ]] || { echo "no $PROGS/syscount.bpf.o: build the tests"; return 1; }
}

# Drop to nobody with no capabilities at all.
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		--bounding-set=-all -- "$@"
}

# obj_path NAME, needs_path NAME: a corpus object and its needs, or a
# Debian-packaged one (NAME is the file name without .o / .bpf.o)
obj_path() {
	if [[ -f $PROGS/$1.bpf.o ]]; then
		echo "$PROGS/$1.bpf.o"
	else
		echo "$DEB_OBJS/$1.o"
	fi
}
needs_path() {
	if [[ -f $PROGS/$1.bpf.o ]]; then
		echo "$TOP/tests/progs/$1.needs"
	else
		echo "$DEB_NEEDS/$1.needs"
	fi
}

# pinmaps_for NAME: 0 when bpftool's pinmaps cannot be used, for objects
# with maps pinned by name (LIBBPF_PIN_BY_NAME: xdp-filter's xdp_stats_map,
# the ctr_* counters): libbpf pins those itself, in the BPF FS root, and
# bpftool refuses to pin them a second time.
pinmaps_for() {
	"$BPFTOOL" -j btf dump file "$(obj_path "$1")" |
		jq -e '[.types[] | select(.kind == "STRUCT") | .members[] |
			select(.name == "pinning")] | length == 0' >/dev/null && echo 1 || echo 0
}

# load NAME MODE OUT [SETS...]: one load of NAME by tests/parity/load.sh
# (pinmaps_for NAME is asked once per object)
load() {
	local name=$1 mode=$2 out=$3 pm=$RESULTS/$1.pinmaps
	shift 3
	mkdir -p "$RESULTS"
	[[ -s $pm ]] || pinmaps_for "$name" >"$pm"
	PINMAPS=$(<"$pm") "$LOAD" "$mode" "$(obj_path "$name")" "$out" "$@"
}

# three_way NAME: the three loads of NAME (once per bats run), into
# $RESULTS/NAME/{root,token,notoken}/
three_way() {
	local name=$1 dir=$RESULTS/$1 needs sets mode
	needs=$(needs_path "$name")
	[[ -f $dir/done ]] && return 0
	[[ -f $needs ]] || { echo "no $needs"; return 1; }
	read -r -a sets <"$needs"
	for mode in root token notoken; do
		load "$name" "$mode" "$dir/$mode" "${sets[@]}" || return 1
	done
	touch "$dir/done"
}

# verdict NAME: "ROOT TOKEN NOTOKEN" for the table, from the results:
# root/token "ok" when the load succeeded, and for the token only when it
# left the same programs and maps as root's ("differs" otherwise); no token
# "FAIL" when the load failed and left nothing, "ok" when it loaded, "left"
# when it failed but left something pinned
verdict() {
	local d=$RESULTS/$1 root token notoken
	root=FAIL token=FAIL notoken=FAIL
	[[ $(cat "$d/root/status") == 0 ]] && root=ok
	if [[ $(cat "$d/token/status") == 0 ]]; then
		token=ok
		cmp -s "$d/root/objects" "$d/token/objects" || token=differs
	fi
	if [[ $(cat "$d/notoken/status") == 0 ]]; then
		notoken=ok
	elif [[ -s $d/notoken/left ]]; then
		notoken=left
	fi
	echo "$root $token $notoken"
}

# show NAME MODE: what a load did, for the test's log
show() {
	local d=$RESULTS/$1/$2
	echo "--- $1, $2: status $(cat "$d/status")"
	echo "stderr:"; sed 's/^/  /' "$d/stderr"
	echo "objects:"; sed 's/^/  /' "$d/objects"
	echo "left:"; sed 's/^/  /' "$d/left"
}

# check_parity NAME: the assertions of one object's test
check_parity() {
	local name=$1 d=$RESULTS/$1
	three_way "$name"
	echo "needs: $(cat "$(needs_path "$name")")"
	show "$name" root
	show "$name" token
	show "$name" notoken

	# root loads it: programs (and maps, if any) pinned, owned by root
	[[ $(cat "$d/root/status") == 0 ]]
	grep -q '^prog ' "$d/root/objects"
	[[ -z $(grep -v ' 0$' "$d/root/owners") ]]

	# through the token nobody gets the same programs and maps
	[[ $(cat "$d/token/status") == 0 ]]
	diff -u "$d/root/objects" "$d/token/objects"
	[[ -s $d/token/owners ]]
	[[ -z $(grep -v ' 65534$' "$d/token/owners") ]]
	[[ $(cut -d' ' -f1 "$d/root/owners") == $(cut -d' ' -f1 "$d/token/owners") ]]
	[[ -z $(grep '^Error' "$d/token/stderr") ]]

	# without it the load fails with EPERM and leaves nothing
	[[ $(cat "$d/notoken/status") != 0 ]]
	grep -q 'Operation not permitted' "$d/notoken/stderr"
	grep -q '^Error: failed to load object file' "$d/notoken/stderr"
	[[ ! -s $d/notoken/left ]]
	[[ ! -s $d/notoken/objects ]]
}

# --- the corpus (tests/progs) ---

@test "parity: kprobe_ringbuf (kprobe + kretprobe, CO-RE, ringbuf, hash, .rodata, .bss)" {
	check_parity kprobe_ringbuf
}

@test "parity: tp_perf (tracepoints, CO-RE, perf buffer, LRU hash, hash, .data)" {
	check_parity tp_perf
}

@test "parity: syscount (raw_tp, .rodata/.data/.bss/.kconfig, bpf-to-bpf and global subprograms)" {
	check_parity syscount
	# libbpf froze .rodata and .kconfig for nobody too
	grep -qx 'map syscount.rodata array btf=1 frozen=1' "$RESULTS/syscount/token/objects"
	grep -qx 'map syscoun.kconfig array btf=1 frozen=1' "$RESULTS/syscount/token/objects"
}

@test "parity: fentry_percpu (fentry + fexit, per-CPU array and hash, .bss)" {
	check_parity fentry_percpu
}

@test "parity: tc_tailcall (tc, prog_array with tail calls, LPM trie, global subprogram)" {
	check_parity tc_tailcall
	[[ $(grep -c '^prog .* sched_cls ' "$RESULTS/tc_tailcall/token/objects") == 3 ]]
}

@test "parity: cgroup_skb_maps (cgroup_skb ingress/egress, array_of_maps, hash_of_maps, spin lock)" {
	check_parity cgroup_skb_maps
}

@test "parity: sk_lookup_steer (sk_lookup, sockmap)" {
	check_parity sk_lookup_steer
}

@test "parity: xdp_xsk (XDP, xskmap, per-CPU array, .rodata)" {
	check_parity xdp_xsk
}

@test "parity: xdp_token (XDP, array, CAP_BPF and CAP_PERFMON helpers)" {
	check_parity xdp_token
}

@test "parity: xdp_stack (XDP, stack map)" {
	check_parity xdp_stack
}

@test "parity: sockfilter (socket filter)" {
	check_parity sockfilter
}

@test "parity: ctr_tc (the container test's tc counter, map pinned by name)" {
	check_parity ctr_tc
}

@test "parity: ctr_xdp (the container test's XDP counter, map pinned by name)" {
	check_parity ctr_xdp
}

# --- the skeleton: syscount through `bpftool gen skeleton` ---

# syscount's output line: "matched N total N hz N kernel_version N bpf_syscall N"
check_syscount_output() {
	local hz version
	hz=$(zcat /proc/config.gz | sed -n 's/^CONFIG_HZ=//p')
	IFS=. read -r a b c <<<"$(uname -r | sed 's/[^0-9.].*//')"
	version=$(((a << 16) + (b << 8) + (c > 255 ? 255 : c)))
	[[ $output == "matched 7 total 35 hz $hz kernel_version $version bpf_syscall 1" ]]
}

@test "skeleton: syscount as root (no token): .rodata set before load, counts read from .bss" {
	run --separate-stderr "$PROGS/syscount" -n 7 -w 5
	echo "status $status, stdout '$output', stderr '$stderr'"
	[[ $status == 0 ]]
	check_syscount_output
}

@test "skeleton: syscount as nobody through bpf_token_path, and through LIBBPF_BPF_TOKEN_PATH" {
	local d=/sys/fs/bpf/parity-skel sets
	rm -rf "$d"
	mkdir -m 0755 "$d"
	read -r -a sets <"$TOP/tests/progs/syscount.needs"
	"$BPFTOOL" token create "$d/token" "${sets[@]}"
	chown 65534:65534 "$d/token"
	chmod 0600 "$d/token"

	run --separate-stderr as_nobody "$PROGS/syscount" -t "$d/token" -n 7 -w 5
	echo "-t: status $status, stdout '$output', stderr '$stderr'"
	[[ $status == 0 ]]
	check_syscount_output

	run --separate-stderr as_nobody env LIBBPF_BPF_TOKEN_PATH="$d/token" \
		"$PROGS/syscount" -n 7 -w 5
	echo "env: status $status, stdout '$output', stderr '$stderr'"
	[[ $status == 0 ]]
	check_syscount_output

	# no program or map of it is left behind
	run "$BPFTOOL" -j prog show
	[[ $(jq '[.[] | select(.name == "syscount_enter")] | length' <<<"$output") == 0 ]]
	rm -rf "$d"
}

@test "skeleton: syscount as nobody without a token (or with -t '') fails to load" {
	local d=/sys/fs/bpf/parity-skel sets
	rm -rf "$d"
	mkdir -m 0755 "$d"
	read -r -a sets <"$TOP/tests/progs/syscount.needs"
	"$BPFTOOL" token create "$d/token" "${sets[@]}"
	chown 65534:65534 "$d/token"

	run --separate-stderr as_nobody "$PROGS/syscount" -n 7
	echo "no token: status $status, stdout '$output', stderr '$stderr'"
	[[ $status == 1 ]]
	[[ -z $output ]]
	[[ $stderr == *"Error: loading the skeleton failed: Operation not permitted"* ]]

	run --separate-stderr as_nobody env LIBBPF_BPF_TOKEN_PATH="$d/token" \
		"$PROGS/syscount" -t "" -n 7
	echo "-t '': status $status, stdout '$output', stderr '$stderr'"
	[[ $status == 1 ]]
	[[ $stderr == *"Error: loading the skeleton failed: Operation not permitted"* ]]
	rm -rf "$d"
}

# --- Debian's xdp-tools and libxdp1 objects ---

@test "parity: xdp-tools xdp-dispatcher.o (libxdp's dispatcher, .rodata config)" {
	check_parity xdp-dispatcher
}

@test "parity: xdp-tools xdpdump_xdp.o (XDP, perf buffer, .data)" {
	check_parity xdpdump_xdp
}

@test "parity: xdp-tools xsk_def_xdp_prog.o (libxdp's AF_XDP program, xskmap)" {
	check_parity xsk_def_xdp_prog
}

@test "parity: xdp-tools xsk_def_xdp_prog_5.3.o (the same for 5.3 kernels)" {
	check_parity xsk_def_xdp_prog_5.3
}

@test "parity: xdp-tools xdpfilt_alw_all.o (xdp-filter, map pinned by name)" {
	check_parity xdpfilt_alw_all
}

@test "parity: xdp-tools xdpfilt_alw_eth.o" {
	check_parity xdpfilt_alw_eth
}

@test "parity: xdp-tools xdpfilt_alw_ip.o" {
	check_parity xdpfilt_alw_ip
}

@test "parity: xdp-tools xdpfilt_alw_tcp.o" {
	check_parity xdpfilt_alw_tcp
}

@test "parity: xdp-tools xdpfilt_alw_udp.o" {
	check_parity xdpfilt_alw_udp
}

@test "parity: xdp-tools xdpfilt_dny_all.o" {
	check_parity xdpfilt_dny_all
}

@test "parity: xdp-tools xdpfilt_dny_eth.o" {
	check_parity xdpfilt_dny_eth
}

@test "parity: xdp-tools xdpfilt_dny_ip.o" {
	check_parity xdpfilt_dny_ip
}

@test "parity: xdp-tools xdpfilt_dny_tcp.o" {
	check_parity xdpfilt_dny_tcp
}

@test "parity: xdp-tools xdpfilt_dny_udp.o" {
	check_parity xdpfilt_dny_udp
}

# xdpdump's fentry/fexit programs trace an XDP *program* (their section
# names are the placeholder "fentry/func"): xdpdump sets the attach target
# to the program it dumps before load. bpftool cannot, so root fails as
# well, in libbpf's search of vmlinux BTF for "func"; the token changes
# nothing about that (same error), and without it nobody fails too.
@test "parity: xdp-tools xdpdump_bpf.o cannot load with bpftool, as root neither (attach target set by xdpdump)" {
	local d=$RESULTS/xdpdump_bpf
	three_way xdpdump_bpf
	show xdpdump_bpf root
	show xdpdump_bpf token
	show xdpdump_bpf notoken
	for mode in root token notoken; do
		[[ $(cat "$d/$mode/status") != 0 ]]
		[[ ! -s $d/$mode/left ]]
	done
	grep -q "failed to find kernel BTF type ID of 'func'" "$d/root/stderr"
	grep -q "failed to find kernel BTF type ID of 'func'" "$d/token/stderr"
}

# xdpdump_bpf.o loaded the way xdpdump loads it: trace_target (tests/progs)
# sets its fentry/fexit programs to trace the "xdpdump" program of
# xdpdump_xdp.o, which root loads first and pins for nobody (using a pinned
# program takes read and write permission). libbpf finds the traced
# function in the target program's BTF, which it opens by id: the token
# allows the object's .needs plus btf_get_fd_by_id (which the object file
# cannot tell: the target is the application's choice). Three ways as for
# the others, plus "token-needs": a token with the .needs alone. Each mode
# pins its programs into its own directory; results in
# $RESULTS/xdpdump_bpf+target/MODE/{status,stderr,objects,owners,left}.
xdpdump_target_three_way() {
	local r=$RESULTS/xdpdump_bpf+target d=/sys/fs/bpf/parity-xdpdump sets mode cmd rc i
	[[ -f $r/done ]] && return 0
	rm -rf "$d"
	mkdir -m 0755 "$d"
	"$BPFTOOL" prog load "$DEB_OBJS/xdpdump_xdp.o" "$d/xdp"
	chown 65534:65534 "$d/xdp"
	read -r -a sets <"$DEB_NEEDS/xdpdump_bpf.needs"
	"$BPFTOOL" token create "$d/token-needs" "${sets[@]}"
	for i in "${!sets[@]}"; do
		[[ ${sets[i]} == cmds ]] && sets[i + 1]+=,btf_get_fd_by_id
	done
	"$BPFTOOL" token create "$d/token" "${sets[@]}"
	chown 65534:65534 "$d/token" "$d/token-needs"
	chmod 0600 "$d/token" "$d/token-needs"
	for mode in root token notoken token-needs; do
		mkdir -p "$r/$mode" "$d/by-$mode"
		cmd=("$PROGS/trace_target")
		[[ $mode == token* ]] && cmd+=(-t "$d/$mode")
		cmd+=("$DEB_OBJS/xdpdump_bpf.o" "$d/xdp" xdpdump "$d/by-$mode")
		[[ $mode == root ]] || { chown 65534:65534 "$d/by-$mode"; cmd=(as_nobody "${cmd[@]}"); }
		rc=0
		"${cmd[@]}" >"$r/$mode/stdout" 2>"$r/$mode/stderr" || rc=$?
		echo $rc >"$r/$mode/status"
		find "$d/by-$mode" -mindepth 1 | sort >"$r/$mode/left"
		: >"$r/$mode/objects"
		: >"$r/$mode/owners"
		for f in "$d/by-$mode"/*; do
			[[ -e $f ]] || continue
			"$BPFTOOL" -j prog show pinned "$f" |
				jq -r '"prog \(.name) \(.type) btf=\(if .btf_id then 1 else 0 end)"' >>"$r/$mode/objects"
			"$BPFTOOL" -j prog show pinned "$f" | jq -r '"\(.name) \(.uid)"' >>"$r/$mode/owners"
		done
	done
	rm -rf "$d"
	touch "$r/done"
}

# Root and the token (the object's needs + btf_get_fd_by_id) load the same
# programs; nobody without a token fails where libbpf opens the target's
# BTF by id (BPF_BTF_GET_FD_BY_ID needs CAP_SYS_ADMIN), and so does a token
# with the object's needs alone, with libbpf naming what the token lacks.
@test "parity: xdp-tools xdpdump_bpf.o with its attach target set, as xdpdump does (token allows btf_get_fd_by_id)" {
	local r=$RESULTS/xdpdump_bpf+target mode
	xdpdump_target_three_way
	for mode in root token notoken token-needs; do
		show xdpdump_bpf+target $mode
	done
	for mode in root token; do
		[[ $(cat "$r/$mode/status") == 0 ]]
		[[ $(cat "$r/$mode/objects") == "prog trace_on_entry tracing btf=1
prog trace_on_exit tracing btf=1" ]]
	done
	# root's programs are root's, the token's nobody's
	[[ $(awk '{print $2}' "$r/root/owners" | sort -u) == 0 ]]
	[[ $(awk '{print $2}' "$r/token/owners" | sort -u) == 65534 ]]
	for mode in notoken token-needs; do
		[[ $(cat "$r/$mode/status") == 1 ]]
		grep -q '^libbpf: Failed to get BTF [0-9]* of the program: -1$' "$r/$mode/stderr"
		grep -q "^Error: can't set trace_on_entry's attach target: Operation not permitted$" \
			"$r/$mode/stderr"
		[[ ! -s $r/$mode/left ]]
	done
	grep -q "^libbpf: object 'xdpdump_bpf': BPF token at '.*/token-needs' does not allow BPF_BTF_GET_FD_BY_ID (btf_get_fd_by_id), needed to attach to a BPF program$" \
		"$r/token-needs/stderr"
}

# --- the table ---

# every object of the parity test: tests/progs/*.bpf.o and the Debian ones
all_objects() {
	local f
	for f in "$PROGS"/*.bpf.o; do
		f=${f##*/}
		echo "${f%.bpf.o}"
	done
	for f in "$DEB_OBJS"/*.o; do
		f=${f##*/}
		echo "${f%.o}"
	done
}

@test "parity: the table (object, root, token, no token) has no mismatch" {
	local name v root token notoken bad=0 rows=0 expect
	printf '# %-24s %-6s %-8s %-8s\n' object root token "no token" >&3
	while read -r name; do
		if [[ ! -f $(needs_path "$name") ]]; then
			printf '# %-24s no .needs: MISMATCH\n' "$name" >&3
			bad=$((bad + 1))
			continue
		fi
		three_way "$name"
		read -r root token notoken <<<"$(verdict "$name")"
		# root loads it, the token loads the same, no token fails; only
		# xdpdump_bpf cannot be loaded by bpftool, as root neither (see its
		# test): there all three must fail
		expect="ok ok FAIL"
		[[ $name == xdpdump_bpf ]] && expect="FAIL FAIL FAIL"
		v=""
		[[ "$root $token $notoken" == "$expect" ]] || { v="  MISMATCH"; bad=$((bad + 1)); }
		printf '# %-24s %-6s %-8s %-8s%s\n' "$name" "$root" "$token" "$notoken" "$v" >&3
		rows=$((rows + 1))
	done < <(all_objects)
	# xdpdump_bpf.o loaded with its attach target set (trace_target), the
	# token allowing btf_get_fd_by_id as well (see its test)
	xdpdump_target_three_way
	read -r root token notoken <<<"$(verdict xdpdump_bpf+target)"
	v=""
	[[ "$root $token $notoken" == "ok ok FAIL" ]] || { v="  MISMATCH"; bad=$((bad + 1)); }
	printf '# %-24s %-6s %-8s %-8s%s\n' "xdpdump_bpf+target" "$root" "$token" "$notoken" "$v" >&3
	rows=$((rows + 1))
	echo "$rows objects, $bad mismatches"
	[[ $rows -ge 27 ]]
	[[ $bad == 0 ]]
}

# The .needs files and `bpftool token needs OBJ` (which reads the sets from
# the object) agree, for every object.
@test "parity: every .needs is what bpftool token needs prints for its object" {
	local name want got bad=0 n=0
	while read -r name; do
		[[ -f $(needs_path "$name") ]] || { echo "$name: no .needs"; bad=$((bad + 1)); continue; }
		want=$(awk '{ print $2, $4, $6, $8 }' "$(needs_path "$name")")
		got=$("$BPFTOOL" token needs "$(obj_path "$name")" |
			sed -n 's/^\tallowed_\(cmds\|maps\|progs\|attachs\): //p' | tr ' ' , | paste -sd' ')
		n=$((n + 1))
		[[ $got == "$want" ]] || { echo "$name: .needs '$want', bpftool token needs '$got'"; bad=$((bad + 1)); }
	done < <(all_objects)
	echo "$n objects, $bad differ"
	[[ $n -ge 28 ]]
	[[ $bad == 0 ]]
}

# Every item of every .needs is needed: a token without it does not load
# the object the way root does (the load fails, or, for btf_load, libbpf
# loads without the object's BTF).
# Taking every item out of every object's needs is about 190 loads, a long
# time under TCG: by default a sample of objects covering every kind of item
# (internal maps, map-in-map, tail calls, tracing, networking, Debian's
# objects); PARITY_EXACT=all takes every object.
PARITY_EXACT_SAMPLE="syscount cgroup_skb_maps tc_tailcall kprobe_ringbuf xdp-dispatcher xdpfilt_alw_all"

@test "parity: every item of every .needs is needed (PARITY_EXACT objects)" {
	local name sets kind list item i j reduced out extra=0 checked=0
	local only=${PARITY_EXACT:-$PARITY_EXACT_SAMPLE} min=100
	[[ $only == all ]] || min=25
	echo "objects: $only"
	while read -r name; do
		[[ $only == all || " $only " == *" $name "* ]] || continue
		[[ -f $(needs_path "$name") ]] || continue
		three_way "$name"
		# only objects that load through their token at all
		[[ $(verdict "$name") == "ok ok FAIL" ]] || continue
		read -r -a sets <"$(needs_path "$name")"
		for ((i = 0; i < ${#sets[@]}; i += 2)); do
			kind=${sets[i]}
			IFS=, read -r -a list <<<"${sets[i + 1]}"
			for item in "${list[@]}"; do
				# the sets without this one item
				reduced=()
				for ((j = 0; j < ${#sets[@]}; j += 2)); do
					if [[ ${sets[j]} == "$kind" ]]; then
						[[ ${#list[@]} == 1 ]] && continue
						reduced+=("$kind" "$(tr , '\n' <<<"${sets[j + 1]}" | grep -vx "$item" | paste -sd,)")
					else
						reduced+=("${sets[j]}" "${sets[j + 1]}")
					fi
				done
				out=$RESULTS/$name/minus-$kind-$item
				load "$name" token "$out" "${reduced[@]}"
				checked=$((checked + 1))
				if [[ $(cat "$out/status") == 0 ]] &&
					cmp -s "$RESULTS/$name/root/objects" "$out/objects"; then
					echo "$name: loads the same without $kind $item"
					extra=$((extra + 1))
				fi
			done
		done
	done < <(all_objects)
	echo "$checked items checked, $extra not needed"
	[[ $checked -ge $min ]]
	[[ $extra == 0 ]]
}
