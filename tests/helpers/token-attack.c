// SPDX-License-Identifier: GPL-2.0
/*
 * token-attack: what tests/vm/token-attacks.bats tries against BPF tokens,
 * with programs written as raw instructions (none of them belongs in the
 * corpus of tests/progs, whose objects every holder loads).
 *
 *   token-attack hold [-c] [-d] READY TOKEN GO...
 *	opens the token pinned at TOKEN read-write (BPF_OBJ_GET); with -c
 *	also takes a detached clone of the mount of TOKEN's directory
 *	(open_tree(OPEN_TREE_CLONE)) and opens the token through it. With -d,
 *	TOKEN is the root of a delegated BPF FS instead, and "opening" it is
 *	making a token from it (mainline's BPF_TOKEN_CREATE, flags 0); -c
 *	then clones TOKEN's own mount. Then creates the file READY.0. For
 *	each GO file, the Kth (from 1): waits
 *	(up to 60 s) until it exists, prints, one line each, what every fd
 *	it holds does and what a fresh open does, then creates READY.K:
 *	    K before: RESULT            the fd opened at the start
 *	    K clone: RESULT             the fd opened through the clone
 *	    K reopen: RESULT            TOKEN opened again now
 *	    K reopen clone: RESULT      TOKEN opened again through the clone
 *	RESULT is "load ok revoked N" (an XDP program loaded through the
 *	fd; N from the fd's fdinfo), "load ERRNO revoked N" (the load
 *	failed), or "open ERRNO" / "open_tree ERRNO" when there is no fd
 *	("open ERRNO" is the error of BPF_OBJ_GET, or with -d of opening
 *	TOKEN or of BPF_TOKEN_CREATE).
 *
 *   token-attack load [-t TOKEN] KIND...
 *	loads one program per KIND, through the token pinned at TOKEN or
 *	without a token, and prints "KIND: ok" or "KIND: ERRNO: MESSAGE",
 *	MESSAGE being the verifier's last line before its statistics.
 *	KINDs: bind4_ret3 bind4_ret1 (cgroup inet4 bind, returning 3 or 1),
 *	skb_mark skb_cb (cgroup skb writing skb->mark or cb[0]),
 *	sockops_so_mark sockops_so_keepalive (sock_ops calling
 *	bpf_setsockopt(SOL_SOCKET, SO_MARK or SO_KEEPALIVE)),
 *	sockops_var_optname (sock_ops calling bpf_setsockopt() with the
 *	optname read from its context, not a constant),
 *	sock_create_mark sock_create_ret1 (cgroup sock_create writing the
 *	socket's mark, or not), sysctl_set_new_value sysctl_ret1 (cgroup
 *	sysctl), tc_kfunc_ptr tc_pass (tc calling the test kfunc
 *	bpf_kfunc_call_test_acquire(), which returns a kernel pointer, then
 *	releasing it; or not), tc_redirect_peer (tc calling
 *	bpf_redirect_peer()), tc_syncookie (tc calling
 *	bpf_tcp_raw_gen_syncookie_ipv4() on headers on its stack, a SYN
 *	cookie answered for the host), xdp_ptr_cmp (XDP comparing two pointers,
 *	which needs CAP_PERFMON's verifier or a relaxed token), xdp_pass.
 *
 *   token-attack lsm create|capable LINK
 *	loads a BPF LSM program and attaches it, pinning its link at LINK
 *	(on BPF FS; remove LINK to detach it): "create" on bpf_token_create,
 *	refusing (-EPERM) every token made with BPF_F_TOKEN_RELAXED_VERIFIER;
 *	"capable" on bpf_token_capable, refusing CAP_PERFMON to such tokens.
 *
 *   token-attack attach-clone SRC DST
 *	takes a detached clone of the mount at SRC (open_tree(OPEN_TREE_CLONE))
 *	and attaches it at DST (move_mount()), in the caller's mount
 *	namespace.
 *
 * Errors: one "Error: ..." line on stderr and exit status 2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "testutil.h"	/* fail(), errno_name_fmt(), sys_bpf() */

#ifndef __NR_open_tree
#define __NR_open_tree 428
#endif
#ifndef __NR_move_mount
#define __NR_move_mount 429
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#define CAP_PERFMON_ 38

