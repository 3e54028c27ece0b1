#!/usr/bin/env bats
# The container scenario, end to end: an unprivileged user's container (user,
# mount and network namespaces, tests/vm/container.bash) gets a BPF FS of its
# own from root and a token in it; the container's root, without any
# capability in the initial namespace, loads an XDP and a tc program through
# the token, attaches them to its end of a veth pair, and the frames sent
# over the veth from outside are counted. Then a token fd travels over a Unix
# socket (SCM_RIGHTS, build/tests/token-pass), and a token bound to the
# container's user namespace is useless outside it.

load lib
load container

setup() {
	LIBBPF_SO_DIR=$BUILD/libbpf
	need "$PROGS/ctr_xdp.bpf.o" "$PROGS/ctr_tc.bpf.o" "$TEST_BIN/token-pass" \
		"$LIBBPF_SO_DIR/libbpf.so.1"
	container_start
	# a directory both sides of the socket can reach (bats' own is root's,
	# 0700): /tmp is the same tmpfs in the container's (copied) mount
	# namespace
	S=/tmp/container-bats-$BATS_TEST_NUMBER
	rm -rf "$S"
	mkdir -m 0755 "$S"
	chown $CUID:$CUID "$S"
	# the environment of an unmodified libbpf application using the token
	WITH_TOKEN=(env LD_LIBRARY_PATH="$LIBBPF_SO_DIR" LIBBPF_BPF_TOKEN_PATH=/sys/fs/bpf/token)
}

teardown() {
	container_stop
	rm -rf "$S"
}

@test "container: its root is uid 65534 outside, all capabilities inside, none for BPF" {
	run in_container id -u
	[[ $output == 0 ]]
	# every capability, but in the container's user namespace
	run in_container awk '/^CapEff/ { print $2 }' /proc/self/status
	[[ $output == 000001ffffffffff ]]
	[[ $(readlink "/proc/$CPID/ns/user") != "$(readlink /proc/self/ns/user)" ]]
	# BPF FS cannot be mounted from inside on 6.1: that is why root does it
	run in_container mount -t bpf bpf /sys/fs/bpf
	echo "$output"
	[[ $status != 0 && ${output,,} == *"permission denied"* ]]
	# its /sys/fs/bpf is another BPF FS instance than the initial one, its root's
	[[ $(root_in_container stat -c %d:%i /sys/fs/bpf) != "$(stat -c %d:%i /sys/fs/bpf)" ]]
	[[ $(root_in_container stat -fc %T /sys/fs/bpf) == bpf_fs ]]
	run in_container stat -c %u /sys/fs/bpf
	[[ $output == 0 ]]
	# and without a token, BPF is refused: map creation, program load
	run in_container "$BPFTOOL" map create /sys/fs/bpf/m type array key 4 value 8 entries 1 name m
	echo "$output"
	[[ $status != 0 && $output == *"Operation not permitted"* ]]
	run in_container "$BPFTOOL" prog load "$PROGS/ctr_xdp.bpf.o" /sys/fs/bpf/p
	[[ $status != 0 ]]
	run in_container ls /sys/fs/bpf
	[[ -z $output ]]
}

@test "container: root creates a token in the container's BPF FS, only the container sees it" {
	container_token token "${CTR_TOKEN_ARGS[@]}"
	run in_container ls -ln /sys/fs/bpf/token
	echo "$output"
	[[ $output == "-rw------- 1 0 0 "* ]]
	run in_container "$BPFTOOL" -j token show /sys/fs/bpf/token
	echo "$output"
	[[ $status == 0 ]]
	[[ $(jq -c '.allowed_progs' <<<"$output") == '["sched_cls","xdp"]' ]]
	[[ $(jq -c '.allowed_attachs' <<<"$output") == '["cgroup_inet_ingress","xdp"]' ]]
	# not in the initial BPF FS
	[[ ! -e /sys/fs/bpf/token ]]
	run "$BPFTOOL" token list
	[[ $output != *"/sys/fs/bpf/token"* ]]
	# and the container's root creates a map through it
	run in_container "$BPFTOOL" map create /sys/fs/bpf/m type array key 4 value 8 entries 1 \
		name m token /sys/fs/bpf/token
	echo "$output"
	[[ $status == 0 ]]
	run in_container "$BPFTOOL" map show pinned /sys/fs/bpf/m
	[[ $output == *"array"*"name m"* ]]
}

