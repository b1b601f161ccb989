// SPDX-License-Identifier: GPL-2.0
/*
 * hcctl bench: write N MiB as an object of the running pool, read it back
 * K times with W parallel O_DIRECT workers, and check that the SHA-256 of
 * what was read equals the SHA-256 of what was written (the seed's
 * "bench --size-mb N --iterations K").  The figures and what they mean:
 * Documentation/benchmarks.md, "hcctl bench".
 */
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

#define BENCH_IO	(4U << 20)	/* bytes per O_DIRECT transfer */
#define BENCH_WORKERS_MAX	64

struct bench_args {
	unsigned long size_mb;
	unsigned long iterations;
	unsigned long workers;
	bool progress;
	bool keep;
	struct hcctl_uri uri;
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

static int bench_run(const struct bench_args *a)
{
	uint64_t size = (uint64_t)a->size_mb << 20;
	uint64_t padded = (size + 4095) & ~4095ULL;
	unsigned char *src = NULL, *dst = NULL;
	unsigned char md_w[32], md_r[32];
	char hex_w[65], hex_r[65];
	struct hc_extent *ext = NULL;
	pthread_t tid[BENCH_WORKERS_MAX];
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
		unsigned long w, started = 0;
		double t0, t;

		memset(dst, 0, padded);
		t0 = hc_now();
		for (w = 0; w < a->workers; w++)
			if (!pthread_create(&tid[w], NULL, bench_worker, &p))
				started++;
		if (!started) {
			hcctl_err("bench", "cannot start a worker", EAGAIN);
			goto out;
		}
		while (a->progress && !hcctl_opt_json && isatty(STDERR_FILENO)) {
			uint64_t d;

			pthread_mutex_lock(&p.lock);
			d = p.done;
			pthread_mutex_unlock(&p.lock);
			fprintf(stderr, "\riteration %lu/%lu  %3" PRIu64 "%%\033[K",
				it + 1, a->iterations, size ? d * 100 / size : 100);
			if (d >= size || p.err)
				break;
			usleep(100000);
		}
		for (w = 0; w < started; w++)
			pthread_join(tid[w], NULL);
		t = hc_now() - t0;
		if (a->progress && !hcctl_opt_json && isatty(STDERR_FILENO))
			fputs("\r\033[K", stderr);
		if (p.err) {
			hcctl_errf(HC_DATA_PATH, -p.err, "read error at offset %"
				   PRIu64, p.err_off);
			goto out;
		}
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

int hcctl_cmd_bench(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	struct bench_args a = {
		.size_mb = 1024, .iterations = 3, .workers = 32, .progress = true,
	};
	char *uri = NULL, dflt[64];
	const struct hcctl_opt opts[] = {
		HCCTL_ULONG("size-mb", 0, &a.size_mb, 1, 1048576, "MiB"),
		HCCTL_ULONG("iterations", 0, &a.iterations, 1, 1000, "iterations"),
		HCCTL_ULONG("workers", 0, &a.workers, 1, BENCH_WORKERS_MAX, "workers"),
		HCCTL_STRING("uri", 0, &uri, "URI"),
		HCCTL_FLAG("keep", 0, &a.keep),
		HCCTL_NOFLAG("no-progress", 0, &a.progress),
		HCCTL_OPT_END
	};
	int ret, optind;

	optind = hcctl_opt_parse(cmd, argc, argv, opts, &ret);
	if (optind < 0)
		return ret;
	if (optind < argc)
		return hcctl_usage_error(cmd, "unexpected argument '%s'",
					 argv[optind]);
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
	.synopsis = "[--size-mb N] [--iterations K] [--workers W] [--uri URI] [--keep] [--no-progress] [--json]",
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
"OPTIONS\n"
"    --size-mb N\n"
"        The object's size in MiB (default 1024).\n"
"\n"
"    --iterations K\n"
"        Read passes (default 3).\n"
"\n"
"    --workers W\n"
"        Parallel readers, 1..64 (default 32).\n"
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
"    -j, --json\n"
"        One JSON object: {\"uri\":\"...\",\"size\":N,\"workers\":W,\n"
"        \"extents\":N,\"sha256\":\"...\",\"parity\":true,\"iterations\":[\n"
"        {\"iteration\":1,\"seconds\":S,\"gbps\":G,\"sha256\":\"...\"},...],\n"
"        \"mean_gbps\":G}.\n"
"\n"
"    Needs /dev/hypercache-ctl open for writing and /dev/hypercache0.\n"
"\n"
HCCTL_EXIT_STATUS_TEXT,
},
{ .name = NULL }
};
