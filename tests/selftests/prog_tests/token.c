// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of BPF token: BPF_TOKEN_CREATE (create and pin in one step, derived
 * tokens, BPF_OBJ_GET of a pinned token) and the delegation of
 * BPF_MAP_CREATE, BPF_BTF_LOAD and BPF_PROG_LOAD through a token, both with
 * the effective capabilities dropped and in a child process that really is
 * another user without any capability.
 *
 * Based on the BPF token selftests of Andrii Nakryiko's BPF token series.
 */
#define _GNU_SOURCE
#include <test_progs.h>
#include <bpf/btf.h>
#include <ftw.h>
#include <grp.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <linux/filter.h>
#include <linux/magic.h>
#include "cap_helpers.h"

#define BPFFS_ROOT	"/sys/fs/bpf"
/* every subtest pins below this directory and removes it at the end */
#define TOKEN_DIR	BPFFS_ROOT "/test_token"
#define TOKEN_PATH	TOKEN_DIR "/token"

/* the unprivileged user the *_unpriv subtests switch to */
#define NOBODY_ID	65534

static int drop_priv_caps(__u64 *old_caps)
{
	return cap_disable_effective((1ULL << CAP_BPF) |
				     (1ULL << CAP_PERFMON) |
				     (1ULL << CAP_NET_ADMIN) |
				     (1ULL << CAP_SYS_ADMIN), old_caps);
}

static int restore_priv_caps(__u64 old_caps)
{
	return cap_enable_effective(old_caps, NULL);
}

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	return remove(path);
}

