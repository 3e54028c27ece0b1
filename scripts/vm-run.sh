#!/bin/bash
# Boot build/kobj's bzImage (or KERNEL, with VM_INITRD) under QEMU and run
# one command in it as root.
#
#   vm-run.sh [--timeout SECONDS] [--shell] [--out DIR] [--share DIR] -- CMD [ARG...]
#
# The guest's root is the host's `/` over virtio-9p, read-only; the guest init
# (scripts/vm-init.sh) puts tmpfs where writes are needed, mounts BPF FS at
# /sys/fs/bpf, runs CMD from the project directory and writes its exit status,
# its output and the guest's dmesg into a per-run directory shared read-write.
# --share DIR: one more host directory, read-write at /run/vm-share in the
# guest, which several VMs may share (scripts/vm-suite.sh hands out test
# files to parallel VMs through it). It is mounted without a cache, so that
# what one guest creates there the others see at once.
# The console shows kernel errors and worse (loglevel=4); warnings are caught
# from the dmesg the guest saves.
# Exit status: CMD's status; 125 if the kernel panicked, oopsed or printed a
# WARNING/BUG, or no status came back (console tail printed); 124 on the hard
# timeout.
#
# Environment: VM_KVM=1 uses KVM (off by default: KVM guests hang on the CI
# machines), VM_CPU (TCG CPU model, default max), VM_MEM (default 2G), VM_CPUS
# (default 1), VM_APPEND (extra kernel arguments), VM_TSC_KHZ (the guest's
# TSC rate, default the host's; 0: let the guest calibrate), KERNEL (default
# build/kobj/arch/x86/boot/bzImage), VM_INITRD (an initramfs for KERNEL,
# QEMU's -initrd; default none: the patched kernel mounts the 9p root
# itself; Debian's kernel, whose 9p is modules, boots with
# build/debian-kernel/initrd.img, which mounts the root the same way and
# runs the same init: scripts/debian-kernel.sh). Paths must not contain
# spaces (they go on the kernel command line).
set -euo pipefail
source "$(dirname "$0")/lib/common.sh"

timeout=600 shell=0 out= share=
while [[ $# -gt 0 ]]; do
	case $1 in
	--timeout) timeout=$2; shift 2 ;;
	--shell) shell=1; shift ;;
	--out) out=$2; shift 2 ;;
	--share) share=$(cd "$2" && pwd); shift 2 ;;
	--) shift; break ;;
	*) break ;;
	esac
