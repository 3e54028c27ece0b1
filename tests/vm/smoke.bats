#!/usr/bin/env bats
# Smoke test of the VM itself: the patched kernel just built, BPF FS, bpf(2).

load lib

# GNU build ID of the running kernel, from /sys/kernel/notes (raw ELF notes:
# namesz, descsz, type, then name and desc, each padded to 4 bytes).
running_build_id() {
	python3 - <<-'EOF'
	import struct
	d = open("/sys/kernel/notes", "rb").read()
	o = 0
	while o + 12 <= len(d):
	    nsz, dsz, typ = struct.unpack_from("<III", d, o)
	    o += 12
	    name = d[o:o + nsz]
	    o += (nsz + 3) & ~3
	    desc = d[o:o + dsz]
	    o += (dsz + 3) & ~3
	    if typ == 3 and name.rstrip(b"\0") == b"GNU":
	        print(desc.hex())
	EOF
}

@test "running kernel is the one in build/kobj (GNU build ID)" {
	built=$(readelf -n "$KOBJ/vmlinux" | sed -n 's/^ *Build ID: *//p')
	running=$(running_build_id)
	echo "running: $(uname -r) $(uname -v) build ID $running"
	echo "built:   $(cat "$KOBJ/include/config/kernel.release") build ID $built"
	[[ -n $built && $running == "$built" ]]
	[[ $(uname -r) == "$(cat "$KOBJ/include/config/kernel.release")" ]]
}

# scripts/vm-run.sh gives the guest the host's TSC rate, so that no boot
# runs without a TSC (sched_clock() in jiffies, run_time_ns of 0) when the
# calibration against the emulated PIT fails.
@test "the guest kernel was given the host's TSC rate and has a TSC clock source" {
	cat /proc/cmdline
	cat /sys/devices/system/clocksource/clocksource0/available_clocksource
	[[ $(</proc/cmdline) =~ (^| )tsc_early_khz=[1-9][0-9]*( |$) ]]
	grep -qw tsc /sys/devices/system/clocksource/clocksource0/available_clocksource
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
