// SPDX-License-Identifier: GPL-2.0
/*
 * hc_runas UID CMD [ARG...]: run CMD as UID (and gid UID) with no
 * supplementary groups and therefore no capabilities, to test that
 * administrative operations are refused to unprivileged users.
 */
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uid_t uid;

	if (argc < 3) {
		fprintf(stderr, "usage: hc_runas UID CMD [ARG...]\n");
		return 2;
	}
	uid = (uid_t)strtoul(argv[1], NULL, 10);
	if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) {
		perror("hc_runas");
		return 2;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
