# Shared by tests/vm/container.bats and tests/vm/debian-apps.bats (`load
# container`, after `load lib`): an unprivileged "container" and the tools
# to drive it.
#
# The container: uid 65534 runs `unshare --user --map-root-user --mount
# --net`, so its root is uid 65534 outside, with every capability inside its
# user namespace and none in the initial one. Root (the test) then mounts a
# BPF FS instance of the container's own on its /sys/fs/bpf (6.1's BPF FS
# cannot be mounted from inside a user namespace), owned by the container's
# root, and creates a veth pair: $VH stays outside, $VC moves in.

CUID=$NOBODY

# container_start: sets CPID (the container's init), VH and VC (veth ends)
container_start() {
	local i
	# "${AS_NOBODY[@]}", not as_nobody: $! must be the process that
	# becomes the container (setpriv execs unshare, which unshares and
	# execs sleep); no bats fd 3 in it, or bats waits for it
	"${AS_NOBODY[@]}" unshare --user --map-root-user --mount --net \
		sleep 100000 3>&- &
	CPID=$!
	# wait until it is in its namespaces with its uid map written
	for ((i = 0; i < 100; i++)); do
		[[ $(awk '{ print $1, $2, $3 }' "/proc/$CPID/uid_map" 2>/dev/null) == "0 $CUID 1" &&
			$(readlink "/proc/$CPID/ns/net") != "$(readlink /proc/self/ns/net)" ]] && break
		sleep 0.1
	done
	[[ $i -lt 100 ]] || { echo "container $CPID did not start"; return 1; }
	# a /run of its own, as any container has (tmpfs mounts are allowed
	# in a user namespace): xdp-loader takes its lock file there
	in_container mount -t tmpfs -o mode=0755 tmpfs /run
	nsenter -t "$CPID" -m mount -t bpf bpf /sys/fs/bpf
	nsenter -t "$CPID" -m chown $CUID:$CUID /sys/fs/bpf
	VH=ct${BATS_TEST_NUMBER}h
	VC=ct${BATS_TEST_NUMBER}c
	ip link add "$VH" type veth peer name "$VC"
	ip link set "$VC" netns "$CPID"
	ip link set "$VH" up
	in_container ip link set lo up
	in_container ip link set "$VC" up
}

container_stop() {
	[[ -z ${CPID:-} ]] || kill "$CPID" 2>/dev/null || true
	[[ -z ${CPID:-} ]] || wait "$CPID" 2>/dev/null || true
	[[ -z ${VH:-} ]] || ip link del "$VH" 2>/dev/null || true
	CPID=
}

# in_container CMD...: CMD as the container's root. Entered the way a
# container runtime's exec does, by the container's owner (uid 65534 with
# no capabilities) joining its namespaces: uid 0 inside, uid 65534 outside.
in_container() {
	as_nobody nsenter --preserve-credentials -t "$CPID" -U -m -n -- "$@"
}

# root_in_container CMD...: CMD as the initial namespace's root, in the
# container's mount namespace only (it sees the container's BPF FS)
root_in_container() {
	nsenter -t "$CPID" -m -- "$@"
}

# container_token NAME ARGS...: root creates `bpftool token create
# /sys/fs/bpf/NAME ARGS...` in the container's BPF FS and gives it to the
# container's root (owner, 0600: using a token takes a read-write open)
container_token() {
	local name=$1
	shift
	root_in_container "$BPFTOOL" token create "/sys/fs/bpf/$name" "$@"
	root_in_container chown $CUID:$CUID "/sys/fs/bpf/$name"
	root_in_container chmod 0600 "/sys/fs/bpf/$name"
}

# The sets that ctr_xdp.bpf.o and ctr_tc.bpf.o need (tc's SEC("tc") has
# the expected attach type 0, cgroup_inet_ingress)
CTR_TOKEN_ARGS=(cmds map_create,prog_load,btf_load maps array progs xdp,sched_cls
	attach xdp,cgroup_inet_ingress)

# ctr_slot PIN SLOT: the counter SLOT of the ctr map pinned at PIN, read by
# the container's root with bpftool (the map has no BTF types: bytes, little
# endian)
ctr_slot() {
	local hex
	hex=$(in_container "$BPFTOOL" -j map lookup pinned "$1" key "$2" 0 0 0 |
		jq -r '.value | map(ltrimstr("0x")) | reverse | join("")') || return 1
	[[ $hex =~ ^[0-9a-f]{16}$ ]] || { echo "bad value of $1 [$2]: '$hex'" >&2; return 1; }
	echo $((16#$hex))
}
