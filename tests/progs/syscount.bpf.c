// SPDX-License-Identifier: GPL-2.0
/*
 * syscount: a raw tracepoint on sys_enter that counts the system calls of
 * one process, the object that tests/progs/skel_load.c loads through its
 * `bpftool gen skeleton` skeleton. The loader sets the process and the
 * syscall to count in .rodata before load; the program counts in .bss, with
 * a per-call weight from .data, through a static (bpf-to-bpf) and a global
 * subprogram; it also copies three .kconfig externs into .bss (CONFIG_HZ and
 * CONFIG_BPF_SYSCALL come from /proc/config.gz, LINUX_KERNEL_VERSION from
 * uname), so that the loader can check them.
 *
 * What loading it needs (syscount.needs): BTF (the global subprogram cannot
 * be verified without it); maps ARRAY only (.rodata, .data, .bss and
 * .kconfig are all ARRAY maps); programs of type RAW_TRACEPOINT, expected
 * attach type 0 (cgroup_inet_ingress).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

/* set by the loader; 0 and -1 mean "every process" and "every syscall" */
const volatile __u32 target_tgid = 0;
const volatile long target_syscall = -1;

extern unsigned int CONFIG_HZ __kconfig;
extern bool CONFIG_BPF_SYSCALL __kconfig;
extern __u32 LINUX_KERNEL_VERSION __kconfig;

/* .data: what one matching call adds to .bss's total */
__u64 weight = 1;

/* .bss: results */
__u64 matched = 0;
__u64 total = 0;
__u32 hz = 0;
__u32 kernel_version = 0;
__u32 bpf_syscall = 0;

static __noinline __u64 account(long id)
{
	__sync_fetch_and_add(&matched, 1);
	__sync_fetch_and_add(&total, weight);
	return matched;
}

/* a global (non-static) subprogram: verified on its own, needs BTF */
__noinline int syscount_wanted(__u32 tgid, long id)
{
	if (target_tgid && tgid != target_tgid)
		return 0;
	if (target_syscall >= 0 && id != target_syscall)
		return 0;
	return 1;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(syscount_enter, struct pt_regs *regs, long id)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (!syscount_wanted(tgid, id))
		return 0;
	account(id);
	hz = CONFIG_HZ;
	kernel_version = LINUX_KERNEL_VERSION;
	bpf_syscall = CONFIG_BPF_SYSCALL;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
