// SPDX-License-Identifier: GPL-2.0
/*
 * bench: sections l and m, many pins. The tree of section l (OTHERS pins
 * and up to TOKENS tokens in 100 directories on two BPF FS), bpftool run
 * from a chroot on tmpfs, `bpftool token list` against the floor and a
 * minimal lister; token create rate and kernel memory.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "bench.h"

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

int setup_tree(void)
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

void remove_tree(void)
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
int set_tokens(int n, uint64_t *ns)
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

/* Is @fd a BPF token? The way bpftool tells: the name of its anon inode,
 * read through an fd of /proc/self/fd opened once (the bench forks only
 * to exec).
 */
static bool fd_is_token(int fd)
{
	static int dir_fd = -1;
	char name[16], buf[64];
	ssize_t n;

	if (dir_fd < 0)
		dir_fd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0)
		return false;
	snprintf(name, sizeof(name), "%d", fd);
	n = readlinkat(dir_fd, name, buf, sizeof(buf) - 1);
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

struct list_result list_res[MAX_STEPS];
int nr_steps;
double spawn_ms;			/* `bpftool version` */
double create_samples[LIST_ROUNDS * MAX_STEPS + 1];
int nr_create_samples;

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
long bytes_per_token = -1;
double create_first_per_s;

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
struct growth growths[8];
int nr_growths;

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

int section_memory(void)
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

int section_list(void)
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
