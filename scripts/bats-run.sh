#!/bin/bash
# Run one bats file the way `bats --tap FILE` does, in one bash process:
# the file is read and its helpers loaded once, and each test runs in a
# forked subshell of that process. bats starts a new bash for every test,
# which loads its own libraries, the test file and the file's helpers again
# and runs a DEBUG trap on every command: under TCG that is most of a short
# test's time (token-selftests.bats, 41 tests: 45 s under bats, 10 s here).
# scripts/vm-suite-guest.sh runs the VM files with this; `bats` runs them
# too.
#
#   bats-run.sh FILE
#
# What a test file may use (the subset of bats 1.8 the VM files use; a
# file that uses more must be run by bats):
#   @test "DESCRIPTION" {        a test (the opening line as bats parses it)
#   setup, teardown              around each test; teardown runs whether
#                                the test passed or not, and its failure
#                                fails a passing test
#   setup_file, teardown_file    once, before the first test and after the
#                                last; what setup_file exports the tests see
#   run [!|-N] [--separate-stderr] [--keep-empty-lines] [--] CMD...
#                                status, output, lines (stderr,
#                                stderr_lines), as bats sets them
#   skip [REASON], load NAME, bats_require_minimum_version VERSION
#   BATS_TEST_FILENAME, BATS_TEST_DIRNAME, BATS_TEST_NAME,
#   BATS_TEST_NUMBER, BATS_TEST_DESCRIPTION, BATS_TEST_TMPDIR,
#   BATS_FILE_TMPDIR, BATS_RUN_TMPDIR
#   fd 3                         the TAP stream itself
#
# One difference: the file's own code (outside its functions) runs once,
# under errexit, before setup_file, where bats runs it before every test
# too; so it must only define things (the VM files set constants and load
# helpers there). When it fails, no test runs ("setup_file failed", as
# bats says it).
#
# As with bats, a test runs under `set -eET`: it fails when a command fails
# outside a condition, or when it exits before its end (skip aside). Its
# output (stdout and stderr) is shown as TAP comments when it fails, after
# the failing command's file and line. A skipped test is `ok N ... # skip`.
# The TAP stream goes to stdout; the exit status is 1 when a test failed.
# tests/host/bats-run.bats runs a set of files through this and through
# bats and compares their TAP. (No `set -u` or pipefail here: the test
# files run in this shell, and bats sets neither.)
# shellcheck disable=SC2317 # the functions a test file calls