/* errno_name(), "E<n>" for a value it lacks */
static const char *err_name(int err)
{
	return errno_name_fmt(err, "E%d");
}

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })
#define MOV64_IMM(d, i)		INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define MOV64_REG(d, s)		INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define ADD64_IMM(d, i)		INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define LDX(sz, d, s, o)	INSN(BPF_LDX | BPF_MEM | (sz), d, s, o, 0)
#define STX(sz, d, s, o)	INSN(BPF_STX | BPF_MEM | (sz), d, s, o, 0)
#define ST(sz, d, o, i)		INSN(BPF_ST | BPF_MEM | (sz), d, 0, o, i)
#define JMP_IMM(op, d, i, o)	INSN(BPF_JMP | (op) | BPF_K, d, 0, o, i)
#define JMP32_IMM(op, d, i, o)	INSN(BPF_JMP32 | (op) | BPF_K, d, 0, o, i)
#define JMP_REG(op, d, s, o)	INSN(BPF_JMP | (op) | BPF_X, d, s, o, 0)
#define CALL(f)			INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT()			INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
#define KFUNC_CALL(id)		INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, id)

#define MAX_INSNS 16

struct prog {
	enum bpf_prog_type type;
	enum bpf_attach_type attach;
	const char *attach_btf;		/* attach_btf_id: a FUNC of vmlinux */
	struct bpf_insn insns[MAX_INSNS];
	int cnt;
};

static struct btf *vmlinux(void)
{
	static struct btf *btf;

	if (!btf) {
		btf = btf__load_vmlinux_btf();
		if (!btf)
			fail("no vmlinux BTF: %s", strerror(errno));
	}
	return btf;
}

/* byte offset of @member in struct @type of vmlinux BTF */
static int member_offset(const char *type, const char *member)
{
	const struct btf_member *m;
	const struct btf_type *t;
	int id, i;

	id = btf__find_by_name_kind(vmlinux(), type, BTF_KIND_STRUCT);
	if (id < 0)
		fail("no struct %s in vmlinux BTF", type);
	t = btf__type_by_id(vmlinux(), id);
	for (i = 0, m = btf_members(t); i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(vmlinux(), m->name_off), member))
			return btf_member_bit_offset(t, i) / 8;
	fail("no member %s in struct %s", member, type);
}

/* BTF id of the kernel function @name in vmlinux BTF */
static int kfunc_id(const char *name)
{
	int id = btf__find_by_name_kind(vmlinux(), name, BTF_KIND_FUNC);

	if (id < 0)
		fail("no function %s in vmlinux BTF", name);
	return id;
}

static void add(struct prog *p, struct bpf_insn insn)
{
	if (p->cnt == MAX_INSNS)
		fail("program too long");
	p->insns[p->cnt++] = insn;
}

/* r0 = @ret; exit */
static void ret(struct prog *p, int r)
{
	add(p, MOV64_IMM(BPF_REG_0, r));
	add(p, EXIT());
}

