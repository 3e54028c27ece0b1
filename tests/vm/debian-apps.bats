#!/usr/bin/env bats
# Existing Debian-packaged, dynamically linked libbpf applications, unmodified,
# through a BPF token: iproute2's tc and ip, xdp-tools' xdp-loader and
# xdp-filter. They run as the root of an unprivileged container
# (tests/vm/container.bash: uid 65534 outside, CAP_NET_ADMIN over its own
# network namespace only, no capability for BPF), with
#
#     LD_LIBRARY_PATH=<dir of the project's libbpf.so.1>
#     LIBBPF_BPF_TOKEN_PATH=<the token, in the container's BPF FS>
#
# For each: the same command fails without the token, and fails with the
# token but the system's libbpf (which does not know LIBBPF_BPF_TOKEN_PATH);
# it works with both, and what it loaded runs (frames are counted or dropped).

load lib
load container

setup() {
	LIBBPF_SO_DIR=$BUILD/libbpf
	need "$PROGS/ctr_xdp.bpf.o" "$PROGS/ctr_tc.bpf.o" "$LIBBPF_SO_DIR/libbpf.so.1"
	container_start
	TOKEN=/sys/fs/bpf/token
	OURS=(env LD_LIBRARY_PATH="$LIBBPF_SO_DIR")
	WITH_TOKEN=(env LD_LIBRARY_PATH="$LIBBPF_SO_DIR" LIBBPF_BPF_TOKEN_PATH=$TOKEN)
	SYSTEM_WITH_TOKEN=(env LIBBPF_BPF_TOKEN_PATH=$TOKEN)
}

teardown() {
	container_stop
}

# three_ways CMD...: CMD in the container fails without the token and with
# the system's libbpf, then succeeds with ours and the token (its output in
# $output)
three_ways() {
	run in_container "${OURS[@]}" "$@"
	echo "our libbpf, no token: status $status: $output"
	[[ $status != 0 ]]
	run in_container "${SYSTEM_WITH_TOKEN[@]}" "$@"
	echo "system libbpf, token: status $status: $output"
	[[ $status != 0 ]]
	run in_container "${WITH_TOKEN[@]}" "$@"
	echo "our libbpf, token: status $status: $output"
	[[ $status == 0 ]]
}

# no_xdp: nothing attached to $VC's XDP hook
no_xdp() {
	run in_container ip link show dev "$VC"
	[[ $output != *prog/xdp* ]]
}

@test "the applications link the system's libbpf.so.1 and take ours with LD_LIBRARY_PATH" {
	local b
	for b in /sbin/tc /sbin/ip /usr/sbin/xdp-loader /usr/sbin/xdp-filter; do
		ldd "$b" | grep -q 'libbpf\.so\.1 => /lib/x86_64-linux-gnu/libbpf\.so\.1'
		run in_container "${OURS[@]}" ldd "$b"
		[[ $output == *"libbpf.so.1 => $LIBBPF_SO_DIR/libbpf.so.1"* ]]
	done
	run in_container "${OURS[@]}" tc -V
	[[ $output == *"libbpf 1.1.0"* ]]
}

@test "tc filter add ... bpf da obj: a sched_cls program through the token" {
	container_token token "${CTR_TOKEN_ARGS[@]}"
	in_container tc qdisc add dev "$VC" clsact
	three_ways tc filter add dev "$VC" ingress bpf da obj "$PROGS/ctr_tc.bpf.o" sec tc
	run in_container tc filter show dev "$VC" ingress
	echo "$output"
	[[ $output == *"ctr_tc.bpf.o:[tc] direct-action"* ]]
	# exactly one filter: the failed attempts left nothing behind
	[[ $(grep -c 'direct-action' <<<"$output") == 1 ]]
	send_frames "$VH" 9
	[[ $(ctr_slot /sys/fs/bpf/tc/globals/ctr_tc_count 0) == 9 ]]
}

@test "ip link set dev ... xdp obj: an XDP program through the token" {
	container_token token "${CTR_TOKEN_ARGS[@]}"
	three_ways ip link set dev "$VC" xdp obj "$PROGS/ctr_xdp.bpf.o" sec xdp
	run in_container ip link show dev "$VC"
	echo "$output"
	[[ $output == *"prog/xdp id"* ]]
	send_frames "$VH" 11
	[[ $(ctr_slot /sys/fs/bpf/xdp/globals/ctr_xdp_count 0) == 11 ]]
	in_container ip link set dev "$VC" xdp off
	no_xdp
}

