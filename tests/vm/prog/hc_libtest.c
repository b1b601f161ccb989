// SPDX-License-Identifier: GPL-2.0
/*
 * hc_libtest: libhypercache's C API on a running, otherwise empty pool of
 * a few dozen chunks (linked with the static archive):
 *
 *  - hc_ctx_open() of a missing device: -ENOENT naming it;
 *  - hc_reader_open(): an empty URI, one with a NUL -EINVAL, one of
 *    HC_URI_MAX + 1 bytes -E2BIG, one not cached -ENOENT ("not cached"),
 *    each with a message naming the object; a staged one -EAGAIN, and with
 *    HC_OPEN_WAIT and 300 ms -ETIMEDOUT after at least 300 ms;
 *  - hc_writer_create(): an existing URI -EEXIST, HC_CREATE_REPLACE works,
 *    larger than the pool -EFBIG; a fixed-size writer's pwrite past its
 *    size -EFBIG; an aborted writer leaves nothing;
 *  - a growable writer fed 3 chunks + 12345 bytes in odd pieces from an
 *    unaligned buffer, committed: size, layout, and every byte equal;
 *  - hc_reader_pread() at every offset 0..4095 (buffer misaligned too),
 *    across chunk boundaries, at and past the end (short, then 0);
 *  - hc_reader_read_all() into an aligned and an unaligned buffer;
 *    hc_reader_read_range() (1.3) of 2-3 chunks at every kind of offset,
 *    into aligned and unaligned buffers, across the end (short), at it (0);
 *  - a 3-extent object (the pool filled with 1-chunk objects, three apart
 *    evicted): hc_reader_mmap() equals the O_DIRECT bytes and the source;
 *  - hc_crc32c() of "123456789" is 0xe3069283;
 *  - hc_ctx_locate() (1.1): a miss, a pending stage (the stage's extents
 *    from hc_writer_extents()), a hit whose extents and chunks equal the
 *    reader's, a layout array too short (the total still told), a bad URI;
 *    a pending stage's reader message says "not yet valid";
 *  - HC_CREATE_NO_CRC: committed with HC_COMMIT_NO_CRC (no data-crc) and
 *    without it (the bytes read back: data-crc); an unknown flag -EINVAL;
 *  - hc_writer_crc32c() (1.2) in order, NO_CRC and out of order: the
 *    source's CRC-32C; `hcctl put --crc --json` reports the same value;
 *  - writes in flight from 4 threads (pieces of uneven, unaligned sizes
 *    ending out of order, each checksummed by its thread), after one that
 *    failed (-EFAULT: an aligned span from a PROT_NONE page, which the
 *    library must not read for its CRC) and is written again by them:
 *    hc_writer_crc32c() is the source's, the bytes read back equal;
 *  - hc_ctx_object_info() and hc_ctx_list_objects() (1.3): a held object
 *    committed clean (size, generation, chunks, one hold, no ETag, no
 *    Last-Modified), a miss -ENOENT zeroing the result, bad URIs.
 *
 * `hc_libtest objinfo URI` prints hc_ctx_object_info() of URI (etag=,
 * last_modified=, state=, size=) and fails if hc_ctx_list_objects() says
 * otherwise: 91-etag compares it with S3's HEAD.
 *
 * Prints one line per check and exits 1 if any failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <hypercache/hypercache.h>
#include "hypercache.h"		/* uapi: EVICT, to clean up */

static int failures;

static void check(const char *what, int ok)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	if (!ok)
		failures++;
}

static void expect(const char *what, long got, long want, const char *msg)
{
	char line[512];

	snprintf(line, sizeof(line), "%s: got %ld (%s), want %ld%s%s", what,
		 got, got < 0 ? strerror((int)-got) : "ok", want,
		 msg && *msg ? "; message: " : "", msg ? msg : "");
	check(line, got == want);
}

static char pat(unsigned int seed, uint64_t i)
{
	return (char)((i * 2654435761u >> 11) + seed * 31 + (i >> 9));
}

static void fill(char *b, unsigned int seed, uint64_t len)
{
	uint64_t i;

	for (i = 0; i < len; i++)
		b[i] = pat(seed, i);
}

static int put(struct hc_ctx *ctx, const char *uri, const char *src,
	       uint64_t len, unsigned int flags)
{
	struct hc_writer *w;
	char err[256];
	int e;

	e = hc_writer_create(ctx, uri, strlen(uri), len, flags, &w, err,
			     sizeof(err));
	if (e)
		return e;
	if (len && hc_writer_pwrite(w, src, len, 0) != (ssize_t)len) {
		hc_writer_abort(w);
		return -EIO;
	}
	e = hc_writer_commit(w, HC_COMMIT_CLEAN, NULL);
	if (e)
		hc_writer_abort(w);
	return e;
}

