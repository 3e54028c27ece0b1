// SPDX-License-Identifier: GPL-2.0
/*
 * bench: what sections o and a load and do. The BTF blobs and instruction
 * arrays (made before the children are forked), the operations of section
 * o, the table of all operations (section a's are bench_attach.c's), and a
 * batch of one operation, in whichever process runs it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "bench.h"

/* ------------------------------------------------------------------------ */
/* What is loaded: BTF blobs and instruction arrays, made before the fork */

static const void *btf_small, *btf_big;
__u32 btf_small_sz, btf_big_sz;
static struct btf *btf_small_obj, *btf_big_obj;

static struct bpf_insn prog2[2], prog1k[1024];
int prog1k_cnt, btf_big_structs;

static struct bpf_insn insn(__u8 code, __u8 dst, __u8 src, __s16 off, __s32 imm)
{
	struct bpf_insn i = {
		.code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm,
	};
	return i;
}

/* A BTF with @structs struct types of @members int members each; returns
 * its raw size.
 */
static struct btf *make_btf(int structs, int members, const void **raw, __u32 *raw_sz)
{
	char name[32];
	struct btf *btf;
	int int_id, s, m;

	btf = btf__new_empty();
	if (!btf)
		return NULL;
	int_id = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	if (int_id < 0)
		goto err;
	for (s = 0; s < structs; s++) {
		snprintf(name, sizeof(name), "bench_struct_%d", s);
		if (btf__add_struct(btf, name, members * 4) < 0)
			goto err;
		for (m = 0; m < members; m++) {
			snprintf(name, sizeof(name), "field_%d", m);
			if (btf__add_field(btf, name, int_id, m * 32, 0))
				goto err;
		}
	}
	*raw = btf__raw_data(btf, raw_sz);
	if (!*raw)
		goto err;
	return btf;
err:
	btf__free(btf);
	return NULL;
}

int make_payloads(void)
{
	/* helpers of the long program: some for everybody, bpf_jiffies64()
	 * only with CAP_BPF, bpf_get_current_task() only with CAP_PERFMON
	 */
	static const int helpers[] = {
		BPF_FUNC_get_prandom_u32, BPF_FUNC_ktime_get_ns, BPF_FUNC_jiffies64,
		BPF_FUNC_get_smp_processor_id, BPF_FUNC_get_current_task,
	};
	int structs, i, n = 0;

	btf_small_obj = make_btf(1, 2, &btf_small, &btf_small_sz);
	if (!btf_small_obj)
		return -1;
	/* about 100 KiB: 6 members of 12 bytes, a type of 12, names shared */
	for (structs = 1000;; structs += 100) {
		btf__free(btf_big_obj);
		btf_big_obj = make_btf(structs, 6, &btf_big, &btf_big_sz);
		if (!btf_big_obj)
			return -1;
		if (btf_big_sz >= 100 * 1024)
			break;
	}
	btf_big_structs = structs;

	/* r0 = XDP_PASS; exit */
	prog2[0] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, XDP_PASS);
	prog2[1] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);

	/* r6 = 0; 332 x { call helper; r6 += r0; r6 ^= i }; r0 = XDP_PASS; exit */
	prog1k[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_6, 0, 0, 0);
	for (i = 0; i < 332; i++) {
		prog1k[n++] = insn(BPF_JMP | BPF_CALL, 0, 0, 0,
				   helpers[i % (sizeof(helpers) / sizeof(helpers[0]))]);
		prog1k[n++] = insn(BPF_ALU64 | BPF_ADD | BPF_X, BPF_REG_6, BPF_REG_0, 0, 0);
		prog1k[n++] = insn(BPF_ALU64 | BPF_XOR | BPF_K, BPF_REG_6, 0, 0, i);
	}
	prog1k[n++] = insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, XDP_PASS);
	prog1k[n++] = insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	prog1k_cnt = n;
	return 0;
}

/* ------------------------------------------------------------------------ */
/* The operations. run() is timed; prepare() and release() are not. */

static long ret_fd(int fd)
{
	return fd < 0 ? -errno : fd;
}

static void close_fd(long fd, void *prepared)
{
	close((int)fd);
}

static long map_array(int token_fd, void *prepared)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .token_fd = token_fd);

	return ret_fd(bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 8, 16, &opts));
}

static long map_hash(int token_fd, void *prepared)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .token_fd = token_fd);

	return ret_fd(bpf_map_create(BPF_MAP_TYPE_HASH, NULL, 4, 8, 16, &opts));
}

static long btf_load(const void *data, __u32 size, int token_fd)
{
	LIBBPF_OPTS(bpf_btf_load_opts, opts, .token_fd = token_fd);

	return ret_fd(bpf_btf_load(data, size, &opts));
}

static long btf_small_load(int token_fd, void *prepared)
{
	return btf_load(btf_small, btf_small_sz, token_fd);
}

static long btf_big_load(int token_fd, void *prepared)
{
	return btf_load(btf_big, btf_big_sz, token_fd);
}

