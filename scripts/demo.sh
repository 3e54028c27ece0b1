#!/bin/bash
# The demo, run inside the VM by `make demo` (as root, cwd = project dir).
# Each command is echoed before its output: `root# CMD` runs as root,
# `app$ CMD` as the unprivileged "app" user (uid/gid 65534, no groups, no
# capabilities, through setpriv).
#
# Scenario: root delegates to an app, with a BPF token pinned in
# BPF FS, exactly what it needs to load an XDP object: the commands
# map_create, prog_load and btf_load, ARRAY maps, XDP programs with the
# BPF_XDP attach type. The app loads the clang-compiled XDP object through
# the token and creates a map; what the token does not allow stays refused.
#
# Then the container: the app starts a "container" (user, mount
# and network namespaces, unshare); root mounts a BPF FS of the container's
# own and creates a token in it, bound to the container's user namespace, and
# a veth pair; inside, the container's root (no capability outside) attaches
# XDP and tc counters with Debian's unmodified ip and tc, through the token
# (LD_LIBRARY_PATH=build/libbpf LIBBPF_BPF_TOKEN_PATH=...), and reads back
# the count of the frames root sends over the veth. Last, the token's fd is
# passed over a Unix socket (SCM_RIGHTS): useless outside the container.
#
# Exits non-zero if a step that should succeed fails, or a refusal succeeds.
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
BPFTOOL=${BPFTOOL:-$BUILD/bpftool/bpftool}
PROGS=${PROGS:-$BUILD/progs}
APP_UID=65534

