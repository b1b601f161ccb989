// SPDX-License-Identifier: GPL-2.0
/*
 * hc_small: many small objects through libhypercache (format v2's slab).
 *
 *   hc_small size SEED I             the size of object I
 *   hc_small put SEED FIRST LAST [CONSOLE]
 *       stage, write and commit (clean) small/FIRST .. small/LAST - 1; each
 *       one's size is 1 byte .. 1 MiB, log-uniform (as many of 1-2 bytes as
 *       of 512 KiB-1 MiB), and its bytes a stream, both from SEED and I
 *       alone; with CONSOLE (a path, /dev/console) writes "hc: committed I"
 *       there after each commit returned.  Prints "bytes=B" (their sum).
 *   hc_small verify SEED FIRST LAST [STEP]
 *       each of small/FIRST, FIRST + STEP, .. below LAST (STEP 1 by
 *       default) is cached with its size and bytes (read with
 *       hc_reader_read_all(), O_DIRECT); prints "bytes=B".
 *   hc_small absent FIRST LAST [STEP]
 *       none of them is cached.
 *   hc_small evict FIRST LAST [STEP]
 *       evict each of them (hc_ctx_evict()).
 *
 * Exit 0, or 1 naming the first object that failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "hypercache/hypercache.h"

#define MAX_SIZE	(1U << 20)

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* 1 .. MAX_SIZE bytes, log-uniform: 2^(20 u), u uniform in [0, 1]. */
static uint32_t obj_size(uint64_t seed, uint64_t i)
{
	uint64_t s = seed * 0x100000001b3ULL ^ i;
	uint64_t r = splitmix(&s);
	uint32_t bits = (uint32_t)(r % 21);	/* 0..20 */
	uint64_t lo = bits ? 1ULL << (bits - 1) : 1, hi = 1ULL << bits;
	uint64_t v = lo + splitmix(&s) % (hi - lo + 1);

	return v > MAX_SIZE ? MAX_SIZE : (uint32_t)v;
}

static void obj_fill(uint64_t seed, uint64_t i, unsigned char *buf,
		     uint32_t len)
{
	uint64_t s = seed ^ (i << 32) ^ 0x5eed, w = 0;
	uint32_t k;

	for (k = 0; k < len; k++) {
		if (!(k % 8))
			w = splitmix(&s);
		buf[k] = (unsigned char)(w >> (8 * (k % 8)));
	}
}

static int uri_of(char *uri, size_t n, uint64_t i)
{
	return snprintf(uri, n, "small/%" PRIu64, i);
}

static int put(struct hc_ctx *ctx, uint64_t seed, uint64_t first,
	       uint64_t last, const char *console)
{
	unsigned char *buf = malloc(MAX_SIZE), *back = malloc(MAX_SIZE);
	uint64_t i, bytes = 0;
	FILE *con = NULL;
	char uri[64], err[256];

	if (!buf || !back)
		return 1;
	if (console && !(con = fopen(console, "w"))) {
		perror(console);
		return 1;
	}
	for (i = first; i < last; i++) {
		uint32_t size = obj_size(seed, i);
		struct hc_writer *w;
		int len = uri_of(uri, sizeof(uri), i), ret;

		obj_fill(seed, i, buf, size);
		ret = hc_writer_create(ctx, uri, len, size, 0, &w, err,
				       sizeof(err));
		if (ret) {
			fprintf(stderr, "hc_small: create %s (%u bytes): %s\n",
				uri, size, err);
			return 1;
		}
		if (hc_writer_pwrite(w, buf, size, 0) != (ssize_t)size ||
		    (ret = hc_writer_commit(w, HC_COMMIT_CLEAN, NULL))) {
			fprintf(stderr, "hc_small: write/commit %s (%u bytes): %s\n",
				uri, size, hc_writer_error(w));
			hc_writer_abort(w);
			return 1;
		}
		bytes += size;
		if (con) {
			fprintf(con, "hc: committed %" PRIu64 "\n", i);
			fflush(con);
		}
	}
	printf("bytes=%" PRIu64 "\n", bytes);
	return 0;
}

