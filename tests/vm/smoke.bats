#!/usr/bin/env bats
# Smoke test of the VM itself: the patched kernel just built, BPF FS, bpf(2).
# Runs inside the VM as root (scripts/run-tests.sh vm).

setup() {
	TOP=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	KOBJ=${KOBJ:-$TOP/build/kobj}
	BPFTOOL=${BPFTOOL:-$TOP/build/bpftool/bpftool}
	TEST_BIN=${TEST_BIN:-$TOP/build/tests}
}

# Drop to nobody with no capabilities at all.
as_nobody() {
	setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
		--bounding-set=-all -- "$@"
}

@test "running kernel is the one in build/kobj" {
	release=$(cat "$KOBJ/include/config/kernel.release")
	version=$(sed -n 's/^#define UTS_VERSION "\(.*\)"$/\1/p' "$KOBJ/include/generated/utsversion.h")
	echo "running: $(uname -r) $(uname -v)"
	echo "built:   $release $version"
	[[ $(uname -r) == "$release" ]]
	[[ $(uname -v) == "$version" ]]
}

@test "BPF FS is mounted at /sys/fs/bpf" {
	run awk '$2 == "/sys/fs/bpf" { print $3 }' /proc/mounts
	[[ $output == bpf ]]
}

@test "bpf(2) creates and uses a map" {
	run "$TEST_BIN/bpf-smoke" map
	echo "$output"
	[[ $status == 0 && $output == "map: ok" ]]
}

@test "bpf(2) loads a program" {
	run "$TEST_BIN/bpf-smoke" prog
	echo "$output"
	[[ $status == 0 && $output == "prog: ok" ]]
}

@test "bpftool runs and sees a pinned map" {
	"$BPFTOOL" version
	"$BPFTOOL" map create /sys/fs/bpf/smoke_map type array key 4 value 8 entries 1 name smoke_map
	run "$BPFTOOL" -j map show pinned /sys/fs/bpf/smoke_map
	rm -f /sys/fs/bpf/smoke_map
	echo "$output"
	[[ $status == 0 ]]
	[[ $(jq -r .name <<<"$output") == smoke_map ]]
}

@test "an unprivileged user has no capabilities and no bpf(2) by default" {
	run as_nobody id -u
	[[ $output == 65534 ]]
	run as_nobody grep CapEff /proc/self/status
	[[ $output == *0000000000000000 ]]
	[[ $(cat /proc/sys/kernel/unprivileged_bpf_disabled) != 0 ]]
	run as_nobody "$TEST_BIN/bpf-smoke" map
	echo "$output"
	[[ $status == 1 && $output == "map: EPERM"* ]]
}
