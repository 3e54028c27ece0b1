/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* BPF object files that bpftool parses for what they need from a token:
 * read once, bounded and checked before libbpf sees them, since they may
 * come from an untrusted container image.
 */

#ifndef __BPF_TOOL_TOKEN_OBJECT_H
#define __BPF_TOOL_TOKEN_OBJECT_H

#include <stddef.h>
#include <libelf.h>

/* What bpftool parses. An object beyond one of these gets one error that
 * names the limit. The largest BPF objects of real projects are well below
 * them (a few MiB, some thousands of symbols and BTF types, some hundreds of
 * global variables, tens of externs). libbpf matches some of these against
 * others one by one (an extern's name against every BTF type's, a global
 * variable's against every symbol's, a relocation against every map): the
 * limits keep the time of its parse of one object to about a second.
 */
#define TOKEN_OBJ_MAX_SIZE_MIB	64	/* the file, or a section, MiB */
#define TOKEN_OBJ_MAX_SECTIONS	4096	/* ELF sections */
#define TOKEN_OBJ_MAX_SYMBOLS	65536	/* ELF symbols */
#define TOKEN_OBJ_MAX_RELOCS	131072	/* ELF relocations libbpf reads */
#define TOKEN_OBJ_MAX_BTF_TYPES	65536	/* BTF types */
#define TOKEN_OBJ_MAX_GLOBALS	4096	/* global variables: BTF variables
					 * of data sections, global data
					 * symbols (each)
					 */
#define TOKEN_OBJ_MAX_EXTERNS	512	/* extern symbols */

/* An object file, read into memory */
struct token_object {
	char *buf;
	size_t size;
	Elf *elf;	/* on buf */
	/* the name libbpf gives the object when it opens the file itself:
	 * the file's base name up to its first '.'
	 */
	char name[256];
};

/* Read @file into @o and check it: a regular file within the limits, an
 * ELF file of machine BPF, whose sections, symbols and BTF libbpf can parse
 * without going out of bounds or into a loop. Prints one error naming
 * @file and returns -1 otherwise. What libbpf refuses by itself (another
 * class, byte order or ELF type, a missing symbol table...) is left to
 * it. token_object_free() frees @o in any case.
 */
int token_object_read(struct token_object *o, const char *file);

void token_object_free(struct token_object *o);

#endif
