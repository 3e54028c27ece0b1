// SPDX-License-Identifier: GPL-2.0
/*
 * attach-matrix: load one program of each attach family, through a BPF
 * token or not, and try to attach it to each target given; print one line
 * per try, "FAMILY TARGET RESULT", RESULT being "ok" or the error's name
 * (EPERM, EACCES, ...), or "load:ERROR" when the program did not load.
 * What is attached is detached again at once.
 *
 *   attach-matrix [-t TOKEN] [-r] [-c NAME=DIR]... [-d NAME=IFNAME]...
 *                 [-n NAME=NETNS]... [-R NAME] [-f FAMILY]...
 *
 *   -t TOKEN   load the programs through the token pinned at TOKEN
 *   -r         once the programs are loaded, unlink TOKEN (revoke it),
 *              then attach
 *   -c, -d, -n the cgroup, network device and network namespace targets
 *              (NETNS: a path like /proc/self/ns/net, or fd:N for an
 *              inherited fd)
 *   -R NAME    the name of the current network namespace, where the
 *              test-run families run (default: current)
 *   -f         only these families (default: all)
 *
 * Families: cg_connect4 cg_sock_create cg_skb cg_sockopt cg_sysctl
 * (cgroups; BPF_LINK_CREATE, then BPF_PROG_ATTACH: both must agree),
 * xdp_link xdp_netlink tc (devices), sk_lookup flow_dissector (network
 * namespaces), fentry raw_tp tp_btf kprobe_multi lsm (the system),
 * kprobe_perf tracepoint_perf (through a perf event: perf_event_open(),
 * then a BPF_PERF_EVENT link), xdp_run_live tc_run (BPF_PROG_TEST_RUN that
 * reaches a device of the current network namespace: XDP live frames into
 * lo, a tc program's packet).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/syscall.h>
#include <linux/if_link.h>
#include <linux/perf_event.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#define MAX_TARGETS 8
/* the kernel's ENOTSUPP, which user space headers lack */
#define ENOTSUPP_ 524

enum target_kind { CGROUP, DEVICE, NETNS, SYSTEM, PERF, RUN };

struct target {
	const char *name;
	const char *where;
};

struct family {
	const char *name;
	enum target_kind kind;
	enum bpf_prog_type prog_type;
	enum bpf_attach_type attach_type;	/* at load and at attach */
	int ret;				/* what the program returns */
	const char *btf_name;			/* attach_btf_id's target */
	int btf_kind;
	int prog_fd;
};

#define FAMILY(n, k, pt, at, r)						\
	{ .name = n, .kind = k, .prog_type = BPF_PROG_TYPE_##pt,	\
	  .attach_type = at, .ret = r }
#define BTF_FAMILY(n, pt, at, target, bk)				\
	{ .name = n, .kind = SYSTEM, .prog_type = BPF_PROG_TYPE_##pt,	\
	  .attach_type = at, .btf_name = target, .btf_kind = bk }

