// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libhypercache: readers and writers over the control device's ioctls
 * (uapi/hypercache.h) and O_DIRECT I/O on /dev/hypercacheN.  See
 * include/hypercache/hypercache.h for the contract of each function.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/fs.h>
#include <isa-l/crc.h>
#include "hypercache.h"		/* uapi */
#include "hypercache/hypercache.h"
#include "internal.h"
#include "crcseq.h"

/*
 * A write of at most this many bytes that continues the in-order CRC is
 * checksummed under the writer's lock, chained (no combination); a larger
 * one, or one out of order, is checksummed by its thread after its
 * O_DIRECT write, outside the lock, and folded in by the sequence.
 */
#define HCL_CRC_INLINE		(64U << 10)

/* The message of a handle: written under its lock, read by its owner. */
struct hcl_msg {
	pthread_mutex_t lock;
	char text[HCL_ERR_MAX];
};

struct hc_reader {
	struct hc_ctx *ctx;
	struct hcl_msg msg;
	char *uri;
	uint32_t uri_len;
	char *shown;		/* the URI for messages */
	uint64_t size;
	uint64_t generation;
	uint32_t nr_ext;
	struct hc_extent ext[HC_MAX_EXTENTS];
};

struct hc_writer {
	struct hc_ctx *ctx;
	struct hcl_msg msg;
	char *uri;
	uint32_t uri_len;
	char *shown;
	int growable;
	uint64_t size;		/* fixed: the object's size */
	pthread_mutex_t rmw;	/* one read-modify-write of an unaligned edge at a time */
	pthread_mutex_t lock;	/* the fields below */
	uint64_t capacity;	/* bytes the stage holds */
	uint64_t end;		/* end of the furthest write */
	struct hcl_crcseq crcs;	/* the CRC-32C of the bytes written; broken: read back at COMMIT */
	uint32_t nr_ext;
	struct hc_extent ext[HC_MAX_EXTENTS];
};

static void msg_set(char *buf, size_t len, const char *fmt, va_list ap)
{
	if (buf && len)
		vsnprintf(buf, len, fmt, ap);
}

static int __attribute__((format(printf, 4, 5)))
fail_buf(char *buf, size_t len, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg_set(buf, len, fmt, ap);
	va_end(ap);
	return -err;
}

static int __attribute__((format(printf, 3, 4)))
fail_msg(struct hcl_msg *m, int err, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&m->lock);
	va_start(ap, fmt);
	msg_set(m->text, sizeof(m->text), fmt, ap);
	va_end(ap);
	pthread_mutex_unlock(&m->lock);
	return -err;
}

static void msg_init(struct hcl_msg *m)
{
	pthread_mutex_init(&m->lock, NULL);
	m->text[0] = '\0';
}

/* A printable copy of the URI: bytes below 0x20 or above 0x7e as \xNN. */
static char *uri_shown(const char *uri, size_t len)
{
	char *s = malloc(len * 4 + 1), *p = s;
	size_t i;

	if (!s)
		return NULL;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)uri[i];

		if (c < 0x20 || c > 0x7e || c == '\\')
			p += sprintf(p, "\\x%02x", c);
		else
			*p++ = (char)c;
	}
	*p = '\0';
	return s;
}

HCL_EXPORT uint32_t hc_crc32c(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	uint32_t c = ~crc;

	while (len) {
		int n = len > (1U << 30) ? 1 << 30 : (int)len;

		c = crc32_iscsi((unsigned char *)p, n, c);
		p += n;
		len -= (size_t)n;
	}
	return ~c;
}

