// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Which token ABI the running kernel speaks.
 *
 * Mainline (Linux 6.9 and later) and this project's kernel both number
 * BPF_TOKEN_CREATE 36. Mainline's token_create is { __u32 flags; __u32
 * bpffs_fd; } and makes a token from the root of a delegated BPF FS. This
 * project's kernel has that layout too, extended after bpffs_fd with the
 * pinned tokens' fields ({ ...; __u32 token_fd; __u32 pin_flags; __u64
 * pin_pathname; __u64 allowed_cmds; ... }, with BPF_F_TOKEN_PIN in flags);
 * its first releases read { __u32 token_fd; __u32 token_flags; ... }
 * instead, which an attr of mainline's is misread by. So the ABI is never
 * found by trying BPF_TOKEN_CREATE: the kernel's BTF says it exactly (the
 * members of union bpf_attr's token_create and their offsets, enum bpf_cmd,
 * and whether BPF FS's mount options take delegate_cmds).
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "main.h"
#include "token_abi.h"

static struct btf *vmlinux_btf;
static bool btf_tried;

static struct btf *abi_btf(void)
{
	if (!btf_tried) {
		btf_tried = true;
		/* NULL without BTF: the probe below decides */
		vmlinux_btf = btf__load_vmlinux_btf();
	}
	return vmlinux_btf;
}

/* The type @id stands for, without typedefs and qualifiers */
static const struct btf_type *resolved(const struct btf *btf, __u32 id)
{
	int rid = btf__resolve_type(btf, id);

	return rid < 0 ? NULL : btf__type_by_id(btf, rid);
}

/* Member @name of struct/union @t: its bit offset, or -1 */
static long member_offset(const struct btf *btf, const struct btf_type *t,
			  const char *name)
{
	const struct btf_member *m = btf_members(t);
	unsigned int i;

	for (i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), name))
			return btf_member_bit_offset(t, i);
	return -1;
}

/* Does struct/union @t have a member whose name contains @part? */
static bool member_like(const struct btf *btf, const struct btf_type *t,
			const char *part)
{
	const struct btf_member *m = btf_members(t);
	unsigned int i;

	for (i = 0; i < btf_vlen(t); i++, m++)
		if (strstr(btf__name_by_offset(btf, m->name_off), part))
			return true;
	return false;
}

/* The value of enumerator @name of enum @enum_name, or -1 (-2: no such
 * enum)
 */
static long long enum_value(const struct btf *btf, const char *enum_name,
			    const char *name)
{
	const struct btf_enum *e;
	const struct btf_type *t;
	unsigned int i;
	int id;

	id = btf__find_by_name_kind(btf, enum_name, BTF_KIND_ENUM);
	if (id < 0)
		return -2;
	t = btf__type_by_id(btf, id);
	for (i = 0, e = btf_enum(t); i < btf_vlen(t); i++, e++)
		if (!strcmp(btf__name_by_offset(btf, e->name_off), name))
			return e->val;
	return -1;
}

/* Read the ABI from kernel BTF. Returns false if @btf lacks what is needed
 * to tell, with abi->why set.
 */
static bool abi_from_btf(const struct btf *btf, struct token_abi *abi)
{
	const struct btf_type *attr, *tc = NULL, *opts;
	const struct btf_member *m;
	bool mainline_layout;
	long long cmd;
	unsigned int i;
	int id;

	abi->source = "kernel BTF";
	cmd = enum_value(btf, "bpf_cmd", "BPF_TOKEN_CREATE");
	if (cmd == -2) {
		abi->why = "kernel BTF has no enum bpf_cmd";
		return false;
	}
	if (cmd < 0) {
		abi->kind = TOKEN_ABI_NONE;
		return true;
	}

	id = btf__find_by_name_kind(btf, "bpf_attr", BTF_KIND_UNION);
	attr = id < 0 ? NULL : btf__type_by_id(btf, id);
	if (!attr) {
		abi->why = "kernel BTF has no union bpf_attr";
		return false;
	}
	for (i = 0, m = btf_members(attr); i < btf_vlen(attr); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), "token_create"))
			tc = resolved(btf, m->type);
	if (!tc || !btf_is_struct(tc)) {
		abi->why = "union bpf_attr has no token_create struct";
		return false;
	}

	/* mainline's layout: flags, then bpffs_fd, at offsets 0 and 32 bits */
	mainline_layout = member_offset(btf, tc, "flags") == 0 &&
			  member_offset(btf, tc, "bpffs_fd") == 32;
	/* the first releases of this project: token_fd, token_flags at 0 and
	 * 32 bits; since then, the pinned extension of mainline's layout:
	 * pin_pathname and the sets after bpffs_fd
	 */
	if (member_offset(btf, tc, "token_fd") == 0 &&
	    member_offset(btf, tc, "token_flags") == 32) {
		abi->pinned = member_offset(btf, tc, "pin_pathname") > 0 &&
			      member_offset(btf, tc, "allowed_cmds") > 0;
	} else if (mainline_layout) {
		abi->pinned = member_offset(btf, tc, "pin_pathname") > 32 &&
			      member_offset(btf, tc, "allowed_cmds") > 32;
	}

	/* Delegation: mainline's layout, and a BPF FS whose mount options
	 * (the kernel's own struct bpf_mount_opts: not UAPI, a name match)
	 * take delegate_cmds; without that struct in BTF, the layout says it.
	 * The options beyond mainline's four sets are named there too.
	 */
	id = btf__find_by_name_kind(btf, "bpf_mount_opts", BTF_KIND_STRUCT);
	opts = id < 0 ? NULL : btf__type_by_id(btf, id);
	abi->delegated = mainline_layout &&
			 (!opts || member_like(btf, opts, "delegate_cmds"));
	if (!abi->delegated && !abi->pinned) {
		abi->why = "union bpf_attr's token_create has a layout bpftool does not know";
		return false;
	}
	if (abi->delegated && opts) {
		abi->delegate_cgroup = member_like(btf, opts, "cgroup");
		abi->delegate_relaxed = member_like(btf, opts, "verifier") ||
					member_like(btf, opts, "relaxed");
	}

	abi->kind = abi->pinned && abi->delegated ? TOKEN_ABI_BOTH :
		    abi->pinned ? TOKEN_ABI_PINNED : TOKEN_ABI_DELEGATED;
	return true;
}

