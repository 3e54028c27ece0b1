/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* The four sets of a BPF token in the syntax of other delegation tools. */

#ifndef __BPF_TOOL_TOKEN_FORMATS_H
#define __BPF_TOOL_TOKEN_FORMATS_H

#include <linux/types.h>

#include "token_names.h"

enum token_format {
	TOKEN_FORMAT_MOUNT,	/* BPF FS mount options, one line */
	TOKEN_FORMAT_INCUS,	/* Incus instance options */
	TOKEN_FORMAT_LXD,	/* LXD instance options */
	TOKEN_FORMAT_SYSTEMD,	/* systemd unit directives */
	__TOKEN_FORMAT_MAX,
};

/* "mount", "incus", "lxd", "systemd", indexed by enum token_format */
extern const char * const token_format_names[__TOKEN_FORMAT_MAX];

/* The format called @name, or -1. */
int token_format_by_name(const char *name);

/* Write @sets (indexed by enum token_set) in format @fmt: calls @cb once per
 * line, without the newline. An empty set gets no line (the tools take a
 * missing option as "nothing"); a full one is "any". Returns 0, -ENOMEM, or
 * -ENOENT when a set has a bit without a name and @fmt can only name bits
 * (systemd); *@bad_set is then that set.
 */
typedef void (*token_line_cb)(const char *line, void *ctx);
int token_format_lines(enum token_format fmt, const __u64 *sets,
		       token_line_cb cb, void *ctx, enum token_set *bad_set);

#endif
