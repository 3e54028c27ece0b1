// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The trial verification of "token needs" and "token create ... object":
 * do the objects load through a token only if it has the relaxed verifier
 * (BPF_F_TOKEN_RELAXED_VERIFIER)?
 *
 * The flag gives a token's programs what the verifier otherwise keeps for a
 * loader with CAP_PERFMON, reads of kernel memory apart: pointer leaks
 * (allow_ptr_leaks: pointer comparisons and arithmetic, partial writes over
 * spilled pointers) and no simulation of speculative execution
 * (bypass_spec_v1, bypass_spec_v4). Only verifying a program tells whether
 * it needs them. A child process that keeps CAP_BPF and CAP_NET_ADMIN, what
 * a token stands in for, and drops CAP_PERFMON and CAP_SYS_ADMIN, loads each
 * object with libbpf as nobody does through a strict token. When the
 * verifier refuses a program with a message of those relaxations, or on a
 * path it explores only to simulate speculative execution, the program
 * needs the flag; the object is tried again without it, until it loads or
 * fails for another reason. The child reports on a pipe and exits: what it
 * loaded goes with it.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/capability.h>

#include <bpf/libbpf.h>

#include "main.h"
#include "token_check.h"
#include "token_trial.h"

/* What the child keeps: the capabilities a token stands in for */
#define TRIAL_CAPS		(1ULL << CAP_BPF | 1ULL << CAP_NET_ADMIN)

void token_trial_free(struct token_trial *t)
{
	size_t i;

	for (i = 0; i < t->cnt; i++) {
		free(t->progs[i].object);
		free(t->progs[i].name);
		free(t->progs[i].reason);
	}
	free(t->progs);
	free(t->unknown);
	memset(t, 0, sizeof(*t));
}

/* The verifier's messages ---------------------------------------------------*/

/* What kernel/bpf/verifier.c says when it refuses what it allows only with
 * allow_ptr_leaks or bypass_spec_v1, both of which the flag sets: found
 * anywhere in a line of its log. tests/host/kernel_tables.py checks that
 * the verifier prints each.
 */
static const char * const relaxed_msgs[] = {
	/* allow_ptr_leaks */
	"attempt to corrupt spilled pointer on stack",
	"spilled ptr in range of var-offset stack write",
	"leaking pointer from stack off ",
	" leaks addr ",
	" pointer comparison prohibited",
	" pointer -= pointer prohibited",
	" partial copy of pointer",
	/* bypass_spec_v1: sanitize_err(), and the bounds it would need */
	"pointer arithmetic with it prohibited for !root",
	" variable offset stack access prohibited for !root",
	" variable stack access prohibited for !root",
	" stack pointer arithmetic goes out of range, prohibited for !root",
	" pointer arithmetic of map value goes out of range, prohibited for !root",
};

/* @line after its leading "R<n> ", or NULL if it has none */
static const char *after_reg(const char *line)
{
	const char *p = line;

	if (*p++ != 'R' || !isdigit((unsigned char)*p))
		return NULL;
	while (isdigit((unsigned char)*p))
		p++;
	return *p == ' ' ? p + 1 : NULL;
}

/* Is @line of the verifier's log, after @prev (the instruction it is about,
 * or NULL), the refusal of something the flag relaxes?
 */
static bool relaxed_msg(const char *line, const char *prev)
{
	const char *msg = after_reg(line);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(relaxed_msgs); i++)
		if (strstr(line, relaxed_msgs[i]))
			return true;
	if (!msg)
		return false;
	/* BPF_NEG or BPF_END on a pointer, whose result is then a scalar */
	if (!strcmp(msg, "pointer arithmetic prohibited"))
		return true;
	/* of the 32-bit operations on a pointer, the flag allows subtraction */
	return !strcmp(msg, "32-bit pointer arithmetic prohibited") && prev &&
	       strstr(prev, " -= ");
}

/* Is a statistics line of the verifier's log ("processed N insns (limit M)
 * ...")?
 */