static long prog_load(const struct bpf_insn *insns, int cnt, int token_fd)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		.expected_attach_type = BPF_XDP,
		.token_fd = token_fd,
	);

	return ret_fd(bpf_prog_load(BPF_PROG_TYPE_XDP, NULL, "GPL", insns, cnt, &opts));
}

static long prog2_load(int token_fd, void *prepared)
{
	return prog_load(prog2, 2, token_fd);
}

static long prog1k_load(int token_fd, void *prepared)
{
	return prog_load(prog1k, prog1k_cnt, token_fd);
}

char obj_path[PATH_MAX];

/* Open the object; token_path "" says "no token" to libbpf (also when
 * LIBBPF_BPF_TOKEN_PATH is set).
 */
static void *obj_open(int token_fd, const char *token_path)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .bpf_token_path = token_path);
	struct bpf_object *obj;

	obj = bpf_object__open_file(obj_path, &opts);
	return obj;		/* NULL with errno on error */
}

static long obj_load(int token_fd, void *prepared)
{
	int err = bpf_object__load(prepared);

	return err < 0 ? err : 0;
}

static void obj_close(long handle, void *prepared)
{
	bpf_object__close(prepared);
}

struct op ops[] = {
	{ "map_create_array", "BPF_MAP_CREATE, array, 16 entries",
	  NULL, map_array, close_fd, 45, false, CHILD_NOBODY },
	{ "map_create_hash", "BPF_MAP_CREATE, hash, 16 entries",
	  NULL, map_hash, close_fd, 45, false, CHILD_NOBODY },
	{ "btf_load_small", "BPF_BTF_LOAD, 1 struct",
	  NULL, btf_small_load, close_fd, 45, false, CHILD_NOBODY },
	{ "btf_load_100k", "BPF_BTF_LOAD, ~100 KiB",
	  NULL, btf_big_load, close_fd, 60, false, CHILD_NOBODY },
	{ "prog_load_xdp_2", "BPF_PROG_LOAD, XDP, 2 insns",
	  NULL, prog2_load, close_fd, 45, false, CHILD_NOBODY },
	{ "prog_load_xdp_1k", "BPF_PROG_LOAD, XDP, ~1000 insns, helpers",
	  NULL, prog1k_load, close_fd, 60, false, CHILD_NOBODY },
	{ "object_load", "bpf_object__load(xdp_token.bpf.o)",
	  obj_open, obj_load, obj_close, 75, false, CHILD_NOBODY },
	{ "cgroup_attach_detach", "BPF_PROG_ATTACH + BPF_PROG_DETACH, cgroup/sock_create",
	  cg_prog_get, cg_attach_detach, keep_prog, 60, true, CHILD_NOBODY },
	{ "cgroup_link_create", "BPF_LINK_CREATE + close, cgroup/sock_create",
	  cg_prog_get, cg_link, keep_prog, 60, true, CHILD_NOBODY },
	{ "xdp_link_create", "BPF_LINK_CREATE + close, XDP on a dummy device",
	  xdp_prog_get, xdp_link, keep_prog, 60, true, CHILD_NET_ADMIN },
	{ "xdp_test_run_live", "BPF_PROG_TEST_RUN, one live XDP frame on a dummy device",
	  xdp_prog_get, xdp_run_live, keep_prog, 60, true, CHILD_NET_ADMIN },
};
_Static_assert(sizeof(ops) / sizeof(ops[0]) == NR_OPS, "NR_OPS is the number of ops[]");

/* Closing what a batch made leaves work to the kernel: maps are freed from
 * a workqueue, programs and BTF after an RCU grace period. On the VM's one
 * CPU that work would land in whichever batch runs next; sleep instead, so
 * that it runs now, while nothing is timed. As long as the batch itself,
 * at least 5 ms (a bit more than one tick at HZ=250).
 */
static void settle(uint64_t batch_ns)
{
	uint64_t ns = batch_ns < 5000000 ? 5000000 : batch_ns;
	struct timespec ts = { .tv_sec = ns / 1000000000, .tv_nsec = ns % 1000000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Run @n times @op; *ns: the time of the run() calls together. */
int run_batch(const struct op *op, int token_fd, const char *token_path,
		     int n, uint64_t *ns)
{
	void *prep[MAX_BATCH] = {};
	long h[MAX_BATCH];
	int i, done = 0, err = 0;
	uint64_t t0 = 0, t1 = 0;

	if (n > MAX_BATCH)
		n = MAX_BATCH;
	for (i = 0; i < n && op->prepare; i++) {
		prep[i] = op->prepare(token_fd, token_path);
		if (!prep[i]) {
			err = -errno ?: -EINVAL;
			n = i;
			goto out;
		}
	}
	t0 = now_ns();
	for (done = 0; done < n; done++) {
		h[done] = op->run(token_fd, prep[done]);
		if (h[done] < 0) {
			err = h[done];
			break;
		}
	}
	t1 = now_ns();
	*ns = t1 - t0;
out:
	for (i = 0; i < n; i++) {
		if (i < done)
			op->release(h[i], prep[i]);
		else if (prep[i])
			op->release(-1, prep[i]);
	}
	settle(t1 - t0);
	return err;
}
