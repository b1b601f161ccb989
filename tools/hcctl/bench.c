// SPDX-License-Identifier: GPL-2.0
/*
 * hcctl bench: write N MiB as an object of the running pool, read it back
 * K times with W parallel O_DIRECT workers, and check that the SHA-256 of
 * what was read equals the SHA-256 of what was written (the seed's
 * "bench --size-mb N --iterations K").  The figures and what they mean:
 * Documentation/benchmarks.md, "hcctl bench".
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <openssl/evp.h>

#include "hypercache.h"
#include "hcctl.h"
#include "opt.h"
#include "ctl.h"
#include "extent.h"
#include "util.h"
#include "config.h"
#include "s3.h"
#include "scrape.h"

#define BENCH_IO	(4U << 20)	/* bytes per O_DIRECT transfer */
#define BENCH_WORKERS_MAX	64
#define BENCH_S3_PART	(8U << 20)	/* bytes per ranged GET (hypercached's part_size) */

struct bench_args {
	unsigned long size_mb;
	unsigned long iterations;
	unsigned long workers;
	bool progress;
	bool keep;
	struct hcctl_uri uri;
	/* --s3-endpoint mode */
	const char *endpoint, *bucket, *key, *config;
	unsigned long timeout;
};

/* One read pass: the workers take 4 MiB pieces of the extents in turn. */
struct bench_pass {
	int dev;
	unsigned char *buf;		/* the object, in order */
	const struct hc_extent *ext;
	uint32_t nr_ext;
	uint64_t size;
	uint64_t next;			/* next object offset to read */
	uint64_t done;
	pthread_mutex_t lock;
	int err;			/* first -errno */
	uint64_t err_off;
};

/* The pool offset of object offset @off (the extents map it). */
static uint64_t bench_map(const struct bench_pass *p, uint64_t off,
			  uint64_t *run)
{
	uint64_t base = 0;

	for (uint32_t i = 0; i < p->nr_ext; i++) {
		if (off < base + p->ext[i].length) {
			*run = base + p->ext[i].length - off;
			return p->ext[i].offset + (off - base);
		}
		base += p->ext[i].length;
	}
	*run = 0;
	return 0;
}

static void *bench_worker(void *arg)
{
	struct bench_pass *p = arg;

	for (;;) {
		uint64_t off, dev_off, run, n;
		int ret;

		pthread_mutex_lock(&p->lock);
		off = p->next;
		if (off >= p->size || p->err) {
			pthread_mutex_unlock(&p->lock);
			return NULL;
		}
		dev_off = bench_map(p, off, &run);
		n = p->size - off < BENCH_IO ? p->size - off : BENCH_IO;
		if (n > run)
			n = run;
		p->next = off + n;
		pthread_mutex_unlock(&p->lock);
		/* the object's buffer is padded to a whole block at the end */
		ret = hc_pread_full(p->dev, p->buf + off,
				    (size_t)((n + 4095) & ~4095ULL), dev_off);
		pthread_mutex_lock(&p->lock);
		if (ret && !p->err) {
			p->err = ret;
			p->err_off = dev_off;
		}
		p->done += n;
		pthread_mutex_unlock(&p->lock);
	}
}

static int bench_sha256(const void *buf, uint64_t len, unsigned char md[32])
{
	unsigned int mdlen = 0;

	return EVP_Digest(buf, (size_t)len, md, &mdlen, EVP_sha256(), NULL) &&
	       mdlen == 32 ? 0 : -1;
}

