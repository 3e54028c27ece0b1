/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Text <-> bit mask conversion for the sets of a BPF token, and the strings
 * bpftool's token code builds (struct token_str).
 */

#ifndef __BPF_TOOL_TOKEN_NAMES_H
#define __BPF_TOOL_TOKEN_NAMES_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

/* The four sets a token carries, in the order of union bpf_attr.token_create
 * and struct bpf_token_info.
 */
enum token_set {
	TOKEN_SET_CMDS,		/* bit (1ULL << enum bpf_cmd) */
	TOKEN_SET_MAPS,		/* bit (1ULL << enum bpf_map_type) */
	TOKEN_SET_PROGS,	/* bit (1ULL << enum bpf_prog_type) */
	TOKEN_SET_ATTACH,	/* bit (1ULL << enum bpf_attach_type) */
	__TOKEN_SET_MAX,
};

#define TOKEN_MASK_ANY	(~0ULL)

/* Everything bpftool says about a set, indexed by enum token_set. */
struct token_set_desc {
	const char *keyword;	/* of "token create": "cmds" */
	const char *field;	/* in show's output: "allowed_cmds" */
	const char *help_name;	/* nonterminal of the help: "CMD" */
	const char *what;	/* in messages: "command" */
	const char *prefix;	/* enum prefix, also accepted on input: "bpf_" */
};

extern const struct token_set_desc token_sets[__TOKEN_SET_MAX];

/* What the elements of a set are called in messages: "command", "map type",
 * "program type", "attach type". NULL for an invalid set.
 */
const char *token_set_what(enum token_set set);

/* Canonical (lower case, unprefixed) name of bit @bit of @set: the enum
 * bpf_cmd name without "BPF_" for commands, libbpf's
 * libbpf_bpf_{map,prog,attach}_type_str() for types. NULL if the bit has no
 * name.
 */
const char *token_bit_name(enum token_set set, unsigned int bit);

/* The program types that read kernel memory by design (kprobe,
 * tracepoint, perf_event, raw_tracepoint, raw_tracepoint_writable,
 * tracing, lsm): a token that allows one of them stands in for CAP_PERFMON
 * for every program it loads. The kernel's BPF_TOKEN_TRACING_PROGS, which
 * it does not export; tests/host/kernel_tables.py compares the two.
 */
#define TOKEN_TRACING_PROGS					\
	(1ULL << BPF_PROG_TYPE_KPROBE |				\
	 1ULL << BPF_PROG_TYPE_TRACEPOINT |			\
	 1ULL << BPF_PROG_TYPE_PERF_EVENT |			\
	 1ULL << BPF_PROG_TYPE_RAW_TRACEPOINT |			\
	 1ULL << BPF_PROG_TYPE_RAW_TRACEPOINT_WRITABLE |		\
	 1ULL << BPF_PROG_TYPE_TRACING |			\
	 1ULL << BPF_PROG_TYPE_LSM)

/* The program types whose programs act on the whole system rather than on
 * what their holder owns: kprobe, tracepoint, perf_event, raw_tracepoint,
 * raw_tracepoint_writable, tracing, lsm, struct_ops and ext. They can, e.g.,
 * bpf_send_signal() SIGKILL to root's own commands or refuse them from an LSM
 * hook, so no rule of a token holds against them: a token allowing one is
 * root-equivalent. Returns the bits of @progs (a mask of enum bpf_prog_type
 * bits) that are such types.
 */
__u64 token_root_equiv_progs(__u64 progs);

/* Parse @str, a list of elements separated by ',' or ':'. An element is a
 * name (case-insensitive, with or without the enum prefix, e.g. "prog_load",
 * "BPF_PROG_LOAD"), "any" (all 64 bits), or a mask given as a hexadecimal
 * ("0x...") or decimal number. The bits of all elements are OR-ed into
 * *@mask.
 *
 * Returns 0 on success. On error, returns a negative errno, leaves *@mask
 * untouched and, if @err is not NULL, writes a one-line message naming the
 * bad word to @err:
 *   -EINVAL  empty list, or an empty element (",," or a trailing ',')
 *   -ENOENT  a word that is neither a name, "any" nor a number
 *   -ERANGE  a number that does not fit in 64 bits
 */
int token_parse_list(enum token_set set, const char *str, __u64 *mask,
		     char *err, size_t err_sz);

/* Textual form of @mask: calls @cb once per element, in this order: "any"
 * alone if all 64 bits are set; otherwise the names of the known bits in bit
 * order, then one "0x..." element with all the bits that have no name. An
 * empty mask produces no element.
 */
typedef void (*token_name_cb)(const char *name, void *ctx);
void token_mask_for_each(enum token_set set, __u64 mask, token_name_cb cb,
			 void *ctx);

/* A string built piece by piece, bpftool's token code's one way to make
 * messages and lines: zeroed, then added to with token_str_addf(),
 * token_str_add() and the like, then taken or freed. @buf is the text so far, always
 * terminated, NULL until something is added. After an allocation fails,
 * @oom is set and nothing more is added.
 */
struct token_str {
	char *buf;
	size_t len;
	size_t cap;
	bool oom;
};

/* (not __printf(): the host unit tests build without tools/include) */
void token_str_vaddf(struct token_str *s, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
void token_str_addf(struct token_str *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* @len bytes of @text; @text; @v in decimal. Without a format to parse:
 * token list builds the text of thousands of tokens with these.
 */
void token_str_addn(struct token_str *s, const char *text, size_t len);
void token_str_add(struct token_str *s, const char *text);
void token_str_add_u64(struct token_str *s, __u64 v);

/* The elements of @mask (see token_mask_for_each()), @sep between them */
void token_str_add_mask(struct token_str *s, enum token_set set, __u64 mask,
			const char *sep);

/* The text of @s, which the caller frees, or NULL if an allocation failed
 * (or nothing was added); @s is empty again.
 */
char *token_str_take(struct token_str *s);

void token_str_free(struct token_str *s);

/* token_str_add_mask() into @buf, with snprintf() semantics: returns the
 * length of the full string (negative when out of memory), writes at most
 * @size bytes. For the unit tests and the fuzzer of this file.
 */
int token_mask_snprintf(char *buf, size_t size, enum token_set set,
			__u64 mask, const char *sep);

#endif
