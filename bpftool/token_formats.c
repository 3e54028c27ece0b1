// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The four sets of a BPF token in the syntax of other delegation tools: the
 * BPF FS mount options of Linux 6.9 and later (delegate_cmds=...), Incus and
 * LXD instance options, systemd unit directives. Each spells the sets as its
 * documentation says:
 *
 *  - mount: delegate_cmds=a:b,delegate_maps=...; names are the enum names
 *    without their prefix, in lower case (bpftool's names), ':' between them;
 *  - incus: security.bpffs.delegate_cmds=a,b and so on, one per line, the
 *    same names, ',' between them;
 *  - lxd: security.delegate_bpf=true, then security.delegate_bpf.cmd_types=a:b
 *    and so on, one per line, the names as for mount;
 *  - systemd: PrivateBPF=yes, then BPFDelegateCommands=, BPFDelegateMaps=,
 *    BPFDelegatePrograms=, BPFDelegateAttachments=, one per line, with
 *    systemd's names: the enum name in camel case (BPF_MAP_CREATE is
 *    BPFMapCreate, BPF_MAP_TYPE_LPM_TRIE is BPFMapTypeLpmTrie), ',' between
 *    them.
 *
 * Like bpftool, all of them take "any" for all 64 bits. Bits without a name
 * are written as one hexadecimal mask for the whole set, which the BPF FS
 * mount options (and so LXD) take; systemd has no such syntax.
 */

#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "token_formats.h"

/* The names of the sets, in the order of enum token_set */
static const struct {
	const char *mount_opt;		/* also Incus's, after "security.bpffs." */
	const char *lxd_key;		/* after "security.delegate_bpf." */
	const char *systemd_key;
} keys[__TOKEN_SET_MAX] = {
	{ "delegate_cmds",	"cmd_types",	"BPFDelegateCommands" },
	{ "delegate_maps",	"map_types",	"BPFDelegateMaps" },
	{ "delegate_progs",	"prog_types",	"BPFDelegatePrograms" },
	{ "delegate_attachs",	"attach_types",	"BPFDelegateAttachments" },
};

const char * const token_format_names[__TOKEN_FORMAT_MAX] = {
	[TOKEN_FORMAT_MOUNT]	= "mount",
	[TOKEN_FORMAT_INCUS]	= "incus",
	[TOKEN_FORMAT_LXD]	= "lxd",
	[TOKEN_FORMAT_SYSTEMD]	= "systemd",
};

int token_format_by_name(const char *name)
{
	int fmt;

	for (fmt = 0; fmt < __TOKEN_FORMAT_MAX; fmt++)
		if (!strcmp(name, token_format_names[fmt]))
			return fmt;
	return -1;
}

/* systemd's name of @name, a name of @set: "BPF" and the rest of the enum
 * name in camel case.
 */
static void add_systemd_name(struct token_str *l, enum token_set set,
			     const char *name)
{
	const char *prefix = token_sets[set].prefix;	/* "bpf_map_type_" */
	const char *p;
	size_t n;

	token_str_addf(l, "BPF");
	/* the words of the prefix after "bpf_", then those of the name */
	for (p = prefix + strlen("bpf_"); *p || *name; p += n + !!p[n]) {
		if (!*p) {
			p = name;
			name = "";
		}
		n = strcspn(p, "_");
		if (n)
			token_str_addf(l, "%c%.*s", toupper((unsigned char)*p),
				       (int)n - 1, p + 1);
	}
}

/* systemd's names of the elements of a set, with ',' between them */
struct systemd_ctx {
	struct token_str *line;
	enum token_set set;
	bool first;
};

static void add_systemd_name_cb(const char *name, void *ctx)
{
	struct systemd_ctx *c = ctx;

	if (!c->first)
		token_str_addf(c->line, ",");
	c->first = false;
	if (strcmp(name, "any"))
		add_systemd_name(c->line, c->set, name);
	else
		token_str_addf(c->line, "%s", name);
}

/* Does @mask of @set have a bit without a name? */
static bool has_unnamed_bits(enum token_set set, __u64 mask)
{
	unsigned int bit;

	if (mask == TOKEN_MASK_ANY)
		return false;
	for (bit = 0; bit < 64; bit++)
		if ((mask & (1ULL << bit)) && !token_bit_name(set, bit))
			return true;
	return false;
}

static void add_set(struct token_str *l, enum token_format fmt,
		    enum token_set set, __u64 mask)
{
	struct systemd_ctx ctx = { .line = l, .set = set, .first = true };

	if (fmt == TOKEN_FORMAT_SYSTEMD)
		token_mask_for_each(set, mask, add_systemd_name_cb, &ctx);
	else if (has_unnamed_bits(set, mask))
		token_str_addf(l, "0x%llx", (unsigned long long)mask);
	else
		/* bpftool's names: the kernel's, and so Incus' and LXD's */
		token_str_add_mask(l, set, mask,
				   fmt == TOKEN_FORMAT_INCUS ? "," : ":");
}

/* Hand the line @l, if it has anything, to @cb, and empty it */
static int emit(struct token_str *l, token_line_cb cb, void *ctx)
{
	int err = l->oom ? -ENOMEM : 0;

	if (!err && l->len)
		cb(l->buf, ctx);
	token_str_free(l);
	return err;
}

int token_format_lines(enum token_format fmt, const __u64 *sets,
		       token_line_cb cb, void *ctx, enum token_set *bad_set)
{
	struct token_str l = {};
	unsigned int set;
	int err = 0;

	if ((unsigned int)fmt >= __TOKEN_FORMAT_MAX)
		return -EINVAL;

	if (fmt == TOKEN_FORMAT_SYSTEMD) {
		for (set = 0; set < __TOKEN_SET_MAX; set++) {
			if (has_unnamed_bits(set, sets[set])) {
				if (bad_set)
					*bad_set = set;
				return -ENOENT;
			}
		}
		token_str_addf(&l, "PrivateBPF=yes");
	} else if (fmt == TOKEN_FORMAT_LXD) {
		token_str_addf(&l, "security.delegate_bpf=true");
	}
	err = emit(&l, cb, ctx);

	for (set = 0; set < __TOKEN_SET_MAX && !err; set++) {
		if (!sets[set])
			continue;
		switch (fmt) {
		case TOKEN_FORMAT_MOUNT:
			/* one line: the sets after each other */
			token_str_addf(&l, "%s%s=", l.len ? "," : "",
				       keys[set].mount_opt);
			break;
		case TOKEN_FORMAT_INCUS:
			token_str_addf(&l, "security.bpffs.%s=",
				       keys[set].mount_opt);
			break;
		case TOKEN_FORMAT_LXD:
			token_str_addf(&l, "security.delegate_bpf.%s=",
				       keys[set].lxd_key);
			break;
		default:
			token_str_addf(&l, "%s=", keys[set].systemd_key);
			break;
		}
		add_set(&l, fmt, set, sets[set]);
		if (fmt != TOKEN_FORMAT_MOUNT)
			err = emit(&l, cb, ctx);
	}
	if (!err && fmt == TOKEN_FORMAT_MOUNT)
		err = emit(&l, cb, ctx);

	token_str_free(&l);
	return err;
}
