#!/bin/bash
# Build the kernel and libbpf after each patch of the series, so that every
# patch compiles on its own (as a bisection would need). Runs in a separate
# git worktree (build/series) and object dir (build/kobj-series), so it never
# touches build/linux or build/kobj; the builds are incremental from one patch
# to the next and go through ccache.
#
#   series-check.sh [FIRST [LAST]]    patch numbers, 1-based (default: all)
set -euo pipefail
source "$(dirname "$0")/common.sh"

WT=$BUILD/series
SOBJ=$BUILD/kobj-series
LOBJ=$BUILD/libbpf-series
git -C "$KSRC" rev-parse -q --verify baseline >/dev/null ||
	die "no prepared tree in $KSRC: run 'make tree'"

mapfile -t COMMITS < <(git -C "$KSRC" rev-list --reverse baseline..HEAD)
first=${1:-1}
last=${2:-${#COMMITS[@]}}

if [[ ! -d $WT ]]; then
	git -C "$KSRC" worktree prune
	git -C "$KSRC" worktree add -q --detach "$WT" baseline
fi
mkdir -p "$SOBJ" "$LOBJ"
if [[ ! -f $SOBJ/.config ]]; then
	cp "$KOBJ/.config" "$SOBJ/.config" 2>/dev/null ||
		die "no $KOBJ/.config: run 'make kernel' first"
fi

export CCACHE_BASEDIR=$TOP
status=0
for ((i = first; i <= last; i++)); do
	c=${COMMITS[i - 1]}
	subj=$(git -C "$KSRC" log -1 --format=%s "$c")
	git -C "$WT" checkout -q --detach "$c"
	start=$SECONDS
	if make -C "$WT" O="$SOBJ" ARCH=x86_64 CC="ccache gcc" HOSTCC=gcc \
		-s -j"$JOBS" olddefconfig bzImage >"$SOBJ/build-$i.log" 2>&1 &&
	   make -C "$WT/tools/lib/bpf" -s -j"$JOBS" OUTPUT="$LOBJ/" \
		"$LOBJ/libbpf.a" >>"$SOBJ/build-$i.log" 2>&1; then
		printf 'ok %2d %4ds %s\n' "$i" $((SECONDS - start)) "$subj"
	else
		printf 'FAIL %2d %4ds %s (see %s)\n' "$i" $((SECONDS - start)) \
			"$subj" "$SOBJ/build-$i.log"
		status=1
	fi
	# warnings a patch adds show up in its log
	grep -E '(warning|error):' "$SOBJ/build-$i.log" | grep -v 'differs from latest' | sed 's/^/    /' || true
done
exit $status
