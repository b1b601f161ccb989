// SPDX-License-Identifier: GPL-2.0
/*
 * hc_mmapcmp DEV OFFSET FILE: map LEN(FILE) bytes of DEV at OFFSET with
 * mmap(MAP_SHARED, PROT_READ) and compare them with FILE.  Exit 0 when
 * equal, 1 when they differ (the first differing byte is printed), 2 on
 * error.  Guest test helper: an mmap of /dev/hypercache0 must read what was
 * written through it.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct stat st;
	char *map, *want;
	off_t off;
	int dfd, ffd;

	if (argc != 4) {
		fprintf(stderr, "usage: hc_mmapcmp DEV OFFSET FILE\n");
		return 2;
	}
	off = strtoll(argv[2], NULL, 0);
	dfd = open(argv[1], O_RDONLY);
	ffd = open(argv[3], O_RDONLY);
	if (dfd < 0 || ffd < 0 || fstat(ffd, &st) || !st.st_size) {
		fprintf(stderr, "hc_mmapcmp: open: %s\n", strerror(errno));
		return 2;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, dfd, off);
	want = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, ffd, 0);
	if (map == MAP_FAILED || want == MAP_FAILED) {
		fprintf(stderr, "hc_mmapcmp: mmap: %s\n", strerror(errno));
		return 2;
	}
	for (off_t i = 0; i < st.st_size; i++) {
		if (map[i] != want[i]) {
			fprintf(stderr, "hc_mmapcmp: differ at byte %lld\n",
				(long long)i);
			return 1;
		}
	}
	return 0;
}
