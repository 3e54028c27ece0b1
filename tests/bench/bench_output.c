// SPDX-License-Identifier: GPL-2.0
/*
 * bench: the output. The table (stdout, -t) and the JSON (-o) of what the
 * sections measured; Documentation/benchmarks.md describes both.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include "bench.h"

/* Whether @r is within its budget: for an operation, the token and the
 * nobody ratios; for an attach path, the checked ratio
 */
static bool within_budget(const struct op *op, const struct op_result *r)
{
	if (op->attach)
		return r->rmed[V_CHECKED] <= ATTACH_BUDGET;
	return r->rmed[V_TOKEN] <= OPS_BUDGET && r->rmed[V_CHECKED] <= OPS_BUDGET;
}

void print_table(FILE *f)
{
	int i;

	if (strchr(cfg.sections, 'o')) {
		fprintf(f, "\nOperations: ns per operation, median over rounds; ratio = token path / capability path\n"
			   "(median of the per-round ratios), spread = IQR/median of those ratios. BTF: %u and\n"
			   "%u bytes (%d structs); programs: 2 and %d instructions. Budget: both ratios <= %.2f.\n\n",
			btf_small_sz, btf_big_sz, btf_big_structs, prog1k_cnt, OPS_BUDGET);
		fprintf(f, "%-18s %11s %11s %7s %6s %11s %7s %6s %6s %5s %6s\n", "operation", "cap ns",
			"token ns", "ratio", "spread", "nobody ns", "ratio", "spread", "rounds", "batch",
			"budget");
		for (i = 0; i < NR_OPS; i++) {
			const struct op_result *r = &op_res[i];

			if (ops[i].attach)
				continue;
			if (r->err) {
				fprintf(f, "%-18s failed (%s): %s\n", ops[i].name,
					way_name(&ops[i], r->err_v), strerror(-r->err));
				continue;
			}
			fprintf(f, "%-18s %11.0f %11.0f %7.3f %5.1f%% %11.0f %7.3f %5.1f%% %5d%s %5d %6s\n",
				ops[i].name, r->med[V_CAP], r->med[V_TOKEN], r->rmed[V_TOKEN],
				r->rspread[V_TOKEN] * 100, r->med[V_CHECKED], r->rmed[V_CHECKED],
				r->rspread[V_CHECKED] * 100, r->rounds, r->stable ? " " : "*",
				r->batch, within_budget(&ops[i], r) ? "met" : "MISSED");
		}
		fprintf(f, "(* = not stable within 0.5%% before the time budget ran out)\n");
	}
	if (strchr(cfg.sections, 'a')) {
		fprintf(f, "\nAttach: ns per attach and detach (cgroup_attach_detach: BPF_PROG_ATTACH + BPF_PROG_DETACH;\n"
			   "the others: BPF_LINK_CREATE + close), median over rounds; cgroup " SCOPE_CGROUP ",\n"
			   "dummy device " XDP_DEV ". cap = root attaches a program loaded without a token (no check);\n"
			   "token = root attaches a program loaded through a token scoped to the cgroup, within\n"
			   "the scope (the check); checked = a task without CAP_SYS_ADMIN attaches a program it\n"
			   "loaded through that token (only the check lets it through): nobody, or net_admin (root\n"
			   "without CAP_SYS_ADMIN). Ratios against cap as above; budget: checked ratio <= %.2f.\n\n",
			ATTACH_BUDGET);
		fprintf(f, "%-20s %9s %9s %7s %6s %10s %7s %6s %-9s %6s %5s %6s\n", "operation",
			"cap ns", "token ns", "ratio", "spread", "checked ns", "ratio", "spread", "as",
			"rounds", "batch", "budget");
		for (i = 0; i < NR_OPS; i++) {
			const struct op_result *r = &op_res[i];

			if (!ops[i].attach)
				continue;
			if (r->err) {
				fprintf(f, "%-20s failed (%s): %s\n", ops[i].name,
					way_name(&ops[i], r->err_v), strerror(-r->err));
				continue;
			}
			fprintf(f, "%-20s %9.0f %9.0f %7.3f %5.1f%% %10.0f %7.3f %5.1f%% %-9s %5d%s %5d %6s\n",
				ops[i].name, r->med[V_CAP], r->med[V_TOKEN], r->rmed[V_TOKEN],
				r->rspread[V_TOKEN] * 100, r->med[V_CHECKED], r->rmed[V_CHECKED],
				r->rspread[V_CHECKED] * 100, child_name[ops[i].checker], r->rounds,
				r->stable ? " " : "*", r->batch,
				within_budget(&ops[i], r) ? "met" : "MISSED");
		}
		fprintf(f, "(* = not stable within 0.5%% before the time budget ran out)\n");
	}
	if (strchr(cfg.sections, 'l')) {
		fprintf(f, "\nbpftool token list: %d other pins, 2 BPF FS, 100 directories; one bpftool run\n"
			   "costs %.1f ms (`bpftool version`). us/token = (list - list without the tokens) / tokens;\n"
			   "floor = BPF_OBJ_GET + BPF_OBJ_GET_INFO_BY_FD + close per token pin, +check = the floor\n"
			   "and bpftool's type check (readlinkat of N in /proc/self/fd); lister = a minimal C lister\n"
			   "(readdir with d_type, open, check, info, no output), per token like us/token.\n\n",
			cfg.others, spawn_ms);
		fprintf(f, "%7s %7s %8s %8s %8s %8s %6s %8s %7s %8s %8s %8s %6s\n", "tokens", "others",
			"list ms", "empty ms", "show ms", "us/token", "spread", "floor us", "x floor",
			"+check", "lister", "lst ms", "rounds");
		for (i = 0; i < nr_steps; i++) {
			const struct list_result *r = &list_res[i];

			if (r->err) {
				fprintf(f, "%7d %7d failed: %s\n", r->tokens, cfg.others, r->what);
				continue;
			}
			fprintf(f, "%7d %7d %8.1f %8.1f %8.1f %8.1f %5.1f%% %8.1f %7.2f %8.1f %8.1f %8.1f %6d\n",
				r->tokens, cfg.others, r->list_ms, r->empty_ms, r->show_ms,
				r->us_per_token, r->spread * 100, r->floor_us,
				r->floor_us ? r->us_per_token / r->floor_us : 0, r->check_us,
				r->lister_us, r->lister_ms, r->rounds);
		}
	}
	if (strchr(cfg.sections, 'm')) {
		fprintf(f, "\ntoken create: %.0f tokens/s (median of %d batches of >= 1000, first batch %.0f/s)\n",
			median(create_samples, nr_create_samples), nr_create_samples,
			create_first_per_s);
		fprintf(f, "kernel memory per token (Slab: in /proc/meminfo, %d tokens): %ld bytes\n",
			cfg.max_tokens, bytes_per_token);
		for (i = 0; i < nr_growths; i++)
			fprintf(f, "  %-24s %+8ld objects of %4ld bytes, %+9ld bytes of slabs (%ld per token)\n",
				growths[i].name, growths[i].objs, growths[i].objsize,
				growths[i].bytes, growths[i].bytes / cfg.max_tokens);
	}
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}


