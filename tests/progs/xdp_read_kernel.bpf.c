// SPDX-License-Identifier: GPL-2.0
/*
 * xdp_read_kernel: an XDP program that reads kernel memory, the pid of the
 * task it runs in with bpf_probe_read_kernel(). Both helpers need
 * CAP_PERFMON, which a BPF token stands in for only when it allows a
 * tracing program type: through a token allowing XDP alone the verifier
 * refuses the program, through one that also allows kprobe (or tracepoint)
 * it loads, and libbpf keeps bpf_probe_read_kernel() although its feature
 * probe, a tracepoint program, is not the token's to make.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

__u32 last_pid;

SEC("xdp")
int xdp_read_kernel(struct xdp_md *ctx)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	int pid = 0;

	bpf_probe_read_kernel(&pid, sizeof(pid), &task->pid);
	last_pid = pid;
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
