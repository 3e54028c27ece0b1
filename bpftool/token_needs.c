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

#ifndef EM_BPF
#define EM_BPF			247
#endif

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
	for (i = 0; i < n->file_cnt; i++)
		free(n->files[i]);
	free(n->files);
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

/* Programs that read kernel memory ----------------------------------------*/

/* The helpers that the kernel gives a program only if its loader has
 * CAP_PERFMON, or loads it through a token that allows a tracing program
 * type: the last group of bpf_base_func_proto(), the socket casts of
 * bpf_sk_base_func_proto(), and bpf_sys_bpf() of syscall programs. Tracing
 * programs get them as part of their type. By helper id.
 */
static const struct {
	int id;
	const char *name;
} kmem_helpers[] = {
	{ BPF_FUNC_trace_printk,		"bpf_trace_printk" },
	{ BPF_FUNC_get_current_task,		"bpf_get_current_task" },
	{ BPF_FUNC_probe_read_user,		"bpf_probe_read_user" },
	{ BPF_FUNC_probe_read_kernel,		"bpf_probe_read_kernel" },
	{ BPF_FUNC_probe_read_user_str,		"bpf_probe_read_user_str" },
	{ BPF_FUNC_probe_read_kernel_str,	"bpf_probe_read_kernel_str" },
	{ BPF_FUNC_skc_to_tcp6_sock,		"bpf_skc_to_tcp6_sock" },
	{ BPF_FUNC_skc_to_tcp_sock,		"bpf_skc_to_tcp_sock" },
	{ BPF_FUNC_skc_to_tcp_timewait_sock,	"bpf_skc_to_tcp_timewait_sock" },
	{ BPF_FUNC_skc_to_tcp_request_sock,	"bpf_skc_to_tcp_request_sock" },
	{ BPF_FUNC_skc_to_udp6_sock,		"bpf_skc_to_udp6_sock" },
	{ BPF_FUNC_snprintf_btf,		"bpf_snprintf_btf" },
	{ BPF_FUNC_get_current_task_btf,	"bpf_get_current_task_btf" },
	{ BPF_FUNC_snprintf,			"bpf_snprintf" },
	{ BPF_FUNC_sys_bpf,			"bpf_sys_bpf" },
	{ BPF_FUNC_task_pt_regs,		"bpf_task_pt_regs" },
	{ BPF_FUNC_trace_vprintk,		"bpf_trace_vprintk" },
	{ BPF_FUNC_skc_to_unix_sock,		"bpf_skc_to_unix_sock" },
	{ BPF_FUNC_skc_to_mptcp_sock,		"bpf_skc_to_mptcp_sock" },
};

/* one bit each in struct token_kmem's helpers */
_Static_assert(ARRAY_SIZE(kmem_helpers) <= 32, "too many helpers for a __u32");

const char *token_kmem_helper_name(unsigned int i)
{
	return i < ARRAY_SIZE(kmem_helpers) ? kmem_helpers[i].name : NULL;
}

/* The bit of struct token_kmem's helpers for helper @id, 0 for the others */
static __u32 kmem_helper_bit(__s32 id)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kmem_helpers); i++)
		if (kmem_helpers[i].id == id)
			return 1U << i;
	return 0;
}

/* The code of an object, read from its ELF file as the compiler left it,
 * before libbpf puts each program and the subprograms it calls together:
 * the executable sections, their relocations, and their functions (the
 * programs and the subprograms of .text), each with the helpers of
 * kmem_helpers[] it calls and the functions it calls or passes as a
 * callback (bpf_loop(), bpf_for_each_map_elem(), timers).
 */
struct code_rel {
	size_t insn;		/* the instruction it applies to */
	size_t sym_sec;		/* the section of its symbol, if executable */
	bool to_code;		/* its symbol is in an executable section */
	__u64 sym_value;
};

struct code_sec {
	size_t shndx;
	const char *name;
	const struct bpf_insn *insns;
	size_t insn_cnt;
	struct code_rel *rels;	/* by instruction */
	size_t rel_cnt;
};

struct code_func {
	size_t sec;		/* index in code.secs */
	size_t start, end;	/* instructions [start, end) of the section */
	const char *name;
	__u32 helpers;
	size_t *callees;	/* indexes in code.funcs */
	size_t callee_cnt;
	bool seen;
};

struct code {
	Elf *elf;
	int fd;
	struct code_sec *secs;
	size_t sec_cnt;
	struct code_func *funcs;
	size_t func_cnt;
};

