// SPDX-License-Identifier: GPL-2.0
/*
 * bench: what a BPF token costs.
 *
 *   bench [-q] [-o RESULTS.json] [-t TABLE.txt] [-p PROGS_DIR] [-b BPFTOOL]
 *         [-n TOKENS] [-m OTHERS] [-s SECTIONS]
 *
 * Runs as root on the patched kernel (scripts/bench.sh boots it once and
 * runs this in the VM), with BPF FS at /sys/fs/bpf and cgroup v2 at
 * /sys/fs/cgroup. Four sections (-s, a subset of "oalm"; default all):
 *
 * o  operations: BPF_MAP_CREATE (array, hash), BPF_BTF_LOAD (small, 100 KiB),
 *    BPF_PROG_LOAD (2 instructions, ~1000 instructions with helpers), and
 *    bpf_object__load() of PROGS_DIR/xdp_token.bpf.o, each done three ways:
 *    "cap" (root, no token), "token" (root, through a token) and "nobody"
 *    (uid/gid 65534, no capabilities, through the same token; a forked child
 *    that gets its orders over a pipe). One round times one batch of each
 *    way, the three batches in a different order in each round (all six
 *    orders in turn), around the batch only (CLOCK_MONOTONIC). Rounds go on
 *    until the median of the per-round ratios token/cap and nobody/cap moved
 *    by less than 0.5% over the last six rounds (at least 24 rounds, at most
 *    120 or the time budget of the operation). After each batch the program
 *    sleeps while the kernel frees what the batch made (see settle()).
 *
 * a  attach: what the attach scope check of a program loaded through a token
 *    costs. BPF_PROG_ATTACH + BPF_PROG_DETACH of a cgroup/sock_create
 *    program on a cgroup, BPF_LINK_CREATE + close of a cgroup/sock_create
 *    link on it, and BPF_LINK_CREATE + close of an XDP link on a dummy
 *    device, each done three ways like the operations above: "cap" (root
 *    attaches a program loaded without a token: no check), "token" (root
 *    attaches a program loaded through a token scoped to that cgroup, within
 *    the scope: the check) and "checked" (a task without CAP_SYS_ADMIN
 *    attaches a program it loaded through the token: nothing but the check
 *    lets it through). The checked task is nobody for the cgroup operations, and for
 *    XDP, which needs CAP_NET_ADMIN over the device's network namespace, a
 *    root child that dropped CAP_SYS_ADMIN and nothing else.
 *
 * l  `bpftool token list` with N tokens (N = 10, 100, 1000, TOKENS) pinned
 *    among OTHERS other pins (one array map pinned OTHERS times), spread over
 *    100 nested directories on two BPF FS mounts (/sys/fs/bpf and a second
 *    instance mounted by this program). A round times: list with the N
 *    tokens, the floor (this program's own loop of BPF_OBJ_GET +
 *    BPF_OBJ_GET_INFO_BY_FD + close over the N token pins), and list with the
 *    N tokens unlinked (the same walk over the others alone), in alternating
 *    order. Cost per token = (list with N - list without) / N. Two more
 *    references explain bpftool's cost: the floor plus bpftool's type check
 *    (readlink of /proc/self/fd/N), and a minimal C lister (readdir() with
 *    d_type, open read-only, type check, info, no output) timed like
 *    bpftool, with and without the tokens. `bpftool token show PATH` (one
 *    token) is timed too, and `bpftool version` for the cost of a run.
 *
 * m  memory and create rate: /proc/meminfo's Slab: and /proc/slabinfo before
 *    and after creating TOKENS tokens (BPF_TOKEN_CREATE, which also pins).
 *
 * For profiling: -P OP,WAY,COUNT runs only COUNT operations OP the way WAY
 * (cap, token, and nobody or net_admin as the table names it); -k only pins the OTHERS objects and TOKENS tokens
 * (section l's tree) and leaves them, e.g. for `perf record bpftool token
 * list`.
 *
 * Prints a table on stdout (and into TABLE.txt) and writes RESULTS.json (see
 * Documentation/benchmarks.md). -q: a quick run (fewer rounds, smaller N)
 * to check that everything works; its numbers mean little.
 * Exit status: 0 if every measurement was made, 1 if one failed (the table
 * and the JSON then say which, with the error).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <net/if.h>
#include <sys/capability.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

extern char **environ;

#define NOBODY		65534
#define BPFFS		"/sys/fs/bpf"
#define BPFFS2		"/run/bench-bpffs"
#define OPS_DIR		BPFFS "/bench-ops"
#define OPS_TOKEN	OPS_DIR "/token"
#define ATTACH_TOKEN	OPS_DIR "/attach-token"
#define CGROUP_ROOT	"/sys/fs/cgroup"
#define SCOPE_CGROUP	CGROUP_ROOT "/bench-scope"	/* the attach token's scope */
#define KEEP_CGROUP	CGROUP_ROOT "/bench-keep"	/* its sibling, see attach_setup() */
#define XDP_DEV		"bench-xdp0"
#define ATTACH_BUDGET	1.02	/* the most the attach check may cost: checked/cap */
#define MAX_BATCH	512
#define MAX_ROUNDS	120

static struct {
	const char *out;
	const char *table;
	const char *progs_dir;
	const char *bpftool;
	bool quick;
	int max_tokens;
	int others;
	const char *sections;
	const char *profile;	/* -P OP,WAY,COUNT */
	bool keep;		/* -k */
} cfg = {
	.progs_dir = "build/progs",
	.bpftool = "build/bpftool/bpftool",
	.max_tokens = 10000,
	.others = 10000,
	.sections = "oalm",
};

static int failures;
static char clocksource[64] = "unknown";

static void msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ------------------------------------------------------------------------ */
/* Statistics over rounds */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Quantile q (0..1) of v[0..n), linear between the order statistics */
static double quantile(const double *v, int n, double q)
{
	double s[MAX_ROUNDS * 4 + 64], pos;
	int i;

	if (n <= 0)
		return 0;
	if (n > (int)(sizeof(s) / sizeof(s[0])))
		n = sizeof(s) / sizeof(s[0]);
	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	pos = q * (n - 1);
	i = (int)pos;
	if (i >= n - 1)
		return s[n - 1];
	return s[i] + (pos - i) * (s[i + 1] - s[i]);
}

static double median(const double *v, int n)
{
	return quantile(v, n, 0.5);
}

/* Interquartile range relative to the median */
static double rel_iqr(const double *v, int n)
{
	double m = median(v, n);

	return m ? (quantile(v, n, 0.75) - quantile(v, n, 0.25)) / m : 0;
}

/* ------------------------------------------------------------------------ */
/* libbpf's messages: kept, printed only when something fails */

static char lib_log[8192];
static size_t lib_log_len;

static int print_cb(enum libbpf_print_level level, const char *fmt, va_list args)
{
	size_t room = sizeof(lib_log) - lib_log_len;
	int n;

	if (level == LIBBPF_DEBUG)
		return 0;
	if (room < 2) {
		/* keep the latest messages */
		lib_log_len = 0;
		room = sizeof(lib_log);
	}
	n = vsnprintf(lib_log + lib_log_len, room, fmt, args);
	if (n > 0)
		lib_log_len += (size_t)n < room ? (size_t)n : room - 1;
	return n;
}

static void dump_lib_log(void)
{
	if (lib_log_len)
		fprintf(stderr, "libbpf said:\n%s", lib_log);
	lib_log_len = 0;
	lib_log[0] = '\0';
}

/* ------------------------------------------------------------------------ */
/* What is loaded: BTF blobs and instruction arrays, made before the fork */

static const void *btf_small, *btf_big;
static __u32 btf_small_sz, btf_big_sz;
static struct btf *btf_small_obj, *btf_big_obj;

static struct bpf_insn prog2[2], prog1k[1024];
static int prog1k_cnt, btf_big_structs;

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

static int make_payloads(void)
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

enum { CHILD_NOBODY, CHILD_NET_ADMIN, NR_CHILD };
static const char *const child_name[NR_CHILD] = { "nobody", "net_admin" };

struct op {
	const char *name;
	const char *what;
	void *(*prepare)(int token_fd, const char *token_path);
	long (*run)(int token_fd, void *prepared);
	void (*release)(long handle, void *prepared);
	double budget_s;	/* time for the rounds of this operation */
	bool attach;		/* section a: through the attach token */
	int checker;		/* the task of the third way */
};

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

static char obj_path[PATH_MAX];

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

/* Section a. What the attach operations work on, set up by the parent
 * before the children are forked (attach_setup()); the children inherit
 * the fds and the device's index.
 */
static int scope_cg_fd = -1, keep_cg_fd = -1, xdp_ifindex;
static int attach_token_fd = -1;
static int keep_cg_prog = -1, keep_xdp_prog = -1, keep_xdp_link = -1;
static bool attach_ready, keep_cg_attached, xdp_dev_made;

/* The programs the attach operations attach, loaded once per process and
 * way, outside the timing: [0] without a token (cap), [1] through the
 * attach token (token and the checked ways).
 */
static int cg_prog[2] = { -1, -1 }, xdp_prog[2] = { -1, -1 };

