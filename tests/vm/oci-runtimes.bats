#!/usr/bin/env bats
# Containers of real OCI runtimes, Debian's runc and crun, with the bpf-token
# hook (oci/oci-hook) in their config.json, as `make install` installs it.
# The bundles are made locally (tests/vm/oci.bash): user-namespaced
# containers whose root is uid 100000 of the host, in a cgroup of their own.
#
# These are the hook's pinned mode (org.bpf-token.mode=pinned: a token the
# hook creates and pins; tests/vm/oci-delegated.bats has the delegated
# BPF FS, the default). For each runtime: the annotated container gets a
# BPF FS and a token from the hook; inside, Debian's `ip`, unmodified, loads and attaches an XDP
# program to the container's end of a veth pair through the token (the
# project's libbpf.so.1, LIBBPF_BPF_TOKEN_PATH) and the frames sent from the
# host are counted; bpftool attaches a cgroup program to the container's own
# cgroup, and is refused its parent cgroup and the root; after the container
# is deleted, the token is revoked and the BPF FS is gone. Then: a container
# without the annotations is left alone, and bad annotations stop the
# container from being created, leaving nothing behind.
#
# The annotations are an image's as much as the operator's: what the host's
# policy refuses (a root-equivalent program type, by default; a map type the
# guide's example policy does not list; an image's explicit sets, ignored
# unless the policy trusts annotations) stops the container with one line,
# beside a control that gets its token; the parse of the objects is
# unprivileged and bounded in time and memory, and the real bpftool refuses
# the fuzzer's crash inputs and objects beyond its bounds in one line; the
# policy's "objects digest" takes an image's object only if its SHA-256 is
# listed, "objects host" takes the objects from a directory of the host and
# never reads the image's; a symbolic link the container puts in
# the place of its token is not followed at delete; the poststop of another
# runtime's container of the same id leaves the live one's token alone; the
# token's BPF FS propagates to no other mount namespace. The image's links
# out of its root file system (to /proc/1/root, to host paths, past its
# root) are refused with the words of a missing file; a mount the container
# makes over its /sys/fs/bpf hides nothing from delete; a cgroup that the
# container shares (with another container, a process of the host, podman
# and its runtime under --cgroups=disabled) is refused. Each beside a
# control that gets its token.

setup_file() {
	load lib
	load oci
	# one prefix for the whole file: bpftool and the hook, installed
	export OCI_PREFIX=$BATS_FILE_TMPDIR/prefix
	oci_install "$OCI_PREFIX"
	mkdir -p "/sys/fs/cgroup/$OCI_CGROUP"
}

teardown_file() {
	load lib
	load oci
	rmdir "/sys/fs/cgroup/$OCI_CGROUP" 2>/dev/null || true
}

setup() {
	load lib
	load oci
	# the hook runs the bpftool of its prefix; the test, on the host and in
	# the container (which sees the project, not the prefix), the build's
	OCI_HOOK=$OCI_PREFIX/libexec/bpf-token/oci-hook
	LIBBPF_SO_DIR=$BUILD/libbpf
	need "$PROGS/ctr_xdp.bpf.o" "$PROGS/cgroup_skb_maps.bpf.o" "$LIBBPF_SO_DIR/libbpf.so.1" "$BPFTOOL"
	ID=oci$BATS_TEST_NUMBER
	# the bundle: in a directory the container's root may search (the
	# runtime reaches the root file system as that user)
	B=/tmp/oci-bpf-token/$ID
	rm -rf "$B"
	mkdir -p -m 0755 /tmp/oci-bpf-token "$B"
	VH=oci${BATS_TEST_NUMBER}h
	VC=oci${BATS_TEST_NUMBER}c
	RT=
	PM=()
	HOLD_PID=
	VICTIM=
	WATCH_PID=
	SHARED_RUN=
	MOUNTS_BEFORE=$(oci_bpf_mounts)
	# the hook's pinned mode, asked by an annotation (oci_bundle)
	OCI_MODE=pinned
	# the host's policy: none (the defaults) unless the test writes one
	POLICY=$B/oci-policy
	export OCI_HOOK_ENV="BPF_TOKEN_OCI_POLICY=$POLICY"
}

