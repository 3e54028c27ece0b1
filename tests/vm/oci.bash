# Shared by tests/vm/oci-*.bats (`load oci`): OCI bundles for Debian's runc
# and crun with the bpf-token hook (oci/oci-hook), installed as `make
# install` installs it, into a prefix of the test's own.
#
# A bundle's root file system is made here, from the host's files: a
# directory with the merged-/usr links (bin -> usr/bin, ...) on which the
# runtime bind-mounts the host's /usr and /etc read-only, and the project
# (its build/ holds libbpf.so.1, bpftool and the BPF objects) at the same
# path. The container has user (root = host uid $OCI_UID), mount, PID,
# network, IPC, UTS and cgroup namespaces and a few capabilities (in its user
# namespace), and is in the cgroup $OCI_CGROUP/ID. The host's cgroup tree is
# bind-mounted read-only at /host-cgroup, so that the container can try to
# attach to a cgroup above its own.

OCI_UID=100000
OCI_CGROUP=oci-bpf-token
OCI_CAPS='["CAP_CHOWN","CAP_DAC_OVERRIDE","CAP_FOWNER","CAP_FSETID","CAP_KILL",
	"CAP_SETGID","CAP_SETUID","CAP_SETPCAP","CAP_NET_BIND_SERVICE","CAP_NET_RAW",
	"CAP_NET_ADMIN","CAP_SYS_CHROOT"]'

# oci_install PREFIX: bpftool, libbpf.so.1 and the hook under PREFIX, as `make
# install PREFIX=...` puts them (without make's build steps)
oci_install() {
	PREFIX=$1 DESTDIR= "$TOP/scripts/bpftool.sh" install >/dev/null
	make --no-print-directory -s -C "$TOP/oci" install PREFIX="$1" DESTDIR= >/dev/null
	OCI_HOOK=$1/libexec/bpf-token/oci-hook
	[[ -x $OCI_HOOK ]]
}

# oci_rootfs DIR: the root file system described above
oci_rootfs() {
	local d=$1 p
	mkdir -p "$d"
	ln -sfn usr/bin "$d/bin"
	ln -sfn usr/sbin "$d/sbin"
	ln -sfn usr/lib "$d/lib"
	ln -sfn usr/lib64 "$d/lib64"
	# every mount point, made by root now: the runtime makes missing ones
	# as the container's root, who may not write here
	for p in usr etc proc sys dev tmp run host-cgroup "$TOP" "$BUILD"; do
		mkdir -p "$d/$p"
	done
}

