// SPDX-License-Identifier: GPL-2.0
/*
 * hc_numaplace: hypercached's placement of a reused part buffer
 * (helper/place.c), in a guest of two memory nodes.
 *
 *   hc_numaplace FROM TO
 *
 * A buffer of 16 pages is placed for a part whose member is on node FROM,
 * filled and counted, as a write-back worker does with its buffer; then
 * something else takes a reference to each of its pages (a pipe, by
 * vmsplice: as a transfer or the kernel may hold one for a moment), and
 * the same buffer is placed for a part on node TO, filled and counted.
 * Each time every page must be on the part's node: by hc_place_count()'s
 * tally (what the daemon logs) and by asking the kernel for each page
 * (move_pages).  A placement that migrates the old pages leaves the held
 * ones on FROM.
 *
 * Exit 0; 1 naming the page that was elsewhere; 77 with fewer than two
 * nodes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include <numaif.h>
#include "place.h"

#define PAGES	16
#define CHUNK	(4U << 20)

static void log_fn(enum hc_log_level lvl, const char *fmt, ...)
{
	va_list ap;

	(void)lvl;
	va_start(ap, fmt);
	fputs("hc_numaplace: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* place @buf for a part on member 0, on @node; fill it; check it */
static int place(void *buf, size_t len, int node, int fill, const char *when)
{
	struct hc_numa_map m = { .chunk_size = CHUNK, .member_count = 1 };
	struct hc_extent ext = { .offset = 0, .length = CHUNK };
	struct hc_place_tally t = { 0 };
	struct hc_place_part pp;
	long page = sysconf(_SC_PAGESIZE);
	void *pages[PAGES];
	int status[PAGES], i, bad = 0;

	m.node[0] = (int16_t)node;
	hc_place_part(&m, &ext, 1, 0, len, buf, &pp);
	if (pp.nr != 1 || pp.runs[0].node != node) {
		fprintf(stderr, "%s: the part was cut into %d runs, not one on node %d\n",
			when, pp.nr, node);
		return 1;
	}
	memset(buf, fill, len);
	hc_place_count(&pp, buf, HC_PLACE_EGRESS, &t);
	for (i = 0; i < PAGES; i++)
		pages[i] = (char *)buf + (size_t)i * (size_t)page;
	if (move_pages(0, PAGES, pages, NULL, status, 0)) {
		fprintf(stderr, "%s: move_pages: %s\n", when, strerror(errno));
		return 1;
	}
	for (i = 0; i < PAGES; i++)
		if (status[i] != node) {
			fprintf(stderr, "%s: page %d is on node %d, not %d\n",
				when, i, status[i], node);
			bad = 1;
		}
	printf("%s: node %d: pages sampled %llu, on the node %llu; pages on the node %d of %d\n",
	       when, node, (unsigned long long)t.pages,
	       (unsigned long long)t.local, bad ? -1 : PAGES, PAGES);
	if (t.pages != 1 || t.local != 1) {
		fprintf(stderr, "%s: the tally says %llu of %llu sampled pages on node %d\n",
			when, (unsigned long long)t.local,
			(unsigned long long)t.pages, node);
		bad = 1;
	}
	return bad;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)PAGES * (size_t)page;
	struct iovec iov;
	int from, to, p[2];
	void *buf;
	ssize_t n;

	if (argc != 3) {
		fprintf(stderr, "usage: hc_numaplace FROM TO\n");
		return 2;
	}
	from = atoi(argv[1]);
	to = atoi(argv[2]);
	hc_place_init(HC_NUMA_AUTO, log_fn);
	if (!hc_place_on()) {
		printf("placement is off (fewer than two memory nodes)\n");
		return 77;
	}
	buf = hc_place_buf(len);
	if (!buf) {
		perror("hc_place_buf");
		return 1;
	}
	if (place(buf, len, from, 0xa5, "first part"))
		return 1;
	/* references to every page, held by a pipe until the end */
	if (pipe(p) || fcntl(p[1], F_SETPIPE_SZ, (int)len) < 0) {
		perror("pipe");
		return 1;
	}
	iov.iov_base = buf;
	iov.iov_len = len;
	n = vmsplice(p[1], &iov, 1, 0);
	if (n != (ssize_t)len) {
		fprintf(stderr, "vmsplice: %zd of %zu bytes: %s\n", n, len,
			n < 0 ? strerror(errno) : "short");
		return 1;
	}
	if (place(buf, len, to, 0x5a, "second part, its old pages held"))
		return 1;
	close(p[0]);
	close(p[1]);
	hc_place_buf_free(buf, len);
	return 0;
}
