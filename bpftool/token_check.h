/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* What a BPF token lacks for loading an object or creating a map, and the
 * caller's capabilities, which make up for it.
 */

#ifndef __BPF_TOOL_TOKEN_CHECK_H
#define __BPF_TOOL_TOKEN_CHECK_H

#include <linux/bpf.h>
#include <linux/capability.h>
#include <linux/types.h>

#include <bpf/libbpf.h>

/* The capabilities a token stands in for, which older UAPI headers lack */
#ifndef CAP_PERFMON
#define CAP_PERFMON		38
#endif
#ifndef CAP_BPF
#define CAP_BPF			39
#endif

/* The effective capabilities of the caller (bit (1ULL << CAP_*)), if it is in
 * the initial user namespace, where they give BPF powers; 0 elsewhere.
 */
__u64 token_caller_caps(void);

/* Compare what @obj (opened from @file, not loaded, as it is set up now) or a
 * map of @type needs with what the token at @path, open as @token_fd, allows:
 * for programs that read kernel memory, a tracing program type. If it
 * lacks something the load or the creation can't do without, a caller
 * without CAP_BPF or CAP_SYS_ADMIN (in the initial user namespace) gets one
 * error naming everything missing and -1: the kernel would refuse it. A
 * privileged caller gets the same text as a warning and 0, as does anyone
 * for what can be done without (the object's BTF). The same for a revoked
 * token.
 */
int token_check_object(const char *path, int token_fd, struct bpf_object *obj,
		       const char *file);
int token_check_map_create(const char *path, int token_fd,
			   enum bpf_map_type type, const char *map_name);

#endif
