// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* BPF object files that bpftool parses for what they need from a token (token
 * needs, token create ... object): read once, bounded and checked before
 * libbpf parses them. They may come from an untrusted container image
 * (oci/oci-hook), and libbpf trusts much of what an object says: the type
 * ids and string offsets of its BTF, that type chains end, that functions
 * do not overlap, that symbols lie in their sections.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <linux/btf.h>
#include <bpf/btf.h>

#include "main.h"
#include "token_object.h"

#ifndef EM_BPF
#define EM_BPF			247
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_DATA		ELFDATA2LSB
#else
#define NATIVE_DATA		ELFDATA2MSB
#endif

void token_object_free(struct token_object *o)
{
	if (o->elf)
		elf_end(o->elf);
	free(o->buf);
	memset(o, 0, sizeof(*o));
}

/* The checks of one object */
struct check {
	const char *file;
	Elf *elf;
	size_t shnum;
	GElf_Shdr *shdrs;	/* by section index */
	const char **names;	/* of the sections, NULL if invalid */
	size_t symtab;		/* section index, 0 if none */
	Elf_Data *syms;
	size_t sym_cnt;
};

static int __printf(2, 3) malformed(const struct check *c, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	p_err("object %s is malformed: %s", c->file, what);
	return -1;
}

static int too_many(const struct check *c, const char *what,
		    unsigned long long cnt, unsigned long long limit)
{
	p_err("object %s has too many %s (%llu): bpftool parses objects of up to %llu",
	      c->file, what, cnt, limit);
	return -1;
}

/* Names go into messages and into bpftool's output, one line each: no
 * control character (a compiler's names have none).
 */
static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

static const char *sec_name(const struct check *c, size_t i)
{
	return i < c->shnum && c->names[i] ? c->names[i] : "?";
}

static bool sec_is_code(const GElf_Shdr *sh)
{
	return sh->sh_type == SHT_PROGBITS && (sh->sh_flags & SHF_EXECINSTR);
}

/* The section headers: a section without data (.bss) within the size
 * limit; the sections that libbpf reads as arrays in place (symbols,
 * relocations, instructions) aligned for them; the relocations that libbpf
 * reads (of code, .maps and .struct_ops) within their limit.
 */
static int check_sections(struct check *c)
{
	unsigned long long relocs = 0;
	size_t shstrndx, i;
	Elf_Scn *scn;

	if (elf_getshdrnum(c->elf, &c->shnum) ||
	    elf_getshdrstrndx(c->elf, &shstrndx))
		return 1;	/* libbpf refuses it */
	if (c->shnum > TOKEN_OBJ_MAX_SECTIONS)
		return too_many(c, "sections", c->shnum, TOKEN_OBJ_MAX_SECTIONS);

	c->shdrs = calloc(c->shnum ?: 1, sizeof(*c->shdrs));
	c->names = calloc(c->shnum ?: 1, sizeof(*c->names));
	if (!c->shdrs || !c->names) {
		p_err("mem alloc failed");
		return -1;
	}
	for (i = 1; i < c->shnum; i++) {
		scn = elf_getscn(c->elf, i);
		if (!scn || !gelf_getshdr(scn, &c->shdrs[i]))
			return 1;	/* libbpf refuses it */
		c->names[i] = elf_strptr(c->elf, shstrndx, c->shdrs[i].sh_name);
		if (c->names[i] && !printable(c->names[i])) {
			c->names[i] = NULL;
			return malformed(c, "the name of section %zu has a control character",
					 i);
		}
	}
	for (i = 1; i < c->shnum; i++) {
		const GElf_Shdr *sh = &c->shdrs[i];
		const GElf_Shdr *to;

		if (sh->sh_type == SHT_NOBITS &&
		    sh->sh_size > (GElf_Xword)TOKEN_OBJ_MAX_SIZE_MIB << 20) {
			p_err("object %s has a section too large (%s, %llu bytes): bpftool parses objects of up to %d MiB",
			      c->file, sec_name(c, i),
			      (unsigned long long)sh->sh_size,
			      TOKEN_OBJ_MAX_SIZE_MIB);
			return -1;
		}
		if ((sh->sh_type == SHT_SYMTAB || sh->sh_type == SHT_REL ||
		     sec_is_code(sh)) && sh->sh_size && sh->sh_offset % 8)
			return malformed(c, "section %zu (%s) is not aligned to 8 bytes",
					 i, sec_name(c, i));
		if (sh->sh_type == SHT_SYMTAB && !c->symtab)
			c->symtab = i;
		/* libbpf refuses relocations of another size */
		if (sh->sh_type != SHT_REL || sh->sh_entsize != sizeof(Elf64_Rel))
			continue;
		to = sh->sh_info < c->shnum ? &c->shdrs[sh->sh_info] : NULL;
		if ((to && (to->sh_flags & SHF_EXECINSTR)) ||
		    (c->names[i] && (!strcmp(c->names[i], ".rel.maps") ||
				     !strcmp(c->names[i], ".rel.struct_ops"))))
			relocs += sh->sh_size / sh->sh_entsize;
		if (relocs > TOKEN_OBJ_MAX_RELOCS)
			return too_many(c, "relocations", relocs,
					TOKEN_OBJ_MAX_RELOCS);
	}
	return 0;
}