# oci_bundle DIR ID [ANNOTATION=VALUE...]: DIR/config.json (and DIR/rootfs)
# for container ID, running `sleep`, with the hook at createRuntime and
# poststop, and the annotations given; with $OCI_MODE set, and an
# org.bpf-token.* annotation among them, org.bpf-token.mode=$OCI_MODE too.
# crun discards what hooks write unless told where to put it: the hook's
# stderr goes to DIR/hook.err. The cgroup is $OCI_CGROUPS_PATH if set
# (another container's, say), else /$OCI_CGROUP/ID.
oci_bundle() {
	local dir=$1 id=$2 a ann
	ann=$(jq -nc --arg f "$dir/hook.err" '{"run.oci.hooks.stderr": $f}')
	shift 2
	if [[ -n ${OCI_MODE:-} && " ${*%%=*}" == *" org.bpf-token."* ]]; then
		set -- "$@" "org.bpf-token.mode=$OCI_MODE"
	fi
	for a in "$@"; do
		ann=$(jq -c --arg k "${a%%=*}" --arg v "${a#*=}" '. + {($k): $v}' <<<"$ann")
	done
	oci_rootfs "$dir/rootfs"
	jq -n --arg top "$TOP" --arg build "$BUILD" --arg hook "$OCI_HOOK" \
		--arg cg "${OCI_CGROUPS_PATH:-/$OCI_CGROUP/$id}" --argjson uid $OCI_UID --argjson caps "$OCI_CAPS" \
		--argjson ann "$ann" --argjson hookenv "$(jq -nc '$ARGS.positional' --args ${OCI_HOOK_ENV:-})" '
	def bind($p): {destination: $p, type: "bind", source: $p, options: ["rbind", "ro"]};
	{
		ociVersion: "1.0.2",
		process: {
			terminal: false,
			user: {uid: 0, gid: 0},
			args: ["/usr/bin/sleep", "100000"],
			env: ["PATH=/usr/sbin:/usr/bin:/sbin:/bin"],
			cwd: "/",
			capabilities: {bounding: $caps, effective: $caps, permitted: $caps},
			noNewPrivileges: true
		},
		root: {path: "rootfs", readonly: true},
		hostname: "oci-bpf-token",
		mounts: ([
			{destination: "/proc", type: "proc", source: "proc"},
			{destination: "/dev", type: "tmpfs", source: "tmpfs",
			 options: ["nosuid", "strictatime", "mode=755", "size=65536k"]},
			{destination: "/dev/pts", type: "devpts", source: "devpts",
			 options: ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"]},
			{destination: "/sys", type: "sysfs", source: "sysfs",
			 options: ["nosuid", "noexec", "nodev", "ro"]},
			{destination: "/sys/fs/cgroup", type: "cgroup", source: "cgroup",
			 options: ["nosuid", "noexec", "nodev", "relatime", "ro"]},
			{destination: "/tmp", type: "tmpfs", source: "tmpfs", options: ["nosuid", "nodev", "mode=1777"]},
			{destination: "/run", type: "tmpfs", source: "tmpfs", options: ["nosuid", "nodev", "mode=755"]},
			bind("/usr"), bind("/etc"), bind($top)]
			+ (if ($build | startswith($top + "/")) then [] else [bind($build)] end)
			+ [{destination: "/host-cgroup", type: "bind", source: "/sys/fs/cgroup",
			    options: ["rbind", "ro"]}]),
		linux: {
			uidMappings: [{containerID: 0, hostID: $uid, size: 65536}],
			gidMappings: [{containerID: 0, hostID: $uid, size: 65536}],
			namespaces: [{type: "pid"}, {type: "network"}, {type: "ipc"}, {type: "uts"},
				{type: "mount"}, {type: "user"}, {type: "cgroup"}],
			cgroupsPath: $cg
		},
		hooks: {
			createRuntime: [{path: $hook, args: ["oci-hook", "createRuntime"], env: $hookenv}],
			poststop: [{path: $hook, args: ["oci-hook", "poststop"], env: $hookenv}]
		},
		annotations: $ann
	}' >"$dir/config.json"
}

# oci_pid RT ID: the PID of the container's process
oci_pid() {
	"$1" state "$2" | jq -r .pid
}

# oci_bpf_mounts: the BPF FS mounts of the test's mount namespace, "MOUNTPOINT"
# one a line
# oci_kill_delete RT ID: kill container ID of runtime RT, wait until it is
# stopped, delete it (the hook's poststop runs); fails if delete fails
oci_kill_delete() {
	local i
	"$1" kill "$2" KILL
	for ((i = 0; i < 50; i++)); do
		[[ $("$1" state "$2" | jq -r .status) == stopped ]] && break
		sleep 0.2
	done
	run "$1" delete "$2"
	echo "delete: $output"
	[[ $status == 0 ]]
}

oci_bpf_mounts() {
	awk '{ for (i = 7; $i != "-"; i++); if ($(i + 1) == "bpf") print $5 }' /proc/self/mountinfo
}

# oci_hold_token PATH: start a process that holds a read-only fd of the
# token pinned at PATH (BPF_OBJ_GET with BPF_F_RDONLY: inspect-only); sets
# HOLD_PID and HOLD_FD
oci_hold_token() {
	local out=$BATS_TEST_TMPDIR/hold.out i
	/usr/bin/python3 - "$1" >"$out" 3>&- <<-'EOF' &
	import ctypes, struct, sys, time
	libc = ctypes.CDLL(None, use_errno=True)
	path = ctypes.create_string_buffer(sys.argv[1].encode())
	# union bpf_attr, BPF_OBJ_GET: pathname, bpf_fd, file_flags = BPF_F_RDONLY
	attr = ctypes.create_string_buffer(struct.pack('QII', ctypes.addressof(path), 0, 1 << 3), 128)
	fd = libc.syscall(321, 7, attr, 128)
	print(fd if fd >= 0 else 'error %d' % ctypes.get_errno(), flush=True)
	time.sleep(600)
	EOF
	HOLD_PID=$!
	for ((i = 0; i < 100; i++)); do
		[[ -s $out ]] && break
		sleep 0.1
	done
	HOLD_FD=$(<"$out")
	[[ $HOLD_FD =~ ^[0-9]+$ ]] || { echo "cannot hold $1: $HOLD_FD"; return 1; }
}

# oci_revoked: the `revoked:` value of the held token fd's fdinfo
oci_revoked() {
	awk '$1 == "revoked:" { print $2 }' "/proc/$HOLD_PID/fdinfo/$HOLD_FD"
}

# OCI_ATTACH_PY: python3 -c "$OCI_ATTACH_PY" PROG CGROUP TYPE: BPF_PROG_ATTACH
# of the program pinned at PROG to the cgroup v2 directory CGROUP, attach type
# TYPE (0 ingress, 1 egress), no flags; prints "ok" or the errno's name (what
# `bpftool cgroup attach` does, with the reason of a failure)
OCI_ATTACH_PY='
import ctypes, errno, os, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
def bpf(cmd, attr):
    buf = ctypes.create_string_buffer(attr, 128)
    ret = libc.syscall(321, cmd, buf, 128)
    return ret, ctypes.get_errno()
path = ctypes.create_string_buffer(sys.argv[1].encode())
prog, err = bpf(7, struct.pack("QII", ctypes.addressof(path), 0, 0))   # BPF_OBJ_GET
if prog < 0:
    sys.exit("cannot get %s: %s" % (sys.argv[1], errno.errorcode[err]))
cg = os.open(sys.argv[2], os.O_RDONLY | os.O_DIRECTORY)
# BPF_PROG_ATTACH: target_fd, attach_bpf_fd, attach_type, attach_flags
ret, err = bpf(8, struct.pack("IIII", cg, prog, int(sys.argv[3]), 0))
print("ok" if ret == 0 else errno.errorcode[err])
'
