#!/usr/bin/env bats
# What a token grants, seen from user space: a token that allows no tracing
# program type does not let its holder read kernel memory, one that allows
# one does (and libbpf keeps bpf_probe_read_kernel() for it, although its
# feature probe is not the token's to make); neither counts a denial for
# what libbpf probes; audit records of tokens reach the kernel log when
# audit is on without a daemon. The kernel-side rules are tested by the
# selftests (prog_token_perfmon, token_lsm, token_audit).

load lib

OBJ=$PROGS/xdp_read_kernel.bpf.o
AUDIT_ENABLE=$TEST_BIN/audit-enable

setup() {
	bpffs_dir grants
	# nobody pins its programs here
	chmod 0777 "$D"
}

teardown() {
	"$AUDIT_ENABLE" 0 2>/dev/null || true
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

@test "grants: without an audit daemon, token records go to the kernel log" {
	need "$AUDIT_ENABLE"
	"$AUDIT_ENABLE" 1
	"$BPFTOOL" token create "$D/t" cmds map_create,prog_load,btf_load \
		maps array progs xdp attach xdp
	# the records name the token by its id, the one show prints (no more
	# records here: without a daemon they go through printk_ratelimit(),
	# 10 lines per 5 seconds, 3 lines a record with its SYSCALL and
	# PROCTITLE)
	id=$("$BPFTOOL" -j token show "$D/t" | jq '.[0].id')
	[[ $id -ge 1 ]]
	# a refusal by the kernel: libbpf creates xdp_stack's STACK map
	# through the token
	chown $NOBODY:$NOBODY "$D/t"
	run as_nobody env LIBBPF_BPF_TOKEN_PATH="$D/t" \
		"$BPFTOOL" prog load "$PROGS/xdp_stack.bpf.o" "$D/p"
	[[ $status != 0 ]]
	rm "$D/t"
	"$AUDIT_ENABLE" 0
	run dmesg
	grep -E "type=1334 .*op=TOKEN_CREATE token=$id\$" <<<"$output"
	grep -E "type=1334 .*op=TOKEN_DENY token=$id cmd=map_create type=23\$" <<<"$output"
	grep -E "type=1334 .*op=TOKEN_REVOKE token=$id\$" <<<"$output"
	# and the kernel-log check of the suite does not take them for trouble
	! grep -E "$KERNEL_TROUBLE" <<<"$(grep 'type=1334' <<<"$output")"
}