struct func_range {
	size_t shndx;
	GElf_Addr start, end;
	const char *name;
};

static int cmp_range(const void *a, const void *b)
{
	const struct func_range *x = a, *y = b;

	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return 0;
}

/* Counts kept over the symbol table, and the functions of code sections */
struct sym_walk {
	size_t externs, globals, func_cnt;
	struct func_range *funcs;
};

/* Symbol @i: its name printable, within the limits of externs and global
 * variables, a function or object inside a section that exists; functions
 * of code sections are added to @w->funcs.
 */
static int check_symbol(struct check *c, size_t i, size_t link,
			struct sym_walk *w)
{
	const GElf_Shdr *sh;
	const char *name;
	int type, bind;
	GElf_Sym sym;

	if (!gelf_getsym(c->syms, i, &sym))
		return malformed(c, "can't read symbol %zu: %s", i, elf_errmsg(-1));
	name = elf_strptr(c->elf, link, sym.st_name);
	if (name && !printable(name))
		return malformed(c, "the name of symbol %zu has a control character",
				 i);
	type = GELF_ST_TYPE(sym.st_info);
	bind = GELF_ST_BIND(sym.st_info);
	/* libbpf's externs, and global variables */
	if (sym.st_shndx == SHN_UNDEF && type == STT_NOTYPE &&
	    (bind == STB_GLOBAL || bind == STB_WEAK) &&
	    ++w->externs > TOKEN_OBJ_MAX_EXTERNS)
		return too_many(c, "extern symbols", w->externs,
				TOKEN_OBJ_MAX_EXTERNS);
	if (type == STT_OBJECT && (bind == STB_GLOBAL || bind == STB_WEAK) &&
	    ++w->globals > TOKEN_OBJ_MAX_GLOBALS)
		return too_many(c, "global variables", w->globals,
				TOKEN_OBJ_MAX_GLOBALS);
	/* libbpf takes the offset of a variable or function from its
	 * symbol, whatever its section: one of the object's
	 */
	if ((type == STT_FUNC || type == STT_OBJECT) &&
	    (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE))
		return malformed(c, "symbol %zu ('%s') is in no section of the object",
				 i, name ?: "?");
	if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE)
		return 0;
	if (sym.st_shndx >= c->shnum)
		return malformed(c, "symbol %zu is in section %u, beyond the last one (%zu)",
				 i, sym.st_shndx, c->shnum - 1);
	if (type != STT_FUNC && type != STT_OBJECT)
		return 0;
	sh = &c->shdrs[sym.st_shndx];
	if (sym.st_value > sh->sh_size ||
	    sym.st_size > sh->sh_size - sym.st_value)
		return malformed(c, "symbol %zu ('%s') is beyond the end of section %u (%s)",
				 i, name ?: "?", sym.st_shndx,
				 sec_name(c, sym.st_shndx));
	if (type != STT_FUNC || !sec_is_code(sh) || !sym.st_size)
		return 0;
	w->funcs[w->func_cnt].shndx = sym.st_shndx;
	w->funcs[w->func_cnt].start = sym.st_value;
	w->funcs[w->func_cnt].end = sym.st_value + sym.st_size;
	w->funcs[w->func_cnt].name = name;
	w->func_cnt++;
	return 0;
}

/* Functions of a section apart from each other (libbpf copies the code
 * of each): @funcs sorted, no two of a section overlap.
 */
