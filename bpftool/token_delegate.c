// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* bpftool token delegate, and delegated BPF FS mounts in show, list and
 * revoke: mainline's tokens (Linux 6.9 and later), made by a user namespace
 * from the root of a BPF FS that root mounted for it with delegate_*
 * options.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "json_writer.h"
#include "main.h"
#include "token.h"
#include "token_abi.h"
#include "token_live.h"
#include "token_needs.h"
#include "token_trial.h"

/* <linux/mount.h>'s values, which clash with <sys/mount.h> on some C
 * libraries
 */
#define DLG_FSOPEN_CLOEXEC		0x00000001
#define DLG_FSMOUNT_CLOEXEC		0x00000001
#define DLG_FSCONFIG_SET_STRING		1
#define DLG_FSCONFIG_SET_FD		5
#define DLG_FSCONFIG_CMD_CREATE		6
#define DLG_MOVE_MOUNT_F_EMPTY_PATH	0x00000004

/* mainline's options, in the order of enum token_set */
static const char * const delegate_opts[__TOKEN_SET_MAX] = {
	[TOKEN_SET_CMDS]	= "delegate_cmds",
	[TOKEN_SET_MAPS]	= "delegate_maps",
	[TOKEN_SET_PROGS]	= "delegate_progs",
	[TOKEN_SET_ATTACH]	= "delegate_attachs",
};

/* Reading mountinfo -------------------------------------------------------*/

/* A delegated BPF FS mount, as a mount namespace's mountinfo shows it */
struct deleg_mount {
	char *path;		/* as seen from @pid's root */
	int pid;		/* 0: bpftool's own mount namespace */
	__u64 mnt_ns;		/* inode of the mount namespace */
	int mnt_id;
	unsigned int major, minor;	/* the instance's device */
	__u64 sets[__TOKEN_SET_MAX];
	struct token_str unknown;	/* elements bpftool can't name */
	bool has_cgroup;	/* delegate_cgroup=ID */
	__u64 cgroup_id;
	bool relaxed;		/* delegate_verifier=relaxed */
};

struct deleg_list {
	struct deleg_mount *v;
	size_t cnt;
	size_t cap;
};

static void deleg_free(struct deleg_mount *m)
{
	free(m->path);
	token_str_free(&m->unknown);
}

static void deleg_list_free(struct deleg_list *l)
{
	size_t i;

	for (i = 0; i < l->cnt; i++)
		deleg_free(&l->v[i]);
	free(l->v);
}

/* Undo mountinfo's octal escapes (\040 for a space...) in place */
static void unescape(char *s)
{
	char *out = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0');
			s += 4;
		} else {
			*out++ = *s++;
		}
	}
	*out = '\0';
}

/* Parse the value of a delegate_* option as the kernel prints it: "any",
 * names (the kernel's BTF enum names without prefix, lower case) and numbers
 * separated by ':'.
 */
static int parse_opt_value(struct deleg_mount *m, enum token_set set,
			   char *val)
{
	char *word, *save = NULL, *end;
	unsigned long long num;
	__u64 mask;
	int bit;

	for (word = strtok_r(val, ":", &save); word;
	     word = strtok_r(NULL, ":", &save)) {
		if (!strcmp(word, "any")) {
			m->sets[set] = TOKEN_MASK_ANY;
			continue;
		}
		if (isdigit((unsigned char)*word)) {
			errno = 0;
			num = strtoull(word, &end, 0);
			if (!errno && !*end) {
				m->sets[set] |= num;
				continue;
			}
		}
		mask = 0;
		if (!token_parse_list(set, word, &mask, NULL, 0)) {
			m->sets[set] |= mask;
			continue;
		}
		bit = token_abi_btf_bit(set, word);
		if (bit >= 0) {
			m->sets[set] |= 1ULL << bit;
			continue;
		}
		/* "delegate_maps=word", as the kernel says it */
		token_str_addf(&m->unknown, "%s%s=%s",
			       m->unknown.len ? "," : "", delegate_opts[set],
			       word);
		if (m->unknown.oom)
			return -1;
	}
	return 0;
}