static void cleanup_token_dir(void)
{
	nftw(TOKEN_DIR, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* Give the subtest an empty TOKEN_DIR on BPF FS that every user may search */
static bool setup_token_dir(void)
{
	struct statfs st;

	cleanup_token_dir();

	if (!ASSERT_OK(statfs(BPFFS_ROOT, &st), "statfs_bpffs") ||
	    !ASSERT_EQ(st.f_type, BPF_FS_MAGIC, "bpffs_mounted"))
		return false;
	if (!ASSERT_OK(mkdir(TOKEN_DIR, 0755), "mkdir_token_dir") ||
	    !ASSERT_OK(chmod(TOKEN_DIR, 0755), "chmod_token_dir"))
		return false;

	return true;
}

static bool path_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static int create_token(int token_fd, const char *path, __u64 cmds,
			__u64 maps, __u64 progs, __u64 attachs)
{
	LIBBPF_OPTS(bpf_token_create_opts, opts);

	opts.token_fd = token_fd;
	opts.allowed_cmds = cmds;
	opts.allowed_map_types = maps;
	opts.allowed_prog_types = progs;
	opts.allowed_attach_types = attachs;
	return bpf_token_create(AT_FDCWD, path, &opts);
}

/* Create a token at @path, optionally make it accessible to everybody,
 * and open it. Returns the token fd or a negative error.
 */
static int make_token(const char *path, bool world_rw, __u64 cmds,
		      __u64 maps, __u64 progs, __u64 attachs)
{
	int err, fd;

	err = create_token(0, path, cmds, maps, progs, attachs);
	if (!ASSERT_OK(err, "token_create"))
		return err ?: -EINVAL;

	if (world_rw && !ASSERT_OK(chmod(path, 0666), "token_chmod"))
		return -errno;

	fd = bpf_obj_get(path);
	if (!ASSERT_GT(fd, 0, "token_get"))
		return fd < 0 ? fd : -EINVAL;

	return fd;
}

/* A file descriptor number that is not open */
static int closed_fd(void)
{
	int fd = dup(STDERR_FILENO);

	if (fd >= 0)
		close(fd);
	return fd;
}

/* Switch to NOBODY_ID with no supplementary groups and no capabilities */
static int become_nobody(void)
{
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	int i;

	if (!ASSERT_OK(setgroups(0, NULL), "setgroups") ||
	    !ASSERT_OK(setresgid(NOBODY_ID, NOBODY_ID, NOBODY_ID), "setresgid") ||
	    !ASSERT_OK(setresuid(NOBODY_ID, NOBODY_ID, NOBODY_ID), "setresuid"))
		return -1;

	/* leaving uid 0 cleared the permitted, effective and ambient sets;
	 * clear the inheritable set as well and check that nothing is left
	 */
	if (!ASSERT_OK(syscall(__NR_capset, &hdr, data), "capset_none") ||
	    !ASSERT_OK(syscall(__NR_capget, &hdr, data), "capget"))
		return -1;
	for (i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
		if (!ASSERT_EQ(data[i].effective | data[i].permitted |
			       data[i].inheritable, 0, "no_caps_left"))
			return -1;
	}

	return 0;
}

/* Run @fn in a child process that is NOBODY_ID without any capability.
 * @fn returns 0 when all of its checks passed.
 */
static int run_as_nobody(int (*fn)(void))
{
	int status, ret;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (!ASSERT_GE(pid, 0, "fork"))
		return -1;
	if (pid == 0) {
		ret = become_nobody() ?: fn();
		fflush(stdout);
		fflush(stderr);
		_exit(ret ? 1 : 0);
	}

	if (!ASSERT_EQ(waitpid(pid, &status, 0), pid, "waitpid"))
		return -1;
	if (!ASSERT_TRUE(WIFEXITED(status), "child_exited") ||
	    !ASSERT_EQ(WEXITSTATUS(status), 0, "child_checks_passed"))
		return -1;

	return 0;
}

static void subtest_token_create(void)
{
	LIBBPF_OPTS(bpf_token_create_opts, opts);
	int token_fd = 0, limited_token_fd = 0, tmp_fd = 0, err;
	__u64 old_caps = 0;

	if (!setup_token_dir())
		goto cleanup;

	/* create BPF token which allows creating derived BPF tokens; it is
	 * pinned at once and the command returns 0, not an fd
	 */
	opts.allowed_cmds = 1ULL << BPF_TOKEN_CREATE;
	err = bpf_token_create(AT_FDCWD, TOKEN_PATH, &opts);
	if (!ASSERT_OK(err, "token_create"))
		goto cleanup;
	ASSERT_TRUE(path_exists(TOKEN_PATH), "token_pinned");

	/* all 64 bits set mean any current and future command or type */
	opts.allowed_cmds = ~0ULL;
	opts.allowed_map_types = ~0ULL;
	opts.allowed_prog_types = ~0ULL;
	opts.allowed_attach_types = ~0ULL;
	err = bpf_token_create(AT_FDCWD, TOKEN_DIR "/any", &opts);
	ASSERT_OK(err, "token_create_future_proof");

	/* a pinned token is opened with BPF_OBJ_GET */
	tmp_fd = bpf_obj_get(TOKEN_DIR "/any");
	ASSERT_GT(tmp_fd, 0, "token_get_any");
	if (tmp_fd > 0)
		close(tmp_fd);
	tmp_fd = 0;

	token_fd = bpf_obj_get(TOKEN_PATH);
	if (!ASSERT_GT(token_fd, 0, "token_get"))
		goto cleanup;

	/* drop privileges to test token_fd passing */
	if (!ASSERT_OK(drop_priv_caps(&old_caps), "drop_caps"))
		goto cleanup;

	/* unprivileged BPF_TOKEN_CREATE should fail */
	err = bpf_token_create(AT_FDCWD, TOKEN_DIR "/unpriv", NULL);
	ASSERT_EQ(err, -EPERM, "token_create_unpriv_fail");
	ASSERT_FALSE(path_exists(TOKEN_DIR "/unpriv"), "unpriv_not_pinned");

	/* unprivileged BPF_TOKEN_CREATE with associated BPF token succeeds */
	memset(&opts, 0, sizeof(opts));
	opts.sz = sizeof(opts);
	opts.allowed_cmds = 0; /* ask for BPF token which doesn't allow new tokens */
	opts.token_fd = token_fd;
	err = bpf_token_create(AT_FDCWD, TOKEN_DIR "/limited", &opts);
	if (!ASSERT_OK(err, "token_create_limited"))
		goto cleanup;

	limited_token_fd = bpf_obj_get(TOKEN_DIR "/limited");
	if (!ASSERT_GT(limited_token_fd, 0, "token_get_limited"))
		goto cleanup;

	/* creating yet another token using "limited" BPF token should fail */
	opts.token_fd = limited_token_fd;
	err = bpf_token_create(AT_FDCWD, TOKEN_DIR "/from_limited", &opts);
	ASSERT_EQ(err, -EPERM, "token_create_from_lim_fail");
	ASSERT_FALSE(path_exists(TOKEN_DIR "/from_limited"),
		     "from_limited_not_pinned");

cleanup:
	if (tmp_fd > 0)
		close(tmp_fd);
	if (token_fd > 0)
		close(token_fd);
	if (limited_token_fd > 0)
		close(limited_token_fd);
	if (old_caps)
		ASSERT_OK(restore_priv_caps(old_caps), "restore_caps");
	cleanup_token_dir();
}

static void subtest_token_create_eexist(void)
{
	int map_fd = 0, err;

	if (!setup_token_dir())
		goto cleanup;

	err = create_token(0, TOKEN_PATH, 1ULL << BPF_MAP_CREATE, 0, 0, 0);
	if (!ASSERT_OK(err, "token_create"))
		goto cleanup;

	/* the same path again: the existing pin is kept */
	err = create_token(0, TOKEN_PATH, ~0ULL, ~0ULL, ~0ULL, ~0ULL);
	ASSERT_EQ(err, -EEXIST, "token_create_same_path");

	/* over a directory */
	if (!ASSERT_OK(mkdir(TOKEN_DIR "/dir", 0755), "mkdir"))
		goto cleanup;
	err = create_token(0, TOKEN_DIR "/dir", 0, 0, 0, 0);
	ASSERT_EQ(err, -EEXIST, "token_create_over_dir");

	/* over a pinned map */
	map_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "token_eexist", 4, 4, 1,
				NULL);
	if (!ASSERT_GT(map_fd, 0, "map_create"))
		goto cleanup;
	if (!ASSERT_OK(bpf_obj_pin(map_fd, TOKEN_DIR "/map"), "map_pin"))
		goto cleanup;
	err = create_token(0, TOKEN_DIR "/map", 0, 0, 0, 0);
	ASSERT_EQ(err, -EEXIST, "token_create_over_map");

cleanup:
	if (map_fd > 0)
		close(map_fd);
	cleanup_token_dir();
}

static void subtest_token_create_flags(void)
{
	LIBBPF_OPTS(bpf_token_create_opts, opts);
	int err;

	if (!setup_token_dir())
		goto cleanup;

	opts.allowed_cmds = 1ULL << BPF_MAP_CREATE;

	opts.token_flags = 1;
	err = bpf_token_create(AT_FDCWD, TOKEN_PATH, &opts);
	ASSERT_EQ(err, -EINVAL, "token_flags_1");
	ASSERT_FALSE(path_exists(TOKEN_PATH), "token_flags_1_not_pinned");

	opts.token_flags = 1U << 31;
	err = bpf_token_create(AT_FDCWD, TOKEN_PATH, &opts);
	ASSERT_EQ(err, -EINVAL, "token_flags_31");
	ASSERT_FALSE(path_exists(TOKEN_PATH), "token_flags_31_not_pinned");

	opts.token_flags = 0;
	opts.pin_flags = 1;
	err = bpf_token_create(AT_FDCWD, TOKEN_PATH, &opts);
	ASSERT_EQ(err, -EINVAL, "pin_flags_1");
	ASSERT_FALSE(path_exists(TOKEN_PATH), "pin_flags_1_not_pinned");

	opts.pin_flags = 1U << 31;
	err = bpf_token_create(AT_FDCWD, TOKEN_PATH, &opts);
	ASSERT_EQ(err, -EINVAL, "pin_flags_31");
	ASSERT_FALSE(path_exists(TOKEN_PATH), "pin_flags_31_not_pinned");

	/* both zero: fine */
	opts.pin_flags = 0;
	err = bpf_token_create(AT_FDCWD, TOKEN_PATH, &opts);
	ASSERT_OK(err, "no_flags");

cleanup:
	cleanup_token_dir();
}

/* A path on a file system other than BPF FS is refused (SPEC allows EXDEV
 * or EINVAL) and nothing is left there.
 */
static void check_non_bpffs_refused(int dir_fd, const char *path,
				    const char *check_path, const char *name)
{
	int err;

	err = bpf_token_create(dir_fd, path, NULL);
	if (err != -EINVAL)
		ASSERT_EQ(err, -EXDEV, name);
	ASSERT_FALSE(path_exists(check_path), name);
}

static void subtest_token_create_non_bpffs(void)
{
	char tmp_dir[] = "/tmp/test_token_XXXXXX", path[PATH_MAX];
	bool tmpfs_mounted = false, tmp_created = false;
	int dir_fd = -1;
	struct statfs st;

	if (!setup_token_dir())
		goto cleanup;

	/* on BPF FS the same request works */
	if (!ASSERT_OK(bpf_token_create(AT_FDCWD, TOKEN_PATH, NULL),
		       "token_create_bpffs"))
		goto cleanup;

	/* a tmpfs mounted inside BPF FS: the path lies below /sys/fs/bpf,
	 * but the file system it would be created on is not BPF FS
	 */
	if (!ASSERT_OK(mkdir(TOKEN_DIR "/tmpfs", 0755), "mkdir_tmpfs"))
		goto cleanup;
	if (!ASSERT_OK(mount("tmpfs", TOKEN_DIR "/tmpfs", "tmpfs", 0, NULL),
		       "mount_tmpfs"))
		goto cleanup;
	tmpfs_mounted = true;

	check_non_bpffs_refused(AT_FDCWD, TOKEN_DIR "/tmpfs/token",
				TOKEN_DIR "/tmpfs/token", "tmpfs_abs");

	/* relative to a directory fd of the tmpfs */
	dir_fd = open(TOKEN_DIR "/tmpfs", O_RDONLY | O_DIRECTORY);
	if (!ASSERT_GE(dir_fd, 0, "open_tmpfs_dir"))
		goto cleanup;
	check_non_bpffs_refused(dir_fd, "token", TOKEN_DIR "/tmpfs/token",
				"tmpfs_rel");

	/* and /tmp, whatever file system it is on, if it can be written */
	if (statfs("/tmp", &st) || st.f_type == BPF_FS_MAGIC ||
	    !mkdtemp(tmp_dir))
		goto cleanup;
	tmp_created = true;
	snprintf(path, sizeof(path), "%s/token", tmp_dir);
	check_non_bpffs_refused(AT_FDCWD, path, path, "tmp_abs");

cleanup:
	if (dir_fd >= 0)
		close(dir_fd);
	if (tmp_created) {
		unlink(path);
		rmdir(tmp_dir);
	}
	if (tmpfs_mounted)
		ASSERT_OK(umount2(TOKEN_DIR "/tmpfs", MNT_DETACH), "umount");
	cleanup_token_dir();
}

static void subtest_token_create_relative(void)
{
	int dir_fd = -1, cwd_fd = -1, other_fd = -1, file_fd = -1, err;

	if (!setup_token_dir())
		goto cleanup;
	if (!ASSERT_OK(mkdir(TOKEN_DIR "/sub", 0755), "mkdir_sub"))
		goto cleanup;

	/* relative to pin_path_fd */
	dir_fd = open(TOKEN_DIR "/sub", O_RDONLY | O_DIRECTORY);
	if (!ASSERT_GE(dir_fd, 0, "open_sub"))
		goto cleanup;
	err = bpf_token_create(dir_fd, "rel", NULL);
	ASSERT_OK(err, "token_create_rel");
	ASSERT_TRUE(path_exists(TOKEN_DIR "/sub/rel"), "rel_in_dir");
	ASSERT_FALSE(path_exists(TOKEN_DIR "/rel"), "rel_not_in_parent");

	/* the pin is a real token */
	other_fd = bpf_obj_get(TOKEN_DIR "/sub/rel");
	ASSERT_GT(other_fd, 0, "token_get_rel");
	if (other_fd > 0)
		close(other_fd);
	other_fd = -1;

	/* AT_FDCWD and 0 both stand for the current directory */
	cwd_fd = open(".", O_RDONLY | O_DIRECTORY);
	if (!ASSERT_GE(cwd_fd, 0, "open_cwd"))
		goto cleanup;
	if (!ASSERT_OK(chdir(TOKEN_DIR), "chdir"))
		goto cleanup;
	err = bpf_token_create(AT_FDCWD, "cwd_at_fdcwd", NULL);
	ASSERT_OK(err, "token_create_at_fdcwd");
	err = bpf_token_create(0, "cwd_zero", NULL);
	ASSERT_OK(err, "token_create_fd_zero");
	err = bpf_token_create(0, "sub/cwd_zero_sub", NULL);
	ASSERT_OK(err, "token_create_fd_zero_sub");
	ASSERT_OK(fchdir(cwd_fd), "restore_cwd");
	ASSERT_TRUE(path_exists(TOKEN_DIR "/cwd_at_fdcwd"), "at_fdcwd_pinned");
	ASSERT_TRUE(path_exists(TOKEN_DIR "/cwd_zero"), "fd_zero_pinned");
	ASSERT_TRUE(path_exists(TOKEN_DIR "/sub/cwd_zero_sub"),
		    "fd_zero_sub_pinned");

	/* an absolute path ignores pin_path_fd */
	other_fd = open("/", O_RDONLY | O_DIRECTORY);
	if (!ASSERT_GE(other_fd, 0, "open_root"))
		goto cleanup;
	err = bpf_token_create(other_fd, TOKEN_DIR "/abs", NULL);
	ASSERT_OK(err, "token_create_abs_other_dir");
	ASSERT_TRUE(path_exists(TOKEN_DIR "/abs"), "abs_pinned");
	err = bpf_token_create(closed_fd(), TOKEN_DIR "/abs_closed", NULL);
	ASSERT_OK(err, "token_create_abs_closed_fd");
	ASSERT_TRUE(path_exists(TOKEN_DIR "/abs_closed"), "abs_closed_pinned");

	/* a relative path needs pin_path_fd to be an open directory */
	file_fd = open("/proc/self/status", O_RDONLY);
	if (!ASSERT_GE(file_fd, 0, "open_file"))
		goto cleanup;
	err = bpf_token_create(file_fd, "not_dir", NULL);
	ASSERT_EQ(err, -ENOTDIR, "token_create_rel_not_dir");
	err = bpf_token_create(closed_fd(), "closed", NULL);
	ASSERT_EQ(err, -EBADF, "token_create_rel_closed_fd");

	/* missing directory in the path */
	err = bpf_token_create(dir_fd, "nodir/token", NULL);
	ASSERT_EQ(err, -ENOENT, "token_create_rel_enoent");

cleanup:
	if (cwd_fd >= 0) {
		ASSERT_OK(fchdir(cwd_fd), "restore_cwd");
		close(cwd_fd);
	}
	if (dir_fd >= 0)
		close(dir_fd);
	if (other_fd >= 0)
		close(other_fd);
	if (file_fd >= 0)
		close(file_fd);
	cleanup_token_dir();
}

static void subtest_token_obj_pin(void)
{
	int token_fd = 0, err;

	if (!setup_token_dir())
		goto cleanup;

	token_fd = make_token(TOKEN_PATH, false, ~0ULL, ~0ULL, ~0ULL, ~0ULL);
	if (token_fd < 0)
		goto cleanup;

	/* a token lives only where BPF_TOKEN_CREATE pinned it */
	err = bpf_obj_pin(token_fd, TOKEN_DIR "/repinned");
	ASSERT_EQ(err, -EOPNOTSUPP, "token_obj_pin");
	ASSERT_FALSE(path_exists(TOKEN_DIR "/repinned"), "not_repinned");

	/* a token opened from the pin cannot be pinned over itself either */
	err = bpf_obj_pin(token_fd, TOKEN_PATH);
	ASSERT_ERR(err, "token_obj_pin_same_path");

	/* and the original pin still works */
	ASSERT_OK(close(token_fd), "close");
	token_fd = bpf_obj_get(TOKEN_PATH);
	ASSERT_GT(token_fd, 0, "token_get_again");

cleanup:
	if (token_fd > 0)
		close(token_fd);
	cleanup_token_dir();
}

struct derive_case {
	const char *name;
	__u64 cmds, maps, progs, attachs;
};

/* Derived tokens from a parent with these sets */
#define PARENT_CMDS	((1ULL << BPF_TOKEN_CREATE) | (1ULL << BPF_MAP_CREATE) | \
			 (1ULL << BPF_PROG_LOAD))
