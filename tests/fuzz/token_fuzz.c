// SPDX-License-Identifier: GPL-2.0
/*
 * token_fuzz: a bpf(2) fuzzer for the BPF token UAPI, with a model.
 *
 *   token_fuzz -d DIR [-t SECONDS] [-n ITERATIONS] [-s SEED] [-c CGROUP2_DIR] [-v]
 *
 * Run as root. DIR (must exist, not on BPF FS) gets two fresh BPF FS
 * instances, DIR/fz (mode 0777) and DIR/fz2, and a plain directory
 * DIR/plain. CGROUP2_DIR (a cgroup v2 directory, default /sys/fs/cgroup)
 * gets a cgroup tree token_fuzz.PID with a, a/b and c below it, removed at
 * the end; a named cgroup v1 hierarchy is mounted for an fd of its root
 * (and unmounted at once). The run has two phases of SECONDS/2 each (and at most
 * ITERATIONS iterations each, with -n): one as root, one in a child that
 * drops to "nobody" (uid/gid 65534, no capabilities) after root made it a
 * few tokens of known sets and modes. A run is the seed's: -s SEED replays
 * it, -n bounds it to the same iterations whatever the machine's speed. Each iteration builds
 * BPF_TOKEN_CREATE, BPF_MAP_CREATE, BPF_BTF_LOAD, BPF_PROG_LOAD, BPF_OBJ_GET,
 * BPF_OBJ_PIN or BPF_OBJ_GET_INFO_BY_FD from a valid template, then, half of
 * the time, mutates it (random bytes, random attr size, random fds: token,
 * read-only token, map, closed, random; random paths and dir fds, random
 * flags and sets); or unlinks, renames or closes something; as root, it
 * also removes the cgroup a/b and makes it again.
 * BPF_TOKEN_CREATE's cgroup_fd (with BPF_F_TOKEN_CGROUP, mostly, or
 * without) is one of: none, a cgroup of the tree (a/b as it is now, or a
 * removed one), a file of a cgroup v2 directory, the cgroup v1 root, a
 * plain directory, a BPF FS directory, a token fd, a closed fd.
 *
 * The fuzzer keeps a model of what it made (pins, tokens with their sets,
 * parents and revocation, fds with their access mode) and checks after every
 * call (each check counted):
 *  - nothing is ever pinned outside BPF FS (DIR/plain stays empty; a
 *    successful create or pin lands on BPF FS);
 *  - the BPF FS instances hold exactly the pins of the model (checked every
 *    64 iterations);
 *  - BPF_OBJ_PIN of a token fd never succeeds; BPF_OBJ_GET of a token with
 *    BPF_F_WRONLY never succeeds;
 *  - BPF_OBJ_GET_INFO_BY_FD of a token fd reports the sets it was made with;
 *  - a derived token is only created from a read-write fd of a live token
 *    that allows BPF_TOKEN_CREATE, with subsets of its sets, on its BPF FS,
 *    with a cgroup scope within its parent's (if both have one), and with
 *    BPF_F_TOKEN_RELAXED_VERIFIER only if its parent has it;
 *  - a token is created with BPF_F_TOKEN_CGROUP only from an fd of a live
 *    cgroup v2 directory, and userns_fd / cgroup_fd are 0 without their
 *    flags;
 *  - BPF_OBJ_GET_INFO_BY_FD of a token fd reports its cgroup scope (its
 *    own, else its parent's) and its relaxed verifier flag;
 *  - as nobody: no map, BTF or program is ever created unless the attr's
 *    token fd is a read-write fd of a live token (not revoked, nor any of
 *    its parents) that allows the command and the map type / program type
 *    (and the expected attach type, for the program types where it selects
 *    the hook at load); no token without a parent token; a pin is only
 *    opened with the access its mode grants;
 *  - as nobody, an unmutated request through a token that allows it
 *    succeeds.
 * A mutated pin_pathname may point at another string of the fuzzer's: the
 * model copies the string the kernel will read right before the call and
 * follows the pin there (pointers into the stack below the caller, which
 * the calls themselves overwrite, are put back).
 * Prints iterations, checks and violations (with the call, for a replay
 * with -s). Exit status: 0 without violations, 1 with, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <limits.h>
#include <dirent.h>

#include "tokutil.h"

#define BPF_FS_MAGIC_ 0xcafe4a11
#define ALL_CMDS ((1ULL << BPF_MAP_CREATE) | (1ULL << BPF_BTF_LOAD) | \
		  (1ULL << BPF_PROG_LOAD) | (1ULL << TOK_CMD_TOKEN_CREATE))

struct tmodel {
	uint64_t set[4];	/* cmds, maps, progs, attach */
	bool revoked;
	int fs;			/* 0: fz, 1: fz2 */
	int depth;
	struct tmodel *parent;
	uint64_t cgroup;	/* id of the scope's cgroup, 0: none */
	bool relaxed;		/* BPF_F_TOKEN_RELAXED_VERIFIER */
};

/* The fds BPF_TOKEN_CREATE's cgroup_fd is picked from (-1: not there). */
enum cg_choice {
	CG_ROOT, CG_A, CG_B, CG_C,	/* the tree: live cgroup v2 directories */
	CG_DEAD,	/* a/b before its last removal */
	CG_FILE,	/* the tree root's cgroup.procs */
	CG_V1,		/* the root of a cgroup v1 hierarchy */
	NR_CG_CHOICES,
};
static const char *const cg_name[NR_CG_CHOICES] = {
	"cgroup", "cgroup a", "cgroup a/b", "cgroup c", "removed cgroup",
	"cgroup.procs", "cgroup v1 root",
};
static int cg_fd[NR_CG_CHOICES] = { -1, -1, -1, -1, -1, -1, -1 };
static uint64_t cg_id[NR_CG_CHOICES];
static char cg_base[200];

/* Every cgroup of the tree there has been, with its parent: the scopes. */
#define NCGROUPS 4096
static struct { uint64_t id, parent; } cgroups[NCGROUPS];
static int ncgroups;

enum pin_kind { PIN_NONE, PIN_TOKEN, PIN_MAP };

#define NSLOTS 12		/* 0-7: fz, 8-9: fz2, 10-11: plain (never pinned) */
struct slot {
	enum pin_kind kind;
	struct tmodel *tok;
};

enum fd_kind { FD_TOKEN, FD_MAP, FD_OTHER };
#define NFDS 48
struct fdent {
	int fd;			/* -1: free */
	enum fd_kind kind;
	bool rw;
	struct tmodel *tok;
};

#define NTOKENS 8192
static struct tmodel tokens[NTOKENS];
static int ntokens;
static struct slot slots[NSLOTS];
static struct fdent fds[NFDS];
static char dir_fz[256], dir_fz2[256], dir_plain[256];
static int dirfd_fz = -1, dirfd_plain = -1, closed_fd = -1;
static bool nobody, verbose;
static long iterations, checks, violations, successes, strays;
static long scoped, scoped_derived;	/* tokens made with a cgroup scope */
static long max_iterations;	/* per phase; 0: as many as SECONDS allow */
static uint64_t seed;

