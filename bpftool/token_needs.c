// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* What loading BPF objects needs from a BPF token (token needs, token create
 * ... object), and what a token lacks for a load or a map creation (prog
 * load, prog loadall and map create with token).
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <linux/capability.h>

#include <bpf/bpf.h>

#include "main.h"
#include "token_needs.h"

#ifndef CAP_BPF
#define CAP_BPF			39
#endif

#ifndef EM_BPF
#define EM_BPF			247
#endif

void token_needs_free(struct token_needs *n)
{
	size_t i;

	for (i = 0; i < n->cnt; i++)
		free(n->items[i].who);
	free(n->items);
	memset(n, 0, sizeof(*n));
}

static int __printf(5, 6)
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

/* The program types whose expected attach type BPF_PROG_LOAD checks against
 * the token's allowed_attachs: those the kernel reads it for at load (it
 * selects the hook). For the other types it means nothing.
 */
#define ATTACH_TYPE_CONSULTED					\
	(1ULL << BPF_PROG_TYPE_CGROUP_SKB |			\
	 1ULL << BPF_PROG_TYPE_CGROUP_SOCK |			\
	 1ULL << BPF_PROG_TYPE_CGROUP_SOCK_ADDR |		\
	 1ULL << BPF_PROG_TYPE_CGROUP_SOCKOPT |			\
	 1ULL << BPF_PROG_TYPE_SK_LOOKUP |			\
	 1ULL << BPF_PROG_TYPE_SK_REUSEPORT |			\
	 1ULL << BPF_PROG_TYPE_TRACING |			\
	 1ULL << BPF_PROG_TYPE_LSM |				\
	 1ULL << BPF_PROG_TYPE_XDP)

/* The program types attached to cgroups, which a token program can only be
 * within the token's cgroup scope; and lsm programs of attach type
 * lsm_cgroup.
 */
#define CGROUP_PROG_TYPES					\
	(1ULL << BPF_PROG_TYPE_CGROUP_SKB |			\
	 1ULL << BPF_PROG_TYPE_CGROUP_SOCK |			\
	 1ULL << BPF_PROG_TYPE_CGROUP_SOCK_ADDR |		\
	 1ULL << BPF_PROG_TYPE_CGROUP_SOCKOPT |			\
	 1ULL << BPF_PROG_TYPE_CGROUP_SYSCTL |			\
	 1ULL << BPF_PROG_TYPE_CGROUP_DEVICE |			\
	 1ULL << BPF_PROG_TYPE_SOCK_OPS)

static bool prog_type_in(__u64 types, enum bpf_prog_type type)
{
	return (unsigned int)type < 64 && (types & (1ULL << type));
}

/* What loading the programs of @obj needs. */
static int add_programs(struct token_needs *n, struct bpf_object *obj,
			const char *file)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, obj) {
		const char *name = bpf_program__name(prog);
		enum bpf_prog_type type = bpf_program__type(prog);
		enum bpf_attach_type attach;

		if (!bpf_program__autoload(prog))
			continue;
		if (type == BPF_PROG_TYPE_UNSPEC) {
			p_err("%s: program '%s' has no program type (section '%s' is unknown to libbpf)",
			      file, name, bpf_program__section_name(prog));
			return -1;
		}

		attach = bpf_program__expected_attach_type(prog);
		if (token_needs_add(n, TOKEN_SET_CMDS, BPF_PROG_LOAD, false,
				    "program '%s'", name) ||
		    token_needs_add(n, TOKEN_SET_PROGS, type, false,
				    "program '%s'", name))
			return -1;
		if (prog_type_in(ATTACH_TYPE_CONSULTED, type) &&
		    token_needs_add(n, TOKEN_SET_ATTACH, attach, false,
				    "program '%s'", name))
			return -1;
		if ((unsigned int)attach < 64)
			n->all_attachs |= 1ULL << attach;
		if (prog_type_in(CGROUP_PROG_TYPES, type) ||
		    (type == BPF_PROG_TYPE_LSM && attach == BPF_LSM_CGROUP))
			n->cgroup_scope = true;
		/* an extension replaces a function of a BPF program, which
		 * libbpf looks up in that program's BTF, opened by id
		 */
		if (type == BPF_PROG_TYPE_EXT &&
		    token_needs_add(n, TOKEN_SET_CMDS, BPF_BTF_GET_FD_BY_ID,
				    false, "program '%s' (freplace)", name))
			return -1;
	}

	return 0;
}

