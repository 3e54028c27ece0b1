#!/bin/bash
# The kernel's own BPF selftest suites (test_verifier, test_maps, test_progs
# of the 6.1 tree) as the oracle of the series: see tests/oracle/README.md.
#
#   oracle.sh baseline    unpatched tree: kernel, selftests, run them in the VM,
#                         write tests/oracle/baseline/SUITE.txt
#   oracle.sh check       patched tree (build/linux's HEAD): the same, then
#                         compare test by test with the baseline
#   oracle.sh parity      test_verifier as root and as nobody through tokens,
#                         on build/kobj's kernel
#   oracle.sh STEP TREE   one step: prepare | kernel | selftests | run (TREE:
#                         base | patched)
#
# Environment: ORACLE_SUITES (default "test_verifier test_maps test_progs"),
# ORACLE_TESTS (test_progs tests to run, default all but those in
# tests/oracle/denylist), ORACLE_TEST_TIMEOUT (seconds per test_progs test,
# default 300), ORACLE_VMS (parallel VMs for test_progs, default 1),
# ORACLE_MAX_BOOTS (boots per suite after kernel crashes, default 8),
# ORACLE_KERNEL (bzImage to test instead of the tree's own build).
# Trees, kernels and selftests live under build/oracle/TREE/; every kernel
# and selftests build runs under `nice -n 19 flock /tmp/kbuild.lock`.
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib/common.sh"
die() { echo "Error: $*" >&2; exit 1; }
ODIR=$TOP/tests/oracle
OB=${ORACLE_DIR:-$BUILD/oracle}
LOCK=${ORACLE_LOCK:-/tmp/kbuild.lock}
SUITES=${ORACLE_SUITES:-test_verifier test_maps test_progs}
export CCACHE_BASEDIR=$TOP CCACHE_NOHASHDIR=1

now() { date +%s; }
timed() { # timed LABEL CMD...: run, then log how long it took
	local label=$1 t0 rc=0
	shift
	t0=$(now)
	"$@" || rc=$?
	if [[ $rc == 0 ]]; then log "$label: $(($(now) - t0)) s"; else log "$label: $(($(now) - t0)) s (exit $rc)"; fi
	echo "$label $(($(now) - t0))" >>"$OB/timings"
	return $rc
}

tree_rev() {
	case $1 in
	base) git -C "$KSRC" rev-parse 'baseline^{commit}' ;;
	patched) git -C "$KSRC" rev-parse HEAD ;;
	*) die "unknown tree '$1' (base or patched)" ;;
	esac
}

# A git worktree of build/linux at the tree's commit, with the oracle's
# test_maps change applied (build/linux's own working tree is never touched).
prepare() {
	local tree=$1 wt=$OB/$1/linux rev cur
	rev=$(tree_rev "$tree")
	mkdir -p "$OB/$tree"
	if [[ ! -e $wt/.git ]]; then
		git -C "$KSRC" worktree prune
		git -C "$KSRC" worktree add -q --detach "$wt" "$rev"
		rm -f "$OB/$tree/rev"
	fi
	cur=$(cat "$OB/$tree/rev" 2>/dev/null || true)
	if [[ $cur != "$rev" ]]; then
		log "oracle: $tree tree at $(git -C "$KSRC" log -1 --format='%h %s' "$rev")"
		git -C "$wt" checkout -q -- tools/testing/selftests/bpf
		find "$wt/tools/testing/selftests/bpf" -name '*.oracle-off' -delete
		rm -f "$OB/$tree/st/not-built.txt"
		git -C "$wt" checkout -q --detach "$rev"
		patch -s -p1 -d "$wt" <"$ODIR/test_maps-per-test.patch"
		echo "$rev" >"$OB/$tree/rev"
	fi
	if [[ $tree == patched ]] && [[ -n $(git -C "$KSRC" status --porcelain --untracked-files=no) ]]; then
		log "oracle: note: build/linux has uncommitted changes; the oracle tests its HEAD"
	fi
}

kernel() {
	local tree=$1
	KSRC=$OB/$tree/linux KOBJ=$OB/$tree/kobj nice -n 19 flock "$LOCK" "$TOP/scripts/kernel.sh"
	# External modules (bpf_testmod) need modules_prepare (module.lds) and
	# Module.symvers; with no in-tree modules it is vmlinux's.
	nice -n 19 flock "$LOCK" make -s -C "$OB/$tree/linux" O="$OB/$tree/kobj" ARCH=x86_64 \
		CC="ccache gcc" HOSTCC=gcc modules_prepare
	cp "$OB/$tree/kobj/vmlinux.symvers" "$OB/$tree/kobj/Module.symvers"
}

