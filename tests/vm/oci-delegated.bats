#!/usr/bin/env bats
# The bpf-token hook's default mode, a delegated BPF FS (oci/oci-hook,
# org.bpf-token.mode unset), with Debian's runc, crun and podman, on this
# project's kernel and on Debian's 6.12 (tests/vm-mainline links this
# file): the hook mounts at /sys/fs/bpf in the container, libbpf's
# implicit path, a BPF FS delegated to the container's user namespace with
# what its objects need. The container's unmodified applications find it
# by themselves, with no token path: Debian's `ip` on the project's
# libbpf.so.1 loads an XDP program and attaches it to the container's lo,
# and libbpf-load, linked with Debian's libbpf 1.4 (build/debian-libbpf,
# tests/abi/libbpf-load.c), loads an object and attaches its XDP program
# to lo too (generic mode, then detached); each load is refused with
# libbpf's token turned off (LIBBPF_BPF_TOKEN_PATH=""), the control. That
# with runc, crun and podman (the hooks.d file `make install` installs).
# poststop unmounts the BPF FS; on this kernel that revokes the tokens made
# from it (a token held on the host says so).
#
# The cgroup scope: this kernel scopes the BPF FS to the container's
# cgroup, also when the policy lets containers go without; Debian's 6.12
# has no such scope, and the start fails in one line unless the policy
# opts out ("cgroup-scope optional"; "cgroup-scope annotation" and the
# container's org.bpf-token.cgroup-scope=optional) — the annotation alone,
# an image's, does not; podman's container, with the installed hooks.d
# file and the default policy, is refused there, and starts, loads and
# attaches with a hooks.d file whose hook's env names a policy that opts
# out. The attack beside the control: a container whose
# objects ask beyond the policy (kprobe) is not created, nothing mounted.
# The bundles are tests/vm/oci.bash's (user-namespaced, cgroup of their
# own), with CAP_BPF in the container's user namespace, which mainline's
# tokens need.

setup_file() {
	load ../vm/lib
	load ../vm/oci
	export OCI_PREFIX=$BATS_FILE_TMPDIR/prefix
	oci_install "$OCI_PREFIX"
	mkdir -p "/sys/fs/cgroup/$OCI_CGROUP"
	# this project's kernel (pinned tokens in its BTF, cgroup scope,
	# revocation at unmount) or a mainline one
	PORT=0
	"$BPFTOOL" btf dump file /sys/kernel/btf/vmlinux format raw 2>/dev/null |
		grep -q "^[[:space:]]*'pin_pathname' type_id=" && PORT=1
	export PORT
	echo "# kernel $(uname -r), this project's: $PORT" >&3
}

teardown_file() {
	load ../vm/lib
	load ../vm/oci
	rmdir "/sys/fs/cgroup/$OCI_CGROUP" 2>/dev/null || true
}

setup() {
	load ../vm/lib
	load ../vm/oci
	OCI_HOOK=$OCI_PREFIX/libexec/bpf-token/oci-hook
	LIBBPF_SO_DIR=$BUILD/libbpf
	LOADER=$BUILD/debian-libbpf/libbpf-load
	# the object libbpf-token.bats loads with libbpf 1.4 (xdp_token, as
	# committed in the fuzz corpus)
	LOADER_OBJ=$TOP/tests/fuzz/corpus/token_needs/obj-xdp_token
	# what libbpf-load prints when it loads LOADER_OBJ and attaches its
	# program to lo
	LOADER_ATTACHED=$'libbpf: 1.4\nload: ok\ntoken: yes\nprog xdp_token_prog\nmap token_stats\nattach lo: ok'
	need "$PROGS/ctr_xdp.bpf.o" "$PROGS/kprobe_ringbuf.bpf.o" "$LIBBPF_SO_DIR/libbpf.so.1" \
		"$BPFTOOL" "$LOADER" "$LOADER_OBJ"
	ID=ocid$BATS_TEST_NUMBER
	B=/tmp/oci-bpf-token/$ID
	rm -rf "$B"
	mkdir -p -m 0755 /tmp/oci-bpf-token "$B"
	RT=
	PM=()
	HOLD_PID=
	MOUNTS_BEFORE=$(oci_bpf_mounts)
	POLICY=$B/oci-policy
	export OCI_HOOK_ENV="BPF_TOKEN_OCI_POLICY=$POLICY"
	# a delegated BPF FS's tokens are mainline's: made, and used, by a
	# process with CAP_BPF in the container's user namespace
	OCI_CAPS=$(jq -c '. + ["CAP_BPF"]' <<<"$OCI_CAPS")
}