#define CHECK(cond, fmt, ...) do {					\
		checks++;						\
		if (!(cond) && ++violations <= 30) {			\
			printf("VIOLATION (%s, iteration %ld, seed %llu): " fmt "\n", \
			       nobody ? "nobody" : "root", iterations,	\
			       (unsigned long long)seed, ##__VA_ARGS__); \
		}							\
	} while (0)

static uint64_t rnd(void)
{
	return tok_rand(&seed);
}

static const char *slot_dir(int s)
{
	return s < 8 ? dir_fz : s < 10 ? dir_fz2 : dir_plain;
}

static void slot_path(char *buf, size_t sz, int s)
{
	snprintf(buf, sz, "%s/s%d", slot_dir(s), s);
}

static bool mask_has(uint64_t mask, uint64_t bit)
{
	return mask == ~0ULL || (bit < 64 && (mask >> bit) & 1);
}

static bool live(const struct tmodel *t)
{
	for (; t; t = t->parent)
		if (t->revoked)
			return false;
	return true;
}

static struct tmodel *new_token(const uint64_t set[4], struct tmodel *parent, int fs,
			        uint64_t cgroup, bool relaxed)
{
	struct tmodel *t;

	if (ntokens == NTOKENS)
		return NULL;
	t = &tokens[ntokens++];
	memset(t, 0, sizeof(*t));
	memcpy(t->set, set, sizeof(t->set));
	t->parent = parent;
	t->depth = parent ? parent->depth + 1 : 0;
	t->fs = fs;
	t->cgroup = cgroup;
	t->relaxed = relaxed;
	return t;
}

static void cgroup_add(uint64_t id, uint64_t parent)
{
	if (ncgroups < NCGROUPS)
		cgroups[ncgroups++].id = id, cgroups[ncgroups - 1].parent = parent;
}

/* Is cgroup @id the cgroup @scope or below it? */
static bool cgroup_within(uint64_t id, uint64_t scope)
{
	int i, hops;

	for (hops = 0; id && hops < 16; hops++) {
		if (id == scope)
			return true;
		for (i = 0; i < ncgroups && cgroups[i].id != id; i++)
			;
		id = i < ncgroups ? cgroups[i].parent : 0;
	}
	return false;
}

/* The choice @fd is, or -1. */
static int cg_lookup(uint32_t fd)
{
	int c;

	for (c = 0; c < NR_CG_CHOICES; c++)
		if (cg_fd[c] >= 0 && (uint32_t)cg_fd[c] == fd)
			return c;
	return -1;
}

static bool cg_live_v2(int c)
{
	return c >= CG_ROOT && c <= CG_C;
}

static struct fdent *fd_lookup(int fd)
{
	int i;

	if (fd <= 0)
		return NULL;
	for (i = 0; i < NFDS; i++)
		if (fds[i].fd == fd)
			return &fds[i];
	return NULL;
}

static void fd_add(int fd, enum fd_kind kind, bool rw, struct tmodel *tok)
{
	int i = rnd() % NFDS, k;

	for (k = 0; k < NFDS; k++)
		if (fds[(i + k) % NFDS].fd < 0) {
			i = (i + k) % NFDS;
			break;
		}
	if (fds[i].fd >= 0)
		close(fds[i].fd);
	fds[i] = (struct fdent){ .fd = fd, .kind = kind, .rw = rw, .tok = tok };
}

/* Program types whose expected attach type selects, at load, the hook the
 * program is verified for: a token honoured for BPF_PROG_LOAD must allow
 * that attach type as well. For every other type the attach type is not
 * looked at when loading, by the kernel or a token.
 */
static bool attach_type_selects_hook(uint32_t prog_type)
{
	switch (prog_type) {
	case BPF_PROG_TYPE_CGROUP_SKB:
	case BPF_PROG_TYPE_CGROUP_SOCK:
	case BPF_PROG_TYPE_CGROUP_SOCK_ADDR:
	case BPF_PROG_TYPE_CGROUP_SOCKOPT:
	case BPF_PROG_TYPE_SK_LOOKUP:
	case BPF_PROG_TYPE_SK_REUSEPORT:
	case BPF_PROG_TYPE_TRACING:
	case BPF_PROG_TYPE_LSM:
	case BPF_PROG_TYPE_XDP:
		return true;
	default:
		return false;
	}
}

/* The token an fd stands for, if it is a usable (read-write, live) one. */
static struct tmodel *usable_token(uint32_t fd)
{
	struct fdent *f = fd_lookup(fd);

	if (!f || f->kind != FD_TOKEN || !f->rw || !live(f->tok))
		return NULL;
	return f->tok;
}

/* An fd to put into a *_token_fd field. */
static uint32_t pick_fd(bool want_token)
{
	uint64_t r = rnd();
	int i, k;

	switch (r % 10) {
	case 0: return 0;
	case 1: return closed_fd;
	case 2: return (r >> 8) % 80;
	case 3: return dirfd_fz;
	default:
		for (k = 0; k < NFDS; k++) {
			i = (r / 16 + k) % NFDS;
			if (fds[i].fd >= 0 && (!want_token || fds[i].kind == FD_TOKEN || r % 7 == 0))
				return fds[i].fd;
		}
		return 0;
	}
}

/* An fd to put into cgroup_fd: mostly a cgroup of the tree. */
static uint32_t pick_cgroup_fd(void)
{
	uint64_t r = rnd();
	int c;

	switch (r % 14) {
	case 0: return 0;
	case 1: return closed_fd;
	case 2: return dirfd_plain;
	case 3: return dirfd_fz;
	case 4: return pick_fd(true);
	case 5 ... 6:
		c = CG_DEAD + (r >> 8) % (NR_CG_CHOICES - CG_DEAD);
		if (cg_fd[c] >= 0)
			return cg_fd[c];
		/* fall through */
	default:
		return cg_fd[(r >> 16) % (CG_C + 1)];
	}
}

static uint64_t pick_set(uint64_t all)
{
	uint64_t r = rnd();

	switch (r % 8) {
	case 0: return ~0ULL;
	case 1: return rnd();
	case 2: return 0;
	default: return all & (rnd() | rnd());
	}
}