static const struct bpf_insn ret_allow[] = {	/* cgroup/sock_create: r0 = 1 */
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 1 },
	{ .code = BPF_JMP | BPF_EXIT },
};
static const struct bpf_insn ret_pass[] = {	/* XDP: r0 = XDP_PASS */
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = XDP_PASS },
	{ .code = BPF_JMP | BPF_EXIT },
};

static void close_fd_var(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int load_attach_prog(enum bpf_prog_type type, enum bpf_attach_type eat,
			    const struct bpf_insn *insns, int token_fd)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		.expected_attach_type = eat,
		.token_fd = token_fd,
	);

	return bpf_prog_load(type, NULL, "GPL", insns, 2, &opts);
}

static void *cached_prog(int *cache, enum bpf_prog_type type, enum bpf_attach_type eat,
			 const struct bpf_insn *insns, int token_fd)
{
	int *fd = &cache[token_fd > 0];

	if (*fd < 0) {
		int ret = load_attach_prog(type, eat, insns, token_fd);

		if (ret < 0) {
			errno = -ret;
			return NULL;
		}
		*fd = ret;
	}
	return fd;
}

static void *cg_prog_get(int token_fd, const char *token_path)
{
	return cached_prog(cg_prog, BPF_PROG_TYPE_CGROUP_SOCK, BPF_CGROUP_INET_SOCK_CREATE,
			   ret_allow, token_fd);
}

static void *xdp_prog_get(int token_fd, const char *token_path)
{
	return cached_prog(xdp_prog, BPF_PROG_TYPE_XDP, BPF_XDP, ret_pass, token_fd);
}

/* The program stays loaded for the next batch */
static void keep_prog(long handle, void *prepared)
{
}

static long cg_attach_detach(int token_fd, void *prepared)
{
	int prog_fd = *(int *)prepared, err;

	err = bpf_prog_attach(prog_fd, scope_cg_fd, BPF_CGROUP_INET_SOCK_CREATE,
			      BPF_F_ALLOW_MULTI);
	if (err)
		return err;
	return bpf_prog_detach2(prog_fd, scope_cg_fd, BPF_CGROUP_INET_SOCK_CREATE);
}

static long link_create_close(int prog_fd, int target, enum bpf_attach_type type)
{
	int fd = bpf_link_create(prog_fd, target, type, NULL);

	if (fd < 0)
		return fd;
	/* the link's file is released before close() returns to us: the
	 * detach is timed too
	 */
	close(fd);
	return 0;
}

static long cg_link(int token_fd, void *prepared)
{
	return link_create_close(*(int *)prepared, scope_cg_fd, BPF_CGROUP_INET_SOCK_CREATE);
}

static long xdp_link(int token_fd, void *prepared)
{
	return link_create_close(*(int *)prepared, xdp_ifindex, BPF_XDP);
}

/* A test run that reaches a device: one live XDP frame that enters the
 * dummy device's stack (XDP_PASS), the token's netns check included
 */
static long xdp_run_live(int token_fd, void *prepared)
{
	struct xdp_md ctx = { .data_end = 64, .ingress_ifindex = xdp_ifindex };
	LIBBPF_OPTS(bpf_test_run_opts, opts,
		.ctx_in = &ctx,
		.ctx_size_in = sizeof(ctx),
		.flags = BPF_F_TEST_XDP_LIVE_FRAMES,
		.repeat = 1,
	);
	unsigned char pkt[64] = { 0 };

	opts.data_in = pkt;
	opts.data_size_in = sizeof(pkt);
	return bpf_prog_test_run_opts(*(int *)prepared, &opts);
}

