#!/bin/bash
# The VM test suite: bats files run in parallel VMs of the patched kernel,
# TAP into a results directory.
#
#   vm-suite.sh RESULTS
#
# Boots VM_SHARDS VMs (default: one per CPU, at most one per file), each
# once, with scripts/vm-suite-guest.sh as its command (scripts/vm-run.sh).
# The VMs share a queue of the bats files of VM_TESTS (files or directories,
# default tests/vm), handed out costliest first after VM_DURATIONS (default
# tests/vm/durations; the debug kernel's: tests/vm-debug/durations): a VM
# takes the next file when it is done with one. Each VM is a kernel of
# its own: the files never see each other's state.
#
# RESULTS is emptied of TAP, then receives vmK-NNN-FILE.tap (the NNNth file
# VM K ran), vmK-kernel.tap (one test per VM: it finished before the
# timeout, and its kernel log is free of panic, Oops, BUG, WARNING and the
# debug kernel's reports; one more failure when the VM failed without a
# failing test) and queue.tap (a failure for each file no VM ran).
#
# Environment: KERNEL (default build/kobj's bzImage) and VM_INITRD (its
# initramfs, default none), which scripts/vm-run.sh takes from the
# environment as they are (Debian's kernel: `make test-vm-mainline`),
# VM_TESTS, VM_SHARDS, VM_TIMEOUT (seconds per VM, default 1800),
# VM_PRE / VM_POST (bats files
# every VM runs before / after its share of the queue), VM_ENV (more
# VAR=value words for the tests' environment), VM_OUT (the VMs' exchange
# directories, default build/vm-out/suite), VM_DURATIONS, VM_LIST (1: print
# the queue, in the order it is handed out, and boot nothing), VM_AFTER_LOCK
# (a file: the VMs boot once nobody holds its flock; CI builds the debug
# kernel beside `make check` under it: TCG guests beside a compiler run a
# fifth slower, and the build is faster alone too), VM_BATS (bats: run
# the files with bats itself, not scripts/bats-run.sh). The tests get
# TOP, BUILD, KSRC, KOBJ, BPFTOOL and TEST_BIN in their environment.
# Exit status 0 when the suite ran (failures are in the TAP), 1 when it
# could not start, 2 on bad usage.
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"
source "$TOP/scripts/lib/tap.sh"

