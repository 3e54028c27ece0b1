#!/usr/bin/env bats
# The demo (scripts/demo.sh, what `make demo` runs in a VM of its own) as a
# test of the suite: it exits non-zero when a step that should succeed
# fails or a refusal does not happen; here it must run to its end, through
# every section, with the refusals it shows.

load lib

setup() {
	need "$PROGS/xdp_token.bpf.o" "$PROGS/ctr_xdp.bpf.o" "$PROGS/ctr_tc.bpf.o" \
		"$TEST_BIN/token-pass" "$BUILD/libbpf/libbpf.so.1"
}

teardown() {
	rm -rf /sys/fs/bpf/app
}

@test "demo: scripts/demo.sh runs every step to its end" {
	local n
	run "$TOP/scripts/demo.sh"
	echo "$output"
	[[ $status == 0 ]]
	[[ ${lines[-1]} == "=== demo: done" ]]
	# the eight sections, in order
	for n in 1 2 3 4 5 6 7 8; do
		grep -q "^=== $n\. " <<<"$output" || { echo "no section $n"; false; }
	done
	[[ $(grep '^=== [0-9]\. ' <<<"$output" | cut -c5) == "$(printf '%s\n' 1 2 3 4 5 6 7 8)" ]]
	# the refusals it shows: no token, a HASH map, a socket filter, ip
	# without the token, a token fd outside its container
	[[ $(grep -c '^(refused, exit status [1-9][0-9]*)$' <<<"$output") == 5 ]]
	# the counters saw the frames
	grep -qE '^ctr_xdp_count: [0-9]+ of the 20 frames$' <<<"$output"
	grep -qE '^ctr_tc_count: [0-9]+ of the 20 frames$' <<<"$output"
}
