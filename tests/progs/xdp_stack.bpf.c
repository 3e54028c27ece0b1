// SPDX-License-Identifier: GPL-2.0
/*
 * xdp_stack: an XDP program like xdp_token, but its map is a STACK, a map
 * type the tests' tokens do not allow (they allow ARRAY maps only). Loading
 * it through such a token fails at BPF_MAP_CREATE with EPERM.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_STACK);
	__uint(max_entries, 16);
	__uint(key_size, 0);
	__type(value, __u64);
} token_stack SEC(".maps");

SEC("xdp")
int xdp_stack_prog(struct xdp_md *ctx)
{
	__u64 now = bpf_jiffies64();

	bpf_map_push_elem(&token_stack, &now, BPF_EXIST);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
