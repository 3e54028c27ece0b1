// SPDX-License-Identifier: GPL-2.0
/*
 * token_stress: races on BPF tokens, for a bounded time.
 *
 *   token_stress -d DIR [-t SECONDS] [-p PROCS] [-j THREADS] [-m MOUNTS] [-s SEED]
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
 * Afterwards everything is closed, unlinked and unmounted and the number of
 * live tokens (the bpf_token slab cache) must come back to what it was.
 * Prints the operations done (ok / failed, by errno) and the token counts.
 * Exit status: 0 if the count came back and no invariant broke, 1 if not,
 * 2 on bad usage.
 *
 * Invariant checked on every call: a process without capabilities never
 * creates a token without a parent token. Each operation must have
 * succeeded at least once (else the run tested nothing).
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
#include <grp.h>

#include "tokutil.h"

enum op {
	OP_CREATE, OP_DERIVE, OP_OPEN, OP_MAP, OP_BTF, OP_PROG, OP_PIN_MAP,
	OP_UNLINK, OP_RENAME, OP_INFO, OP_CLOSE, OP_REMOUNT, NR_OPS,
};

static const char *const op_name[NR_OPS] = {
	"create", "derive", "open", "map_create", "btf_load", "prog_load",
	"pin_map", "unlink", "rename", "info", "close", "remount",
};

#define NR_ERR 512	/* errno histogram buckets (errno < NR_ERR) */

struct shared {
	volatile int stop;
	long ok[NR_OPS];
	long fail[NR_OPS];
	long err[NR_OPS][NR_ERR];
	long used;		/* map updates and test runs of created objects */
	long violations;
	char violation[512];
};

static struct shared *sh;
static const char *dir;
static int nr_mounts = 3;
static long deadline_ms;

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
	uint64_t all = (1ULL << BPF_PROG_TYPE_SOCKET_FILTER) | (1ULL << BPF_PROG_TYPE_XDP);

	return r % 8 == 0 ? ~0ULL : all & (r | (r >> 3));
}

static void do_op(uint64_t *seed)
{
	uint64_t r = tok_rand(seed), r2 = tok_rand(seed);
	int m = r2 % nr_mounts, slot = (r2 >> 8) % SLOTS, fd, obj;
	char path[256], path2[256];
	long ret;

	switch (r % 32) {
	case 0 ... 2: /* root token */
		pin_path(path, sizeof(path), m, 't', slot);
		ret = tok_create(0, path, 0, 0, 0, rand_cmds(r2 >> 16),
				 rand_maps(r2 >> 24), rand_progs(r2 >> 32), ~0ULL);
		count(OP_CREATE, ret);
		if (ret == 0 && !privileged)
			violation("%s: a process without capabilities created a root token (%ld)",
				  path, ret);
		if (ret == 0)
			chmod(path, 0666);
		break;
	case 3 ... 5: /* derived token */
		pin_path(path, sizeof(path), m, 't', slot);
		fd = table_pick(r, true);
		ret = tok_create(0, path, fd, 0, 0, rand_cmds(r2 >> 16),
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
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534)) {
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

static void usage(void)
{
	fprintf(stderr, "usage: token_stress -d DIR [-t SECONDS] [-p PROCS] [-j THREADS] "
		"[-m MOUNTS] [-s SEED]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int secs = 10, procs = 4, threads = 2, c, i, o, e, status, bad = 0;
	long baseline, after, ops = 0;
	uint64_t seed;
	pid_t pid[64];

	while ((c = getopt(argc, argv, "d:t:p:j:m:s:")) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 't': secs = atoi(optarg); break;
		case 'p': procs = atoi(optarg); break;
		case 'j': threads = atoi(optarg); break;
		case 'm': nr_mounts = atoi(optarg); break;
		case 's': seed0 = atol(optarg); break;
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
	printf("token_stress: seed %ld, %ds, %d processes x %d threads, %d BPF FS, "
	       "live tokens before: %ld\n", seed0, secs, procs, threads, nr_mounts, baseline);
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

	/* Clean up: every pin goes with its instance. */
	for (i = 0; i < nr_mounts; i++)
		umount_bpffs(i);

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
