// seed: subprograms, a callback, helpers that read kernel memory, maps of
// every kind libbpf makes (internal, map-in-map, ringbuf), a kconfig extern
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct inner {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} inner1 SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct inner);
} outer SEC(".maps") = { .values = { &inner1 } };

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} rb SEC(".maps");

extern unsigned int LINUX_KERNEL_VERSION __kconfig;
extern int CONFIG_HZ __kconfig __weak;
const volatile __u32 limit = 7;
__u64 counter = 1;
__u64 zeroed;

static __noinline __u64 peek(__u64 addr)
{
	__u64 v = 0;

	bpf_probe_read_kernel(&v, sizeof(v), (void *)addr);
	return v;
}

static int step(__u32 i, void *ctx)
{
	zeroed += bpf_get_current_task() & 1;
	return i > limit;
}

SEC("xdp")
int kmem(struct xdp_md *ctx)
{
	bpf_loop(4, step, NULL, 0);
	counter += peek(ctx->data) + LINUX_KERNEL_VERSION + CONFIG_HZ;
	bpf_ringbuf_output(&rb, &counter, sizeof(counter), 0);
	return XDP_PASS;
}

SEC("?tc")
int off(struct __sk_buff *skb)
{
	return peek(skb->len) ? 0 : 1;
}

char LICENSE[] SEC("license") = "GPL";