@test "container: ip and tc load XDP and tc programs through the token and count the veth's frames" {
	local n=25 pin
	container_token token "${CTR_TOKEN_ARGS[@]}"

	# without the token: refused, nothing attached
	run in_container env LD_LIBRARY_PATH="$LIBBPF_SO_DIR" ip link set dev "$VC" xdp \
		obj "$PROGS/ctr_xdp.bpf.o" sec xdp
	echo "no token: $output"
	[[ $status != 0 && $output == *"Operation not permitted"* ]]
	run in_container ip link show dev "$VC"
	[[ $output != *prog/xdp* ]]

	# with the token: Debian's ip and tc, unmodified
	run in_container "${WITH_TOKEN[@]}" ip link set dev "$VC" xdp obj "$PROGS/ctr_xdp.bpf.o" sec xdp
	echo "ip: $output"
	[[ $status == 0 ]]
	run in_container tc qdisc add dev "$VC" clsact
	[[ $status == 0 ]]
	run in_container "${WITH_TOKEN[@]}" tc filter add dev "$VC" ingress bpf da \
		obj "$PROGS/ctr_tc.bpf.o" sec tc
	echo "tc: $output"
	[[ $status == 0 ]]
	run in_container ip link show dev "$VC"
	echo "$output"
	[[ $output == *"prog/xdp id"* ]]
	run in_container tc filter show dev "$VC" ingress
	echo "$output"
	[[ $output == *"ctr_tc.bpf.o:[tc] direct-action"* ]]
	# the programs hold the container's token (root's view)
	run "$BPFTOOL" -j prog show name ctr_xdp_prog
	[[ $status == 0 ]]

	# iproute2 pinned the counters by name in its globals directory (ip's
	# and xdp's directories are links to tc's)
	run in_container find /sys/fs/bpf -name 'ctr_*_count'
	echo "$output"
	[[ $output == *"/sys/fs/bpf/tc/globals/ctr_xdp_count"* ]]
	[[ $output == *"/sys/fs/bpf/tc/globals/ctr_tc_count"* ]]
	[[ $(ctr_slot /sys/fs/bpf/xdp/globals/ctr_xdp_count 0) == 0 ]]
	[[ $(ctr_slot /sys/fs/bpf/tc/globals/ctr_tc_count 0) == 0 ]]

	# root sends frames into the veth from outside; the container reads the counts
	send_frames "$VH" $n
	for pin in /sys/fs/bpf/xdp/globals/ctr_xdp_count /sys/fs/bpf/tc/globals/ctr_tc_count; do
		echo "$pin: test frames $(ctr_slot $pin 0), all frames $(ctr_slot $pin 1)"
		[[ $(ctr_slot $pin 0) == "$n" ]]
		[[ $(ctr_slot $pin 1) -ge $n ]]
	done

	# detach works as well (netlink, the container's CAP_NET_ADMIN)
	run in_container ip link set dev "$VC" xdp off
	[[ $status == 0 ]]
	run in_container tc filter del dev "$VC" ingress
	[[ $status == 0 ]]
	send_frames "$VH" 5
	[[ $(ctr_slot /sys/fs/bpf/xdp/globals/ctr_xdp_count 0) == "$n" ]]
	[[ $(ctr_slot /sys/fs/bpf/tc/globals/ctr_tc_count 0) == "$n" ]]
}

@test "container: bpftool loads and attaches the XDP program through the token" {
	local n=7
	container_token token "${CTR_TOKEN_ARGS[@]}"
	run in_container "$BPFTOOL" prog load "$PROGS/ctr_xdp.bpf.o" /sys/fs/bpf/xdp
	[[ $status != 0 ]]
	run in_container "$BPFTOOL" prog load "$PROGS/ctr_xdp.bpf.o" /sys/fs/bpf/xdp \
		token /sys/fs/bpf/token
	echo "$output"
	[[ $status == 0 ]]
	run in_container "$BPFTOOL" net attach xdp pinned /sys/fs/bpf/xdp dev "$VC"
	echo "$output"
	[[ $status == 0 ]]
	# libbpf's default pin root for LIBBPF_PIN_BY_NAME
	[[ $(ctr_slot /sys/fs/bpf/ctr_xdp_count 0) == 0 ]]
	send_frames "$VH" $n
	[[ $(ctr_slot /sys/fs/bpf/ctr_xdp_count 0) == "$n" ]]
	run in_container "$BPFTOOL" net detach xdp dev "$VC"
	[[ $status == 0 ]]
}

@test "SCM_RIGHTS: the container's root sends its token fd to nobody outside, who creates a map" {
	container_token token cmds map_create maps array
	# nobody outside cannot reach the token: not in its BPF FS
	run as_nobody "$BPFTOOL" token show /sys/fs/bpf/token
	[[ $status != 0 ]]
	run as_nobody "$TEST_BIN/token-pass" recv "$S/nothing"
	# (no sender: an error line, not a hang)
	[[ $status == 2 && $output == "Error: nobody listens on $S/nothing" ]]

	in_container "$TEST_BIN/token-pass" send "$S/tok" /sys/fs/bpf/token >"$S/send.out" 2>&1 3>&- &
	sender=$!
	run as_nobody "$TEST_BIN/token-pass" recv "$S/tok"
	echo "$output"
	wait $sender
	cat "$S/send.out"
	[[ $status == 0 ]]
	[[ ${lines[0]} == "received: bpf-token" ]]
	[[ ${lines[1]} == "map_create with token: ok" ]]
	[[ ${lines[2]} == "map_create without token: Operation not permitted" ]]
	[[ $(<"$S/send.out") == "sent: /sys/fs/bpf/token (read-write)" ]]
}

