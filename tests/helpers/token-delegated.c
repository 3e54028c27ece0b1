// SPDX-License-Identifier: GPL-2.0
/* token-delegated BPFFS [MAP_TYPE...]: make a token from the root of the
 * delegated BPF FS mounted at BPFFS, with mainline's BPF_TOKEN_CREATE
 * ({ flags = 0, bpffs_fd }), then create one map of each MAP_TYPE (a number
 * of enum bpf_map_type) through it with BPF_F_TOKEN_FD, at mainline's attr
 * offsets. Raw bpf(2) with the layout defined here: the same binary runs
 * on a mainline kernel and on this project's.
 *
 * Prints "token: ok" or "token: ERRNO_NAME", then per map type "map N: ok"
 * or "map N: ERRNO_NAME". Exit status 0 if the token was made, 1 if not, 2
 * on bad usage. Run it in the user namespace that owns the mount, with
 * CAP_BPF there (e.g. under nsenter -U).
 *
 * token-delegated --reopen BPFFS [MAP_TYPE...]: the same, with the token's
 * fd reopened through /proc/self/fd/N (open(2), O_RDWR) and the new fd as
 * map_token_fd; "reopen: ok" or "reopen: ERRNO_NAME" follows the token's
 * line (exit status 1 if the reopen failed). On mainline a token file has
 * no open operation: the reopened file carries no token, and
 * BPF_MAP_CREATE with it oopses Linux 6.12 in bpf_token_get_from_fd
 * (tests/vm-mainline-host/token-reopen-oops.bats). Every line is written
 * out before the next system call.
 *
 * token-delegated --hold BPFFS [MAP_TYPE...]: the same, then "holding" and
 * the process keeps its token until a signal kills it, for the tests of what `bpftool token show` says of live tokens.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "mainline_abi.h"

int main(int argc, char **argv)
{
	struct token_create_attr tattr;
	struct map_create_attr mattr;
	const char *prog = argv[0];
	int fs_fd, token_fd, map_fd, i, reopen = 0, hold = 0;
	char path[64];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 2 && !strcmp(argv[1], "--reopen")) {
		reopen = 1;
		argv++;
		argc--;
	} else if (argc >= 2 && !strcmp(argv[1], "--hold")) {
		hold = 1;
		argv++;
		argc--;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: %s [--reopen | --hold] BPFFS [MAP_TYPE...]\n",
			prog);
		return 2;
	}
	fs_fd = open(argv[1], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fs_fd < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 2;
	}

	memset(&tattr, 0, sizeof(tattr));
	tattr.bpffs_fd = fs_fd;
	token_fd = sys_bpf(CMD_TOKEN_CREATE, &tattr, sizeof(tattr));
	if (token_fd < 0) {
		printf("token: %s\n", errname(errno));
		return 1;
	}
	printf("token: ok\n");
	if (reopen) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", token_fd);
		token_fd = open(path, O_RDWR | O_CLOEXEC);
		if (token_fd < 0) {
			printf("reopen: %s\n", errname(errno));
			return 1;
		}
		printf("reopen: ok\n");
	}

	for (i = 2; i < argc; i++) {
		memset(&mattr, 0, sizeof(mattr));
		mattr.map_type = strtoul(argv[i], NULL, 0);
		mattr.key_size = 4;
		mattr.value_size = 4;
		mattr.max_entries = 1;
		mattr.map_flags = F_TOKEN_FD;
		mattr.map_token_fd = token_fd;
		map_fd = sys_bpf(CMD_MAP_CREATE, &mattr, sizeof(mattr));
		if (map_fd < 0) {
			printf("map %s: %s\n", argv[i], errname(errno));
		} else {
			printf("map %s: ok\n", argv[i]);
			close(map_fd);
		}
	}
	if (hold) {
		printf("holding\n");
		for (;;)
			pause();
	}
	return 0;
}
