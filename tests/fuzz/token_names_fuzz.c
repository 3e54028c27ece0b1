// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* libFuzzer target for bpftool's token list parser (bpftool/token_names.h).
 *
 * Input: the first byte selects the set (value % 4: cmds, maps, progs,
 * attach), the rest is the list text. Properties checked, abort() on a
 * violation (libFuzzer reports it as a crash, with the input):
 *
 *  - token_parse_list() either succeeds, or fails with -EINVAL, -ENOENT or
 *    -ERANGE, leaves the mask untouched and writes a non-empty one-line,
 *    NUL-terminated message;
 *  - round trip: text -> mask m1 -> text t1 -> mask m2 -> text t2 gives
 *    m1 == m2 and t1 == t2 (t1 is empty only for an empty mask);
 *  - token_mask_snprintf() has snprintf() semantics for every buffer size
 *    (same length, NUL-terminated prefix, never writes past the size) and
 *    agrees with token_mask_for_each();
 *  - the same round trip from a raw 64-bit mask (the first 8 bytes of the
 *    text, when there are 8): mask -> text -> mask is the identity.
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "token_names.h"

#define TEXT_MAX 4096

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "property violated: %s (line %d)\n", \
				#cond, __LINE__);			\
			abort();					\
		}							\
	} while (0)

struct join {
	char buf[TEXT_MAX];
	size_t len;
	unsigned int n;
};

static void join_cb(const char *name, void *ctx)
{
	struct join *j = ctx;
	size_t l = strlen(name);

	CHECK(l > 0);
	CHECK(j->len + l + 2 < sizeof(j->buf));
	if (j->n++)
		j->buf[j->len++] = ',';
	memcpy(j->buf + j->len, name, l);
	j->len += l;
	j->buf[j->len] = '\0';
}

/* mask -> text, checking snprintf semantics at several sizes. */
static void mask_to_text(enum token_set set, __u64 mask, char *out, size_t out_sz)
{
	static const size_t sizes[] = { 0, 1, 2, 5, 17 };
	struct join j = { .len = 0 };
	char small[32];
	int len;

	len = token_mask_snprintf(out, out_sz, set, mask, ",");
	CHECK(len >= 0 && (size_t)len < out_sz);
	CHECK(strlen(out) == (size_t)len);
	CHECK((mask == 0) == (len == 0));

	token_mask_for_each(set, mask, join_cb, &j);
	CHECK(j.len == (size_t)len && strcmp(j.buf, out) == 0);

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t sz = sizes[i];

		memset(small, 'X', sizeof(small));
		CHECK(token_mask_snprintf(sz ? small : NULL, sz, set, mask, ",") == len);
		if (sz) {
			size_t n = (size_t)len < sz - 1 ? (size_t)len : sz - 1;

			CHECK(small[n] == '\0' && memcmp(small, out, n) == 0);
		}
		for (size_t k = sz; k < sizeof(small); k++)
			CHECK(small[k] == 'X');
	}
}

static void text_to_mask(enum token_set set, const char *text, __u64 *mask)
{
	char err[256];

	*mask = 0;
	err[0] = '\0';
	CHECK(token_parse_list(set, text, mask, err, sizeof(err)) == 0);
	CHECK(err[0] == '\0');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char text[TEXT_MAX], t1[TEXT_MAX], t2[TEXT_MAX];
	enum token_set set;
	__u64 mask, m1, m2, raw;
	char err[256];
	int ret;

	if (size < 1 || size > TEXT_MAX - 1)
		return -1;
	set = (enum token_set)(data[0] % __TOKEN_SET_MAX);
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';

	CHECK(token_set_what(set) != NULL);

	/* The parser on arbitrary text (embedded NULs end it, as in C). */
	mask = 0x5a5a5a5a5a5a5a5aULL;
	memset(err, 'E', sizeof(err));
	ret = token_parse_list(set, text, &mask, err, sizeof(err));
	if (ret) {
		CHECK(ret == -EINVAL || ret == -ENOENT || ret == -ERANGE);
		CHECK(mask == 0x5a5a5a5a5a5a5a5aULL);
		CHECK(memchr(err, '\0', sizeof(err)) != NULL);
		CHECK(err[0] != '\0' && strchr(err, '\n') == NULL);
	} else {
		/* OR-ed into the mask: parse again from 0 for the value. */
		text_to_mask(set, text, &m1);
		CHECK((mask & m1) == m1);
		mask_to_text(set, m1, t1, sizeof(t1));
		if (m1) {
			text_to_mask(set, t1, &m2);
			CHECK(m2 == m1);
			mask_to_text(set, m2, t2, sizeof(t2));
			CHECK(strcmp(t1, t2) == 0);
		}
	}

	/* mask -> text -> mask from raw bits. */
	if (size - 1 >= sizeof(raw)) {
		memcpy(&raw, data + 1, sizeof(raw));
		mask_to_text(set, raw, t1, sizeof(t1));
		if (raw) {
			text_to_mask(set, t1, &m2);
			CHECK(m2 == raw);
		}
	}
	return 0;
}
