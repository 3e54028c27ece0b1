# loaded by the fixtures of tests/host/bats-run.bats
helper_fails_inside() {
	false
	echo "not reached"
}
