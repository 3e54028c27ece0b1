// SPDX-License-Identifier: GPL-2.0
/*
 * token_load: libbpf's object-level BPF token (bpf_object_open_opts
 * .bpf_token_path, LIBBPF_BPF_TOKEN_PATH) seen from an unprivileged process.
 *
 *   token_load [-v] [-l] [-t CASE] [-p PROGS_DIR]
 *
 * Must run as root on the patched kernel with BPF FS at /sys/fs/bpf. For each
 * case, root creates a directory under /sys/fs/bpf and the tokens/objects
 * the case needs (tokens usable by everyone, mode 0666: using a token takes
 * a read-write fd; other pinned files 0644), then
 * a child drops to uid/gid 65534 with no groups and no capabilities at all
 * and runs the case; root removes the directory afterwards.
 *
 * Output is TAP: "1..N", then "ok N CASE" / "not ok N CASE"; diagnostics
 * (and, on failure or with -v, libbpf's whole log) as "# " lines. Exit
 * status 0 only if every case passed. -l lists the cases, -t runs one.
 * PROGS_DIR (default $PROGS_OUTPUT, else <dir of this binary>/../progs)
 * holds xdp_token.bpf.o, xdp_stack.bpf.o and sockfilter.bpf.o.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#define NOBODY		65534
#define BPFFS		"/sys/fs/bpf"
#define OBJ_NAME	"xdp_token"		/* libbpf's name of xdp_token.bpf.o */
#define PROG_NAME	"xdp_token_prog"
#define MAP_NAME	"token_stats"

/* What xdp_token.bpf.o needs, exactly */
#define XDP_CMDS	(1ULL << BPF_MAP_CREATE | 1ULL << BPF_PROG_LOAD | 1ULL << BPF_BTF_LOAD)
#define XDP_MAPS	(1ULL << BPF_MAP_TYPE_ARRAY)
#define XDP_PROGS	(1ULL << BPF_PROG_TYPE_XDP)
#define XDP_ATTACH	(1ULL << BPF_XDP)

static bool verbose;
static char progs_dir[PATH_MAX - 64];

/* Paths of one case, all below dir (a fresh directory of the BPF FS) */
static char dir[256], token_path[PATH_MAX], map_path[PATH_MAX];

/* ------------------------------------------------------------------------ */
/* The child's libbpf log and diagnostics */

static char libbpf_log[1 << 16];
static size_t libbpf_log_len;

static int print_cb(enum libbpf_print_level level, const char *fmt, va_list args)
{
	size_t room = sizeof(libbpf_log) - libbpf_log_len;
	int n;

	if (room <= 1)
		return 0;
	n = vsnprintf(libbpf_log + libbpf_log_len, room, fmt, args);
	if (n > 0)
		libbpf_log_len += (size_t)n < room ? (size_t)n : room - 1;
	return n;
}