static struct op ops[] = {
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
#define NR_OPS ((int)(sizeof(ops) / sizeof(ops[0])))

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
static int run_batch(const struct op *op, int token_fd, const char *token_path,
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

/* ------------------------------------------------------------------------ */
/* The checked side: children forked before any timing that take their
 * orders over a pipe and time their own batches. "nobody" has uid and gid
 * 65534, no groups and no capabilities at all; "net_admin" is root without
 * CAP_SYS_ADMIN (in any set) and with every other capability: the task that
 * may attach XDP on the device only because the target's rule allows it.
 */

struct req {
	int op;			/* index in ops[], -1: exit */
	int n;
};

struct resp {
	int err;
	uint64_t ns;
};
static int drop_privileges(void)
{
	cap_t caps;
	int i;

	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return -1;
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	caps = cap_init();
	if (!caps || cap_clear(caps) || cap_set_proc(caps))
		return -1;
	cap_free(caps);
	for (i = 0; i <= CAP_LAST_CAP; i++)
		if (prctl(PR_CAPBSET_READ, i, 0, 0, 0) == 1)
			prctl(PR_CAPBSET_DROP, i, 0, 0, 0);
	/* make sure */
	caps = cap_get_proc();
	if (!caps)
		return -1;
	for (i = 0; i <= CAP_LAST_CAP; i++) {
		cap_flag_value_t e, p;

		if (cap_get_flag(caps, i, CAP_EFFECTIVE, &e) ||
		    cap_get_flag(caps, i, CAP_PERMITTED, &p) || e || p) {
			cap_free(caps);
			errno = EPERM;
			return -1;
		}
	}
	cap_free(caps);
	return getuid() == NOBODY && geteuid() == NOBODY ? 0 : -1;
}

static bool full_io(int fd, void *buf, size_t len, bool wr)
{
	char *p = buf;

	while (len) {
		ssize_t n = wr ? write(fd, p, len) : read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		len -= n;
	}
	return true;
}

/* Root without CAP_SYS_ADMIN: dropped from the bounding, inheritable,
 * permitted and effective sets (no ambient ones); everything else stays.
 */
static int drop_sys_admin(void)
{
	cap_value_t sys_admin = CAP_SYS_ADMIN;
	cap_flag_value_t e = CAP_CLEAR, p = CAP_CLEAR, net = CAP_CLEAR;
	cap_t caps;

	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (prctl(PR_CAPBSET_DROP, CAP_SYS_ADMIN, 0, 0, 0))
		return -1;
	caps = cap_get_proc();
	if (!caps || cap_set_flag(caps, CAP_EFFECTIVE, 1, &sys_admin, CAP_CLEAR) ||
	    cap_set_flag(caps, CAP_PERMITTED, 1, &sys_admin, CAP_CLEAR) ||
	    cap_set_flag(caps, CAP_INHERITABLE, 1, &sys_admin, CAP_CLEAR) ||
	    cap_set_proc(caps)) {
		cap_free(caps);
		return -1;
	}
	cap_free(caps);
	/* make sure */
	caps = cap_get_proc();
	if (!caps)
		return -1;
	if (cap_get_flag(caps, CAP_SYS_ADMIN, CAP_EFFECTIVE, &e) ||
	    cap_get_flag(caps, CAP_SYS_ADMIN, CAP_PERMITTED, &p) ||
	    cap_get_flag(caps, CAP_NET_ADMIN, CAP_EFFECTIVE, &net) || e || p || !net ||
	    prctl(PR_CAPBSET_READ, CAP_SYS_ADMIN, 0, 0, 0) != 0) {
		cap_free(caps);
		errno = EPERM;
		return -1;
	}
	cap_free(caps);
	return 0;
}

static const char *scope_note(bool restricted)
{
	return restricted ? "attached the token's program outside the token's cgroup scope" :
			    "could not attach the token's program outside its scope";
}

/* Whether this task runs the attach check: the attach token's program on
 * the sibling of the token's cgroup is refused (EPERM) to a task that runs
 * it and attached for root. Returns 0 if it is as @restricted says.
 */
static int check_attach_rule(bool restricted)
{
	int *prog_fd = cg_prog_get(attach_token_fd, ATTACH_TOKEN);
	int err;

	if (!prog_fd)
		return -errno;
	err = bpf_prog_attach(*prog_fd, keep_cg_fd, BPF_CGROUP_INET_SOCK_CREATE,
			      BPF_F_ALLOW_MULTI);
	if (!err) {
		bpf_prog_detach2(*prog_fd, keep_cg_fd, BPF_CGROUP_INET_SOCK_CREATE);
		return restricted ? -EINVAL : 0;
	}
	if (restricted && err == -EPERM)
		return 0;
	return restricted ? err : -EINVAL;
}

static void child_main(int kind, int rfd, int wfd)
{
	struct resp rsp = {};
	struct req rq;
	int token_fd = -1, i;

	/* the parent's programs and keepers are the parent's: this task
	 * attaches programs it loads itself
	 */
	close_fd_var(&keep_xdp_link);
	close_fd_var(&keep_xdp_prog);
	close_fd_var(&keep_cg_prog);
	for (i = 0; i < 2; i++) {
		close_fd_var(&cg_prog[i]);
		close_fd_var(&xdp_prog[i]);
	}

	if (kind == CHILD_NOBODY ? drop_privileges() : drop_sys_admin()) {
		rsp.err = -(errno ?: EPERM);
		msg("%s: dropping privileges: %s", child_name[kind], strerror(-rsp.err));
		goto out;
	}
	/* using a token needs it opened read-write */
	token_fd = bpf_obj_get(OPS_TOKEN);
	if (token_fd < 0) {
		rsp.err = -errno;
		msg("%s: opening %s: %s", child_name[kind], OPS_TOKEN, strerror(errno));
		goto out;
	}
	if (attach_ready) {
		close_fd_var(&attach_token_fd);
		attach_token_fd = bpf_obj_get(ATTACH_TOKEN);
		if (attach_token_fd < 0) {
			rsp.err = -errno;
			msg("%s: opening %s: %s", child_name[kind], ATTACH_TOKEN, strerror(errno));
			goto out;
		}
		rsp.err = check_attach_rule(true);
		if (rsp.err) {
			msg("%s: %s: %s", child_name[kind], scope_note(false), strerror(-rsp.err));
			dump_lib_log();
			goto out;
		}
	}
out:
	/* the first answer says whether the child is ready */
	if (!full_io(wfd, &rsp, sizeof(rsp), true) || rsp.err)
		_exit(1);
	while (full_io(rfd, &rq, sizeof(rq), false) && rq.op >= 0 && rq.op < NR_OPS) {
		const struct op *op = &ops[rq.op];

		rsp.ns = 0;
		rsp.err = run_batch(op, op->attach ? attach_token_fd : token_fd,
				    op->attach ? ATTACH_TOKEN : OPS_TOKEN, rq.n, &rsp.ns);
		if (rsp.err)
			dump_lib_log();
		if (!full_io(wfd, &rsp, sizeof(rsp), true))
			break;
	}
	_exit(0);
}

static struct child {
	pid_t pid;
	int to, from;
} children[NR_CHILD] = { { 0, -1, -1 }, { 0, -1, -1 } };

static int start_child(int kind)
{
	struct child *c = &children[kind];
	struct resp rsp = {};
	int a[2], b[2];

	if (pipe2(a, O_CLOEXEC) || pipe2(b, O_CLOEXEC))
		return -1;
	fflush(NULL);
	c->pid = fork();
	if (c->pid < 0)
		return -1;
	if (!c->pid) {
		close(a[1]);
		close(b[0]);
		child_main(kind, a[0], b[1]);
	}
	close(a[0]);
	close(b[1]);
	c->to = a[1];
	c->from = b[0];
	if (full_io(c->from, &rsp, sizeof(rsp), false) && !rsp.err)
		return 0;
	/* the child said why on stderr, and exits */
	close(c->to);
	close(c->from);
	waitpid(c->pid, NULL, 0);
	c->pid = 0;
	errno = rsp.err ? -rsp.err : EPIPE;
	return -1;
}

static void stop_child(int kind)
{
	struct child *c = &children[kind];
	struct req rq = { .op = -1 };

	if (c->pid <= 0)
		return;
	full_io(c->to, &rq, sizeof(rq), true);
	close(c->to);
	close(c->from);
	waitpid(c->pid, NULL, 0);
	c->pid = 0;
}

/* ------------------------------------------------------------------------ */
/* Sections o and a: operations */

enum { V_CAP, V_TOKEN, V_CHECKED, NR_V };
static int ops_token_fd = -1;

static const char *way_name(const struct op *op, int v)
{
	return v == V_CAP ? "cap" : v == V_TOKEN ? "token" : child_name[op->checker];
}

static int measure(int v, int op, int n, uint64_t *ns)
{
	const struct op *o = &ops[op];
	const struct child *c = &children[o->checker];
	struct req rq = { .op = op, .n = n };
	struct resp rsp;

	switch (v) {
	case V_CAP:
		return run_batch(o, 0, "", n, ns);
	case V_TOKEN:
		return run_batch(o, o->attach ? attach_token_fd : ops_token_fd,
				 o->attach ? ATTACH_TOKEN : OPS_TOKEN, n, ns);
	default:
		if (c->pid <= 0 || !full_io(c->to, &rq, sizeof(rq), true) ||
		    !full_io(c->from, &rsp, sizeof(rsp), false))
			return -EPIPE;
		*ns = rsp.ns;
		return rsp.err;
	}
}

struct op_result {
	int err;
	int err_v;
	int rounds, batch;
	bool stable;
	double ns[NR_V][MAX_ROUNDS];		/* per round, ns per operation */
	double ratio[NR_V][MAX_ROUNDS];		/* per round, against cap */
	double med[NR_V], spread[NR_V];		/* ns: median, IQR/median */
	double rmed[NR_V], rspread[NR_V];	/* ratio: median, IQR/median */
};

static struct op_result op_res[NR_OPS];

/* All six orders of the three ways, one per round in turn */
static const int orders[6][NR_V] = {
	{ 0, 1, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 0, 2, 1 }, { 2, 1, 0 }, { 1, 0, 2 },
};

static void bench_op(int i)
{
	struct op_result *r = &op_res[i];
	const struct op *op = &ops[i];
	int min_rounds = cfg.quick ? 6 : 24, max_rounds = cfg.quick ? 6 : MAX_ROUNDS;
	double budget = cfg.quick ? 5 : op->budget_s, target_ns = cfg.quick ? 5e6 : 10e6;
	uint64_t ns, t_start;
	int v, k, w, n;

	/* warm-up (caches, libbpf's feature probes), then a batch size
	 * for about target_ns per batch, from the slowest way's median
	 */
	for (w = 0; w < 5; w++) {
		for (v = 0; v < NR_V; v++) {
			r->err = measure(v, i, 1, &ns);
			if (r->err) {
				r->err_v = v;
				msg("%s (%s): %s", op->name, way_name(op, v), strerror(-r->err));
				dump_lib_log();
				failures++;
				return;
			}
			r->ns[v][w] = ns;
		}
	}
	for (v = 0, ns = 0; v < NR_V; v++)
		if (median(r->ns[v], 5) > ns)
			ns = median(r->ns[v], 5);
	n = ns ? (int)(target_ns / ns) : MAX_BATCH;
	r->batch = n < 1 ? 1 : n > MAX_BATCH ? MAX_BATCH : n;

	t_start = now_ns();
	for (k = 0; k < max_rounds; k++) {
		for (w = 0; w < NR_V; w++) {
			v = orders[k % 6][w];
			r->err = measure(v, i, r->batch, &ns);
			if (r->err) {
				r->err_v = v;
				msg("%s (%s): %s", op->name, way_name(op, v), strerror(-r->err));
				dump_lib_log();
				failures++;
				return;
			}
			r->ns[v][k] = (double)ns / r->batch;
		}
		for (v = 0; v < NR_V; v++)
			r->ratio[v][k] = r->ns[v][k] / r->ns[V_CAP][k];
		r->rounds = k + 1;

		if (r->rounds >= min_rounds && r->rounds % 6 == 0) {
			bool stable = true;

			for (v = V_TOKEN; v < NR_V; v++) {
				double now = median(r->ratio[v], r->rounds);
				double before = median(r->ratio[v], r->rounds - 6);

				if (now <= 0 || (now > before ? now - before : before - now) / now > 0.005)
					stable = false;
			}
			r->stable = stable;
			if (stable || (now_ns() - t_start) / 1e9 > budget)
				break;
		}
	}
	for (v = 0; v < NR_V; v++) {
		r->med[v] = median(r->ns[v], r->rounds);
		r->spread[v] = rel_iqr(r->ns[v], r->rounds);
		r->rmed[v] = median(r->ratio[v], r->rounds);
		r->rspread[v] = rel_iqr(r->ratio[v], r->rounds);
	}
}

/* Run "ip ARGS..." and wait for it; returns its exit status, -1 if it did
 * not run or exit.
 */
static int run_ip(const char *const *args)
{
	char *argv[8];
	int i, status;
	pid_t pid;

	argv[0] = "ip";
	for (i = 0; args[i] && i < 6; i++)
		argv[i + 1] = (char *)args[i];
	argv[i + 1] = NULL;
	fflush(NULL);
	if (posix_spawnp(&pid, "ip", NULL, NULL, argv, environ))
		return -1;
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Section a's targets, token and keepers, made by root before the children
 * are forked.
 */
static int attach_setup(void)
{
	LIBBPF_OPTS(bpf_token_create_opts, topts,
		.token_flags = BPF_F_TOKEN_CGROUP,
		.allowed_cmds = 1ULL << BPF_PROG_LOAD,
		.allowed_prog_types = 1ULL << BPF_PROG_TYPE_CGROUP_SOCK |
				      1ULL << BPF_PROG_TYPE_XDP,
		.allowed_attach_types = 1ULL << BPF_CGROUP_INET_SOCK_CREATE | 1ULL << BPF_XDP,
	);
	static const char *const add_dev[] = { "link", "add", XDP_DEV, "type", "dummy", NULL };
	static const char *const del_dev[] = { "link", "del", XDP_DEV, NULL };
	struct statfs st;
	int err, lo;

	if (statfs(CGROUP_ROOT, &st) || st.f_type != CGROUP2_SUPER_MAGIC)
		return msg("Error: no cgroup v2 file system at " CGROUP_ROOT), -1;
	if ((mkdir(SCOPE_CGROUP, 0755) && errno != EEXIST) ||
	    (mkdir(KEEP_CGROUP, 0755) && errno != EEXIST))
		return msg("Error: mkdir in " CGROUP_ROOT ": %s", strerror(errno)), -1;
	scope_cg_fd = open(SCOPE_CGROUP, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	keep_cg_fd = open(KEEP_CGROUP, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (scope_cg_fd < 0 || keep_cg_fd < 0)
		return msg("Error: opening the cgroups: %s", strerror(errno)), -1;

	/* the token: programs cgroup_sock and xdp, attach types
	 * cgroup_inet_sock_create and xdp, scope SCOPE_CGROUP
	 */
	topts.cgroup_fd = scope_cg_fd;
	unlink(ATTACH_TOKEN);
	err = bpf_token_create(AT_FDCWD, ATTACH_TOKEN, &topts);
	if (err)
		return msg("Error: creating %s: %s", ATTACH_TOKEN, strerror(-err)), -1;
	if (chmod(ATTACH_TOKEN, 0666))
		return msg("Error: chmod %s: %s", ATTACH_TOKEN, strerror(errno)), -1;
	attach_token_fd = bpf_obj_get(ATTACH_TOKEN);
	if (attach_token_fd < 0)
		return msg("Error: opening %s: %s", ATTACH_TOKEN, strerror(errno)), -1;

	/* The first program of an attach type attached to any cgroup, and the
	 * first generic XDP program on any device, switch a static key on,
	 * which rewrites kernel text; the last one detached switches it off.
	 * So that the timed attaches and detaches count no such rewrite, one
	 * program of each kind stays attached while the section runs: on the
	 * scope's sibling (not an ancestor, whose programs would be in the
	 * scope's effective array) and on lo.
	 */
	keep_cg_prog = load_attach_prog(BPF_PROG_TYPE_CGROUP_SOCK, BPF_CGROUP_INET_SOCK_CREATE,
					ret_allow, 0);
	if (keep_cg_prog < 0)
		return msg("Error: loading a cgroup/sock_create program: %s",
			   strerror(-keep_cg_prog)), -1;
	err = bpf_prog_attach(keep_cg_prog, keep_cg_fd, BPF_CGROUP_INET_SOCK_CREATE,
			      BPF_F_ALLOW_MULTI);
	if (err)
		return msg("Error: attaching to " KEEP_CGROUP ": %s", strerror(-err)), -1;
	keep_cg_attached = true;
	keep_xdp_prog = load_attach_prog(BPF_PROG_TYPE_XDP, BPF_XDP, ret_pass, 0);
	if (keep_xdp_prog < 0)
		return msg("Error: loading an XDP program: %s", strerror(-keep_xdp_prog)), -1;
	lo = if_nametoindex("lo");
	keep_xdp_link = lo ? bpf_link_create(keep_xdp_prog, lo, BPF_XDP, NULL) : -ENODEV;
	if (keep_xdp_link < 0)
		return msg("Error: an XDP link on lo: %s", strerror(-keep_xdp_link)), -1;

	/* the XDP links' device, a new one */
	if (if_nametoindex(XDP_DEV))
		run_ip(del_dev);
	if (run_ip(add_dev))
		return msg("Error: ip link add " XDP_DEV " type dummy failed"), -1;
	xdp_dev_made = true;
	xdp_ifindex = if_nametoindex(XDP_DEV);
	if (!xdp_ifindex)
		return msg("Error: " XDP_DEV ": %s", strerror(errno)), -1;

	/* root is not restricted */
	err = check_attach_rule(false);
	if (err)
		return msg("Error: root %s: %s", scope_note(false), strerror(-err)), -1;
	attach_ready = true;
	return 0;
}

static void attach_teardown(void)
{
	static const char *const del_dev[] = { "link", "del", XDP_DEV, NULL };
	int i;

	if (keep_cg_attached)
		bpf_prog_detach2(keep_cg_prog, keep_cg_fd, BPF_CGROUP_INET_SOCK_CREATE);
	keep_cg_attached = false;
	close_fd_var(&keep_xdp_link);
	close_fd_var(&keep_xdp_prog);
	close_fd_var(&keep_cg_prog);
	for (i = 0; i < 2; i++) {
		close_fd_var(&cg_prog[i]);
		close_fd_var(&xdp_prog[i]);
	}
	close_fd_var(&attach_token_fd);
	close_fd_var(&scope_cg_fd);
	close_fd_var(&keep_cg_fd);
	if (xdp_dev_made)
		run_ip(del_dev);
	xdp_dev_made = false;
	attach_ready = false;
	unlink(ATTACH_TOKEN);
	rmdir(SCOPE_CGROUP);
	rmdir(KEEP_CGROUP);
}

static void ops_teardown(void)
{
	int c;

	for (c = 0; c < NR_CHILD; c++)
		stop_child(c);
	close_fd_var(&ops_token_fd);
	unlink(OPS_TOKEN);
	attach_teardown();
	rmdir(OPS_DIR);
}

/* The tokens, payloads and children of sections o and a; with @attach,
 * also section a's targets and the net_admin child.
 */
static int ops_setup(bool attach)
{
	LIBBPF_OPTS(bpf_token_create_opts, topts,
		.allowed_cmds = 1ULL << BPF_MAP_CREATE | 1ULL << BPF_BTF_LOAD |
				1ULL << BPF_PROG_LOAD,
		.allowed_map_types = 1ULL << BPF_MAP_TYPE_ARRAY | 1ULL << BPF_MAP_TYPE_HASH,
		/* a tracing type too: the long program calls
		 * bpf_get_current_task(), which the kernel reserves to
		 * CAP_PERFMON, and a token stands in for that only if it
		 * allows a tracing program type
		 */
		.allowed_prog_types = 1ULL << BPF_PROG_TYPE_XDP | 1ULL << BPF_PROG_TYPE_TRACEPOINT,
		.allowed_attach_types = 1ULL << BPF_XDP,
	);
	int c, err;

	snprintf(obj_path, sizeof(obj_path), "%s/xdp_token.bpf.o", cfg.progs_dir);
	if (access(obj_path, R_OK)) {
		msg("Error: %s: %s", obj_path, strerror(errno));
		return -1;
	}
	if (make_payloads()) {
		msg("Error: making the BTF and programs: %s", strerror(errno));
		return -1;
	}
	if (mkdir(OPS_DIR, 0755) && errno != EEXIST) {
		msg("Error: mkdir %s: %s", OPS_DIR, strerror(errno));
		return -1;
	}
	unlink(OPS_TOKEN);
	err = bpf_token_create(AT_FDCWD, OPS_TOKEN, &topts);
	if (err) {
		msg("Error: creating %s: %s", OPS_TOKEN, strerror(-err));
		return -1;
	}
	/* nobody uses it: it needs write access */
	if (chmod(OPS_TOKEN, 0666)) {
		msg("Error: chmod %s: %s", OPS_TOKEN, strerror(errno));
		return -1;
	}
	ops_token_fd = bpf_obj_get(OPS_TOKEN);
	if (ops_token_fd < 0) {
		msg("Error: opening %s: %s", OPS_TOKEN, strerror(errno));
		return -1;
	}
	if (attach && attach_setup())
		return -1;
	for (c = 0; c < (attach ? NR_CHILD : 1); c++) {
		if (start_child(c)) {
			msg("Error: starting the %s process: %s", child_name[c], strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int section_ops(void)
{
	bool data = strchr(cfg.sections, 'o'), attach = strchr(cfg.sections, 'a');
	int i;

	if (ops_setup(attach)) {
		ops_teardown();
		return -1;
	}
	for (i = 0; i < NR_OPS; i++) {
		if (ops[i].attach ? !attach : !data)
			continue;
		msg("bench: %s ...", ops[i].name);
		bench_op(i);
	}
	ops_teardown();
	return 0;
}

/* -P OP,WAY,COUNT: only COUNT batches of one OP, one WAY (cap, token, or
 * the op's checked task: nobody or net_admin), e.g. under strace or perf.
 */
static int profile_op(const char *spec)
{
	char name[64], way[16];
	int i, v, count, k, err = 0;
	uint64_t ns, total = 0;

	if (sscanf(spec, "%63[^,],%15[^,],%d", name, way, &count) != 3 || count < 1)
		return msg("Error: -P wants OP,WAY,COUNT"), -1;
	for (i = 0; i < NR_OPS && strcmp(ops[i].name, name); i++)
		;
	if (i == NR_OPS)
		return msg("Error: unknown operation %s", name), -1;
	for (v = 0; v < NR_V && strcmp(way_name(&ops[i], v), way); v++)
		;
	if (v == NR_V)
		return msg("Error: %s is done as cap, token or %s, not %s", name,
			   way_name(&ops[i], V_CHECKED), way), -1;
	if (ops_setup(ops[i].attach)) {
		ops_teardown();
		return -1;
	}
	for (k = 0; k < count && !err; k++) {
		err = measure(v, i, 1, &ns);
		total += ns;
	}
	if (err)
		msg("Error: %s (%s): %s", name, way, strerror(-err));
	else
		printf("%s %s: %.0f ns per operation\n", name, way, (double)total / count);
	ops_teardown();
	return err;
}

/* ------------------------------------------------------------------------ */
/* Sections l and m: many pins */

#define LEAVES 100

static char *token_paths;	/* max_tokens paths of PATH_LEN */
#define PATH_LEN 96
#define TOKEN_PATH(k) (token_paths + (size_t)(k) * PATH_LEN)
static int tokens_present;	/* tokens 0 .. tokens_present-1 exist */
static bool bpffs2_mounted;

/* Leaf directory l: alternately on either mount, three levels deep */
static void leaf_dir(int l, char *buf, size_t sz)
{
	snprintf(buf, sz, "%s/bench/a%d/b%d", l % 2 ? BPFFS2 : BPFFS, (l / 2) / 10,
		 (l / 2) % 10);
}

static int mkdir_p(const char *path)
{
	char buf[PATH_MAX], *p;

	snprintf(buf, sizeof(buf), "%s", path);
	for (p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(buf, 0755) && errno != EEXIST ? -1 : 0;
}

static int setup_tree(void)
{
	char dir[48], path[PATH_LEN];
	int l, k, map_fd;

	if (mkdir(BPFFS2, 0755) && errno != EEXIST)
		return msg("Error: mkdir %s: %s", BPFFS2, strerror(errno)), -1;
	if (mount("bpf", BPFFS2, "bpf", 0, NULL))
		return msg("Error: mounting a BPF FS on %s: %s", BPFFS2, strerror(errno)), -1;
	bpffs2_mounted = true;
	for (l = 0; l < LEAVES; l++) {
		leaf_dir(l, dir, sizeof(dir));
		if (mkdir_p(dir))
			return msg("Error: mkdir %s: %s", dir, strerror(errno)), -1;
	}
	map_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, NULL, 4, 4, 1, NULL);
	if (map_fd < 0)
		return msg("Error: creating the map: %s", strerror(errno)), -1;
	for (k = 0; k < cfg.others; k++) {
		leaf_dir(k % LEAVES, dir, sizeof(dir));
		snprintf(path, sizeof(path), "%s/map%05d", dir, k);
		if (bpf_obj_pin(map_fd, path)) {
			msg("Error: pinning %s: %s", path, strerror(errno));
			close(map_fd);
			return -1;
		}
	}
	close(map_fd);

	token_paths = calloc(cfg.max_tokens, PATH_LEN);
	if (!token_paths)
		return msg("Error: out of memory"), -1;
	for (k = 0; k < cfg.max_tokens; k++) {
		leaf_dir(k % LEAVES, dir, sizeof(dir));
		snprintf(TOKEN_PATH(k), PATH_LEN, "%s/tok%05d", dir, k);
	}
	return 0;
}

static void teardown_runroot(void);

static void remove_tree(void)
{
	char dir[48], path[PATH_LEN];
	int l, k;

	for (k = 0; k < tokens_present; k++)
		unlink(TOKEN_PATH(k));
	tokens_present = 0;
	for (k = 0; k < cfg.others; k++) {
		leaf_dir(k % LEAVES, dir, sizeof(dir));
		snprintf(path, sizeof(path), "%s/map%05d", dir, k);
		unlink(path);
	}
	for (l = 0; l < LEAVES; l++) {
		leaf_dir(l, dir, sizeof(dir));
		rmdir(dir);
	}
	for (l = 0; l < LEAVES; l++) {
		leaf_dir(l, dir, sizeof(dir));
		*strrchr(dir, '/') = '\0';
		rmdir(dir);
		*strrchr(dir, '/') = '\0';
		rmdir(dir);
	}
	teardown_runroot();
	if (bpffs2_mounted && !umount(BPFFS2))
		rmdir(BPFFS2);
	free(token_paths);
}

/* Make tokens 0..n-1 exist and no others; *ns: the time of the creations */
static int set_tokens(int n, uint64_t *ns)
{
	LIBBPF_OPTS(bpf_token_create_opts, opts,
		.allowed_cmds = 1ULL << BPF_MAP_CREATE | 1ULL << BPF_PROG_LOAD,
		.allowed_map_types = 1ULL << BPF_MAP_TYPE_ARRAY,
		.allowed_prog_types = 1ULL << BPF_PROG_TYPE_XDP,
		.allowed_attach_types = 1ULL << BPF_XDP,
	);
	uint64_t t0;
	int err;

	while (tokens_present > n)
		unlink(TOKEN_PATH(--tokens_present));
	t0 = now_ns();
	while (tokens_present < n) {
		err = bpf_token_create(AT_FDCWD, TOKEN_PATH(tokens_present), &opts);
		if (err) {
			msg("Error: creating token %s: %s", TOKEN_PATH(tokens_present),
			    strerror(-err));
			return err;
		}
		tokens_present++;
	}
	if (ns)
		*ns = now_ns() - t0;
	return 0;
}

/* bpftool runs from a copy on tmpfs, in a chroot: exec'ing it from the
 * guest's root, the host's / over 9p, waits for the host (lookups, reads),
 * and under QEMU's icount a wait is virtual time that depends on the host's
 * load. The chroot holds bpftool, the libraries ldd names, /dev/null, /proc
 * and both BPF FS, bind-mounted at their own paths (bpftool walks the bpf
 * mounts of /proc/mounts, which inside the chroot are just these two).
 */
#define RUNROOT "/tmp/bench-root"
static bool runroot;
static const char *const runroot_mnts[] = { "/proc", BPFFS, BPFFS2 };

static int copy_file(const char *src, const char *dst)
{
	char buf[65536];
	int in, out, ret = 0;
	ssize_t n;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -1;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (out < 0) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n) {
			ret = -1;
			break;
		}
	if (n < 0)
		ret = -1;
	close(in);
	if (close(out))
		ret = -1;
	return ret;
}

/* Copy @path to the same path under RUNROOT */
static int copy_into_root(const char *path)
{
	char dst[PATH_MAX], dir[PATH_MAX];

	snprintf(dst, sizeof(dst), RUNROOT "%s", path);
	snprintf(dir, sizeof(dir), "%s", dst);
	*strrchr(dir, '/') = '\0';
	if (mkdir_p(dir) || copy_file(path, dst))
		return msg("Error: copying %s to %s: %s", path, dst, strerror(errno)), -1;
	return 0;
}

static void teardown_runroot(void)
{
	char path[PATH_MAX];
	int i;

	for (i = 2; runroot && i >= 0; i--) {
		snprintf(path, sizeof(path), RUNROOT "%s", runroot_mnts[i]);
		umount2(path, MNT_DETACH);
	}
	runroot = false;
}

static int setup_runroot(void)
{
	char cmd[PATH_MAX + 16], line[PATH_MAX + 64], path[PATH_MAX], *p, *e;
	int i, err = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ldd %s", cfg.bpftool);
	f = popen(cmd, "r");
	if (!f)
		return msg("Error: %s: %s", cmd, strerror(errno)), -1;
	while (fgets(line, sizeof(line), f) && !err) {
		/* "libz.so.1 => /lib/.../libz.so.1 (0x...)", "/lib64/ld-... (0x...)" */
		p = strchr(line, '/');
		if (!p)
			continue;
		e = p + strcspn(p, " \t\n");
		*e = '\0';
		err = copy_into_root(p);
	}
	if (pclose(f) || err)
		return msg("Error: %s failed", cmd), -1;
	if (copy_file(cfg.bpftool, RUNROOT "/bpftool"))
		return msg("Error: copying %s: %s", cfg.bpftool, strerror(errno)), -1;
	if (mkdir_p(RUNROOT "/dev") ||
	    (mknod(RUNROOT "/dev/null", S_IFCHR | 0666, makedev(1, 3)) && errno != EEXIST))
		return msg("Error: " RUNROOT "/dev/null: %s", strerror(errno)), -1;
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), RUNROOT "%s", runroot_mnts[i]);
		if (mkdir_p(path))
			return msg("Error: mkdir %s: %s", path, strerror(errno)), -1;
		if (i ? mount(runroot_mnts[i], path, NULL, MS_BIND, NULL) :
			mount("proc", path, "proc", 0, NULL)) {
			msg("Error: mounting %s: %s", path, strerror(errno));
			teardown_runroot();
			return -1;
		}
		runroot = true;
	}
	return 0;
}

/* Run bpftool with @args (NULL-terminated, after argv[0]) in RUNROOT;
 * stdout to @out_fd (-1: /dev/null). Returns its exit status, -1 if it did
 * not exit.
 */
static int run_bpftool(const char *const *args, int out_fd, uint64_t *ns)
{
	char *argv[16];
	int i, status, rc = -1;
	uint64_t t0;
	pid_t pid;

	argv[0] = "bpftool";
	for (i = 0; args[i] && i < 14; i++)
		argv[i + 1] = (char *)args[i];
	argv[i + 1] = NULL;

	t0 = now_ns();
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		int fd = out_fd >= 0 ? out_fd : open("/dev/null", O_WRONLY);

		if (fd < 0 || dup2(fd, 1) < 0 || chroot(RUNROOT) || chdir("/"))
			_exit(126);
		execve("/bpftool", argv, environ);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) == pid) {
		if (ns)
			*ns = now_ns() - t0;
		rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	}
	return rc;
}

/* How many tokens `bpftool token list` shows: lines that start with '/' */
static int count_listed(void)
{
	static const char *const args[] = { "token", "list", NULL };
	char line[PATH_MAX + 64];
	int fd, cnt = 0;
	FILE *f;

	fd = memfd_create("bench-list", 0);
	if (fd < 0)
		return -1;
	if (run_bpftool(args, fd, NULL) != 0) {
		close(fd);
		return -1;
	}
	lseek(fd, 0, SEEK_SET);
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -1;
	}
	while (fgets(line, sizeof(line), f))
		if (line[0] == '/')
			cnt++;
	fclose(f);
	return cnt;
}

/* Is @fd a BPF token? The way bpftool tells: the name of its anon inode */
static bool fd_is_token(int fd)
{
	char path[64], buf[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n < 0)
		return false;
	buf[n] = '\0';
	return !strcmp(buf, "anon_inode:bpf-token");
}

/* The floor: what any lister has to do per token it knows of; with
 * @check also bpftool's test of the object's type.
 */
static int floor_loop(int n, bool check, uint64_t *ns)
{
	struct bpf_token_info info;
	uint64_t t0 = now_ns();
	__u32 len;
	int k, fd;

	for (k = 0; k < n; k++) {
		fd = bpf_obj_get(TOKEN_PATH(k));
		if (fd < 0)
			return -errno;
		if (check && !fd_is_token(fd)) {
			close(fd);
			return -EINVAL;
		}
		len = sizeof(info);
		memset(&info, 0, sizeof(info));
		if (bpf_obj_get_info_by_fd(fd, &info, &len)) {
			int err = -errno;

			close(fd);
			return err;
		}
		close(fd);
	}
	*ns = now_ns() - t0;
	return 0;
}

/* A minimal lister: readdir() (d_type, no stat) down both mounts, open each
 * file read-only by its full path (as bpftool does), keep the tokens' info,
 * print nothing. Returns the number of tokens found.
 */
static int lister_dir(char *path, size_t len)
{
	LIBBPF_OPTS(bpf_obj_get_opts, opts, .file_flags = BPF_F_RDONLY);
	struct bpf_token_info info;
	struct dirent *de;
	int fd, found = 0;
	__u32 info_len;
	size_t n;
	DIR *d;

	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_REG))
			continue;
		n = strlen(de->d_name);
		if (len + 1 + n + 1 > PATH_MAX)
			continue;
		path[len] = '/';
		memcpy(path + len + 1, de->d_name, n + 1);
		if (de->d_type == DT_DIR) {
			found += lister_dir(path, len + 1 + n);
		} else {
			fd = bpf_obj_get_opts(path, &opts);
			if (fd >= 0) {
				if (fd_is_token(fd)) {
					info_len = sizeof(info);
					if (!bpf_obj_get_info_by_fd(fd, &info, &info_len))
						found++;
				}
				close(fd);
			}
		}
		path[len] = '\0';
	}
	closedir(d);
	return found;
}

