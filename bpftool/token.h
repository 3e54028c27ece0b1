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

/* What a token is and did: its JSON fields (the id, the sets, the
 * accounting, the scope), or its plain lines, each starting with a tab
 */
void token_desc_json(const struct token_desc *desc);
void token_desc_plain(FILE *f, const struct token_desc *desc);

/* Open the user namespace @ns: a PID, or the path of a namespace file such
 * as /proc/PID/ns/user. Prints an error and returns -1 if it is not one.
 */
int token_userns_open(const char *ns);

/* The keywords of "token create" and "token delegate", whose table token.c
 * has, in the order they are matched: a word is the first keyword it is a
 * prefix of.
 */
enum token_kw {
	TOKEN_KW_TOKEN,		/* token PARENT */
	TOKEN_KW_USERNS,	/* userns NS */
	TOKEN_KW_CGROUP,	/* cgroup CGROUP */
	/* cmds LIST, maps LIST, progs LIST and attach LIST */
	TOKEN_KW_CMDS,
	TOKEN_KW_MAPS		= TOKEN_KW_CMDS + TOKEN_SET_MAPS,
	TOKEN_KW_PROGS		= TOKEN_KW_CMDS + TOKEN_SET_PROGS,
	TOKEN_KW_ATTACH		= TOKEN_KW_CMDS + TOKEN_SET_ATTACH,
	TOKEN_KW_VERIFIER	= TOKEN_KW_CMDS + __TOKEN_SET_MAX,
	TOKEN_KW_OBJECT,	/* object OBJ, which may be repeated */
	__TOKEN_KW_MAX,
};

/* A subcommand of keywords: PATH, then its keywords in any order */
struct token_cmd {
	const char *name;		/* "create" */
	const char *path_what;		/* PATH in messages: "the new token" */
	const enum token_kw *kws;	/* in the order of its help */
	unsigned int kw_cnt;
	unsigned int required;		/* bits (1 << kw), no [] in help */
};

extern const struct token_cmd token_create_cmd;
extern const struct token_cmd token_delegate_cmd;

/* What a subcommand of keywords was given */
struct token_args {
	const char *path;
	/* the argument of each keyword (of object, the last one), or NULL */
	const char *val[__TOKEN_KW_MAX];
	__u64 sets[__TOKEN_SET_MAX];
	bool relaxed;		/* verifier relaxed */
};

/* Called by token_parse_args() with each keyword and its argument once
 * they are checked, for what the subcommand does with them: 0 goes on,
 * anything else stops the parse, after an error.
 */
typedef int (*token_kw_fn)(enum token_kw kw, const char *val, void *ctx);

/* Parse the arguments of @cmd into @a: PATH, then its keywords, each given
 * at most once (but object) with an argument that is not empty, the lists
 * of the sets parsed, verifier relaxed or strict. Calls @fn (with @ctx) on
 * each keyword. Returns 0, or -1 after an error.
 */
int token_parse_args(const struct token_cmd *cmd, struct token_args *a,
		     int argc, char **argv, token_kw_fn fn, void *ctx);

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
