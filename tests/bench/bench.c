// SPDX-License-Identifier: GPL-2.0
/*
 * bench: what a BPF token costs.
 *
 *   bench [-q] [-o RESULTS.json] [-t TABLE.txt] [-p PROGS_DIR] [-b BPFTOOL]
 *         [-n TOKENS] [-m OTHERS] [-s SECTIONS]
 *
 * Runs as root on the patched kernel (scripts/bench.sh boots it once and
 * runs this in the VM), with BPF FS at /sys/fs/bpf and cgroup v2 at
 * /sys/fs/cgroup. Four sections (-s, a subset of "oalm"; default all):
 *
 * o  operations: BPF_MAP_CREATE (array, hash), BPF_BTF_LOAD (small, 100 KiB),
 *    BPF_PROG_LOAD (2 instructions, ~1000 instructions with helpers), and
 *    bpf_object__load() of PROGS_DIR/xdp_token.bpf.o, each done three ways:
 *    "cap" (root, no token), "token" (root, through a token) and "nobody"
 *    (uid/gid 65534, no capabilities, through the same token; a forked child
 *    that gets its orders over a pipe). One round times one batch of each
 *    way, the three batches in a different order in each round (all six
 *    orders in turn), around the batch only (CLOCK_MONOTONIC). Rounds go on
 *    until the median of the per-round ratios token/cap and nobody/cap moved
 *    by less than 0.5% over the last six rounds (at least 24 rounds, at most
 *    120 or the time budget of the operation). After each batch the program
 *    sleeps while the kernel frees what the batch made (see settle()).
 *
 * a  attach: what the attach scope check of a program loaded through a token
 *    costs. BPF_PROG_ATTACH + BPF_PROG_DETACH of a cgroup/sock_create
 *    program on a cgroup, BPF_LINK_CREATE + close of a cgroup/sock_create
 *    link on it, and BPF_LINK_CREATE + close of an XDP link on a dummy
 *    device, each done three ways like the operations above: "cap" (root
 *    attaches a program loaded without a token: no check), "token" (root
 *    attaches a program loaded through a token scoped to that cgroup, within
 *    the scope: the check) and "checked" (a task without CAP_SYS_ADMIN
 *    attaches a program it loaded through the token: nothing but the check
 *    lets it through). The checked task is nobody for the cgroup operations, and for
 *    XDP, which needs CAP_NET_ADMIN over the device's network namespace, a
 *    root child that dropped CAP_SYS_ADMIN and nothing else.
 *
 * l  `bpftool token list` with N tokens (N = 10, 100, 1000, TOKENS) pinned
 *    among OTHERS other pins (one array map pinned OTHERS times), spread over
 *    100 nested directories on two BPF FS mounts (/sys/fs/bpf and a second
 *    instance mounted by this program). A round times: list with the N
 *    tokens, the floor (this program's own loop of BPF_OBJ_GET +
 *    BPF_OBJ_GET_INFO_BY_FD + close over the N token pins), and list with the
 *    N tokens unlinked (the same walk over the others alone), in alternating
 *    order. Cost per token = (list with N - list without) / N. Two more
 *    references explain bpftool's cost: the floor plus bpftool's type check
 *    (readlinkat() of N in /proc/self/fd), and a minimal C lister
 *    (readdir() with d_type, open read-only, type check, info, no output)
 *    timed like bpftool, with and without the tokens. `bpftool token show
 *    PATH` (one token) is timed too, and `bpftool version` for the cost of
 *    a run.
 *
 * m  memory and create rate: /proc/meminfo's Slab: and /proc/slabinfo before
 *    and after creating TOKENS tokens (BPF_TOKEN_CREATE, which also pins).
 *
 * For profiling: -P OP,WAY,COUNT runs only COUNT operations OP the way WAY
 * (cap, token, and nobody or net_admin as the table names it); -k only pins the OTHERS objects and TOKENS tokens
 * (section l's tree) and leaves them, e.g. for `perf record bpftool token
 * list`.
 *
 * Prints a table on stdout (and into TABLE.txt) and writes RESULTS.json (see
 * Documentation/benchmarks.md). -q: a quick run (fewer rounds, smaller N)
 * to check that everything works; its numbers mean little.
 * Exit status: 0 if every measurement was made, 1 if one failed (the table
 * and the JSON then say which, with the error).
 *
 * bench.h lists the files of the program and what each one does.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <linux/magic.h>
#include <bpf/libbpf.h>
#include "bench.h"

struct bench_cfg cfg = {
	.progs_dir = "build/progs",
	.bpftool = "build/bpftool/bpftool",
	.max_tokens = 10000,
	.others = 10000,
	.sections = "oalm",
};

int failures;
char clocksource[64] = "unknown";

void msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* ------------------------------------------------------------------------ */
/* libbpf's messages: kept, printed only when something fails */

static char lib_log[8192];
static size_t lib_log_len;

