// SPDX-License-Identifier: GPL-2.0
/*
 * bench: the checked side, the third way of sections o and a (the
 * comment below).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "bench.h"

/* The checked side: children forked before any timing that take their
 * orders over a pipe and time their own batches. "nobody" has uid and gid
 * 65534, no groups and no capabilities at all; "net_admin" is root without
 * CAP_SYS_ADMIN (in any set) and with every other capability: the task that
 * may attach XDP on the device only because the target's rule allows it.
 */

const char *const child_name[NR_CHILD] = { "nobody", "net_admin" };

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

bool full_io(int fd, void *buf, size_t len, bool wr)
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

const char *scope_note(bool restricted)
{
	return restricted ? "attached the token's program outside the token's cgroup scope" :
			    "could not attach the token's program outside its scope";
}

/* Whether this task runs the attach check: the attach token's program on
 * the sibling of the token's cgroup is refused (EPERM) to a task that runs
 * it and attached for root. Returns 0 if it is as @restricted says.
 */
int check_attach_rule(bool restricted)
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

struct child children[NR_CHILD] = { { 0, -1, -1 }, { 0, -1, -1 } };

int start_child(int kind)
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

void stop_child(int kind)
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