#define PARENT_MAPS	((1ULL << BPF_MAP_TYPE_HASH) | (1ULL << BPF_MAP_TYPE_ARRAY))
#define PARENT_PROGS	((1ULL << BPF_PROG_TYPE_XDP) | \
			 (1ULL << BPF_PROG_TYPE_SOCKET_FILTER))
#define PARENT_ATTACHS	((1ULL << BPF_XDP) | (1ULL << BPF_CGROUP_INET_INGRESS))

static const struct derive_case derive_ok[] = {
	{ "same", PARENT_CMDS, PARENT_MAPS, PARENT_PROGS, PARENT_ATTACHS },
	{ "empty", 0, 0, 0, 0 },
	{ "subset", 1ULL << BPF_MAP_CREATE, 1ULL << BPF_MAP_TYPE_ARRAY, 0, 0 },
	/* BPF_TOKEN_CREATE (36) and BPF_XDP (37) are above bit 31 */
	{ "subset_high", 1ULL << BPF_TOKEN_CREATE, 0,
	  1ULL << BPF_PROG_TYPE_XDP, 1ULL << BPF_XDP },
};

static const struct derive_case derive_eperm[] = {
	{ "more_cmds", PARENT_CMDS | (1ULL << BPF_BTF_LOAD), 0, 0, 0 },
	{ "more_maps", 0, PARENT_MAPS | (1ULL << BPF_MAP_TYPE_STACK), 0, 0 },
	{ "more_progs", 0, 0, 1ULL << BPF_PROG_TYPE_KPROBE, 0 },
	{ "more_attachs", 0, 0, 0, 1ULL << BPF_CGROUP_INET_EGRESS },
	{ "any_cmds", ~0ULL, 0, 0, 0 },
	{ "any_maps", 0, ~0ULL, 0, 0 },
	{ "any_progs", 0, 0, ~0ULL, 0 },
	{ "any_attachs", 0, 0, 0, ~0ULL },
	{ "cmd_bit_63", 1ULL << 63, 0, 0, 0 },
	{ "map_bit_63", 0, 1ULL << 63, 0, 0 },
	{ "prog_bit_40", 0, 0, 1ULL << 40, 0 },
	{ "attach_bit_32", 0, 0, 0, 1ULL << 32 },
};

/* The parent of the "low" derivations lacks bit 37 (BPF_XDP): sets must be
 * compared on all 64 bits, not on the low 32 only.
 */
static const struct derive_case derive_eperm_low[] = {
	{ "attach_xdp", 0, 0, 0, 1ULL << BPF_XDP },
	{ "attach_xdp_and_low", 0, 0, 0,
	  (1ULL << BPF_XDP) | (1ULL << BPF_CGROUP_INET_INGRESS) },
	{ "map_bit_33", 0, 1ULL << 33, 0, 0 },
};

/* ... while it does allow the low bits */
static const struct derive_case derive_ok_low[] = {
	{ "low_ok", 1ULL << BPF_TOKEN_CREATE, 1ULL << BPF_MAP_TYPE_HASH, 0,
	  (1ULL << BPF_CGROUP_INET_INGRESS) | (1ULL << 31) },
};

static void check_derive(int parent_fd, const struct derive_case *c,
			 int expect_err, const char *prefix)
{
	char path[PATH_MAX], name[128];
	int err;

	snprintf(path, sizeof(path), TOKEN_DIR "/%s_%s", prefix, c->name);
	snprintf(name, sizeof(name), "%s_%s", prefix, c->name);
	err = create_token(parent_fd, path, c->cmds, c->maps, c->progs,
			   c->attachs);
	ASSERT_EQ(err, expect_err, name);
	ASSERT_EQ(path_exists(path), !expect_err, name);
	if (!expect_err)
		unlink(path);
}

static void check_derivations(int parent_fd, int low_fd, int any_fd,
			      int nocreate_fd, const char *prefix)
{
	char name[64];
	int i;

	for (i = 0; i < ARRAY_SIZE(derive_ok); i++)
		check_derive(parent_fd, &derive_ok[i], 0, prefix);
	for (i = 0; i < ARRAY_SIZE(derive_eperm); i++)
		check_derive(parent_fd, &derive_eperm[i], -EPERM, prefix);
	for (i = 0; i < ARRAY_SIZE(derive_ok_low); i++)
		check_derive(low_fd, &derive_ok_low[i], 0, prefix);
	for (i = 0; i < ARRAY_SIZE(derive_eperm_low); i++)
		check_derive(low_fd, &derive_eperm_low[i], -EPERM, prefix);

	/* a parent allowing everything allows everything */
	for (i = 0; i < ARRAY_SIZE(derive_eperm); i++)
		check_derive(any_fd, &derive_eperm[i], 0, prefix);

	/* a parent that doesn't allow BPF_TOKEN_CREATE allows no child,
	 * not even one that allows nothing
	 */
	snprintf(name, sizeof(name), "%s_nocreate", prefix);
	ASSERT_EQ(create_token(nocreate_fd, TOKEN_DIR "/nocreate", 0, 0, 0, 0),
		  -EPERM, name);
	ASSERT_FALSE(path_exists(TOKEN_DIR "/nocreate"), name);
	snprintf(name, sizeof(name), "%s_nocreate_same", prefix);
	ASSERT_EQ(create_token(nocreate_fd, TOKEN_DIR "/nocreate",
			       ~0ULL & ~(1ULL << BPF_TOKEN_CREATE),
			       ~0ULL, ~0ULL, ~0ULL),
		  -EPERM, name);
	ASSERT_FALSE(path_exists(TOKEN_DIR "/nocreate"), name);
}