static int lister(uint64_t *ns)
{
	static const char *const roots[] = { BPFFS, BPFFS2 };
	char path[PATH_MAX];
	uint64_t t0 = now_ns();
	int i, found = 0;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s", roots[i]);
		found += lister_dir(path, strlen(path));
	}
	*ns = now_ns() - t0;
	return found;
}

#define MAX_STEPS 4
#define LIST_ROUNDS 25

struct list_result {
	int tokens;
	int err;
	const char *what;	/* what failed */
	int rounds;
	double list[LIST_ROUNDS], empty[LIST_ROUNDS], floor[LIST_ROUNDS];
	double marginal[LIST_ROUNDS];	/* us per token, per round */
	double check[LIST_ROUNDS];	/* floor + type check, us per token */
	double lst[LIST_ROUNDS], lst_empty[LIST_ROUNDS], lst_marginal[LIST_ROUNDS];
	double list_ms, empty_ms, show_ms, us_per_token, floor_us, spread, floor_spread;
	double check_us, lister_ms, lister_empty_ms, lister_us;
};

static struct list_result list_res[MAX_STEPS];
static int nr_steps;
static double spawn_ms;			/* `bpftool version` */
static double create_samples[LIST_ROUNDS * MAX_STEPS + 1];
static int nr_create_samples;

