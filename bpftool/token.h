/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* BPF tokens in bpftool: what token.c, token_check.c, prog.c and map.c share
 * (token_info.c, token_cgroup.c).
 */

#ifndef __BPF_TOOL_TOKEN_H
#define __BPF_TOOL_TOKEN_H

#include <stdbool.h>
#include <stdio.h>
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

/* Shared by token.c and token_delegate.c ----------------------------------*/

/* The four sets as "allowed_cmds": [...], ... (JSON), or one line per set */
void print_sets_json(const __u64 *sets);
void print_sets_plain(FILE *f, const __u64 *sets);

/* Open the user namespace @ns: a PID, or the path of a namespace file such
 * as /proc/PID/ns/user. Prints an error and returns -1 if it is not one.
 */
int token_userns_open(const char *ns);

/* argv[0] is a set keyword (cmds, maps, progs, attach), argv[1] its list:
 * parse the list into its element of @sets. @seen: the sets given so far;
 * @expected: the command's keywords, for the error on another word. Returns
 * the number of arguments taken (2), or -1 after an error.
 */
int token_parse_set_arg(__u64 *sets, bool *seen, int argc, char **argv,
			const char *expected);

/* The argument of keyword @kw, a @what (@desc when it is missing), given at
 * most once (@prev is the one given before) and not empty. NULL after an
 * error.
 */
const char *token_keyword_arg(const char *kw, const char *prev,
			      const char *what, const char *desc, int *argc,
			      char ***argv);

/* One line on stderr (none with -j) when @progs has root-equivalent program
 * types.
 */
void token_warn_root_equiv(__u64 progs);

/* Delegated BPF FS mounts (token_delegate.c) --------------------------------*/

/* token delegate PATH userns NS ... */
int token_do_delegate(int argc, char **argv);

/* Is @path the root of a delegated BPF FS mount in bpftool's mount
 * namespace? 1 after printing it as "token show PATH" does, 0 if it is not
 * one, -1 after an error.
 */
int token_show_delegated(const char *path);

/* The delegated mounts of every mount namespace bpftool can see, printed
 * after the pinned tokens of "token list": plain text to @f, JSON objects
 * into the array json_wtr has open. 0, or -1 after an error.
 */
int token_list_delegated(FILE *f);

/* "token revoke PATH": 0 if @path is not the root of a delegated mount;
 * otherwise 1 and *@err is 0 after unmounting it, -1 after an error (a
 * mainline kernel, which can't revoke a token).
 */
int token_revoke_delegated(const char *path, int *err);

#endif