static void dump_libbpf_log(void)
{
	char *line, *save = NULL;

	if (!libbpf_log_len)
		return;
	printf("# ---- libbpf log ----\n");
	for (line = strtok_r(libbpf_log, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		printf("#   %s\n", line);
	printf("# --------------------\n");
	fflush(stdout);
	/* strtok_r cut the log: it is of no more use */
	libbpf_log_len = 0;
	libbpf_log[0] = '\0';
}

static bool log_has(const char *s)
{
	return strstr(libbpf_log, s) != NULL;
}

static int failures;

#define diag(fmt, ...) printf("# " fmt "\n", ##__VA_ARGS__)

/* CHECK(cond, fmt, ...): on failure, say which and where, and count it */
#define CHECK(cond, fmt, ...) ({						\
	bool __ok = (cond);							\
	if (!__ok) {								\
		diag("%s:%d: check failed: %s: " fmt, __func__, __LINE__,	\
		     #cond, ##__VA_ARGS__);					\
		failures++;							\
	}									\
	__ok;									\
})

/* ------------------------------------------------------------------------ */
/* Running as nobody */

static int drop_privileges(void)
{
	cap_t caps;
	cap_flag_value_t v;
	int c;

	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY)) {
		diag("dropping to uid/gid %d: %s", NOBODY, strerror(errno));
		return -1;
	}
	/* uid 0 -> 65534 already cleared the capabilities: make sure */
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	caps = cap_init();
	if (!caps || cap_clear(caps) || cap_set_proc(caps)) {
		diag("clearing capabilities: %s", strerror(errno));
		return -1;
	}
	cap_free(caps);

	caps = cap_get_proc();
	if (!caps)
		return -1;
	for (c = 0; c <= CAP_LAST_CAP; c++) {
		if (cap_get_flag(caps, c, CAP_EFFECTIVE, &v) || v != CAP_CLEAR ||
		    cap_get_flag(caps, c, CAP_PERMITTED, &v) || v != CAP_CLEAR) {
			diag("capability %d still set", c);
			cap_free(caps);
			return -1;
		}
	}
	cap_free(caps);
	if (getuid() != NOBODY || geteuid() != NOBODY || getgid() != NOBODY) {
		diag("not nobody");
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* Root's side: tokens and other pinned objects */

static int make_token(const char *path, __u64 cmds, __u64 maps, __u64 progs, __u64 attach,
		      mode_t mode)
{
	LIBBPF_OPTS(bpf_token_create_opts, opts,
		.allowed_cmds = cmds,
		.allowed_map_types = maps,
		.allowed_prog_types = progs,
		.allowed_attach_types = attach,
	);
	int err;

	err = bpf_token_create(AT_FDCWD, path, &opts);
	if (err) {
		diag("bpf_token_create(%s): %s", path, strerror(-err));
		return err;
	}
	if (chmod(path, mode)) {
		diag("chmod %s: %s", path, strerror(errno));
		return -errno;
	}
	return 0;
}

/* The token xdp_token.bpf.o needs, usable (read-write) by everyone */
static int make_xdp_token(void)
{
	return make_token(token_path, XDP_CMDS, XDP_MAPS, XDP_PROGS, XDP_ATTACH, 0666);
}

/* ------------------------------------------------------------------------ */
/* Loading an object as nobody */

struct loaded {
	struct bpf_object *obj;
	int err;		/* of bpf_object__load(), or of the open */
};

/* Open PROGS_DIR/file with bpf_token_path = token (NULL: option not set)
 * and load it. The log of this load is in libbpf_log.
 */
static struct loaded load_obj(const char *file, const char *token)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .bpf_token_path = token);
	struct loaded l = {};
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", progs_dir, file);
	l.obj = bpf_object__open_file(path, &opts);
	if (!l.obj) {
		l.err = -errno;
		diag("bpf_object__open_file(%s): %s", path, strerror(errno));
		return l;
	}
	l.err = bpf_object__load(l.obj);
	if (verbose || l.err)
		diag("load of %s with token %s%s%s: %d (%s)", file, token ? "'" : "",
		     token ? token : "option unset", token ? "'" : "", l.err,
		     l.err ? strerror(-l.err) : "ok");
	return l;
}

static int prog_fd_of(struct bpf_object *obj)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(obj, PROG_NAME);

	return prog ? bpf_program__fd(prog) : -1;
}

/* ------------------------------------------------------------------------ */
/* The cases: each runs as nobody, in a child */

/* The object loads through bpf_token_path, program and map are there */
static void case_load(void)
{
	struct loaded l = load_obj("xdp_token.bpf.o", token_path);
	struct bpf_map *map;

	if (!CHECK(l.err == 0, "load through the token: %d", l.err))
		goto out;
	CHECK(prog_fd_of(l.obj) >= 0, "program fd");
	map = bpf_object__find_map_by_name(l.obj, MAP_NAME);
	CHECK(map && bpf_map__fd(map) >= 0, "map fd");
	CHECK(log_has("object '" OBJ_NAME "': using BPF token at '"), "no 'using BPF token' line");
out:
	bpf_object__close(l.obj);
}

/* Program and map carry their names (the name probe, made with the token,
 * found the feature), the program has its BTF, and is an XDP program.
 */
