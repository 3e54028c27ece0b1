// SPDX-License-Identifier: GPL-2.0
/*
 * ctr_xdp: an XDP packet counter, loaded by unmodified applications
 * (iproute2's `ip link set dev D xdp obj ctr_xdp.bpf.o sec xdp`,
 * xdp-loader) through a BPF token, and by the container test.
 *
 * ctr_xdp_count (ARRAY, 2 slots of __u64):
 *   [0] frames whose EtherType is CTR_ETH_P (0x88b5, IEEE local
 *       experimental): the frames a test sends itself, so their number is
 *       exact;
 *   [1] every frame.
 * Pinned by name (LIBBPF_PIN_BY_NAME: iproute2 pins it in its globals
 * directory, /sys/fs/bpf/xdp/globals/), so that an unprivileged user finds
 * it without BPF_MAP_GET_NEXT_ID. Every frame passes. Needs btf_load,
 * map_create (array), prog_load (xdp, attach type xdp). No global variables
 * (no internal maps).
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define CTR_ETH_P 0x88b5

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	/* sizes, not BTF types: bpftool reads a map with BTF types only after
	 * BPF_BTF_GET_FD_BY_ID, which needs CAP_SYS_ADMIN (a token does not
	 * stand in for it); so the container's root can dump this one
	 */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u64));
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} ctr_xdp_count SEC(".maps");

static __always_inline void count(__u32 slot)
{
	__u64 *n = bpf_map_lookup_elem(&ctr_xdp_count, &slot);

	if (n)
		__sync_fetch_and_add(n, 1);
}

SEC("xdp")
int ctr_xdp_prog(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *data_end = (void *)(long)ctx->data_end;
	struct ethhdr *eth = data;

	count(1);
	if ((void *)(eth + 1) <= data_end && eth->h_proto == bpf_htons(CTR_ETH_P))
		count(0);
	return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