teardown() {
	[[ -z $HOLD_PID ]] || kill "$HOLD_PID" 2>/dev/null || true
	[[ -z $VICTIM ]] || rm -f "$VICTIM"
	[[ -z $WATCH_PID ]] || kill "$WATCH_PID" 2>/dev/null || true
	[[ -z $SHARED_RUN ]] || mount --make-private /run
	local id
	[[ ${#PM[@]} == 0 ]] || "${PM[@]}" rm --force "$ID" >/dev/null 2>&1 </dev/null || true
	for id in "$ID" "${ID}b"; do
		if [[ -n $RT ]]; then
			"$RT" delete -f "$id" >/dev/null 2>&1 || true
		fi
		# whatever a failed test left: the host's mount of the token's BPF FS
		if mountpoint -q "/run/bpf-token/oci/$id"; then
			umount -l "/run/bpf-token/oci/$id"
		fi
		rmdir "/run/bpf-token/oci/$id" "/sys/fs/cgroup/$OCI_CGROUP/$id" 2>/dev/null || true
		rm -f "/run/bpf-token/oci-records/$id"
	done
	ip link del "$VH" 2>/dev/null || true
	rm -rf "$B" "${B}b"
}

# create RT: RT create the container of bundle $B; the runtime's (and the
# hook's) errors in $output, status in $status. The container's standard
# output and error (inherited from the runtime) go to files, not to a pipe
# that bats would wait on.
create() {
	RT=$1
	status=0
	"$RT" create --bundle "$B" "$ID" </dev/null >"$B/stdout" 2>"$B/stderr" 3>&- || status=$?
	output=$(<"$B/stderr")
	echo "$RT create: status $status: $output"
	[[ ! -s $B/hook.err ]] || echo "hook's stderr (crun): $(<"$B/hook.err")"
}

# ct CMD...: CMD in the container, as its root, with the runtime's exec
# (which passes its standard input on: none, here)
ct() {
	"$RT" exec "$ID" "$@" </dev/null
}

# ct_token CMD...: the same, an unmodified libbpf application with the
# project's libbpf.so.1 and the token
ct_token() {
	# (crun's exec takes the environment given, without the container's)
	"$RT" exec --env PATH=/usr/sbin:/usr/bin:/sbin:/bin --env LD_LIBRARY_PATH="$LIBBPF_SO_DIR" \
		--env LIBBPF_BPF_TOKEN_PATH=/sys/fs/bpf/token "$ID" "$@" </dev/null
}

# counter PIN SLOT: slot SLOT of the ctr_* counter map pinned at PIN in the
# container's BPF FS, read by root on the host through the hook's mount
counter() {
	local hex
	hex=$("$BPFTOOL" -j map lookup pinned "/run/bpf-token/oci/$ID/$1" key "$2" 0 0 0 |
		jq -r '.value | map(ltrimstr("0x")) | reverse | join("")') || return 1
	echo $((16#$hex))
}

# the annotations of the scenario's container: a token for the XDP counter
# and the cgroup program
objects_annotation() {
	echo "org.bpf-token.objects=$PROGS/ctr_xdp.bpf.o, $PROGS/cgroup_skb_maps.bpf.o"
}

# scenario RT: the whole life of an annotated container under runtime RT
scenario() {
	local pid tok ino n=21 prog cg denials
	RT=$1
	oci_bundle "$B" "$ID" "$(objects_annotation)"
	create "$RT"
	[[ $status == 0 ]]
	pid=$(oci_pid "$RT" "$ID")
	echo "container $ID: process $pid"

	# the hook's work, as root sees it from the host: the BPF FS instance,
	# the token in it, owned by the container's root, bound to its user
	# namespace, scoped to its cgroup, allowing what the objects need
	tok=/run/bpf-token/oci/$ID/token
	[[ $(stat -c '%u:%g %a' "$tok") == "$OCI_UID:$OCI_UID 600" ]]
	[[ $(stat -fc %T "/run/bpf-token/oci/$ID") == bpf_fs ]]
	run "$BPFTOOL" -j token show "$tok"
	echo "$output"
	[[ $status == 0 ]]
	ino=$(stat -Lc %i "/proc/$pid/ns/user")
	[[ $(jq '.userns' <<<"$output") == "$ino" ]]
	# the cgroup's id is its inode number on the cgroup v2 file system
	[[ $(jq -r '.cgroup.id' <<<"$output") == "$(stat -c %i "/sys/fs/cgroup/$OCI_CGROUP/$ID")" ]]
	[[ $(jq -r '.cgroup.path' <<<"$output") == @(null|/$OCI_CGROUP/$ID) ]]
	[[ $(jq -c '.allowed_progs | sort' <<<"$output") == '["cgroup_skb","xdp"]' ]]
	[[ $(jq -c '.allowed_maps | sort' <<<"$output") == '["array","array_of_maps","hash","hash_of_maps"]' ]]

	# the container's network: one end of a veth pair, moved in by root
	ip link add "$VH" type veth peer name "$VC"
	ip link set "$VC" netns "$pid"
	ip link set "$VH" up
	run "$RT" start "$ID"
	[[ $status == 0 ]]
	ct ip link set lo up
	ct ip link set "$VC" up

	# inside: the token, at /sys/fs/bpf/token, the container's root's
	run ct ls -ln /sys/fs/bpf
	echo "$output"
	[[ $output == *"-rw------- 1 0 0 0 "*" token"* ]]

	# Debian's ip: refused without the token, works with it
	run ct env LD_LIBRARY_PATH="$LIBBPF_SO_DIR" ip link set dev "$VC" xdp obj "$PROGS/ctr_xdp.bpf.o" sec xdp
	echo "no token: $output"
	[[ $status != 0 && $output == *"Operation not permitted"* ]]
	run ct_token ip link set dev "$VC" xdp obj "$PROGS/ctr_xdp.bpf.o" sec xdp
	echo "token: $output"
	[[ $status == 0 ]]
	run ct ip link show dev "$VC"
	[[ $output == *"prog/xdp id"* ]]
	[[ $(counter tc/globals/ctr_xdp_count 0) == 0 ]]
	send_frames "$VH" $n
	echo "counted: $(counter tc/globals/ctr_xdp_count 0) of $n"
	[[ $(counter tc/globals/ctr_xdp_count 0) == "$n" ]]

	# a cgroup program, loaded through the token: attached to the
	# container's own cgroup (its cgroup namespace's root, and the same
	# cgroup seen in the host's tree); refused above it
	run ct "$BPFTOOL" prog loadall "$PROGS/cgroup_skb_maps.bpf.o" /sys/fs/bpf/cg \
		token /sys/fs/bpf/token pinmaps /sys/fs/bpf/cgmaps
	echo "loadall: $output"
	[[ $status == 0 ]]
	prog=/sys/fs/bpf/cg/skb_ingress
	denials=$("$BPFTOOL" -j token show "$tok" | jq '.denials')
	for cg in "/host-cgroup/$OCI_CGROUP" /host-cgroup; do
		run ct /usr/bin/python3 -c "$OCI_ATTACH_PY" "$prog" "$cg" 0
		echo "attach to $cg: $output"
		[[ $output == EPERM ]]
	done
	# refused by the token's scope: each refusal is a denial of the token
	[[ $("$BPFTOOL" -j token show "$tok" | jq '.denials') == $((denials + 2)) ]]
	run "$BPFTOOL" cgroup show "/sys/fs/cgroup/$OCI_CGROUP"
	[[ -z $output ]]
	run "$BPFTOOL" cgroup show /sys/fs/cgroup
	[[ $output != *skb_ingress* ]]
	run ct "$BPFTOOL" cgroup attach /sys/fs/cgroup ingress pinned "$prog"
	echo "attach to its own cgroup: $status $output"
	[[ $status == 0 ]]
	run ct /usr/bin/python3 -c "$OCI_ATTACH_PY" /sys/fs/bpf/cg/skb_egress "/host-cgroup/$OCI_CGROUP/$ID" 1
	echo "egress, to its own cgroup in the host's tree: $output"
	[[ $output == ok ]]
	run "$BPFTOOL" cgroup show "/sys/fs/cgroup/$OCI_CGROUP/$ID"
	echo "$output"
	[[ $output == *"ingress"*"skb_ingress"* && $output == *"egress"*"skb_egress"* ]]

	# stop and delete: the hook's poststop revokes the token, the BPF FS
	# goes (a read-only fd of the token, held on the host, reports it)
	oci_hold_token "$tok"
	[[ $(oci_revoked) == 0 ]]
	oci_kill_delete "$RT" "$ID"
	[[ $(oci_revoked) == 1 ]]
	[[ ! -e /run/bpf-token/oci/$ID && ! -e /run/bpf-token/oci-records/$ID ]]
	[[ $(oci_bpf_mounts) == "$MOUNTS_BEFORE" ]]
	[[ ! -e /proc/$pid ]]
	RT=
}

@test "runc: the hook's token in the container: ip attaches XDP and counts, cgroup scope, revoked at delete" {
	scenario runc
}

@test "crun: the hook's token in the container: ip attaches XDP and counts, cgroup scope, revoked at delete" {
	scenario crun
}

@test "runc: a container without bpf-token annotations is left alone" {
	RT=runc
	oci_bundle "$B" "$ID" org.example.other=1
	create runc
	[[ $status == 0 ]]
	[[ ! -e /run/bpf-token/oci/$ID ]]
	run runc exec "$ID" stat -fc %T /sys/fs/bpf </dev/null
	echo "$output"
	[[ $output == sysfs ]]
	[[ $(oci_bpf_mounts) == "$MOUNTS_BEFORE" ]]
	run runc delete -f "$ID"
	[[ $status == 0 ]]
	RT=
}

# refused RT ANNOTATION... MESSAGE: creating a container with the
# annotations fails with the hook's error line containing MESSAGE, and
# leaves no container, no mount, no directory
refused() {
	local rt=$1 msg=${*: -1} line
	RT=$rt
	oci_bundle "$B" "$ID" "${@:2:$#-2}"
	# crun appends to the hook's stderr file: this run's line only
	: >"$B/hook.err"
	create "$rt"
	[[ $status != 0 ]]
	# the hook's one line, whole, in the runtime's error (runc's: in the
	# quoted msg="...", whose quotes and newline are escaped; crun's error
	# names the hook only: its line is in the file that
	# run.oci.hooks.stderr names)
	line=$(cat - "$B/hook.err" 2>/dev/null <<<"$output" | grep -o 'Error: bpf-token hook: .*' |
		head -n 1 | sed -e 's/\\n"$//' -e 's/\\"/"/g')
	echo "hook: $line"
	[[ $line == *"$msg"* ]]
	run "$rt" state "$ID"
	[[ $status != 0 ]]
	[[ ! -e /run/bpf-token/oci/$ID && ! -e /run/bpf-token/oci-records/$ID ]]
	[[ $(oci_bpf_mounts) == "$MOUNTS_BEFORE" ]]
	[[ ! -e /sys/fs/cgroup/$OCI_CGROUP/$ID ]]
	RT=
}

@test "runc: an unknown bpf-token annotation: not created, nothing left" {
	refused runc "$(objects_annotation)" org.bpf-token.map=array \
		"unknown annotation org.bpf-token.map "
}

@test "runc: an object that is not in the container: not created, nothing left" {
	refused runc "org.bpf-token.objects=$PROGS/no-such.bpf.o" \
		"org.bpf-token.objects: $PROGS/no-such.bpf.o: No such file or directory in the container"
}

@test "runc: an object that is a device: not opened, not created, nothing left" {
	refused runc "$(objects_annotation),/dev/null" \
		"org.bpf-token.objects: /dev/null is not a regular file in the container"
}

@test "crun: an object that is not a BPF object: not created, nothing left" {
	refused crun "org.bpf-token.objects=/etc/hostname" \
		"bpftool token needs: object /etc/hostname is not an ELF file"
}

@test "crun: a token path whose directory is not in the container: not created, nothing left" {
	refused crun "$(objects_annotation)" org.bpf-token.path=/no/such/dir/token \
		"org.bpf-token.path: /no/such/dir: No such file or directory in the container"
}

@test "runc: a token path outside the container's root: not created, nothing left" {
	refused runc "$(objects_annotation)" org.bpf-token.path=/sys/fs/bpf/../../../tmp/token \
		'org.bpf-token.path: bad path'
}

@test "crun: an unknown map type in a set: bpftool's error, not created, nothing left" {
	# (a policy that trusts the annotations' explicit sets: bpftool reads them
	# once the BPF FS is mounted)
	echo 'trust-annotations yes' >"$POLICY"
	refused crun org.bpf-token.cmds=map_create org.bpf-token.maps=array,hashh \
		"bpftool token create: "
}

@test "crun: a symbolic link in the container's root file system resolves inside the container" {
	RT=crun
	# /escape -> /run: the host's /run at createRuntime, before the
	# container's root is its own
	oci_bundle "$B" "$ID" "$(objects_annotation)" org.bpf-token.path=/escape/token
	ln -s /run "$B/rootfs/escape"
	create crun
	[[ $status == 0 ]]
	# the BPF FS is the container's /run, not the host's
	[[ $(stat -fc %T /run) == tmpfs ]]
	[[ $(oci_bpf_mounts) == "$MOUNTS_BEFORE"$'\n'"/run/bpf-token/oci/$ID" ]]
	run crun start "$ID"
	[[ $status == 0 ]]
	run crun exec "$ID" sh -c 'stat -fc %T /run; ls -ln /run/token' </dev/null
	echo "$output"
	[[ ${lines[0]} == bpf_fs ]]
	[[ ${lines[1]} == "-rw------- 1 0 0 0 "*" /run/token" ]]
	run crun delete -f "$ID"
	[[ $status == 0 ]]
	[[ ! -e /run/bpf-token/oci/$ID ]]
	RT=
}

@test "runc: the default policy refuses an object that needs kprobe (root-equivalent): not created, nothing left" {
	refused runc "org.bpf-token.objects=$PROGS/ctr_xdp.bpf.o:$PROGS/kprobe_ringbuf.bpf.o" \
		'policy refuses progs kprobe (root-equivalent; org.bpf-token.objects)'
}

@test "crun: the default policy refuses an XDP object that reads kernel memory (tracepoint): not created, nothing left" {
	refused crun "org.bpf-token.objects=$PROGS/xdp_read_kernel.bpf.o" \
		'policy refuses progs tracepoint (root-equivalent; org.bpf-token.objects)'
}

# token_of ID: `bpftool -j token show` of container ID's token, one object
token_of() {
	"$BPFTOOL" -j token show "/run/bpf-token/oci/$1/token" | jq -c .
}

@test "runc: an image's explicit sets are ignored by default: its token allows what its objects need, not kprobe" {
	local tok
	RT=runc
	oci_bundle "$B" "$ID" "org.bpf-token.objects=$PROGS/ctr_xdp.bpf.o" org.bpf-token.progs=kprobe,tracing \
		org.bpf-token.maps=any org.bpf-token.cmds=any
	create runc
	[[ $status == 0 ]]
	tok=$(token_of "$ID")
	echo "$tok"
	[[ $(jq -c .allowed_progs <<<"$tok") == '["xdp"]' ]]
	[[ $(jq -c .allowed_maps <<<"$tok") == '["array"]' ]]
	[[ $(jq -c '.allowed_cmds | sort' <<<"$tok") == '["btf_load","map_create","prog_load"]' ]]
	[[ $(jq .root_equivalent <<<"$tok") == false ]]
	# trusted by the policy, the same request is refused: kprobe is
	# root-equivalent
	run runc delete -f "$ID"
	[[ $status == 0 ]]
	echo 'trust-annotations yes' >"$POLICY"
	refused runc "org.bpf-token.objects=$PROGS/ctr_xdp.bpf.o" org.bpf-token.progs=kprobe,tracing \
		'policy refuses progs kprobe, tracing (root-equivalent; org.bpf-token.progs)'
}

@test "crun: the relaxed verifier: given when the policy allows it and trusts the annotation that asks, refused otherwise" {
	local tok
	printf 'trust-annotations yes\nverifier relaxed\n' >"$POLICY"
	RT=crun
	oci_bundle "$B" "$ID" "org.bpf-token.objects=$PROGS/ctr_xdp.bpf.o" org.bpf-token.verifier=relaxed
	create crun
	[[ $status == 0 ]]
	tok=$(token_of "$ID")
	echo "$tok"
	[[ $(jq .relaxed_verifier <<<"$tok") == true && $(jq -c .allowed_progs <<<"$tok") == '["xdp"]' ]]
	run crun delete -f "$ID"
	[[ $status == 0 ]]
	echo 'trust-annotations yes' >"$POLICY"
	refused crun "org.bpf-token.objects=$PROGS/ctr_xdp.bpf.o" org.bpf-token.verifier=relaxed \
		'policy refuses verifier relaxed (org.bpf-token.verifier)'
}

@test "crun: the guide's example policy: the scenario's objects get their token, a STACK map is refused" {
	local tok
	cp "$TOP/Documentation/examples/oci-policy" "$POLICY"
	RT=crun
	oci_bundle "$B" "$ID" "$(objects_annotation)"
	create crun
	[[ $status == 0 ]]
	tok=$(token_of "$ID")
	echo "$tok"
	[[ $(jq -c '.allowed_progs | sort' <<<"$tok") == '["cgroup_skb","xdp"]' ]]
	run crun delete -f "$ID"
	[[ $status == 0 ]]
	[[ ! -e /run/bpf-token/oci/$ID && $(oci_bpf_mounts) == "$MOUNTS_BEFORE" ]]
	refused crun "org.bpf-token.objects=$PROGS/ctr_xdp.bpf.o:$PROGS/xdp_stack.bpf.o" \
		"policy refuses maps stack (not in the policy's maps; org.bpf-token.objects)"
}

# fake_bpftool SCRIPT: $B/bpftool, a shell script the hook runs for bpftool
# (BPF_TOKEN_BPFTOOL in its environment)
fake_bpftool() {
	printf '#!/bin/sh\n%s\n' "$1" >"$B/bpftool"
	chmod 0755 "$B/bpftool"
	OCI_HOOK_ENV+=" BPF_TOKEN_BPFTOOL=$B/bpftool"
}

@test "runc: the objects' parse runs as the container's root, without capabilities, and hangs 10 s at most: not created, nothing left" {
	local t0 t1
	# what the parse runs as, in its error line
	fake_bpftool 'echo "Error: as $(id -u):$(id -g) groups $(id -G) $(grep -E "^(CapEff|CapBnd|NoNewPrivs)" /proc/self/status | tr -s "\t\n" "  ")" >&2; exit 1'
	refused runc "org.bpf-token.objects=$PROGS/ctr_xdp.bpf.o" \
		"bpftool token needs: as $OCI_UID:$OCI_UID groups $OCI_UID CapEff: 0000000000000000 CapBnd: 0000000000000000 NoNewPrivs: 1"
	# an object whose parse never ends
	fake_bpftool 'exec sleep 1000'
	t0=$(date +%s)
	refused runc "org.bpf-token.objects=$PROGS/ctr_xdp.bpf.o" \
		'bpftool token needs: stopped after more than 10 s (limits: 10 s, 10 s of CPU, 512 MiB, 1 MiB of output)'
	t1=$(date +%s)
	echo "refused after $((t1 - t0)) s"
	((t1 - t0 < 40))
}

@test "crun: an objects' parse that crashes: not created, nothing left" {
	fake_bpftool 'kill -SEGV $$'
	refused crun "org.bpf-token.objects=$PROGS/ctr_xdp.bpf.o" \
		'bpftool token needs: killed by SIGSEGV (limits: '
}

@test "runc: an objects' parse that eats memory: stopped at 512 MiB of address space, not created, nothing left" {
	# what the parse may map, and how an allocation of 1 GiB ends
	fake_bpftool 'echo "Error: ulimit -v $(ulimit -v): $(/usr/bin/python3 -c "bytearray(1 << 30)" 2>&1 | tail -n 1)" >&2; exit 1'
	refused runc "org.bpf-token.objects=$PROGS/ctr_xdp.bpf.o" \
		'bpftool token needs: ulimit -v 524288: MemoryError'
}

# gets_xdp_token RT ANNOTATION...: the control: a container with the
# annotations gets its token, which allows XDP programs and no other;
# deleted, nothing is left
gets_xdp_token() {
	local rt=$1 tok
	RT=$rt
	oci_bundle "$B" "$ID" "${@:2}"
	rm -f "$B/hook.err"
	create "$rt"
	[[ $status == 0 ]]
	tok=$(token_of "$ID")
	echo "$tok"
	[[ $(jq -c .allowed_progs <<<"$tok") == '["xdp"]' ]]
	run "$rt" delete -f "$ID"
	[[ $status == 0 ]]
	[[ ! -e /run/bpf-token/oci/$ID && ! -e /run/bpf-token/oci-records/$ID ]]
	[[ $(oci_bpf_mounts) == "$MOUNTS_BEFORE" ]]
	RT=
}

@test "runc: the fuzzer's crash inputs as an image's objects (the real bpftool): refused with bpftool's error, not created, nothing left" {
	local corpus=$TOP/tests/fuzz/corpus/token_needs
	mkdir -p "$B/rootfs/app"
	cp "$corpus/regress-btf-loop" "$B/rootfs/app/btf-loop.bpf.o"
	cp "$corpus/regress-kcfg-size" "$B/rootfs/app/kcfg-size.bpf.o"
	cp "$PROGS/ctr_xdp.bpf.o" "$B/rootfs/app/own.bpf.o"
	refused runc org.bpf-token.objects=/app/btf-loop.bpf.o \
		'bpftool token needs: object /app/btf-loop.bpf.o is malformed: BTF type [8] contains itself (through type [8])'
	refused runc org.bpf-token.objects=/app/own.bpf.o:/app/kcfg-size.bpf.o \
		"bpftool token needs: object /app/kcfg-size.bpf.o is malformed: kconfig extern 'CONFIG_HZ' has a size of 2147483648 bytes"
	# the control: the image's own object
	gets_xdp_token runc org.bpf-token.objects=/app/own.bpf.o
}

@test "crun: an image's objects beyond bpftool's bounds (65537 symbols; 65 MiB): refused in bounded time, not created, nothing left" {
	local t0 t1
	mkdir -p "$B/rootfs/app"
	# an ELF BPF object with 65537 symbols (1.5 MiB): .strtab, .symtab, .shstrtab
	/usr/bin/python3 - "$B/rootfs/app/symbols.bpf.o" <<-'EOF'
	import struct, sys
	n = 65537
	shstr = b'\0.strtab\0.symtab\0.shstrtab\0'
	off_sym = 72
	off_shs = off_sym + 24 * n
	shoff = (off_shs + len(shstr) + 7) & ~7
	def shdr(name, type, off, size, link=0, info=0, align=1, entsize=0):
	    return struct.pack('<IIQQQQIIQQ', name, type, 0, 0, off, size, link, info, align, entsize)
	elf = bytearray(shoff)
	# ELFCLASS64, little endian, ET_REL, EM_BPF, 4 section headers, .shstrtab the 4th
	elf[:64] = struct.pack('<16sHHIQQQIHHHHHH', b'\x7fELF\x02\x01\x01', 1, 247, 1, 0, 0, shoff,
	                       0, 64, 0, 0, 64, 4, 3)
	elf[off_shs:off_shs + len(shstr)] = shstr
	elf += (bytes(64) + shdr(1, 3, 64, 1) + shdr(9, 2, off_sym, 24 * n, 1, 1, 8, 24)
	        + shdr(17, 3, off_shs, len(shstr)))
	open(sys.argv[1], 'wb').write(elf)
	EOF
	# a file of 65 MiB (sparse)
	truncate -s 65M "$B/rootfs/app/large.bpf.o"
	t0=$(date +%s)
	refused crun org.bpf-token.objects=/app/symbols.bpf.o \
		'bpftool token needs: object /app/symbols.bpf.o has too many symbols (65537): bpftool parses objects of up to 65536'
	refused crun org.bpf-token.objects=/app/large.bpf.o \
		'bpftool token needs: object /app/large.bpf.o is too large (68157440 bytes): bpftool parses objects of up to 64 MiB'
	t1=$(date +%s)
	echo "refused after $((t1 - t0)) s"
	((t1 - t0 < 40))
	# the control: an object within the bounds
	gets_xdp_token crun "org.bpf-token.objects=$PROGS/ctr_xdp.bpf.o"
}

@test "runc: objects digest: an image's object whose SHA-256 the policy lists gets its token; one byte changed, refused, nothing left" {
	local digest
	mkdir -p "$B/rootfs/app"
	cp "$PROGS/ctr_xdp.bpf.o" "$B/rootfs/app/x.bpf.o"
	digest=$(sha256sum "$PROGS/ctr_xdp.bpf.o" | cut -d ' ' -f 1)
	printf 'objects digest\nobject-digest sha256:%s\n' "$digest" >"$POLICY"
	gets_xdp_token runc org.bpf-token.objects=/app/x.bpf.o
	# one byte changed
	/usr/bin/python3 -c 'import sys
f = open(sys.argv[1], "r+b")
f.seek(100)
b = f.read(1)[0]
f.seek(100)
f.write(bytes([b ^ 1]))' "$B/rootfs/app/x.bpf.o"
	digest=$(sha256sum "$B/rootfs/app/x.bpf.o" | cut -d ' ' -f 1)
	refused runc org.bpf-token.objects=/app/x.bpf.o \
		"policy refuses org.bpf-token.objects /app/x.bpf.o (sha256:$digest: not an object-digest of the policy)"
}

@test "crun: objects host: the object-dir's file gives the token, the image's file of that name is never read; a path is refused" {
	local d=$B/objects
	mkdir -m 0755 "$d"
	install -m 0644 "$PROGS/ctr_xdp.bpf.o" "$d/ctr_xdp.bpf.o"
	printf 'objects host\nobject-dir %s\n' "$d" >"$POLICY"
	# the image's files of that name (at its root, its working directory,
	# and in /app): a kprobe object, which the default policy refuses
	mkdir -p "$B/rootfs/app"
	cp "$PROGS/kprobe_ringbuf.bpf.o" "$B/rootfs/ctr_xdp.bpf.o"
	cp "$PROGS/kprobe_ringbuf.bpf.o" "$B/rootfs/app/ctr_xdp.bpf.o"
	gets_xdp_token crun org.bpf-token.objects=ctr_xdp.bpf.o
	refused crun org.bpf-token.objects=/app/ctr_xdp.bpf.o \
		"org.bpf-token.objects: \"/app/ctr_xdp.bpf.o\" is not a file name of the policy's object-dir"
	refused crun org.bpf-token.objects=ctr_xdp.bpf.o:../objects/ctr_xdp.bpf.o \
		"org.bpf-token.objects: \"../objects/ctr_xdp.bpf.o\" is not a file name of the policy's object-dir"
	# (the image's file, where it is read, is refused)
	echo 'objects image' >"$POLICY"
	refused crun org.bpf-token.objects=/app/ctr_xdp.bpf.o \
		'policy refuses progs kprobe (root-equivalent; org.bpf-token.objects)'
}

@test "runc: the container puts a symbolic link to a host token in the place of its own: delete does not follow it" {
	local pid
	RT=runc
	# a token of the host, root's
	VICTIM=/sys/fs/bpf/oci-victim-$BATS_TEST_NUMBER
	"$BPFTOOL" token create "$VICTIM" maps array
	oci_hold_token "$VICTIM"
	oci_bundle "$B" "$ID" "org.bpf-token.objects=$PROGS/ctr_xdp.bpf.o"
	create runc
	[[ $status == 0 ]]
	run runc start "$ID"
	[[ $status == 0 ]]
	run ct sh -c "rm /sys/fs/bpf/token && ln -s $VICTIM /sys/fs/bpf/token && ls -l /sys/fs/bpf/token"
	echo "$output"
	[[ $status == 0 && $output == *"token -> $VICTIM" ]]
	pid=$(oci_pid runc "$ID")
	oci_kill_delete runc "$ID"
	# the host's token is there and live; the container's is gone
	[[ -e $VICTIM && $(oci_revoked) == 0 ]]
	[[ ! -e /run/bpf-token/oci/$ID && ! -e /run/bpf-token/oci-records/$ID ]]
	[[ $(oci_bpf_mounts) == "$MOUNTS_BEFORE" ]]
	[[ ! -e /proc/$pid ]]
	RT=
}

@test "runc and crun, one container id: the second is refused; its poststop leaves the first's token live" {
	local b2=${B}b
	RT=runc
	oci_bundle "$B" "$ID" "org.bpf-token.objects=$PROGS/ctr_xdp.bpf.o"
	create runc
	[[ $status == 0 ]]
	oci_hold_token "/run/bpf-token/oci/$ID/token"
	# crun, a container of the same id (its own state directory; a cgroup
	# of its own)
	mkdir -p -m 0755 "$b2"
	oci_bundle "$b2" "$ID" "org.bpf-token.objects=$PROGS/ctr_xdp.bpf.o"
	jq --arg cg "/$OCI_CGROUP/${ID}b" '.linux.cgroupsPath = $cg' "$b2/config.json" >"$b2/config.new"
	mv "$b2/config.new" "$b2/config.json"
	status=0
	crun create --bundle "$b2" "$ID" </dev/null >"$b2/stdout" 2>"$b2/stderr" 3>&- || status=$?
	echo "crun create: $status $(<"$b2/stderr") hook: $(cat "$b2/hook.err" 2>/dev/null)"
	[[ $status != 0 ]]
	run crun state "$ID"
	[[ $status != 0 ]]
	# the poststop crun would run for its (stopped) container of that id
	run "$OCI_HOOK" poststop < <(jq -nc --arg id "$ID" --arg b "$b2" \
		'{ociVersion: "1.0.2", id: $id, status: "stopped", pid: 0, bundle: $b}')
	echo "poststop: $status $output"
	[[ $status == 0 && -z $output ]]
	[[ $(oci_revoked) == 0 ]]
	[[ -e /run/bpf-token/oci/$ID/token && -e /run/bpf-token/oci-records/$ID ]]
	# crun's container was refused in one line that says why
	grep -qF "Error: bpf-token hook: a container with id $ID has a token already (process $(oci_pid runc "$ID"), bundle $B;" "$b2/hook.err"
	# runc's own delete revokes it
	run runc delete -f "$ID"
	[[ $status == 0 ]]
	[[ $(oci_revoked) == 1 ]]
	[[ ! -e /run/bpf-token/oci/$ID && ! -e /run/bpf-token/oci-records/$ID ]]
	[[ $(oci_bpf_mounts) == "$MOUNTS_BEFORE" ]]
	RT=
}

@test "runc: the token's BPF FS is private: a mount namespace that receives the host's /run does not get it" {
	local pid line n
	RT=runc
	# a host whose /run propagates, as systemd's does, and a mount namespace
	# that receives what is mounted there (a service's, with PrivateTmp=)
	mount --make-shared /run
	SHARED_RUN=1
	unshare --mount --propagation slave sleep 1000 3>&- &
	WATCH_PID=$!
	for ((n = 0; n < 50; n++)); do
		[[ $(readlink "/proc/$WATCH_PID/ns/mnt") != "$(readlink /proc/self/ns/mnt)" ]] && break
		sleep 0.1
	done
	# (the control: a mount under /run reaches it)
	mkdir -p "/run/oci-prop-$BATS_TEST_NUMBER"
	mount -t tmpfs none "/run/oci-prop-$BATS_TEST_NUMBER"
	n=$(awk -v p="/run/oci-prop-$BATS_TEST_NUMBER" '$5 == p' "/proc/$WATCH_PID/mountinfo" | wc -l)
	umount "/run/oci-prop-$BATS_TEST_NUMBER"
	rmdir "/run/oci-prop-$BATS_TEST_NUMBER"
	[[ $n == 1 ]]
	oci_bundle "$B" "$ID" "org.bpf-token.objects=$PROGS/ctr_xdp.bpf.o"
	create runc
	[[ $status == 0 ]]
	# here, the token's BPF FS, private; there, nothing
	line=$(awk -v p="/run/bpf-token/oci/$ID" '$5 == p' /proc/self/mountinfo)
	echo "host: $line"
	[[ $line == *" - bpf "* && $line != *shared:* && $line != *master:* ]]
	n=$(awk -v p="/run/bpf-token/oci/$ID" '$5 == p' "/proc/$WATCH_PID/mountinfo" | wc -l)
	[[ $n == 0 ]]
	# in the container: private too
	pid=$(oci_pid runc "$ID")
	line=$(awk '$5 == "/sys/fs/bpf"' "/proc/$pid/mountinfo" | tail -n 1)
	echo "container: $line"
	[[ $line == *" - bpf "* && $line != *shared:* && $line != *master:* ]]
	run runc delete -f "$ID"
	[[ $status == 0 ]]
	[[ ! -e /run/bpf-token/oci/$ID && $(oci_bpf_mounts) == "$MOUNTS_BEFORE" ]]
	RT=
}

# after_failed_start RT: RT fails to create a container after the bpf-token
# hook made its BPF FS and token; whether or not RT runs poststop then, what
# the hook made is gone once the hook ran again (for the next container)
after_failed_start() {
	local id2=${ID}b b2=${B}b
	RT=$1
	oci_bundle "$B" "$ID" "$(objects_annotation)"
	# the same, with a failing hook after ours
	jq '.hooks.createRuntime += [{path: "/bin/false"}]' "$B/config.json" >"$B/config.new"
	mv "$B/config.new" "$B/config.json"
	create "$RT"
	[[ $status != 0 ]]
	run "$RT" state "$ID"
	[[ $status != 0 ]]
	# (in the TAP stream: whether the runtime ran poststop itself)
	echo "# left by $RT after the failed start: $(ls /run/bpf-token/oci /run/bpf-token/oci-records 2>&1 | tr '\n' ' ')" >&3
	# the next container's hook
	mkdir -p -m 0755 "$b2"
	oci_bundle "$b2" "$id2" "$(objects_annotation)"
	B=$b2 ID=$id2 create "$RT"
	[[ $status == 0 ]]
	[[ ! -e /run/bpf-token/oci/$ID && ! -e /run/bpf-token/oci-records/$ID ]]
	[[ $(oci_bpf_mounts) == "$MOUNTS_BEFORE"$'\n'"/run/bpf-token/oci/$id2" ]]
	run "$RT" delete -f "$id2"
	[[ $status == 0 ]]
	[[ ! -e /run/bpf-token/oci/$id2 && ! -e /run/bpf-token/oci-records/$id2 ]]
	[[ $(oci_bpf_mounts) == "$MOUNTS_BEFORE" ]]
	rm -rf "$b2"
	RT=
}

@test "crun: a start that fails after the hook's createRuntime leaves nothing behind" {
	after_failed_start crun
}

@test "runc: a start that fails after the hook's createRuntime leaves nothing behind" {
	after_failed_start runc
}

# podman, with the hooks.d file `make install` installs (given with
# --hooks-dir: the prefix is the test's): podman adds the hook to the
# containers whose annotations match, runs poststop itself. Its storage
# under the test's directory.
#
# podman_setup: PM, the podman command with that storage and hooks.d
# directory; CTR, the options of the annotated container (its root file
# system $B/rootfs, the hook's stderr in $B/hook.err); $B/seccomp.json,
# podman's default seccomp profile with bpf() allowed
podman_setup() {
	PM=(podman --storage-driver vfs --root "$B/storage" --runroot "$B/run" --cgroup-manager cgroupfs
		--events-backend file --hooks-dir "$OCI_PREFIX/share/containers/oci/hooks.d")
	oci_rootfs "$B/rootfs"
	# the root file system belongs to the container's root, as an image's
	# does under --uidmap: podman makes its files (/run/.containerenv) there
	chown -hR $OCI_UID:$OCI_UID "$B/rootfs"
	# podman's default seccomp profile (Debian's containers-common) lets
	# only CAP_SYS_ADMIN call bpf(): the guide's profile allows it to all
	jq '.syscalls |= map(.names -= ["bpf"]) | .syscalls += [{names: ["bpf"], action: "SCMP_ACT_ALLOW"}]' \
		/usr/share/containers/seccomp.json >"$B/seccomp.json"
	CTR=(--network none --cap-add NET_ADMIN --uidmap 0:$OCI_UID:65536 --gidmap 0:$OCI_UID:65536
		--annotation "org.bpf-token.objects=$PROGS/ctr_xdp.bpf.o:$PROGS/cgroup_skb_maps.bpf.o"
		--annotation org.bpf-token.mode=pinned
		--annotation run.oci.hooks.stderr="$B/hook.err"
		--volume /usr:/usr:ro --volume /etc:/etc:ro --volume "$TOP:$TOP:ro" --rootfs "$B/rootfs")
}

@test "podman: the installed hooks.d file gives an annotated container its token; rm revokes it; the default seccomp profile refuses bpf()" {
	local id t0 t1
	podman_setup
	t0=$(date +%s%N)
	run "${PM[@]}" run --detach --name "$ID" --security-opt seccomp="$B/seccomp.json" "${CTR[@]}" \
		sleep 100000 </dev/null
	t1=$(date +%s%N)
	echo "# podman run --detach: status $status, $(((t1 - t0) / 1000000)) ms" >&3
	echo "$output"
	[[ ! -s $B/hook.err ]] || echo "hook: $(<"$B/hook.err")"
	[[ $status == 0 ]]
	id=$("${PM[@]}" inspect --format '{{.Id}}' "$ID")
	[[ $(stat -c '%u:%g %a' "/run/bpf-token/oci/$id/token") == "$OCI_UID:$OCI_UID 600" ]]
	run "$BPFTOOL" -j token show "/run/bpf-token/oci/$id/token"
	echo "$output"
	[[ $(jq '.userns' <<<"$output") == "$(stat -Lc %i "/proc/$("${PM[@]}" inspect --format '{{.State.Pid}}' "$ID")/ns/user")" ]]
	[[ $(jq -r '.cgroup.id' <<<"$output") != null ]]
	# both objects (separated by ":", which podman leaves alone)
	[[ $(jq -c '.allowed_progs | sort' <<<"$output") == '["cgroup_skb","xdp"]' ]]
	# inside: Debian's ip attaches the counter to the container's lo
	run "${PM[@]}" exec --env LD_LIBRARY_PATH="$BUILD/libbpf" --env LIBBPF_BPF_TOKEN_PATH=/sys/fs/bpf/token \
		"$ID" sh -c "ip link set dev lo up && ip link set dev lo xdpgeneric obj $PROGS/ctr_xdp.bpf.o sec xdp && ip link show dev lo" </dev/null
	echo "$output"
	[[ $status == 0 && $output == *"prog/xdp id"* ]]
	t0=$(date +%s%N)
	run "${PM[@]}" rm --force "$ID" </dev/null
	t1=$(date +%s%N)
	echo "# podman rm --force: status $status, $(((t1 - t0) / 1000000)) ms" >&3
	[[ $status == 0 ]]
	[[ ! -e /run/bpf-token/oci/$id && ! -e /run/bpf-token/oci-records/$id ]]
	[[ $(oci_bpf_mounts) == "$MOUNTS_BEFORE" ]]
	# with podman's default profile, the same container gets its token but
	# cannot use it: seccomp refuses bpf() before the kernel sees the token
	run "${PM[@]}" run --rm "${CTR[@]}" env LD_LIBRARY_PATH="$BUILD/libbpf" \
		LIBBPF_BPF_TOKEN_PATH=/sys/fs/bpf/token sh -c \
		"ls /sys/fs/bpf/token && ip link set dev lo up && ip link set dev lo xdpgeneric obj $PROGS/ctr_xdp.bpf.o sec xdp" </dev/null
	echo "$output"
	# (libbpf: "failed to open BPF token at '/sys/fs/bpf/token': Operation
	# not permitted", from BPF_OBJ_GET)
	[[ $status != 0 && $output == *"open BPF token at '/sys/fs/bpf/token': Operation not permitted"* ]]
	grep -qx /sys/fs/bpf/token <<<"$output"
	[[ $(oci_bpf_mounts) == "$MOUNTS_BEFORE" ]]
}

@test "podman: --cgroups=disabled (the container in the cgroup of podman's own processes): refused; with a cgroup of its own, its token" {
	local id line
	podman_setup
	# the control: the same container, in a cgroup podman made for it
	run "${PM[@]}" run --detach --name "$ID" --security-opt seccomp="$B/seccomp.json" "${CTR[@]}" \
		sleep 100000 </dev/null
	echo "$output"
	[[ ! -s $B/hook.err ]] || echo "hook: $(<"$B/hook.err")"
	[[ $status == 0 ]]
	id=$("${PM[@]}" inspect --format '{{.Id}}' "$ID")
	[[ -e /run/bpf-token/oci/$id/token ]]
	run "${PM[@]}" rm --force "$ID" </dev/null
	[[ $status == 0 ]]
	[[ ! -e /run/bpf-token/oci/$id && $(oci_bpf_mounts) == "$MOUNTS_BEFORE" ]]
	# no cgroup of its own: the container stays where conmon, the runtime
	# and the hook are (the root cgroup, or the test's): refused, in one line
	# that names the cgroup
	rm -f "$B/hook.err"
	run "${PM[@]}" run --detach --name "$ID" --cgroups=disabled \
		--security-opt seccomp="$B/seccomp.json" "${CTR[@]}" sleep 100000 </dev/null
	echo "$output"
	[[ ! -s $B/hook.err ]] || echo "hook: $(<"$B/hook.err")"
	[[ $status != 0 ]]
	line=$(cat - "$B/hook.err" 2>/dev/null <<<"$output" | grep -o 'Error: bpf-token hook: [^"]*' | head -n 1)
	echo "hook: $line"
	[[ $line == "Error: bpf-token hook: the container"*cgroup* ]]
	[[ $(oci_bpf_mounts) == "$MOUNTS_BEFORE" ]]
	id=$("${PM[@]}" inspect --format '{{.Id}}' "$ID" 2>/dev/null) || true
	[[ -z $id || ( ! -e /run/bpf-token/oci/$id && ! -e /run/bpf-token/oci-records/$id ) ]]
}

# escape_links RT: links in the image's root file system that point out of
# it (through /proc/1/root, the host's root at createRuntime; through
# /proc/self/root; to an absolute path of the host; with ".." past the root;
# the token's directory through /proc/1/root) are refused with the words of
# a missing file, and nothing of the host is read: beside them, a link in
# the image to its own object gets its token
escape_links() {
	local rt=$1 secret=$B/host.bpf.o link
	# an object of the host's, which the container must not reach
	cp "$PROGS/ctr_xdp.bpf.o" "$secret"
	mkdir -p "$B/rootfs/app"
	ln -s "/proc/1/root$secret" "$B/rootfs/app/proc1.bpf.o"
	ln -s "/proc/self/root$secret" "$B/rootfs/app/self.bpf.o"
	ln -s "$secret" "$B/rootfs/app/abs.bpf.o"
	ln -s "../../../../../../../..$secret" "$B/rootfs/app/dotdot.bpf.o"
	ln -s /proc/1/root/run "$B/rootfs/escape"
	ln -s "$PROGS/ctr_xdp.bpf.o" "$B/rootfs/app/own.bpf.o"
	# the control: the image's own object, through a link
	gets_xdp_token "$rt" org.bpf-token.objects=/app/own.bpf.o
	# each link out, and a file that is missing: the same words
	for link in proc1 self abs dotdot none; do
		refused "$rt" "org.bpf-token.objects=/app/$link.bpf.o" \
			"org.bpf-token.objects: /app/$link.bpf.o: No such file or directory in the container"
	done
	# the token's directory through /proc/1/root: not the host's /run
	refused "$rt" org.bpf-token.objects=/app/own.bpf.o org.bpf-token.path=/escape/token \
		"org.bpf-token.path: /escape: No such file or directory in the container"
	[[ $(stat -fc %T /run) == tmpfs ]]
}

@test "runc: links in the image to /proc/1/root, to host paths, past its root: refused as missing files; its own link gets its token" {
	escape_links runc
}

@test "crun: links in the image to /proc/1/root, to host paths, past its root: refused as missing files; its own link gets its token" {
	escape_links crun
}

# mount_over RT: on a host whose /run propagates, as systemd's does, the
# container (CAP_SYS_ADMIN in its user namespace) mounts over its
# /sys/fs/bpf and over /sys/fs: nothing reaches the host's mount of the
# token's BPF FS, and delete revokes the token
mount_over() {
	local pid i
	RT=$1
	mount --make-shared /run
	SHARED_RUN=1
	oci_bundle "$B" "$ID" "org.bpf-token.objects=$PROGS/ctr_xdp.bpf.o"
	jq '.process.capabilities |= map_values(. + ["CAP_SYS_ADMIN"])' "$B/config.json" >"$B/config.new"
	mv "$B/config.new" "$B/config.json"
	create "$RT"
	[[ $status == 0 ]]
	run "$RT" start "$ID"
	[[ $status == 0 ]]
	# the control: the container finds its token
	run ct ls -ln /sys/fs/bpf
	echo "$output"
	[[ $output == *"-rw------- 1 0 0 0 "*" token"* ]]
	oci_hold_token "/run/bpf-token/oci/$ID/token"
	[[ $(oci_revoked) == 0 ]]
	run ct sh -c 'mount -t tmpfs none /sys/fs/bpf && ls -A /sys/fs/bpf && mount -t tmpfs none /sys/fs && stat -fc %T /sys/fs'
	echo "mounts in the container: $status $output"
	[[ $status == 0 && $output == tmpfs ]]
	# the host's mount: one, the BPF FS, with the token
	[[ $(awk -v p="/run/bpf-token/oci/$ID" '$5 == p' /proc/self/mountinfo | wc -l) == 1 ]]
	[[ $(stat -fc %T "/run/bpf-token/oci/$ID") == bpf_fs && -e /run/bpf-token/oci/$ID/token ]]
	pid=$(oci_pid "$RT" "$ID")
	oci_kill_delete "$RT" "$ID"
	[[ $(oci_revoked) == 1 ]]
	[[ ! -e /run/bpf-token/oci/$ID && ! -e /run/bpf-token/oci-records/$ID ]]
	[[ $(oci_bpf_mounts) == "$MOUNTS_BEFORE" ]]
	[[ ! -e /proc/$pid ]]
	RT=
}

@test "runc: the container mounts over /sys/fs/bpf before poststop: its token is found and revoked" {
	mount_over runc
}

@test "crun: the container mounts over /sys/fs/bpf before poststop: its token is found and revoked" {
	mount_over crun
}

@test "crun: a container in another container's cgroup (a shared cgroupsPath): refused; the other keeps its token" {
	local b2=${B}b pid2 before=$MOUNTS_BEFORE
	# the control: a container in a cgroup of its own gets its token
	mkdir -p -m 0755 "$b2"
	oci_bundle "$b2" "${ID}b" "org.bpf-token.objects=$PROGS/ctr_xdp.bpf.o"
	B=$b2 ID=${ID}b create crun
	[[ $status == 0 ]]
	pid2=$(oci_pid crun "${ID}b")
	oci_hold_token "/run/bpf-token/oci/${ID}b/token"
	# the same container, in that cgroup: the token's scope would reach the
	# other's processes
	MOUNTS_BEFORE=$(oci_bpf_mounts)
	OCI_CGROUPS_PATH=/$OCI_CGROUP/${ID}b refused crun "org.bpf-token.objects=$PROGS/ctr_xdp.bpf.o" \
		"the container's cgroup /$OCI_CGROUP/${ID}b holds process $pid2 (cgroup /$OCI_CGROUP/${ID}b), outside the container's pid namespace"
	MOUNTS_BEFORE=$before
	RT=crun
	[[ -e /run/bpf-token/oci/${ID}b/token && $(oci_revoked) == 0 ]]
	run crun delete -f "${ID}b"
	[[ $status == 0 ]]
	[[ $(oci_revoked) == 1 && $(oci_bpf_mounts) == "$MOUNTS_BEFORE" ]]
	RT=
}

@test "crun: a process of the host in the container's cgroup: refused; in a cgroup of its own, its token" {
	local cg=/sys/fs/cgroup/$OCI_CGROUP/${ID}b
	mkdir -p "$cg"
	sleep 1000 3>&- &
	WATCH_PID=$!
	echo "$WATCH_PID" >"$cg/cgroup.procs"
	OCI_CGROUPS_PATH=/$OCI_CGROUP/${ID}b refused crun "org.bpf-token.objects=$PROGS/ctr_xdp.bpf.o" \
		"the container's cgroup /$OCI_CGROUP/${ID}b holds process $WATCH_PID (cgroup /$OCI_CGROUP/${ID}b), outside the container's pid namespace"
	# (crun may have killed it, cleaning up the cgroup it used)
	kill "$WATCH_PID" 2>/dev/null || true
	wait "$WATCH_PID" || true
	WATCH_PID=
	# the control: the same container, in a cgroup of its own
	RT=crun
	oci_bundle "$B" "$ID" "org.bpf-token.objects=$PROGS/ctr_xdp.bpf.o"
	create crun
	[[ $status == 0 ]]
	[[ $(jq -r .cgroup.path <<<"$(token_of "$ID")") == @(null|/$OCI_CGROUP/$ID) ]]
	run crun delete -f "$ID"
	[[ $status == 0 ]]
	[[ ! -e /run/bpf-token/oci/$ID && $(oci_bpf_mounts) == "$MOUNTS_BEFORE" ]]
	RT=
}