/* The program of @kind, false if there is none */
static bool make_prog(const char *kind, struct prog *p)
{
	memset(p, 0, sizeof(*p));
	if (!strcmp(kind, "bind4_ret3") || !strcmp(kind, "bind4_ret1")) {
		p->type = BPF_PROG_TYPE_CGROUP_SOCK_ADDR;
		p->attach = BPF_CGROUP_INET4_BIND;
		/* bit 1: bind below ip_unprivileged_port_start */
		ret(p, !strcmp(kind, "bind4_ret3") ? 3 : 1);
	} else if (!strcmp(kind, "skb_mark") || !strcmp(kind, "skb_cb")) {
		p->type = BPF_PROG_TYPE_CGROUP_SKB;
		p->attach = BPF_CGROUP_INET_INGRESS;
		add(p, MOV64_IMM(BPF_REG_2, 1));
		add(p, STX(BPF_W, BPF_REG_1, BPF_REG_2, !strcmp(kind, "skb_mark") ?
			   offsetof(struct __sk_buff, mark) :
			   offsetof(struct __sk_buff, cb[0])));
		ret(p, 1);
	} else if (!strcmp(kind, "sockops_so_mark") ||
		   !strcmp(kind, "sockops_so_keepalive")) {
		p->type = BPF_PROG_TYPE_SOCK_OPS;
		add(p, ST(BPF_W, BPF_REG_10, -4, 1));
		add(p, MOV64_IMM(BPF_REG_2, SOL_SOCKET));
		add(p, MOV64_IMM(BPF_REG_3, !strcmp(kind, "sockops_so_mark") ?
				 SO_MARK : SO_KEEPALIVE));
		add(p, MOV64_REG(BPF_REG_4, BPF_REG_10));
		add(p, ADD64_IMM(BPF_REG_4, -4));
		add(p, MOV64_IMM(BPF_REG_5, 4));
		add(p, CALL(BPF_FUNC_setsockopt));
		ret(p, 1);
	} else if (!strcmp(kind, "sockops_var_optname")) {
		/* bpf_setsockopt(SOL_SOCKET, ctx->op, ...): not a constant */
		p->type = BPF_PROG_TYPE_SOCK_OPS;
		add(p, ST(BPF_W, BPF_REG_10, -4, 1));
		add(p, LDX(BPF_W, BPF_REG_3, BPF_REG_1,
			   offsetof(struct bpf_sock_ops, op)));
		add(p, MOV64_IMM(BPF_REG_2, SOL_SOCKET));
		add(p, MOV64_REG(BPF_REG_4, BPF_REG_10));
		add(p, ADD64_IMM(BPF_REG_4, -4));
		add(p, MOV64_IMM(BPF_REG_5, 4));
		add(p, CALL(BPF_FUNC_setsockopt));
		ret(p, 1);
	} else if (!strcmp(kind, "sock_create_mark") ||
		   !strcmp(kind, "sock_create_ret1")) {
		p->type = BPF_PROG_TYPE_CGROUP_SOCK;
		p->attach = BPF_CGROUP_INET_SOCK_CREATE;
		if (!strcmp(kind, "sock_create_mark")) {
			add(p, MOV64_IMM(BPF_REG_2, 1));
			add(p, STX(BPF_W, BPF_REG_1, BPF_REG_2,
				   offsetof(struct bpf_sock, mark)));
		}
		ret(p, 1);
	} else if (!strcmp(kind, "sysctl_set_new_value") ||
		   !strcmp(kind, "sysctl_ret1")) {
		p->type = BPF_PROG_TYPE_CGROUP_SYSCTL;
		p->attach = BPF_CGROUP_SYSCTL;
		if (!strcmp(kind, "sysctl_set_new_value")) {
			add(p, ST(BPF_DW, BPF_REG_10, -8, '1'));
			add(p, MOV64_REG(BPF_REG_2, BPF_REG_10));
			add(p, ADD64_IMM(BPF_REG_2, -8));
			add(p, MOV64_IMM(BPF_REG_3, 1));
			add(p, CALL(BPF_FUNC_sysctl_set_new_value));
		}
		ret(p, 1);
	} else if (!strcmp(kind, "tc_kfunc_ptr")) {
		p->type = BPF_PROG_TYPE_SCHED_CLS;
		/* p = bpf_kfunc_call_test_acquire(&zero), a kernel pointer;
		 * if (p) bpf_kfunc_call_test_release(p)
		 */
		add(p, ST(BPF_DW, BPF_REG_10, -8, 0));
		add(p, MOV64_REG(BPF_REG_1, BPF_REG_10));
		add(p, ADD64_IMM(BPF_REG_1, -8));
		add(p, KFUNC_CALL(kfunc_id("bpf_kfunc_call_test_acquire")));
		add(p, JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 2));
		add(p, MOV64_REG(BPF_REG_1, BPF_REG_0));
		add(p, KFUNC_CALL(kfunc_id("bpf_kfunc_call_test_release")));
		ret(p, 0);
	} else if (!strcmp(kind, "tc_redirect_peer")) {
		/* return bpf_redirect_peer(1, 0) */
		p->type = BPF_PROG_TYPE_SCHED_CLS;
		add(p, MOV64_IMM(BPF_REG_1, 1));
		add(p, MOV64_IMM(BPF_REG_2, 0));
		add(p, CALL(BPF_FUNC_redirect_peer));
		add(p, EXIT());
	} else if (!strcmp(kind, "tc_syncookie")) {
		/* bpf_tcp_raw_gen_syncookie_ipv4(iph, th, 20): zeroed IPv4
		 * and TCP headers at fp-48 and fp-24; return 0
		 */
		p->type = BPF_PROG_TYPE_SCHED_CLS;
		for (int off = -8; off >= -48; off -= 8)
			add(p, ST(BPF_DW, BPF_REG_10, off, 0));
		add(p, MOV64_REG(BPF_REG_1, BPF_REG_10));
		add(p, ADD64_IMM(BPF_REG_1, -48));
		add(p, MOV64_REG(BPF_REG_2, BPF_REG_10));
		add(p, ADD64_IMM(BPF_REG_2, -24));
		add(p, MOV64_IMM(BPF_REG_3, 20));
		add(p, CALL(BPF_FUNC_tcp_raw_gen_syncookie_ipv4));
		ret(p, 0);
	} else if (!strcmp(kind, "tc_pass")) {
		p->type = BPF_PROG_TYPE_SCHED_CLS;
		ret(p, 0);
	} else if (!strcmp(kind, "xdp_ptr_cmp")) {
		p->type = BPF_PROG_TYPE_XDP;
		p->attach = BPF_XDP;
		/* a comparison of the context and the frame pointer */
		add(p, MOV64_REG(BPF_REG_2, BPF_REG_10));
		add(p, JMP_REG(BPF_JEQ, BPF_REG_1, BPF_REG_2, 0));
		ret(p, XDP_PASS);
	} else if (!strcmp(kind, "xdp_pass")) {
		p->type = BPF_PROG_TYPE_XDP;
		p->attach = BPF_XDP;
		ret(p, XDP_PASS);
	} else {
		return false;
	}
	return true;
}

