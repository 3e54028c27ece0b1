// SPDX-License-Identifier: GPL-2.0
/* abi-diff: the cases of mainline's BPF token ABI, one line each, so that
 * the output of two kernels can be compared line by line
 * (tests/abi/mainline-abi.bats compares it with mainline's, tests/abi/expected).
 *
 * Run as root, without arguments. Prints "CASE: RESULT" per case, RESULT
 * being "ok", an errno name (EPERM, ENOENT, ...) or a value; no CASE has
 * ": " in it. Every line is written out before the next system call. Exit
 * status 0 when every case ran, 1 when a step that sets them up failed
 * (a "setup ...: ERRNO" line says which), 2 on bad usage.
 *
 * It works in a mount namespace of its own, where /sys/fs/bpf is a new BPF
 * FS of the initial user namespace, and sets kernel.unprivileged_bpf_disabled
 * to 2 while it runs if it was 0 (without it a token would not be needed
 * for most map types). A child makes a user namespace whose root is
 * nobody (uid_map and gid_map "0 65534 1", written by the parent) with a
 * mount namespace, opens BPF FS contexts there (fsopen) and hands them to
 * the parent over a Unix socket (SCM_RIGHTS); the parent sets their
 * delegate_* options, creates them and mounts them (fsmount), and hands
 * the mounts back; the child opens their roots (openat(mnt_fd, ".")) and
 * makes tokens from them with BPF_TOKEN_CREATE ({ flags, bpffs_fd }).
 *
 * Raw bpf(2) with mainline's attrs, defined here (BPF_F_TOKEN_FD and the
 * token fds at mainline's offsets): neither libbpf nor the project's UAPI.
 * A token is never reopened through /proc/self/fd (that oopses Linux 6.12:
 * tests/vm-mainline-host/token-reopen-oops.bats).
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>

#include "mainline_abi.h"

#ifndef __NR_fsopen
#define __NR_fsopen		430
#endif
#ifndef __NR_fsconfig
#define __NR_fsconfig		431
#endif
#ifndef __NR_fsmount
#define __NR_fsmount		432
#endif
/* the mount API's constants, under names of their own: <sys/mount.h> may
 * have the originals
 */
#define FSOPEN_CLOEXEC_FLAG	0x1
#define FSMOUNT_CLOEXEC_FLAG	0x1
#define FSCONFIG_SET_STRING_CMD	1
#define FSCONFIG_CREATE_CMD	6

#define BPF_FS_MAGIC_NUMBER	0xcafe4a11

#define MAP_HASH		1
#define MAP_ARRAY		2
#define PROG_SOCKET_FILTER	1
#define PROG_XDP		6
#define ATTACH_XDP		37

#define CAP_NET_ADMIN_BIT	12
#define CAP_SYS_ADMIN_BIT	21
#define CAP_BPF_BIT		39
#define CAP_VERSION_3		0x20080522

/* mainline's prog_load, up to prog_token_fd */
struct prog_load_attr {
	uint32_t prog_type;
	uint32_t insn_cnt;
	uint64_t insns;
	uint64_t license;
	uint32_t log_level;
	uint32_t log_size;
	uint64_t log_buf;
	uint32_t kern_version;
	uint32_t prog_flags;
	char prog_name[16];
	uint32_t prog_ifindex;
	uint32_t expected_attach_type;
	uint32_t prog_btf_fd;
	uint32_t func_info_rec_size;
	uint64_t func_info;
	uint32_t func_info_cnt;
	uint32_t line_info_rec_size;
	uint64_t line_info;
	uint32_t line_info_cnt;
	uint32_t attach_btf_id;
	uint32_t attach_prog_fd;
	uint32_t core_relo_cnt;
	uint64_t fd_array;
	uint64_t core_relos;
	uint32_t core_relo_rec_size;
	uint32_t log_true_size;
	int32_t prog_token_fd;
};

/* mainline's btf_load, up to btf_token_fd */
struct btf_load_attr {
	uint64_t btf;
	uint64_t btf_log_buf;
	uint32_t btf_size;
	uint32_t btf_log_size;
	uint32_t btf_log_level;
	uint32_t btf_log_true_size;
	uint32_t btf_flags;
	int32_t btf_token_fd;
};

