// SPDX-License-Identifier: GPL-2.0
/*
 * kprobe_ringbuf: a CO-RE kprobe/kretprobe pair in the style of the
 * "execsnoop"/"sleepsnoop" tools: on entry to do_nanosleep() it remembers
 * the time per thread, on return it sends an event with the task's pid,
 * parent tgid (BPF_CORE_READ through task_struct->real_parent) and comm to
 * a ring buffer. A const volatile tgid filter (.rodata) is set by the
 * loader; the number of events dropped because the ring buffer was full is
 * kept in .bss.
 *
 * What loading it needs (kprobe_ringbuf.needs): BTF; maps HASH (start
 * times), RINGBUF, ARRAY (libbpf's .rodata and .bss maps); programs of type
 * KPROBE whose expected attach type is 0 (cgroup_inet_ingress in bpftool's
 * names).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#define TASK_COMM_LEN 16

struct sleep_event {
	__u32 pid;
	__u32 ppid;
	__u64 duration_ns;
	char comm[TASK_COMM_LEN];
};

/* 0: every process; set by the loader before load */
const volatile __u32 target_tgid = 0;

/* events lost to a full ring buffer */
__u64 dropped = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, __u64);
} sleep_start SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 * 1024);
} sleep_events SEC(".maps");

static __always_inline bool wanted(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	return !target_tgid || tgid == target_tgid;
}

SEC("kprobe/do_nanosleep")
int BPF_KPROBE(nanosleep_enter)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 now;

	if (!wanted())
		return 0;
	now = bpf_ktime_get_ns();
	bpf_map_update_elem(&sleep_start, &tid, &now, BPF_ANY);
	return 0;
}

SEC("kretprobe/do_nanosleep")
int BPF_KRETPROBE(nanosleep_exit, int ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct task_struct *task;
	struct sleep_event *e;
	__u64 *start;

	start = bpf_map_lookup_elem(&sleep_start, &tid);
	if (!start)
		return 0;

	e = bpf_ringbuf_reserve(&sleep_events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&dropped, 1);
		goto out;
	}
	task = (struct task_struct *)bpf_get_current_task();
	e->pid = BPF_CORE_READ(task, tgid);
	e->ppid = BPF_CORE_READ(task, real_parent, tgid);
	e->duration_ns = bpf_ktime_get_ns() - *start;
	bpf_get_current_comm(e->comm, sizeof(e->comm));
	bpf_ringbuf_submit(e, 0);
out:
	bpf_map_delete_elem(&sleep_start, &tid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
