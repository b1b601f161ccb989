// SPDX-License-Identifier: GPL-2.0
/*
 * The egress engine: see egress.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <isa-l/crc.h>
#include "egress.h"
#include "fill.h"
#include "parts.h"
#include "posix.h"
#include "util.h"

#define MiB (1ULL << 20)

static uint64_t round_up_block(uint64_t n)
{
	return (n + HC_EGRESS_BLOCK - 1) & ~(uint64_t)(HC_EGRESS_BLOCK - 1);
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

unsigned int hc_egress_workers(uint64_t budget, uint64_t part_size,
			       unsigned int uploads, unsigned int concurrency)
{
	uint64_t per;

	if (!uploads)
		uploads = 1;
	if (concurrency > HC_EGRESS_WORKERS_MAX)
		concurrency = HC_EGRESS_WORKERS_MAX;
	per = part_size ? budget / ((uint64_t)uploads * part_size) : concurrency;
	if (per < 1)
		return 1;
	return per < concurrency ? (unsigned int)per : (concurrency ? concurrency : 1);
}

int hc_egress_plan(uint64_t size, uint64_t part_size,
		   struct hc_egress_plan *p)
{
	uint64_t ps;

	memset(p, 0, sizeof(*p));
	if (!part_size || part_size % HC_EGRESS_BLOCK)
		return -EINVAL;
	ps = part_size < HC_EGRESS_PART_MIN ? HC_EGRESS_PART_MIN : part_size;
	p->part_size = ps;
	if (size <= ps) {
		p->nr_parts = 1;
		p->last_size = size;
		return 0;
	}
	if (div_up(size, ps) > HC_EGRESS_PARTS_MAX)
		p->part_size = ps = div_up(div_up(size, HC_EGRESS_PARTS_MAX),
					   MiB) * MiB;
	p->multipart = true;
	p->nr_parts = div_up(size, ps);
	p->last_size = size - (p->nr_parts - 1) * ps;
	return 0;
}

int hc_egress_check(const struct hc_egress *e, char *err, size_t errlen)
{
	if (!e->part_size || e->part_size % HC_EGRESS_BLOCK ||
	    e->part_size > (1ULL << 30))
		return hc_seterr(err, errlen, -EINVAL,
			      "part size %llu is not a multiple of %u up to 1 GiB",
			      (unsigned long long)e->part_size, HC_EGRESS_BLOCK);
	if (!e->workers || e->workers > HC_EGRESS_WORKERS_MAX)
		return hc_seterr(err, errlen, -EINVAL, "%u workers (1..%u)",
			      e->workers, HC_EGRESS_WORKERS_MAX);
	if (!e->dev)
		return hc_seterr(err, errlen, -EINVAL, "no device");
	if (!e->mem_get != !e->mem_put || !e->slot_get != !e->slot_put)
		return hc_seterr(err, errlen, -EINVAL,
				 "a get callback without its put");
	return hc_extents_check(e->ext, e->nr_ext, e->size, HC_EGRESS_BLOCK, err,
				errlen);
}

int hc_egress_read(int fd, const struct hc_extent *ext, uint32_t nr_ext,
		   uint64_t off, size_t len, void *buf, char *err,
		   size_t errlen)
{
	uint64_t want = round_up_block(len), base = 0;
	char *b = buf;
	uint32_t i;
	int ret;

	if (off % HC_EGRESS_BLOCK || (uintptr_t)buf % HC_EGRESS_BLOCK)
		return hc_seterr(err, errlen, -EINVAL, "unaligned read at %llu",
			      (unsigned long long)off);
	for (i = 0; i < nr_ext && want; i++) {
		uint64_t elen = ext[i].length, in, n;

		if (off >= base + elen) {
			base += elen;
			continue;
		}
		in = off - base;
		n = elen - in < want ? elen - in : want;
		ret = hc_pread_full(fd, b, n, ext[i].offset + in);
		if (ret)
			return hc_seterr(err, errlen, ret, "read at %llu: %s",
				      (unsigned long long)(ext[i].offset + in),
				      strerror(-ret));
		b += n;
		off += n;
		want -= n;
		base += elen;
	}
	return want ? hc_seterr(err, errlen, -EIO, "past the last extent") : 0;
}

static int open_dev(const struct hc_egress *e, char *err, size_t errlen)
{
	int fd = open(e->dev, O_RDONLY | O_DIRECT | O_CLOEXEC);

	if (fd < 0)
		return hc_seterr(err, errlen, -errno, "%s: %s", e->dev,
			      strerror(errno));
	return fd;
}

static int crc_check(const struct hc_egress *e, uint32_t crc, char *err,
		     size_t errlen)
{
	if (e->crc && *e->crc != crc)
		return hc_seterr(err, errlen, -EBADMSG,
			      "CRC-32C of the cached bytes is %08x, the writer "
			      "committed %08x: not uploaded", crc, *e->crc);
	return 0;
}

static bool stopped(const struct hc_egress *e)
{
	return e->stop && *e->stop;
}

/* The caller's transfer slot (hc_egress.slot_get), if it gave one. */
static int slot_get(const struct hc_egress *e, char *err, size_t errlen)
{
	int ret;

	if (!e->slot_get)
		return 0;
	ret = e->slot_get(e->slot_arg);
	if (ret)
		return hc_seterr(err, errlen, ret, "no transfer slot: %s",
				 strerror(-ret));
	return 0;
}

