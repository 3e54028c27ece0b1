// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* bpftool token: create and inspect BPF tokens pinned in BPF FS. */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <linux/magic.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "json_writer.h"
#include "main.h"
#include "token_names.h"

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC		0xcafe4a11
#endif

#define TOKEN_ANON_INODE	"anon_inode:bpf-token"
#define TOKEN_HELP_HINT		"(see 'bpftool token help')"

/* Keywords of "token create", the names of the sets in the output, and the
 * nonterminals of the help message, indexed by enum token_set.
 */
static const struct {
	const char *keyword;
	const char *field;
	const char *help_name;
} token_sets[] = {
	[TOKEN_SET_CMDS]	= { "cmds",	"allowed_cmds",		"CMD" },
	[TOKEN_SET_MAPS]	= { "maps",	"allowed_maps",		"MAP_TYPE" },
	[TOKEN_SET_PROGS]	= { "progs",	"allowed_progs",	"PROG_TYPE" },
	[TOKEN_SET_ATTACH]	= { "attach",	"allowed_attachs",	"ATTACH_TYPE" },
};

struct token_desc {
	char *path;
	__u64 sets[__TOKEN_SET_MAX];
};

static void token_info_to_desc(const struct bpf_token_info *info,
			       struct token_desc *desc)
{
	desc->sets[TOKEN_SET_CMDS] = info->allowed_cmds;
	desc->sets[TOKEN_SET_MAPS] = info->allowed_maps;
	desc->sets[TOKEN_SET_PROGS] = info->allowed_progs;
	desc->sets[TOKEN_SET_ATTACH] = info->allowed_attachs;
}

/* fd 0 means "no token" for the kernel, so never hand it out. */
static int fd_above_zero(int fd)
{
	int nfd;

	if (fd != 0)
		return fd;

	nfd = fcntl(fd, F_DUPFD_CLOEXEC, 1);
	close(fd);
	return nfd;
}

static bool fd_is_token(int fd)
{
	char path[64], buf[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, buf, sizeof(buf) - 1);
	if (n < 0)
		return false;
	buf[n] = '\0';

	return !strcmp(buf, TOKEN_ANON_INODE);
}

static int token_get_info(int fd, struct token_desc *desc)
{
	struct bpf_token_info info;
	__u32 len = sizeof(info);
	int err;

	memset(&info, 0, sizeof(info));
	err = bpf_obj_get_info_by_fd(fd, &info, &len);
	if (err)
		return -errno;

	token_info_to_desc(&info, desc);
	return 0;
}

/* Open the token pinned at @path. Prints an error and returns -1 if it can't
 * be opened or is another kind of object.
 */
int token_open_pinned(const char *path)
{
	/* using or showing a token needs only read access to its pin */
	LIBBPF_OPTS(bpf_obj_get_opts, get_opts, .file_flags = BPF_F_RDONLY);
	struct statfs st_fs;
	struct stat st;
	int fd;

	fd = bpf_obj_get_opts(path, &get_opts);
	if (fd >= 0)
		fd = fd_above_zero(fd);
	if (fd < 0) {
		int err = errno;

		/* BPF FS says EACCES for anything it doesn't know how to
		 * open, make that clearer.
		 */
		if (err == EACCES && !statfs(path, &st_fs) &&
		    (unsigned long)st_fs.f_type != BPF_FS_MAGIC)
			p_err("can't open token %s: not a BPF FS", path);
		else if (err == EACCES && !stat(path, &st) && !S_ISREG(st.st_mode))
			p_err("%s is not a BPF token", path);
		else
			p_err("can't open token %s: %s", path, strerror(err));
		return -1;
	}

	if (!fd_is_token(fd)) {
		p_err("%s is not a BPF token", path);
		close(fd);
		return -1;
	}

	return fd;
}

static void print_name_json(const char *name, void *ctx)
{
	jsonw_string(json_wtr, name);
}

static void print_name_plain(const char *name, void *ctx)
{
	printf(" %s", name);
}

