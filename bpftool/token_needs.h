/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* What loading BPF objects needs from a BPF token, and what a token lacks. */

#ifndef __BPF_TOOL_TOKEN_NEEDS_H
#define __BPF_TOOL_TOKEN_NEEDS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/bpf.h>

#include <bpf/libbpf.h>

#include "token.h"

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
	/* what a token must allow, for this kernel */
	__u64 sets[__TOKEN_SET_MAX];
	/* The expected attach type of every program, also of those whose
	 * program type does not consult it at load: Linux 6.9 and later
	 * check them all, and the other delegation tools write their
	 * configuration for those kernels.
	 */
	__u64 all_attachs;
	/* a program needs a cgroup scope to be attached (cgroup types) */
	bool cgroup_scope;
	struct token_need *items;
	size_t cnt;
	size_t cap;
};

void token_needs_free(struct token_needs *n);

/* Add what loading the BPF object file @file with libbpf needs to @n. Prints
 * an error naming @file and returns -1 if it is not a BPF object file libbpf
 * can open.
 */
int token_needs_add_file(struct token_needs *n, const char *file);

/* Compare what @obj (opened, not loaded, as it is set up now) or a map of
 * @type needs with what the token at @path, open as @token_fd, allows. If it
 * lacks something the load or the creation can't do without, a caller
 * without CAP_BPF or CAP_SYS_ADMIN (in the initial user namespace) gets one
 * error naming everything missing and -1: the kernel would refuse it. A
 * privileged caller gets the same text as a warning and 0, as does anyone
 * for what can be done without (the object's BTF). The same for a revoked
 * token.
 */
int token_check_object(const char *path, int token_fd, struct bpf_object *obj);
int token_check_map_create(const char *path, int token_fd,
			   enum bpf_map_type type, const char *map_name);

#endif