/* info, for BPF_OBJ_GET_INFO_BY_FD */
struct info_attr {
	uint32_t bpf_fd;
	uint32_t info_len;
	uint64_t info;
};

_Static_assert(offsetof(struct prog_load_attr, prog_token_fd) == 144,
	       "prog_token_fd is at mainline's offset");
_Static_assert(offsetof(struct btf_load_attr, btf_token_fd) == 36,
	       "btf_token_fd is at mainline's offset");

struct cap_header {
	uint32_t version;
	int pid;
};

struct cap_data {
	uint32_t effective;
	uint32_t permitted;
	uint32_t inheritable;
};

/* The BPF FS instances made for the user namespace, and their options */
enum { INST_DELEGATED, INST_NONE, INST_MAPS_ONLY, INST_WIDE, NR_INST };

static const struct {
	const char *key;
	const char *value;
} inst_opts[NR_INST][4] = {
	[INST_DELEGATED] = {
		{ "delegate_cmds", "map_create:prog_load" },
		{ "delegate_maps", "hash" },
		{ "delegate_progs", "xdp:socket_filter" },
		{ "delegate_attachs", "xdp" },
	},
	[INST_NONE] = { { NULL, NULL } },
	[INST_MAPS_ONLY] = { { "delegate_maps", "hash" } },
	/* every map type the kernel knows, and more, but not ~0 */
	[INST_WIDE] = {
		{ "delegate_cmds", "any" },
		{ "delegate_maps", "0x7fffffffffffffff" },
		{ "delegate_progs", "any" },
		{ "delegate_attachs", "any" },
	},
};

static pid_t main_pid;
static int sysctl_restore;

/* "NAME: VALUE", written out at once */
static void __attribute__((format(printf, 2, 3)))
line(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("%s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* "NAME: ok" if @ret is not negative, else "NAME: ERRNO"; returns @ret */
static long result(const char *name, long ret)
{
	int err = errno;

	if (ret < 0)
		line(name, "%s", errname(err));
	else
		line(name, "ok");
	errno = err;
	return ret;
}

static void quit(int status)
{
	if (getpid() == main_pid)
		exit(status);
	_exit(status);
}

/* A step that sets cases up failed: "setup WHAT: ERRNO", exit status 1 */
static void __attribute__((noreturn)) setup_failed(const char *what)
{
	line("setup", "%s %s", what, errname(errno));
	quit(1);
	__builtin_unreachable();
}

static void restore_sysctl(void)
{
	int fd;

	if (!sysctl_restore)
		return;
	fd = open("/proc/sys/kernel/unprivileged_bpf_disabled", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "0\n", 2) != 2)
			perror("unprivileged_bpf_disabled");
		close(fd);
	}
}

/* kernel.unprivileged_bpf_disabled to 2 if it is 0, back to 0 at exit */
static void sysctl_set(void)
{
	char c = 0;
	int fd;

	fd = open("/proc/sys/kernel/unprivileged_bpf_disabled", O_RDWR);
	if (fd < 0 || read(fd, &c, 1) != 1)
		setup_failed("read kernel.unprivileged_bpf_disabled");
	if (c == '0') {
		if (pwrite(fd, "2\n", 2, 0) != 2)
			setup_failed("set kernel.unprivileged_bpf_disabled");
		sysctl_restore = 1;
		atexit(restore_sysctl);
	}
	close(fd);
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		setup_failed(path);
	close(fd);
}

static void sync_send(int sock)
{
	char c = 1;

	if (write(sock, &c, 1) != 1)
		setup_failed("sync write");
}

static void sync_recv(int sock)
{
	char c;

	ssize_t n = read(sock, &c, 1);

	if (n != 1) {
		if (!n)
			errno = EPIPE;
		setup_failed("sync read");
	}
}

/* a control message buffer for NR_INST fds, aligned for struct cmsghdr */
union fds_cmsg {
	char buf[CMSG_SPACE(NR_INST * sizeof(int))];
	struct cmsghdr align;
};