# The selftests of the tree. The test kernel's configuration is small (no
# IPv6, only the BPF LSM, ...): BPF programs that use types its vmlinux.h lacks do not
# compile. Such a progs/X.c becomes an empty program (so that the
# hard-coded skeleton lists still build), and a prog_tests/ or map_tests/
# file that then fails to compile is left out; each is listed with its first
# error in st/not-built.txt. The build is retried until it succeeds.
selftests() {
	local tree=$1 wt=$OB/$1/linux kobj=$OB/$1/kobj out=$OB/$1/st sd pass=0 rc f why
	sd=$wt/tools/testing/selftests/bpf
	command -v ld.lld >/dev/null || die "ld.lld missing (Debian package lld): the selftests link urandom_read with it"
	[[ -f $kobj/vmlinux ]] || die "no $kobj/vmlinux: run '$0 kernel $tree' first"
	mkdir -p "$out"
	touch "$out/not-built.txt"
	# urandom_read links liburandom_read.so by its bare name from the
	# source directory, which works only when OUTPUT is that directory.
	ln -sfn "$out/liburandom_read.so" "$sd/liburandom_read.so"
	while :; do
		pass=$((pass + 1))
		rc=0
		nice -n 19 flock "$LOCK" make -k -C "$sd" -j"$JOBS" \
			OUTPUT="$out" VMLINUX_BTF="$kobj/vmlinux" KDIR="$kobj" KBUILD_MODPOST_WARN=1 \
			CC="ccache gcc" CLANG="ccache ${CLANG:-clang}" \
			"$out/test_verifier" "$out/test_maps" "$out/test_progs" >"$out/build.log" 2>&1 || rc=$?
		[[ $rc != 0 ]] || break
		mapfile -t bad < <(grep -aoE '(^|/)(progs|prog_tests|map_tests)/[A-Za-z0-9_.-]+\.c:[0-9]+:[0-9]+: (fatal )?error' "$out/build.log" |
			sed -e 's|^/||' -e 's|:.*||' | sort -u)
		if [[ ${#bad[@]} == 0 || $pass -gt 8 ]]; then
			grep -a -m20 -E 'error|Error' "$out/build.log" >&2
			die "selftests of $tree do not build (pass $pass; see $out/build.log)"
		fi
		for f in "${bad[@]}"; do
			why=$(grep -a -m1 -E "(^|/)$f:[0-9]+:[0-9]+: (fatal )?error" "$out/build.log" |
				sed -E 's|^.*error: ||')
			printf '%s\t%s\n' "$f" "$why" >>"$out/not-built.txt"
			case $f in
			progs/*)
				printf '/* left out by tests/oracle: does not compile against this vmlinux.h */\n%s\n' \
					'char _license[] __attribute__((section("license"), used)) = "GPL";' >"$sd/$f" ;;
			*) mv "$sd/$f" "$sd/$f.oracle-off" ;;
			esac
		done
		rm -f "$sd/prog_tests/tests.h" "$sd/map_tests/tests.h"
		log "oracle: selftests $tree: pass $pass left out ${#bad[@]} file(s); building again"
	done
	log "oracle: selftests $tree built ($pass pass(es)); $(wc -l <"$out/not-built.txt") file(s) left out, see $out/not-built.txt"
}

# Boot the tree's kernel for one suite until every test ran (a kernel crash
# ends a boot: the next one goes on after the test that crashed).
run_suite() {
	local tree=$1 suite=$2 rd=$OB/$1/run/$2 st=$OB/$1/st kernel
	kernel=${ORACLE_KERNEL:-$OB/$tree/kobj/arch/x86/boot/bzImage}
	[[ -f $kernel ]] || die "no kernel at $kernel"
	[[ -x $st/$suite ]] || die "no $st/$suite: run '$0 selftests $tree' first"
	rm -rf "$rd"
	mkdir -p "$rd"
	case $suite in
	test_progs)
		if [[ -n ${ORACLE_TESTS:-} ]]; then
			tr ' ' '\n' <<<"$ORACLE_TESTS" | sed '/^$/d' >"$rd/todo.all"
		else
			(cd "$st" && ./test_progs -l) | sort -u |
				grep -vxF -f <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$ODIR/denylist") \
				>"$rd/todo.all" || true
		fi
		local vms=${ORACLE_VMS:-1} k
		if ((vms > 1)); then
			# shards of the list, one VM each, merged afterwards
			for ((k = 0; k < vms; k++)); do
				mkdir -p "$rd/shard$k"
				awk -v k="$k" -v n="$vms" 'NR % n == k' "$rd/todo.all" >"$rd/shard$k/todo.all"
				cp "$rd/shard$k/todo.all" "$rd/shard$k/todo"
				boot_loop "$rd/shard$k" "$suite" "$kernel" "$st" &
			done
			wait
			mkdir -p "$rd/logs"
			for ((k = 0; k < vms; k++)); do
				cat "$rd/shard$k/progress" >>"$rd/progress" 2>/dev/null || true
				sed "s/^/shard$k-/" "$rd/shard$k/vm-status" >>"$rd/vm-status"
				cp "$rd/shard$k/logs/"* "$rd/logs/" 2>/dev/null || true
			done
			return 0
		fi
		cp "$rd/todo.all" "$rd/todo"
		;;
	test_verifier)
		local n size
		# The test count, from the binary's debug info: `tests` is an
		# array of struct bpf_test.
		size=$(nm -S "$st/test_verifier" | awk '$4 == "tests" { print $2 }')
		n=$((16#${size:-0} / $(pahole -C bpf_test "$st/test_verifier" | sed -n 's|.*/\* size: \([0-9]*\),.*|\1|p')))
		[[ $n -gt 0 ]] || die "cannot tell test_verifier's test count"
		echo "$n" >"$rd/count"
		local from=0
		: >"$rd/range"
		while ((from < n)); do
			echo "$from $((from + 199 < n - 1 ? from + 199 : n - 1))" >>"$rd/range"
			from=$((from + 200))
		done
		;;
	esac
	boot_loop "$rd" "$suite" "$kernel" "$st"
}

# The oracle's guests keep the TSC as their clock source (tsc=reliable;
# vm-run.sh gives them the host's rate). Under TCG the guest's jiffies lag,
# its clocksource watchdog then calls the TSC unstable and switches to
# jiffies, and the tests that compare two clocks (time_tai) pass or fail
# with the 4 ms tick that does or does not fall between their readings.
VM_APPEND="tsc=reliable ${VM_APPEND:-}"
export VM_APPEND

boot_loop() {
	local rd=$1 suite=$2 kernel=$3 st=$4 boots=0 rc more
	while :; do
		boots=$((boots + 1))
		rc=0 more=0
		VM_MEM=${VM_MEM:-3G} KERNEL=$kernel "$TOP/scripts/vm-run.sh" --timeout "${ORACLE_VM_TIMEOUT:-14400}" \
			--out "$rd/vm$boots" --share "$rd" -- \
			env ORACLE_TEST_TIMEOUT="${ORACLE_TEST_TIMEOUT:-300}" \
			"$ODIR/guest.sh" "$suite" "$st" /run/vm-share >"$rd/vm$boots.log" 2>&1 || rc=$?
		echo "boot$boots $rc" >>"$rd/vm-status"
		# What is left after a crash?
		case $suite in
		test_progs)
			local last
			last=$(awk '$1 == "START" { s = $2 } $1 == "END" && $2 == s { s = "" } END { print s }' "$rd/progress" 2>/dev/null || true)
			awk '$1 == "START" { print $2 }' "$rd/progress" 2>/dev/null | sort >"$rd/done"
			grep -vxF -f "$rd/done" "$rd/todo.all" >"$rd/todo" || true
			[[ -z $last ]] || log "oracle: $suite: the kernel died in $last (boot $boots, vm-run $rc)"
			[[ ! -s $rd/todo ]] || more=1
			;;
		test_verifier)
			local start
			start=$(awk '$1 == "START" { s = $2 " " $3 } $1 == "END" { s = "" } END { print s }' "$rd/progress" 2>/dev/null || true)
			if [[ -n $start ]]; then
				# the last test that printed its number is the one that died
				local lastn
				lastn=$(cat "$rd"/tv.*.out 2>/dev/null | grep -o '#[0-9]*/[pu] ' | tail -1 | tr -dc '0-9')
				lastn=${lastn:-${start% *}}
				log "oracle: $suite: the kernel died in test $lastn (boot $boots, vm-run $rc)"
				echo "CRASH $lastn" >>"$rd/progress"
				awk -v n="$lastn" -v to="${start#* }" 'BEGIN { if (n + 1 <= to) print n + 1, to }' >"$rd/range.next"
				awk -v to="${start#* }" '$1 > to' "$rd/range" >>"$rd/range.next"
				mv "$rd/range.next" "$rd/range"
				[[ ! -s $rd/range ]] || more=1
			fi
			;;
		esac
		[[ $more == 1 ]] || break
		if ((boots >= ${ORACLE_MAX_BOOTS:-8})); then
			log "oracle: $suite: giving up after $boots boots"
			break
		fi
	done
}