static void case_names(void)
{
	struct loaded l = load_obj("xdp_token.bpf.o", token_path);
	struct bpf_prog_info pinfo = {};
	struct bpf_map_info minfo = {};
	__u32 len;
	int fd;

	if (!CHECK(l.err == 0, "load through the token: %d", l.err))
		goto out;

	len = sizeof(pinfo);
	fd = prog_fd_of(l.obj);
	if (!CHECK(bpf_obj_get_info_by_fd(fd, &pinfo, &len) == 0, "prog info: %s", strerror(errno)))
		goto out;
	CHECK(strcmp(pinfo.name, PROG_NAME) == 0, "program name '%s', want '%s'",
	      pinfo.name, PROG_NAME);
	CHECK(pinfo.type == BPF_PROG_TYPE_XDP, "program type %u", pinfo.type);
	CHECK(pinfo.btf_id != 0, "program has no BTF (btf_id 0)");

	len = sizeof(minfo);
	fd = bpf_map__fd(bpf_object__find_map_by_name(l.obj, MAP_NAME));
	if (!CHECK(bpf_obj_get_info_by_fd(fd, &minfo, &len) == 0, "map info: %s", strerror(errno)))
		goto out;
	CHECK(strcmp(minfo.name, MAP_NAME) == 0, "map name '%s', want '%s'", minfo.name, MAP_NAME);
	CHECK(minfo.type == BPF_MAP_TYPE_ARRAY, "map type %u", minfo.type);
	CHECK(minfo.btf_id != 0 && minfo.btf_id == pinfo.btf_id,
	      "map btf_id %u, program btf_id %u", minfo.btf_id, pinfo.btf_id);
out:
	bpf_object__close(l.obj);
}

/* Calls fn(line, len) for every "libbpf: feature ..." line of the log
 * (libbpf prefixes its messages with "libbpf: "); returns their number.
 */
static int for_each_feature_line(void (*fn)(const char *line, int len))
{
	static const char pfx[] = "libbpf: feature ";
	const char *p, *eol;
	int n = 0;

	for (p = libbpf_log; *p; p = *eol ? eol + 1 : eol) {
		eol = strchrnul(p, '\n');
		if (strncmp(p, pfx, sizeof(pfx) - 1))
			continue;
		n++;
		fn(p, eol - p);
	}
	return n;
}

#define WITH_TOKEN ": supported (probed with BPF token)"
#define IMPLIED ": supported (implied by BPF token)"

static bool ends_with(const char *line, int len, const char *sfx)
{
	int l = strlen(sfx);

	return len >= l && !memcmp(line + len - l, sfx, l);
}

static void check_with_token(const char *line, int len)
{
	CHECK(ends_with(line, len, WITH_TOKEN) || ends_with(line, len, IMPLIED),
	      "probe without the token, or missing: '%.*s'", len, line);
}

static void print_line(const char *line, int len)
{
	diag("  %.*s", len, line);
}

/* The feature probes this object depends on were made with the token and
 * found the feature (a token-less probe as nobody would find them missing,
 * and libbpf would strip program names, BTF and expected_attach_type).
 * The token allows BTF loads, so the BTF probes go through it; it allows
 * no socket filter or cgroup program, the types of the program name and
 * expected_attach_type probes: those two are not probed at all (a probe
 * would be a denial on the token), every kernel with tokens has them.
 */
static void case_probes(void)
{
	static const char *const want[] = {
		"libbpf: feature BPF program name" IMPLIED,
		"libbpf: feature minimal BTF" WITH_TOKEN,
		"libbpf: feature BTF functions" WITH_TOKEN,
		"libbpf: feature BPF_PROG_LOAD expected_attach_type attribute" IMPLIED,
	};
	struct loaded l = load_obj("xdp_token.bpf.o", token_path);
	size_t i;
	int n;

	CHECK(l.err == 0, "load through the token: %d", l.err);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CHECK(log_has(want[i]), "no line '%s'", want[i]);
	n = for_each_feature_line(print_line);
	CHECK(n >= (int)(sizeof(want) / sizeof(want[0])), "only %d feature lines", n);
	CHECK(!log_has("Detection of kernel"), "a probe failed");
	bpf_object__close(l.obj);
}