static void send_fds(int sock, const int *fds, int n)
{
	union fds_cmsg u;
	struct msghdr msg = { 0 };
	struct cmsghdr *cmsg;
	char byte = 0;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };

	memset(&u, 0, sizeof(u));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = CMSG_SPACE(n * sizeof(int));
	cmsg = CMSG_FIRSTHDR(&msg);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(n * sizeof(int));
	memcpy(CMSG_DATA(cmsg), fds, n * sizeof(int));
	if (sendmsg(sock, &msg, 0) != 1)
		setup_failed("sendmsg");
}

static void recv_fds(int sock, int *fds, int n)
{
	union fds_cmsg u;
	struct msghdr msg = { 0 };
	struct cmsghdr *cmsg;
	char byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };

	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof(u.buf);
	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1)
		setup_failed("recvmsg");
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_type != SCM_RIGHTS ||
	    cmsg->cmsg_len != CMSG_LEN(n * sizeof(int))) {
		errno = EBADMSG;
		setup_failed("recvmsg");
	}
	memcpy(fds, CMSG_DATA(cmsg), n * sizeof(int));
}

/* waits for @pid; a child that did not exit 0 ends the run */
static void wait_child(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		setup_failed("waitpid");
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		quit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

/* clears @caps (bit numbers, -1 ends) from the effective set */
static void drop_caps(const int *caps)
{
	struct cap_header hdr = { .version = CAP_VERSION_3 };
	struct cap_data data[2];

	if (syscall(SYS_capget, &hdr, data))
		setup_failed("capget");
	for (; *caps >= 0; caps++)
		data[*caps / 32].effective &= ~(1U << (*caps % 32));
	if (syscall(SYS_capset, &hdr, data))
		setup_failed("capset");
}

static long token_create(int bpffs_fd, uint32_t flags)
{
	struct token_create_attr attr = { .flags = flags, .bpffs_fd = bpffs_fd };

	return sys_bpf(CMD_TOKEN_CREATE, &attr, sizeof(attr));
}

/* token create on @bpffs_fd with @flags; closes the token it made */
static void token_flags_case(const char *name, int bpffs_fd, uint32_t flags)
{
	long fd = result(name, token_create(bpffs_fd, flags));

	if (fd >= 0)
		close(fd);
}

static void token_case(const char *name, int bpffs_fd)
{
	token_flags_case(name, bpffs_fd, 0);
}

/* BPF_MAP_CREATE of a 4-byte map of @type with @flags and @token_fd, in an
 * attr of @size bytes whose byte @tail (if not negative) is 1
 */
static void map_case(const char *name, uint32_t type, uint32_t flags,
		     int token_fd, unsigned int size, int tail)
{
	static unsigned char buf[4096];
	struct map_create_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = type;
	attr.key_size = 4;
	attr.value_size = 4;
	attr.max_entries = 1;
	attr.map_flags = flags;
	attr.map_token_fd = token_fd;
	memset(buf, 0, sizeof(buf));
	memcpy(buf, &attr, sizeof(attr));
	if (tail >= 0)
		buf[tail] = 1;
	fd = result(name, sys_bpf(CMD_MAP_CREATE, buf, size ? size : sizeof(attr)));
	if (fd >= 0)
		close(fd);
}

/* BPF_PROG_LOAD of "r0 = 2; exit" as @type */
static void prog_case(const char *name, uint32_t type, uint32_t attach,
		      uint32_t flags, int token_fd)
{
	/* code, dst/src registers, off, imm */
	static const unsigned char insns[16] = {
		0xb7, 0x00, 0, 0, 2, 0, 0, 0,	/* r0 = 2 */
		0x95, 0x00, 0, 0, 0, 0, 0, 0,	/* exit */
	};
	static const char license[] = "GPL";
	struct prog_load_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = type;
	attr.insn_cnt = 2;
	attr.insns = (uintptr_t)insns;
	attr.license = (uintptr_t)license;
	attr.expected_attach_type = attach;
	attr.prog_flags = flags;
	attr.prog_token_fd = token_fd;
	fd = result(name, sys_bpf(CMD_PROG_LOAD, &attr, sizeof(attr)));
	if (fd >= 0)
		close(fd);
}

/* BPF_BTF_LOAD of a BTF with one type, int */
static void btf_case(const char *name, uint32_t flags, int token_fd)
{
	static const struct {
		uint16_t magic;
		uint8_t version;
		uint8_t flags;
		uint32_t hdr_len;
		uint32_t type_off;
		uint32_t type_len;
		uint32_t str_off;
		uint32_t str_len;
		uint32_t types[4];
		char strs[5];
	} btf = {
		.magic = 0xeb9f,
		.version = 1,
		.hdr_len = 24,
		.type_len = 16,
		.str_off = 16,
		.str_len = 5,
		/* "int": name_off 1, BTF_KIND_INT, 4 bytes, signed, 32 bits */
		.types = { 1, 1U << 24, 4, (1U << 24) | 32 },
		.strs = "\0int",
	};
	struct btf_load_attr attr;
	long fd;

	memset(&attr, 0, sizeof(attr));
	attr.btf = (uintptr_t)&btf;
	attr.btf_size = offsetof(typeof(btf), strs) + sizeof(btf.strs);
	attr.btf_flags = flags;
	attr.btf_token_fd = token_fd;
	fd = result(name, sys_bpf(CMD_BTF_LOAD, &attr, sizeof(attr)));
	if (fd >= 0)
		close(fd);
}

/* BPF_OBJ_GET_INFO_BY_FD of @fd into @info (@len bytes, zeroed first);
 * returns the info_len the kernel gave back, or -1 with errno
 */
static long obj_info(int fd, void *info, uint32_t len)
{
	struct info_attr attr = {
		.bpf_fd = fd,
		.info_len = len,
		.info = (uintptr_t)info,
	};

	memset(info, 0, len);
	if (sys_bpf(CMD_OBJ_GET_INFO_BY_FD, &attr, sizeof(attr)))
		return -1;
	return attr.info_len;
}

/* the first four u64 of struct bpf_token_info, mainline's, with an
 * info_len of 32
 */
static void info_cases(const char *prefix, int token_fd)
{
	static const char *const names[] = {
		"allowed_cmds", "allowed_maps", "allowed_progs", "allowed_attachs",
	};
	uint64_t info[4];
	char name[128];
	long len;
	int i;

	len = obj_info(token_fd, info, sizeof(info));
	snprintf(name, sizeof(name), "%s info_len for 32 bytes", prefix);
	if (len < 0) {
		result(name, len);
		return;
	}
	line(name, "%ld", len);
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "%s info %s", prefix, names[i]);
		line(name, "0x%llx", (unsigned long long)info[i]);
	}
}

