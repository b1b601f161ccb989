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
 *   collide     a well-formed OBJECT record "poke/collide" on the first
 *               chunk of the first journaled object that has one: two
 *               objects claim one chunk, assembly must refuse and name both
 *   show        print the current half, its epoch, the log's end, the half's
 *               size and block size
 *   list        print every record of the log: seq, offset, length, URI
 *   corrupt-mid, corrupt-last
 *               scribble over the last 8 bytes (padding or body) of the
 *               middle or the last record of the log, on each DEV given:
 *               its checksum no longer matches, its head is intact
 *   corrupt-hdr-a, corrupt-hdr-b, corrupt-hdrs
 *               scribble over a reserved byte of header A, B or both, on
 *               each DEV given (a bad checksum)
 *   objects PREFIX N DEV...
 *               append N OBJECT records of empty READY objects PREFIX0 ..
 *               PREFIX<N-1> (generations from 2^32 on) in one write: a pool
 *               of a million objects in seconds (r-scrape), where STAGE +
 *               COMMIT take milliseconds each.  Prints "appended N", or
 *               fails if the half cannot hold them
 *   objects-1b PREFIX FROM TO DEV...
 *               append TO - FROM OBJECT records of READY objects of 1 byte,
 *               PREFIX%08u for FROM .. TO-1, object k on chunk k (one
 *               extent: they are in the policy once assembled), in one
 *               write (scripts/bench-locate.sh's million).  The chunks
 *               FROM .. TO-1 must be free: no other object of the pool may
 *               have chunks.  Generations from 2^33 + FROM on.  Prints
 *               "appended N"
 * The objects modes work on a half of either version with the module's
 * codec of both (kmod/core/jrec2.c: v1 records in a v1 half, v2 records in
 * a v2 half, so also on a format-2 pool; objects-1b's objects then have
 * whole chunks, no HC_OBJ_F_SUBCHUNK: the layout of a large object); the
 * other modes know v1 halves only.
 * The corrupt modes work on each DEV's own copy (mirrors may differ); the
 * others read the first DEV and write the same bytes to every DEV.
 * Exit 0 on success, 1 on failure, 2 on usage errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "jrec.h"
#include "jrec2.h"
#include "sb.h"

static void xwrite(const char *dev, const void *buf, size_t len, u64 off)
{
	int fd = open(dev, O_WRONLY | O_DIRECT);

	if (fd < 0 || pwrite(fd, buf, len, off) != (ssize_t)len || fsync(fd)) {
		perror(dev);
		exit(1);
	}
	close(fd);
}

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

/* The corrupt-WHERE modes on one member's own copy. */
static int corrupt(const char *where, const char *dev)
{
	struct hc_jrec_hdr hdr[2];
	static struct hc_jrec rec;
	struct hc_jrec_pos p, mid, last;
	u64 half_off[2], half_size;
	int fd, err_h[2], cur, i, n = 0, k;
	struct hc_sb sb;
	const char *msg;
	void *blk, *half;
	char *r;

	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0) {
		perror(dev);
		return 1;
	}
	blk = xread(fd, HC_SB_OFFSET, HC_SB_SIZE);
	if (hc_sb_decode(blk, &sb, &msg) ||
	    hc_jrec_halves(sb.meta_offset, sb.data_offset, half_off, &half_size)) {
		fprintf(stderr, "hc_jpoke: %s: no pool\n", dev);
		return 1;
	}
	if (!strncmp(where, "hdr", 3)) {
		for (i = 0; i < 2; i++) {
			if (strcmp(where, "hdrs") && where[4] != 'a' + i)
				continue;
			r = xread(fd, half_off[i], HC_JHDR_SIZE);
			r[200] ^= 0x5a;		/* reserved, covered by csum */
			xwrite(dev, r, HC_JHDR_SIZE, half_off[i]);
			free(r);
		}
		close(fd);
		return 0;
	}
	for (i = 0; i < 2; i++) {
		void *h = xread(fd, half_off[i], HC_JHDR_SIZE);

		err_h[i] = hc_jrec_hdr_decode(h, sb.pool_uuid, &hdr[i]);
		free(h);
	}
	cur = hc_jrec_current(&hdr[0], err_h[0], &hdr[1], err_h[1]);
	if (cur < 0) {
		fprintf(stderr, "hc_jpoke: %s: no current journal half (%d)\n",
			dev, cur);
		return 1;
	}
	half = xread(fd, half_off[cur], half_size);
	close(fd);
	hc_jrec_pos_init(&p, &hdr[cur]);
	while (p.off < half_size &&
	       hc_jrec_decode((char *)half + p.off, half_size - p.off,
			      &hdr[cur], &p, &rec) > 0) {
		last = p;
		n++;
		hc_jrec_advance(&p, (char *)half + p.off);
	}
	if (!n) {
		fprintf(stderr, "hc_jpoke: %s: the log is empty\n", dev);
		return 1;
	}
	hc_jrec_pos_init(&mid, &hdr[cur]);
	for (k = 0; k < n / 2; k++)
		hc_jrec_advance(&mid, (char *)half + mid.off);
	if (strcmp(where, "mid") && strcmp(where, "last"))
		return 2;
	p = strcmp(where, "mid") ? last : mid;
	r = (char *)half + p.off;
	k = (int)le32_to_cpu(((struct hc_jrec_disk *)r)->length);
	for (i = k - 8; i < k; i++)
		r[i] ^= 0x5a;
	printf("%s: corrupted record seq %llu at offset %llu of half %c (%d of %d)\n",
	       dev, (unsigned long long)p.seq, (unsigned long long)p.off,
	       'A' + cur, strcmp(where, "mid") ? n : n / 2 + 1, n);
	/* whole 4 KiB blocks around it, for O_DIRECT */
	xwrite(dev, (char *)half + (p.off & ~4095ULL),
	       ((p.off + k + 4095) & ~4095ULL) - (p.off & ~4095ULL),
	       half_off[cur] + (p.off & ~4095ULL));
	free(half);
	return 0;
}

