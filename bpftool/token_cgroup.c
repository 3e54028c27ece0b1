// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/* The cgroup scope of BPF tokens: the cgroup v2 directory given to "token
 * create ... cgroup CGROUP", and the path that "token show" prints for the id
 * the kernel reports.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <linux/magic.h>

#include "main.h"
#include "token.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC	0x63677270
#endif

int token_cgroup_open(const char *path)
{
	struct statfs st_fs;
	int fd;

	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0)
		fd = fd_above_zero(fd);
	if (fd < 0) {
		if (errno == ENOTDIR)
			p_err("%s is not a cgroup v2 directory", path);
		else
			p_err("can't open cgroup %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstatfs(fd, &st_fs) ||
	    (unsigned long)st_fs.f_type != CGROUP2_SUPER_MAGIC) {
		p_err("%s is not a cgroup v2 directory", path);
		close(fd);
		return -1;
	}

	return fd;
}

/* The id of the cgroup v2 directory @path: its file handle, or, on a kernel
 * without name_to_handle_at(), its inode number (the same on 64-bit).
 */
static __u64 cgroup_id_of(const char *path, const struct stat *sb)
{
	struct {
		struct file_handle fh;
		__u64 id;
	} h = { .fh.handle_bytes = sizeof(__u64) };
	int mount_id;

	if (name_to_handle_at(AT_FDCWD, path, &h.fh, &mount_id, 0) ||
	    h.fh.handle_bytes != sizeof(__u64))
		return sb->st_ino;
	return h.id;
}

/* State of the walk of the cgroup v2 mount, for the nftw() callback */
static struct {
	__u64 id;
	size_t root_len;
	char *path;
} find;

static int find_cb(const char *fpath, const struct stat *sb, int typeflag,
		   struct FTW *ftwbuf)
{
	if (typeflag != FTW_D || cgroup_id_of(fpath, sb) != find.id)
		return 0;

	find.path = strdup(fpath[find.root_len] ? fpath + find.root_len : "/");
	return 1;
}

/* Walk the (first) cgroup v2 mount, as "cgroup tree" finds it, for the
 * cgroup @id.
 */
static char *find_cgroup(__u64 id)
{
	char *root;

	root = find_cgroup_root();
	if (!root)
		return NULL;
	find.id = id;
	find.path = NULL;
	/* "/" as the mount point: keep the path's own "/" */
	find.root_len = strcmp(root, "/") ? strlen(root) : 0;
	nftw(root, find_cb, 16, FTW_PHYS | FTW_MOUNT);
	free(root);

	return find.path;
}

/* Paths found so far: a list of many tokens of one scope walks once. */
static struct {
	__u64 id;
	char *path;
} *cache;
static size_t cache_cnt;

const char *token_cgroup_path(__u64 id)
{
	void *tmp;
	size_t i;

	for (i = 0; i < cache_cnt; i++)
		if (cache[i].id == id)
			return cache[i].path;

	tmp = reallocarray(cache, cache_cnt + 1, sizeof(*cache));
	if (!tmp)
		return find_cgroup(id);
	cache = tmp;
	cache[cache_cnt].id = id;
	cache[cache_cnt].path = find_cgroup(id);
	return cache[cache_cnt++].path;
}