run() {
	local tree=$1 suite out=$OB/$1/results
	mkdir -p "$out"
	for suite in $SUITES; do
		log "oracle: $tree: $suite"
		timed "run $tree $suite" run_suite "$tree" "$suite"
		python3 "$ODIR/results.py" collect "$suite" "$OB/$tree/run/$suite" "$out/$suite.txt" \
			"tree: $(git -C "$OB/$tree/linux" log -1 --format='%h %s')" \
			"kernel: $(grep -ahm1 -o 'guest: .*, suite' "$OB/$tree/run/$suite"/vm*.log "$OB/$tree/run/$suite"/shard*/vm*.log 2>/dev/null |
				head -1 | sed -e 's/^guest: //' -e 's/, suite$//') (tinyconfig + kernel/config), clang $(clang -dumpversion)"
	done
}

all_steps() {
	local tree=$1
	prepare "$tree"
	timed "kernel $tree" kernel "$tree"
	timed "selftests $tree" selftests "$tree"
	run "$tree"
}

# The whole script is read before it runs (edits while it runs are safe).
main() {
	cmd=${1:-}
	case $cmd in
	prepare | kernel | selftests | run)
		[[ $# -eq 2 ]] || die "usage: $0 $cmd base|patched"
		tree_rev "$2" >/dev/null
		mkdir -p "$OB"
		"$cmd" "$2"
		;;
	baseline)
		mkdir -p "$OB"
		all_steps base
		mkdir -p "$ODIR/baseline"
		for s in $SUITES; do
			cp "$OB/base/results/$s.txt" "$ODIR/baseline/$s.txt"
			rm -f "$ODIR/baseline/$s.txt.notes"
			[[ ! -f $OB/base/results/$s.txt.notes ]] || cp "$OB/base/results/$s.txt.notes" "$ODIR/baseline/"
		done
		cp "$OB/base/st/not-built.txt" "$ODIR/baseline/not-built.txt"
		log "oracle: baseline written to tests/oracle/baseline/"
		;;
	check)
		mkdir -p "$OB"
		all_steps patched
		# shellcheck disable=SC2086
		python3 "$ODIR/results.py" compare "$ODIR/baseline" "$OB/patched/results" "$ODIR/expected-diffs" $SUITES --flaky "$ODIR/flaky"
		;;
	parity)
		mkdir -p "$OB"
		# the patched tree's test_verifier as it is (a worktree is never
		# moved under a build of the oracle's)
		if [[ ! -x $OB/patched/st/test_verifier ]]; then
			prepare patched
			timed "selftests patched" selftests patched
		fi
		[[ -x ${BPFTOOL:=$BUILD/bpftool/bpftool} ]] || die "no bpftool at $BPFTOOL: run 'make bpftool'"
		rd=$OB/parity
		rm -rf "$rd"
		mkdir -p "$rd"
		gcc -shared -fPIC -O2 -Wall -Wextra -I"$OB/patched/linux/tools/include/uapi" \
			"$ODIR/tokshim.c" -o "$rd/tokshim.so" -ldl
		echo "$BPFTOOL" >"$rd/bpftool"
		kernel=${ORACLE_KERNEL:-$KOBJ/arch/x86/boot/bzImage}
		rc=0
		timed "parity run" env VM_MEM="${VM_MEM:-3G}" KERNEL="$kernel" "$TOP/scripts/vm-run.sh" --timeout 14400 \
			--out "$rd/vm" --share "$rd" -- "$ODIR/guest.sh" parity "$OB/patched/st" /run/vm-share \
			>"$rd/vm.log" 2>&1 || rc=$?
		[[ $rc == 0 ]] || log "oracle: parity VM exited $rc (see $rd/vm.log)"
		python3 "$ODIR/results.py" parity "$rd"
		;;
	*)
		die "usage: $0 baseline|check|parity|prepare TREE|kernel TREE|selftests TREE|run TREE"
		;;
	esac
}
main "$@"; exit $?