static void slot_put(const struct hc_egress *e)
{
	if (e->slot_put)
		e->slot_put(e->slot_arg);
}

/*
 * A block-aligned buffer of @len bytes in *@buf, taken from the caller's
 * budget first (hc_egress.mem_get): 0 or a negative errno with @err set.
 * buf_free() gives both back.
 */
static int buf_alloc(const struct hc_egress *e, uint64_t len, void **buf,
		     char *err, size_t errlen)
{
	int ret;

	*buf = NULL;
	if (e->mem_get) {
		ret = e->mem_get(e->slot_arg, len);
		if (ret)
			return hc_seterr(err, errlen, ret, ret == -EFBIG ?
					 "a buffer of %llu bytes is above buffer_budget" :
					 "no buffer of %llu bytes: %s",
					 (unsigned long long)len, strerror(-ret));
	}
	/* its own mapping (page-aligned): e->place may bind its pages */
	*buf = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*buf == MAP_FAILED) {
		*buf = NULL;
		if (e->mem_put)
			e->mem_put(e->slot_arg, len);
		return hc_seterr(err, errlen, -ENOMEM, "out of memory");
	}
	return 0;
}

static void buf_free(const struct hc_egress *e, void *buf, uint64_t len)
{
	if (buf)
		munmap(buf, len);
	if (buf && e->mem_put)
		e->mem_put(e->slot_arg, len);
}

/* hc_egress_read() of a part, placed by e->place around it if set. */
static int read_part(const struct hc_egress *e, int fd, uint64_t off,
		     size_t len, void *buf, char *err, size_t errlen)
{
	int ret;

	if (e->place)
		e->place(e->place_arg, off, len, buf, HC_EGRESS_PLACE_READ);
	ret = hc_egress_read(fd, e->ext, e->nr_ext, off, len, buf, err, errlen);
	if (!ret && e->place)
		e->place(e->place_arg, off, len, buf, HC_EGRESS_PLACE_FILLED);
	return ret;
}

/* e->place around an upload request of the part in @buf, if set. */
static void place_send(const struct hc_egress *e, uint64_t off, size_t len,
		       void *buf, bool sent)
{
	if (e->place)
		e->place(e->place_arg, off, len, buf, sent ?
			 HC_EGRESS_PLACE_SENT : HC_EGRESS_PLACE_SEND);
}

/* --- S3 --------------------------------------------------------------- */

/* Add what client @c spent since @t0 (its digest_ns then @dig0) to @t. */
static void note_send(struct hc_egress_times *t, const struct hcs3 *c,
		      double t0, uint64_t dig0)
{
	struct hcs3_stats st;
	double d;

	hcs3_get_stats(c, &st);
	d = (double)(st.digest_ns - dig0) / 1e9;
	t->digest += d;
	t->send += hc_now() - t0 - d;
}

