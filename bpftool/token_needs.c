// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* What loading BPF objects needs from a BPF token (token needs, token create
 * ... object; token_check.c compares it with what a token allows). The
 * programs that read kernel memory are token_kmem.c's to find.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "main.h"
#include "token_kmem.h"
#include "token_needs.h"
#include "token_object.h"

void token_needs_free(struct token_needs *n)
{
	size_t i;

	for (i = 0; i < n->cnt; i++)
		free(n->items[i].who);
	free(n->items);
	for (i = 0; i < n->kmem_cnt; i++) {
		free(n->kmem[i].object);
		free(n->kmem[i].prog);
	}
	free(n->kmem);
	for (i = 0; i < n->file_cnt; i++) {
		free(n->files[i].path);
		free(n->files[i].buf);
	}
	free(n->files);
	memset(n, 0, sizeof(*n));
}

int token_needs_add(struct token_needs *n, enum token_set set, unsigned int bit,
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
 * selects the hook). For the other types it means nothing. Kept equal to
 * the kernel's by tests/host/kernel_tables.py, as CGROUP_PROG_TYPES is.
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

int token_needs_add_object(struct token_needs *n, struct bpf_object *obj,
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

/* Grow the array *@v of *@cnt elements of @size bytes by one; the new one is
 * zeroed. NULL when out of memory.
 */
static void *grow(void *v, size_t *cnt, size_t size)
{
	char *tmp;

	tmp = reallocarray(*(void **)v, *cnt + 1, size);
	if (!tmp)
		return NULL;
	*(void **)v = tmp;
	memset(tmp + *cnt * size, 0, size);
	return tmp + (*cnt)++ * size;
}

int token_needs_add_kmem(struct token_needs *n, const char *file,
			 const char *prog, __u32 helpers)
{
	struct token_kmem *k;

	k = grow(&n->kmem, &n->kmem_cnt, sizeof(*k));
	if (!k) {
		p_err("mem alloc failed");
		return -1;
	}
	k->helpers = helpers;
	k->object = strdup(file);
	k->prog = strdup(prog);
	if (!k->object || !k->prog) {
		p_err("mem alloc failed");
		return -1;
	}
	return 0;
}

int token_needs_add_tracing(struct token_needs *n, __u64 progs)
{
	size_t i;

	if (progs & TOKEN_TRACING_PROGS)
		return 0;
	for (i = 0; i < n->kmem_cnt; i++)
		if (token_needs_add(n, TOKEN_SET_PROGS, BPF_PROG_TYPE_TRACEPOINT,
				    false, "program '%s' (reads kernel memory)",
				    n->kmem[i].prog))
			return -1;
	return 0;
}

/* The helpers that libbpf 1.4 replaces with the older bpf_probe_read() and
 * bpf_probe_read_str() when its probe of bpf_probe_read_kernel() fails
 */
#define PROBE_READ_HELPERS						\
	(token_kmem_helper_bit(BPF_FUNC_probe_read_kernel) |		\
	 token_kmem_helper_bit(BPF_FUNC_probe_read_user) |		\
	 token_kmem_helper_bit(BPF_FUNC_probe_read_kernel_str) |	\
	 token_kmem_helper_bit(BPF_FUNC_probe_read_user_str))

void token_needs_mainline_sets(const struct token_needs *n,
			       __u64 sets[__TOKEN_SET_MAX])
{
	size_t i;

	memcpy(sets, n->sets, sizeof(n->sets));
	/* a token of mainline checks the expected attach type of every
	 * program type
	 */
	sets[TOKEN_SET_ATTACH] = n->all_attachs;

	/* libbpf 1.4 and later (bpf_object__probe_loading()) first loads a
	 * socket filter through the token, even for an object without
	 * programs, and gives up when it is refused (a tracepoint program is
	 * its fallback): prog_load, socket_filter and its expected attach
	 * type 0, cgroup_inet_ingress. The same socket filter (with an array
	 * map, which an object with global variables needs anyway) is its
	 * probe of global variables, whose failure leaves .rodata, .data and
	 * .bss uncreated. Its other probes may fail without harm, but for
	 * one: bpf_probe_read_kernel()'s, a tracepoint program; when it is
	 * refused, libbpf calls bpf_probe_read() instead, which only tracing
	 * programs have. (Its probe of expected_attach_type, a cgroup_sock
	 * program, may fail: libbpf 1.4 loads every program with its expected
	 * attach type all the same.)
	 */
	sets[TOKEN_SET_CMDS] |= 1ULL << BPF_PROG_LOAD;
	sets[TOKEN_SET_PROGS] |= 1ULL << BPF_PROG_TYPE_SOCKET_FILTER;
	sets[TOKEN_SET_ATTACH] |= 1ULL << BPF_CGROUP_INET_INGRESS;
	for (i = 0; i < n->kmem_cnt; i++)
		if (n->kmem[i].helpers & PROBE_READ_HELPERS)
			sets[TOKEN_SET_PROGS] |= 1ULL << BPF_PROG_TYPE_TRACEPOINT;
}

/* Add @file, read into @o, to the object files of @n, which takes @o's
 * bytes
 */
static int add_file(struct token_needs *n, const char *file,
		    struct token_object *o)
{
	struct token_file *slot;
	char *path;

	path = strdup(file);
	slot = path ? grow(&n->files, &n->file_cnt, sizeof(*slot)) : NULL;
	if (!slot) {
		free(path);
		p_err("mem alloc failed");
		return -1;
	}
	slot->path = path;
	slot->buf = o->buf;
	slot->size = o->size;
	memcpy(slot->name, o->name, sizeof(slot->name));
	o->buf = NULL;
	return 0;
}

int token_needs_add_file(struct token_needs *n, const char *file)
{
	/* no token: LIBBPF_BPF_TOKEN_PATH has nothing to do with this */
	LIBBPF_OPTS(bpf_object_open_opts, open_opts, .bpf_token_path = "");
	libbpf_print_fn_t old_print;
	struct token_object o;
	struct bpf_object *obj;
	char msg[256];
	int err;

	/* read once, bounded and checked (libbpf's own messages are
	 * silenced while it opens objects for their needs); libbpf parses
	 * the same bytes, under the name it gives the file
	 */
	if (token_object_read(&o, file))
		return -1;
	open_opts.object_name = o.name;

	old_print = libbpf_set_print(NULL);
	obj = bpf_object__open_mem(o.buf, o.size, &open_opts);
	err = errno;
	libbpf_set_print(old_print);
	if (!obj) {
		libbpf_strerror(err, msg, sizeof(msg));
		p_err("can't open object %s: %s", file, msg);
		token_object_free(&o);
		return -1;
	}

	err = token_needs_add_object(n, obj, file);
	if (!err)
		err = token_kmem_add_object(n, obj, file, o.elf);
	if (!err)
		err = add_file(n, file, &o);
	bpf_object__close(obj);
	token_object_free(&o);

	return err;
}