/* Every feature libbpf looked up while loading the object was probed with
 * the token or, where the token does not allow the probe, not probed at
 * all; none was found missing (a probe with nobody's own privileges would
 * fail and find it missing).
 */
static void case_no_tokenless_probe(void)
{
	struct loaded l = load_obj("xdp_token.bpf.o", token_path);

	CHECK(l.err == 0, "load through the token: %d", l.err);
	for_each_feature_line(check_with_token);
	bpf_object__close(l.obj);
}

/* The program runs (bpf_prog_test_run) and its helpers did their work */
static void case_runs(void)
{
	struct loaded l = load_obj("xdp_token.bpf.o", token_path);
	struct { __u64 packets, last_jiffies; } val = {};
	unsigned char pkt[64] = { [12] = 0x08 };	/* an IPv4 ethertype */
	LIBBPF_OPTS(bpf_test_run_opts, topts, .data_in = pkt, .data_size_in = sizeof(pkt));
	__u32 key = 0;
	int err, map_fd;

	if (!CHECK(l.err == 0, "load through the token: %d", l.err))
		goto out;
	err = bpf_prog_test_run_opts(prog_fd_of(l.obj), &topts);
	if (!CHECK(err == 0, "test run: %s", strerror(errno)))
		goto out;
	CHECK(topts.retval == XDP_PASS, "retval %u", topts.retval);
	map_fd = bpf_map__fd(bpf_object__find_map_by_name(l.obj, MAP_NAME));
	if (!CHECK(bpf_map_lookup_elem(map_fd, &key, &val) == 0, "lookup: %s", strerror(errno)))
		goto out;
	CHECK(val.packets == 1, "packets %llu", (unsigned long long)val.packets);
	CHECK(val.last_jiffies != 0, "bpf_jiffies64() gave 0");
out:
	bpf_object__close(l.obj);
}

/* LIBBPF_BPF_TOKEN_PATH when the option is not set */
static void case_env(void)
{
	struct loaded l;

	setenv("LIBBPF_BPF_TOKEN_PATH", token_path, 1);
	l = load_obj("xdp_token.bpf.o", NULL);
	CHECK(l.err == 0, "load through LIBBPF_BPF_TOKEN_PATH: %d", l.err);
	CHECK(log_has("object '" OBJ_NAME "': using BPF token at '"), "no 'using BPF token' line");
	CHECK(log_has(token_path), "token path not in the log");
	bpf_object__close(l.obj);
}

/* The option wins over the environment */
static void case_option_wins(void)
{
	char bad[PATH_MAX + 16];
	struct loaded l;

	snprintf(bad, sizeof(bad), "%s/no-such-token", dir);
	setenv("LIBBPF_BPF_TOKEN_PATH", bad, 1);
	l = load_obj("xdp_token.bpf.o", token_path);
	CHECK(l.err == 0, "load with the option, a bad variable: %d", l.err);
	CHECK(!log_has("no-such-token"), "the variable was used");
	bpf_object__close(l.obj);
}

/* An empty bpf_token_path disables tokens, even with the variable set */
static void case_empty_disables(void)
{
	struct loaded l;

	setenv("LIBBPF_BPF_TOKEN_PATH", token_path, 1);
	l = load_obj("xdp_token.bpf.o", "");
	CHECK(l.err == -EPERM, "load with bpf_token_path \"\": %d (%s), want -EPERM",
	      l.err, strerror(-l.err));
	CHECK(!log_has("using BPF token"), "a token was used");
	CHECK(!log_has("probed with BPF token"), "a probe used a token");
	bpf_object__close(l.obj);
}

/* Control: no token at all, nobody cannot load the object */
static void case_no_token(void)
{
	struct loaded l;

	unsetenv("LIBBPF_BPF_TOKEN_PATH");
	l = load_obj("xdp_token.bpf.o", NULL);
	CHECK(l.err == -EPERM, "load without a token: %d (%s), want -EPERM",
	      l.err, strerror(-l.err));
	CHECK(!log_has("using BPF token"), "a token was used");
	bpf_object__close(l.obj);
}

