// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup_skb_maps: cgroup_skb ingress/egress programs that keep per-cgroup
 * traffic accounting in maps of maps: an ARRAY_OF_MAPS of ARRAY maps
 * (byte counters, indexed by direction) and a HASH_OF_MAPS of HASH maps
 * (packets per IPv4 protocol, keyed by direction). Totals in a HASH whose
 * value holds a bpf_spin_lock, updated under the lock.
 *
 * What loading it needs (cgroup_skb_maps.needs): BTF (the spin lock's map
 * needs it); maps HASH, ARRAY, ARRAY_OF_MAPS, HASH_OF_MAPS (libbpf creates
 * an inner map of each inner type first, as the outer map's template);
 * programs of type CGROUP_SKB with the expected attach types
 * cgroup_inet_ingress and cgroup_inet_egress.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define ETH_P_IP 0x0800

struct byte_counters {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} in_bytes SEC(".maps"), out_bytes SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 2);
	__type(key, __u32);
	__array(values, struct byte_counters);
} bytes_by_dir SEC(".maps") = {
	.values = { &in_bytes, &out_bytes },
};

struct proto_counters {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, __u8);
	__type(value, __u64);
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH_OF_MAPS);
	__uint(max_entries, 2);
	__type(key, __u32);
	__array(values, struct proto_counters);
} protos_by_dir SEC(".maps");

struct totals {
	struct bpf_spin_lock lock;
	__u64 packets;
	__u64 bytes;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct totals);
} totals SEC(".maps");

static __always_inline void account(struct __sk_buff *skb, __u32 dir)
{
	struct totals *t, zero = {};
	void *inner;
	__u64 *cnt, one = 1;
	__u32 key = 0;
	__u8 proto;

	inner = bpf_map_lookup_elem(&bytes_by_dir, &dir);
	if (inner) {
		cnt = bpf_map_lookup_elem(inner, &key);
		if (cnt)
			__sync_fetch_and_add(cnt, skb->len);
	}

	if (skb->protocol == bpf_htons(ETH_P_IP) &&
	    !bpf_skb_load_bytes(skb, offsetof(struct iphdr, protocol), &proto, 1)) {
		inner = bpf_map_lookup_elem(&protos_by_dir, &dir);
		if (inner) {
			cnt = bpf_map_lookup_elem(inner, &proto);
			if (cnt)
				__sync_fetch_and_add(cnt, 1);
			else
				bpf_map_update_elem(inner, &proto, &one, BPF_NOEXIST);
		}
	}

	t = bpf_map_lookup_elem(&totals, &dir);
	if (!t) {
		bpf_map_update_elem(&totals, &dir, &zero, BPF_NOEXIST);
		t = bpf_map_lookup_elem(&totals, &dir);
		if (!t)
			return;
	}
	bpf_spin_lock(&t->lock);
	t->packets++;
	t->bytes += skb->len;
	bpf_spin_unlock(&t->lock);
}

SEC("cgroup_skb/ingress")
int skb_ingress(struct __sk_buff *skb)
{
	account(skb, 0);
	return 1;
}

SEC("cgroup_skb/egress")
int skb_egress(struct __sk_buff *skb)
{
	account(skb, 1);
	return 1;
}

char LICENSE[] SEC("license") = "GPL";