/* The token's lines in /proc/self/fdinfo/FD: mainline's allowed_* lines
 * each as a case, and the names of the other lines (beyond those of every
 * file: pos, flags, mnt_id, ino) as one
 */
static void fdinfo_cases(const char *prefix, int token_fd)
{
	char path[64], buf[256], name[128], others[1024] = "";
	char *colon, *value;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", token_fd);
	f = fopen(path, "re");
	if (!f)
		setup_failed(path);
	while (fgets(buf, sizeof(buf), f)) {
		buf[strcspn(buf, "\n")] = 0;
		colon = strchr(buf, ':');
		if (!colon)
			continue;
		*colon = 0;
		for (value = colon + 1; *value == '\t' || *value == ' '; value++)
			;
		if (!strcmp(buf, "pos") || !strcmp(buf, "flags") ||
		    !strcmp(buf, "mnt_id") || !strcmp(buf, "ino"))
			continue;
		if (!strncmp(buf, "allowed_", 8)) {
			snprintf(name, sizeof(name), "%s fdinfo %s", prefix, buf);
			line(name, "%s", value);
			continue;
		}
		if (strlen(others) + strlen(buf) + 2 < sizeof(others)) {
			if (others[0])
				strcat(others, ",");
			strcat(others, buf);
		}
	}
	fclose(f);
	snprintf(name, sizeof(name), "%s fdinfo, other lines", prefix);
	line(name, "%s", others[0] ? others : "none");
}

static pid_t fork_or_fail(void)
{
	pid_t pid = fork();

	if (pid < 0)
		setup_failed("fork");
	return pid;
}

