// SPDX-License-Identifier: GPL-2.0
/*
 * token_stress: races on BPF tokens, for a bounded time.
 *
 *   token_stress -d DIR [-t SECONDS] [-p PROCS] [-j THREADS] [-m MOUNTS] [-s SEED]
 *                [-c CGROUP2_DIR]
 *
 * Run as root. Mounts MOUNTS fresh BPF FS instances (mode 1777) under DIR
 * (which must exist), forks PROCS worker processes, half of them root and
 * half "nobody" (uid/gid 65534, no capabilities), each running THREADS
 * threads that until the deadline, at random, create root tokens (root),
 * derive tokens from the token fds they hold (on the parent's or another
 * BPF FS), open pins read-write or read-only, create maps, load BTF and
 * load programs through token fds and use them (map update, test run), pin
 * maps next to the tokens, unlink and rename pins, query token info and
 * close fds, all on one table of fds per process shared by its threads (so
 * fds are closed while other threads use them). Meanwhile the parent
 * unmounts (lazily) and remounts the BPF FS instances that hold the tokens.
 *
 * Cgroup scope: the parent makes a cgroup tree of its own,
 * CGROUP2_DIR/token_stress.PID (default CGROUP2_DIR /sys/fs/cgroup, a cgroup
 * v2 directory) with in, in/sub and out below it, no task in any. The
 * threads also create root tokens scoped to one of the four (scoped) and
 * derive tokens with a scope (scoped_der: within the parent's scope or not),
 * some with BPF_F_TOKEN_RELAXED_VERIFIER; load a cgroup skb program (r0 = 1:
 * pass) through a token they open from a pin, attach it (BPF_F_ALLOW_MULTI,
 * ingress) to a cgroup of the tree inside the token's scope (attach_in) or
 * outside it (attach_out: an unscoped token has every cgroup outside) and
 * mostly detach it again (detach); and remove and make again in/sub, out or
 * in with in/sub (cg_recycle: the scope of live tokens goes away, and with
 * it the programs attached there). At the end the tree is removed.
 *
 * Afterwards everything is closed, unlinked and unmounted and the number of
 * live tokens (the bpf_token slab cache) must come back to what it was.
 * Prints the operations done (ok / failed, by errno) and the token counts.
 * Exit status: 0 if the count came back and no invariant broke, 1 if not,
 * 2 on bad usage.
 *
 * Invariants checked on every call: a process without capabilities never
 * creates a token without a parent token, nor removes a cgroup of the tree;
 * it attaches a token's program to a cgroup only inside the token's scope,
 * and outside it the attach fails with EPERM (ENOENT if the cgroup was
 * removed meanwhile). Each operation must have succeeded at least once
 * (else the run tested nothing).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/prctl.h>

#include "tokutil.h"

enum op {
	OP_CREATE, OP_DERIVE, OP_OPEN, OP_MAP, OP_BTF, OP_PROG, OP_PIN_MAP,
	OP_UNLINK, OP_RENAME, OP_INFO, OP_CLOSE, OP_REMOUNT,
	OP_SCOPED, OP_SCOPED_DERIVE, OP_ATTACH_IN, OP_ATTACH_OUT, OP_DETACH,
	OP_CG_RECYCLE, NR_OPS,
};

static const char *const op_name[NR_OPS] = {
	"create", "derive", "open", "map_create", "btf_load", "prog_load",
	"pin_map", "unlink", "rename", "info", "close", "remount",
	"scoped", "scoped_der", "attach_in", "attach_out", "detach",
	"cg_recycle",
};

#define NR_ERR 512	/* errno histogram buckets (errno < NR_ERR) */

struct shared {
	volatile int stop;
	long ok[NR_OPS];
	long fail[NR_OPS];
	long err[NR_OPS][NR_ERR];
	long used;		/* map updates and test runs of created objects */
	long attached_nobody;	/* attaches in scope without capabilities */
	long violations;
	char violation[512];
};

static struct shared *sh;
static const char *dir;
static int nr_mounts = 3;
static long deadline_ms;

