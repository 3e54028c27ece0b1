// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* bpftool token: create, inspect and revoke BPF tokens pinned in BPF FS, and
 * work out what BPF objects need from a token.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <mntent.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>

#include <linux/capability.h>
#include <linux/magic.h>
#include <linux/nsfs.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "json_writer.h"
#include "main.h"
#include "token_names.h"

#ifndef BPF_FS_MAGIC
#define BPF_FS_MAGIC		0xcafe4a11
#endif

#ifndef CAP_BPF
#define CAP_BPF			39
#endif

#ifndef EM_BPF
#define EM_BPF			247
#endif

#define TOKEN_ANON_INODE	"anon_inode:bpf-token"
#define TOKEN_HELP_HINT		"(see 'bpftool token help')"

#define field_end(type, member) \
	(offsetof(type, member) + sizeof(((type *)0)->member))

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

/* The operations a token counts, in the order of struct bpf_token_info, as
 * named in the output.
 */
enum token_use {
	TOKEN_USE_MAP_CREATE,
	TOKEN_USE_BTF_LOAD,
	TOKEN_USE_PROG_LOAD,
	TOKEN_USE_TOKEN_CREATE,
	__TOKEN_USE_MAX,
};

static const char * const token_use_names[] = {
	[TOKEN_USE_MAP_CREATE]		= "map_create",
	[TOKEN_USE_BTF_LOAD]		= "btf_load",
	[TOKEN_USE_PROG_LOAD]		= "prog_load",
	[TOKEN_USE_TOKEN_CREATE]	= "token_create",
};

struct token_desc {
	char *path;
	__u64 sets[__TOKEN_SET_MAX];
	/* The accounting and state below are known only if the kernel's
	 * struct bpf_token_info has them (an older kernel fills only the
	 * four sets).
	 */
	bool has_state;
	__u64 uses[__TOKEN_USE_MAX];
	__u64 denials;
	__u64 userns_ino;
	__u32 flags;
	__u32 depth;
};

static void token_info_to_desc(const struct bpf_token_info *info, __u32 len,
			       struct token_desc *desc)
{
	desc->sets[TOKEN_SET_CMDS] = info->allowed_cmds;
	desc->sets[TOKEN_SET_MAPS] = info->allowed_maps;
	desc->sets[TOKEN_SET_PROGS] = info->allowed_progs;
	desc->sets[TOKEN_SET_ATTACH] = info->allowed_attachs;

	desc->has_state = len >= field_end(struct bpf_token_info, depth);
	if (!desc->has_state)
		return;
	desc->uses[TOKEN_USE_MAP_CREATE] = info->map_creates;
	desc->uses[TOKEN_USE_BTF_LOAD] = info->btf_loads;
	desc->uses[TOKEN_USE_PROG_LOAD] = info->prog_loads;
	desc->uses[TOKEN_USE_TOKEN_CREATE] = info->token_creates;
	desc->denials = info->denials;
	desc->userns_ino = info->userns_ino;
	desc->flags = info->flags;
	desc->depth = info->depth;
}

/* fd 0 means "no token" (or "no directory") for the kernel, so never hand
 * it out.
 */
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

	token_info_to_desc(&info, len, desc);
	return 0;
}

/* Open the token pinned at @path: read-write to use it (which needs read and
 * write permission on the pin), read-only to inspect it. Prints an error and
 * returns -1 if it can't be opened or is another kind of object.
 */