/* Mutate the attr: returns the size to pass. Sets *mutated. */
static unsigned int mutate(union tok_attr_buf *b, unsigned int size, bool *mutated)
{
	uint64_t r = rnd();
	int i, n;

	*mutated = false;
	if (r % 2)
		return size;
	*mutated = true;
	n = 1 + (r >> 4) % 4;
	for (i = 0; i < n; i++) {
		uint64_t m = rnd();

		switch (m % 5) {
		case 0: /* a random byte in the attr */
			b->bytes[(m >> 8) % (size ? size : 1)] = m >> 16;
			break;
		case 1: /* a random size: short, long with a zero tail, long with junk */
			size = (m >> 8) % (sizeof(b->bytes) - 8);
			if ((m >> 20) % 4 == 0 && size > sizeof(b->attr))
				b->bytes[size - 1] = 1;
			break;
		case 2: /* a 32-bit field at a random 4-byte offset := an fd */
			*(uint32_t *)&b->bytes[((m >> 8) % (sizeof(b->attr) / 4)) * 4] = pick_fd(true);
			break;
		case 3: /* a random bit */
			b->bytes[(m >> 8) % (size ? size : 1)] ^= 1 << ((m >> 16) % 8);
			break;
		default: /* a random 32-bit word */
			*(uint32_t *)&b->bytes[((m >> 8) % (sizeof(b->attr) / 4)) * 4] = m >> 32;
			break;
		}
	}
	return size;
}

/* The attr as the kernel sees it: the first @size bytes, zeroes after. */
static void effective(const union tok_attr_buf *b, unsigned int size, union tok_attr_buf *e)
{
	memset(e, 0, sizeof(*e));
	memcpy(e, b, size < sizeof(e->attr) ? size : sizeof(e->attr));
}

static bool on_bpffs(const char *path)
{
	struct statfs sfs;

	return statfs(path, &sfs) == 0 && (unsigned long)sfs.f_type == BPF_FS_MAGIC_;
}

