#!/usr/bin/env bats
# Debian's libbpf 1.4 (build/debian-libbpf, unmodified; `make
# debian-libbpf`) loads a real BPF object of the project's corpus, the XDP
# program and array map of tests/progs/xdp_token.bpf.c as committed in the
# fuzz corpus, through a token it makes itself on mainline's ABI: from
# the delegated BPF FS at LIBBPF_BPF_TOKEN_PATH, or at /sys/fs/bpf when
# that is unset. The loader is nobody, root of a user namespace of its own
# (tests/abi/lib.bash), the application libbpf-load
# (tests/abi/libbpf-load.c), which sets no token option. Without
# the delegation, or with one that lacks what the object needs, the load
# is refused.

load lib

OBJ=$TOP/tests/fuzz/corpus/token_needs/obj-xdp_token
LOADER=$BUILD/debian-libbpf/libbpf-load

setup() {
	need "$BPFTOOL" "$LOADER" "$OBJ"
	WORK=$(mktemp -d /tmp/libbpf-token.XXXXXX)
	chmod 0755 "$WORK"
	mkdir "$WORK/mnt"
	USERNS_PID=
}

teardown() {
	[[ -z $USERNS_PID ]] || kill "$USERNS_PID" 2>/dev/null || true
	rm -rf "$WORK"
}

# What xdp_token needs (tests/progs/xdp_token.needs), and the socket
# filter with which libbpf 1.4 probes, through the token, that loading
# programs works at all (bpf_object__probe_loading(); a tracepoint program
# would do too): its expected attach type is 0, cgroup_inet_ingress, which
# mainline's token checks as well
NEEDS=(cmds map_create:prog_load:btf_load maps array progs xdp:socket_filter
	attach xdp:cgroup_inet_ingress)

@test "libbpf-load runs on Debian's libbpf 1.4, not the system's 1.1" {
	run ldd "$LOADER"
	echo "$output"
	[[ $output == *"libbpf.so.1 => $BUILD/debian-libbpf/usr/lib/"*"/libbpf.so.1 "* ]]
	[[ $(readlink -f "$BUILD"/debian-libbpf/usr/lib/*/libbpf.so.1) == */libbpf.so.1.4.* ]]
	run --separate-stderr "$LOADER"
	[[ $status == 2 && $output == "libbpf: 1.4" ]]
}

@test "libbpf 1.4 loads the object through a token from LIBBPF_BPF_TOKEN_PATH, in nobody's user namespace" {
	nobody_userns
	delegate "$WORK/mnt" "${NEEDS[@]}"
	run --separate-stderr in_userns env LIBBPF_BPF_TOKEN_PATH="$WORK/mnt" "$LOADER" "$OBJ"
	show_run
	[[ $status == 0 ]]
	[[ $output == $'libbpf: 1.4\nload: ok\ntoken: yes\nprog xdp_token_prog\nmap token_stats' ]]
}

@test "libbpf 1.4 loads the object through a token from /sys/fs/bpf, the delegated BPF FS of the namespace there" {
	nobody_userns
	delegate /sys/fs/bpf "${NEEDS[@]}"
	run --separate-stderr in_userns env -u LIBBPF_BPF_TOKEN_PATH "$LOADER" "$OBJ"
	show_run
	[[ $status == 0 ]]
	[[ $output == $'libbpf: 1.4\nload: ok\ntoken: yes\nprog xdp_token_prog\nmap token_stats' ]]
}

@test "without the delegation the same load is refused: root's BPF FS at /sys/fs/bpf, or no token" {
	nobody_userns
	# /sys/fs/bpf is root's BPF FS, not made for the namespace and
	# delegating nothing: no token from it, no load
	run --separate-stderr in_userns env -u LIBBPF_BPF_TOKEN_PATH "$LOADER" "$OBJ"
	show_run
	[[ $status == 1 ]]
	[[ $output == $'libbpf: 1.4\nload: EPERM\ntoken: no' ]]
	# the delegated BPF FS is there, but libbpf makes no token (an empty
	# LIBBPF_BPF_TOKEN_PATH): nobody's capabilities in its namespace are
	# not the kernel's
	delegate /sys/fs/bpf "${NEEDS[@]}"
	run --separate-stderr in_userns env LIBBPF_BPF_TOKEN_PATH= "$LOADER" "$OBJ"
	show_run
	[[ $status == 1 ]]
	[[ $output == $'libbpf: 1.4\nload: EPERM\ntoken: no' ]]
}

@test "a delegation that lacks the object's program type: the token is made, the program is refused" {
	nobody_userns
	# everything but XDP programs
	delegate "$WORK/mnt" cmds map_create:prog_load:btf_load maps array progs socket_filter \
		attach cgroup_inet_ingress
	run --separate-stderr in_userns env LIBBPF_BPF_TOKEN_PATH="$WORK/mnt" "$LOADER" "$OBJ"
	show_run
	[[ $status == 1 ]]
	[[ $output == $'libbpf: 1.4\nload: EPERM\ntoken: yes' ]]
	# (libbpf created the map, then the kernel refused the program)
	[[ $stderr == *"libbpf: prog 'xdp_token_prog': BPF program load failed: Operation not permitted"* ]]
}

@test "libbpf 1.4 needs more than the object does: exactly xdp_token's needs fail at its loading probe" {
	nobody_userns
	delegate "$WORK/mnt" cmds map_create:prog_load:btf_load maps array progs xdp attach xdp
	run --separate-stderr in_userns env LIBBPF_BPF_TOKEN_PATH="$WORK/mnt" "$LOADER" "$OBJ"
	show_run
	[[ $status == 1 ]]
	[[ $output == $'libbpf: 1.4\nload: EPERM\ntoken: yes' ]]
	[[ $stderr == *"Error in bpf_object__probe_loading():Operation not permitted(1)"* ]]
}
