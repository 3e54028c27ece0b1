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
#include <sys/syscall.h>

#include <linux/capability.h>

#include <bpf/bpf.h>

#include "main.h"
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
 * callback (bpf_loop(), bpf_for_each_map_elem(), timers). An object may
 * have tens of thousands of functions: every lookup is a binary search, and
 * what each function reaches is found in one pass over the call graph.
 */
struct code_rel {
	size_t insn;		/* the instruction it applies to */
	size_t sym_sec;		/* the section of its symbol, if executable */
	bool to_code;		/* its symbol is in an executable section */
	__u64 sym_value;
};

struct code_sec {
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
	__u32 helpers;		/* the helpers it calls itself */
	__u32 reach;		/* and those of the functions it calls */
	size_t *callees;	/* indexes in code.funcs */
	size_t callee_cnt, callee_cap;
};

struct code {
	struct code_sec *secs;
	size_t sec_cnt;
	ssize_t *sec_of;	/* by ELF section index: index in secs or -1 */
	size_t shnum;
	struct code_func *funcs;	/* by section, then start */
	size_t func_cnt;
	struct code_func **by_name;	/* the named ones, by name */
	size_t named_cnt;
};

static void code_free(struct code *c)
{
	size_t i;

	for (i = 0; i < c->sec_cnt; i++)
		free(c->secs[i].rels);
	for (i = 0; i < c->func_cnt; i++)
		free(c->funcs[i].callees);
	free(c->secs);
	free(c->sec_of);
	free(c->funcs);
	free(c->by_name);
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

static int cmp_func(const void *a, const void *b)
{
	const struct code_func *x = a, *y = b;

	if (x->sec != y->sec)
		return x->sec < y->sec ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* The function that instruction @insn of section @sec (index) is in, or -1:
 * the last one that starts at or before it, if it ends after it.
 */
static ssize_t code_func_at(const struct code *c, size_t sec, size_t insn)
{
	size_t lo = 0, hi = c->func_cnt, mid;
	const struct code_func *f;

	/* the first function after (sec, insn) */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		f = &c->funcs[mid];
		if (f->sec < sec || (f->sec == sec && f->start <= insn))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	f = &c->funcs[lo - 1];
	return f->sec == sec && insn < f->end ? (ssize_t)(lo - 1) : -1;
}

static int cmp_by_name(const void *a, const void *b)
{
	const struct code_func *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

/* Read the executable sections, the relocations that apply to them and the
 * functions in them (STT_FUNC symbols) of @file, open as @elf.
 */
static int code_read(struct code *c, Elf *elf, const char *file)
{
	size_t shstrndx, i, j, k, sym_cnt, strtab = 0;
	Elf_Data *syms = NULL;
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	GElf_Sym sym;

	if (elf_getshdrnum(elf, &c->shnum) || elf_getshdrstrndx(elf, &shstrndx))
		goto bad;
	c->sec_of = calloc(c->shnum ?: 1, sizeof(*c->sec_of));
	c->secs = calloc(c->shnum ?: 1, sizeof(*c->secs));
	if (!c->sec_of || !c->secs)
		goto nomem;
	for (i = 0; i < c->shnum; i++)
		c->sec_of[i] = -1;

	while ((scn = elf_nextscn(elf, scn))) {
		struct code_sec *sec;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr) || elf_ndxscn(scn) >= c->shnum)
			goto bad;
		if (shdr.sh_type == SHT_SYMTAB) {
			if (syms)
				continue;	/* libbpf takes one */
			syms = elf_getdata(scn, NULL);
			if (!syms || !shdr.sh_entsize)
				goto bad;
			strtab = shdr.sh_link;
			continue;
		}
		if (shdr.sh_type != SHT_PROGBITS ||
		    !(shdr.sh_flags & SHF_EXECINSTR) || !shdr.sh_size)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || data->d_size != shdr.sh_size)
			goto bad;
		c->sec_of[elf_ndxscn(scn)] = c->sec_cnt;
		sec = &c->secs[c->sec_cnt++];
		sec->name = elf_strptr(elf, shstrndx, shdr.sh_name);
		sec->insns = data->d_buf;
		sec->insn_cnt = data->d_size / sizeof(struct bpf_insn);
	}
	if (!syms)
		return 0;	/* libbpf opens no program without symbols */
	sym_cnt = syms->d_size / sizeof(Elf64_Sym);

	/* the functions: count, then read */
	for (k = 0; k < 2; k++) {
		for (i = 0, j = 0; i < sym_cnt; i++) {
			struct code_func *f;
			ssize_t sec;

			if (!gelf_getsym(syms, i, &sym))
				goto bad;
			if (GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
			    sym.st_shndx >= c->shnum ||
			    (sec = c->sec_of[sym.st_shndx]) < 0)
				continue;
			if (!k) {
				j++;
				continue;
			}
			f = &c->funcs[j++];
			f->sec = sec;
			f->start = sym.st_value / sizeof(struct bpf_insn);
			f->end = (sym.st_value + sym.st_size) / sizeof(struct bpf_insn);
			if (f->end > c->secs[sec].insn_cnt)
				f->end = c->secs[sec].insn_cnt;
			f->name = elf_strptr(elf, strtab, sym.st_name);
			if (f->name)
				c->named_cnt++;
		}
		if (!k) {
			c->funcs = calloc(j ?: 1, sizeof(*c->funcs));
			if (!c->funcs)
				goto nomem;
		}
		c->func_cnt = j;
	}
	qsort(c->funcs, c->func_cnt, sizeof(*c->funcs), cmp_func);
	c->by_name = calloc(c->named_cnt ?: 1, sizeof(*c->by_name));
	if (!c->by_name)
		goto nomem;
	for (i = 0, j = 0; i < c->func_cnt; i++)
		if (c->funcs[i].name)
			c->by_name[j++] = &c->funcs[i];
	qsort(c->by_name, c->named_cnt, sizeof(*c->by_name), cmp_by_name);

	/* the relocations of the executable sections: count, then read */
	for (k = 0; k < 2; k++) {
		scn = NULL;
		while ((scn = elf_nextscn(elf, scn))) {
			struct code_sec *sec;
			Elf_Data *data;
			GElf_Rel rel;
			size_t cnt;

			if (!gelf_getshdr(scn, &shdr))
				goto bad;
			if (shdr.sh_type != SHT_REL ||
			    shdr.sh_entsize != sizeof(Elf64_Rel) ||
			    shdr.sh_info >= c->shnum ||
			    c->sec_of[shdr.sh_info] < 0)
				continue;
			sec = &c->secs[c->sec_of[shdr.sh_info]];
			data = elf_getdata(scn, NULL);
			if (!data)
				goto bad;
			cnt = data->d_size / sizeof(Elf64_Rel);
			if (!k) {
				sec->rel_cnt += cnt;
				continue;
			}
			for (j = 0; j < cnt; j++) {
				struct code_rel *r = &sec->rels[sec->rel_cnt++];
				ssize_t to;

				if (!gelf_getrel(data, j, &rel) ||
				    !gelf_getsym(syms, GELF_R_SYM(rel.r_info), &sym))
					goto bad;
				r->insn = rel.r_offset / sizeof(struct bpf_insn);
				to = sym.st_shndx < c->shnum ? c->sec_of[sym.st_shndx] : -1;
				r->to_code = to >= 0;
				r->sym_sec = to >= 0 ? (size_t)to : 0;
				r->sym_value = sym.st_value;
			}
		}
		for (i = 0; i < c->sec_cnt; i++) {
			struct code_sec *sec = &c->secs[i];

			if (!k) {
				sec->rels = calloc(sec->rel_cnt ?: 1, sizeof(*sec->rels));
				if (!sec->rels)
					goto nomem;
				sec->rel_cnt = 0;
			} else if (sec->rel_cnt) {
				qsort(sec->rels, sec->rel_cnt, sizeof(*sec->rels),
				      cmp_rel);
			}
		}
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
	size_t *tmp;

	if (insn < 0)
		return 0;
	callee = code_func_at(c, sec, insn);
	if (callee < 0)
		return 0;	/* libbpf would not load it either */
	if (f->callee_cnt == f->callee_cap) {
		size_t cap = f->callee_cap ? f->callee_cap * 2 : 4;

		tmp = reallocarray(f->callees, cap, sizeof(*tmp));
		if (!tmp) {
			p_err("mem alloc failed");
			return -1;
		}
		f->callees = tmp;
		f->callee_cap = cap;
	}
	f->callees[f->callee_cnt++] = callee;
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

/* The reach of every function: the helpers of kmem_helpers[] that it calls,
 * directly or through the functions it calls. Tarjan's strongly connected
 * components, without recursion (a chain of calls can be long): the
 * functions of a component (a loop of calls, which the verifier refuses,
 * or one function) reach the same helpers, and a component is complete
 * once the components it calls are.
 */
static int code_reach(struct code *c)
{
	size_t n = c->func_cnt, next = 1, sp = 0, fp, root, v, w, i, j, first;
	size_t *index, *low, *stack, *frame, *edge;
	bool *on_stack;
	__u32 reach;
	int err = -1;

	index = calloc(n ?: 1, sizeof(*index));	/* 0: not visited */
	low = calloc(n ?: 1, sizeof(*low));
	stack = calloc(n ?: 1, sizeof(*stack));	/* of the components */
	frame = calloc(n ?: 1, sizeof(*frame));	/* of the walk */
	edge = calloc(n ?: 1, sizeof(*edge));	/* next callee of a frame */
	on_stack = calloc(n ?: 1, sizeof(*on_stack));
	if (!index || !low || !stack || !frame || !edge || !on_stack) {
		p_err("mem alloc failed");
		goto out;
	}

	for (root = 0; root < n; root++) {
		if (index[root])
			continue;
		fp = 0;
		frame[fp] = root;
		edge[fp++] = 0;
		index[root] = low[root] = next++;
		stack[sp++] = root;
		on_stack[root] = true;
		while (fp) {
			struct code_func *f;

			v = frame[fp - 1];
			f = &c->funcs[v];
			if (edge[fp - 1] < f->callee_cnt) {
				w = f->callees[edge[fp - 1]++];
				if (!index[w]) {
					index[w] = low[w] = next++;
					stack[sp++] = w;
					on_stack[w] = true;
					frame[fp] = w;
					edge[fp++] = 0;
				} else if (on_stack[w] && index[w] < low[v]) {
					low[v] = index[w];
				}
				continue;
			}
			/* v is done */
			if (--fp && low[v] < low[frame[fp - 1]])
				low[frame[fp - 1]] = low[v];
			if (low[v] != index[v])
				continue;
			/* v's component: stack[first..sp) */
			first = sp;
			do {
				w = stack[--first];
			} while (w != v);
			reach = 0;
			for (i = first; i < sp; i++) {
				f = &c->funcs[stack[i]];
				reach |= f->helpers;
				/* a callee off the stack is complete */
				for (j = 0; j < f->callee_cnt; j++)
					if (!on_stack[f->callees[j]])
						reach |= c->funcs[f->callees[j]].reach;
			}
			for (i = first; i < sp; i++) {
				c->funcs[stack[i]].reach = reach;
				on_stack[stack[i]] = false;
			}
			sp = first;
		}
	}
	err = 0;
out:
	free(index);
	free(low);
	free(stack);
	free(frame);
	free(edge);
	free(on_stack);
	return err;
}

/* The function of the code that is program @prog (its name, in its section),
 * or -1.
 */
static ssize_t code_prog_func(const struct code *c,
			      const struct bpf_program *prog)
{
	const char *name = bpf_program__name(prog);
	const char *sec = bpf_program__section_name(prog);
	size_t lo = 0, hi = c->named_cnt, mid;
	const struct code_func *f;

	/* the first function of that name */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(c->by_name[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < c->named_cnt; lo++) {
		f = c->by_name[lo];
		if (strcmp(f->name, name))
			break;
		if (c->secs[f->sec].name && !strcmp(c->secs[f->sec].name, sec))
			return f - c->funcs;
	}
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

/* Add to @n the programs of @obj, opened from @file (whose ELF is @elf), that
 * the kernel loads with the helpers of kmem_helpers[] only through a token
 * that allows a tracing program type: those of another type that call one
 * of them, in their own code or in the subprograms they call.
 */
static int add_kernel_memory(struct token_needs *n, struct bpf_object *obj,
			     const char *file, Elf *elf)
{
	struct code c = {};
	struct bpf_program *prog;
	int err = -1;

	if (code_read(&c, elf, file) || code_scan(&c) || code_reach(&c))
		goto out;

	bpf_object__for_each_program(prog, obj) {
		enum bpf_prog_type type = bpf_program__type(prog);
		ssize_t f;

		if (!bpf_program__autoload(prog) ||
		    ((unsigned int)type < 64 &&
		     (TOKEN_TRACING_PROGS & (1ULL << type))))
			continue;
		f = code_prog_func(&c, prog);
		if (f < 0 || !c.funcs[f].reach)
			continue;
		if (kmem_add(n, file, bpf_program__name(prog), c.funcs[f].reach))
			goto out;
	}
	err = 0;
out:
	code_free(&c);
	return err;
}

/* The same for @file read from disk */
static int add_kernel_memory_file(struct token_needs *n,
				  struct bpf_object *obj, const char *file)
{
	Elf *elf = NULL;
	int fd, err = -1;

	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		p_err("can't open object %s: %s", file, strerror(errno));
		return -1;
	}
	if (elf_version(EV_CURRENT) == EV_NONE ||
	    !(elf = elf_begin(fd, ELF_C_READ_MMAP, NULL)))
		p_err("can't open object %s: %s", file, elf_errmsg(-1));
	else
		err = add_kernel_memory(n, obj, file, elf);
	if (elf)
		elf_end(elf);
	close(fd);
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

/* The helpers that libbpf 1.4 replaces with the older bpf_probe_read() and
 * bpf_probe_read_str() when its probe of bpf_probe_read_kernel() fails
 */
#define PROBE_READ_HELPERS						\
	(kmem_helper_bit(BPF_FUNC_probe_read_kernel) |			\
	 kmem_helper_bit(BPF_FUNC_probe_read_user) |			\
	 kmem_helper_bit(BPF_FUNC_probe_read_kernel_str) |		\
	 kmem_helper_bit(BPF_FUNC_probe_read_user_str))

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
		err = add_kernel_memory(n, obj, file, o.elf);
	if (!err)
		err = add_file_name(n, file);
	bpf_object__close(obj);
	token_object_free(&o);

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
		err = add_kernel_memory_file(&n, obj, file);
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