static bool stats_line(const char *line)
{
	return !strncmp(line, "processed ", 10) && strstr(line, " insns (limit ");
}

/* @s without libbpf's "libbpf: " */
static char *skip_libbpf(char *s)
{
	return strncmp(s, "libbpf: ", 8) ? s : s + 8;
}

/* From libbpf's warnings @log about a failed load (cut into lines here):
 * the program whose load failed (*@name, NULL if none did: a map, say) and
 * why (*@msg). Returns true when the verifier refused it for something the
 * flag relaxes, *@msg then being that line of the verifier's log; otherwise
 * *@msg is the last line of the verifier's log, libbpf's error, or its last
 * warning.
 */
static bool log_verdict(char *log, const char **name, const char **msg)
{
	static const char failed[] = "': BPF program load failed: ";
	static const char begin[] = "': -- BEGIN PROG LOAD LOG --\n";
	static const char end[] = "-- END PROG LOAD LOG --";
	char *fail = NULL, *vlog = NULL, *vend = NULL, *p, *line, *next;
	const char *prev = NULL, *last = NULL;

	*name = NULL;
	*msg = NULL;

	/* "libbpf: prog 'NAME': BPF program load failed: ERROR\n", then
	 * "libbpf: prog 'NAME': -- BEGIN PROG LOAD LOG --\nLOG-- END PROG
	 * LOAD LOG --\n"
	 */
	for (p = strstr(log, failed); p; p = strstr(p + 1, failed))
		fail = p;
	if (fail) {
		vlog = strstr(fail, begin);
		vend = vlog ? strstr(vlog, end) : NULL;
		if (vend) {
			vlog += sizeof(begin) - 1;
			*vend = '\0';
		}
		line = fail;
		while (line > log && line[-1] != '\n')
			line--;
		p = strstr(line, "prog '");
		if (p && p < fail)
			*name = p + 6;
		*fail = '\0';
		*msg = fail + sizeof(failed) - 1;
		p = strchr(*msg, '\n');
		if (p)
			*p = '\0';
	}

	/* the verifier's log: its refusal is its last line, but for the
	 * statistics that later kernels end it with ("processed N insns
	 * (limit M) ..."); the line before is the instruction refused
	 */
	for (line = vend ? vlog : NULL; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!*line || stats_line(line))
			continue;
		prev = last;
		last = line;
	}
	if (last) {
		*msg = last;
		return relaxed_msg(last, prev);
	}
	if (fail)
		return false;

	/* no program failed: libbpf's last warning but its conclusion */
	for (line = log; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (*line && strncmp(skip_libbpf(line), "failed to load object", 21))
			*msg = skip_libbpf(line);
	}
	return false;
}

/* The child -----------------------------------------------------------------*/

/* Reports to the parent, one a line, fields separated by tabs:
 *   N <object index> <program> <message>	the program needs the flag
 *   U <text>				the trial can't tell, for this
 *   D					the trial is over
 */

/* @s as a field of a report: no tab, no newline */
static void put_field(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(*s == '\t' || *s == '\n' ? ' ' : *s, out);
}

static void __printf(2, 3) report_unknown(FILE *out, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vasprintf(&s, fmt, ap);
	va_end(ap);
	fputs("U\t", out);
	put_field(out, ret < 0 ? "out of memory" : s);
	fputc('\n', out);
	free(ret < 0 ? NULL : s);
}

static FILE *trial_log;

/* libbpf's warnings, into trial_log while an object loads */
static int trial_print(enum libbpf_print_level level, const char *fmt,
		       va_list ap)
{
	if (level == LIBBPF_WARN && trial_log)
		vfprintf(trial_log, fmt, ap);
	return 0;
}

/* Drop CAP_SYS_ADMIN and CAP_PERFMON: the child has no token, the
 * capabilities left are those a strict token stands in for.
 */
