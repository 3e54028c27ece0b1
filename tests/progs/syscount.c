// SPDX-License-Identifier: GPL-2.0
/*
 * syscount: user space of syscount.bpf.c, through the skeleton that
 * `bpftool gen skeleton` makes of it (syscount.skel.h), as a libbpf
 * application would be written.
 *
 *   syscount [-t TOKEN] [-n CALLS] [-w WEIGHT]
 *
 * Opens the skeleton (with bpf_object_open_opts.bpf_token_path = TOKEN when
 * -t is given; an empty TOKEN disables LIBBPF_BPF_TOKEN_PATH, which libbpf
 * uses otherwise), sets the process and the system call to count (.rodata)
 * and the weight (.data) before load, loads, attaches the raw tracepoint,
 * makes CALLS getpid() system calls and reads the results back from .bss.
 * Prints one line,
 *
 *   matched N total N hz N kernel_version N bpf_syscall N
 *
 * and exits 0 when the counts are exactly CALLS and CALLS * WEIGHT and the
 * .kconfig values are set; otherwise, or when a step fails, it prints one
 * "Error:" line and exits 1.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "syscount.skel.h"

static int verbose;

static int print_fn(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG && !verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void __attribute__((format(printf, 1, 2))) error(const char *fmt, ...)
{
	va_list ap;

	fputs("Error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static int parse_num(const char *s, const char *what, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 0);
	if (errno || !*s || *end || *out == 0 || *out > 1000000) {
		error("bad %s '%s': a number from 1 to 1000000", what, s);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts);
	unsigned long calls = 10, weight = 3, i;
	struct syscount *skel;
	int opt, err, ret = 1;

	while ((opt = getopt(argc, argv, "t:n:w:v")) != -1) {
		switch (opt) {
		case 't':
			opts.bpf_token_path = optarg;
			break;
		case 'n':
			if (parse_num(optarg, "call count", &calls))
				return 1;
			break;
		case 'w':
			if (parse_num(optarg, "weight", &weight))
				return 1;
			break;
		case 'v':
			verbose = 1;
			break;
		default:
			error("usage: %s [-t TOKEN] [-n CALLS] [-w WEIGHT] [-v]", argv[0]);
			return 1;
		}
	}
	if (optind != argc) {
		error("unexpected argument '%s'", argv[optind]);
		return 1;
	}
	libbpf_set_print(print_fn);

	skel = syscount__open_opts(&opts);
	if (!skel) {
		error("opening the skeleton failed: %s", strerror(errno));
		return 1;
	}

	/* before load: .rodata and .data */
	skel->rodata->target_tgid = getpid();
	skel->rodata->target_syscall = SYS_getpid;
	skel->data->weight = weight;

	err = syscount__load(skel);
	if (err) {
		error("loading the skeleton failed: %s", strerror(-err));
		goto out;
	}
	err = syscount__attach(skel);
	if (err) {
		error("attaching raw_tp/sys_enter failed: %s", strerror(-err));
		goto out;
	}

	for (i = 0; i < calls; i++)
		syscall(SYS_getpid);

	syscount__detach(skel);

	printf("matched %llu total %llu hz %u kernel_version %u bpf_syscall %u\n",
	       (unsigned long long)skel->bss->matched,
	       (unsigned long long)skel->bss->total, skel->bss->hz,
	       skel->bss->kernel_version, skel->bss->bpf_syscall);

	if (skel->bss->matched != calls || skel->bss->total != calls * weight) {
		error("counted %llu calls (total %llu), made %lu (total %lu)",
		      (unsigned long long)skel->bss->matched,
		      (unsigned long long)skel->bss->total, calls, calls * weight);
		goto out;
	}
	if (!skel->bss->hz || !skel->bss->kernel_version || skel->bss->bpf_syscall != 1) {
		error(".kconfig values not seen by the program");
		goto out;
	}
	ret = 0;
out:
	syscount__destroy(skel);
	return ret;
}