int token_open_pinned(const char *path, bool use)
{
	LIBBPF_OPTS(bpf_obj_get_opts, get_opts,
		    .file_flags = use ? 0 : BPF_F_RDONLY);
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
		else if (err == EACCES && use)
			p_err("can't open token %s: %s (using a token needs read and write permission on it)",
			      path, strerror(err));
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

static void print_sets_json(const __u64 *sets)
{
	unsigned int i;

	for (i = 0; i < __TOKEN_SET_MAX; i++) {
		jsonw_name(json_wtr, token_sets[i].field);
		jsonw_start_array(json_wtr);
		token_mask_for_each(i, sets[i], print_name_json, NULL);
		jsonw_end_array(json_wtr);
	}
}

static void print_sets_plain(const __u64 *sets)
{
	unsigned int i;

	for (i = 0; i < __TOKEN_SET_MAX; i++) {
		printf("\t%s:", token_sets[i].field);
		token_mask_for_each(i, sets[i], print_name_plain, NULL);
		printf("\n");
	}
}

static void print_token_json(const struct token_desc *desc)
{
	unsigned int i;

	jsonw_start_object(json_wtr);
	jsonw_string_field(json_wtr, "pinned", desc->path);
	print_sets_json(desc->sets);
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
	jsonw_end_object(json_wtr);
}

static void print_token_plain(const struct token_desc *desc)
{
	unsigned int i;

	printf("%s\n", desc->path);
	print_sets_plain(desc->sets);
	if (!desc->has_state)
		return;

	printf("\tuses:");
	for (i = 0; i < __TOKEN_USE_MAX; i++)
		printf(" %s %llu", token_use_names[i],
		       (unsigned long long)desc->uses[i]);
	printf("\n");
	printf("\tdenials: %llu\n", (unsigned long long)desc->denials);
	if (desc->userns_ino)
		printf("\tuserns: %llu\n", (unsigned long long)desc->userns_ino);
	if (desc->depth)
		printf("\tdepth: %u\n", desc->depth);
	if (desc->flags & BPF_TOKEN_INFO_REVOKED)
		printf("\trevoked\n");
}

/* What loading objects needs from a token ---------------------------------*/

/* One element of a set that an object needs, and what needs it. */
struct token_need {
	enum token_set set;
	unsigned int bit;
	/* libbpf goes on without it: the object's BTF, unless the kernel
	 * requires it (struct_ops)
	 */
	bool optional;
	char *who;	/* "map 'name'", "program 'name'", ... */
};

struct token_needs {
	__u64 sets[__TOKEN_SET_MAX];
	struct token_need *items;
	size_t cnt;
	size_t cap;
};

static void token_needs_free(struct token_needs *n)
{
	size_t i;

	for (i = 0; i < n->cnt; i++)
		free(n->items[i].who);
	free(n->items);
	memset(n, 0, sizeof(*n));
}

static int __attribute__((format(printf, 5, 6)))
token_needs_add(struct token_needs *n, enum token_set set, unsigned int bit,
		bool optional, const char *fmt, ...)
{
	struct token_need *item;
	va_list ap;
	char *who;
	int ret;

	va_start(ap, fmt);
	ret = vasprintf(&who, fmt, ap);
	va_end(ap);
	if (ret < 0) {
		p_err("mem alloc failed");
		return -1;
	}

	if (bit >= 64) {
		p_err("%s needs %s %u, which no token can allow", who,
		      token_set_what(set), bit);
		free(who);
		return -1;
	}

	if (n->cnt == n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 16;
		void *tmp;

		tmp = reallocarray(n->items, cap, sizeof(*n->items));
		if (!tmp) {
			p_err("mem alloc failed");
			free(who);
			return -1;
		}
		n->items = tmp;
		n->cap = cap;
	}

	item = &n->items[n->cnt++];
	item->set = set;
	item->bit = bit;
	item->optional = optional;
	item->who = who;
	n->sets[set] |= 1ULL << bit;

	return 0;
}

/* Add what loading @obj, as it is set up now (program types, autoload, maps
 * reused or not), needs: libbpf creates every map it does not reuse,
 * including its internal ones (.rodata, .data, .bss, .kconfig) and the inner
 * map of a map-in-map; loads every program whose autoload is on, with its
 * program type and expected attach type; and loads the object's BTF. An
 * extension (freplace) program also needs to read its target's BTF by id.
 * A fentry/fexit program that an application retargets at a BPF program
 * needs that too, but only the application knows it does.
 * libbpf's feature probes need nothing more: under a token it takes the
 * features that every kernel with tokens has for granted.
 */
static int token_needs_add_object(struct token_needs *n, struct bpf_object *obj,
				  const char *file)
{
	bool btf_required = false;
	struct bpf_program *prog;
	struct bpf_map *map;

	bpf_object__for_each_map(map, obj) {
		const char *name = bpf_map__name(map);
		enum bpf_map_type type = bpf_map__type(map);
		struct bpf_map *inner;

		if (!bpf_map__autocreate(map) || bpf_map__fd(map) >= 0)
			continue;
		/* the kernel wants the BTF of a struct_ops map */
		if (type == BPF_MAP_TYPE_STRUCT_OPS)
			btf_required = true;

		if (token_needs_add(n, TOKEN_SET_CMDS, BPF_MAP_CREATE, false,
				    "map '%s'", name) ||
		    token_needs_add(n, TOKEN_SET_MAPS, type, false,
				    "map '%s'", name))
			return -1;

		if (type != BPF_MAP_TYPE_ARRAY_OF_MAPS &&
		    type != BPF_MAP_TYPE_HASH_OF_MAPS)
			continue;
		inner = bpf_map__inner_map(map);
		if (inner &&
		    token_needs_add(n, TOKEN_SET_MAPS, bpf_map__type(inner),
				    false, "inner map of '%s'", name))
			return -1;
	}

	bpf_object__for_each_program(prog, obj) {
		const char *name = bpf_program__name(prog);
		enum bpf_prog_type type = bpf_program__type(prog);

		if (!bpf_program__autoload(prog))
			continue;
		if (type == BPF_PROG_TYPE_UNSPEC) {
			p_err("%s: program '%s' has no program type (section '%s' is unknown to libbpf)",
			      file, name, bpf_program__section_name(prog));
			return -1;
		}

		if (token_needs_add(n, TOKEN_SET_CMDS, BPF_PROG_LOAD, false,
				    "program '%s'", name) ||
		    token_needs_add(n, TOKEN_SET_PROGS, type, false,
				    "program '%s'", name) ||
		    token_needs_add(n, TOKEN_SET_ATTACH,
				    bpf_program__expected_attach_type(prog),
				    false, "program '%s'", name))
			return -1;
		/* an extension replaces a function of a BPF program, which
		 * libbpf looks up in that program's BTF, opened by id
		 */
		if (type == BPF_PROG_TYPE_EXT &&
		    token_needs_add(n, TOKEN_SET_CMDS, BPF_BTF_GET_FD_BY_ID,
				    false, "program '%s' (freplace)", name))
			return -1;
	}

	if (bpf_object__btf(obj) &&
	    token_needs_add(n, TOKEN_SET_CMDS, BPF_BTF_LOAD, !btf_required,
			    "BTF of object '%s'", bpf_object__name(obj)))
		return -1;

	return 0;
}

/* Check that @file is a BPF ELF object we can read, with a clear message
 * naming it otherwise: libbpf's own messages are silenced while it opens
 * objects for their needs.
 */
static int check_object_file(const char *file)
{
	unsigned char ehdr[EI_NIDENT + 4];
	unsigned int machine;
	struct stat st;
	ssize_t len;
	int fd;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		p_err("can't open object %s: %s", file, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		p_err("object %s is not a file", file);
		close(fd);
		return -1;
	}
	len = read(fd, ehdr, sizeof(ehdr));
	close(fd);
	if (len < 0) {
		p_err("can't read object %s: %s", file, strerror(errno));
		return -1;
	}
	if (len < (ssize_t)sizeof(ehdr) || memcmp(ehdr, ELFMAG, SELFMAG)) {
		p_err("object %s is not an ELF file", file);
		return -1;
	}
	/* e_machine follows e_ident and e_type, in 32 and 64-bit ELF alike */
	if (ehdr[EI_DATA] == ELFDATA2MSB)
		machine = ehdr[EI_NIDENT + 2] << 8 | ehdr[EI_NIDENT + 3];
	else
		machine = ehdr[EI_NIDENT + 3] << 8 | ehdr[EI_NIDENT + 2];
	if (machine != EM_BPF) {
		p_err("object %s is not a BPF object file (ELF machine %u)",
		      file, machine);
		return -1;
	}

	return 0;
}

/* Add what loading the object file @file needs to @n. */
static int token_needs_add_file(struct token_needs *n, const char *file)
{
	/* no token: LIBBPF_BPF_TOKEN_PATH has nothing to do with this */
	LIBBPF_OPTS(bpf_object_open_opts, open_opts, .bpf_token_path = "");
	libbpf_print_fn_t old_print;
	struct bpf_object *obj;
	char msg[256];
	int err;

	if (check_object_file(file))
		return -1;

	old_print = libbpf_set_print(NULL);
	obj = bpf_object__open_file(file, &open_opts);
	err = errno;
	libbpf_set_print(old_print);
	if (!obj) {
		libbpf_strerror(err, msg, sizeof(msg));
		p_err("can't open object %s: %s", file, msg);
		return -1;
	}

	err = token_needs_add_object(n, obj, file);
	bpf_object__close(obj);

	return err;
}

/* Capabilities give BPF powers only in the initial user namespace, whose
 * uid_map is the identity over all 32 bits.
 */
static bool in_initial_userns(void)
{
	unsigned long inner, outer, count;
	bool initial = true;
	FILE *f;

	f = fopen("/proc/self/uid_map", "re");
	if (!f)
		return true;
	if (fscanf(f, "%lu %lu %lu", &inner, &outer, &count) == 3)
		initial = !inner && !outer && count == 4294967295UL;
	fclose(f);

	return initial;
}

/* CAP_BPF or CAP_SYS_ADMIN in the effective set, in the initial user
 * namespace: what the kernel's checks look for without a token.
 */
static bool caller_has_bpf_caps(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
	__u64 eff;

	if (syscall(SYS_capget, &hdr, data))
		return false;

	eff = data[0].effective | (__u64)data[1].effective << 32;
	return (eff & (1ULL << CAP_BPF | 1ULL << CAP_SYS_ADMIN)) &&
	       in_initial_userns();
}

/* Describe in @buf every element of @n that @allowed lacks, with what needs
 * it: "map type percpu_hash (map 'a', map 'b'), program type kprobe
 * (program 'p')". Returns the number of missing elements, *@required tells
 * whether one of them is not optional.
 */
static int token_needs_missing(const struct token_needs *n,
			       const __u64 *allowed, char *buf, size_t size,
			       bool *required)
{
	size_t len = 0, i, j;
	unsigned int set, bit;
	int missing = 0;

#define BUF_ADD(fmt, ...)						\
	({								\
		int _n = snprintf(len < size ? buf + len : NULL,	\
				  len < size ? size - len : 0,		\
				  fmt, ##__VA_ARGS__);			\
		if (_n > 0)						\
			len += _n;					\
	})

	*required = false;
	if (size)
		buf[0] = '\0';

	for (set = 0; set < __TOKEN_SET_MAX; set++) {
		if (!(n->sets[set] & ~allowed[set]))
			continue;
		for (bit = 0; bit < 64; bit++) {
			const char *name;
			bool first = true;

			if (!(n->sets[set] & ~allowed[set] & (1ULL << bit)))
				continue;

			name = token_bit_name(set, bit);
			if (name)
				BUF_ADD("%s%s %s (", missing ? ", " : "",
					token_set_what(set), name);
			else
				BUF_ADD("%s%s %u (", missing ? ", " : "",
					token_set_what(set), bit);
			missing++;

			for (i = 0; i < n->cnt; i++) {
				const struct token_need *it = &n->items[i];
				bool dup = false;

				if (it->set != set || it->bit != bit)
					continue;
				if (!it->optional)
					*required = true;
				for (j = 0; j < i && !dup; j++)
					dup = n->items[j].set == set &&
					      n->items[j].bit == bit &&
					      !strcmp(n->items[j].who, it->who);
				if (dup)
					continue;
				BUF_ADD("%s%s", first ? "" : ", ", it->who);
				first = false;
			}
			BUF_ADD(")");
		}
	}
#undef BUF_ADD

	/* a cut message ends with "..." */
	if (size > 4 && len >= size)
		strcpy(buf + size - 4, "...");

	return missing;
}

/* Compare what @n needs with what the token at @path (open as @token_fd)
 * allows. If it lacks something that the load or creation can't do without,
 * a caller without CAP_BPF or CAP_SYS_ADMIN (in the initial user namespace)
 * gets one error naming everything missing, and -1: the kernel would refuse
 * it. A privileged caller gets the same text as a warning and 0, as does
 * anyone for what can be done without (the object's BTF). The same for a
 * revoked token.
 */
static int token_check_needs(const char *path, int token_fd,
			     const struct token_needs *n)
{
	struct token_desc desc = {};
	bool required;
	char buf[4096];
	int err;

	err = token_get_info(token_fd, &desc);
	if (err) {
		p_err("can't get token info for %s: %s", path, strerror(-err));
		return -1;
	}

	/* A revoked token allows nothing */
	if (desc.has_state && (desc.flags & BPF_TOKEN_INFO_REVOKED)) {
		if (!caller_has_bpf_caps()) {
			p_err("token %s is revoked", path);
			return -1;
		}
		p_info("Warning: token %s is revoked", path);
		return 0;
	}

	if (!token_needs_missing(n, desc.sets, buf, sizeof(buf), &required))
		return 0;

	if (required && !caller_has_bpf_caps()) {
		p_err("token %s does not allow %s", path, buf);
		return -1;
	}
	p_info("Warning: token %s does not allow %s", path, buf);
	return 0;
}

int token_check_object(const char *path, int token_fd, struct bpf_object *obj)
{
	struct token_needs n = {};
	int err;

	err = token_needs_add_object(&n, obj, bpf_object__name(obj));
	if (!err)
		err = token_check_needs(path, token_fd, &n);
	token_needs_free(&n);

	return err;
}

int token_check_map_create(const char *path, int token_fd,
			   enum bpf_map_type type, const char *map_name)
{
	struct token_needs n = {};
	int err;

	err = token_needs_add(&n, TOKEN_SET_CMDS, BPF_MAP_CREATE, false,
			      "map '%s'", map_name);
	if (!err)
		err = token_needs_add(&n, TOKEN_SET_MAPS, type, false,
				      "map '%s'", map_name);
	if (!err)
		err = token_check_needs(path, token_fd, &n);
	token_needs_free(&n);

	return err;
}

static int do_needs(int argc, char **argv)
{
	struct token_needs n = {};
	int i, err = 0;

	if (!argc) {
		p_err("missing OBJ: 'token needs' takes one or more object files " TOKEN_HELP_HINT);
		return -1;
	}

	for (i = 0; i < argc && !err; i++)
		err = token_needs_add_file(&n, argv[i]);
	if (err)
		goto out;

	if (json_output) {
		jsonw_start_object(json_wtr);
		jsonw_name(json_wtr, "objects");
		jsonw_start_array(json_wtr);
		for (i = 0; i < argc; i++)
			jsonw_string(json_wtr, argv[i]);
		jsonw_end_array(json_wtr);
		print_sets_json(n.sets);
		jsonw_end_object(json_wtr);
	} else {
		for (i = 0; i < argc; i++)
			printf("%s\n", argv[i]);
		print_sets_plain(n.sets);
	}

out:
	token_needs_free(&n);
	return err;
}

/* token create ------------------------------------------------------------*/

static bool is_create_keyword(const char *arg)
{
	unsigned int i;

	for (i = 0; i < __TOKEN_SET_MAX; i++)
		if (!strcmp(arg, token_sets[i].keyword))
			return true;

	return !strcmp(arg, "token") || !strcmp(arg, "userns") ||
	       !strcmp(arg, "object");
}

static bool dir_is_bpffs(int dir_fd)
{
	struct statfs st_fs;

	if (fstatfs(dir_fd, &st_fs))
		return false;

	return (unsigned long)st_fs.f_type == BPF_FS_MAGIC;
}

/* Open the user namespace @ns: a PID, or the path of a namespace file such
 * as /proc/PID/ns/user.
 */
static int userns_open(const char *ns)
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

static int do_create(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_token_create_opts, opts);
	bool seen[__TOKEN_SET_MAX] = {};
	struct token_needs needs = {};
	struct token_desc desc = {};
	const char *parent = NULL, *ns = NULL;
	int dir_fd = -1, token_fd = -1, userns_fd = -1;
	char *dir_buf = NULL, *base_buf = NULL;
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

	/* Parse everything, objects included, before talking to the kernel,
	 * so that bad input never leaves a token behind.
	 */
	while (argc) {
		const char *kw = *argv;

		if (is_prefix(kw, "token")) {
			if (parent) {
				p_err("parent token already specified");
				goto out;
			}
			NEXT_ARG();
			if (!argc) {
				p_err("missing parent token path after '%s'", kw);
				goto out;
			}
			parent = GET_ARG();
			continue;
		}
		if (is_prefix(kw, "userns")) {
			if (ns) {
				p_err("user namespace already specified");
				goto out;
			}
			NEXT_ARG();
			if (!argc) {
				p_err("missing user namespace (PID or path) after '%s' " TOKEN_HELP_HINT,
				      kw);
				goto out;
			}
			ns = GET_ARG();
			if (!*ns) {
				p_err("empty user namespace after '%s'", kw);
				goto out;
			}
			userns_fd = userns_open(ns);
			if (userns_fd < 0)
				goto out;
			continue;
		}
		if (is_prefix(kw, "object")) {
			NEXT_ARG();
			if (!argc) {
				p_err("missing object file after '%s' " TOKEN_HELP_HINT,
				      kw);
				goto out;
			}
			if (token_needs_add_file(&needs, *argv))
				goto out;
			NEXT_ARG();
			continue;
		}

		for (i = 0; i < __TOKEN_SET_MAX; i++)
			if (is_prefix(kw, token_sets[i].keyword))
				break;
		if (i == __TOKEN_SET_MAX) {
			p_err("expected 'token', 'userns', 'cmds', 'maps', 'progs', 'attach' or 'object', got: '%s'",
			      kw);
			goto out;
		}
		if (seen[i]) {
			p_err("'%s' already specified", token_sets[i].keyword);
			goto out;
		}
		seen[i] = true;
		NEXT_ARG();
		if (!argc) {
			p_err("missing %s list after '%s' " TOKEN_HELP_HINT,
			      token_set_what(i), kw);
			goto out;
		}
		if (token_parse_list(i, *argv, &desc.sets[i], err_buf,
				     sizeof(err_buf))) {
			p_err("%s " TOKEN_HELP_HINT, err_buf);
			goto out;
		}
		NEXT_ARG();
	}

	for (i = 0; i < __TOKEN_SET_MAX; i++)
		desc.sets[i] |= needs.sets[i];
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
		goto out;
	}
	dir_fd = open(dirname(dir_buf), O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd >= 0)
		dir_fd = fd_above_zero(dir_fd);
	if (dir_fd < 0) {
		p_err("can't pin token at %s: %s", path,
		      errno == ENOENT ? "parent directory does not exist" :
		      strerror(errno));
		goto out;
	}
	if (!dir_is_bpffs(dir_fd)) {
		p_err("can't pin token at %s: not a BPF FS", path);
		goto out;
	}

	if (parent) {
		/* deriving uses the parent: read-write */
		token_fd = token_open_pinned(parent, true);
		if (token_fd < 0)
			goto out;
		opts.token_fd = token_fd;
	}

	if (userns_fd >= 0) {
		opts.token_flags |= BPF_F_TOKEN_USERNS;
		opts.userns_fd = userns_fd;
	}

	err = bpf_token_create(dir_fd, basename(base_buf), &opts);
	if (err) {
		err = -err;
		switch (err) {
		case EEXIST:
			p_err("can't pin token at %s: file exists", path);
			break;
		case EPERM:
			if (parent && ns)
				p_err("can't create token %s: parent token %s does not allow token_create or everything requested, or user namespace %s is not within the parent's",
				      path, parent, ns);
			else if (parent)
				p_err("can't create token %s: parent token %s does not allow token_create or everything requested",
				      path, parent);
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
			if (parent) {
				p_err("can't create token %s: parent token %s is derived too many times already",
				      path, parent);
				break;
			}
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
			if (ns)
				p_err("can't create token %s: %s (does the kernel support binding BPF tokens to a user namespace?)",
				      path, strerror(err));
			else
				p_err("can't create token %s: %s (does the kernel support BPF tokens?)",
				      path, strerror(err));
			break;
		default:
			p_err("can't create token %s: %s", path, strerror(err));
		}
		err = -1;
		goto out;
	}

	if (json_output) {
		int fd;

		/* Print what the kernel stored, read back from the pin. */
		fd = token_open_pinned(path, false);
		if (fd < 0) {
			err = -1;
			goto out;
		}
		err = token_get_info(fd, &desc);
		close(fd);
		if (err) {
			p_err("can't get token info for %s: %s", path,
			      strerror(-err));
			err = -1;
			goto out;
		}
		desc.path = (char *)path;
		print_token_json(&desc);
	}

out:
	if (token_fd >= 0)
		close(token_fd);
	if (userns_fd >= 0)
		close(userns_fd);
	if (dir_fd >= 0)
		close(dir_fd);
	free(dir_buf);
	free(base_buf);
	token_needs_free(&needs);
	return err;
}