static void code_free(struct code *c)
{
	size_t i;

	for (i = 0; i < c->sec_cnt; i++)
		free(c->secs[i].rels);
	for (i = 0; i < c->func_cnt; i++)
		free(c->funcs[i].callees);
	free(c->secs);
	free(c->funcs);
	if (c->elf)
		elf_end(c->elf);
	if (c->fd >= 0)
		close(c->fd);
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

static struct code_sec *code_sec_by_shndx(struct code *c, size_t shndx)
{
	size_t i;

	for (i = 0; i < c->sec_cnt; i++)
		if (c->secs[i].shndx == shndx)
			return &c->secs[i];
	return NULL;
}

static int cmp_rel(const void *a, const void *b)
{
	const struct code_rel *x = a, *y = b;

	return x->insn < y->insn ? -1 : x->insn > y->insn;
}

static const struct code_rel *code_rel_at(const struct code_sec *sec,
					  size_t insn)
{
	struct code_rel key = { .insn = insn };

	if (!sec->rel_cnt)
		return NULL;
	return bsearch(&key, sec->rels, sec->rel_cnt, sizeof(key), cmp_rel);
}

/* The function that instruction @insn of section @sec (index) is in, or -1 */
static ssize_t code_func_at(const struct code *c, size_t sec, size_t insn)
{
	size_t i;

	for (i = 0; i < c->func_cnt; i++)
		if (c->funcs[i].sec == sec && insn >= c->funcs[i].start &&
		    insn < c->funcs[i].end)
			return i;
	return -1;
}

/* Read the executable sections, the relocations that apply to them and the
 * functions in them (STT_FUNC symbols) of @file.
 */
static int code_read(struct code *c, const char *file)
{
	Elf_Scn *scn = NULL, *symtab = NULL;
	size_t shstrndx, i, j, sym_cnt = 0;
	Elf_Data *syms = NULL;
	GElf_Shdr shdr, symshdr = {};
	GElf_Sym sym;

	c->fd = open(file, O_RDONLY | O_CLOEXEC);
	if (c->fd < 0) {
		p_err("can't open object %s: %s", file, strerror(errno));
		return -1;
	}
	if (elf_version(EV_CURRENT) == EV_NONE ||
	    !(c->elf = elf_begin(c->fd, ELF_C_READ, NULL)) ||
	    elf_getshdrstrndx(c->elf, &shstrndx))
		goto bad;

	while ((scn = elf_nextscn(c->elf, scn))) {
		struct code_sec *sec;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr))
			goto bad;
		if (shdr.sh_type == SHT_SYMTAB) {
			symtab = scn;
			symshdr = shdr;
			continue;
		}
		if (shdr.sh_type != SHT_PROGBITS ||
		    !(shdr.sh_flags & SHF_EXECINSTR) || !shdr.sh_size)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || data->d_size != shdr.sh_size)
			goto bad;
		sec = grow(&c->secs, &c->sec_cnt, sizeof(*sec));
		if (!sec)
			goto nomem;
		sec->shndx = elf_ndxscn(scn);
		sec->name = elf_strptr(c->elf, shstrndx, shdr.sh_name);
		sec->insns = data->d_buf;
		sec->insn_cnt = data->d_size / sizeof(struct bpf_insn);
	}
	if (!symtab)
		return 0;	/* libbpf opens no program without symbols */
	syms = elf_getdata(symtab, NULL);
	if (!syms || !symshdr.sh_entsize)
		goto bad;
	sym_cnt = symshdr.sh_size / symshdr.sh_entsize;

	/* the functions */
	for (i = 0; i < sym_cnt; i++) {
		struct code_sec *sec;
		struct code_func *f;

		if (!gelf_getsym(syms, i, &sym))
			goto bad;
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    !(sec = code_sec_by_shndx(c, sym.st_shndx)))
			continue;
		f = grow(&c->funcs, &c->func_cnt, sizeof(*f));
		if (!f)
			goto nomem;
		f->sec = sec - c->secs;
		f->start = sym.st_value / sizeof(struct bpf_insn);
		f->end = (sym.st_value + sym.st_size) / sizeof(struct bpf_insn);
		if (f->end > sec->insn_cnt)
			f->end = sec->insn_cnt;
		f->name = elf_strptr(c->elf, symshdr.sh_link, sym.st_name);
	}

	/* the relocations of the executable sections */
	scn = NULL;
	while ((scn = elf_nextscn(c->elf, scn))) {
		struct code_sec *sec, *to;
		Elf_Data *data;
		GElf_Rel rel;

		if (!gelf_getshdr(scn, &shdr))
			goto bad;
		if (shdr.sh_type != SHT_REL || !shdr.sh_entsize ||
		    !(sec = code_sec_by_shndx(c, shdr.sh_info)))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data)
			goto bad;
		for (j = 0; j < shdr.sh_size / shdr.sh_entsize; j++) {
			struct code_rel *r;

			if (!gelf_getrel(data, j, &rel) ||
			    !gelf_getsym(syms, GELF_R_SYM(rel.r_info), &sym))
				goto bad;
			r = grow(&sec->rels, &sec->rel_cnt, sizeof(*r));
			if (!r)
				goto nomem;
			r->insn = rel.r_offset / sizeof(struct bpf_insn);
			to = code_sec_by_shndx(c, sym.st_shndx);
			r->to_code = to != NULL;
			r->sym_sec = to ? (size_t)(to - c->secs) : 0;
			r->sym_value = sym.st_value;
		}
		qsort(sec->rels, sec->rel_cnt, sizeof(*sec->rels), cmp_rel);
	}
	return 0;

