/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* Whether BPF objects need a token's relaxed verifier
 * (BPF_F_TOKEN_RELAXED_VERIFIER), by a trial verification of their programs
 * with reduced privilege.
 */

#ifndef __BPF_TOOL_TOKEN_TRIAL_H
#define __BPF_TOOL_TOKEN_TRIAL_H

#include <stddef.h>
#include <linux/types.h>

#include "token_needs.h"

/* A program that the verifier refuses without the relaxations of the flag */
struct token_trial_prog {
	char *object;	/* the object file */
	char *name;	/* the program's name */
	char *reason;	/* the verifier's message, as it says it */
};

struct token_trial {
	/* the programs that need the relaxed verifier, in object and
	 * program order: if any, the token needs it
	 */
	struct token_trial_prog *progs;
	size_t cnt;
	/* why the trial could not tell for some programs, or all of them
	 * (one line, without the final period), or NULL when it could
	 */
	char *unknown;
};

/* Find out in @t whether loading the objects of @n through a token that
 * allows program types @progs needs the relaxed verifier: unless @progs has
 * a tracing type (the token then gives these relaxations to all its
 * programs) or @n has no object, load each object in a child process that
 * has CAP_BPF and CAP_NET_ADMIN but neither CAP_PERFMON nor CAP_SYS_ADMIN,
 * and collect the programs that the verifier refuses for what the flag
 * relaxes (a message of allow_ptr_leaks or bypass_spec_v1, or any message on
 * a path simulated for speculative execution, which bypass_spec_v1 skips).
 * The child loads nothing that outlives it: no map is pinned, no
 * program attached. A caller without CAP_BPF and CAP_NET_ADMIN gets
 * t->unknown and no trial. Returns 0, or -1 after an error (out of memory).
 */
int token_trial_run(struct token_trial *t, const struct token_needs *n,
		    __u64 progs);

void token_trial_free(struct token_trial *t);

#endif