static int check_overlaps(struct check *c, struct func_range *funcs,
			  size_t cnt)
{
	size_t i;

	qsort(funcs, cnt, sizeof(*funcs), cmp_range);
	for (i = 1; i < cnt; i++) {
		if (funcs[i].shndx != funcs[i - 1].shndx ||
		    funcs[i].start >= funcs[i - 1].end)
			continue;
		return malformed(c, "functions '%s' and '%s' overlap in section %zu (%s)",
				 funcs[i - 1].name ?: "?", funcs[i].name ?: "?",
				 funcs[i].shndx, sec_name(c, funcs[i].shndx));
	}
	return 0;
}

/* The symbols: in a section that exists, objects and functions within
 * their section, functions of a section apart from each other.
 */
static int check_symbols(struct check *c)
{
	struct sym_walk w = {};
	size_t i, link;
	int err = 0;

	if (!c->symtab)
		return 0;	/* libbpf refuses it */
	c->syms = elf_getdata(elf_getscn(c->elf, c->symtab), NULL);
	if (!c->syms)
		return 0;	/* libbpf refuses it */
	c->sym_cnt = c->syms->d_size / sizeof(Elf64_Sym);
	if (c->sym_cnt > TOKEN_OBJ_MAX_SYMBOLS)
		return too_many(c, "symbols", c->sym_cnt, TOKEN_OBJ_MAX_SYMBOLS);
	link = c->shdrs[c->symtab].sh_link;

	w.funcs = calloc(c->sym_cnt ?: 1, sizeof(*w.funcs));
	if (!w.funcs) {
		p_err("mem alloc failed");
		return -1;
	}
	for (i = 0; i < c->sym_cnt && !err; i++)
		err = check_symbol(c, i, link, &w);
	if (!err)
		err = check_overlaps(c, w.funcs, w.func_cnt);
	free(w.funcs);
	return err;
}

/* The data of section @i, whose name is @name, if libbpf reads it as that
 * section's: NULL if it does not; *@err = -1 if it has no data.
 */
static Elf_Data *named_data(const struct check *c, size_t i, const char *name,
			    int *err)
{
	Elf_Data *data;

	*err = 0;
	if (!c->names[i] || strcmp(c->names[i], name) ||
	    c->shdrs[i].sh_type != SHT_PROGBITS)
		return NULL;	/* libbpf refuses another type for BTF */
	data = elf_getdata(elf_getscn(c->elf, i), NULL);
	if (!data || !data->d_buf || !data->d_size) {
		*err = malformed(c, "section %zu (%s) is empty", i, name);
		return NULL;
	}
	return data;
}

/* The types that BTF type @t refers to, @i from 0 to btf_refs() - 1 */
static unsigned int btf_refs(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
	case BTF_KIND_TYPE_TAG:
		return 1;
	case BTF_KIND_ARRAY:
		return 2;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_DATASEC:
		return btf_vlen(t);
	case BTF_KIND_FUNC_PROTO:
		return btf_vlen(t) + 1;
	default:
		return 0;
	}
}

static __u32 btf_ref(const struct btf_type *t, unsigned int i)
{
	switch (btf_kind(t)) {
	case BTF_KIND_ARRAY:
		return i ? btf_array(t)->index_type : btf_array(t)->type;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return btf_members(t)[i].type;
	case BTF_KIND_DATASEC:
		return btf_var_secinfos(t)[i].type;
	case BTF_KIND_FUNC_PROTO:
		return i ? btf_params(t)[i - 1].type : t->type;
	default:
		return t->type;
	}
}

/* Whether the string offsets of @t, those of its members, enumerators and
 * parameters included, are in the strings of @btf, and the names printable.
 */
static bool btf_names_ok(const struct btf *btf, const struct btf_type *t)
{
	unsigned int i, n = btf_vlen(t);
	const char *name;

	name = btf__str_by_offset(btf, t->name_off);
	if (!name || !printable(name))
		return false;
	for (i = 0; i < n; i++) {
		__u32 off;

		switch (btf_kind(t)) {
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
			off = btf_members(t)[i].name_off;
			break;
		case BTF_KIND_ENUM:
			off = btf_enum(t)[i].name_off;
			break;
		case BTF_KIND_ENUM64:
			off = btf_enum64(t)[i].name_off;
			break;
		case BTF_KIND_FUNC_PROTO:
			off = btf_params(t)[i].name_off;
			break;
		default:
			return true;
		}
		name = btf__str_by_offset(btf, off);
		if (!name || !printable(name))
			return false;
	}
	return true;
}

/* No BTF type contains itself: the types that a type refers to, except the
 * target of a pointer (struct list { struct list *next; }), form no loop.
 * libbpf follows such chains (modifiers, typedefs, arrays, members) without
 * a bound.
 */
