/* SPDX-License-Identifier: GPL-2.0 */
/* Raw bpf(2) helpers shared by the token stress, fault-injection and fuzz
 * programs (tests/stress, tests/fuzz). No libbpf: the programs control every
 * attribute byte, and the layouts of BPF_TOKEN_CREATE's attr (up to
 * cgroup_fd) and of struct bpf_token_info (up to id) are spelled out
 * here, as SPEC.md defines them, so that the tests do not silently follow a
 * header that drifted (a header that no longer agrees with them fails the
 * build, see the assertions below). What needs no UAPI header (the bpf(2)
 * syscall, errno names, the drop to "nobody") is tests/helpers/testutil.h's,
 * shared with the VM helpers.
 */
#ifndef TOKUTIL_H
#define TOKUTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <linux/capability.h>

/* sys_bpf(), errno_name(), tok_become_nobody(): shared with tests/helpers */
#include "../helpers/testutil.h"

#define TOK_CMD_TOKEN_CREATE	36
/* BPF_TOKEN_CREATE flags: BPF_F_TOKEN_* */
#define TOK_F_USERNS		(1U << 0)	/* userns_fd is read */
#define TOK_F_CGROUP		(1U << 1)	/* cgroup_fd is read */
#define TOK_F_PIN		(1U << 2)
#define TOK_F_PARENT		(1U << 3)	/* token_fd is read */
#define TOK_F_RELAXED_VERIFIER	(1U << 4)
#define TOK_F_ALL		(TOK_F_USERNS | TOK_F_CGROUP | TOK_F_PIN | \
				 TOK_F_PARENT | TOK_F_RELAXED_VERIFIER)
/* map_flags, prog_flags, btf_flags: the token fd field is set */
#define TOK_F_TOKEN_FD		(1U << 16)
/* struct tok_info flags: BPF_TOKEN_INFO_* */
#define TOK_INFO_REVOKED	(1U << 0)
#define TOK_INFO_RELAXED_VERIFIER	(1U << 1)

/* union bpf_attr for BPF_TOKEN_CREATE: mainline's flags and bpffs_fd, then
 * the pinned tokens' fields, up to cgroup_fd.
 */
struct tok_create_attr {
	uint32_t flags;
	uint32_t bpffs_fd;
	uint32_t token_fd;
	uint32_t pin_flags;
	uint64_t pin_pathname;
	uint64_t allowed_cmds;
	uint64_t allowed_map_types;
	uint64_t allowed_prog_types;
	uint64_t allowed_attach_types;
	uint32_t userns_fd;
	uint32_t cgroup_fd;
};

/* struct bpf_token_info with the round-2 extension, the cgroup scope and the
 * token's id. An info_len of 32 gets the allowed_* fields, of 88 up to
 * depth, of 96 up to cgroup_id.
 */
struct tok_info {
	uint64_t allowed_cmds;
	uint64_t allowed_maps;
	uint64_t allowed_progs;
	uint64_t allowed_attachs;
	uint64_t map_creates;
	uint64_t btf_loads;
	uint64_t prog_loads;
	uint64_t token_creates;
	uint64_t denials;
	uint64_t userns_ino;
	uint32_t flags;
	uint32_t depth;
	uint64_t cgroup_id;	/* 0: no cgroup scope */
	uint64_t id;
};

/* The layouts above are this file's; the UAPI header the programs are built
 * with must agree with them.
 */
_Static_assert(sizeof(struct tok_create_attr) == 64, "tok_create_attr layout");
_Static_assert(offsetof(struct tok_create_attr, cgroup_fd) ==
	       offsetof(union bpf_attr, token_create.cgroup_fd) -
	       offsetof(union bpf_attr, token_create), "token_create.cgroup_fd");
_Static_assert(offsetof(struct tok_create_attr, userns_fd) ==
	       offsetof(union bpf_attr, token_create.userns_fd) -
	       offsetof(union bpf_attr, token_create), "token_create.userns_fd");