static int drop_caps(void)
{
	static const int drop[] = { CAP_SYS_ADMIN, CAP_PERFMON };
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
	unsigned int i;

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	for (i = 0; i < ARRAY_SIZE(drop); i++) {
		data[CAP_TO_INDEX(drop[i])].effective &= ~CAP_TO_MASK(drop[i]);
		data[CAP_TO_INDEX(drop[i])].permitted &= ~CAP_TO_MASK(drop[i]);
		data[CAP_TO_INDEX(drop[i])].inheritable &= ~CAP_TO_MASK(drop[i]);
	}
	return syscall(SYS_capset, &hdr, data);
}

/* The names of the programs of an object that need the flag */
struct names {
	char **v;
	size_t cnt;
};

static bool names_has(const struct names *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->cnt; i++)
		if (!strcmp(l->v[i], name))
			return true;
	return false;
}

static int names_add(struct names *l, const char *name)
{
	char **tmp;

	tmp = reallocarray(l->v, l->cnt + 1, sizeof(*l->v));
	if (!tmp)
		return -1;
	l->v = tmp;
	l->v[l->cnt] = strdup(name);
	if (!l->v[l->cnt])
		return -1;
	l->cnt++;
	return 0;
}

static void names_free(struct names *l)
{
	size_t i;

	for (i = 0; i < l->cnt; i++)
		free(l->v[i]);
	free(l->v);
}

/* Open @file for a try: the programs of @skip, those whose autoload is off
 * and those that can't be tried (struct_ops, ext: their type needs
 * CAP_PERFMON; said on @out if @first) are not loaded. Maps are neither
 * pinned nor reused, struct_ops maps not created (updating one would
 * register it). *@cnt: the number of programs to load. NULL if libbpf can't
 * open it.
 */
static struct bpf_object *trial_open(FILE *out, const struct token_file *file,
				     const struct names *skip, bool first,
				     int *cnt)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .bpf_token_path = "",
		    .object_name = file->name);
	struct bpf_program *prog;
	struct bpf_object *obj;
	struct bpf_map *map;

	*cnt = 0;
	/* the bytes that were read and checked, not the file again */
	obj = bpf_object__open_mem(file->buf, file->size, &opts);
	if (!obj) {
		report_unknown(out, "libbpf can't open %s: %s", file->path,
			       strerror(errno));
		return NULL;
	}

	bpf_object__for_each_program(prog, obj) {
		enum bpf_prog_type type = bpf_program__type(prog);
		const char *name = bpf_program__name(prog);

		if (!bpf_program__autoload(prog))
			continue;
		if (names_has(skip, name)) {
			bpf_program__set_autoload(prog, false);
			continue;
		}
		if ((unsigned int)type < 64 &&
		    token_root_equiv_progs(1ULL << type)) {
			bpf_program__set_autoload(prog, false);
			if (first)
				report_unknown(out, "program '%s' (%s) can't be tried without CAP_PERFMON",
					       name, libbpf_bpf_prog_type_str(type));
			continue;
		}
		(*cnt)++;
	}

	bpf_object__for_each_map(map, obj) {
		bpf_map__set_pin_path(map, NULL);
		if (bpf_map__type(map) == BPF_MAP_TYPE_STRUCT_OPS)
			bpf_map__set_autocreate(map, false);
	}
	return obj;
}

/* Is the verifier's refusal @msg of program @name of @file (tried without
 * the programs of @skip) on a path that it simulates for speculative
 * execution, which the flag skips (bypass_spec_v1)? The message does not
 * tell: load the object once more, with the log of every path (level 2)
 * for that program, whose last path started before @msg says so ("from I
 * to J (speculative execution): ...").
 */
