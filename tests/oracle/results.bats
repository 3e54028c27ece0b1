#!/usr/bin/env bats
# tests/oracle/results.py on made-up runner output: the parsers find every
# test and its status, and the comparison fails on a difference unless
# tests/oracle/expected-diffs-style lines explain it.
#   bats tests/oracle/results.bats

setup() {
	R="$BATS_TEST_DIRNAME/results.py"
	D=$BATS_TEST_TMPDIR
}

@test "test_verifier output: statuses, unterminated failures, crashes" {
	mkdir -p "$D/tv"
	cat >"$D/tv/tv.1.out" <<-'EOF'
	#0/u and of negative number OK
	#0/p and of negative number OK
	#1/p not run Did not run the program (not supported) OK
	#2/u ptr leak FAIL
	R0 leaks addr as return value
	#2/p ptr leak FAIL retval 1 != 2 #3/p next test OK
	#4/p map type SKIP (unsupported map type 5)
	#5/p aligned OK (NOTE: not executed due to unknown alignment)
	#6/u btf Failed to load BTF spec: 'Operation not permitted'
	OK
	#6/p btf OK
	#7/p the kernel died here 
	EOF
	printf 'START 0 7\nCRASH 7\n' >"$D/tv/progress"
	echo "boot1 125" >"$D/tv/vm-status"
	run python3 "$R" collect test_verifier "$D/tv" "$D/tv.txt" "a header"
	[ "$status" -eq 0 ]
	[[ $output == "test_verifier: 12 tests: 7 ok, 4 fail, 1 skip" ]]
	grep -qxF $'0/u and of negative number\tok' "$D/tv.txt"
	grep -qxF $'1/p not run\tok' "$D/tv.txt"
	grep -qxF $'2/p ptr leak\tfail' "$D/tv.txt"
	grep -qxF $'3/p next test\tok' "$D/tv.txt"
	grep -qxF $'4/p map type\tskip' "$D/tv.txt"
	grep -qxF $'5/p aligned\tok' "$D/tv.txt"
	grep -qxF $'6/u btf\tok' "$D/tv.txt"
	grep -qxF $'6/p btf\tok' "$D/tv.txt"
	grep -qxF $'7/p the kernel died here\tfail' "$D/tv.txt"
	grep -qxF $'(kernel log)\tfail' "$D/tv.txt"
	grep -q '^7/p the kernel died here	the kernel crashed' "$D/tv.txt.notes"
}

@test "test_progs logs: tests, subtests, timeouts, crashes, tests never run" {
	mkdir -p "$D/tp/logs"
	printf '%s\n' align atomics hang crash never >"$D/tp/todo.all"
	printf '%s\n' "START align" "END align 0 100" "START atomics" "END atomics 1 200" \
		"START hang" "END hang 124 300000" "START crash" >"$D/tp/progress"
	printf '%s\n' "#1       align:OK" "Summary: 1/0 PASSED" >"$D/tp/logs/align.log"
	printf '%s\n' "#2/1     atomics/add:OK" "#2/2     atomics/sub x: y:FAIL" "#2       atomics:FAIL" \
		>"$D/tp/logs/atomics.log"
	printf '%s\n' "#3/1     hang/first:OK" >"$D/tp/logs/hang.log"
	printf '%s\n' "boot1 125" "boot2 0" >"$D/tp/vm-status"
	run python3 "$R" collect test_progs "$D/tp" "$D/tp.txt"
	[ "$status" -eq 0 ]
	grep -qxF $'align\tok' "$D/tp.txt"
	grep -qxF $'atomics/add\tok' "$D/tp.txt"
	grep -qxF $'atomics/sub x: y\tfail' "$D/tp.txt"
	grep -qxF $'atomics\tfail' "$D/tp.txt"
	grep -qxF $'hang/first\tok' "$D/tp.txt"
	grep -qxF $'hang\tfail' "$D/tp.txt"
	grep -qxF $'crash\tfail' "$D/tp.txt"
	grep -qxF $'never\tfail' "$D/tp.txt"
	grep -q '^hang	timeout' "$D/tp.txt.notes"
	grep -q '^never	not run' "$D/tp.txt.notes"
}

@test "test_maps output: per-test lines and the exit status" {
	mkdir -p "$D/tm"
	printf '%s\n' "#ORACLE test_hashmap:OK" "#ORACLE test_sockmap:SKIP" \
		"#ORACLE test_hashmap/no_prealloc:FAIL (signal 14, timeout)" >"$D/tm/tm.out"
	echo "END test_maps 1" >"$D/tm/progress"
	echo "boot1 0" >"$D/tm/vm-status"
	run python3 "$R" collect test_maps "$D/tm" "$D/tm.txt"
	[ "$status" -eq 0 ]
	grep -qxF $'test_hashmap\tok' "$D/tm.txt"
	grep -qxF $'test_sockmap\tskip' "$D/tm.txt"
	grep -qxF $'test_hashmap/no_prealloc\tfail' "$D/tm.txt"
	grep -qxF $'(test_maps exit)\tfail' "$D/tm.txt"
	grep -qxF $'(kernel log)\tok' "$D/tm.txt"
}

