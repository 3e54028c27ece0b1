// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim: run test_verifier's privileged tests as an unprivileged
 * user whose loads go through a BPF token.
 *
 *   ORACLE_TOKEN=/sys/fs/bpf/DIR/TOKEN LD_PRELOAD=tokshim.so ./test_verifier
 *
 * test_verifier decides that it is privileged from capget() and drops and
 * raises CAP_BPF, CAP_PERFMON and CAP_NET_ADMIN around its unprivileged
 * variants with capset(). The shim keeps a pretend effective set instead:
 * capget() reports it, capset() records it without calling the kernel.
 * While the pretend set holds CAP_BPF, every BPF_MAP_CREATE, BPF_BTF_LOAD
 * and BPF_PROG_LOAD that libbpf makes through syscall(__NR_bpf, ...) gets
 * the token's fd in map_token_fd / btf_token_fd / prog_token_fd; without
 * it the call goes to the kernel as it is, so the unprivileged variants
 * stay genuinely unprivileged.
 *
 * Each BPF_PROG_LOAD is also reported on stderr as one marker,
 * "@@shim prog_type=N token=0|1 ret=R@@", with no newline, so that a
 * caller that merges stderr into an unbuffered stdout can tell which test
 * loaded which program type.
 *
 * ORACLE_UNBUFFERED=1 makes stdout unbuffered (for those markers).
 * Without ORACLE_TOKEN the shim does nothing else.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <linux/capability.h>

#define PRETEND_ALL	((1ULL << (CAP_LAST_CAP + 1)) - 1)

static int token_fd = -1;
static int active;
static __u64 pretend_eff = PRETEND_ALL;

static long (*real_syscall)(long, ...);

static long fwd_syscall(long nr, long a1, long a2, long a3, long a4, long a5,
			long a6)
{
	if (!real_syscall)
		real_syscall = dlsym(RTLD_NEXT, "syscall");
	return real_syscall(nr, a1, a2, a3, a4, a5, a6);
}

__attribute__((constructor)) static void shim_init(void)
{
	const char *path = getenv("ORACLE_TOKEN");
	union bpf_attr attr;

	/* test output and the shim's markers in the order they happen */
	if (getenv("ORACLE_UNBUFFERED"))
		setvbuf(stdout, NULL, _IONBF, 0);
	if (!path || !*path)
		return;
	memset(&attr, 0, sizeof(attr));
	attr.pathname = (__u64)(uintptr_t)path;
	attr.file_flags = 0; /* read-write: a token is used only so */
	token_fd = fwd_syscall(__NR_bpf, BPF_OBJ_GET, (long)&attr,
			       sizeof(attr), 0, 0, 0);
	if (token_fd < 0) {
		fprintf(stderr, "Error: tokshim: cannot open token %s: %s\n",
			path, strerror(errno));
		exit(2);
	}
	active = 1;
}

static int privileged(void)
{
	return !!(pretend_eff & (1ULL << CAP_BPF));
}

static long shim_bpf(int cmd, void *uattr, unsigned int size)
{
	union bpf_attr attr;
	int with_token = 0;
	long ret;

	if (cmd != BPF_MAP_CREATE && cmd != BPF_BTF_LOAD &&
	    cmd != BPF_PROG_LOAD)
		return fwd_syscall(__NR_bpf, cmd, (long)uattr, size, 0, 0, 0);

	/* A copy as large as the kernel's union, zero beyond the caller's. */
	memset(&attr, 0, sizeof(attr));
	memcpy(&attr, uattr, size < sizeof(attr) ? size : sizeof(attr));
	if (privileged()) {
		with_token = 1;
		switch (cmd) {
		case BPF_MAP_CREATE:
			attr.map_flags |= BPF_F_TOKEN_FD;
			attr.map_token_fd = token_fd;
			break;
		case BPF_BTF_LOAD:
			attr.btf_flags |= BPF_F_TOKEN_FD;
			attr.btf_token_fd = token_fd;
			break;
		case BPF_PROG_LOAD:
			attr.prog_flags |= BPF_F_TOKEN_FD;
			attr.prog_token_fd = token_fd;
			break;
		}
	}
	ret = fwd_syscall(__NR_bpf, cmd, (long)&attr,
			  size > sizeof(attr) ? size : sizeof(attr), 0, 0, 0);
	if (cmd == BPF_PROG_LOAD) {
		int saved = errno;

		fprintf(stderr, "@@shim prog_type=%u token=%d ret=%ld@@",
			attr.prog_type, with_token, ret < 0 ? -saved : 0L);
		errno = saved;
	}
	/* Outputs the kernel wrote into the copy (e.g. the verifier log
	 * sizes); the caller's token and flags fields keep what the caller
	 * put there.
	 */
	{
		union bpf_attr orig = {};
		size_t n = size < sizeof(attr) ? size : sizeof(attr);
		int saved = errno;

		memcpy(&orig, uattr, n);
		if (cmd == BPF_MAP_CREATE) {
			attr.map_flags = orig.map_flags;
			attr.map_token_fd = orig.map_token_fd;
		} else if (cmd == BPF_BTF_LOAD) {
			attr.btf_flags = orig.btf_flags;
			attr.btf_token_fd = orig.btf_token_fd;
		} else {
			attr.prog_flags = orig.prog_flags;
			attr.prog_token_fd = orig.prog_token_fd;
		}
		memcpy(uattr, &attr, n);
		errno = saved;
	}
	return ret;
}

long syscall(long nr, ...)
{
	long a[6];
	va_list ap;
	int i;

	va_start(ap, nr);
	for (i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (active && nr == __NR_bpf)
		return shim_bpf((int)a[0], (void *)a[1], (unsigned int)a[2]);
	return fwd_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
}

int capget(cap_user_header_t hdr, cap_user_data_t data)
{
	int (*real)(cap_user_header_t, cap_user_data_t) =
		dlsym(RTLD_NEXT, "capget");
	int err = real(hdr, data);

	if (err || !active || !data)
		return err;
	data[0].effective = (__u32)pretend_eff;
	data[0].permitted = (__u32)PRETEND_ALL;
	if (hdr->version != _LINUX_CAPABILITY_VERSION_1) {
		data[1].effective = pretend_eff >> 32;
		data[1].permitted = PRETEND_ALL >> 32;
	}
	return 0;
}

int capset(cap_user_header_t hdr, const cap_user_data_t data)
{
	int (*real)(cap_user_header_t, const cap_user_data_t) =
		dlsym(RTLD_NEXT, "capset");

	if (!active)
		return real(hdr, data);
	pretend_eff = data[0].effective;
	if (hdr->version != _LINUX_CAPABILITY_VERSION_1)
		pretend_eff |= (__u64)data[1].effective << 32;
	return 0;
}