/* DIR/plain (also the cwd, for relative paths) must stay empty. */
static void check_plain_empty(void)
{
	struct dirent *d;
	DIR *dp = opendir(dir_plain);
	int n = 0;

	if (!dp)
		return;
	while ((d = readdir(dp)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..")) {
			n++;
			if (n == 1)
				printf("  found %s/%s\n", dir_plain, d->d_name);
		}
	closedir(dp);
	CHECK(n == 0, "%d file(s) pinned in %s, outside BPF FS", n, dir_plain);
}

/* The BPF FS instances hold exactly the pins of the model: a file the model
 * does not know is a pin it cannot see (the kernel pinned where the model
 * did not look), a slot the model thinks pinned but without a file is one
 * it lost.
 */
static void check_pins_known(void)
{
	const char *dirs[] = { dir_fz, dir_fz2 };
	char p[300], name[16];
	struct dirent *d;
	struct stat st;
	bool known;
	size_t i;
	DIR *dp;
	int s;

	for (i = 0; i < 2; i++) {
		dp = opendir(dirs[i]);
		if (!dp)
			continue;
		while ((d = readdir(dp))) {
			if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
				continue;
			known = false;
			for (s = i ? 8 : 0; s < (i ? 10 : 8); s++) {
				snprintf(name, sizeof(name), "s%d", s);
				if (slots[s].kind != PIN_NONE && !strcmp(d->d_name, name))
					known = true;
			}
			CHECK(known, "%s/%s is pinned, the model does not know it", dirs[i], d->d_name);
		}
		closedir(dp);
	}
	for (s = 0; s < 10; s++) {
		if (slots[s].kind == PIN_NONE)
			continue;
		slot_path(p, sizeof(p), s);
		CHECK(stat(p, &st) == 0, "the model has a pin at %s, the file is gone", p);
	}
}

/* Copy the NUL-terminated string at @addr of our own memory into @buf, as
 * the kernel would read it: without faulting on an unmapped address (a
 * mutated pointer). The bytes go through a pipe, one page at a time, so
 * that an unreadable page is an EFAULT from write() rather than a crash
 * (the test kernel has no process_vm_readv()). False if it is not
 * readable up to a NUL within @sz.
 */
static bool read_own_string(uint64_t addr, char *buf, size_t sz)
{
	static int p[2] = { -1, -1 };
	size_t off = 0, n;
	ssize_t got;

	if (p[0] < 0 && pipe2(p, O_CLOEXEC))
		return false;
	while (off < sz) {
		n = 4096 - ((addr + off) & 4095);
		if (n > sz - off)
			n = sz - off;
		got = write(p[1], (const void *)(uintptr_t)(addr + off), n);
		if (got <= 0)
			return false;
		if (read(p[0], buf + off, got) != got)
			return false;
		if (memchr(buf + off, '\0', got))
			return true;
		off += got;
	}
	return false;
}

/* The pin_pathname of a BPF_TOKEN_CREATE as the kernel reads it: copied
 * from our memory right before the call (pin_name_ok false when it is not
 * a readable string). A mutated pointer may well point at another string of
 * ours, e.g. a path on the stack; whatever it points at may change after
 * the call (the model's own calls reuse that stack), so the model never
 * reads it again afterwards. Static: the copy lands nowhere a pointer into
 * the stack can reach.
 */
static char pin_name[PATH_MAX];
static bool pin_name_ok;

static inline uintptr_t stack_pointer(void)
{
	uintptr_t sp;

	__asm__ volatile("mov %%rsp, %0" : "=r"(sp));
	return sp;
}

/* Below the stack pointer lies the memory of the calls still to come (the
 * copy of the name, the syscall wrapper): what the kernel would read there
 * is not what the model can copy before the call. A name pointer mutated
 * into that range is put back (8 MiB: the whole stack below).
 */
static bool below_stack_pointer(uint64_t addr, uintptr_t sp)
{
	return addr < sp && sp - addr <= (8UL << 20);
}

/* The canonical path of the file a BPF_TOKEN_CREATE that succeeded pinned:
 * pin_name (see above), resolved relative to bpffs_fd (0 or AT_FDCWD:
 * the current directory) unless absolute.
 */
static bool pinned_path(const union tok_attr_buf *e, char *out, size_t sz)
{
	char base[PATH_MAX], full[2 * PATH_MAX + 2], link[64];
	const char *name = pin_name;
	ssize_t n;

	if (!pin_name_ok)
		return false;
	if (name[0] == '/') {
		snprintf(full, sizeof(full), "%s", name);
	} else {
		if (e->tc.bpffs_fd == 0 || e->tc.bpffs_fd == (uint32_t)AT_FDCWD) {
			if (!getcwd(base, sizeof(base)))
				return false;
		} else {
			snprintf(link, sizeof(link), "/proc/self/fd/%u", e->tc.bpffs_fd);
			n = readlink(link, base, sizeof(base) - 1);
			if (n < 0)
				return false;
			base[n] = '\0';
		}
		snprintf(full, sizeof(full), "%s/%s", base, name);
	}
	if (!realpath(full, base) || strlen(base) >= sz)
		return false;
	strcpy(out, base);
	return true;
}

/* The slot whose path is @canon, or -1 */
static int slot_of(const char *canon)
{
	char p[300], c[PATH_MAX];
	int s;

	for (s = 0; s < NSLOTS; s++) {
		slot_path(p, sizeof(p), s);
		if (realpath(p, c) && !strcmp(c, canon))
			return s;
	}
	return -1;
}

static void rebuild_slot_after_unlink(int s)
{
	if (slots[s].kind == PIN_TOKEN && slots[s].tok)
		slots[s].tok->revoked = true;
	slots[s].kind = PIN_NONE;
	slots[s].tok = NULL;
}

static void fz_token_create(void)
{
	union tok_attr_buf b, e;
	struct tmodel *parent = NULL;
	struct fdent *pf;
	unsigned int size = sizeof(b.attr);
	int s = rnd() % NSLOTS, rel = rnd() % 4;
	char path[300], rpath[32], where[PATH_MAX], rpath_buf[PATH_MAX];
	uint64_t name_ptr, scope;
	bool mutated, relaxed;
	long ret;
	int cg;

	memset(&b, 0, sizeof(b));
	slot_path(path, sizeof(path), s);
	snprintf(rpath, sizeof(rpath), "s%d", s);
	if (rel == 0 && s < 8) {	/* relative to a dir fd */
		b.tc.bpffs_fd = dirfd_fz;
		b.tc.pin_pathname = (uintptr_t)rpath;
	} else if (rel == 1 && s >= 10) {
		b.tc.bpffs_fd = dirfd_plain;
		b.tc.pin_pathname = (uintptr_t)rpath;
	} else {
		b.tc.pin_pathname = (uintptr_t)path;
	}
	b.tc.flags = TOK_F_PIN;
	if (rnd() % 3) {
		b.tc.flags |= TOK_F_PARENT;
		b.tc.token_fd = pick_fd(true);
	}
	switch (rnd() % 16) {
	case 0 ... 5:	/* a cgroup scope */
		b.tc.flags |= TOK_F_CGROUP;
		b.tc.cgroup_fd = pick_cgroup_fd();
		break;
	case 6:		/* cgroup_fd without the flag */
		b.tc.cgroup_fd = pick_cgroup_fd();
		break;
	default:
		break;
	}
	if (rnd() % 8 == 0)
		b.tc.flags |= TOK_F_RELAXED_VERIFIER;
	b.tc.allowed_cmds = pick_set(ALL_CMDS);
	b.tc.allowed_map_types = pick_set((1ULL << BPF_MAP_TYPE_ARRAY) | (1ULL << BPF_MAP_TYPE_HASH));
	b.tc.allowed_prog_types = pick_set((1ULL << BPF_PROG_TYPE_XDP) |
					   (1ULL << BPF_PROG_TYPE_SOCKET_FILTER));
	b.tc.allowed_attach_types = pick_set(1ULL << 0);
	/* Random sets are seldom subsets of a parent's: 3 times out of 4, a
	 * derivation from a token the model knows asks for subsets, so that
	 * it gets as far as the scope and verifier rules.
	 */
	parent = b.tc.flags & TOK_F_PARENT ? usable_token(b.tc.token_fd) : NULL;
	if (parent && rnd() % 4) {
		b.tc.allowed_cmds &= parent->set[0];
		b.tc.allowed_map_types &= parent->set[1];
		b.tc.allowed_prog_types &= parent->set[2];
		b.tc.allowed_attach_types &= parent->set[3];
	}
	parent = NULL;
	name_ptr = b.tc.pin_pathname;
	size = mutate(&b, size, &mutated);
	if (below_stack_pointer(b.tc.pin_pathname, stack_pointer()))
		b.tc.pin_pathname = name_ptr;
	effective(&b, size, &e);
	/* nothing between the copy and the call writes memory the name
	 * pointer can reach
	 */
	pin_name_ok = read_own_string(e.tc.pin_pathname, pin_name, sizeof(pin_name));
	ret = tok_bpf_err(TOK_CMD_TOKEN_CREATE, &b, size);
	if (verbose)
		printf("token_create slot %d flags %#x parent %u%s cgroup %u%s%s size %u%s: %s\n", s,
		       e.tc.flags, e.tc.token_fd, !e.tc.token_fd ? "" : usable_token(e.tc.token_fd) ?
		       " (usable token)" : fd_lookup(e.tc.token_fd) ? " (unusable)" : " (unknown fd)",
		       e.tc.cgroup_fd,
		       cg_lookup(e.tc.cgroup_fd) >= 0 ? " " : "",
		       cg_lookup(e.tc.cgroup_fd) >= 0 ? cg_name[cg_lookup(e.tc.cgroup_fd)] : "",
		       size, mutated ? " (mutated)" : "", tok_errname(ret));
	check_plain_empty();
	/* without BPF_F_TOKEN_PIN, mainline's call from a BPF FS: every BPF
	 * FS here belongs to the initial user namespace, which gets none
	 */
	CHECK(ret <= 0 || (e.tc.flags & TOK_F_PIN),
	      "token_create without BPF_F_TOKEN_PIN (flags %#x) returned fd %ld", e.tc.flags, ret);
	if (ret > 0)
		close(ret);
	if (ret != 0)
		return;
	successes++;

	/* a scope of its own only from a live cgroup v2 directory (wherever
	 * the token was pinned)
	 */
	cg = e.tc.flags & TOK_F_CGROUP ? cg_lookup(e.tc.cgroup_fd) : -1;
	if (e.tc.flags & TOK_F_CGROUP)
		CHECK(cg_live_v2(cg), "token_create scoped to fd %u (%s), not a cgroup v2 directory",
		      e.tc.cgroup_fd, cg >= 0 ? cg_name[cg] : "not a cgroup fd of the fuzzer");
	scope = cg_live_v2(cg) ? cg_id[cg] : 0;
	relaxed = e.tc.flags & TOK_F_RELAXED_VERIFIER;

	/* Where did it go? A mutation may have changed the directory fd or the
	 * name pointer (which may then point at another string of ours): find
	 * the file the kernel pinned. The model only knows the slot paths; a
	 * token pinned under another name is checked and dropped.
	 */
	if (!pinned_path(&e, where, sizeof(where))) {
		CHECK(0, "token_create succeeded, but no file at pin_pathname %#llx (fd %u): %s%s%s",
		      (unsigned long long)e.tc.pin_pathname, e.tc.bpffs_fd,
		      pin_name_ok ? "'" : "", pin_name_ok ? pin_name : "not a readable string",
		      pin_name_ok ? "'" : "");
		return;
	}
	CHECK(on_bpffs(where), "token_create pinned %s, not on BPF FS", where);
	if (!realpath(path, rpath_buf) || strcmp(where, rpath_buf))
		strays++;
	s = slot_of(where);
	if (s < 0) {
		unlink(where);
		return;
	}
	slot_path(path, sizeof(path), s);
	CHECK(on_bpffs(path) && s < 10, "token_create pinned %s, not on BPF FS", path);
	/* a pinned token: BPF_F_TOKEN_PIN, maybe a parent, a cgroup scope and
	 * the relaxed verifier (no userns_fd here: its flag needs an fd of a
	 * user namespace, which the fuzzer never has), token_fd and
	 * cgroup_fd only with their flags
	 */
	CHECK((e.tc.flags & TOK_F_PIN) &&
	      (e.tc.flags & ~(TOK_F_PIN | TOK_F_PARENT | TOK_F_CGROUP |
			      TOK_F_RELAXED_VERIFIER)) == 0 &&
	      e.tc.pin_flags == 0 && ((e.tc.flags & TOK_F_PARENT) || e.tc.token_fd == 0) &&
	      e.tc.userns_fd == 0 && ((e.tc.flags & TOK_F_CGROUP) || e.tc.cgroup_fd == 0),
	      "token_create succeeded with flags %#x pin_flags %#x token_fd %u userns_fd %u "
	      "cgroup_fd %u", e.tc.flags, e.tc.pin_flags, e.tc.token_fd, e.tc.userns_fd,
	      e.tc.cgroup_fd);
	if (e.tc.flags & TOK_F_PARENT) {
		pf = fd_lookup(e.tc.token_fd);
		parent = usable_token(e.tc.token_fd);
		CHECK(parent, "derived token created from fd %u (%s), not a usable token",
		      e.tc.token_fd, pf ? (pf->kind == FD_TOKEN ? (pf->rw ? "revoked token" :
		      "read-only token") : "not a token") : "unknown fd");
		if (parent) {
			CHECK(mask_has(parent->set[0], TOK_CMD_TOKEN_CREATE),
			      "derived token from a parent without token_create");
			CHECK(!(e.tc.allowed_cmds & ~parent->set[0]) &&
			      !(e.tc.allowed_map_types & ~parent->set[1]) &&
			      !(e.tc.allowed_prog_types & ~parent->set[2]) &&
			      !(e.tc.allowed_attach_types & ~parent->set[3]),
			      "derived token's sets are not subsets of its parent's");
			CHECK(parent->fs == (s < 8 ? 0 : 1),
			      "derived token pinned on another BPF FS than its parent");
			CHECK(!scope || !parent->cgroup || cgroup_within(scope, parent->cgroup),
			      "derived token scoped to cgroup %llu (%s), outside its parent's "
			      "scope %llu", (unsigned long long)scope, cg_name[cg],
			      (unsigned long long)parent->cgroup);
			CHECK(!relaxed || parent->relaxed,
			      "derived token with the relaxed verifier from a parent without it");
			if (scope)
				scoped_derived++;
			else
				scope = parent->cgroup;
		}
	} else {
		CHECK(!nobody, "nobody created a token without a parent token");
	}
	if (cg_live_v2(cg))
		scoped++;
	if (slots[s].kind != PIN_NONE) {
		CHECK(0, "token_create succeeded over an existing pin %s", path);
		rebuild_slot_after_unlink(s);
	}
	slots[s].kind = PIN_TOKEN;
	slots[s].tok = new_token((uint64_t[4]){ e.tc.allowed_cmds, e.tc.allowed_map_types,
			e.tc.allowed_prog_types, e.tc.allowed_attach_types }, parent, s < 8 ? 0 : 1,
			scope, relaxed);
	if (!nobody || rnd() % 2)
		chmod(path, rnd() % 3 ? 0666 : 0644);
}

static void fz_obj_get(void)
{
	int s = rnd() % NSLOTS, fd;
	uint32_t flags = rnd() % 4 == 0 ? BPF_F_WRONLY : rnd() % 3 == 0 ? BPF_F_RDONLY : 0;
	char path[300];
	struct stat st;
	bool have_st;
	unsigned int m;

	slot_path(path, sizeof(path), s);
	have_st = stat(path, &st) == 0;
	fd = tok_obj_get(path, flags);
	if (verbose)
		printf("obj_get slot %d flags %#x: %s\n", s, flags, tok_errname(fd < 0 ? fd : 0));
	if (fd < 0)
		return;
	successes++;
	CHECK(s < 10, "BPF_OBJ_GET opened %s outside BPF FS", path);
	if (slots[s].kind == PIN_TOKEN)
		CHECK(flags != BPF_F_WRONLY, "a token was opened write-only");
	if (nobody && have_st) {
		m = st.st_uid == TOK_NOBODY ? (st.st_mode >> 6) & 7 : st.st_gid == TOK_NOBODY ?
		    (st.st_mode >> 3) & 7 : st.st_mode & 7;
		CHECK((m & 4) || flags == BPF_F_WRONLY,
		      "nobody opened %s (mode %o uid %u) for reading", path, st.st_mode & 07777,
		      st.st_uid);
		CHECK((m & 2) || flags == BPF_F_RDONLY,
		      "nobody opened %s (mode %o uid %u) for writing", path, st.st_mode & 07777,
		      st.st_uid);
	}
	fd_add(fd, slots[s].kind == PIN_TOKEN ? FD_TOKEN : FD_MAP, flags != BPF_F_RDONLY,
	       slots[s].tok);
}

static void fz_pin(void)
{
	int s = rnd() % NSLOTS, fd = pick_fd(rnd() % 2), ret;
	struct fdent *f = fd_lookup(fd);
	char path[300];

	slot_path(path, sizeof(path), s);
	ret = tok_obj_pin(fd, path);
	if (verbose)
		printf("obj_pin fd %d slot %d: %s\n", fd, s, tok_errname(ret));
	check_plain_empty();
	if (ret)
		return;
	successes++;
	CHECK(!f || f->kind != FD_TOKEN, "BPF_OBJ_PIN of a token fd succeeded (%s)", path);
	CHECK(on_bpffs(path) && s < 10, "BPF_OBJ_PIN pinned %s outside BPF FS", path);
	if (slots[s].kind != PIN_NONE)
		rebuild_slot_after_unlink(s);
	slots[s].kind = f && f->kind == FD_TOKEN ? PIN_TOKEN : PIN_MAP;
	slots[s].tok = f ? f->tok : NULL;
}

static void fz_info(void)
{
	int fd = pick_fd(true), ret;
	struct fdent *f = fd_lookup(fd);
	unsigned char buf[sizeof(struct tok_info) + 16];
	struct tok_info *info = (void *)buf;
	uint32_t len = rnd() % 3 == 0 ? rnd() % sizeof(buf) : rnd() % 2 ? 32 : sizeof(*info);

	memset(buf, 0, sizeof(buf));
	ret = tok_get_info(fd, buf, len);
	if (ret || !f || f->kind != FD_TOKEN || len < 32)
		return;
	successes++;
	CHECK(info->allowed_cmds == f->tok->set[0] && info->allowed_maps == f->tok->set[1] &&
	      info->allowed_progs == f->tok->set[2] && info->allowed_attachs == f->tok->set[3],
	      "token info %#llx %#llx %#llx %#llx, made with %#llx %#llx %#llx %#llx",
	      (unsigned long long)info->allowed_cmds, (unsigned long long)info->allowed_maps,
	      (unsigned long long)info->allowed_progs, (unsigned long long)info->allowed_attachs,
	      (unsigned long long)f->tok->set[0], (unsigned long long)f->tok->set[1],
	      (unsigned long long)f->tok->set[2], (unsigned long long)f->tok->set[3]);
	/* A token whose pin is gone is revoked, a live one is not; one whose
	 * parent alone was revoked may say either.
	 */
	if (len >= sizeof(*info) && (f->tok->revoked || live(f->tok)))
		CHECK(!!(info->flags & TOK_INFO_REVOKED) == f->tok->revoked,
		      "token info revoked flag %u, model says %s", info->flags & 1,
		      f->tok->revoked ? "revoked" : "live");
	if (len >= offsetof(struct tok_info, depth))
		CHECK(!!(info->flags & TOK_INFO_RELAXED_VERIFIER) == f->tok->relaxed,
		      "token info flags %#x, model says %s verifier", info->flags,
		      f->tok->relaxed ? "relaxed" : "strict");
	if (len >= offsetof(struct tok_info, id))
		CHECK(info->cgroup_id == f->tok->cgroup,
		      "token info cgroup_id %llu, model says %llu",
		      (unsigned long long)info->cgroup_id, (unsigned long long)f->tok->cgroup);
}

/*
 * What a map of these attributes may take, about (64 bytes of overhead per
 * entry: a preallocated hash element, say). A mutated max_entries makes
 * maps of up to 4 GB, which the kernel allocates page by page, with no
 * memory cgroup to stop it here: while one is being allocated, or while a
 * few big ones are kept, the VM runs out of memory and the OOM killer kills
 * the test's shell, not the fuzzer (what the fuzzer holds is kernel
 * memory). A closed map is freed later, by a work item: on a slow or
 * loaded VM those of many closed big maps pile up, and requests of 64 MiB
 * ran a 2 GiB VM out of memory. So no map request asks for more than
 * 8 MiB, and the fuzzer keeps no map of more than 1 MiB. The token checks
 * come before any allocation: what they see is not changed.
 */
static uint64_t map_bytes(const union tok_attr_buf *b)
{
	return (uint64_t)b->attr.max_entries *
	       ((uint64_t)b->attr.key_size + b->attr.value_size + 64);
}

/*
 * The attach type a program is loaded for: the kernel gives CGROUP_SOCK
 * and SK_REUSEPORT programs loaded without one (older UAPI) a default
 * before any check, the token's included.
 */
static uint32_t loaded_attach_type(const union tok_attr_buf *e)
{
	if (e->attr.expected_attach_type)
		return e->attr.expected_attach_type;
	if (e->attr.prog_type == BPF_PROG_TYPE_CGROUP_SOCK)
		return BPF_CGROUP_INET_SOCK_CREATE;
	if (e->attr.prog_type == BPF_PROG_TYPE_SK_REUSEPORT)
		return BPF_SK_REUSEPORT_SELECT;
	return 0;
}

/* BPF_MAP_CREATE / BPF_BTF_LOAD / BPF_PROG_LOAD with a token fd. */
static void fz_use(int cmd)
{
	union tok_attr_buf b, e;
	struct tok_btf_blob blob;
	static const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	unsigned int size = sizeof(b.attr);
	struct tmodel *t;
	bool mutated, allowed;
	long ret;
	uint32_t tfd = pick_fd(true);
	/* mostly with BPF_F_TOKEN_FD: without it the token fd is not read */
	uint32_t use_flag = rnd() % 8 ? TOK_F_TOKEN_FD : 0;

	memset(&b, 0, sizeof(b));
	if (cmd == BPF_MAP_CREATE) {
		b.attr.map_type = rnd() % 4 == 0 ? rnd() % 34 : rnd() % 2 ? BPF_MAP_TYPE_ARRAY :
				  BPF_MAP_TYPE_HASH;
		b.attr.key_size = 4;
		b.attr.value_size = 8;
		b.attr.max_entries = 4;
		b.attr.map_flags = use_flag;
		b.attr.map_token_fd = tfd;
	} else if (cmd == BPF_BTF_LOAD) {
		tok_btf_blob_init(&blob);
		b.attr.btf = (uintptr_t)&blob;
		b.attr.btf_size = sizeof(blob.hdr) + blob.hdr.type_len + blob.hdr.str_len;
		b.attr.btf_flags = use_flag;
		b.attr.btf_token_fd = tfd;
	} else {
		b.attr.prog_type = rnd() % 4 == 0 ? rnd() % 32 : rnd() % 2 ? BPF_PROG_TYPE_XDP :
				   BPF_PROG_TYPE_SOCKET_FILTER;
		b.attr.expected_attach_type = rnd() % 4 == 0 ? rnd() % 45 : 0;
		b.attr.insns = (uintptr_t)insns;
		b.attr.insn_cnt = 2;
		b.attr.license = (uintptr_t)"GPL";
		b.attr.prog_flags = use_flag;
		b.attr.prog_token_fd = tfd;
	}
	size = mutate(&b, size, &mutated);
	if (cmd == BPF_MAP_CREATE && map_bytes(&b) > 8 << 20)
		b.attr.max_entries = 4;
	ret = tok_bpf_err(cmd, &b, size);
	effective(&b, size, &e);

	if (cmd == BPF_MAP_CREATE) {
		t = e.attr.map_flags & TOK_F_TOKEN_FD ? usable_token(e.attr.map_token_fd) : NULL;
		allowed = t && mask_has(t->set[0], cmd) && mask_has(t->set[1], e.attr.map_type);
	} else if (cmd == BPF_BTF_LOAD) {
		t = e.attr.btf_flags & TOK_F_TOKEN_FD ? usable_token(e.attr.btf_token_fd) : NULL;
		allowed = t && mask_has(t->set[0], cmd);
	} else {
		t = e.attr.prog_flags & TOK_F_TOKEN_FD ? usable_token(e.attr.prog_token_fd) : NULL;
		allowed = t && mask_has(t->set[0], cmd) && mask_has(t->set[2], e.attr.prog_type) &&
			  (!attach_type_selects_hook(e.attr.prog_type) ||
			   mask_has(t->set[3], loaded_attach_type(&e)));
	}
	if (verbose)
		printf("cmd %d token fd %u size %u%s: %s (model: %s)\n", cmd,
		       cmd == BPF_MAP_CREATE ? e.attr.map_token_fd : cmd == BPF_BTF_LOAD ?
		       e.attr.btf_token_fd : e.attr.prog_token_fd, size,
		       mutated ? " (mutated)" : "", tok_errname(ret < 0 ? ret : 0),
		       allowed ? "allowed" : "denied");
	if (nobody) {
		CHECK(ret < 0 || allowed,
		      "nobody got an object from cmd %d (map type %u / prog type %u attach %u) "
		      "without a token allowing it", cmd, e.attr.map_type, e.attr.prog_type,
		      e.attr.expected_attach_type);
		/* A clean request of a kind the token allows must work. */
		if (!mutated && allowed &&
		    (cmd != BPF_MAP_CREATE || e.attr.map_type == BPF_MAP_TYPE_HASH ||
		     e.attr.map_type == BPF_MAP_TYPE_ARRAY) &&
		    (cmd != BPF_PROG_LOAD || (e.attr.expected_attach_type == 0 &&
		     (e.attr.prog_type == BPF_PROG_TYPE_XDP ||
		      e.attr.prog_type == BPF_PROG_TYPE_SOCKET_FILTER))))
			CHECK(ret >= 0, "cmd %d through an allowing token failed: %s", cmd,
			      strerror(-ret));
	}
	if (ret >= 0) {
		successes++;
		if (cmd == BPF_MAP_CREATE && map_bytes(&e) <= 1 << 20 && rnd() % 2)
			fd_add(ret, FD_MAP, true, NULL);
		else
			close(ret);
	}
}

static void fz_unlink_rename(void)
{
	int a = rnd() % NSLOTS, c = rnd() % NSLOTS;
	char pa[300], pc[300];

	slot_path(pa, sizeof(pa), a);
	slot_path(pc, sizeof(pc), c);
	if (rnd() % 2) {
		if (unlink(pa) == 0)
			rebuild_slot_after_unlink(a);
	} else if (rename(pa, pc) == 0 && a != c) {
		CHECK(slot_dir(a) == slot_dir(c), "rename %s -> %s across file systems", pa, pc);
		rebuild_slot_after_unlink(c);
		slots[c] = slots[a];
		slots[a] = (struct slot){ PIN_NONE, NULL };
	}
}

/* Remove the cgroup a/b and make it again (as root): the scope of the
 * tokens scoped to it, or below it, matches nothing any more; its old fd
 * becomes the removed cgroup's.
 */
static void fz_cgroup_recycle(void)
{
	char path[300];
	int fd;

	snprintf(path, sizeof(path), "%s/a/b", cg_base);
	if (rmdir(path))
		return;
	if (cg_fd[CG_DEAD] >= 0)
		close(cg_fd[CG_DEAD]);
	cg_fd[CG_DEAD] = cg_fd[CG_B];
	cg_id[CG_DEAD] = cg_id[CG_B];
	cg_fd[CG_B] = -1;
	if (mkdir(path, 0755) == 0 && (fd = open(path, O_RDONLY | O_DIRECTORY)) >= 0) {
		cg_fd[CG_B] = fd;
		cg_id[CG_B] = tok_cgroup_id(fd);
		cgroup_add(cg_id[CG_B], cg_id[CG_A]);
	}
	if (verbose)
		printf("cgroup a/b removed (id %llu) and made again (id %llu)\n",
		       (unsigned long long)cg_id[CG_DEAD], (unsigned long long)cg_id[CG_B]);
}

static void fz_close(void)
{
	int i = rnd() % NFDS;

	if (fds[i].fd >= 0)
		close(fds[i].fd);
	fds[i].fd = -1;
}

/* The phase goes on: time left, and iterations left if they are bounded. */
static bool more(long until_ms)
{
	return tok_now_ms() < until_ms && (!max_iterations || iterations < max_iterations);
}

static void fuzz_loop(long until_ms)
{
	while (more(until_ms)) {
		iterations++;
		switch (rnd() % 16) {
		case 0 ... 2: fz_token_create(); break;
		case 3 ... 4: fz_obj_get(); break;
		case 5: fz_pin(); break;
		case 6: fz_info(); break;
		case 7 ... 8: fz_use(BPF_MAP_CREATE); break;
		case 9: fz_use(BPF_BTF_LOAD); break;
		case 10 ... 11: fz_use(BPF_PROG_LOAD); break;
		case 12 ... 13: fz_unlink_rename(); break;
		case 14: fz_close(); break;
		default:
			if (!nobody && rnd() % 8 == 0)
				fz_cgroup_recycle();
			else
				fz_close();
			break;
		}
		if (iterations % 64 == 0)
			check_pins_known();
		/* Every so often, start over from an empty model. */
		if (ntokens > NTOKENS - 16)
			break;
	}
}

static int reset_fs(void)
{
	char p[300];
	int s, i;

	for (i = 0; i < NFDS; i++) {
		if (fds[i].fd >= 0)
			close(fds[i].fd);
		fds[i].fd = -1;
	}
	for (s = 0; s < NSLOTS; s++) {
		slot_path(p, sizeof(p), s);
		unlink(p);
		slots[s] = (struct slot){ PIN_NONE, NULL };
	}
	ntokens = 0;
	return 0;
}

/* Root makes nobody's starting tokens: known sets, various modes. */
static void seed_tokens(void)
{
	static const struct {
		uint64_t set[4];
		unsigned int mode;
	} t[] = {
		{ { ~0ULL, ~0ULL, ~0ULL, ~0ULL }, 0666 },
		{ { ALL_CMDS, 1ULL << BPF_MAP_TYPE_ARRAY, 1ULL << BPF_PROG_TYPE_XDP, 1 }, 0666 },
		{ { 1ULL << BPF_MAP_CREATE, 1ULL << BPF_MAP_TYPE_HASH, 0, 0 }, 0644 },
		{ { ALL_CMDS, ~0ULL, ~0ULL, ~0ULL }, 0600 },
		{ { ALL_CMDS & ~(1ULL << TOK_CMD_TOKEN_CREATE), ~0ULL,
		    1ULL << BPF_PROG_TYPE_SOCKET_FILTER, ~0ULL }, 0666 },
		{ { ALL_CMDS, ~0ULL, ~0ULL, ~0ULL }, 0666 },	/* on fz2 */
		/* scoped to cgroup a, to a/b with the relaxed verifier */
		{ { ALL_CMDS, ~0ULL, ~0ULL, ~0ULL }, 0666 },
		{ { ALL_CMDS, ~0ULL, ~0ULL, ~0ULL }, 0666 },
	};
	static const int slot[] = { 0, 1, 2, 3, 4, 8, 5, 6 };
	static const int cg[] = { -1, -1, -1, -1, -1, -1, CG_A, CG_B };
	uint32_t flags;
	char p[300];
	size_t i;
	int s, cgfd;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		s = slot[i];
		slot_path(p, sizeof(p), s);
		flags = cg[i] == CG_B ? TOK_F_RELAXED_VERIFIER : 0;
		cgfd = cg[i] >= 0 ? cg_fd[cg[i]] : 0;
		if (cgfd < 0)
			continue;
		if (tok_create(0, p, 0, flags, 0, cgfd, t[i].set[0], t[i].set[1], t[i].set[2],
			       t[i].set[3]))
			continue;
		chmod(p, t[i].mode);
		slots[s].kind = PIN_TOKEN;
		slots[s].tok = new_token(t[i].set, NULL, s < 8 ? 0 : 1,
					 cg[i] >= 0 ? cg_id[cg[i]] : 0, flags != 0);
	}
}