static void list_step(struct list_result *r)
{
	static const char *const list_args[] = { "token", "list", NULL };
	const char *show_args[] = { "token", "show", NULL, NULL };
	int min_rounds = cfg.quick ? 3 : 7, max_rounds = cfg.quick ? 3 : LIST_ROUNDS;
	double budget = cfg.quick ? 10 : 150, show[LIST_ROUNDS];
	int n = r->tokens, k, cnt;
	uint64_t ns, t_start;

	if (set_tokens(n, NULL)) {
		r->err = -1, r->what = "token create";
		return;
	}
	/* the list must be right before its time means anything */
	cnt = count_listed();
	if (cnt != n) {
		msg("Error: bpftool token list showed %d tokens, expected %d", cnt, n);
		r->err = -1, r->what = "token list output";
		return;
	}
	show_args[2] = TOKEN_PATH(0);

	t_start = now_ns();
	for (k = 0; k < max_rounds; k++) {
		bool empty_first = k % 2;
		int pass;

		for (pass = 0; pass < 2; pass++) {
			if (pass == empty_first) {
				/* with the tokens: list, show one, the floor */
				if (run_bpftool(list_args, -1, &ns)) {
					r->err = -1, r->what = "token list";
					return;
				}
				r->list[k] = ns / 1e6;
				if (run_bpftool(show_args, -1, &ns)) {
					r->err = -1, r->what = "token show";
					return;
				}
				show[k] = ns / 1e6;
				if (floor_loop(n, false, &ns)) {
					r->err = -1, r->what = "floor loop";
					return;
				}
				r->floor[k] = ns / 1e3 / n;
				if (floor_loop(n, true, &ns)) {
					r->err = -1, r->what = "floor loop with type check";
					return;
				}
				r->check[k] = ns / 1e3 / n;
				if (lister(&ns) != n) {
					r->err = -1, r->what = "minimal lister";
					return;
				}
				r->lst[k] = ns / 1e6;
			} else {
				/* the same walk without the tokens */
				if (set_tokens(0, NULL)) {
					r->err = -1, r->what = "token unlink";
					return;
				}
				if (run_bpftool(list_args, -1, &ns)) {
					r->err = -1, r->what = "token list (no tokens)";
					return;
				}
				r->empty[k] = ns / 1e6;
				if (lister(&ns) != 0) {
					r->err = -1, r->what = "minimal lister (no tokens)";
					return;
				}
				r->lst_empty[k] = ns / 1e6;
				if (set_tokens(n, &ns)) {
					r->err = -1, r->what = "token create";
					return;
				}
				if (n >= 1000 && nr_create_samples < (int)(sizeof(create_samples) /
									  sizeof(create_samples[0])))
					create_samples[nr_create_samples++] = n / (ns / 1e9);
			}
		}
		r->marginal[k] = (r->list[k] - r->empty[k]) * 1e3 / n;
		r->lst_marginal[k] = (r->lst[k] - r->lst_empty[k]) * 1e3 / n;
		r->rounds = k + 1;
		if (r->rounds >= min_rounds && r->rounds % 2) {
			double now = median(r->marginal, r->rounds);
			double before = median(r->marginal, r->rounds - 2);
			double d = now > before ? now - before : before - now;

			if ((now > 0 && d / now < 0.01) || (now_ns() - t_start) / 1e9 > budget)
				break;
		}
	}
	r->list_ms = median(r->list, r->rounds);
	r->empty_ms = median(r->empty, r->rounds);
	r->show_ms = median(show, r->rounds);
	r->us_per_token = median(r->marginal, r->rounds);
	r->spread = rel_iqr(r->marginal, r->rounds);
	r->floor_us = median(r->floor, r->rounds);
	r->floor_spread = rel_iqr(r->floor, r->rounds);
	r->check_us = median(r->check, r->rounds);
	r->lister_ms = median(r->lst, r->rounds);
	r->lister_empty_ms = median(r->lst_empty, r->rounds);
	r->lister_us = median(r->lst_marginal, r->rounds);
}

