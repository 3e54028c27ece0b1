// SPDX-License-Identifier: GPL-2.0
/*
 * bench: section a's world. What the attach operations work on (two
 * cgroups, a dummy device, the attach token, the programs that stay
 * attached while the section runs), set up and torn down by the parent,
 * the programs they attach, and the operations themselves.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <net/if.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "bench.h"

/* Section a. What the attach operations work on, set up by the parent
 * before the children are forked (attach_setup()); the children inherit
 * the fds and the device's index.
 */
static int scope_cg_fd = -1, xdp_ifindex;
int keep_cg_fd = -1;
int attach_token_fd = -1;
int keep_cg_prog = -1, keep_xdp_prog = -1, keep_xdp_link = -1;
bool attach_ready;
static bool keep_cg_attached, xdp_dev_made;

/* The programs the attach operations attach, loaded once per process and
 * way, outside the timing: [0] without a token (cap), [1] through the
 * attach token (token and the checked ways).
 */
int cg_prog[2] = { -1, -1 }, xdp_prog[2] = { -1, -1 };

static const struct bpf_insn ret_allow[] = {	/* cgroup/sock_create: r0 = 1 */
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 1 },
	{ .code = BPF_JMP | BPF_EXIT },
};
static const struct bpf_insn ret_pass[] = {	/* XDP: r0 = XDP_PASS */
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = XDP_PASS },
	{ .code = BPF_JMP | BPF_EXIT },
};

void close_fd_var(int *fd)
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

void *cg_prog_get(int token_fd, const char *token_path)
{
	return cached_prog(cg_prog, BPF_PROG_TYPE_CGROUP_SOCK, BPF_CGROUP_INET_SOCK_CREATE,
			   ret_allow, token_fd);
}

void *xdp_prog_get(int token_fd, const char *token_path)
{
	return cached_prog(xdp_prog, BPF_PROG_TYPE_XDP, BPF_XDP, ret_pass, token_fd);
}

/* The program stays loaded for the next batch */
void keep_prog(long handle, void *prepared)
{
}

long cg_attach_detach(int token_fd, void *prepared)
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

long cg_link(int token_fd, void *prepared)
{
	return link_create_close(*(int *)prepared, scope_cg_fd, BPF_CGROUP_INET_SOCK_CREATE);
}

long xdp_link(int token_fd, void *prepared)
{
	return link_create_close(*(int *)prepared, xdp_ifindex, BPF_XDP);
}

/* A test run that reaches a device: one live XDP frame that enters the
 * dummy device's stack (XDP_PASS), the token's netns check included
 */
long xdp_run_live(int token_fd, void *prepared)
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
int attach_setup(void)
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

void attach_teardown(void)
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