/* Fill @m from the super options @opts of a BPF FS. Returns 1 if they
 * delegate something, 0 if not, -1 when out of memory.
 */
static int parse_super_opts(struct deleg_mount *m, char *opts)
{
	char *opt, *save = NULL, *val;
	bool delegated = false;
	unsigned int i;

	for (opt = strtok_r(opts, ",", &save); opt;
	     opt = strtok_r(NULL, ",", &save)) {
		val = strchr(opt, '=');
		if (!val)
			continue;
		*val++ = '\0';
		for (i = 0; i < __TOKEN_SET_MAX; i++)
			if (!strcmp(opt, delegate_opts[i]))
				break;
		if (i < __TOKEN_SET_MAX) {
			delegated = true;
			if (parse_opt_value(m, i, val))
				return -1;
		} else if (!strcmp(opt, "delegate_cgroup")) {
			delegated = true;
			m->has_cgroup = true;
			m->cgroup_id = strtoull(val, NULL, 0);
		} else if (!strcmp(opt, "delegate_verifier")) {
			delegated = true;
			m->relaxed = !strcmp(val, "relaxed");
		}
	}
	return delegated;
}

/* Add the delegated BPF FS mounts of the mountinfo file @f to @l, each
 * with @pid and @mnt_ns.
 */
static int read_mountinfo(FILE *f, int pid, __u64 mnt_ns,
			  struct deleg_list *l)
{
	char *line = NULL, *sep, *fields[5], *fstype, *opts, *save;
	struct deleg_mount m;
	size_t sz = 0;
	unsigned int i;
	void *tmp;
	int ret = 0;

	while (getline(&line, &sz, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT ... - FSTYPE SOURCE SUPEROPTS */
		sep = strstr(line, " - ");
		if (!sep)
			continue;
		*sep = '\0';
		save = NULL;
		for (i = 0; i < 5; i++)
			fields[i] = strtok_r(i ? NULL : line, " ", &save);
		if (!fields[4])
			continue;
		save = NULL;
		fstype = strtok_r(sep + 3, " ", &save);
		strtok_r(NULL, " ", &save);	/* source */
		opts = strtok_r(NULL, " ", &save);
		if (!fstype || !opts || strcmp(fstype, "bpf") ||
		    !strstr(opts, "delegate_"))
			continue;

		memset(&m, 0, sizeof(m));
		ret = parse_super_opts(&m, opts);
		if (ret <= 0) {
			deleg_free(&m);
			if (ret < 0)
				break;
			continue;
		}
		unescape(fields[4]);
		m.path = strdup(fields[4]);
		m.pid = pid;
		m.mnt_ns = mnt_ns;
		m.mnt_id = atoi(fields[0]);
		if (sscanf(fields[2], "%u:%u", &m.major, &m.minor) != 2)
			m.major = m.minor = 0;
		if (l->cnt == l->cap) {
			l->cap = l->cap ? l->cap * 2 : 8;
			tmp = reallocarray(l->v, l->cap, sizeof(*l->v));
			if (tmp)
				l->v = tmp;
		}
		if (!m.path || l->cnt == l->cap) {
			deleg_free(&m);
			ret = -1;
			break;
		}
		l->v[l->cnt++] = m;
		ret = 0;
	}
	free(line);
	if (ret < 0)
		p_err("mem alloc failed");
	return ret < 0 ? -1 : 0;
}

static __u64 ns_ino(const char *path)
{
	struct stat st;

	return stat(path, &st) ? 0 : st.st_ino;
}

/* The delegated mounts of bpftool's own mount namespace (@pid 0) or of
 * @pid's
 */
static int read_ns_mounts(int pid, struct deleg_list *l)
{
	char path[64];
	__u64 ino;
	FILE *f;
	int err;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/ns/mnt", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/ns/mnt");
	ino = ns_ino(path);
	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/mountinfo", pid);
	else
		snprintf(path, sizeof(path), "/proc/self/mountinfo");
	f = fopen(path, "re");
	if (!f)
		return pid ? 0 : -1;
	err = read_mountinfo(f, pid, ino, l);
	fclose(f);
	return err;
}