# The paths the commands show are relative to the project directory
cd "$TOP"
[[ -f $PROGS/xdp_token.bpf.o ]] || { echo "demo: no $PROGS/xdp_token.bpf.o (make test-build)" >&2; exit 1; }
OBJ=$PROGS/xdp_token.bpf.o
OBJ=${OBJ#"$TOP"/}
BAD_OBJ=$PROGS/sockfilter.bpf.o
BAD_OBJ=${BAD_OBJ#"$TOP"/}
for f in "$PROGS/ctr_xdp.bpf.o" "$PROGS/ctr_tc.bpf.o" "$BUILD/tests/token-pass" \
	"$BUILD/libbpf/libbpf.so.1"; do
	[[ -e $f ]] || { echo "demo: no $f (make libbpf test-build)" >&2; exit 1; }
done
CTR_XDP=${PROGS#"$TOP"/}/ctr_xdp.bpf.o
CTR_TC=${PROGS#"$TOP"/}/ctr_tc.bpf.o
TOKEN_PASS=${BUILD#"$TOP"/}/tests/token-pass
LIBBPF_SO_DIR=${BUILD#"$TOP"/}/libbpf

APP=/sys/fs/bpf/app
TOKEN=$APP/token
PINS=$APP/pins

bpftool() { "$BPFTOOL" "$@"; }

as_app() {
	setpriv --reuid=$APP_UID --regid=$APP_UID --clear-groups --inh-caps=-all \
		--bounding-set=-all -- "$@"
}

# bpftool as the app: a command setpriv can run
app_bpftool() { as_app "$BPFTOOL" "$@"; }

section() { printf '\n=== %s\n' "$*"; }

# echo_cmd PROMPT ARGS...: the command line as a user would type it
echo_cmd() {
	local prompt=$1 w line=
	shift
	for w in "$@"; do
		[[ $w =~ ^[A-Za-z0-9_./:,=@%+-]+$ || $w == '&' ]] || w=$(printf '%q' "$w")
		line+=" $w"
	done
	printf '\n%s%s\n' "$prompt" "$line"
}

# root CMD...: run as root, must succeed
root() {
	echo_cmd 'root#' "$@"
	"$@" 2>&1
}

# app CMD...: run as the app user, must succeed (`bpftool` is the project's)
app() {
	echo_cmd 'app$' "$@"
	if [[ $1 == bpftool ]]; then
		shift
		app_bpftool "$@" 2>&1
	else
		as_app "$@" 2>&1
	fi
}

# app_refused CMD...: as the app user, must fail; its output and exit status
# are shown
app_refused() {
	local rc=0
	echo_cmd 'app$' "$@"
	if [[ $1 == bpftool ]]; then
		shift
		app_bpftool "$@" 2>&1 || rc=$?
	else
		as_app "$@" 2>&1 || rc=$?
	fi
	if [[ $rc == 0 ]]; then
		echo "demo: this should have been refused" >&2
		return 1
	fi
	echo "(refused, exit status $rc)"
}

section "The machine"
root uname -r
root bpftool version
root findmnt -t bpf

section "1. root creates a token for the app, from textual lists, and gives it to the app (using a token needs read and write permission)"
rm -rf "$APP"
root mkdir "$APP"
root bpftool token create "$TOKEN" cmds map_create,prog_load,btf_load maps array \
	progs xdp attach xdp
root chown $APP_UID:$APP_UID "$TOKEN"
root chmod 0600 "$TOKEN"
root install -d -o $APP_UID -g $APP_UID "$PINS"
root ls -l "$APP"

section "2. root lists the tokens, plain and JSON"
root bpftool token list
root bpftool -j token list
root bpftool -p token list

section "3. the app, without any capability, loads the XDP object through the token and creates a map"
app id
app grep Cap /proc/self/status
app_refused bpftool prog load "$OBJ" "$PINS/xdp_without_token"
app bpftool prog load "$OBJ" "$PINS/xdp" token "$TOKEN" pinmaps "$PINS/maps"
app bpftool prog show pinned "$PINS/xdp"
app bpftool map show pinned "$PINS/maps/token_stats"
app bpftool map create "$PINS/app_map" type array key 4 value 8 entries 16 name app_map \
	token "$TOKEN"
app bpftool map update pinned "$PINS/app_map" key 1 0 0 0 value 42 0 0 0 0 0 0 0
app bpftool map lookup pinned "$PINS/app_map" key 1 0 0 0
app ls -l "$PINS" "$PINS/maps"
root bpftool prog show name xdp_token_prog

section "4. the app is refused what the token does not allow"
app_refused bpftool map create "$PINS/app_hash" type hash key 4 value 8 entries 16 \
	name app_hash token "$TOKEN"
app_refused bpftool prog load "$BAD_OBJ" "$PINS/sockfilter" token "$TOKEN"
app ls "$PINS"

# The container. Its commands are echoed as `container# CMD`: run by the
# container's root, entered the way a runtime's exec does (the app joins the
# container's namespaces with nsenter: uid 0 inside, uid 65534 outside).
CPID=
VH=veth-host
VC=veth-ct
cleanup() {
	[[ -z $CPID ]] || kill "$CPID" 2>/dev/null || true
	ip link del "$VH" 2>/dev/null || true
	rm -rf /tmp/demo-sock
}
trap cleanup EXIT

# (`bpftool` is the project's, as for the app)
in_container() {
	[[ $1 != bpftool ]] || set -- "$BPFTOOL" "${@:2}"
	as_app nsenter --preserve-credentials --wd="$TOP" -t "$CPID" -U -m -n -- "$@"
}

# container CMD...: as the container's root, must succeed
container() {
	echo_cmd 'container#' "$@"
	in_container "$@" 2>&1
}

# container_refused CMD...: as the container's root, must fail
container_refused() {
	local rc=0
	echo_cmd 'container#' "$@"
	in_container "$@" 2>&1 || rc=$?
	if [[ $rc == 0 ]]; then
		echo "demo: this should have been refused" >&2
		return 1
	fi
	echo "(refused, exit status $rc)"
}

# root_ns CMD...: as root, in the container's mount namespace, must succeed
root_ns() {
	echo_cmd 'root#' nsenter -t "$CPID" -m "$@"
	[[ $1 != bpftool ]] || set -- "$BPFTOOL" "${@:2}"
	nsenter -t "$CPID" -m --wd="$TOP" -- "$@" 2>&1
}

# count PIN: the first counter of a ctr_* map, read inside the container
count() {
	in_container "$BPFTOOL" -j map lookup pinned "$1" key 0 0 0 0 |
		jq -r '.value | map(ltrimstr("0x")) | reverse | join("")' |
		{ read -r hex; echo $((16#$hex)); }
}

section "5. the app starts a container; root gives it a BPF FS, a token in it and a veth"
echo_cmd 'app$' unshare --user --map-root-user --mount --net sleep 3600 '&'
# setpriv itself, not as_app: $! must be the process that becomes the container
setpriv --reuid=$APP_UID --regid=$APP_UID --clear-groups --inh-caps=-all --bounding-set=-all \
	-- unshare --user --map-root-user --mount --net sleep 3600 &
CPID=$!
for ((i = 0; i < 100; i++)); do
	[[ $(awk '{ print $1, $2, $3 }' "/proc/$CPID/uid_map" 2>/dev/null) == "0 $APP_UID 1" ]] && break
	sleep 0.1
done
[[ $i -lt 100 ]] || { echo "demo: the container did not start" >&2; exit 1; }
root cat "/proc/$CPID/uid_map"
container mount -t tmpfs tmpfs /run
root_ns mount -t bpf bpf /sys/fs/bpf
root_ns chown $APP_UID:$APP_UID /sys/fs/bpf
root_ns bpftool token create /sys/fs/bpf/token userns "$CPID" \
	cmds map_create,prog_load,btf_load maps array progs xdp,sched_cls \
	attach xdp,cgroup_inet_ingress
root_ns chown $APP_UID:$APP_UID /sys/fs/bpf/token
root_ns chmod 0600 /sys/fs/bpf/token
root_ns bpftool token show /sys/fs/bpf/token
root ip link add "$VH" type veth peer name "$VC"
root ip link set "$VC" netns "$CPID"
root ip link set "$VH" up

section "6. inside, the container's root attaches XDP and tc programs with Debian's ip and tc"
container id
container grep CapEff /proc/self/status
container ls -l /sys/fs/bpf
container ip link set dev "$VC" up
container_refused ip link set dev "$VC" xdp obj "$CTR_XDP" sec xdp
container env LD_LIBRARY_PATH="$LIBBPF_SO_DIR" LIBBPF_BPF_TOKEN_PATH=/sys/fs/bpf/token \
	ip link set dev "$VC" xdp obj "$CTR_XDP" sec xdp
container tc qdisc add dev "$VC" clsact
container env LD_LIBRARY_PATH="$LIBBPF_SO_DIR" LIBBPF_BPF_TOKEN_PATH=/sys/fs/bpf/token \
	tc filter add dev "$VC" ingress bpf da obj "$CTR_TC" sec tc
container ip link show dev "$VC"
container tc filter show dev "$VC" ingress
container ls /sys/fs/bpf/tc/globals

section "7. root sends frames over the veth; the container reads the counts"
frames=20
printf '\nroot# # %s Ethernet frames of EtherType 0x88b5 out of %s (AF_PACKET, python3)\n' \
	"$frames" "$VH"
/usr/bin/python3 - "$VH" "$frames" <<-'EOF'
	import socket, sys
	s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
	s.bind((sys.argv[1], 0))
	for _ in range(int(sys.argv[2])):
	    s.send(b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01" + b"\x88\xb5" + b"bpf-token" * 6)
	EOF
container bpftool map dump pinned /sys/fs/bpf/tc/globals/ctr_xdp_count
container bpftool map dump pinned /sys/fs/bpf/tc/globals/ctr_tc_count
for m in ctr_xdp_count ctr_tc_count; do
	n=$(count /sys/fs/bpf/tc/globals/$m)
	echo "$m: $n of the $frames frames"
	[[ $n -ge $frames ]] || { echo "demo: $m counted $n frames, not $frames" >&2; exit 1; }
done

section "8. the token's fd over a Unix socket (SCM_RIGHTS): it works inside the container only"
root install -d -o $APP_UID -g $APP_UID /tmp/demo-sock
echo_cmd 'container#' "$TOKEN_PASS" send /tmp/demo-sock/s /sys/fs/bpf/token '&'
in_container "$TOKEN_PASS" send /tmp/demo-sock/s /sys/fs/bpf/token &
app_refused "$TOKEN_PASS" recv /tmp/demo-sock/s
wait $!
echo_cmd 'container#' "$TOKEN_PASS" send /tmp/demo-sock/s /sys/fs/bpf/token '&'
in_container "$TOKEN_PASS" send /tmp/demo-sock/s /sys/fs/bpf/token &
container "$TOKEN_PASS" recv /tmp/demo-sock/s
wait $!

printf '\n=== demo: done\n'
