/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* BPF tokens in bpftool: what token.c, token_needs.c, prog.c and map.c share
 * (token_info.c, token_cgroup.c).
 */

#ifndef __BPF_TOOL_TOKEN_H
#define __BPF_TOOL_TOKEN_H

#include <stdbool.h>
#include <linux/types.h>

#include "token_names.h"

#define TOKEN_HELP_HINT		"(see 'bpftool token help')"

/* The operations a token counts, in the order of struct bpf_token_info, as
 * named in the output.
 */
enum token_use {
	TOKEN_USE_MAP_CREATE,
	TOKEN_USE_BTF_LOAD,
	TOKEN_USE_PROG_LOAD,
	TOKEN_USE_TOKEN_CREATE,
	__TOKEN_USE_MAX,
};

/* A token as the kernel describes it */
struct token_desc {
	char *path;
	__u64 sets[__TOKEN_SET_MAX];
	/* The accounting and state below are known only if the kernel's
	 * struct bpf_token_info has them (an older kernel fills only the
	 * four sets).
	 */
	bool has_state;
	__u64 uses[__TOKEN_USE_MAX];
	__u64 denials;
	__u64 userns_ino;
	__u32 flags;
	__u32 depth;
	/* made with the relaxed verifier (false where the kernel does not
	 * say)
	 */
	bool relaxed_verifier;
	/* and the cgroup scope, on a kernel that has it */
	bool has_cgroup;
	__u64 cgroup_id;
	/* and the token's id (never reused), on a kernel that has it */
	bool has_id;
	__u64 id;
};

/* Open the token pinned at @path: read-write to use it (which needs read and
 * write permission on the pin), read-only to inspect it. Prints an error and
 * returns -1 if it can't be opened or is another kind of object.
 */
int token_open_pinned(const char *path, bool use);

/* Fill @desc (but its path) from the token @fd. Returns 0 or -errno. */
int token_get_info(int fd, struct token_desc *desc);

/* Fill @desc from the token pinned at @path, opened for inspection; its path
 * is @path. Prints an error and returns -1 if that fails.
 */
int token_read_pinned(const char *path, struct token_desc *desc);

/* @fd, or a duplicate of it above 0 if it is 0 (the kernel takes fd 0 for
 * "none"); -1 if that fails.
 */
int fd_above_zero(int fd);

/* Is @fd on a BPF FS? */
bool fd_on_bpffs(int fd);

/* The cgroup scope (token_cgroup.c). Open @path, a cgroup v2 directory, for
 * "token create ... cgroup CGROUP": prints an error naming it and returns -1
 * if it is not one.
 */
int token_cgroup_open(const char *path);

/* The path of the cgroup whose id is @id under the cgroup v2 mount ("/" for
 * its root, "/a/b" below it), or NULL when it is not found there.
 */
const char *token_cgroup_path(__u64 id);

#endif