/* The mount namespaces seen so far, by inode */
struct ns_set {
	__u64 *v;
	size_t cnt;
	size_t cap;
};

static bool ns_seen(struct ns_set *s, __u64 ino)
{
	size_t i;
	void *tmp;

	for (i = 0; i < s->cnt; i++)
		if (s->v[i] == ino)
			return true;
	if (s->cnt == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		tmp = reallocarray(s->v, s->cap, sizeof(*s->v));
		if (!tmp)
			return true;	/* out of memory: skip it */
		s->v = tmp;
	}
	s->v[s->cnt++] = ino;
	return false;
}

/* Every mount namespace bpftool can see: its own first, then one process of
 * each other in /proc. Only mountinfo is read; no process's fds.
 */
static int read_all_mounts(struct deleg_list *l)
{
	struct ns_set seen = {};
	char path[64];
	struct dirent *d;
	__u64 ino;
	int pid, err;
	DIR *dir;

	err = read_ns_mounts(0, l);
	if (err) {
		p_err("can't read /proc/self/mountinfo: %s", strerror(errno));
		return -1;
	}
	ns_seen(&seen, ns_ino("/proc/self/ns/mnt"));

	dir = opendir("/proc");
	if (!dir)
		goto out;
	while ((d = readdir(dir))) {
		pid = atoi(d->d_name);
		if (pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/ns/mnt", pid);
		ino = ns_ino(path);
		if (!ino || ns_seen(&seen, ino))
			continue;
		err = read_ns_mounts(pid, l);
		if (err)
			break;
	}
	closedir(dir);
out:
	free(seen.v);
	return err;
}

/* Printing ----------------------------------------------------------------*/

/* The live tokens of @m, in the object of the mount (JSON): "tokens", an
 * array, or null on a kernel that does not say which mount a token comes
 * from (mainline's)
 */
static void print_live_json(const struct token_live_list *live, bool known)
{
	size_t i, j;

	jsonw_name(json_wtr, "tokens");
	if (!known) {
		jsonw_null(json_wtr);
		return;
	}
	jsonw_start_array(json_wtr);
	for (i = 0; i < live->cnt; i++) {
		jsonw_start_object(json_wtr);
		jsonw_name(json_wtr, "pids");
		jsonw_start_array(json_wtr);
		for (j = 0; j < live->v[i].pid_cnt; j++)
			jsonw_int(json_wtr, live->v[i].pids[j]);
		jsonw_end_array(json_wtr);
		token_desc_json(&live->v[i].desc);
		jsonw_end_object(json_wtr);
	}
	jsonw_end_array(json_wtr);
}

/* A delegated mount as a JSON object; with @live (show), its live tokens */
static void print_deleg_json(const struct deleg_mount *m,
			     const struct token_live_list *live, bool known)
{
	jsonw_start_object(json_wtr);
	/* upstream bpftool's key, then this project's */
	jsonw_string_field(json_wtr, "token_info", m->path);
	jsonw_string_field(json_wtr, "delegated", m->path);
	if (m->pid)
		jsonw_int_field(json_wtr, "pid", m->pid);
	else
		jsonw_null_field(json_wtr, "pid");
	jsonw_lluint_field(json_wtr, "mnt_ns", m->mnt_ns);
	jsonw_int_field(json_wtr, "mount_id", m->mnt_id);
	/* mountinfo does not say which user namespace owns the mount */
	jsonw_null_field(json_wtr, "userns");
	print_sets_json(m->sets);
	if (m->unknown.len)
		jsonw_string_field(json_wtr, "unknown", m->unknown.buf);
	jsonw_bool_field(json_wtr, "root_equivalent",
			 token_root_equiv_progs(m->sets[TOKEN_SET_PROGS]));
	jsonw_bool_field(json_wtr, "relaxed_verifier", m->relaxed);
	jsonw_name(json_wtr, "cgroup");
	if (m->has_cgroup && m->cgroup_id) {
		jsonw_start_object(json_wtr);
		jsonw_lluint_field(json_wtr, "id", m->cgroup_id);
		if (token_cgroup_path(m->cgroup_id))
			jsonw_string_field(json_wtr, "path",
					   token_cgroup_path(m->cgroup_id));
		else
			jsonw_null_field(json_wtr, "path");
		jsonw_end_object(json_wtr);
	} else {
		jsonw_null(json_wtr);
	}
	if (live)
		print_live_json(live, known);
	jsonw_end_object(json_wtr);
}

static void print_deleg_plain(FILE *f, const struct deleg_mount *m)
{
	fprintf(f, "%s\n\tdelegated: mount %d, mount namespace %llu", m->path,
		m->mnt_id, (unsigned long long)m->mnt_ns);
	if (m->pid)
		fprintf(f, " (of pid %d)", m->pid);
	fputc('\n', f);
	print_sets_plain(f, m->sets);
	if (m->unknown.len)
		fprintf(f, "\tunknown: %s\n", m->unknown.buf);
	if (token_root_equiv_progs(m->sets[TOKEN_SET_PROGS]))
		fprintf(f, "\troot-equivalent\n");
	if (m->relaxed)
		fprintf(f, "\tverifier: relaxed\n");
	if (m->has_cgroup && m->cgroup_id && token_cgroup_path(m->cgroup_id))
		fprintf(f, "\tcgroup: %s\n", token_cgroup_path(m->cgroup_id));
	else if (m->has_cgroup && m->cgroup_id)
		fprintf(f, "\tcgroup: %llu\n", (unsigned long long)m->cgroup_id);
}

int token_list_delegated(FILE *f)
{
	struct deleg_list l = {};
	size_t i;
	int err;

	err = read_all_mounts(&l);
	for (i = 0; !err && i < l.cnt; i++) {
		if (json_output)
			print_deleg_json(&l.v[i], NULL, false);
		else
			print_deleg_plain(f, &l.v[i]);
	}
	deleg_list_free(&l);
	return err;
}

/* The topmost delegated mount at @path in the mount namespace of @pid (0:
 * bpftool's own). Returns 1 and fills @out, 0 if there is none, -1 after an
 * error.
 */
static int find_deleg(int pid, const char *path, struct deleg_mount *out)
{
	struct deleg_list l = {};
	char real[PATH_MAX];
	int found = -1;
	size_t i;

	/* mountinfo has canonical paths: resolve @path in bpftool's
	 * namespace (with a PID, the caller checked it is absolute)
	 */
	if (!pid && !realpath(path, real))
		return 0;
	if (pid)
		snprintf(real, sizeof(real), "%s", path);
	if (read_ns_mounts(pid, &l)) {
		p_err("can't read the mounts of %s: %s",
		      pid ? "the process" : "bpftool", strerror(errno));
		deleg_list_free(&l);
		return -1;
	}
	for (i = 0; i < l.cnt; i++)
		if (!strcmp(l.v[i].path, real))
			found = i;
	if (found >= 0) {
		*out = l.v[found];
		memset(&l.v[found], 0, sizeof(l.v[found]));
	}
	deleg_list_free(&l);
	return found >= 0;
}

/* Is @path the root of the mount at @path (not a directory below it)? */
static bool is_mount_root(const char *path)
{
	struct stat st;

	/* a BPF FS root directory has inode 1 */
	return !stat(path, &st) && S_ISDIR(st.st_mode) && st.st_ino == 1;
}

/* The delegated BPF FS mounted at @path, in bpftool's mount namespace, into
 * @m: 1 if it is one, 0 if @path is not a mount root or not a delegated
 * BPF FS, -1 on error (printed).
 */
static int deleg_at(const char *path, struct deleg_mount *m)
{
	if (!is_mount_root(path))
		return 0;
	return find_deleg(0, path, m);
}

/* ... and in plain text: a count in the mount's block, then a block per
 * token
 */
static void print_live_plain(FILE *f, const char *path,
			     const struct token_live_list *live)
{
	size_t i, j;

	fprintf(f, "\ttokens: %zu\n", live->cnt);
	for (i = 0; i < live->cnt; i++) {
		fprintf(f, "token of %s, held by pid", path);
		for (j = 0; j < live->v[i].pid_cnt; j++)
			fprintf(f, "%s%d", j ? ", " : " ", live->v[i].pids[j]);
		fputc('\n', f);
		token_desc_plain(f, &live->v[i].desc);
	}
}

int token_show_delegated(const char *path)
{
	struct token_live_list live = {};
	struct deleg_mount m = {};
	bool known;
	int ret;

	ret = deleg_at(path, &m);
	if (ret <= 0)
		return ret;
	/* this project's kernel names a token's BPF FS in its fdinfo */
	known = token_abi_get()->pinned;
	if (known && token_live_of_bpffs(m.major, m.minor, &live)) {
		deleg_free(&m);
		return -1;
	}
	if (json_output) {
		print_deleg_json(&m, &live, known);
	} else {
		print_deleg_plain(stdout, &m);
		if (known)
			print_live_plain(stdout, m.path, &live);
	}
	token_live_free(&live);
	deleg_free(&m);
	return 1;
}

int token_revoke_delegated(const char *path, int *err)
{
	const struct token_abi *abi = token_abi_get();
	struct deleg_mount m = {};
	int ret;

	*err = -1;
	ret = deleg_at(path, &m);
	if (ret <= 0)
		return ret < 0 ? 1 : 0;
	deleg_free(&m);

	if (!abi->pinned) {
		/* Mainline's tokens outlive the mount they were made from */
		p_err("can't revoke %s: a mainline kernel cannot revoke a token (its tokens outlive the unmount), nothing changed",
		      path);
		return 1;
	}
	/* this project's kernel: unmounting revokes the mount's tokens */
	if (umount2(path, UMOUNT_NOFOLLOW)) {
		p_err("can't unmount %s: %s", path, strerror(errno));
		return 1;
	}
	if (json_output)
		jsonw_null(json_wtr);
	*err = 0;
	return 1;
}

/* token delegate ----------------------------------------------------------*/

struct delegate_args {
	struct token_args args;
	int userns_fd;
	int pid;		/* NS was a PID: PATH is in its mount namespace */
	int mntns_fd;
	int cgroup_fd;
	struct token_needs needs;
	struct token_trial trial;
};

/* The PID of NS if it is one, else 0 */
static int ns_pid(const char *ns)
{
	const char *p;

	for (p = ns; isdigit((unsigned char)*p); p++)
		;
	return *ns && !*p ? atoi(ns) : 0;
}

static int delegate_kw(enum token_kw kw, const char *val, void *ctx)
{
	struct delegate_args *a = ctx;

	switch (kw) {
	case TOKEN_KW_USERNS:
		a->userns_fd = token_userns_open(val);
		a->pid = ns_pid(val);
		return a->userns_fd < 0 ? -1 : 0;
	case TOKEN_KW_OBJECT:
		return token_needs_add_file(&a->needs, val);
	default:
		return 0;
	}
}

static int parse_delegate_args(int argc, char **argv, struct delegate_args *a)
{
	__u64 needed[__TOKEN_SET_MAX], *sets = a->args.sets;
	const char *path;
	char mnt[64];
	int n;

	if (token_parse_args(&token_delegate_cmd, &a->args, argc, argv,
			     delegate_kw, a))
		return -1;
	path = a->args.path;

	if (!a->args.val[TOKEN_KW_USERNS]) {
		p_err("missing 'userns NS': a delegated BPF FS is owned by a user namespace " TOKEN_HELP_HINT);
		return -1;
	}
	if (a->pid) {
		if (path[0] != '/') {
			p_err("PATH %s must be absolute: it is in the mount namespace of process %d",
			      path, a->pid);
			return -1;
		}
		snprintf(mnt, sizeof(mnt), "/proc/%d/ns/mnt", a->pid);
		a->mntns_fd = open(mnt, O_RDONLY | O_CLOEXEC);
		if (a->mntns_fd < 0) {
			p_err("can't open mount namespace of process %d: %s",
			      a->pid, strerror(errno));
			return -1;
		}
	}

	if (token_needs_add_tracing(&a->needs, sets[TOKEN_SET_PROGS] |
				    a->needs.sets[TOKEN_SET_PROGS]))
		return -1;
	if (a->args.val[TOKEN_KW_OBJECT]) {
		/* what the objects need through a delegated token, whose
		 * kernel checks the expected attach type of every program
		 * type, with what libbpf loads through the token first
		 */
		token_needs_mainline_sets(&a->needs, needed);
		for (n = 0; n < __TOKEN_SET_MAX; n++)
			sets[n] |= needed[n];
	}
	return 0;
}

/* PATH must be a directory where it will be mounted */
static int check_mountpoint(const struct delegate_args *a)
{
	const char *path = a->args.path;
	char buf[PATH_MAX + 64];
	struct stat st;

	if (a->pid)
		snprintf(buf, sizeof(buf), "/proc/%d/root%s", a->pid, path);
	else
		snprintf(buf, sizeof(buf), "%s", path);
	if (stat(buf, &st)) {
		p_err("can't mount at %s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		p_err("can't mount at %s: not a directory", path);
		return -1;
	}
	return 0;
}

/* The child that opens the BPF FS context in the user namespace: joins it,
 * makes a mount namespace of its own there (fsopen() needs CAP_SYS_ADMIN
 * over the mount namespace's owner), opens the context and sends its fd,
 * with 0, on @sock; or sends the errno of what failed.
 */
static void __attribute__((noreturn)) fsopen_child(int userns_fd, int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	struct msghdr msg = {};
	struct cmsghdr *cmsg;
	struct iovec iov;
	int err = 0, fd = -1;

	if (setns(userns_fd, CLONE_NEWUSER) || unshare(CLONE_NEWNS))
		err = errno;
	if (!err) {
		fd = syscall(__NR_fsopen, "bpf", DLG_FSOPEN_CLOEXEC);
		if (fd < 0)
			err = errno;
	}
	iov.iov_base = &err;
	iov.iov_len = sizeof(err);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (fd >= 0) {
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	}
	_exit(sendmsg(sock, &msg, 0) < 0 ? 1 : 0);
}

/* A BPF FS context opened in user namespace @userns_fd: its fd, or -1 with
 * errno
 */
static int fsopen_in_userns(int userns_fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	struct msghdr msg = {};
	struct cmsghdr *cmsg;
	int sv[2], err = EIO, fd = -1, status;
	struct iovec iov;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		err = errno;
		goto out;
	}
	if (!pid) {
		close(sv[0]);
		fsopen_child(userns_fd, sv[1]);
	}
	close(sv[1]);
	sv[1] = -1;

	iov.iov_base = &err;
	iov.iov_len = sizeof(err);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cbuf;
	msg.msg_controllen = sizeof(cbuf);
	if (recvmsg(sv[0], &msg, MSG_CMSG_CLOEXEC) != sizeof(err))
		err = EIO;
	cmsg = CMSG_FIRSTHDR(&msg);
	if (cmsg && cmsg->cmsg_level == SOL_SOCKET &&
	    cmsg->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
	waitpid(pid, &status, 0);
	if (!err && fd < 0)
		err = EIO;
	if (err && fd >= 0) {
		close(fd);
		fd = -1;
	}
out:
	close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	errno = err;
	return fd;
}

/* The kernel's message about the last fsconfig() error on @fs_fd, if any */
static const char *fs_log(int fs_fd, char *buf, size_t size)
{
	ssize_t n;

	n = read(fs_fd, buf, size - 1);
	if (n <= 2)
		return NULL;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	/* "e bpf: message" */
	return buf[1] == ' ' ? buf + 2 : buf;
}

static int fsconfig_str(int fs_fd, const char *key, const char *val,
			const char *path)
{
	char buf[256];
	const char *msg;

	if (!syscall(__NR_fsconfig, fs_fd, DLG_FSCONFIG_SET_STRING, key, val, 0))
		return 0;
	msg = fs_log(fs_fd, buf, sizeof(buf));
	p_err("can't delegate at %s: the kernel refuses %s=%s: %s", path, key,
	      val, msg ?: strerror(errno));
	return -1;
}

/* Set the options on @fs_fd and make the mount: its fd, or -1 after an
 * error
 */
static int configure_and_mount(int fs_fd, const struct delegate_args *a)
{
	const char *path = a->args.path, *msg;
	const __u64 *sets = a->args.sets;
	char val[32], buf[256];
	unsigned int i;
	int mnt_fd;

	for (i = 0; i < __TOKEN_SET_MAX; i++) {
		if (!sets[i])
			continue;
		/* One mask: in mainline, a number after names in the same
		 * option replaces them rather than adding to them.
		 */
		if (sets[i] == TOKEN_MASK_ANY)
			snprintf(val, sizeof(val), "any");
		else
			snprintf(val, sizeof(val), "0x%llx",
				 (unsigned long long)sets[i]);
		if (fsconfig_str(fs_fd, delegate_opts[i], val, path))
			return -1;
	}
	if (a->cgroup_fd >= 0 &&
	    syscall(__NR_fsconfig, fs_fd, DLG_FSCONFIG_SET_FD,
		    "delegate_cgroup", NULL, a->cgroup_fd)) {
		msg = fs_log(fs_fd, buf, sizeof(buf));
		p_err("can't delegate at %s: the kernel refuses cgroup %s: %s",
		      path, a->args.val[TOKEN_KW_CGROUP], msg ?: strerror(errno));
		return -1;
	}
	if (a->args.relaxed &&
	    fsconfig_str(fs_fd, "delegate_verifier", "relaxed", path))
		return -1;

	if (syscall(__NR_fsconfig, fs_fd, DLG_FSCONFIG_CMD_CREATE, NULL, NULL, 0)) {
		msg = fs_log(fs_fd, buf, sizeof(buf));
		p_err("can't create the BPF FS for %s: %s", path,
		      msg ?: strerror(errno));
		return -1;
	}
	mnt_fd = syscall(__NR_fsmount, fs_fd, DLG_FSMOUNT_CLOEXEC, 0);
	if (mnt_fd < 0)
		p_err("can't mount the BPF FS for %s: %s", path,
		      strerror(errno));
	return mnt_fd;
}

static int move_to(int mnt_fd, const char *path)
{
	return syscall(__NR_move_mount, mnt_fd, "", AT_FDCWD, path,
		       DLG_MOVE_MOUNT_F_EMPTY_PATH);
}

/* Attach the mount @mnt_fd at PATH: in bpftool's mount namespace, or from a
 * child that joined the target's. Returns 0 or -1 after an error.
 */
static int attach_mount(int mnt_fd, const struct delegate_args *a)
{
	const char *path = a->args.path;
	int status, err;
	pid_t pid;

	if (!a->pid) {
		if (move_to(mnt_fd, path)) {
			p_err("can't mount at %s: %s", path, strerror(errno));
			return -1;
		}
		return 0;
	}

	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		p_err("can't fork: %s", strerror(errno));
		return -1;
	}
	if (!pid) {
		if (setns(a->mntns_fd, CLONE_NEWNS))
			_exit(errno & 0xff ?: 1);
		_exit(move_to(mnt_fd, path) ? (errno & 0xff ?: 1) : 0);
	}
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status)) {
		p_err("can't mount at %s in the mount namespace of process %d",
		      path, a->pid);
		return -1;
	}
	err = WEXITSTATUS(status);
	if (err) {
		p_err("can't mount at %s in the mount namespace of process %d: %s",
		      path, a->pid, strerror(err));
		return -1;
	}
	return 0;
}

