# TAP helpers of the suites (sourced, not executed).

# tap_check TAP NAME STATUS: a bats run that failed without reporting a
# failing test (no plan, a crash, bad usage) must not pass: append a failing
# line naming it (numbered 9998: outside any plan, counted by
# tap-summary.sh).
tap_check() {
	local tap=$1 name=$2 rc=$3
	if ! grep -q '^1\.\.[0-9]' "$tap"; then
		echo "not ok 9998 $name: bats ran and printed a TAP plan (exit status $rc)" >>"$tap"
	elif [[ $rc != 0 ]] && ! grep -q '^not ok ' "$tap"; then
		echo "not ok 9998 $name: bats exited with status $rc" >>"$tap"
	fi
}
