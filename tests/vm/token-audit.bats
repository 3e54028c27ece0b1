#!/usr/bin/env bats
# The audit records of BPF tokens, seen from user space: with audit on and no
# audit daemon, the records of a token's creation, of a refusal through it
# and of its revocation reach the kernel log, naming the token by the id
# `bpftool token show` prints. The kernel side is tested by the selftests
# (token_audit).

load lib

AUDIT_ENABLE=$TEST_BIN/audit-enable

setup() {
	bpffs_dir audit
	# nobody pins its program here (the load fails before it does)
	chmod 0777 "$D"
}

teardown() {
	"$AUDIT_ENABLE" 0 2>/dev/null || true
	rm -rf "$D"
}

@test "audit: without an audit daemon, token records go to the kernel log" {
	need "$AUDIT_ENABLE"
	"$AUDIT_ENABLE" 1
	"$BPFTOOL" token create "$D/t" cmds map_create,prog_load,btf_load \
		maps array progs xdp attach xdp
	# the records name the token by its id, the one show prints (no more
	# records here: without a daemon they go through printk_ratelimit(),
	# 10 lines per 5 seconds, 3 lines a record with its SYSCALL and
	# PROCTITLE)
	id=$("$BPFTOOL" -j token show "$D/t" | jq '.id')
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
