// SPDX-License-Identifier: GPL-2.0
/*
 * token_fault: systematic fault injection into the BPF token paths.
 *
 *   token_fault -d DIR [-n MAX] [-c CGROUP2_DIR] [OP...]
 *
 * Run as root, with debugfs mounted on /sys/kernel/debug and a kernel with
 * CONFIG_FAULT_INJECTION, FAILSLAB, FAIL_PAGE_ALLOC and
 * FAULT_INJECTION_DEBUG_FS. Mounts a BPF FS instance of its own at DIR/fi
 * (DIR must exist) and configures failslab and fail_page_alloc so that
 * every allocation may fail (ignore-gfp-wait, ignore-gfp-highmem off,
 * min-order 0) and nothing is logged (verbose 0).
 *
 * For each operation, for n = 1, 2, ...: the n-th fault point the operation
 * meets is made to fail through /proc/thread-self/fail-nth, and
 *  - if the fault was injected and the call failed, the call must leave
 *    nothing pinned and no new fd, and once the test's own token is
 *    unlinked and closed, the number of live tokens (bpf_token slab cache)
 *    must be back to where it was: a reference leaked on an error path keeps
 *    a token alive;
 *  - if the fault was injected and the call succeeded, the failure hit an
 *    optional allocation ("tolerated"), and the result must be complete;
 *  - if the fault was not injected (the call met fewer than n fault
 *    points), the call must succeed, and the operation is done: n - 1
 *    failure points were exercised.
 * Operations (all by default): create (root token), create_userns
 * (BPF_F_TOKEN_USERNS), create_cgroup (BPF_F_TOKEN_CGROUP), derive (derived
 * token, no capabilities), obj_get, map_create, btf_load, prog_load
 * (through a token, no capabilities).
 * Prints one line per operation with the number of failure points and the
 * errors returned.
 *
 * create_cgroup scopes its tokens to a cgroup of its own,
 * CGROUP2_DIR/token_fault.PID/scope (CGROUP2_DIR: a cgroup v2 directory,
 * default /sys/fs/cgroup), removed at the end: once it is, the cgroup must
 * be freed (token_fault.PID's cgroup.stat counts no dying descendant): a
 * cgroup reference leaked on an error path keeps it dying.
 *
 * Exit status: 0 if every check held, 1 if not, 2 on bad usage.
 */
#define _GNU_SOURCE
#include <sys/mount.h>
#include <sys/stat.h>

#include "tokutil.h"

#define ALL_CMDS ((1ULL << BPF_MAP_CREATE) | (1ULL << BPF_BTF_LOAD) | \
		  (1ULL << BPF_PROG_LOAD) | (1ULL << TOK_CMD_TOKEN_CREATE))

static char fi_dir[256], parent_path[300], child_path[300];
static int fail_fd = -1, parent_fd = -1, userns_fd = -1, cgroup_fd = -1;
static const char *cgroup2_dir = "/sys/fs/cgroup";
static char cg_dir[300], cg_scope[320];
static long baseline;
static int max_n = 5000;
static int failures;

#define NR_ERRS_MAX 1024

#define FAIL(fmt, ...) do {						\
		printf("FAIL: " fmt "\n", ##__VA_ARGS__);		\
		failures++;						\
	} while (0)

static int knob(const char *file, const char *val)
{
	char path[256];
	int fd, ok;

	snprintf(path, sizeof(path), "/sys/kernel/debug/%s", file);
	fd = open(path, O_WRONLY);
	if (fd < 0) {
		printf("Error: %s: %s\n", path, strerror(errno));
		return -1;
	}
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	if (!ok) {
		printf("Error: writing %s to %s: %s\n", val, path, strerror(errno));
		return -1;
	}
	return 0;
}

