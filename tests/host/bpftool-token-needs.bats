#!/usr/bin/env bats
# bpftool token needs on the host, no patched kernel needed (computed from
# the objects alone; the trial verification loads them into this host's
# kernel): the sets of commands, maps, programs and attach types, the cgroup
# hint, the programs that read kernel memory, the relaxed verifier, the
# formats of the delegation tools, the project's objects and their
# tests/progs/*.needs, bad and malformed objects.

bats_require_minimum_version 1.5.0

load bpftool-token

setup_file() {
	compile_test_objects
}

# needs_plain OBJ... -- CMDS MAPS PROGS ATTACHS: the expected plain output of
# token needs, sets as space-separated names
needs_plain() {
	while [[ $1 != -- ]]; do
		echo "$1"
		shift
	done
	shift
	printf '\tallowed_cmds:%s\n\tallowed_maps:%s\n\tallowed_progs:%s\n\tallowed_attachs:%s\n' \
		"${1:+ $1}" "${2:+ $2}" "${3:+ $3}" "${4:+ $4}"
}

CGROUP_HINT=$'\tcgroup: needed to attach (create the token with "cgroup CGROUP")'

@test "token needs: every map, internal and inner ones included, every autoloaded program, BTF" {
	# mix.bpf.o: .rodata, .data, .bss and .kconfig (arrays), a percpu hash,
	# a ring buffer, an array of maps whose inner map is a hash; a kprobe
	# and a tracepoint (whose attach type the kernel does not consult at
	# load: none), a cgroup_skb/egress program (cgroup_inet_egress, and a
	# cgroup scope to attach it), and an XDP program whose autoload is off
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_MIX"
	echo "status $status, stderr '$stderr'"
	echo "$output"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(needs_plain "$OBJ_MIX" -- "map_create prog_load btf_load" \
		"hash array percpu_hash array_of_maps ringbuf" "kprobe tracepoint cgroup_skb" \
		"cgroup_inet_egress"; echo "$CGROUP_HINT") <(echo "$output")

	# without BTF (no -g), no map: just the program, no attach type
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_NOBTF"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(needs_plain "$OBJ_NOBTF" -- prog_load "" socket_filter "") \
		<(echo "$output")
}

@test "token needs: the attach type only for the program types that consult it, the cgroup hint for cgroup programs" {
	local sec type attach hint f=$BATS_TEST_TMPDIR/sec.bpf.o
	# section: program type, attach type the token must allow, cgroup hint
	while read -r sec type attach hint; do
		[[ $attach == - ]] && attach=
		clang -target bpf -O2 -c -x c -o "$f" - <<-EOF
		#define SEC(n) __attribute__((section(n), used))
		SEC("$sec") int prog(void *ctx) { return 0; }
		char LICENSE[] SEC("license") = "GPL";
		EOF
		run --separate-stderr "$BPFTOOL" -j token needs "$f"
		echo "$sec: $output $stderr"
		[[ $status == 0 ]]
		[[ $(jq -c '[.allowed_progs, .allowed_attachs, .cgroup_scope_needed]' <<<"$output") == \
			"$(jq -nc --arg t "$type" --arg a "$attach" --argjson h "$hint" \
				'[[$t], [$a | select(. != "")], $h]')" ]]
	done <<-'EOF'
	socket		socket_filter		-			false
	kprobe/f	kprobe			-			false
	tracepoint/a/b	tracepoint		-			false
	perf_event	perf_event		-			false
	raw_tp/x	raw_tracepoint		-			false
	tc		sched_cls		-			false
	action		sched_act		-			false
	lwt_in		lwt_in			-			false
	sk_skb		sk_skb			-			false
	sk_msg		sk_msg			-			false
	flow_dissector	flow_dissector		-			false
	cgroup/dev	cgroup_device		-			true
	cgroup/sysctl	cgroup_sysctl		-			true
	sockops		sock_ops		-			true
	xdp		xdp			xdp			false
	sk_lookup	sk_lookup		sk_lookup		false
	sk_reuseport	sk_reuseport		sk_reuseport_select	false
	cgroup_skb/ingress cgroup_skb		cgroup_inet_ingress	true
	cgroup/sock_create cgroup_sock		cgroup_inet_sock_create	true
	cgroup/connect4	cgroup_sock_addr	cgroup_inet4_connect	true
	cgroup/getsockopt cgroup_sockopt	cgroup_getsockopt	true
	fentry/f	tracing			trace_fentry		false
	lsm/file_open	lsm			lsm_mac			false
	lsm_cgroup/socket_bind lsm		lsm_cgroup		true
	EOF
}