static void subtest_token_derive(void)
{
	int parent_fd = 0, low_fd = 0, any_fd = 0, nocreate_fd = 0;
	int child_fd = 0, err;
	__u64 old_caps = 0;

	if (!setup_token_dir())
		goto cleanup;

	parent_fd = make_token(TOKEN_DIR "/parent", false, PARENT_CMDS,
			       PARENT_MAPS, PARENT_PROGS, PARENT_ATTACHS);
	low_fd = make_token(TOKEN_DIR "/low", false,
			    1ULL << BPF_TOKEN_CREATE, 0xffffffffULL, 0,
			    0xffffffffULL);
	any_fd = make_token(TOKEN_DIR "/any", false, ~0ULL, ~0ULL, ~0ULL,
			    ~0ULL);
	nocreate_fd = make_token(TOKEN_DIR "/nocreate_parent", false,
				 ~0ULL & ~(1ULL << BPF_TOKEN_CREATE),
				 ~0ULL, ~0ULL, ~0ULL);
	if (parent_fd < 0 || low_fd < 0 || any_fd < 0 || nocreate_fd < 0)
		goto cleanup;

	/* with a parent token, its sets bound the new token's even for a
	 * caller that has CAP_SYS_ADMIN
	 */
	check_derivations(parent_fd, low_fd, any_fd, nocreate_fd, "root");

	if (!ASSERT_OK(drop_priv_caps(&old_caps), "drop_caps"))
		goto cleanup;
	check_derivations(parent_fd, low_fd, any_fd, nocreate_fd, "nocaps");

	/* a grandchild: derived from a derived token */
	err = create_token(parent_fd, TOKEN_DIR "/child",
			   (1ULL << BPF_TOKEN_CREATE) | (1ULL << BPF_MAP_CREATE),
			   1ULL << BPF_MAP_TYPE_ARRAY, 0, 1ULL << BPF_XDP);
	if (!ASSERT_OK(err, "child_create"))
		goto cleanup;
	child_fd = bpf_obj_get(TOKEN_DIR "/child");
	if (!ASSERT_GT(child_fd, 0, "child_get"))
		goto cleanup;
	err = create_token(child_fd, TOKEN_DIR "/grandchild",
			   1ULL << BPF_MAP_CREATE, 1ULL << BPF_MAP_TYPE_ARRAY,
			   0, 0);
	ASSERT_OK(err, "grandchild_create");
	err = create_token(child_fd, TOKEN_DIR "/grandchild_more",
			   1ULL << BPF_MAP_CREATE, 1ULL << BPF_MAP_TYPE_HASH,
			   0, 0);
	ASSERT_EQ(err, -EPERM, "grandchild_more_than_child");
	ASSERT_FALSE(path_exists(TOKEN_DIR "/grandchild_more"),
		     "grandchild_more_not_pinned");

cleanup:
	if (old_caps)
		ASSERT_OK(restore_priv_caps(old_caps), "restore_caps");
	if (parent_fd > 0)
		close(parent_fd);
	if (low_fd > 0)
		close(low_fd);
	if (any_fd > 0)
		close(any_fd);
	if (nocreate_fd > 0)
		close(nocreate_fd);
	if (child_fd > 0)
		close(child_fd);
	cleanup_token_dir();
}

static void subtest_token_fd_invalid(void)
{
	int map_fd = 0, dir_fd = -1, token_fd = 0, err;
	__u64 old_caps = 0;

	if (!setup_token_dir())
		goto cleanup;

	map_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "not_a_token", 4, 4, 1,
				NULL);
	if (!ASSERT_GT(map_fd, 0, "map_create"))
		goto cleanup;
	dir_fd = open(TOKEN_DIR, O_RDONLY | O_DIRECTORY);
	if (!ASSERT_GE(dir_fd, 0, "open_dir"))
		goto cleanup;
	token_fd = make_token(TOKEN_DIR "/parent", false,
			      1ULL << BPF_TOKEN_CREATE, 0, 0, 0);
	if (token_fd < 0)
		goto cleanup;

	/* as root, and without CAP_SYS_ADMIN: the fd is checked either way */
	err = create_token(map_fd, TOKEN_PATH, 0, 0, 0, 0);
	ASSERT_EQ(err, -EINVAL, "token_fd_is_map");
	err = create_token(dir_fd, TOKEN_PATH, 0, 0, 0, 0);
	ASSERT_EQ(err, -EINVAL, "token_fd_is_dir");
	err = create_token(closed_fd(), TOKEN_PATH, 0, 0, 0, 0);
	ASSERT_EQ(err, -EBADF, "token_fd_closed");

	if (!ASSERT_OK(drop_priv_caps(&old_caps), "drop_caps"))
		goto cleanup;
	err = create_token(map_fd, TOKEN_PATH, 0, 0, 0, 0);
	ASSERT_EQ(err, -EINVAL, "nocaps_token_fd_is_map");
	err = create_token(closed_fd(), TOKEN_PATH, 0, 0, 0, 0);
	ASSERT_EQ(err, -EBADF, "nocaps_token_fd_closed");

	ASSERT_FALSE(path_exists(TOKEN_PATH), "not_pinned");

	/* while a real token as token_fd works */
	err = create_token(token_fd, TOKEN_PATH, 0, 0, 0, 0);
	ASSERT_OK(err, "nocaps_token_fd_is_token");

cleanup:
	if (old_caps)
		ASSERT_OK(restore_priv_caps(old_caps), "restore_caps");
	if (map_fd > 0)
		close(map_fd);
	if (dir_fd >= 0)
		close(dir_fd);
	if (token_fd > 0)
		close(token_fd);
	cleanup_token_dir();
}

