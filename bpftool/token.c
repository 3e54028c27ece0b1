// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* bpftool token: create, inspect and revoke BPF tokens pinned in BPF FS, and
 * say what BPF objects need from a token (the computation is token_needs.c's).
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/nsfs.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "json_writer.h"
#include "main.h"
#include "token_abi.h"
#include "token_formats.h"
#include "token_kmem.h"
#include "token_needs.h"
#include "token_trial.h"

static const char * const token_use_names[] = {
	[TOKEN_USE_MAP_CREATE]		= "map_create",
	[TOKEN_USE_BTF_LOAD]		= "btf_load",
	[TOKEN_USE_PROG_LOAD]		= "prog_load",
	[TOKEN_USE_TOKEN_CREATE]	= "token_create",
};

/* Printing tokens ---------------------------------------------------------*/

static void print_name_json(const char *name, void *ctx)
{
	jsonw_string(json_wtr, name);
}

/* The plain text of tokens is built in a struct token_str, without
 * printf(): list prints thousands of tokens, and parsing formats and
 * stdio's work per call would be most of its time.
 */
static void add_name_plain(const char *name, void *text)
{
	token_str_addn(text, " ", 1);
	token_str_add(text, name);
}

/* "\t@label: @v\n" */
static void add_u64_line(struct token_str *text, const char *label, __u64 v)
{
	token_str_addn(text, "\t", 1);
	token_str_add(text, label);
	token_str_addn(text, ": ", 2);
	token_str_add_u64(text, v);
	token_str_addn(text, "\n", 1);
}

void print_sets_json(const __u64 *sets)
{
	unsigned int i;

	for (i = 0; i < __TOKEN_SET_MAX; i++) {
		jsonw_name(json_wtr, token_sets[i].field);
		jsonw_start_array(json_wtr);
		token_mask_for_each(i, sets[i], print_name_json, NULL);
		jsonw_end_array(json_wtr);
	}
}

static void add_sets_plain(struct token_str *text, const __u64 *sets)
{
	unsigned int i;

	for (i = 0; i < __TOKEN_SET_MAX; i++) {
		token_str_addn(text, "\t", 1);
		token_str_add(text, token_sets[i].field);
		token_str_addn(text, ":", 1);
		token_mask_for_each(i, sets[i], add_name_plain, text);
		token_str_addn(text, "\n", 1);
	}
}

/* @text to @f; false (with the error said) if it could not be built */
static bool put_text(FILE *f, struct token_str *text)
{
	bool ok = !text->oom;

	if (ok && text->len)
		fwrite(text->buf, 1, text->len, f);
	else if (!ok)
		p_err("mem alloc failed");
	token_str_free(text);
	return ok;
}

void print_sets_plain(FILE *f, const __u64 *sets)
{
	struct token_str text = {};

	add_sets_plain(&text, sets);
	put_text(f, &text);
}

/* "cgroup": {"id": N, "path": "/a/b" or null}, or null without a scope */
static void print_cgroup_json(__u64 id)
{
	const char *path = id ? token_cgroup_path(id) : NULL;

	jsonw_name(json_wtr, "cgroup");
	if (!id) {
		jsonw_null(json_wtr);
		return;
	}
	jsonw_start_object(json_wtr);
	jsonw_lluint_field(json_wtr, "id", id);
	if (path)
		jsonw_string_field(json_wtr, "path", path);
	else
		jsonw_null_field(json_wtr, "path");
	jsonw_end_object(json_wtr);
}

void token_desc_json(const struct token_desc *desc)
{
	unsigned int i;

	if (desc->has_id)
		jsonw_lluint_field(json_wtr, "id", desc->id);
	print_sets_json(desc->sets);
	jsonw_bool_field(json_wtr, "root_equivalent",
			 token_root_equiv_progs(desc->sets[TOKEN_SET_PROGS]));
	jsonw_bool_field(json_wtr, "relaxed_verifier", desc->relaxed_verifier);
	if (desc->has_state) {
		jsonw_name(json_wtr, "uses");
		jsonw_start_object(json_wtr);
		for (i = 0; i < __TOKEN_USE_MAX; i++)
			jsonw_lluint_field(json_wtr, token_use_names[i],
					   desc->uses[i]);
		jsonw_end_object(json_wtr);
		jsonw_lluint_field(json_wtr, "denials", desc->denials);
		if (desc->userns_ino)
			jsonw_lluint_field(json_wtr, "userns", desc->userns_ino);
		else
			jsonw_null_field(json_wtr, "userns");
		jsonw_uint_field(json_wtr, "depth", desc->depth);
		jsonw_bool_field(json_wtr, "revoked",
				 desc->flags & BPF_TOKEN_INFO_REVOKED);
	}
	if (desc->has_cgroup)
		print_cgroup_json(desc->cgroup_id);
}

static void print_token_json(const struct token_desc *desc)
{
	jsonw_start_object(json_wtr);
	jsonw_string_field(json_wtr, "pinned", desc->path);
	token_desc_json(desc);
	jsonw_end_object(json_wtr);
}

/* The lines of the sets last added to a list: the tokens of a list are
 * mostly made from a few sets, the same text need not be built again.
 */
struct sets_text {
	__u64 sets[__TOKEN_SET_MAX];
	struct token_str text;
};

static void add_desc_plain(struct token_str *text,
			   const struct token_desc *desc,
			   struct sets_text *last)
{
	const char *cgroup_path;
	unsigned int i;

	if (desc->has_id)
		add_u64_line(text, "id", desc->id);
	if (!last) {
		add_sets_plain(text, desc->sets);
	} else {
		if (!last->text.len ||
		    memcmp(last->sets, desc->sets, sizeof(last->sets))) {
			memcpy(last->sets, desc->sets, sizeof(last->sets));
			last->text.len = 0;
			add_sets_plain(&last->text, desc->sets);
			text->oom |= last->text.oom;
		}
		token_str_addn(text, last->text.buf, last->text.len);
	}
	if (token_root_equiv_progs(desc->sets[TOKEN_SET_PROGS]))
		token_str_add(text, "\troot-equivalent\n");
	if (desc->relaxed_verifier)
		token_str_add(text, "\tverifier: relaxed\n");
	if (!desc->has_state)
		return;

	token_str_add(text, "\tuses:");
	for (i = 0; i < __TOKEN_USE_MAX; i++) {
		add_name_plain(token_use_names[i], text);
		token_str_addn(text, " ", 1);
		token_str_add_u64(text, desc->uses[i]);
	}
	token_str_addn(text, "\n", 1);
	add_u64_line(text, "denials", desc->denials);
	if (desc->userns_ino)
		add_u64_line(text, "userns", desc->userns_ino);
	if (desc->depth)
		add_u64_line(text, "depth", desc->depth);
	cgroup_path = desc->cgroup_id ? token_cgroup_path(desc->cgroup_id) : NULL;
	if (cgroup_path) {
		token_str_add(text, "\tcgroup: ");
		token_str_add(text, cgroup_path);
		token_str_addn(text, "\n", 1);
	} else if (desc->cgroup_id) {
		add_u64_line(text, "cgroup", desc->cgroup_id);
	}
	if (desc->flags & BPF_TOKEN_INFO_REVOKED)
		token_str_add(text, "\trevoked\n");
}

void token_desc_plain(FILE *f, const struct token_desc *desc)
{
	struct token_str text = {};

	add_desc_plain(&text, desc, NULL);
	put_text(f, &text);
}

static void add_token_plain(struct token_str *text,
			    const struct token_desc *desc,
			    struct sets_text *last)
{
	token_str_add(text, desc->path);
	token_str_addn(text, "\n", 1);
	add_desc_plain(text, desc, last);
}

/* token needs -------------------------------------------------------------*/

/* The lines of a format, printed once they are all known */
struct lines {
	char **v;
	size_t cnt;
	bool oom;
};

static void add_line(const char *line, void *ctx)
{
	struct lines *l = ctx;
	char **tmp, *dup;

	tmp = reallocarray(l->v, l->cnt + 1, sizeof(*l->v));
	dup = strdup(line);
	if (tmp)
		l->v = tmp;
	if (!tmp || !dup) {
		free(dup);
		l->oom = true;
		return;
	}
	l->v[l->cnt++] = dup;
}

/* The needs @n in format @fmt: {"format": F, "lines": [...]} with -j */
static int print_needs_format(const struct token_needs *n,
			      enum token_format fmt)
{
	__u64 sets[__TOKEN_SET_MAX];
	struct lines l = {};
	enum token_set bad;
	size_t i;
	int err;

	/* the other tools configure Linux 6.9 and later, whose loader is
	 * libbpf 1.4 or later
	 */
	token_needs_mainline_sets(n, sets);
	err = token_format_lines(fmt, sets, add_line, &l, &bad);
	if (err == -ENOENT)
		p_err("%s has a %s without a name, which %s can't be told",
		      token_sets[bad].field, token_set_what(bad),
		      token_format_names[fmt]);
	else if (err || l.oom)
		p_err("mem alloc failed");
	else if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "format", token_format_names[fmt]);
		jsonw_name(json_wtr, "lines");
		jsonw_start_array(json_wtr);
		for (i = 0; i < l.cnt; i++)
			jsonw_string(json_wtr, l.v[i]);
		jsonw_end_array(json_wtr);
		jsonw_end_object(json_wtr);
	} else {
		for (i = 0; i < l.cnt; i++)
			printf("%s\n", l.v[i]);
	}

	for (i = 0; i < l.cnt; i++)
		free(l.v[i]);
	free(l.v);
	return err || l.oom ? -1 : 0;
}

