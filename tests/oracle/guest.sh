#!/bin/bash
# Inside the test VM (booted by tests/oracle/oracle.sh through scripts/vm-run.sh):
# run one of the kernel's BPF selftest suites and leave its raw output in
# the shared directory, for the host to turn into a results file.
#
#   guest.sh SUITE SELFTESTS_DIR SHARE_DIR
#
# SUITE: test_progs | test_verifier | test_maps | parity
# SELFTESTS_DIR: the selftests' OUTPUT directory (read-only here; copied to
# a tmpfs first: the tests read their objects from the working directory).
# SHARE_DIR: /run/vm-share, written as the run goes, so that what ran before
# a kernel crash is kept; the host boots again for what is left:
#   test_progs: `todo` (test names), `progress` (START/END lines), logs/NAME.log
#   test_verifier: `range` ("FROM TO" chunks, one per line), tv.BOOT.out
#   test_maps: tm.out
#   parity: `bpftool` (path), parity-{root,all,notrace}.out
# ORACLE_TEST_TIMEOUT: seconds for one test_progs test (default 300).
set -uo pipefail
suite=$1 st=$2 share=$3
tmo=${ORACLE_TEST_TIMEOUT:-300}

mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing
ulimit -l unlimited
ulimit -n 65536 2>/dev/null

work=/tmp/st
mkdir -p "$work"
# Everything the runners read at run time, without the build's intermediates.
(cd "$st" && tar cf - --exclude=./tools --exclude=./no_alu32 --exclude=./bpf_gcc \
	--exclude='*.skel.h' --exclude='*.lskel.h' --exclude='*.subskel.h' \
	--exclude='*.test.o' --exclude='*linked[123].o' --exclude='*.d' --exclude=./bpftool .) |
	(cd "$work" && tar xf -) || { echo "guest: copying $st failed" >&2; exit 1; }
if [[ -x $st/tools/sbin/bpftool ]]; then
	cp "$st/tools/sbin/bpftool" "$work/bpftool"
fi
cd "$work" || exit 1
echo "guest: $(uname -r) $(uname -v), suite $suite, $(du -sh . | cut -f1) copied"

boot=$(date +%s%N)
case $suite in
test_progs)
	mkdir -p "$share/logs"
	while read -r name; do
		[[ -n $name ]] || continue
		echo "START $name" >>"$share/progress"
		t0=$(date +%s%N)
		timeout -k 10 "$tmo" ./test_progs -a "$name" >"$share/logs/$name.log" 2>&1
		rc=$?
		echo "END $name $rc $((($(date +%s%N) - t0) / 1000000))" >>"$share/progress"
	done <"$share/todo"
	;;
test_verifier)
	# The unprivileged variants run only with unprivileged BPF enabled.
	sysctl -qw kernel.unprivileged_bpf_disabled=0
	while read -r from to; do
		echo "START $from $to" >>"$share/progress"
		timeout -k 10 3600 stdbuf -oL -eL ./test_verifier "$from" "$to" \
			>>"$share/tv.$boot.out" 2>&1
		echo "END $from $to $?" >>"$share/progress"
	done <"$share/range"
	;;
test_maps)
	timeout -k 10 5400 stdbuf -oL -eL ./test_maps >"$share/tm.out" 2>&1
	echo "END test_maps $?" >>"$share/progress"
	;;
parity)
	bpftool=$(cat "$share/bpftool")
	sysctl -qw kernel.unprivileged_bpf_disabled=0
	cp "$share/tokshim.so" "$work/"
	chmod -R a+rX "$work"
	chmod a+rx /tmp
	# Root, with all its capabilities.
	ORACLE_UNBUFFERED=1 LD_PRELOAD=$work/tokshim.so timeout -k 10 3600 \
		./test_verifier >"$share/parity-root.out" 2>&1
	echo "END root $?" >>"$share/progress"
	mkdir -p /sys/fs/bpf/parity
	chmod 0755 /sys/fs/bpf/parity
	# Every command, map, program and attach type; then every program
	# type but the tracing ones (kprobe 2, tracepoint 5, perf_event 7,
	# raw_tracepoint 17, raw_tracepoint_writable 24, tracing 26, lsm 29).
	notrace=$(printf '0x%x' $((~((1 << 2) | (1 << 5) | (1 << 7) | (1 << 17) | (1 << 24) | (1 << 26) | (1 << 29)))))
	"$bpftool" token create /sys/fs/bpf/parity/all cmds any maps any progs any attach any ||
		echo "END all-create $?" >>"$share/progress"
	"$bpftool" token create /sys/fs/bpf/parity/notrace cmds any maps any progs "$notrace" attach any ||
		echo "END notrace-create $?" >>"$share/progress"
	chown 65534:65534 /sys/fs/bpf/parity/all /sys/fs/bpf/parity/notrace
	chmod 0600 /sys/fs/bpf/parity/all /sys/fs/bpf/parity/notrace
	"$bpftool" token show /sys/fs/bpf/parity/all >"$share/token-all.txt" 2>&1
	"$bpftool" token show /sys/fs/bpf/parity/notrace >"$share/token-notrace.txt" 2>&1
	# The scale tests (a million instructions each) are left out of the
	# run without CAP_PERFMON: there the verifier also walks every
	# speculative path, which under TCG takes more than ten minutes a
	# test. Their numbers go to parity-notrace.skipped.
	last=$(grep -oE '^#[0-9]+' "$share/parity-root.out" | tr -d '#' | sort -n | tail -n 1)
	grep -E '^#[0-9]+/p scale: ' "$share/parity-root.out" | grep -oE '^#[0-9]+' | tr -d '#' |
		sort -un >"$share/parity-notrace.skipped"
	first_scale=$(head -n 1 "$share/parity-notrace.skipped")
	last_scale=$(tail -n 1 "$share/parity-notrace.skipped")
	for tok in all notrace; do
		ranges=("0 $last")
		[[ $tok != notrace || -z $first_scale ]] ||
			ranges=("0 $((first_scale - 1))" "$((last_scale + 1)) $last")
		: >"$share/parity-$tok.out"
		rc=0
		for range in "${ranges[@]}"; do
			# shellcheck disable=SC2086
			setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all \
				env ORACLE_TOKEN=/sys/fs/bpf/parity/$tok ORACLE_UNBUFFERED=1 \
				LD_PRELOAD="$work/tokshim.so" timeout -k 10 3600 ./test_verifier $range \
				>>"$share/parity-$tok.out" 2>&1 || rc=$?
		done
		echo "END $tok $rc" >>"$share/progress"
	done
	"$bpftool" token show /sys/fs/bpf/parity/all >>"$share/token-all.txt" 2>&1
	"$bpftool" token show /sys/fs/bpf/parity/notrace >>"$share/token-notrace.txt" 2>&1
	;;
*)
	echo "guest: unknown suite $suite" >&2
	exit 1
	;;
esac
echo "guest: $suite took $((($(date +%s%N) - boot) / 1000000000)) s"
exit 0