static int setup_fault_injection(void)
{
	static const char *const k[][2] = {
		{ "failslab/verbose", "0" },
		{ "failslab/ignore-gfp-wait", "N" },
		{ "failslab/probability", "0" },
		{ "failslab/times", "-1" },
		{ "fail_page_alloc/verbose", "0" },
		{ "fail_page_alloc/ignore-gfp-wait", "N" },
		{ "fail_page_alloc/ignore-gfp-highmem", "N" },
		{ "fail_page_alloc/min-order", "0" },
		{ "fail_page_alloc/probability", "0" },
		{ "fail_page_alloc/times", "-1" },
	};
	size_t i;

	for (i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (knob(k[i][0], k[i][1]))
			return -1;
	fail_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fail_fd < 0) {
		printf("Error: /proc/thread-self/fail-nth: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

static void fail_nth_set(int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", n);

	if (pwrite(fail_fd, buf, len, 0) != len) {
		printf("Error: writing fail-nth: %s\n", strerror(errno));
		exit(1);
	}
}

/* True if the fault set up by fail_nth_set() was injected. */
static bool fail_nth_injected(void)
{
	char buf[16] = "";

	if (pread(fail_fd, buf, sizeof(buf) - 1, 0) <= 0) {
		printf("Error: reading fail-nth: %s\n", strerror(errno));
		exit(1);
	}
	return atoi(buf) == 0;
}

/* The lowest free fd: an fd leaked by a failed call shows up as a change. */
static int next_fd(void)
{
	int fd = dup(0);

	if (fd >= 0)
		close(fd);
	return fd;
}

struct op {
	const char *name;
	bool no_caps;		/* run the call without effective capabilities */
	uint64_t parent_cmds;	/* 0: no parent token needed */
	bool pins;		/* the call pins child_path */
	long (*call)(void);
};

static long call_create(void)
{
	return tok_create(0, child_path, 0, 0, 0, 0, ALL_CMDS, ~0ULL, ~0ULL, ~0ULL);
}

static long call_create_userns(void)
{
	return tok_create(0, child_path, 0, TOK_F_USERNS, userns_fd, 0, ALL_CMDS,
			  ~0ULL, ~0ULL, ~0ULL);
}

static long call_create_cgroup(void)
{
	return tok_create(0, child_path, 0, 0, 0, cgroup_fd, ALL_CMDS, ~0ULL, ~0ULL,
			  ~0ULL);
}

static long call_derive(void)
{
	return tok_create(0, child_path, parent_fd, 0, 0, 0, 1ULL << BPF_MAP_CREATE,
			  1ULL << BPF_MAP_TYPE_ARRAY, 0, 0);
}

static long call_obj_get(void)
{
	return tok_obj_get(parent_path, 0);
}

static long call_map(void)
{
	return tok_map_create(BPF_MAP_TYPE_ARRAY, parent_fd);
}

static long call_btf(void)
{
	return tok_btf_load(parent_fd);
}

static long call_prog(void)
{
	return tok_prog_load(BPF_PROG_TYPE_XDP, 0, parent_fd);
}

static const struct op ops[] = {
	{ "create", false, 0, true, call_create },
	{ "create_userns", false, 0, true, call_create_userns },
	{ "create_cgroup", false, 0, true, call_create_cgroup },
	{ "derive", true, ALL_CMDS, true, call_derive },
	{ "obj_get", true, ALL_CMDS, false, call_obj_get },
	{ "map_create", true, 1ULL << BPF_MAP_CREATE, false, call_map },
	{ "btf_load", true, 1ULL << BPF_BTF_LOAD, false, call_btf },
	{ "prog_load", true, 1ULL << BPF_PROG_LOAD, false, call_prog },
};

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* The test's own parent token, made and opened without faults. */
static int prepare(const struct op *op)
{
	int err;

	if (!op->parent_cmds)
		return 0;
	err = tok_create(0, parent_path, 0, 0, 0, 0, op->parent_cmds, ~0ULL, ~0ULL, ~0ULL);
	if (err) {
		FAIL("%s: creating the test's token %s: %s", op->name, parent_path,
		     strerror(-err));
		return err;
	}
	parent_fd = tok_obj_get(parent_path, 0);
	if (parent_fd < 0) {
		FAIL("%s: opening the test's token: %s", op->name, strerror(-parent_fd));
		return parent_fd;
	}
	return 0;
}

/* Undo everything; false if the token count did not come back. */
static bool cleanup(const struct op *op, long ret, int n)
{
	long live;

	if (ret > 0 && !op->pins)
		close(ret);
	unlink(child_path);
	if (parent_fd >= 0)
		close(parent_fd);
	parent_fd = -1;
	unlink(parent_path);
	live = tok_wait_count(baseline, 3000);
	if (live != baseline) {
		FAIL("%s, fault %d: %ld live token(s) after cleanup, %ld before: "
		     "a token reference leaked", op->name, n, live, baseline);
		baseline = live;	/* report each leak once */
		return false;
	}
	return true;
}

static void run_op(const struct op *op)
{
	long ret, errs[NR_ERRS_MAX] = { 0 };
	int n, fd0, fd1, points = -1, cleanly = 0, tolerated = 0, e;
	bool injected;

	for (n = 1; n <= max_n; n++) {
		if (prepare(op))
			break;
		fd0 = next_fd();
		if (op->no_caps && tok_caps_set_effective(false)) {
			FAIL("%s: dropping capabilities", op->name);
			break;
		}
		fail_nth_set(n);
		ret = op->call();
		injected = fail_nth_injected();
		fail_nth_set(0);
		if (op->no_caps && tok_caps_set_effective(true)) {
			FAIL("%s: restoring capabilities", op->name);
			exit(1);
		}
		fd1 = next_fd();

		if (!injected) {
			if (ret < 0)
				FAIL("%s: fails without a fault injected: %s", op->name,
				     strerror(-ret));
			else if (op->pins && !exists(child_path))
				FAIL("%s: succeeded but %s is not pinned", op->name, child_path);
			points = n - 1;
			cleanup(op, ret, n);
			break;
		}
		if (ret >= 0) {
			tolerated++;
			if (op->pins && !exists(child_path))
				FAIL("%s, fault %d: succeeded but nothing is pinned", op->name, n);
		} else {
			e = -ret < NR_ERRS_MAX ? -ret : 0;
			errs[e]++;
			if (op->pins && exists(child_path))
				FAIL("%s, fault %d: failed (%s) but %s is pinned", op->name, n,
				     strerror(-ret), child_path);
			else if (fd1 != fd0)
				FAIL("%s, fault %d: failed (%s) and left fd %d open", op->name, n,
				     strerror(-ret), fd0);
			else
				cleanly++;
		}
		if (!cleanup(op, ret, n))
			continue;
	}
	if (points < 0 && n > max_n) {
		FAIL("%s: still failing after %d fault points (raise -n?)", op->name, max_n);
		points = n - 1;
	}
	printf("%s: %d failure points, %d failed cleanly, %d tolerated", op->name, points,
	       cleanly, tolerated);
	for (e = 0; e < NR_ERRS_MAX; e++)
		if (errs[e])
			printf(" %s:%ld", e ? tok_errname(e) : "errno>=1024", errs[e]);
	printf("\n");
	fflush(stdout);
}

/* The cgroup create_cgroup scopes its tokens to: CGROUP2_DIR/token_fault.PID/
 * scope, and an fd of it.
 */
static int cgroup_setup(void)
{
	snprintf(cg_dir, sizeof(cg_dir), "%s/token_fault.%d", cgroup2_dir, (int)getpid());
	snprintf(cg_scope, sizeof(cg_scope), "%s/scope", cg_dir);
	if (mkdir(cg_dir, 0755) || mkdir(cg_scope, 0755)) {
		printf("Error: mkdir %s: %s (-c: a cgroup v2 directory)\n", cg_scope,
		       strerror(errno));
		rmdir(cg_dir);
		cg_dir[0] = '\0';
		return -1;
	}
	cgroup_fd = open(cg_scope, O_RDONLY | O_DIRECTORY);
	if (cgroup_fd < 0) {
		printf("Error: %s: %s\n", cg_scope, strerror(errno));
		return -1;
	}
	return 0;
}

/* cgroup.stat's nr_dying_descendants of @dir, or -1. */
static long dying_descendants(const char *dir)
{
	char path[350], line[128];
	long n = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/cgroup.stat", dir);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "nr_dying_descendants %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* Remove the scope: it must be freed, not stay dying. */
static void cgroup_teardown(void)
{
	long end, n;

	if (cgroup_fd >= 0)
		close(cgroup_fd);
	if (!cg_dir[0])
		return;
	if (rmdir(cg_scope) && errno != ENOENT)
		FAIL("rmdir %s: %s", cg_scope, strerror(errno));
	end = tok_now_ms() + 10000;
	while ((n = dying_descendants(cg_dir)) > 0 && tok_now_ms() < end)
		usleep(20000);
	if (n != 0)
		FAIL("%s is still dying 10 s after its removal (nr_dying_descendants %ld): "
		     "a cgroup reference leaked", cg_scope, n);
	if (rmdir(cg_dir))
		FAIL("rmdir %s: %s", cg_dir, strerror(errno));
}

int main(int argc, char **argv)
{
	const char *dir = NULL;
	int c, i, nsel = 0;
	size_t k;
	bool sel[sizeof(ops) / sizeof(ops[0])] = { false };

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt(argc, argv, "d:n:c:")) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'n': max_n = atoi(optarg); break;
		case 'c': cgroup2_dir = optarg; break;
		default: goto usage;
		}
	}
	if (!dir || max_n < 1)
		goto usage;
	for (i = optind; i < argc; i++) {
		for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
			if (!strcmp(argv[i], ops[k].name))
				break;
		if (k == sizeof(ops) / sizeof(ops[0])) {
			printf("Error: unknown operation '%s'\n", argv[i]);
			return 2;
		}
		sel[k] = true;
		nsel++;
	}

	snprintf(fi_dir, sizeof(fi_dir), "%s/fi", dir);
	snprintf(parent_path, sizeof(parent_path), "%s/parent", fi_dir);
	snprintf(child_path, sizeof(child_path), "%s/child", fi_dir);
	mkdir(fi_dir, 0755);
	if (mount("bpf", fi_dir, "bpf", 0, NULL)) {
		printf("Error: mount -t bpf %s: %s\n", fi_dir, strerror(errno));
		return 1;
	}
	userns_fd = open("/proc/self/ns/user", O_RDONLY);
	if (userns_fd < 0) {
		printf("Error: /proc/self/ns/user: %s\n", strerror(errno));
		return 1;
	}
	baseline = tok_wait_count(0, 2000);
	if (baseline < 0) {
		printf("Error: no bpf_token cache in /proc/slabinfo\n");
		return 1;
	}
	for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		if ((!nsel || sel[k]) && ops[k].call == call_create_cgroup && cgroup_setup()) {
			cgroup_teardown();
			return 1;
		}
	if (setup_fault_injection()) {
		cgroup_teardown();
		return 1;
	}
	printf("token_fault: live tokens before: %ld\n", baseline);

	for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		if (!nsel || sel[k])
			run_op(&ops[k]);

	cgroup_teardown();
	umount2(fi_dir, MNT_DETACH);
	printf("token_fault: %s (%d failed checks)\n", failures ? "FAIL" : "ok", failures);
	return failures ? 1 : 0;

usage:
	fprintf(stderr, "usage: token_fault -d DIR [-n MAX] [-c CGROUP2_DIR] [OP...]\n");
	return 2;
}
