/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fill engine of hypercached: copies an object from a backend into its
 * allocated extents of /dev/hypercache0, several parts at once.
 *
 * The object is cut into parts of @part_size bytes (the last one shorter).
 * @workers threads each take the next unfetched part, fetch it with
 * @fetch into their own block-aligned buffer, and write it with O_DIRECT
 * at the part's place in the extents (a part may straddle two extents; the
 * last block is zero-padded).  The CRC-32C of the object is computed over
 * the parts in order (a worker whose part is not the next one waits, so at
 * most @workers buffers are in use).  After the last part, fdatasync():
 * when hc_fill_run() returns 0 the bytes are durable.
 *
 * The first failure stops every worker (parts not yet taken are not
 * fetched) and is returned with its message.
 */
#ifndef HC_FILL_H
#define HC_FILL_H

#include <stddef.h>
#include <stdint.h>
#include "hypercache.h"
#include "extent.h"

#define HC_FILL_BLOCK		4096u
#define HC_FILL_WORKERS_MAX	64

/*
 * Fetch bytes [@off, @off + @len) of the object into @buf (@len <= the
 * part size).  @worker (0..workers-1) lets a source keep one connection per
 * worker.  Returns 0 or a negative errno with a message in @err.
 */
typedef int (*hc_fill_fetch_fn)(void *src, unsigned int worker, uint64_t off,
				size_t len, void *buf, char *err,
				size_t errlen);

struct hc_fill {
	uint64_t size;			/* object bytes */
	const struct hc_extent *ext;	/* byte offsets in @dev */
	uint32_t nr_ext;
	const char *dev;		/* "/dev/hypercache0" */
	uint64_t part_size;		/* HC_FILL_BLOCK multiple */
	unsigned int workers;		/* 1..HC_FILL_WORKERS_MAX */
	hc_fill_fetch_fn fetch;
	void *src;
};

struct hc_fill_result {
	uint32_t crc32c;		/* of the @size bytes */
	uint64_t parts;			/* parts fetched and written */
	double seconds;			/* wall time, fdatasync included */
};

/*
 * hc_fill_check() - 0, or -EINVAL with a message if @f is malformed:
 * part size, worker count, extents not block-aligned or too short.
 */
int hc_fill_check(const struct hc_fill *f, char *err, size_t errlen);

/* hc_fill_run() - see above.  A size of 0 writes nothing (CRC 0). */
int hc_fill_run(const struct hc_fill *f, struct hc_fill_result *res,
		char *err, size_t errlen);

/*
 * hc_fill_write() - write @len bytes (a HC_FILL_BLOCK multiple) of @buf at
 * object offset @off into the extents @ext of @fd (@dev names it in the
 * message): one part, as a worker of hc_fill_run() or of hypercached's
 * scheduler (xsched.h) writes it.
 */
int hc_fill_write(int fd, const char *dev, const struct hc_extent *ext,
		  uint32_t nr_ext, const char *buf, uint64_t off, uint64_t len,
		  char *err, size_t errlen);

#endif /* HC_FILL_H */
