#!/usr/bin/env bats
# The bpf(2) token UAPI fuzzer (tests/fuzz/token_fuzz.c): random and mutated
# BPF_TOKEN_CREATE, map/BTF/prog creation with token fds, BPF_OBJ_GET/PIN and
# GET_INFO_BY_FD on tokens, random fds and sizes, as root then as nobody,
# with the invariants checked on every call (see the program). FUZZ_SECONDS
# (default 10; `make check-debug` gives 60) bounds the run. The test prints
# its seed; TEST_SEED=N replays the run (token_fuzz -s N). A violation names
# its phase and iteration I: `token_fuzz -d DIR -s N -n I -t 600` replays
# exactly that many iterations of each phase, however fast the machine.

load lib

setup() {
	FUZZ=$BUILD/fuzz/token_fuzz
	need "$FUZZ"
	# the nobody phase must reach the BPF FS instances below it
	work_dir fuzz
}

teardown() {
	umount -l "$WORK"/fz "$WORK"/fz2 2>/dev/null || true
	rm -rf "$WORK"
}

@test "fuzz-syscall: token UAPI as root and as nobody, every invariant holds" {
	secs=${FUZZ_SECONDS:-10}
	test_seed
	run timeout -k 5 $((secs * 3 + 60)) "$FUZZ" -d "$WORK" -t "$secs" -s "$SEED"
	echo "$output"
	[[ $status == 0 ]]
	[[ ${lines[-1]} == "token_fuzz: ok" ]]
	for who in root nobody; do
		line=$(grep "^token_fuzz $who: " <<<"$output")
		[[ $line =~ ([0-9]+)\ iterations,\ ([0-9]+)\ successful\ calls,\ ([0-9]+)\ invariant\ checks,\ 0\ violations ]]
		(( BASH_REMATCH[1] > 100 && BASH_REMATCH[2] > 10 && BASH_REMATCH[3] > 100 ))
		echo "# $line" >&3
	done
	# Nothing pinned outside BPF FS, not even in the fuzzer's cwd.
	[[ -z $(ls -A "$WORK/plain") ]]
}
