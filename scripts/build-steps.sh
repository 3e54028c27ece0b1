#!/bin/bash
# Build steps counted as tests: `make TARGET` for each TARGET, in order, one
# TAP line each, so that a broken step is one failed test and the steps
# after it (and the suites after them) still run.
#
#   build-steps.sh TAP TARGET...
#
# TAP is rewritten: `ok N build: TARGET` / `not ok N build: TARGET`, then
# the plan. Exit status 0 (failures are in TAP), 2 on bad usage.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

[[ $# -ge 2 ]] || { echo "usage: $0 TAP TARGET..." >&2; exit 2; }
tap=$1
shift
mkdir -p "$(dirname "$tap")"
: >"$tap"
n=0
for target in "$@"; do
	n=$((n + 1))
	log "build: $target"
	if make --no-print-directory -C "$TOP" "$target"; then
		echo "ok $n build: $target" >>"$tap"
	else
		echo "not ok $n build: $target" >>"$tap"
	fi
done
echo "1..$n" >>"$tap"