/* The verifier's message: the last line of @log but its statistics */
static const char *log_message(char *log)
{
	char *line, *last = NULL, *save = NULL;

	for (line = strtok_r(log, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, "processed ", 10) &&
		    strncmp(line, "verification time", 17))
			last = line;
	return last ? last : "(no verifier log)";
}

/* Load @p through @token_fd (0: none): its fd, or -errno; the verifier's
 * message in @msg when the load fails
 */
static int load_prog(struct prog *p, int token_fd, char *log, size_t log_sz,
		     const char **msg)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts);
	int fd, id;

	opts.token_fd = token_fd;
	opts.expected_attach_type = p->attach;
	if (p->attach_btf) {
		id = btf__find_by_name_kind(vmlinux(), p->attach_btf,
					    BTF_KIND_FUNC);
		if (id < 0)
			fail("no function %s in vmlinux BTF", p->attach_btf);
		opts.attach_btf_id = id;
	}
	if (log) {
		log[0] = '\0';
		opts.log_buf = log;
		opts.log_size = log_sz;
		opts.log_level = 1;
	}
	fd = bpf_prog_load(p->type, NULL, "GPL", p->insns, p->cnt, &opts);
	if (fd < 0) {
		fd = -errno;
		if (log && msg)
			*msg = log_message(log);
	}
	return fd;
}

static int cmd_load(int argc, char **argv)
{
	static char log[65536];
	const char *token = NULL, *msg = "";
	int token_fd = 0, opt, i, fd;
	struct prog p;

	while ((opt = getopt(argc, argv, "t:")) != -1) {
		if (opt != 't')
			fail("usage: token-attack load [-t TOKEN] KIND...");
		token = optarg;
	}
	if (optind == argc)
		fail("usage: token-attack load [-t TOKEN] KIND...");
	if (token) {
		token_fd = bpf_obj_get(token);
		if (token_fd < 0)
			fail("can't open token %s: %s", token, strerror(errno));
	}
	for (i = optind; i < argc; i++) {
		if (!make_prog(argv[i], &p))
			fail("unknown program kind '%s'", argv[i]);
		fd = load_prog(&p, token_fd, log, sizeof(log), &msg);
		if (fd >= 0) {
			printf("%s: ok\n", argv[i]);
			close(fd);
		} else {
			printf("%s: %s: %s\n", argv[i], err_name(-fd), msg);
		}
		fflush(stdout);
	}
	return 0;
}

