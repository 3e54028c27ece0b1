/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
#ifndef __BPF_TOOL_TOKEN_LIVE_H
#define __BPF_TOOL_TOKEN_LIVE_H

#include <stdbool.h>
#include <stddef.h>

#include "token.h"

/* A token that processes hold as fds, as its fdinfo describes it */
struct token_live {
	struct token_desc desc;		/* desc.path is NULL */
	int *pids;			/* the processes holding it, ascending */
	size_t pid_cnt;
};

struct token_live_list {
	struct token_live *v;
	size_t cnt;
};

/* The tokens held by the processes of /proc whose fdinfo names the BPF FS
 * instance MAJOR:MINOR (this project's kernel), by id. Returns 0, or -1
 * after an error it printed. Processes that bpftool can't read (gone,
 * another pid namespace's) are skipped.
 */
int token_live_of_bpffs(unsigned int major, unsigned int minor,
			struct token_live_list *out);

void token_live_free(struct token_live_list *l);

#endif
