#!/usr/bin/env bats
# The VM of tests/vm-mainline runs Debian's mainline kernel
# (build/debian-kernel, scripts/debian-kernel.sh), scripts/vm-init.sh works
# on it, and it has what the other files of the directory test: mainline's
# BPF tokens. bpftool-delegate.bats (tests/host's file, run here as it is)
# skips every test on a kernel without them; here that is a failure.

load ../abi/lib

setup() {
	need "$BPFTOOL" "$TEST_BIN/token-delegated"
	WORK=
	USERNS_PID=
}

teardown() {
	[[ -z $USERNS_PID ]] || kill "$USERNS_PID" 2>/dev/null || true
	[[ -z $WORK ]] || rm -rf "$WORK"
}

@test "the VM runs Debian's kernel, the release build/debian-kernel/version names" {
	local want
	want=$(cut -d' ' -f1 "$BUILD/debian-kernel/version")
	echo "uname -r: $(uname -r); build/debian-kernel/version: $(<"$BUILD/debian-kernel/version")"
	[[ $want == 6.* && $(uname -r) == "$want" ]]
}

@test "vm-init on Debian's kernel: the 9p root read-only, BPF FS, cgroup2, tracefs; the kernel's BTF" {
	awk '{ print $2, $3, $4 }' /proc/mounts
	[[ $(awk '$2 == "/" { print $3 }' /proc/mounts) == 9p ]]
	[[ $(awk '$2 == "/" { print $4 }' /proc/mounts) == ro,* ]]
	[[ $(awk '$2 == "/sys/fs/bpf" { print $3 }' /proc/mounts) == bpf ]]
	[[ $(awk '$2 == "/sys/fs/cgroup" { print $3 }' /proc/mounts) == cgroup2 ]]
	[[ $(awk '$2 == "/sys/kernel/tracing" { print $3 }' /proc/mounts) == tracefs ]]
	# proc, sysfs and devtmpfs once each: the initramfs moved its own
	[[ $(awk '$2 == "/proc" || $2 == "/sys" || $2 == "/dev"' /proc/mounts | wc -l) == 3 ]]
	# (the next test reads it)
	[[ -s /sys/kernel/btf/vmlinux ]]
}

@test "mainline's tokens are there: bpftool-delegate.bats' reason to skip does not hold" {
	# the function by which that file decides, taken from it
	eval "$(sed -n '/^mainline_tokens() {$/,/^}$/p' "$BATS_TEST_DIRNAME/../host/bpftool-delegate.bats")"
	[[ $(type -t mainline_tokens) == function ]]
	mainline_tokens
	# and its other reasons: root, unshare and nsenter
	[[ $(id -u) == 0 ]]
	command -v unshare nsenter
}

@test "nobody's user namespace makes a token from the BPF FS root delegated to it, and creates what it allows" {
	WORK=$(mktemp -d /tmp/mainline-kernel.XXXXXX)
	chmod 0755 "$WORK"
	mkdir "$WORK/mnt"
	nobody_userns
	delegate "$WORK/mnt" cmds map_create maps array
	# array (2) through the token, hash (1) not
	run in_userns "$TEST_BIN/token-delegated" "$WORK/mnt" 2 1
	echo "$output"
	[[ $status == 0 && $output == $'token: ok\nmap 2: ok\nmap 1: EPERM' ]]
	# root's BPF FS, not made for the namespace: no token from it
	run in_userns "$TEST_BIN/token-delegated" /sys/fs/bpf 2
	echo "$output"
	[[ $status == 1 && $output == "token: EPERM" ]]
}