/* Memory */
struct mem {
	long slab_kb;
	int ncaches;
	struct cache {
		char name[64];
		long objs, objsize, bytes;
	} caches[512];
};

static struct mem mem_before, mem_after;
static long bytes_per_token = -1;
static double create_first_per_s;

static int read_mem(struct mem *m)
{
	char line[512];
	FILE *f;

	memset(m, 0, sizeof(*m));
	m->slab_kb = -1;
	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld kB", &m->slab_kb) == 1)
			break;
	fclose(f);
	f = fopen("/proc/slabinfo", "r");
	if (!f)
		return m->slab_kb < 0 ? -1 : 0;	/* no per-cache numbers */
	while (fgets(line, sizeof(line), f) && m->ncaches < 512) {
		struct cache *c = &m->caches[m->ncaches];
		long active, objperslab, pages, aslabs, nslabs;

		if (sscanf(line, "%63s %ld %ld %ld %ld %ld : tunables %*d %*d %*d : slabdata %ld %ld",
			   c->name, &active, &c->objs, &c->objsize, &objperslab, &pages,
			   &aslabs, &nslabs) != 8)
			continue;
		c->bytes = nslabs * pages * sysconf(_SC_PAGESIZE);
		m->ncaches++;
	}
	fclose(f);
	return m->slab_kb < 0 ? -1 : 0;
}

static const struct cache *find_cache(const struct mem *m, const char *name)
{
	int i;

	for (i = 0; i < m->ncaches; i++)
		if (!strcmp(m->caches[i].name, name))
			return &m->caches[i];
	return NULL;
}

/* Caches that grew, largest growth first */
struct growth {
	const char *name;
	long bytes, objs, objsize;
};
static struct growth growths[8];
static int nr_growths;