/* Add what loading @obj, as it is set up now (program types, autoload, maps
 * reused or not), needs: libbpf creates every map it does not reuse,
 * including its internal ones (.rodata, .data, .bss, .kconfig) and the inner
 * map of a map-in-map; loads every program whose autoload is on, with its
 * program type and, where the kernel consults it at load, its expected attach
 * type; and loads the object's BTF. An
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

	if (add_programs(n, obj, file))
		return -1;

	if (bpf_object__btf(obj) &&
	    token_needs_add(n, TOKEN_SET_CMDS, BPF_BTF_LOAD, !btf_required,
			    "BTF of object '%s'", bpf_object__name(obj)))
		return -1;

	return 0;
}

/* Check that @file is a BPF ELF object, with a clear message naming it
 * otherwise: libbpf's own messages are silenced while it opens objects for
 * their needs.
 */
static int check_object_file(const char *file)
{
	GElf_Ehdr ehdr;
	struct stat st;
	Elf *elf;
	int fd, err = -1;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		p_err("can't open object %s: %s", file, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		p_err("object %s is not a file", file);
		goto out_close;
	}
	if (elf_version(EV_CURRENT) == EV_NONE) {
		p_err("can't use libelf: %s", elf_errmsg(-1));
		goto out_close;
	}

	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &ehdr))
		p_err("object %s is not an ELF file", file);
	else if (ehdr.e_machine != EM_BPF)
		p_err("object %s is not a BPF object file (ELF machine %u)",
		      file, ehdr.e_machine);
	else
		err = 0;
	elf_end(elf);

out_close:
	close(fd);
	return err;
}

int token_needs_add_file(struct token_needs *n, const char *file)
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

/* A message that grows, cut with "..." when it does not fit */
struct msg {
	char buf[4096];
	size_t len;
};

static void __printf(2, 3) msg_add(struct msg *m, const char *fmt, ...)
{
	size_t room = m->len < sizeof(m->buf) ? sizeof(m->buf) - m->len : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? m->buf + m->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		m->len += n;
	if (m->len >= sizeof(m->buf))
		strcpy(m->buf + sizeof(m->buf) - 4, "...");
}

/* Add to @m who needs bit @bit of @set (every item of @n that is it, each
 * name once): "(map 'a', map 'b')". Sets *@required if one of them is not
 * optional.
 */
static void add_who(struct msg *m, const struct token_needs *n,
		    unsigned int set, unsigned int bit, bool *required)
{
	bool first = true, dup;
	size_t i, j;

	for (i = 0; i < n->cnt; i++) {
		const struct token_need *it = &n->items[i];

		if (it->set != set || it->bit != bit)
			continue;
		if (!it->optional)
			*required = true;
		for (j = 0, dup = false; j < i && !dup; j++)
			dup = n->items[j].set == set && n->items[j].bit == bit &&
			      !strcmp(n->items[j].who, it->who);
		if (dup)
			continue;
		msg_add(m, "%s%s", first ? "(" : ", ", it->who);
		first = false;
	}
	msg_add(m, ")");
}

/* Describe in @m every element of @n that @allowed lacks, with what needs
 * it: "map type percpu_hash (map 'a', map 'b'), program type kprobe
 * (program 'p')". Returns the number of missing elements, *@required tells
 * whether one of them is not optional.
 */
static int token_needs_missing(const struct token_needs *n,
			       const __u64 *allowed, struct msg *m,
			       bool *required)
{
	unsigned int set, bit;
	const char *name;
	int missing = 0;

	*required = false;
	for (set = 0; set < __TOKEN_SET_MAX; set++) {
		for (bit = 0; bit < 64; bit++) {
			if (!(n->sets[set] & ~allowed[set] & (1ULL << bit)))
				continue;
			name = token_bit_name(set, bit);
			msg_add(m, "%s%s ", missing ? ", " : "",
				token_set_what(set));
			if (name)
				msg_add(m, "%s ", name);
			else
				msg_add(m, "%u ", bit);
			add_who(m, n, set, bit, required);
			missing++;
		}
	}

	return missing;
}

/* Compare what @n needs with what the token at @path (open as @token_fd)
 * allows, see token_check_object().
 */
static int token_check_needs(const char *path, int token_fd,
			     const struct token_needs *n)
{
	struct token_desc desc = {};
	struct msg m = {};
	bool required;
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

	if (!token_needs_missing(n, desc.sets, &m, &required))
		return 0;

	if (required && !caller_has_bpf_caps()) {
		p_err("token %s does not allow %s", path, m.buf);
		return -1;
	}
	p_info("Warning: token %s does not allow %s", path, m.buf);
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