/* "reads_kernel_memory": [{"object": OBJ, "program": NAME, "helpers":
 * ["bpf_...", ...]}, ...]
 */
static void print_kmem_json(const struct token_needs *n)
{
	unsigned int h;
	size_t i;

	jsonw_name(json_wtr, "reads_kernel_memory");
	jsonw_start_array(json_wtr);
	for (i = 0; i < n->kmem_cnt; i++) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "object", n->kmem[i].object);
		jsonw_string_field(json_wtr, "program", n->kmem[i].prog);
		jsonw_name(json_wtr, "helpers");
		jsonw_start_array(json_wtr);
		for (h = 0; token_kmem_helper_name(h); h++)
			if (n->kmem[i].helpers & (1U << h))
				jsonw_string(json_wtr, token_kmem_helper_name(h));
		jsonw_end_array(json_wtr);
		jsonw_end_object(json_wtr);
	}
	jsonw_end_array(json_wtr);
}

/* One line per program that reads kernel memory: "kernel memory: program
 * 'p' calls bpf_get_current_task(), ...: the token allows a tracing program
 * type (tracepoint)", with the tracing types of the sets.
 */
static void print_kmem_plain(const struct token_needs *n)
{
	struct token_str tracing = {};
	const char *sep;
	unsigned int h;
	size_t i;

	token_str_add_mask(&tracing, TOKEN_SET_PROGS,
			   n->sets[TOKEN_SET_PROGS] & TOKEN_TRACING_PROGS, ", ");
	for (i = 0; i < n->kmem_cnt; i++) {
		printf("\tkernel memory: program '%s' calls", n->kmem[i].prog);
		for (h = 0, sep = " "; token_kmem_helper_name(h); h++) {
			if (!(n->kmem[i].helpers & (1U << h)))
				continue;
			printf("%s%s()", sep, token_kmem_helper_name(h));
			sep = ", ";
		}
		printf(": the token allows a tracing program type (%s)\n",
		       tracing.buf ?: "");
	}
	token_str_free(&tracing);
}