/* The rest of an operation's JSON object (after its name): the times of
 * cap, token and the third way (WHO: table 1's "nobody", the attach
 * table's "checked"), with the keys each table has always had, and
 * whether the budget was met.
 */
static void op_json(FILE *f, const struct op *op, const struct op_result *r,
		    const char *who)
{
	/* table 1 spells the third way's keys token_nobody_ns, ratio_nobody,
	 * spread_nobody; the attach table checked_ns, ratio_checked,
	 * spread_checked
	 */
	bool nobody = !strcmp(who, "nobody");

	if (r->err) {
		fprintf(f, "\"error\": ");
		json_str(f, strerror(-r->err));
		fprintf(f, ", \"failed_as\": \"%s\", \"cap_ns\": null, \"token_ns\": null, "
			   "\"ratio\": null, \"spread\": null", way_name(op, r->err_v));
		fprintf(f, ", \"%s%s_ns\": null, \"ratio_%s\": null, \"spread_%s\": null, "
			   "\"within_budget\": null", nobody ? "token_" : "", who, who, who);
		fprintf(f, "}");
		return;
	}
	fprintf(f, "\"cap_ns\": %.0f, \"token_ns\": %.0f, \"ratio\": %.4f, \"spread\": %.4f, "
		   "\"%s%s_ns\": %.0f, \"ratio_%s\": %.4f, \"spread_%s\": %.4f, "
		   "\"cap_spread\": %.4f, \"token_spread\": %.4f, \"%s_spread\": %.4f, "
		   "\"rounds\": %d, \"batch\": %d, \"stable\": %s",
		r->med[V_CAP], r->med[V_TOKEN], r->rmed[V_TOKEN], r->rspread[V_TOKEN],
		nobody ? "token_" : "", who, r->med[V_CHECKED], who, r->rmed[V_CHECKED],
		who, r->rspread[V_CHECKED],
		r->spread[V_CAP], r->spread[V_TOKEN], who, r->spread[V_CHECKED],
		r->rounds, r->batch, r->stable ? "true" : "false");
	fprintf(f, ", \"within_budget\": %s", within_budget(op, r) ? "true" : "false");
	fprintf(f, "}");
}

