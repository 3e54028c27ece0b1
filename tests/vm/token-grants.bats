#!/usr/bin/env bats
# What a token grants, seen from user space: a token that allows no tracing
# program type does not let its holder read kernel memory, one that allows
# one does (and libbpf keeps bpf_probe_read_kernel() for it, although its
# feature probe is not the token's to make); neither counts a denial for
# what libbpf probes. The kernel-side rules are tested by the selftests
# (prog_token_perfmon, token_lsm); the audit records of tokens by
# token-audit.bats.

load lib

OBJ=$PROGS/xdp_read_kernel.bpf.o

setup() {
	bpffs_dir grants
	# nobody pins its programs here
	chmod 0777 "$D"
}

teardown() {
	rm -rf "$D"
}

# token NAME PROGS: a token for nobody allowing the object's commands and
# maps and the program types PROGS
token() {
	"$BPFTOOL" token create "$D/$1" cmds map_create,prog_load,btf_load \
		maps array progs "$2" attach xdp
	chown $NOBODY:$NOBODY "$D/$1"
}

@test "grants: an XDP program reading kernel memory loads through a token only if the token allows a tracing type" {
	need "$OBJ"
	token xdp xdp
	token xdp_kprobe xdp,kprobe

	# bpftool knows before it loads
	run --separate-stderr as_nobody "$BPFTOOL" prog load "$OBJ" "$D/p1" \
		token "$D/xdp"
	show_run
	[[ $status != 0 ]]
	[[ $stderr == "Error: token $D/xdp does not allow a tracing program type (program 'xdp_read_kernel' calls bpf_get_current_task(), bpf_probe_read_kernel())" ]]
	# libbpf through LIBBPF_BPF_TOKEN_PATH loads it, and the verifier
	# refuses the helpers: libbpf did not replace them
	run --separate-stderr as_nobody env LIBBPF_BPF_TOKEN_PATH="$D/xdp" \
		"$BPFTOOL" prog load "$OBJ" "$D/p1"
	show_run
	[[ $status != 0 ]]
	[[ ! -e $D/p1 ]]
	[[ $stderr == *"unknown func bpf_get_current_task#35"* ]]
	[[ $stderr != *"bpf_probe_read#4"* ]]

	run --separate-stderr as_nobody env LIBBPF_BPF_TOKEN_PATH="$D/xdp_kprobe" \
		"$BPFTOOL" prog load "$OBJ" "$D/p2"
	show_run
	[[ $status == 0 ]]
	[[ $("$BPFTOOL" -j prog show pinned "$D/p2" | jq -r .type) == xdp ]]

	# libbpf's feature probes asked neither token for anything it refuses
	# (they use it for what it allows: the BTF and map counts are
	# libbpf's); one program was loaded through the second
	read -r _ _ p _ d <<<"$(token_uses "$D/xdp")"
	[[ "$p $d" == "0 0" ]]
	read -r _ _ p _ d <<<"$(token_uses "$D/xdp_kprobe")"
	[[ "$p $d" == "1 0" ]]
}
