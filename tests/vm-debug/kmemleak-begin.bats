#!/usr/bin/env bats
# First file of each VM of `make check-debug` (VM_PRE in the Makefile): the
# debug kernel is the one built, kmemleak is on, and what boot left behind is
# set aside, so that kmemleak-end.bats reports only what the suite leaked.

setup() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
}

@test "debug kernel: KASAN, kmemleak, lockdep, UBSAN, debug objects are built in" {
	# one read of the configuration (each zgrep costs several execs, slow
	# on this kernel under TCG)
	config=$'\n'$(zcat /proc/config.gz)$'\n'
	for opt in KASAN KASAN_GENERIC DEBUG_KMEMLEAK PROVE_LOCKING PROVE_RCU \
		DEBUG_ATOMIC_SLEEP UBSAN DEBUG_OBJECTS FAILSLAB FAIL_PAGE_ALLOC; do
		[[ $config == *$'\n'"CONFIG_$opt=y"$'\n'* ]] || { echo "CONFIG_$opt is not set"; false; }
	done
	[[ -w /sys/kernel/debug/kmemleak ]]
	[[ -d /sys/kernel/debug/failslab ]]
}

@test "debug kernel: a kmemleak scan after boot (boot's objects set aside)" {
	echo scan >/sys/kernel/debug/kmemleak
	boot=$(cat /sys/kernel/debug/kmemleak)
	if [[ -n $boot ]]; then
		echo "# left by boot (not the suite's, set aside):"
		grep -E '^unreferenced object|^    \[<' <<<"$boot" | head -40
	fi
	echo clear >/sys/kernel/debug/kmemleak
	[[ -z $(cat /sys/kernel/debug/kmemleak) ]]
}