_Static_assert(sizeof(struct tok_info) == 104, "tok_info layout");
_Static_assert(offsetof(struct tok_info, cgroup_id) == 88, "tok_info.cgroup_id");
_Static_assert(TOK_F_CGROUP == BPF_F_TOKEN_CGROUP &&
	       TOK_F_RELAXED_VERIFIER == BPF_F_TOKEN_RELAXED_VERIFIER &&
	       TOK_F_USERNS == BPF_F_TOKEN_USERNS && TOK_F_PIN == BPF_F_TOKEN_PIN &&
	       TOK_F_PARENT == BPF_F_TOKEN_PARENT, "BPF_F_TOKEN_* flags");

/* The attr buffer handed to the kernel: a full union bpf_attr (plus room),
 * zeroed, so that every trailing byte the kernel checks is zero.
 */
union tok_attr_buf {
	union bpf_attr attr;
	struct tok_create_attr tc;
	unsigned char bytes[256];
};

/* Returns the syscall's result, or -errno. */
static inline long tok_bpf_err(int cmd, void *attr, unsigned int size)
{
	long r = sys_bpf(cmd, attr, size);

	return r < 0 ? -errno : r;
}

/* BPF_TOKEN_CREATE of a token pinned at @path (relative to @path_fd, 0 for
 * the cwd): 0 or -errno. @parent_fd and @cgroup_fd 0 stand for none; any
 * other value (a negative one too: a bad fd) sets BPF_F_TOKEN_PARENT /
 * BPF_F_TOKEN_CGROUP and is passed in token_fd / cgroup_fd. The other
 * flags (TOK_F_USERNS with @userns_fd, TOK_F_RELAXED_VERIFIER) are the
 * caller's: @flags is passed as it is.
 */
static inline int tok_create(int path_fd, const char *path, int parent_fd,
			     uint32_t flags, uint32_t userns_fd, int cgroup_fd,
			     uint64_t cmds, uint64_t maps, uint64_t progs,
			     uint64_t attach)
{
	union tok_attr_buf b;

	memset(&b, 0, sizeof(b));
	b.tc.flags = flags | TOK_F_PIN | (parent_fd ? TOK_F_PARENT : 0) |
		     (cgroup_fd ? TOK_F_CGROUP : 0);
	b.tc.token_fd = parent_fd;
	b.tc.cgroup_fd = cgroup_fd;
	b.tc.bpffs_fd = path_fd;
	b.tc.pin_pathname = (uintptr_t)path;
	b.tc.allowed_cmds = cmds;
	b.tc.allowed_map_types = maps;
	b.tc.allowed_prog_types = progs;
	b.tc.allowed_attach_types = attach;
	b.tc.userns_fd = userns_fd;
	return tok_bpf_err(TOK_CMD_TOKEN_CREATE, &b, sizeof(b.attr));
}

/* BPF_OBJ_GET: an fd, or -errno. */
static inline int tok_obj_get(const char *path, uint32_t file_flags)
{
	union tok_attr_buf b;

	memset(&b, 0, sizeof(b));
	b.attr.pathname = (uintptr_t)path;
	b.attr.file_flags = file_flags;
	return tok_bpf_err(BPF_OBJ_GET, &b, sizeof(b.attr));
}

static inline int tok_obj_pin(int fd, const char *path)
{
	union tok_attr_buf b;

	memset(&b, 0, sizeof(b));
	b.attr.pathname = (uintptr_t)path;
	b.attr.bpf_fd = fd;
	return tok_bpf_err(BPF_OBJ_PIN, &b, sizeof(b.attr));
}

static inline int tok_get_info(int fd, void *info, uint32_t len)
{
	union tok_attr_buf b;

	memset(&b, 0, sizeof(b));
	b.attr.info.bpf_fd = fd;
	b.attr.info.info_len = len;
	b.attr.info.info = (uintptr_t)info;
	return tok_bpf_err(BPF_OBJ_GET_INFO_BY_FD, &b, sizeof(b.attr));
}

/* Offsets of the *_token_fd fields in union bpf_attr (from the UAPI header
 * the programs are built with).
 */