bad:
	p_err("can't open object %s: %s", file, elf_errmsg(-1));
	return -1;
nomem:
	p_err("mem alloc failed");
	return -1;
}

static int code_add_callee(struct code *c, struct code_func *f, size_t sec,
			   __s64 insn)
{
	ssize_t callee;
	size_t *slot;

	if (insn < 0)
		return 0;
	callee = code_func_at(c, sec, insn);
	if (callee < 0)
		return 0;	/* libbpf would not load it either */
	slot = grow(&f->callees, &f->callee_cnt, sizeof(*slot));
	if (!slot) {
		p_err("mem alloc failed");
		return -1;
	}
	*slot = callee;
	return 0;
}

/* What each function calls: helpers (BPF_CALL with src_reg 0, imm the
 * helper's id), functions (BPF_PSEUDO_CALL, pc-relative within the section,
 * or relocated against .text: the symbol's offset plus imm plus 1) and
 * functions passed as callbacks (a 64-bit load relocated against .text: the
 * symbol's offset plus imm, in bytes). Calls of kernel functions (kfuncs,
 * relocated against an undefined symbol) are not followed.
 */
static int code_scan(struct code *c)
{
	size_t i, k;

	for (i = 0; i < c->func_cnt; i++) {
		struct code_func *f = &c->funcs[i];
		const struct code_sec *sec = &c->secs[f->sec];

		for (k = f->start; k < f->end; k++) {
			const struct bpf_insn *insn = &sec->insns[k];
			const struct code_rel *rel = code_rel_at(sec, k);
			int err = 0;

			if (insn->code == (BPF_JMP | BPF_CALL)) {
				if (insn->src_reg == 0 && !rel)
					f->helpers |= kmem_helper_bit(insn->imm);
				else if (insn->src_reg == BPF_PSEUDO_CALL && !rel)
					err = code_add_callee(c, f, f->sec,
							      (__s64)k + insn->imm + 1);
				else if (insn->src_reg == BPF_PSEUDO_CALL && rel->to_code)
					err = code_add_callee(c, f, rel->sym_sec,
							      (__s64)(rel->sym_value / sizeof(*insn)) +
							      insn->imm + 1);
			} else if (insn->code == (BPF_LD | BPF_IMM | BPF_DW)) {
				if (rel && rel->to_code)
					err = code_add_callee(c, f, rel->sym_sec,
							      ((__s64)rel->sym_value + insn->imm) /
							      (__s64)sizeof(*insn));
				k++;	/* two instructions */
			}
			if (err)
				return -1;
		}
	}
	return 0;
}

/* *@helpers: the helpers of kmem_helpers[] that function @i calls, directly
 * or through the functions it calls (without recursion: the chain can be
 * long).
 */
static int code_helpers_from(struct code *c, size_t i, __u32 *helpers)
{
	size_t *todo, cnt = 0, j;

	for (j = 0; j < c->func_cnt; j++)
		c->funcs[j].seen = false;
	/* each function goes on the stack once */
	todo = calloc(c->func_cnt, sizeof(*todo));
	if (!todo) {
		p_err("mem alloc failed");
		return -1;
	}
	*helpers = 0;
	todo[cnt++] = i;
	c->funcs[i].seen = true;
	while (cnt) {
		struct code_func *f = &c->funcs[todo[--cnt]];

		*helpers |= f->helpers;
		for (j = 0; j < f->callee_cnt; j++) {
			if (c->funcs[f->callees[j]].seen)
				continue;
			c->funcs[f->callees[j]].seen = true;
			todo[cnt++] = f->callees[j];
		}
	}
	free(todo);
	return 0;
}

/* The function of the code that is program @prog (its name, in its section),
 * or -1.
 */
static ssize_t code_prog_func(const struct code *c,
			      const struct bpf_program *prog)
{
	const char *name = bpf_program__name(prog);
	const char *sec = bpf_program__section_name(prog);
	size_t i;

	for (i = 0; i < c->func_cnt; i++)
		if (c->funcs[i].name && !strcmp(c->funcs[i].name, name) &&
		    c->secs[c->funcs[i].sec].name &&
		    !strcmp(c->secs[c->funcs[i].sec].name, sec))
			return i;
	return -1;
}