/* A path where nothing is pinned */
static void case_bad_path(void)
{
	char path[PATH_MAX + 16], want[2 * PATH_MAX];
	struct loaded l;

	snprintf(path, sizeof(path), "%s/no-such-token", dir);
	l = load_obj("xdp_token.bpf.o", path);
	CHECK(l.err == -ENOENT, "load: %d (%s), want -ENOENT", l.err, strerror(-l.err));
	snprintf(want, sizeof(want),
		 "object '" OBJ_NAME "': failed to open BPF token at '%s': No such file or directory",
		 path);
	CHECK(log_has(want), "no warning '%s'", want);
	bpf_object__close(l.obj);
}

/* A token nobody may not read, or only read: libbpf opens a token
 * read-write to use it
 */
static void case_unreadable(void)
{
	char want[2 * PATH_MAX];
	struct loaded l;

	l = load_obj("xdp_token.bpf.o", token_path);
	CHECK(l.err == -EACCES, "load: %d (%s), want -EACCES", l.err, strerror(-l.err));
	snprintf(want, sizeof(want),
		 "object '" OBJ_NAME "': failed to open BPF token at '%s': Permission denied",
		 token_path);
	CHECK(log_has(want), "no warning '%s'", want);
	bpf_object__close(l.obj);
}

/* A pinned map is not a token */
static void case_not_token(void)
{
	char want[2 * PATH_MAX];
	struct loaded l;

	l = load_obj("xdp_token.bpf.o", map_path);
	CHECK(l.err == -EINVAL, "load: %d (%s), want -EINVAL", l.err, strerror(-l.err));
	snprintf(want, sizeof(want), "object '" OBJ_NAME "': '%s' is not a BPF token", map_path);
	CHECK(log_has(want), "no warning '%s'", want);
	CHECK(!log_has("using BPF token"), "the map was used as a token");
	bpf_object__close(l.obj);
}

/* The token does not allow STACK maps */
static void case_map_type_denied(void)
{
	struct loaded l = load_obj("xdp_stack.bpf.o", token_path);

	CHECK(l.err == -EPERM, "load: %d (%s), want -EPERM", l.err, strerror(-l.err));
	CHECK(log_has("using BPF token"), "no token used");
	CHECK(log_has("map 'token_stack'"), "the failure does not name the map");
	bpf_object__close(l.obj);
}

/* The token does not allow socket filters */
static void case_prog_type_denied(void)
{
	struct loaded l = load_obj("sockfilter.bpf.o", token_path);

	CHECK(l.err == -EPERM, "load: %d (%s), want -EPERM", l.err, strerror(-l.err));
	CHECK(log_has("using BPF token"), "no token used");
	CHECK(log_has("prog 'sockfilter_prog'"), "the failure does not name the program");
	bpf_object__close(l.obj);
}

/* Root's setup for a case, before the child runs */
static int setup_token(void) { return make_xdp_token(); }

static int setup_unreadable(void)
{
	return make_token(token_path, XDP_CMDS, XDP_MAPS, XDP_PROGS, XDP_ATTACH, 0600);
}

static int setup_readonly(void)
{
	return make_token(token_path, XDP_CMDS, XDP_MAPS, XDP_PROGS, XDP_ATTACH, 0644);
}

static int setup_map(void)
{
	int fd, err;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "not_a_token", 4, 8, 1, NULL);
	if (fd < 0) {
		diag("bpf_map_create: %s", strerror(errno));
		return -errno;
	}
	err = bpf_obj_pin(fd, map_path);
	close(fd);
	if (err || chmod(map_path, 0666)) {
		diag("pin/chmod %s: %s", map_path, strerror(errno));
		return -errno;
	}
	/* a real token next to it, so that only the path given matters */
	return make_xdp_token();
}

