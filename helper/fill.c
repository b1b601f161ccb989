// SPDX-License-Identifier: GPL-2.0
/*
 * The fill engine: see fill.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fill.h"
#include "parts.h"
#include "util.h"

struct fill_run {
	const struct hc_fill *f;
	int fd;
	struct hc_parts parts;
};

static uint64_t round_up_block(uint64_t n)
{
	return (n + HC_FILL_BLOCK - 1) & ~(uint64_t)(HC_FILL_BLOCK - 1);
}

int hc_fill_check(const struct hc_fill *f, char *err, size_t errlen)
{
	if (!f->part_size || f->part_size % HC_FILL_BLOCK ||
	    f->part_size > (1ULL << 30))
		return hc_seterr(err, errlen, -EINVAL,
			      "part size %llu is not a multiple of %u up to 1 GiB",
			      (unsigned long long)f->part_size, HC_FILL_BLOCK);
	if (!f->workers || f->workers > HC_FILL_WORKERS_MAX)
		return hc_seterr(err, errlen, -EINVAL,
			      "%u workers (1..%u)", f->workers,
			      HC_FILL_WORKERS_MAX);
	if (!f->fetch || !f->dev)
		return hc_seterr(err, errlen, -EINVAL, "no source or device");
	return hc_extents_check(f->ext, f->nr_ext, f->size, HC_FILL_BLOCK, err,
				errlen);
}

int hc_fill_write(int fd, const char *dev, const struct hc_extent *ext,
		  uint32_t nr_ext, const char *buf, uint64_t off, uint64_t len,
		  char *err, size_t errlen)
{
	uint64_t base = 0;
	uint32_t i;
	int ret;

	for (i = 0; i < nr_ext && len; i++) {
		uint64_t elen = ext[i].length, in, n;

		if (off >= base + elen) {
			base += elen;
			continue;
		}
		in = off - base;
		n = elen - in < len ? elen - in : len;
		ret = hc_pwrite_full(fd, buf, n, ext[i].offset + in);
		if (ret)
			return hc_seterr(err, errlen, ret,
					 "%s: write at %llu: %s", dev,
					 (unsigned long long)(ext[i].offset + in),
					 strerror(-ret));
		buf += n;
		off += n;
		len -= n;
		base += elen;
	}
	return len ? hc_seterr(err, errlen, -EIO, "past the last extent") : 0;
}

/* Write @len bytes (block multiple) of @buf at object offset @off. */
static int write_part(struct fill_run *r, const char *buf, uint64_t off,
		      uint64_t len, char *err, size_t errlen)
{
	return hc_fill_write(r->fd, r->f->dev, r->f->ext, r->f->nr_ext, buf,
			     off, len, err, errlen);
}

struct fill_worker {
	struct fill_run *run;
	unsigned int id;
	uint64_t parts;
};

static void *fill_worker(void *arg)
{
	struct fill_worker *w = arg;
	struct fill_run *r = w->run;
	const struct hc_fill *f = r->f;
	char msg[512];
	void *buf;
	int ret;

	if (posix_memalign(&buf, HC_FILL_BLOCK, f->part_size)) {
		hc_parts_fail(&r->parts, -ENOMEM, "out of memory");
		return NULL;
	}
	for (;;) {
		int64_t t = hc_parts_take(&r->parts);
		uint64_t p, off, len, wlen;
		uint32_t crc;

		if (t < 0)
			break;
		p = (uint64_t)t;

		off = p * f->part_size;
		len = f->size - off < f->part_size ? f->size - off :
						     f->part_size;
		ret = f->fetch(f->src, w->id, off, len, buf, msg, sizeof(msg));
		if (ret) {
			hc_parts_fail(&r->parts, ret, msg);
			break;
		}
		wlen = round_up_block(len);
		memset((char *)buf + len, 0, wlen - len);
		ret = write_part(r, buf, off, wlen, msg, sizeof(msg));
		if (ret) {
			hc_parts_fail(&r->parts, ret, msg);
			break;
		}
		if (hc_parts_crc(&r->parts, p, buf, len, &crc))
			break;
		w->parts++;
	}
	free(buf);
	return NULL;
}

int hc_fill_run(const struct hc_fill *f, struct hc_fill_result *res,
		char *err, size_t errlen)
{
	struct fill_worker w[HC_FILL_WORKERS_MAX];
	pthread_t tid[HC_FILL_WORKERS_MAX];
	struct fill_run r = { .f = f };
	uint64_t nr_parts;
	unsigned int n, i, started = 0;
	double t0 = hc_now();
	int ret;

	memset(res, 0, sizeof(*res));
	ret = hc_fill_check(f, err, errlen);
	if (ret)
		return ret;
	nr_parts = (f->size + f->part_size - 1) / f->part_size;
	r.fd = open(f->dev, O_WRONLY | O_DIRECT | O_CLOEXEC);
	if (r.fd < 0)
		return hc_seterr(err, errlen, -errno, "%s: %s", f->dev,
			      strerror(errno));
	hc_parts_init(&r.parts, nr_parts, err, errlen);
	n = nr_parts < f->workers ? (unsigned int)nr_parts : f->workers;
	for (i = 0; i < n; i++) {
		w[i] = (struct fill_worker){ .run = &r, .id = i };
		if (pthread_create(&tid[i], NULL, fill_worker, &w[i])) {
			hc_parts_fail(&r.parts, -EAGAIN, "cannot start a worker thread");
			break;
		}
		started++;
	}
	for (i = 0; i < started; i++) {
		pthread_join(tid[i], NULL);
		res->parts += w[i].parts;
	}
	ret = r.parts.error;
	if (!ret && res->parts != nr_parts)
		ret = hc_seterr(err, errlen, -EIO, "%llu of %llu parts written",
			     (unsigned long long)res->parts,
			     (unsigned long long)nr_parts);
	if (!ret && fdatasync(r.fd))
		ret = hc_seterr(err, errlen, -errno, "%s: fdatasync: %s", f->dev,
			     strerror(errno));
	if (close(r.fd) && !ret)
		ret = hc_seterr(err, errlen, -EIO, "%s: close failed", f->dev);
	res->crc32c = hc_parts_crc32c(&r.parts);
	hc_parts_destroy(&r.parts);
	res->seconds = hc_now() - t0;
	return ret;
}