static void cache_growths(void)
{
	int i, j;

	for (i = 0; i < mem_after.ncaches; i++) {
		const struct cache *a = &mem_after.caches[i], *b = find_cache(&mem_before, a->name);
		struct growth g = {
			.name = a->name,
			.bytes = a->bytes - (b ? b->bytes : 0),
			.objs = a->objs - (b ? b->objs : 0),
			.objsize = a->objsize,
		};

		if (g.objs < cfg.max_tokens / 2)
			continue;
		for (j = nr_growths; j > 0 && growths[j - 1].bytes < g.bytes; j--)
			if (j < 8)
				growths[j] = growths[j - 1];
		if (j < 8) {
			growths[j] = g;
			if (nr_growths < 8)
				nr_growths++;
		}
	}
}

static int section_memory(void)
{
	uint64_t ns;
	int n = cfg.max_tokens;

	if (set_tokens(0, NULL))
		return -1;
	sync();
	if (read_mem(&mem_before))
		return msg("Error: reading /proc/meminfo"), -1;
	if (set_tokens(n, &ns))
		return -1;
	if (read_mem(&mem_after))
		return msg("Error: reading /proc/meminfo"), -1;
	create_first_per_s = n / (ns / 1e9);
	create_samples[nr_create_samples++] = create_first_per_s;
	bytes_per_token = (mem_after.slab_kb - mem_before.slab_kb) * 1024 / n;
	cache_growths();
	return 0;
}

