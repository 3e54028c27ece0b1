// SPDX-License-Identifier: GPL-2.0
/*
 * sk_lookup_steer: an sk_lookup program that steers TCP connections for a
 * set of local ports (a HASH the application fills) to one listening
 * socket held in a SOCKMAP, the way a multi-port service or a proxy binds
 * many ports to one socket.
 *
 * What loading it needs (sk_lookup_steer.needs): BTF; maps HASH, SOCKMAP
 * (a SOCKMAP needs CAP_NET_ADMIN, which the token stands in for); programs
 * of type SK_LOOKUP with the expected attach type sk_lookup.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_SOCKMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} target_socket SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, __u16);
	__type(value, __u8);
} steered_ports SEC(".maps");

SEC("sk_lookup")
int steer_ports(struct bpf_sk_lookup *ctx)
{
	__u16 port = ctx->local_port;
	struct bpf_sock *sk;
	__u32 zero = 0;
	long err;

	if (ctx->protocol != IPPROTO_TCP)
		return SK_PASS;
	if (!bpf_map_lookup_elem(&steered_ports, &port))
		return SK_PASS;

	sk = bpf_map_lookup_elem(&target_socket, &zero);
	if (!sk)
		return SK_DROP;
	err = bpf_sk_assign(ctx, sk, 0);
	bpf_sk_release(sk);
	return err ? SK_DROP : SK_PASS;
}

char LICENSE[] SEC("license") = "GPL";
