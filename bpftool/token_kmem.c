// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The programs of BPF objects that read kernel memory, for what they need
 * from a token (token_needs.c): a scan of the call graph of an object's
 * code, read from its ELF file.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "main.h"
#include "token_kmem.h"
#include "token_needs.h"

/* The helpers that the kernel gives a program only if its loader has
 * CAP_PERFMON, or loads it through a token that allows a tracing program
 * type: the last group of bpf_base_func_proto(), the socket casts of
 * bpf_sk_base_func_proto(), and bpf_sys_bpf() and bpf_kallsyms_lookup_name()
 * (a kernel address) of syscall programs. Tracing programs get them as part
 * of their type. By helper id. tests/host/kernel_tables.py compares the
 * list with the kernel's.
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
	{ BPF_FUNC_kallsyms_lookup_name,	"bpf_kallsyms_lookup_name" },
};

/* one bit each in struct token_kmem's helpers */
_Static_assert(ARRAY_SIZE(kmem_helpers) <= 32, "too many helpers for a __u32");

const char *token_kmem_helper_name(unsigned int i)
{
	return i < ARRAY_SIZE(kmem_helpers) ? kmem_helpers[i].name : NULL;
}

__u32 token_kmem_helper_bit(__s32 id)
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

/* Errors of code_read(): the ELF of @file is not what it says, or memory ran
 * out. Both return -1.
 */
static int code_bad(const char *file)
{
	p_err("can't open object %s: %s", file, elf_errmsg(-1));
	return -1;
}

static int code_nomem(void)
{
	p_err("mem alloc failed");
	return -1;
}

/* Read the executable sections of @file, open as @elf, into @c; *@syms and
 * *@strtab: its (first) symbol table and the section of its names, *@syms
 * NULL without one.
 */
static int code_read_secs(struct code *c, Elf *elf, const char *file,
			  Elf_Data **syms, size_t *strtab)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx, i;
	GElf_Shdr shdr;

	if (elf_getshdrnum(elf, &c->shnum) || elf_getshdrstrndx(elf, &shstrndx))
		return code_bad(file);
	c->sec_of = calloc(c->shnum ?: 1, sizeof(*c->sec_of));
	c->secs = calloc(c->shnum ?: 1, sizeof(*c->secs));
	if (!c->sec_of || !c->secs)
		return code_nomem();
	for (i = 0; i < c->shnum; i++)
		c->sec_of[i] = -1;

	while ((scn = elf_nextscn(elf, scn))) {
		struct code_sec *sec;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr) || elf_ndxscn(scn) >= c->shnum)
			return code_bad(file);
		if (shdr.sh_type == SHT_SYMTAB) {
			if (*syms)
				continue;	/* libbpf takes one */
			*syms = elf_getdata(scn, NULL);
			if (!*syms || !shdr.sh_entsize)
				return code_bad(file);
			*strtab = shdr.sh_link;
			continue;
		}
		if (shdr.sh_type != SHT_PROGBITS ||
		    !(shdr.sh_flags & SHF_EXECINSTR) || !shdr.sh_size)
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || data->d_size != shdr.sh_size)
			return code_bad(file);
		c->sec_of[elf_ndxscn(scn)] = c->sec_cnt;
		sec = &c->secs[c->sec_cnt++];
		sec->name = elf_strptr(elf, shstrndx, shdr.sh_name);
		sec->insns = data->d_buf;
		sec->insn_cnt = data->d_size / sizeof(struct bpf_insn);
	}
	return 0;
}

/* Read the functions of @c's sections (STT_FUNC symbols of @syms, named in
 * section @strtab) into @c, by section and start, and by name.
 */