/* The cgroup tree: CG_ROOT is never removed before the end, the others are
 * removed and made again by cg_recycle.
 */
enum { CG_ROOT, CG_IN, CG_SUB, CG_OUT, NR_CG };
static const char *const cg_rel[NR_CG] = { "", "/in", "/in/sub", "/out" };
static const char *cgroup2_dir = "/sys/fs/cgroup";
static char cg_base[200];
static uint64_t cg_root_id;

#define SLOTS 12		/* pin names per mount: t0..t11, p0..p11 */
#define TABLE 48		/* fds per process */

struct table {
	pthread_mutex_t lock;
	int fd[TABLE];		/* -1 = empty; tokens and objects mixed */
	bool is_token[TABLE];
};

static struct table tab;
static bool privileged;

static void count(enum op op, long ret)
{
	if (ret >= 0) {
		__atomic_fetch_add(&sh->ok[op], 1, __ATOMIC_RELAXED);
	} else {
		__atomic_fetch_add(&sh->fail[op], 1, __ATOMIC_RELAXED);
		if (-ret < NR_ERR)
			__atomic_fetch_add(&sh->err[op][-ret], 1, __ATOMIC_RELAXED);
	}
}

static void violation(const char *fmt, const char *what, long ret)
{
	if (__atomic_fetch_add(&sh->violations, 1, __ATOMIC_RELAXED) == 0)
		snprintf(sh->violation, sizeof(sh->violation), fmt, what, ret);
}

static void pin_path(char *buf, size_t sz, int m, char kind, int slot)
{
	snprintf(buf, sz, "%s/m%d/%c%d", dir, m, kind, slot);
}

/* Put @fd in the table; the fd it evicts (if any) is closed. */
static void table_put(int fd, bool is_token, uint64_t r)
{
	int i = r % TABLE, old;

	pthread_mutex_lock(&tab.lock);
	old = tab.fd[i];
	tab.fd[i] = fd;
	tab.is_token[i] = is_token;
	pthread_mutex_unlock(&tab.lock);
	if (old >= 0)
		close(old);
}

/* An fd from the table (no ownership: other threads may close it any time),
 * preferably a token; sometimes a random small number.
 */
static int table_pick(uint64_t r, bool want_token)
{
	int i, fd = -1, n;

	if (r % 16 == 0)
		return (int)(r >> 8) % 64;
	pthread_mutex_lock(&tab.lock);
	for (n = 0; n < TABLE; n++) {
		i = (r / 16 + n) % TABLE;
		if (tab.fd[i] >= 0 && (!want_token || tab.is_token[i])) {
			fd = tab.fd[i];
			break;
		}
	}
	pthread_mutex_unlock(&tab.lock);
	return fd < 0 ? 0 : fd;
}

static void table_close(uint64_t r)
{
	int i = r % TABLE, fd;

	pthread_mutex_lock(&tab.lock);
	fd = tab.fd[i];
	tab.fd[i] = -1;
	pthread_mutex_unlock(&tab.lock);
	if (fd >= 0)
		count(OP_CLOSE, close(fd) ? -errno : 0);
}

/* The sets tokens are made from: what the uses below need, at random. */
static uint64_t rand_cmds(uint64_t r)
{
	uint64_t all = (1ULL << BPF_MAP_CREATE) | (1ULL << BPF_BTF_LOAD) |
		       (1ULL << BPF_PROG_LOAD) | (1ULL << TOK_CMD_TOKEN_CREATE);

	return r % 8 == 0 ? ~0ULL : all & (r | (r >> 7));
}

static uint64_t rand_maps(uint64_t r)
{
	uint64_t all = (1ULL << BPF_MAP_TYPE_ARRAY) | (1ULL << BPF_MAP_TYPE_HASH);

	return r % 8 == 0 ? ~0ULL : all & (r | (r >> 5));
}

