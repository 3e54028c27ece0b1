#!/bin/bash
# The guest side of scripts/vm-suite.sh: run inside each test VM, it runs
# bats files, one run each, TAP into /run/vm-out/tap/NNN-NAME.tap (and on
# stdout), and says what each took (`# vm-suite: FILE took Ns`). The
# runner is scripts/bats-run.sh, which gives bats' verdicts in one bash
# process per file (bats costs about 0.8 s a test under TCG, more on the
# debug kernel); VM_BATS=bats runs bats itself.
#
#   vm-suite-guest.sh [-p FILE]... [-a FILE]... [QUEUE]
#
# -p FILE runs before the queue, -a FILE after it, in every VM (e.g. the
# debug suite's kmemleak scans, which look at the VM's own kernel). QUEUE is
# a directory shared by the VMs of one run (vm-run.sh --share) holding
# `list`, the bats files in the order to hand them out: each VM takes the
# next file nobody has claimed yet (claimed by mkdir QUEUE/claim.N, which
# the host's file system decides), until none is left. So the VMs share the
# work whatever each file costs on this kernel.
set -uo pipefail

pre=() post=()
while getopts p:a: opt; do
	case $opt in
	p) pre+=("$OPTARG") ;;
	a) post+=("$OPTARG") ;;
	*) echo "usage: $0 [-p FILE]... [-a FILE]... [QUEUE]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
queue=${1:-}
runner=("$(dirname "$0")/bats-run.sh")
[[ ${VM_BATS:-} == bats ]] && runner=(bats --tap)

tapdir=/run/vm-out/tap
mkdir -p "$tapdir"
n=0 rc=0

run_file() {
	local f=$1 tap
	n=$((n + 1))
	tap=$tapdir/$(printf '%03d' "$n")-$(basename "$f" .bats).tap
	echo "# vm-suite: $f"
	SECONDS=0
	"${runner[@]}" "$f" | tee "$tap"
	[[ ${PIPESTATUS[0]} == 0 ]] || rc=1
	echo "# vm-suite: $f took ${SECONDS}s"
}

for f in ${pre[@]+"${pre[@]}"}; do
	run_file "$f"
done
if [[ -n $queue ]]; then
	i=0
	while IFS= read -r f; do
		i=$((i + 1))
		mkdir "$queue/claim.$i" 2>/dev/null || continue
		echo "$f" >"$queue/claim.$i/file"
		run_file "$f"
	done <"$queue/list"
fi
for f in ${post[@]+"${post[@]}"}; do
	run_file "$f"
done
exit $rc
