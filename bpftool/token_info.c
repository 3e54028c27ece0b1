// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* Opening pinned BPF tokens, and what the kernel says about a token. */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <linux/bpf.h>

#include <bpf/bpf.h>
#include <bpf/libbpf_internal.h> /* offsetofend */

#include "main.h"
#include "token.h"

static void token_info_to_desc(const struct bpf_token_info *info, __u32 len,
			       struct token_desc *desc)
{
	desc->sets[TOKEN_SET_CMDS] = info->allowed_cmds;
	desc->sets[TOKEN_SET_MAPS] = info->allowed_maps;
	desc->sets[TOKEN_SET_PROGS] = info->allowed_progs;
	desc->sets[TOKEN_SET_ATTACH] = info->allowed_attachs;

	desc->has_state = len >= offsetofend(struct bpf_token_info, depth);
	if (!desc->has_state)
		return;
	desc->uses[TOKEN_USE_MAP_CREATE] = info->map_creates;
	desc->uses[TOKEN_USE_BTF_LOAD] = info->btf_loads;
	desc->uses[TOKEN_USE_PROG_LOAD] = info->prog_loads;
	desc->uses[TOKEN_USE_TOKEN_CREATE] = info->token_creates;
	desc->denials = info->denials;
	desc->userns_ino = info->userns_ino;
	desc->flags = info->flags;
	desc->depth = info->depth;
	desc->relaxed_verifier = info->flags & BPF_TOKEN_INFO_RELAXED_VERIFIER;

	desc->has_cgroup = len >= offsetofend(struct bpf_token_info, cgroup_id);
	desc->cgroup_id = desc->has_cgroup ? info->cgroup_id : 0;

	desc->has_id = len >= offsetofend(struct bpf_token_info, id);
	desc->id = desc->has_id ? info->id : 0;
}

int token_get_info(int fd, struct token_desc *desc)
{
	struct bpf_token_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return -errno;

	token_info_to_desc(&info, len, desc);
	return 0;
}

/* fd 0 means "no token" (or "no directory") for the kernel, so never hand
 * it out.
 */
int fd_above_zero(int fd)
{
	int nfd;

	if (fd != 0)
		return fd;

	nfd = fcntl(fd, F_DUPFD_CLOEXEC, 1);
	close(fd);
	return nfd;
}

int token_open_pinned(const char *path, bool use)
{
	bool refused;
	struct stat st;
	int fd, type, err;

	fd = open_obj_pinned_flags(path, true, use ? 0 : BPF_F_RDONLY);
	if (fd >= 0)
		fd = fd_above_zero(fd);
	if (fd < 0) {
		err = errno;
		/* BPF FS says EACCES for anything it doesn't know how to
		 * open (a file elsewhere, a directory), make that clearer.
		 */
		refused = err == EACCES && !stat(path, &st);
		if (refused && !is_bpffs(path))
			p_err("can't open token %s: not a BPF FS", path);
		else if (refused && !S_ISREG(st.st_mode))
			p_err("%s is not a BPF token", path);
		else if (err == EACCES && use)
			p_err("can't open token %s: %s (using a token needs read and write permission on it)",
			      path, strerror(err));
		else
			p_err("can't open token %s: %s", path, strerror(err));
		return -1;
	}

	type = get_fd_type(fd);
	if (type != BPF_OBJ_TOKEN) {
		if (type >= 0)
			p_err("%s is not a BPF token", path);
		close(fd);
		return -1;
	}

	return fd;
}

int token_read_pinned(const char *path, struct token_desc *desc)
{
	int fd, err;

	fd = token_open_pinned(path, false);
	if (fd < 0)
		return -1;

	err = token_get_info(fd, desc);
	close(fd);
	if (err) {
		p_err("can't get token info for %s: %s", path, strerror(-err));
		return -1;
	}

	desc->path = (char *)path;
	return 0;
}