/* "revoked" of the token fd's fdinfo, -1 if there is none */
static int fdinfo_revoked(int fd)
{
	char path[64], line[256];
	int revoked = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "revoked: %d", &revoked) == 1)
			break;
	fclose(f);
	return revoked;
}

/* What the token fd @fd does now (see the head of the file) */
static void report(const char *what, int fd)
{
	struct prog p;
	int prog_fd;

	if (fd < 0) {
		printf("%s: open %s\n", what, err_name(-fd));
		return;
	}
	make_prog("xdp_pass", &p);
	prog_fd = load_prog(&p, fd, NULL, 0, NULL);
	printf("%s: load %s revoked %d\n", what,
	       prog_fd >= 0 ? "ok" : err_name(-prog_fd), fdinfo_revoked(fd));
	if (prog_fd >= 0)
		close(prog_fd);
}

static bool delegated;

/* A token from the delegated BPF FS whose root @fs_fd is: its fd or -errno */
static int token_from_fs(int fs_fd)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.token_create.bpffs_fd = fs_fd;
	/* mainline's size: flags and bpffs_fd */
	fd = sys_bpf(BPF_TOKEN_CREATE, &attr, 8);
	return fd < 0 ? -errno : fd;
}

/* The token at @path (relative to the working directory): its fd, or -errno */
static int open_token(const char *path)
{
	int fs_fd, fd;

	if (!delegated) {
		fd = bpf_obj_get(path);
		return fd < 0 ? -errno : fd;
	}
	fs_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fs_fd < 0)
		return -errno;
	fd = token_from_fs(fs_fd);
	close(fs_fd);
	return fd;
}

/* The token at @name opened relative to the directory @dir_fd (with -d:
 * made from the delegated BPF FS whose root @dir_fd is)
 */
static int open_at(int dir_fd, const char *name)
{
	int cwd, fd;

	if (delegated) {
		/* @dir_fd is open_tree()'s O_PATH fd: open the root itself */
		cwd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cwd < 0)
			return -errno;
		fd = token_from_fs(cwd);
		close(cwd);
		return fd;
	}
	cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cwd < 0)
		fail("can't open the working directory: %s", strerror(errno));
	if (fchdir(dir_fd))
		fail("can't enter the clone: %s", strerror(errno));
	fd = open_token(name);
	if (fchdir(cwd))
		fail("can't go back: %s", strerror(errno));
	close(cwd);
	return fd;
}

/* create the file "@prefix.@k" */
static void signal_ready(const char *prefix, int k)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s.%d", prefix, k);
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		fail("can't create %s: %s", path, strerror(errno));
	close(fd);
}

static int cmd_hold(int argc, char **argv)
{
	const char *ready, *token;
	int fd, clone_fd = -ENOENT, tree_fd = -ENOENT, opt, i, k;
	bool clone = false;
	char *dir, *base, what[32];

	while ((opt = getopt(argc, argv, "cd")) != -1) {
		if (opt == 'c')
			clone = true;
		else if (opt == 'd')
			delegated = true;
		else
			fail("usage: token-attack hold [-c] [-d] READY TOKEN GO...");
	}
	if (argc - optind < 3)
		fail("usage: token-attack hold [-c] [-d] READY TOKEN GO...");
	ready = argv[optind];
	token = argv[optind + 1];
	/* the mount to clone: TOKEN's directory, or a delegated TOKEN */
	dir = delegated ? strdup(token) : dirname(strdup(token));
	base = basename(strdup(token));

	fd = open_token(token);
	if (fd < 0)
		fail("can't open token %s: %s", token, strerror(-fd));
	if (clone) {
		tree_fd = syscall(__NR_open_tree, AT_FDCWD, dir,
				  OPEN_TREE_CLONE | O_CLOEXEC);
		if (tree_fd < 0)
			tree_fd = -errno;
		else
			clone_fd = open_at(tree_fd, base);
	}
	signal_ready(ready, 0);

	for (k = 1; optind + 1 + k < argc; k++) {
		const char *go = argv[optind + 1 + k];

		for (i = 0; access(go, F_OK); i++) {
			struct timespec ts = { .tv_nsec = 20 * 1000 * 1000 };

			if (i == 3000)
				fail("no %s after 60 s", go);
			nanosleep(&ts, NULL);
		}
		snprintf(what, sizeof(what), "%d before", k);
		report(what, fd);
		if (clone) {
			if (tree_fd < 0) {
				printf("%d clone: open_tree %s\n", k,
				       err_name(-tree_fd));
			} else {
				snprintf(what, sizeof(what), "%d clone", k);
				report(what, clone_fd);
			}
		}
		i = open_token(token);
		snprintf(what, sizeof(what), "%d reopen", k);
		report(what, i);
		if (i >= 0)
			close(i);
		if (clone && tree_fd >= 0) {
			i = open_at(tree_fd, base);
			snprintf(what, sizeof(what), "%d reopen clone", k);
			report(what, i);
			if (i >= 0)
				close(i);
		}
		fflush(stdout);
		signal_ready(ready, k);
	}
	return 0;
}

