// seed: freplace, fentry, cgroup programs, kfunc and ksym externs, a global
// function called through a relocation
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

extern void bpf_rcu_read_lock(void) __ksym __weak;
extern const int bpf_prog_active __ksym __weak;

__noinline int global_fn(int x)
{
	return x * 3;
}

SEC("freplace/handler")
int repl(struct __sk_buff *skb)
{
	return global_fn(skb->len);
}

SEC("fentry/bpf_fentry_test1")
int fent(unsigned long long *ctx)
{
	if (bpf_rcu_read_lock)
		bpf_rcu_read_lock();
	return (long)&bpf_prog_active & 1;
}

SEC("cgroup_skb/egress")
int egress(struct __sk_buff *skb)
{
	return global_fn(skb->protocol) & 1;
}

SEC("sk_lookup")
int lookup(struct bpf_sk_lookup *ctx)
{
	return SK_PASS;
}

char LICENSE[] SEC("license") = "GPL";