# xdp_net_progs: "TYPE NAME UID" of every program on $VC's XDP hook and of
# the extensions in the slots of a libxdp dispatcher (pinned by libxdp in
# the container's BPF FS), as root sees them
xdp_net_progs() {
	local id pin
	for id in $(nsenter -t "$CPID" -n "$BPFTOOL" -j net show dev "$VC" |
		jq -r '.[0].xdp[]?.id'); do
		"$BPFTOOL" -j prog show id "$id" | jq -r '"\(.type) \(.name) \(.uid)"'
	done
	for pin in $(root_in_container sh -c 'ls /sys/fs/bpf/xdp/dispatch-*/prog*-prog 2>/dev/null'); do
		root_in_container "$BPFTOOL" -j prog show pinned "$pin" |
			jq -r '"\(.type) \(.name) \(.uid)"'
	done
}

@test "xdp-loader load: an XDP program through the token" {
	container_token token "${CTR_TOKEN_ARGS[@]}"
	# -p: where libxdp pins the object's maps
	in_container mkdir /sys/fs/bpf/ctr
	three_ways xdp-loader load -m native -p /sys/fs/bpf/ctr "$VC" "$PROGS/ctr_xdp.bpf.o"
	run in_container ip link show dev "$VC"
	echo "$output"
	[[ $output == *"prog/xdp id"* ]]
	# the token allows no extension program: libxdp attached the program
	# itself, without its dispatcher
	run xdp_net_progs
	echo "$output"
	[[ $output == "xdp ctr_xdp_prog 65534" ]]
	send_frames "$VH" 13
	[[ $(ctr_slot /sys/fs/bpf/ctr/ctr_xdp_count 0) == 13 ]]
	in_container ip link set dev "$VC" xdp off
	no_xdp
}

