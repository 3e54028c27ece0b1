// SPDX-License-Identifier: GPL-2.0
/*
 * tp_perf: tracepoint programs in the style of "opensnoop": the openat(2)
 * syscall tracepoint sends the file name a process opens to a perf buffer
 * (PERF_EVENT_ARRAY), counts opens per process in an LRU hash and the
 * processes that exec'd (sched_process_exec, whose task fields are read
 * with CO-RE) in a plain hash. The sampling rate lives in .data, so that a
 * loader may change it before load.
 *
 * What loading it needs (tp_perf.needs): BTF; maps HASH, ARRAY (.data),
 * PERF_EVENT_ARRAY, LRU_HASH; programs of type TRACEPOINT, expected attach
 * type 0 (cgroup_inet_ingress).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#define NAME_LEN 64

struct open_event {
	__u32 pid;
	__s32 flags;
	char name[NAME_LEN];
};

/* report one open out of sample_every */
__u32 sample_every = 1;
__u64 seen = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} open_events SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u64);
} opens_by_pid SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u32);
	__type(value, __u32);
} exec_parent SEC(".maps");

SEC("tp/syscalls/sys_enter_openat")
int trace_openat(struct trace_event_raw_sys_enter *ctx)
{
	__u32 pid = bpf_get_current_pid_tgid() >> 32;
	struct open_event e = {};
	__u64 one = 1, *cnt, n;

	cnt = bpf_map_lookup_elem(&opens_by_pid, &pid);
	if (cnt)
		__sync_fetch_and_add(cnt, 1);
	else
		bpf_map_update_elem(&opens_by_pid, &pid, &one, BPF_NOEXIST);

	n = __sync_fetch_and_add(&seen, 1);
	if (sample_every > 1 && n % sample_every)
		return 0;

	e.pid = pid;
	e.flags = (__s32)ctx->args[2];
	bpf_probe_read_user_str(e.name, sizeof(e.name), (const char *)ctx->args[1]);
	bpf_perf_event_output(ctx, &open_events, BPF_F_CURRENT_CPU, &e, sizeof(e));
	return 0;
}

SEC("tp/sched/sched_process_exec")
int trace_exec(struct trace_event_raw_sched_process_exec *ctx)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u32 pid = ctx->pid;
	__u32 ppid = BPF_CORE_READ(task, real_parent, tgid);

	bpf_map_update_elem(&exec_parent, &pid, &ppid, BPF_ANY);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
