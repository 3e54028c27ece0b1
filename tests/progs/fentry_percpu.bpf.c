// SPDX-License-Identifier: GPL-2.0
/*
 * fentry_percpu: fentry/fexit programs on do_unlinkat() in the style of
 * libbpf-bootstrap's "fentry" example: the entry program counts calls per
 * CPU (PERCPU_ARRAY) and, for non-empty names, per process (PERCPU_HASH
 * keyed by tgid); the exit program counts failures in .bss. Function
 * arguments are typed from vmlinux BTF (struct filename), fields read with
 * CO-RE.
 *
 * What loading it needs (fentry_percpu.needs): BTF; maps ARRAY (.bss),
 * PERCPU_HASH, PERCPU_ARRAY; programs of type TRACING with the expected
 * attach types trace_fentry and trace_fexit. libbpf finds the attach BTF id
 * in /sys/kernel/btf/vmlinux, which every user may read.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

__u64 unlink_failures = 0;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} unlink_calls SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 128);
	__type(key, __u32);
	__type(value, __u64);
} unlink_by_tgid SEC(".maps");

SEC("fentry/do_unlinkat")
int BPF_PROG(unlink_enter, int dfd, struct filename *name)
{
	__u32 key = 0, tgid = bpf_get_current_pid_tgid() >> 32;
	__u64 *cnt, one = 1;
	const char *str;
	char first = 0;

	cnt = bpf_map_lookup_elem(&unlink_calls, &key);
	if (cnt)
		(*cnt)++;

	/* BPF_CORE_READ through the typed argument */
	str = BPF_CORE_READ(name, name);
	bpf_probe_read_kernel(&first, sizeof(first), str);
	if (!first)
		return 0;

	cnt = bpf_map_lookup_elem(&unlink_by_tgid, &tgid);
	if (cnt)
		(*cnt)++;
	else
		bpf_map_update_elem(&unlink_by_tgid, &tgid, &one, BPF_NOEXIST);
	return 0;
}

SEC("fexit/do_unlinkat")
int BPF_PROG(unlink_exit, int dfd, struct filename *name, long ret)
{
	if (ret)
		__sync_fetch_and_add(&unlink_failures, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