/* "relaxed_verifier": {"needed": true, false or null (unknown), "programs":
 * [{"object": OBJ, "name": NAME, "reason": MESSAGE}, ...], "unknown": WHY or
 * null}
 */
static void print_trial_json(const struct token_trial *t)
{
	size_t i;

	jsonw_name(json_wtr, "relaxed_verifier");
	jsonw_start_object(json_wtr);
	jsonw_name(json_wtr, "needed");
	if (t->cnt || !t->unknown)
		jsonw_bool(json_wtr, t->cnt);
	else
		jsonw_null(json_wtr);
	jsonw_name(json_wtr, "programs");
	jsonw_start_array(json_wtr);
	for (i = 0; i < t->cnt; i++) {
		jsonw_start_object(json_wtr);
		jsonw_string_field(json_wtr, "object", t->progs[i].object);
		jsonw_string_field(json_wtr, "name", t->progs[i].name);
		jsonw_string_field(json_wtr, "reason", t->progs[i].reason);
		jsonw_end_object(json_wtr);
	}
	jsonw_end_array(json_wtr);
	if (t->unknown)
		jsonw_string_field(json_wtr, "unknown", t->unknown);
	else
		jsonw_null_field(json_wtr, "unknown");
	jsonw_end_object(json_wtr);
}

/* One line per program that needs the relaxed verifier, "verifier: relaxed
 * (program 'p': MESSAGE)", and one for what the trial could not tell,
 * "verifier: unknown (WHY)"
 */
static void print_trial_plain(const struct token_trial *t)
{
	size_t i;

	for (i = 0; i < t->cnt; i++)
		printf("\tverifier: relaxed (program '%s': %s)\n",
		       t->progs[i].name, t->progs[i].reason);
	if (t->unknown)
		printf("\tverifier: unknown (%s)\n", t->unknown);
}

/* "program 'a' (MESSAGE), program 'b' (MESSAGE)": the programs of @t that
 * need the relaxed verifier, NULL when out of memory
 */
static char *trial_progs_str(const struct token_trial *t)
{
	struct token_str s = {};
	size_t i;

	for (i = 0; i < t->cnt; i++)
		token_str_addf(&s, "%sprogram '%s' (%s)", i ? ", " : "",
			       t->progs[i].name, t->progs[i].reason);
	return token_str_take(&s);
}

/* The formats configure mainline kernels, whose tokens have no relaxed
 * verifier: one line on stderr (none with -j) when the objects need it, or
 * when the trial could not tell.
 */
static void note_trial_format(const struct token_trial *t,
			      enum token_format fmt)
{
	char *progs;

	if (t->cnt) {
		progs = trial_progs_str(t);
		p_info("Note: the %s format has no relaxed verifier, which %s need%s: the loader needs CAP_PERFMON, or the token a tracing program type, instead",
		       token_format_names[fmt], progs ?: "the objects",
		       t->cnt > 1 ? "" : "s");
		free(progs);
	}
	if (t->unknown)
		p_info("Note: the %s format has no relaxed verifier, and whether the objects need it is unknown: %s",
		       token_format_names[fmt], t->unknown);
}

static int do_needs(int argc, char **argv)
{
	struct token_trial trial = {};
	struct token_needs n = {};
	int i, fmt = -1, err = 0;

	/* OBJ... [format FORMAT] */
	if (argc && !strcmp(argv[argc - 1], "format")) {
		p_err("missing FORMAT after 'format' (mount, incus, lxd or systemd)");
		return -1;
	}
	if (argc >= 2 && !strcmp(argv[argc - 2], "format")) {
		fmt = token_format_by_name(argv[argc - 1]);
		if (fmt < 0) {
			p_err("unknown format '%s': expected mount, incus, lxd or systemd",
			      argv[argc - 1]);
			return -1;
		}
		argc -= 2;
	}
	if (!argc) {
		p_err("missing OBJ: 'token needs' takes one or more object files " TOKEN_HELP_HINT);
		return -1;
	}

	for (i = 0; i < argc && !err; i++)
		err = token_needs_add_file(&n, argv[i]);
	if (!err)
		err = token_needs_add_tracing(&n, n.sets[TOKEN_SET_PROGS]);
	if (!err)
		err = token_trial_run(&trial, &n, n.sets[TOKEN_SET_PROGS]);
	if (err)
		goto out;

	if (fmt >= 0) {
		err = print_needs_format(&n, fmt);
		if (!err)
			note_trial_format(&trial, fmt);
	} else if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_name(json_wtr, "objects");
		jsonw_start_array(json_wtr);
		for (i = 0; i < argc; i++)
			jsonw_string(json_wtr, argv[i]);
		jsonw_end_array(json_wtr);
		print_sets_json(n.sets);
		jsonw_bool_field(json_wtr, "cgroup_scope_needed", n.cgroup_scope);
		print_kmem_json(&n);
		print_trial_json(&trial);
		jsonw_end_object(json_wtr);
	} else {
		for (i = 0; i < argc; i++)
			printf("%s\n", argv[i]);
		print_sets_plain(stdout, n.sets);
		if (n.cgroup_scope)
			printf("\tcgroup: needed to attach (create the token with \"cgroup CGROUP\")\n");
		print_kmem_plain(&n);
		print_trial_plain(&trial);
	}