#define TOK_MAP_TOKEN_OFF	offsetof(union bpf_attr, map_token_fd)
#define TOK_BTF_TOKEN_OFF	offsetof(union bpf_attr, btf_token_fd)
#define TOK_PROG_TOKEN_OFF	offsetof(union bpf_attr, prog_token_fd)

static inline int tok_map_create(uint32_t type, int token_fd)
{
	union tok_attr_buf b;

	memset(&b, 0, sizeof(b));
	b.attr.map_type = type;
	b.attr.key_size = 4;
	b.attr.value_size = 8;
	b.attr.max_entries = 4;
	if (type == BPF_MAP_TYPE_STACK || type == BPF_MAP_TYPE_QUEUE)
		b.attr.key_size = 0;
	if (type == BPF_MAP_TYPE_RINGBUF) {
		b.attr.key_size = 0;
		b.attr.value_size = 0;
		b.attr.max_entries = 4096;
	}
	if (token_fd) {
		b.attr.map_flags = TOK_F_TOKEN_FD;
		b.attr.map_token_fd = token_fd;
	}
	return tok_bpf_err(BPF_MAP_CREATE, &b, sizeof(b.attr));
}

/* The smallest valid BTF: one 32-bit signed int named "int". */
struct tok_btf_blob {
	struct btf_header hdr;
	struct btf_type t;
	uint32_t int_enc;
	char strs[8];
} __attribute__((packed));

static inline void tok_btf_blob_init(struct tok_btf_blob *blob)
{
	memset(blob, 0, sizeof(*blob));
	blob->hdr.magic = BTF_MAGIC;
	blob->hdr.version = BTF_VERSION;
	blob->hdr.hdr_len = sizeof(blob->hdr);
	blob->hdr.type_off = 0;
	blob->hdr.type_len = sizeof(blob->t) + sizeof(blob->int_enc);
	blob->hdr.str_off = blob->hdr.type_len;
	blob->hdr.str_len = 5;	/* "\0int\0" */
	blob->t.name_off = 1;
	blob->t.info = BTF_KIND_INT << 24;
	blob->t.size = 4;
	blob->int_enc = (BTF_INT_SIGNED << 24) | 32;
	memcpy(blob->strs, "\0int", 5);
}

static inline int tok_btf_load(int token_fd)
{
	struct tok_btf_blob blob;
	union tok_attr_buf b;

	tok_btf_blob_init(&blob);
	memset(&b, 0, sizeof(b));
	b.attr.btf = (uintptr_t)&blob;
	b.attr.btf_size = sizeof(blob.hdr) + blob.hdr.type_len + blob.hdr.str_len;
	if (token_fd) {
		b.attr.btf_flags = TOK_F_TOKEN_FD;
		b.attr.btf_token_fd = token_fd;
	}
	return tok_bpf_err(BPF_BTF_LOAD, &b, sizeof(b.attr));
}

/* `r0 = @r0; exit`: 0 is XDP_ABORTED, "drop" for a socket filter and a
 * cgroup skb program; 1 lets a cgroup skb program's packets through.
 */
static inline int tok_prog_load_r0(uint32_t type, uint32_t attach, int token_fd,
				   int32_t r0)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = r0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union tok_attr_buf b;

	memset(&b, 0, sizeof(b));
	b.attr.prog_type = type;
	b.attr.expected_attach_type = attach;
	b.attr.insns = (uintptr_t)insns;
	b.attr.insn_cnt = 2;
	b.attr.license = (uintptr_t)"GPL";
	if (token_fd) {
		b.attr.prog_flags = TOK_F_TOKEN_FD;
		b.attr.prog_token_fd = token_fd;
	}
	return tok_bpf_err(BPF_PROG_LOAD, &b, sizeof(b.attr));
}

/* `r0 = 0; exit` (XDP_ABORTED, or "drop" for a socket filter). */
static inline int tok_prog_load(uint32_t type, uint32_t attach, int token_fd)
{
	return tok_prog_load_r0(type, attach, token_fd, 0);
}

/* BPF_PROG_ATTACH of @prog_fd to the cgroup (or other target) @target_fd:
 * 0 or -errno.
 */