teardown() {
	[[ -z $HOLD_PID ]] || kill "$HOLD_PID" 2>/dev/null || true
	[[ ${#PM[@]} == 0 ]] || "${PM[@]}" rm --force "$ID" >/dev/null 2>&1 </dev/null || true
	[[ -z $RT ]] || "$RT" delete -f "$ID" >/dev/null 2>&1 || true
	if mountpoint -q "/run/bpf-token/oci/$ID"; then
		umount -l "/run/bpf-token/oci/$ID"
	fi
	rmdir "/run/bpf-token/oci/$ID" "/sys/fs/cgroup/$OCI_CGROUP/$ID" 2>/dev/null || true
	rm -f "/run/bpf-token/oci-records/$ID"
	rm -rf "$B"
}

# create RT: RT create the container of bundle $B; errors in $output
create() {
	RT=$1
	status=0
	"$RT" create --bundle "$B" "$ID" </dev/null >"$B/stdout" 2>"$B/stderr" 3>&- || status=$?
	output=$(<"$B/stderr")
	echo "$RT create: status $status: $output"
	[[ ! -s $B/hook.err ]] || echo "hook's stderr (crun): $(<"$B/hook.err")"
}

# ct CMD...: CMD in the container, as its root
ct() {
	"$RT" exec --env PATH=/usr/sbin:/usr/bin:/sbin:/bin "$ID" "$@" </dev/null
}

# refused RT MESSAGE ANNOTATION...: the container is not created, the hook's
# one line contains MESSAGE, nothing is left
refused() {
	local rt=$1 msg=$2 line
	shift 2
	RT=$rt
	oci_bundle "$B" "$ID" "$@"
	: >"$B/hook.err"
	create "$rt"
	[[ $status != 0 ]]
	line=$(cat - "$B/hook.err" 2>/dev/null <<<"$output" | grep -o 'Error: bpf-token hook: [^"]*' | head -n 1)
	echo "hook: $line"
	[[ $line == *"$msg"* ]]
	run "$rt" state "$ID"
	[[ $status != 0 ]]
	[[ ! -e /run/bpf-token/oci/$ID && ! -e /run/bpf-token/oci-records/$ID ]]
	[[ $(oci_bpf_mounts) == "$MOUNTS_BEFORE" ]]
	RT=
}

# mount_of ID: `bpftool -j token show` of container ID's delegated BPF FS,
# as root sees it on the host
mount_of() {
	"$BPFTOOL" -j token show "/run/bpf-token/oci/$1" | jq -c '.'
}

# hold_token PID: a process of the host, in the user namespace of the
# container's process PID (not in its mount namespace, nor its cgroup),
# makes a token from the container's /sys/fs/bpf (mainline's
# BPF_TOKEN_CREATE, flags 0) and holds it; sets HOLD_PID and HOLD_FD
hold_token() {
	local out=$BATS_TEST_TMPDIR/hold.out i
	/usr/bin/python3 - "$1" >"$out" 3>&- <<-'EOF' &
	import ctypes, os, struct, sys, time
	libc = ctypes.CDLL(None, use_errno=True)
	fs = os.open('/proc/%s/root/sys/fs/bpf' % sys.argv[1], os.O_RDONLY | os.O_DIRECTORY)
	ns = os.open('/proc/%s/ns/user' % sys.argv[1], os.O_RDONLY)
	if libc.setns(ns, 0x10000000) < 0:
	    print('setns: error %d' % ctypes.get_errno(), flush=True)
	    sys.exit(1)
	attr = ctypes.create_string_buffer(struct.pack('II', 0, fs), 128)
	fd = libc.syscall(321, 36, attr, 128)
	os.close(fs)
	print(fd if fd >= 0 else 'error %d' % ctypes.get_errno(), flush=True)
	time.sleep(600)
	EOF
	HOLD_PID=$!
	for ((i = 0; i < 100; i++)); do
		[[ -s $out ]] && break
		sleep 0.1
	done
	HOLD_FD=$(<"$out")
	[[ $HOLD_FD =~ ^[0-9]+$ ]] || { echo "no token from the container's BPF FS: $HOLD_FD"; return 1; }
}

# scenario RT: an annotated container of runtime RT, with the default mode
scenario() {
	local pid m cg
	# Debian's 6.12 has no cgroup scope: the policy's opt-out (the
	# refusal without it is a test below)
	[[ $PORT == 1 ]] || echo 'cgroup-scope optional' >"$POLICY"
	RT=$1
	oci_bundle "$B" "$ID" "org.bpf-token.objects=$PROGS/ctr_xdp.bpf.o:$LOADER_OBJ"
	create "$RT"
	[[ $status == 0 ]]
	pid=$(oci_pid "$RT" "$ID")

	# the host's view: a delegated BPF FS, owned by the container's root,
	# with what the objects and libbpf's load probe need; on this kernel
	# scoped to the container's cgroup
	m=$(mount_of "$ID")
	echo "$m"
	[[ $(jq -r .delegated <<<"$m") == "/run/bpf-token/oci/$ID" ]]
	[[ $(stat -c '%u:%g %a' "/run/bpf-token/oci/$ID") == "$OCI_UID:$OCI_UID 755" ]]
	[[ $(jq -c '.allowed_progs | sort' <<<"$m") == '["socket_filter","xdp"]' ]]
	[[ $(jq -c '.allowed_maps' <<<"$m") == '["array"]' ]]
	[[ $(jq .root_equivalent <<<"$m") == false ]]
	cg=$(jq -r .cgroup.id <<<"$m")
	if [[ $PORT == 1 ]]; then
		[[ $cg == "$(stat -c %i "/sys/fs/cgroup/$OCI_CGROUP/$ID")" ]]
	else
		[[ $cg == null ]]
	fi

	run "$RT" start "$ID"
	[[ $status == 0 ]]
	run ct stat -fc %T /sys/fs/bpf
	[[ $output == bpf_fs ]]
	ct ip link set lo up

	# libbpf-load on Debian's libbpf 1.4: the control, libbpf's token off,
	# is refused; by itself, libbpf finds the token at /sys/fs/bpf, and
	# the program it loaded attaches to lo (and is detached again, for ip)
	run --separate-stderr ct env LIBBPF_BPF_TOKEN_PATH= "$LOADER" "$LOADER_OBJ"
	echo "no token: $output"
	[[ $status == 1 && $output == $'libbpf: 1.4\nload: EPERM\ntoken: no' ]]
	run --separate-stderr ct "$LOADER" "$LOADER_OBJ" xdp lo
	echo "libbpf 1.4: $output $stderr"
	[[ $status == 0 ]]
	[[ $output == "$LOADER_ATTACHED" ]]

	# Debian's ip on the project's libbpf.so.1: the same, and it attaches
	# the program to the container's lo
	run ct env LD_LIBRARY_PATH="$LIBBPF_SO_DIR" LIBBPF_BPF_TOKEN_PATH= \
		ip link set dev lo xdpgeneric obj "$PROGS/ctr_xdp.bpf.o" sec xdp
	echo "no token: $output"
	[[ $status != 0 && $output == *"Operation not permitted"* ]]
	run ct env LD_LIBRARY_PATH="$LIBBPF_SO_DIR" \
		ip link set dev lo xdpgeneric obj "$PROGS/ctr_xdp.bpf.o" sec xdp
	echo "ip: $output"
	[[ $status == 0 ]]
	run ct ip link show dev lo
	echo "$output"
	[[ $output == *"prog/xdp id"* ]]

	# a token of the container's BPF FS, held on the host
	if [[ $PORT == 1 ]]; then
		hold_token "$pid"
		[[ $(oci_revoked) == 0 ]]
	fi

	# stop and delete: poststop unmounts the BPF FS (here: revokes its
	# tokens)
	oci_kill_delete "$RT" "$ID"
	[[ ! -e /run/bpf-token/oci/$ID && ! -e /run/bpf-token/oci-records/$ID ]]
	[[ $(oci_bpf_mounts) == "$MOUNTS_BEFORE" ]]
	if [[ $PORT == 1 ]]; then
		[[ $(oci_revoked) == 1 ]]
	fi
	RT=
}

@test "runc: a delegated BPF FS at /sys/fs/bpf: ip and libbpf 1.4 load and attach through it by themselves; delete unmounts it (revokes its tokens)" {
	scenario runc
}

@test "crun: a delegated BPF FS at /sys/fs/bpf: ip and libbpf 1.4 load and attach through it by themselves; delete unmounts it (revokes its tokens)" {
	scenario crun
}

@test "runc: objects beyond the policy (kprobe, root-equivalent): not created, one line, nothing mounted" {
	[[ $PORT == 1 ]] || echo 'cgroup-scope optional' >"$POLICY"
	refused runc 'policy refuses progs kprobe (root-equivalent; org.bpf-token.objects)' \
		"org.bpf-token.objects=$PROGS/ctr_xdp.bpf.o:$PROGS/kprobe_ringbuf.bpf.o"
}

@test "crun: the cgroup scope: this kernel's, also when the policy opts out; a kernel without it refuses unless the policy opts out" {
	local m ann=(org.bpf-token.objects="$PROGS/ctr_xdp.bpf.o")
	if [[ $PORT == 1 ]]; then
		# the opt-out changes nothing here: the scope is the container's
		# cgroup
		echo 'cgroup-scope optional' >"$POLICY"
		RT=crun
		oci_bundle "$B" "$ID" "${ann[@]}" org.bpf-token.cgroup-scope=optional
		create crun
		[[ $status == 0 ]]
		m=$(mount_of "$ID")
		echo "$m"
		[[ $(jq -r .cgroup.id <<<"$m") == "$(stat -c %i "/sys/fs/cgroup/$OCI_CGROUP/$ID")" ]]
		run crun delete -f "$ID"
		[[ $status == 0 ]]
		[[ ! -e /run/bpf-token/oci/$ID && $(oci_bpf_mounts) == "$MOUNTS_BEFORE" ]]
		RT=
		return
	fi
	# no scope on this kernel: refused, whatever the image's annotations
	# say, unless the policy lets the annotation count
	local msg='the kernel has no cgroup scope for a delegated BPF FS'
	refused crun "$msg" "${ann[@]}"
	refused crun "$msg" "${ann[@]}" org.bpf-token.cgroup-scope=optional
	echo 'trust-annotations yes' >"$POLICY"
	refused crun "$msg" "${ann[@]}" org.bpf-token.cgroup-scope=optional
	# and the pinned mode, which this kernel lacks
	OCI_MODE=pinned refused crun "can't create a pinned token: this kernel has mainline's BPF tokens" \
		"${ann[@]}"
	# the control: the policy lets the annotation count
	echo 'cgroup-scope annotation' >"$POLICY"
	RT=crun
	oci_bundle "$B" "$ID" "${ann[@]}" org.bpf-token.cgroup-scope=optional
	create crun
	[[ $status == 0 ]]
	m=$(mount_of "$ID")
	echo "$m"
	[[ $(jq -r .cgroup <<<"$m") == null && $(jq -c .allowed_progs <<<"$m") == *xdp* ]]
	run crun delete -f "$ID"
	[[ $status == 0 ]]
	[[ ! -e /run/bpf-token/oci/$ID && $(oci_bpf_mounts) == "$MOUNTS_BEFORE" ]]
	RT=
}

# podman_cmd HOOKS_DIR: PM, podman with the test's storage and HOOKS_DIR
# as its hooks.d directory
podman_cmd() {
	PM=(podman --storage-driver vfs --root "$B/storage" --runroot "$B/run" --cgroup-manager cgroupfs
		--events-backend file --hooks-dir "$1")
}

# podman_run: `PM run --detach` of container ID (an annotated one, with
# CAP_BPF, bpf() allowed by seccomp, the host's /usr, /etc and the project
# read-only); status and output
podman_run() {
	local vols=(--volume /usr:/usr:ro --volume /etc:/etc:ro --volume "$TOP:$TOP:ro")
	[[ $BUILD == "$TOP"/* ]] || vols+=(--volume "$BUILD:$BUILD:ro")
	: >"$B/hook.err"
	run "${PM[@]}" run --detach --name "$ID" --network none --cap-add NET_ADMIN --cap-add BPF \
		--uidmap 0:$OCI_UID:65536 --gidmap 0:$OCI_UID:65536 \
		--annotation "org.bpf-token.objects=$PROGS/ctr_xdp.bpf.o:$LOADER_OBJ" \
		--annotation run.oci.hooks.stderr="$B/hook.err" --security-opt seccomp="$B/seccomp.json" \
		"${vols[@]}" --rootfs "$B/rootfs" sleep 100000 </dev/null
	echo "podman run: status $status: $output"
	[[ ! -s $B/hook.err ]] || echo "hook: $(<"$B/hook.err")"
}

# podman_loads: the container podman_run started has its delegated BPF FS;
# in it, libbpf-load on Debian's libbpf 1.4 loads and attaches to lo (then
# detaches), Debian's ip on the project's libbpf.so.1 loads and attaches;
# `PM rm --force` unmounts the BPF FS
podman_loads() {
	local id
	[[ $status == 0 ]]
	id=$("${PM[@]}" inspect --format '{{.Id}}' "$ID")
	[[ $(jq -r '.delegated' <<<"$("$BPFTOOL" -j token show "/run/bpf-token/oci/$id")") == "/run/bpf-token/oci/$id" ]]
	run "${PM[@]}" exec "$ID" ip link set dev lo up </dev/null
	[[ $status == 0 ]]
	run --separate-stderr "${PM[@]}" exec "$ID" "$LOADER" "$LOADER_OBJ" xdp lo </dev/null
	echo "libbpf 1.4: $output $stderr"
	[[ $status == 0 && $output == "$LOADER_ATTACHED" ]]
	run "${PM[@]}" exec --env LD_LIBRARY_PATH="$LIBBPF_SO_DIR" "$ID" sh -c \
		"ip link set dev lo xdpgeneric obj $PROGS/ctr_xdp.bpf.o sec xdp && ip link show dev lo" </dev/null
	echo "ip: $output"
	[[ $status == 0 && $output == *"prog/xdp id"* ]]
	run "${PM[@]}" rm --force "$ID" </dev/null
	[[ $status == 0 ]]
	[[ ! -e /run/bpf-token/oci/$id && ! -e /run/bpf-token/oci-records/$id ]]
	[[ $(oci_bpf_mounts) == "$MOUNTS_BEFORE" ]]
}

# podman, with the hooks.d file `make install` installs (tests/vm/
# oci-runtimes.bats's podman_setup, without the pinned mode): the host's
# policy is the default one (no /etc/bpf-token/oci-policy). On a kernel
# without cgroup scope that refuses the container; a hooks.d file of the
# test's own, the installed one with BPF_TOKEN_OCI_POLICY in the hook's env
# (a policy that opts out of the scope), starts it.
@test "podman: the installed hooks.d file: the default mode, ip and libbpf 1.4 load and attach through /sys/fs/bpf; rm unmounts (a kernel without cgroup scope: refused in one line, and started by a hooks.d file whose env names an opting-out policy)" {
	local line f hooks=$OCI_PREFIX/share/containers/oci/hooks.d
	[[ ! -e /etc/bpf-token/oci-policy ]] || skip "the host has a policy of its own (/etc/bpf-token/oci-policy)"
	podman_cmd "$hooks"
	oci_rootfs "$B/rootfs"
	chown -hR $OCI_UID:$OCI_UID "$B/rootfs"
	jq '.syscalls |= map(.names -= ["bpf"]) | .syscalls += [{names: ["bpf"], action: "SCMP_ACT_ALLOW"}]' \
		/usr/share/containers/seccomp.json >"$B/seccomp.json"
	podman_run
	if [[ $PORT == 1 ]]; then
		podman_loads
		return
	fi
	# Debian's 6.12, the default policy: refused
	[[ $status != 0 ]]
	line=$(cat - "$B/hook.err" 2>/dev/null <<<"$output" | grep -o 'Error: bpf-token hook: [^"]*' | head -n 1)
	echo "hook: $line"
	[[ $line == *"the kernel has no cgroup scope for a delegated BPF FS"* ]]
	[[ $(oci_bpf_mounts) == "$MOUNTS_BEFORE" ]]
	run "${PM[@]}" rm --force "$ID" </dev/null
	echo "podman rm: status $status: $output"
	# the installed hooks.d file(s), the hook's env naming a policy that
	# opts out (hooks.d 1.0.0: hook.env, "K=V" strings)
	echo 'cgroup-scope optional' >"$POLICY"
	mkdir "$B/hooks.d"
	for f in "$hooks"/*.json; do
		jq --arg e "BPF_TOKEN_OCI_POLICY=$POLICY" '.hook.env += [$e]' "$f" >"$B/hooks.d/${f##*/}"
		cat "$B/hooks.d/${f##*/}"
	done
	[[ -n $(jq -r '.hook.env[]' "$B"/hooks.d/*.json) ]]
	podman_cmd "$B/hooks.d"
	podman_run
	podman_loads
}