out:
	token_trial_free(&trial);
	token_needs_free(&n);
	return err;
}

/* token create and token delegate: their keywords -------------------------*/

/* The keywords, indexed by enum token_kw */
static const struct {
	const char *name;	/* NULL for a set: token_sets[].keyword */
	const char *arg;	/* what follows it, in the help */
	const char *what;	/* its argument, in messages */
	const char *desc;	/* the same, when it is missing */
	bool repeats;		/* may be given more than once */
} kw_table[__TOKEN_KW_MAX] = {
	[TOKEN_KW_TOKEN]	= { "token", "PARENT", "parent token",
				    "parent token path" },
	[TOKEN_KW_USERNS]	= { "userns", "NS", "user namespace",
				    "user namespace (PID or path)" },
	[TOKEN_KW_CGROUP]	= { "cgroup", "CGROUP", "cgroup",
				    "cgroup v2 directory" },
	[TOKEN_KW_CMDS]		= { .arg = "LIST" },
	[TOKEN_KW_MAPS]		= { .arg = "LIST" },
	[TOKEN_KW_PROGS]	= { .arg = "LIST" },
	[TOKEN_KW_ATTACH]	= { .arg = "LIST" },
	[TOKEN_KW_VERIFIER]	= { "verifier", "VERIFIER", "verifier mode",
				    "verifier mode (relaxed or strict)" },
	[TOKEN_KW_OBJECT]	= { "object", "OBJ", "object file",
				    "object file", true },
};

/* Each subcommand's keywords, in the order of its help and its messages */
static const enum token_kw create_kws[] = {
	TOKEN_KW_TOKEN, TOKEN_KW_USERNS, TOKEN_KW_CGROUP, TOKEN_KW_CMDS,
	TOKEN_KW_MAPS, TOKEN_KW_PROGS, TOKEN_KW_ATTACH, TOKEN_KW_VERIFIER,
	TOKEN_KW_OBJECT,
};

static const enum token_kw delegate_kws[] = {
	TOKEN_KW_USERNS, TOKEN_KW_CMDS, TOKEN_KW_MAPS, TOKEN_KW_PROGS,
	TOKEN_KW_ATTACH, TOKEN_KW_OBJECT, TOKEN_KW_CGROUP, TOKEN_KW_VERIFIER,
};

const struct token_cmd token_create_cmd = {
	.name		= "create",
	.path_what	= "the new token",
	.kws		= create_kws,
	.kw_cnt		= ARRAY_SIZE(create_kws),
};

const struct token_cmd token_delegate_cmd = {
	.name		= "delegate",
	.path_what	= "the delegated BPF FS",
	.kws		= delegate_kws,
	.kw_cnt		= ARRAY_SIZE(delegate_kws),
	.required	= 1U << TOKEN_KW_USERNS,
};

static bool kw_is_set(enum token_kw kw)
{
	return kw >= TOKEN_KW_CMDS && kw <= TOKEN_KW_ATTACH;
}

static const char *kw_name(enum token_kw kw)
{
	return kw_is_set(kw) ? token_sets[kw - TOKEN_KW_CMDS].keyword :
			       kw_table[kw].name;
}

static bool cmd_has_kw(const struct token_cmd *cmd, enum token_kw kw)
{
	unsigned int i;

	for (i = 0; i < cmd->kw_cnt; i++)
		if (cmd->kws[i] == kw)
			return true;
	return false;
}

/* Is @word, as it is, a keyword of @cmd? */
static bool is_cmd_kw(const struct token_cmd *cmd, const char *word)
{
	unsigned int i;

	for (i = 0; i < cmd->kw_cnt; i++)
		if (!strcmp(word, kw_name(cmd->kws[i])))
			return true;
	return false;
}

/* The keyword of @cmd that @word is a prefix of (the first in the order of
 * enum token_kw), or -1
 */
static int match_kw(const struct token_cmd *cmd, const char *word)
{
	int kw;

	for (kw = 0; kw < __TOKEN_KW_MAX; kw++)
		if (cmd_has_kw(cmd, kw) && is_prefix(word, kw_name(kw)))
			return kw;
	return -1;
}

/* "expected 'token', 'userns', ... or 'object', got: 'WORD'" */
static void print_expected(const struct token_cmd *cmd, const char *word)
{
	struct token_str s = {};
	unsigned int i;

	for (i = 0; i < cmd->kw_cnt; i++)
		token_str_addf(&s, "%s'%s'", !i ? "" :
			       i + 1 < cmd->kw_cnt ? ", " : " or ",
			       kw_name(cmd->kws[i]));
	p_err("expected %s, got: '%s' " TOKEN_HELP_HINT,
	      s.buf ?: "a keyword", word);
	token_str_free(&s);
}

/* "create PATH [token PARENT] ... [object OBJ]...", three keywords a line */
static void print_cmd_usage(const struct token_cmd *cmd, const char *prefix)
{
	enum token_kw kw;
	unsigned int i;
	bool req;

	fprintf(stderr, "%s %s token %s PATH", prefix, bin_name, cmd->name);
	for (i = 0; i < cmd->kw_cnt; i++) {
		kw = cmd->kws[i];
		req = cmd->required & (1U << kw);
		if (i && !(i % 3))
			fprintf(stderr, " \\\n%25s", "");
		fprintf(stderr, " %s%s %s%s%s", req ? "" : "[", kw_name(kw),
			kw_table[kw].arg, req ? "" : "]",
			kw_table[kw].repeats ? "..." : "");
	}
	fputc('\n', stderr);
}