@test "compare: a difference fails, an explained one and a new passing test do not" {
	mkdir -p "$D/base" "$D/new"
	printf '# c\na\tok\nb\tok\nc\tfail\ngone\tok\n' >"$D/base/test_progs.txt"
	printf 'a\tok\nb\tfail\nc\tfail\nnew\tok\nnewbad\tfail\n' >"$D/new/test_progs.txt"
	: >"$D/exp"
	run python3 "$R" compare "$D/base" "$D/new" "$D/exp" test_progs
	[ "$status" -eq 1 ]
	[[ $output == *"DIFF: b: baseline ok, now fail"* ]]
	[[ $output == *"DIFF: gone: baseline ok, now absent"* ]]
	[[ $output == *"DIFF: newbad: baseline absent, now fail"* ]]
	[[ $output == *"new: new: ok"* ]]
	[[ ${lines[-1]} == "3 passed, 3 failed" ]]
	printf 'test_progs\tb\tthe series refuses this on purpose (token_foo)\n' >"$D/exp"
	printf 'test_progs\tgone\tremoved\ntest_progs\tnewbad\tnew, fails on TCG\n' >>"$D/exp"
	run python3 "$R" compare "$D/base" "$D/new" "$D/exp" test_progs
	[ "$status" -eq 0 ]
	[[ $output == *"expected: b: ok -> fail: the series refuses this on purpose (token_foo)"* ]]
	[[ ${lines[-1]} == "6 passed, 0 failed" ]]
}

@test "compare: a difference in a test listed as flaky is skipped, not passed; unlisted ones still fail" {
	mkdir -p "$D/base" "$D/new"
	printf 'a\tok\nb\tok\nc\tfail\n' >"$D/base/test_progs.txt"
	printf 'a\tfail\nb\tfail\nc\tfail\n' >"$D/new/test_progs.txt"
	: >"$D/exp"
	printf 'test_progs\ta\tgives either result on the unpatched kernel\ntest_progs\tc\tflaky too\n' >"$D/flaky"
	run python3 "$R" compare "$D/base" "$D/new" "$D/exp" test_progs --flaky "$D/flaky"
	[ "$status" -eq 1 ]
	[[ $output == *"flaky: a: baseline ok, now fail: gives either result on the unpatched kernel"* ]]
	[[ $output == *"DIFF: b: baseline ok, now fail"* ]]
	[[ ${lines[-1]} == "1 passed, 1 failed, 1 skipped" ]]
	printf 'test_progs\tb\tflaky as well\n' >>"$D/flaky"
	run python3 "$R" compare "$D/base" "$D/new" "$D/exp" test_progs --flaky "$D/flaky"
	[ "$status" -eq 0 ]
	[[ ${lines[-1]} == "1 passed, 0 failed, 2 skipped" ]]
	run python3 "$R" compare "$D/base" "$D/new" "$D/exp" test_progs --flaky
	[ "$status" -ne 0 ]
	[[ $output == "Error: --flaky needs a file" ]]
}

@test "compare: a missing baseline or run is a failure, a malformed explanation an error" {
	mkdir -p "$D/base" "$D/new"
	printf 'a\tok\n' >"$D/new/test_maps.txt"
	: >"$D/exp"
	run python3 "$R" compare "$D/base" "$D/new" "$D/exp" test_maps
	[ "$status" -eq 1 ]
	[[ $output == *"no baseline results"* ]]
	printf 'a\tok\n' >"$D/base/test_maps.txt"
	printf 'test_maps a\n' >"$D/exp"
	run python3 "$R" compare "$D/base" "$D/new" "$D/exp" test_maps
	[ "$status" -ne 0 ]
	[[ $output == "Error: "*"SUITE<TAB>TEST<TAB>REASON"* ]]
}

@test "parity: a holder's refusals by the series' rules are named; any other difference fails" {
	mkdir -p "$D/par"
	cat >"$D/par/parity-root.out" <<-'EOF2'
	#1/p tc run @@shim prog_type=3 token=0 ret=0@@2 cases OK
	#2/p cg write @@shim prog_type=8 token=0 ret=0@@OK
	#3/p xdp plain @@shim prog_type=6 token=0 ret=0@@OK
	#3/u xdp plain @@shim prog_type=6 token=0 ret=0@@OK
	EOF2
	cat >"$D/par/parity-all.out" <<-'EOF2'
	#1/p tc run @@shim prog_type=3 token=1 ret=0@@FAIL: Unexpected bpf_prog_test_run error (Operation not permitted) (run 1/2) FAIL: Unexpected bpf_prog_test_run error (Operation not permitted) (run 2/2) 
	#2/p cg write @@shim prog_type=8 token=1 ret=-13@@FAIL
	Failed to load prog 'Permission denied'!
	invalid bpf_context access off=8 size=4
	#3/p xdp plain @@shim prog_type=6 token=1 ret=0@@OK
	#3/u xdp plain @@shim prog_type=6 token=0 ret=0@@OK
	EOF2
	cp "$D/par/parity-all.out" "$D/par/parity-notrace.out"
	run python3 "$R" parity "$D/par"
	[ "$status" -eq 0 ]
	[[ $output != *MISSING* ]]
	[[ $output == *"1/p tc run: root ok, token fail [test run: netns rule; prog types 3]"* ]]
	[[ $output == *"2/p cg write: root ok, token fail [mark/priority write: loader; prog types 8]"* ]]
	[[ $output == *"token allowing everything: by reason: mark/priority write: loader 1, test run: netns rule 1"* ]]
	# any other difference through the token that allows everything fails
	sed -i 's/^#3\/p xdp plain \(.*\)OK$/#3\/p xdp plain \1FAIL/' "$D/par/parity-all.out"
	run python3 "$R" parity "$D/par"
	[ "$status" -eq 1 ]
	[[ $output == *"3/p xdp plain: root ok, token fail [other; prog types 6]"* ]]
}
