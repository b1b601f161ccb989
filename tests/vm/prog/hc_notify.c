// SPDX-License-Identifier: GPL-2.0
/*
 * hc_notify SOCKET CMD [ARG...]: the service manager's side of
 * sd_notify(3), for testing a Type=notify daemon without systemd.
 *
 * Binds a datagram socket at path SOCKET, runs CMD with NOTIFY_SOCKET set
 * to it, and prints every notification it sends as "notify: LINE" (one
 * line per assignment, flushed at once), then "exit: STATUS" when CMD
 * ends; its exit status is CMD's.  "pid: PID" is printed first, so a test
 * can signal CMD.  Notifications from another process than CMD are
 * printed as "notify(other PID): LINE" (Type=notify with NotifyAccess=main
 * would drop them).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static int recv_one(int fd, pid_t child)
{
	char buf[4096], cbuf[CMSG_SPACE(sizeof(struct ucred))];
	struct iovec iov = { buf, sizeof(buf) - 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct ucred *uc = NULL;
	struct cmsghdr *c;
	char *line, *save;
	ssize_t n;

	n = recvmsg(fd, &mh, MSG_DONTWAIT);
	if (n < 0)
		return errno == EAGAIN ? 0 : -errno;
	buf[n] = '\0';
	for (c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS)
			uc = (struct ucred *)CMSG_DATA(c);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (uc && uc->pid != child)
			printf("notify(other %d): %s\n", (int)uc->pid, line);
		else
			printf("notify: %s\n", line);
	}
	fflush(stdout);
	return 1;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, one = 1, status, rc;
	struct pollfd pfd;
	pid_t child;

	if (argc < 3 || strlen(argv[1]) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "usage: hc_notify SOCKET CMD [ARG...]\n");
		return 2;
	}
	strcpy(sa.sun_path, argv[1]);
	unlink(argv[1]);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one))) {
		perror("hc_notify: socket");
		return 2;
	}
	setenv("NOTIFY_SOCKET", argv[1], 1);
	child = fork();
	if (child < 0) {
		perror("hc_notify: fork");
		return 2;
	}
	if (child == 0) {
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	printf("pid: %d\n", (int)child);
	fflush(stdout);
	pfd.fd = fd;
	pfd.events = POLLIN;
	for (;;) {
		rc = waitpid(child, &status, WNOHANG);
		if (rc == child)
			break;
		if (poll(&pfd, 1, 50) > 0)
			while (recv_one(fd, child) > 0)
				;
	}
	while (recv_one(fd, child) > 0)
		;
	unlink(argv[1]);
	if (WIFSIGNALED(status)) {
		printf("exit: signal %d\n", WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	printf("exit: %d\n", WEXITSTATUS(status));
	return WEXITSTATUS(status);
}