/* The argument @val of keyword @kw (@word as given), checked and parsed into
 * @a. 0, or -1 after an error.
 */
static int parse_kw_arg(struct token_args *a, enum token_kw kw,
			const char *word, const char *val)
{
	char err_buf[256];
	enum token_set set;

	if (kw_is_set(kw)) {
		set = kw - TOKEN_KW_CMDS;
		if (token_parse_list(set, val, &a->sets[set], err_buf,
				     sizeof(err_buf))) {
			p_err("%s " TOKEN_HELP_HINT, err_buf);
			return -1;
		}
		return 0;
	}
	if (!*val) {
		p_err("empty %s after '%s' " TOKEN_HELP_HINT,
		      kw_table[kw].what, word);
		return -1;
	}
	if (kw != TOKEN_KW_VERIFIER)
		return 0;
	if (!strcmp(val, "relaxed")) {
		a->relaxed = true;
	} else if (strcmp(val, "strict")) {
		p_err("unknown verifier mode '%s': expected 'relaxed' or 'strict' " TOKEN_HELP_HINT,
		      val);
		return -1;
	}
	return 0;
}

int token_parse_args(const struct token_cmd *cmd, struct token_args *a,
		     int argc, char **argv, token_kw_fn fn, void *ctx)
{
	const char *word, *val;
	int kw;

	/* "create cmds any": PATH was forgotten, rather than called "cmds" */
	if (!argc || (is_cmd_kw(cmd, argv[0]) && argc > 1 &&
		      !is_cmd_kw(cmd, argv[1]))) {
		p_err("missing PATH for %s " TOKEN_HELP_HINT, cmd->path_what);
		return -1;
	}
	a->path = GET_ARG();
	if (!*a->path) {
		p_err("empty PATH for %s " TOKEN_HELP_HINT, cmd->path_what);
		return -1;
	}

	while (argc) {
		word = GET_ARG();
		kw = match_kw(cmd, word);
		if (kw < 0) {
			print_expected(cmd, word);
			return -1;
		}
		if (a->val[kw] && !kw_table[kw].repeats) {
			if (kw_is_set(kw))
				p_err("'%s' already specified " TOKEN_HELP_HINT,
				      kw_name(kw));
			else
				p_err("%s already specified " TOKEN_HELP_HINT,
				      kw_table[kw].what);
			return -1;
		}
		if (!argc) {
			if (kw_is_set(kw))
				p_err("missing %s list after '%s' " TOKEN_HELP_HINT,
				      token_set_what(kw - TOKEN_KW_CMDS), word);
			else
				p_err("missing %s after '%s' " TOKEN_HELP_HINT,
				      kw_table[kw].desc, word);
			return -1;
		}
		val = GET_ARG();
		a->val[kw] = val;
		if (parse_kw_arg(a, kw, word, val) || fn(kw, val, ctx))
			return -1;
	}
	return 0;
}

/* Open the user namespace @ns: a PID, or the path of a namespace file such
 * as /proc/PID/ns/user.
 */
int token_userns_open(const char *ns)
{
	char buf[64];
	const char *path = ns;
	const char *p;
	int fd, type;

	for (p = ns; isdigit((unsigned char)*p); p++)
		;
	if (*ns && !*p) {
		snprintf(buf, sizeof(buf), "/proc/%s/ns/user", ns);
		path = buf;
	}

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		fd = fd_above_zero(fd);
	if (fd < 0) {
		if (path != ns && errno == ENOENT)
			p_err("can't open user namespace of process %s: no such process", ns);
		else
			p_err("can't open user namespace %s: %s", path, strerror(errno));
		return -1;
	}

	type = ioctl(fd, NS_GET_NSTYPE);
	if (type != CLONE_NEWUSER) {
		p_err("%s is not a user namespace", path);
		close(fd);
		return -1;
	}

	return fd;
}

/* token create ------------------------------------------------------------*/

/* What "token create" was asked */
struct create_args {
	struct token_args args;
	int userns_fd;
	int cgroup_fd;
	struct token_needs needs;	/* of the objects */
	struct token_trial trial;	/* of the objects, without verifier */
};

static int create_kw(enum token_kw kw, const char *val, void *ctx)
{
	struct create_args *a = ctx;

	switch (kw) {
	case TOKEN_KW_USERNS:
		a->userns_fd = token_userns_open(val);
		return a->userns_fd < 0 ? -1 : 0;
	case TOKEN_KW_CGROUP:
		a->cgroup_fd = token_cgroup_open(val);
		return a->cgroup_fd < 0 ? -1 : 0;
	case TOKEN_KW_OBJECT:
		return token_needs_add_file(&a->needs, val);
	default:
		return 0;
	}
}

/* Parse everything, objects included, before talking to the kernel, so that
 * bad input never leaves a token behind.
 */
static int parse_create_args(int argc, char **argv, struct create_args *a)
{
	__u64 *sets = a->args.sets;
	int n;

	if (token_parse_args(&token_create_cmd, &a->args, argc, argv,
			     create_kw, a))
		return -1;

	/* programs that read kernel memory: a tracing program type, unless
	 * the objects or the lists have one
	 */
	if (token_needs_add_tracing(&a->needs, sets[TOKEN_SET_PROGS] |
				    a->needs.sets[TOKEN_SET_PROGS]))
		return -1;
	for (n = 0; n < __TOKEN_SET_MAX; n++)
		sets[n] |= a->needs.sets[n];
	return 0;
}

