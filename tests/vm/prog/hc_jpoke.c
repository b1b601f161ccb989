// SPDX-License-Identifier: GPL-2.0
/*
 * hc_jpoke MODE DEV...: append a crafted record at the end of the journal
 * log of a stopped pool, on every member given (the journal is mirrored),
 * using the module's own codec (kmod/core/jrec.c), so that tests can check
 * what assembly does with it:
 *   torn        an OBJECT record whose last bytes are damaged (a torn
 *               write): assembly must ignore it and keep everything before
 *   bad-extent  a well-formed, checksummed OBJECT record whose extent lies
 *               outside the pool: assembly must refuse (corrupt journal)
 *   show        print the current half, its epoch and the log's end
 * Exit 0 on success, 1 on failure, 2 on usage errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jrec.h"
#include "sb.h"

static void *xread(int fd, u64 off, size_t len)
{
	void *buf;

	if (posix_memalign(&buf, 4096, len) ||
	    pread(fd, buf, len, off) != (ssize_t)len) {
		perror("hc_jpoke: read");
		exit(1);
	}
	return buf;
}

int main(int argc, char **argv)
{
	struct hc_jrec_hdr hdr[2];
	static struct hc_jrec rec;
	struct hc_jrec_pos end;
	struct hc_sb sb;
	u64 half_off[2], half_size;
	const char *mode, *msg;
	int fd, err_h[2], cur, len, i;
	void *blk, *half, *out;

	if (argc < 3) {
		fprintf(stderr, "usage: hc_jpoke torn|bad-extent|show DEV...\n");
		return 2;
	}
	mode = argv[1];
	fd = open(argv[2], O_RDONLY | O_DIRECT);
	if (fd < 0) {
		perror(argv[2]);
		return 1;
	}
	blk = xread(fd, HC_SB_OFFSET, HC_SB_SIZE);
	if (hc_sb_decode(blk, &sb, &msg)) {
		fprintf(stderr, "hc_jpoke: %s: %s\n", argv[2], msg);
		return 1;
	}
	if (hc_jrec_halves(sb.meta_offset, sb.data_offset, half_off,
			   &half_size))
		return 1;
	for (i = 0; i < 2; i++) {
		void *h = xread(fd, half_off[i], HC_JHDR_SIZE);

		err_h[i] = hc_jrec_hdr_decode(h, sb.pool_uuid, &hdr[i]);
		free(h);
	}
	cur = hc_jrec_current(&hdr[0], err_h[0], &hdr[1], err_h[1]);
	if (cur < 0) {
		fprintf(stderr, "hc_jpoke: no current journal half (%d)\n", cur);
		return 1;
	}
	half = xread(fd, half_off[cur], half_size);
	len = hc_jrec_scan(half, half_size, &hdr[cur], &rec, NULL, NULL, &end);
	close(fd);
	if (len < 0) {
		fprintf(stderr, "hc_jpoke: scan: %d\n", len);
		return 1;
	}
	if (!strcmp(mode, "show")) {
		printf("half %c epoch %llu records %d end %llu seq %llu\n",
		       'A' + cur, (unsigned long long)hdr[cur].epoch, len,
		       (unsigned long long)end.off,
		       (unsigned long long)end.seq);
		return 0;
	}

	memset(&rec, 0, sizeof(rec));
	rec.type = HC_JREC_OBJECT;
	rec.uri_len = snprintf((char *)rec.uri, sizeof(rec.uri), "poke/%s",
			       mode);
	rec.size = 4096;
	rec.generation = 1ULL << 40;
	rec.state = HC_OBJ_READY;
	rec.nr_ext = 1;
	rec.ext[0].start = 0;
	rec.ext[0].count = 1;
	if (!strcmp(mode, "bad-extent"))
		rec.ext[0].start = sb.member_chunks * sb.member_count + 7;
	else if (strcmp(mode, "torn"))
		return 2;
	out = (char *)half + end.off;
	len = hc_jrec_encode(&rec, &hdr[cur], &end, out, half_size - end.off);
	if (len < 0) {
		fprintf(stderr, "hc_jpoke: encode: %d\n", len);
		return 1;
	}
	if (!strcmp(mode, "torn"))
		memset((char *)out + len - 8, 0x5a, 8);	/* the tail never landed */
	for (i = 2; i < argc; i++) {
		fd = open(argv[i], O_WRONLY | O_DIRECT);
		if (fd < 0 || pwrite(fd, out, len, half_off[cur] + end.off) != len ||
		    fsync(fd)) {
			perror(argv[i]);
			return 1;
		}
		close(fd);
	}
	return 0;
}
