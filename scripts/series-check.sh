#!/bin/bash
# Build the kernel and libbpf after each patch of the series, so that every
# patch compiles on its own (as a bisection would need), and the token
# selftests (tests/selftests: test_token, and token.c against the tree's
# test_progs.h) after each patch that changes them. Each patch also goes
# through scripts/checkpatch.pl --strict; its verdict is printed, not
# enforced (the remarks that stay are explained in kernel/patch-notes/).
# Runs in a separate git worktree (build/series) and object dirs
# (build/kobj-series, build/libbpf-series, build/selftests-series), so it
# never touches build/linux or build/kobj; the builds are incremental from
# one patch to the next and go through ccache.
#
#   series-check.sh [FIRST [LAST]]    patch numbers, 1-based (default: all)
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

WT=$BUILD/series
SOBJ=$BUILD/kobj-series
LOBJ=$BUILD/libbpf-series
TOBJ=$BUILD/selftests-series
TOKEN_C=tools/testing/selftests/bpf/prog_tests/token.c
git -C "$KSRC" rev-parse -q --verify baseline >/dev/null ||
	die "no prepared tree in $KSRC: run 'make tree'"

mapfile -t COMMITS < <(git -C "$KSRC" rev-list --reverse baseline..HEAD)
first=${1:-1}
last=${2:-${#COMMITS[@]}}

if [[ ! -d $WT ]]; then
	git -C "$KSRC" worktree prune
	git -C "$KSRC" worktree add -q --detach "$WT" baseline
fi
mkdir -p "$SOBJ" "$LOBJ" "$TOBJ"
if [[ ! -f $SOBJ/.config ]]; then
	cp "$KOBJ/.config" "$SOBJ/.config" 2>/dev/null ||
		die "no $KOBJ/.config: run 'make kernel' first"
fi

export CCACHE_BASEDIR=$TOP
# the selftests need the libbpf headers of the patch at hand
build_libbpf() {
	make -C "$WT/tools/lib/bpf" -s -j"$JOBS" OUTPUT="$LOBJ/" DESTDIR="$LOBJ" \
		prefix= "$LOBJ/libbpf.a" install_headers
}
# test_token, when the patch changes token.c (or is the first to check
# and has it)
build_selftests() {
	[[ -f $WT/$TOKEN_C ]] || return 0
	[[ $i == "$first" ]] || ! git -C "$WT" diff --quiet "$c~1" "$c" -- "$TOKEN_C" || return 0
	make -C "$TOP/tests/selftests" -s LINUX="$WT" LIBBPF_A="$LOBJ/libbpf.a" \
		LIBBPF_INCLUDE="$LOBJ/include" OUTPUT="$TOBJ/" CC=gcc
}
checkpatch() {
	local out
	out=$(git -C "$WT" format-patch -1 --stdout "$c" |
		"$WT/scripts/checkpatch.pl" --strict --no-tree --terse --show-types \
			--ignore FILE_PATH_CHANGES - 2>&1 | grep -E '(ERROR|WARNING|CHECK):' || true)
	printf '%s\n' "$out" | grep -cE '(ERROR|WARNING):' || true
}

status=0
for ((i = first; i <= last; i++)); do
	c=${COMMITS[i - 1]}
	subj=$(git -C "$KSRC" log -1 --format=%s "$c")
	git -C "$WT" checkout -q --detach "$c"
	start=$SECONDS
	if { make -C "$WT" O="$SOBJ" ARCH=x86_64 CC="ccache gcc" HOSTCC=gcc \
		-s -j"$JOBS" olddefconfig bzImage && build_libbpf && build_selftests; } \
		>"$SOBJ/build-$i.log" 2>&1; then
		printf 'ok %2d %4ds %s\n' "$i" $((SECONDS - start)) "$subj"
	else
		printf 'FAIL %2d %4ds %s (see %s)\n' "$i" $((SECONDS - start)) \
			"$subj" "$SOBJ/build-$i.log"
		status=1
	fi
	# warnings a patch adds show up in its log
	grep -E '(warning|error):' "$SOBJ/build-$i.log" | grep -v 'differs from latest' | sed 's/^/    /' || true
	n=$(checkpatch)
	[[ $n == 0 ]] || echo "    checkpatch --strict: $n error(s)/warning(s): run it on the patch to see them"
done
exit $status
