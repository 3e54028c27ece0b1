#!/usr/bin/env bats
# Systematic fault injection (tests/stress/token_fault.c): every fault
# point (failslab, fail_page_alloc) met by BPF_TOKEN_CREATE (root, userns-
# bound, cgroup-scoped, derived), BPF_OBJ_GET of a token and map/BTF/prog
# creation through a token fails once, through /proc/thread-self/fail-nth;
# each failing call returns an error, leaves nothing pinned, no fd and no
# token behind (nor a reference to the scope's cgroup).
#
# Injected allocation failures make vmalloc print "vmalloc error" reports
# with a stack trace: those are expected here and taken out of the kernel
# log (anything else in it fails the test; the log is checked clean first).

load lib

setup() {
	FAULT=$BUILD/stress/token_fault
	need "$FAULT"
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
	# unprivileged processes must reach the BPF FS instances below it
	work_dir fault
}

teardown() {
	umount -l "$WORK"/fi 2>/dev/null || true
	rm -rf "$WORK"
}

# The kernel log without the reports of injected allocation failures: from
# a "... allocation failure" / "vmalloc error" line to the end of its stack.
filtered_log() {
	dmesg | awk '
		/page allocation failure|vmalloc error|: vmalloc: allocation failure/ { skip = 1; next }
		skip && /<\/TASK>/ { skip = 0; next }
		!skip'
}

# filtered_trouble: kernel trouble in filtered_log
filtered_trouble() {
	filtered_log | kernel_trouble_lines 20
}

@test "fault-inject: every failure point of token creation and token use fails cleanly" {
	# Earlier trouble must not be hidden by the clean-up below.
	run kernel_trouble
	[[ -z $output ]] || { echo "kernel log not clean before the test:"; echo "$output"; false; }
	dmesg -C

	run timeout -k 5 1200 "$FAULT" -d "$WORK" -n ${FAULT_MAX:-3000}
	echo "$output"
	[[ $status == 0 ]]
	[[ ${lines[-1]} == "token_fault: ok (0 failed checks)" ]]
	for op in create create_userns create_cgroup derive obj_get map_create btf_load prog_load; do
		line=$(grep "^$op: " <<<"$output")
		[[ $line =~ ^$op:\ ([0-9]+)\ failure\ points,\ ([0-9]+)\ failed\ cleanly ]]
		# every operation allocates at least once
		(( BASH_REMATCH[1] >= 1 ))
		echo "# $line" >&3
	done

	run filtered_trouble
	[[ -z $output ]] || { echo "kernel trouble during fault injection:"; echo "$output"; false; }
	# Only expected reports are left: drop them, so that the suite's final
	# kernel-log check does not take them for trouble.
	dmesg -C
}