static void print_token_json(const struct token_desc *desc)
{
	unsigned int i;

	jsonw_start_object(json_wtr);
	jsonw_string_field(json_wtr, "pinned", desc->path);
	for (i = 0; i < __TOKEN_SET_MAX; i++) {
		jsonw_name(json_wtr, token_sets[i].field);
		jsonw_start_array(json_wtr);
		token_mask_for_each(i, desc->sets[i], print_name_json, NULL);
		jsonw_end_array(json_wtr);
	}
	jsonw_end_object(json_wtr);
}

static void print_token_plain(const struct token_desc *desc)
{
	unsigned int i;

	printf("%s\n", desc->path);
	for (i = 0; i < __TOKEN_SET_MAX; i++) {
		printf("\t%s:", token_sets[i].field);
		token_mask_for_each(i, desc->sets[i], print_name_plain, NULL);
		printf("\n");
	}
}

static bool is_create_keyword(const char *arg)
{
	unsigned int i;

	for (i = 0; i < __TOKEN_SET_MAX; i++)
		if (!strcmp(arg, token_sets[i].keyword))
			return true;

	return !strcmp(arg, "token");
}

static bool dir_is_bpffs(int dir_fd)
{
	struct statfs st_fs;

	if (fstatfs(dir_fd, &st_fs))
		return false;

	return (unsigned long)st_fs.f_type == BPF_FS_MAGIC;
}

