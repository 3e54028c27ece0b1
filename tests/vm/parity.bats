#!/usr/bin/env bats
# Parity of loading through a BPF token with loading as root, for the
# project's corpus of real-world-shaped libbpf objects (tests/progs: CO-RE
# kprobe, tracepoint, raw_tp, fentry, tc, cgroup_skb, sk_lookup, XDP, socket
# filter, with .rodata/.data/.bss/.kconfig, ring and perf buffers, maps of
# maps, tail calls, spin locks), and syscount's `bpftool gen skeleton`
# application. How: tests/vm/parity.bash; Debian's objects:
# tests/vm/parity-debian.bats.

load lib

PARITY_GROUP=corpus

load parity

setup() {
	parity_setup
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

# --- the table ---

@test "parity: the corpus table (object, root, token, no token) has no mismatch" {
	parity_table 13
}

@test "parity: every .needs of the corpus is what bpftool token needs prints for its object" {
	parity_needs_equal 13
}

@test "parity: every item of every .needs of the corpus is needed (PARITY_EXACT objects)" {
	parity_exact "syscount cgroup_skb_maps tc_tailcall kprobe_ringbuf" 30 80
}