static int print_cb(enum libbpf_print_level level, const char *fmt, va_list args)
{
	size_t room = sizeof(lib_log) - lib_log_len;
	int n;

	if (level == LIBBPF_DEBUG)
		return 0;
	if (room < 2) {
		/* keep the latest messages */
		lib_log_len = 0;
		room = sizeof(lib_log);
	}
	n = vsnprintf(lib_log + lib_log_len, room, fmt, args);
	if (n > 0)
		lib_log_len += (size_t)n < room ? (size_t)n : room - 1;
	return n;
}

void dump_lib_log(void)
{
	if (lib_log_len)
		fprintf(stderr, "libbpf said:\n%s", lib_log);
	lib_log_len = 0;
	lib_log[0] = '\0';
}

/* ------------------------------------------------------------------------ */
/* main */

/* Timing with the jiffies clocksource (what a TCG guest falls back to when
 * it cannot calibrate the TSC) has a resolution of 1/HZ: refuse it.
 */
static int check_clocksource(void)
{
	FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");

	if (f) {
		if (fscanf(f, "%63s", clocksource) != 1)
			strcpy(clocksource, "unknown");
		fclose(f);
	}
	if (strstr(clocksource, "jiffies")) {
		msg("Error: the clocksource is %s, too coarse to time anything (under TCG, boot "
		    "with tsc_early_khz=HOST_TSC_KHZ tsc=reliable: scripts/bench.sh does)", clocksource);
		return -1;
	}
	return 0;
}

static void usage(const char *prog, int status)
{
	fprintf(status ? stderr : stdout, "usage: %s [-q] [-o RESULTS.json] [-t TABLE.txt] [-p PROGS_DIR] "
			"[-b BPFTOOL] [-n TOKENS] [-m OTHERS] [-s SECTIONS(oalm)]\n"
			"       %s [-p PROGS_DIR] -P OP,WAY,COUNT\n"
			"       %s [-n TOKENS] [-m OTHERS] -k\n", prog, prog, prog);
	exit(status);
}

int main(int argc, char **argv)
{
	struct statfs st_fs;
	int c;

	while ((c = getopt(argc, argv, "hqo:t:p:b:n:m:s:P:k")) != -1) {
		switch (c) {
		case 'q': cfg.quick = true; break;
		case 'o': cfg.out = optarg; break;
		case 't': cfg.table = optarg; break;
		case 'p': cfg.progs_dir = optarg; break;
		case 'b': cfg.bpftool = optarg; break;
		case 'n': cfg.max_tokens = atoi(optarg); break;
		case 'm': cfg.others = atoi(optarg); break;
		case 's': cfg.sections = optarg; break;
		case 'P': cfg.profile = optarg; break;
		case 'k': cfg.keep = true; break;
		case 'h': usage(argv[0], 0); break;
		default: usage(argv[0], 2);
		}
	}
	if (optind != argc || cfg.max_tokens < 10 || cfg.others < 0 ||
	    strspn(cfg.sections, "oalm") != strlen(cfg.sections))
		usage(argv[0], 2);
	if (geteuid()) {
		msg("Error: bench must run as root (in the VM: scripts/bench.sh)");
		return 1;
	}
	if (statfs(BPFFS, &st_fs) || st_fs.f_type != BPF_FS_MAGIC) {
		msg("Error: no BPF FS at " BPFFS ": bench runs in the VM (scripts/bench.sh)");
		return 1;
	}
	libbpf_set_print(print_cb);
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* a child that died shows as a failed write, not as our death */
	signal(SIGPIPE, SIG_IGN);
	if (check_clocksource())
		return 1;

	if (cfg.profile)
		return profile_op(cfg.profile) ? 1 : 0;
	if (cfg.keep) {
		/* the tree with all tokens, left in place for a profiler */
		if (setup_tree() || set_tokens(cfg.max_tokens, NULL))
			return 1;
		msg("bench: %d tokens and %d other pins left in place", cfg.max_tokens, cfg.others);
		return 0;
	}
	if ((strchr(cfg.sections, 'o') || strchr(cfg.sections, 'a')) && section_ops())
		return 1;
	if (strchr(cfg.sections, 'l') || strchr(cfg.sections, 'm')) {
		msg("bench: %d other pins ...", cfg.others);
		if (setup_tree()) {
			remove_tree();
			return 1;
		}
		if (strchr(cfg.sections, 'm') && section_memory())
			failures++;
		if (strchr(cfg.sections, 'l') && section_list())
			failures++;
		remove_tree();
	}
	print_table(stdout);
	if (cfg.table) {
		FILE *f = fopen(cfg.table, "w");

		if (!f || (print_table(f), fclose(f))) {
			msg("Error: %s: %s", cfg.table, strerror(errno));
			return 1;
		}
	}
	if (cfg.out && write_json(cfg.out))
		return 1;
	return failures ? 1 : 0;
}
