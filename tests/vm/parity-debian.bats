#!/usr/bin/env bats
# Parity of loading through a BPF token with loading as root, for the BPF
# objects Debian ships in xdp-tools and libxdp1 (/usr/lib/<multiarch>/bpf;
# their needs in tests/parity/xdp-tools/), xdpdump's tracing programs with
# their attach target among them. How: tests/vm/parity.bash; the project's
# corpus: tests/vm/parity.bats.

load lib

PARITY_GROUP=debian

load parity

setup() {
	parity_setup
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

@test "parity: the table of Debian's objects (object, root, token, no token) has no mismatch" {
	parity_table 16
}

@test "parity: every .needs of Debian's objects is what bpftool token needs prints for its object" {
	parity_needs_equal 15
}

@test "parity: every item of every .needs of Debian's objects is needed (PARITY_EXACT objects)" {
	parity_exact "xdp-dispatcher xdpfilt_alw_all" 13 80
}