static int kmem_add(struct token_needs *n, const char *file, const char *prog,
		    __u32 helpers)
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

/* Add to @n the programs of @obj, opened from @file, that the kernel loads
 * with the helpers of kmem_helpers[] only through a token that allows a
 * tracing program type: those of another type that call one of them, in
 * their own code or in the subprograms they call.
 */
static int add_kernel_memory(struct token_needs *n, struct bpf_object *obj,
			     const char *file)
{
	struct code c = { .fd = -1 };
	struct bpf_program *prog;
	int err = -1;

	if (code_read(&c, file) || code_scan(&c))
		goto out;

	bpf_object__for_each_program(prog, obj) {
		enum bpf_prog_type type = bpf_program__type(prog);
		__u32 helpers;
		ssize_t f;

		if (!bpf_program__autoload(prog) ||
		    ((unsigned int)type < 64 &&
		     (TOKEN_TRACING_PROGS & (1ULL << type))))
			continue;
		f = code_prog_func(&c, prog);
		if (f < 0)
			continue;
		if (code_helpers_from(&c, f, &helpers) ||
		    (helpers && kmem_add(n, file, bpf_program__name(prog), helpers)))
			goto out;
	}
	err = 0;
out:
	code_free(&c);
	return err;
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

/* Add @file to the object files of @n */
static int add_file_name(struct token_needs *n, const char *file)
{
	char **slot;

	slot = grow(&n->files, &n->file_cnt, sizeof(*slot));
	if (slot)
		*slot = strdup(file);
	if (!slot || !*slot) {
		p_err("mem alloc failed");
		return -1;
	}
	return 0;
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
	if (!err)
		err = add_kernel_memory(n, obj, file);
	if (!err)
		err = add_file_name(n, file);
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

__u64 token_caller_caps(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};

	if (syscall(SYS_capget, &hdr, data) || !in_initial_userns())
		return 0;

	return data[0].effective | (__u64)data[1].effective << 32;
}

/* One of @caps (a mask of CAP_*) in the effective set, in the initial user
 * namespace.
 */
static bool caller_has_caps(__u64 caps)
{
	return token_caller_caps() & caps;
}

/* CAP_BPF or CAP_SYS_ADMIN: what the kernel's checks look for without a
 * token.
 */
static bool caller_has_bpf_caps(void)
{
	return caller_has_caps(1ULL << CAP_BPF | 1ULL << CAP_SYS_ADMIN);
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

/* Describe in @m, after @missing other elements, the programs of @n that
 * read kernel memory, if program types @progs have no tracing type: "a
 * tracing program type (program 'a' calls bpf_get_current_task(), program
 * 'b' calls ...)". Returns whether it did.
 */
static bool token_kmem_missing(const struct token_needs *n, __u64 progs,
			       struct msg *m, int missing)
{
	unsigned int h;
	const char *sep;
	size_t i;

	if (!n->kmem_cnt || (progs & TOKEN_TRACING_PROGS))
		return false;

	msg_add(m, "%sa tracing program type (", missing ? ", " : "");
	for (i = 0; i < n->kmem_cnt; i++) {
		msg_add(m, "%sprogram '%s' calls", i ? ", " : "",
			n->kmem[i].prog);
		for (h = 0, sep = " "; token_kmem_helper_name(h); h++) {
			if (!(n->kmem[i].helpers & (1U << h)))
				continue;
			msg_add(m, "%s%s()", sep, token_kmem_helper_name(h));
			sep = ", ";
		}
	}
	msg_add(m, ")");
	return true;
}

/* Compare what @n needs with what the token at @path (open as @token_fd)
 * allows, see token_check_object().
 */
static int token_check_needs(const char *path, int token_fd,
			     const struct token_needs *n)
{
	struct token_desc desc = {};
	struct msg m = {};
	bool required, refused;
	int err, missing;

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

	missing = token_needs_missing(n, desc.sets, &m, &required);
	refused = required && !caller_has_bpf_caps();
	/* the kernel gives those helpers to CAP_PERFMON without the token */
	if (token_kmem_missing(n, desc.sets[TOKEN_SET_PROGS], &m, missing)) {
		missing++;
		refused = refused ||
			  !caller_has_caps(1ULL << CAP_PERFMON |
					   1ULL << CAP_SYS_ADMIN);
	}
	if (!missing)
		return 0;

	if (refused) {
		p_err("token %s does not allow %s", path, m.buf);
		return -1;
	}
	p_info("Warning: token %s does not allow %s", path, m.buf);
	return 0;
}

int token_check_object(const char *path, int token_fd, struct bpf_object *obj,
		       const char *file)
{
	struct token_needs n = {};
	int err;

	err = token_needs_add_object(&n, obj, bpf_object__name(obj));
	if (!err)
		err = add_kernel_memory(&n, obj, file);
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
