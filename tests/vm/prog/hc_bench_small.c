// SPDX-License-Identifier: GPL-2.0
/*
 * hc_bench_small: the small-object read benchmark's guest program (issue 17;
 * scripts/bench-small.sh runs it through tests/vm/guest/stage-bench-small.sh).
 * N objects of SIZE bytes, object i's bytes a stream from SEED and i alone
 * (so an object read in another's place differs):
 *
 *   hc_bench_small put N SIZE SEED
 *       stage, write and commit (clean) bench/small/%08u for i = 0 .. N-1
 *       through libhypercache.
 *   hc_bench_small put-files DIR N SIZE SEED
 *       the same bytes as the files DIR/%08u (written, then one sync()).
 *   hc_bench_small read N SIZE SEED ROUNDS [FIRST]
 *       reads the objects: one warm pass in index order (untimed; every
 *       byte checked), then ROUNDS timed passes numbered FIRST (default 1)
 *       on, each in a random order: a Fisher-Yates permutation from SEED
 *       and the round's number alone, so that peers run as round R read
 *       in the same order.  One read is
 *       hc_reader_open() (LOCATE with HOLD: the object's extent), one
 *       hc_reader_pread() of the whole object into a page-aligned buffer
 *       (O_DIRECT on /dev/hypercache0) and hc_reader_close() (RELEASE).
 *   hc_bench_small read-files DIR N SIZE SEED ROUNDS [FIRST]
 *       the peer: the same passes over the files, one read being open
 *       (O_RDONLY | O_DIRECT), one read() of SIZE bytes into the same
 *       buffer and close.
 *
 * Every read of every pass is checked byte for byte against the stream,
 * outside the timed span (the clock runs from just before the open to just
 * after the close of each read, and only those spans are summed).  Per
 * timed round, on stdout:
 *   round R ops=N seconds=S ops_per_s=O MBps=M open_share=F
 * where MBps is 10^6 bytes per second and open_share the fraction of the
 * time spent in the open (for the objects: the LOCATE + HOLD ioctl and the
 * library's bookkeeping around it; for files: open(2)).  Then
 *   result ops=N*ROUNDS seconds=S ops_per_s=O MBps=M open_share=F
 * over all the rounds.  Exit 0, or 1 naming the first object that failed or
 * differed.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "hypercache/hypercache.h"

#define MAX_SIZE	(64U << 20)

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static void obj_fill(uint64_t seed, uint64_t i, unsigned char *buf,
		     uint32_t len)
{
	uint64_t s = seed ^ (i << 32) ^ 0xb5a11, w;
	uint32_t k;

	for (k = 0; k + 8 <= len; k += 8) {
		w = splitmix(&s);
		memcpy(buf + k, &w, 8);
	}
	w = splitmix(&s);
	memcpy(buf + k, &w, len - k);
}

static int uri_of(char *uri, size_t n, uint32_t i)
{
	return snprintf(uri, n, "bench/small/%08u", i);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct bench {
	const char *dir;	/* files, or NULL: objects */
	struct hc_ctx *ctx;
	uint32_t n, size;
	uint64_t seed;
	unsigned char *buf, *want;	/* buf page-aligned */
};

/*
 * One read of object i into b->buf: *open_s the time of the open, the
 * return value the time of the whole read (open to close), or < 0 on a
 * failure (reported).
 */
static double read_one(struct bench *b, uint32_t i, double *open_s)
{
	char name[4200];
	double t0, t1, t2;
	ssize_t n;

	if (b->dir) {
		int fd;

		snprintf(name, sizeof(name), "%s/%08u", b->dir, i);
		t0 = now_s();
		fd = open(name, O_RDONLY | O_DIRECT);
		t1 = now_s();
		if (fd < 0) {
			perror(name);
			return -1;
		}
		n = read(fd, b->buf, b->size);
		close(fd);
		t2 = now_s();
		if (n != (ssize_t)b->size) {
			fprintf(stderr, "hc_bench_small: %s: read %zd of %u bytes: %s\n",
				name, n, b->size, n < 0 ? strerror(errno) : "short");
			return -1;
		}
	} else {
		struct hc_reader *r;
		char err[256];
		int len = uri_of(name, sizeof(name), i), ret;

		t0 = now_s();
		ret = hc_reader_open(b->ctx, name, len, 0, 0, &r, err,
				     sizeof(err));
		t1 = now_s();
		if (ret) {
			fprintf(stderr, "hc_bench_small: open %s: %s\n", name, err);
			return -1;
		}
		n = hc_reader_pread(r, b->buf, b->size, 0);
		if (n != (ssize_t)b->size) {
			fprintf(stderr, "hc_bench_small: %s: read %zd of %u bytes: %s\n",
				name, n, b->size, hc_reader_error(r));
			hc_reader_close(r);
			return -1;
		}
		hc_reader_close(r);
		t2 = now_s();
	}
	*open_s = t1 - t0;
	return t2 - t0;
}

/* Whether b->buf holds object i's bytes (else say so). */
static int check_one(struct bench *b, uint32_t i)
{
	obj_fill(b->seed, i, b->want, b->size);
	if (!memcmp(b->buf, b->want, b->size))
		return 0;
	fprintf(stderr, "hc_bench_small: object %u: other bytes\n", i);
	return -1;
}

/*
 * A pass over the objects in @order: every read checked; with @tag, the
 * round's line.  Adds the pass's time and open time to *@sum, *@osum.
 */
