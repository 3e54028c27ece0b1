/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Which token ABI the running kernel has: this project's pinned tokens
 * (BPF_TOKEN_CREATE from explicit sets), mainline's delegated BPF FS (Linux
 * 6.9 and later), both, or none.
 */

#ifndef __BPF_TOOL_TOKEN_ABI_H
#define __BPF_TOOL_TOKEN_ABI_H

#include <stdbool.h>
#include <linux/types.h>
#include <sys/syscall.h>

#include "token_names.h"

/* The new mount API, by number: the C library may not wrap it */
#ifndef __NR_move_mount
#define __NR_move_mount		429
#endif
#ifndef __NR_fsopen
#define __NR_fsopen		430
#endif
#ifndef __NR_fsconfig
#define __NR_fsconfig		431
#endif
#ifndef __NR_fsmount
#define __NR_fsmount		432
#endif

enum token_abi_kind {
	TOKEN_ABI_UNKNOWN,	/* could not tell: callers keep their old ways */
	TOKEN_ABI_NONE,		/* no BPF_TOKEN_CREATE */
	TOKEN_ABI_PINNED,	/* this project's kernel: pinned tokens only */
	TOKEN_ABI_DELEGATED,	/* mainline: delegated BPF FS only */
	TOKEN_ABI_BOTH,		/* mainline's ABI with the pinned extension */
};

struct token_abi {
	enum token_abi_kind kind;
	/* BPF_TOKEN_CREATE makes a pinned token from explicit sets */
	bool pinned;
	/* BPF FS takes delegate_{cmds,maps,progs,attachs}, and
	 * BPF_TOKEN_CREATE makes a token from such a mount's root
	 */
	bool delegated;
	/* a delegated BPF FS takes a cgroup scope (delegate_cgroup) */
	bool delegate_cgroup;
	/* a delegated BPF FS takes delegate_verifier=relaxed */
	bool delegate_relaxed;
	/* how it was found: "kernel BTF", "BPF FS options probe" */
	const char *source;
	/* why the kind is unknown, NULL otherwise */
	const char *why;
};

/* The running kernel's token ABI, found once (kernel BTF first, a probe of
 * BPF FS's mount options without BTF).
 */
const struct token_abi *token_abi_get(void);

/* "pinned", "delegated", "pinned+delegated", "none", "unknown" */
const char *token_abi_kind_name(enum token_abi_kind kind);

/* Bit of @name in @set as the running kernel's BTF names it (the enum
 * bpf_cmd, bpf_map_type, bpf_prog_type or bpf_attach_type constant with
 * its prefix left out, in any case), for names bpftool's own tables lack.
 * Returns the bit or -1.
 */
int token_abi_btf_bit(enum token_set set, const char *name);

#endif
