/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench: what a BPF token costs. bench.c says what it measures and how;
 * this is what its files share:
 *
 *   bench.c           main(): the options, the program's messages and libbpf's
 *   bench_stats.c     the clock, statistics over rounds
 *   bench_ops.c       what is loaded, the operations, a batch of one of them
 *   bench_attach.c    section a's targets, token and programs; the attach
 *                     operations
 *   bench_children.c  the checked side: the nobody and net_admin processes
 *   bench_rounds.c    sections o and a: each operation three ways, in rounds
 *   bench_pins.c      sections l and m: many pins (token list, create rate,
 *                     memory)
 *   bench_output.c    the table and the JSON
 */
#ifndef BENCH_H
#define BENCH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/bpf.h>

#define NOBODY		65534
#define BPFFS		"/sys/fs/bpf"
#define BPFFS2		"/run/bench-bpffs"
#define OPS_DIR		BPFFS "/bench-ops"
#define OPS_TOKEN	OPS_DIR "/token"
#define ATTACH_TOKEN	OPS_DIR "/attach-token"
#define CGROUP_ROOT	"/sys/fs/cgroup"
#define SCOPE_CGROUP	CGROUP_ROOT "/bench-scope"	/* the attach token's scope */
#define KEEP_CGROUP	CGROUP_ROOT "/bench-keep"	/* its sibling, see attach_setup() */
#define XDP_DEV		"bench-xdp0"
#define ATTACH_BUDGET	1.02	/* the most the attach check may cost: checked/cap */
#define OPS_BUDGET	1.01	/* the most a token may cost an operation: token/cap, nobody/cap */
#define MAX_BATCH	512
#define MAX_ROUNDS	120

/* bench.c: the options, failed measurements, messages */
struct bench_cfg {
	const char *out;
	const char *table;
	const char *progs_dir;
	const char *bpftool;
	bool quick;
	int max_tokens;
	int others;
	const char *sections;
	const char *profile;	/* -P OP,WAY,COUNT */
	bool keep;		/* -k */
};
extern struct bench_cfg cfg;
extern int failures;
extern char clocksource[64];
void msg(const char *fmt, ...);
void dump_lib_log(void);

/* bench_stats.c */
uint64_t now_ns(void);
double median(const double *v, int n);
double rel_iqr(const double *v, int n);

/* bench_ops.c: the operations. run() is timed; prepare() and release() are
 * not.
 */
enum { CHILD_NOBODY, CHILD_NET_ADMIN, NR_CHILD };

struct op {
	const char *name;
	const char *what;
	void *(*prepare)(int token_fd, const char *token_path);
	long (*run)(int token_fd, void *prepared);
	void (*release)(long handle, void *prepared);
	double budget_s;	/* time for the rounds of this operation */
	bool attach;		/* section a: through the attach token */
	int checker;		/* the task of the third way */
};

#define NR_OPS 11	/* the entries of ops[] */
extern struct op ops[];
extern char obj_path[PATH_MAX];
extern __u32 btf_small_sz, btf_big_sz;
extern int prog1k_cnt, btf_big_structs;
int make_payloads(void);
int run_batch(const struct op *op, int token_fd, const char *token_path,
	      int n, uint64_t *ns);

/* bench_attach.c: what section a's operations work on (the children close
 * the parent's programs and open the attach token anew), and those
 * operations (for ops[])
 */
extern int keep_cg_fd, attach_token_fd;
extern int keep_cg_prog, keep_xdp_prog, keep_xdp_link;
extern bool attach_ready;
extern int cg_prog[2], xdp_prog[2];
void close_fd_var(int *fd);
void *cg_prog_get(int token_fd, const char *token_path);
void *xdp_prog_get(int token_fd, const char *token_path);
void keep_prog(long handle, void *prepared);
long cg_attach_detach(int token_fd, void *prepared);
long cg_link(int token_fd, void *prepared);
long xdp_link(int token_fd, void *prepared);
long xdp_run_live(int token_fd, void *prepared);
int attach_setup(void);
void attach_teardown(void);

/* bench_children.c: the checked side. A child takes its orders (req) over
 * one pipe and answers each (resp) over the other.
 */
struct req {
	int op;			/* index in ops[], -1: exit */
	int n;
};

struct resp {
	int err;
	uint64_t ns;
};

struct child {
	pid_t pid;
	int to, from;
};

extern const char *const child_name[NR_CHILD];
extern struct child children[NR_CHILD];
bool full_io(int fd, void *buf, size_t len, bool wr);
const char *scope_note(bool restricted);
int check_attach_rule(bool restricted);
int start_child(int kind);
void stop_child(int kind);

/* bench_rounds.c: sections o and a */
enum { V_CAP, V_TOKEN, V_CHECKED, NR_V };

struct op_result {
	int err;
	int err_v;
	int rounds, batch;
	bool stable;
	double ns[NR_V][MAX_ROUNDS];		/* per round, ns per operation */
	double ratio[NR_V][MAX_ROUNDS];		/* per round, against cap */
	double med[NR_V], spread[NR_V];		/* ns: median, IQR/median */
	double rmed[NR_V], rspread[NR_V];	/* ratio: median, IQR/median */
};

extern struct op_result op_res[NR_OPS];
const char *way_name(const struct op *op, int v);
int section_ops(void);
int profile_op(const char *spec);

/* bench_pins.c: sections l and m */
#define MAX_STEPS 4
#define LIST_ROUNDS 25

struct list_result {
	int tokens;
	int err;
	const char *what;	/* what failed */
	int rounds;
	double list[LIST_ROUNDS], empty[LIST_ROUNDS], floor[LIST_ROUNDS];
	double marginal[LIST_ROUNDS];	/* us per token, per round */
	double check[LIST_ROUNDS];	/* floor + type check, us per token */
	double lst[LIST_ROUNDS], lst_empty[LIST_ROUNDS], lst_marginal[LIST_ROUNDS];
	double list_ms, empty_ms, show_ms, us_per_token, floor_us, spread, floor_spread;
	double check_us, lister_ms, lister_empty_ms, lister_us;
};

extern struct list_result list_res[MAX_STEPS];
extern int nr_steps;
extern double spawn_ms;			/* `bpftool version` */
extern double create_samples[LIST_ROUNDS * MAX_STEPS + 1];
extern int nr_create_samples;

/* Caches that grew, largest growth first */
struct growth {
	const char *name;
	long bytes, objs, objsize;
};
extern struct growth growths[8];
extern int nr_growths;
extern long bytes_per_token;
extern double create_first_per_s;

int setup_tree(void);
void remove_tree(void);
int set_tokens(int n, uint64_t *ns);
int section_memory(void);
int section_list(void);

/* bench_output.c */
void print_table(FILE *f);
int write_json(const char *path);

#endif