static void bench_hex(const unsigned char md[32], char out[65])
{
	for (int i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

/* Deterministic, incompressible content: xorshift64* from @seed. */
static void bench_fill(unsigned char *buf, uint64_t len, uint64_t seed)
{
	uint64_t x = seed | 1;

	for (uint64_t i = 0; i < len; i += 8) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		uint64_t v = x * 2685821657736338717ULL;

		memcpy(buf + i, &v, len - i < 8 ? len - i : 8);
	}
}

/* Run the test hook (tests only: corrupt the object behind our back). */
static void bench_test_hook(const struct bench_args *a)
{
	const char *hook = getenv("HCCTL_TEST_BENCH_HOOK");

	if (!hook || !*hook)
		return;
	setenv("HCCTL_BENCH_URI", a->uri.shown, 1);
	if (system(hook) != 0)
		fprintf(stderr, "hcctl bench: the test hook failed\n");
}

static int bench_write(const struct bench_args *a, int ctl, int dev,
		       unsigned char *buf, uint64_t size, struct hc_extent *ext,
		       uint32_t *nr_ext)
{
	struct hc_stage st;
	struct hc_commit cm;
	uint64_t left = size, off = 0;
	char err[160];
	int ret;

	ret = hcctl_ctl_stage(ctl, &a->uri, HC_STAGE_F_REPLACE, size, ext,
			      HC_MAX_EXTENTS, &st);
	if (ret < 0) {
		hcctl_ctl_report(a->uri.shown, "STAGE", -ret);
		return -1;
	}
	if (hc_extents_check(ext, st.nr_extents, size, 4096, err, sizeof(err))) {
		hcctl_errf(a->uri.shown, 0, "the kernel's extents: %s", err);
		goto abort;
	}
	for (uint32_t i = 0; i < st.nr_extents && left; i++) {
		uint64_t n = ext[i].length < left ? ext[i].length : left;

		ret = hc_pwrite_full(dev, buf + off,
				     (size_t)((n + 4095) & ~4095ULL),
				     ext[i].offset);
		if (ret < 0) {
			hcctl_errf(HC_DATA_PATH, -ret, "write error at offset %"
				   PRIu64, (uint64_t)ext[i].offset);
			goto abort;
		}
		off += n;
		left -= n;
	}
	if (fdatasync(dev) < 0) {
		hcctl_err(HC_DATA_PATH, "cannot flush the written data", errno);
		goto abort;
	}
	/* CLEAN: a benchmark object is never written back to a backend */
	ret = hcctl_ctl_commit(ctl, &a->uri, HC_COMMIT_F_CLEAN, 0, &cm);
	if (ret < 0) {
		hcctl_ctl_report(a->uri.shown, "COMMIT", -ret);
		goto abort;
	}
	*nr_ext = st.nr_extents;
	return 0;
abort:
	hcctl_ctl_abort(ctl, &a->uri);
	return -1;
}

/* The first byte where @a and @b differ. */
static uint64_t bench_first_diff(const unsigned char *x,
				 const unsigned char *y, uint64_t len)
{
	uint64_t i = 0;

	while (i < len && x[i] == y[i])
		i++;
	return i;
}

/*
 * Read the whole object of @p with @a->workers workers, a progress line
 * labelled @what on a terminal.  Returns 0, or -1 after printing why.
 */
/*
 * Run @a->workers threads of @fn(@arg) until they end, with a progress line
 * labelled @what on a terminal: the share of @size in *@done (under @lock),
 * until it is all done or *@err is set.  Returns 0, or -1 (printed) if no
 * thread started.
 */
static int bench_workers(const struct bench_args *a, void *(*fn)(void *),
			 void *arg, pthread_mutex_t *lock, const uint64_t *done,
			 uint64_t size, const int *err, const char *what)
{
	pthread_t tid[BENCH_WORKERS_MAX];
	bool progress = a->progress && !hcctl_opt_json && isatty(STDERR_FILENO);
	unsigned long w, started = 0;

	for (w = 0; w < a->workers; w++)
		if (!pthread_create(&tid[w], NULL, fn, arg))
			started++;
	if (!started) {
		hcctl_err("bench", "cannot start a worker", EAGAIN);
		return -1;
	}
	while (progress) {
		uint64_t d;
		int e;

		pthread_mutex_lock(lock);
		d = *done;
		e = *err;
		pthread_mutex_unlock(lock);
		fprintf(stderr, "\r%s  %3" PRIu64 "%%\033[K", what,
			size ? d * 100 / size : 100);
		if (d >= size || e)
			break;
		usleep(100000);
	}
	for (w = 0; w < started; w++)
		pthread_join(tid[w], NULL);
	if (progress)
		fputs("\r\033[K", stderr);
	return 0;
}

static int bench_read_pass(struct bench_pass *p, const struct bench_args *a,
			   const char *what)
{
	if (bench_workers(a, bench_worker, p, &p->lock, &p->done, p->size,
			  &p->err, what))
		return -1;
	if (p->err) {
		hcctl_errf(HC_DATA_PATH, -p->err, "read error at offset %"
			   PRIu64, p->err_off);
		return -1;
	}
	return 0;
}

static int bench_run(const struct bench_args *a)
{
	uint64_t size = (uint64_t)a->size_mb << 20;
	uint64_t padded = (size + 4095) & ~4095ULL;
	unsigned char *src = NULL, *dst = NULL;
	unsigned char md_w[32], md_r[32];
	char hex_w[65], hex_r[65];
	struct hc_extent *ext = NULL;
	double *gbps = NULL, sum = 0;
	uint32_t nr_ext = 0;
	int ctl, dev = -1, rc = HC_EXIT_FAIL;
	bool written = false;
	unsigned long it;
	json_object *o = NULL, *arr = NULL;

	ctl = hcctl_ctl_open("bench", true);
	if (ctl < 0)
		return HC_EXIT_FAIL;
	dev = open(HC_DATA_PATH, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (dev < 0) {
		hcctl_err(HC_DATA_PATH, "cannot open", errno);
		goto out;
	}
	ext = calloc(HC_MAX_EXTENTS, sizeof(*ext));
	gbps = calloc(a->iterations, sizeof(*gbps));
	if (!ext || !gbps || posix_memalign((void **)&src, 4096, padded) ||
	    posix_memalign((void **)&dst, 4096, padded)) {
		hcctl_err("bench", "cannot allocate two buffers of the object's size", ENOMEM);
		goto out;
	}
	memset(src + size, 0, padded - size);
	bench_fill(src, size, (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL ^
		   (uint64_t)(hc_now() * 1e6));
	if (bench_sha256(src, size, md_w)) {
		hcctl_err("bench", "SHA-256 failed", EIO);
		goto out;
	}
	bench_hex(md_w, hex_w);
	if (bench_write(a, ctl, dev, src, size, ext, &nr_ext) < 0)
		goto out;
	written = true;
	bench_test_hook(a);
	if (hcctl_opt_json) {
		o = json_object_new_object();
		arr = json_object_new_array();
	} else {
		printf("%s: %lu MiB in %u extent%s, %lu workers, SHA-256 %s\n",
		       a->uri.shown, a->size_mb, nr_ext, nr_ext == 1 ? "" : "s",
		       a->workers, hex_w);
	}
	for (it = 0; it < a->iterations; it++) {
		struct bench_pass p = {
			.dev = dev, .buf = dst, .ext = ext, .nr_ext = nr_ext,
			.size = size, .lock = PTHREAD_MUTEX_INITIALIZER,
		};
		char what[64];
		double t0, t;

		memset(dst, 0, padded);
		snprintf(what, sizeof(what), "iteration %lu/%lu", it + 1,
			 a->iterations);
		t0 = hc_now();
		if (bench_read_pass(&p, a, what) < 0)
			goto out;
		t = hc_now() - t0;
		if (bench_sha256(dst, size, md_r)) {
			hcctl_err("bench", "SHA-256 failed", EIO);
			goto out;
		}
		bench_hex(md_r, hex_r);
		if (memcmp(md_w, md_r, 32)) {
			uint64_t d = bench_first_diff(src, dst, size), run;
			struct bench_pass m = { .ext = ext, .nr_ext = nr_ext };
			uint64_t pool_off = bench_map(&m, d, &run);

			hcctl_errf(a->uri.shown, EIO,
				   "SHA-256 MISMATCH in iteration %lu: wrote %s, read %s; "
				   "first difference at object byte %" PRIu64
				   " (pool offset %" PRIu64 ")",
				   it + 1, hex_w, hex_r, d, pool_off);
			goto out;
		}
		gbps[it] = t > 0 ? (double)size / t / 1e9 : 0;
		sum += gbps[it];
		if (o) {
			json_object *i = json_object_new_object();

			json_object_object_add(i, "iteration", json_object_new_uint64(it + 1));
			json_object_object_add(i, "seconds", json_object_new_double(t));
			json_object_object_add(i, "gbps", json_object_new_double(gbps[it]));
			json_object_object_add(i, "sha256", json_object_new_string(hex_r));
			json_object_array_add(arr, i);
		} else {
			printf("iteration %lu: %.3f s, %.3f GB/s, SHA-256 matches\n",
			       it + 1, t, gbps[it]);
		}
	}
	if (o) {
		json_object_object_add(o, "uri", json_object_new_string(a->uri.shown));
		json_object_object_add(o, "size", json_object_new_uint64(size));
		json_object_object_add(o, "workers", json_object_new_uint64(a->workers));
		json_object_object_add(o, "extents", json_object_new_uint64(nr_ext));
		json_object_object_add(o, "sha256", json_object_new_string(hex_w));
		json_object_object_add(o, "parity", json_object_new_boolean(true));
		json_object_object_add(o, "iterations", arr);
		arr = NULL;
		json_object_object_add(o, "mean_gbps",
				       json_object_new_double(sum / (double)a->iterations));
		hcctl_json_print(o, false);
	} else {
		printf("mean: %.3f GB/s over %lu iteration%s (1 GB = 1e9 bytes)\n",
		       sum / (double)a->iterations, a->iterations,
		       a->iterations == 1 ? "" : "s");
	}
	rc = HC_EXIT_OK;
out:
	if (arr)
		json_object_put(arr);
	if (o)
		json_object_put(o);
	if (written && !a->keep) {
		int ret = hcctl_ctl_evict(ctl, &a->uri);

		if (ret < 0 && ret != -ENOENT)
			hcctl_ctl_report(a->uri.shown, "EVICT", -ret);
	}
	free(src);
	free(dst);
	free(ext);
	free(gbps);
	if (dev >= 0)
		close(dev);
	close(ctl);
	return rc;
}

/* --- bench --s3-endpoint: S3 directly and through the cache ------------ */

/* One direct fetch: ranged GETs of BENCH_S3_PART bytes, one client per worker. */
struct bench_s3 {
	const struct hc_backend *b;
	const struct hc_creds *cr;
	const struct hcs3_opts *so;
	const char *bucket, *key;
	unsigned char *buf;
	uint64_t size;
	uint64_t next;
	uint64_t done;
	pthread_mutex_t lock;
	int err;			/* first -errno */
	char msg[256];			/* and its S3 message */
};

static void bench_s3_fail(struct bench_s3 *s, int err, const char *msg)
{
	pthread_mutex_lock(&s->lock);
	if (!s->err) {
		s->err = err;
		snprintf(s->msg, sizeof(s->msg), "%s", msg);
	}
	pthread_mutex_unlock(&s->lock);
}

static void *bench_s3_worker(void *arg)
{
	struct bench_s3 *s = arg;
	struct hcs3 *c;
	char err[256] = "";
	int ret;

	ret = hcs3_new(s->b, s->cr, s->so, &c, err, sizeof(err));
	if (ret) {
		bench_s3_fail(s, ret, err);
		return NULL;
	}
	for (;;) {
		uint64_t off, n;

		pthread_mutex_lock(&s->lock);
		off = s->next;
		if (off >= s->size || s->err) {
			pthread_mutex_unlock(&s->lock);
			break;
		}
		n = s->size - off < BENCH_S3_PART ? s->size - off : BENCH_S3_PART;
		s->next = off + n;
		pthread_mutex_unlock(&s->lock);
		ret = hcs3_get_range(c, s->bucket, s->key, off, (size_t)n, NULL,
				     s->buf + off, err, sizeof(err));
		if (ret) {
			bench_s3_fail(s, ret, err);
			break;
		}
		pthread_mutex_lock(&s->lock);
		s->done += n;
		pthread_mutex_unlock(&s->lock);
	}
	hcs3_free(c);
	return NULL;
}

/* Fetch the whole object into @s->buf directly from S3.  0 or -1 (printed). */
static int bench_s3_direct(struct bench_s3 *s, const struct bench_args *a,
			   const char *what)
{
	s->next = s->done = 0;
	s->err = 0;
	if (bench_workers(a, bench_s3_worker, s, &s->lock, &s->done, s->size,
			  &s->err, what))
		return -1;
	if (s->err) {
		hcctl_errf(a->endpoint, -s->err, "GET s3://%s/%s: %s", s->bucket,
			   s->key, s->msg);
		return -1;
	}
	return 0;
}

/*
 * Fetch the object through the cache into @dst: LOCATE|HOLD (cold: with
 * AUTO_INGEST|WAIT, hypercached fetches it from S3 into the pool), the
 * parallel O_DIRECT read, RELEASE.  0 or -1 (printed).
 */
static int bench_s3_cached(const struct bench_args *a, int ctl, int dev,
			   bool cold, unsigned char *dst, uint64_t size,
			   struct hc_extent *ext, const char *what)
{
	struct hcctl_fetch_err fe = { 0 };
	struct hc_locate l;
	uint32_t flags = HC_LOCATE_F_HOLD;
	char err[160];
	int rc = -1;

	if (cold)
		flags |= HC_LOCATE_F_WAIT | HC_LOCATE_F_AUTO_INGEST;
	if (hcctl_obj_fetch(ctl, &a->uri, flags, a->timeout, ext,
			    HC_MAX_EXTENTS, &l, &fe) < 0) {
		hcctl_errf(a->uri.shown, fe.errnum, "%s%s", cold ? "" :
			   "not cached after the cold fetch: ", fe.reason);
		return -1;
	}
	if (l.obj_size != size) {
		hcctl_errf(a->uri.shown, 0, "cached with %" PRIu64
			   " bytes, S3 has %" PRIu64, (uint64_t)l.obj_size, size);
		goto release;
	}
	if (hc_extents_check(ext, l.nr_extents, size, 4096, err, sizeof(err))) {
		hcctl_errf(a->uri.shown, 0, "the kernel's extents: %s", err);
		goto release;
	}
	{
		struct bench_pass p = {
			.dev = dev, .buf = dst, .ext = ext,
			.nr_ext = l.nr_extents, .size = size,
			.lock = PTHREAD_MUTEX_INITIALIZER,
		};

		if (bench_read_pass(&p, a, what) == 0)
			rc = 0;
	}
release:
	hcctl_ctl_release(ctl, &a->uri);
	return rc;
}

/* The S3 backend of @cfg whose endpoint is @url (a trailing '/' aside). */
static const struct hc_backend *bench_s3_backend(const struct hc_config *cfg,
						 const char *url)
{
	size_t n = strlen(url);

	while (n > 1 && url[n - 1] == '/')
		n--;
	for (unsigned int i = 0; i < cfg->nr_backends; i++) {
		const struct hc_backend *b = &cfg->backends[i];
		size_t m = strlen(b->endpoint);

		while (m > 1 && b->endpoint[m - 1] == '/')
			m--;
		if (b->type == HC_BACKEND_S3 && m == n &&
		    !strncmp(b->endpoint, url, n))
			return b;
	}
	return NULL;
}

/* One row of the table: a way of fetching, its time and what it read. */
struct bench_row {
	const char *name;	/* "s3 direct", "cache" */
	const char *temp;	/* "cold", "warm" */
	double seconds;
	double gbps;
	double ratio;		/* gbps / the direct fetch's of the same temperature */
	char sha[65];
};

static int bench_s3_check(const char *what, const unsigned char *buf,
			  uint64_t size, const char *want, char out[65])
{
	unsigned char md[32];

	if (bench_sha256(buf, size, md)) {
		hcctl_err("bench", "SHA-256 failed", EIO);
		return -1;
	}
	bench_hex(md, out);
	if (want && strcmp(want, out)) {
		hcctl_errf(what, EIO, "SHA-256 MISMATCH: expected %s, read %s",
			   want, out);
		return -1;
	}
	return 0;
}

static void bench_s3_print(const struct bench_args *a, uint64_t size,
			   const struct bench_row *r, unsigned int nr,
			   const char *uploaded)
{
	if (hcctl_opt_json) {
		json_object *o = json_object_new_object();
		json_object *arr = json_object_new_array();

		json_object_object_add(o, "endpoint", json_object_new_string(a->endpoint));
		json_object_object_add(o, "bucket", json_object_new_string(a->bucket));
		json_object_object_add(o, "key", json_object_new_string(a->key));
		json_object_object_add(o, "uri", json_object_new_string(a->uri.shown));
		json_object_object_add(o, "size", json_object_new_uint64(size));
		json_object_object_add(o, "workers", json_object_new_uint64(a->workers));
		json_object_object_add(o, "uploaded", json_object_new_boolean(uploaded != NULL));
		json_object_object_add(o, "sha256", json_object_new_string(r[0].sha));
		json_object_object_add(o, "parity", json_object_new_boolean(true));
		for (unsigned int i = 0; i < nr; i++) {
			json_object *j = json_object_new_object();

			json_object_object_add(j, "path", json_object_new_string(r[i].name));
			json_object_object_add(j, "temperature", json_object_new_string(r[i].temp));
			json_object_object_add(j, "seconds", json_object_new_double(r[i].seconds));
			json_object_object_add(j, "gbps", json_object_new_double(r[i].gbps));
			json_object_object_add(j, "ratio", json_object_new_double(r[i].ratio));
			json_object_array_add(arr, j);
		}
		json_object_object_add(o, "fetches", arr);
		hcctl_json_print(o, false);
		json_object_put(o);
		return;
	}
	printf("s3://%s/%s at %s as %s: %" PRIu64 " bytes, %lu workers, SHA-256 %s%s\n",
	       a->bucket, a->key, a->endpoint, a->uri.shown, size, a->workers,
	       r[0].sha, uploaded ? " (uploaded for the run)" : "");
	printf("%-10s %-5s %10s %9s %8s\n", "path", "temp", "seconds", "GB/s",
	       "ratio");
	for (unsigned int i = 0; i < nr; i++)
		printf("%-10s %-5s %10.3f %9.3f %7.2fx\n", r[i].name, r[i].temp,
		       r[i].seconds, r[i].gbps, r[i].ratio);
	printf("ratio: GB/s over the direct S3 fetch of the same temperature; SHA-256 matches in every fetch (1 GB = 1e9 bytes)\n");
}

static int bench_s3_run(struct bench_args *a)
{
	struct hcs3_opts so = { 0 };
	struct hc_config *cfg = NULL;
	struct hc_creds *cr = NULL;
	const struct hc_backend *b;
	struct hcs3 *c = NULL;
	struct hcs3_object head;
	struct bench_s3 s = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct hc_scrape_kernel st;
	struct bench_row r[4];
	struct hc_extent *ext = NULL;
	unsigned char *src = NULL, *dst = NULL;
	char err[512], keybuf[128], uribuf[HC_URI_MAX + 1], what[64];
	const char *cfg_path = a->config ? a->config : HC_CONFIG_PATH;
	const char *uploaded = NULL;
	bool upload = !a->key;
	uint64_t size, padded;
	unsigned int nr = 0, i;
	int ctl = -1, dev = -1, rc = HC_EXIT_FAIL, ret;

	cfg = calloc(1, sizeof(*cfg));
	cr = calloc(1, sizeof(*cr));
	ext = calloc(HC_MAX_EXTENTS, sizeof(*ext));
	if (!cfg || !cr || !ext) {
		hcctl_err("bench", "out of memory", ENOMEM);
		goto out;
	}
	ret = hc_config_load(cfg_path, cfg, err, sizeof(err));
	if (ret) {
		hcctl_errf("bench", -ret, "%s (the cache's backend for %s is found there)",
			   err, a->endpoint);
		goto out;
	}
	b = bench_s3_backend(cfg, a->endpoint);
	if (!b) {
		hcctl_errf(a->endpoint, 0, "no s3 backend of %s has this endpoint: hypercached could not fetch it through the cache",
			   cfg_path);
		goto out;
	}
	ret = hc_creds_lookup(b, environ, getenv("HOME"), cr, err, sizeof(err));
	if (!ret) {
		so.timeout_connect = cfg->timeout_connect;
		so.timeout_request = cfg->timeout_request;
		ret = hcs3_new(b, cr, &so, &c, err, sizeof(err));
	}
	if (ret) {
		hcctl_errf(a->endpoint, -ret, "backend %s: %s", b->name, err);
		goto out;
	}
	if (hcctl_stats_get("bench", &st, false) < 0)
		goto out;
	if (st.has[HC_A_STATS_INGEST_HELPER] && !st.v[HC_A_STATS_INGEST_HELPER]) {
		hcctl_errf("bench", 0, "no ingest helper is registered (is hypercached running?): the cache cannot fetch from %s",
			   a->endpoint);
		goto out;
	}

	if (upload) {
		char host[64] = "";

		/* a key of plain characters: "(none)" is a host without a name */
		if (gethostname(host, sizeof(host) - 1) || host[0] == '(')
			strcpy(host, "host");
		for (char *h = host; *h; h++)
			if (!isalnum((unsigned char)*h) && *h != '-' && *h != '.')
				*h = '_';
		snprintf(keybuf, sizeof(keybuf), "hcctl-bench/%s-%ld", host,
			 (long)getpid());
		a->key = keybuf;
		size = (uint64_t)a->size_mb << 20;
	} else {
		ret = hcs3_head(c, a->bucket, a->key, &head, err, sizeof(err));
		if (ret) {
			hcctl_errf(a->endpoint, -ret, "HEAD s3://%s/%s: %s",
				   a->bucket, a->key, err);
			goto out;
		}
		size = head.size;
		if (!size) {
			hcctl_errf(a->endpoint, 0, "s3://%s/%s is empty: nothing to measure",
				   a->bucket, a->key);
			goto out;
		}
	}
	if (snprintf(uribuf, sizeof(uribuf), "hypercache://%s/%s/%s", b->name,
		     a->bucket, a->key) >= (int)sizeof(uribuf)) {
		hcctl_errf(a->key, 0, "the cache URI would be longer than %d bytes",
			   HC_URI_MAX);
		goto out;
	}
	a->uri.bytes = uribuf;
	a->uri.len = (uint32_t)strlen(uribuf);
	a->uri.shown = hcctl_uri_escape(uribuf, a->uri.len);
	if (!a->uri.shown) {
		hcctl_err("bench", "out of memory", ENOMEM);
		goto out;
	}
	padded = (size + 4095) & ~4095ULL;
	if (posix_memalign((void **)&dst, 4096, padded) ||
	    (upload && posix_memalign((void **)&src, 4096, padded))) {
		hcctl_err("bench", "cannot allocate two buffers of the object's size", ENOMEM);
		goto out;
	}
	ctl = hcctl_ctl_open("bench", true);
	if (ctl < 0)
		goto out;
	dev = open(HC_DATA_PATH, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (dev < 0) {
		hcctl_err(HC_DATA_PATH, "cannot open", errno);
		goto out;
	}
	if (src) {
		bench_fill(src, size, (uint64_t)getpid() * 0x9e3779b97f4a7c15ULL ^
			   (uint64_t)(hc_now() * 1e6));
		ret = hcs3_put(c, a->bucket, a->key, src, (size_t)size, NULL,
			       err, sizeof(err));
		if (ret) {
			hcctl_errf(a->endpoint, -ret, "PUT s3://%s/%s: %s",
				   a->bucket, a->key, err);
			goto out;
		}
		uploaded = a->key;
	}
	/* cold means not in the cache */
	ret = hcctl_ctl_evict(ctl, &a->uri);
	if (ret < 0 && ret != -ENOENT) {
		hcctl_ctl_report(a->uri.shown, "EVICT (to measure a cold fetch)", -ret);
		goto out;
	}

	s.b = b;
	s.cr = cr;
	s.so = &so;
	s.bucket = a->bucket;
	s.key = a->key;
	s.buf = dst;
	s.size = size;
	/* s3 direct cold, s3 direct warm (mean), cache cold, cache warm (mean) */
	for (i = 0; i < 4; i++) {
		bool cache = i >= 2, cold = !(i & 1);
		unsigned long k, n = cold ? 1 : a->iterations;
		double t0, t = 0;

		memset(&r[i], 0, sizeof(r[i]));
		r[i].name = cache ? "cache" : "s3 direct";
		r[i].temp = cold ? "cold" : "warm";
		for (k = 0; k < n; k++) {
			snprintf(what, sizeof(what), "%s %s %lu/%lu", r[i].name,
				 r[i].temp, k + 1, n);
			memset(dst, 0, padded);
			t0 = hc_now();
			ret = cache ? bench_s3_cached(a, ctl, dev, cold, dst, size,
						      ext, what) :
				      bench_s3_direct(&s, a, what);
			if (ret < 0)
				goto out;
			t += hc_now() - t0;
			snprintf(what, sizeof(what), "%s %s fetch %lu", r[i].name,
				 r[i].temp, k + 1);
			if (bench_s3_check(what, dst, size, nr ? r[0].sha :
					   NULL, r[i].sha) < 0)
				goto out;
			if (!nr && src && memcmp(src, dst, size)) {
				hcctl_errf(what, EIO, "SHA-256 MISMATCH: the bytes read differ from those uploaded, first at byte %" PRIu64,
					   bench_first_diff(src, dst, size));
				goto out;
			}
			nr = i + 1;
		}
		r[i].seconds = t / (double)n;
		r[i].gbps = r[i].seconds > 0 ? (double)size / r[i].seconds / 1e9 : 0;
		if (cache && cold)
			bench_test_hook(a);	/* tests: corrupt the cached copy */
	}
	for (i = 0; i < 4; i++)
		r[i].ratio = r[i & 1].gbps > 0 ? r[i].gbps / r[i & 1].gbps : 0;
	bench_s3_print(a, size, r, nr, uploaded);
	rc = HC_EXIT_OK;
out:
	if (ctl >= 0 && a->uri.shown && !a->keep) {
		ret = hcctl_ctl_evict(ctl, &a->uri);
		if (ret < 0 && ret != -ENOENT)
			hcctl_ctl_report(a->uri.shown, "EVICT", -ret);
	}
	if (uploaded && !a->keep) {
		ret = hcs3_delete(c, a->bucket, uploaded, err, sizeof(err));
		if (ret)
			hcctl_errf(a->endpoint, -ret, "DELETE s3://%s/%s: %s",
				   a->bucket, uploaded, err);
	}
	if (dev >= 0)
		close(dev);
	if (ctl >= 0)
		close(ctl);
	hcs3_free(c);
	if (cr)
		hc_creds_release(cr);
	free(cr);
	free(cfg);
	free(ext);
	free(src);
	free(dst);
	return rc;
}

int hcctl_cmd_bench(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	struct bench_args a = {
		.size_mb = 1024, .iterations = 3, .workers = 32, .progress = true,
		.timeout = 300,
	};
	unsigned long workers = 0;
	char *uri = NULL, dflt[64];
	const struct hcctl_opt opts[] = {
		HCCTL_ULONG("size-mb", 0, &a.size_mb, 1, 1048576, "MiB"),
		HCCTL_ULONG("iterations", 0, &a.iterations, 1, 1000, "iterations"),
		HCCTL_ULONG("workers", 0, &workers, 1, BENCH_WORKERS_MAX, "workers"),
		HCCTL_STRING("uri", 0, &uri, "URI"),
		HCCTL_FLAG("keep", 0, &a.keep),
		HCCTL_NOFLAG("no-progress", 0, &a.progress),
		HCCTL_STRING("s3-endpoint", 0, &a.endpoint, "URL"),
		HCCTL_STRING("bucket", 0, &a.bucket, "BUCKET"),
		HCCTL_STRING("key", 0, &a.key, "KEY"),
		HCCTL_STRING("config", 0, &a.config, "FILE"),
		HCCTL_ULONG("timeout", 0, &a.timeout, 0, 86400, "seconds"),
		HCCTL_OPT_END
	};
	int ret, optind;

	optind = hcctl_opt_parse(cmd, argc, argv, opts, &ret);
	if (optind < 0)
		return ret;
	if (optind < argc)
		return hcctl_usage_error(cmd, "unexpected argument '%s'",
					 argv[optind]);
	if (a.endpoint) {
		if (!a.bucket)
			return hcctl_usage_error(cmd, "--s3-endpoint needs --bucket");
		if (uri)
			return hcctl_usage_error(cmd, "--uri and --s3-endpoint exclude each other (the URI is the backend's)");
		if (a.key && !*a.key)
			return hcctl_usage_error(cmd, "--key may not be empty");
		/* as many as hypercached's default ingest_concurrency */
		a.workers = workers ? workers : 8;
		ret = bench_s3_run(&a);
		hcctl_uri_free(&a.uri);
		return ret;
	}
	if (a.bucket || a.key || a.config)
		return hcctl_usage_error(cmd, "--bucket, --key and --config need --s3-endpoint");
	if (workers)
		a.workers = workers;
	if (!uri) {
		snprintf(dflt, sizeof(dflt), "hcctl-bench://%ld", (long)getpid());
		uri = dflt;
	}
	ret = hcctl_uri_arg(cmd, uri, &a.uri);
	if (ret >= 0)
		return ret;
	ret = bench_run(&a);
	hcctl_uri_free(&a.uri);
	return ret;
}

const struct hcctl_cmd hcctl_bench_cmds[] = {
{
	.name = "bench",
	.summary = "measure the pool's read throughput, with SHA-256 parity",
	.synopsis = "[--size-mb N] [--iterations K] [--workers W] [--uri URI] [--keep] [--no-progress] [--json]\n"
		    "          [--s3-endpoint URL --bucket BUCKET [--key KEY] [--config FILE] [--timeout S]]",
	.handler = hcctl_cmd_bench,
	.help =
"DESCRIPTION\n"
"    Write N MiB of pseudo-random bytes as one object of the running pool\n"
"    (STAGE, O_DIRECT writes, COMMIT clean: never written back), then read\n"
"    it back K times with W parallel O_DIRECT workers (4 MiB pieces, in\n"
"    turn) and check each time that the SHA-256 of what was read equals the\n"
"    SHA-256 of what was written.  Prints the time and GB/s (1e9 bytes per\n"
"    second) of each read pass and their mean.  A mismatch is an error\n"
"    naming the iteration, both digests and the first differing byte\n"
"    (object byte and pool offset), exit 1.  The object is evicted at the\n"
"    end unless --keep.  Documentation/benchmarks.md says what the figures\n"
"    mean and what they do not.\n"
"\n"
"    With --s3-endpoint URL --bucket BUCKET, the same object is fetched\n"
"    from S3 directly and through the cache, cold and warm, and the four\n"
"    fetches are printed side by side: path (s3 direct, cache),\n"
"    temperature, seconds, GB/s and the ratio of GB/s over the direct\n"
"    fetch of the same temperature.  The object is s3://BUCKET/KEY (with\n"
"    --key; else N MiB of pseudo-random bytes are uploaded to\n"
"    hcctl-bench/HOST-PID for the run and deleted after it).  Direct: W\n"
"    ranged GETs of 8 MiB in parallel, one connection each, as hypercached\n"
"    fetches (cold: the first fetch; warm: the mean of K more).  Through\n"
"    the cache: the object is evicted, then LOCATE with AUTO_INGEST and\n"
"    WAIT (hypercached fetches it into the pool) and W parallel O_DIRECT\n"
"    reads (cold), then K LOCATE hits and reads (warm).  The cache reaches\n"
"    the object through the s3 backend of the configuration whose\n"
"    endpoint is URL (hypercache://NAME/BUCKET/KEY), with that backend's\n"
"    credentials for the direct fetches too.  Every fetch's SHA-256 must\n"
"    equal the first's (and the uploaded bytes): a mismatch is an error,\n"
"    exit 1.\n"
"\n"
"OPTIONS\n"
"    --size-mb N\n"
"        The object's size in MiB (default 1024).\n"
"\n"
"    --iterations K\n"
"        Read passes (default 3).\n"
"\n"
"    --workers W\n"
"        Parallel readers, 1..64 (default 32; with --s3-endpoint 8, as\n"
"        hypercached's default ingest_concurrency).\n"
"\n"
"    --uri URI\n"
"        The object's URI (default hcctl-bench://PID); an object of that\n"
"        URI is replaced.\n"
"\n"
"    --keep\n"
"        Leave the object in the cache.\n"
"\n"
"    --no-progress\n"
"        No progress line on a terminal.\n"
"\n"
"    --s3-endpoint URL\n"
"        Compare the cache with S3 at URL (see above).\n"
"\n"
"    --bucket BUCKET\n"
"        The bucket (required with --s3-endpoint).\n"
"\n"
"    --key KEY\n"
"        Measure this existing object instead of uploading one; --keep\n"
"        then leaves it cached.\n"
"\n"
"    --config FILE\n"
"        hypercached's configuration (default\n"
"        /etc/hypercache/hypercache.conf), where the backend of URL is.\n"
"\n"
"    --timeout S\n"
"        How long the cold fetch through the cache may take (default\n"
"        300 s, 0 = no limit).\n"
"\n"
"    -j, --json\n"
"        One JSON object: {\"uri\":\"...\",\"size\":N,\"workers\":W,\n"
"        \"extents\":N,\"sha256\":\"...\",\"parity\":true,\"iterations\":[\n"
"        {\"iteration\":1,\"seconds\":S,\"gbps\":G,\"sha256\":\"...\"},...],\n"
"        \"mean_gbps\":G}.  With --s3-endpoint: {\"endpoint\":\"...\",\n"
"        \"bucket\":\"...\",\"key\":\"...\",\"uri\":\"...\",\"size\":N,\n"
"        \"workers\":W,\"uploaded\":B,\"sha256\":\"...\",\"parity\":true,\n"
"        \"fetches\":[{\"path\":\"s3 direct\"|\"cache\",\n"
"        \"temperature\":\"cold\"|\"warm\",\"seconds\":S,\"gbps\":G,\n"
"        \"ratio\":R},...]}.\n"
"\n"
"    Needs /dev/hypercache-ctl open for writing and /dev/hypercache0.\n"
"\n"
HCCTL_EXIT_STATUS_TEXT,
},
{ .name = NULL }
};