static inline int tok_prog_attach(int prog_fd, int target_fd, uint32_t attach,
				  uint32_t flags)
{
	union tok_attr_buf b;

	memset(&b, 0, sizeof(b));
	b.attr.target_fd = target_fd;
	b.attr.attach_bpf_fd = prog_fd;
	b.attr.attach_type = attach;
	b.attr.attach_flags = flags;
	return tok_bpf_err(BPF_PROG_ATTACH, &b, sizeof(b.attr));
}

/* BPF_PROG_DETACH of @prog_fd (0: whatever is attached) from @target_fd. */
static inline int tok_prog_detach(int prog_fd, int target_fd, uint32_t attach)
{
	union tok_attr_buf b;

	memset(&b, 0, sizeof(b));
	b.attr.target_fd = target_fd;
	b.attr.attach_bpf_fd = prog_fd;
	b.attr.attach_type = attach;
	return tok_bpf_err(BPF_PROG_DETACH, &b, sizeof(b.attr));
}

/* The id of the cgroup v2 directory @fd refers to, as struct tok_info's
 * cgroup_id reports it (the directory's inode number, on 64-bit kernels);
 * 0 if @fd is not open.
 */
static inline uint64_t tok_cgroup_id(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : (uint64_t)st.st_ino;
}

static inline int tok_map_update(int map_fd, uint32_t key, uint64_t val)
{
	union tok_attr_buf b;

	memset(&b, 0, sizeof(b));
	b.attr.map_fd = map_fd;
	b.attr.key = (uintptr_t)&key;
	b.attr.value = (uintptr_t)&val;
	return tok_bpf_err(BPF_MAP_UPDATE_ELEM, &b, sizeof(b.attr));
}

static inline int tok_prog_test_run(int prog_fd)
{
	unsigned char pkt[64] = { 0 };
	union tok_attr_buf b;

	memset(&b, 0, sizeof(b));
	b.attr.test.prog_fd = prog_fd;
	b.attr.test.data_in = (uintptr_t)pkt;
	b.attr.test.data_size_in = sizeof(pkt);
	b.attr.test.repeat = 1;
	return tok_bpf_err(BPF_PROG_TEST_RUN, &b, sizeof(b.attr));
}

/* Number of live tokens: active objects of the bpf_token kmem_cache, after
 * flushing the per-CPU slabs (whose free objects /proc/slabinfo counts as
 * active). -1 if there is no such cache.
 */
static inline long tok_live_count(void)
{
	char line[512], name[64];
	long active = -1, n;
	FILE *f;
	int fd;

	fd = open("/sys/kernel/slab/bpf_token/shrink", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "1", 1) < 0) {
			/* best effort: the count is then an upper bound */
		}
		close(fd);
	}
	f = fopen("/proc/slabinfo", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %ld", name, &n) == 2 &&
		    !strcmp(name, "bpf_token")) {
			active = n;
			break;
		}
	}
	fclose(f);
	return active;
}

static inline long tok_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* Frees of tokens can be deferred (RCU-freed inodes of unlinked pins, fput
 * of closed fds): wait up to @ms for the count to come back to @want.
 * Returns the last count read.
 */
static inline long tok_wait_count(long want, long ms)
{
	long end = tok_now_ms() + ms, n;

	for (;;) {
		n = tok_live_count();
		if (n == want || tok_now_ms() >= end)
			return n;
		usleep(20000);
	}
}

/* Effective capabilities off / back on (permitted ones stay): with none,
 * the kernel's capable() checks fail and only a token lets BPF through.
 */
static inline int tok_caps_set_effective(bool on)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(__NR_capget, &h, d))
		return -errno;
	d[0].effective = on ? d[0].permitted : 0;
	d[1].effective = on ? d[1].permitted : 0;
	return syscall(__NR_capset, &h, d) ? -errno : 0;
}

/* Small deterministic PRNG (xorshift64*), so that a failing run can be
 * replayed with its seed.
 */
static inline uint64_t tok_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* errno_name(), with "ok" for 0 and "other" for a value it lacks */
static inline const char *tok_errname(int e)
{
	const char *name = errno_name(e);

	return e == 0 ? "ok" : name ? name : "other";
}

#endif