static void subtest_token_cloexec(void)
{
	char link_path[64], target[PATH_MAX];
	union bpf_attr attr;
	int token_fd = -1;
	ssize_t len;

	if (!setup_token_dir())
		goto cleanup;
	if (!ASSERT_OK(create_token(0, TOKEN_PATH, 0, 0, 0, 0), "token_create"))
		goto cleanup;

	/* raw BPF_OBJ_GET without file_flags: the kernel itself must make
	 * the fd O_CLOEXEC (libbpf may dup low fds with F_DUPFD_CLOEXEC)
	 */
	memset(&attr, 0, sizeof(attr));
	attr.pathname = ptr_to_u64(TOKEN_PATH);
	token_fd = syscall(__NR_bpf, BPF_OBJ_GET, &attr, sizeof(attr));
	if (!ASSERT_GT(token_fd, 0, "token_get"))
		goto cleanup;

	ASSERT_EQ(fcntl(token_fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC,
		  "fd_cloexec");

	/* an anon inode file named bpf-token */
	snprintf(link_path, sizeof(link_path), "/proc/self/fd/%d", token_fd);
	len = readlink(link_path, target, sizeof(target) - 1);
	if (!ASSERT_GT(len, 0, "readlink"))
		goto cleanup;
	target[len] = '\0';
	ASSERT_STREQ(target, "anon_inode:bpf-token", "anon_inode_name");

cleanup:
	if (token_fd >= 0)
		close(token_fd);
	cleanup_token_dir();
}

static int nobody_get_0600(void)
{
	int fd;

	fd = bpf_obj_get(TOKEN_PATH);
	if (!ASSERT_EQ(fd, -EACCES, "nobody_get_0600"))
		return 1;
	return 0;
}

static int nobody_get_0666(void)
{
	int fd;

	fd = bpf_obj_get(TOKEN_PATH);
	if (!ASSERT_GT(fd, 0, "nobody_get_0666"))
		return 1;
	close(fd);
	return 0;
}

static void subtest_token_get_perm(void)
{
	mode_t old_umask;
	struct stat st;
	int err;

	if (!setup_token_dir())
		goto cleanup;

	/* pins are created 0600 (less the umask) and owned by the creator */
	old_umask = umask(0);
	err = create_token(0, TOKEN_PATH, ~0ULL, ~0ULL, ~0ULL, ~0ULL);
	umask(old_umask);
	if (!ASSERT_OK(err, "token_create"))
		goto cleanup;
	if (!ASSERT_OK(stat(TOKEN_PATH, &st), "stat"))
		goto cleanup;
	ASSERT_EQ(st.st_mode & 07777, 0600, "token_mode");
	ASSERT_EQ(st.st_uid, 0, "token_uid");

	/* another user cannot open a 0600 token of root */
	run_as_nobody(nobody_get_0600);

	/* but can, once root allows it */
	if (!ASSERT_OK(chmod(TOKEN_PATH, 0666), "chmod"))
		goto cleanup;
	run_as_nobody(nobody_get_0666);

	/* and a 0600 token owned by that user */
	if (!ASSERT_OK(chmod(TOKEN_PATH, 0600), "chmod_back") ||
	    !ASSERT_OK(chown(TOKEN_PATH, NOBODY_ID, NOBODY_ID), "chown"))
		goto cleanup;
	run_as_nobody(nobody_get_0666);

cleanup:
	cleanup_token_dir();
}

#define NOBODY_DIR	TOKEN_DIR "/nobody"

static int nobody_token_create(void)
{
	int parent_fd, child_fd, err;
	struct stat st;

	umask(0022);

	/* no capability, no token: no BPF_TOKEN_CREATE */
	err = create_token(0, NOBODY_DIR "/no_token", 0, 0, 0, 0);
	if (!ASSERT_EQ(err, -EPERM, "no_token") ||
	    !ASSERT_FALSE(path_exists(NOBODY_DIR "/no_token"),
			  "no_token_not_pinned"))
		return 1;

	parent_fd = bpf_obj_get(TOKEN_PATH);
	if (!ASSERT_GT(parent_fd, 0, "parent_get"))
		return 1;

	/* the usual VFS permissions apply to the pin */
	err = create_token(parent_fd, TOKEN_DIR "/not_mine", 0, 0, 0, 0);
	if (!ASSERT_EQ(err, -EACCES, "root_dir") ||
	    !ASSERT_FALSE(path_exists(TOKEN_DIR "/not_mine"),
			  "root_dir_not_pinned"))
		return 1;

	/* a derived token asking for more than the parent */
	err = create_token(parent_fd, NOBODY_DIR "/more",
			   1ULL << BPF_MAP_CREATE,
			   1ULL << BPF_MAP_TYPE_HASH, 0, 0);
	if (!ASSERT_EQ(err, -EPERM, "more_than_parent") ||
	    !ASSERT_FALSE(path_exists(NOBODY_DIR "/more"), "more_not_pinned"))
		return 1;
	err = create_token(parent_fd, NOBODY_DIR "/more_attach", 0, 0, 0,
			   1ULL << BPF_XDP);
	if (!ASSERT_EQ(err, -EPERM, "more_attach_than_parent"))
		return 1;

	/* a subset of the parent */
	err = create_token(parent_fd, NOBODY_DIR "/child",
			   1ULL << BPF_MAP_CREATE,
			   1ULL << BPF_MAP_TYPE_ARRAY, 0, 0);
	if (!ASSERT_OK(err, "derived_create"))
		return 1;
	if (!ASSERT_OK(stat(NOBODY_DIR "/child", &st), "derived_stat") ||
	    !ASSERT_EQ(st.st_uid, NOBODY_ID, "derived_uid") ||
	    !ASSERT_EQ(st.st_mode & 07777, 0600, "derived_mode"))
		return 1;

	child_fd = bpf_obj_get(NOBODY_DIR "/child");
	if (!ASSERT_GT(child_fd, 0, "derived_get"))
		return 1;

	/* which doesn't allow BPF_TOKEN_CREATE */
	err = create_token(child_fd, NOBODY_DIR "/grandchild", 0, 0, 0, 0);
	if (!ASSERT_EQ(err, -EPERM, "grandchild"))
		return 1;

	close(child_fd);
	close(parent_fd);
	return 0;
}

static void subtest_token_create_unpriv(void)
{
	int fd;

	if (!setup_token_dir())
		goto cleanup;
	if (!ASSERT_OK(mkdir(NOBODY_DIR, 0755), "mkdir_nobody") ||
	    !ASSERT_OK(chown(NOBODY_DIR, NOBODY_ID, NOBODY_ID), "chown_nobody"))
		goto cleanup;

	fd = make_token(TOKEN_PATH, true,
			(1ULL << BPF_TOKEN_CREATE) | (1ULL << BPF_MAP_CREATE),
			1ULL << BPF_MAP_TYPE_ARRAY, 0, 0);
	if (fd < 0)
		goto cleanup;
	close(fd);

	run_as_nobody(nobody_token_create);

cleanup:
	cleanup_token_dir();
}

static void subtest_map_token(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, map_opts);
	int token_fd = 0, no_cmd_fd = 0, any_fd = 0, map_fd = 0;
	__u64 old_caps = 0;

	if (!setup_token_dir())
		goto cleanup;

	/* any current and future map types is allowed */
	any_fd = make_token(TOKEN_DIR "/any", false, 1ULL << BPF_MAP_CREATE,
			    ~0ULL, 0, 0);
	/* create BPF token allowing STACK, but not QUEUE map */
	token_fd = make_token(TOKEN_PATH, false, 1ULL << BPF_MAP_CREATE,
			      1ULL << BPF_MAP_TYPE_STACK, 0, 0);
	/* the map type, but not the command */
	no_cmd_fd = make_token(TOKEN_DIR "/no_cmd", false,
			       ~0ULL & ~(1ULL << BPF_MAP_CREATE), ~0ULL,
			       ~0ULL, ~0ULL);
	if (any_fd < 0 || token_fd < 0 || no_cmd_fd < 0)
		goto cleanup;

	/* with all capabilities, a token that doesn't cover the request is
	 * simply ignored
	 */
	map_opts.token_fd = no_cmd_fd;
	map_fd = bpf_map_create(BPF_MAP_TYPE_STACK, "token_stack", 0, 8, 1,
				&map_opts);
	ASSERT_GT(map_fd, 0, "root_ignored_token");
	if (map_fd > 0)
		close(map_fd);
	map_fd = 0;

	/* drop privileges to test token_fd passing */
	if (!ASSERT_OK(drop_priv_caps(&old_caps), "drop_caps"))
		goto cleanup;

	/* BPF_MAP_TYPE_STACK is privileged, but with given token_fd should succeed */
	map_opts.token_fd = token_fd;
	map_fd = bpf_map_create(BPF_MAP_TYPE_STACK, "token_stack", 0, 8, 1, &map_opts);
	if (!ASSERT_GT(map_fd, 0, "stack_map_fd"))
		goto cleanup;
	close(map_fd);
	map_fd = 0;

	/* BPF_MAP_TYPE_QUEUE is privileged, and token doesn't allow it, so should fail */
	map_opts.token_fd = token_fd;
	map_fd = bpf_map_create(BPF_MAP_TYPE_QUEUE, "token_queue", 0, 8, 1, &map_opts);
	if (!ASSERT_EQ(map_fd, -EPERM, "queue_map_fd"))
		goto cleanup;
	map_fd = 0;

	/* no token, no privilege */
	map_opts.token_fd = 0;
	map_fd = bpf_map_create(BPF_MAP_TYPE_STACK, "token_stack", 0, 8, 1,
				&map_opts);
	if (!ASSERT_EQ(map_fd, -EPERM, "stack_no_token"))
		goto cleanup;
	map_fd = 0;

	/* a token without BPF_MAP_CREATE gives nothing */
	map_opts.token_fd = no_cmd_fd;
	map_fd = bpf_map_create(BPF_MAP_TYPE_STACK, "token_stack", 0, 8, 1,
				&map_opts);
	if (!ASSERT_EQ(map_fd, -EPERM, "stack_no_cmd"))
		goto cleanup;
	map_fd = 0;

	/* a token allowing any map type */
	map_opts.token_fd = any_fd;
	map_fd = bpf_map_create(BPF_MAP_TYPE_QUEUE, "token_queue", 0, 8, 1,
				&map_opts);
	if (!ASSERT_GT(map_fd, 0, "queue_any_map_type"))
		goto cleanup;
	close(map_fd);
	map_fd = 0;

	/* a map_token_fd that is not a token, or not open */
	map_opts.token_fd = STDERR_FILENO;
	map_fd = bpf_map_create(BPF_MAP_TYPE_STACK, "token_stack", 0, 8, 1,
				&map_opts);
	if (!ASSERT_EQ(map_fd, -EINVAL, "map_token_fd_not_token"))
		goto cleanup;
	map_opts.token_fd = closed_fd();
	map_fd = bpf_map_create(BPF_MAP_TYPE_STACK, "token_stack", 0, 8, 1,
				&map_opts);
	if (!ASSERT_EQ(map_fd, -EBADF, "map_token_fd_closed"))
		goto cleanup;
	map_fd = 0;

cleanup:
	if (map_fd > 0)
		close(map_fd);
	if (token_fd > 0)
		close(token_fd);
	if (no_cmd_fd > 0)
		close(no_cmd_fd);
	if (any_fd > 0)
		close(any_fd);
	if (old_caps)
		ASSERT_OK(restore_priv_caps(old_caps), "restore_caps");
	cleanup_token_dir();
}

#define UNPRIV_BPF_SYSCTL "/proc/sys/kernel/unprivileged_bpf_disabled"

static int read_unpriv_bpf_disabled(void)
{
	FILE *f = fopen(UNPRIV_BPF_SYSCTL, "r");
	int val = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &val) != 1)
		val = -1;
	fclose(f);
	return val;
}

static int write_unpriv_bpf_disabled(int val)
{
	FILE *f = fopen(UNPRIV_BPF_SYSCTL, "w");
	int err;

	if (!f)
		return -errno;
	fprintf(f, "%d", val);
	err = fclose(f) ? -errno : 0;
	return err;
}

/* Make sure unprivileged BPF is disabled, so that only a token can allow
 * an unprivileged BPF_MAP_CREATE or BPF_PROG_LOAD. Value 2 is used as it
 * can be changed back (1 cannot). Returns the value to restore, or -1.
 */
static int disable_unpriv_bpf(void)
{
	int old = read_unpriv_bpf_disabled();

	if (!ASSERT_GE(old, 0, "read_unpriv_bpf_disabled"))
		return -1;
	if (old == 0 &&
	    !ASSERT_OK(write_unpriv_bpf_disabled(2), "disable_unpriv_bpf"))
		return -1;
	return old;
}

static void restore_unpriv_bpf(int old)
{
	if (old == 0)
		ASSERT_OK(write_unpriv_bpf_disabled(old), "restore_unpriv_bpf");
}

static int nobody_map_token(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, map_opts);
	int token_fd, map_fd;

	/* unprivileged BPF is disabled: even an ARRAY needs the token */
	map_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "nobody_array", 4, 4, 1,
				NULL);
	if (!ASSERT_EQ(map_fd, -EPERM, "array_no_token"))
		return 1;

	token_fd = bpf_obj_get(TOKEN_PATH);
	if (!ASSERT_GT(token_fd, 0, "token_get"))
		return 1;

	map_opts.token_fd = token_fd;
	map_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "nobody_array", 4, 4, 1,
				&map_opts);
	if (!ASSERT_GT(map_fd, 0, "array_token"))
		return 1;
	close(map_fd);

	map_fd = bpf_map_create(BPF_MAP_TYPE_STACK, "nobody_stack", 0, 8, 1,
				&map_opts);
	if (!ASSERT_GT(map_fd, 0, "stack_token"))
		return 1;
	close(map_fd);

	/* not a map type of the token */
	map_fd = bpf_map_create(BPF_MAP_TYPE_QUEUE, "nobody_queue", 0, 8, 1,
				&map_opts);
	if (!ASSERT_EQ(map_fd, -EPERM, "queue_token"))
		return 1;

	/* a token lacking BPF_MAP_CREATE */
	close(token_fd);
	token_fd = bpf_obj_get(TOKEN_DIR "/no_cmd");
	if (!ASSERT_GT(token_fd, 0, "no_cmd_get"))
		return 1;
	map_opts.token_fd = token_fd;
	map_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "nobody_array", 4, 4, 1,
				&map_opts);
	if (!ASSERT_EQ(map_fd, -EPERM, "array_no_cmd"))
		return 1;

	close(token_fd);
	return 0;
}