/* The cases of a task of the initial user namespace */
static void init_cases(int init_fd)
{
	int fd, closed;
	pid_t pid;

	token_case("token create, init root, /sys/fs/bpf", init_fd);

	if (mkdir("/sys/fs/bpf/dir", 0755))
		setup_failed("mkdir /sys/fs/bpf/dir");
	fd = open("/sys/fs/bpf/dir", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		setup_failed("open /sys/fs/bpf/dir");
	token_case("token create, init root, a directory below the root of a BPF FS", fd);
	close(fd);

	fd = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		setup_failed("open /tmp");
	token_case("token create, init root, /tmp", fd);
	close(fd);

	closed = dup(init_fd);
	close(closed);
	token_case("token create, init root, a closed fd", closed);

	token_flags_case("token create, init root, /sys/fs/bpf, flags=1", init_fd, 1);

	pid = fork_or_fail();
	if (!pid) {
		if (tok_become_nobody())
			setup_failed("nobody");
		token_case("token create, nobody of the initial user namespace, /sys/fs/bpf",
			   init_fd);
		_exit(0);
	}
	wait_child(pid);
}

/* In a child whose effective set lacks @caps: the token's use */
static void caps_cases(const char *without, const int *caps, int token, int root)
{
	char name[160];
	pid_t pid;

	pid = fork_or_fail();
	if (pid) {
		wait_child(pid);
		return;
	}
	drop_caps(caps);
	if (caps[0] == CAP_BPF_BIT) {
		snprintf(name, sizeof(name), "map create, hash through the token, %s", without);
		map_case(name, MAP_HASH, F_TOKEN_FD, token, 0, -1);
	}
	if (caps[1] == CAP_SYS_ADMIN_BIT && caps[0] == CAP_BPF_BIT) {
		snprintf(name, sizeof(name), "token create, userns root %s, the delegated instance",
			 without);
		token_case(name, root);
	}
	if (caps[0] == CAP_NET_ADMIN_BIT) {
		snprintf(name, sizeof(name), "prog load, xdp through the token, %s", without);
		prog_case(name, PROG_XDP, ATTACH_XDP, F_TOKEN_FD, token);
	}
	_exit(0);
}

/* The cases of the token made from the delegated instance @root (@mnt: its
 * fsmount() fd) by the root of its user namespace, and of one made from
 * the instance that delegates everything, @wide_root. Closes all three.
 */
static void delegated_cases(int root, int mnt, int wide_root)
{
	static const int no_bpf_admin[] = { CAP_BPF_BIT, CAP_SYS_ADMIN_BIT, -1 };
	static const int no_bpf[] = { CAP_BPF_BIT, -1 };
	static const int no_net_admin[] = { CAP_NET_ADMIN_BIT, CAP_SYS_ADMIN_BIT, -1 };
	static const int no_net[] = { CAP_NET_ADMIN_BIT, -1 };
	static unsigned char big[4096];
	struct token_create_attr tattr = { .flags = 0, .bpffs_fd = root };
	uint64_t info[32];
	int token, wide, closed;
	long len;
	pid_t pid;

	token_flags_case("token create, userns root, flags=1", root, 1);
	memset(big, 0, sizeof(big));
	memcpy(big, &tattr, sizeof(tattr));
	big[sizeof(tattr)] = 1;
	token = result("token create, userns root, a nonzero byte after bpffs_fd",
		       sys_bpf(CMD_TOKEN_CREATE, big, 16));
	if (token >= 0)
		close(token);
	big[sizeof(tattr)] = 0;
	big[sizeof(big) - 1] = 1;
	token = result("token create, userns root, 4096-byte attr with a nonzero last byte",
		       sys_bpf(CMD_TOKEN_CREATE, big, sizeof(big)));
	if (token >= 0)
		close(token);

	pid = fork_or_fail();
	if (!pid) {
		if (unshare(CLONE_NEWUSER))
			setup_failed("unshare nested user namespace");
		token_case("token create, root of a user namespace below, the delegated instance",
			   root);
		_exit(0);
	}
	wait_child(pid);

	token = result("token create, userns root, the delegated instance",
		       token_create(root, 0));
	if (token < 0)
		setup_failed("the delegated instance's token");

	info_cases("token", token);
	len = obj_info(token, info, sizeof(info));
	if (len < 0)
		result("token info_len for 256 bytes", len);
	else
		line("token info_len for 256 bytes", "%ld", len);
	fdinfo_cases("token", token);

	map_case("map create, hash through the token", MAP_HASH, F_TOKEN_FD, token, 0, -1);
	map_case("map create, array (not delegated) through the token", MAP_ARRAY,
		 F_TOKEN_FD, token, 0, -1);
	map_case("map create, hash, the token in map_token_fd without BPF_F_TOKEN_FD",
		 MAP_HASH, 0, token, 0, -1);
	if (dup2(token, 0) != 0)
		setup_failed("dup2 the token to fd 0");
	map_case("map create, hash through the token at fd 0", MAP_HASH, F_TOKEN_FD, 0, 0, -1);
	close(0);
	map_case("map create, hash, BPF_F_TOKEN_FD with a BPF FS fd", MAP_HASH, F_TOKEN_FD,
		 root, 0, -1);
	closed = dup(token);
	close(closed);
	map_case("map create, hash, BPF_F_TOKEN_FD with a closed fd", MAP_HASH, F_TOKEN_FD,
		 closed, 0, -1);
	map_case("map create, hash through the token, a nonzero byte after map_token_fd",
		 MAP_HASH, F_TOKEN_FD, token, sizeof(struct map_create_attr) + 8,
		 sizeof(struct map_create_attr));
	map_case("map create, hash through the token, 4096-byte attr with a nonzero last byte",
		 MAP_HASH, F_TOKEN_FD, token, 4096, 4095);

	prog_case("prog load, xdp through the token", PROG_XDP, ATTACH_XDP, F_TOKEN_FD, token);
	prog_case("prog load, xdp without a token", PROG_XDP, ATTACH_XDP, 0, 0);
	prog_case("prog load, xdp through the token, expected attach type 0 (not delegated)",
		  PROG_XDP, 0, F_TOKEN_FD, token);
	prog_case("prog load, socket_filter through the token, expected attach type 0 (not delegated)",
		  PROG_SOCKET_FILTER, 0, F_TOKEN_FD, token);

	btf_case("btf load through the token (btf_load not delegated)", F_TOKEN_FD, token);
	btf_case("btf load without a token", 0, 0);

	wide = result("token create, userns root, an instance that delegates any command and every map type",
		      token_create(wide_root, 0));
	if (wide >= 0) {
		info_cases("wide token", wide);
		fdinfo_cases("wide token", wide);
		btf_case("btf load through the wide token", F_TOKEN_FD, wide);
		close(wide);
	}
	close(wide_root);

	caps_cases("without CAP_BPF and CAP_SYS_ADMIN", no_bpf_admin, token, root);
	caps_cases("without CAP_BPF", no_bpf, token, root);
	caps_cases("without CAP_NET_ADMIN and CAP_SYS_ADMIN", no_net_admin, token, root);
	caps_cases("without CAP_NET_ADMIN", no_net, token, root);

	/* the instance's last mount goes: mainline's tokens outlive it */
	close(root);
	close(mnt);
	map_case("map create, hash through the token after the delegated instance's last mount is closed",
		 MAP_HASH, F_TOKEN_FD, token, 0, -1);
	prog_case("prog load, xdp through the token after the delegated instance's last mount is closed",
		  PROG_XDP, ATTACH_XDP, F_TOKEN_FD, token);
	close(token);
}

/* The child in the user namespace: its BPF FS contexts go to the parent,
 * their mounts come back
 */
static void __attribute__((noreturn)) userns_child(int sock, int init_fd)
{
	int fs[NR_INST], mnt[NR_INST], root[NR_INST], i;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS))
		setup_failed("unshare user and mount namespaces");
	sync_send(sock);
	/* uid_map and gid_map written: become the namespace's root */
	sync_recv(sock);
	if (setresgid(0, 0, 0) || setgroups(0, NULL) || setresuid(0, 0, 0))
		setup_failed("become the user namespace's root");
	for (i = 0; i < NR_INST; i++) {
		fs[i] = syscall(__NR_fsopen, "bpf", FSOPEN_CLOEXEC_FLAG);
		if (fs[i] < 0)
			setup_failed("fsopen bpf");
	}
	send_fds(sock, fs, NR_INST);
	for (i = 0; i < NR_INST; i++)
		close(fs[i]);
	recv_fds(sock, mnt, NR_INST);
	/* the parent has closed its copies */
	sync_recv(sock);
	for (i = 0; i < NR_INST; i++) {
		root[i] = openat(mnt[i], ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (root[i] < 0)
			setup_failed("open the root of a mount");
	}

	token_case("token create, userns root, the delegated instance's fsmount() fd (O_PATH)",
		   mnt[INST_DELEGATED]);
	token_case("token create, userns root, /sys/fs/bpf opened before unshare", init_fd);
	token_case("token create, userns root, an instance that delegates nothing",
		   root[INST_NONE]);
	token_case("token create, userns root, an instance that delegates map types only",
		   root[INST_MAPS_ONLY]);
	for (i = INST_NONE; i <= INST_MAPS_ONLY; i++) {
		close(root[i]);
		close(mnt[i]);
	}
	close(mnt[INST_WIDE]);
	delegated_cases(root[INST_DELEGATED], mnt[INST_DELEGATED], root[INST_WIDE]);
	_exit(0);
}

