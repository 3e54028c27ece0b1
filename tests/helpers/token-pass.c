// SPDX-License-Identifier: GPL-2.0
/*
 * token-pass: hand a BPF token fd to another process over a Unix socket
 * (SCM_RIGHTS) and use it there.
 *
 *   token-pass send [-r] SOCKET TOKEN
 *	opens the pinned TOKEN (BPF_OBJ_GET: read-write, or read-only with
 *	-r), listens on the Unix socket path SOCKET, sends the fd to the first
 *	process that connects, exits 0 when it is sent. The socket file is
 *	removed before exit. Gives up after 30 s without a receiver.
 *   token-pass recv SOCKET
 *	connects to SOCKET (retrying for up to 10 s while nobody listens),
 *	receives one fd, checks it is a token (anon inode "bpf-token"), then
 *	creates an ARRAY map with it as map_token_fd and, as a control, the
 *	same map without a token. Prints
 *	    received: bpf-token
 *	    map_create with token: ok | <strerror>
 *	    map_create without token: ok | <strerror>
 *	and exits 0 when the map was created through the token, 1 otherwise.
 *
 * Errors: one "Error: ..." line on stderr and exit status 2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>

#include "testutil.h"	/* fail() */

static void usage(void)
{
	fail("usage: token-pass send [-r] SOCKET TOKEN | token-pass recv SOCKET");
}

static void socket_addr(const char *path, struct sockaddr_un *sun)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (!*path || strlen(path) >= sizeof(sun->sun_path))
		fail("bad socket path '%s'", path);
	strcpy(sun->sun_path, path);
}

static void on_alarm(int sig)
{
	static const char msg[] = "Error: nobody received the token in 30 s\n";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0)
		_exit(2);
	_exit(2);
}

static int do_send(int rdonly, const char *path, const char *token)
{
	LIBBPF_OPTS(bpf_obj_get_opts, gopts, .file_flags = rdonly ? BPF_F_RDONLY : 0);
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	struct sockaddr_un sun;
	struct cmsghdr *cmsg;
	struct msghdr msg = {};
	struct iovec iov;
	char byte = 'T';
	int tfd, lfd, cfd;

	tfd = bpf_obj_get_opts(token, &gopts);
	if (tfd < 0)
		fail("can't open token %s: %s", token, strerror(errno));

	socket_addr(path, &sun);
	lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		fail("socket: %s", strerror(errno));
	if (bind(lfd, (struct sockaddr *)&sun, sizeof(sun)))
		fail("can't bind %s: %s", path, strerror(errno));
	signal(SIGALRM, on_alarm);
	alarm(30);
	if (listen(lfd, 1)) {
		unlink(path);
		fail("listen: %s", strerror(errno));
	}
	cfd = accept(lfd, NULL, NULL);
	unlink(path);
	if (cfd < 0)
		fail("accept: %s", strerror(errno));

	iov.iov_base = &byte;
	iov.iov_len = 1;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cbuf;
	msg.msg_controllen = sizeof(cbuf);
	cmsg = CMSG_FIRSTHDR(&msg);
	cmsg->cmsg_level = SOL_SOCKET;
	cmsg->cmsg_type = SCM_RIGHTS;
	cmsg->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cmsg), &tfd, sizeof(int));
	if (sendmsg(cfd, &msg, 0) != 1)
		fail("sendmsg: %s", strerror(errno));
	/* wait until the receiver is done with the connection */
	while (read(cfd, &byte, 1) > 0)
		;
	printf("sent: %s (%s)\n", token, rdonly ? "read-only" : "read-write");
	return 0;
}

static int connect_retry(const char *path)
{
	struct timespec pause = { .tv_nsec = 50 * 1000 * 1000 };
	struct sockaddr_un sun;
	int fd, i;

	socket_addr(path, &sun);
	for (i = 0; i < 200; i++) {
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			fail("socket: %s", strerror(errno));
		if (!connect(fd, (struct sockaddr *)&sun, sizeof(sun)))
			return fd;
		if (errno != ENOENT && errno != ECONNREFUSED)
			fail("can't connect to %s: %s", path, strerror(errno));
		close(fd);
		nanosleep(&pause, NULL);
	}
	fail("nobody listens on %s", path);
}

static int recv_fd(int sfd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	struct cmsghdr *cmsg;
	struct msghdr msg = {};
	struct iovec iov;
	char byte;
	int fd;

	iov.iov_base = &byte;
	iov.iov_len = 1;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cbuf;
	msg.msg_controllen = sizeof(cbuf);
	if (recvmsg(sfd, &msg, MSG_CMSG_CLOEXEC) != 1)
		fail("recvmsg: %s", errno ? strerror(errno) : "connection closed");
	cmsg = CMSG_FIRSTHDR(&msg);
	if (!cmsg || cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS ||
	    cmsg->cmsg_len != CMSG_LEN(sizeof(int)))
		fail("no fd in the message");
	memcpy(&fd, CMSG_DATA(cmsg), sizeof(int));
	return fd;
}

/* An ARRAY map with token_fd (0: none); "ok" or the error */
static const char *try_map(int token_fd)
{
	LIBBPF_OPTS(bpf_map_create_opts, opts, .token_fd = token_fd);
	int fd;

	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "token_pass", 4, 8, 1, &opts);
	if (fd < 0)
		return strerror(errno);
	close(fd);
	return "ok";
}

static int do_recv(const char *path)
{
	char link[64], target[PATH_MAX];
	const char *with, *without;
	int sfd, tfd;
	ssize_t n;

	sfd = connect_retry(path);
	tfd = recv_fd(sfd);
	close(sfd);

	snprintf(link, sizeof(link), "/proc/self/fd/%d", tfd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		fail("readlink %s: %s", link, strerror(errno));
	target[n] = '\0';
	if (strcmp(target, "anon_inode:bpf-token"))
		fail("the received fd is not a BPF token: %s", target);
	printf("received: bpf-token\n");

	with = try_map(tfd);
	without = try_map(0);
	printf("map_create with token: %s\n", with);
	printf("map_create without token: %s\n", without);
	return strcmp(with, "ok") ? 1 : 0;
}

int main(int argc, char **argv)
{
	int rdonly = 0;

	/* the fd of a token must never be 0 (0 means "no token") */
	if (fcntl(0, F_GETFD) < 0 && open("/dev/null", O_RDONLY) != 0)
		fail("can't open /dev/null as fd 0");
	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "send")) {
		argv++;
		argc--;
		if (argc > 1 && !strcmp(argv[1], "-r")) {
			rdonly = 1;
			argv++;
			argc--;
		}
		if (argc != 3)
			usage();
		return do_send(rdonly, argv[1], argv[2]);
	}
	if (!strcmp(argv[1], "recv")) {
		if (argc != 3)
			usage();
		return do_recv(argv[2]);
	}
	usage();
}
