#!/usr/bin/env bats
# Races on BPF tokens (tests/stress/token_stress.c): root and nobody
# processes with several threads each create, derive, open, use, pin next
# to, unlink, rename and close tokens while their BPF FS instances are
# unmounted and remounted under them; afterwards every token is freed (the
# bpf_token slab cache is back to its count) and the kernel log is clean.
# STRESS_SECONDS (default 8; `make check-debug` gives 60) bounds the run.
# Each test prints its seed; TEST_SEED=N replays the same operation mix
# (the threads' interleaving is the scheduler's).

load lib

setup() {
	STRESS=$BUILD/stress/token_stress
	need "$STRESS"
	# unprivileged processes must reach the BPF FS instances below it
	work_dir stress
}

teardown() {
	umount -l "$WORK"/m* 2>/dev/null || true
	rm -rf "$WORK"
}

@test "stress: concurrent create/derive/open/use/unlink/rename/close/unmount, then no token left" {
	secs=${STRESS_SECONDS:-8}
	test_seed
	run timeout -k 5 $((secs * 4 + 120)) "$STRESS" -d "$WORK" -t "$secs" -p 4 -j 2 -m 3 -s "$SEED"
	echo "$output"
	[[ $status == 0 ]]
	[[ ${lines[-1]} == "token_stress: ok" ]]
	[[ $output =~ live\ tokens:\ before\ ([0-9]+),\ after\ ([0-9]+) ]]
	[[ ${BASH_REMATCH[1]} == "${BASH_REMATCH[2]}" ]]
	grep -E '^token_stress: [0-9]+ operations|^live tokens' <<<"$output" | sed 's/^/# /' >&3
	run kernel_trouble
	echo "$output"
	[[ -z $output ]]
}

@test "stress: a second run with more processes than threads" {
	secs=${STRESS_SECONDS:-8}
	test_seed
	run timeout -k 5 $((secs * 4 + 120)) "$STRESS" -d "$WORK" -t $(((secs + 1) / 2)) -p 8 -j 1 -m 2 -s "$SEED"
	echo "$output"
	[[ $status == 0 ]]
	[[ ${lines[-1]} == "token_stress: ok" ]]
	grep -E '^token_stress: [0-9]+ operations|^live tokens' <<<"$output" | sed 's/^/# /' >&3
	run kernel_trouble
	echo "$output"
	[[ -z $output ]]
}