/* Open the directory of @path, checked to be on a BPF FS: the kernel's error
 * for a path outside BPF FS is not very telling, and bpftool must not mount a
 * BPF FS there as it does for other pinned objects. Then the token is pinned
 * relative to that very directory, as *@base.
 */
static int open_pin_dir(const char *path, char **base)
{
	char *dir_buf, *base_buf, *dir;
	int dir_fd = -1;

	dir_buf = strdup(path);
	base_buf = strdup(path);
	if (!dir_buf || !base_buf) {
		p_err("mem alloc failed");
		goto out;
	}
	dir = dirname(dir_buf);
	dir_fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd >= 0)
		dir_fd = fd_above_zero(dir_fd);
	if (dir_fd < 0) {
		p_err("can't pin token at %s: %s", path,
		      errno == ENOENT ? "parent directory does not exist" :
		      strerror(errno));
		goto out;
	}
	if (!is_bpffs(dir)) {
		p_err("can't pin token at %s: not a BPF FS", path);
		close(dir_fd);
		dir_fd = -1;
		goto out;
	}
	*base = strdup(basename(base_buf));
	if (!*base) {
		p_err("mem alloc failed");
		close(dir_fd);
		dir_fd = -1;
	}
out:
	free(dir_buf);
	free(base_buf);
	return dir_fd;
}

/* One error line for the kernel's refusal @err of "token create". */
static void explain_create_error(int err, const struct create_args *a)
{
	const char *path = a->args.path, *parent = a->args.val[TOKEN_KW_TOKEN];
	const char *ns = a->args.val[TOKEN_KW_USERNS];
	const char *cgroup = a->args.val[TOKEN_KW_CGROUP];
	bool relaxed = a->args.relaxed;

	switch (err) {
	case EEXIST:
		p_err("can't pin token at %s: file exists", path);
		break;
	case EPERM:
		if (parent)
			p_err("can't create token %s: parent token %s does not allow token_create or everything requested%s%s%s%s%s%s%s",
			      path, parent,
			      !relaxed ? "" : a->trial.cnt ?
			      " (the relaxed verifier included, which the objects need)" :
			      " (the relaxed verifier included)",
			      ns ? ", or user namespace " : "", ns ?: "",
			      ns ? " is not within the parent's" : "",
			      cgroup ? ", or cgroup " : "", cgroup ?: "",
			      cgroup ? " is not within the parent's scope" : "");
		else
			p_err("can't create token %s: %s (needs CAP_SYS_ADMIN, or 'token PARENT')",
			      path, strerror(err));
		break;
	case EXDEV:
		if (parent)
			p_err("can't pin token at %s: not on the BPF FS of parent token %s",
			      path, parent);
		else
			p_err("can't pin token at %s: not a BPF FS", path);
		break;
	case E2BIG:
		if (parent)
			p_err("can't create token %s: parent token %s is derived too many times already",
			      path, parent);
		else
			p_err("can't create token %s: %s", path, strerror(err));
		break;
	case EACCES:
	case ENOENT:
	case ENOTDIR:
	case ENAMETOOLONG:
		p_err("can't pin token at %s: %s", path, strerror(err));
		break;
	case EINVAL:
		/* An unknown command also says EINVAL */
		p_err("can't create token %s: %s (does the kernel support %s?)",
		      path, strerror(err),
		      relaxed ? "the relaxed verifier of BPF tokens" :
		      cgroup ? "scoping BPF tokens to a cgroup" : ns ?
		      "binding BPF tokens to a user namespace" : "BPF tokens");
		break;
	default:
		p_err("can't create token %s: %s", path, strerror(err));
	}
}

/* One line on stderr (none with -j) when the token allows program types
 * that act on the whole system: its other rules do not hold against them.
 */
void token_warn_root_equiv(__u64 progs)
{
	struct token_str names = {};

	progs = token_root_equiv_progs(progs);
	if (!progs)
		return;
	token_str_add_mask(&names, TOKEN_SET_PROGS, progs, ", ");
	p_info("Warning: token allows root-equivalent program types (%s): their programs act on the whole system, root's commands and revocation included",
	       names.buf ?: "");
	token_str_free(&names);
}

/* One line on stderr (none with -j) for a token with the relaxed verifier:
 * what it exposes, and which programs of the objects need it; one when the
 * trial could not tell whether they need it.
 */
static void warn_verifier(const struct create_args *a)
{
	char *progs;

	if (a->trial.cnt) {
		progs = trial_progs_str(&a->trial);
		p_info("Warning: token has the relaxed verifier, which %s need%s: its programs may leak kernel addresses and go without the Spectre v1/v4 mitigations",
		       progs ?: "the objects", a->trial.cnt > 1 ? "" : "s");
		free(progs);
	} else if (a->args.relaxed) {
		p_info("Warning: token has the relaxed verifier: its programs may leak kernel addresses and go without the Spectre v1/v4 mitigations");
	}
	if (a->trial.unknown)
		p_info("Warning: can't tell whether the objects need 'verifier relaxed': %s",
		       a->trial.unknown);
}

