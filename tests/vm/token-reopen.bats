#!/usr/bin/env bats
# A token made from a delegated BPF FS, reopened through /proc/self/fd/N by
# its holder: on mainline (Linux 6.12) the reopened file has no token behind
# it and BPF_MAP_CREATE with it oopses the kernel
# (tests/vm-mainline-host/token-reopen-oops.bats). This kernel refuses the
# reopen, and the token itself keeps working; the kernel log stays clean
# (scripts/vm-suite.sh checks it after every file).

load ../abi/lib

setup() {
	need "$BPFTOOL" "$TEST_BIN/token-delegated"
	WORK=$(mktemp -d /tmp/token-reopen.XXXXXX)
	chmod 0755 "$WORK"
	mkdir "$WORK/mnt"
	USERNS_PID=
}

teardown() {
	[[ -z $USERNS_PID ]] || kill "$USERNS_PID" 2>/dev/null || true
	rm -rf "$WORK"
}

@test "reopen of a delegated token through /proc/self/fd: refused, no oops, the token still works" {
	nobody_userns
	delegate "$WORK/mnt" cmds map_create maps array
	run in_userns "$TEST_BIN/token-delegated" --reopen "$WORK/mnt" 2
	echo "$output"
	[[ $status == 1 ]]
	[[ ${lines[0]} == "token: ok" ]]
	[[ ${lines[1]} == "reopen: EACCES" ]]
	# the token, not reopened, creates the map
	run in_userns "$TEST_BIN/token-delegated" "$WORK/mnt" 2
	echo "$output"
	[[ $status == 0 && $output == $'token: ok\nmap 2: ok' ]]
}