static uint64_t digest_ns(const struct hcs3 *c)
{
	struct hcs3_stats st;

	hcs3_get_stats(c, &st);
	return st.digest_ns;
}

static int s3_single(const struct hc_egress *e, struct hcs3 *c,
		     const char *bucket, const char *key,
		     struct hc_egress_result *res, char *err, size_t errlen)
{
	uint64_t blen = round_up_block(e->size ? e->size : 1), dig0;
	double t0 = hc_now();
	void *buf;
	int fd, ret;

	ret = buf_alloc(e, blen, &buf, err, errlen);
	if (ret)
		return ret;
	fd = open_dev(e, err, errlen);
	if (fd < 0) {
		buf_free(e, buf, blen);
		return fd;
	}
	ret = e->size ? read_part(e, fd, 0, e->size, buf, err, errlen) : 0;
	close(fd);
	res->t.read = hc_now() - t0;
	if (!ret) {
		t0 = hc_now();
		res->crc32c = ~crc32_iscsi(buf, (int)e->size, ~0U);
		res->t.crc = hc_now() - t0;
		ret = crc_check(e, res->crc32c, err, errlen);
	}
	if (!ret && stopped(e))
		ret = hc_seterr(err, errlen, -ECANCELED, "stopped");
	t0 = hc_now();
	if (!ret)
		ret = slot_get(e, err, errlen);
	res->t.slot = hc_now() - t0;
	if (!ret) {
		t0 = hc_now();
		dig0 = digest_ns(c);
		place_send(e, 0, e->size, buf, false);
		ret = hcs3_put(c, bucket, key, buf, e->size, res->etag, err,
			       errlen);
		place_send(e, 0, e->size, buf, true);
		note_send(&res->t, c, t0, dig0);
		slot_put(e);
	}
	if (!ret) {
		res->parts = 1;
		if (e->progress)
			e->progress(e->progress_arg, 1, 1, 1);
	}
	buf_free(e, buf, blen);
	return ret;
}

#define LEFTOVERS_BATCH 16

struct leftovers {
	const char *key;
	unsigned int n;
	char (*ids)[HCS3_UPLOAD_ID_MAX + 1];
};

static int leftover_cb(const char *key, const char *upload_id, void *arg)
{
	struct leftovers *l = arg;

	if (strcmp(key, l->key) || l->n == LEFTOVERS_BATCH)
		return 0;
	snprintf(l->ids[l->n++], HCS3_UPLOAD_ID_MAX + 1, "%s", upload_id);
	return 0;
}

/* Abort every unfinished multipart upload of exactly @key. */
static int abort_leftovers(struct hcs3 *c, const char *bucket,
			   const char *key, unsigned int *aborted,
			   char *err, size_t errlen)
{
	struct leftovers l = { .key = key };
	int ret = 0, round;

	l.ids = calloc(LEFTOVERS_BATCH, sizeof(*l.ids));
	if (!l.ids)
		return hc_seterr(err, errlen, -ENOMEM, "out of memory");
	for (round = 0; round < 64; round++) {
		unsigned int i;

		l.n = 0;
		ret = hcs3_mpu_list(c, bucket, key, leftover_cb, &l, err,
				    errlen);
		if (ret || !l.n)
			break;
		for (i = 0; i < l.n && !ret; i++) {
			ret = hcs3_mpu_abort(c, bucket, key, l.ids[i], err,
					     errlen);
			if (ret == -ENOENT)	/* gone meanwhile */
				ret = 0;
			if (!ret)
				(*aborted)++;
		}
		if (ret || l.n < LEFTOVERS_BATCH)
			break;
	}
	free(l.ids);
	return ret;
}

struct mpu_run {
	const struct hc_egress *e;
	const struct hc_egress_plan *plan;
	struct hcs3 *const *clients;
	const char *bucket, *key, *upload_id;
	int fd;
	char (*etags)[HCS3_ETAG_MAX + 1];

	struct hc_parts parts;
	uint64_t done;		/* parts uploaded, under parts.lock */
	struct hc_egress_times t;	/* under parts.lock */
};

struct mpu_worker {
	struct mpu_run *run;
	unsigned int id;
};