static struct family families[] = {
	FAMILY("cg_connect4", CGROUP, CGROUP_SOCK_ADDR,
	       BPF_CGROUP_INET4_CONNECT, 1),
	FAMILY("cg_sock_create", CGROUP, CGROUP_SOCK,
	       BPF_CGROUP_INET_SOCK_CREATE, 1),
	FAMILY("cg_skb", CGROUP, CGROUP_SKB, BPF_CGROUP_INET_INGRESS, 1),
	FAMILY("cg_sockopt", CGROUP, CGROUP_SOCKOPT, BPF_CGROUP_GETSOCKOPT, 1),
	FAMILY("cg_sysctl", CGROUP, CGROUP_SYSCTL, BPF_CGROUP_SYSCTL, 1),
	FAMILY("xdp_link", DEVICE, XDP, BPF_XDP, XDP_PASS),
	FAMILY("xdp_netlink", DEVICE, XDP, BPF_XDP, XDP_PASS),
	FAMILY("tc", DEVICE, SCHED_CLS, 0, 0),
	FAMILY("sk_lookup", NETNS, SK_LOOKUP, BPF_SK_LOOKUP, 1),
	FAMILY("flow_dissector", NETNS, FLOW_DISSECTOR, BPF_FLOW_DISSECTOR, 0),
	BTF_FAMILY("fentry", TRACING, BPF_TRACE_FENTRY, "bpf_fentry_test1",
		   BTF_KIND_FUNC),
	FAMILY("raw_tp", SYSTEM, RAW_TRACEPOINT, 0, 0),
	BTF_FAMILY("tp_btf", TRACING, BPF_TRACE_RAW_TP, "btf_trace_sys_enter",
		   BTF_KIND_TYPEDEF),
	FAMILY("kprobe_multi", SYSTEM, KPROBE, BPF_TRACE_KPROBE_MULTI, 0),
	BTF_FAMILY("lsm", LSM, BPF_LSM_MAC, "bpf_lsm_file_open",
		   BTF_KIND_FUNC),
	FAMILY("kprobe_perf", PERF, KPROBE, 0, 0),
	FAMILY("tracepoint_perf", PERF, TRACEPOINT, 0, 0),
	FAMILY("xdp_run_live", RUN, XDP, BPF_XDP, XDP_PASS),
	FAMILY("tc_run", RUN, SCHED_CLS, 0, 0),
};

#define NR_FAMILIES (sizeof(families) / sizeof(families[0]))

static struct target targets[3][MAX_TARGETS];	/* CGROUP, DEVICE, NETNS */
static int nr_targets[3];
static const char *only[NR_FAMILIES];
static int nr_only;

static const char *err_name(int err)
{
	static char buf[16];

	switch (err) {
	case 0:
		return "ok";
	case EPERM:
		return "EPERM";
	case EACCES:
		return "EACCES";
	case EINVAL:
		return "EINVAL";
	case ENODEV:
		return "ENODEV";
	case ENOENT:
		return "ENOENT";
	case EOPNOTSUPP:
		return "EOPNOTSUPP";
	case ENOTSUPP_:
		return "ENOTSUPP";
	case EBUSY:
		return "EBUSY";
	case EEXIST:
		return "EEXIST";
	case EBADF:
		return "EBADF";
	default:
		snprintf(buf, sizeof(buf), "E%d", err);
		return buf;
	}
}

static int load(struct family *f, int token_fd, struct btf *vmlinux)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,
		  .imm = f->ret },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts);
	int id, fd;

	opts.token_fd = token_fd;
	opts.expected_attach_type = f->attach_type;
	if (f->btf_name) {
		if (!vmlinux)
			return -ENOENT;
		id = btf__find_by_name_kind(vmlinux, f->btf_name, f->btf_kind);
		if (id < 0)
			return id;
		opts.attach_btf_id = id;
	}
	fd = bpf_prog_load(f->prog_type, NULL, "GPL", insns, 2, &opts);
	return fd < 0 ? -errno : fd;
}

/* errno of a libbpf call that returned @ret (0 on success) */
static int ret_err(long ret)
{
	return ret < 0 ? (errno ? errno : (int)-ret) : 0;
}

static int link_err(int link_fd)
{
	if (link_fd < 0)
		return errno;
	close(link_fd);
	return 0;
}

static int attach_cgroup(struct family *f, const char *dir, char *out,
			 size_t len)
{
	int cg_fd, link, prog;

	cg_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg_fd < 0) {
		snprintf(out, len, "open:%s", err_name(errno));
		return 0;
	}
	link = link_err(bpf_link_create(f->prog_fd, cg_fd, f->attach_type,
					NULL));
	prog = ret_err(bpf_prog_attach(f->prog_fd, cg_fd, f->attach_type,
				       BPF_F_ALLOW_MULTI));
	if (!prog)
		bpf_prog_detach2(f->prog_fd, cg_fd, f->attach_type);
	close(cg_fd);
	if (link == prog)
		snprintf(out, len, "%s", err_name(link));
	else
		snprintf(out, len, "link:%s,attach:%s", err_name(link),
			 err_name(prog));
	return 0;
}

