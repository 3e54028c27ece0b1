// seed: struct_ops map and programs, declared here
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct sock;
struct tcp_congestion_ops {
	__u32 (*ssthresh)(struct sock *sk);
	void (*cong_avoid)(struct sock *sk, __u32 ack, __u32 acked);
	char name[16];
};

SEC("struct_ops/ssthresh")
__u32 ssthresh(unsigned long long *ctx)
{
	return 2;
}

SEC("struct_ops/cong_avoid")
void cong_avoid(unsigned long long *ctx)
{
}

SEC(".struct_ops")
struct tcp_congestion_ops seed_ops = {
	.ssthresh = (void *)ssthresh,
	.cong_avoid = (void *)cong_avoid,
	.name = "seed",
};

char LICENSE[] SEC("license") = "GPL";
