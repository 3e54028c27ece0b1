// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The live tokens of a BPF FS instance: the token fds of the processes in
 * /proc whose fdinfo names it. Tokens made from a delegated BPF FS are
 * pinned nowhere; this is how `token show` of such a mount finds them,
 * with their accounting and holders. Only links and fdinfo are read: no
 * fd of another process is ever opened.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/bpf.h>

#include "main.h"
#include "token_live.h"

/* what readlink() says of a token fd on this project's kernel */
#define TOKEN_LINK	"anon_inode:bpf-token"

static bool parse_mask(const char *val, __u64 *mask)
{
	char *end;

	if (!strcmp(val, "any")) {
		*mask = ~0ULL;
		return true;
	}
	errno = 0;
	*mask = strtoull(val, &end, 16);
	return !errno && end != val && !*end;
}

static bool parse_u64(const char *val, __u64 *v)
{
	char *end;

	errno = 0;
	*v = strtoull(val, &end, 10);
	return !errno && end != val && !*end;
}

/* "none" is 0 */
static bool parse_u64_none(const char *val, __u64 *v)
{
	if (!strcmp(val, "none")) {
		*v = 0;
		return true;
	}
	return parse_u64(val, v);
}

/* One "key:\tvalue" line of a token's fdinfo into @d; @seen gets a bit per
 * line the parse needs (id, the sets, bpffs). Lines of other keys are
 * ignored; a value that does not parse is an error.
 */
static bool parse_line(const char *key, const char *val, struct token_desc *d,
		       unsigned int *major, unsigned int *minor,
		       unsigned int *seen)
{
	static const char * const sets[__TOKEN_SET_MAX] = {
		"allowed_cmds", "allowed_maps", "allowed_progs",
		"allowed_attachs",
	};
	static const char * const uses[__TOKEN_USE_MAX] = {
		"map_creates", "btf_loads", "prog_loads", "token_creates",
	};
	unsigned int i;
	__u64 v;

	for (i = 0; i < __TOKEN_SET_MAX; i++)
		if (!strcmp(key, sets[i])) {
			*seen |= 1U << i;
			return parse_mask(val, &d->sets[i]);
		}
	for (i = 0; i < __TOKEN_USE_MAX; i++)
		if (!strcmp(key, uses[i]))
			return parse_u64(val, &d->uses[i]);
	if (!strcmp(key, "id")) {
		*seen |= 1U << __TOKEN_SET_MAX;
		d->has_id = true;
		return parse_u64(val, &d->id);
	}
	if (!strcmp(key, "bpffs")) {
		*seen |= 2U << __TOKEN_SET_MAX;
		return sscanf(val, "%u:%u", major, minor) == 2;
	}
	if (!strcmp(key, "denials"))
		return parse_u64(val, &d->denials);
	if (!strcmp(key, "userns"))
		return parse_u64_none(val, &d->userns_ino);
	if (!strcmp(key, "cgroup")) {
		d->has_cgroup = true;
		return parse_u64_none(val, &d->cgroup_id);
	}
	if (!strcmp(key, "verifier")) {
		d->relaxed_verifier = !strcmp(val, "relaxed");
		return d->relaxed_verifier || !strcmp(val, "strict");
	}
	if (!strcmp(key, "revoked")) {
		if (!parse_u64(val, &v) || v > 1)
			return false;
		if (v)
			d->flags |= BPF_TOKEN_INFO_REVOKED;
		return true;
	}
	if (!strcmp(key, "depth")) {
		if (!parse_u64(val, &v) || v > 0xffffffffULL)
			return false;
		d->depth = v;
	}
	return true;
}

/* Parse the fdinfo text of a token fd into @desc; @major and @minor get its
 * "bpffs:" line. Returns false if @text is not a token's or has no id or
 * bpffs line (a mainline kernel's).
 */
static bool token_live_parse(const char *text, struct token_desc *desc,
			     unsigned int *major, unsigned int *minor)
{
	const unsigned int want = (1U << (__TOKEN_SET_MAX + 2)) - 1;
	char *copy, *line, *save = NULL, *val;
	unsigned int seen = 0;
	bool ok = true;

	memset(desc, 0, sizeof(*desc));
	copy = strdup(text);
	if (!copy)
		return false;
	for (line = strtok_r(copy, "\n", &save); ok && line;
	     line = strtok_r(NULL, "\n", &save)) {
		val = strchr(line, ':');
		if (!val)
			continue;
		*val++ = '\0';
		while (isspace((unsigned char)*val))
			val++;
		ok = parse_line(line, val, desc, major, minor, &seen);
	}
	free(copy);
	desc->has_state = true;
	return ok && seen == want;
}