@test "SCM_RIGHTS: nobody outside sends a token of the initial BPF FS into the container" {
	local d=/sys/fs/bpf/container-scm-$BATS_TEST_NUMBER
	rm -rf "$d"
	mkdir -m 0755 "$d"
	"$BPFTOOL" token create "$d/token" cmds map_create maps array
	chown $CUID:$CUID "$d/token"
	chmod 0600 "$d/token"
	as_nobody "$TEST_BIN/token-pass" send "$S/tok" "$d/token" >"$S/send.out" 2>&1 3>&- &
	sender=$!
	run in_container "$TEST_BIN/token-pass" recv "$S/tok"
	echo "$output"
	wait $sender
	rm -rf "$d"
	[[ $status == 0 ]]
	[[ ${lines[1]} == "map_create with token: ok" ]]
	[[ ${lines[2]} == "map_create without token: Operation not permitted" ]]
}

@test "SCM_RIGHTS: a read-only token fd is inspect-only in the receiver too" {
	container_token token cmds map_create maps array
	# a BPF_F_RDONLY fd (read permission suffices to get it) ...
	in_container "$TEST_BIN/token-pass" send -r "$S/ro" /sys/fs/bpf/token >"$S/send.out" 2>&1 3>&- &
	sender=$!
	run as_nobody "$TEST_BIN/token-pass" recv "$S/ro"
	echo "$output"
	wait $sender
	cat "$S/send.out"
	[[ $(<"$S/send.out") == "sent: /sys/fs/bpf/token (read-only)" ]]
	# ... is a token, but allows nothing
	[[ $status == 1 ]]
	[[ ${lines[0]} == "received: bpf-token" ]]
	[[ ${lines[1]} == "map_create with token: Operation not permitted" ]]
	# the same token read-write, for contrast
	in_container "$TEST_BIN/token-pass" send "$S/rw" /sys/fs/bpf/token >/dev/null 2>&1 3>&- &
	sender=$!
	run as_nobody "$TEST_BIN/token-pass" recv "$S/rw"
	wait $sender
	[[ $status == 0 && ${lines[1]} == "map_create with token: ok" ]]
}

# True when the kernel takes BPF_F_TOKEN_USERNS (the SPEC's optional binding)
kernel_binds_userns() {
	grep -q 'BPF_F_TOKEN_USERNS' "${KSRC:-$BUILD/linux}/include/uapi/linux/bpf.h" || return 1
	root_in_container "$BPFTOOL" token create /sys/fs/bpf/probe userns "$CPID" cmds map_create \
		>/dev/null 2>&1 || return 1
	root_in_container rm -f /sys/fs/bpf/probe
}

@test "SCM_RIGHTS: a token bound to the container's user namespace is refused outside it" {
	kernel_binds_userns || skip "this kernel has no BPF_F_TOKEN_USERNS"
	container_token token userns "$CPID" cmds map_create maps array
	run in_container "$BPFTOOL" -j token show /sys/fs/bpf/token
	echo "$output"
	[[ $(jq -r '.userns' <<<"$output") == "$(stat -Lc %i "/proc/$CPID/ns/user")" ]]

	# inside: works (a second process of the container receives it)
	in_container "$TEST_BIN/token-pass" send "$S/in" /sys/fs/bpf/token >/dev/null 2>&1 3>&- &
	sender=$!
	run in_container "$TEST_BIN/token-pass" recv "$S/in"
	echo "inside: $output"
	wait $sender
	[[ $status == 0 && ${lines[1]} == "map_create with token: ok" ]]

	# outside: the same fd allows nothing
	in_container "$TEST_BIN/token-pass" send "$S/out" /sys/fs/bpf/token >/dev/null 2>&1 3>&- &
	sender=$!
	run as_nobody "$TEST_BIN/token-pass" recv "$S/out"
	echo "outside: $output"
	wait $sender
	[[ $status == 1 ]]
	[[ ${lines[0]} == "received: bpf-token" ]]
	[[ ${lines[1]} == "map_create with token: Operation not permitted" ]]

	# an unbound token of the same container still leaks, for contrast
	container_token token2 cmds map_create maps array
	in_container "$TEST_BIN/token-pass" send "$S/out2" /sys/fs/bpf/token2 >/dev/null 2>&1 3>&- &
	sender=$!
	run as_nobody "$TEST_BIN/token-pass" recv "$S/out2"
	wait $sender
	[[ $status == 0 && ${lines[1]} == "map_create with token: ok" ]]
}
