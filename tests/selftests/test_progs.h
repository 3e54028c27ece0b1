/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal stand-in for tools/testing/selftests/bpf/test_progs.h.
 *
 * Building the whole test_progs runner needs clang, vmlinux BTF and
 * hundreds of BPF objects; this header gives prog_tests/token.c the part
 * of the test_progs API it uses (test__start_subtest(), test__skip(),
 * test__fail() and the ASSERT_*() family, with the same semantics: each
 * macro evaluates its arguments once, keeps errno, returns true when the
 * check holds and otherwise marks the current subtest as failed), on top
 * of the same system and libbpf headers. harness.c implements it and
 * reports every subtest as one TAP line.
 */
#ifndef __TEST_PROGS_H
#define __TEST_PROGS_H

#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stdarg.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/param.h>

#include <linux/types.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(arr) (sizeof(arr) / sizeof((arr)[0]))
#endif

bool test__start_subtest(const char *name);
void test__end_subtest(void);
void test__skip(void);
void test__fail(void);
void test__force_log(void);

/* Marks the current (sub)test failed and prints "func:FAIL:tag msg". */
void test__report_fail(const char *func, int line, const char *tag,
		       const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Prints "func:PASS:tag" in verbose mode. */
void test__report_pass(const char *func, const char *tag);

#define __TEST_CHECK(ok, tag, fmt, ...) ({				\
	bool ___chk_ok = (ok);						\
	int ___save_errno = errno;					\
	if (___chk_ok)							\
		test__report_pass(__func__, (tag));			\
	else								\
		test__report_fail(__func__, __LINE__, (tag),		\
				  fmt, ##__VA_ARGS__);			\
	errno = ___save_errno;						\
	___chk_ok;							\
})

#define PRINT_FAIL(format...)						\
	test__report_fail(__func__, __LINE__, "", format)

#define CHECK_FAIL(condition) ({					\
	bool ___cf = !!(condition);					\
	__TEST_CHECK(!___cf, "CHECK_FAIL", "condition is true\n");	\
	___cf;								\
})

#define ASSERT_FAIL(fmt, args...) ({					\
	__TEST_CHECK(false, "", fmt "\n", ##args);			\
})

#define ASSERT_TRUE(actual, name) ({					\
	bool ___ok = (actual);						\
	__TEST_CHECK(___ok, (name), "unexpected %s: got FALSE\n",	\
		     (name));						\
})

#define ASSERT_FALSE(actual, name) ({					\
	bool ___ok = !(actual);						\
	__TEST_CHECK(___ok, (name), "unexpected %s: got TRUE\n",	\
		     (name));						\
})

#define __ASSERT_CMP(actual, expected, name, op, rev) ({		\
	typeof(actual) ___act = (actual);				\
	typeof(expected) ___exp = (expected);				\
	__TEST_CHECK(___act op ___exp, (name),				\
		     "unexpected %s: actual %lld " rev " expected %lld\n",\
		     (name), (long long)(___act), (long long)(___exp));	\
})

#define ASSERT_EQ(actual, expected, name)				\
	__ASSERT_CMP(actual, expected, name, ==, "!=")
#define ASSERT_NEQ(actual, expected, name)				\
	__ASSERT_CMP(actual, expected, name, !=, "==")
#define ASSERT_LT(actual, expected, name)				\
	__ASSERT_CMP(actual, expected, name, <, ">=")
#define ASSERT_LE(actual, expected, name)				\
	__ASSERT_CMP(actual, expected, name, <=, ">")
#define ASSERT_GT(actual, expected, name)				\
	__ASSERT_CMP(actual, expected, name, >, "<=")
#define ASSERT_GE(actual, expected, name)				\
	__ASSERT_CMP(actual, expected, name, >=, "<")

#define ASSERT_STREQ(actual, expected, name) ({				\
	const char *___act = (actual);					\
	const char *___exp = (expected);				\
	__TEST_CHECK(strcmp(___act, ___exp) == 0, (name),		\
		     "unexpected %s: actual '%s' != expected '%s'\n",	\
		     (name), ___act, ___exp);				\
})

#define ASSERT_STRNEQ(actual, expected, len, name) ({			\
	const char *___act = (actual);					\
	const char *___exp = (expected);				\
	int ___len = (len);						\
	__TEST_CHECK(strncmp(___act, ___exp, ___len) == 0, (name),	\
		     "unexpected %s: actual '%.*s' != expected '%.*s'\n",\
		     (name), ___len, ___act, ___len, ___exp);		\
})

#define ASSERT_HAS_SUBSTR(str, substr, name) ({				\
	const char *___str = (str);					\
	const char *___substr = (substr);				\
	__TEST_CHECK(strstr(___str, ___substr) != NULL, (name),		\
		     "unexpected %s: '%s' is not a substring of '%s'\n",\
		     (name), ___substr, ___str);			\
})

#define ASSERT_OK(res, name) ({						\
	long long ___res = (res);					\
	__TEST_CHECK(___res == 0, (name),				\
		     "unexpected error: %lld (errno %d)\n",		\
		     ___res, errno);					\
})

#define ASSERT_ERR(res, name) ({					\
	long long ___res = (res);					\
	__TEST_CHECK(___res < 0, (name),				\
		     "unexpected success: %lld\n", ___res);		\
})

#define ASSERT_NULL(ptr, name) ({					\
	const void *___res = (ptr);					\
	__TEST_CHECK(!___res, (name),					\
		     "unexpected pointer: %p\n", ___res);		\
})

#define ASSERT_OK_PTR(ptr, name) ({					\
	const void *___res = (ptr);					\
	int ___err = libbpf_get_error(___res);				\
	__TEST_CHECK(___err == 0, (name),				\
		     "unexpected error: %d\n", ___err);			\
})

#define ASSERT_ERR_PTR(ptr, name) ({					\
	const void *___res = (ptr);					\
	int ___err = libbpf_get_error(___res);				\
	__TEST_CHECK(___err != 0, (name),				\
		     "unexpected pointer: %p\n", ___res);		\
})

static inline __u64 ptr_to_u64(const void *ptr)
{
	return (__u64)(unsigned long)ptr;
}

static inline void *u64_to_ptr(__u64 ptr)
{
	return (void *)(unsigned long)ptr;
}

#endif /* __TEST_PROGS_H */
