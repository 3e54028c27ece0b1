// SPDX-License-Identifier: GPL-2.0
/*
 * trace_target: load an object whose fentry/fexit programs trace another
 * BPF program, the way xdpdump loads its xdpdump_bpf.o: the programs'
 * section names carry a placeholder ("fentry/func"), and the application
 * sets the real target (a loaded program and its function) before load.
 * bpftool prog load cannot do that, so the parity test uses this.
 *
 *   trace_target [-t TOKEN] OBJ TARGET_PIN FUNC PIN_DIR
 *
 * Sets every TRACING program of OBJ to attach to FUNC of the program pinned
 * at TARGET_PIN, loads OBJ (through the BPF token pinned at TOKEN with -t;
 * an empty TOKEN disables LIBBPF_BPF_TOKEN_PATH, which libbpf uses
 * otherwise), and pins its programs at PIN_DIR/NAME. Exits 0 when all of
 * this worked; otherwise prints one "Error:" line and exits 1 (nothing is
 * left pinned).
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

static void __attribute__((format(printf, 1, 2))) error(const char *fmt, ...)
{
	va_list ap;

	fputs("Error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int main(int argc, char **argv)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts);
	const char *obj_path, *target, *func, *pin_dir;
	struct bpf_program *prog, *pinned;
	char path[PATH_MAX];
	struct bpf_object *obj;
	int opt, target_fd, err, ret = 1, traced = 0;

	while ((opt = getopt(argc, argv, "t:")) != -1) {
		if (opt != 't') {
			error("usage: %s [-t TOKEN] OBJ TARGET_PIN FUNC PIN_DIR", argv[0]);
			return 1;
		}
		opts.bpf_token_path = optarg;
	}
	if (argc - optind != 4) {
		error("usage: %s [-t TOKEN] OBJ TARGET_PIN FUNC PIN_DIR", argv[0]);
		return 1;
	}
	obj_path = argv[optind];
	target = argv[optind + 1];
	func = argv[optind + 2];
	pin_dir = argv[optind + 3];

	target_fd = bpf_obj_get(target);
	if (target_fd < 0) {
		error("can't open the target program %s: %s", target, strerror(errno));
		return 1;
	}

	obj = bpf_object__open_file(obj_path, &opts);
	if (!obj) {
		error("can't open %s: %s", obj_path, strerror(errno));
		goto out_fd;
	}
	bpf_object__for_each_program(prog, obj) {
		if (bpf_program__type(prog) != BPF_PROG_TYPE_TRACING)
			continue;
		err = bpf_program__set_attach_target(prog, target_fd, func);
		if (err) {
			error("can't set %s's attach target: %s",
			      bpf_program__name(prog), strerror(-err));
			goto out_obj;
		}
		traced++;
	}
	if (!traced) {
		error("%s has no fentry/fexit program", obj_path);
		goto out_obj;
	}

	err = bpf_object__load(obj);
	if (err) {
		error("failed to load %s: %s", obj_path, strerror(-err));
		goto out_obj;
	}
	bpf_object__for_each_program(prog, obj) {
		snprintf(path, sizeof(path), "%s/%s", pin_dir, bpf_program__name(prog));
		err = bpf_program__pin(prog, path);
		if (err) {
			error("can't pin %s at %s: %s", bpf_program__name(prog), path,
			      strerror(-err));
			/* unpin what was pinned */
			bpf_object__for_each_program(pinned, obj) {
				if (pinned == prog)
					break;
				snprintf(path, sizeof(path), "%s/%s", pin_dir,
					 bpf_program__name(pinned));
				unlink(path);
			}
			goto out_obj;
		}
	}
	ret = 0;
out_obj:
	bpf_object__close(obj);
out_fd:
	close(target_fd);
	return ret;
}
