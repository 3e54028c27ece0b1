// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Text <-> bit mask conversion for the sets of a BPF token, and the strings
 * bpftool's token code builds (struct token_str).
 *
 * This file only depends on the UAPI header and on libbpf's name tables, so
 * that it can be unit-tested on the host without the rest of bpftool.
 */

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/bpf.h>

#include <bpf/libbpf.h>

#include "token_names.h"

#define TOKEN_NR_BITS	64

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* libbpf 1.1 has no string table for enum bpf_cmd, so keep one here. The
 * names are the enum names, lower case, without "BPF_".
 */
static const char * const cmd_name[] = {
	[BPF_MAP_CREATE]			= "map_create",
	[BPF_MAP_LOOKUP_ELEM]			= "map_lookup_elem",
	[BPF_MAP_UPDATE_ELEM]			= "map_update_elem",
	[BPF_MAP_DELETE_ELEM]			= "map_delete_elem",
	[BPF_MAP_GET_NEXT_KEY]			= "map_get_next_key",
	[BPF_PROG_LOAD]				= "prog_load",
	[BPF_OBJ_PIN]				= "obj_pin",
	[BPF_OBJ_GET]				= "obj_get",
	[BPF_PROG_ATTACH]			= "prog_attach",
	[BPF_PROG_DETACH]			= "prog_detach",
	[BPF_PROG_TEST_RUN]			= "prog_test_run",
	[BPF_PROG_GET_NEXT_ID]			= "prog_get_next_id",
	[BPF_MAP_GET_NEXT_ID]			= "map_get_next_id",
	[BPF_PROG_GET_FD_BY_ID]			= "prog_get_fd_by_id",
	[BPF_MAP_GET_FD_BY_ID]			= "map_get_fd_by_id",
	[BPF_OBJ_GET_INFO_BY_FD]		= "obj_get_info_by_fd",
	[BPF_PROG_QUERY]			= "prog_query",
	[BPF_RAW_TRACEPOINT_OPEN]		= "raw_tracepoint_open",
	[BPF_BTF_LOAD]				= "btf_load",
	[BPF_BTF_GET_FD_BY_ID]			= "btf_get_fd_by_id",
	[BPF_TASK_FD_QUERY]			= "task_fd_query",
	[BPF_MAP_LOOKUP_AND_DELETE_ELEM]	= "map_lookup_and_delete_elem",
	[BPF_MAP_FREEZE]			= "map_freeze",
	[BPF_BTF_GET_NEXT_ID]			= "btf_get_next_id",
	[BPF_MAP_LOOKUP_BATCH]			= "map_lookup_batch",
	[BPF_MAP_LOOKUP_AND_DELETE_BATCH]	= "map_lookup_and_delete_batch",
	[BPF_MAP_UPDATE_BATCH]			= "map_update_batch",
	[BPF_MAP_DELETE_BATCH]			= "map_delete_batch",
	[BPF_LINK_CREATE]			= "link_create",
	[BPF_LINK_UPDATE]			= "link_update",
	[BPF_LINK_GET_FD_BY_ID]			= "link_get_fd_by_id",
	[BPF_LINK_GET_NEXT_ID]			= "link_get_next_id",
	[BPF_ENABLE_STATS]			= "enable_stats",
	[BPF_ITER_CREATE]			= "iter_create",
	[BPF_LINK_DETACH]			= "link_detach",
	[BPF_PROG_BIND_MAP]			= "prog_bind_map",
	[BPF_TOKEN_CREATE]			= "token_create",
};

/* Other enum names of a command, accepted on input only. */
static const struct {
	const char *name;
	unsigned int bit;
} cmd_alias[] = {
	{ "prog_run",	BPF_PROG_RUN },
};

/* In the order of enum token_set */
const struct token_set_desc token_sets[__TOKEN_SET_MAX] = {
	/* keyword  field              help_name      what            prefix */
	{ "cmds",   "allowed_cmds",    "CMD",         "command",      "bpf_" },
	{ "maps",   "allowed_maps",    "MAP_TYPE",    "map type",     "bpf_map_type_" },
	{ "progs",  "allowed_progs",   "PROG_TYPE",   "program type", "bpf_prog_type_" },
	{ "attach", "allowed_attachs", "ATTACH_TYPE", "attach type",  "bpf_" },
};

/* The root-equivalent program types (token_names.h): the tracing types,
 * and struct_ops and ext, which act on the whole system too
 */
#define ROOT_EQUIV_PROGS						\
	(TOKEN_TRACING_PROGS | 1ULL << BPF_PROG_TYPE_STRUCT_OPS |	\
	 1ULL << BPF_PROG_TYPE_EXT)

__u64 token_root_equiv_progs(__u64 progs)
{
	return progs & ROOT_EQUIV_PROGS;
}

static bool set_valid(enum token_set set)
{
	return (unsigned int)set < __TOKEN_SET_MAX;
}