static bool trial_speculative(FILE *out, const struct token_file *file,
			      const struct names *skip, const char *name,
			      const char *msg)
{
	const size_t size = 16 << 20;
	char *buf, *line, *next, *from = NULL, *from_last = NULL, *last = NULL;
	struct bpf_program *prog;
	struct bpf_object *obj;
	bool spec = false;
	int cnt;

	obj = trial_open(out, file, skip, false, &cnt);
	if (!obj)
		return false;
	prog = bpf_object__find_program_by_name(obj, name);
	buf = calloc(1, size);
	if (prog && buf && !bpf_program__set_log_buf(prog, buf, size - 1) &&
	    !bpf_program__set_log_level(prog, 2) && bpf_object__load(obj)) {
		for (line = buf; *line; line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			else
				next = line + strlen(line);
			if (!strncmp(line, "from ", 5) && strstr(line, " to ")) {
				from = line;
			} else if (*line && !stats_line(line)) {
				last = line;
				from_last = from;
			}
		}
		spec = last && !strcmp(last, msg) && from_last &&
		       strstr(from_last, " (speculative execution):");
	}
	bpf_object__close(obj);
	free(buf);
	return spec;
}

/* Did the load, whose libbpf warnings are @log, fail only in putting a
 * program of @skip, not loaded, into a program array (the map's .values)?
 * The others loaded then.
 */
static bool failed_on_skipped(const char *log, const struct names *skip)
{
	char needle[256];
	size_t i;

	if (!strstr(log, ": failed to initialize slot ["))
		return false;
	for (i = 0; i < skip->cnt; i++) {
		snprintf(needle, sizeof(needle), "] to prog '%s' fd=-",
			 skip->v[i]);
		if (strstr(log, needle))
			return true;
	}
	return false;
}

/* Try the object @file, number @idx, until it loads or fails for something
 * else than what the flag relaxes.
 */
static void trial_object(FILE *out, size_t idx,
			 const struct token_file *file)
{
	const char *name, *msg;
	struct names skip = {};
	struct bpf_object *obj;
	bool first = true, relaxed, spec;
	size_t len;
	char *log;
	int cnt, err;

	for (;; first = false) {
		obj = trial_open(out, file, &skip, first, &cnt);
		if (!obj)
			break;
		if (!cnt) {
			bpf_object__close(obj);
			break;
		}

		log = NULL;
		trial_log = open_memstream(&log, &len);
		if (!trial_log) {
			report_unknown(out, "out of memory");
			bpf_object__close(obj);
			break;
		}
		err = bpf_object__load(obj);
		fclose(trial_log);
		trial_log = NULL;
		bpf_object__close(obj);
		if (!err || failed_on_skipped(log, &skip)) {
			free(log);
			break;
		}

		relaxed = log_verdict(log, &name, &msg);
		spec = !relaxed && name && msg &&
		       trial_speculative(out, file, &skip, name, msg);
		if ((relaxed || spec) && name && !names_has(&skip, name)) {
			fprintf(out, "N\t%zu\t", idx);
			put_field(out, name);
			fputc('\t', out);
			put_field(out, msg);
			if (spec)
				fputs(" (speculative execution)", out);
			fputc('\n', out);
			err = names_add(&skip, name);
			free(log);
			if (err) {
				report_unknown(out, "out of memory");
				break;
			}
			continue;
		}

		if (name)
			report_unknown(out, "program '%s' fails to load with CAP_BPF and CAP_NET_ADMIN: %s",
				       name, msg ?: "no message");
		else
			report_unknown(out, "%s fails to load with CAP_BPF and CAP_NET_ADMIN: %s",
				       file->path, msg ?: "no message");
		free(log);
		break;
	}
	names_free(&skip);
}

static void __noreturn
trial_child(int fd, const struct token_needs *n)
{
	FILE *out;
	size_t i;

	out = fdopen(fd, "w");
	if (!out)
		_exit(1);
	if (drop_caps()) {
		report_unknown(out, "can't drop CAP_PERFMON and CAP_SYS_ADMIN for the trial verification: %s",
			       strerror(errno));
	} else {
		libbpf_set_print(trial_print);
		for (i = 0; i < n->file_cnt; i++)
			trial_object(out, i, &n->files[i]);
	}
	fputs("D\n", out);
	/* not exit(): bpftool's buffers and handlers are the parent's */
	_exit(fclose(out) ? 1 : 0);
}