static const struct test_case {
	const char *name;
	int (*setup)(void);	/* as root */
	void (*run)(void);	/* as nobody */
} cases[] = {
	{ "load_with_token_path", setup_token, case_load },
	{ "prog_and_map_names", setup_token, case_names },
	{ "probes_use_token", setup_token, case_probes },
	{ "no_tokenless_probe", setup_token, case_no_tokenless_probe },
	{ "prog_runs_with_helpers", setup_token, case_runs },
	{ "env_token_path", setup_token, case_env },
	{ "option_wins_over_env", setup_token, case_option_wins },
	{ "empty_path_disables", setup_token, case_empty_disables },
	{ "no_token_eperm", setup_token, case_no_token },
	{ "bad_path", setup_token, case_bad_path },
	{ "unreadable_token", setup_unreadable, case_unreadable },
	{ "readonly_token", setup_readonly, case_unreadable },
	{ "not_a_token", setup_map, case_not_token },
	{ "map_type_denied", setup_token, case_map_type_denied },
	{ "prog_type_denied", setup_token, case_prog_type_denied },
};

#define NR_CASES (sizeof(cases) / sizeof(cases[0]))

/* ------------------------------------------------------------------------ */
/* Runner */

static void remove_dir(void)
{
	char cmd[PATH_MAX + 32];

	/* BPF FS: pinned files and the directory */
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		diag("cleanup of %s failed", dir);
}

static bool run_case(const struct test_case *tc)
{
	int status;
	pid_t pid;

	snprintf(dir, sizeof(dir), BPFFS "/libbpf-token-%d-%s", getpid(), tc->name);
	snprintf(token_path, sizeof(token_path), "%s/token", dir);
	snprintf(map_path, sizeof(map_path), "%s/map", dir);
	remove_dir();
	if (mkdir(dir, 0755)) {
		diag("mkdir %s: %s", dir, strerror(errno));
		return false;
	}
	if (tc->setup()) {
		remove_dir();
		return false;
	}

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		diag("fork: %s", strerror(errno));
		remove_dir();
		return false;
	}
	if (pid == 0) {
		if (drop_privileges())
			_exit(2);
		libbpf_set_print(print_cb);
		tc->run();
		if (failures || verbose)
			dump_libbpf_log();
		fflush(stdout);
		_exit(failures ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid) {
		diag("waitpid: %s", strerror(errno));
		status = -1;
	} else if (!WIFEXITED(status)) {
		diag("child died: status 0x%x", status);
	}
	remove_dir();
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s [-v] [-l] [-t CASE] [-p PROGS_DIR]\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *only = NULL, *env;
	bool list = false;
	int opt, n = 0, failed = 0;
	size_t i;

	while ((opt = getopt(argc, argv, "vlt:p:")) != -1) {
		switch (opt) {
		case 'v': verbose = true; break;
		case 'l': list = true; break;
		case 't': only = optarg; break;
		case 'p': snprintf(progs_dir, sizeof(progs_dir), "%s", optarg); break;
		default: usage(argv[0]);
		}
	}
	if (optind != argc)
		usage(argv[0]);
	if (list) {
		for (i = 0; i < NR_CASES; i++)
			printf("%s\n", cases[i].name);
		return 0;
	}
	if (!progs_dir[0]) {
		env = getenv("PROGS_OUTPUT");
		if (env && env[0]) {
			snprintf(progs_dir, sizeof(progs_dir), "%s", env);
		} else {
			char self[PATH_MAX];
			ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);

			if (len < 0) {
				perror("readlink /proc/self/exe");
				return 2;
			}
			self[len] = '\0';
			snprintf(progs_dir, sizeof(progs_dir), "%s/../progs", dirname(self));
		}
	}
	if (geteuid() != 0) {
		fprintf(stderr, "%s: must run as root (it makes the tokens)\n", argv[0]);
		return 2;
	}
	if (only) {
		for (i = 0; i < NR_CASES; i++)
			if (!strcmp(cases[i].name, only))
				break;
		if (i == NR_CASES) {
			fprintf(stderr, "%s: no case '%s' (-l lists them)\n", argv[0], only);
			return 2;
		}
	}

	printf("1..%zu\n", only ? (size_t)1 : NR_CASES);
	for (i = 0; i < NR_CASES; i++) {
		if (only && strcmp(cases[i].name, only))
			continue;
		n++;
		if (run_case(&cases[i])) {
			printf("ok %d %s\n", n, cases[i].name);
		} else {
			printf("not ok %d %s\n", n, cases[i].name);
			failed++;
		}
		fflush(stdout);
	}
	return failed ? 1 : 0;
}
