#!/bin/bash
# `make bench`: boot the patched kernel once and run build/bench/bench in it
# as root (tests/bench/bench.c: the token path against the capability path,
# what the attach scope check costs, `bpftool token list` scaling, token
# create rate and memory).
#
#   bench.sh [BENCH ARGS...]     e.g. bench.sh -q (a quick check run)
#
# Writes build/bench/results.json (the guest's JSON plus a "machine" object
# about the host and the VM) and build/bench/table.txt, and prints the table.
# BENCH_TIMEOUT (default 5400 s) bounds the VM run. See
# Documentation/benchmarks.md.
#
# Clock. By default QEMU runs with `-icount shift=0`: the guest's clock
# advances by exactly 1 ns per guest instruction, so a time is a count of
# the instructions executed (kernel and user), the same from run to run and
# blind to the host's load (the wall clock of a TCG guest on a busy 2-core
# host varies by 100% from batch to batch). BENCH_ICOUNT=0 times with the
# host's real clock instead: the guest's TSC is the host's, and vm-run.sh
# gives the guest its rate (tsc_early_khz=), but the guest's clocksource
# watchdog finds it unstable and falls back to jiffies (4 ms resolution), so
# the VM boots with tsc=reliable too. Under icount the TSC runs at 1 GHz
# (VM_TSC_KHZ=1000000).
# vm-run.sh takes no QEMU arguments: the icount run puts a wrapper named
# qemu-system-x86_64 first in PATH (build/bench/qemu/).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

OUT=$BUILD/bench
BENCH=$OUT/bench
BPFTOOL=$BUILD/bpftool/bpftool
PROGS=$BUILD/progs
for f in "$BENCH" "$BPFTOOL" "$PROGS/xdp_token.bpf.o"; do
	[[ -e $f ]] || die "missing ${f#"$TOP"/}: run 'make bench'"
done

vm_out=$OUT/vm
rm -f "$OUT/results.json" "$OUT/table.txt" "$vm_out/results.json" "$vm_out/table.txt"
mkdir -p "$vm_out"

append=${VM_APPEND:-}
clock=kvm
if [[ ${VM_KVM:-0} != 1 && ${BENCH_ICOUNT:-1} == 1 ]]; then
	clock=icount
	qemu=$(command -v qemu-system-x86_64) || die "qemu-system-x86_64 missing: run 'make deps'"
	mkdir -p "$OUT/qemu"
	printf '#!/bin/sh\nexec %q "$@" -icount shift=0,sleep=on\n' "$qemu" >"$OUT/qemu/qemu-system-x86_64"
	chmod +x "$OUT/qemu/qemu-system-x86_64"
	export PATH=$OUT/qemu:$PATH
	export VM_TSC_KHZ=1000000
	append+=" tsc=reliable"
elif [[ ${VM_KVM:-0} != 1 ]]; then
	clock=host
	VM_TSC_KHZ=${VM_TSC_KHZ:-$(host_tsc_khz)}
	[[ -n $VM_TSC_KHZ && $VM_TSC_KHZ != 0 ]] || die "can't tell the host's TSC frequency"
	export VM_TSC_KHZ
	append+=" tsc=reliable"
fi

log "bench: one VM boot (clock: $clock); takes about 20 minutes"
cd "$TOP"
rc=0
VM_APPEND=$append \
	"$TOP/scripts/vm-run.sh" --timeout "${BENCH_TIMEOUT:-5400}" --out "$vm_out" -- \
	"$BENCH" -o /run/vm-out/results.json -t /run/vm-out/table.txt \
	-p "$PROGS" -b "$BPFTOOL" "$@" || rc=$?

if [[ ! -s $vm_out/results.json ]]; then
	echo "bench: no results came back (VM exit status $rc)" >&2
	exit $((rc ? rc : 1))
fi

# Where the numbers were taken
host_cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
accel=tcg
[[ ${VM_KVM:-0} == 1 ]] && accel=kvm
jq --arg host_cpu "$host_cpu" --argjson host_cpus "$(nproc)" \
	--arg host_kernel "$(uname -r)" --arg accel "$accel" --arg clock "$clock" \
	--arg vm_cpu "${VM_CPU:-max}" --arg vm_mem "${VM_MEM:-2G}" \
	--argjson vm_cpus "${VM_CPUS:-1}" --arg vm_append "$append" --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
	'. + {machine: {host_cpu: $host_cpu, host_cpus: $host_cpus,
	  host_kernel: $host_kernel, accel: $accel, clock: $clock, vm_cpu: $vm_cpu,
	  vm_cpus: $vm_cpus, vm_mem: $vm_mem, vm_append: $vm_append,
	  date: $date}}' \
	"$vm_out/results.json" >"$OUT/results.json"
cp "$vm_out/table.txt" "$OUT/table.txt" 2>/dev/null || true
echo "bench: ${OUT#"$TOP"/}/results.json, ${OUT#"$TOP"/}/table.txt"
exit "$rc"