done
[[ $shell == 1 || $# -gt 0 ]] || die "usage: $0 [--timeout S] [--shell] [--out DIR] -- CMD..."

KERNEL=${KERNEL:-$KOBJ/arch/x86/boot/bzImage}
[[ -f $KERNEL ]] || die "no kernel at $KERNEL: run 'make kernel'"
[[ -z ${VM_INITRD:-} || -f $VM_INITRD ]] || die "no initramfs at $VM_INITRD (VM_INITRD)"
command -v qemu-system-x86_64 >/dev/null || die "qemu-system-x86_64 missing: run 'make deps'"

# Per-run exchange directory, mounted in the guest at /run/vm-out.
# --out DIR keeps it (for callers that read `output` and `dmesg`).
if [[ -n $out ]]; then
	mkdir -p "$out"
	out=$(cd "$out" && pwd)
	rm -f "$out"/{cmd,output,dmesg,status,console.log}
else
	mkdir -p "$BUILD/vm-out"
	out=$(mktemp -d "$BUILD/vm-out/run.XXXXXX")
	trap 'rm -rf "$out"' EXIT
fi
if [[ $shell == 1 ]]; then
	echo "exec bash -i" >"$out/cmd"
else
	printf '%q ' "$@" >"$out/cmd"
	echo >>"$out/cmd"
fi
console=$out/console.log

append="console=ttyS0 loglevel=4 panic=-1 oops=panic random.trust_cpu=on"
# No IO-APIC timer check: on a busy host the emulated PIT ticks too late for
# it, and the kernel panics at boot ("IO-APIC + timer doesn't work!").
append+=" no_timer_check"
# Own slab caches stay apart, so /proc/slabinfo counts live BPF tokens.
append+=" slab_nomerge"
# Under TCG the guest's TSC counts at the host's TSC rate. Calibrating it
# against the emulated PIT fails on some boots of a busy host ("Unable to
# calibrate against PIT"), and that guest runs without a TSC: sched_clock()
# counts in jiffies and BPF's run_time_ns stays 0 for short runs. Giving the
# guest the host's rate makes every boot alike. VM_TSC_KHZ overrides the
# rate the host reports; VM_TSC_KHZ=0 lets the guest calibrate.
tsc_khz=${VM_TSC_KHZ:-$(host_tsc_khz)}
[[ ${VM_KVM:-0} == 1 || -z $tsc_khz || $tsc_khz == 0 ]] ||
	append+=" tsc_early_khz=$tsc_khz"
append+=" root=hostroot rootfstype=9p ro"
append+=" rootflags=trans=virtio,version=9p2000.L,msize=262144,cache=loose"
append+=" init=$TOP/scripts/vm-init.sh vm_dir=$PWD vm_shell=$shell vm_share=${share:+1}"
append+=" ${VM_APPEND:-}"

accel=(-accel tcg -cpu "${VM_CPU:-max}")
[[ ${VM_KVM:-0} == 1 ]] && accel=(-accel kvm -cpu host)

qemu=(qemu-system-x86_64 "${accel[@]}" -m "${VM_MEM:-2G}" -smp "${VM_CPUS:-1}"
	-kernel "$KERNEL" ${VM_INITRD:+-initrd "$VM_INITRD"} -append "$append"
	-no-reboot -display none -vga none -nic none
	-virtfs "local,path=/,mount_tag=hostroot,security_model=none,multidevs=remap,readonly=on"
	-virtfs "local,path=$out,mount_tag=vmout,security_model=none,multidevs=remap")
[[ -z $share ]] ||
	qemu+=(-virtfs "local,path=$share,mount_tag=vmshare,security_model=none,multidevs=remap")

if [[ $shell == 1 ]]; then
	# Interactive: serial and monitor on this terminal (Ctrl-A X quits).
	"${qemu[@]}" -serial mon:stdio
	exit 0
fi

set +e
timeout -k 10 "$timeout" "${qemu[@]}" -serial stdio -monitor none </dev/null |
	tee "$console"
rc=${PIPESTATUS[0]}
set -e

status=
[[ -f $out/status ]] && status=$(cat "$out/status")

# Kernel trouble (scripts/lib/kernel-trouble.sh), from the dmesg the guest saved
# and from the console lines that are kernel messages (timestamped; the
# command's own output is not).
source "$TOP/scripts/lib/kernel-trouble.sh"
trouble=$({
	cat "$out/dmesg" 2>/dev/null
	grep -aE '^\[ *[0-9]+\.[0-9]+\] ' "$console"
} | kernel_trouble_lines 5 || true)

fail() {
	echo "vm-run: $*" >&2
	if [[ -s $out/dmesg ]]; then
		echo "---- kernel log tail ----" >&2
		tail -n 80 "$out/dmesg" >&2
	else
		echo "---- console tail ----" >&2
		tail -n 80 "$console" | tr -d '\r' >&2
	fi
	echo "-------------------------" >&2
}

if [[ $rc == 124 || $rc == 137 ]]; then
	fail "hard timeout after ${timeout}s"
	exit 124
elif [[ -n $trouble ]]; then
	fail "kernel reported a problem:"$'\n'"$trouble"
	exit 125
elif [[ -z $status ]]; then
	fail "no exit status from the guest (qemu exited $rc)"
	exit 125
fi
exit "$status"