int write_json(const char *path)
{
	struct utsname u;
	FILE *f;
	int i, n;

	f = fopen(path, "w");
	if (!f)
		return msg("Error: %s: %s", path, strerror(errno)), -1;
	uname(&u);
	fprintf(f, "{\n  \"kernel\": ");
	json_str(f, u.release);
	fprintf(f, ",\n  \"clocksource\": ");
	json_str(f, clocksource);
	fprintf(f, ",\n  \"quick\": %s,\n  \"btf_small_bytes\": %u,\n  \"btf_big_bytes\": %u,\n"
		   "  \"prog_long_insns\": %d,\n  \"ops\": [", cfg.quick ? "true" : "false",
		btf_small_sz, btf_big_sz, prog1k_cnt);
	for (i = 0, n = 0; strchr(cfg.sections, 'o') && i < NR_OPS; i++) {
		const struct op_result *r = &op_res[i];

		if (ops[i].attach)
			continue;
		fprintf(f, "%s\n    {\"name\": \"%s\", ", n++ ? "," : "", ops[i].name);
		op_json(f, &ops[i], r, "nobody");
	}
	fprintf(f, "\n  ],\n  \"ops_budget\": %.2f,\n  \"attach_budget\": %.2f,\n  \"attach\": [",
		OPS_BUDGET, ATTACH_BUDGET);
	for (i = 0, n = 0; strchr(cfg.sections, 'a') && i < NR_OPS; i++) {
		const struct op_result *r = &op_res[i];

		if (!ops[i].attach)
			continue;
		fprintf(f, "%s\n    {\"name\": \"%s\", \"checked_as\": \"%s\", ", n++ ? "," : "",
			ops[i].name, child_name[ops[i].checker]);
		op_json(f, &ops[i], r, "checked");
	}
	fprintf(f, "\n  ],\n  \"list\": [");
	for (i = 0; i < nr_steps; i++) {
		const struct list_result *r = &list_res[i];

		fprintf(f, "%s\n    {\"tokens\": %d, \"others\": %d, ", i ? "," : "", r->tokens,
			cfg.others);
		if (r->err) {
			fprintf(f, "\"error\": ");
			json_str(f, r->what);
			fprintf(f, ", \"us_per_token\": null, \"floor_us_per_token\": null}");
			continue;
		}
		fprintf(f, "\"us_per_token\": %.2f, \"floor_us_per_token\": %.2f, \"spread\": %.4f, "
			   "\"floor_spread\": %.4f, \"list_ms\": %.2f, \"list_without_tokens_ms\": %.2f, "
			   "\"show_ms\": %.2f, \"floor_check_us_per_token\": %.2f, "
			   "\"lister_us_per_token\": %.2f, \"lister_ms\": %.2f, "
			   "\"lister_without_tokens_ms\": %.2f, \"rounds\": %d}",
			r->us_per_token, r->floor_us, r->spread, r->floor_spread, r->list_ms,
			r->empty_ms, r->show_ms, r->check_us, r->lister_us, r->lister_ms,
			r->lister_empty_ms, r->rounds);
	}
	fprintf(f, "\n  ],\n  \"bpftool_run_ms\": %.2f,\n", spawn_ms);
	if (strchr(cfg.sections, 'm') && bytes_per_token >= 0) {
		fprintf(f, "  \"create_per_s\": %.0f,\n  \"create_first_per_s\": %.0f,\n"
			   "  \"bytes_per_token\": %ld,\n  \"slab_growth\": [",
			median(create_samples, nr_create_samples), create_first_per_s,
			bytes_per_token);
		for (i = 0; i < nr_growths; i++)
			fprintf(f, "%s\n    {\"cache\": \"%s\", \"objects\": %ld, \"objsize\": %ld, "
				   "\"bytes\": %ld}", i ? "," : "", growths[i].name, growths[i].objs,
				growths[i].objsize, growths[i].bytes);
		fprintf(f, "\n  ]\n}\n");
	} else {
		fprintf(f, "  \"create_per_s\": null,\n  \"bytes_per_token\": null\n}\n");
	}
	return fclose(f) ? -1 : 0;
}