static void *mpu_worker(void *arg)
{
	struct mpu_worker *w = arg;
	struct mpu_run *r = w->run;
	const struct hc_egress *e = r->e;
	const struct hc_egress_plan *p = r->plan;
	char msg[768];
	void *buf;
	int ret;

	ret = buf_alloc(e, p->part_size, &buf, msg, sizeof(msg));
	if (ret) {
		hc_parts_fail(&r->parts, ret, msg);
		return NULL;
	}
	for (;;) {
		int64_t t = hc_parts_take(&r->parts);
		struct hc_egress_times tm = { 0 };
		uint64_t n, off, len, done, dig0;
		uint32_t crc;
		double t0;

		if (t < 0)
			break;
		n = (uint64_t)t;
		if (stopped(e)) {
			hc_parts_fail(&r->parts, -ECANCELED, "stopped");
			break;
		}
		off = n * p->part_size;
		len = n + 1 == p->nr_parts ? p->last_size : p->part_size;
		t0 = hc_now();
		ret = read_part(e, r->fd, off, len, buf, msg, sizeof(msg));
		if (ret) {
			hc_parts_fail(&r->parts, ret, msg);
			break;
		}
		tm.read = hc_now() - t0;
		t0 = hc_now();
		/* Checksummed here, folded in part order (parts.h). */
		if (hc_parts_crc(&r->parts, n, buf, len, &crc))
			break;
		tm.crc = hc_now() - t0;
		/* All bytes seen: never upload the last part of bad data. */
		if (n + 1 == p->nr_parts) {
			ret = crc_check(e, crc, msg, sizeof(msg));
			if (ret) {
				hc_parts_fail(&r->parts, ret, msg);
				break;
			}
		}
		t0 = hc_now();
		ret = slot_get(e, msg, sizeof(msg));
		tm.slot = hc_now() - t0;
		if (!ret) {
			t0 = hc_now();
			dig0 = digest_ns(r->clients[w->id]);
			place_send(e, off, len, buf, false);
			ret = hcs3_mpu_part(r->clients[w->id], r->bucket,
					    r->key, r->upload_id,
					    (unsigned int)n + 1, buf, len,
					    r->etags[n], msg, sizeof(msg));
			place_send(e, off, len, buf, true);
			note_send(&tm, r->clients[w->id], t0, dig0);
			slot_put(e);
		}
		if (ret) {
			char m2[800];

			snprintf(m2, sizeof(m2), "part %llu: %s",
				 (unsigned long long)n + 1, msg);
			hc_parts_fail(&r->parts, ret, m2);
			break;
		}
		pthread_mutex_lock(&r->parts.lock);
		done = ++r->done;
		r->t.read += tm.read;
		r->t.crc += tm.crc;
		r->t.slot += tm.slot;
		r->t.digest += tm.digest;
		r->t.send += tm.send;
		pthread_mutex_unlock(&r->parts.lock);
		if (e->progress)
			e->progress(e->progress_arg, n + 1, done, p->nr_parts);
	}
	buf_free(e, buf, p->part_size);
	return NULL;
}

static int s3_multipart(const struct hc_egress *e, struct hcs3 *const *clients,
			const char *bucket, const char *key,
			struct hc_egress_result *res, char *err, size_t errlen)
{
	struct mpu_worker w[HC_EGRESS_WORKERS_MAX];
	pthread_t tid[HC_EGRESS_WORKERS_MAX];
	char upload_id[HCS3_UPLOAD_ID_MAX + 1];
	struct mpu_run r = {
		.e = e,
		.plan = &res->plan,
		.clients = clients,
		.bucket = bucket,
		.key = key,
		.upload_id = upload_id,
	};
	unsigned int n, i, started = 0;
	int ret;

