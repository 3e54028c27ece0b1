#!/bin/bash
# The host test suite: bats files that need no kernel of the series, run on
# this machine, TAP into one file.
#
#   host-suite.sh TAP
#
# HOST_TESTS: the bats files or directories to run (default tests/host and
# tests/oracle/results.bats, the oracle's parsing and comparison).
# The tests get TOP, BUILD, KSRC, KOBJ, BPFTOOL and TEST_BIN in their
# environment. A bats run that failed without reporting a failing test (no
# plan, a crash, bad usage) gets a failing line of its own. Exit status 0
# (failures are in TAP), 2 on bad usage.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$TOP/scripts/lib/tap.sh"

[[ $# == 1 ]] || { echo "usage: $0 TAP" >&2; exit 2; }
tap=$1
mkdir -p "$(dirname "$tap")"
export TOP BUILD KSRC KOBJ
export BPFTOOL=${BPFTOOL:-$BUILD/bpftool/bpftool} TEST_BIN=${TEST_BIN:-$BUILD/tests}

HOST_TESTS=${HOST_TESTS:-tests/host tests/oracle/results.bats}
log "host tests: $HOST_TESTS"
rc=0
# shellcheck disable=SC2086 # HOST_TESTS is a list of words
(cd "$TOP" && bats --tap $HOST_TESTS) 2>&1 | tee "$tap" || rc=$?
tap_check "$tap" host "$rc"