static void subtest_map_token_unpriv(void)
{
	int fd, old_unpriv = -1;

	if (!setup_token_dir())
		goto cleanup;

	fd = make_token(TOKEN_PATH, true, 1ULL << BPF_MAP_CREATE,
			(1ULL << BPF_MAP_TYPE_ARRAY) |
			(1ULL << BPF_MAP_TYPE_STACK), 0, 0);
	if (fd < 0)
		goto cleanup;
	close(fd);
	fd = make_token(TOKEN_DIR "/no_cmd", true,
			1ULL << BPF_PROG_LOAD, ~0ULL, ~0ULL, ~0ULL);
	if (fd < 0)
		goto cleanup;
	close(fd);

	old_unpriv = disable_unpriv_bpf();
	if (old_unpriv < 0)
		goto cleanup;

	run_as_nobody(nobody_map_token);

cleanup:
	restore_unpriv_bpf(old_unpriv);
	cleanup_token_dir();
}

static void subtest_map_token_lifetime(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, map_opts);
	int token_fd = 0, map_fd = 0, fd, key = 0, val = 0;
	__u64 old_caps = 0;

	if (!setup_token_dir())
		goto cleanup;

	token_fd = make_token(TOKEN_PATH, false, 1ULL << BPF_MAP_CREATE,
			      1ULL << BPF_MAP_TYPE_ARRAY, 0, 0);
	if (token_fd < 0)
		goto cleanup;

	if (!ASSERT_OK(drop_priv_caps(&old_caps), "drop_caps"))
		goto cleanup;

	map_opts.token_fd = token_fd;
	map_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "token_array", 4, 4, 1,
				&map_opts);
	if (!ASSERT_GT(map_fd, 0, "map_create"))
		goto cleanup;

	/* the token goes away: its fd and its pin */
	close(token_fd);
	token_fd = 0;
	if (!ASSERT_OK(unlink(TOKEN_PATH), "unlink_token"))
		goto cleanup;
	fd = bpf_obj_get(TOKEN_PATH);
	ASSERT_EQ(fd, -ENOENT, "token_gone");

	/* the map stays usable */
	val = 42;
	if (!ASSERT_OK(bpf_map_update_elem(map_fd, &key, &val, 0), "update"))
		goto cleanup;
	val = 0;
	if (!ASSERT_OK(bpf_map_lookup_elem(map_fd, &key, &val), "lookup"))
		goto cleanup;
	ASSERT_EQ(val, 42, "value");

	/* the path is free again */
	ASSERT_OK(restore_priv_caps(old_caps), "restore_caps");
	old_caps = 0;
	ASSERT_OK(create_token(0, TOKEN_PATH, 0, 0, 0, 0), "token_recreate");

cleanup:
	if (old_caps)
		ASSERT_OK(restore_priv_caps(old_caps), "restore_caps");
	if (map_fd > 0)
		close(map_fd);
	if (token_fd > 0)
		close(token_fd);
	cleanup_token_dir();
}

static void subtest_btf_token(void)
{
	LIBBPF_OPTS(bpf_btf_load_opts, btf_opts);
	int token_fd = 0, no_cmd_fd = 0, btf_fd = 0;
	const void *raw_btf_data;
	struct btf *btf = NULL;
	__u32 raw_btf_size;
	__u64 old_caps = 0;

	if (!setup_token_dir())
		goto cleanup;

	/* create BPF token allowing BPF_BTF_LOAD command */
	token_fd = make_token(TOKEN_PATH, false, 1ULL << BPF_BTF_LOAD, 0, 0, 0);
	/* and one allowing everything else */
	no_cmd_fd = make_token(TOKEN_DIR "/no_cmd", false,
			       ~0ULL & ~(1ULL << BPF_BTF_LOAD), ~0ULL, ~0ULL,
			       ~0ULL);
	if (token_fd < 0 || no_cmd_fd < 0)
		goto cleanup;

	/* drop privileges to test token_fd passing */
	if (!ASSERT_OK(drop_priv_caps(&old_caps), "drop_caps"))
		goto cleanup;

	btf = btf__new_empty();
	if (!ASSERT_OK_PTR(btf, "empty_btf"))
		goto cleanup;

	ASSERT_GT(btf__add_int(btf, "int", 4, 0), 0, "int_type");

	raw_btf_data = btf__raw_data(btf, &raw_btf_size);
	if (!ASSERT_OK_PTR(raw_btf_data, "raw_btf_data"))
		goto cleanup;

	/* validate we can successfully load new BTF with token */
	btf_opts.token_fd = token_fd;
	btf_fd = bpf_btf_load(raw_btf_data, raw_btf_size, &btf_opts);
	if (!ASSERT_GT(btf_fd, 0, "btf_fd"))
		goto cleanup;
	close(btf_fd);

	/* now validate that we *cannot* load BTF without token */
	btf_opts.token_fd = 0;
	btf_fd = bpf_btf_load(raw_btf_data, raw_btf_size, &btf_opts);
	if (!ASSERT_EQ(btf_fd, -EPERM, "btf_fd_eperm"))
		goto cleanup;

	/* nor with a token that doesn't allow BPF_BTF_LOAD */
	btf_opts.token_fd = no_cmd_fd;
	btf_fd = bpf_btf_load(raw_btf_data, raw_btf_size, &btf_opts);
	if (!ASSERT_EQ(btf_fd, -EPERM, "btf_no_cmd_eperm"))
		goto cleanup;

	/* a btf_token_fd that is not a token, or not open */
	btf_opts.token_fd = STDERR_FILENO;
	btf_fd = bpf_btf_load(raw_btf_data, raw_btf_size, &btf_opts);
	if (!ASSERT_EQ(btf_fd, -EINVAL, "btf_token_fd_not_token"))
		goto cleanup;
	btf_opts.token_fd = closed_fd();
	btf_fd = bpf_btf_load(raw_btf_data, raw_btf_size, &btf_opts);
	if (!ASSERT_EQ(btf_fd, -EBADF, "btf_token_fd_closed"))
		goto cleanup;
	btf_fd = 0;

cleanup:
	btf__free(btf);
	if (btf_fd > 0)
		close(btf_fd);
	if (token_fd > 0)
		close(token_fd);
	if (no_cmd_fd > 0)
		close(no_cmd_fd);
	if (old_caps)
		ASSERT_OK(restore_priv_caps(old_caps), "restore_caps");
	cleanup_token_dir();
}

static int nobody_btf_token(void)
{
	LIBBPF_OPTS(bpf_btf_load_opts, btf_opts);
	const void *raw_btf_data;
	int token_fd, btf_fd;
	__u32 raw_btf_size;
	struct btf *btf;

	btf = btf__new_empty();
	if (!ASSERT_OK_PTR(btf, "empty_btf") ||
	    !ASSERT_GT(btf__add_int(btf, "int", 4, 0), 0, "int_type"))
		return 1;
	raw_btf_data = btf__raw_data(btf, &raw_btf_size);
	if (!ASSERT_OK_PTR(raw_btf_data, "raw_btf_data"))
		return 1;

	btf_fd = bpf_btf_load(raw_btf_data, raw_btf_size, &btf_opts);
	if (!ASSERT_EQ(btf_fd, -EPERM, "btf_no_token"))
		return 1;

	token_fd = bpf_obj_get(TOKEN_PATH);
	if (!ASSERT_GT(token_fd, 0, "token_get"))
		return 1;
	btf_opts.token_fd = token_fd;
	btf_fd = bpf_btf_load(raw_btf_data, raw_btf_size, &btf_opts);
	if (!ASSERT_GT(btf_fd, 0, "btf_token"))
		return 1;

	close(btf_fd);
	close(token_fd);
	btf__free(btf);
	return 0;
}

static void subtest_btf_token_unpriv(void)
{
	int fd;

	if (!setup_token_dir())
		goto cleanup;

	fd = make_token(TOKEN_PATH, true, 1ULL << BPF_BTF_LOAD, 0, 0, 0);
	if (fd < 0)
		goto cleanup;
	close(fd);

	run_as_nobody(nobody_btf_token);

cleanup:
	cleanup_token_dir();
}

/* An XDP program that needs CAP_BPF and CAP_PERFMON for its helpers */
static const struct bpf_insn xdp_insns[] = {
	/* bpf_jiffies64() requires CAP_BPF */
	BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_jiffies64),
	/* bpf_get_current_task() requires CAP_PERFMON */
	BPF_RAW_INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_current_task),
	/* r0 = XDP_PASS; exit; */
	BPF_MOV64_IMM(BPF_REG_0, XDP_PASS),
	BPF_EXIT_INSN(),
};

/* A bounded loop: the verifier accepts back-edges only for CAP_BPF */
static const struct bpf_insn loop_insns[] = {
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_MOV64_IMM(BPF_REG_1, 3),
	/* loop: */
	BPF_ALU64_IMM(BPF_ADD, BPF_REG_0, 1),
	BPF_ALU64_IMM(BPF_SUB, BPF_REG_1, 1),
	BPF_JMP_IMM(BPF_JNE, BPF_REG_1, 0, -3),
	BPF_MOV64_IMM(BPF_REG_0, XDP_PASS),
	BPF_EXIT_INSN(),
};