static int phase(bool as_nobody, long ms)
{
	long end = tok_now_ms() + ms;

	/* Each phase counts its own calls (the nobody child starts with the
	 * root phase's counters).
	 */
	iterations = successes = checks = violations = strays = scoped = scoped_derived = 0;
	nobody = as_nobody;
	if (as_nobody) {
		if (tok_become_nobody()) {
			perror("token_fuzz: dropping to nobody");
			return 2;
		}
	}
	while (more(end)) {
		if (!as_nobody || ntokens == 0)
			seed_tokens();
		fuzz_loop(end);
		check_pins_known();
		if (!as_nobody)
			reset_fs();
		else
			ntokens = ntokens > NTOKENS - 16 ? (reset_fs(), 0) : ntokens;
	}
	printf("token_fuzz %s: %ld iterations, %ld successful calls, %ld invariant checks, "
	       "%ld violations; %ld tokens pinned elsewhere than asked (mutated name or dir fd); "
	       "%ld tokens with a cgroup scope of their own (%ld derived)\n",
	       as_nobody ? "nobody" : "root", iterations, successes, checks, violations, strays,
	       scoped, scoped_derived);
	return violations ? 1 : 0;
}

/* The cgroup fds cgroup_fd is picked from: the tree CGROUP2_DIR/
 * token_fuzz.PID/{a,a/b,c}, a file of it, the root of a named cgroup v1
 * hierarchy (mounted on DIR/cg1 for an fd of it, then unmounted: the fd
 * keeps it; none if cgroup v1 is not there).
 */