static int check_btf_loops(const struct check *c, const struct btf *btf)
{
	__u32 n = btf__type_cnt(btf), id, *stack = NULL, *next = NULL;
	unsigned char *state;	/* 0 new, 1 on the stack, 2 done */
	size_t depth;
	int err = -1;

	state = calloc(n, 1);
	stack = calloc(n, sizeof(*stack));
	next = calloc(n, sizeof(*next));
	if (!state || !stack || !next) {
		p_err("mem alloc failed");
		goto out;
	}
	for (id = 1; id < n; id++) {
		if (state[id])
			continue;
		depth = 0;
		stack[depth] = id;
		next[depth++] = 0;
		state[id] = 1;
		while (depth) {
			__u32 cur = stack[depth - 1], ref;
			const struct btf_type *t = btf__type_by_id(btf, cur);

			if (btf_is_ptr(t) || next[depth - 1] >= btf_refs(t)) {
				state[cur] = 2;
				depth--;
				continue;
			}
			ref = btf_ref(t, next[depth - 1]++);
			if (!ref || state[ref] == 2)
				continue;
			if (state[ref] == 1) {
				malformed(c, "BTF type [%u] contains itself (through type [%u])",
					  ref, cur);
				goto out;
			}
			state[ref] = 1;
			stack[depth] = ref;
			next[depth++] = 0;
		}
	}
	err = 0;
out:
	free(state);
	free(stack);
	free(next);
	return err;
}

/* libbpf's struct_ops maps: a copy of each variable of DATASEC .struct_ops,
 * of the size of its struct, from the offset the DATASEC gives (or, if the
 * DATASEC's size is 0, the offset of the symbol of that name, within its
 * section), in the section .struct_ops; libbpf checks that bound in 32
 * bits.
 */
static int check_btf_struct_ops(const struct check *c, const struct btf *btf)
{
	const struct btf_var_secinfo *vsi;
	const struct btf_type *sec, *t;
	GElf_Xword size = ~0ULL;
	__u32 n = btf__type_cnt(btf), id;
	size_t shndx;
	__s32 st;
	int i;

	for (shndx = 1; shndx < c->shnum; shndx++)
		if (c->names[shndx] && !strcmp(c->names[shndx], ".struct_ops") &&
		    c->shdrs[shndx].sh_size < size)
			size = c->shdrs[shndx].sh_size;
	if (size == ~0ULL)
		return 0;
	for (id = 1; id < n; id++) {
		sec = btf__type_by_id(btf, id);
		if (!btf_is_datasec(sec) ||
		    strcmp(btf__name_by_offset(btf, sec->name_off), ".struct_ops"))
			continue;
		vsi = btf_var_secinfos(sec);
		for (i = 0; i < btf_vlen(sec); i++, vsi++) {
			st = btf__resolve_type(btf, vsi->type);
			if (st <= 0)
				continue;
			t = btf__type_by_id(btf, st);
			if (!btf_is_struct(t) && !btf_is_union(t))
				continue;
			if (t->size > size ||
			    (sec->size && (__u64)vsi->offset + t->size > size))
				return malformed(c, "struct_ops variable %d (%u bytes at %u) is beyond section .struct_ops",
						 i, t->size, sec->size ? vsi->offset : 0);
		}
	}
	return 0;
}

/* libbpf's kconfig externs: the variables of DATASEC .kconfig, whose sizes
 * libbpf keeps in an int, and takes a size of 0 or below for an error to
 * return from bpf_object__open() (in a pointer: a size from 2 GiB up makes
 * an error that is not one).
 */
static int check_btf_kconfig(const struct check *c, const struct btf *btf)
{
	const struct btf_var_secinfo *vsi;
	const struct btf_type *t, *v;
	__u32 n = btf__type_cnt(btf), id;
	__s64 size;
	int i;

	for (id = 1; id < n; id++) {
		t = btf__type_by_id(btf, id);
		if (!btf_is_datasec(t) ||
		    strcmp(btf__name_by_offset(btf, t->name_off), ".kconfig"))
			continue;
		vsi = btf_var_secinfos(t);
		for (i = 0; i < btf_vlen(t); i++, vsi++) {
			v = btf__type_by_id(btf, vsi->type);
			if (!btf_is_var(v))
				continue;
			size = btf__resolve_size(btf, v->type);
			if (size == 0 || size > INT_MAX)
				return malformed(c, "kconfig extern '%s' has a size of %lld bytes",
						 btf__name_by_offset(btf, v->name_off),
						 (long long)size);
		}
	}
	return 0;
}