const char *token_set_what(enum token_set set)
{
	return set_valid(set) ? token_sets[set].what : NULL;
}

const char *token_bit_name(enum token_set set, unsigned int bit)
{
	if (bit >= TOKEN_NR_BITS)
		return NULL;

	switch (set) {
	case TOKEN_SET_CMDS:
		return bit < ARRAY_SIZE(cmd_name) ? cmd_name[bit] : NULL;
	case TOKEN_SET_MAPS:
		return libbpf_bpf_map_type_str((enum bpf_map_type)bit);
	case TOKEN_SET_PROGS:
		return libbpf_bpf_prog_type_str((enum bpf_prog_type)bit);
	case TOKEN_SET_ATTACH:
		return libbpf_bpf_attach_type_str((enum bpf_attach_type)bit);
	default:
		return NULL;
	}
}

/* Messages quote user input: keep @err one printable line. */
static void err_sanitize(char *err, size_t err_sz)
{
	if (!err || !err_sz)
		return;
	for (; *err; err++)
		if ((unsigned char)*err < 0x20 || *err == 0x7f)
			*err = '?';
}

/* Case-insensitive comparison of the @len first bytes of @word with the whole
 * of @name.
 */
static bool word_is(const char *word, size_t len, const char *name)
{
	return strlen(name) == len && !strncasecmp(word, name, len);
}

/* Look up a name (without its enum prefix) in @set. */
static int lookup_name(enum token_set set, const char *word, size_t len)
{
	unsigned int bit, i;
	const char *name;

	for (bit = 0; bit < TOKEN_NR_BITS; bit++) {
		name = token_bit_name(set, bit);
		if (name && word_is(word, len, name))
			return bit;
	}

	if (set == TOKEN_SET_CMDS) {
		for (i = 0; i < ARRAY_SIZE(cmd_alias); i++)
			if (word_is(word, len, cmd_alias[i].name))
				return cmd_alias[i].bit;
	}

	return -ENOENT;
}

/* Parse a number of @len bytes at @word: "0x" followed by hex digits, or
 * decimal digits. Returns -ENOENT if it is not a number, -ERANGE if it does
 * not fit in 64 bits.
 */
static int parse_number(const char *word, size_t len, __u64 *val)
{
	const char *digits = word;
	unsigned long long v;
	char buf[32], *end;
	int base = 10;
	size_t i;

	if (len > 2 && word[0] == '0' && (word[1] == 'x' || word[1] == 'X')) {
		digits += 2;
		len -= 2;
		base = 16;
	}
	if (!len)
		return -ENOENT;
	for (i = 0; i < len; i++) {
		if (base == 16 ? !isxdigit((unsigned char)digits[i]) :
				 !isdigit((unsigned char)digits[i]))
			return -ENOENT;
	}
	/* Leading zeros don't change the value but could overflow buf. */
	while (len > 1 && digits[0] == '0') {
		digits++;
		len--;
	}
	if (len >= sizeof(buf))
		return -ERANGE;

	memcpy(buf, digits, len);
	buf[len] = '\0';
	errno = 0;
	v = strtoull(buf, &end, base);
	if (errno == ERANGE)
		return -ERANGE;
	if (*end)
		return -ENOENT;

	*val = v;
	return 0;
}

static int parse_word(enum token_set set, const char *word, size_t len,
		      __u64 *bits)
{
	const char *prefix = token_sets[set].prefix;
	size_t plen = strlen(prefix);
	int bit, err;

	if (word_is(word, len, "any")) {
		*bits = TOKEN_MASK_ANY;
		return 0;
	}

	if (isdigit((unsigned char)word[0])) {
		err = parse_number(word, len, bits);
		if (err != -ENOENT)
			return err;
	}

	/* Names with their enum prefix: BPF_PROG_LOAD, BPF_MAP_TYPE_STACK... */
	if (len > plen && !strncasecmp(word, prefix, plen)) {
		bit = lookup_name(set, word + plen, len - plen);
		if (bit >= 0) {
			*bits = 1ULL << bit;
			return 0;
		}
	}

	bit = lookup_name(set, word, len);
	if (bit < 0)
		return bit;

	*bits = 1ULL << bit;
	return 0;
}