static int code_read_funcs(struct code *c, Elf *elf, const char *file,
			   Elf_Data *syms, size_t strtab)
{
	size_t sym_cnt = syms->d_size / sizeof(Elf64_Sym), i, j, k;
	GElf_Sym sym;

	/* count, then read */
	for (k = 0; k < 2; k++) {
		for (i = 0, j = 0; i < sym_cnt; i++) {
			struct code_func *f;
			ssize_t sec;

			if (!gelf_getsym(syms, i, &sym))
				return code_bad(file);
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
				return code_nomem();
		}
		c->func_cnt = j;
	}
	qsort(c->funcs, c->func_cnt, sizeof(*c->funcs), cmp_func);
	c->by_name = calloc(c->named_cnt ?: 1, sizeof(*c->by_name));
	if (!c->by_name)
		return code_nomem();
	for (i = 0, j = 0; i < c->func_cnt; i++)
		if (c->funcs[i].name)
			c->by_name[j++] = &c->funcs[i];
	qsort(c->by_name, c->named_cnt, sizeof(*c->by_name), cmp_by_name);
	return 0;
}

/* Read the relocations of @c's sections (against symbols of @syms) into @c,
 * each section's by instruction.
 */
static int code_read_rels(struct code *c, Elf *elf, const char *file,
			  Elf_Data *syms)
{
	Elf_Scn *scn;
	GElf_Shdr shdr;
	GElf_Sym sym;
	size_t i, j, k;

	/* count, then read */
	for (k = 0; k < 2; k++) {
		scn = NULL;
		while ((scn = elf_nextscn(elf, scn))) {
			struct code_sec *sec;
			Elf_Data *data;
			GElf_Rel rel;
			size_t cnt;

			if (!gelf_getshdr(scn, &shdr))
				return code_bad(file);
			if (shdr.sh_type != SHT_REL ||
			    shdr.sh_entsize != sizeof(Elf64_Rel) ||
			    shdr.sh_info >= c->shnum ||
			    c->sec_of[shdr.sh_info] < 0)
				continue;
			sec = &c->secs[c->sec_of[shdr.sh_info]];
			data = elf_getdata(scn, NULL);
			if (!data)
				return code_bad(file);
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
					return code_bad(file);
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
					return code_nomem();
				sec->rel_cnt = 0;
			} else if (sec->rel_cnt) {
				qsort(sec->rels, sec->rel_cnt, sizeof(*sec->rels),
				      cmp_rel);
			}
		}
	}
	return 0;
}

/* Read the executable sections, the relocations that apply to them and the
 * functions in them (STT_FUNC symbols) of @file, open as @elf.
 */
static int code_read(struct code *c, Elf *elf, const char *file)
{
	Elf_Data *syms = NULL;
	size_t strtab = 0;

	if (code_read_secs(c, elf, file, &syms, &strtab))
		return -1;
	if (!syms)
		return 0;	/* libbpf opens no program without symbols */
	if (code_read_funcs(c, elf, file, syms, strtab) ||
	    code_read_rels(c, elf, file, syms))
		return -1;
	return 0;
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
					f->helpers |= token_kmem_helper_bit(insn->imm);
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

/* The functions @comp[0..@cnt) of @c are a strongly connected component
 * whose callees off @on_stack are complete: give them all the helpers they
 * reach, and take them off @on_stack.
 */
static void code_reach_component(struct code *c, const size_t *comp,
				 size_t cnt, bool *on_stack)
{
	const struct code_func *f;
	__u32 reach = 0;
	size_t i, j;

	for (i = 0; i < cnt; i++) {
		f = &c->funcs[comp[i]];
		reach |= f->helpers;
		/* a callee off the stack is complete */
		for (j = 0; j < f->callee_cnt; j++)
			if (!on_stack[f->callees[j]])
				reach |= c->funcs[f->callees[j]].reach;
	}
	for (i = 0; i < cnt; i++) {
		c->funcs[comp[i]].reach = reach;
		on_stack[comp[i]] = false;
	}
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
	size_t n = c->func_cnt, next = 1, sp = 0, fp, root, v, w, first;
	size_t *index, *low, *stack, *frame, *edge;
	bool *on_stack;
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
			code_reach_component(c, stack + first, sp - first,
					     on_stack);
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

int token_kmem_add_object(struct token_needs *n, struct bpf_object *obj,
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
		if (token_needs_add_kmem(n, file, bpf_program__name(prog),
					 c.funcs[f].reach))
			goto out;
	}
	err = 0;
out:
	code_free(&c);
	return err;
}

int token_kmem_add_file(struct token_needs *n, struct bpf_object *obj,
			const char *file)
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
		err = token_kmem_add_object(n, obj, file, elf);
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}