# libxdp's dispatcher: an XDP program whose slots libxdp fills with the
# object's programs loaded as extensions (freplace). libxdp reads the
# dispatcher's BTF by id (btf__load_from_kernel_by_id(), which our libbpf
# retries through LIBBPF_BPF_TOKEN_PATH), and libbpf the target function's
# for the extension: the token allows ext and btf_get_fd_by_id as well.
# The dispatcher compares its context pointer with NULL, which the verifier
# allows every loader: the token needs no tracing type and no relaxed
# verifier.
@test "xdp-loader load: libxdp's dispatcher with the program as an extension, through the token" {
	container_token token cmds map_create,prog_load,btf_load,btf_get_fd_by_id \
		maps array progs xdp,ext attach xdp
	in_container mkdir /sys/fs/bpf/ctr
	three_ways xdp-loader load -m native -p /sys/fs/bpf/ctr "$VC" "$PROGS/ctr_xdp.bpf.o"
	run xdp_net_progs
	echo "$output"
	[[ $output == "xdp xdp_dispatcher 65534
ext ctr_xdp_prog 65534" ]]
	# libxdp pinned the dispatcher's slot in the container's BPF FS
	run in_container sh -c 'ls -d /sys/fs/bpf/xdp/dispatch-*/prog0-prog /sys/fs/bpf/xdp/dispatch-*/prog0-link'
	echo "$output"
	[[ $status == 0 && ${#lines[@]} == 2 ]]
	send_frames "$VH" 17
	[[ $(ctr_slot /sys/fs/bpf/ctr/ctr_xdp_count 0) == 17 ]]
	# xdp-loader status and unload look the attached program up by id
	# (BPF_PROG_GET_FD_BY_ID), which no token allows: detach with ip
	run in_container "${WITH_TOKEN[@]}" xdp-loader status "$VC"
	echo "$output"
	[[ $output == *"couldn't get program fd: Operation not permitted"* ]]
	in_container ip link set dev "$VC" xdp off
	no_xdp
}

@test "xdp-filter load + ether: Debian's own XDP objects through the token drop the frames" {
	# what xdp-filter's objects (xdpfilt_*.o, percpu maps; arithmetic on
	# packet pointers the verifier allows only with the relaxed verifier,
	# which bpftool token needs finds by a trial verification) and libxdp's
	# dispatcher need; and ctr_tc behind it, to see what gets through
	container_token token cmds map_create,prog_load,btf_load \
		maps array,percpu_array,percpu_hash progs sched_cls,xdp \
		attach xdp verifier relaxed
	in_container tc qdisc add dev "$VC" clsact
	in_container "${WITH_TOKEN[@]}" tc filter add dev "$VC" ingress bpf da \
		obj "$PROGS/ctr_tc.bpf.o" sec tc

	three_ways xdp-filter load -m native "$VC"
	run in_container ip link show dev "$VC"
	echo "$output"
	[[ $output == *"prog/xdp id"* ]]
	# its maps, pinned in the container's BPF FS
	run in_container ls /sys/fs/bpf/xdp-filter
	echo "$output"
	[[ $output == *filter_ethernet* ]]

	# allowed by default: the frames reach tc
	send_frames "$VH" 6
	[[ $(ctr_slot /sys/fs/bpf/tc/globals/ctr_tc_count 0) == 6 ]]
	# a rule (written into the pinned map, no privilege needed): the source
	# MAC of send_frames is dropped
	run in_container xdp-filter ether -m src 02:00:00:00:00:01
	echo "$output"
	[[ $status == 0 ]]
	send_frames "$VH" 8
	[[ $(ctr_slot /sys/fs/bpf/tc/globals/ctr_tc_count 0) == 6 ]]
	# and removed again
	run in_container xdp-filter ether -r -m src 02:00:00:00:00:01
	[[ $status == 0 ]]
	send_frames "$VH" 3
	[[ $(ctr_slot /sys/fs/bpf/tc/globals/ctr_tc_count 0) == 9 ]]
	in_container ip link set dev "$VC" xdp off
	no_xdp
}

@test "libbpf.so.1: the *_get_fd_by_id_opts() of Debian's ABI open objects by id" {
	local d=/sys/fs/bpf/debian-apps-$BATS_TEST_NUMBER id
	rm -rf "$d"
	mkdir "$d"
	"$BPFTOOL" map create "$d/m" type array key 4 value 8 entries 1 name byid
	id=$("$BPFTOOL" -j map show pinned "$d/m" | jq -r .id)
	# as an application built against Debian's libbpf calls them: opts with
	# sz and open_flags (BPF_F_RDONLY = 1 << 3)
	run /usr/bin/python3 - "$LIBBPF_SO_DIR/libbpf.so.1" "$id" <<-'EOF'
	import ctypes, os, sys
	lib = ctypes.CDLL(sys.argv[1], use_errno=True)
	class Opts(ctypes.Structure):
	    _fields_ = [("sz", ctypes.c_size_t), ("open_flags", ctypes.c_uint32)]
	def call(name, id, flags, sz=ctypes.sizeof(Opts)):
	    f = getattr(lib, name)
	    f.argtypes = [ctypes.c_uint32, ctypes.POINTER(Opts)]
	    r = f(id, ctypes.byref(Opts(sz, flags)))
	    if r >= 0:
	        link = os.readlink("/proc/self/fd/%d" % r)
	        os.close(r)
	        return link
	    return os.strerror(-r)
	mid = int(sys.argv[2])
	print("map rdonly:", call("bpf_map_get_fd_by_id_opts", mid, 1 << 3))
	print("map bad flags:", call("bpf_map_get_fd_by_id_opts", mid, 1 << 20))
	print("map bad sz:", call("bpf_map_get_fd_by_id_opts", mid, 0, sz=4))
	print("prog none:", call("bpf_prog_get_fd_by_id_opts", 0x7fffffff, 0))
	print("btf none:", call("bpf_btf_get_fd_by_id_opts", 0x7fffffff, 0))
	print("link none:", call("bpf_link_get_fd_by_id_opts", 0x7fffffff, 0))
	EOF
	echo "$output"
	rm -rf "$d"
	[[ $status == 0 ]]
	[[ ${lines[0]} == "map rdonly: anon_inode:bpf-map" ]]
	[[ ${lines[1]} == "map bad flags: Invalid argument" ]]
	[[ ${lines[2]} == "map bad sz: Invalid argument" ]]
	[[ ${lines[3]} == "prog none: No such file or directory" ]]
	[[ ${lines[4]} == "btf none: No such file or directory" ]]
	[[ ${lines[5]} == "link none: No such file or directory" ]]
}
