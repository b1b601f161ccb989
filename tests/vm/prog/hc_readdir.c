// SPDX-License-Identifier: GPL-2.0
/*
 * hc_readdir DIR: each entry of DIR as readdir(3) gives it, one line
 * "D_INO NAME" (D_INO in decimal, as stat -c %i prints st_ino), in
 * readdir's order, "." and ".." included.  The number is the d_ino the
 * file system's readdir emitted: nothing is stat'ed (busybox's ls -i and
 * find stat every entry, so they show the inode's number, not readdir's).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	struct dirent *de;
	DIR *d;

	if (argc != 2) {
		fprintf(stderr, "usage: hc_readdir DIR\n");
		return 2;
	}
	d = opendir(argv[1]);
	if (!d) {
		perror(argv[1]);
		return 1;
	}
	for (;;) {
		errno = 0;
		de = readdir(d);
		if (!de)
			break;
		printf("%llu %s\n", (unsigned long long)de->d_ino, de->d_name);
	}
	if (errno) {
		perror(argv[1]);
		return 1;
	}
	closedir(d);
	return fflush(stdout) ? 1 : 0;
}