@test "token needs: an extension (freplace) program also needs btf_get_fd_by_id" {
	# libbpf reads the BTF of the program it replaces a function of by id
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_EXT"
	echo "status $status, stderr '$stderr'"
	echo "$output"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(needs_plain "$OBJ_EXT" -- "prog_load btf_load btf_get_fd_by_id" "" ext ""
		echo $'\tverifier: unknown (program \'replacement\' (ext) can\'t be tried without CAP_PERFMON)') \
		<(echo "$output")
}

@test "token needs: several objects are merged, JSON is one object with the objects" {
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_NOBTF" "$OBJ_MIX" "$OBJ_NOBTF"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(needs_plain "$OBJ_NOBTF" "$OBJ_MIX" "$OBJ_NOBTF" -- "map_create prog_load btf_load" \
		"hash array percpu_hash array_of_maps ringbuf" "socket_filter kprobe tracepoint cgroup_skb" \
		"cgroup_inet_egress"; echo "$CGROUP_HINT") <(echo "$output")

	run --separate-stderr "$BPFTOOL" -j token needs "$OBJ_MIX" "$OBJ_NOBTF"
	echo "$output"
	[[ $status == 0 && -z $stderr ]]
	[[ $(jq -c . <<<"$output") == "$(jq -nc --arg a "$OBJ_MIX" --arg b "$OBJ_NOBTF" '{
		objects: [$a, $b],
		allowed_cmds: ["map_create", "prog_load", "btf_load"],
		allowed_maps: ["hash", "array", "percpu_hash", "array_of_maps", "ringbuf"],
		allowed_progs: ["socket_filter", "kprobe", "tracepoint", "cgroup_skb"],
		allowed_attachs: ["cgroup_inet_egress"],
		cgroup_scope_needed: true,
		reads_kernel_memory: [],
		relaxed_verifier: {needed: false, programs: [], unknown: null}}')" ]]
	# -p: the same document
	compact=$(jq -c . <<<"$output")
	run --separate-stderr "$BPFTOOL" -p token needs "$OBJ_MIX" "$OBJ_NOBTF"
	[[ ${#lines[@]} -gt 1 && $(jq -c . <<<"$output") == "$compact" ]]
}

@test "token needs: the project's test objects" {
	local progs=$BUILD/progs
	[[ -f $progs/xdp_read_kernel.bpf.o ]] || { echo "no $progs: build the tests (make test-build)"; false; }
	# an XDP program that calls bpf_get_current_task() and
	# bpf_probe_read_kernel(): a tracing type as well
	run --separate-stderr "$BPFTOOL" token needs "$progs/xdp_read_kernel.bpf.o"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(needs_plain "$progs/xdp_read_kernel.bpf.o" -- "map_create prog_load btf_load" array \
		"tracepoint xdp" xdp
		kmem_hint xdp_read_kernel "bpf_get_current_task(), bpf_probe_read_kernel()" tracepoint) \
		<(echo "$output")
	run --separate-stderr "$BPFTOOL" -j token needs "$progs/xdp_read_kernel.bpf.o"
	[[ $status == 0 && -z $stderr ]]
	[[ $(jq -c '[.allowed_progs, .reads_kernel_memory]' <<<"$output") == \
		"$(jq -nc --arg o "$progs/xdp_read_kernel.bpf.o" \
			'[["tracepoint", "xdp"], [{object: $o, program: "xdp_read_kernel",
			  helpers: ["bpf_get_current_task", "bpf_probe_read_kernel"]}]]')" ]]
	# and the same object in the other tools' syntax
	run --separate-stderr "$BPFTOOL" token needs "$progs/xdp_read_kernel.bpf.o" format mount
	[[ $status == 0 && -z $stderr ]]
	# (with libbpf 1.4's socket filter, and its attach type 0)
	[[ $output == "delegate_cmds=map_create:prog_load:btf_load,delegate_maps=array,delegate_progs=socket_filter:tracepoint:xdp,delegate_attachs=cgroup_inet_ingress:xdp" ]]
	# objects without such calls: no tracing type, no hint (xdp_token
	# calls bpf_jiffies64(), which CAP_BPF allows)
	run --separate-stderr "$BPFTOOL" token needs "$progs/xdp_token.bpf.o"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(needs_plain "$progs/xdp_token.bpf.o" -- "map_create prog_load btf_load" array xdp xdp) \
		<(echo "$output")
	run --separate-stderr "$BPFTOOL" -j token needs "$progs/xdp_token.bpf.o"
	[[ $(jq -c '.reads_kernel_memory' <<<"$output") == '[]' ]]
	run --separate-stderr "$BPFTOOL" token needs "$progs/xdp_stack.bpf.o"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(needs_plain "$progs/xdp_stack.bpf.o" -- "map_create prog_load btf_load" stack xdp xdp) \
		<(echo "$output")
	run --separate-stderr "$BPFTOOL" token needs "$progs/sockfilter.bpf.o"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(needs_plain "$progs/sockfilter.bpf.o" -- "map_create prog_load btf_load" array \
		socket_filter "") <(echo "$output")
	# tracing programs calling them: their type is enough
	run --separate-stderr "$BPFTOOL" token needs "$progs/kprobe_ringbuf.bpf.o"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(needs_plain "$progs/kprobe_ringbuf.bpf.o" -- "map_create prog_load btf_load" \
		"hash array ringbuf" kprobe "") <(echo "$output")
}

# kmem_hint PROG HELPERS TYPES: the line of token needs for a program that
# reads kernel memory
kmem_hint() {
	printf '\tkernel memory: program \x27%s\x27 calls %s: the token allows a tracing program type (%s)\n' \
		"$1" "$2" "$3"
}

@test "token needs: non-tracing programs that call helpers reading kernel memory, directly, from a subprogram or a callback" {
	local kp=$BATS_TEST_TMPDIR/kp.bpf.o
	# kmem.bpf.o: xdp_direct calls bpf_trace_printk() and
	# bpf_get_current_task(); tc_sub calls a .text subprogram that calls
	# bpf_probe_read_kernel(); skb_cb passes bpf_loop() a callback that
	# calls bpf_trace_printk(). Not flagged: sock_clean (a subprogram
	# without such calls), xdp_kfunc (a kfunc call), off (autoload off).
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_KMEM"
	echo "status $status, stderr '$stderr'"
	echo "$output"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(needs_plain "$OBJ_KMEM" -- "map_create prog_load btf_load" array \
		"socket_filter sched_cls tracepoint xdp cgroup_skb" "cgroup_inet_ingress xdp"
		echo "$CGROUP_HINT"
		kmem_hint xdp_direct "bpf_trace_printk(), bpf_get_current_task()" tracepoint
		kmem_hint tc_sub "bpf_probe_read_kernel()" tracepoint
		kmem_hint skb_cb "bpf_trace_printk()" tracepoint) <(echo "$output")

	run --separate-stderr "$BPFTOOL" -j token needs "$OBJ_KMEM"
	[[ $status == 0 && -z $stderr ]]
	[[ $(jq -c '.reads_kernel_memory' <<<"$output") == "$(jq -nc --arg o "$OBJ_KMEM" '[
		{object: $o, program: "xdp_direct", helpers: ["bpf_trace_printk", "bpf_get_current_task"]},
		{object: $o, program: "tc_sub", helpers: ["bpf_probe_read_kernel"]},
		{object: $o, program: "skb_cb", helpers: ["bpf_trace_printk"]}]')" ]]
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_KMEM" format systemd
	[[ $status == 0 && -z $stderr ]]
	[[ $output == *$'\nBPFDelegatePrograms=BPFProgTypeSocketFilter,BPFProgTypeSchedCls,BPFProgTypeTracepoint,BPFProgTypeXdp,BPFProgTypeCgroupSkb\n'* ]]

	# with an object that has a tracing program (a kprobe calling
	# bpf_get_current_task(), which its type allows): no tracepoint, the
	# hint names the kprobe type
	clang -target bpf -O2 -c -x c -o "$kp" - <<-'EOF'
	#define SEC(n) __attribute__((section(n), used))
	static long (*bpf_get_current_task)(void) = (void *)35;
	SEC("kprobe/f") int kp(void *ctx) { return bpf_get_current_task() != 0; }
	char LICENSE[] SEC("license") = "GPL";
	EOF
	run --separate-stderr "$BPFTOOL" token needs "$kp"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(needs_plain "$kp" -- prog_load "" kprobe "") <(echo "$output")
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_KMEM" "$kp"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(needs_plain "$OBJ_KMEM" "$kp" -- "map_create prog_load btf_load" array \
		"socket_filter kprobe sched_cls xdp cgroup_skb" "cgroup_inet_ingress xdp"
		echo "$CGROUP_HINT"
		kmem_hint xdp_direct "bpf_trace_printk(), bpf_get_current_task()" kprobe
		kmem_hint tc_sub "bpf_probe_read_kernel()" kprobe
		kmem_hint skb_cb "bpf_trace_printk()" kprobe) <(echo "$output")
	# the formats' loader, libbpf 1.4, probes bpf_probe_read_kernel() with
	# a tracepoint program and has tc_sub call bpf_probe_read() instead
	# when the token refuses it, which a tc program does not have: there,
	# tracepoint as well; not for the kprobe alone
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_KMEM" "$kp" format mount
	[[ $status == 0 && -z $stderr ]]
	[[ $output == *,delegate_progs=socket_filter:kprobe:sched_cls:tracepoint:xdp:cgroup_skb,* ]]
	run --separate-stderr "$BPFTOOL" token needs "$kp" format mount
	[[ $status == 0 && -z $stderr ]]
	[[ $output == delegate_cmds=prog_load,delegate_progs=socket_filter:kprobe,delegate_attachs=cgroup_inet_ingress ]]
	# and with mix.bpf.o (a kprobe and a tracepoint): both named
	run --separate-stderr "$BPFTOOL" -j token needs "$OBJ_MIX" "$OBJ_KMEM"
	[[ $(jq -c '[.allowed_progs, (.reads_kernel_memory | length)]' <<<"$output") == \
		'[["socket_filter","kprobe","sched_cls","tracepoint","xdp","cgroup_skb"],3]' ]]
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_MIX" "$OBJ_KMEM"
	[[ ${lines[-1]} == "$(kmem_hint skb_cb "bpf_trace_printk()" "kprobe, tracepoint")" ]]
}

# mask_regs: stdin with the register a verifier message starts with ("R7
# leaks ...", after ": " or "(") as RN: its number is the compiler's choice
mask_regs() {
	sed -E 's/([:(] )R[0-9]+ /\1RN /g; s/\(R[0-9]+ /(RN /g'
}

# The trial verification loads the objects into this host's kernel, in a
# child without CAP_PERFMON and CAP_SYS_ADMIN: the host suite runs as root.
@test "token needs: the trial verification names the programs the strict verifier refuses, with its message" {
	# relax.bpf.o: leak stores its context pointer in a map, cmp compares
	# a map value pointer with its context pointer, which every verifier
	# refuses without CAP_PERFMON; plain loads. Each is tried once the
	# programs before it are left out.
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_RELAX"
	echo "status $status, stderr '$stderr'"
	echo "$output"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(needs_plain "$OBJ_RELAX" -- "map_create prog_load btf_load" array \
			"socket_filter sched_cls xdp" xdp
		echo $'\tverifier: relaxed (program \'leak\': RN leaks addr into map)'
		echo $'\tverifier: relaxed (program \'cmp\': RN pointer comparison prohibited)') \
		<(mask_regs <<<"$output")

	run --separate-stderr "$BPFTOOL" -j token needs "$OBJ_RELAX"
	[[ $status == 0 && -z $stderr ]]
	[[ $(jq -c '.relaxed_verifier | [.needed, [.programs[] | .object, .name], .unknown]' <<<"$output") == \
		"$(jq -nc --arg o "$OBJ_RELAX" '[true, [$o, "leak", $o, "cmp"], null]')" ]]
	[[ $(jq -r '.relaxed_verifier.programs[0].reason' <<<"$output") =~ ^R[0-9]+\ leaks\ addr\ into\ map$ ]]

	# a tracing type in the sets gives these relaxations: nothing tried
	run --separate-stderr "$BPFTOOL" -j token needs "$OBJ_RELAX" "$OBJ_MIX"
	[[ $status == 0 && -z $stderr ]]
	[[ $(jq -c .relaxed_verifier <<<"$output") == '{"needed":false,"programs":[],"unknown":null}' ]]
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_RELAX" "$OBJ_KMEM"
	[[ $status == 0 && -z $stderr && $output != *verifier:* ]]

	# the formats have no such flag: a note on stderr, none with -j
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_RELAX" format systemd
	[[ $status == 0 ]]
	[[ $output == *$'\nBPFDelegatePrograms=BPFProgTypeSocketFilter,BPFProgTypeSchedCls,BPFProgTypeXdp\n'* ]]
	[[ $(mask_regs <<<"$stderr") == "Note: the systemd format has no relaxed verifier, which program 'leak' (RN leaks addr into map), program 'cmp' (RN pointer comparison prohibited) need: the loader needs CAP_PERFMON, or the token a tracing program type, instead" ]]
	run --separate-stderr "$BPFTOOL" -j token needs "$OBJ_RELAX" format mount
	[[ $status == 0 && -z $stderr ]]
	[[ $(jq -r .format <<<"$output") == mount ]]
}

@test "token needs: the trial says when it can't tell: another failure, no capabilities" {
	local dir
	# bad.bpf.o reads past its context: no verifier loads it
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_BAD"
	echo "status $status, stderr '$stderr'"
	echo "$output"
	[[ $status == 0 && -z $stderr ]]
	[[ ${lines[-1]} == $'\tverifier: unknown (program \'bad\' fails to load with CAP_BPF and CAP_NET_ADMIN: invalid bpf_context access off=1000 size=4)' ]]
	run --separate-stderr "$BPFTOOL" -j token needs "$OBJ_BAD"
	[[ $(jq -c '.relaxed_verifier | [.needed, .programs]' <<<"$output") == '[null,[]]' ]]
	[[ $(jq -r .relaxed_verifier.unknown <<<"$output") == "program 'bad' fails to load with CAP_BPF and CAP_NET_ADMIN: "* ]]
	# what is known is said as well
	run --separate-stderr "$BPFTOOL" -j token needs "$OBJ_RELAX" "$OBJ_BAD"
	[[ $(jq -c '.relaxed_verifier | [.needed, [.programs[].name]]' <<<"$output") == '[true,["leak","cmp"]]' ]]
	[[ $(jq -r .relaxed_verifier.unknown <<<"$output") == "program 'bad' fails "* ]]

	# nobody, without capabilities, is not told anything it can't know
	dir=$(mktemp -d)
	chmod 0755 "$dir"
	install -m 0644 "$OBJ_RELAX" "$dir/relax.bpf.o"
	run --separate-stderr setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		--bounding-set=-all -- "$BPFTOOL" token needs "$dir/relax.bpf.o"
	rm -r "$dir"
	echo "status $status, stderr '$stderr'"
	echo "$output"
	[[ $status == 0 && -z $stderr ]]
	[[ ${lines[-1]} == $'\tverifier: unknown (the trial verification needs CAP_BPF and CAP_NET_ADMIN)' ]]
	[[ $output != *"verifier: relaxed"* ]]
}

@test "token needs: every helper the kernel reserves to CAP_PERFMON beyond the type, by id, and no other" {
	local f=$BATS_TEST_TMPDIR/h.bpf.o id name want got
	# helper id and name: bpf_base_func_proto()'s perfmon group,
	# bpf_sk_base_func_proto()'s socket casts, syscall programs'
	# bpf_sys_bpf() and bpf_kallsyms_lookup_name(); then helpers any program may call (map lookup,
	# bpf_ktime_get_ns(), bpf_jiffies64(), bpf_get_prandom_u32())
	while read -r id name; do
		clang -target bpf -O2 -c -x c -o "$f" - <<-EOF
		#define SEC(n) __attribute__((section(n), used))
		static long (*h)(long, long, long, long, long) = (void *)$id;
		SEC("tc") int prog(void *ctx) { return h(0, 0, 0, 0, 0); }
		char LICENSE[] SEC("license") = "GPL";
		EOF
		run --separate-stderr "$BPFTOOL" -j token needs "$f"
		[[ $status == 0 ]]
		got=$(jq -c '[.allowed_progs, [.reads_kernel_memory[].helpers[]]]' <<<"$output")
		if [[ $name == - ]]; then
			want='[["sched_cls"],[]]'
		else
			want=$(jq -nc --arg n "$name" '[["sched_cls", "tracepoint"], [$n]]')
		fi
		echo "$id $name: $got"
		[[ $got == "$want" ]]
	done <<-'EOF'
	6	bpf_trace_printk
	35	bpf_get_current_task
	112	bpf_probe_read_user
	113	bpf_probe_read_kernel
	114	bpf_probe_read_user_str
	115	bpf_probe_read_kernel_str
	136	bpf_skc_to_tcp6_sock
	137	bpf_skc_to_tcp_sock
	138	bpf_skc_to_tcp_timewait_sock
	139	bpf_skc_to_tcp_request_sock
	140	bpf_skc_to_udp6_sock
	149	bpf_snprintf_btf
	158	bpf_get_current_task_btf
	165	bpf_snprintf
	166	bpf_sys_bpf
	175	bpf_task_pt_regs
	177	bpf_trace_vprintk
	178	bpf_skc_to_unix_sock
	196	bpf_skc_to_mptcp_sock
	179	bpf_kallsyms_lookup_name
	1	-
	5	-
	7	-
	118	-
	EOF
}

# needs_format OBJ FORMAT: token needs OBJ format FORMAT succeeds, prints
# exactly stdin, and -j prints {"format": FORMAT, "lines": the same lines}.
needs_format() {
	local obj=$1 fmt=$2 want
	want=$(cat)
	run --separate-stderr "$BPFTOOL" token needs "$obj" format "$fmt"
	echo "$fmt: status $status, stderr '$stderr'"
	[[ $status == 0 && -z $stderr ]]
	diff -u <(echo "$want") <(echo "$output")
	run --separate-stderr "$BPFTOOL" -j token needs "$obj" format "$fmt"
	[[ $status == 0 && -z $stderr ]]
	[[ $(jq -c . <<<"$output") == "$(jq -Rnc --arg f "$fmt" '{format: $f, lines: [inputs]}' <<<"$want")" ]]
}

@test "token needs ... format: a corpus object in the syntax of each delegation tool" {
	local obj=$BUILD/progs/kprobe_ringbuf.bpf.o
	[[ -f $obj ]] || { echo "no $obj: build the tests (make test-build)"; false; }
	# a kprobe: no attach type here, but the kernels these tools
	# configure check the expected attach type (0) of every program; and
	# their loader, libbpf 1.4, loads a socket filter first
	needs_format "$obj" mount <<-'EOF'
	delegate_cmds=map_create:prog_load:btf_load,delegate_maps=hash:array:ringbuf,delegate_progs=socket_filter:kprobe,delegate_attachs=cgroup_inet_ingress
	EOF
	needs_format "$obj" incus <<-'EOF'
	security.bpffs.delegate_cmds=map_create,prog_load,btf_load
	security.bpffs.delegate_maps=hash,array,ringbuf
	security.bpffs.delegate_progs=socket_filter,kprobe
	security.bpffs.delegate_attachs=cgroup_inet_ingress
	EOF
	needs_format "$obj" lxd <<-'EOF'
	security.delegate_bpf=true
	security.delegate_bpf.cmd_types=map_create:prog_load:btf_load
	security.delegate_bpf.map_types=hash:array:ringbuf
	security.delegate_bpf.prog_types=socket_filter:kprobe
	security.delegate_bpf.attach_types=cgroup_inet_ingress
	EOF
	needs_format "$obj" systemd <<-'EOF'
	PrivateBPF=yes
	BPFDelegateCommands=BPFMapCreate,BPFProgLoad,BPFBtfLoad
	BPFDelegateMaps=BPFMapTypeHash,BPFMapTypeArray,BPFMapTypeRingbuf
	BPFDelegatePrograms=BPFProgTypeSocketFilter,BPFProgTypeKprobe
	BPFDelegateAttachments=BPFCgroupInetIngress
	EOF
}

@test "token needs ... format: a Debian object (xdp-tools' xdpdump_bpf.o) in the syntax of each tool" {
	local multiarch obj
	multiarch=$(${CC:-cc} -print-multiarch)
	obj=/usr/lib/$multiarch/bpf/xdpdump_bpf.o
	[[ -f $obj ]] || { echo "no $obj: install xdp-tools (make deps)"; false; }
	needs_format "$obj" mount <<-'EOF'
	delegate_cmds=map_create:prog_load:btf_load,delegate_maps=array:perf_event_array,delegate_progs=socket_filter:tracing,delegate_attachs=cgroup_inet_ingress:trace_fentry:trace_fexit
	EOF
	needs_format "$obj" incus <<-'EOF'
	security.bpffs.delegate_cmds=map_create,prog_load,btf_load
	security.bpffs.delegate_maps=array,perf_event_array
	security.bpffs.delegate_progs=socket_filter,tracing
	security.bpffs.delegate_attachs=cgroup_inet_ingress,trace_fentry,trace_fexit
	EOF
	needs_format "$obj" lxd <<-'EOF'
	security.delegate_bpf=true
	security.delegate_bpf.cmd_types=map_create:prog_load:btf_load
	security.delegate_bpf.map_types=array:perf_event_array
	security.delegate_bpf.prog_types=socket_filter:tracing
	security.delegate_bpf.attach_types=cgroup_inet_ingress:trace_fentry:trace_fexit
	EOF
	needs_format "$obj" systemd <<-'EOF'
	PrivateBPF=yes
	BPFDelegateCommands=BPFMapCreate,BPFProgLoad,BPFBtfLoad
	BPFDelegateMaps=BPFMapTypeArray,BPFMapTypePerfEventArray
	BPFDelegatePrograms=BPFProgTypeSocketFilter,BPFProgTypeTracing
	BPFDelegateAttachments=BPFCgroupInetIngress,BPFTraceFentry,BPFTraceFexit
	EOF
}

@test "token needs ... format: several objects merged; systemd names are the enum names in camel case" {
	# mix.bpf.o and ext.bpf.o: every attach type (0 for the kprobe,
	# tracepoint and extension), the sets merged, with libbpf 1.4's
	# socket filter
	needs_format "$OBJ_MIX" systemd <<-'EOF'
	PrivateBPF=yes
	BPFDelegateCommands=BPFMapCreate,BPFProgLoad,BPFBtfLoad
	BPFDelegateMaps=BPFMapTypeHash,BPFMapTypeArray,BPFMapTypePercpuHash,BPFMapTypeArrayOfMaps,BPFMapTypeRingbuf
	BPFDelegatePrograms=BPFProgTypeSocketFilter,BPFProgTypeKprobe,BPFProgTypeTracepoint,BPFProgTypeCgroupSkb
	BPFDelegateAttachments=BPFCgroupInetIngress,BPFCgroupInetEgress
	EOF
	run --separate-stderr "$BPFTOOL" token needs "$OBJ_NOBTF" "$OBJ_EXT" format mount
	[[ $status == 0 ]]
	# the trial can't load an extension program
	[[ $stderr == "Note: the mount format has no relaxed verifier, and whether the objects need it is unknown: program 'replacement' (ext) can't be tried without CAP_PERFMON" ]]
	[[ $output == "delegate_cmds=prog_load:btf_load:btf_get_fd_by_id,delegate_progs=socket_filter:ext,delegate_attachs=cgroup_inet_ingress" ]]
	# systemd's name is BPF and the rest of the enum name in camel case,
	# digits kept: BPF_MAP_TYPE_LPM_TRIE, BPF_PROG_TYPE_LWT_SEG6LOCAL,
	# BPF_CGROUP_INET4_CONNECT
	needs_format "$OBJ_NAMES" systemd <<-'EOF'
	PrivateBPF=yes
	BPFDelegateCommands=BPFMapCreate,BPFProgLoad,BPFBtfLoad
	BPFDelegateMaps=BPFMapTypeLpmTrie
	BPFDelegatePrograms=BPFProgTypeSocketFilter,BPFProgTypeCgroupSockAddr,BPFProgTypeLwtSeg6local
	BPFDelegateAttachments=BPFCgroupInetIngress,BPFCgroupInet4Connect
	EOF
	needs_format "$OBJ_NAMES" lxd <<-'EOF'
	security.delegate_bpf=true
	security.delegate_bpf.cmd_types=map_create:prog_load:btf_load
	security.delegate_bpf.map_types=lpm_trie
	security.delegate_bpf.prog_types=socket_filter:cgroup_sock_addr:lwt_seg6local
	security.delegate_bpf.attach_types=cgroup_inet_ingress:cgroup_inet4_connect
	EOF
	# while this kernel needs cgroup_inet4_connect only
	run "$BPFTOOL" -j token needs "$OBJ_NAMES"
	[[ $(jq -c '[.allowed_attachs, .cgroup_scope_needed]' <<<"$output") == '[["cgroup_inet4_connect"],true]' ]]
}

@test "token needs ... format: bad format, missing objects, one error line" {
	run_err "unknown format 'json': expected mount, incus, lxd or systemd" \
		token needs "$OBJ_MIX" format json
	run_err "missing FORMAT after 'format' (mount, incus, lxd or systemd)" \
		token needs "$OBJ_MIX" format
	run_err "missing OBJ: 'token needs' takes one or more object files" token needs format mount
	run_err "can't open object $D/none.o: No such file or directory" \
		token needs "$OBJ_MIX" "$D/none.o" format mount
	# an object file called format, or mount
	cp "$OBJ_NOBTF" "$D/format"
	run --separate-stderr "$BPFTOOL" token needs "$D/format" format mount
	[[ $status == 0 && $output == delegate_cmds=prog_load,* ]]
}

# The sets of a tests/progs/NAME.needs file, from its first line (cmds LIST
# maps LIST progs LIST attach LIST, as token create takes them, then
# "verifier relaxed" if the object needs it, which only verifying its
# programs on the project's kernel tells: left out here), one line per set,
# names in lower case and sorted.
needs_file_sets() {
	local -A sets=()
	local w kw
	read -ra w < <(sed -n '1{s/#.*//;p}' "$1")
	while ((${#w[@]} >= 2)); do
		sets[${w[0]}]=${w[1]}
		w=("${w[@]:2}")
	done
	for kw in cmds maps progs attach; do
		echo "$kw $(tr ',:' '\n\n' <<<"${sets[$kw]:-}" | tr 'A-Z' 'a-z' | grep . | sort | paste -sd,)"
	done
}

@test "token needs: agrees with the sets written down next to the test objects (tests/progs/*.needs)" {
	local f obj n=0
	for f in "$TOP"/tests/progs/*.needs; do
		[[ -f $f ]] || continue
		obj=$BUILD/progs/$(basename "$f" .needs).bpf.o
		[[ -f $obj ]] || { echo "no $obj: build the tests (make test-build)"; false; }
		echo "== $(basename "$f")"
		diff -u <(needs_file_sets "$f") <("$BPFTOOL" -j token needs "$obj" | jq -r '
			"cmds " + (.allowed_cmds | sort | join(",")),
			"maps " + (.allowed_maps | sort | join(",")),
			"progs " + (.allowed_progs | sort | join(",")),
			"attach " + (.allowed_attachs | sort | join(","))')
		n=$((n + 1))
	done
	echo "$n .needs files"
	[[ $n -ge 1 ]]
}

@test "token needs: bad input is one error line naming the object" {
	printf 'not an object\n' >"$D/text.o"
	run_err "missing OBJ: 'token needs' takes one or more object files (see 'bpftool token help')" \
		token needs
	run_err "can't open object $D/none.o: No such file or directory" token needs "$D/none.o"
	run_err "object $D/text.o is not an ELF file" token needs "$OBJ_MIX" "$D/text.o"
	run_err "object /bin/true is not a BPF object file (ELF machine 62)" token needs /bin/true
	run_err "object $D is not a file" token needs "$D"
	# an ELF BPF object libbpf can't open
	head -c 200 "$OBJ_MIX" >"$D/cut.o"
	run_err "can't open object $D/cut.o: " token needs "$D/cut.o"
	# a program in a section libbpf does not know
	run_err "$OBJ_ODD: program 'odd' has no program type (section 'frobnicate' is unknown to libbpf)" \
		token needs "$OBJ_ODD"
}

# The objects of tests/fuzz/corpus/token_needs/regress-*: each defect that
# crashed, hung or blew up bpftool's parse of objects, in an otherwise valid
# object (tests/fuzz/token_needs_regress.py).
@test "token needs: objects beyond the limits, and malformed ones, are one error line" {
	local corpus=$TOP/tests/fuzz/corpus/token_needs f n=0
	# sparse: 64 MiB and a byte
	truncate -s $((64 * 1024 * 1024 + 1)) "$D/big.o"
	run_err "object $D/big.o is too large (67108865 bytes): bpftool parses objects of up to 64 MiB" \
		token needs "$D/big.o"
	# libbpf would follow this loop of BTF types forever
	run timeout 60 "$BPFTOOL" token needs "$corpus/regress-btf-loop"
	[[ $status != 124 ]]
	for f in "$corpus"/regress-*; do
		[[ $f != */regress-rel-empty ]] || continue
		run_err "object $f is malformed: " token needs "$f"
		n=$((n + 1))
	done
	((n >= 10))
	run_err "object $corpus/regress-btf-loop is malformed: BTF type [8] contains itself (through type [8])" \
		token create "$D/t" object "$corpus/regress-btf-loop"
	# a relocation section without data: parsed
	run --separate-stderr "$BPFTOOL" token needs "$corpus/regress-rel-empty"
	[[ $status == 0 && -z $stderr ]]
	[[ $output == *"allowed_progs: xdp"* ]]
}