static int attach_device(struct family *f, const char *ifname)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .attach_point = BPF_TC_INGRESS);
	LIBBPF_OPTS(bpf_tc_opts, tc, .handle = 1, .priority = 1);
	int ifindex = if_nametoindex(ifname), err;

	if (!ifindex)
		return ENODEV;
	if (!strcmp(f->name, "xdp_link"))
		return link_err(bpf_link_create(f->prog_fd, ifindex, BPF_XDP,
						NULL));
	if (!strcmp(f->name, "xdp_netlink")) {
		err = ret_err(bpf_xdp_attach(ifindex, f->prog_fd,
					     XDP_FLAGS_SKB_MODE, NULL));
		if (!err)
			bpf_xdp_detach(ifindex, XDP_FLAGS_SKB_MODE, NULL);
		return err;
	}
	/* tc: an ingress hook of the clsact qdisc, made if need be */
	hook.ifindex = ifindex;
	err = bpf_tc_hook_create(&hook);
	if (err && err != -EEXIST)
		return -err;
	tc.prog_fd = f->prog_fd;
	err = -bpf_tc_attach(&hook, &tc);
	if (!err) {
		tc.prog_fd = tc.flags = tc.prog_id = 0;
		bpf_tc_detach(&hook, &tc);
	}
	hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
	bpf_tc_hook_destroy(&hook);
	return err;
}

static int open_netns(const char *where)
{
	if (!strncmp(where, "fd:", 3))
		return dup(atoi(where + 3));
	return open(where, O_RDONLY | O_CLOEXEC);
}

static int attach_netns(struct family *f, const char *where)
{
	int ns_fd = open_netns(where), err;

	if (ns_fd < 0)
		return errno;
	err = link_err(bpf_link_create(f->prog_fd, ns_fd, f->attach_type,
				       NULL));
	close(ns_fd);
	return err;
}

static int attach_system(struct family *f)
{
	LIBBPF_OPTS(bpf_link_create_opts, opts);
	const char *syms[] = { "bpf_fentry_test1" };

	switch (f->prog_type) {
	case BPF_PROG_TYPE_RAW_TRACEPOINT:
		return link_err(bpf_raw_tracepoint_open("sys_enter",
							f->prog_fd));
	case BPF_PROG_TYPE_KPROBE:
		opts.kprobe_multi.syms = syms;
		opts.kprobe_multi.cnt = 1;
		return link_err(bpf_link_create(f->prog_fd, 0,
						BPF_TRACE_KPROBE_MULTI, &opts));
	default:
		return link_err(bpf_link_create(f->prog_fd, 0, f->attach_type,
						NULL));
	}
}

static int read_int(const char *path)
{
	char buf[32] = "";
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = '\0';
	close(fd);
	return buf[0] ? atoi(buf) : -1;
}

static int attach_perf(struct family *f, char *out, size_t len)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.sample_period = 1,
		.wakeup_events = 1,
	};
	int pfd, err;

	if (f->prog_type == BPF_PROG_TYPE_KPROBE) {
		attr.type = read_int("/sys/bus/event_source/devices/kprobe/type");
		attr.config1 = (unsigned long)"bpf_fentry_test1";
	} else {
		attr.type = PERF_TYPE_TRACEPOINT;
		attr.config = read_int("/sys/kernel/tracing/events/syscalls/sys_enter_getpid/id");
	}
	pfd = syscall(__NR_perf_event_open, &attr, -1, 0, -1,
		      PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0) {
		snprintf(out, len, "perf:%s", err_name(errno));
		return 0;
	}
	err = link_err(bpf_link_create(f->prog_fd, pfd, BPF_PERF_EVENT, NULL));
	close(pfd);
	snprintf(out, len, "%s", err_name(err));
	return 0;
}

/* BPF_PROG_TEST_RUN of @f's program on a 64-byte frame: XDP with live
 * frames that enter lo (ifindex 1, in every network namespace), tc as is
 */
