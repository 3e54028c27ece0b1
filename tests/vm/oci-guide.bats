#!/usr/bin/env bats
# The operator's guide's section on OCI runtimes (Documentation/
# operators-guide.rst, "Containers of OCI runtimes: the bpf-token hook"),
# run as written: its `.. run: oci-*` blocks, taken from the guide by
# tests/guide-blocks.py, with bash -e as root, in a private mount namespace
# made to look like an installed host: /usr/local with what `make install`
# installs (bpftool, libbpf.so.1, the hook) and a writable /var/lib.

setup() {
	load lib
	OBJ=$PROGS/ctr_xdp.bpf.o
	W=$BATS_TEST_TMPDIR/w
	mkdir -p "$W"
	need "$OBJ" "$BPFTOOL" "$BUILD/libbpf/libbpf.so.1"
	"$TOP/tests/guide-blocks.py" "$TOP/Documentation/operators-guide.rst" "$W/blocks" >/dev/null
	export TOP BUILD OBJ W
}

teardown() {
	# a failed scenario may leave its container (in the runtimes' state
	# directories, shared with this namespace)
	runc delete -f bpf-ct >/dev/null 2>&1 || true
	crun delete -f bpf-ct >/dev/null 2>&1 || true
}

# host SCENARIO: the function SCENARIO in a private mount namespace set up
# by prepare_host, with bash -e; its output in $output
host() {
	run unshare --mount --propagation private -- \
		bash -euo pipefail -c 'prepare_host; "$@"' host "$@" 3>&-
	echo "status $status"
	echo "$output"
}

prepare_host() {
	mount -t tmpfs -o mode=0755 tmpfs /usr/local
	mount -t tmpfs -o mode=0755 tmpfs /var/lib
	# `make install`, without make's build steps
	PREFIX=/usr/local DESTDIR= "$TOP/scripts/bpftool.sh" install >/dev/null
	PREFIX=/usr/local DESTDIR= "$TOP/scripts/libbpf.sh" install >/dev/null
	make --no-print-directory -s -C "$TOP/oci" install PREFIX=/usr/local DESTDIR= >/dev/null
	# the guide's files, where its commands expect them
	cp "$W"/blocks/example/* "$W/"
	cp "$OBJ" "$W/counter.bpf.o"
	cd "$W"
	export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
}

# block NAME: the guide's block NAME, as root, echoing its commands; its
# output also in $W/NAME.out
block() {
	local f
	echo "### guide block $1"
	(cd "$W" && bash -ex "$W/blocks/run/$1") </dev/null 2>&1 | tee "$W/$1.out" && return
	# what the container and the hook (crun: run.oci.hooks.stderr) said
	for f in /var/log/bpf-ct.log /var/log/bpf-ct.hooks; do
		[[ ! -s $f ]] || { echo "### $f"; cat "$f"; }
	done
	return 1
}

# bpf_mounts: the BPF FS mounts of this mount namespace
bpf_mounts() {
	awk '{ for (i = 7; $i != "-"; i++); if ($(i + 1) == "bpf") print $5 }' /proc/self/mountinfo
}

scenario_runc() {
	local before slot1
	before=$(bpf_mounts)
	block oci-bundle
	block oci-runc-start
	# the token, as root sees it on the host: bound to the container's
	# user namespace, scoped to its cgroup
	grep -q -E '^\s*userns: [0-9]+$' "$W/oci-runc-start.out"
	grep -q -E "^\s*cgroup: (/bpf-ct|$(stat -c %i /sys/fs/cgroup/bpf-ct))\$" "$W/oci-runc-start.out"
	[[ $(stat -c '%u %a' /run/bpf-token/oci/bpf-ct/token) == "100000 600" ]]
	block oci-runc-use
	# ip pinned its map in the container's BPF FS; slot 1 counts every frame
	grep -q 'ctr_xdp_count' "$W/oci-runc-use.out"
	slot1=$(bpftool -j map lookup pinned /run/bpf-token/oci/bpf-ct/tc/globals/ctr_xdp_count \
		key 1 0 0 0 | jq -r '.value | map(ltrimstr("0x")) | reverse | join("")')
	echo "frames counted on the container's lo: $((16#$slot1))"
	(($((16#$slot1)) >= 3))
	block oci-runc-stop
	[[ -z $(<"$W/oci-runc-stop.out" grep -v '^+') ]]
	[[ ! -e /run/bpf-token/oci/bpf-ct ]]
	[[ $(bpf_mounts) == "$before" ]]
	[[ ! -e /sys/fs/cgroup/bpf-ct ]]
	echo "scenario done"
}

scenario_crun() {
	local before
	before=$(bpf_mounts)
	block oci-bundle
	block oci-crun
	grep -q -E '^\s*cgroup: ' "$W/oci-crun.out"
	[[ ! -e /run/bpf-token/oci/bpf-ct ]]
	[[ $(bpf_mounts) == "$before" ]]
	echo "scenario done"
}

export -f prepare_host block bpf_mounts scenario_runc scenario_crun

@test "guide: OCI runtimes: runc with the hook, as written: token in the container, ip attaches and counts, stop revokes" {
	host scenario_runc
	[[ $status == 0 ]]
	[[ $output == *"scenario done"* ]]
}

@test "guide: OCI runtimes: crun with the same bundle, as written" {
	host scenario_crun
	[[ $status == 0 ]]
	[[ $output == *"scenario done"* ]]
}
