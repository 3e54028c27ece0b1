#!/usr/bin/env bats
# The operator's guide (Documentation/operators-guide.rst), run as written.
#
# The guide's marked blocks are taken from the guide itself
# (tests/guide-blocks.py): `.. example: NAME` blocks are the files it
# installs, `.. run: NAME` blocks are run with bash -e, as root unless the
# guide says that a user runs them. Every scenario runs in a private mount
# namespace made to look like an installed host: a writable copy of /etc
# (the guide's useradd works), /usr/local with what `make install` installs, and a fresh BPF FS on /sys/fs/bpf with mode 0700,
# as systemd mounts it. systemd does not run in the VM: `systemctl start`
# and `stop` are emulated from the unit file by sysd_start/sysd_stop below,
# which refuse any [Service] setting they do not implement.

load lib

setup() {
	OBJ=$PROGS/xdp_token.bpf.o
	TRAFFIC=$PROGS/cgroup_skb_maps.bpf.o
	need "$OBJ" "$TRAFFIC" "$BPFTOOL"
	W=$BATS_TEST_TMPDIR/w
	mkdir -p "$W"
	"$TOP/tests/guide-blocks.py" "$TOP/Documentation/operators-guide.rst" "$W/blocks" >/dev/null
	export TOP BUILD BPFTOOL OBJ TRAFFIC W
}


# ---------------------------------------------------------------------------
# The installed host, in a private mount namespace

# host SCENARIO: run the function SCENARIO in a fresh private mount namespace
# set up by prepare_host, with bash -e; its output in $output.
host() {
	run --separate-stderr unshare --mount --propagation private -- \
		bash -euo pipefail -c 'trap cleanup EXIT; prepare_host; "$@"' host "$@" 3>&-
	echo "status $status"
	echo "--- stdout:"
	echo "$output"
	echo "--- stderr:"
	echo "$stderr"
}

# What a scenario may leave running: the service, the "container"; and
# the cgroups of the container scenario, once their processes are gone.
cleanup() {
	local cg i
	if [[ -n ${U_PID:-} ]]; then
		kill -TERM -- "-$U_PID" 2>/dev/null || true
	fi
	[[ -z ${CT_PID:-} ]] || kill "$CT_PID" 2>/dev/null || true
	pkill -u app 2>/dev/null || true
	pkill -u bpf-app 2>/dev/null || true
	for cg in /sys/fs/cgroup/ct-other /sys/fs/cgroup/ct-app; do
		for ((i = 0; i < 40; i++)); do
			[[ -d $cg ]] || break
			rmdir "$cg" 2>/dev/null || sleep 0.25
		done
	done
}

# tok PATH JQ: a field of `bpftool -j token show PATH`
tok() {
	bpftool -j token show "$1" | jq -r "$2"
}