static int do_create(int argc, char **argv)
{
	struct create_args a = { .userns_fd = -1, .cgroup_fd = -1 };
	LIBBPF_OPTS(bpf_token_create_opts, opts);
	int dir_fd = -1, parent_fd = -1, err = -1;
	const __u64 *sets = a.args.sets;
	struct token_desc desc = {};
	char *base = NULL;

	if (parse_create_args(argc, argv, &a))
		goto out;
	opts.allowed_cmds = sets[TOKEN_SET_CMDS];
	opts.allowed_map_types = sets[TOKEN_SET_MAPS];
	opts.allowed_prog_types = sets[TOKEN_SET_PROGS];
	opts.allowed_attach_types = sets[TOKEN_SET_ATTACH];

	dir_fd = open_pin_dir(a.args.path, &base);
	if (dir_fd < 0)
		goto out;

	if (a.args.val[TOKEN_KW_TOKEN]) {
		/* deriving uses the parent: read-write */
		parent_fd = token_open_pinned(a.args.val[TOKEN_KW_TOKEN], true);
		if (parent_fd < 0)
			goto out;
		opts.token_fd = parent_fd;
	}
	if (a.userns_fd >= 0) {
		opts.token_flags |= BPF_F_TOKEN_USERNS;
		opts.userns_fd = a.userns_fd;
	}
	if (a.cgroup_fd >= 0) {
		opts.token_flags |= BPF_F_TOKEN_CGROUP;
		opts.cgroup_fd = a.cgroup_fd;
	}
	/* Input checked, before the kernel is asked: mainline reads
	 * BPF_TOKEN_CREATE's attr otherwise, never send it this one.
	 */
	if (!token_abi_get()->pinned && token_abi_get()->delegated) {
		p_err("can't create a pinned token: this kernel has mainline's BPF tokens, made from a delegated BPF FS: see 'bpftool token delegate PATH userns NS ...'");
		goto out;
	}
	/* what the objects need of the verifier, unless it was given */
	if (!a.args.val[TOKEN_KW_VERIFIER] &&
	    token_trial_run(&a.trial, &a.needs, sets[TOKEN_SET_PROGS]))
		goto out;
	if (a.trial.cnt)
		a.args.relaxed = true;
	if (a.args.relaxed)
		opts.token_flags |= BPF_F_TOKEN_RELAXED_VERIFIER;

	err = bpf_token_create(dir_fd, base, &opts);
	if (err) {
		explain_create_error(-err, &a);
		err = -1;
		goto out;
	}
	token_warn_root_equiv(sets[TOKEN_SET_PROGS]);
	warn_verifier(&a);

	/* -j prints what the kernel stored, read back from the pin */
	if (json_output) {
		err = token_read_pinned(a.args.path, &desc);
		if (!err)
			print_token_json(&desc);
	}

out:
	if (parent_fd >= 0)
		close(parent_fd);
	if (a.userns_fd >= 0)
		close(a.userns_fd);
	if (a.cgroup_fd >= 0)
		close(a.cgroup_fd);
	if (dir_fd >= 0)
		close(dir_fd);
	free(base);
	token_trial_free(&a.trial);
	token_needs_free(&a.needs);
	return err;
}

/* token show / list -------------------------------------------------------*/

static int show_one(const char *path)
{
	struct token_desc desc = {};
	struct token_str text = {};
	int ret;

	ret = token_show_delegated(path);
	if (ret)
		return ret < 0 ? -1 : 0;
	if (token_read_pinned(path, &desc))
		return -1;

	/* one token: one object, as "bpftool prog show id N" prints */
	if (json_output) {
		print_token_json(&desc);
		return 0;
	}
	add_token_plain(&text, &desc, NULL);
	return put_text(stdout, &text) ? 0 : -1;
}

/* The tokens pinned on every BPF FS */
struct token_list {
	struct token_desc *tokens;
	size_t cnt;
	size_t cap;
};

static int list_add(const char *path, int fd, void *ctx)
{
	struct token_list *list = ctx;
	struct token_desc *desc;
	void *tmp;
	int err;

	if (list->cnt == list->cap) {
		list->cap = list->cap ? list->cap * 2 : 16;
		tmp = reallocarray(list->tokens, list->cap, sizeof(*desc));
		if (!tmp) {
			p_err("mem alloc failed");
			return 1;
		}
		list->tokens = tmp;
	}
	desc = &list->tokens[list->cnt];
	memset(desc, 0, sizeof(*desc));

	err = token_get_info(fd, desc);
	if (err) {
		p_info("Warning: skipping token %s: can't get its info: %s",
		       path, strerror(-err));
		return 0;
	}
	desc->path = strdup(path);
	if (!desc->path) {
		p_err("mem alloc failed");
		return 1;
	}
	list->cnt++;

	return 0;
}

static int desc_cmp(const void *a, const void *b)
{
	const struct token_desc *da = a, *db = b;

	return strcmp(da->path, db->path);
}

/* Print @list in plain text, a buffer of 64 KiB at a time: bpftool's
 * stdout is line-buffered, a list of thousands of tokens would take a
 * write() per line.
 */
static int print_list_plain(const struct token_list *list)
{
	struct sets_text last = {};
	struct token_str text = {};
	bool ok = true;
	size_t i;

	for (i = 0; ok && i < list->cnt; i++) {
		add_token_plain(&text, &list->tokens[i], &last);
		if (text.len >= 65536 || text.oom || i + 1 == list->cnt)
			ok = put_text(stdout, &text);
	}
	token_str_free(&last.text);
	return ok ? 0 : -1;
}

