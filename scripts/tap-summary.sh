#!/bin/bash
# The summary of test runs: sums the TAP files of the suites that ran.
#
#   tap-summary.sh FILE|DIR...
#
# A DIR stands for the *.tap files in it. A FILE that does not exist (a
# suite that did not run, or a directory without TAP) counts as one failed
# test. Tests announced by a plan (`1..N`) but never reported (a crashed
# run) count as failed; a skip is never counted as passed. The last line
# printed is `N passed, N failed` (`, N skipped` when there are skips).
# Exit status 1 when anything failed, 0 otherwise, 2 on bad usage.
set -uo pipefail

[[ $# -ge 1 ]] || { echo "usage: $0 FILE|DIR..." >&2; exit 2; }
files=() missing=0
for a in "$@"; do
	if [[ -d $a ]]; then
		compgen -G "$a/*.tap" >/dev/null || { echo "tap-summary: no TAP in $a" >&2; missing=$((missing + 1)); continue; }
		files+=("$a"/*.tap)
	elif [[ -f $a ]]; then
		files+=("$a")
	else
		echo "tap-summary: no $a (that suite did not run)" >&2
		missing=$((missing + 1))
	fi
done

awk -v missing="$missing" '
function flush() { if (plan > seen) lost += plan - seen; plan = 0; seen = 0 }
FNR == 1 { flush() }
/^1\.\.[0-9]+/ { plan = substr($1, 4) + 0 }
/^ok / { if (tolower($0) ~ /# skip/) skipped++; else passed++; if ($2 < 9997) seen++ }
/^not ok / { failed++; if ($3 < 9997) seen++ }
END {
	flush()
	failed += lost + missing
	line = (passed + 0) " passed, " (failed + 0) " failed"
	if (skipped) line = line ", " skipped " skipped"
	print line
	exit failed > 0
}' ${files[@]+"${files[@]}"} </dev/null
