#!/bin/bash
# PID 1 of the test VM started by scripts/vm-run.sh (passed as init=).
# The root is the host's / over 9p, read-only. The kernel command line gives:
#   (9p tag vmout) per-run directory shared read-write with the host, mounted
#             at /run/vm-out: holds `cmd` (the command), receives `output`,
#             `dmesg`, `status`
#   vm_dir    the directory to run the command from (the project)
#   vm_shell  1 for an interactive shell on ttyS0
#   vm_share  1: mount the 9p tag vmshare (vm-run.sh --share) at /run/vm-share,
#             uncached: several guests may share it
# No `set -e`: whatever happens, the VM must reach the reboot at the end.
set -uo pipefail
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=${TERM:-linux} LANG=C.UTF-8

# (an initramfs may have mounted them already: Debian's kernel's,
# scripts/debian-kernel.sh)
mountpoint -q /proc || mount -t proc proc /proc
mountpoint -q /sys || mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm
ln -sfn /proc/self/fd /dev/fd
ln -sf /proc/self/fd/0 /dev/stdin
ln -sf /proc/self/fd/1 /dev/stdout
ln -sf /proc/self/fd/2 /dev/stderr
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
# The project may live under one of the directories that get a tmpfs (CI
# clones into /tmp, say): keep a bind of it and put it back on its path.
mkdir -p /dev/.vm-dir
mount --bind "$vm_dir" /dev/.vm-dir
for d in /tmp /run /var/tmp /var/log /root; do
	mount -t tmpfs -o mode=0755 tmpfs "$d"
	if [[ $vm_dir == "$d"/* ]]; then
		mkdir -p "$vm_dir"
		mount --bind /dev/.vm-dir "$vm_dir"
	fi
done
chmod 1777 /tmp /var/tmp /dev/shm
mount -t bpf bpf /sys/fs/bpf
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
vm_out=/run/vm-out
mkdir -p "$vm_out"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 vmout "$vm_out"
if [[ ${vm_share:-} == 1 ]]; then
	mkdir -p /run/vm-share
	mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,cache=none vmshare /run/vm-share
fi
ip link set lo up 2>/dev/null
hostname bpf-token-vm 2>/dev/null

status=1
if cd "$vm_dir"; then
	if [[ ${vm_shell:-0} == 1 ]]; then
		echo "bpf-token VM: $(uname -r), cwd $PWD. 'exit' powers off."
		setsid -c bash -i </dev/ttyS0 >/dev/ttyS0 2>&1
		status=$?
	else
		bash "$vm_out/cmd" </dev/null 2>&1 | tee "$vm_out/output"
		status=${PIPESTATUS[0]}
	fi
fi

dmesg >"$vm_out/dmesg" 2>&1
echo "$status" >"$vm_out/status"
sync
umount "$vm_out"
[[ ${vm_share:-} != 1 ]] || umount /run/vm-share
echo "vm-init: command exited with status $status"
# -ff: reboot(2) right away (systemctl cannot reach a systemd here); with
# QEMU's -no-reboot the reset ends QEMU.
reboot -ff
echo b >/proc/sysrq-trigger 2>/dev/null
sleep 5