static int show_all(void)
{
	struct token_list list = {};
	size_t i, j;
	int err;

	err = walk_pinned_objs(BPF_OBJ_TOKEN, BPF_F_RDONLY, debug_logs,
			       list_add, &list);
	if (err < 0)
		p_err("can't open /proc/mounts: %s", strerror(errno));

	/* The same directory can be listed by several mounts */
	qsort(list.tokens, list.cnt, sizeof(*list.tokens), desc_cmp);
	for (i = 0, j = 0; i < list.cnt; i++) {
		if (j && !strcmp(list.tokens[j - 1].path, list.tokens[i].path)) {
			free(list.tokens[i].path);
			continue;
		}
		list.tokens[j++] = list.tokens[i];
	}
	list.cnt = j;

	/* then the delegated BPF FS mounts of every mount namespace */
	if (!err && json_output) {
		jsonw_start_array(json_wtr);
		for (i = 0; i < list.cnt; i++)
			print_token_json(&list.tokens[i]);
		err = token_list_delegated(stdout);
		jsonw_end_array(json_wtr);
	} else if (!err) {
		err = print_list_plain(&list);
		if (!err)
			err = token_list_delegated(stdout);
	}

	for (i = 0; i < list.cnt; i++)
		free(list.tokens[i].path);
	free(list.tokens);

	return err ? -1 : 0;
}

static int do_show(int argc, char **argv)
{
	if (argc > 1) {
		NEXT_ARG();
		return BAD_ARG();
	}
	if (argc == 1)
		return show_one(*argv);

	return show_all();
}

/* token revoke ------------------------------------------------------------*/

static int do_revoke(int argc, char **argv)
{
	struct token_desc desc = {};
	struct stat before, after;
	const char *path;
	int err;

	if (!argc) {
		p_err("missing PATH of the token to revoke " TOKEN_HELP_HINT);
		return -1;
	}
	path = GET_ARG();
	if (argc)
		return BAD_ARG();

	/* The root of a delegated BPF FS: unmounted where the kernel
	 * revokes its tokens with it, refused on mainline
	 */
	if (token_revoke_delegated(path, &err))
		return err;

	/* Only a token: open it for inspection, which any pinned token
	 * allows, and ask the kernel about it.
	 */
	if (lstat(path, &before)) {
		p_err("can't open token %s: %s", path, strerror(errno));
		return -1;
	}
	if (token_read_pinned(path, &desc))
		return -1;

	/* and unlink that very pin, not one put there since */
	if (lstat(path, &after) || after.st_dev != before.st_dev ||
	    after.st_ino != before.st_ino) {
		p_err("%s changed while it was checked, not revoking it", path);
		return -1;
	}
	if (unlink(path)) {
		p_err("can't revoke token %s: %s", path, strerror(errno));
		return -1;
	}

	if (json_output)
		jsonw_null(json_wtr);
	return 0;
}

/* token help --------------------------------------------------------------*/

static void print_names_help(enum token_set set)
{
	unsigned int bit, col, indent, len;
	bool first = true;
	const char *name;

	col = fprintf(stderr, "       %s := {", token_sets[set].help_name);
	indent = col + 1;
	for (bit = 0; bit < 64; bit++) {
		name = token_bit_name(set, bit);
		if (!name)
			continue;
		len = strlen(name);
		if (!first && col + 3 + len + 2 > 80) {
			fprintf(stderr, " |\n%*s%s", indent, "", name);
			col = indent + len;
		} else {
			col += fprintf(stderr, "%s%s", first ? " " : " | ", name);
		}
		first = false;
	}
	fprintf(stderr, " }\n");
}

static int do_help(int argc, char **argv)
{
	unsigned int i;

	if (json_output) {
		jsonw_null(json_wtr);
		return 0;
	}

	print_cmd_usage(&token_create_cmd, "Usage:");
	print_cmd_usage(&token_delegate_cmd, "      ");
	fprintf(stderr,
		"       %1$s %2$s { show | list } [PATH]\n"
		"       %1$s %2$s needs OBJ [OBJ...] [format FORMAT]\n"
		"       %1$s %2$s revoke PATH\n"
		"       %1$s %2$s help\n"
		"\n"
		"       PARENT := path of a pinned token that allows token_create\n"
		"       NS := { PID | path of a user namespace, e.g. /proc/PID/ns/user }\n"
		"       CGROUP := path of a cgroup v2 directory\n"
		"       VERIFIER := { strict | relaxed }\n"
		"       OBJ := path of a BPF object file (ELF)\n"
		"       FORMAT := { mount | incus | lxd | systemd }\n"
		"       LIST := { any | ITEM[,ITEM...] }, ':' also separates ITEMs\n"
		"       ITEM := { NAME | NUMBER }\n"
		"       NAME := { CMD | MAP_TYPE | PROG_TYPE | ATTACH_TYPE } after\n"
		"               { cmds | maps | progs | attach }, in any case, with or\n"
		"               without the BPF_, BPF_MAP_TYPE_ or BPF_PROG_TYPE_ prefix\n"
		"       NUMBER := a bit mask, 0xHEX or DECIMAL\n",
		bin_name, "token");
	for (i = 0; i < __TOKEN_SET_MAX; i++)
		print_names_help(i);
	fprintf(stderr,
		"       " HELP_SPEC_OPTIONS " }\n"
		"");

	return 0;
}

static const struct cmd cmds[] = {
	{ "show",	do_show },
	{ "list",	do_show },
	{ "create",	do_create },
	{ "delegate",	token_do_delegate },
	{ "needs",	do_needs },
	{ "revoke",	do_revoke },
	{ "help",	do_help },
	{ 0 }
};

int do_token(int argc, char **argv)
{
	return cmd_select(cmds, argc, argv, do_help);
}