/* The parent ----------------------------------------------------------------*/

/* Add a reason to t->unknown, after "; " if it has one already */
static int __printf(2, 3) add_unknown(struct token_trial *t, const char *fmt,
				      ...)
{
	struct token_str s = {};
	va_list ap;

	if (t->unknown)
		token_str_addf(&s, "%s; ", t->unknown);
	va_start(ap, fmt);
	token_str_vaddf(&s, fmt, ap);
	va_end(ap);
	if (s.oom) {
		token_str_free(&s);
		p_err("mem alloc failed");
		return -1;
	}
	free(t->unknown);
	t->unknown = token_str_take(&s);
	return 0;
}

/* Add the program of the report "IDX\tNAME\tMESSAGE" (@rep) to @t */
static int add_prog(struct token_trial *t, const struct token_needs *n,
		    char *rep)
{
	struct token_trial_prog *p, *tmp;
	char *name, *reason, *end;
	unsigned long idx;

	idx = strtoul(rep, &end, 10);
	name = *end == '\t' ? end + 1 : NULL;
	reason = name ? strchr(name, '\t') : NULL;
	if (!reason || idx >= n->file_cnt)
		return add_unknown(t, "the trial verification said '%s'", rep);
	*reason++ = '\0';

	tmp = reallocarray(t->progs, t->cnt + 1, sizeof(*t->progs));
	if (!tmp)
		goto nomem;
	t->progs = tmp;
	p = &t->progs[t->cnt];
	p->object = strdup(n->files[idx].path);
	p->name = strdup(name);
	p->reason = strdup(reason);
	t->cnt++;
	if (!p->object || !p->name || !p->reason)
		goto nomem;
	return 0;

nomem:
	p_err("mem alloc failed");
	return -1;
}

int token_trial_run(struct token_trial *t, const struct token_needs *n,
		    __u64 progs)
{
	bool done = false;
	size_t size = 0;
	char *rep = NULL;
	int fds[2], status = 0, err = 0;
	ssize_t len;
	pid_t pid;
	FILE *in;

	/* a tracing type gives these relaxations to all the token's
	 * programs already
	 */
	if (!n->file_cnt || (progs & TOKEN_TRACING_PROGS))
		return 0;
	if ((token_caller_caps() & TRIAL_CAPS) != TRIAL_CAPS)
		return add_unknown(t, "the trial verification needs CAP_BPF and CAP_NET_ADMIN");

	if (pipe2(fds, O_CLOEXEC))
		return add_unknown(t, "can't start the trial verification: %s",
				   strerror(errno));
	/* what the parent has buffered is printed once */
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return add_unknown(t, "can't start the trial verification: %s",
				   strerror(errno));
	}
	if (!pid) {
		close(fds[0]);
		trial_child(fds[1], n);
	}

	close(fds[1]);
	in = fdopen(fds[0], "r");
	if (!in) {
		close(fds[0]);
		err = add_unknown(t, "can't read the trial verification: %s",
				  strerror(errno));
	}
	while (in && !err && (len = getline(&rep, &size, in)) > 0) {
		if (rep[len - 1] == '\n')
			rep[len - 1] = '\0';
		if (!strcmp(rep, "D"))
			done = true;
		else if (!strncmp(rep, "U\t", 2))
			err = add_unknown(t, "%s", rep + 2);
		else if (!strncmp(rep, "N\t", 2))
			err = add_prog(t, n, rep + 2);
	}
	free(rep);
	/* a child still writing dies of SIGPIPE */
	if (in)
		fclose(in);

	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (err || done)
		return err;
	if (WIFSIGNALED(status))
		return add_unknown(t, "the trial verification was killed by signal %d",
				   WTERMSIG(status));
	return add_unknown(t, "the trial verification stopped (exit status %d)",
			   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}
