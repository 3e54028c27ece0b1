#!/usr/bin/env bats
# The pipeline's own contracts (no kernel needed): the summary line of
# scripts/tap-summary.sh, build steps counted as tests
# (scripts/build-steps.sh), `make help`, the steps of `make check`, and
# .ci/run's sum of its two passes.

bats_require_minimum_version 1.5.0

setup() {
	TOP=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	T=$BATS_TEST_TMPDIR
}

@test "tap-summary: passes, failures, skips; a lost plan and a missing suite are failures" {
	printf '%s\n' 'ok 1 a' 'ok 2 b # skip no device' 'not ok 3 c' '1..3' >"$T/one.tap"
	# a run that announced 4 tests and reported 2 (crashed)
	printf '%s\n' '1..4' 'ok 1 d' 'ok 2 e' >"$T/two.tap"
	mkdir "$T/dir"
	printf '%s\n' '1..1' 'ok 1 f' >"$T/dir/x.tap"
	printf '%s\n' 'ok 9999 vm1: kernel log clean' >"$T/dir/y.tap"

	run "$TOP/scripts/tap-summary.sh" "$T/one.tap"
	[[ $status == 1 && $output == "1 passed, 1 failed, 1 skipped" ]]
	run "$TOP/scripts/tap-summary.sh" "$T/two.tap"
	[[ $status == 1 && $output == "2 passed, 2 failed" ]]
	run "$TOP/scripts/tap-summary.sh" "$T/dir"
	[[ $status == 0 && $output == "2 passed, 0 failed" ]]
	run --separate-stderr "$TOP/scripts/tap-summary.sh" "$T/dir" "$T/none.tap"
	[[ $status == 1 && $output == "2 passed, 1 failed" ]]
	[[ $stderr == *"no $T/none.tap"* ]]
	run "$TOP/scripts/tap-summary.sh" "$T/one.tap" "$T/two.tap" "$T/dir"
	[[ $status == 1 && ${lines[-1]} == "5 passed, 3 failed, 1 skipped" ]]
	run "$TOP/scripts/tap-summary.sh"
	[[ $status == 2 ]]
}

@test "build-steps: a failing step is one failed test, the steps after it still run" {
	mkdir "$T/top"
	printf '%s\n' 'good:' '	@echo built' 'bad:' '	@false' 'after:' '	@touch $(CURDIR)/after' \
		>"$T/top/Makefile"
	run env TOP="$T/top" "$TOP/scripts/build-steps.sh" "$T/build.tap" good bad after
	echo "$output"
	[[ $status == 0 ]]
	[[ $(<"$T/build.tap") == "$(printf '%s\n' 'ok 1 build: good' 'not ok 2 build: bad' 'ok 3 build: after' '1..3')" ]]
	[[ -e $T/top/after ]]
	run "$TOP/scripts/tap-summary.sh" "$T/build.tap"
	[[ $status == 1 && $output == "2 passed, 1 failed" ]]
}

@test "make help lists every target of the Makefile, with its description" {
	local t targets
	run make -s -C "$TOP" --no-print-directory help
	echo "$output"
	[[ $status == 0 ]]
	targets=$(sed -n 's/^\([a-z][a-z0-9-]*\):\([^=].*\)\?$/\1/p' "$TOP/Makefile" | grep -v '^build-' | sort -u)
	[[ $(wc -l <<<"$targets") -ge 15 ]]
	for t in $targets; do
		grep -qE "^  $t +[^ ]" <<<"$output" || { echo "'$t' is not listed with a description"; false; }
	done
}