static int verify(struct hc_ctx *ctx, uint64_t seed, uint64_t first,
		  uint64_t last, uint64_t step)
{
	unsigned char *want = malloc(MAX_SIZE), *got = NULL;
	uint64_t i, bytes = 0;
	char uri[64], err[256];

	if (!want || posix_memalign((void **)&got, 4096, MAX_SIZE + 4096))
		return 1;
	for (i = first; i < last; i += step) {
		uint32_t size = obj_size(seed, i);
		struct hc_reader *r;
		int len = uri_of(uri, sizeof(uri), i), ret;

		ret = hc_reader_open(ctx, uri, len, HC_OPEN_PEEK, 0, &r, err,
				     sizeof(err));
		if (ret) {
			fprintf(stderr, "hc_small: open %s: %s\n", uri, err);
			return 1;
		}
		if (hc_reader_size(r) != size) {
			fprintf(stderr, "hc_small: %s: %" PRIu64 " bytes, want %u\n",
				uri, hc_reader_size(r), size);
			return 1;
		}
		memset(got, 0xa5, size);
		ret = hc_reader_read_all(r, got, 1);
		obj_fill(seed, i, want, size);
		if (ret || memcmp(got, want, size)) {
			fprintf(stderr, "hc_small: %s (%u bytes): %s\n", uri,
				size, ret ? hc_reader_error(r) : "other bytes");
			return 1;
		}
		hc_reader_close(r);
		bytes += size;
	}
	printf("bytes=%" PRIu64 "\n", bytes);
	return 0;
}

static int absent(struct hc_ctx *ctx, uint64_t first, uint64_t last,
		  uint64_t step)
{
	struct hc_reader *r;
	uint64_t i;
	char uri[64];

	for (i = first; i < last; i += step) {
		int len = uri_of(uri, sizeof(uri), i);
		int ret = hc_reader_open(ctx, uri, len, HC_OPEN_PEEK, 0, &r,
					 NULL, 0);

		if (ret != -ENOENT) {
			fprintf(stderr, "hc_small: %s: open %d, want ENOENT\n",
				uri, ret);
			if (!ret)
				hc_reader_close(r);
			return 1;
		}
	}
	return 0;
}

static int evict(struct hc_ctx *ctx, uint64_t first, uint64_t last,
		 uint64_t step)
{
	uint64_t i;
	char uri[64];

	for (i = first; i < last; i += step) {
		int len = uri_of(uri, sizeof(uri), i);
		int ret = hc_ctx_evict(ctx, uri, len);

		if (ret) {
			fprintf(stderr, "hc_small: evict %s: %d\n", uri, ret);
			return 1;
		}
	}
	return 0;
}

static uint64_t arg(int argc, char **argv, int i, uint64_t def)
{
	return i < argc ? strtoull(argv[i], NULL, 0) : def;
}

int main(int argc, char **argv)
{
	struct hc_ctx *ctx;
	char err[256];
	int ret;

	if (argc == 4 && !strcmp(argv[1], "size")) {
		printf("%u\n", obj_size(strtoull(argv[2], NULL, 0),
					strtoull(argv[3], NULL, 0)));
		return 0;
	}
	if (argc < 4) {
		fprintf(stderr, "usage: hc_small put SEED FIRST LAST [CONSOLE] | verify SEED FIRST LAST [STEP] | absent|evict FIRST LAST [STEP] | size SEED I\n");
		return 2;
	}
	ret = hc_ctx_open(&ctx, NULL, NULL, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "hc_small: %s\n", err);
		return 1;
	}
	if (!strcmp(argv[1], "absent"))
		ret = absent(ctx, arg(argc, argv, 2, 0), arg(argc, argv, 3, 0),
			     arg(argc, argv, 4, 1) ? : 1);
	else if (!strcmp(argv[1], "evict"))
		ret = evict(ctx, arg(argc, argv, 2, 0), arg(argc, argv, 3, 0),
			    arg(argc, argv, 4, 1) ? : 1);
	else if (argc >= 5 && !strcmp(argv[1], "put"))
		ret = put(ctx, strtoull(argv[2], NULL, 0),
			  strtoull(argv[3], NULL, 0),
			  strtoull(argv[4], NULL, 0), argc > 5 ? argv[5] : NULL);
	else if (argc >= 5 && !strcmp(argv[1], "verify"))
		ret = verify(ctx, arg(argc, argv, 2, 0), arg(argc, argv, 3, 0),
			     arg(argc, argv, 4, 0), arg(argc, argv, 5, 1) ? : 1);
	else
		ret = 2;
	hc_ctx_close(ctx);
	return ret;
}
