// SPDX-License-Identifier: GPL-2.0
/* libbpf-load OBJECT: open and load the BPF object file OBJECT with the
 * libbpf it is linked with and nothing else: no option, no token of its
 * own. Built by `make debian-libbpf` against Debian's libbpf 1.4
 * (build/debian-libbpf, unmodified), which makes a BPF token implicitly:
 * from the BPF FS at LIBBPF_BPF_TOKEN_PATH, or at /sys/fs/bpf when that
 * is unset (an empty LIBBPF_BPF_TOKEN_PATH: no token).
 *
 * Prints "libbpf: MAJOR.MINOR", then "load: ok" or "load: ERRNO_NAME",
 * then "token: yes" when the process holds a BPF token after the load
 * (an fd whose fdinfo has mainline's allowed_cmds line: libbpf keeps its
 * token open with the object) or "token: no", then one line per program
 * and per map that has an fd, "prog NAME" / "map NAME". libbpf's warnings
 * go to stderr. Exit status 0 when the load succeeded, 1 when it failed,
 * 2 on bad usage or when the object can't be opened.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "mainline_abi.h"

/* Whether one of this process's fds is a BPF token (mainline's fdinfo) */
static int holds_token(void)
{
	char path[300], line[256];
	struct dirent *e;
	int found = 0;
	DIR *d;
	FILE *f;

	d = opendir("/proc/self/fdinfo");
	if (!d)
		return 0;
	while (!found && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/fdinfo/%s", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "allowed_cmds:", 13)) {
				found = 1;
				break;
			}
		fclose(f);
	}
	closedir(d);
	return found;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_map *map;
	int err;

	printf("libbpf: %u.%u\n", libbpf_major_version(), libbpf_minor_version());
	fflush(stdout);
	if (argc != 2) {
		fprintf(stderr, "usage: %s OBJECT\n", argv[0]);
		return 2;
	}

	obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		fprintf(stderr, "%s: can't open: %s\n", argv[1], strerror(errno));
		return 2;
	}
	err = bpf_object__load(obj);
	if (err)
		printf("load: %s\n", errname(-err));
	else
		printf("load: ok\n");
	printf("token: %s\n", holds_token() ? "yes" : "no");
	bpf_object__for_each_program(prog, obj)
		if (bpf_program__fd(prog) >= 0)
			printf("prog %s\n", bpf_program__name(prog));
	bpf_object__for_each_map(map, obj)
		if (bpf_map__fd(map) >= 0)
			printf("map %s\n", bpf_map__name(map));
	bpf_object__close(obj);
	return err ? 1 : 0;
}