if [[ $# != 1 || ! -f $1 ]]; then
	echo "usage: $0 FILE.bats" >&2
	exit 2
fi

case $1 in
/*) BATS_TEST_FILENAME=$1 ;;
*) BATS_TEST_FILENAME=$PWD/$1 ;;
esac
BATS_TEST_DIRNAME=${BATS_TEST_FILENAME%/*}
export BATS_TEST_FILENAME BATS_TEST_DIRNAME
BATS_RUN_TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/bats-run.XXXXXX") || exit 2
export BATS_RUN_TMPDIR BATS_FILE_TMPDIR=$BATS_RUN_TMPDIR/file
trap 'rm -rf "$BATS_RUN_TMPDIR"' EXIT

# --- the file, as bash: each `@test "D" {` line becomes the opening of
# a function bats_run_test_K; line numbers stay those of the file ---
bats_run_tests=() bats_run_descs=()
bats_run_src=$BATS_RUN_TMPDIR/src.bash
bats_run_re='^[[:blank:]]*@test[[:blank:]]+(.*[^[:blank:]])[[:blank:]]+\{(.*)$'
while IFS= read -r bats_run_line || [[ -n $bats_run_line ]]; do
	bats_run_line=${bats_run_line//$'\r'/}
	if [[ $bats_run_line =~ $bats_run_re ]]; then
		bats_run_desc=${BASH_REMATCH[1]#[\'\"]}
		bats_run_desc=${bats_run_desc%[\'\"]}
		bats_run_tests+=("bats_run_test_$((${#bats_run_tests[@]} + 1))")
		bats_run_descs+=("$bats_run_desc")
		printf '%s() { bats_test_begin "%s"; %s\n' "${bats_run_tests[-1]}" \
			"$bats_run_desc" "${BASH_REMATCH[2]}"
	else
		printf '%s\n' "$bats_run_line"
	fi
done <"$BATS_TEST_FILENAME" >"$bats_run_src"

# --- what a test file calls ---
load() {
	local f=$1
	[[ $f == /* ]] || f=$BATS_TEST_DIRNAME/$f
	if [[ -f $f.bash ]]; then
		f=$f.bash
	elif [[ ! -f $f ]]; then
		echo "load: no $f.bash nor $f" >>"$BATS_TEST_TMPDIR/.failed"
		exit 1
	fi
	# shellcheck disable=SC1090
	source "$f"
}

bats_require_minimum_version() { :; }
# shellcheck disable=SC2034 # for the test
bats_test_begin() { BATS_TEST_DESCRIPTION=$1; }

skip() {
	# in teardown: the rest of it is skipped (it runs in a subshell)
	[[ $bats_run_phase == teardown ]] && exit 0
	printf '%s' "${1:-}" >"$BATS_TEST_TMPDIR/.skip"
	exit 0
}

# bats' run: the command with errexit off, its status and output
run() {
	local expect='' keep='' separate='' flags=$-
	while [[ $# -gt 0 && ($1 == -* || $1 == '!') ]]; do
		case $1 in
		'!') expect=nonzero ;;
		-[0-9]*)
			expect=${1#-}
			[[ $expect =~ ^[0-9]+$ && $expect -le 255 ]] || {
				echo "run: '$1': -N takes a status from 0 to 255" >&2
				return 1
			}
			;;
		--keep-empty-lines) keep=1 ;;
		--separate-stderr) separate=$BATS_TEST_TMPDIR/.stderr ;;
		--) shift; break ;;
		*) echo "run: unknown flag '$1'" >&2; return 1 ;;
		esac
		shift
	done
	set +eET
	bats_run_quiet=1
	if [[ -n $separate ]]; then
		if [[ -n $keep ]]; then
			output=$("$@" 2>"$separate"; status=$?; printf .; exit "$status")
			status=$?
			output=${output%.}
		else
			output=$("$@" 2>"$separate")
			status=$?
		fi
		read -d '' -r stderr <"$separate"
		bats_run_lines stderr_lines "$stderr" "$keep"
	elif [[ -n $keep ]]; then
		output=$("$@" 2>&1; status=$?; printf .; exit "$status")
		status=$?
		output=${output%.}
	else
		output=$("$@" 2>&1)
		status=$?
	fi
	bats_run_lines lines "$output" "$keep"
	bats_run_quiet=
	set "-$flags"
	case $expect in
	'' | nonzero) [[ -z $expect || $status != 0 ]] && return 0 ;;
	*) [[ $status != "$expect" ]] || return 0 ;;
	esac
	bats_run_err 1 "${BASH_LINENO[0]}" "run $*" "${BASH_SOURCE[1]}" \
		"status $status, expected ${expect/nonzero/non-zero}"
	bats_run_quiet=1
	return 1
}

# bats_run_lines ARRAY TEXT KEEP: TEXT's lines into ARRAY (without the
# empty ones, as bats does, unless KEEP)
bats_run_lines() {
	local -n bats_run_arr=$1
	local l
	bats_run_arr=()
	if [[ -n $3 ]]; then
		[[ -z $2 ]] && return 0
		while IFS= read -r l; do bats_run_arr+=("$l"); done <<<"$2"
	else
		IFS=$'\n' read -d '' -r -a bats_run_arr <<<"$2"
	fi
	return 0
}

# bats_run_err STATUS LINE COMMAND FILE [WHY]: the failing command (ERR
# under errexit), once per test, for the TAP comment; only at the test's
# own subshell level (a command substitution that fails inside a condition
# is no failure), and not inside run (bats_run_quiet)
bats_run_quiet=''
bats_run_err() {
	local rc=$1 line=$2 cmd=$3 src=$4
	((BASH_SUBSHELL == bats_run_level)) && [[ -z $bats_run_quiet ]] || return 0
	[[ -s $BATS_TEST_TMPDIR/.failed ]] && return 0
	[[ $src == "$bats_run_src" ]] && src=$BATS_TEST_FILENAME
	printf '(in %s, line %s)\n  `%s'"'"' failed: %s\n' "${src#"$PWD"/}" \
		"$line" "$cmd" "${5:-status $rc}" >"$BATS_TEST_TMPDIR/.failed"
}

# errexit as bats sets it, with the failing command recorded
bats_run_strict() {
	set -eET
	trap 'bats_run_err $? "$LINENO" "$BASH_COMMAND" "${BASH_SOURCE[0]}"' ERR
}

# bats_run_file_failed LOG: what bats prints when a file fails before its
# first test (its own code, a load, setup_file): one failure, and the
# tests the plan announced count as failed too
bats_run_file_failed() {
	echo "not ok 1 setup_file failed"
	sed 's/^/# /' "$1" 2>/dev/null
}

# the exit of a test's subshell: teardown, then the verdict in .result
bats_run_exit() {
	local rc=$? verdict=pass
	set +eET
	trap - ERR
	[[ -f $BATS_TEST_TMPDIR/.done ]] || verdict=fail
	[[ -f $BATS_TEST_TMPDIR/.skip ]] && verdict=skip
	[[ $verdict == fail && ! -s $BATS_TEST_TMPDIR/.failed ]] &&
		echo "(test exited with status $rc before its end)" >"$BATS_TEST_TMPDIR/.failed"
	bats_run_phase=teardown rc=0
	if [[ -n $bats_run_teardown ]]; then
		(teardown)
		rc=$?
	fi
	if [[ $rc != 0 && $verdict != fail ]]; then
		verdict=fail
		echo "(teardown failed with status $rc)" >"$BATS_TEST_TMPDIR/.failed"
	fi
	echo "$verdict" >"$BATS_TEST_TMPDIR/.result"
}

# (the runner's own variables are bats_run_*: the file's code runs in
# this shell)
bats_run_n=${#bats_run_tests[@]}
bats_run_dirs=("$BATS_FILE_TMPDIR")
for ((bats_run_i = 1; bats_run_i <= bats_run_n; bats_run_i++)); do
	bats_run_dirs+=("$BATS_RUN_TMPDIR/test/$bats_run_i")
done
mkdir -p "${bats_run_dirs[@]}" || exit 2
echo "1..$bats_run_n"
exec 3>&1

# The file's own code, under errexit as bats runs it: when it fails (or a
# load does), no test runs.
BATS_TEST_TMPDIR=$BATS_RUN_TMPDIR bats_run_level=$BASH_SUBSHELL
trap 'bats_run_file_failed "$BATS_RUN_TMPDIR/.failed"; rm -rf "$BATS_RUN_TMPDIR"; exit 1' EXIT
bats_run_strict
# shellcheck disable=SC1090
source "$bats_run_src"
set +eET
trap - ERR
trap 'rm -rf "$BATS_RUN_TMPDIR"' EXIT

# which of the hooks the file defines (the others do nothing: a file
# without teardown spares a fork per test)
bats_run_teardown='' bats_run_setup_file='' bats_run_teardown_file=''
declare -F teardown >/dev/null && bats_run_teardown=1
declare -F setup_file >/dev/null && bats_run_setup_file=1
declare -F teardown_file >/dev/null && bats_run_teardown_file=1
declare -F setup >/dev/null || setup() { :; }

# setup_file in a subshell of its own; what it exports comes back (as in
# bats, where the tests are processes it started), and its directory
if [[ -n $bats_run_setup_file ]]; then
	(
		bats_run_phase=setup_file bats_run_level=$BASH_SUBSHELL
		BATS_TEST_TMPDIR=$BATS_RUN_TMPDIR
		exec >"$BATS_RUN_TMPDIR/setup_file.log" 2>&1
		trap '[[ -f $BATS_RUN_TMPDIR/.setup_file_done ]] || cat "$BATS_RUN_TMPDIR/.failed" 2>/dev/null' EXIT
		bats_run_strict
		setup_file
		{ export -p; printf 'cd %q\n' "$PWD"; } >"$BATS_RUN_TMPDIR/setup_file.env"
		: >"$BATS_RUN_TMPDIR/.setup_file_done"
	)
	if [[ ! -f $BATS_RUN_TMPDIR/.setup_file_done ]]; then
		bats_run_file_failed "$BATS_RUN_TMPDIR/setup_file.log"
		exit 1
	fi
	# shellcheck disable=SC1091
	source "$BATS_RUN_TMPDIR/setup_file.env"
fi

bats_run_failed=0
for ((bats_run_i = 1; bats_run_i <= bats_run_n; bats_run_i++)); do
	BATS_TEST_TMPDIR=$BATS_RUN_TMPDIR/test/$bats_run_i
	(
		export BATS_TEST_NAME=${bats_run_tests[bats_run_i - 1]} BATS_TEST_NUMBER=$bats_run_i
		export BATS_TEST_TMPDIR
		bats_run_phase=test bats_run_level=$BASH_SUBSHELL
		exec >"$BATS_TEST_TMPDIR/.log" 2>&1
		trap bats_run_exit EXIT
		bats_run_strict
		setup
		"$BATS_TEST_NAME"
		: >"$BATS_TEST_TMPDIR/.done"
	)
	bats_run_desc='' bats_run_result=fail bats_run_reason=''
	eval "bats_run_desc=\"${bats_run_descs[bats_run_i - 1]}\""
	read -r bats_run_result <"$BATS_TEST_TMPDIR/.result"
	case $bats_run_result in
	pass) echo "ok $bats_run_i $bats_run_desc" ;;
	skip)
		read -r -d '' bats_run_reason <"$BATS_TEST_TMPDIR/.skip"
		echo "ok $bats_run_i $bats_run_desc # skip${bats_run_reason:+ $bats_run_reason}"
		;;
	*)
		bats_run_failed=1
		echo "not ok $bats_run_i $bats_run_desc"
		cat "$BATS_TEST_TMPDIR/.failed" "$BATS_TEST_TMPDIR/.log" 2>/dev/null | sed 's/^/# /'
		;;
	esac
done

# teardown_file as bats runs it, like teardown: without errexit, its
# status is its last command's
if [[ -n $bats_run_teardown_file ]] &&
	! (BATS_TEST_TMPDIR=$BATS_RUN_TMPDIR bats_run_phase=teardown_file
	   teardown_file) >"$BATS_RUN_TMPDIR/teardown_file.log" 2>&1; then
	echo "not ok $((bats_run_n + 1)) teardown_file failed"
	sed 's/^/# /' "$BATS_RUN_TMPDIR/teardown_file.log"
	bats_run_failed=1
fi
exit $bats_run_failed
