/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The programs of BPF objects that read kernel memory: those of a
 * non-tracing type that call, in their own code or in the subprograms they
 * call, a helper that the kernel gives them only if their loader has
 * CAP_PERFMON or loads them through a token that allows a tracing program
 * type (struct token_kmem of token_needs.h).
 */

#ifndef __BPF_TOOL_TOKEN_KMEM_H
#define __BPF_TOOL_TOKEN_KMEM_H

#include <libelf.h>
#include <linux/types.h>

#include <bpf/libbpf.h>

struct token_needs;

/* The name of helper @i of struct token_kmem's helpers ("bpf_trace_printk"),
 * NULL past the last one.
 */
const char *token_kmem_helper_name(unsigned int i);

/* The bit of struct token_kmem's helpers for helper @id, 0 for the others */
__u32 token_kmem_helper_bit(__s32 id);

/* Add to @n the programs of @obj, opened from @file (whose ELF is @elf), that
 * the kernel loads with those helpers only through a token that allows a
 * tracing program type, each with the helpers it reaches. Returns 0, or -1
 * after an error.
 */
int token_kmem_add_object(struct token_needs *n, struct bpf_object *obj,
			  const char *file, Elf *elf);

/* The same for @file read from disk */
int token_kmem_add_file(struct token_needs *n, struct bpf_object *obj,
			const char *file);

#endif
