// SPDX-License-Identifier: GPL-2.0
/*
 * ctr_tc: a tc (sched_cls, direct action) packet counter, loaded by
 * unmodified iproute2 (`tc filter add dev D ingress bpf da obj ctr_tc.bpf.o
 * sec tc`) through a BPF token, and by the container test.
 *
 * ctr_tc_count (ARRAY, 2 slots of __u64), like ctr_xdp's:
 *   [0] frames with EtherType 0x88b5 (the ones a test sends), [1] all.
 * Pinned by name, like ctr_xdp_count (/sys/fs/bpf/tc/globals/ under tc).
 * Every frame goes on (TC_ACT_OK). Needs btf_load, map_create (array),
 * prog_load (sched_cls; libbpf gives SEC("tc") the expected attach type 0,
 * cgroup_inet_ingress). No global variables.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
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
} ctr_tc_count SEC(".maps");

static __always_inline void count(__u32 slot)
{
	__u64 *n = bpf_map_lookup_elem(&ctr_tc_count, &slot);

	if (n)
		__sync_fetch_and_add(n, 1);
}

SEC("tc")
int ctr_tc_prog(struct __sk_buff *skb)
{
	count(1);
	/* skb->protocol: the EtherType, in network byte order */
	if (skb->protocol == bpf_htons(CTR_ETH_P))
		count(0);
	return TC_ACT_OK;
}

char LICENSE[] SEC("license") = "GPL";