#define PROBE_FSCONFIG_SET_STRING	1	/* FSCONFIG_SET_STRING */
#define PROBE_FSOPEN_CLOEXEC		1	/* FSOPEN_CLOEXEC */

static int probe_set(int fs_fd, const char *key, const char *val)
{
	return syscall(__NR_fsconfig, fs_fd, PROBE_FSCONFIG_SET_STRING, key,
		       val, 0);
}

/* Without BTF: does BPF FS take delegate_cmds? The probe opens a BPF FS
 * context and sets two values of delegate_cmds, then closes it: nothing is
 * created (no FSCONFIG_CMD_CREATE), nothing is mounted, and no bpf_attr is
 * passed, so no kernel can misread it. A kernel with delegation accepts "0"
 * and refuses "!" (neither a name, "any" nor a number); a BPF FS without the
 * option ignores both (6.1 ignores unknown options), so only "0 accepted,
 * '!' refused" means delegation. Pinned tokens can't be told from here; a
 * kernel found to delegate is then taken for mainline, the side on which no
 * attr is misread.
 */
static void abi_from_probe(struct token_abi *abi)
{
	int fs_fd, ok_zero, ok_bad;

	abi->source = "BPF FS options probe";
	fs_fd = syscall(__NR_fsopen, "bpf", PROBE_FSOPEN_CLOEXEC);
	if (fs_fd < 0) {
		abi->why = "no kernel BTF, and can't open a BPF FS context to probe it";
		return;
	}
	ok_zero = !probe_set(fs_fd, "delegate_cmds", "0");
	ok_bad = !probe_set(fs_fd, "delegate_cmds", "!");
	close(fs_fd);

	if (ok_zero && !ok_bad) {
		abi->delegated = true;
		abi->kind = TOKEN_ABI_DELEGATED;
	} else if (ok_zero && ok_bad) {
		abi->why = "no kernel BTF, and BPF FS has no delegation";
	} else {
		abi->why = "no kernel BTF, and BPF FS's options say nothing clear";
	}
}

const struct token_abi *token_abi_get(void)
{
	static struct token_abi abi;
	static bool done;
	struct btf *btf;

	if (done)
		return &abi;
	done = true;

	btf = abi_btf();
	if (btf) {
		if (!abi_from_btf(btf, &abi))
			abi.kind = TOKEN_ABI_UNKNOWN;
		return &abi;
	}
	abi_from_probe(&abi);
	return &abi;
}

const char *token_abi_kind_name(enum token_abi_kind kind)
{
	switch (kind) {
	case TOKEN_ABI_NONE:		return "none";
	case TOKEN_ABI_PINNED:		return "pinned";
	case TOKEN_ABI_DELEGATED:	return "delegated";
	case TOKEN_ABI_BOTH:		return "pinned+delegated";
	default:			return "unknown";
	}
}

int token_abi_btf_bit(enum token_set set, const char *name)
{
	static const char * const enums[__TOKEN_SET_MAX] = {
		[TOKEN_SET_CMDS]	= "bpf_cmd",
		[TOKEN_SET_MAPS]	= "bpf_map_type",
		[TOKEN_SET_PROGS]	= "bpf_prog_type",
		[TOKEN_SET_ATTACH]	= "bpf_attach_type",
	};
	const struct btf_type *t;
	const struct btf_enum *e;
	struct btf *btf = abi_btf();
	const char *prefix, *en;
	size_t plen;
	unsigned int i;
	int id;

	if (!btf || set >= __TOKEN_SET_MAX)
		return -1;
	id = btf__find_by_name_kind(btf, enums[set], BTF_KIND_ENUM);
	if (id < 0)
		return -1;
	t = btf__type_by_id(btf, id);
	prefix = token_sets[set].prefix;
	plen = strlen(prefix);
	for (i = 0, e = btf_enum(t); i < btf_vlen(t); i++, e++) {
		en = btf__name_by_offset(btf, e->name_off);
		if (!strncasecmp(en, prefix, plen) &&
		    !strcasecmp(en + plen, name) && e->val >= 0 && e->val < 64)
			return e->val;
	}
	return -1;
}
