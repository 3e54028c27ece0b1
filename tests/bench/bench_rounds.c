// SPDX-License-Identifier: GPL-2.0
/*
 * bench: sections o and a. Each operation done three ways (cap, token, and
 * the checked side's), in rounds until the ratios settle; the tokens, the
 * payloads, section a's targets and the children that the sections need;
 * and -P, one operation one way.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "bench.h"

static int ops_token_fd = -1;

const char *way_name(const struct op *op, int v)
{
	return v == V_CAP ? "cap" : v == V_TOKEN ? "token" : child_name[op->checker];
}

static int measure(int v, int op, int n, uint64_t *ns)
{
	const struct op *o = &ops[op];
	const struct child *c = &children[o->checker];
	struct req rq = { .op = op, .n = n };
	struct resp rsp;

	switch (v) {
	case V_CAP:
		return run_batch(o, 0, "", n, ns);
	case V_TOKEN:
		return run_batch(o, o->attach ? attach_token_fd : ops_token_fd,
				 o->attach ? ATTACH_TOKEN : OPS_TOKEN, n, ns);
	default:
		if (c->pid <= 0 || !full_io(c->to, &rq, sizeof(rq), true) ||
		    !full_io(c->from, &rsp, sizeof(rsp), false))
			return -EPIPE;
		*ns = rsp.ns;
		return rsp.err;
	}
}

struct op_result op_res[NR_OPS];

/* All six orders of the three ways, one per round in turn */
static const int orders[6][NR_V] = {
	{ 0, 1, 2 }, { 1, 2, 0 }, { 2, 0, 1 }, { 0, 2, 1 }, { 2, 1, 0 }, { 1, 0, 2 },
};

static void bench_op(int i)
{
	struct op_result *r = &op_res[i];
	const struct op *op = &ops[i];
	int min_rounds = cfg.quick ? 6 : 24, max_rounds = cfg.quick ? 6 : MAX_ROUNDS;
	double budget = cfg.quick ? 5 : op->budget_s, target_ns = cfg.quick ? 5e6 : 10e6;
	uint64_t ns, t_start;
	int v, k, w, n;

	/* warm-up (caches, libbpf's feature probes), then a batch size
	 * for about target_ns per batch, from the slowest way's median
	 */
	for (w = 0; w < 5; w++) {
		for (v = 0; v < NR_V; v++) {
			r->err = measure(v, i, 1, &ns);
			if (r->err) {
				r->err_v = v;
				msg("%s (%s): %s", op->name, way_name(op, v), strerror(-r->err));
				dump_lib_log();
				failures++;
				return;
			}
			r->ns[v][w] = ns;
		}
	}
	for (v = 0, ns = 0; v < NR_V; v++)
		if (median(r->ns[v], 5) > ns)
			ns = median(r->ns[v], 5);
	n = ns ? (int)(target_ns / ns) : MAX_BATCH;
	r->batch = n < 1 ? 1 : n > MAX_BATCH ? MAX_BATCH : n;

	t_start = now_ns();
	for (k = 0; k < max_rounds; k++) {
		for (w = 0; w < NR_V; w++) {
			v = orders[k % 6][w];
			r->err = measure(v, i, r->batch, &ns);
			if (r->err) {
				r->err_v = v;
				msg("%s (%s): %s", op->name, way_name(op, v), strerror(-r->err));
				dump_lib_log();
				failures++;
				return;
			}
			r->ns[v][k] = (double)ns / r->batch;
		}
		for (v = 0; v < NR_V; v++)
			r->ratio[v][k] = r->ns[v][k] / r->ns[V_CAP][k];
		r->rounds = k + 1;

		if (r->rounds >= min_rounds && r->rounds % 6 == 0) {
			bool stable = true;

			for (v = V_TOKEN; v < NR_V; v++) {
				double now = median(r->ratio[v], r->rounds);
				double before = median(r->ratio[v], r->rounds - 6);

				if (now <= 0 || (now > before ? now - before : before - now) / now > 0.005)
					stable = false;
			}
			r->stable = stable;
			if (stable || (now_ns() - t_start) / 1e9 > budget)
				break;
		}
	}
	for (v = 0; v < NR_V; v++) {
		r->med[v] = median(r->ns[v], r->rounds);
		r->spread[v] = rel_iqr(r->ns[v], r->rounds);
		r->rmed[v] = median(r->ratio[v], r->rounds);
		r->rspread[v] = rel_iqr(r->ratio[v], r->rounds);
	}
}

