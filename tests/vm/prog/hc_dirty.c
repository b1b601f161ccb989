// SPDX-License-Identifier: GPL-2.0
/*
 * hc_dirty OFFSET LENGTH: a stray buffered writer of /dev/hypercache0.
 * Writes LENGTH bytes (0x5a) at byte OFFSET through the page cache, then
 * writes back exactly that range and waits for it (sync_file_range(2)
 * with WAIT_BEFORE | WRITE | WAIT_AFTER), in this process's context: no
 * other page of the device is written back.  Prints "written" or
 * "hc_dirty: STEP: strerror" and exits 0 or 1.
 *
 * Guest test helper (stage-fence.sh): the write fence refuses the
 * write-back of a process that has no stage there, so the pages are lost
 * ("lost async page write") and sync_file_range() fails with EIO.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long long off, len;
	char *buf;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: hc_dirty OFFSET LENGTH\n");
		return 2;
	}
	off = strtoull(argv[1], NULL, 0);
	len = strtoull(argv[2], NULL, 0);
	buf = malloc(len ? len : 1);
	if (!buf)
		return 1;
	memset(buf, 0x5a, len);
	fd = open("/dev/hypercache0", O_WRONLY);
	if (fd < 0) {
		fprintf(stderr, "hc_dirty: open: %s\n", strerror(errno));
		return 1;
	}
	if (pwrite(fd, buf, len, off) != (ssize_t)len) {
		fprintf(stderr, "hc_dirty: pwrite: %s\n", strerror(errno));
		return 1;
	}
	if (sync_file_range(fd, off, len, SYNC_FILE_RANGE_WAIT_BEFORE |
			    SYNC_FILE_RANGE_WRITE |
			    SYNC_FILE_RANGE_WAIT_AFTER)) {
		fprintf(stderr, "hc_dirty: sync_file_range: %s\n",
			strerror(errno));
		return 1;
	}
	printf("written\n");
	return 0;
}
