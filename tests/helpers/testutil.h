/* SPDX-License-Identifier: GPL-2.0 */
/* What the C test programs share that needs no UAPI header: the bpf(2)
 * syscall, errno names, the drop to "nobody" and fail(). Included by
 * mainline_abi.h (whose programs stay mainline clients: no header of this
 * project), by tests/stress/tokutil.h (the stress, fault-injection and fuzz
 * programs) and by token-attack.c and token-pass.c. setresuid() wants
 * _GNU_SOURCE defined before the first system header.
 */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <errno.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>

/* the kernel-internal ENOTSUPP, leaked to user space by a few paths */
#define ENOTSUPP_		524

/* uid and gid of "nobody" */
#define TOK_NOBODY		65534

static inline long sys_bpf(int cmd, void *attr, unsigned int size)
{
	return syscall(__NR_bpf, cmd, attr, size);
}

/* The name of errno value @err (or -@err), NULL for one not listed here */
static inline const char *errno_name(int err)
{
	switch (err < 0 ? -err : err) {
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EBADF: return "EBADF";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case EXDEV: return "EXDEV";
	case ENOTDIR: return "ENOTDIR";
	case EISDIR: return "EISDIR";
	case EINVAL: return "EINVAL";
	case EMFILE: return "EMFILE";
	case ENOSPC: return "ENOSPC";
	case E2BIG: return "E2BIG";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case ELOOP: return "ELOOP";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENOTSUPP_: return "ENOTSUPP";
	case ENOSYS: return "ENOSYS";
	case EROFS: return "EROFS";
	case ENXIO: return "ENXIO";
	case ENODEV: return "ENODEV";
	case ESRCH: return "ESRCH";
	case EAGAIN: return "EAGAIN";
	case EINTR: return "EINTR";
	case ENOTEMPTY: return "ENOTEMPTY";
	default: return NULL;
	}
}

/* errno_name(@err), or @fmt (one %d, for @err) for a value it lacks */
static inline const char *errno_name_fmt(int err, const char *fmt)
{
	static char buf[32];
	const char *name = errno_name(err);

	if (name)
		return name;
	snprintf(buf, sizeof(buf), fmt, err);
	return buf;
}

/* Becomes "nobody" of the current user namespace: uid and gid TOK_NOBODY,
 * no supplementary groups. From root, the kernel then clears the permitted
 * and effective capabilities (no SECBIT_KEEP_CAPS). 0, or -errno with
 * errno set (the caller may perror()).
 */
static inline int tok_become_nobody(void)
{
	if (setgroups(0, NULL) || setresgid(TOK_NOBODY, TOK_NOBODY, TOK_NOBODY) ||
	    setresuid(TOK_NOBODY, TOK_NOBODY, TOK_NOBODY))
		return -errno;
	return 0;
}

/* "Error: MESSAGE" on stderr (stdout flushed first), exit status 2 */
static inline void __attribute__((noreturn, format(printf, 1, 2)))
fail(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("Error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

#endif
