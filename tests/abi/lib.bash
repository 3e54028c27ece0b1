# Helpers of the files of tests/abi and tests/vm-mainline, which run in VMs
# of this project's kernel and of Debian's mainline kernel
# (scripts/debian-kernel.sh; `make test-vm-mainline`), loaded first with
# `load lib` (`load ../abi/lib`). They load tests/vm/lib.bash (TOP, BUILD,
# BPFTOOL, TEST_BIN, PROGS, NOBODY, as_nobody, need, show_run, ...) and add
# mainline's way of giving a token: root mounts a BPF FS that delegates
# what it allows to a user namespace (bpftool token delegate), and a
# process of that namespace with CAP_BPF there makes tokens from it.
#
# The user namespace is nobody's: nobody makes it (unshare --user
# --map-root-user --mount), so that its root is nobody outside it, with a
# mount namespace of its own, where root mounts the delegated BPF FS.

load ../vm/lib

# nobody_userns: a user namespace and a mount namespace made by nobody,
# kept alive by a sleeping process: USERNS_PID. Kill it in teardown.
nobody_userns() {
	# "${AS_NOBODY[@]}", not as_nobody: $! must be the PID of the sleep
	"${AS_NOBODY[@]}" unshare --user --map-root-user --mount sleep 600 \
		</dev/null >/dev/null 2>&1 3>&- &
	USERNS_PID=$!
	for _ in $(seq 100); do
		[[ $(readlink "/proc/$USERNS_PID/ns/user") != "$(readlink /proc/self/ns/user)" ]] && break
		sleep 0.1
	done
	[[ $(readlink "/proc/$USERNS_PID/ns/user") != "$(readlink /proc/self/ns/user)" ]]
}

# delegate DIR ARGS...: root mounts at DIR, in the mount namespace of
# nobody_userns, a BPF FS that delegates ARGS (bpftool token delegate's
# words: cmds LIST maps LIST progs LIST attach LIST) to its user namespace.
# DIR must exist; the mount goes with the namespace.
delegate() {
	local dir=$1
	shift
	nsenter -t "$USERNS_PID" -m "$BPFTOOL" token delegate "$dir" userns "$USERNS_PID" "$@"
}

# in_userns CMD...: CMD as nobody, root of the namespaces of nobody_userns
# (all capabilities there, none outside). nobody is already uid 0 there
# (the namespace maps 0 to it): nsenter keeps the credentials, as the
# namespace denies setgroups(2).
in_userns() {
	"${AS_NOBODY[@]}" nsenter -t "$USERNS_PID" -U -m --preserve-credentials -- "$@"
}