/* A trivial socket filter: "return 0" */
static const struct bpf_insn sk_insns[] = {
	BPF_MOV64_IMM(BPF_REG_0, 0),
	BPF_EXIT_INSN(),
};

static int load_xdp(const struct bpf_insn *insns, size_t insn_cnt,
		    int token_fd)
{
	LIBBPF_OPTS(bpf_prog_load_opts, prog_opts);

	prog_opts.token_fd = token_fd;
	prog_opts.expected_attach_type = BPF_XDP;
	return bpf_prog_load(BPF_PROG_TYPE_XDP, "token_prog", "GPL", insns,
			     insn_cnt, &prog_opts);
}

static int load_sk_filter(int token_fd)
{
	LIBBPF_OPTS(bpf_prog_load_opts, prog_opts);

	prog_opts.token_fd = token_fd;
	return bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "token_sk", "GPL",
			     sk_insns, ARRAY_SIZE(sk_insns), &prog_opts);
}

static void subtest_prog_token(void)
{
	LIBBPF_OPTS(bpf_prog_load_opts, prog_opts);
	int token_fd = 0, no_cmd_fd = 0, no_prog_fd = 0, no_attach_fd = 0;
	int low_attach_fd = 0, prog_fd = 0;
	size_t insn_cnt = ARRAY_SIZE(xdp_insns);
	__u64 old_caps = 0;

	if (!setup_token_dir())
		goto cleanup;

	/* create BPF token allowing BPF_PROG_LOAD command */
	token_fd = make_token(TOKEN_PATH, false, 1ULL << BPF_PROG_LOAD, 0,
			      1ULL << BPF_PROG_TYPE_XDP, 1ULL << BPF_XDP);
	/* lacking one of: the command, the program type, the attach type */
	no_cmd_fd = make_token(TOKEN_DIR "/no_cmd", false,
			       ~0ULL & ~(1ULL << BPF_PROG_LOAD), ~0ULL,
			       ~0ULL, ~0ULL);
	no_prog_fd = make_token(TOKEN_DIR "/no_prog", false, ~0ULL, ~0ULL,
				~0ULL & ~(1ULL << BPF_PROG_TYPE_XDP), ~0ULL);
	no_attach_fd = make_token(TOKEN_DIR "/no_attach", false, ~0ULL, ~0ULL,
				  ~0ULL, ~0ULL & ~(1ULL << BPF_XDP));
	/* the low 32 attach types, not BPF_XDP = 37 */
	low_attach_fd = make_token(TOKEN_DIR "/low_attach", false,
				   1ULL << BPF_PROG_LOAD, 0,
				   1ULL << BPF_PROG_TYPE_XDP, 0xffffffffULL);
	if (token_fd < 0 || no_cmd_fd < 0 || no_prog_fd < 0 ||
	    no_attach_fd < 0 || low_attach_fd < 0)
		goto cleanup;

	/* drop privileges to test token_fd passing */
	if (!ASSERT_OK(drop_priv_caps(&old_caps), "drop_caps"))
		goto cleanup;

	/* validate we can successfully load BPF program with token; this
	 * being XDP program (CAP_NET_ADMIN) using bpf_jiffies64() (CAP_BPF)
	 * and bpf_get_current_task() (CAP_PERFMON) helpers validates we have
	 * BPF token wired properly in a bunch of places in the kernel
	 */
	prog_opts.token_fd = token_fd;
	prog_opts.expected_attach_type = BPF_XDP;
	prog_fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "token_prog", "GPL",
				xdp_insns, insn_cnt, &prog_opts);
	if (!ASSERT_GT(prog_fd, 0, "prog_fd"))
		goto cleanup;
	close(prog_fd);

	/* the verifier's own privilege decisions: a bounded loop */
	prog_fd = load_xdp(loop_insns, ARRAY_SIZE(loop_insns), token_fd);
	if (!ASSERT_GT(prog_fd, 0, "loop_prog_fd"))
		goto cleanup;
	close(prog_fd);

	/* now validate that we *cannot* load BPF program without token */
	prog_opts.token_fd = 0;
	prog_fd = bpf_prog_load(BPF_PROG_TYPE_XDP, "token_prog", "GPL",
				xdp_insns, insn_cnt, &prog_opts);
	if (!ASSERT_EQ(prog_fd, -EPERM, "prog_fd_eperm"))
		goto cleanup;

	/* nor with a token lacking the command, program or attach type */
	prog_fd = load_xdp(xdp_insns, insn_cnt, no_cmd_fd);
	if (!ASSERT_EQ(prog_fd, -EPERM, "no_cmd_eperm"))
		goto cleanup;
	prog_fd = load_xdp(xdp_insns, insn_cnt, no_prog_fd);
	if (!ASSERT_EQ(prog_fd, -EPERM, "no_prog_type_eperm"))
		goto cleanup;
	prog_fd = load_xdp(xdp_insns, insn_cnt, no_attach_fd);
	if (!ASSERT_EQ(prog_fd, -EPERM, "no_attach_type_eperm"))
		goto cleanup;
	prog_fd = load_xdp(xdp_insns, insn_cnt, low_attach_fd);
	if (!ASSERT_EQ(prog_fd, -EPERM, "low_attach_types_eperm"))
		goto cleanup;

	/* a prog_token_fd that is not a token, or not open */
	prog_fd = load_xdp(xdp_insns, insn_cnt, STDERR_FILENO);
	if (!ASSERT_EQ(prog_fd, -EINVAL, "prog_token_fd_not_token"))
		goto cleanup;
	prog_fd = load_xdp(xdp_insns, insn_cnt, closed_fd());
	if (!ASSERT_EQ(prog_fd, -EBADF, "prog_token_fd_closed"))
		goto cleanup;
	prog_fd = 0;

cleanup:
	if (prog_fd > 0)
		close(prog_fd);
	if (token_fd > 0)
		close(token_fd);
	if (no_cmd_fd > 0)
		close(no_cmd_fd);
	if (no_prog_fd > 0)
		close(no_prog_fd);
	if (no_attach_fd > 0)
		close(no_attach_fd);
	if (low_attach_fd > 0)
		close(low_attach_fd);
	if (old_caps)
		ASSERT_OK(restore_priv_caps(old_caps), "restore_caps");
	cleanup_token_dir();
}

static int nobody_prog_token(void)
{
	int token_fd, prog_fd;

	/* without a token: unprivileged BPF is disabled */
	prog_fd = load_sk_filter(0);
	if (!ASSERT_EQ(prog_fd, -EPERM, "sk_no_token"))
		return 1;
	prog_fd = load_xdp(xdp_insns, ARRAY_SIZE(xdp_insns), 0);
	if (!ASSERT_EQ(prog_fd, -EPERM, "xdp_no_token"))
		return 1;

	token_fd = bpf_obj_get(TOKEN_PATH);
	if (!ASSERT_GT(token_fd, 0, "token_get"))
		return 1;

	prog_fd = load_xdp(xdp_insns, ARRAY_SIZE(xdp_insns), token_fd);
	if (!ASSERT_GT(prog_fd, 0, "xdp_token"))
		return 1;
	close(prog_fd);
	prog_fd = load_xdp(loop_insns, ARRAY_SIZE(loop_insns), token_fd);
	if (!ASSERT_GT(prog_fd, 0, "xdp_loop_token"))
		return 1;
	close(prog_fd);
	/* expected_attach_type 0 is BPF_CGROUP_INET_INGRESS */
	prog_fd = load_sk_filter(token_fd);
	if (!ASSERT_GT(prog_fd, 0, "sk_token"))
		return 1;
	close(prog_fd);
	close(token_fd);

	/* the token allows SOCKET_FILTER, but not attach type 0 */
	token_fd = bpf_obj_get(TOKEN_DIR "/no_attach");
	if (!ASSERT_GT(token_fd, 0, "no_attach_get"))
		return 1;
	prog_fd = load_sk_filter(token_fd);
	if (!ASSERT_EQ(prog_fd, -EPERM, "sk_no_attach"))
		return 1;
	prog_fd = load_xdp(xdp_insns, ARRAY_SIZE(xdp_insns), token_fd);
	if (!ASSERT_GT(prog_fd, 0, "xdp_no_attach_token"))
		return 1;
	close(prog_fd);
	close(token_fd);

	return 0;
}

static void subtest_prog_token_unpriv(void)
{
	int fd, old_unpriv = -1;

	if (!setup_token_dir())
		goto cleanup;

	fd = make_token(TOKEN_PATH, true, 1ULL << BPF_PROG_LOAD, 0,
			(1ULL << BPF_PROG_TYPE_XDP) |
			(1ULL << BPF_PROG_TYPE_SOCKET_FILTER),
			(1ULL << BPF_XDP) | (1ULL << BPF_CGROUP_INET_INGRESS));
	if (fd < 0)
		goto cleanup;
	close(fd);
	fd = make_token(TOKEN_DIR "/no_attach", true, 1ULL << BPF_PROG_LOAD, 0,
			(1ULL << BPF_PROG_TYPE_XDP) |
			(1ULL << BPF_PROG_TYPE_SOCKET_FILTER),
			1ULL << BPF_XDP);
	if (fd < 0)
		goto cleanup;
	close(fd);

	old_unpriv = disable_unpriv_bpf();
	if (old_unpriv < 0)
		goto cleanup;

	run_as_nobody(nobody_prog_token);

cleanup:
	restore_unpriv_bpf(old_unpriv);
	cleanup_token_dir();
}