/* @pid holds the token @d: add it to @l, or @pid to its entry */
static int add_holder(struct token_live_list *l, const struct token_desc *d,
		      int pid)
{
	struct token_live *t = NULL, *tmp;
	size_t i;
	int *pids;

	for (i = 0; i < l->cnt && !t; i++)
		if (l->v[i].desc.id == d->id)
			t = &l->v[i];
	if (!t) {
		tmp = reallocarray(l->v, l->cnt + 1, sizeof(*l->v));
		if (!tmp)
			return -1;
		l->v = tmp;
		t = &l->v[l->cnt++];
		memset(t, 0, sizeof(*t));
		t->desc = *d;
	}
	for (i = 0; i < t->pid_cnt; i++)
		if (t->pids[i] == pid)
			return 0;
	pids = reallocarray(t->pids, t->pid_cnt + 1, sizeof(*pids));
	if (!pids)
		return -1;
	t->pids = pids;
	t->pids[t->pid_cnt++] = pid;
	return 0;
}

/* The whole of a small /proc file, NUL-terminated, into @buf */
static bool read_small(int dir_fd, const char *name, char *buf, size_t size)
{
	ssize_t n, len = 0;
	int fd;

	fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	while ((size_t)len < size - 1 &&
	       (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	return len > 0;
}

/* The token fds of process @pid that name MAJOR:MINOR, into @l */
static int scan_pid(int pid, unsigned int major, unsigned int minor,
		    struct token_live_list *l)
{
	char path[64], link[sizeof(TOKEN_LINK) + 1], text[1024];
	unsigned int maj, min;
	struct token_desc d;
	int fd_dir, info_dir;
	struct dirent *e;
	int err = 0;
	ssize_t n;
	DIR *fds;

	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	fds = opendir(path);
	if (!fds)
		return 0;	/* gone, or not ours to read */
	snprintf(path, sizeof(path), "/proc/%d/fdinfo", pid);
	info_dir = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fd_dir = dirfd(fds);
	while (!err && info_dir >= 0 && (e = readdir(fds))) {
		if (e->d_name[0] == '.')
			continue;
		n = readlinkat(fd_dir, e->d_name, link, sizeof(link) - 1);
		if (n != (ssize_t)strlen(TOKEN_LINK) ||
		    memcmp(link, TOKEN_LINK, n))
			continue;
		if (!read_small(info_dir, e->d_name, text, sizeof(text)) ||
		    !token_live_parse(text, &d, &maj, &min) ||
		    maj != major || min != minor)
			continue;
		err = add_holder(l, &d, pid);
	}
	if (info_dir >= 0)
		close(info_dir);
	closedir(fds);
	return err;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return x < y ? -1 : x > y;
}

static int cmp_live(const void *a, const void *b)
{
	const struct token_live *x = a, *y = b;

	return x->desc.id < y->desc.id ? -1 : x->desc.id > y->desc.id;
}

int token_live_of_bpffs(unsigned int major, unsigned int minor,
			struct token_live_list *out)
{
	struct dirent *e;
	int err = 0;
	size_t i;
	DIR *proc;
	char *end;
	long pid;

	memset(out, 0, sizeof(*out));
	proc = opendir("/proc");
	if (!proc) {
		p_err("can't read /proc: %s", strerror(errno));
		return -1;
	}
	while (!err && (e = readdir(proc))) {
		pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		err = scan_pid(pid, major, minor, out);
	}
	closedir(proc);
	if (err) {
		p_err("mem alloc failed");
		token_live_free(out);
		return -1;
	}
	for (i = 0; i < out->cnt; i++)
		qsort(out->v[i].pids, out->v[i].pid_cnt, sizeof(int), cmp_int);
	if (out->cnt)
		qsort(out->v, out->cnt, sizeof(*out->v), cmp_live);
	return 0;
}

void token_live_free(struct token_live_list *l)
{
	size_t i;

	for (i = 0; i < l->cnt; i++)
		free(l->v[i].pids);
	free(l->v);
	memset(l, 0, sizeof(*l));
}
