#!/usr/bin/env bats
# scripts/bats-run.sh, the runner of the VM files, gives the verdicts bats
# gives: the fixtures in tests/host/bats-run/ (tests that pass, fail, skip,
# hooks that fail) run through both, and their TAP lines and exit statuses
# compared; then what it prints about a failure, and that it leaves nothing.

bats_require_minimum_version 1.5.0

setup() {
	TOP=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	RUN=$TOP/scripts/bats-run.sh
	FIX=$TOP/tests/host/bats-run
}

# verdicts RUNNER... FILE: the plan and the ok / not ok lines, then "exit N".
# A file of its own for each call: diff runs two of them at once.
verdicts() {
	local rc tap
	tap=$(mktemp -p "$BATS_TEST_TMPDIR" tap.XXXXXX)
	"$@" >"$tap" 2>&1 && rc=0 || rc=$?
	grep -E '^(1\.\.|ok |not ok )' "$tap"
	echo "exit $rc"
}

@test "bats-run: every fixture gets bats' verdicts, test by test, and its exit status" {
	local f n=0
	for f in "$FIX"/*.fixture; do
		echo "--- ${f##*/}"
		diff -u <(verdicts bats --tap "$f") <(verdicts "$RUN" "$f")
		n=$((n + 1))
	done
	[[ $n == 5 ]]
}

@test "bats-run: the fixtures cover passing, failing and skipped tests (not all alike)" {
	run "$RUN" "$FIX/basics.fixture"
	[[ $status == 1 ]]
	[[ $output == *$'\nok 1 passes\n'* ]]
	[[ $output == *$'\nnot ok 2 fails on a middle line\n'* ]]
	[[ $output == *$'\nok 4 a negated command that is not the last line does not fail\n'* ]]
	[[ $output == *$'\nnot ok 7 exit 0 before the end fails\n'* ]]
	[[ $output == *$'\nok 8 skip with a reason # skip not here\n'* ]]
	[[ $(grep -c '^not ok' <<<"$output") == 6 ]]
	run "$RUN" "$FIX/hooks.fixture"
	[[ $status == 1 && $(grep -c '^not ok' <<<"$output") == 3 ]]
	[[ $output == *$'\nok 7 setup and teardown ran around every test'* ]]
}

@test "bats-run: a failure names the file, line and command, then the test's output" {
	# (files named relative to the working directory)
	cd "$FIX"
	run "$RUN" basics.fixture
	diff -u - <(sed -n '/^not ok 5 /,/^ok 6 /p' <<<"$output") <<-EOF
	not ok 5 fails in a function it calls
	# (in helper.bash, line 3)
	#   \`false' failed: status 1
	ok 6 a failing command in a condition is no failure
	EOF
	[[ $output == *$'\n#   `run true\' failed: status 0, expected non-zero\n'* ]]
	[[ $output == *$'\n# (test exited with status 0 before its end)\n'* ]]
	# what a test writes to fd 3 is TAP, before its own line
	[[ $output == *$'\n# number 14\nok 14 '* ]]
}

@test "bats-run: a failing setup_file runs no test; the file counts as failed" {
	run "$RUN" "$FIX/setup-file-fails.fixture"
	[[ $status == 1 ]]
	[[ ${lines[0]} == 1..2 && ${lines[1]} == "not ok 1 setup_file failed" ]]
	[[ $output == *"setup-file-fails.fixture, line 6)"* ]]
	# the plan announced two tests, one was reported: the summary counts both
	printf '%s\n' "$output" >"$BATS_TEST_TMPDIR/x.tap"
	run "$TOP/scripts/tap-summary.sh" "$BATS_TEST_TMPDIR/x.tap"
	[[ $output == "0 passed, 2 failed" ]]
}

@test "bats-run: a failing load fails the file; it leaves no directory behind; bad usage is one line and status 2" {
	local tmp=$BATS_TEST_TMPDIR/tmp
	mkdir "$tmp"
	TMPDIR=$tmp run "$RUN" "$FIX/hooks.fixture"
	[[ $status == 1 ]]
	TMPDIR=$tmp run "$RUN" "$FIX/top-level-fails.fixture"
	[[ $status == 1 ]]
	[[ -z $(ls -A "$tmp") ]]
	# a load that finds nothing fails the file, and says what it missed
	printf '%s\n' 'load nothing-here' '@test "t" {' '	true' '}' >"$BATS_TEST_TMPDIR/l.bats"
	TMPDIR=$tmp run "$RUN" "$BATS_TEST_TMPDIR/l.bats"
	[[ $status == 1 && ${lines[1]} == "not ok 1 setup_file failed" ]]
	[[ ${lines[2]} == "# load: no $BATS_TEST_TMPDIR/nothing-here.bash nor "* ]]
	[[ -z $(ls -A "$tmp") ]]
	run --separate-stderr "$RUN" "$FIX/none.bats"
	[[ $status == 2 && -z $output && $stderr == "usage: "*" FILE.bats" ]]
	run --separate-stderr "$RUN"
	[[ $status == 2 && $stderr == "usage: "* ]]
}