int token_parse_list(enum token_set set, const char *str, __u64 *mask,
		     char *err, size_t err_sz)
{
	const char *what, *word, *end;
	__u64 res = 0, bits;
	size_t len;
	int ret;

	if (!set_valid(set)) {
		snprintf(err, err ? err_sz : 0, "invalid token set %d", set);
		return -EINVAL;
	}
	what = token_sets[set].what;

	if (!str || !*str) {
		snprintf(err, err ? err_sz : 0, "empty %s list", what);
		return -EINVAL;
	}

	for (word = str; ; word = end + 1) {
		end = word + strcspn(word, ",:");
		len = end - word;

		if (!len) {
			snprintf(err, err ? err_sz : 0, "empty %s name in '%s'",
				 what, str);
			ret = -EINVAL;
			goto out_err;
		}

		ret = parse_word(set, word, len, &bits);
		if (ret == -ERANGE) {
			snprintf(err, err ? err_sz : 0,
				 "%s mask '%.*s' does not fit in 64 bits",
				 what, (int)len, word);
			goto out_err;
		}
		if (ret) {
			snprintf(err, err ? err_sz : 0, "unknown %s '%.*s'",
				 what, (int)len, word);
			goto out_err;
		}
		res |= bits;

		if (!*end)
			break;
	}

	*mask = res;
	return 0;

out_err:
	err_sanitize(err, err_sz);
	return ret;
}

void token_mask_for_each(enum token_set set, __u64 mask, token_name_cb cb,
			 void *ctx)
{
	__u64 unknown = 0, rest;
	const char *name;
	unsigned int bit;
	char hex[24];

	if (mask == TOKEN_MASK_ANY) {
		cb("any", ctx);
		return;
	}

	/* only the bits set: list prints the sets of thousands of tokens */
	for (rest = mask; rest; rest &= rest - 1) {
		bit = __builtin_ctzll(rest);
		name = token_bit_name(set, bit);
		if (name)
			cb(name, ctx);
		else
			unknown |= 1ULL << bit;
	}

	if (unknown) {
		snprintf(hex, sizeof(hex), "0x%llx", (unsigned long long)unknown);
		cb(hex, ctx);
	}
}

/* Nothing more is added to @s; its text stays what it was, without a
 * piece of what failed.
 */
static void str_fail(struct token_str *s)
{
	s->oom = true;
	if (s->buf)
		s->buf[s->len] = '\0';
}

/* Room in @s for @n more characters and the NUL, or false (str_fail()) */
static bool str_room(struct token_str *s, size_t n)
{
	size_t cap;
	char *tmp;

	if (s->cap - s->len > n)
		return true;
	cap = (s->len + n + 1) * 2;
	tmp = realloc(s->buf, cap);
	if (!tmp) {
		str_fail(s);
		return false;
	}
	s->buf = tmp;
	s->cap = cap;
	return true;
}

void token_str_vaddf(struct token_str *s, const char *fmt, va_list ap)
{
	va_list copy;
	int n;

	if (s->oom)
		return;
	va_copy(copy, ap);
	n = vsnprintf(s->buf ? s->buf + s->len : NULL, s->cap - s->len, fmt,
		      copy);
	va_end(copy);
	if (n < 0) {
		str_fail(s);
		return;
	}
	if ((size_t)n >= s->cap - s->len) {
		if (!str_room(s, n))
			return;
		vsnprintf(s->buf + s->len, s->cap - s->len, fmt, ap);
	}
	s->len += n;
}

void token_str_addn(struct token_str *s, const char *text, size_t len)
{
	if (s->oom || !str_room(s, len))
		return;
	memcpy(s->buf + s->len, text, len);
	s->len += len;
	s->buf[s->len] = '\0';
}

void token_str_add(struct token_str *s, const char *text)
{
	token_str_addn(s, text, strlen(text));
}

void token_str_add_u64(struct token_str *s, __u64 v)
{
	char digits[20], *p = digits + sizeof(digits);

	do {
		*--p = '0' + v % 10;
		v /= 10;
	} while (v);
	token_str_addn(s, p, digits + sizeof(digits) - p);
}

void token_str_addf(struct token_str *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	token_str_vaddf(s, fmt, ap);
	va_end(ap);
}

struct join_ctx {
	struct token_str *s;
	const char *sep;
	bool first;
};

static void join_cb(const char *name, void *ctx)
{
	struct join_ctx *j = ctx;

	token_str_addf(j->s, "%s%s", j->first ? "" : j->sep, name);
	j->first = false;
}

void token_str_add_mask(struct token_str *s, enum token_set set, __u64 mask,
			const char *sep)
{
	struct join_ctx j = { .s = s, .sep = sep ? sep : ",", .first = true };

	token_mask_for_each(set, mask, join_cb, &j);
}

char *token_str_take(struct token_str *s)
{
	char *buf = s->oom ? NULL : s->buf;

	if (s->oom)
		free(s->buf);
	memset(s, 0, sizeof(*s));
	return buf;
}

void token_str_free(struct token_str *s)
{
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

int token_mask_snprintf(char *buf, size_t size, enum token_set set,
			__u64 mask, const char *sep)
{
	struct token_str s = {};
	int len = -1;

	if (size)
		buf[0] = '\0';
	token_str_add_mask(&s, set, mask, sep);
	if (!s.oom)
		len = snprintf(buf, size, "%s", s.buf ? s.buf : "");
	token_str_free(&s);
	return len;
}