	ret = abort_leftovers(clients[0], bucket, key, &res->aborted_leftovers,
			      err, errlen);
	if (ret)
		return ret;
	r.etags = calloc(res->plan.nr_parts, sizeof(*r.etags));
	if (!r.etags)
		return hc_seterr(err, errlen, -ENOMEM, "out of memory");
	r.fd = open_dev(e, err, errlen);
	if (r.fd < 0) {
		free(r.etags);
		return r.fd;
	}
	ret = hcs3_mpu_create(clients[0], bucket, key, upload_id, err, errlen);
	if (ret)
		goto out;
	hc_parts_init(&r.parts, res->plan.nr_parts, err, errlen);
	n = res->plan.nr_parts < e->workers ? (unsigned int)res->plan.nr_parts :
					      e->workers;
	for (i = 0; i < n; i++) {
		w[i] = (struct mpu_worker){ .run = &r, .id = i };
		if (pthread_create(&tid[i], NULL, mpu_worker, &w[i])) {
			hc_parts_fail(&r.parts, -EAGAIN, "cannot start a worker thread");
			break;
		}
		started++;
	}
	for (i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	ret = r.parts.error;
	res->parts = r.done;
	res->t = r.t;
	res->crc32c = hc_parts_crc32c(&r.parts);
	hc_parts_destroy(&r.parts);
	if (!ret && r.done != res->plan.nr_parts)
		ret = hc_seterr(err, errlen, -EIO, "%llu of %llu parts uploaded",
			     (unsigned long long)r.done,
			     (unsigned long long)res->plan.nr_parts);
	if (!ret)
		ret = crc_check(e, res->crc32c, err, errlen);
	if (!ret)
		ret = hcs3_mpu_complete(clients[0], bucket, key, upload_id,
					(unsigned int)res->plan.nr_parts,
					r.etags, res->etag, err, errlen);
	if (ret) {
		char msg[512];
		size_t l = strlen(err);

		/* Never leave the upload behind. */
		if (hcs3_mpu_abort(clients[0], bucket, key, upload_id, msg,
				   sizeof(msg)) && l + 2 < errlen)
			snprintf(err + l, errlen - l, "; abort failed too: %s",
				 msg);
	}
out:
	close(r.fd);
	free(r.etags);
	return ret;
}

/*
 * The Last-Modified of the version the upload created into @res (see
 * egress.h): a HEAD with client @c on a transfer slot, kept if it shows
 * the upload's ETag.  Never fails: @res->mtime stays 0 and
 * @res->mtime_err, @res->mtime_msg say why.
 */
static void s3_uploaded_mtime(const struct hc_egress *e, struct hcs3 *c,
			      const char *bucket, const char *key,
			      struct hc_egress_result *res)
{
	struct hcs3_object o;
	double t0 = hc_now();
	int ret = stopped(e) ? hc_seterr(res->mtime_msg,
					 sizeof(res->mtime_msg), -ECANCELED,
					 "stopped") : 0;

	if (!ret)
		ret = slot_get(e, res->mtime_msg, sizeof(res->mtime_msg));
	res->t.slot += hc_now() - t0;
	if (ret) {
		res->mtime_err = ret;
		return;
	}
	t0 = hc_now();
	ret = hcs3_head(c, bucket, key, &o, res->mtime_msg,
			sizeof(res->mtime_msg));
	res->t.head += hc_now() - t0;
	slot_put(e);
	if (!ret && (!res->etag[0] || strcmp(o.etag, res->etag)))
		ret = hc_seterr(res->mtime_msg, sizeof(res->mtime_msg), -ESTALE,
				"its HEAD shows ETag %s, not the upload's %s: "
				"another version", o.etag[0] ? o.etag : "(none)",
				res->etag[0] ? res->etag : "(none)");
	else if (!ret && !o.mtime)
		ret = hc_seterr(res->mtime_msg, sizeof(res->mtime_msg),
				-ENODATA, "its HEAD has no Last-Modified");
	if (ret)
		res->mtime_err = ret;
	else
		res->mtime = o.mtime;
}

int hc_egress_s3(const struct hc_egress *e, struct hcs3 *const *clients,
		 const char *bucket, const char *key,
		 struct hc_egress_result *res, char *err, size_t errlen)
{
	double t0 = hc_now();
	int ret;

