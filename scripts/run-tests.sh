#!/bin/bash
# Run the test suites and sum their TAP results.
#
#   run-tests.sh host   tests/host/*.bats on the host
#   run-tests.sh vm     tests/vm/*.bats in VM_SHARDS VMs at once (default: one
#                       per CPU), each booted once; the VMs take the bats
#                       files one at a time from a shared queue
#                       (scripts/vm-tests.sh), costliest first
#                       (tests/vm/durations)
#   run-tests.sh all    both
#
# With BUILD_STEPS="step..." (set by `make check`), those make targets are
# built first, each counted as one test: a broken test build or bpftool is
# reported as a failure while every other suite still runs.
#
# HOST_TESTS / VM_TESTS (default tests/host, tests/vm) select bats files or
# directories, e.g. VM_TESTS=tests/vm/smoke.bats for a quick run.
# VM_ENV: more VAR=value words for the tests' environment in the VM (e.g.
# STRESS_SECONDS=60, see scripts/check-debug.sh). VM_PRE / VM_POST: bats
# files every VM runs before / after its share of the queue (the debug
# suite's kmemleak scans). TEST_RESULTS (default build/test-results) and
# VM_OUT (default build/vm-out/check) let a second run (make check-debug)
# keep its results and VM exchange dirs apart.
#
# TAP goes to build/test-results/*.tap (vmK-NNN-FILE.tap: VM K's NNNth bats
# file); the last line printed is
# `N passed, N failed` (`, N skipped` when there are skips; a skip is never
# counted as passed). Exits non-zero on any failure.
set -euo pipefail
source "$(dirname "$0")/common.sh"

RES=${TEST_RESULTS:-$BUILD/test-results}
VM_TIMEOUT=${VM_TIMEOUT:-1800}
mkdir -p "$RES"

# Environment the tests can rely on (on the host and in the VM).
export TOP BUILD KSRC KOBJ
export BPFTOOL=$BUILD/bpftool/bpftool TEST_BIN=$BUILD/tests

run_build_steps() {
	local step n=0
	: >"$RES/build.tap"
	ran+=("$RES/build.tap")
	for step in $BUILD_STEPS; do
		n=$((n + 1))
		log "build: $step"
		if make --no-print-directory -C "$TOP" "$step"; then
			echo "ok $n build: $step"
		else
			echo "not ok $n build: $step"
		fi >>"$RES/build.tap"
	done
	echo "1..$n" >>"$RES/build.tap"
}

# A bats run that failed without reporting a failing test (no plan, crash,
# bad usage) must not pass: add a failing test line for it.
check_tap() {
	local tap=$1 name=$2 rc=$3
	if ! grep -q '^1\.\.[0-9]' "$tap"; then
		echo "not ok 9998 $name: bats ran and printed a TAP plan (exit status $rc)" >>"$tap"
	elif [[ $rc != 0 ]] && ! grep -q '^not ok ' "$tap"; then
		echo "not ok 9998 $name: bats exited with status $rc" >>"$tap"
	fi
}

HOST_TESTS=${HOST_TESTS:-tests/host}
VM_TESTS=${VM_TESTS:-tests/vm}

# True when the (space-separated) files/directories hold a .bats file.
have_bats() {
	local t
	for t in $1; do
		[[ $t == *.bats && -f $TOP/$t ]] && return 0
		compgen -G "$TOP/$t/*.bats" >/dev/null && return 0
	done
	return 1
}

run_host() {
	rm -f "$RES/host.tap"
	have_bats "$HOST_TESTS" || return 0
	log "host tests"
	local rc=0
	(cd "$TOP" && bats --tap $HOST_TESTS) 2>&1 | tee "$RES/host.tap" || rc=$?
	check_tap "$RES/host.tap" host "$rc"
	ran+=("$RES/host.tap")
}

