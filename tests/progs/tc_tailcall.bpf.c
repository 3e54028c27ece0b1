// SPDX-License-Identifier: GPL-2.0
/*
 * tc_tailcall: a tc (sched_cls) ingress classifier in the style of a small
 * firewall: the entry program parses Ethernet and IPv4, looks the source
 * address up in an LPM trie of blocked prefixes and tail-calls a
 * per-protocol program through a PROG_ARRAY that libbpf fills at load time
 * (the map's static .values initializer). Header parsing is a bpf-to-bpf
 * call, the verdict accounting a global subprogram.
 *
 * What loading it needs (tc_tailcall.needs): BTF (the global subprogram);
 * maps ARRAY (.bss), PROG_ARRAY, LPM_TRIE; programs of type SCHED_CLS,
 * expected attach type 0 (cgroup_inet_ingress): libbpf sets none for
 * SEC("tc").
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define TC_ACT_OK	0
#define TC_ACT_SHOT	2
#define ETH_P_IP	0x0800

enum { PROTO_TCP, PROTO_UDP, PROTO_OTHER, PROTO_MAX };

struct ipv4_lpm_key {
	__u32 prefixlen;
	__u32 addr;
};

struct {
	__uint(type, BPF_MAP_TYPE_LPM_TRIE);
	__uint(max_entries, 64);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct ipv4_lpm_key);
	__type(value, __u32);
} blocked_v4 SEC(".maps");

/* verdict counters: [2 * proto] passed, [2 * proto + 1] dropped */
__u64 verdicts[2 * PROTO_MAX] = {};

int tc_tcp(struct __sk_buff *skb);
int tc_udp(struct __sk_buff *skb);

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, PROTO_MAX);
	__uint(key_size, sizeof(__u32));
	__array(values, int (struct __sk_buff *));
} proto_progs SEC(".maps") = {
	.values = {
		[PROTO_TCP] = (void *)&tc_tcp,
		[PROTO_UDP] = (void *)&tc_udp,
	},
};

/* global subprogram: counts a verdict, returns the tc action */
__noinline int tc_count(__u32 proto, int drop)
{
	__u32 idx = 2 * proto + (drop ? 1 : 0);

	if (idx >= 2 * PROTO_MAX)
		return TC_ACT_OK;
	__sync_fetch_and_add(&verdicts[idx], 1);
	return drop ? TC_ACT_SHOT : TC_ACT_OK;
}

/* bpf-to-bpf call: the IPv4 header, or NULL */
static __noinline struct iphdr *ipv4_header(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	struct ethhdr *eth = data;
	struct iphdr *ip = data + sizeof(*eth);

	if ((void *)(ip + 1) > data_end)
		return NULL;
	if (eth->h_proto != bpf_htons(ETH_P_IP))
		return NULL;
	return ip;
}

SEC("tc")
int tc_ingress(struct __sk_buff *skb)
{
	struct ipv4_lpm_key key = { .prefixlen = 32 };
	struct iphdr *ip = ipv4_header(skb);

	if (!ip)
		return TC_ACT_OK;
	key.addr = ip->saddr;
	if (bpf_map_lookup_elem(&blocked_v4, &key))
		return tc_count(PROTO_OTHER, 1);

	if (ip->protocol == IPPROTO_TCP)
		bpf_tail_call(skb, &proto_progs, PROTO_TCP);
	else if (ip->protocol == IPPROTO_UDP)
		bpf_tail_call(skb, &proto_progs, PROTO_UDP);
	return tc_count(PROTO_OTHER, 0);
}

SEC("tc")
int tc_tcp(struct __sk_buff *skb)
{
	return tc_count(PROTO_TCP, 0);
}

SEC("tc")
int tc_udp(struct __sk_buff *skb)
{
	/* drop UDP to the discard port */
	void *data = (void *)(long)skb->data;
	void *data_end = (void *)(long)skb->data_end;
	struct udphdr *udp = data + sizeof(struct ethhdr) + sizeof(struct iphdr);

	if ((void *)(udp + 1) <= data_end && udp->dest == bpf_htons(9))
		return tc_count(PROTO_UDP, 1);
	return tc_count(PROTO_UDP, 0);
}

char LICENSE[] SEC("license") = "GPL";
