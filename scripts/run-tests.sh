#!/bin/bash
# Run test suites by hand and print their summary (`make check` states its
# own steps in the Makefile; this builds nothing).
#
#   run-tests.sh host|vm|all
#
# host: scripts/host-suite.sh (HOST_TESTS), vm: scripts/vm-suite.sh
# (VM_TESTS, VM_SHARDS, VM_OUT, ...; see there), into TEST_RESULTS (default
# build/test-results: host.tap, vm/); then scripts/tap-summary.sh over what
# ran. Last line `N passed, N failed`; exit status non-zero on any failure.
#
#   VM_TESTS=tests/vm/smoke.bats VM_SHARDS=1 scripts/run-tests.sh vm
set -uo pipefail
source "$(dirname "$0")/common.sh"

res=${TEST_RESULTS:-$BUILD/test-results}
ran=()
case ${1:-all} in
host | vm | all) ;;
*) echo "usage: $0 host|vm|all" >&2; exit 2 ;;
esac
if [[ ${1:-all} != vm ]]; then
	"$TOP/scripts/host-suite.sh" "$res/host.tap"
	ran+=("$res/host.tap")
fi
if [[ ${1:-all} != host ]]; then
	"$TOP/scripts/vm-suite.sh" "$res/vm"
	ran+=("$res/vm")
fi
exec "$TOP/scripts/tap-summary.sh" "${ran[@]}"
