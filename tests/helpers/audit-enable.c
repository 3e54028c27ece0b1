// SPDX-License-Identifier: GPL-2.0
/*
 * audit-enable 0|1: switch the kernel's audit on or off (AUDIT_SET of
 * "enabled" over NETLINK_AUDIT, as `auditctl -e` does). Without an audit
 * daemon, the kernel then writes its records to the kernel log.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/audit.h>
#include <linux/netlink.h>

int main(int argc, char **argv)
{
	struct {
		struct nlmsghdr nlh;
		struct audit_status s;
	} req = {
		.nlh.nlmsg_len = sizeof(req),
		.nlh.nlmsg_type = AUDIT_SET,
		.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
		.s.mask = AUDIT_STATUS_ENABLED,
	};
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	char buf[1024];
	struct nlmsghdr *nlh = (void *)buf;
	int fd, err;

	if (argc != 2 || (strcmp(argv[1], "0") && strcmp(argv[1], "1"))) {
		fprintf(stderr, "usage: audit-enable 0|1\n");
		return 2;
	}
	req.s.enabled = atoi(argv[1]);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_AUDIT);
	if (fd < 0 ||
	    sendto(fd, &req, sizeof(req), 0, (void *)&sa, sizeof(sa)) < 0 ||
	    recv(fd, buf, sizeof(buf), 0) < (ssize_t)sizeof(*nlh)) {
		perror("audit-enable");
		return 1;
	}
	err = nlh->nlmsg_type == NLMSG_ERROR ?
	      ((struct nlmsgerr *)NLMSG_DATA(nlh))->error : 0;
	if (err) {
		fprintf(stderr, "audit-enable: %s\n", strerror(-err));
		return 1;
	}
	return 0;
}