HCL_EXPORT int hc_ctx_open(struct hc_ctx **ctxp, const char *ctl_path,
			   const char *dev_path, char *err, size_t errlen)
{
	struct hc_geometry geo = { .size = sizeof(geo) };
	struct hc_ctx *ctx;
	int bs = 0, e;

	*ctxp = NULL;
	if (!ctl_path)
		ctl_path = getenv("HYPERCACHE_CTL");
	if (!ctl_path)
		ctl_path = HCL_DEFAULT_CTL;
	if (!dev_path)
		dev_path = getenv("HYPERCACHE_DEV");
	if (!dev_path)
		dev_path = HCL_DEFAULT_DEV;
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return fail_buf(err, errlen, ENOMEM, "out of memory");
	ctx->ctl = ctx->dev_direct = ctx->dev_map = ctx->dev_write = -1;
	pthread_mutex_init(&ctx->lock, NULL);
	ctx->dev_path = strdup(dev_path);
	if (!ctx->dev_path) {
		e = fail_buf(err, errlen, ENOMEM, "out of memory");
		goto fail;
	}
	ctx->ctl = open(ctl_path, O_RDWR | O_CLOEXEC);
	ctx->ctl_writable = ctx->ctl >= 0;
	if (ctx->ctl < 0 && (errno == EACCES || errno == EPERM))
		ctx->ctl = open(ctl_path, O_RDONLY | O_CLOEXEC);
	if (ctx->ctl < 0) {
		e = fail_buf(err, errlen, errno, "%s: cannot open: %s",
			     ctl_path, strerror(errno));
		goto fail;
	}
	ctx->dev_direct = open(dev_path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (ctx->dev_direct < 0 && (errno == EACCES || errno == EPERM)) {
		/* The index without the data: info, list, locate still work. */
		ctx->dev_err = errno;
		ctx->align = 512;
		*ctxp = ctx;
		return 0;
	}
	if (ctx->dev_direct < 0 && (errno == ENOENT || errno == ENXIO ||
				    errno == ENODEV)) {
		e = fail_buf(err, errlen, ENODEV,
			     "%s: no pool is running (cannot open: %s)",
			     dev_path, strerror(errno));
		goto fail;
	}
	if (ctx->dev_direct < 0) {
		e = fail_buf(err, errlen, errno, "%s: cannot open: %s",
			     dev_path, strerror(errno));
		goto fail;
	}
	ctx->dev_map = open(dev_path, O_RDONLY | O_CLOEXEC);
	if (ctx->dev_map < 0) {
		e = fail_buf(err, errlen, errno, "%s: cannot open: %s",
			     dev_path, strerror(errno));
		goto fail;
	}
	if (ioctl(ctx->dev_direct, HC_IOC_GEOMETRY, &geo) < 0) {
		e = fail_buf(err, errlen, errno, "%s: no pool geometry: %s",
			     dev_path, strerror(errno));
		goto fail;
	}
	if (ioctl(ctx->dev_direct, BLKSSZGET, &bs) < 0 || bs < 512 ||
	    (bs & (bs - 1)) || HCL_BOUNCE % (unsigned int)bs) {
		e = fail_buf(err, errlen, EINVAL,
			     "%s: unusable logical block size %d", dev_path, bs);
		goto fail;
	}
	ctx->align = (unsigned int)bs;
	ctx->chunk_size = geo.chunk_size;
	ctx->members = geo.member_count;
	*ctxp = ctx;
	return 0;
fail:
	hc_ctx_close(ctx);
	return e;
}

HCL_EXPORT void hc_ctx_close(struct hc_ctx *ctx)
{
	if (!ctx)
		return;
	if (ctx->ctl >= 0)
		close(ctx->ctl);
	if (ctx->dev_direct >= 0)
		close(ctx->dev_direct);
	if (ctx->dev_map >= 0)
		close(ctx->dev_map);
	if (ctx->dev_write >= 0)
		close(ctx->dev_write);
	pthread_mutex_destroy(&ctx->lock);
	free(ctx->dev_path);
	free(ctx);
}

HCL_EXPORT uint32_t hc_ctx_chunk_size(const struct hc_ctx *ctx)
{
	return ctx->chunk_size;
}

/* Validate a URI as the kernel does, with a message naming the reason. */
int hcl_check_uri(const void *uri, size_t len, char *err, size_t errlen)
{
	if (!len)
		return fail_buf(err, errlen, EINVAL, "empty URI");
	if (len > HC_URI_MAX)
		return fail_buf(err, errlen, E2BIG,
				"URI of %zu bytes: longer than %u", len,
				HC_URI_MAX);
	if (memchr(uri, 0, len))
		return fail_buf(err, errlen, EINVAL, "URI with a NUL byte");
	return 0;
}

/* Why LOCATE's @status is not a hit, and the errno hc_reader_open() returns. */
static int open_status(uint32_t status, const char **why)
{
	switch (status) {
	case HC_LOCATE_MISS:
		*why = "not cached";
		return ENOENT;
	case HC_LOCATE_PENDING:
		*why = "not yet valid (being ingested or staged)";
		return EAGAIN;
	case HC_LOCATE_NOT_ADMITTED:
		*why = "not cached (not admitted by the cache policy: read the backend directly)";
		return ENODATA;
	case HC_LOCATE_BAD:
		*why = "bad: a read of its data failed on a member (evict or replace it)";
		return EIO;
	}
	*why = "unknown LOCATE status";
	return EPROTO;
}

/*
 * The message of a LOCATE that failed with @e (the ingest's errno, say
 * ENOENT for a missing key, or the wait's): the reason and strerror().
 */
static int open_errno(char *err, size_t errlen, const char *shown, int e,
		      unsigned int flags, uint32_t timeout_ms)
{
	const char *why = "";

	if (e == ETIMEDOUT && (flags & HC_OPEN_AUTO_INGEST)) {
		if (timeout_ms % 1000)
			return fail_buf(err, errlen, e,
					"%s: not fetched within %u ms (is the helper running?): %s",
					shown, timeout_ms, strerror(e));
		return fail_buf(err, errlen, e,
				"%s: not fetched within %u s (is the helper running?): %s",
				shown, timeout_ms / 1000, strerror(e));
	}
	switch (e) {
	case ETIMEDOUT:
		why = "timed out waiting for it: ";
		break;
	case EHOSTDOWN:
		why = "no helper took the ingest (is hypercached running?): ";
		break;
	case ENODEV:
		why = "no pool is running: ";
		break;
	case EOVERFLOW:
		why = "held too many times (by this process, or in all): ";
		break;
	default:
		if (flags & HC_OPEN_AUTO_INGEST)
			why = "the ingest failed: ";
	}
	return fail_buf(err, errlen, e, "%s: %s%s", shown, why, strerror(e));
}

HCL_EXPORT int hc_reader_open(struct hc_ctx *ctx, const void *uri,
			      size_t uri_len, unsigned int flags,
			      uint32_t timeout_ms, struct hc_reader **rp,
			      char *err, size_t errlen)
{
	struct hc_locate l;
	struct hc_reader *r;
	char *shown;
	int e;

	*rp = NULL;
	e = hcl_check_uri(uri, uri_len, err, errlen);
	if (e)
		return e;
	if (flags & ~(HC_OPEN_WAIT | HC_OPEN_AUTO_INGEST | HC_OPEN_PEEK))
		return fail_buf(err, errlen, EINVAL, "unknown open flags 0x%x",
				flags);
	if (ctx->dev_err)
		return fail_buf(err, errlen, ctx->dev_err, "%s: cannot open: %s",
				ctx->dev_path, strerror(ctx->dev_err));
	r = calloc(1, sizeof(*r));
	shown = uri_shown(uri, uri_len);
	if (!r || !shown) {
		free(r);
		free(shown);
		return fail_buf(err, errlen, ENOMEM, "out of memory");
	}
	r->uri = malloc(uri_len);
	if (!r->uri) {
		free(shown);
		free(r);
		return fail_buf(err, errlen, ENOMEM, "out of memory");
	}
	memcpy(r->uri, uri, uri_len);
	r->uri_len = (uint32_t)uri_len;
	r->shown = shown;
	r->ctx = ctx;
	msg_init(&r->msg);

	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	l.flags = HC_LOCATE_F_HOLD;
	if (flags & (HC_OPEN_WAIT | HC_OPEN_AUTO_INGEST))
		l.flags |= HC_LOCATE_F_WAIT;
	if (flags & HC_OPEN_AUTO_INGEST)
		l.flags |= HC_LOCATE_F_AUTO_INGEST;
	if (flags & HC_OPEN_PEEK)
		l.flags |= HC_LOCATE_F_PEEK;
	l.uri = (uintptr_t)r->uri;
	l.uri_len = r->uri_len;
	l.timeout_ms = timeout_ms;
	l.extents = (uintptr_t)r->ext;
	l.max_extents = HC_MAX_EXTENTS;
	e = 0;
	if (ioctl(ctx->ctl, HC_IOC_LOCATE, &l) < 0) {
		e = -open_errno(err, errlen, shown, errno, flags, timeout_ms);
	} else if (l.status != HC_LOCATE_HIT) {
		const char *why;

		e = open_status(l.status, &why);
		fail_buf(err, errlen, e, "%s: %s", shown, why);
	} else if (l.nr_extents > HC_MAX_EXTENTS) {
		e = fail_buf(err, errlen, EPROTO, "%s: %u extents: more than %u",
			     shown, l.nr_extents, HC_MAX_EXTENTS);
		e = -e;
	}
	if (e) {
		free(r->uri);
		free(r->shown);
		free(r);
		return -e;
	}
	r->size = l.obj_size;
	r->generation = l.generation;
	r->nr_ext = l.nr_extents;
	*rp = r;
	return 0;
}

/*
 * An ioctl that names one object (RELEASE, ABORT): its errno is not the
 * caller's concern (closing the control device undoes either anyway).
 */
static void obj_ref_ioctl(const struct hc_ctx *ctx, unsigned long req,
			  const char *uri, uint32_t uri_len)
{
	struct hc_obj_ref ref = { .size = sizeof(ref) };

	ref.uri = (uintptr_t)uri;
	ref.uri_len = uri_len;
	ioctl(ctx->ctl, req, &ref);
}

HCL_EXPORT void hc_reader_close(struct hc_reader *r)
{
	if (!r)
		return;
	obj_ref_ioctl(r->ctx, HC_IOC_RELEASE, r->uri, r->uri_len);
	pthread_mutex_destroy(&r->msg.lock);
	free(r->uri);
	free(r->shown);
	free(r);
}

HCL_EXPORT uint64_t hc_reader_size(const struct hc_reader *r)
{
	return r->size;
}

HCL_EXPORT uint64_t hc_reader_generation(const struct hc_reader *r)
{
	return r->generation;
}

HCL_EXPORT unsigned int hc_reader_extents(const struct hc_reader *r,
					  struct hc_lib_extent *ext,
					  unsigned int max)
{
	unsigned int i;

	for (i = 0; ext && i < r->nr_ext && i < max; i++) {
		ext[i].offset = r->ext[i].offset;
		ext[i].length = r->ext[i].length;
	}
	return r->nr_ext;
}

HCL_EXPORT long hc_reader_layout(struct hc_reader *r,
				 struct hc_lib_chunk *chunks, unsigned int max)
{
	struct hc_chunk_loc *loc = NULL;
	struct hc_locate l;
	unsigned int i;

	if (max) {
		loc = calloc(max, sizeof(*loc));
		if (!loc)
			return fail_msg(&r->msg, ENOMEM, "%s: out of memory",
					r->shown);
	}
	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	l.flags = HC_LOCATE_F_PEEK;
	l.uri = (uintptr_t)r->uri;
	l.uri_len = r->uri_len;
	l.layout = (uintptr_t)loc;
	l.max_layout = max;
	if (ioctl(r->ctx->ctl, HC_IOC_LOCATE, &l) < 0 ||
	    l.generation != r->generation) {
		int e = l.generation != r->generation ? ESTALE : errno;

		free(loc);
		return fail_msg(&r->msg, e, "%s: layout: %s", r->shown,
				strerror(e));
	}
	for (i = 0; chunks && i < max && i < l.nr_layout; i++) {
		chunks[i].member = loc[i].member;
		chunks[i].member_offset = loc[i].member_offset;
		chunks[i].dev_offset = loc[i].dev_offset;
		chunks[i].length = loc[i].length;
	}
	free(loc);
	return l.nr_layout;
}

/*
 * The device offset of object offset @off and how many bytes from there
 * are contiguous on the device (to the end of its extent).
 */
static uint64_t map_off(const struct hc_extent *ext, uint32_t nr,
			uint64_t off, uint64_t *contig)
{
	uint32_t i;

	for (i = 0; i < nr; i++) {
		if (off < ext[i].length) {
			*contig = ext[i].length - off;
			return ext[i].offset + off;
		}
		off -= ext[i].length;
	}
	*contig = 0;
	return 0;
}

/* pread() all of it, or an errno (EIO for a short read). */
static int pread_full(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pread(fd, (char *)buf + done, len - done,
			  (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (!n)
			return EIO;
		done += (size_t)n;
	}
	return 0;
}

static int pwrite_full(int fd, const void *buf, size_t len, uint64_t off)
{
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = pwrite(fd, (const char *)buf + done, len - done,
			   (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (!n)
			return EIO;
		done += (size_t)n;
	}
	return 0;
}

/*
 * Read @len bytes at device offset @dev (contiguous) into @buf: the aligned
 * middle straight into @buf when @buf is aligned with it, everything else
 * through @bounce (HCL_BOUNCE bytes, aligned).  Return: 0 or an errno.
 */
static int read_span(const struct hc_ctx *ctx, char *buf, uint64_t len,
		     uint64_t dev, char *bounce)
{
	uint64_t a = ctx->align, mask = a - 1;
	int e;

	while (len) {
		uint64_t head = dev & mask, n;

		if (!head && !((uintptr_t)buf & mask) && len >= a) {
			n = len & ~mask;
			e = pread_full(ctx->dev_direct, buf, n, dev);
			if (e)
				return e;
		} else {
			uint64_t start = dev - head, blen;

			n = HCL_BOUNCE - head < len ? HCL_BOUNCE - head : len;
			blen = (head + n + mask) & ~mask;
			e = pread_full(ctx->dev_direct, bounce, blen, start);
			if (e)
				return e;
			memcpy(buf, bounce + head, n);
		}
		buf += n;
		dev += n;
		len -= n;
	}
	return 0;
}

static void *bounce_alloc(const struct hc_ctx *ctx)
{
	void *b;

	return posix_memalign(&b, ctx->align > 4096 ? ctx->align : 4096,
			      HCL_BOUNCE) ? NULL : b;
}

HCL_EXPORT ssize_t hc_reader_pread(struct hc_reader *r, void *buf, size_t len,
				   uint64_t off)
{
	uint64_t done = 0, contig, dev, n;
	char *bounce = NULL;
	int e = 0;

	if (off >= r->size || !len)
		return 0;
	if (len > r->size - off)
		len = (size_t)(r->size - off);
	if (len > SSIZE_MAX)
		len = SSIZE_MAX;
	while (done < len) {
		dev = map_off(r->ext, r->nr_ext, off + done, &contig);
		if (!contig) {
			e = EPROTO;
			break;
		}
		n = len - done < contig ? len - done : contig;
		if (!bounce && ((dev | (uintptr_t)buf | n) & (r->ctx->align - 1))) {
			bounce = bounce_alloc(r->ctx);
			if (!bounce) {
				e = ENOMEM;
				break;
			}
		}
		e = read_span(r->ctx, (char *)buf + done, n, dev, bounce);
		if (e)
			break;
		done += n;
	}
	free(bounce);
	if (e)
		return fail_msg(&r->msg, e, "%s: read of %zu bytes at %llu: %s",
				r->shown, len, (unsigned long long)off,
				strerror(e));
	return (ssize_t)done;
}

struct read_job {
	struct hc_reader *r;
	char *buf;		/* the bytes at object offset @off */
	uint64_t off;
	uint64_t end;		/* @off + bytes to read, at most the size */
	uint64_t first;		/* the chunk index of @off */
	uint64_t pieces;	/* chunks [@first, @first + @pieces) */
	uint64_t next;		/* atomic */
	int err;		/* first errno, atomic */
};

/* Pieces are whole chunks of the object, clipped to [off, end). */
static void *read_worker(void *arg)
{
	struct read_job *j = arg;
	uint64_t chunk = j->r->ctx->chunk_size, i, off, end;
	ssize_t n;

	for (;;) {
		i = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
		if (i >= j->pieces || __atomic_load_n(&j->err, __ATOMIC_RELAXED))
			break;
		off = (j->first + i) * chunk;
		end = off + chunk < j->end ? off + chunk : j->end;
		if (off < j->off)
			off = j->off;
		n = hc_reader_pread(j->r, j->buf + (off - j->off),
				    (size_t)(end - off), off);
		if (n != (ssize_t)(end - off)) {
			int e = n < 0 ? (int)-n : EIO, z = 0;

			__atomic_compare_exchange_n(&j->err, &z, e, 0,
						    __ATOMIC_RELAXED,
						    __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

/* The default pool: min(64, max(16, 4 x online CPUs)). */
static unsigned int read_threads(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int t = cpus > 0 ? (unsigned int)cpus * 4 : 16;

	return t < 16 ? 16 : t > 64 ? 64 : t;
}

HCL_EXPORT ssize_t hc_reader_read_range(struct hc_reader *r, void *buf,
					size_t len, uint64_t off,
					unsigned int threads)
{
	struct read_job j = { .r = r, .buf = buf, .off = off };
	uint64_t chunk = r->ctx->chunk_size;
	pthread_t *tid;
	unsigned int i, started = 0;

	if (off >= r->size || !len)
		return 0;
	if (len > r->size - off)
		len = (size_t)(r->size - off);
	if (len > SSIZE_MAX)
		len = SSIZE_MAX;
	j.end = off + len;
	j.first = off / chunk;
	j.pieces = (j.end + chunk - 1) / chunk - j.first;
	if (!threads)
		threads = read_threads();
	if (threads > j.pieces)
		threads = (unsigned int)j.pieces;
	tid = threads > 1 ? calloc(threads, sizeof(*tid)) : NULL;
	if (threads > 1 && !tid)
		return fail_msg(&r->msg, ENOMEM, "%s: out of memory", r->shown);
	for (i = 0; threads > 1 && i < threads; i++)
		if (!pthread_create(&tid[i], NULL, read_worker, &j))
			started++;
		else
			break;
	if (!started)
		read_worker(&j);
	for (i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	free(tid);
	/* the failing pread already set the message */
	return j.err ? -j.err : (ssize_t)len;
}

HCL_EXPORT int hc_reader_read_all(struct hc_reader *r, void *buf,
				  unsigned int threads)
{
	ssize_t n;

	if (!r->size)
		return 0;
	n = hc_reader_read_range(r, buf, (size_t)r->size, 0, threads);
	return n < 0 ? (int)n : 0;
}

HCL_EXPORT int hc_reader_mmap(struct hc_reader *r, void **addrp)
{
	uint64_t left = r->size, off = 0, n;
	size_t total;
	char *base;
	uint32_t i;
	long page = sysconf(_SC_PAGESIZE);

	*addrp = NULL;
	if (!r->size)
		return 0;
	total = (size_t)((r->size + (uint64_t)page - 1) & ~((uint64_t)page - 1));
	base = mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
		    MAP_NORESERVE, -1, 0);
	if (base == MAP_FAILED)
		return fail_msg(&r->msg, errno, "%s: cannot reserve %zu bytes: %s",
				r->shown, total, strerror(errno));
	for (i = 0; i < r->nr_ext && left; i++) {
		n = r->ext[i].length < left ? r->ext[i].length : left;
		n = (n + (uint64_t)page - 1) & ~((uint64_t)page - 1);
		if (mmap(base + off, (size_t)n, PROT_READ, MAP_SHARED | MAP_FIXED,
			 r->ctx->dev_map, (off_t)r->ext[i].offset) == MAP_FAILED) {
			int e = errno;

			munmap(base, total);
			return fail_msg(&r->msg, e, "%s: cannot map extent %u: %s",
					r->shown, i, strerror(e));
		}
		off += n;
		left = left > n ? left - n : 0;
	}
	*addrp = base;
	return 0;
}

HCL_EXPORT void hc_reader_munmap(struct hc_reader *r, void *addr)
{
	long page = sysconf(_SC_PAGESIZE);

	if (addr && r->size)
		munmap(addr, (size_t)((r->size + (uint64_t)page - 1) &
				      ~((uint64_t)page - 1)));
}

HCL_EXPORT const char *hc_reader_error(struct hc_reader *r)
{
	return r->msg.text;
}

/* The context's O_DIRECT write descriptor, opened once. */
static int dev_writer(struct hc_ctx *ctx)
{
	int fd;

	pthread_mutex_lock(&ctx->lock);
	if (ctx->dev_write < 0)
		ctx->dev_write = open(ctx->dev_path, O_WRONLY | O_DIRECT |
				      O_CLOEXEC);
	fd = ctx->dev_write < 0 ? -errno : ctx->dev_write;
	pthread_mutex_unlock(&ctx->lock);
	return fd;
}

static const char *stage_reason(int e)
{
	switch (e) {
	case EEXIST:
		return "already cached (replace it explicitly)";
	case EBUSY:
		return "busy: held, staged, pinned or being synced";
	case EFBIG:
		return "larger than the pool";
	case ENOSPC:
		return "no room in the pool or its journal";
	case EAGAIN:
		return "over the dirty limit";
	case EBADF:
		return "the control device is open read-only";
	case E2BIG:
		return "too fragmented (more extents than an object may have)";
	default:
		return strerror(e);
	}
}

HCL_EXPORT int hc_writer_create(struct hc_ctx *ctx, const void *uri,
				size_t uri_len, uint64_t size,
				unsigned int flags, struct hc_writer **wp,
				char *err, size_t errlen)
{
	struct hc_stage st;
	struct hc_writer *w;
	int e, fd;

	*wp = NULL;
	e = hcl_check_uri(uri, uri_len, err, errlen);
	if (e)
		return e;
	if (flags & ~(HC_CREATE_REPLACE | HC_CREATE_NOWAIT | HC_CREATE_NO_CRC))
		return fail_buf(err, errlen, EINVAL,
				"unknown create flags 0x%x", flags);
	if (ctx->dev_err)
		return fail_buf(err, errlen, ctx->dev_err, "%s: cannot open: %s",
				ctx->dev_path, strerror(ctx->dev_err));
	if (!ctx->ctl_writable)
		return fail_buf(err, errlen, EBADF,
				"%.*s: %s", (int)(uri_len > 200 ? 200 : uri_len),
				(const char *)uri, stage_reason(EBADF));
	fd = dev_writer(ctx);
	if (fd < 0)
		return fail_buf(err, errlen, -fd, "%s: cannot open: %s",
				ctx->dev_path, strerror(-fd));
	w = calloc(1, sizeof(*w));
	if (!w)
		return fail_buf(err, errlen, ENOMEM, "out of memory");
	w->uri = malloc(uri_len);
	w->shown = uri_shown(uri, uri_len);
	if (!w->uri || !w->shown) {
		e = fail_buf(err, errlen, ENOMEM, "out of memory");
		goto fail;
	}
	memcpy(w->uri, uri, uri_len);
	w->uri_len = (uint32_t)uri_len;
	w->ctx = ctx;
	w->growable = size == HC_SIZE_UNKNOWN;
	w->size = w->growable ? 0 : size;
	/* No CRC on the fly: a commit that wants one reads the bytes back. */
	hcl_crcseq_init(&w->crcs, !!(flags & HC_CREATE_NO_CRC));
	msg_init(&w->msg);
	pthread_mutex_init(&w->lock, NULL);
	pthread_mutex_init(&w->rmw, NULL);

	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	st.flags = (flags & HC_CREATE_REPLACE ? HC_STAGE_F_REPLACE : 0) |
		   (flags & HC_CREATE_NOWAIT ? HC_STAGE_F_NOWAIT : 0) |
		   (w->growable ? HC_STAGE_F_GROW : 0);
	st.uri = (uintptr_t)w->uri;
	st.uri_len = w->uri_len;
	st.obj_size = w->growable ? ctx->chunk_size : size;
	st.extents = (uintptr_t)w->ext;
	st.max_extents = HC_MAX_EXTENTS;
	if (ioctl(ctx->ctl, HC_IOC_STAGE, &st) < 0) {
		const char *why;

		e = errno;
		why = stage_reason(e);
		if (strcmp(why, strerror(e)))
			e = fail_buf(err, errlen, e, "%s: cannot stage: %s: %s",
				     w->shown, why, strerror(e));
		else
			e = fail_buf(err, errlen, e, "%s: cannot stage: %s",
				     w->shown, why);
		goto fail;
	}
	w->nr_ext = st.nr_extents;
	w->capacity = w->growable ? ctx->chunk_size : size;
	*wp = w;
	return 0;
fail:
	free(w->uri);
	free(w->shown);
	free(w);
	return e;
}

/* Grow the stage to hold @end bytes (at least doubling); w->lock held. */
static int writer_grow(struct hc_writer *w, uint64_t end)
{
	struct hc_grow gr;
	uint64_t want = w->capacity * 2 > end ? w->capacity * 2 : end;
	int e;

	for (;;) {
		memset(&gr, 0, sizeof(gr));
		gr.size = sizeof(gr);
		gr.uri = (uintptr_t)w->uri;
		gr.uri_len = w->uri_len;
		gr.obj_size = want;
		gr.extents = (uintptr_t)w->ext;
		gr.max_extents = HC_MAX_EXTENTS;
		if (!ioctl(w->ctx->ctl, HC_IOC_GROW, &gr))
			break;
		e = errno;
		/* Doubling asked for more than needed: ask for what is. */
		if ((e == ENOSPC || e == EFBIG || e == E2BIG) && want > end) {
			want = end;
			continue;
		}
		return fail_msg(&w->msg, e, "%s: cannot grow to %llu bytes: %s",
				w->shown, (unsigned long long)end,
				stage_reason(e));
	}
	if (gr.nr_extents > HC_MAX_EXTENTS)
		return fail_msg(&w->msg, EPROTO, "%s: too many extents",
				w->shown);
	w->nr_ext = gr.nr_extents;
	w->capacity = gr.capacity;
	return 0;
}

/*
 * Write @len bytes of @buf at device offset @dev (contiguous): aligned
 * spans from @buf with O_DIRECT, unaligned edges read-modify-written
 * through @bounce under @rmw (two writers' pieces may share a block: the
 * second read must see the first's write).  Return: 0 or an errno.
 */
static int write_span(const struct hc_ctx *ctx, int fd, const char *buf,
		      uint64_t len, uint64_t dev, char *bounce,
		      pthread_mutex_t *rmw)
{
	uint64_t a = ctx->align, mask = a - 1;
	int e;

	while (len) {
		uint64_t head = dev & mask, n;

		if (!head && !((uintptr_t)buf & mask) && len >= a) {
			n = len & ~mask;
			e = pwrite_full(fd, buf, n, dev);
		} else {
			uint64_t start = dev - head, blen;

			n = HCL_BOUNCE - head < len ? HCL_BOUNCE - head : len;
			blen = (head + n + mask) & ~mask;
			pthread_mutex_lock(rmw);
			/* Keep the bytes around the edges: read them first. */
			e = 0;
			if (head || n != blen)
				e = pread_full(ctx->dev_direct, bounce, blen, start);
			if (!e) {
				memcpy(bounce + head, buf, n);
				e = pwrite_full(fd, bounce, blen, start);
			}
			pthread_mutex_unlock(rmw);
		}
		if (e)
			return e;
		buf += n;
		dev += n;
		len -= n;
	}
	return 0;
}

HCL_EXPORT ssize_t hc_writer_pwrite(struct hc_writer *w, const void *buf,
				    size_t len, uint64_t off)
{
	uint64_t end, done = 0, contig, dev, n;
	struct hc_extent ext[HC_MAX_EXTENTS];
	char *bounce = NULL;
	uint32_t nr, crc = 0;
	int e = 0, fd, crc_after = 0;

	if (!len)
		return 0;
	if (len > SSIZE_MAX || off > UINT64_MAX - len)
		return fail_msg(&w->msg, EFBIG, "%s: write past 2^64 bytes",
				w->shown);
	end = off + len;
	if (!w->growable && end > w->size)
		return fail_msg(&w->msg, EFBIG,
				"%s: write to %llu past the object's size %llu",
				w->shown, (unsigned long long)end,
				(unsigned long long)w->size);
	fd = dev_writer(w->ctx);
	if (fd < 0)
		return fail_msg(&w->msg, -fd, "%s: %s", w->ctx->dev_path,
				strerror(-fd));
	pthread_mutex_lock(&w->lock);
	if (end > w->capacity)
		e = -writer_grow(w, end);
	if (!e) {
		/* CRC-32C on the fly: see HCL_CRC_INLINE */
		if (!w->crcs.broken && off == w->crcs.pos && !w->crcs.nr &&
		    len <= HCL_CRC_INLINE)
			hcl_crcseq_add(&w->crcs, off, len,
				       hc_crc32c(0, buf, len));
		else
			crc_after = !w->crcs.broken;
		if (end > w->end)
			w->end = end;
		nr = w->nr_ext;
		memcpy(ext, w->ext, nr * sizeof(*ext));
	}
	pthread_mutex_unlock(&w->lock);
	if (e)
		return -e;	/* message set by writer_grow() */
	while (done < len) {
		dev = map_off(ext, nr, off + done, &contig);
		if (!contig) {
			e = EPROTO;
			break;
		}
		n = len - done < contig ? len - done : contig;
		if (!bounce && ((dev | (uintptr_t)buf | n) & (w->ctx->align - 1))) {
			bounce = bounce_alloc(w->ctx);
			if (!bounce) {
				e = ENOMEM;
				break;
			}
		}
		e = write_span(w->ctx, fd, (const char *)buf + done, n, dev,
			       bounce, &w->rmw);
		if (e)
			break;
		done += n;
	}
	free(bounce);
	if (!e && crc_after)
		crc = hc_crc32c(0, buf, len);
	pthread_mutex_lock(&w->lock);
	if (e)
		w->crcs.broken |= !crc_after;	/* the bytes in the CRC are not */
	else if (crc_after)
		hcl_crcseq_add(&w->crcs, off, len, crc);
	pthread_mutex_unlock(&w->lock);
	if (e)
		return fail_msg(&w->msg, e, "%s: write of %zu bytes at %llu: %s",
				w->shown, len, (unsigned long long)off,
				strerror(e));
	return (ssize_t)len;
}

/* CRC-32C of the stage's first @size bytes, read back with O_DIRECT. */
static int writer_crc_readback(struct hc_writer *w, uint64_t size,
			       uint32_t *crc)
{
	uint64_t done = 0, contig, dev, n;
	uint32_t c = 0;
	char *bounce = bounce_alloc(w->ctx);
	int e = 0;

	if (!bounce)
		return ENOMEM;
	while (done < size) {
		dev = map_off(w->ext, w->nr_ext, done, &contig);
		n = size - done < contig ? size - done : contig;
		if (n > HCL_BOUNCE)
			n = HCL_BOUNCE;
		if (!contig) {
			e = EPROTO;
			break;
		}
		e = pread_full(w->ctx->dev_direct, bounce,
			       (n + w->ctx->align - 1) & ~(uint64_t)(w->ctx->align - 1),
			       dev);
		if (e)
			break;
		c = hc_crc32c(c, bounce, (size_t)n);
		done += n;
	}
	free(bounce);
	*crc = c;
	return e;
}

/*
 * The CRC-32C of the object's bytes as a commit now would record them:
 * the one computed on the fly when every write came in order from offset
 * 0, else read back.  Sets *@size to the size a commit now would give.
 */
static int writer_crc(struct hc_writer *w, uint32_t *crc, uint64_t *size)
{
	int e, in_order;

	pthread_mutex_lock(&w->lock);
	*size = w->growable ? w->end : w->size;
	in_order = hcl_crcseq_result(&w->crcs, *size, crc);
	pthread_mutex_unlock(&w->lock);
	if (in_order)
		return 0;
	e = writer_crc_readback(w, *size, crc);
	if (e)
		return fail_msg(&w->msg, e, "%s: cannot read back for the CRC: %s",
				w->shown, strerror(e));
	return 0;
}

HCL_EXPORT int hc_writer_crc32c(struct hc_writer *w, uint32_t *crc)
{
	uint64_t size;

	return writer_crc(w, crc, &size);
}

HCL_EXPORT int hc_writer_commit(struct hc_writer *w, unsigned int flags,
				 uint64_t *generation)
{
	struct hc_commit cm;
	uint64_t size;
	int e;

	if (flags & ~(HC_COMMIT_CLEAN | HC_COMMIT_NO_CRC))
		return fail_msg(&w->msg, EINVAL, "%s: unknown commit flags 0x%x",
				w->shown, flags);
	memset(&cm, 0, sizeof(cm));
	if (flags & HC_COMMIT_NO_CRC) {
		pthread_mutex_lock(&w->lock);
		size = w->growable ? w->end : w->size;
		pthread_mutex_unlock(&w->lock);
	} else {
		e = writer_crc(w, &cm.crc32c, &size);
		if (e)
			return e;
		cm.flags |= HC_COMMIT_F_CRC;
	}
	cm.size = sizeof(cm);
	cm.uri = (uintptr_t)w->uri;
	cm.uri_len = w->uri_len;
	if (flags & HC_COMMIT_CLEAN)
		cm.flags |= HC_COMMIT_F_CLEAN;
	if (w->growable) {
		cm.flags |= HC_COMMIT_F_SIZE;
		cm.obj_size = size;
	}
	if (ioctl(w->ctx->ctl, HC_IOC_COMMIT, &cm) < 0) {
		e = errno;
		return fail_msg(&w->msg, e, "%s: commit failed: %s", w->shown,
				e == EIO ? "I/O error (a member or the journal failed, or a write was lost: rewrite and commit again)" :
				strerror(e));
	}
	if (generation)
		*generation = cm.generation;
	pthread_mutex_destroy(&w->lock);
	pthread_mutex_destroy(&w->rmw);
	pthread_mutex_destroy(&w->msg.lock);
	free(w->uri);
	free(w->shown);
	free(w);
	return 0;
}

HCL_EXPORT void hc_writer_abort(struct hc_writer *w)
{
	if (!w)
		return;
	obj_ref_ioctl(w->ctx, HC_IOC_ABORT, w->uri, w->uri_len);
	pthread_mutex_destroy(&w->lock);
	pthread_mutex_destroy(&w->rmw);
	pthread_mutex_destroy(&w->msg.lock);
	free(w->uri);
	free(w->shown);
	free(w);
}

HCL_EXPORT unsigned int hc_writer_extents(struct hc_writer *w,
					  struct hc_lib_extent *ext,
					  unsigned int max)
{
	unsigned int i, nr;

	pthread_mutex_lock(&w->lock);
	nr = w->nr_ext;
	for (i = 0; ext && i < nr && i < max; i++) {
		ext[i].offset = w->ext[i].offset;
		ext[i].length = w->ext[i].length;
	}
	pthread_mutex_unlock(&w->lock);
	return nr;
}

HCL_EXPORT int hc_ctx_locate(struct hc_ctx *ctx, const void *uri,
			     size_t uri_len, struct hc_lib_location *loc,
			     struct hc_lib_extent *ext, unsigned int max_ext,
			     struct hc_lib_chunk *chunks,
			     unsigned int max_chunks, char *err, size_t errlen)
{
	struct hc_extent *kext = NULL;
	struct hc_chunk_loc *kloc = NULL;
	struct hc_locate l;
	unsigned int i;
	char *shown;
	int e;

	memset(loc, 0, sizeof(*loc));
	e = hcl_check_uri(uri, uri_len, err, errlen);
	if (e)
		return e;
	if (!ext)
		max_ext = 0;
	if (!chunks)
		max_chunks = 0;
	shown = uri_shown(uri, uri_len);
	if (max_ext)
		kext = calloc(max_ext, sizeof(*kext));
	if (max_chunks)
		kloc = calloc(max_chunks, sizeof(*kloc));
	if (!shown || (max_ext && !kext) || (max_chunks && !kloc)) {
		e = fail_buf(err, errlen, ENOMEM, "out of memory");
		goto out;
	}
	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	l.flags = HC_LOCATE_F_PEEK;
	l.uri = (uintptr_t)uri;
	l.uri_len = (uint32_t)uri_len;
	l.extents = (uintptr_t)kext;
	l.max_extents = max_ext;
	l.layout = (uintptr_t)kloc;
	l.max_layout = max_chunks;
	if (ioctl(ctx->ctl, HC_IOC_LOCATE, &l) < 0) {
		e = errno;
		e = fail_buf(err, errlen, e, "%s: %s%s", shown,
			     e == ENODEV ? "no pool is running: " : "",
			     strerror(e));
		goto out;
	}
	loc->status = l.status;
	if (l.status != HC_LOCATE_MISS) {
		loc->state = l.state;
		loc->flags = l.obj_flags;
		loc->size = l.obj_size;
		loc->generation = l.generation;
		loc->nr_extents = l.nr_extents;
		loc->nr_chunks = l.nr_layout;
	}
	for (i = 0; i < max_ext && i < loc->nr_extents; i++) {
		ext[i].offset = kext[i].offset;
		ext[i].length = kext[i].length;
	}
	for (i = 0; i < max_chunks && i < loc->nr_chunks; i++) {
		chunks[i].member = kloc[i].member;
		chunks[i].member_offset = kloc[i].member_offset;
		chunks[i].dev_offset = kloc[i].dev_offset;
		chunks[i].length = kloc[i].length;
	}
	e = 0;
out:
	free(kloc);
	free(kext);
	free(shown);
	return e;
}

HCL_EXPORT const char *hc_writer_error(struct hc_writer *w)
{
	return w->msg.text;
}
