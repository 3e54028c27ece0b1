# Shared by tests/vm/parity.bats (the corpus of tests/progs) and
# tests/vm/parity-debian.bats (the BPF objects Debian ships in xdp-tools and
# libxdp1, /usr/lib/<multiarch>/bpf): the parity of loading through a BPF
# token with loading as root. Two files, so that the parallel VMs of the
# suite share the work; each sets PARITY_GROUP (corpus or debian) and then
# `load lib` and `load parity`.
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
# of each file print its table and check that every item of every .needs
# is needed.

parity_setup() {
	export BPFTOOL
	LOAD=$TOP/tests/parity/load.sh
	DEB_NEEDS=$TOP/tests/parity/xdp-tools
	DEB_OBJS=$DEBIAN_BPF
	# results of the three loads, shared by the tests of this file
	RESULTS=$BATS_FILE_TMPDIR/parity
	mkdir -p "$RESULTS"
	need "$BPFTOOL" "$PROGS/syscount.bpf.o"
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
	needs_file "$(obj_path "$1")"
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
	# the load, libbpf's feature probes included, asked the token for
	# nothing it refused (the probes it allows count as uses)
	cat "$d/token/counters"
	[[ $(cat "$d/token/counters") == *" denials 0" ]]
	(($(awk '{ print $4 }' "$d/token/counters") >= $(grep -c '^prog ' "$d/token/objects")))

	# without it the load fails with EPERM and leaves nothing
	[[ $(cat "$d/notoken/status") != 0 ]]
	grep -q 'Operation not permitted' "$d/notoken/stderr"
	grep -q '^Error: failed to load object file' "$d/notoken/stderr"
	[[ ! -s $d/notoken/left ]]
	[[ ! -s $d/notoken/objects ]]
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

# every object of this file's group: tests/progs/*.bpf.o, or the Debian ones
all_objects() {
	local f
	if [[ $PARITY_GROUP == corpus ]]; then
		for f in "$PROGS"/*.bpf.o; do
			f=${f##*/}
			echo "${f%.bpf.o}"
		done
	else
		for f in "$DEB_OBJS"/*.o; do
			f=${f##*/}
			echo "${f%.o}"
		done
	fi
}

# parity_table MIN_ROWS: print the table (object, root, token, no token) of
# the group; no mismatch
parity_table() {
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
		# test in parity-debian.bats): there all three must fail
		expect="ok ok FAIL"
		[[ $name == xdpdump_bpf ]] && expect="FAIL FAIL FAIL"
		v=""
		[[ "$root $token $notoken" == "$expect" ]] || { v="  MISMATCH"; bad=$((bad + 1)); }
		printf '# %-24s %-6s %-8s %-8s%s\n' "$name" "$root" "$token" "$notoken" "$v" >&3
		rows=$((rows + 1))
	done < <(all_objects)
	if [[ $PARITY_GROUP == debian ]]; then
		# xdpdump_bpf.o loaded with its attach target set (trace_target),
		# the token allowing btf_get_fd_by_id as well (see its test)
		xdpdump_target_three_way
		read -r root token notoken <<<"$(verdict xdpdump_bpf+target)"
		v=""
		[[ "$root $token $notoken" == "ok ok FAIL" ]] || { v="  MISMATCH"; bad=$((bad + 1)); }
		printf '# %-24s %-6s %-8s %-8s%s\n' "xdpdump_bpf+target" "$root" "$token" "$notoken" "$v" >&3
		rows=$((rows + 1))
	fi
	echo "$rows objects, $bad mismatches"
	[[ $rows -ge $1 ]]
	[[ $bad == 0 ]]
}

# needs_from_object FILE: what `bpftool token needs OBJ` must print about the
# object of the .needs FILE: "CMDS MAPS PROGS ATTACHS" (the non-empty sets of
# its first line, in that order), then its lines about the verifier
# (needs_verifier); and, when the first line has "verifier relaxed" and no
# line says why or the other way around, a line saying so (which bpftool
# never prints).
needs_from_object() {
	local relaxed reasons
	awk 'NR == 1 {
		for (i = 1; i < NF; i += 2) set[$i] = $(i + 1)
		line = ""
		n = split("cmds maps progs attach", kw, " ")
		for (k = 1; k <= n; k++)
			if (set[kw[k]] != "") line = line (line == "" ? "" : " ") set[kw[k]]
		print line
	}' "$1"
	reasons=$(needs_verifier "$1")
	[[ -z $reasons ]] || echo "$reasons"
	relaxed=$(needs_relaxed "$1")
	[[ ($relaxed == relaxed && -n $reasons) || (-z $relaxed && -z $reasons) ]] ||
		echo "(.needs: its first line and its 'verifier relaxed:' lines disagree)"
}

# parity_needs_equal MIN: the .needs files and `bpftool token needs OBJ`
# (which reads the sets from the object, and verifies its programs for the
# relaxed verifier) agree, for every object of the group
parity_needs_equal() {
	local name want got out bad=0 n=0
	while read -r name; do
		[[ -f $(needs_path "$name") ]] || { echo "$name: no .needs"; bad=$((bad + 1)); continue; }
		want=$(needs_from_object "$(needs_path "$name")")
		out=$("$BPFTOOL" token needs "$(obj_path "$name")")
		got=$(sed -n 's/^\tallowed_\(cmds\|maps\|progs\|attachs\): //p' <<<"$out" |
			tr ' ' , | paste -sd' '
			grep $'^\tverifier: ' <<<"$out" || true)
		n=$((n + 1))
		[[ $got == "$want" ]] || {
			echo "$name: .needs:"
			echo "$want"
			echo "bpftool token needs:"
			echo "$got"
			bad=$((bad + 1))
		}
	done < <(all_objects)
	echo "$n objects, $bad differ"
	[[ $n -ge $1 ]]
	[[ $bad == 0 ]]
}

# parity_exact SAMPLE MIN MIN_ALL: every item of every .needs is needed: a
# token without it does not load the object the way root does (the load
# fails, or, for btf_load, libbpf loads without the object's BTF). An item is
# an element of a list (cmds, maps, progs, attach) or "verifier relaxed",
# whose token without it has the strict verifier. Taking
# every item out of every object's needs is about 100 loads per group, a
# long time under TCG: by default the objects of SAMPLE (covering every kind
# of item), all of them with PARITY_EXACT=all; at least MIN (MIN_ALL)
# items are checked.
parity_exact() {
	local name sets kind list item i j reduced out extra=0 checked=0
	local only=${PARITY_EXACT:-$1} min=$2
	[[ $only == all ]] && min=$3
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
			# "verifier relaxed": one item, without which the token
			# is strict
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
