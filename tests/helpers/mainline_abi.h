/* SPDX-License-Identifier: GPL-2.0 */
/* Mainline Linux's BPF token ABI, spelled out for the test programs that
 * speak it with raw bpf(2) (tests/helpers/token-delegated.c, abi-diff.c,
 * and tests/abi/libbpf-load.c for errname()): no UAPI header of this
 * project, so that the same binary is a mainline client on every kernel.
 * The bpf(2) wrapper sys_bpf() is testutil.h's.
 */
#ifndef MAINLINE_ABI_H
#define MAINLINE_ABI_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "testutil.h"	/* sys_bpf(), errno_name_fmt() */

#define CMD_MAP_CREATE		0
#define CMD_PROG_LOAD		5
#define CMD_OBJ_GET_INFO_BY_FD	15
#define CMD_BTF_LOAD		18
#define CMD_TOKEN_CREATE	36
#define F_TOKEN_FD		(1U << 16)

/* mainline's token_create */
struct token_create_attr {
	uint32_t flags;
	uint32_t bpffs_fd;
};

/* mainline's map_create, up to map_token_fd */
struct map_create_attr {
	uint32_t map_type;
	uint32_t key_size;
	uint32_t value_size;
	uint32_t max_entries;
	uint32_t map_flags;
	uint32_t inner_map_fd;
	uint32_t numa_node;
	char map_name[16];
	uint32_t map_ifindex;
	uint32_t btf_fd;
	uint32_t btf_key_type_id;
	uint32_t btf_value_type_id;
	uint32_t btf_vmlinux_value_type_id;
	uint64_t map_extra;
	int32_t value_type_btf_obj_fd;
	int32_t map_token_fd;
};

_Static_assert(offsetof(struct map_create_attr, map_token_fd) == 76,
	       "map_token_fd is at mainline's offset");

/* The name of errno value @err ("errno N" for one errno_name() lacks) */
static inline const char *errname(int err)
{
	return errno_name_fmt(err, "errno %d");
}

#endif