/* The BTF of the object, as libbpf parses it: every type id it refers to and
 * every string offset valid, a function of a function prototype, the
 * variables of a data section variables (or functions), no type containing
 * itself; the header aligned (libbpf reads its types in place).
 */
static int check_btf(struct check *c, const Elf_Data *data)
{
	size_t datasecs = 0, vars = 0;
	struct btf_header hdr = {};
	const struct btf_type *t;
	__u32 n, id, i, ref;
	struct btf *btf;
	int err;

	/* the section's data need not be aligned */
	memcpy(&hdr, data->d_buf,
	       data->d_size < sizeof(hdr) ? data->d_size : sizeof(hdr));
	if (hdr.magic == BTF_MAGIC && hdr.hdr_len % 4)
		return malformed(c, "its BTF header is not aligned to 4 bytes (%u bytes)",
				 hdr.hdr_len);

	btf = btf__new(data->d_buf, data->d_size);
	if (!btf)
		return 0;	/* libbpf does without, or refuses the object */

	err = -1;
	n = btf__type_cnt(btf);
	if (n - 1 > TOKEN_OBJ_MAX_BTF_TYPES) {
		too_many(c, "BTF types", n - 1, TOKEN_OBJ_MAX_BTF_TYPES);
		goto out;
	}
	for (id = 1; id < n; id++) {
		t = btf__type_by_id(btf, id);
		if (btf_is_datasec(t)) {
			/* but .kconfig and .ksyms, one per ELF section,
			 * which libbpf looks up by name
			 */
			if (++datasecs > c->shnum + 2) {
				malformed(c, "its BTF has more data sections than it has sections (%zu)",
					  c->shnum);
				goto out;
			}
			vars += btf_vlen(t);
			if (vars > TOKEN_OBJ_MAX_GLOBALS) {
				too_many(c, "global variables", vars,
					 TOKEN_OBJ_MAX_GLOBALS);
				goto out;
			}
		}
		if (!btf_names_ok(btf, t)) {
			malformed(c, "BTF type [%u] has a name beyond the BTF strings, or with a control character",
				  id);
			goto out;
		}
		for (i = 0; i < btf_refs(t); i++) {
			ref = btf_ref(t, i);
			if (ref >= n) {
				malformed(c, "BTF type [%u] refers to type [%u], beyond the last one [%u]",
					  id, ref, n - 1);
				goto out;
			}
			if (btf_is_func(t) &&
			    (!ref || !btf_is_func_proto(btf__type_by_id(btf, ref)))) {
				malformed(c, "BTF function [%u] has no function prototype",
					  id);
				goto out;
			}
			if (btf_is_datasec(t) &&
			    (!ref || (!btf_is_var(btf__type_by_id(btf, ref)) &&
				      !btf_is_func(btf__type_by_id(btf, ref))))) {
				malformed(c, "BTF data section [%u] has a member that is not a variable",
					  id);
				goto out;
			}
		}
	}
	err = check_btf_loops(c, btf);
	if (!err)
		err = check_btf_struct_ops(c, btf);
	if (!err)
		err = check_btf_kconfig(c, btf);
out:
	btf__free(btf);
	return err;
}

/* .BTF.ext: its header aligned (libbpf reads its records in place); its
 * parts (func_info, line_info, core_relo) describe no more sections than
 * the object has, which libbpf looks up by name, each in every section. A
 * .BTF.ext that libbpf refuses is left to it: it does without.
 */
static int check_btf_ext(struct check *c, const Elf_Data *data)
{
	struct ext_hdr {
		__u16 magic;
		__u8 version;
		__u8 flags;
		__u32 hdr_len;
		__u32 part[6];	/* offset and length of each part */
	} hdr = {};
	size_t size = data->d_size, parts, i, secs;
	__u64 start, end, rec_size, total;
	const __u8 *p = data->d_buf;

	/* the section's data need not be aligned */
	memcpy(&hdr, p, size < sizeof(hdr) ? size : sizeof(hdr));
	if (size < offsetof(struct ext_hdr, part) || hdr.magic != BTF_MAGIC)
		return 0;
	if (hdr.hdr_len % 4)
		return malformed(c, "its BTF.ext header is not aligned to 4 bytes (%u bytes)",
				 hdr.hdr_len);
	if (hdr.hdr_len > size ||
	    hdr.hdr_len < offsetof(struct ext_hdr, part) + 4 * sizeof(__u32))
		return 0;
	parts = hdr.hdr_len >= sizeof(hdr) ? 3 : 2;
	for (i = 0; i < parts; i++) {
		start = (__u64)hdr.hdr_len + hdr.part[2 * i];
		end = start + hdr.part[2 * i + 1];
		if (start == end || start % 4 || end > size || end - start < 4)
			continue;
		memcpy(&rec_size, p + start, 4);
		rec_size &= 0xffffffff;
		if (!rec_size)
			continue;
		for (start += 4, secs = 0; end - start >= 8; start += total) {
			__u32 num;

			memcpy(&num, p + start + 4, 4);
			total = 8 + num * rec_size;
			if (!num || total > end - start)
				break;
			if (++secs > c->shnum)
				return malformed(c, "its BTF.ext describes more sections than it has (%zu)",
						 c->shnum);
		}
	}
	return 0;
}

