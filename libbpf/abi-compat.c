// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Symbols that Debian 12's libbpf1 (1.1.2) exports and the libbpf copy of
 * Linux 6.1 does not have: the *_get_fd_by_id_opts() variants of the
 * LIBBPF_1.1.0 version node. They are linked into the shared libbpf.so.1
 * only (scripts/libbpf.sh), so that an application built against the
 * distribution's libbpf finds every symbol it may use. They pass
 * open_flags to the kernel, which refuses what it does not support.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>

#define COMPAT_API __attribute__((visibility("default")))

/* The layout of libbpf 1.1's struct bpf_get_fd_by_id_opts */
struct bpf_get_fd_by_id_opts {
	size_t sz;
	__u32 open_flags;
	size_t :0;
};

/*
 * opts may be NULL; otherwise sz must cover at least sz itself, and every
 * byte beyond the fields known here must be zero (libbpf's rule for opts).
 */
static int opts_ok(const struct bpf_get_fd_by_id_opts *opts)
{
	const char *p = (const char *)opts;
	size_t i;

	if (!opts)
		return 1;
	if (opts->sz < sizeof(opts->sz))
		return 0;
	for (i = sizeof(*opts); i < opts->sz; i++)
		if (p[i])
			return 0;
	return 1;
}

static __u32 opts_open_flags(const struct bpf_get_fd_by_id_opts *opts)
{
	if (!opts || opts->sz < offsetof(struct bpf_get_fd_by_id_opts, open_flags) +
				 sizeof(opts->open_flags))
		return 0;
	return opts->open_flags;
}

/* cmd with the object id in the attr's first word; fd or -errno (errno set) */
static int get_fd_by_id(enum bpf_cmd cmd, __u32 id,
			const struct bpf_get_fd_by_id_opts *opts)
{
	const size_t attr_sz = offsetof(union bpf_attr, open_flags) +
			       sizeof(((union bpf_attr *)0)->open_flags);
	union bpf_attr attr;
	int fd;

	if (!opts_ok(opts)) {
		errno = EINVAL;
		return -EINVAL;
	}
	memset(&attr, 0, attr_sz);
	/* prog_id, map_id, btf_id and link_id share the first word */
	attr.prog_id = id;
	attr.open_flags = opts_open_flags(opts);
	fd = syscall(__NR_bpf, cmd, &attr, attr_sz);
	return fd < 0 ? -errno : fd;
}

COMPAT_API int bpf_prog_get_fd_by_id_opts(__u32 id, const struct bpf_get_fd_by_id_opts *opts)
{
	return get_fd_by_id(BPF_PROG_GET_FD_BY_ID, id, opts);
}

COMPAT_API int bpf_map_get_fd_by_id_opts(__u32 id, const struct bpf_get_fd_by_id_opts *opts)
{
	return get_fd_by_id(BPF_MAP_GET_FD_BY_ID, id, opts);
}

COMPAT_API int bpf_btf_get_fd_by_id_opts(__u32 id, const struct bpf_get_fd_by_id_opts *opts)
{
	return get_fd_by_id(BPF_BTF_GET_FD_BY_ID, id, opts);
}

COMPAT_API int bpf_link_get_fd_by_id_opts(__u32 id, const struct bpf_get_fd_by_id_opts *opts)
{
	return get_fd_by_id(BPF_LINK_GET_FD_BY_ID, id, opts);
}