static int section_list(void)
{
	static const char *const version_args[] = { "version", NULL };
	double v[9];
	uint64_t ns;
	int i, last = 0, steps[MAX_STEPS] = { 10, 100, 1000, cfg.max_tokens };

	if (setup_runroot())
		return -1;
	for (i = 0; i < 9; i++) {
		if (run_bpftool(version_args, -1, &ns))
			return msg("Error: %s version failed", cfg.bpftool), -1;
		v[i] = ns / 1e6;
	}
	spawn_ms = median(v, 9);

	for (i = 0; i < MAX_STEPS; i++) {
		if (steps[i] > cfg.max_tokens || steps[i] <= last)
			continue;
		last = steps[i];
		list_res[nr_steps].tokens = steps[i];
		msg("bench: token list, %d tokens ...", steps[i]);
		list_step(&list_res[nr_steps]);
		if (list_res[nr_steps].err)
			failures++;
		nr_steps++;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Output */

static void print_table(FILE *f)
{
	int i;

	if (strchr(cfg.sections, 'o')) {
		fprintf(f, "\nOperations: ns per operation, median over rounds; ratio = token path / capability path\n"
			   "(median of the per-round ratios), spread = IQR/median of those ratios. BTF: %u and\n"
			   "%u bytes (%d structs); programs: 2 and %d instructions.\n\n",
			btf_small_sz, btf_big_sz, btf_big_structs, prog1k_cnt);
		fprintf(f, "%-18s %11s %11s %7s %6s %11s %7s %6s %6s %5s\n", "operation", "cap ns",
			"token ns", "ratio", "spread", "nobody ns", "ratio", "spread", "rounds", "batch");
		for (i = 0; i < NR_OPS; i++) {
			const struct op_result *r = &op_res[i];

			if (ops[i].attach)
				continue;
			if (r->err) {
				fprintf(f, "%-18s failed (%s): %s\n", ops[i].name,
					way_name(&ops[i], r->err_v), strerror(-r->err));
				continue;
			}
			fprintf(f, "%-18s %11.0f %11.0f %7.3f %5.1f%% %11.0f %7.3f %5.1f%% %5d%s %5d\n",
				ops[i].name, r->med[V_CAP], r->med[V_TOKEN], r->rmed[V_TOKEN],
				r->rspread[V_TOKEN] * 100, r->med[V_CHECKED], r->rmed[V_CHECKED],
				r->rspread[V_CHECKED] * 100, r->rounds, r->stable ? " " : "*",
				r->batch);
		}
		fprintf(f, "(* = not stable within 0.5%% before the time budget ran out)\n");
	}
	if (strchr(cfg.sections, 'a')) {
		fprintf(f, "\nAttach: ns per attach and detach (cgroup_attach_detach: BPF_PROG_ATTACH + BPF_PROG_DETACH;\n"
			   "the others: BPF_LINK_CREATE + close), median over rounds; cgroup " SCOPE_CGROUP ",\n"
			   "dummy device " XDP_DEV ". cap = root attaches a program loaded without a token (no check);\n"
			   "token = root attaches a program loaded through a token scoped to the cgroup, within\n"
			   "the scope (the check); checked = a task without CAP_SYS_ADMIN attaches a program it\n"
			   "loaded through that token (only the check lets it through): nobody, or net_admin (root\n"
			   "without CAP_SYS_ADMIN). Ratios against cap as above; budget: checked ratio <= %.2f.\n\n",
			ATTACH_BUDGET);
		fprintf(f, "%-20s %9s %9s %7s %6s %10s %7s %6s %-9s %6s %5s %6s\n", "operation",
			"cap ns", "token ns", "ratio", "spread", "checked ns", "ratio", "spread", "as",
			"rounds", "batch", "budget");
		for (i = 0; i < NR_OPS; i++) {
			const struct op_result *r = &op_res[i];

			if (!ops[i].attach)
				continue;
			if (r->err) {
				fprintf(f, "%-20s failed (%s): %s\n", ops[i].name,
					way_name(&ops[i], r->err_v), strerror(-r->err));
				continue;
			}
			fprintf(f, "%-20s %9.0f %9.0f %7.3f %5.1f%% %10.0f %7.3f %5.1f%% %-9s %5d%s %5d %6s\n",
				ops[i].name, r->med[V_CAP], r->med[V_TOKEN], r->rmed[V_TOKEN],
				r->rspread[V_TOKEN] * 100, r->med[V_CHECKED], r->rmed[V_CHECKED],
				r->rspread[V_CHECKED] * 100, child_name[ops[i].checker], r->rounds,
				r->stable ? " " : "*", r->batch,
				r->rmed[V_CHECKED] <= ATTACH_BUDGET ? "met" : "MISSED");
		}
		fprintf(f, "(* = not stable within 0.5%% before the time budget ran out)\n");
	}
	if (strchr(cfg.sections, 'l')) {
		fprintf(f, "\nbpftool token list: %d other pins, 2 BPF FS, 100 directories; one bpftool run\n"
			   "costs %.1f ms (`bpftool version`). us/token = (list - list without the tokens) / tokens;\n"
			   "floor = BPF_OBJ_GET + BPF_OBJ_GET_INFO_BY_FD + close per token pin, +check = the floor\n"
			   "and bpftool's type check (readlink of /proc/self/fd/N); lister = a minimal C lister\n"
			   "(readdir with d_type, open, check, info, no output), per token like us/token.\n\n",
			cfg.others, spawn_ms);
		fprintf(f, "%7s %7s %8s %8s %8s %8s %6s %8s %7s %8s %8s %8s %6s\n", "tokens", "others",
			"list ms", "empty ms", "show ms", "us/token", "spread", "floor us", "x floor",
			"+check", "lister", "lst ms", "rounds");
		for (i = 0; i < nr_steps; i++) {
			const struct list_result *r = &list_res[i];

			if (r->err) {
				fprintf(f, "%7d %7d failed: %s\n", r->tokens, cfg.others, r->what);
				continue;
			}
			fprintf(f, "%7d %7d %8.1f %8.1f %8.1f %8.1f %5.1f%% %8.1f %7.2f %8.1f %8.1f %8.1f %6d\n",
				r->tokens, cfg.others, r->list_ms, r->empty_ms, r->show_ms,
				r->us_per_token, r->spread * 100, r->floor_us,
				r->floor_us ? r->us_per_token / r->floor_us : 0, r->check_us,
				r->lister_us, r->lister_ms, r->rounds);
		}
	}
	if (strchr(cfg.sections, 'm')) {
		fprintf(f, "\ntoken create: %.0f tokens/s (median of %d batches of >= 1000, first batch %.0f/s)\n",
			median(create_samples, nr_create_samples), nr_create_samples,
			create_first_per_s);
		fprintf(f, "kernel memory per token (Slab: in /proc/meminfo, %d tokens): %ld bytes\n",
			cfg.max_tokens, bytes_per_token);
		for (i = 0; i < nr_growths; i++)
			fprintf(f, "  %-24s %+8ld objects of %4ld bytes, %+9ld bytes of slabs (%ld per token)\n",
				growths[i].name, growths[i].objs, growths[i].objsize,
				growths[i].bytes, growths[i].bytes / cfg.max_tokens);
	}
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}


/* The rest of an operation's JSON object (after its name): the times of
 * cap, token and the third way (WHO: table 1's "nobody", the attach
 * table's "checked"), with the keys each table has always had; the attach
 * table adds whether the budget was met.
 */
static void op_json(FILE *f, const struct op *op, const struct op_result *r,
		    const char *who, bool budget)
{
	/* table 1 spells the third way's keys token_nobody_ns, ratio_nobody,
	 * spread_nobody; the attach table checked_ns, ratio_checked,
	 * spread_checked
	 */
	bool nobody = !strcmp(who, "nobody");

	if (r->err) {
		fprintf(f, "\"error\": ");
		json_str(f, strerror(-r->err));
		fprintf(f, ", \"failed_as\": \"%s\", \"cap_ns\": null, \"token_ns\": null, "
			   "\"ratio\": null, \"spread\": null", way_name(op, r->err_v));
		if (budget)
			fprintf(f, ", \"%s_ns\": null, \"ratio_%s\": null, \"spread_%s\": null, "
				   "\"within_budget\": null", who, who, who);
		fprintf(f, "}");
		return;
	}
	fprintf(f, "\"cap_ns\": %.0f, \"token_ns\": %.0f, \"ratio\": %.4f, \"spread\": %.4f, "
		   "\"%s%s_ns\": %.0f, \"ratio_%s\": %.4f, \"spread_%s\": %.4f, "
		   "\"cap_spread\": %.4f, \"token_spread\": %.4f, \"%s_spread\": %.4f, "
		   "\"rounds\": %d, \"batch\": %d, \"stable\": %s",
		r->med[V_CAP], r->med[V_TOKEN], r->rmed[V_TOKEN], r->rspread[V_TOKEN],
		nobody ? "token_" : "", who, r->med[V_CHECKED], who, r->rmed[V_CHECKED],
		who, r->rspread[V_CHECKED],
		r->spread[V_CAP], r->spread[V_TOKEN], who, r->spread[V_CHECKED],
		r->rounds, r->batch, r->stable ? "true" : "false");
	if (budget)
		fprintf(f, ", \"within_budget\": %s",
			r->rmed[V_CHECKED] <= ATTACH_BUDGET ? "true" : "false");
	fprintf(f, "}");
}

static int write_json(const char *path)
{
	struct utsname u;
	FILE *f;
	int i, n;

	f = fopen(path, "w");
	if (!f)
		return msg("Error: %s: %s", path, strerror(errno)), -1;
	uname(&u);
	fprintf(f, "{\n  \"kernel\": ");
	json_str(f, u.release);
	fprintf(f, ",\n  \"clocksource\": ");
	json_str(f, clocksource);
	fprintf(f, ",\n  \"quick\": %s,\n  \"btf_small_bytes\": %u,\n  \"btf_big_bytes\": %u,\n"
		   "  \"prog_long_insns\": %d,\n  \"ops\": [", cfg.quick ? "true" : "false",
		btf_small_sz, btf_big_sz, prog1k_cnt);
	for (i = 0, n = 0; strchr(cfg.sections, 'o') && i < NR_OPS; i++) {
		const struct op_result *r = &op_res[i];

		if (ops[i].attach)
			continue;
		fprintf(f, "%s\n    {\"name\": \"%s\", ", n++ ? "," : "", ops[i].name);
		op_json(f, &ops[i], r, "nobody", false);
	}
	fprintf(f, "\n  ],\n  \"attach_budget\": %.2f,\n  \"attach\": [", ATTACH_BUDGET);
	for (i = 0, n = 0; strchr(cfg.sections, 'a') && i < NR_OPS; i++) {
		const struct op_result *r = &op_res[i];

		if (!ops[i].attach)
			continue;
		fprintf(f, "%s\n    {\"name\": \"%s\", \"checked_as\": \"%s\", ", n++ ? "," : "",
			ops[i].name, child_name[ops[i].checker]);
		op_json(f, &ops[i], r, "checked", true);
	}
	fprintf(f, "\n  ],\n  \"list\": [");
	for (i = 0; i < nr_steps; i++) {
		const struct list_result *r = &list_res[i];

		fprintf(f, "%s\n    {\"tokens\": %d, \"others\": %d, ", i ? "," : "", r->tokens,
			cfg.others);
		if (r->err) {
			fprintf(f, "\"error\": ");
			json_str(f, r->what);
			fprintf(f, ", \"us_per_token\": null, \"floor_us_per_token\": null}");
			continue;
		}
		fprintf(f, "\"us_per_token\": %.2f, \"floor_us_per_token\": %.2f, \"spread\": %.4f, "
			   "\"floor_spread\": %.4f, \"list_ms\": %.2f, \"list_without_tokens_ms\": %.2f, "
			   "\"show_ms\": %.2f, \"floor_check_us_per_token\": %.2f, "
			   "\"lister_us_per_token\": %.2f, \"lister_ms\": %.2f, "
			   "\"lister_without_tokens_ms\": %.2f, \"rounds\": %d}",
			r->us_per_token, r->floor_us, r->spread, r->floor_spread, r->list_ms,
			r->empty_ms, r->show_ms, r->check_us, r->lister_us, r->lister_ms,
			r->lister_empty_ms, r->rounds);
	}
	fprintf(f, "\n  ],\n  \"bpftool_run_ms\": %.2f,\n", spawn_ms);
	if (strchr(cfg.sections, 'm') && bytes_per_token >= 0) {
		fprintf(f, "  \"create_per_s\": %.0f,\n  \"create_first_per_s\": %.0f,\n"
			   "  \"bytes_per_token\": %ld,\n  \"slab_growth\": [",
			median(create_samples, nr_create_samples), create_first_per_s,
			bytes_per_token);
		for (i = 0; i < nr_growths; i++)
			fprintf(f, "%s\n    {\"cache\": \"%s\", \"objects\": %ld, \"objsize\": %ld, "
				   "\"bytes\": %ld}", i ? "," : "", growths[i].name, growths[i].objs,
				growths[i].objsize, growths[i].bytes);
		fprintf(f, "\n  ]\n}\n");
	} else {
		fprintf(f, "  \"create_per_s\": null,\n  \"bytes_per_token\": null\n}\n");
	}
	return fclose(f) ? -1 : 0;
}

/* Timing with the jiffies clocksource (what a TCG guest falls back to when
 * it cannot calibrate the TSC) has a resolution of 1/HZ: refuse it.
 */
static int check_clocksource(void)
{
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");

	if (f) {
		if (fscanf(f, "%63s", clocksource) != 1)
			strcpy(clocksource, "unknown");
		fclose(f);
	}
	if (strstr(clocksource, "jiffies")) {
		msg("Error: the clocksource is %s, too coarse to time anything (under TCG, boot "
		    "with tsc_early_khz=HOST_TSC_KHZ tsc=reliable: scripts/bench.sh does)", clocksource);
		return -1;
	}
	return 0;
}

static void usage(const char *prog, int status)
{
	fprintf(status ? stderr : stdout, "usage: %s [-q] [-o RESULTS.json] [-t TABLE.txt] [-p PROGS_DIR] "
			"[-b BPFTOOL] [-n TOKENS] [-m OTHERS] [-s SECTIONS(oalm)]\n"
			"       %s [-p PROGS_DIR] -P OP,WAY,COUNT\n"
			"       %s [-n TOKENS] [-m OTHERS] -k\n", prog, prog, prog);
	exit(status);
}

int main(int argc, char **argv)
{
	struct statfs st_fs;
	int c;

	while ((c = getopt(argc, argv, "hqo:t:p:b:n:m:s:P:k")) != -1) {
		switch (c) {
		case 'q': cfg.quick = true; break;
		case 'o': cfg.out = optarg; break;
		case 't': cfg.table = optarg; break;
		case 'p': cfg.progs_dir = optarg; break;
		case 'b': cfg.bpftool = optarg; break;
		case 'n': cfg.max_tokens = atoi(optarg); break;
		case 'm': cfg.others = atoi(optarg); break;
		case 's': cfg.sections = optarg; break;
		case 'P': cfg.profile = optarg; break;
		case 'k': cfg.keep = true; break;
		case 'h': usage(argv[0], 0); break;
		default: usage(argv[0], 2);
		}
	}
	if (optind != argc || cfg.max_tokens < 10 || cfg.others < 0 ||
	    strspn(cfg.sections, "oalm") != strlen(cfg.sections))
		usage(argv[0], 2);
	if (geteuid()) {
		msg("Error: bench must run as root (in the VM: scripts/bench.sh)");
		return 1;
	}
	if (statfs(BPFFS, &st_fs) || st_fs.f_type != BPF_FS_MAGIC) {
		msg("Error: no BPF FS at " BPFFS ": bench runs in the VM (scripts/bench.sh)");
		return 1;
	}
	libbpf_set_print(print_cb);
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* a child that died shows as a failed write, not as our death */
	signal(SIGPIPE, SIG_IGN);
	if (check_clocksource())
		return 1;

	if (cfg.profile)
		return profile_op(cfg.profile) ? 1 : 0;
	if (cfg.keep) {
		/* the tree with all tokens, left in place for a profiler */
		if (setup_tree() || set_tokens(cfg.max_tokens, NULL))
			return 1;
		msg("bench: %d tokens and %d other pins left in place", cfg.max_tokens, cfg.others);
		return 0;
	}
	if ((strchr(cfg.sections, 'o') || strchr(cfg.sections, 'a')) && section_ops())
		return 1;
	if (strchr(cfg.sections, 'l') || strchr(cfg.sections, 'm')) {
		msg("bench: %d other pins ...", cfg.others);
		if (setup_tree()) {
			remove_tree();
			return 1;
		}
		if (strchr(cfg.sections, 'm') && section_memory())
			failures++;
		if (strchr(cfg.sections, 'l') && section_list())
			failures++;
		remove_tree();
	}
	print_table(stdout);
	if (cfg.table) {
		FILE *f = fopen(cfg.table, "w");

		if (!f || (print_table(f), fclose(f))) {
			msg("Error: %s: %s", cfg.table, strerror(errno));
			return 1;
		}
	}
	if (cfg.out && write_json(cfg.out))
		return 1;
	return failures ? 1 : 0;
}