static void subtest_prog_token_lifetime(void)
{
	LIBBPF_OPTS(bpf_test_run_opts, topts);
	struct bpf_prog_info info;
	int token_fd = 0, prog_fd = 0, fd;
	__u32 info_len = sizeof(info);
	char pkt[64] = {};
	__u64 old_caps = 0;

	if (!setup_token_dir())
		goto cleanup;

	token_fd = make_token(TOKEN_PATH, false, 1ULL << BPF_PROG_LOAD, 0,
			      1ULL << BPF_PROG_TYPE_XDP, 1ULL << BPF_XDP);
	if (token_fd < 0)
		goto cleanup;

	if (!ASSERT_OK(drop_priv_caps(&old_caps), "drop_caps"))
		goto cleanup;

	prog_fd = load_xdp(xdp_insns, ARRAY_SIZE(xdp_insns), token_fd);
	if (!ASSERT_GT(prog_fd, 0, "prog_load"))
		goto cleanup;

	/* the token goes away: its fd and its pin */
	close(token_fd);
	token_fd = 0;
	if (!ASSERT_OK(unlink(TOKEN_PATH), "unlink_token"))
		goto cleanup;
	fd = bpf_obj_get(TOKEN_PATH);
	ASSERT_EQ(fd, -ENOENT, "token_gone");

	/* the program stays usable */
	topts.data_in = pkt;
	topts.data_size_in = sizeof(pkt);
	topts.repeat = 1;
	if (!ASSERT_OK(bpf_prog_test_run_opts(prog_fd, &topts), "test_run"))
		goto cleanup;
	ASSERT_EQ(topts.retval, XDP_PASS, "test_run_retval");

	memset(&info, 0, sizeof(info));
	if (!ASSERT_OK(bpf_obj_get_info_by_fd(prog_fd, &info, &info_len),
		       "prog_info"))
		goto cleanup;
	ASSERT_EQ(info.type, BPF_PROG_TYPE_XDP, "prog_type");

cleanup:
	if (old_caps)
		ASSERT_OK(restore_priv_caps(old_caps), "restore_caps");
	if (prog_fd > 0)
		close(prog_fd);
	if (token_fd > 0)
		close(token_fd);
	cleanup_token_dir();
}

/* Check the four fdinfo lines of a token fd: "any" or "0x%llx" each */
static void check_token_fdinfo(int token_fd, __u64 cmds, __u64 maps,
			       __u64 progs, __u64 attachs, const char *name)
{
	static const char * const keys[] = {
		"allowed_cmds", "allowed_maps", "allowed_progs",
		"allowed_attachs",
	};
	const __u64 masks[] = { cmds, maps, progs, attachs };
	char path[64], line[256], expect[64], check[128];
	bool found[ARRAY_SIZE(keys)] = {};
	size_t klen;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", token_fd);
	f = fopen(path, "r");
	if (!ASSERT_OK_PTR(f, "fdinfo_open"))
		return;

	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		for (i = 0; i < ARRAY_SIZE(keys); i++) {
			klen = strlen(keys[i]);
			if (strncmp(line, keys[i], klen) || line[klen] != ':')
				continue;

			if (masks[i] == ~0ULL)
				snprintf(expect, sizeof(expect), "any");
			else
				snprintf(expect, sizeof(expect), "0x%llx",
					 (unsigned long long)masks[i]);
			snprintf(check, sizeof(check), "%s_%s", name, keys[i]);
			ASSERT_FALSE(found[i], check);
			ASSERT_EQ(line[klen + 1], '\t', check);
			ASSERT_STREQ(line + klen + 2, expect, check);
			found[i] = true;
		}
	}
	fclose(f);

	for (i = 0; i < ARRAY_SIZE(keys); i++) {
		snprintf(check, sizeof(check), "%s_%s_present", name, keys[i]);
		ASSERT_TRUE(found[i], check);
	}
}

static void check_token_info(int token_fd, __u64 cmds, __u64 maps,
			     __u64 progs, __u64 attachs, const char *name)
{
	struct bpf_token_info info;
	__u32 info_len = sizeof(info);
	char check[128];
	int err;

	memset(&info, 0, sizeof(info));
	err = bpf_obj_get_info_by_fd(token_fd, &info, &info_len);
	snprintf(check, sizeof(check), "%s_get_info", name);
	if (!ASSERT_OK(err, check))
		return;
	ASSERT_EQ(info_len, sizeof(info), check);
	ASSERT_EQ(info.allowed_cmds, cmds, check);
	ASSERT_EQ(info.allowed_maps, maps, check);
	ASSERT_EQ(info.allowed_progs, progs, check);
	ASSERT_EQ(info.allowed_attachs, attachs, check);
}

static void subtest_token_info(void)
{
	const __u64 cmds = (1ULL << BPF_TOKEN_CREATE) | (1ULL << BPF_MAP_CREATE) |
			   (1ULL << BPF_BTF_LOAD);
	const __u64 maps = (1ULL << BPF_MAP_TYPE_STACK) | (1ULL << 63);
	const __u64 all_but_one = ~0ULL & ~(1ULL << BPF_XDP);
	int token_fd = 0, any_fd = 0, child_fd = 0, err;
	__u64 old_caps = 0;

	if (!setup_token_dir())
		goto cleanup;

	token_fd = make_token(TOKEN_PATH, false, cmds, maps, 0, all_but_one);
	any_fd = make_token(TOKEN_DIR "/any", false, ~0ULL, ~0ULL, ~0ULL,
			    ~0ULL);
	if (token_fd < 0 || any_fd < 0)
		goto cleanup;

	check_token_fdinfo(token_fd, cmds, maps, 0, all_but_one, "masks");
	check_token_info(token_fd, cmds, maps, 0, all_but_one, "masks");
	check_token_fdinfo(any_fd, ~0ULL, ~0ULL, ~0ULL, ~0ULL, "any");
	check_token_info(any_fd, ~0ULL, ~0ULL, ~0ULL, ~0ULL, "any");

	/* a derived token shows its own sets, also without capabilities */
	if (!ASSERT_OK(drop_priv_caps(&old_caps), "drop_caps"))
		goto cleanup;
	err = create_token(token_fd, TOKEN_DIR "/child",
			   1ULL << BPF_MAP_CREATE, 1ULL << 63, 0,
			   1ULL << BPF_CGROUP_INET_INGRESS);
	if (!ASSERT_OK(err, "child_create"))
		goto cleanup;
	child_fd = bpf_obj_get(TOKEN_DIR "/child");
	if (!ASSERT_GT(child_fd, 0, "child_get"))
		goto cleanup;
	check_token_fdinfo(child_fd, 1ULL << BPF_MAP_CREATE, 1ULL << 63, 0,
			   1ULL << BPF_CGROUP_INET_INGRESS, "child");
	check_token_info(child_fd, 1ULL << BPF_MAP_CREATE, 1ULL << 63, 0,
			 1ULL << BPF_CGROUP_INET_INGRESS, "child");

cleanup:
	if (old_caps)
		ASSERT_OK(restore_priv_caps(old_caps), "restore_caps");
	if (token_fd > 0)
		close(token_fd);
	if (any_fd > 0)
		close(any_fd);
	if (child_fd > 0)
		close(child_fd);
	cleanup_token_dir();
}

void test_token(void)
{
	if (test__start_subtest("token_create"))
		subtest_token_create();
	if (test__start_subtest("token_create_eexist"))
		subtest_token_create_eexist();
	if (test__start_subtest("token_create_flags"))
		subtest_token_create_flags();
	if (test__start_subtest("token_create_non_bpffs"))
		subtest_token_create_non_bpffs();
	if (test__start_subtest("token_create_relative"))
		subtest_token_create_relative();
	if (test__start_subtest("token_obj_pin"))
		subtest_token_obj_pin();
	if (test__start_subtest("token_derive"))
		subtest_token_derive();
	if (test__start_subtest("token_fd_invalid"))
		subtest_token_fd_invalid();
	if (test__start_subtest("token_cloexec"))
		subtest_token_cloexec();
	if (test__start_subtest("token_get_perm"))
		subtest_token_get_perm();
	if (test__start_subtest("token_create_unpriv"))
		subtest_token_create_unpriv();
	if (test__start_subtest("map_token"))
		subtest_map_token();
	if (test__start_subtest("map_token_unpriv"))
		subtest_map_token_unpriv();
	if (test__start_subtest("map_token_lifetime"))
		subtest_map_token_lifetime();
	if (test__start_subtest("btf_token"))
		subtest_btf_token();
	if (test__start_subtest("btf_token_unpriv"))
		subtest_btf_token_unpriv();
	if (test__start_subtest("prog_token"))
		subtest_prog_token();
	if (test__start_subtest("prog_token_unpriv"))
		subtest_prog_token_unpriv();
	if (test__start_subtest("prog_token_lifetime"))
		subtest_prog_token_lifetime();
	if (test__start_subtest("token_info"))
		subtest_token_info();
}