/* token show / list -------------------------------------------------------*/

/* Read the info of the token pinned at @path, opened for inspection. */
static int read_pinned_token(const char *path, struct token_desc *desc)
{
	int fd, err;

	fd = token_open_pinned(path, false);
	if (fd < 0)
		return -1;

	err = token_get_info(fd, desc);
	close(fd);
	if (err) {
		p_err("can't get token info for %s: %s", path, strerror(-err));
		return -1;
	}

	return 0;
}

static int show_one(const char *path)
{
	struct token_desc desc = {};

	if (read_pinned_token(path, &desc))
		return -1;

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
	LIBBPF_OPTS(bpf_obj_get_opts, get_opts, .file_flags = BPF_F_RDONLY);
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

	fd = bpf_obj_get_opts(fpath, &get_opts);
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
		/* bpftool line-buffers stdout: a list of thousands of tokens
		 * would take a write() per line. Print it block-buffered.
		 */
		fflush(stdout);
		setvbuf(stdout, NULL, _IOFBF, 0);
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
		fflush(stdout);
		setlinebuf(stdout);
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

/* token revoke ------------------------------------------------------------*/

static int do_revoke(int argc, char **argv)
{
	struct token_desc desc = {};
	struct stat before, after;
	const char *path;

	if (!argc) {
		p_err("missing PATH of the token to revoke " TOKEN_HELP_HINT);
		return -1;
	}
	path = GET_ARG();
	if (argc)
		return BAD_ARG();

	/* Only a token: open it for inspection, which any pinned token
	 * allows, and ask the kernel about it.
	 */
	if (lstat(path, &before)) {
		p_err("can't open token %s: %s", path, strerror(errno));
		return -1;
	}
	if (read_pinned_token(path, &desc))
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

	fprintf(stderr,
		"Usage: %1$s %2$s create PATH [token PARENT] [userns NS] [cmds LIST] \\\n"
		"                          [maps LIST] [progs LIST] [attach LIST] \\\n"
		"                          [object OBJ]...\n"
		"       %1$s %2$s { show | list } [PATH]\n"
		"       %1$s %2$s needs OBJ [OBJ...]\n"
		"       %1$s %2$s revoke PATH\n"
		"       %1$s %2$s help\n"
		"\n"
		"       PARENT := path of a pinned token that allows token_create\n"
		"       NS := { PID | path of a user namespace, e.g. /proc/PID/ns/user }\n"
		"       OBJ := path of a BPF object file (ELF)\n"
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
	{ "needs",	do_needs },
	{ "revoke",	do_revoke },
	{ "help",	do_help },
	{ 0 }
};

int do_token(int argc, char **argv)
{
	return cmd_select(cmds, argc, argv, do_help);
}
