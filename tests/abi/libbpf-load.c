// SPDX-License-Identifier: GPL-2.0
/* libbpf-load OBJECT [xdp IFNAME]: open and load the BPF object file
 * OBJECT with the libbpf it is linked with and nothing else: no option, no
 * token of its own. Built by `make debian-libbpf` against Debian's libbpf
 * 1.4 (build/debian-libbpf, unmodified), which makes a BPF token
 * implicitly: from the BPF FS at LIBBPF_BPF_TOKEN_PATH, or at /sys/fs/bpf
 * when that is unset (an empty LIBBPF_BPF_TOKEN_PATH: no token).
 *
 * Prints "libbpf: MAJOR.MINOR", then "load: ok" or "load: ERRNO_NAME",
 * then "token: yes" when the process holds a BPF token after the load
 * (an fd whose fdinfo has mainline's allowed_cmds line: libbpf keeps its
 * token open with the object) or "token: no", then one line per program
 * and per map that has an fd, "prog NAME" / "map NAME".
 *
 * With "xdp IFNAME", after a load that succeeded: attaches the object's
 * first XDP program to the network device IFNAME in generic mode
 * (bpf_xdp_attach(), XDP_FLAGS_SKB_MODE: netlink, no token), checks that
 * the generic-mode program of IFNAME is now this one (bpf_xdp_query_id()
 * against bpf_prog_get_info_by_fd()'s id) and prints one more line,
 * "attach IFNAME: ok", or "attach IFNAME: ERRNO_NAME" (of the attach, the
 * query or the info), "attach IFNAME: no XDP program" or "attach IFNAME:
 * prog id N, not ID" (another program is attached); then detaches it
 * (bpf_xdp_detach()), so that IFNAME is free again for the next one, with
 * a line "detach IFNAME: ERRNO_NAME" only when that fails. Without the
 * extra arguments the output is the load's alone, as above.
 *
 * libbpf's warnings go to stderr. Exit status 0 when the load (and the
 * attach, its check and the detach, if asked) succeeded, 1 when one of
 * them failed, 2 on bad usage (a usage line on stderr; IFNAME no network
 * device is one) or when the object can't be opened.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <linux/if_link.h>
#include <bpf/bpf.h>
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

/* Attaches the first XDP program of the loaded @obj to the device
 * @ifindex (@ifname) in generic mode, checks that it is the one attached
 * there, detaches it; prints the "attach" line (and "detach" on failure).
 * 0, or 1 on failure.
 */
static int xdp_attach(struct bpf_object *obj, const char *ifname, int ifindex)
{
	struct bpf_prog_info info;
	struct bpf_program *prog;
	__u32 len = sizeof(info), id = 0;
	int fd = -1, err, ret = 0;

	bpf_object__for_each_program(prog, obj)
		if (bpf_program__type(prog) == BPF_PROG_TYPE_XDP &&
		    bpf_program__fd(prog) >= 0) {
			fd = bpf_program__fd(prog);
			break;
		}
	if (fd < 0) {
		printf("attach %s: no XDP program\n", ifname);
		return 1;
	}

	memset(&info, 0, sizeof(info));
	err = bpf_prog_get_info_by_fd(fd, &info, &len);
	if (err) {
		printf("attach %s: %s\n", ifname, errname(-err));
		return 1;
	}
	err = bpf_xdp_attach(ifindex, fd, XDP_FLAGS_SKB_MODE, NULL);
	if (err) {
		printf("attach %s: %s\n", ifname, errname(-err));
		return 1;
	}
	err = bpf_xdp_query_id(ifindex, XDP_FLAGS_SKB_MODE, &id);
	if (err) {
		printf("attach %s: %s\n", ifname, errname(-err));
		ret = 1;
	} else if (id != info.id) {
		printf("attach %s: prog id %u, not %u\n", ifname, id, info.id);
		ret = 1;
	} else {
		printf("attach %s: ok\n", ifname);
	}

	err = bpf_xdp_detach(ifindex, XDP_FLAGS_SKB_MODE, NULL);
	if (err) {
		printf("detach %s: %s\n", ifname, errname(-err));
		ret = 1;
	}
	return ret;
}

int main(int argc, char **argv)
{
	const char *ifname = NULL;
	struct bpf_object *obj;
	struct bpf_program *prog;
	struct bpf_map *map;
	int ifindex = 0, err;

	printf("libbpf: %u.%u\n", libbpf_major_version(), libbpf_minor_version());
	fflush(stdout);
	if (argc == 4 && !strcmp(argv[2], "xdp")) {
		ifname = argv[3];
	} else if (argc != 2) {
		fprintf(stderr, "usage: %s OBJECT [xdp IFNAME]\n", argv[0]);
		return 2;
	}
	if (ifname) {
		ifindex = if_nametoindex(ifname);
		if (!ifindex) {
			fprintf(stderr, "%s: no such network device: %s\n", ifname, strerror(errno));
			return 2;
		}
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
	if (!err && ifname)
		err = xdp_attach(obj, ifname, ifindex);
	bpf_object__close(obj);
	return err ? 1 : 0;
}
