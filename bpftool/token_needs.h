/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* What loading BPF objects needs from a BPF token, and what a token lacks. */

#ifndef __BPF_TOOL_TOKEN_NEEDS_H
#define __BPF_TOOL_TOKEN_NEEDS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/bpf.h>
#include <linux/capability.h>

#include <bpf/libbpf.h>

#include "token.h"
#include "token_names.h"

/* The capabilities a token stands in for, which older UAPI headers lack */
#ifndef CAP_PERFMON
#define CAP_PERFMON		38
#endif
#ifndef CAP_BPF
#define CAP_BPF			39
#endif

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

/* A program of a non-tracing type that calls helpers which read kernel
 * memory: the kernel lets it load through a token only if the token also
 * allows a tracing program type.
 */
struct token_kmem {
	char *object;		/* the object file */
	char *prog;		/* the program's name */
	__u32 helpers;		/* bit i: it calls token_kmem_helper_name(i) */
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
	/* the programs that read kernel memory, in object and program order */
	struct token_kmem *kmem;
	size_t kmem_cnt;
	/* the object files, in the order they were added */
	char **files;
	size_t file_cnt;
};


/* The name of helper @i of struct token_kmem's helpers ("bpf_trace_printk"),
 * NULL past the last one.
 */
const char *token_kmem_helper_name(unsigned int i);

void token_needs_free(struct token_needs *n);

/* Add what loading the BPF object file @file with libbpf needs to @n. Prints
 * an error naming @file and returns -1 if it is not a BPF object file libbpf
 * can open.
 */
int token_needs_add_file(struct token_needs *n, const char *file);

/* Once every object is in @n: if programs of @n read kernel memory and
 * @progs, the program types the token will allow, has no tracing type, add
 * tracepoint to @n's program types. Of the tracing types, tracepoint
 * programs reach the least by themselves: they are attached only through
 * perf events, which perf_event_paranoid governs. Returns 0, or -1 after an
 * error.
 */
int token_needs_add_tracing(struct token_needs *n, __u64 progs);

/* Once token_needs_add_tracing() is done: in @sets (indexed by enum
 * token_set), what a token of a delegated BPF FS (Linux 6.9 and later, and
 * this kernel's) must allow for the objects of @n to load with the loader of
 * those tokens, libbpf 1.4 or later: @n's sets, the expected attach type of
 * every program, and what libbpf's probes through the token need (a socket
 * filter; a tracepoint program where a non-tracing program calls
 * bpf_probe_read_kernel() and co). This project's libbpf probes nothing
 * through a token that the token does not allow.
 */
void token_needs_mainline_sets(const struct token_needs *n,
			       __u64 sets[__TOKEN_SET_MAX]);

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
/* The effective capabilities of the caller (bit (1ULL << CAP_*)), if it is in
 * the initial user namespace, where they give BPF powers; 0 elsewhere.
 */
__u64 token_caller_caps(void);

int token_check_object(const char *path, int token_fd, struct bpf_object *obj,
		       const char *file);
int token_check_map_create(const char *path, int token_fd,
			   enum bpf_map_type type, const char *map_name);

#endif
