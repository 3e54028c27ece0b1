#!/usr/bin/env bats
# A known bug of mainline's BPF tokens, reproduced on Debian's 6.12 kernel
# (build/debian-kernel, scripts/debian-kernel.sh) in a VM booted for it
# alone: the kernel oopses, and oops=panic ends the VM. Run on the host by
# `make test-vm-mainline` (tests/vm-mainline-host), with KERNEL and
# VM_INITRD. The test passes while the bug reproduces; when it does not (a
# fixed kernel), it fails and says to update the expectation.
#
# For the upstream report:
#   bpf: NULL pointer dereference in bpf_token_get_from_fd() for a token
#   fd reopened through /proc/self/fd
#
#   Linux 6.12.118 (Debian 6.12.118-1~deb12u1, x86_64; BPF tokens as
#   mainline has them since 6.9; later kernels not tried here). A token
#   file has no open file operation, so open("/proc/self/fd/N", O_RDWR) of
#   a token fd N gives a file with f_op == &bpf_token_fops and a NULL
#   private_data. BPF_MAP_CREATE with BPF_F_TOKEN_FD and that fd as
#   map_token_fd passes bpf_token_get_from_fd()'s f_op check and takes a
#   reference on the NULL token (refcnt is at offset 0x20, the faulting
#   address). An unprivileged user reaches it:
#     1. nobody: unshare --user --map-root-user --mount;
#     2. root: fsopen("bpf") in that user namespace, fsconfig
#        delegate_cmds=map_create, delegate_maps=array, mounted in that
#        mount namespace (bpftool token delegate);
#     3. nobody, root of its namespace: BPF_TOKEN_CREATE { flags = 0,
#        bpffs_fd = the mount's root }, open("/proc/self/fd/TOKEN",
#        O_RDWR), BPF_MAP_CREATE (array, map_flags = BPF_F_TOKEN_FD,
#        map_token_fd = the reopened fd);
#   and the kernel says
#     BUG: kernel NULL pointer dereference, address: 0000000000000020
#     CPU: 0 UID: 65534 PID: 186 Comm: token-delegated Not tainted 6.12.118+deb12-amd64 #1  Debian 6.12.118-1~deb12u1
#     RIP: 0010:bpf_token_get_from_fd+0x42/0x60
#     Call Trace: map_create+0x508/0x860 __sys_bpf+0x218c/0x2400
#   (steps: token-reopen-oops-guest.sh beside this file and
#   tests/helpers/token-delegated.c --reopen). A reopened token file could
#   be refused at open (an .open that fails), or bpf_token_get_from_fd()
#   could refuse a file without a token.

bats_require_minimum_version 1.5.0

setup() {
	TOP=${TOP:-$(cd "$BATS_TEST_DIRNAME/../.." && pwd)}
	BUILD=${BUILD:-$TOP/build}
	KERNEL=${KERNEL:-$BUILD/debian-kernel/vmlinuz}
	VM_INITRD=${VM_INITRD:-$BUILD/debian-kernel/initrd.img}
	local f
	for f in "$KERNEL" "$VM_INITRD" "$BUILD/debian-kernel/version" \
		"${BPFTOOL:-$BUILD/bpftool/bpftool}" "${TEST_BIN:-$BUILD/tests}/token-delegated"; do
		[[ -e $f ]] || { echo "no $f: run 'make debian-kernel bpftool test-build'"; return 1; }
	done
	OUT=$BUILD/vm-out/mainline-oops
}

@test "known mainline bug, reproduces: a BPF token reopened through /proc/self/fd oopses Linux 6.12.x (bpf_token_get_from_fd)" {
	local release console
	release=$(cut -d' ' -f1 "$BUILD/debian-kernel/version")
	run env KERNEL="$KERNEL" VM_INITRD="$VM_INITRD" "$TOP/scripts/vm-run.sh" --timeout 300 \
		--out "$OUT" -- "$BATS_TEST_DIRNAME/token-reopen-oops-guest.sh"
	console=$(tr -d '\r' <"$OUT/console.log")
	echo "vm-run: status $status; the console:"
	echo "$console"
	# (what the helper printed last may not reach the console before the
	# panic: the kernel's lines tell what ran)
	if [[ $status != 125 || $console != *"BUG: kernel NULL pointer dereference"* ||
	      $console != *"Comm: token-delegated "*"$release"* ||
	      $console != *"RIP: 0010:bpf_token_get_from_fd+"* ]]; then
		echo "the known bug did not reproduce on $release (vm-run's status $status; the guest's output, if it finished:"
		cat "$OUT/output" 2>/dev/null || true
		echo ")"
		echo "If the kernel is fixed, update the expectation: $BATS_TEST_FILENAME"
		false
	fi
	# in BPF_MAP_CREATE, by nobody's process (not root's)
	[[ $console == *"Call Trace:"*" map_create+"*" __sys_bpf+"* ]]
	[[ $console == *"UID: 65534 PID: "*" Comm: token-delegated "* ]]
}
