// SPDX-License-Identifier: GPL-2.0
/*
 * sockfilter: a socket filter with the same ARRAY map as xdp_token. The
 * tests' tokens allow XDP programs only, so loading this object through one
 * creates the map and then fails at BPF_PROG_LOAD with EPERM (with
 * unprivileged_bpf_disabled set, a socket filter needs CAP_BPF).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} sock_stats SEC(".maps");

SEC("socket")
int sockfilter_prog(struct __sk_buff *skb)
{
	__u32 key = 0;
	__u64 *cnt;

	cnt = bpf_map_lookup_elem(&sock_stats, &key);
	if (cnt)
		__sync_fetch_and_add(cnt, 1);
	return skb->len;
}

char LICENSE[] SEC("license") = "GPL";
