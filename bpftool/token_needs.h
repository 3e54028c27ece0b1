/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/* What loading BPF objects needs from a BPF token. */

#ifndef __BPF_TOOL_TOKEN_NEEDS_H
#define __BPF_TOOL_TOKEN_NEEDS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/bpf.h>
#include <linux/compiler.h>

#include <bpf/libbpf.h>

#include "token.h"
#include "token_names.h"

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
	__u32 helpers;		/* bit i: it calls token_kmem_helper_name(i),
				 * token_kmem.h
				 */
};

/* An object file: its path, and its bytes as they were read and checked
 * once (token_object_read()); every later parse of the object (the trial
 * verification) uses these bytes, never the file again, which may have
 * changed since.
 */
struct token_file {
	char *path;
	char *buf;
	size_t size;
	/* the name libbpf gives the object (token_object's) */
	char name[256];
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
	struct token_file *files;
	size_t file_cnt;
};

void token_needs_free(struct token_needs *n);

/* Add to @n bit @bit of @set, needed by what @fmt names ("map 'name'");
 * @optional if libbpf goes on without it. Returns 0, or -1 after an error.
 */
__printf(5, 6)
int token_needs_add(struct token_needs *n, enum token_set set, unsigned int bit,
		    bool optional, const char *fmt, ...);

/* Add what loading @obj, as it is set up now (program types, autoload, maps
 * reused or not), needs: libbpf creates every map it does not reuse,
 * including its internal ones (.rodata, .data, .bss, .kconfig) and the inner
 * map of a map-in-map; loads every program whose autoload is on, with its
 * program type and, where the kernel consults it at load, its expected attach
 * type; and loads the object's BTF. An
 * extension (freplace) program also needs to read its target's BTF by id.
 * A fentry/fexit program that an application retargets at a BPF program
 * needs that too, but only the application knows it does.
 * libbpf's feature probes need nothing more: under a token it takes the
 * features that every kernel with tokens has for granted. @file names the
 * object in errors. What its programs read of kernel memory is
 * token_kmem_add_object()'s.
 */
int token_needs_add_object(struct token_needs *n, struct bpf_object *obj,
			   const char *file);

/* Add to @n that program @prog of object file @file calls @helpers (bits of
 * struct token_kmem's helpers). Returns 0, or -1 after an error.
 */
int token_needs_add_kmem(struct token_needs *n, const char *file,
			 const char *prog, __u32 helpers);

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

#endif
