// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Host unit tests of bpftool/token_names.c, the text <-> mask unit shared by
 * "bpftool token create" and "bpftool token show" (with its root-equivalent
 * program types), and of
 * bpftool/token_formats.c, the sets in other delegation tools' syntax.
 *
 *   token_names_test          run the tests, TAP-like output, exit 1 on failure
 *   token_names_test dump S   print "bit name" for every named bit of set S
 *                             (cmds, maps, progs, attach)
 */

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bpf.h>

#include <bpf/libbpf.h>

#include "token_formats.h"
#include "token_names.h"

static int failures, checks;

#define CHECK(cond, fmt, ...)						\
	do {								\
		checks++;						\
		if (!(cond)) {						\
			failures++;					\
			printf("FAIL %s:%d: %s: " fmt "\n", __func__,	\
			       __LINE__, #cond, ##__VA_ARGS__);		\
		}							\
	} while (0)

static const char *set_kw[] = { "cmds", "maps", "progs", "attach" };
static const char *set_prefix[] = { "BPF_", "BPF_MAP_TYPE_", "BPF_PROG_TYPE_", "BPF_" };

static void upper(char *dst, const char *src)
{
	while ((*dst++ = toupper((unsigned char)*src++)))
		;
}

/* Mixed case: every other letter upper case */
static void mixed(char *dst, const char *src)
{
	int i;

	for (i = 0; src[i]; i++)
		dst[i] = i % 2 ? toupper((unsigned char)src[i]) : src[i];
	dst[i] = '\0';
}

static int parse(enum token_set set, const char *s, __u64 *mask, char *err)
{
	return token_parse_list(set, s, mask, err, 256);
}

static void expect_ok(enum token_set set, const char *s, __u64 want)
{
	char err[256] = "";
	__u64 mask = 0xdeadbeef;
	int ret;

	ret = parse(set, s, &mask, err);
	CHECK(ret == 0, "%s '%s': ret %d (%s)", set_kw[set], s, ret, err);
	CHECK(mask == want, "%s '%s': mask 0x%llx, want 0x%llx", set_kw[set],
	      s, (unsigned long long)mask, (unsigned long long)want);
}

static void expect_err(enum token_set set, const char *s, int want_ret,
		       const char *want_msg)
{
	__u64 mask = 0x1234;
	char err[256] = "";
	int ret;

	ret = parse(set, s, &mask, err);
	CHECK(ret == want_ret, "%s '%s': ret %d, want %d", set_kw[set],
	      s ? s : "(null)", ret, want_ret);
	CHECK(mask == 0x1234, "%s '%s': mask changed on error", set_kw[set],
	      s ? s : "(null)");
	if (want_msg)
		CHECK(!strcmp(err, want_msg), "%s '%s': message '%s', want '%s'",
		      set_kw[set], s ? s : "(null)", err, want_msg);
}

static void expect_str(enum token_set set, __u64 mask, const char *want)
{
	char buf[4096];
	int n;

	n = token_mask_snprintf(buf, sizeof(buf), set, mask, ",");
	CHECK(!strcmp(buf, want), "%s 0x%llx: '%s', want '%s'", set_kw[set],
	      (unsigned long long)mask, buf, want);
	CHECK(n == (int)strlen(want), "%s 0x%llx: length %d, want %zu",
	      set_kw[set], (unsigned long long)mask, n, strlen(want));
}

/* Every name of every set parses to its bit in all spellings, prints back as
 * itself, and the whole table round-trips as one list.
 */
static void test_round_trip(void)
{
	char buf[256], buf2[256], all[4096];
	unsigned int set, bit, nr;
	__u64 named;
	const char *name;

	for (set = 0; set < __TOKEN_SET_MAX; set++) {
		named = 0;
		nr = 0;
		all[0] = '\0';
		for (bit = 0; bit < 64; bit++) {
			name = token_bit_name(set, bit);
			if (!name)
				continue;
			nr++;
			named |= 1ULL << bit;

			expect_ok(set, name, 1ULL << bit);
			upper(buf, name);
			expect_ok(set, buf, 1ULL << bit);
			mixed(buf, name);
			expect_ok(set, buf, 1ULL << bit);
			snprintf(buf, sizeof(buf), "%s%s", set_prefix[set], name);
			expect_ok(set, buf, 1ULL << bit);
			upper(buf2, buf);
			expect_ok(set, buf2, 1ULL << bit);
			mixed(buf2, buf);
			expect_ok(set, buf2, 1ULL << bit);
			expect_str(set, 1ULL << bit, name);

			if (all[0])
				strcat(all, bit % 2 ? "," : ":");
			strcat(all, name);
		}
		CHECK(nr >= 30, "%s: only %u names", set_kw[set], nr);
		expect_ok(set, all, named);

		/* mask -> text -> mask, including unknown bits */
		token_mask_snprintf(all, sizeof(all), set, named, ",");
		expect_ok(set, all, named);
		if (named != ~0ULL) {
			token_mask_snprintf(all, sizeof(all), set, ~named, ",");
			expect_ok(set, all, ~named);
			token_mask_snprintf(all, sizeof(all), set,
					    ~named | 1ULL, ",");
			expect_ok(set, all, ~named | 1ULL);
		}
	}
}

static void test_cmds(void)
{
	unsigned int bit;

	/* The table follows enum bpf_cmd without holes */
	for (bit = 0; bit <= BPF_TOKEN_CREATE; bit++)
		CHECK(token_bit_name(TOKEN_SET_CMDS, bit), "no name for cmd %u", bit);
	CHECK(!token_bit_name(TOKEN_SET_CMDS, BPF_TOKEN_CREATE + 1), "name past the enum");
	CHECK(BPF_TOKEN_CREATE == 36, "BPF_TOKEN_CREATE is %d", BPF_TOKEN_CREATE);

	expect_ok(TOKEN_SET_CMDS, "map_create", 1ULL << BPF_MAP_CREATE);
	expect_ok(TOKEN_SET_CMDS, "prog_load", 1ULL << BPF_PROG_LOAD);
	expect_ok(TOKEN_SET_CMDS, "BPF_PROG_LOAD", 1ULL << BPF_PROG_LOAD);
	expect_ok(TOKEN_SET_CMDS, "bpf_prog_load", 1ULL << BPF_PROG_LOAD);
	expect_ok(TOKEN_SET_CMDS, "btf_load", 1ULL << BPF_BTF_LOAD);
	expect_ok(TOKEN_SET_CMDS, "token_create", 1ULL << 36);
	expect_ok(TOKEN_SET_CMDS, "BPF_TOKEN_CREATE", 1ULL << 36);
	/* BPF_PROG_RUN is another enum name of BPF_PROG_TEST_RUN */
	expect_ok(TOKEN_SET_CMDS, "prog_run", 1ULL << BPF_PROG_TEST_RUN);
	expect_ok(TOKEN_SET_CMDS, "BPF_PROG_RUN", 1ULL << BPF_PROG_TEST_RUN);
	expect_str(TOKEN_SET_CMDS, 1ULL << BPF_PROG_RUN, "prog_test_run");
	expect_ok(TOKEN_SET_CMDS, "map_create,prog_load,btf_load",
		  (1ULL << BPF_MAP_CREATE) | (1ULL << BPF_PROG_LOAD) |
		  (1ULL << BPF_BTF_LOAD));
	expect_ok(TOKEN_SET_CMDS, "map_create:prog_load:BTF_LOAD",
		  (1ULL << BPF_MAP_CREATE) | (1ULL << BPF_PROG_LOAD) |
		  (1ULL << BPF_BTF_LOAD));
	/* duplicates are harmless */
	expect_ok(TOKEN_SET_CMDS, "prog_load,PROG_LOAD,bpf_prog_load",
		  1ULL << BPF_PROG_LOAD);
	expect_str(TOKEN_SET_CMDS,
		   (1ULL << BPF_PROG_LOAD) | (1ULL << BPF_MAP_CREATE) |
		   (1ULL << BPF_TOKEN_CREATE),
		   "map_create,prog_load,token_create");
}

static void test_types(void)
{
	expect_ok(TOKEN_SET_MAPS, "stack", 1ULL << BPF_MAP_TYPE_STACK);
	expect_ok(TOKEN_SET_MAPS, "BPF_MAP_TYPE_STACK", 1ULL << BPF_MAP_TYPE_STACK);
	expect_ok(TOKEN_SET_MAPS, "Stack_Trace", 1ULL << BPF_MAP_TYPE_STACK_TRACE);
	expect_ok(TOKEN_SET_MAPS, "hash,array", (1ULL << BPF_MAP_TYPE_HASH) |
		  (1ULL << BPF_MAP_TYPE_ARRAY));
	expect_ok(TOKEN_SET_PROGS, "xdp", 1ULL << BPF_PROG_TYPE_XDP);
	expect_ok(TOKEN_SET_PROGS, "BPF_PROG_TYPE_XDP", 1ULL << BPF_PROG_TYPE_XDP);
	expect_ok(TOKEN_SET_PROGS, "socket_filter", 1ULL << BPF_PROG_TYPE_SOCKET_FILTER);
	expect_ok(TOKEN_SET_ATTACH, "xdp", 1ULL << BPF_XDP);
	expect_ok(TOKEN_SET_ATTACH, "BPF_XDP", 1ULL << BPF_XDP);
	expect_ok(TOKEN_SET_ATTACH, "cgroup_inet_ingress", 1ULL << BPF_CGROUP_INET_INGRESS);
	expect_ok(TOKEN_SET_ATTACH, "trace_fentry", 1ULL << BPF_TRACE_FENTRY);
	expect_str(TOKEN_SET_ATTACH, 1ULL << BPF_CGROUP_INET_INGRESS,
		   "cgroup_inet_ingress");

	/* libbpf's names are the only spelling: bpftool's legacy attach
	 * aliases and the section names are not accepted
	 */
	expect_err(TOKEN_SET_ATTACH, "ingress", -ENOENT, "unknown attach type 'ingress'");
	expect_err(TOKEN_SET_PROGS, "socket", -ENOENT, "unknown program type 'socket'");
	expect_err(TOKEN_SET_PROGS, "cgroup/skb", -ENOENT, "unknown program type 'cgroup/skb'");

	/* a prefix of another set is not accepted */
	expect_err(TOKEN_SET_MAPS, "BPF_PROG_TYPE_XDP", -ENOENT, NULL);
	expect_err(TOKEN_SET_PROGS, "BPF_MAP_TYPE_HASH", -ENOENT, NULL);
	expect_err(TOKEN_SET_MAPS, "BPF_HASH", -ENOENT, NULL);
	expect_err(TOKEN_SET_CMDS, "BPF_MAP_TYPE_HASH", -ENOENT, NULL);
	expect_err(TOKEN_SET_MAPS, "BPF_MAP_TYPE_", -ENOENT, NULL);
	expect_err(TOKEN_SET_CMDS, "BPF_", -ENOENT, NULL);
	expect_err(TOKEN_SET_CMDS, "BPF_BPF_PROG_LOAD", -ENOENT, NULL);
	/* names are whole words */
	expect_err(TOKEN_SET_MAPS, "has", -ENOENT, NULL);
	expect_err(TOKEN_SET_MAPS, "hashh", -ENOENT, NULL);
	expect_err(TOKEN_SET_MAPS, "hash ", -ENOENT, NULL);
	expect_err(TOKEN_SET_MAPS, " hash", -ENOENT, NULL);
}

static void test_any_and_numbers(void)
{
	unsigned int set;

	for (set = 0; set < __TOKEN_SET_MAX; set++) {
		expect_ok(set, "any", ~0ULL);
		expect_ok(set, "ANY", ~0ULL);
		expect_ok(set, "Any", ~0ULL);
		expect_str(set, ~0ULL, "any");
		expect_str(set, 0, "");
		expect_ok(set, "0", 0);
		expect_ok(set, "0x0", 0);
		expect_ok(set, "0x21", 0x21);
		expect_ok(set, "0X21", 0x21);
		expect_ok(set, "33", 33);
		expect_ok(set, "0033", 33);
		expect_ok(set, "0xffffffffffffffff", ~0ULL);
		expect_ok(set, "18446744073709551615", ~0ULL);
		expect_ok(set, "0x00000000000000000001", 1);
		expect_ok(set, "0x8000000000000000", 1ULL << 63);
		expect_str(set, 1ULL << 63, "0x8000000000000000");
		expect_ok(set, "1,2,0x4", 7);
		expect_ok(set, "0x1:0x8000000000000000", (1ULL << 63) | 1);
		expect_ok(set, "any,0x1", ~0ULL);

		expect_err(set, "0x10000000000000000", -ERANGE, NULL);
		expect_err(set, "18446744073709551616", -ERANGE, NULL);
		expect_err(set, "99999999999999999999999999999999999999", -ERANGE, NULL);
		expect_err(set, "0x", -ENOENT, NULL);
		expect_err(set, "0xg", -ENOENT, NULL);
		expect_err(set, "-1", -ENOENT, NULL);
		expect_err(set, "+1", -ENOENT, NULL);
		expect_err(set, "1x", -ENOENT, NULL);
		expect_err(set, "12a", -ENOENT, NULL);
		expect_err(set, "anything", -ENOENT, NULL);
		expect_err(set, "an", -ENOENT, NULL);
	}

	expect_str(TOKEN_SET_CMDS, (1ULL << BPF_PROG_LOAD) | (1ULL << 63) | (1ULL << 40),
		   "prog_load,0x8000010000000000");
}

static void test_errors(void)
{
	expect_err(TOKEN_SET_MAPS, "stak", -ENOENT, "unknown map type 'stak'");
	expect_err(TOKEN_SET_MAPS, "hash,stak,array", -ENOENT, "unknown map type 'stak'");
	expect_err(TOKEN_SET_CMDS, "prog_load:nope", -ENOENT, "unknown command 'nope'");
	expect_err(TOKEN_SET_PROGS, "xpd", -ENOENT, "unknown program type 'xpd'");
	expect_err(TOKEN_SET_ATTACH, "xpd", -ENOENT, "unknown attach type 'xpd'");

	expect_err(TOKEN_SET_CMDS, "", -EINVAL, "empty command list");
	expect_err(TOKEN_SET_MAPS, NULL, -EINVAL, "empty map type list");
	expect_err(TOKEN_SET_MAPS, "hash,", -EINVAL, "empty map type name in 'hash,'");
	expect_err(TOKEN_SET_MAPS, "hash:", -EINVAL, "empty map type name in 'hash:'");
	expect_err(TOKEN_SET_MAPS, ",hash", -EINVAL, "empty map type name in ',hash'");
	expect_err(TOKEN_SET_MAPS, "hash,,array", -EINVAL, NULL);
	expect_err(TOKEN_SET_MAPS, ",", -EINVAL, NULL);
	expect_err(TOKEN_SET_MAPS, ":", -EINVAL, NULL);
	expect_err(TOKEN_SET_MAPS, "hash array", -ENOENT, "unknown map type 'hash array'");
	expect_err(TOKEN_SET_PROGS, "0x1ffffffffffffffff", -ERANGE,
		   "program type mask '0x1ffffffffffffffff' does not fit in 64 bits");
	expect_err(__TOKEN_SET_MAX, "any", -EINVAL, NULL);

	/* err may be NULL */
	{
		__u64 mask = 5;

		CHECK(token_parse_list(TOKEN_SET_MAPS, "stak", &mask, NULL, 0) == -ENOENT, "");
		CHECK(mask == 5, "");
	}
}

static void test_snprintf(void)
{
	char buf[16];
	int n;

	/* snprintf semantics: truncated but NUL-terminated, full length returned */
	n = token_mask_snprintf(buf, sizeof(buf), TOKEN_SET_CMDS,
				(1ULL << BPF_MAP_CREATE) | (1ULL << BPF_PROG_LOAD) |
				(1ULL << BPF_BTF_LOAD), " ");
	CHECK(n == (int)strlen("map_create prog_load btf_load"), "n = %d", n);
	CHECK(strlen(buf) == sizeof(buf) - 1, "'%s'", buf);
	CHECK(!strncmp(buf, "map_create prog", sizeof(buf) - 1), "'%s'", buf);
	n = token_mask_snprintf(NULL, 0, TOKEN_SET_CMDS, 1ULL << BPF_PROG_LOAD, ",");
	CHECK(n == 9, "n = %d", n);
	CHECK(!strcmp(token_set_what(TOKEN_SET_ATTACH), "attach type"), "");
	CHECK(!token_set_what(__TOKEN_SET_MAX), "");
	CHECK(!token_bit_name(TOKEN_SET_MAPS, 64), "");
	CHECK(!token_bit_name(__TOKEN_SET_MAX, 0), "");
}

/* The builder of list's plain text: pieces, numbers, growth past its
 * first allocation, the text terminated after each piece.
 */
static void test_str(void)
{
	static const __u64 nums[] = { 0, 7, 10, 4294967296ULL, ~0ULL };
	static const char *const texts[] = {
		"0", "7", "10", "4294967296", "18446744073709551615",
	};
	struct token_str s = {};
	char want[64];
	size_t i, len = 0;
	char *text;

	token_str_addn(&s, "", 0);
	CHECK(s.buf && !strcmp(s.buf, "") && !s.len, "");
	for (i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		token_str_add(&s, "\tn: ");
		token_str_add_u64(&s, nums[i]);
		token_str_addn(&s, "\nrest", 1);
		snprintf(want, sizeof(want), "\tn: %s\n", texts[i]);
		len += strlen(want);
		CHECK(s.len == len && strlen(s.buf) == len, "len %zu, want %zu",
		      s.len, len);
		CHECK(!strcmp(s.buf + len - strlen(want), want), "'%s'", s.buf);
	}
	/* far past any earlier capacity, in one piece */
	memset(want, 'x', sizeof(want) - 1);
	want[sizeof(want) - 1] = '\0';
	for (i = 0; i < 100; i++)
		token_str_add(&s, want);
	len += 100 * (sizeof(want) - 1);
	CHECK(s.len == len && strlen(s.buf) == len && s.cap > len && !s.oom,
	      "len %zu", s.len);
	text = token_str_take(&s);
	CHECK(text && !strncmp(text, "\tn: 0\n\tn: 7\n", 12), "'%.20s'", text);
	CHECK(!s.buf && !s.len && !s.cap, "");
	free(text);
}

static void join_line(const char *line, void *out)
{
	if (((char *)out)[0])
		strcat(out, "|");
	strcat(out, line);
}

/* The lines of @sets in @fmt, joined with '|' */
static int format(enum token_format fmt, const __u64 *sets, char *out,
		  enum token_set *bad)
{
	out[0] = '\0';
	return token_format_lines(fmt, sets, join_line, out, bad);
}

static void test_formats(void)
{
	__u64 sets[__TOKEN_SET_MAX] = {
		[TOKEN_SET_CMDS] = TOKEN_MASK_ANY,
		[TOKEN_SET_MAPS] = (1ULL << BPF_MAP_TYPE_HASH) | (1ULL << 63),
		[TOKEN_SET_PROGS] = 0,
		[TOKEN_SET_ATTACH] = (1ULL << BPF_CGROUP_INET4_CONNECT) | (1ULL << BPF_XDP),
	};
	enum token_set bad = __TOKEN_SET_MAX;
	char out[4096];
	int ret;

	CHECK(token_format_by_name("mount") == TOKEN_FORMAT_MOUNT, "");
	CHECK(token_format_by_name("systemd") == TOKEN_FORMAT_SYSTEMD, "");
	CHECK(token_format_by_name("Mount") < 0 && token_format_by_name("") < 0, "");

	/* any, an unnamed bit (the whole set as a mask), an empty set (no
	 * line), names
	 */
	ret = format(TOKEN_FORMAT_MOUNT, sets, out, NULL);
	CHECK(!ret && !strcmp(out, "delegate_cmds=any,delegate_maps=0x8000000000000002,"
			      "delegate_attachs=cgroup_inet4_connect:xdp"), "%d '%s'", ret, out);
	ret = format(TOKEN_FORMAT_INCUS, sets, out, NULL);
	CHECK(!ret && !strcmp(out, "security.bpffs.delegate_cmds=any|"
			      "security.bpffs.delegate_maps=0x8000000000000002|"
			      "security.bpffs.delegate_attachs=cgroup_inet4_connect,xdp"),
	      "%d '%s'", ret, out);
	ret = format(TOKEN_FORMAT_LXD, sets, out, NULL);
	CHECK(!ret && !strcmp(out, "security.delegate_bpf=true|"
			      "security.delegate_bpf.cmd_types=any|"
			      "security.delegate_bpf.map_types=0x8000000000000002|"
			      "security.delegate_bpf.attach_types=cgroup_inet4_connect:xdp"),
	      "%d '%s'", ret, out);
	/* systemd can't name bit 63 */
	ret = format(TOKEN_FORMAT_SYSTEMD, sets, out, &bad);
	CHECK(ret == -ENOENT && bad == TOKEN_SET_MAPS && !out[0], "%d %d '%s'", ret, bad, out);
	sets[TOKEN_SET_MAPS] &= ~(1ULL << 63);
	ret = format(TOKEN_FORMAT_SYSTEMD, sets, out, &bad);
	CHECK(!ret && !strcmp(out, "PrivateBPF=yes|BPFDelegateCommands=any|"
			      "BPFDelegateMaps=BPFMapTypeHash|"
			      "BPFDelegateAttachments=BPFCgroupInet4Connect,BPFXdp"),
	      "%d '%s'", ret, out);
	/* nothing: no line but the enabling ones */
	memset(sets, 0, sizeof(sets));
	ret = format(TOKEN_FORMAT_MOUNT, sets, out, NULL);
	CHECK(!ret && !out[0], "'%s'", out);
	ret = format(TOKEN_FORMAT_SYSTEMD, sets, out, NULL);
	CHECK(!ret && !strcmp(out, "PrivateBPF=yes"), "'%s'", out);
	CHECK(token_format_lines(__TOKEN_FORMAT_MAX, sets, join_line, out, NULL) == -EINVAL, "");
}

/* The root-equivalent program types, by name: exactly these nine */
static void test_root_equiv(void)
{
	char names[512];
	__u64 progs = 0;
	unsigned int bit;

	CHECK(!parse(TOKEN_SET_PROGS, "kprobe,tracepoint,perf_event,raw_tracepoint,"
		     "raw_tracepoint_writable,tracing,lsm,struct_ops,ext", &progs,
		     names), "%s", names);
	CHECK(token_root_equiv_progs(progs) == progs, "0x%llx",
	      (unsigned long long)progs);
	CHECK(token_root_equiv_progs(~0ULL) == progs, "0x%llx",
	      (unsigned long long)token_root_equiv_progs(~0ULL));
	/* every other named type is not */
	for (bit = 0; bit < 64; bit++) {
		if (!token_bit_name(TOKEN_SET_PROGS, bit) || (progs & (1ULL << bit)))
			continue;
		CHECK(!token_root_equiv_progs(1ULL << bit), "%s",
		      token_bit_name(TOKEN_SET_PROGS, bit));
	}
	CHECK(!token_root_equiv_progs(0), "");
	/* the names the create warning prints for "any" */
	token_mask_snprintf(names, sizeof(names), TOKEN_SET_PROGS,
			    token_root_equiv_progs(~0ULL), ", ");
	CHECK(!strcmp(names, "kprobe, tracepoint, perf_event, raw_tracepoint, "
		      "raw_tracepoint_writable, tracing, struct_ops, ext, lsm"),
	      "'%s'", names);
	expect_ok(TOKEN_SET_PROGS, "xdp,sched_cls,cgroup_skb,socket_filter",
		  (1ULL << BPF_PROG_TYPE_XDP) | (1ULL << BPF_PROG_TYPE_SCHED_CLS) |
		  (1ULL << BPF_PROG_TYPE_CGROUP_SKB) |
		  (1ULL << BPF_PROG_TYPE_SOCKET_FILTER));
	CHECK(!token_root_equiv_progs((1ULL << BPF_PROG_TYPE_XDP) |
				      (1ULL << BPF_PROG_TYPE_SCHED_CLS)), "");
}

static int dump(const char *kw)
{
	unsigned int set, bit;
	const char *name;

	for (set = 0; set < __TOKEN_SET_MAX; set++)
		if (!strcmp(kw, set_kw[set]))
			break;
	if (set == __TOKEN_SET_MAX)
		return 2;

	for (bit = 0; bit < 64; bit++) {
		name = token_bit_name(set, bit);
		if (name)
			printf("%u %s\n", bit, name);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "dump"))
		return dump(argv[2]);

	test_round_trip();
	test_cmds();
	test_types();
	test_any_and_numbers();
	test_errors();
	test_snprintf();
	test_str();
	test_formats();
	test_root_equiv();

	printf("%d checks, %d failed\n", checks, failures);
	return failures ? 1 : 0;
}