static void ops_teardown(void)
{
	int c;

	for (c = 0; c < NR_CHILD; c++)
		stop_child(c);
	close_fd_var(&ops_token_fd);
	unlink(OPS_TOKEN);
	attach_teardown();
	rmdir(OPS_DIR);
}

/* The tokens, payloads and children of sections o and a; with @attach,
 * also section a's targets and the net_admin child.
 */
static int ops_setup(bool attach)
{
	LIBBPF_OPTS(bpf_token_create_opts, topts,
		.allowed_cmds = 1ULL << BPF_MAP_CREATE | 1ULL << BPF_BTF_LOAD |
				1ULL << BPF_PROG_LOAD,
		.allowed_map_types = 1ULL << BPF_MAP_TYPE_ARRAY | 1ULL << BPF_MAP_TYPE_HASH,
		/* a tracing type too: the long program calls
		 * bpf_get_current_task(), which the kernel reserves to
		 * CAP_PERFMON, and a token stands in for that only if it
		 * allows a tracing program type
		 */
		.allowed_prog_types = 1ULL << BPF_PROG_TYPE_XDP | 1ULL << BPF_PROG_TYPE_TRACEPOINT,
		.allowed_attach_types = 1ULL << BPF_XDP,
	);
	int c, err;

	snprintf(obj_path, sizeof(obj_path), "%s/xdp_token.bpf.o", cfg.progs_dir);
	if (access(obj_path, R_OK)) {
		msg("Error: %s: %s", obj_path, strerror(errno));
		return -1;
	}
	if (make_payloads()) {
		msg("Error: making the BTF and programs: %s", strerror(errno));
		return -1;
	}
	if (mkdir(OPS_DIR, 0755) && errno != EEXIST) {
		msg("Error: mkdir %s: %s", OPS_DIR, strerror(errno));
		return -1;
	}
	unlink(OPS_TOKEN);
	err = bpf_token_create(AT_FDCWD, OPS_TOKEN, &topts);
	if (err) {
		msg("Error: creating %s: %s", OPS_TOKEN, strerror(-err));
		return -1;
	}
	/* nobody uses it: it needs write access */
	if (chmod(OPS_TOKEN, 0666)) {
		msg("Error: chmod %s: %s", OPS_TOKEN, strerror(errno));
		return -1;
	}
	ops_token_fd = bpf_obj_get(OPS_TOKEN);
	if (ops_token_fd < 0) {
		msg("Error: opening %s: %s", OPS_TOKEN, strerror(errno));
		return -1;
	}
	if (attach && attach_setup())
		return -1;
	for (c = 0; c < (attach ? NR_CHILD : 1); c++) {
		if (start_child(c)) {
			msg("Error: starting the %s process: %s", child_name[c], strerror(errno));
			return -1;
		}
	}
	return 0;
}

int section_ops(void)
{
	bool data = strchr(cfg.sections, 'o'), attach = strchr(cfg.sections, 'a');
	int i;

	if (ops_setup(attach)) {
		ops_teardown();
		return -1;
	}
	for (i = 0; i < NR_OPS; i++) {
		if (ops[i].attach ? !attach : !data)
			continue;
		msg("bench: %s ...", ops[i].name);
		bench_op(i);
	}
	ops_teardown();
	return 0;
}

/* -P OP,WAY,COUNT: only COUNT batches of one OP, one WAY (cap, token, or
 * the op's checked task: nobody or net_admin), e.g. under strace or perf.
 */
int profile_op(const char *spec)
{
	char name[64], way[16];
	int i, v, count, k, err = 0;
	uint64_t ns, total = 0;

	if (sscanf(spec, "%63[^,],%15[^,],%d", name, way, &count) != 3 || count < 1)
		return msg("Error: -P wants OP,WAY,COUNT"), -1;
	for (i = 0; i < NR_OPS && strcmp(ops[i].name, name); i++)
		;
	if (i == NR_OPS)
		return msg("Error: unknown operation %s", name), -1;
	for (v = 0; v < NR_V && strcmp(way_name(&ops[i], v), way); v++)
		;
	if (v == NR_V)
		return msg("Error: %s is done as cap, token or %s, not %s", name,
			   way_name(&ops[i], V_CHECKED), way), -1;
	if (ops_setup(ops[i].attach)) {
		ops_teardown();
		return -1;
	}
	for (k = 0; k < count && !err; k++) {
		err = measure(v, i, 1, &ns);
		total += ns;
	}
	if (err)
		msg("Error: %s (%s): %s", name, way, strerror(-err));
	else
		printf("%s %s: %.0f ns per operation\n", name, way, (double)total / count);
	ops_teardown();
	return err;
}
