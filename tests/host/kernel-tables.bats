#!/usr/bin/env bats
# The kernel policy that bpftool's token code keeps a copy of (which helpers
# need CAP_PERFMON, which program types are tracing, consult their attach
# type at load or attach to cgroups, which verifier messages a relaxed
# token lifts): neither this kernel nor mainline exports it at run time, so
# tests/host/kernel_tables.py reads each table from the patched tree's
# sources and from bpftool's, and they must agree. Its unit tests are
# tests/host/kernel_tables_test.py.

setup() {
	TOP=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	KSRC=${KSRC:-${BUILD:-$TOP/build}/linux}
	export KSRC
	[[ -f $KSRC/kernel/bpf/token.c ]] || {
		echo "no patched tree at $KSRC: run 'make tree'"
		false
	}
}

@test "kernel tables: bpftool's copies of the kernel's token policy agree with the patched tree" {
	run python3 "$TOP/tests/host/kernel_tables.py" "$KSRC" "$TOP/bpftool"
	echo "$output"
	[[ $status == 0 ]]
	[[ $(grep -c '^ok ' <<<"$output") == 5 ]]
}

@test "kernel tables: unit tests, each drift caught on either side (tests/host/kernel_tables_test.py)" {
	run python3 "$TOP/tests/host/kernel_tables_test.py" -v
	echo "$output"
	[[ $status == 0 ]]
	[[ $output == *"Ran "*" tests"* ]]
	[[ ${lines[-1]} == OK ]]
}