[[ $# == 1 ]] || { echo "usage: $0 RESULTS" >&2; exit 2; }
res=$1
out=${VM_OUT:-$BUILD/vm-out/suite}
timeout=${VM_TIMEOUT:-1800}
tests=${VM_TESTS:-tests/vm}
BPFTOOL=${BPFTOOL:-$BUILD/bpftool/bpftool}
TEST_BIN=${TEST_BIN:-$BUILD/tests}

# The bats files of $tests (files, or directories of them), relative to
# $TOP, without those of VM_PRE and VM_POST.
queue_files() {
	local t f
	for t in $tests; do
		if [[ -d $TOP/$t ]]; then
			for f in "$TOP/${t%/}"/*.bats; do
				[[ -f $f ]] && echo "${f#"$TOP"/}"
			done
		elif [[ $t == *.bats ]]; then
			echo "$t"
		fi
	done | awk -v skip=" ${VM_PRE:-} ${VM_POST:-} " '!seen[$0]++ && index(skip, " " $0 " ") == 0'
}

# Costliest first, by VM_DURATIONS (seconds per file, a hint only; lines
# "SECONDS FILE", '#' comments, a stray CR ignored); a file it does not list
# goes first.
by_cost() {
	awk 'FILENAME != "-" { sub(/\r$/, ""); if ($1 ~ /^[0-9]+$/) cost[$2] = $1; next }
	     { print (($0 in cost) ? cost[$0] : 1000000) "\t" FNR "\t" $0 }' \
		"${VM_DURATIONS:-$TOP/tests/vm/durations}" - | sort -t $'\t' -k1,1nr -k2,2n | cut -f3
}

mapfile -t files < <(queue_files | by_cost)
[[ ${#files[@]} -gt 0 ]] || { echo "vm-suite: no bats file in VM_TESTS ($tests)" >&2; exit 1; }
if [[ ${VM_LIST:-0} == 1 ]]; then
	printf '%s\n' "${files[@]}"
	exit 0
fi
mkdir -p "$res"
rm -f "$res"/*.tap
shards=${VM_SHARDS:-$(nproc)}
((shards > ${#files[@]})) && shards=${#files[@]}
((shards >= 1)) || shards=1
guest_args=()
for t in ${VM_PRE:-}; do guest_args+=(-p "$t"); done
for t in ${VM_POST:-}; do guest_args+=(-a "$t"); done

if [[ -n ${VM_AFTER_LOCK:-} ]] && ! flock -n "$VM_AFTER_LOCK" true; then
	log "VM tests: waiting for the build that holds $VM_AFTER_LOCK"
	flock "$VM_AFTER_LOCK" true
fi
rm -rf "$out"
mkdir -p "$out/queue"
printf '%s\n' "${files[@]}" >"$out/queue/list"
log "VM tests: ${#files[@]} files in $shards VM(s) (TCG; timeout ${timeout}s)"
for ((k = 1; k <= shards; k++)); do
	(
		set +e
		cd "$TOP" || exit
		# shellcheck disable=SC2086 # VM_ENV is a list of words
		"$TOP/scripts/vm-run.sh" --timeout "$timeout" --out "$out/vm$k" \
			--share "$out/queue" -- \
			env TOP="$TOP" BUILD="$BUILD" KSRC="$KSRC" KOBJ="$KOBJ" \
			BPFTOOL="$BPFTOOL" TEST_BIN="$TEST_BIN" VM_BATS="${VM_BATS:-}" ${VM_ENV:-} \
			"$TOP/scripts/vm-suite-guest.sh" ${guest_args[@]+"${guest_args[@]}"} \
			/run/vm-share 2>&1 |
			{ [[ $shards == 1 ]] && cat || sed -u "s/^/[vm$k] /"; }
		echo "${PIPESTATUS[0]}" >"$out/vm$k.rc"
	) &
done
wait

for ((k = 1; k <= shards; k++)); do
	rc=$(cat "$out/vm$k.rc" 2>/dev/null || echo 125)
	for tap in "$out/vm$k"/tap/*.tap; do
		[[ -f $tap ]] || continue
		tr -d '\r' <"$tap" >"$res/vm$k-${tap##*/}"
		tap_check "$res/vm$k-${tap##*/}" "vm$k ${tap##*/}" 0
	done
	# The kernel's own health during the whole run counts as one more
	# test per VM; a VM that failed without a failing test is one too.
	{
		case $rc in
		124) echo "not ok 9999 vm$k: finished before the hard timeout (${timeout}s)" ;;
		125) echo "not ok 9999 vm$k: kernel log free of panic/Oops/BUG/WARNING (see the log tail above)" ;;
		*) echo "ok 9999 vm$k: kernel log free of panic/Oops/BUG/WARNING" ;;
		esac
		if [[ $rc != 0 && $rc != 124 && $rc != 125 ]] &&
		   ! cat "$res"/vm"$k"-[0-9]*.tap 2>/dev/null | grep -q '^not ok '; then
			echo "not ok 9998 vm$k: the VM's tests exited with status $rc"
		fi
	} >"$res/vm$k-kernel.tap"
done
# every file of the queue ran somewhere
for f in "${files[@]}"; do
	name=$(basename "$f" .bats)
	compgen -G "$res/vm*-[0-9][0-9][0-9]-$name.tap" >/dev/null ||
		echo "not ok 9997 $f: run in a VM (no VM took it, or it left no TAP)"
done >"$res/queue.tap"
# what each file took (seconds), to refresh tests/vm/durations
cat "$out"/vm*/output 2>/dev/null | tr -d '\r' |
	sed -n 's/^# vm-suite: \(.*\) took \([0-9]*\)s$/\2 \1/p' >"$res/durations" || true