static int cmd_lsm(int argc, char **argv)
{
	int off = member_offset("bpf_token", "relaxed_verifier");
	int prog_fd, link_fd;
	struct prog p = {
		.type = BPF_PROG_TYPE_LSM,
		.attach = BPF_LSM_MAC,
	};

	if (argc != 3)
		fail("usage: token-attack lsm create|capable LINK");
	if (!strcmp(argv[1], "create")) {
		/* bpf_token_create(token, attr, path) */
		p.attach_btf = "bpf_lsm_bpf_token_create";
	} else if (!strcmp(argv[1], "capable")) {
		/* bpf_token_capable(token, cap): only CAP_PERFMON */
		p.attach_btf = "bpf_lsm_bpf_token_capable";
		add(&p, LDX(BPF_DW, BPF_REG_2, BPF_REG_1, 8));
		add(&p, JMP32_IMM(BPF_JNE, BPF_REG_2, CAP_PERFMON_, 5));
	} else {
		fail("usage: token-attack lsm create|capable LINK");
	}
	/* the token, made with BPF_F_TOKEN_RELAXED_VERIFIER? */
	add(&p, LDX(BPF_DW, BPF_REG_2, BPF_REG_1, 0));
	add(&p, LDX(BPF_B, BPF_REG_3, BPF_REG_2, off));
	add(&p, JMP_IMM(BPF_JEQ, BPF_REG_3, 0, 2));
	ret(&p, -EPERM);
	ret(&p, 0);

	{
		static char log[65536];
		const char *msg = "";

		prog_fd = load_prog(&p, 0, log, sizeof(log), &msg);
		if (prog_fd < 0)
			fail("can't load the LSM program: %s: %s",
			     strerror(-prog_fd), msg);
	}
	link_fd = bpf_raw_tracepoint_open(NULL, prog_fd);
	if (link_fd < 0)
		fail("can't attach the LSM program: %s", strerror(errno));
	if (bpf_obj_pin(link_fd, argv[2]))
		fail("can't pin its link at %s: %s", argv[2], strerror(errno));
	return 0;
}

static int cmd_attach_clone(int argc, char **argv)
{
	int tree_fd;

	if (argc != 3)
		fail("usage: token-attack attach-clone SRC DST");
	tree_fd = syscall(__NR_open_tree, AT_FDCWD, argv[1],
			  OPEN_TREE_CLONE | O_CLOEXEC);
	if (tree_fd < 0)
		fail("open_tree %s: %s", argv[1], strerror(errno));
	if (syscall(__NR_move_mount, tree_fd, "", AT_FDCWD, argv[2],
		    MOVE_MOUNT_F_EMPTY_PATH))
		fail("move_mount to %s: %s", argv[2], strerror(errno));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		fail("usage: token-attack hold|load|lsm|attach-clone ...");
	if (!strcmp(argv[1], "hold"))
		return cmd_hold(argc - 1, argv + 1);
	if (!strcmp(argv[1], "load"))
		return cmd_load(argc - 1, argv + 1);
	if (!strcmp(argv[1], "lsm"))
		return cmd_lsm(argc - 1, argv + 1);
	if (!strcmp(argv[1], "attach-clone"))
		return cmd_attach_clone(argc - 1, argv + 1);
	fail("usage: token-attack hold|load|lsm|attach-clone ...");
}