static int pass(struct bench *b, const uint32_t *order, const char *tag,
		double *sum, double *osum)
{
	double t = 0, o = 0, el, os;
	uint32_t k;

	for (k = 0; k < b->n; k++) {
		memset(b->buf, 0xa5, b->size);
		el = read_one(b, order[k], &os);
		if (el < 0 || check_one(b, order[k]))
			return -1;
		t += el;
		o += os;
	}
	if (tag)
		printf("%s ops=%u seconds=%.3f ops_per_s=%.1f MBps=%.1f open_share=%.3f\n",
		       tag, b->n, t, b->n / t, (double)b->n * b->size / t / 1e6,
		       o / t);
	fflush(stdout);
	*sum += t;
	*osum += o;
	return 0;
}

static int bench_read(struct bench *b, unsigned int first,
		      unsigned int rounds)
{
	uint32_t *order = malloc((size_t)b->n * sizeof(*order)), k, j, x;
	double sum = 0, osum = 0, ign = 0, oign = 0;
	char tag[32];
	unsigned int r;

	if (!order)
		return 1;
	for (k = 0; k < b->n; k++)
		order[k] = k;
	/* warm: the index, the dentries, the host's page cache of the images */
	if (pass(b, order, NULL, &ign, &oign))
		return 1;
	for (r = first; r < first + rounds; r++) {
		uint64_t s = b->seed * 1000003 + r;

		for (k = 0; k < b->n; k++)
			order[k] = k;
		for (k = b->n - 1; k > 0; k--) {
			j = (uint32_t)(splitmix(&s) % (k + 1));
			x = order[k];
			order[k] = order[j];
			order[j] = x;
		}
		snprintf(tag, sizeof(tag), "round %u", r);
		if (pass(b, order, tag, &sum, &osum))
			return 1;
	}
	printf("result ops=%llu seconds=%.3f ops_per_s=%.1f MBps=%.1f open_share=%.3f\n",
	       (unsigned long long)b->n * rounds, sum, b->n * rounds / sum,
	       (double)b->n * rounds * b->size / sum / 1e6, osum / sum);
	free(order);
	return 0;
}

static int put_objects(struct bench *b)
{
	char uri[64], err[256];
	uint32_t i;

	for (i = 0; i < b->n; i++) {
		struct hc_writer *w;
		int len = uri_of(uri, sizeof(uri), i), ret;

		obj_fill(b->seed, i, b->want, b->size);
		ret = hc_writer_create(b->ctx, uri, len, b->size, 0, &w, err,
				       sizeof(err));
		if (ret) {
			fprintf(stderr, "hc_bench_small: create %s: %s\n", uri, err);
			return 1;
		}
		if (hc_writer_pwrite(w, b->want, b->size, 0) != (ssize_t)b->size ||
		    hc_writer_commit(w, HC_COMMIT_CLEAN, NULL)) {
			fprintf(stderr, "hc_bench_small: write/commit %s: %s\n",
				uri, hc_writer_error(w));
			hc_writer_abort(w);
			return 1;
		}
	}
	return 0;
}

static int put_files(struct bench *b)
{
	char name[4200];
	uint32_t i;
	int fd;

	for (i = 0; i < b->n; i++) {
		snprintf(name, sizeof(name), "%s/%08u", b->dir, i);
		obj_fill(b->seed, i, b->want, b->size);
		fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, b->want, b->size) != (ssize_t)b->size ||
		    close(fd)) {
			perror(name);
			return 1;
		}
	}
	sync();
	return 0;
}

int main(int argc, char **argv)
{
	struct bench b = { 0 };
	const char *mode = argc > 1 ? argv[1] : "";
	int files = !strcmp(mode, "put-files") || !strcmp(mode, "read-files");
	int reading = !strcmp(mode, "read") || !strcmp(mode, "read-files");
	int a = 2 + files, ret;
	char err[256];
	unsigned long rounds = 0, first = 1;

	if ((strcmp(mode, "put") && strcmp(mode, "read") && !files) ||
	    argc < a + 3 + reading || argc > a + 3 + 2 * reading)
		goto usage;
	b.dir = files ? argv[2] : NULL;
	b.n = strtoul(argv[a], NULL, 10);
	b.size = strtoul(argv[a + 1], NULL, 10);
	b.seed = strtoull(argv[a + 2], NULL, 0);
	if (reading)
		rounds = strtoul(argv[a + 3], NULL, 10);
	if (argc == a + 5)
		first = strtoul(argv[a + 4], NULL, 10);
	if (!b.n || !b.size || b.size > MAX_SIZE || b.size % 4096 ||
	    (reading && (!rounds || !first)))
		goto usage;
	if (posix_memalign((void **)&b.buf, 4096, b.size) ||
	    posix_memalign((void **)&b.want, 4096, b.size + 8))
		return 1;
	if (!files) {
		ret = hc_ctx_open(&b.ctx, NULL, NULL, err, sizeof(err));
		if (ret) {
			fprintf(stderr, "hc_bench_small: %s\n", err);
			return 1;
		}
	}
	if (!strcmp(mode, "put"))
		ret = put_objects(&b);
	else if (!strcmp(mode, "put-files"))
		ret = put_files(&b);
	else
		ret = bench_read(&b, first, rounds);
	hc_ctx_close(b.ctx);
	return ret;

usage:
	fprintf(stderr, "usage: hc_bench_small put N SIZE SEED | put-files DIR N SIZE SEED\n"
		"       hc_bench_small read N SIZE SEED ROUNDS [FIRST] | read-files DIR N SIZE SEED ROUNDS [FIRST]\n"
		"  SIZE: a multiple of 4096, at most 64 MiB\n");
	return 2;
}