static int evict(const char *uri)
{
	struct hc_obj_ref r = {
		.size = sizeof(r), .uri = (uintptr_t)uri, .uri_len = strlen(uri),
	};
	int fd = open("/dev/hypercache-ctl", O_RDWR), e;

	e = ioctl(fd, HC_IOC_EVICT, &r);
	close(fd);
	return e;
}

struct count_arg {
	unsigned int n;
	int bad;
};

static int count_obj(void *arg, const struct hc_lib_info *o)
{
	struct count_arg *c = arg;

	c->n++;
	if (o->uri_len > 9 && !memcmp(o->uri, "lib/fill/", 9) &&
	    (o->state != HC_LIB_READY || o->size != 4u << 20))
		c->bad = 1;
	return 0;
}

struct obj_arg {
	unsigned int n;
	int found;
};

static int list_obj(void *arg, const struct hc_lib_object *o)
{
	struct obj_arg *a = arg;

	a->n++;
	if (o->uri_len == 5 && !memcmp(o->uri, "lib/a", 5))
		a->found = o->chunks == 4 && o->holds == 1 && !o->etag_len &&
			   o->etag[0] == '\0' && !o->last_modified;
	return 0;
}

/*
 * hc_libtest objinfo URI: hc_ctx_object_info() of URI as one line
 * "etag=ETAG last_modified=SECONDS state=S size=N" (stage-etag.sh compares
 * it with S3's HEAD), and the same from hc_ctx_list_objects(); exit 1 if
 * they differ or it fails.
 */
static int objinfo_line(const struct hc_lib_object *o, char *line, size_t len)
{
	return snprintf(line, len, "etag=%s last_modified=%llu state=%u size=%llu",
			o->etag, (unsigned long long)o->last_modified, o->state,
			(unsigned long long)o->size);
}

struct objinfo_arg {
	const char *uri;
	char line[512];
};

static int objinfo_listed(void *arg, const struct hc_lib_object *o)
{
	struct objinfo_arg *a = arg;

	if (o->uri_len == strlen(a->uri) && !memcmp(o->uri, a->uri, o->uri_len))
		objinfo_line(o, a->line, sizeof(a->line));
	return 0;
}

static int objinfo(const char *uri)
{
	struct objinfo_arg a = { uri, "" };
	struct hc_lib_object o;
	struct hc_ctx *ctx;
	char err[512], line[512];
	int e;

	e = hc_ctx_open(&ctx, NULL, NULL, err, sizeof(err));
	if (e) {
		fprintf(stderr, "hc_libtest: %s\n", err);
		return 1;
	}
	e = hc_ctx_object_info(ctx, uri, strlen(uri), &o);
	if (e) {
		fprintf(stderr, "hc_libtest: %s: %s\n", uri, strerror(-e));
		hc_ctx_close(ctx);
		return 1;
	}
	objinfo_line(&o, line, sizeof(line));
	e = hc_ctx_list_objects(ctx, uri, strlen(uri), objinfo_listed, &a);
	hc_ctx_close(ctx);
	printf("%s\n", line);
	if (e || strcmp(line, a.line)) {
		fprintf(stderr, "hc_libtest: the listing says '%s' (%s)\n",
			a.line, e ? strerror(-e) : "ok");
		return 1;
	}
	return 0;
}

/* Pieces of one object written by several threads, the next one taken by each. */
struct par_job {
	struct hc_writer *w;
	const char *src;
	const uint64_t *off;	/* piece k is [off[k], off[k + 1]) */
	unsigned int nr, next;
	int failed;
};