/* Refuse what the kernel can't do, before anything is made */
static int check_kernel(const struct delegate_args *a)
{
	const char *cgroup = a->args.val[TOKEN_KW_CGROUP];
	const struct token_abi *abi = token_abi_get();

	if (!abi->delegated) {
		if (abi->pinned)
			p_err("can't delegate: this kernel has no delegated BPF FS, only pinned tokens (see 'bpftool token create')");
		else if (abi->kind == TOKEN_ABI_NONE)
			p_err("can't delegate: this kernel has no BPF tokens");
		else
			p_err("can't delegate: can't tell whether this kernel has a delegated BPF FS (%s)",
			      abi->why ?: "unknown token ABI");
		return -1;
	}
	if (cgroup && !abi->delegate_cgroup) {
		p_err("can't delegate with cgroup %s: the kernel has no cgroup scope for delegated tokens",
		      cgroup);
		return -1;
	}
	if (a->args.relaxed && !abi->delegate_relaxed) {
		p_err("can't delegate with 'verifier relaxed': the kernel has no relaxed verifier for delegated tokens");
		return -1;
	}
	return 0;
}

int token_do_delegate(int argc, char **argv)
{
	struct delegate_args a = {
		.userns_fd = -1, .mntns_fd = -1, .cgroup_fd = -1,
	};
	const struct token_abi *abi = token_abi_get();
	int fs_fd = -1, mnt_fd = -1, err = -1;
	struct token_args *args = &a.args;
	struct deleg_mount m = {};

	if (parse_delegate_args(argc, argv, &a) || check_kernel(&a))
		goto out;
	if (args->val[TOKEN_KW_CGROUP]) {
		a.cgroup_fd = token_cgroup_open(args->val[TOKEN_KW_CGROUP]);
		if (a.cgroup_fd < 0)
			goto out;
	}
	if (check_mountpoint(&a))
		goto out;

	/* what the objects need of the verifier, unless it was given */
	if (args->val[TOKEN_KW_OBJECT] && !args->val[TOKEN_KW_VERIFIER] &&
	    token_trial_run(&a.trial, &a.needs, args->sets[TOKEN_SET_PROGS]))
		goto out;
	if (a.trial.cnt && abi->delegate_relaxed)
		args->relaxed = true;
	else if (a.trial.cnt)
		p_info("Warning: the objects need the relaxed verifier, which this kernel's delegated tokens lack: they load only with CAP_PERFMON, or with a tracing program type in 'progs'");

	fs_fd = fsopen_in_userns(a.userns_fd);
	if (fs_fd < 0) {
		p_err("can't open a BPF FS in user namespace %s: %s",
		      args->val[TOKEN_KW_USERNS], strerror(errno));
		goto out;
	}
	mnt_fd = configure_and_mount(fs_fd, &a);
	if (mnt_fd < 0 || attach_mount(mnt_fd, &a))
		goto out;
	err = 0;
	token_warn_root_equiv(args->sets[TOKEN_SET_PROGS]);

	/* -j prints what the kernel shows of the new mount */
	if (json_output) {
		if (find_deleg(a.pid, args->path, &m) > 0) {
			print_deleg_json(&m, NULL, false);
			deleg_free(&m);
		} else {
			jsonw_null(json_wtr);
		}
	}
out:
	if (mnt_fd >= 0)
		close(mnt_fd);
	if (fs_fd >= 0)
		close(fs_fd);
	if (a.userns_fd >= 0)
		close(a.userns_fd);
	if (a.mntns_fd >= 0)
		close(a.mntns_fd);
	if (a.cgroup_fd >= 0)
		close(a.cgroup_fd);
	token_trial_free(&a.trial);
	token_needs_free(&a.needs);
	return err;
}