prepare_host() {
	cp -a /etc "$W/etc"
	mount --bind "$W/etc" /etc
	mount -t tmpfs -o mode=0755 tmpfs /usr/local
	# `make install` (bpftool, its man pages, the completion, the shared
	# libbpf), its build prerequisites taken as done
	make -s --no-print-directory -C "$TOP" -o bpftool -o libbpf install \
		PREFIX=/usr/local DESTDIR= >/dev/null
	# the BPF FS as systemd mounts it
	mount -t bpf -o mode=0700 bpf /sys/fs/bpf
	# the files of the guide, where its commands expect them
	cp "$W"/blocks/example/* "$W/"
	chmod 0755 "$W/bpf-app" "$W/container-token"
	cp "$OBJ" "$W/app.bpf.o"
	cp "$TRAFFIC" "$W/traffic.bpf.o"
	cd "$W"
	export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
}

# block NAME: run the guide's block NAME as root, echoing its commands
block() {
	echo "### guide block $1"
	bash -ex "$W/blocks/run/$1"
}

# user_block USER NAME: run the guide's block NAME as USER, without
# capabilities, from / (the test's directories are root's)
user_block() {
	echo "### guide block $2, as $1"
	(cd / && setpriv --reuid="$1" --regid="$1" --init-groups --inh-caps=-all \
		--bounding-set=-all -- bash -ex -s <"$W/blocks/run/$2")
}

# ---------------------------------------------------------------------------
# systemctl start/stop, emulated from the unit file

# unit_parse NAME: read /etc/systemd/system/NAME.service into U_* variables;
# fail on any [Service] setting the emulation does not implement.
unit_parse() {
	local file=/etc/systemd/system/$1.service line key val section=
	U_PRE=() U_START=() U_POST=() U_ENV=() U_BIND=()
	U_USER= U_GROUP= U_NNP= U_BOUND=unset U_AMBIENT=unset U_TYPE=simple
	while IFS= read -r line; do
		[[ -z $line || $line == '#'* ]] && continue
		if [[ $line == '['*']' ]]; then
			section=$line
			continue
		fi
		[[ $section == '[Service]' ]] || continue
		key=${line%%=*}
		val=${line#*=}
		# nothing the emulation would have to interpret like systemd
		if [[ $val == *[\"\'\\%\$\;]* ]]; then
			echo "unit: $key: quoting/specifiers not emulated: $val"
			return 1
		fi
		case $key in
		Type) U_TYPE=$val ;;
		User) U_USER=$val ;;
		Group) U_GROUP=$val ;;
		ExecStartPre) U_PRE+=("$val") ;;
		ExecStart) U_START+=("$val") ;;
		ExecStopPost) U_POST+=("$val") ;;
		Environment) U_ENV+=($val) ;;
		BindPaths) U_BIND+=($val) ;;
		CapabilityBoundingSet) U_BOUND=$val ;;
		AmbientCapabilities) U_AMBIENT=$val ;;
		NoNewPrivileges) U_NNP=$val ;;
		*)
			echo "unit: [Service] $key= is not emulated"
			return 1
			;;
		esac
	done <"$file"
	[[ $U_TYPE == exec || $U_TYPE == simple ]] || { echo "unit: Type=$U_TYPE not emulated"; return 1; }
	[[ ${#U_START[@]} == 1 ]] || { echo "unit: one ExecStart= expected"; return 1; }
	# the sandbox emulated below is "no capabilities at all"
	[[ $U_BOUND == '' && $U_AMBIENT == '' && $U_NNP == yes ]] || {
		echo "unit: expected CapabilityBoundingSet= AmbientCapabilities= NoNewPrivileges=yes"
		return 1
	}
	[[ -n $U_USER ]] || { echo "unit: no User="; return 1; }
}

# unit_exec LINE [&]: run one Exec line: "+" as root, unsandboxed; otherwise
# as User=/Group= with the unit's environment and bind mounts, no
# capabilities, no_new_privs, in a mount namespace of its own. A "-" prefix
# ignores a failure. With a second argument, start it in the background, in
# a session of its own (its PID in $U_PID).
unit_exec() {
	local line=$1 bg=${2:-} prefix= cmd words bind src dst sandbox
	while [[ $line == [-+@:!]* ]]; do
		prefix+=${line:0:1}
		line=${line:1}
	done
	read -ra words <<<"$line"
	echo "### unit: ${prefix:+($prefix) }${words[*]}"
	if [[ $prefix == *+* ]]; then
		"${words[@]}" || [[ $prefix == *-* ]]
		return
	fi
	sandbox="set -e"
	for bind in "${U_BIND[@]}"; do
		src=${bind%%:*}
		dst=${bind#*:}
		sandbox+="; mkdir -p $dst; mount --bind $src $dst"
	done
	sandbox+='; exec setpriv --reuid="$1" --regid="$2" --init-groups'
	sandbox+=' --inh-caps=-all --ambient-caps=-all --bounding-set=-all --no-new-privs'
	sandbox+=' -- env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin'
	sandbox+=' HOME=/nonexistent USER="$1" LOGNAME="$1" "${@:3}"'
	cmd=(unshare --mount --propagation slave -- bash -c "$sandbox" sandbox
		"$U_USER" "${U_GROUP:-$U_USER}" "${U_ENV[@]}" "${words[@]}")
	if [[ -n $bg ]]; then
		setsid "${cmd[@]}" >"$W/$U_NAME.log" 2>&1 </dev/null &
		U_PID=$!
	else
		"${cmd[@]}" || [[ $prefix == *-* ]]
	fi
}

# sysd_start NAME: `systemctl start NAME`: ExecStartPre= lines in order (a
# failure fails the start and runs ExecStopPost=), then ExecStart= in the
# background; waits until it printed WAIT_FOR (or exited).
sysd_start() {
	local line i
	U_NAME=$1
	unit_parse "$1"
	for line in "${U_PRE[@]}"; do
		unit_exec "$line" || { sysd_stop_post; return 1; }
	done
	unit_exec "${U_START[0]}" bg
	for ((i = 0; i < 120; i++)); do
		grep -q "${WAIT_FOR:-.}" "$W/$U_NAME.log" 2>/dev/null && break
		kill -0 "$U_PID" 2>/dev/null || break
		sleep 0.5
	done
	echo "### $U_NAME's output:"
	cat "$W/$U_NAME.log"
	kill -0 "$U_PID" 2>/dev/null || { echo "$U_NAME exited"; return 1; }
}

sysd_stop_post() {
	local line
	for line in "${U_POST[@]}"; do
		unit_exec "$line" || return 1
	done
}

# sysd_stop: `systemctl stop` of the started unit: SIGTERM to its processes,
# then ExecStopPost= lines.
sysd_stop() {
	kill -TERM -- "-$U_PID" 2>/dev/null || true
	wait "$U_PID" 2>/dev/null || true
	sysd_stop_post
}

# ---------------------------------------------------------------------------
# Token fds and attaches, as the guide's users would make them

# BPF_PY: python3 -c "$BPF_PY" get PATH: BPF_OBJ_GET of PATH read-write;
# prints the fd, then keeps it until killed. python3 -c "$BPF_PY" attach
# PROG CGROUP: BPF_PROG_ATTACH of the program pinned at PROG to the cgroup
# v2 directory CGROUP, ingress, no flags (as `bpftool cgroup attach` does);
# prints "ok" or the errno's name, which bpftool does not tell.
BPF_PY='
import ctypes, errno, os, struct, sys, time
libc = ctypes.CDLL(None, use_errno=True)
def bpf(cmd, attr):
    buf = ctypes.create_string_buffer(attr, 128)
    ret = libc.syscall(321, cmd, buf, 128)
    return ret, ctypes.get_errno()
def obj_get(path):
    name = ctypes.create_string_buffer(path.encode())
    fd, err = bpf(7, struct.pack("QII", ctypes.addressof(name), 0, 0))
    if fd < 0:
        sys.exit("cannot open %s: %s" % (path, errno.errorcode[err]))
    return fd
if sys.argv[1] == "get":
    print(obj_get(sys.argv[2]), flush=True)
    time.sleep(3600)
else:
    prog = obj_get(sys.argv[2])
    cg = os.open(sys.argv[3], os.O_RDONLY | os.O_DIRECTORY)
    ret, err = bpf(8, struct.pack("IIII", cg, prog, 0, 0))
    print("ok" if ret == 0 else errno.errorcode[err])
'

# hold_token: start a process of the service's user, sandboxed as the unit's
# (its bind mounts, no capabilities), that opens the service's token
# read-write and keeps the fd; it is not one of the service's processes,
# as a process the service passed its fd to would not be. Sets H_PID, H_FD.
hold_token() {
	local i
	unshare --mount --propagation slave -- bash -c '
		set -e
		mkdir -p /run/bpf-app
		mount --bind /sys/fs/bpf/bpf-app /run/bpf-app
		exec setpriv --reuid=bpf-app --regid=bpf-app --init-groups \
			--inh-caps=-all --ambient-caps=-all --bounding-set=-all \
			--no-new-privs -- /usr/bin/python3 -c "$1" get /run/bpf-app/token' \
		hold "$BPF_PY" >"$W/hold.out" 2>&1 </dev/null &
	H_PID=$!
	for ((i = 0; i < 100; i++)); do
		[[ -s $W/hold.out ]] && break
		sleep 0.1
	done
	H_FD=$(<"$W/hold.out")
	[[ $H_FD =~ ^[0-9]+$ ]] || { echo "cannot hold the token: $H_FD"; return 1; }
}

# held_revoked: the `revoked:` line of the held fd's fdinfo, 0 or 1
held_revoked() {
	awk '$1 == "revoked:" { print $2 }' "/proc/$H_PID/fdinfo/$H_FD"
}

# ct_attach CT PROG CGROUP: as the root user of the container CT (app on the
# host), in its namespaces, BPF_PROG_ATTACH of PROG (a path in the
# container) to CGROUP; prints ok or the errno's name
ct_attach() {
	setpriv --reuid=app --regid=app --init-groups --inh-caps=-all --bounding-set=-all -- \
		nsenter --target "$1" --user --preserve-credentials --mount --net \
		/usr/bin/python3 -c "$BPF_PY" attach "$2" "$3"
}

# ---------------------------------------------------------------------------
# Scenarios

# The service section: install, start, what root sees, the token's limits
# as the service sees them, inspect, revoke, stop; then a second start, in
# which the service cannot move its token out of the way of ExecStopPost's
# revoke, and that revoke reaches an fd of the token held outside the
# service.
scenario_service() {
	local prog=/sys/fs/bpf/bpf-app/pinned/progs/xdp_token_prog pid status maps denials out

	block service-install
	id bpf-app
	WAIT_FOR="bpf-app: loaded" sysd_start bpf-app

	# the service runs as bpf-app, without capabilities, no_new_privs
	pid=$(pgrep -u bpf-app -x sleep)
	status=$(cat "/proc/$pid/status")
	grep -E '^(Cap(Eff|Prm|Bnd|Amb)|NoNewPrivs)' <<<"$status"
	[[ $(grep -c -E '^Cap(Eff|Prm|Bnd|Amb):\s+0+$' <<<"$status") == 4 ]]
	grep -q -E '^NoNewPrivs:\s+1$' <<<"$status"

	block service-inspect
	# the program was loaded by the service's user, through the token,
	# which counted the object's map, BTF and program
	[[ $(bpftool -j prog show pinned "$prog" | jq .uid) == "$(id -u bpf-app)" ]]
	tok /sys/fs/bpf/bpf-app/token .uses
	(($(tok /sys/fs/bpf/bpf-app/token .uses.map_create) >= 1))
	(($(tok /sys/fs/bpf/bpf-app/token .uses.btf_load) >= 1))
	(($(tok /sys/fs/bpf/bpf-app/token .uses.prog_load) >= 1))
	(($(tok /sys/fs/bpf/bpf-app/token .uses.token_create) == 0))
	maps=$(tok /sys/fs/bpf/bpf-app/token .uses.map_create)
	denials=$(tok /sys/fs/bpf/bpf-app/token .denials)
	# the object reads no kernel memory: its token allows no tracing type;
	# libbpf's probes asked it for nothing it refuses
	[[ $(tok /sys/fs/bpf/bpf-app/token '.allowed_progs | join(",")') == xdp ]]
	((denials == 0))

	# the token belongs to the service's user and allows only what the
	# object needs: a HASH map through it is refused, an ARRAY map is made
	if unit_exec "/usr/local/sbin/bpftool map create /run/bpf-app/pinned/h type hash key 4 value 4 entries 1 name h token /run/bpf-app/token"; then
		echo "a hash map was created through the token"
		return 1
	fi
	[[ ! -e /sys/fs/bpf/bpf-app/pinned/h ]]
	unit_exec "/usr/local/sbin/bpftool map create /run/bpf-app/pinned/a type array key 4 value 4 entries 1 name a token /run/bpf-app/token"
	[[ -e /sys/fs/bpf/bpf-app/pinned/a ]]
	(($(tok /sys/fs/bpf/bpf-app/token .uses.map_create) == maps + 1))
	# bpftool saw that the token lacks "hash" and did not even try
	(($(tok /sys/fs/bpf/bpf-app/token .denials) == denials))

	block inspect | tee "$W/inspect.out"
	grep -q '/sys/fs/bpf/bpf-app/token' "$W/inspect.out"
	grep -q -E '"map_create": '"$((maps + 1))"'\b' "$W/inspect.out"

	block revoke
	[[ ! -e /sys/fs/bpf/bpf-app/token ]]
	# revoked: the service can't use it any more (the pin is gone), what it
	# loaded stays
	bpftool prog show pinned "$prog"

	# stop: ExecStopPost's revoke fails (revoked already) and is ignored
	sysd_stop
	if pgrep -u bpf-app -x sleep; then
		echo "the service still runs"
		return 1
	fi

	# a second start gets a clean directory and a new token
	WAIT_FOR="bpf-app: loaded" sysd_start bpf-app
	[[ -e /sys/fs/bpf/bpf-app/token ]]
	bpftool token show /sys/fs/bpf/bpf-app/token
	# the directory is root's, the token and pinned/ the service's
	[[ $(stat -c '%U %a' /sys/fs/bpf/bpf-app) == "root 755" ]]
	[[ $(stat -c '%U %a' /sys/fs/bpf/bpf-app/token) == "bpf-app 600" ]]
	[[ $(stat -c '%U %a' /sys/fs/bpf/bpf-app/pinned) == "bpf-app 700" ]]

	# The service can't move its token out of the way of ExecStopPost's
	# revoke: the directory's permission refuses it (EACCES) ...
	if out=$(unit_exec "mv /run/bpf-app/token /run/bpf-app/pinned/token" 2>&1); then
		echo "$out"
		echo "the service moved its token"
		return 1
	fi
	echo "$out"
	[[ $out == *"mv: cannot move"*"Permission denied"* ]]
	[[ -e /sys/fs/bpf/bpf-app/token && ! -e /sys/fs/bpf/bpf-app/pinned/token ]]
	# ... and in a directory it owns, where root pinned a token for the
	# test, the kernel does (EPERM), while the service's own pins move
	bpftool token create /sys/fs/bpf/bpf-app/pinned/t cmds map_create
	if out=$(unit_exec "mv /run/bpf-app/pinned/t /run/bpf-app/pinned/t2" 2>&1); then
		echo "$out"
		echo "the service renamed a token"
		return 1
	fi
	echo "$out"
	[[ $out == *"mv: cannot move"*"Operation not permitted"* ]]
	[[ -e /sys/fs/bpf/bpf-app/pinned/t && ! -e /sys/fs/bpf/bpf-app/pinned/t2 ]]
	unit_exec "mv /run/bpf-app/pinned/maps/token_stats /run/bpf-app/pinned/token_stats"
	[[ -e /sys/fs/bpf/bpf-app/pinned/token_stats ]]

	# a process of the service's user outside the service holds a
	# read-write fd of the token; the token is live
	hold_token
	[[ $(held_revoked) == 0 ]]

	# stop: ExecStopPost's revoke removes the token, and the fd held
	# outside the service is revoked with it
	sysd_stop
	[[ ! -e /sys/fs/bpf/bpf-app/token ]]
	kill -0 "$H_PID"
	[[ $(held_revoked) == 1 ]]
	kill "$H_PID"
	echo "scenario done"
}

# The container section: an unprivileged user's user-namespaced
# "container", root gives it a cgroup and a token in a BPF FS of its own,
# scoped to that cgroup, the container's root loads and attaches an XDP
# program and sends packets, and attaches a cgroup program to its cgroup;
# root sees the token and the counters; the cgroup program is refused
# outside the container's cgroup; the token is useless for the same user
# outside.
scenario_container() {
	local ct ino out tok maps denials i cgid prog

	block service-install >/dev/null
	useradd --no-create-home --shell /usr/sbin/nologin app
	block container-install
	# started by app, in the background (the block ends with "&")
	user_block app container-start >"$W/container.log" 2>&1 ||
		{ cat "$W/container.log"; return 1; }
	for ((i = 0; i < 40; i++)); do
		pgrep -u app -x sleep && break
		sleep 0.25
	done
	cat "$W/container.log"
	ct=$(pgrep -n -u app -x sleep)
	# it is in a user namespace of its own
	[[ $(stat -L -c %i /proc/$ct/ns/user) != "$(stat -L -c %i /proc/self/ns/user)" ]]

	block container-token
	user_block app container-use
	block container-check | tee "$W/check.out"

	tok="/proc/$ct/root/sys/fs/bpf/token"
	ino=$(stat -L -c %i "/proc/$ct/ns/user")
	grep -q -E "^\s*userns: $ino$" "$W/check.out"
	(($(tok "$tok" .userns) == ino))
	(($(tok "$tok" .uses.prog_load) >= 1))
	out=$(bpftool -j map dump pinned "/proc/$ct/root/sys/fs/bpf/maps/token_stats")
	echo "$out"
	# three datagrams and their ICMP errors on lo
	(( $(jq '.[0].formatted.value.packets' <<<"$out") >= 3 ))

	# The token is scoped to the container's cgroup, where the container's
	# root attached its cgroup_skb program
	cgid=$(stat -c %i /sys/fs/cgroup/ct-app)
	grep -q -E '^\s*cgroup: /ct-app$' "$W/check.out"
	[[ $(tok "$tok" .cgroup.path) == /ct-app && $(tok "$tok" .cgroup.id) == "$cgid" ]]
	grep -qx "$ct" /sys/fs/cgroup/ct-app/cgroup.procs
	bpftool -j cgroup show /sys/fs/cgroup/ct-app |
		jq -e '[.[] | select(.name == "skb_ingress" and .attach_type == "cgroup_inet_ingress")] | length == 1'
	# Outside it, the attach is refused (EPERM), and each refusal is
	# counted: the root cgroup, and a sibling of the container's cgroup
	prog=/sys/fs/bpf/traffic/skb_ingress
	mkdir /sys/fs/cgroup/ct-other
	denials=$(tok "$tok" .denials)
	[[ $(ct_attach "$ct" "$prog" /sys/fs/cgroup) == EPERM ]]
	[[ $(ct_attach "$ct" "$prog" /sys/fs/cgroup/ct-other) == EPERM ]]
	(($(tok "$tok" .denials) == denials + 2))
	# (bpftool prints nothing for a cgroup without programs)
	out=$(bpftool -j cgroup show /sys/fs/cgroup/ct-other)
	[[ -z $out || $(jq length <<<"$out") == 0 ]]
	# the scope's doing: root attaches the same program there
	bpftool cgroup attach /sys/fs/cgroup/ct-other ingress pinned "/proc/$ct/root$prog"
	bpftool cgroup detach /sys/fs/cgroup/ct-other ingress pinned "/proc/$ct/root$prog"
	rmdir /sys/fs/cgroup/ct-other
	(($(tok "$tok" .denials) == denials + 2))

	maps=$(tok "$tok" .uses.map_create)
	denials=$(tok "$tok" .denials)

	# The same user outside the container, with the same token: ignored
	# (the caller is not in the token's user namespace), and the denial
	# is counted. Inside, the same command works.
	setpriv --reuid=app --regid=app --init-groups --inh-caps=-all --bounding-set=-all -- \
		bpftool map create "/proc/$ct/root/sys/fs/bpf/outside" type array key 4 value 4 \
		entries 1 name outside token "/proc/$ct/root/sys/fs/bpf/token" &&
		{ echo "the token worked outside its user namespace"; return 1; }
	[[ ! -e /proc/$ct/root/sys/fs/bpf/outside ]]
	(($(tok "$tok" .uses.map_create) == maps))
	setpriv --reuid=app --regid=app --init-groups --inh-caps=-all --bounding-set=-all -- \
		nsenter --target "$ct" --user --preserve-credentials --mount --net \
		bpftool map create /sys/fs/bpf/inside type array key 4 value 4 \
		entries 1 name inside token /sys/fs/bpf/token
	[[ -e /proc/$ct/root/sys/fs/bpf/inside ]]
	(($(tok "$tok" .uses.map_create) == maps + 1))
	(($(tok "$tok" .denials) > denials))
	pkill -u app -x sleep
	echo "scenario done"
}

# Choosing lists: `token needs` on the guide's object, plain and JSON.
scenario_needs() {
	block service-install >/dev/null
	block needs | tee "$W/needs.out"
	grep -q -F '/usr/local/lib/bpf-app/app.bpf.o' "$W/needs.out"
	# the JSON part is one object, the sets that xdp_token.bpf.o needs
	sed -n '/^{/,/^}/p' "$W/needs.out" >"$W/needs.json"
	jq -e '.objects == ["/usr/local/lib/bpf-app/app.bpf.o"]' "$W/needs.json"
	jq -e '(.allowed_cmds | sort) == ["btf_load", "map_create", "prog_load"]' "$W/needs.json"
	jq -e '.allowed_maps == ["array"] and .allowed_progs == ["xdp"] and .allowed_attachs == ["xdp"]' "$W/needs.json"
	# it reads no kernel memory: no tracing type
	jq -e '.reads_kernel_memory == []' "$W/needs.json"
	echo "scenario done"
}

# A delegated BPF FS: the guide's block, for a "container" that is a process
# in a user and mount namespace of its own; its root makes a token from the
# mount and creates the map type the block allows, not another one; the
# mount line of `needs ... format mount` is the mount's options.
scenario_delegate() {
	local i line
	block service-install >/dev/null
	unshare -Urm --propagation private sleep 600 &
	CT_PID=$!
	for ((i = 0; i < 50; i++)); do
		[[ $(readlink /proc/$CT_PID/ns/user) != "$(readlink /proc/self/ns/user)" ]] && break
		sleep 0.1
	done
	export CT_PID
	block delegate | tee "$W/delegate.out"
	echo "# the mount: in the container's mount namespace, not in the host's"
	grep -q ' /sys/fs/bpf .* - bpf .*delegate_cmds=map_create:prog_load:btf_load,delegate_maps=array,delegate_progs=socket_filter:xdp,delegate_attachs=cgroup_inet_ingress:xdp' \
		"/proc/$CT_PID/mountinfo"
	[[ $(grep -c delegate_cmds /proc/self/mountinfo || true) == 0 ]]
	grep -q -F "(of pid " "$W/delegate.out"
	echo "# the formats"
	line=$(grep '^delegate_cmds=' "$W/delegate.out")
	grep -q -F "$line" "/proc/$CT_PID/mountinfo"
	grep -qx 'PrivateBPF=yes' "$W/delegate.out"
	grep -qx 'BPFDelegateMaps=BPFMapTypeArray' "$W/delegate.out"
	grep -qx 'security.bpffs.delegate_maps=array' "$W/delegate.out"
	echo "# the container's root: a token, an array map (2) through it, no hash map (1)"
	nsenter -t "$CT_PID" -U -m "$BUILD/tests/token-delegated" /sys/fs/bpf 2 1 | tee "$W/ct.out"
	[[ $(<"$W/ct.out") == $'token: ok\nmap 2: ok\nmap 1: EPERM' ]]
	kill "$CT_PID"
	echo "scenario done"
}

# Derived tokens: the guide's manager token and its derived token; revoking
# the parent revokes the child.
scenario_derive() {
	block derive | tee "$W/derive.out"
	(($(tok /sys/fs/bpf/manager/app1 .depth) == 1))
	[[ $(tok /sys/fs/bpf/manager/app1 .revoked) == true ]]
	grep -q -E '^\s*depth: 1$' "$W/derive.out"
	# the last show says revoked, the first one did not
	[[ $(grep -c -E '^\s*revoked$' "$W/derive.out") == 1 ]]
	[[ $(tail -n 1 "$W/derive.out") =~ ^[[:space:]]*revoked$ ]]
	echo "scenario done"
}

export -f scenario_derive cleanup tok prepare_host block user_block unit_parse unit_exec sysd_start \
	sysd_stop sysd_stop_post scenario_service scenario_container scenario_needs scenario_delegate hold_token \
	held_revoked ct_attach
export BPF_PY

@test "guide: the service section as written: systemd unit, token from the object, no capabilities, inspect, revoke, stop" {
	host scenario_service
	[[ $status == 0 ]]
	[[ $output == *"scenario done"* ]]
}

@test "guide: the container section as written: token in the container's BPF FS, bound to its user namespace" {
	host scenario_container
	[[ $status == 0 ]]
	[[ $output == *"scenario done"* ]]
}

@test "guide: choosing lists: token needs as written" {
	host scenario_needs
	[[ $status == 0 ]]
	[[ $output == *"scenario done"* ]]
}

@test "guide: a delegated BPF FS as written: mounted in the container's namespace, the formats, a token for the container's root" {
	need "$BUILD/tests/token-delegated"
	host scenario_delegate
	[[ $status == 0 ]]
	[[ $output == *"scenario done"* ]]
}

@test "guide: the emulated systemd refuses a unit setting it does not implement (control)" {
	host bash -c 'mkdir -p /etc/systemd/system &&
		sed "s/^NoNewPrivileges=yes/&\nProtectSystem=strict/" "$W/bpf-app.service" \
			>/etc/systemd/system/bpf-app.service && unit_parse bpf-app'
	[[ $status != 0 ]]
	[[ $output == *"ProtectSystem= is not emulated"* ]]
}

@test "guide: derived tokens as written: depth, transitive revocation" {
	host scenario_derive
	[[ $status == 0 ]]
	[[ $output == *"scenario done"* ]]
}