int main(int argc, char **argv)
{
	struct hc_jrec_hdr hdr[2];
	static struct hc_jrec rec;
	static struct hc_jrec2 rec2;
	struct hc_jrec_pos end;
	struct hc_sb sb;
	u64 half_off[2], half_size;
	const char *mode, *msg, *prefix = NULL;
	unsigned long nobj = 0, first = 0;
	int fd, err_h[2], cur, len, i, d = 2, one_byte = 0;
	void *blk, *half, *out;

	if (argc < 3) {
		fprintf(stderr, "usage: hc_jpoke torn|bad-extent|collide|show|list|corrupt-WHERE DEV...\n"
			"       hc_jpoke objects PREFIX N DEV...\n"
			"       hc_jpoke objects-1b PREFIX FROM TO DEV...\n");
		return 2;
	}
	mode = argv[1];
	if (!strcmp(mode, "objects")) {
		if (argc < 5)
			return 2;
		prefix = argv[2];
		nobj = strtoul(argv[3], NULL, 10);
		d = 4;
	}
	if (!strcmp(mode, "objects-1b")) {
		char *e1, *e2;
		unsigned long to;

		if (argc < 6)
			return 2;
		prefix = argv[2];
		first = strtoul(argv[3], &e1, 10);
		to = strtoul(argv[4], &e2, 10);
		if (*e1 || *e2 || to <= first)
			return 2;
		nobj = to - first;
		one_byte = 1;
		d = 5;
	}
	if (!strncmp(mode, "corrupt-", 8)) {
		for (i = 2; i < argc; i++)
			if (corrupt(mode + 8, argv[i]))
				return 1;
		return 0;
	}
	fd = open(argv[d], O_RDONLY | O_DIRECT);
	if (fd < 0) {
		perror(argv[d]);
		return 1;
	}
	blk = xread(fd, HC_SB_OFFSET, HC_SB_SIZE);
	if (hc_sb_decode(blk, &sb, &msg)) {
		fprintf(stderr, "hc_jpoke: %s: %s\n", argv[d], msg);
		return 1;
	}
	if (hc_jrec_halves(sb.meta_offset, sb.data_offset, half_off,
			   &half_size))
		return 1;
	for (i = 0; i < 2; i++) {
		void *h = xread(fd, half_off[i], HC_JHDR_SIZE);

		err_h[i] = prefix ? hc_jrec2_hdr_decode(h, sb.pool_uuid, &hdr[i]) :
				    hc_jrec_hdr_decode(h, sb.pool_uuid, &hdr[i]);
		free(h);
	}
	cur = hc_jrec_current(&hdr[0], err_h[0], &hdr[1], err_h[1]);
	if (cur < 0) {
		fprintf(stderr, "hc_jpoke: no current journal half (%d)\n", cur);
		return 1;
	}
	half = xread(fd, half_off[cur], half_size);
	if (prefix)
		len = hc_jrec2_scan(half, half_size, &hdr[cur], &rec2, NULL,
				    NULL, &end);
	else
		len = hc_jrec_scan(half, half_size, &hdr[cur], &rec, NULL, NULL,
				   &end);
	close(fd);
	if (len < 0) {
		fprintf(stderr, "hc_jpoke: scan: %d\n", len);
		return 1;
	}
	if (!strcmp(mode, "show")) {
		printf("half %c epoch %llu records %d end %llu seq %llu half_size %llu block %u\n",
		       'A' + cur, (unsigned long long)hdr[cur].epoch, len,
		       (unsigned long long)end.off,
		       (unsigned long long)end.seq,
		       (unsigned long long)half_size, hdr[cur].block_size);
		return 0;
	}
	if (!strcmp(mode, "list")) {
		struct hc_jrec_pos p;

		hc_jrec_pos_init(&p, &hdr[cur]);
		while (p.off < end.off) {
			int n = hc_jrec_decode((char *)half + p.off,
					       half_size - p.off, &hdr[cur], &p,
					       &rec);

			printf("seq %llu off %llu len %d type %u state %u uri %.*s\n",
			       (unsigned long long)p.seq,
			       (unsigned long long)p.off, n, rec.type,
			       rec.state, (int)rec.uri_len, rec.uri);
			hc_jrec_advance(&p, (char *)half + p.off);
		}
		return 0;
	}
	if (prefix) {
		struct hc_jrec *o = &rec2.r;	/* no v2 field: any half */
		u64 start = end.off;
		unsigned long k;

		memset(&rec2, 0, sizeof(rec2));
		o->type = HC_JREC_OBJECT;
		o->state = HC_OBJ_READY;
		if (one_byte) {
			o->size = 1;
			o->nr_ext = 1;
			o->ext[0].count = 1;
			if (first + nobj > sb.member_chunks * sb.member_count) {
				fprintf(stderr, "hc_jpoke: chunks %lu..%lu: the pool has %llu\n",
					first, first + nobj - 1,
					(unsigned long long)(sb.member_chunks *
							     sb.member_count));
				return 1;
			}
		}
		for (k = 0; k < nobj; k++) {
			if (one_byte) {
				o->uri_len = snprintf((char *)o->uri,
						      sizeof(o->uri),
						      "%s%08lu", prefix,
						      first + k);
				o->ext[0].start = first + k;
				o->generation = (1ULL << 33) + first + k;
			} else {
				o->uri_len = snprintf((char *)o->uri,
						      sizeof(o->uri),
						      "%s%lu", prefix, k);
				o->generation = (1ULL << 32) + k;
			}
			len = hc_jrec2_encode(&rec2, &hdr[cur], &end,
					      (char *)half + end.off,
					      half_size - end.off);
			if (len < 0) {
				fprintf(stderr, "hc_jpoke: encode of record %lu: %d (the half holds %llu bytes)\n",
					k, len, (unsigned long long)half_size);
				return 1;
			}
			hc_jrec_advance(&end, (char *)half + end.off);
		}
		for (i = d; i < argc; i++)
			xwrite(argv[i], (char *)half + start, end.off - start,
			       half_off[cur] + start);
		printf("appended %lu\n", nobj);
		return 0;
	}
	if (!strcmp(mode, "collide")) {
		struct hc_jrec_pos p;
		struct hc_ext first = { 0, 0 };

		hc_jrec_pos_init(&p, &hdr[cur]);
		while (p.off < end.off && !first.count) {
			hc_jrec_decode((char *)half + p.off, half_size - p.off,
				       &hdr[cur], &p, &rec);
			if (rec.type == HC_JREC_OBJECT && rec.nr_ext)
				first = rec.ext[0];
			hc_jrec_advance(&p, (char *)half + p.off);
		}
		if (!first.count) {
			fprintf(stderr, "hc_jpoke: no journaled object has a chunk\n");
			return 1;
		}
		first.count = 1;
		memset(&rec, 0, sizeof(rec));
		rec.ext[0] = first;
	} else {
		memset(&rec, 0, sizeof(rec));
	}

	rec.type = HC_JREC_OBJECT;
	rec.uri_len = snprintf((char *)rec.uri, sizeof(rec.uri), "poke/%s",
			       mode);
	rec.size = 4096;
	rec.generation = 1ULL << 40;
	rec.state = HC_OBJ_READY;
	rec.nr_ext = 1;
	if (!rec.ext[0].count)
		rec.ext[0].count = 1;
	if (!strcmp(mode, "bad-extent"))
		rec.ext[0].start = sb.member_chunks * sb.member_count + 7;
	else if (strcmp(mode, "torn") && strcmp(mode, "collide"))
		return 2;
	out = (char *)half + end.off;
	len = hc_jrec_encode(&rec, &hdr[cur], &end, out, half_size - end.off);
	if (len < 0) {
		fprintf(stderr, "hc_jpoke: encode: %d\n", len);
		return 1;
	}
	if (!strcmp(mode, "torn"))
		memset((char *)out + len - 8, 0x5a, 8);	/* the tail never landed */
	for (i = 2; i < argc; i++)
		xwrite(argv[i], out, len, half_off[cur] + end.off);
	return 0;
}