static int do_create(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_token_create_opts, opts);
	bool seen[__TOKEN_SET_MAX] = {};
	struct token_desc desc = {};
	const char *parent = NULL;
	char *dir_buf, *base_buf;
	int dir_fd = -1, token_fd;
	const char *path;
	char err_buf[256];
	unsigned int i;
	int err = -1;

	/* "create cmds any": PATH was forgotten, rather than called "cmds" */
	if (!argc || (is_create_keyword(argv[0]) && argc > 1 &&
		      !is_create_keyword(argv[1]))) {
		p_err("missing PATH for the new token " TOKEN_HELP_HINT);
		return -1;
	}
	path = GET_ARG();
	if (!*path) {
		p_err("empty PATH for the new token");
		return -1;
	}

	/* Parse everything before talking to the kernel, so that bad input
	 * never leaves a token behind.
	 */
	while (argc) {
		const char *kw = *argv;

		if (is_prefix(kw, "token")) {
			if (parent) {
				p_err("parent token already specified");
				return -1;
			}
			NEXT_ARG();
			if (!argc) {
				p_err("missing parent token path after '%s'", kw);
				return -1;
			}
			parent = GET_ARG();
			continue;
		}

		for (i = 0; i < __TOKEN_SET_MAX; i++)
			if (is_prefix(kw, token_sets[i].keyword))
				break;
		if (i == __TOKEN_SET_MAX) {
			p_err("expected 'token', 'cmds', 'maps', 'progs' or 'attach', got: '%s'",
			      kw);
			return -1;
		}
		if (seen[i]) {
			p_err("'%s' already specified", token_sets[i].keyword);
			return -1;
		}
		seen[i] = true;
		NEXT_ARG();
		if (!argc) {
			p_err("missing %s list after '%s' " TOKEN_HELP_HINT,
			      token_set_what(i), kw);
			return -1;
		}
		if (token_parse_list(i, *argv, &desc.sets[i], err_buf,
				     sizeof(err_buf))) {
			p_err("%s " TOKEN_HELP_HINT, err_buf);
			return -1;
		}
		NEXT_ARG();
	}

	opts.allowed_cmds = desc.sets[TOKEN_SET_CMDS];
	opts.allowed_map_types = desc.sets[TOKEN_SET_MAPS];
	opts.allowed_prog_types = desc.sets[TOKEN_SET_PROGS];
	opts.allowed_attach_types = desc.sets[TOKEN_SET_ATTACH];

	/* Check the directory ourselves: the kernel's error for a path
	 * outside BPF FS is not very telling, and bpftool must not mount a
	 * BPF FS there as it does for other pinned objects. Then pin relative
	 * to that very directory.
	 */
	dir_buf = strdup(path);
	base_buf = strdup(path);
	if (!dir_buf || !base_buf) {
		p_err("mem alloc failed");
		goto out_free;
	}
	dir_fd = open(dirname(dir_buf), O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd >= 0)
		dir_fd = fd_above_zero(dir_fd);
	if (dir_fd < 0) {
		p_err("can't pin token at %s: %s", path,
		      errno == ENOENT ? "parent directory does not exist" :
		      strerror(errno));
		goto out_free;
	}
	if (!dir_is_bpffs(dir_fd)) {
		p_err("can't pin token at %s: not a BPF FS", path);
		goto out_close;
	}

	if (parent) {
		token_fd = token_open_pinned(parent);
		if (token_fd < 0)
			goto out_close;
		opts.token_fd = token_fd;
	}

	err = bpf_token_create(dir_fd, basename(base_buf), &opts);
	if (err) {
		err = -err;
		switch (err) {
		case EEXIST:
			p_err("can't pin token at %s: file exists", path);
			break;
		case EPERM:
			if (parent)
				p_err("can't create token %s: parent token %s does not allow token_create or everything requested",
				      path, parent);
			else
				p_err("can't create token %s: %s (needs CAP_SYS_ADMIN, or 'token PARENT')",
				      path, strerror(err));
			break;
		case EXDEV:
			p_err("can't pin token at %s: not a BPF FS", path);
			break;
		case EACCES:
		case ENOENT:
		case ENOTDIR:
		case ENAMETOOLONG:
			p_err("can't pin token at %s: %s", path, strerror(err));
			break;
		case EINVAL:
			/* An unknown command also says EINVAL */
			p_err("can't create token %s: %s (does the kernel support BPF tokens?)",
			      path, strerror(err));
			break;
		default:
			p_err("can't create token %s: %s", path, strerror(err));
		}
		err = -1;
		goto out_close_parent;
	}

	if (json_output) {
		int fd;

		/* Print what the kernel stored, read back from the pin. */
		fd = token_open_pinned(path);
		if (fd < 0) {
			err = -1;
			goto out_close_parent;
		}
		err = token_get_info(fd, &desc);
		close(fd);
		if (err) {
			p_err("can't get token info for %s: %s", path,
			      strerror(-err));
			err = -1;
			goto out_close_parent;
		}
		desc.path = (char *)path;
		print_token_json(&desc);
	}

out_close_parent:
	if (parent)
		close(opts.token_fd);
out_close:
	close(dir_fd);
out_free:
	free(dir_buf);
	free(base_buf);
	return err;
}

static int show_one(const char *path)
{
	struct token_desc desc = {};
	int fd, err;

	fd = token_open_pinned(path);
	if (fd < 0)
		return -1;

	err = token_get_info(fd, &desc);
	close(fd);
	if (err) {
		p_err("can't get token info for %s: %s", path, strerror(-err));
		return -1;
	}

	desc.path = (char *)path;
	if (json_output) {
		jsonw_start_array(json_wtr);
		print_token_json(&desc);
		jsonw_end_array(json_wtr);
	} else {
		print_token_plain(&desc);
	}

	return 0;
}

/* State of the walk of all BPF FS mounts, for the nftw() callback. */
static struct {
	struct token_desc *tokens;
	size_t cnt;
	size_t cap;
	bool fatal;
} walk;