static int cgroups_setup(const char *dir, const char *cgroup2_dir)
{
	static const char *const rel[] = { "", "/a", "/a/b", "/c" };
	char path[300];
	int c;

	snprintf(cg_base, sizeof(cg_base), "%s/token_fuzz.%d", cgroup2_dir, (int)getpid());
	for (c = CG_ROOT; c <= CG_C; c++) {
		snprintf(path, sizeof(path), "%s%s", cg_base, rel[c]);
		if (mkdir(path, 0755) || (cg_fd[c] = open(path, O_RDONLY | O_DIRECTORY)) < 0) {
			printf("Error: %s: %s (-c: a cgroup v2 directory)\n", path,
			       strerror(errno));
			return -1;
		}
		cg_id[c] = tok_cgroup_id(cg_fd[c]);
		cgroup_add(cg_id[c], c == CG_B ? cg_id[CG_A] : c == CG_ROOT ? 0 : cg_id[CG_ROOT]);
	}
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg_base);
	cg_fd[CG_FILE] = open(path, O_RDONLY);
	snprintf(path, sizeof(path), "%s/cg1", dir);
	if (mkdir(path, 0755) == 0) {
		if (mount("cgroup", path, "cgroup", 0, "none,name=token_fuzz") == 0) {
			cg_fd[CG_V1] = open(path, O_RDONLY | O_DIRECTORY);
			umount2(path, MNT_DETACH);
		} else {
			printf("token_fuzz: no cgroup v1 hierarchy (%s): its root is not fuzzed\n",
			       strerror(errno));
		}
		rmdir(path);
	}
	printf("token_fuzz: cgroup scopes %s{,/a,/a/b,/c}\n", cg_base);
	return 0;
}