/* Check what libbpf does not before it trusts it. 0 when libbpf may parse
 * the object (or will refuse it by itself), -1 after an error.
 */
static int check_object(const char *file, Elf *elf)
{
	struct check c = { .file = file, .elf = elf };
	Elf_Data *data;
	GElf_Ehdr ehdr;
	size_t i;
	int err;

	/* libbpf refuses other objects with its own message */
	if (!gelf_getehdr(elf, &ehdr) || gelf_getclass(elf) != ELFCLASS64 ||
	    ehdr.e_ident[EI_DATA] != NATIVE_DATA || ehdr.e_type != ET_REL)
		return 0;

	/* libbpf reads the section headers in place */
	if (ehdr.e_shoff % 8)
		return malformed(&c, "its section headers are not aligned to 8 bytes");

	err = check_sections(&c);
	if (!err)
		err = check_symbols(&c);
	/* every section of these names: libbpf takes the last one */
	for (i = 1; !err && i < c.shnum; i++) {
		data = named_data(&c, i, ".BTF", &err);
		if (data) {
			err = check_btf(&c, data);
			continue;
		}
		if (!err)
			data = named_data(&c, i, ".BTF.ext", &err);
		if (data)
			err = check_btf_ext(&c, data);
	}
	free(c.shdrs);
	free(c.names);
	return err < 0 ? -1 : 0;
}

/* The name libbpf's bpf_object__open_file() gives an object of path @file */
static void object_name(char *name, size_t size, const char *file)
{
	const char *base = strrchr(file, '/');

	snprintf(name, size, "%s", base ? base + 1 : file);
	name[strcspn(name, ".")] = '\0';
}

int token_object_read(struct token_object *o, const char *file)
{
	GElf_Ehdr ehdr;
	struct stat st;
	ssize_t n;
	int fd;

	memset(o, 0, sizeof(*o));
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		p_err("can't open object %s: %s", file, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		p_err("object %s is not a file", file);
		goto err_close;
	}
	if (st.st_size > (off_t)TOKEN_OBJ_MAX_SIZE_MIB << 20) {
		p_err("object %s is too large (%lld bytes): bpftool parses objects of up to %d MiB",
		      file, (long long)st.st_size, TOKEN_OBJ_MAX_SIZE_MIB);
		goto err_close;
	}

	/* read once: the file may change under bpftool, libbpf parses what
	 * was checked
	 */
	o->buf = malloc(st.st_size ?: 1);
	if (!o->buf) {
		p_err("mem alloc failed");
		goto err_close;
	}
	while (o->size < (size_t)st.st_size) {
		n = read(fd, o->buf + o->size, st.st_size - o->size);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			p_err("can't open object %s: %s", file, strerror(errno));
			goto err_close;
		}
		if (!n)
			break;
		o->size += n;
	}
	close(fd);
	object_name(o->name, sizeof(o->name), file);

	if (elf_version(EV_CURRENT) == EV_NONE) {
		p_err("can't use libelf: %s", elf_errmsg(-1));
		goto err;
	}
	o->elf = elf_memory(o->buf, o->size);
	if (!o->elf || elf_kind(o->elf) != ELF_K_ELF ||
	    !gelf_getehdr(o->elf, &ehdr)) {
		p_err("object %s is not an ELF file", file);
		goto err;
	}
	if (ehdr.e_machine != EM_BPF) {
		p_err("object %s is not a BPF object file (ELF machine %u)",
		      file, ehdr.e_machine);
		goto err;
	}
	if (check_object(file, o->elf))
		goto err;
	return 0;

err_close:
	close(fd);
err:
	token_object_free(o);
	return -1;
}