static void *par_writer(void *arg)
{
	struct par_job *j = arg;
	unsigned int k;
	ssize_t n;

	while ((k = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED)) < j->nr) {
		n = hc_writer_pwrite(j->w, j->src + j->off[k], j->off[k + 1] - j->off[k],
				     j->off[k]);
		if (n != (ssize_t)(j->off[k + 1] - j->off[k]))
			__atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static char long_uri[HC_URI_MAX + 1];
	struct hc_lib_chunk lay[16];
	struct hc_lib_extent ext[8];
	struct hc_ctx *ctx, *bad;
	struct hc_reader *r;
	struct hc_writer *w, *w2;
	char err[512], *src, *al, *raw;
	uint64_t chunk, size, off;
	double t0;
	unsigned int k, filled = 0, i;
	long n;
	int e, ok;

	if (argc == 3 && !strcmp(argv[1], "objinfo"))
		return objinfo(argv[2]);
	expect("hc_crc32c(\"123456789\")",
	       (long)hc_crc32c(0, "123456789", 9), 0xe3069283L, NULL);
	expect("hc_crc32c in two pieces",
	       (long)hc_crc32c(hc_crc32c(0, "1234", 4), "56789", 5),
	       0xe3069283L, NULL);

	err[0] = 0;
	e = hc_ctx_open(&bad, "/dev/no-such-ctl", NULL, err, sizeof(err));
	expect("hc_ctx_open of a missing device", e, -ENOENT, err);
	check("its message names the device", strstr(err, "/dev/no-such-ctl") != NULL);
	e = hc_ctx_open(&ctx, NULL, NULL, err, sizeof(err));
	expect("hc_ctx_open", e, 0, err);
	if (e)
		return 2;
	chunk = hc_ctx_chunk_size(ctx);
	size = 3 * chunk + 12345;
	src = malloc(8 * chunk);
	raw = malloc(8 * chunk + 64);
	if (!src || !raw || posix_memalign((void **)&al, 4096, 8 * chunk))
		return 2;

	/* Opening: URIs and misses. */
	e = hc_reader_open(ctx, "", 0, 0, 0, &r, err, sizeof(err));
	expect("reader: empty URI", e, -EINVAL, err);
	e = hc_reader_open(ctx, "lib/a\0b", 7, 0, 0, &r, err, sizeof(err));
	expect("reader: URI with a NUL", e, -EINVAL, err);
	memset(long_uri, 'u', sizeof(long_uri));
	e = hc_reader_open(ctx, long_uri, sizeof(long_uri), 0, 0, &r, err,
			   sizeof(err));
	expect("reader: URI of HC_URI_MAX + 1 bytes", e, -E2BIG, err);
	e = hc_reader_open(ctx, "lib/none", 8, 0, 0, &r, err, sizeof(err));
	expect("reader: not cached", e, -ENOENT, err);
	check("the miss's message names the object and the reason",
	      strstr(err, "lib/none") && strstr(err, "not cached"));

	/* Writers' errors. */
	fill(src, 1, 8 * chunk);
	e = hc_writer_create(ctx, "lib/big", 7, UINT64_MAX - 1, 0, &w, err,
			     sizeof(err));
	expect("writer: larger than the pool", e, -EFBIG, err);
	check("its message names the object", strstr(err, "lib/big") != NULL);
	e = hc_writer_create(ctx, "lib/fixed", 9, 4096, 0, &w, err, sizeof(err));
	expect("writer: fixed 4096 bytes", e, 0, err);
	if (!e) {
		n = hc_writer_pwrite(w, src, 4097, 0);
		expect("writer: pwrite past the fixed size", n, -EFBIG,
		       hc_writer_error(w));
		hc_writer_abort(w);
	}
	e = hc_reader_open(ctx, "lib/fixed", 9, 0, 0, &r, err, sizeof(err));
	expect("aborted: nothing left", e, -ENOENT, err);

	/* A stage is pending: EAGAIN, and ETIMEDOUT when waited for. */
	e = hc_writer_create(ctx, "lib/pend", 8, HC_SIZE_UNKNOWN, 0, &w, err,
			     sizeof(err));
	expect("writer: growable lib/pend", e, 0, err);
	e = hc_reader_open(ctx, "lib/pend", 8, 0, 0, &r, err, sizeof(err));
	expect("reader: a pending stage", e, -EAGAIN, err);
	t0 = now();
	e = hc_reader_open(ctx, "lib/pend", 8, HC_OPEN_WAIT, 300, &r, err,
			   sizeof(err));
	expect("reader: waiting 300 ms for a stage", e, -ETIMEDOUT, err);
	check("it waited at least 300 ms", now() - t0 >= 0.3);
	e = hc_writer_create(ctx, "lib/pend", 8, 10, 0, &w2, err, sizeof(err));
	expect("writer: a URI being staged", e, -EEXIST, err);
	e = hc_reader_open(ctx, "lib/pend", 8, 0, 0, &r, err, sizeof(err));
	check("the pending stage's message says not yet valid",
	      e == -EAGAIN && strstr(err, "lib/pend: not yet valid"));
	{
		struct hc_lib_location loc;
		struct hc_lib_extent we[8];
		unsigned int nw = hc_writer_extents(w, we, 8);

		e = hc_ctx_locate(ctx, "lib/pend", 8, &loc, ext, 8, NULL, 0,
				  err, sizeof(err));
		expect("locate: a pending stage", e, 0, err);
		check("locate: PENDING, STAGED, the writer's extents",
		      !e && loc.status == HC_LIB_PENDING &&
		      loc.state == HC_LIB_STAGED && nw >= 1 &&
		      loc.nr_extents == nw && ext[0].offset == we[0].offset &&
		      ext[0].length == we[0].length);
		e = hc_ctx_locate(ctx, "lib/none", 8, &loc, ext, 8, lay, 16,
				  err, sizeof(err));
		check("locate: a miss is a success, everything else 0",
		      !e && loc.status == HC_LIB_MISS && !loc.size &&
		      !loc.nr_extents && !loc.nr_chunks);
		e = hc_ctx_locate(ctx, "", 0, &loc, NULL, 0, NULL, 0, err,
				  sizeof(err));
		expect("locate: an empty URI", e, -EINVAL, err);
	}
	hc_writer_abort(w);

	/* A growable writer in odd pieces from an unaligned buffer. */
	e = hc_writer_create(ctx, "lib/a", 5, HC_SIZE_UNKNOWN, 0, &w, err,
			     sizeof(err));
	expect("writer: growable lib/a", e, 0, err);
	ok = !e;
	memcpy(raw + 3, src, size);
	for (off = 0; ok && off < size; off += 1000003) {
		uint64_t len = size - off < 1000003 ? size - off : 1000003;

		ok = hc_writer_pwrite(w, raw + 3 + off, len, off) == (ssize_t)len;
	}
	check("writer: 3 chunks + 12345 bytes in 1000003-byte pieces", ok);
	if (!e) {
		e = hc_writer_commit(w, HC_COMMIT_CLEAN, NULL);
		expect("writer: commit (CRC-32C)", e, 0,
		       e ? hc_writer_error(w) : NULL);
	}
	e = hc_writer_create(ctx, "lib/a", 5, 1, 0, &w, err, sizeof(err));
	expect("writer: an existing URI", e, -EEXIST, err);

	e = hc_reader_open(ctx, "lib/a", 5, 0, 0, &r, err, sizeof(err));
	expect("reader: lib/a", e, 0, err);
	if (e)
		return 1;
	check("size 3 chunks + 12345", hc_reader_size(r) == size);
	n = hc_reader_layout(r, lay, 16);
	check("layout: 4 chunks, the last one 12345 bytes",
	      n == 4 && lay[3].length == 12345 && lay[0].length == chunk);
	check("extents: as many as the layout needs",
	      hc_reader_extents(r, ext, 8) >= 1);
	{
		struct hc_lib_location loc;
		struct hc_lib_extent lext[8];
		struct hc_lib_chunk lch[16];
		unsigned int ne = hc_reader_extents(r, ext, 8), j;

		e = hc_ctx_locate(ctx, "lib/a", 5, &loc, lext, 8, lch, 16, err,
				  sizeof(err));
		ok = !e && loc.status == HC_LIB_HIT && loc.state == HC_LIB_READY &&
		     loc.size == size && loc.nr_extents == ne &&
		     loc.nr_chunks == 4 && loc.generation == hc_reader_generation(r);
		for (j = 0; ok && j < ne && j < 8; j++)
			ok = lext[j].offset == ext[j].offset &&
			     lext[j].length == ext[j].length;
		for (j = 0; ok && j < 4; j++)
			ok = lch[j].member == lay[j].member &&
			     lch[j].member_offset == lay[j].member_offset &&
			     lch[j].dev_offset == lay[j].dev_offset &&
			     lch[j].length == lay[j].length;
		check("locate: a hit, the reader's extents and layout", ok);
		e = hc_ctx_locate(ctx, "lib/a", 5, &loc, NULL, 0, lch, 2, err,
				  sizeof(err));
		check("locate: 2 of 4 chunks asked, 4 told",
		      !e && loc.nr_chunks == 4 && lch[1].length == chunk);
	}

	/* hc_ctx_object_info() and hc_ctx_list_objects() (1.3). */
	{
		struct hc_lib_object o;
		struct obj_arg oa = { 0, 0 };

		memset(&o, 0x55, sizeof(o));
		e = hc_ctx_object_info(ctx, "lib/a", 5, &o);
		expect("hc_ctx_object_info lib/a", e, 0, NULL);
		check("object_info: the reader's size and generation, READY, "
		      "4 chunks, held once, its URI",
		      !e && o.size == size && o.state == HC_LIB_READY &&
		      o.generation == hc_reader_generation(r) && o.chunks == 4 &&
		      o.holds == 1 && o.uri_len == 5 &&
		      !memcmp(o.uri, "lib/a", 5));
		check("object_info: committed clean by a writer, no backend "
		      "version (no ETag, no Last-Modified)",
		      !e && !o.etag_len && !o.etag[0] && !o.last_modified);
		memset(&o, 0x55, sizeof(o));
		e = hc_ctx_object_info(ctx, "lib/none", 8, &o);
		expect("object_info: not cached", e, -ENOENT, NULL);
		check("object_info: zeroed on failure", !o.size && !o.uri);
		e = hc_ctx_object_info(ctx, "", 0, &o);
		expect("object_info: an empty URI", e, -EINVAL, NULL);
		e = hc_ctx_object_info(ctx, long_uri, sizeof(long_uri), &o);
		expect("object_info: a URI of HC_URI_MAX + 1 bytes", e, -E2BIG,
		       NULL);
		e = hc_ctx_object_info(ctx, long_uri, HC_URI_MAX, &o);
		expect("object_info: a URI of HC_URI_MAX bytes, not cached", e,
		       -ENOENT, NULL);
		e = hc_ctx_list_objects(ctx, "lib/", 4, list_obj, &oa);
		expect("hc_ctx_list_objects lib/", e, 0, NULL);
		check("list_objects: lib/a, 4 chunks, held once, no ETag",
		      oa.n >= 1 && oa.found == 1);
	}

	/* Every alignment of the offset and of the buffer. */
	ok = 1;
	for (k = 0; k < 4096 && ok; k++) {
		char *b = raw + (k % 64);

		n = hc_reader_pread(r, b, 4096 + 7, k);
		ok = n == 4096 + 7 && !memcmp(b, src + k, 4096 + 7);
		if (!ok)
			printf("  pread at %u: %ld %s\n", k, n, hc_reader_error(r));
	}
	check("pread of 4103 bytes at every offset 0..4095, buffer misaligned", ok);
	for (k = 0, ok = 1; k < 3 && ok; k++) {
		off = (k + 1) * chunk - 100;
		n = hc_reader_pread(r, raw + 1, 300, off);
		ok = n == 300 && !memcmp(raw + 1, src + off, 300);
		off = (k + 1) * chunk - 4096;
		n = hc_reader_pread(r, al, 2 * 4096, off);
		ok = ok && n == 2 * 4096 && !memcmp(al, src + off, 2 * 4096);
	}
	check("pread across each chunk boundary (unaligned and aligned)", ok);
	n = hc_reader_pread(r, raw, 100000, size - 10);
	expect("pread across the end: short", n, 10, hc_reader_error(r));
	n = hc_reader_pread(r, raw, 100, size);
	expect("pread at the end", n, 0, hc_reader_error(r));
	n = hc_reader_pread(r, raw, 100, size + 5000);
	expect("pread past the end", n, 0, hc_reader_error(r));

	memset(al, 0, size);
	e = hc_reader_read_all(r, al, 0);
	expect("read_all into an aligned buffer", e, 0, hc_reader_error(r));
	check("read_all: the bytes", !memcmp(al, src, size));
	memset(raw, 0, size + 1);
	e = hc_reader_read_all(r, raw + 1, 3);
	expect("read_all into an unaligned buffer, 3 threads", e, 0,
	       hc_reader_error(r));
	check("read_all (unaligned): the bytes", !memcmp(raw + 1, src, size));
	/* hc_reader_read_range() (1.3): ranges across chunks, any alignment. */
	{
		static const uint64_t offs[] = { 0, 1, 4095, 4096 };
		unsigned int j;

		ok = 1;
		for (j = 0; j < 4 && ok; j++) {
			uint64_t o = chunk - offs[j], l = chunk + 2 * offs[j] + 7;

			memset(al, 0, l);
			n = hc_reader_read_range(r, al, l, o, 0);
			ok = n == (long)l && !memcmp(al, src + o, l);
			memset(raw, 0, l + 1);
			n = hc_reader_read_range(r, raw + 1, l, o, 2);
			ok = ok && n == (long)l && !memcmp(raw + 1, src + o, l);
			if (!ok)
				printf("#   range of %llu at %llu: %ld (%s)\n",
				       (unsigned long long)l,
				       (unsigned long long)o, n,
				       hc_reader_error(r));
		}
		check("read_range: 2-3 chunks at chunk - {0,1,4095,4096}, "
		      "aligned and unaligned buffers", ok);
		memset(al, 0, size);
		n = hc_reader_read_range(r, al, 8 * chunk, 5, 1);
		expect("read_range across the end, 1 thread: short", n,
		       (long)(size - 5), hc_reader_error(r));
		check("read_range across the end: the bytes",
		      !memcmp(al, src + 5, size - 5));
		n = hc_reader_read_range(r, al, 100, size, 0);
		expect("read_range at the end", n, 0, hc_reader_error(r));
		n = hc_reader_read_range(r, al, 0, 0, 0);
		expect("read_range of 0 bytes", n, 0, hc_reader_error(r));
	}
	e = hc_ctx_evict(ctx, "lib/a", 5);
	expect("held: hc_ctx_evict", e, -EBUSY, NULL);
	hc_reader_close(r);
	{
		struct hc_lib_info info;

		e = hc_ctx_info(ctx, "lib/a", 5, &info);
		expect("hc_ctx_info lib/a", e, 0, NULL);
		check("info: READY, 3 chunks + 12345, data-crc",
		      !e && info.state == HC_LIB_READY && info.size == size &&
		      (info.flags & HC_OBJ_F_DATA_CRC));
		e = hc_ctx_wait_clean(ctx, "lib/a", 5, info.generation, 100);
		expect("hc_ctx_wait_clean of a READY object", e, 0, NULL);
		e = hc_ctx_wait_clean(ctx, "lib/a", 5, info.generation + 1, 100);
		expect("hc_ctx_wait_clean of another generation", e, -ESTALE, NULL);
		e = hc_ctx_info(ctx, "lib/none", 8, &info);
		expect("hc_ctx_info of a miss", e, -ENOENT, NULL);
	}
	{
		/* HC_CREATE_NO_CRC (1.1): committed without a CRC, or read back */
		static const char *const nc[2] = { "lib/nocrc0", "lib/nocrc1" };
		struct hc_lib_info info;
		unsigned int k;

		for (k = 0; k < 2; k++) {
			e = hc_writer_create(ctx, nc[k], 10, 100001,
					     HC_CREATE_NO_CRC, &w, err, sizeof(err));
			expect("writer: HC_CREATE_NO_CRC", e, 0, err);
			if (e)
				continue;
			n = hc_writer_pwrite(w, src, 100001, 0);
			expect("writer: NO_CRC pwrite", n, 100001,
			       hc_writer_error(w));
			e = hc_writer_commit(w, HC_COMMIT_CLEAN |
					     (k ? 0 : HC_COMMIT_NO_CRC), NULL);
			expect(k ? "NO_CRC writer: commit asking for the CRC (read back)" :
			       "NO_CRC writer: commit with HC_COMMIT_NO_CRC",
			       e, 0, e ? hc_writer_error(w) : NULL);
			if (e) {
				hc_writer_abort(w);
				continue;
			}
			e = hc_ctx_info(ctx, nc[k], 10, &info);
			check(k ? "NO_CRC writer, CRC asked: data-crc" :
			      "NO_CRC writer, NO_CRC commit: no data-crc",
			      !e && info.size == 100001 &&
			      !!(info.flags & HC_OBJ_F_DATA_CRC) == !!k);
			e = hc_ctx_evict(ctx, nc[k], 10);
			expect("NO_CRC object evicted", e, 0, NULL);
		}
		e = hc_writer_create(ctx, "lib/badflag", 11, 1, 1U << 30, &w, err,
				     sizeof(err));
		expect("writer: an unknown create flag", e, -EINVAL, err);
	}
	{
		/*
		 * hc_writer_crc32c() (1.2): in order (computed as the writes
		 * came), HC_CREATE_NO_CRC and out of order (read back), each
		 * the CRC-32C of the source; hcctl put --crc reports the same.
		 */
		uint32_t want = hc_crc32c(0, src, 100001), got;
		char cmd[256], line[4096];
		unsigned int k;
		FILE *p;

		for (k = 0; k < 3; k++) {
			e = hc_writer_create(ctx, "lib/crc", 7, 100001,
					     k == 1 ? HC_CREATE_NO_CRC : 0, &w,
					     err, sizeof(err));
			expect("writer: lib/crc", e, 0, err);
			if (e)
				continue;
			if (k == 2) {	/* the second half first */
				n = hc_writer_pwrite(w, src + 50000, 50001, 50000);
				n += hc_writer_pwrite(w, src, 50000, 0);
			} else {
				n = hc_writer_pwrite(w, src, 100001, 0);
			}
			expect("writer: lib/crc pwrite", n, 100001,
			       hc_writer_error(w));
			got = ~want;
			e = hc_writer_crc32c(w, &got);
			expect(k == 0 ? "hc_writer_crc32c, in order" :
			       k == 1 ? "hc_writer_crc32c, HC_CREATE_NO_CRC (read back)" :
			       "hc_writer_crc32c, out of order (read back)",
			       e, 0, hc_writer_error(w));
			check("hc_writer_crc32c: the source's CRC-32C", got == want);
			hc_writer_abort(w);
		}
		p = fopen("/tmp/hc_libtest.src", "w");
		check("/tmp/hc_libtest.src written",
		      p && fwrite(src, 1, 100001, p) == 100001 && !fclose(p));
		snprintf(cmd, sizeof(cmd),
			 "hcctl put --json --clean --crc --no-progress /tmp/hc_libtest.src lib/crc");
		p = popen(cmd, "r");
		n = p ? (ssize_t)fread(line, 1, sizeof(line) - 1, p) : -1;
		line[n > 0 ? n : 0] = '\0';
		e = p ? pclose(p) : -1;
		snprintf(cmd, sizeof(cmd), "\"crc32c\":%u", want);
		check("hcctl put --crc --json: exit 0, the CRC-32C of the file",
		      e == 0 && strstr(line, cmd));
		if (!strstr(line, cmd))
			printf("#   want %s in: %s\n", cmd, line);
		unlink("/tmp/hc_libtest.src");
		e = hc_ctx_evict(ctx, "lib/crc", 7);
		expect("lib/crc evicted", e, 0, NULL);
	}
	{
		/* Writes in flight from 4 threads; one failed before. */
		static const uint64_t len[] = { 1 << 20, 333333, 70 * 4096, 12345,
						2 << 20, 4097, 777777, 1 };
		uint64_t total = 6 * chunk + 4321, offs[256], o = 0;
		struct par_job j = { .src = src, .off = offs };
		uint32_t want, got = 0;
		pthread_t tid[4];
		char *none;

		fill(src, 77, total);
		want = hc_crc32c(0, src, total);
		for (j.nr = 0; o < total && j.nr < 255; j.nr++) {
			offs[j.nr] = o;
			o += len[j.nr % 8];
			if (o > total)
				o = total;
		}
		offs[j.nr] = total;
		check("writer: the pieces cover the object", o == total);
		e = hc_writer_create(ctx, "lib/par", 7, HC_SIZE_UNKNOWN, 0, &j.w,
				     err, sizeof(err));
		expect("writer: lib/par", e, 0, err);
		none = mmap(NULL, 1 << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (!e && none != MAP_FAILED) {
			n = hc_writer_pwrite(j.w, none, 1 << 20, 1 << 20);
			expect("writer: a write from a PROT_NONE page (no CRC of it read)",
			       n, -EFAULT, hc_writer_error(j.w));
			for (i = 0; i < 4; i++)
				check("pthread_create",
				      !pthread_create(&tid[i], NULL, par_writer, &j));
			for (i = 0; i < 4; i++)
				pthread_join(tid[i], NULL);
			check("writer: 4 threads' pwrites", !j.failed);
			e = hc_writer_crc32c(j.w, &got);
			expect("hc_writer_crc32c, 4 threads", e, 0, hc_writer_error(j.w));
			check("hc_writer_crc32c, 4 threads: the source's CRC-32C", got == want);
			e = hc_writer_commit(j.w, HC_COMMIT_CLEAN, NULL);
			expect("writer: lib/par committed", e, 0, NULL);
			if (e)
				hc_writer_abort(j.w);
			e = hc_reader_open(ctx, "lib/par", 7, 0, 0, &r, err, sizeof(err));
			expect("reader: lib/par", e, 0, err);
			if (!e) {
				memset(al, 0, total);
				n = hc_reader_pread(r, al, total, 0);
				expect("reader: lib/par pread", n, (long)total,
				       hc_reader_error(r));
				check("lib/par: every byte equal", !memcmp(al, src, total));
				hc_reader_close(r);
			}
			e = hc_ctx_evict(ctx, "lib/par", 7);
			expect("lib/par evicted", e, 0, NULL);
		} else if (!e) {
			hc_writer_abort(j.w);
		}
		if (none != MAP_FAILED)
			munmap(none, 1 << 20);
	}
	e = hc_ctx_evict(ctx, "lib/a", 5);
	expect("closed: hc_ctx_evict", e, 0, NULL);
	{
		uint64_t gen = 0;

		e = hc_writer_create(ctx, "lib/dirty", 9, HC_SIZE_UNKNOWN, 0, &w,
				     err, sizeof(err));
		expect("writer: lib/dirty", e, 0, err);
		if (!e) {
			n = hc_writer_pwrite(w, src, 100, 0);
			e = hc_writer_commit(w, 0, &gen);
			expect("commit lib/dirty (DIRTY)", e, 0, NULL);
			t0 = now();
			e = hc_ctx_wait_clean(ctx, "lib/dirty", 9, gen, 300);
			expect("hc_ctx_wait_clean without a helper", e,
			       -ETIMEDOUT, NULL);
			check("it waited at least 300 ms", now() - t0 >= 0.3);
			e = hc_ctx_evict(ctx, "lib/dirty", 9);
			expect("hc_ctx_evict of a DIRTY object", e, -EBUSY, NULL);
		}
	}

	/*
	 * A 3-extent object: fill the free chunks with 1-chunk objects (a
	 * STAGE would evict them rather than fail), free three far apart.
	 */
	{
		struct hc_stats st = { .size = sizeof(st) };
		int cfd = open("/dev/hypercache-ctl", O_RDONLY);
		unsigned int nfree = 0;

		if (!ioctl(cfd, HC_IOC_STAT, &st))
			nfree = (unsigned int)((st.capacity - st.bytes_used) / chunk);
		close(cfd);
		for (i = 0; i < nfree; i++) {
			char uri[32];

			snprintf(uri, sizeof(uri), "lib/fill/%u", i);
			if (put(ctx, uri, src, chunk, 0))
				break;
			filled++;
		}
		check("the free chunks filled with 1-chunk objects",
		      filled == nfree && filled >= 6);
	}
	{
		char uri[32];
		unsigned int gap = filled / 4, j;

		for (j = 1; j <= 3; j++) {
			snprintf(uri, sizeof(uri), "lib/fill/%u", j * gap);
			ok = !evict(uri);
		}
	}
	check("three 1-chunk objects apart evicted", ok);
	{
		struct count_arg ca = { 0, 0 };

		e = hc_ctx_list(ctx, "lib/fill/", 9, count_obj, &ca);
		expect("hc_ctx_list lib/fill/", e, 0, NULL);
		check("it lists the objects left, each 1 chunk READY",
		      ca.n == filled - 3 && !ca.bad);
		ca.n = 0;
		e = hc_ctx_list(ctx, NULL, 0, count_obj, &ca);
		check("without a prefix: at least as many", !e && ca.n >= filled - 3);
		ca.n = 0;
		e = hc_ctx_list(ctx, "lib/nothing/", 12, count_obj, &ca);
		check("an unmatched prefix: none", !e && ca.n == 0);
	}
	fill(src, 7, 3 * chunk);
	e = put(ctx, "lib/three", src, 3 * chunk - 5, HC_CREATE_REPLACE);
	expect("a 3-chunk object into the three holes", e, 0, NULL);
	e = hc_reader_open(ctx, "lib/three", 9, 0, 0, &r, err, sizeof(err));
	expect("reader: lib/three", e, 0, err);
	if (!e) {
		void *map;

		check("lib/three has 3 extents", hc_reader_extents(r, ext, 8) == 3);
		e = hc_reader_mmap(r, &map);
		expect("mmap of the 3-extent object", e, 0, hc_reader_error(r));
		n = hc_reader_pread(r, al, 3 * chunk, 0);
		check("O_DIRECT pread of it", n == (long)(3 * chunk - 5));
		check("the mapping equals the O_DIRECT bytes and the source",
		      !e && !memcmp(map, al, 3 * chunk - 5) &&
		      !memcmp(map, src, 3 * chunk - 5));
		hc_reader_munmap(r, map);
		hc_reader_close(r);
	}
	evict("lib/three");
	for (i = 0; i < filled; i++) {
		char uri[32];

		snprintf(uri, sizeof(uri), "lib/fill/%u", i);
		evict(uri);
	}
	hc_ctx_close(ctx);
	printf("%d failed\n", failures);
	return failures ? 1 : 0;
}