# The bats files of $VM_TESTS (files, or directories of them), relative to
# $TOP, without those of VM_PRE and VM_POST.
vm_queue_files() {
	local t f
	for t in $VM_TESTS; do
		if [[ -d $TOP/$t ]]; then
			for f in "$TOP/${t%/}"/*.bats; do
				[[ -f $f ]] && echo "${f#"$TOP"/}"
			done
		elif [[ $t == *.bats ]]; then
			echo "$t"
		fi
	done | awk -v skip=" ${VM_PRE:-} ${VM_POST:-} " '!seen[$0]++ && index(skip, " " $0 " ") == 0'
}

# Costliest first, by tests/vm/durations (seconds on the normal kernel, a
# hint only); a file it does not list goes first.
vm_order() {
	awk 'NR == FNR { if ($1 ~ /^[0-9]+$/) cost[$2] = $1; next }
	     { print (($0 in cost) ? cost[$0] : 1000000) "\t" FNR "\t" $0 }' \
		"$TOP/tests/vm/durations" - | sort -t $'\t' -k1,1nr -k2,2n | cut -f3
}

run_vm() {
	local out=${VM_OUT:-$BUILD/vm-out/check} files shards k rc f tap name pre=() t
	rm -f "$RES"/vm*.tap
	have_bats "$VM_TESTS" || return 0
	mapfile -t files < <(vm_queue_files | vm_order)
	shards=${VM_SHARDS:-$(nproc)}
	((shards > ${#files[@]})) && shards=${#files[@]}
	((shards >= 1)) || shards=1
	for t in ${VM_PRE:-}; do pre+=(-p "$t"); done
	for t in ${VM_POST:-}; do pre+=(-a "$t"); done
	rm -rf "$out"
	mkdir -p "$out/queue"
	printf '%s\n' "${files[@]}" >"$out/queue/list"
	log "VM tests: ${#files[@]} files in $shards VM(s) (TCG; timeout ${VM_TIMEOUT}s)"
	for ((k = 1; k <= shards; k++)); do
		(
			set +e
			cd "$TOP" || exit
			"$TOP/scripts/vm-run.sh" --timeout "$VM_TIMEOUT" --out "$out/vm$k" \
				--share "$out/queue" -- \
				env TOP="$TOP" BUILD="$BUILD" KSRC="$KSRC" KOBJ="$KOBJ" \
				BPFTOOL="$BPFTOOL" TEST_BIN="$TEST_BIN" ${VM_ENV:-} \
				"$TOP/scripts/vm-tests.sh" ${pre[@]+"${pre[@]}"} /run/vm-share 2>&1 |
				{ [[ $shards == 1 ]] && cat || sed -u "s/^/[vm$k] /"; }
			echo "${PIPESTATUS[0]}" >"$out/vm$k.rc"
		) &
	done
	wait

	for ((k = 1; k <= shards; k++)); do
		rc=$(cat "$out/vm$k.rc" 2>/dev/null || echo 125)
		for tap in "$out/vm$k"/tap/*.tap; do
			[[ -f $tap ]] || continue
			tr -d '\r' <"$tap" >"$RES/vm$k-${tap##*/}"
			check_tap "$RES/vm$k-${tap##*/}" "vm$k ${tap##*/}" 0
			ran+=("$RES/vm$k-${tap##*/}")
		done
		# The kernel's own health during the whole run counts as one more
		# test per VM; a VM that failed without a failing test is one too.
		{
			case $rc in
			124) echo "not ok 9999 vm$k: finished before the hard timeout (${VM_TIMEOUT}s)" ;;
			125) echo "not ok 9999 vm$k: kernel log free of panic/Oops/BUG/WARNING (see the log tail above)" ;;
			*) echo "ok 9999 vm$k: kernel log free of panic/Oops/BUG/WARNING" ;;
			esac
			if [[ $rc != 0 && $rc != 124 && $rc != 125 ]] &&
			   ! cat "$RES"/vm"$k"-[0-9]*.tap 2>/dev/null | grep -q '^not ok '; then
				echo "not ok 9998 vm$k: the VM's tests exited with status $rc"
			fi
		} >"$RES/vm$k-kernel.tap"
		ran+=("$RES/vm$k-kernel.tap")
	done
	# every file of the queue ran somewhere
	for f in "${files[@]}"; do
		name=$(basename "$f" .bats)
		compgen -G "$RES/vm*-[0-9][0-9][0-9]-$name.tap" >/dev/null ||
			echo "not ok 9997 $f: run in a VM (no VM took it, or it left no TAP)"
	done >"$RES/vm-queue.tap"
	ran+=("$RES/vm-queue.tap")
}

# Sum ok / not ok / skip over the TAP files; tests announced by a plan
# (`1..N`) but never reported (a crashed run) count as failed.
summary() {
	awk '
	function flush() { if (plan > seen) missing += plan - seen; plan = 0; seen = 0 }
	FNR == 1 { flush() }
	/^1\.\.[0-9]+/ { plan = substr($1, 4) + 0 }
	/^ok / { if (tolower($0) ~ /# skip/) skipped++; else passed++; if ($2 < 9998) seen++ }
	/^not ok / { failed++; if ($3 < 9998) seen++ }
	END {
		flush()
		failed += missing
		line = (passed + 0) " passed, " (failed + 0) " failed"
		if (skipped) line = line ", " skipped " skipped"
		print line
		exit failed > 0
	}' "$@"
}

ran=()
[[ -z ${BUILD_STEPS:-} ]] || run_build_steps
case ${1:-all} in
host) run_host ;;
vm) run_vm ;;
all) run_host; run_vm ;;
*) die "usage: $0 host|vm|all" ;;
esac

[[ ${#ran[@]} -gt 0 ]] || die "no test suites found under tests/"
summary "${ran[@]}"
