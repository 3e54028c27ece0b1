// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* What a token lacks for a load or a map creation (prog load, prog loadall
 * and map create with token): what the objects or the map need
 * (token_needs.c) against what the token allows, and the caller's
 * capabilities.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <linux/capability.h>

#include "main.h"
#include "token_check.h"
#include "token_kmem.h"
#include "token_needs.h"

/* Capabilities give BPF powers only in the initial user namespace, whose
 * uid_map is the identity over all 32 bits.
 */
static bool in_initial_userns(void)
{
	unsigned long inner, outer, count;
	bool initial = true;
	FILE *f;

	f = fopen("/proc/self/uid_map", "re");
	if (!f)
		return true;
	if (fscanf(f, "%lu %lu %lu", &inner, &outer, &count) == 3)
		initial = !inner && !outer && count == 4294967295UL;
	fclose(f);

	return initial;
}

__u64 token_caller_caps(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};

	if (syscall(SYS_capget, &hdr, data) || !in_initial_userns())
		return 0;

	return data[0].effective | (__u64)data[1].effective << 32;
}

/* One of @caps (a mask of CAP_*) in the effective set, in the initial user
 * namespace.
 */
static bool caller_has_caps(__u64 caps)
{
	return token_caller_caps() & caps;
}

/* CAP_BPF or CAP_SYS_ADMIN: what the kernel's checks look for without a
 * token.
 */
static bool caller_has_bpf_caps(void)
{
	return caller_has_caps(1ULL << CAP_BPF | 1ULL << CAP_SYS_ADMIN);
}

/* Add to @m who needs bit @bit of @set (every item of @n that is it, each
 * name once): "(map 'a', map 'b')". Sets *@required if one of them is not
 * optional.
 */
static void add_who(struct token_str *m, const struct token_needs *n,
		    unsigned int set, unsigned int bit, bool *required)
{
	bool first = true, dup;
	size_t i, j;

	for (i = 0; i < n->cnt; i++) {
		const struct token_need *it = &n->items[i];

		if (it->set != set || it->bit != bit)
			continue;
		if (!it->optional)
			*required = true;
		for (j = 0, dup = false; j < i && !dup; j++)
			dup = n->items[j].set == set && n->items[j].bit == bit &&
			      !strcmp(n->items[j].who, it->who);
		if (dup)
			continue;
		token_str_addf(m, "%s%s", first ? "(" : ", ", it->who);
		first = false;
	}
	token_str_addf(m, ")");
}

/* Describe in @m every element of @n that @allowed lacks, with what needs
 * it: "map type percpu_hash (map 'a', map 'b'), program type kprobe
 * (program 'p')". Returns the number of missing elements, *@required tells
 * whether one of them is not optional.
 */
static int token_needs_missing(const struct token_needs *n,
			       const __u64 *allowed, struct token_str *m,
			       bool *required)
{
	unsigned int set, bit;
	const char *name;
	int missing = 0;

	*required = false;
	for (set = 0; set < __TOKEN_SET_MAX; set++) {
		for (bit = 0; bit < 64; bit++) {
			if (!(n->sets[set] & ~allowed[set] & (1ULL << bit)))
				continue;
			name = token_bit_name(set, bit);
			token_str_addf(m, "%s%s ", missing ? ", " : "",
				       token_set_what(set));
			if (name)
				token_str_addf(m, "%s ", name);
			else
				token_str_addf(m, "%u ", bit);
			add_who(m, n, set, bit, required);
			missing++;
		}
	}

	return missing;
}

/* Describe in @m, after @missing other elements, the programs of @n that
 * read kernel memory, if program types @progs have no tracing type: "a
 * tracing program type (program 'a' calls bpf_get_current_task(), program
 * 'b' calls ...)". Returns whether it did.
 */
static bool token_kmem_missing(const struct token_needs *n, __u64 progs,
			       struct token_str *m, int missing)
{
	unsigned int h;
	const char *sep;
	size_t i;

	if (!n->kmem_cnt || (progs & TOKEN_TRACING_PROGS))
		return false;

	token_str_addf(m, "%sa tracing program type (", missing ? ", " : "");
	for (i = 0; i < n->kmem_cnt; i++) {
		token_str_addf(m, "%sprogram '%s' calls", i ? ", " : "",
			       n->kmem[i].prog);
		for (h = 0, sep = " "; token_kmem_helper_name(h); h++) {
			if (!(n->kmem[i].helpers & (1U << h)))
				continue;
			token_str_addf(m, "%s%s()", sep,
				       token_kmem_helper_name(h));
			sep = ", ";
		}
	}
	token_str_addf(m, ")");
	return true;
}

/* Compare what @n needs with what the token at @path (open as @token_fd)
 * allows, see token_check_object().
 */
static int token_check_needs(const char *path, int token_fd,
			     const struct token_needs *n)
{
	struct token_desc desc = {};
	struct token_str m = {};
	bool required, refused;
	int err, missing;

	err = token_get_info(token_fd, &desc);
	if (err) {
		p_err("can't get token info for %s: %s", path, strerror(-err));
		return -1;
	}

	/* A revoked token allows nothing */
	if (desc.has_state && (desc.flags & BPF_TOKEN_INFO_REVOKED)) {
		if (!caller_has_bpf_caps()) {
			p_err("token %s is revoked", path);
			return -1;
		}
		p_info("Warning: token %s is revoked", path);
		return 0;
	}

	missing = token_needs_missing(n, desc.sets, &m, &required);
	refused = required && !caller_has_bpf_caps();
	/* the kernel gives those helpers to CAP_PERFMON without the token */
	if (token_kmem_missing(n, desc.sets[TOKEN_SET_PROGS], &m, missing)) {
		missing++;
		refused = refused ||
			  !caller_has_caps(1ULL << CAP_PERFMON |
					   1ULL << CAP_SYS_ADMIN);
	}
	if (missing && m.oom) {
		p_err("mem alloc failed");
		err = -1;
	} else if (missing && refused) {
		p_err("token %s does not allow %s", path, m.buf);
		err = -1;
	} else if (missing) {
		p_info("Warning: token %s does not allow %s", path, m.buf);
	}
	token_str_free(&m);
	return err;
}

int token_check_object(const char *path, int token_fd, struct bpf_object *obj,
		       const char *file)
{
	struct token_needs n = {};
	int err;

	err = token_needs_add_object(&n, obj, bpf_object__name(obj));
	if (!err)
		err = token_kmem_add_file(&n, obj, file);
	if (!err)
		err = token_check_needs(path, token_fd, &n);
	token_needs_free(&n);

	return err;
}

int token_check_map_create(const char *path, int token_fd,
			   enum bpf_map_type type, const char *map_name)
{
	struct token_needs n = {};
	int err;

	err = token_needs_add(&n, TOKEN_SET_CMDS, BPF_MAP_CREATE, false,
			      "map '%s'", map_name);
	if (!err)
		err = token_needs_add(&n, TOKEN_SET_MAPS, type, false,
				      "map '%s'", map_name);
	if (!err)
		err = token_check_needs(path, token_fd, &n);
	token_needs_free(&n);

	return err;
}