static int run_test(struct family *f)
{
	struct xdp_md ctx = { .data_end = 64, .ingress_ifindex = 1 };
	LIBBPF_OPTS(bpf_test_run_opts, opts);
	char pkt[64] = {};

	opts.data_in = pkt;
	opts.data_size_in = sizeof(pkt);
	if (f->prog_type == BPF_PROG_TYPE_XDP) {
		opts.flags = BPF_F_TEST_XDP_LIVE_FRAMES;
		opts.ctx_in = &ctx;
		opts.ctx_size_in = sizeof(ctx);
	}
	return ret_err(bpf_prog_test_run_opts(f->prog_fd, &opts));
}

static bool selected(const struct family *f)
{
	int i;

	if (!nr_only)
		return true;
	for (i = 0; i < nr_only; i++)
		if (!strcmp(only[i], f->name))
			return true;
	return false;
}

static void add_target(int kind, char *arg)
{
	char *eq = strchr(arg, '=');

	if (!eq || nr_targets[kind] == MAX_TARGETS) {
		fprintf(stderr, "attach-matrix: bad target '%s'\n", arg);
		exit(2);
	}
	*eq = '\0';
	targets[kind][nr_targets[kind]].name = arg;
	targets[kind][nr_targets[kind]++].where = eq + 1;
}

int main(int argc, char **argv)
{
	const char *token_path = NULL, *run_where = "current";
	struct btf *vmlinux;
	bool revoke = false;
	int token_fd = 0, opt, i, k, err;
	char res[64];

	while ((opt = getopt(argc, argv, "t:rc:d:n:R:f:")) != -1) {
		switch (opt) {
		case 't':
			token_path = optarg;
			break;
		case 'r':
			revoke = true;
			break;
		case 'c':
			add_target(CGROUP, optarg);
			break;
		case 'd':
			add_target(DEVICE, optarg);
			break;
		case 'n':
			add_target(NETNS, optarg);
			break;
		case 'R':
			run_where = optarg;
			break;
		case 'f':
			if (nr_only < (int)NR_FAMILIES)
				only[nr_only++] = optarg;
			break;
		default:
			fprintf(stderr, "usage: see the head of attach-matrix.c\n");
			return 2;
		}
	}
	if (token_path) {
		token_fd = bpf_obj_get(token_path);
		if (token_fd < 0) {
			fprintf(stderr, "attach-matrix: token %s: %s\n",
				token_path, strerror(errno));
			return 1;
		}
	}
	/* NULL without vmlinux BTF: the BTF-based families don't load */
	vmlinux = btf__load_vmlinux_btf();

	for (i = 0; i < (int)NR_FAMILIES; i++)
		if (selected(&families[i]))
			families[i].prog_fd = load(&families[i], token_fd,
						   vmlinux);
	if (revoke && (!token_path || unlink(token_path))) {
		fprintf(stderr, "attach-matrix: revoke: %s\n", strerror(errno));
		return 1;
	}

	for (i = 0; i < (int)NR_FAMILIES; i++) {
		struct family *f = &families[i];
		int kind = f->kind;

		if (!selected(f))
			continue;
		if (f->prog_fd < 0) {
			printf("%s - load:%s\n", f->name,
			       err_name(-f->prog_fd));
			continue;
		}
		switch (kind) {
		case CGROUP:
		case DEVICE:
		case NETNS:
			for (k = 0; k < nr_targets[kind]; k++) {
				const struct target *t = &targets[kind][k];

				if (kind == CGROUP) {
					attach_cgroup(f, t->where, res,
						      sizeof(res));
				} else {
					err = kind == DEVICE ?
					      attach_device(f, t->where) :
					      attach_netns(f, t->where);
					snprintf(res, sizeof(res), "%s",
						 err_name(err));
				}
				printf("%s %s %s\n", f->name, t->name, res);
			}
			break;
		case SYSTEM:
			printf("%s system %s\n", f->name,
			       err_name(attach_system(f)));
			break;
		case PERF:
			attach_perf(f, res, sizeof(res));
			printf("%s system %s\n", f->name, res);
			break;
		case RUN:
			printf("%s %s %s\n", f->name, run_where,
			       err_name(run_test(f)));
			break;
		}
		fflush(stdout);
	}
	return 0;
}
