// SPDX-License-Identifier: GPL-2.0
/*
 * Minimal test_progs-compatible runner for prog_tests/token.c.
 *
 * Runs test_token() and reports each subtest as one TAP line,
 * "ok N token/<subtest>" or "not ok N token/<subtest>", preceded by the
 * failed checks as "# " comments.
 *
 * Usage: test_token [-v] [-l] [-t FILTER]...
 *   -t FILTER  run only matching subtests; FILTER is "token", or a glob
 *              matched against "token/<subtest>" (or against <subtest>
 *              alone); may be repeated or comma-separated
 *   -l         list the subtests ("token/<subtest>") and exit
 *   -v         also print the checks that pass
 * Exit status: 0 all selected subtests passed, 1 a failure, 2 nothing
 * matched the filter or bad usage.
 */
#define _GNU_SOURCE
#include <fnmatch.h>
#include "test_progs.h"

#define TEST_NAME		"token"
#define SUBTEST_TIMEOUT_SEC	120

void test_token(void);

static struct {
	char **filters;
	int filter_cnt;
	bool list;
	bool verbose;

	int tap_num;		/* TAP lines printed so far */
	int passed, failed, skipped;

	bool in_subtest;
	const char *sub_name;
	int sub_errors;
	bool sub_skipped;
	int top_errors;		/* failures outside of any subtest */
} env;

static void tap_comment(const char *prefix, const char *msg)
{
	const char *line = msg, *nl;

	while (*line) {
		nl = strchrnul(line, '\n');
		printf("# %s%.*s\n", prefix, (int)(nl - line), line);
		prefix = "";
		line = *nl ? nl + 1 : nl;
	}
	fflush(stdout);
}

void test__report_fail(const char *func, int line, const char *tag,
		       const char *fmt, ...)
{
	char prefix[256], msg[4096];
	va_list args;

	test__fail();
	va_start(args, fmt);
	vsnprintf(msg, sizeof(msg), fmt, args);
	va_end(args);
	if (!msg[0])
		strcpy(msg, "\n");
	snprintf(prefix, sizeof(prefix), "%s:FAIL:%s:%d ", func, tag, line);
	tap_comment(prefix, msg);
}

void test__report_pass(const char *func, const char *tag)
{
	if (env.verbose)
		printf("# %s:PASS:%s\n", func, tag);
}

void test__fail(void)
{
	if (env.in_subtest)
		env.sub_errors++;
	else
		env.top_errors++;
}

void test__skip(void)
{
	if (env.in_subtest)
		env.sub_skipped = true;
}

void test__force_log(void)
{
}

static bool name_selected(const char *sub)
{
	char full[512];
	int i;

	if (!env.filter_cnt)
		return true;

	snprintf(full, sizeof(full), "%s/%s", TEST_NAME, sub);
	for (i = 0; i < env.filter_cnt; i++) {
		const char *f = env.filters[i];

		if (!strcmp(f, TEST_NAME) || !fnmatch(f, full, 0) ||
		    !fnmatch(f, sub, 0))
			return true;
	}
	return false;
}

void test__end_subtest(void)
{
	if (!env.in_subtest)
		return;

	alarm(0);
	env.tap_num++;
	if (env.sub_errors) {
		env.failed++;
		printf("not ok %d %s/%s\n", env.tap_num, TEST_NAME,
		       env.sub_name);
	} else if (env.sub_skipped) {
		env.skipped++;
		printf("ok %d %s/%s # SKIP\n", env.tap_num, TEST_NAME,
		       env.sub_name);
	} else {
		env.passed++;
		printf("ok %d %s/%s\n", env.tap_num, TEST_NAME, env.sub_name);
	}
	fflush(stdout);
	env.in_subtest = false;
}

bool test__start_subtest(const char *name)
{
	test__end_subtest();

	if (!name_selected(name))
		return false;
	if (env.list) {
		printf("%s/%s\n", TEST_NAME, name);
		return false;
	}

	printf("# %s/%s\n", TEST_NAME, name);
	fflush(stdout);
	env.in_subtest = true;
	env.sub_name = name;
	env.sub_errors = 0;
	env.sub_skipped = false;
	alarm(SUBTEST_TIMEOUT_SEC);
	return true;
}

static void on_alarm(int sig)
{
	static const char msg[] = "Bail out! subtest timed out\n";

	(void)sig;
	if (write(STDOUT_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

static void add_filters(char *arg)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(arg, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		env.filters = realloc(env.filters,
				      (env.filter_cnt + 1) * sizeof(char *));
		if (!env.filters) {
			perror("realloc");
			exit(2);
		}
		env.filters[env.filter_cnt++] = tok;
	}
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	char msg[1024];

	if (level == LIBBPF_DEBUG && !env.verbose)
		return 0;
	vsnprintf(msg, sizeof(msg), fmt, args);
	tap_comment("libbpf: ", msg);
	return 0;
}

int main(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "t:lv")) != -1) {
		switch (opt) {
		case 't':
			add_filters(optarg);
			break;
		case 'l':
			env.list = true;
			break;
		case 'v':
			env.verbose = true;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-v] [-l] [-t FILTER]...\n",
				argv[0]);
			return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", argv[0],
			argv[optind]);
		return 2;
	}

	/* fd 0 never is a token ("no token"): keep 0-2 taken, so that no
	 * token or other BPF object ever gets one of them
	 */
	for (opt = 0; opt < 3; opt++) {
		if (fcntl(opt, F_GETFD) < 0 && open("/dev/null", O_RDWR) < 0) {
			perror("/dev/null");
			return 2;
		}
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	libbpf_set_print(libbpf_print);
	signal(SIGALRM, on_alarm);

	if (env.list) {
		test_token();
		return 0;
	}

	if (geteuid() != 0) {
		printf("Bail out! %s must run as root\n", argv[0]);
		return 1;
	}

	printf("TAP version 13\n");
	test_token();
	test__end_subtest();

	if (env.top_errors) {
		env.tap_num++;
		env.failed++;
		printf("not ok %d %s\n", env.tap_num, TEST_NAME);
	}
	printf("1..%d\n", env.tap_num);
	printf("# %s: %d passed, %d failed, %d skipped\n", TEST_NAME,
	       env.passed, env.failed, env.skipped);

	if (!env.tap_num) {
		printf("# no subtest matched the filter\n");
		return 2;
	}
	return env.failed ? 1 : 0;
}