	memset(res, 0, sizeof(*res));
	ret = hc_egress_check(e, err, errlen);
	if (ret)
		return ret;
	ret = hc_egress_plan(e->size, e->part_size, &res->plan);
	if (ret)
		return hc_seterr(err, errlen, ret, "bad part size");
	if (res->plan.multipart)
		ret = s3_multipart(e, clients, bucket, key, res, err, errlen);
	else
		ret = s3_single(e, clients[0], bucket, key, res, err, errlen);
	if (!ret)
		s3_uploaded_mtime(e, clients[0], bucket, key, res);
	res->seconds = hc_now() - t0;
	return ret;
}

/* --- posix ------------------------------------------------------------ */

int hc_egress_posix(const struct hc_egress *e, const char *path,
		    struct hc_egress_result *res, char *err, size_t errlen)
{
	struct hc_posix_file *out;
	struct stat st;
	int dev = -1, ret;
	uint64_t off = 0, bufsz;
	uint32_t crc = ~0U;
	double t0 = hc_now();
	void *buf = NULL;

	memset(res, 0, sizeof(*res));
	ret = hc_egress_check(e, err, errlen);
	if (ret)
		return ret;
	res->plan = (struct hc_egress_plan){
		.part_size = e->part_size,
		.nr_parts = e->size ? div_up(e->size, e->part_size) : 1,
	};
	res->plan.last_size = e->size - (res->plan.nr_parts - 1) * e->part_size;
	bufsz = e->size < e->part_size ? round_up_block(e->size ? e->size : 1) :
					 e->part_size;
	out = malloc(sizeof(*out));
	if (!out)
		return hc_seterr(err, errlen, -ENOMEM, "out of memory");
	ret = buf_alloc(e, bufsz, &buf, err, errlen);
	if (ret) {
		free(out);
		return ret;
	}
	ret = hc_posix_create(out, path, err, errlen);
	if (ret)
		goto out_free;
	dev = open_dev(e, err, errlen);
	if (dev < 0) {
		ret = dev;
		goto out_abort;
	}
	while (off < e->size) {
		uint64_t len = e->size - off < bufsz ? e->size - off : bufsz;

		if (stopped(e)) {
			ret = hc_seterr(err, errlen, -ECANCELED, "stopped");
			goto out_abort;
		}
		ret = read_part(e, dev, off, len, buf, err, errlen);
		if (ret)
			goto out_abort;
		crc = crc32_iscsi(buf, (int)len, crc);
		ret = hc_write_full(out->fd, buf, len);
		if (ret) {
			hc_seterr(err, errlen, ret, "%s: write: %s", out->tmp,
				  strerror(-ret));
			goto out_abort;
		}
		off += len;
		res->parts++;
		if (e->progress)
			e->progress(e->progress_arg, res->parts, res->parts,
				    res->plan.nr_parts);
	}
	res->crc32c = ~crc;
	ret = crc_check(e, res->crc32c, err, errlen);
	if (ret)
		goto out_abort;
	/* the file's mtime: the last write's, which the rename keeps */
	if (fstat(out->fd, &st)) {
		ret = hc_seterr(err, errlen, -errno, "%s: fstat: %s", out->tmp,
				strerror(errno));
		goto out_abort;
	}
	res->mtime = st.st_mtim.tv_sec;
	ret = hc_posix_commit(out, err, errlen);
	if (!ret)
		snprintf(res->etag, sizeof(res->etag), "%08x", res->crc32c);
	goto out_close;
out_abort:
	hc_posix_abort(out);
out_close:
	if (dev >= 0)
		close(dev);
out_free:
	buf_free(e, buf, bufsz);
	free(out);
	res->seconds = hc_now() - t0;
	return ret;
}

bool hc_egress_permanent(int err)
{
	switch (err) {
	case EACCES:
	case EPERM:
	case ENOENT:
	case EINVAL:
	case ENAMETOOLONG:
	case ENXIO:
	case EFBIG:
	case ENOTDIR:
	case EISDIR:
	case EROFS:
	case ELOOP:
	case EBADMSG:
		return true;
	default:
		return false;
	}
}

void hc_egress_message(char *dst, size_t len, int err, const char *why)
{
	size_t n;

	if (!len)
		return;
	if (!why || !*why)
		why = strerror(err);
	n = strlen(why);
	if (n >= len) {
		n = len - 1;
		/* do not end inside a UTF-8 sequence: back to its lead byte */
		while (n && ((unsigned char)why[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(dst, why, n);
	dst[n] = 0;
}