/* Remove the tree: false if a cgroup of it stays. */
static bool cgroups_teardown(void)
{
	static const char *const rel[] = { "/a/b", "/a", "/c", "" };
	char path[300];
	bool ok = true;
	size_t i;

	if (!cg_base[0])
		return true;
	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", cg_base, rel[i]);
		if (rmdir(path) && errno != ENOENT) {
			printf("FAIL: rmdir %s: %s\n", path, strerror(errno));
			ok = false;
		}
	}
	return ok;
}

int main(int argc, char **argv)
{
	const char *dir = NULL, *cgroup2_dir = "/sys/fs/cgroup";
	int secs = 20, c, st, rc_root, rc_nobody, i;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt(argc, argv, "d:t:n:s:c:v")) != -1) {
		switch (c) {
		case 'c': cgroup2_dir = optarg; break;
		case 'd': dir = optarg; break;
		case 't': secs = atoi(optarg); break;
		case 'n': max_iterations = atol(optarg); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'v': verbose = true; break;
		default: goto usage;
		}
	}
	if (!dir || secs < 2 || max_iterations < 0 || optind != argc)
		goto usage;
	if (!seed)
		seed = time(NULL);
	printf("token_fuzz: seed %llu, %ds", (unsigned long long)seed, secs);
	if (max_iterations)
		printf(", at most %ld iterations a phase", max_iterations);
	printf("\n");

	snprintf(dir_fz, sizeof(dir_fz), "%s/fz", dir);
	snprintf(dir_fz2, sizeof(dir_fz2), "%s/fz2", dir);
	snprintf(dir_plain, sizeof(dir_plain), "%s/plain", dir);
	mkdir(dir_fz, 0755);
	mkdir(dir_fz2, 0755);
	mkdir(dir_plain, 0777);
	chmod(dir_plain, 0777);
	if (mount("bpf", dir_fz, "bpf", 0, "mode=0777") ||
	    mount("bpf", dir_fz2, "bpf", 0, "mode=0777")) {
		printf("Error: mount -t bpf under %s: %s\n", dir, strerror(errno));
		return 1;
	}
	if (on_bpffs(dir_plain)) {
		printf("Error: %s is on BPF FS: give a DIR outside BPF FS\n", dir);
		return 2;
	}
	if (chdir(dir_plain)) {
		printf("Error: chdir %s: %s\n", dir_plain, strerror(errno));
		return 1;
	}
	dirfd_fz = open(dir_fz, O_RDONLY | O_DIRECTORY);
	dirfd_plain = open(dir_plain, O_RDONLY | O_DIRECTORY);
	if (cgroups_setup(dir, cgroup2_dir)) {
		cgroups_teardown();
		return 1;
	}
	closed_fd = open("/dev/null", O_RDONLY);
	close(closed_fd);
	for (i = 0; i < NFDS; i++)
		fds[i].fd = -1;

	rc_root = phase(false, secs * 500L);
	reset_fs();

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		seed_tokens();
		_exit(phase(true, secs * 500L));
	}
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st)) {
		printf("FAIL: the nobody phase did not finish (status %#x)\n", st);
		rc_nobody = 1;
	} else {
		rc_nobody = WEXITSTATUS(st);
	}
	reset_fs();
	umount2(dir_fz, MNT_DETACH);
	umount2(dir_fz2, MNT_DETACH);
	if (!cgroups_teardown())
		rc_root = 1;
	printf("token_fuzz: %s\n", rc_root || rc_nobody ? "FAIL" : "ok");
	return rc_root || rc_nobody ? 1 : 0;

usage:
	fprintf(stderr, "usage: token_fuzz -d DIR [-t SECONDS] [-n ITERATIONS] [-s SEED] "
		"[-c CGROUP2_DIR] [-v]\n");
	return 2;
}
