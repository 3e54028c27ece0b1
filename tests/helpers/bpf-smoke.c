// SPDX-License-Identifier: GPL-2.0
/*
 * bpf-smoke: minimal bpf(2) check through the patched libbpf.
 *
 *   bpf-smoke map    create an array map, update and look up one element
 *   bpf-smoke prog   load a socket filter `r0 = 0; exit` (JIT on 6.1 x86)
 *
 * Prints "<what>: ok" and exits 0, or "<what>: <errno name> (<text>)" and
 * exits 1.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

static int report(const char *what, int err)
{
	if (err >= 0) {
		printf("%s: ok\n", what);
		return 0;
	}
	err = -err;
	printf("%s: %s (%s)\n", what, err == EPERM ? "EPERM" : err == EACCES ? "EACCES" : "error",
	       strerror(err));
	return 1;
}

static int smoke_map(void)
{
	__u32 key = 0;
	__u64 val = 0x1234, out = 0;
	int fd, err;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "smoke", sizeof(key), sizeof(val), 1, NULL);
	if (fd < 0)
		return report("map", fd);
	err = bpf_map_update_elem(fd, &key, &val, BPF_ANY);
	if (!err)
		err = bpf_map_lookup_elem(fd, &key, &out);
	if (!err && out != val)
		err = -EIO;
	close(fd);
	return report("map", err);
}

static int smoke_prog(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd;

	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "smoke", "GPL", insns,
			   sizeof(insns) / sizeof(insns[0]), NULL);
	if (fd >= 0)
		close(fd);
	return report("prog", fd);
}

int main(int argc, char **argv)
{
	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	if (argc == 2 && !strcmp(argv[1], "map"))
		return smoke_map();
	if (argc == 2 && !strcmp(argv[1], "prog"))
		return smoke_prog();
	fprintf(stderr, "usage: %s map|prog\n", argv[0]);
	return 2;
}
