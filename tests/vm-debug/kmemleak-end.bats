#!/usr/bin/env bats
# Last file of each VM of `make check-debug` (VM_POST): after its tests, kmemleak
# finds nothing (two scans with a pause: an object must look unreferenced in
# both, and be older than kmemleak's minimum age, to be reported).

setup() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
}

@test "kmemleak: no leak after the whole suite" {
	# Let RCU callbacks and deferred frees run first.
	sleep 2
	echo scan >/sys/kernel/debug/kmemleak
	sleep ${KMEMLEAK_PAUSE:-6}
	echo scan >/sys/kernel/debug/kmemleak
	run cat /sys/kernel/debug/kmemleak
	[[ $status == 0 ]]
	if [[ -n $output ]]; then
		echo "kmemleak reports $(grep -c '^unreferenced object' <<<"$output") object(s):"
		echo "$output" | head -150
		false
	fi
}