int main(int argc, char **argv)
{
	int init_fd, sock[2], fs[NR_INST], mnt[NR_INST], i, j, fd;
	char path[64];
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	main_pid = getpid();
	if (argc != 1) {
		fprintf(stderr, "usage: %s (as root)\n", argv[0]);
		return 2;
	}
	if (geteuid()) {
		fprintf(stderr, "%s: must run as root\n", argv[0]);
		return 2;
	}

	/* a BPF FS of the initial user namespace of its own on /sys/fs/bpf */
	if (unshare(CLONE_NEWNS))
		setup_failed("unshare mount namespace");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		setup_failed("make mounts private");
	if (mount("bpf", "/sys/fs/bpf", "bpf", 0, NULL))
		setup_failed("mount /sys/fs/bpf");
	sysctl_set();
	init_fd = open("/sys/fs/bpf", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (init_fd < 0)
		setup_failed("open /sys/fs/bpf");

	init_cases(init_fd);

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sock))
		setup_failed("socketpair");
	pid = fork_or_fail();
	if (!pid) {
		close(sock[0]);
		userns_child(sock[1], init_fd);
	}
	close(sock[1]);
	sync_recv(sock[0]);
	snprintf(path, sizeof(path), "/proc/%d/uid_map", pid);
	write_file(path, "0 65534 1\n");
	snprintf(path, sizeof(path), "/proc/%d/gid_map", pid);
	write_file(path, "0 65534 1\n");
	sync_send(sock[0]);

	recv_fds(sock[0], fs, NR_INST);
	for (i = 0; i < NR_INST; i++) {
		for (j = 0; j < 4 && inst_opts[i][j].key; j++) {
			if (syscall(__NR_fsconfig, fs[i], FSCONFIG_SET_STRING_CMD,
				    inst_opts[i][j].key, inst_opts[i][j].value, 0))
				setup_failed(inst_opts[i][j].key);
		}
		if (syscall(__NR_fsconfig, fs[i], FSCONFIG_CREATE_CMD, NULL, NULL, 0))
			setup_failed("FSCONFIG_CMD_CREATE");
		mnt[i] = syscall(__NR_fsmount, fs[i], FSMOUNT_CLOEXEC_FLAG, 0);
		if (mnt[i] < 0)
			setup_failed("fsmount");
	}
	fd = openat(mnt[INST_DELEGATED], ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		setup_failed("open the root of the delegated instance");
	token_case("token create, init root, the delegated instance", fd);
	close(fd);
	token_case("token create, init root, the delegated instance's fsmount() fd (O_PATH)",
		   mnt[INST_DELEGATED]);

	/* the child holds the instances' only mounts from here on */
	send_fds(sock[0], mnt, NR_INST);
	for (i = 0; i < NR_INST; i++) {
		close(mnt[i]);
		close(fs[i]);
	}
	sync_send(sock[0]);
	wait_child(pid);
	return 0;
}
