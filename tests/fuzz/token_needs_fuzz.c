// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* libFuzzer target for bpftool's parse of BPF object files
 * (bpftool/token_needs.c, token_kmem.c, token_check.c): what `bpftool token
 * needs OBJ` and `bpftool token create ... object OBJ` do with an object
 * that may come from an untrusted container image (oci/oci-hook).
 *
 * Each input is written to a memfd and handed, as /proc/self/fd/N (as the
 * OCI hook hands bpftool the objects), to token_needs_add_file():
 * token_object_read() (token_object.c: read once, limits, the checks of what
 * libbpf trusts), libbpf's bpf_object__open_mem() on those bytes,
 * token_needs_add_object(), token_kmem_add_object() (the ELF call-graph
 * scan) and add_file_name(): bpftool's own code. Then, for an object it
 * accepts, token_needs_add_tracing() and token_check_object() (what `prog
 * load ... token` checks, libbpf opening the file itself) against a token
 * that allows nothing, which writes the "does not allow" message.
 *
 * FUZZ_NEEDS_VERBOSE=1 prints bpftool's errors and warnings (replaying an
 * input).
 *
 * Properties checked, abort() on a violation (libFuzzer reports it as a
 * crash, with the input):
 *
 *  - token_needs_add_file() returns 0 or -1; -1 with exactly one error,
 *    one non-empty line; 0 with no error, the file recorded once, every
 *    element it needs a bit below 64 set in its set, and a name for who
 *    needs it;
 *  - token_check_object() returns 0 or -1, with at most one error or
 *    warning, each one line.
 *
 * Crashes, sanitizer reports, timeouts and memory blow-ups are libFuzzer's
 * to report.
 *
 * bpftool's main.c and token_info.c are not linked: p_err(), p_info() and
 * token_get_info() are defined here.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "main.h"
#include "token_check.h"
#include "token_needs.h"

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "property violated: %s (line %d)\n", \
				#cond, __LINE__);			\
			abort();					\
		}							\
	} while (0)

/* What bpftool printed for the current input. */
static struct {
	unsigned int errs, infos;
	char last[1024];
} out;

static void record(unsigned int *cnt, const char *fmt, va_list ap)
{
	int len;

	(*cnt)++;
	len = vsnprintf(out.last, sizeof(out.last), fmt, ap);
	CHECK(len > 0);
	/* one line each */
	CHECK(!strchr(out.last, '\n'));
	if (getenv("FUZZ_NEEDS_VERBOSE"))
		fprintf(stderr, "%s: %s\n", cnt == &out.errs ? "Error" : "Info",
			out.last);
}

void p_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record(&out.errs, fmt, ap);
	va_end(ap);
}

void p_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	record(&out.infos, fmt, ap);
	va_end(ap);
}

/* A live token that allows nothing. */
int token_get_info(int fd, struct token_desc *desc)
{
	memset(desc, 0, sizeof(*desc));
	desc->has_state = true;
	return 0;
}

static int memfd = -1;
static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	memfd = memfd_create("token_needs_fuzz.bpf.o", MFD_CLOEXEC);
	if (memfd < 0) {
		perror("memfd_create");
		exit(1);
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	return 0;
}

static void write_input(const uint8_t *data, size_t size)
{
	size_t off = 0;
	ssize_t n;

	CHECK(ftruncate(memfd, 0) == 0);
	while (off < size) {
		n = pwrite(memfd, data + off, size - off, off);
		CHECK(n > 0);
		off += n;
	}
}

/* What token_needs_add_file() left in @n for one object */
static void check_needs(const struct token_needs *n)
{
	__u64 sets[__TOKEN_SET_MAX] = {};
	size_t i;

	CHECK(n->file_cnt == 1 && !strcmp(n->files[0].path, path));
	for (i = 0; i < n->cnt; i++) {
		const struct token_need *it = &n->items[i];

		CHECK((unsigned int)it->set < __TOKEN_SET_MAX);
		CHECK(it->bit < 64);
		CHECK(it->who && it->who[0]);
		sets[it->set] |= 1ULL << it->bit;
	}
	for (i = 0; i < __TOKEN_SET_MAX; i++)
		CHECK(sets[i] == n->sets[i]);
	for (i = 0; i < n->kmem_cnt; i++) {
		CHECK(n->kmem[i].helpers);
		CHECK(!strcmp(n->kmem[i].object, path));
		CHECK(n->kmem[i].prog);
	}
}

/* What `prog load ... token` checks, against a token that allows nothing */
static void check_object(void)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .bpf_token_path = "");
	libbpf_print_fn_t old_print;
	struct bpf_object *obj;
	int ret;

	old_print = libbpf_set_print(NULL);
	obj = bpf_object__open_file(path, &opts);
	libbpf_set_print(old_print);
	/* token_needs_add_file() just opened it */
	CHECK(obj);

	memset(&out, 0, sizeof(out));
	ret = token_check_object("/fuzz/token", 3, obj, path);
	CHECK(ret == 0 || ret == -1);
	CHECK(out.errs + out.infos <= 1);
	CHECK(ret == 0 || out.errs == 1);
	bpf_object__close(obj);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct token_needs n = {};
	int ret;

	write_input(data, size);

	memset(&out, 0, sizeof(out));
	ret = token_needs_add_file(&n, path);
	CHECK(ret == 0 || ret == -1);
	if (ret) {
		CHECK(out.errs == 1);
		CHECK(n.file_cnt == 0);
	} else {
		CHECK(out.errs == 0);
		check_needs(&n);
		CHECK(token_needs_add_tracing(&n, 0) == 0);
		check_object();
	}
	token_needs_free(&n);
	return 0;
}
