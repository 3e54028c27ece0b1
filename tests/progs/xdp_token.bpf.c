// SPDX-License-Identifier: GPL-2.0
/*
 * xdp_token: the XDP program an unprivileged user loads through a BPF token.
 *
 * What it needs from the kernel, and so from the token:
 *   - BPF_BTF_LOAD     the object's BTF (the map below is BTF-defined);
 *   - BPF_MAP_CREATE   an ARRAY map;
 *   - BPF_PROG_LOAD    an XDP program, expected attach type BPF_XDP (libbpf
 *                      sets it for SEC("xdp"));
 *   - the helper bpf_jiffies64() (only for bpf_capable(), i.e. CAP_BPF):
 *     without a token that satisfies the check the verifier rejects the
 *     program as calling an unknown helper.
 *
 * Nothing here needs CAP_PERFMON, which a token stands in for only when it
 * also allows a tracing program type: xdp_read_kernel.bpf.c is the
 * program that does.
 *
 * No global variables: .bss/.data/.rodata would add internal maps.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct xdp_token_stats {
	__u64 packets;		/* packets seen */
	__u64 last_jiffies;	/* bpf_jiffies64() at the last packet */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct xdp_token_stats);
} token_stats SEC(".maps");

SEC("xdp")
int xdp_token_prog(struct xdp_md *ctx)
{
	struct xdp_token_stats *st;
	__u32 key = 0;

	st = bpf_map_lookup_elem(&token_stats, &key);
	if (!st)
		return XDP_PASS;

	__sync_fetch_and_add(&st->packets, 1);
	st->last_jiffies = bpf_jiffies64();

	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
