// SPDX-License-Identifier: GPL-2.0
/*
 * xdp_xsk: the XDP half of an AF_XDP application: packets of the receive
 * queues that have an XDP socket in the XSKMAP are redirected to it, the
 * others pass to the stack; per-CPU packet and byte counters per verdict.
 * A const volatile switch (.rodata) turns the redirect off (count only).
 *
 * What loading it needs (xdp_xsk.needs): BTF; maps ARRAY (.rodata),
 * PERCPU_ARRAY, XSKMAP (an XSKMAP needs CAP_NET_ADMIN, which the token
 * stands in for); programs of type XDP, expected attach type xdp.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

const volatile bool count_only = false;

struct datarec {
	__u64 packets;
	__u64 bytes;
};

enum { VERDICT_PASS, VERDICT_REDIRECT, VERDICT_MAX };

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} xsks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, VERDICT_MAX);
	__type(key, __u32);
	__type(value, struct datarec);
} xdp_stats SEC(".maps");

static __always_inline int count(struct xdp_md *ctx, __u32 verdict, int action)
{
	struct datarec *rec = bpf_map_lookup_elem(&xdp_stats, &verdict);

	if (rec) {
		rec->packets++;
		rec->bytes += ctx->data_end - ctx->data;
	}
	return action;
}

SEC("xdp")
int xdp_sock_redirect(struct xdp_md *ctx)
{
	__u32 queue = ctx->rx_queue_index;

	if (count_only || !bpf_map_lookup_elem(&xsks, &queue))
		return count(ctx, VERDICT_PASS, XDP_PASS);
	count(ctx, VERDICT_REDIRECT, XDP_REDIRECT);
	return bpf_redirect_map(&xsks, queue, XDP_PASS);
}

char LICENSE[] SEC("license") = "GPL";