static uint64_t rand_progs(uint64_t r)
{
	uint64_t all = (1ULL << BPF_PROG_TYPE_SOCKET_FILTER) | (1ULL << BPF_PROG_TYPE_XDP) |
		       (1ULL << BPF_PROG_TYPE_CGROUP_SKB);

	return r % 8 == 0 ? ~0ULL : all & (r | (r >> 3));
}

static void cg_path(char *buf, size_t sz, int cg)
{
	snprintf(buf, sz, "%s%s", cg_base, cg_rel[cg]);
}

/* An fd of a cgroup of the tree (-errno if it is gone). */
static int cg_open(int cg)
{
	char path[256];
	int fd;

	cg_path(path, sizeof(path), cg);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/* The ids of the cgroup @fd refers to and of its ancestors up to the tree's
 * root, child first: the cgroups whose scope contains it. For a live cgroup
 * the list stays true (cgroups do not move); for a removed one it may be
 * stale, but nothing is attached to a removed cgroup. Returns the count.
 */
static int cg_chain(int fd, uint64_t ids[NR_CG])
{
	int n = 0, up, cur = fd;

	while (n < NR_CG) {
		ids[n] = tok_cgroup_id(cur);
		if (!ids[n] || ids[n++] == cg_root_id)
			break;
		up = openat(cur, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cur != fd)
			close(cur);
		cur = up;
		if (cur < 0)
			break;
	}
	if (cur >= 0 && cur != fd)
		close(cur);
	return n;
}

static bool id_in(uint64_t id, const uint64_t *ids, int n)
{
	int i;

	for (i = 0; id && i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

/* A root token pinned at slot @slot of mount @m, with random sets (from
 * @r2), maybe relaxed and scoped to the cgroup @cg (0: none), counted as @op;
 * only a privileged process may make one, and everyone may use it.
 */
static void create_root(char *path, size_t sz, int m, int slot,
			uint32_t flags, int cg, uint64_t r2, enum op op)
{
	long ret;

	pin_path(path, sz, m, 't', slot);
	ret = tok_create(0, path, 0, flags, 0, cg, rand_cmds(r2 >> 16),
			 rand_maps(r2 >> 24), rand_progs(r2 >> 32), ~0ULL);
	count(op, ret);
	if (ret == 0 && !privileged)
		violation("%s: a process without capabilities created a root token (%ld)",
			  path, ret);
	if (ret == 0)
		chmod(path, 0666);
}

/* Open a token pin, load a cgroup skb program through it and attach it to a
 * cgroup of the tree inside or outside the token's scope, then mostly
 * detach it. The token fd and the program fd are the thread's own (no
 * other thread closes them), so that what the token's info says is what
 * the program was loaded through.
 */
static void cg_attach_op(uint64_t r, uint64_t r2, const char *tpath)
{
	struct tok_info info, info2;
	uint64_t chain[NR_CG], scope;
	int tfd, prog, cg = CG_ROOT, target, n, i, order[NR_CG];
	bool in_scope, honoured;
	enum op op;
	long ret;

	tfd = tok_obj_get(tpath, 0);
	if (tfd < 0)
		return;
	memset(&info, 0, sizeof(info));
	if (tok_get_info(tfd, &info, sizeof(info)))
		goto out_token;
	prog = tok_prog_load_r0(BPF_PROG_TYPE_CGROUP_SKB, BPF_CGROUP_INET_INGRESS, tfd, 1);
	if (prog < 0)
		goto out_token;
	/* A token that is live after the load was live at the load: its
	 * program is a token program when the token allows the load.
	 */
	memset(&info2, 0, sizeof(info2));
	honoured = !tok_get_info(tfd, &info2, sizeof(info2)) &&
		   !(info2.flags & TOK_INFO_REVOKED) &&
		   (info2.allowed_cmds >> BPF_PROG_LOAD & 1) &&
		   (info2.allowed_progs >> BPF_PROG_TYPE_CGROUP_SKB & 1) &&
		   (info2.allowed_attachs >> BPF_CGROUP_INET_INGRESS & 1);
	scope = info.cgroup_id;

	/* Inside or outside the scope, as asked: the cgroups of the tree, in
	 * an order of the seed's, the first one that is where we want it.
	 */
	for (i = 0; i < NR_CG; i++)
		order[i] = i;
	for (i = NR_CG - 1; i > 0; i--) {
		int j = (r >> (8 + 2 * i)) % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	target = -1;
	in_scope = false;
	for (i = 0; i < NR_CG; i++) {
		cg = order[i];
		target = cg_open(cg);
		if (target < 0)
			continue;
		n = cg_chain(target, chain);
		in_scope = id_in(scope, chain, n);
		if (in_scope == !(r2 & (1 << 22)))
			break;
		close(target);
		target = -1;
	}
	if (target < 0)
		goto out_prog;
	op = in_scope ? OP_ATTACH_IN : OP_ATTACH_OUT;
	ret = tok_prog_attach(prog, target, BPF_CGROUP_INET_INGRESS, BPF_F_ALLOW_MULTI);
	count(op, ret);
	if (!privileged && ret == 0 && in_scope)
		__atomic_fetch_add(&sh->attached_nobody, 1, __ATOMIC_RELAXED);
	if (!privileged && ret == 0 && !in_scope)
		violation("%s: a process without capabilities attached a token program "
			  "outside the token's cgroup scope (%ld)", tpath, ret);
	if (!privileged && honoured && !in_scope && ret != -EPERM && ret != -ENOENT)
		violation("%s: attach outside the token's cgroup scope by a process "
			  "without capabilities: %ld, not EPERM", tpath, ret);
	/* Mostly detached again; else it stays attached until its cgroup is
	 * removed (cg_recycle, the end), holding its token. Not the tree's
	 * root, which goes only at the end (64 programs at most).
	 */
	if (ret == 0 && (cg == CG_ROOT || (r2 >> 50) % 8))
		count(OP_DETACH, tok_prog_detach(prog, target, BPF_CGROUP_INET_INGRESS));
	close(target);
out_prog:
	close(prog);
out_token:
	close(tfd);
}

/* Remove a cgroup of the tree (in/sub, out, or in with in/sub) and make it
 * again: tokens scoped to it now have a scope that matches nothing, and the
 * programs attached there are detached.
 */
static void cg_recycle_op(uint64_t r)
{
	char path[256], sub[256];
	int cg = CG_IN + r % 3;
	long ret;

	cg_path(path, sizeof(path), cg);
	cg_path(sub, sizeof(sub), CG_SUB);
	if (cg == CG_IN)
		rmdir(sub);
	ret = rmdir(path) ? -errno : 0;
	count(OP_CG_RECYCLE, ret);
	if (ret == 0 && !privileged)
		violation("%s: a process without capabilities removed a cgroup (%ld)", path, ret);
	if (privileged) {
		mkdir(path, 0755);
		if (cg == CG_IN)
			mkdir(sub, 0755);
	}
}

static void do_op(uint64_t *seed)
{
	uint64_t r = tok_rand(seed), r2 = tok_rand(seed);
	int m = r2 % nr_mounts, slot = (r2 >> 8) % SLOTS, fd, obj, cg;
	uint32_t relaxed = (r2 >> 44) % 4 ? 0 : TOK_F_RELAXED_VERIFIER;
	char path[256], path2[256];
	long ret;

	switch (r % 40) {
	case 0 ... 2: /* root token */
		create_root(path, sizeof(path), m, slot, 0, 0, r2, OP_CREATE);
		break;
	case 3 ... 5: /* derived token */
		pin_path(path, sizeof(path), m, 't', slot);
		fd = table_pick(r, true);
		ret = tok_create(0, path, fd, 0, 0, 0, rand_cmds(r2 >> 16),
				 rand_maps(r2 >> 24), rand_progs(r2 >> 32), ~0ULL);
		count(OP_DERIVE, ret);
		if (ret == 0)
			chmod(path, 0666);
		break;
	case 6 ... 9: /* open a pin */
		pin_path(path, sizeof(path), m, r2 & (1 << 20) ? 'p' : 't', slot);
		fd = tok_obj_get(path, r2 & (1 << 21) ? BPF_F_RDONLY : 0);
		count(OP_OPEN, fd);
		if (fd >= 0)
			table_put(fd, !(r2 & (1 << 20)), r2 >> 24);
		break;
	case 10 ... 12:
		fd = table_pick(r, true);
		obj = tok_map_create(r2 & 1 ? BPF_MAP_TYPE_ARRAY : BPF_MAP_TYPE_HASH, fd);
		count(OP_MAP, obj);
		if (obj >= 0) {
			if (!tok_map_update(obj, 1, r))
				__atomic_fetch_add(&sh->used, 1, __ATOMIC_RELAXED);
			if (r2 & 2)
				close(obj);
			else
				table_put(obj, false, r2 >> 24);
		}
		break;
	case 13 ... 14:
		fd = table_pick(r, true);
		obj = tok_btf_load(fd);
		count(OP_BTF, obj);
		if (obj >= 0)
			close(obj);
		break;
	case 15 ... 17:
		fd = table_pick(r, true);
		obj = tok_prog_load(r2 & 1 ? BPF_PROG_TYPE_XDP : BPF_PROG_TYPE_SOCKET_FILTER,
				    0, fd);
		count(OP_PROG, obj);
		if (obj >= 0) {
			if ((r2 & 1) && tok_prog_test_run(obj) == 0)
				__atomic_fetch_add(&sh->used, 1, __ATOMIC_RELAXED);
			if (r2 & 2)
				close(obj);
			else
				table_put(obj, false, r2 >> 24);
		}
		break;
	case 18: /* pin a map made through a token next to the tokens */
		fd = table_pick(r, true);
		obj = tok_map_create(BPF_MAP_TYPE_ARRAY, fd);
		if (obj >= 0) {
			pin_path(path, sizeof(path), m, 'p', slot);
			ret = tok_obj_pin(obj, path);
			count(OP_PIN_MAP, ret);
			close(obj);
		}
		break;
	case 19 ... 21:
		pin_path(path, sizeof(path), m, r2 & (1 << 20) ? 'p' : 't', slot);
		count(OP_UNLINK, unlink(path) ? -errno : 0);
		break;
	case 22 ... 23:
		pin_path(path, sizeof(path), m, 't', slot);
		/* mostly within the mount (stays live), sometimes across */
		pin_path(path2, sizeof(path2), r2 & (1 << 20) ? (m + 1) % nr_mounts : m,
			 r2 & (1 << 21) ? 'p' : 't', (r2 >> 24) % SLOTS);
		count(OP_RENAME, rename(path, path2) ? -errno : 0);
		break;
	case 24 ... 25: {
		struct tok_info info;

		fd = table_pick(r, true);
		ret = tok_get_info(fd, &info, r2 & 1 ? 32 : sizeof(info));
		count(OP_INFO, ret);
		break;
	}
	case 32 ... 33: /* root token scoped to a cgroup of the tree */
		cg = cg_open((r2 >> 40) % NR_CG);
		if (cg < 0)	/* being made again */
			break;
		create_root(path, sizeof(path), m, slot, relaxed, cg, r2, OP_SCOPED);
		close(cg);
		break;
	case 34 ... 35: /* derived token with a scope, within its parent's or not */
		cg = cg_open((r2 >> 40) % NR_CG);
		if (cg < 0)
			break;
		pin_path(path, sizeof(path), m, 't', slot);
		fd = table_pick(r, true);
		ret = tok_create(0, path, fd, relaxed, 0, cg, rand_cmds(r2 >> 16),
				 rand_maps(r2 >> 24), rand_progs(r2 >> 32), ~0ULL);
		count(OP_SCOPED_DERIVE, ret);
		close(cg);
		if (ret == 0)
			chmod(path, 0666);
		break;
	case 36 ... 38: /* a token's cgroup program, attached and detached */
		pin_path(path, sizeof(path), m, 't', slot);
		cg_attach_op(r, r2, path);
		break;
	case 39:
		if ((r >> 40) % 8 == 0) {
			cg_recycle_op(r2 >> 20);
			break;
		}
		/* fall through */
	default:
		table_close(r2);
		break;
	}
}

static long seed0;

static void *worker_thread(void *arg)
{
	uint64_t seed = (uint64_t)seed0 * 1000003 + (uintptr_t)arg * 7919 + 1;

	while (!sh->stop && tok_now_ms() < deadline_ms)
		do_op(&seed);
	return NULL;
}

static bool capable_any(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	return syscall(__NR_capget, &h, d) || d[0].effective || d[1].effective ||
	       d[0].permitted || d[1].permitted;
}

static int worker(int idx, int threads)
{
	pthread_t th[16];
	int i;

	privileged = idx % 2 == 0;
	if (!privileged) {
		if (tok_become_nobody()) {
			perror("token_stress: dropping to nobody");
			return 1;
		}
		if (tok_caps_set_effective(true) == 0 && capable_any()) {
			fprintf(stderr, "token_stress: nobody still has capabilities\n");
			return 1;
		}
	}
	pthread_mutex_init(&tab.lock, NULL);
	for (i = 0; i < TABLE; i++)
		tab.fd[i] = -1;
	for (i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, worker_thread, (void *)(uintptr_t)(idx * 16 + i + 1));
	for (i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < TABLE; i++)
		if (tab.fd[i] >= 0)
			close(tab.fd[i]);
	return 0;
}

static int mount_bpffs(int m)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/m%d", dir, m);
	mkdir(path, 0755);
	return mount("bpf", path, "bpf", 0, "mode=1777") ? -errno : 0;
}

static void umount_bpffs(int m)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/m%d", dir, m);
	count(OP_REMOUNT, umount2(path, MNT_DETACH) ? -errno : 0);
}

/* The cgroup tree, made before the workers start. */
static int cg_setup(void)
{
	char path[256];
	int cg, fd;

	snprintf(cg_base, sizeof(cg_base), "%s/token_stress.%d", cgroup2_dir, (int)getpid());
	for (cg = 0; cg < NR_CG; cg++) {
		cg_path(path, sizeof(path), cg);
		if (mkdir(path, 0755)) {
			fprintf(stderr, "Error: mkdir %s: %s (-c: a cgroup v2 directory)\n",
				path, strerror(errno));
			return -1;
		}
	}
	fd = cg_open(CG_ROOT);
	if (fd < 0) {
		fprintf(stderr, "Error: %s: %s\n", cg_base, strerror(-fd));
		return -1;
	}
	cg_root_id = tok_cgroup_id(fd);
	close(fd);
	return 0;
}

/* Remove the tree, children first: false if a cgroup of it stays. */
static bool cg_teardown(void)
{
	static const int order[NR_CG] = { CG_SUB, CG_IN, CG_OUT, CG_ROOT };
	char path[256];
	bool ok = true;
	int i;

	if (!cg_base[0])
		return true;
	for (i = 0; i < NR_CG; i++) {
		cg_path(path, sizeof(path), order[i]);
		if (rmdir(path) && errno != ENOENT) {
			printf("FAIL: rmdir %s: %s\n", path, strerror(errno));
			ok = false;
		}
	}
	return ok;
}

static void usage(void)
{
	fprintf(stderr, "usage: token_stress -d DIR [-t SECONDS] [-p PROCS] [-j THREADS] "
		"[-m MOUNTS] [-s SEED] [-c CGROUP2_DIR]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int secs = 10, procs = 4, threads = 2, c, i, o, e, status, bad = 0;
	long baseline, after, ops = 0;
	uint64_t seed;
	pid_t pid[64];

	while ((c = getopt(argc, argv, "d:t:p:j:m:s:c:")) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 't': secs = atoi(optarg); break;
		case 'p': procs = atoi(optarg); break;
		case 'j': threads = atoi(optarg); break;
		case 'm': nr_mounts = atoi(optarg); break;
		case 's': seed0 = atol(optarg); break;
		case 'c': cgroup2_dir = optarg; break;
		default: usage();
		}
	}
	if (!dir || secs < 1 || procs < 1 || procs > 64 || threads < 1 || threads > 16 ||
	    nr_mounts < 1 || nr_mounts > 16 || optind != argc)
		usage();
	if (!seed0)
		seed0 = time(NULL);

	baseline = tok_wait_count(0, 2000);
	if (baseline < 0) {
		fprintf(stderr, "Error: no bpf_token cache in /proc/slabinfo "
			"(kernel without the token cache, or booted without slab_nomerge)\n");
		return 1;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (i = 0; i < nr_mounts; i++) {
		e = mount_bpffs(i);
		if (e) {
			fprintf(stderr, "Error: mount -t bpf %s/m%d: %s\n", dir, i, strerror(-e));
			return 1;
		}
	}
	if (cg_setup()) {
		cg_teardown();
		return 1;
	}
	printf("token_stress: seed %ld, %ds, %d processes x %d threads, %d BPF FS, "
	       "live tokens before: %ld\n", seed0, secs, procs, threads, nr_mounts, baseline);
	printf("token_stress: cgroup scopes %s{,/in,/in/sub,/out}\n", cg_base);
	fflush(stdout);

	deadline_ms = tok_now_ms() + secs * 1000L;
	for (i = 0; i < procs; i++) {
		pid[i] = fork();
		if (pid[i] < 0) {
			perror("fork");
			sh->stop = 1;
			procs = i;
			break;
		}
		if (pid[i] == 0)
			_exit(worker(i, threads));
	}

	/* The parent unmounts and remounts the instances under the workers. */
	seed = seed0;
	while (tok_now_ms() < deadline_ms && !sh->stop) {
		uint64_t r = tok_rand(&seed);

		usleep(50000 + r % 250000);
		umount_bpffs(r % nr_mounts);
		if (mount_bpffs(r % nr_mounts))
			bad = 1;
	}
	sh->stop = 1;
	for (i = 0; i < procs; i++) {
		if (waitpid(pid[i], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "token_stress: worker %d failed (status 0x%x)\n", i, status);
			bad = 1;
		}
	}

	/* Clean up: every pin goes with its instance, every program still
	 * attached with its cgroup.
	 */
	for (i = 0; i < nr_mounts; i++)
		umount_bpffs(i);
	if (!cg_teardown())
		bad = 1;

	for (o = 0; o < NR_OPS; o++) {
		printf("  %-10s %8ld ok %8ld failed", op_name[o], sh->ok[o], sh->fail[o]);
		ops += sh->ok[o] + sh->fail[o];
		for (e = 1; e < NR_ERR; e++)
			if (sh->err[o][e] && strcmp(tok_errname(e), "other"))
				printf(" %s:%ld", tok_errname(e), sh->err[o][e]);
			else if (sh->err[o][e])
				printf(" errno%d:%ld", e, sh->err[o][e]);
		printf("\n");
	}
	printf("  objects used (map updates, test runs): %ld\n", sh->used);
	printf("  token programs attached in their cgroup scope without capabilities: %ld\n",
	       sh->attached_nobody);
	printf("token_stress: %ld operations\n", ops);

	after = tok_wait_count(baseline, 20000);
	printf("live tokens: before %ld, after %ld\n", baseline, after);
	if (after != baseline) {
		printf("FAIL: %ld token(s) not freed\n", after - baseline);
		bad = 1;
	}
	for (o = 0; o < NR_OPS; o++)
		if (o != OP_REMOUNT && o != OP_CLOSE && sh->ok[o] == 0 && o != OP_PIN_MAP) {
			printf("FAIL: no successful %s at all\n", op_name[o]);
			bad = 1;
		}
	if (sh->violations) {
		printf("FAIL: %ld invariant violation(s), first: %s\n", sh->violations, sh->violation);
		bad = 1;
	}
	printf("token_stress: %s\n", bad ? "FAIL" : "ok");
	return bad;
}