@test "make check: the build steps, the host suite, the VM suites, then the summary, each run whatever the others did" {
	run make -n -s -C "$TOP" --no-print-directory -o kernel -o libbpf check
	echo "$output"
	[[ $status == 0 ]]
	[[ ${lines[0]} == */scripts/build-steps.sh\ */build.tap\ build-bpftool\ build-helpers\ *\ debian-kernel\ debian-libbpf ]]
	[[ ${lines[1]} == */scripts/host-suite.sh\ */host.tap ]]
	[[ ${lines[2]} == VM_OUT=*\ VM_TESTS=\"tests/vm\ tests/abi\"\ */scripts/vm-suite.sh\ */vm ]]
	# Debian's mainline kernel: its VM suite, then its host-run file
	[[ ${lines[3]} == KERNEL=*/debian-kernel/vmlinuz\ VM_INITRD=*/debian-kernel/initrd.img\ *VM_TESTS=\"tests/vm-mainline\ tests/abi\"\ *\ */scripts/vm-suite.sh\ */vm-mainline ]]
	[[ ${lines[4]} == KERNEL=*/debian-kernel/vmlinuz\ VM_INITRD=*\ HOST_TESTS=tests/vm-mainline-host\ */scripts/host-suite.sh\ */vm-mainline/host.tap ]]
	[[ ${lines[5]} == */scripts/tap-summary.sh\ */build.tap\ */host.tap\ */vm\ */vm-mainline ]]
	[[ ${#lines[@]} == 6 ]]
	# make goes on after a failing step: all but the summary are
	# ignore-error lines
	[[ $(sed -n '/^check:/,/^$/p' "$TOP/Makefile" | grep -c '^	-@') == 5 ]]
}

@test ".ci/run sums both passes; a pass without a summary line is a failure" {
	mkdir "$T/bin"
	# a make that prints what it was asked (and notes it in CALLS), then a
	# summary line
	cat >"$T/bin/make" <<-'EOF'
	#!/bin/bash
	echo "make $*"
	args=()
	for a; do [[ $a == --no-print-directory ]] || args+=("$a"); done
	echo "${args[*]}" >>"$CALLS"
	case ${args[0]} in
	check) echo "210 passed, 0 failed" ;;
	check-debug-kernel) [[ -n ${NO_SUMMARY:-} ]] || echo "40 passed, 2 failed, 1 skipped"; exit 1 ;;
	esac
	EOF
	chmod +x "$T/bin/make"
	export CALLS=$T/calls
	run env PATH="$T/bin:$PATH" "$TOP/.ci/run"
	echo "$output"
	[[ $status == 1 ]]
	[[ $output == *"make check-debug-kernel DEBUG_SECONDS=30"* ]]
	[[ ${lines[-1]} == "250 passed, 2 failed, 1 skipped" ]]
	# the tree first, the debug kernel built beside check, its pass last
	cat "$CALLS"
	[[ $(head -n 1 "$CALLS") == tree ]]
	[[ $(sed -n '2,3p' "$CALLS" | sort | tr '\n' ' ') == "build-kernel-debug check " ]]
	[[ $(tail -n 1 "$CALLS") == "check-debug-kernel DEBUG_SECONDS=30" ]]
	rm "$CALLS"
	run env PATH="$T/bin:$PATH" NO_SUMMARY=1 CI_DEBUG_TESTS="tests/vm/smoke.bats" "$TOP/.ci/run"
	echo "$output"
	[[ $output == *"KERNEL_VM_TESTS=tests/vm/smoke.bats"* ]]
	[[ $status == 1 && ${lines[-1]} == "210 passed, 1 failed" ]]
	rm "$CALLS"
	run env PATH="$T/bin:$PATH" CI_DEBUG=0 "$TOP/.ci/run"
	[[ $status == 0 && ${lines[-1]} == "210 passed, 0 failed" ]]
	[[ $output != *check-debug* ]]
	[[ $(<"$CALLS") == check ]]
}

@test "vm-suite: with VM_AFTER_LOCK, no VM boots while another process holds that lock" {
	# a copy of the pipeline whose vm-run.sh only notes that it ran
	mkdir -p "$T/top/scripts/lib" "$T/top/tests/vm"
	cp "$TOP"/scripts/vm-suite.sh "$T/top/scripts/"
	cp "$TOP"/scripts/lib/{common.sh,tap.sh} "$T/top/scripts/lib/"
	printf '%s\n' '#!/bin/bash' 'echo boot >>"$CALLS"' >"$T/top/scripts/vm-run.sh"
	chmod +x "$T/top/scripts/vm-run.sh"
	touch "$T/top/tests/vm/a.bats"
	# (an empty hint file: every file goes in the queue all the same)
	export CALLS=$T/calls
	# the holder takes the lock, then lets the suite start, then releases it
	flock "$T/lock" sh -c 'touch "$1/held"; sleep 2; echo released >>"$CALLS"' sh "$T" &
	while [[ ! -e $T/held ]]; do sleep 0.1; done
	run env TOP="$T/top" VM_SHARDS=1 VM_DURATIONS=/dev/null VM_AFTER_LOCK="$T/lock" \
		"$T/top/scripts/vm-suite.sh" "$T/res"
	echo "$output"
	wait
	[[ $output == *"waiting for the build that holds $T/lock"* ]]
	[[ $(cat "$CALLS") == $'released\nboot' ]]
	# a free lock: no wait
	rm "$CALLS"
	run env TOP="$T/top" VM_SHARDS=1 VM_DURATIONS=/dev/null VM_AFTER_LOCK="$T/lock" \
		"$T/top/scripts/vm-suite.sh" "$T/res"
	[[ $output != *waiting* && $(cat "$CALLS") == boot ]]
}

@test "vm-suite: the durations hints are well-formed and list every VM file; the queue is costliest first" {
	local f hint listed first second
	for hint in tests/vm/durations tests/vm-debug/durations; do
		# "SECONDS FILE" lines and comments only, LF line ends
		run grep -nvE '^(#.*|[0-9]+ tests/(vm|abi)/[a-z0-9-]+\.bats)$' "$TOP/$hint"
		[[ $status == 1 ]] || { echo "$hint: malformed lines: $output"; false; }
		listed=$(awk '!/^#/ { print $2 }' "$TOP/$hint" | sort)
		for f in "$TOP"/tests/vm/*.bats; do
			grep -qx "tests/vm/${f##*/}" <<<"$listed" || { echo "$hint lacks tests/vm/${f##*/}"; false; }
		done
		for f in $listed; do
			[[ -f $TOP/$f ]] || { echo "$hint lists $f, which does not exist"; false; }
		done
		# the queue follows the hint: its order is the hint's, by seconds
		run env VM_LIST=1 VM_DURATIONS="$TOP/$hint" \
			VM_TESTS="$(awk '!/^#/ { sub("/[^/]*$", "", $2); print $2 }' "$TOP/$hint" | sort -u | xargs)" \
			"$TOP/scripts/vm-suite.sh" "$T/res"
		[[ $status == 0 ]]
		[[ $output == "$(awk '!/^#/' "$TOP/$hint" | sort -k1,1nr -k2,2 | cut -d' ' -f2)" ]]
		[[ ! -e $T/res ]]
	done
	# the two costliest files of the hint
	mapfile -t listed < <(awk '!/^#/' "$TOP/tests/vm/durations" | sort -k1,1nr -k2,2 | cut -d' ' -f2)
	first=${listed[0]} second=${listed[1]}
	[[ -f $TOP/$first && -f $TOP/$second && $first != "$second" ]]
	# a CR at a line's end (a file edited elsewhere) changes nothing
	sed 's/$/\r/' "$TOP/tests/vm/durations" >"$T/crlf"
	run env VM_LIST=1 VM_DURATIONS="$T/crlf" "$TOP/scripts/vm-suite.sh" "$T/res"
	[[ $status == 0 ]]
	[[ ${lines[0]} == "$first" ]]
	# a file the hint does not list goes first
	grep -vF " $second" "$TOP/tests/vm/durations" >"$T/part"
	run env VM_LIST=1 VM_DURATIONS="$T/part" "$TOP/scripts/vm-suite.sh" "$T/res"
	[[ ${lines[0]} == "$second" && ${lines[1]} == "$first" ]]
}

@test "host_tsc_khz: the host kernel's TSC rate in kHz, the refined one first; nothing from a log without it" {
	mkdir "$T/bin"
	fake_dmesg() {
		printf '#!/bin/sh\ncat <<"LOG"\n%s\nLOG\n' "$1" >"$T/bin/dmesg"
		chmod +x "$T/bin/dmesg"
	}
	khz() { PATH=$T/bin:$PATH bash -c 'source "$1"/scripts/lib/common.sh; host_tsc_khz' - "$TOP"; }

	fake_dmesg '[    0.000258] tsc: Detected 2095.990 MHz processor'
	[[ $(khz) == 2095990 ]]
	fake_dmesg "$(printf '%s\n' '[    0.0] tsc: Detected 2400.000 MHz processor' \
		'[    0.0] tsc: Detected 2399.998 MHz TSC' \
		'[    1.5] tsc: Refined TSC clocksource calibration: 2399.9875 MHz')"
	[[ $(khz) == 2399988 ]]
	fake_dmesg '[    0.0] tsc: Detected 3000.000 MHz processor
[    0.0] tsc: Detected 2899.5 MHz TSC'
	[[ $(khz) == 2899500 ]]
	# without the log, /proc/cpuinfo decides: a number, or nothing at all
	fake_dmesg '[    0.0] Linux version 6.1.0'
	run khz
	[[ $status == 0 && ( -z $output || $output =~ ^[1-9][0-9]*$ ) ]]
	if ! grep -qw constant_tsc /proc/cpuinfo; then [[ -z $output ]]; fi
}

@test "scripts: scripts/*.sh are commands (executable, #!), scripts/lib/*.sh libraries (sourced, neither)" {
	local f
	for f in "$TOP"/scripts/*.sh; do
		[[ -x $f && $(head -c 2 "$f") == '#!' ]] || { echo "$f: a command, but not executable or without #!"; false; }
	done
	for f in "$TOP"/scripts/lib/*.sh; do
		[[ ! -x $f && $(head -c 2 "$f") != '#!' ]] || { echo "$f: a library, but executable or with #!"; false; }
		grep -rqsF "scripts/lib/${f##*/}" "$TOP/scripts" "$TOP/tests" || { echo "$f: sourced by nobody"; false; }
	done
}