/* -d, the only debug switch of bpftool, also sets verifier_logs */
#define p_debug(fmt, ...)				\
	({						\
		if (verifier_logs)			\
			p_info(fmt, ##__VA_ARGS__);	\
	})

static int walk_cb(const char *fpath, const struct stat *sb, int typeflag,
		   struct FTW *ftwbuf)
{
	struct token_desc *desc;
	int fd, err;

	switch (typeflag) {
	case FTW_DNR:
		p_debug("skipping unreadable directory %s", fpath);
		return 0;
	case FTW_NS:
		p_debug("skipping %s: can't stat it", fpath);
		return 0;
	case FTW_F:
		break;
	default:
		return 0;
	}

	fd = bpf_obj_get(fpath);
	if (fd < 0) {
		p_debug("skipping %s: %s", fpath, strerror(errno));
		return 0;
	}
	if (!fd_is_token(fd)) {
		close(fd);
		return 0;
	}

	if (walk.cnt == walk.cap) {
		size_t cap = walk.cap ? walk.cap * 2 : 16;
		void *tmp;

		tmp = reallocarray(walk.tokens, cap, sizeof(*walk.tokens));
		if (!tmp) {
			close(fd);
			p_err("mem alloc failed");
			walk.fatal = true;
			return -1;
		}
		walk.tokens = tmp;
		walk.cap = cap;
	}
	desc = &walk.tokens[walk.cnt];
	memset(desc, 0, sizeof(*desc));

	err = token_get_info(fd, desc);
	close(fd);
	if (err) {
		p_info("Warning: skipping token %s: can't get its info: %s",
		       fpath, strerror(-err));
		return 0;
	}

	desc->path = strdup(fpath);
	if (!desc->path) {
		p_err("mem alloc failed");
		walk.fatal = true;
		return -1;
	}
	walk.cnt++;

	return 0;
}

static int desc_cmp(const void *a, const void *b)
{
	const struct token_desc *da = a, *db = b;

	return strcmp(da->path, db->path);
}

static int show_all(void)
{
	struct mntent *mnt;
	size_t i, j;
	FILE *mnts;
	int err = 0;

	mnts = setmntent("/proc/mounts", "r");
	if (!mnts) {
		p_err("can't open /proc/mounts: %s", strerror(errno));
		return -1;
	}

	memset(&walk, 0, sizeof(walk));
	while ((mnt = getmntent(mnts))) {
		if (strcmp(mnt->mnt_type, "bpf"))
			continue;
		/* Stay on this mount, nested BPF FS have their own entry */
		if (nftw(mnt->mnt_dir, walk_cb, 16, FTW_PHYS | FTW_MOUNT)) {
			if (walk.fatal) {
				err = -1;
				break;
			}
			p_debug("skipping BPF FS at %s: %s", mnt->mnt_dir,
				strerror(errno));
		}
	}
	endmntent(mnts);

	/* The same directory can be listed by several mounts */
	qsort(walk.tokens, walk.cnt, sizeof(*walk.tokens), desc_cmp);
	for (i = 0, j = 0; i < walk.cnt; i++) {
		if (j && !strcmp(walk.tokens[j - 1].path, walk.tokens[i].path)) {
			free(walk.tokens[i].path);
			continue;
		}
		walk.tokens[j++] = walk.tokens[i];
	}
	walk.cnt = j;

	if (!err) {
		if (json_output)
			jsonw_start_array(json_wtr);
		for (i = 0; i < walk.cnt; i++) {
			if (json_output)
				print_token_json(&walk.tokens[i]);
			else
				print_token_plain(&walk.tokens[i]);
		}
		if (json_output)
			jsonw_end_array(json_wtr);
	}

	for (i = 0; i < walk.cnt; i++)
		free(walk.tokens[i].path);
	free(walk.tokens);
	memset(&walk, 0, sizeof(walk));

	return err;
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

	fprintf(stderr,
		"Usage: %1$s %2$s create PATH [token PARENT] [cmds LIST] [maps LIST] \\\n"
		"                          [progs LIST] [attach LIST]\n"
		"       %1$s %2$s { show | list } [PATH]\n"
		"       %1$s %2$s help\n"
		"\n"
		"       PARENT := path of a pinned token that allows token_create\n"
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
	{ "help",	do_help },
	{ 0 }
};

int do_token(int argc, char **argv)
{
	return cmd_select(cmds, argc, argv, do_help);
}
