#!/bin/bash
# The reproducer of token-reopen-oops.bats, run as root inside a VM of
# Debian's mainline kernel booted for it alone (it oopses the kernel):
# nobody makes a user namespace and a mount namespace (unshare, its root is
# nobody outside), root mounts there a BPF FS that delegates map_create and
# array maps to that user namespace, and nobody, root of it, makes a token
# from the mount, reopens it through /proc/self/fd/N and creates an array
# map with the reopened fd (tests/helpers/token-delegated.c --reopen).
# Each step is echoed ("+ ...") before it runs.
#
#   token-reopen-oops-guest.sh
#
# BPFTOOL and TEST_BIN default to build/'s.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
bpftool=${BPFTOOL:-$top/build/bpftool/bpftool}
helper=${TEST_BIN:-$top/build/tests}/token-delegated
nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all --bounding-set=-all --)

work=$(mktemp -d /tmp/token-reopen.XXXXXX)
chmod 0755 "$work"
mkdir "$work/mnt"

echo "+ (nobody) unshare --user --map-root-user --mount sleep 600 &"
"${nobody[@]}" unshare --user --map-root-user --mount sleep 600 </dev/null >/dev/null 2>&1 &
pid=$!
trap 'kill "$pid"' EXIT
for _ in $(seq 100); do
	[[ $(readlink "/proc/$pid/ns/user") != "$(readlink /proc/self/ns/user)" ]] && break
	sleep 0.1
done
echo "+ (root) nsenter -t $pid -m bpftool token delegate $work/mnt userns $pid cmds map_create maps array"
nsenter -t "$pid" -m "$bpftool" token delegate "$work/mnt" userns "$pid" cmds map_create maps array
grep " $work/mnt " "/proc/$pid/mountinfo"
echo "+ (nobody, root of its namespaces) token-delegated --reopen $work/mnt 2"
"${nobody[@]}" nsenter -t "$pid" -U -m --preserve-credentials -- "$helper" --reopen "$work/mnt" 2
