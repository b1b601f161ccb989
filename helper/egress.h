/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The egress (write-back) engine of hypercached: uploads a DIRTY object
 * from its extents of /dev/hypercache0 to its backend.
 *
 * The object's bytes are read with O_DIRECT into 4 KiB-aligned buffers
 * (hc_egress_read(): a part may straddle extents; the tail of the last
 * block is read and ignored).  The CRC-32C of the object is computed over
 * the parts in order and, when the kernel gave one, checked before the
 * upload is made visible: a mismatch is -EBADMSG and nothing is published.
 *
 * S3 (hc_egress_s3()):
 *   size <= the part size       one PUT
 *   otherwise                   a multipart upload: parts of the part size
 *                               (the last one shorter), read and uploaded
 *                               by @workers threads, each with its own
 *                               client (connections reused); at most
 *                               @workers parts are in memory or in flight;
 *                               complete with the ETags in part order
 * The part size is bumped to HC_EGRESS_PART_MIN (S3's 5 MiB minimum for
 * every part but the last) and, for huge objects, grown so that at most
 * HC_EGRESS_PARTS_MAX parts are needed (hc_egress_plan()).  Before a
 * multipart upload of KEY, unfinished uploads of exactly KEY (left by a
 * crash) are aborted; any failure aborts the new upload.  Neither answer
 * carries the new version's Last-Modified: once the upload succeeded, a
 * HEAD (on a transfer slot) gives it, kept only if the HEAD shows the ETag
 * the upload returned; a failed or mismatched HEAD leaves it unknown and
 * never fails the upload (Documentation/writeback.md, "Last-Modified").
 *
 * posix (hc_egress_posix()): ROOT/KEY is written atomically by the posix
 * backend's one rule (posix.h: a temporary, stale temporaries of KEY
 * removed, fsync, rename, fsync of the directory): readers see the old
 * file or the new one, never a part.  The "ETag" is the CRC-32C of the
 * bytes as 8 lowercase hex digits; the Last-Modified is the st_mtime of
 * the file renamed into place (its temporary's, after the last write).
 *
 * Functions return 0 or a negative errno with a message in @err.
 */
#ifndef HC_EGRESS_H
#define HC_EGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "hypercache.h"
#include "s3.h"

#define HC_EGRESS_BLOCK		4096u
#define HC_EGRESS_PART_MIN	(5ULL << 20)	/* S3: all parts but the last */
#define HC_EGRESS_PARTS_MAX	10000u		/* S3: part numbers 1..10000 */
#define HC_EGRESS_WORKERS_MAX	64

/* How an object of a given size is uploaded. */
struct hc_egress_plan {
	bool multipart;
	uint64_t part_size;	/* every part but the last */
	uint64_t nr_parts;	/* 1 for a single PUT (0 bytes included) */
	uint64_t last_size;	/* bytes of the last part */
};

/*
 * hc_egress_plan() - plan @size bytes with configured @part_size (a 4 KiB
 * multiple): the part size becomes max(@part_size, HC_EGRESS_PART_MIN),
 * rounded up to a MiB multiple if needed to stay within
 * HC_EGRESS_PARTS_MAX parts; a single PUT if @size fits one part.
 * -EINVAL for a part size of 0 or not a 4 KiB multiple.
 */
int hc_egress_plan(uint64_t size, uint64_t part_size,
		   struct hc_egress_plan *p);

/*
 * hc_egress_workers() - part threads for one multipart upload of
 * @part_size parts while @uploads uploads run (this one included, 0 taken
 * as 1): @concurrency, fewer if that many buffers for each of them would
 * pass @budget (write-back's share of buffer_budget); at least one, at
 * most HC_EGRESS_WORKERS_MAX.  The memory stays within the budget whatever
 * this says (struct hc_egress.mem_get waits for room); this only keeps
 * threads from starting to wait.  Pure.
 */
unsigned int hc_egress_workers(uint64_t budget, uint64_t part_size,
			       unsigned int uploads, unsigned int concurrency);

/* Called after each part is uploaded (from a worker thread). */
typedef void (*hc_egress_progress_fn)(void *arg, uint64_t part_no,
				      uint64_t parts_done, uint64_t nr_parts);

/* The steps of a part at which struct hc_egress.place is called. */
enum hc_egress_place_at {
	HC_EGRESS_PLACE_READ,		/* before the read */
	HC_EGRESS_PLACE_FILLED,		/* the read done */
	HC_EGRESS_PLACE_SEND,		/* before the upload request */
	HC_EGRESS_PLACE_SENT,		/* after it, whatever its outcome */
};

struct hc_egress {
	uint64_t size;			/* object bytes */
	const struct hc_extent *ext;	/* byte offsets in @dev */
	uint32_t nr_ext;
	const char *dev;		/* "/dev/hypercache0" */
	uint64_t part_size;		/* as configured */
	unsigned int workers;		/* 1..HC_EGRESS_WORKERS_MAX */
	const uint32_t *crc;		/* expected CRC-32C, or NULL */
	const volatile int *stop;	/* non-zero: stop (-ECANCELED); may be NULL */
	hc_egress_progress_fn progress;	/* may be NULL */
	void *progress_arg;
	/*
	 * A transfer slot held around each upload request (the PUT, each
	 * part), so that the uploads of several objects share a backend's
	 * slots; both NULL or both set.  @slot_get may block; it returns 0,
	 * or a negative errno (-ECANCELED: stopping) that fails the upload.
	 */
	int (*slot_get)(void *arg);
	void (*slot_put)(void *arg);
	/*
	 * Buffer memory: @mem_get(@slot_arg, BYTES) before each buffer is
	 * allocated (one per part thread, or the single PUT's, or the posix
	 * copy's), @mem_put after it is freed, so that the caller keeps every
	 * buffer in flight within its budget; both NULL or both set.
	 * @mem_get may block; it returns 0, or a negative errno that fails the
	 * upload (-ECANCELED: stopping; -EFBIG: BYTES never fit).
	 */
	int (*mem_get)(void *arg, uint64_t bytes);
	void (*mem_put)(void *arg, uint64_t bytes);
	void *slot_arg;
	/*
	 * NUMA placement (helper/place.h), may be NULL: called by the thread
	 * that moves object bytes [@off, @off + @len) in @buf (a buffer of
	 * its own mapping, reused for the next part) at each step @at: before
	 * the read (bind the buffer, move the thread to the drive's node),
	 * after it (count where the pages are), before the upload request
	 * (move the thread to the NIC's node) and after it (count it).
	 */
	void (*place)(void *arg, uint64_t off, uint64_t len, void *buf,
		      enum hc_egress_place_at at);
	void *place_arg;
};

/*
 * Where an upload's time went, summed over its parts (thread-seconds: with
 * W part threads they add up to about W times the wall time).  @crc
 * includes waiting for the part's turn in the CRC order; @send is the
 * upload requests less @digest (hashing their bodies: MD5, and SHA-256
 * with sign_payload), retries included.
 */
struct hc_egress_times {
	double read;			/* O_DIRECT reads of the extents */
	double crc;			/* CRC-32C, in part order */
	double slot;			/* waiting for a transfer slot */
	double digest;			/* MD5 / SHA-256 of the bodies */
	double send;			/* the PUTs, on the wire */
	double head;			/* the HEAD for Last-Modified */
};

struct hc_egress_result {
	char etag[HCS3_ETAG_MAX + 1];	/* the backend's ETag */
	/*
	 * The backend's Last-Modified of the version written, seconds since
	 * the epoch; 0: unknown, and then @mtime_err (a negative errno) and
	 * @mtime_msg say why (the upload itself succeeded).
	 */
	int64_t mtime;
	int mtime_err;
	char mtime_msg[256];
	uint32_t crc32c;		/* of the bytes read */
	struct hc_egress_plan plan;
	uint64_t parts;			/* parts uploaded */
	unsigned int aborted_leftovers;	/* unfinished uploads of KEY aborted */
	double seconds;
	struct hc_egress_times t;	/* S3 only */
};

/* hc_egress_check() - 0, or -EINVAL if @e is malformed. */
int hc_egress_check(const struct hc_egress *e, char *err, size_t errlen);

/*
 * hc_egress_read() - read object bytes [@off, @off + @len) from the
 * extents on @fd (opened O_DIRECT) into @buf.  @off is a block multiple;
 * @buf is block-aligned with room for @len rounded up to a block.
 */
int hc_egress_read(int fd, const struct hc_extent *ext, uint32_t nr_ext,
		   uint64_t off, size_t len, void *buf, char *err,
		   size_t errlen);

/*
 * hc_egress_s3() - upload to @bucket/@key with @clients[0..workers-1]
 * (clients[0] also does the single PUT, create, complete and abort).
 */
int hc_egress_s3(const struct hc_egress *e, struct hcs3 *const *clients,
		 const char *bucket, const char *key,
		 struct hc_egress_result *res, char *err, size_t errlen);

/* hc_egress_posix() - write the object to @path (ROOT/KEY) atomically. */
int hc_egress_posix(const struct hc_egress *e, const char *path,
		    struct hc_egress_result *res, char *err, size_t errlen);

/*
 * hc_egress_permanent() - whether an upload that failed with positive
 * errno @err cannot succeed by being retried, only by an operator's
 * change (credentials, bucket, configuration) or a discard: EACCES and
 * EPERM (403: AccessDenied, InvalidAccessKeyId, SignatureDoesNotMatch),
 * ENOENT (NoSuchBucket, a posix root that is not there), EINVAL and
 * ENAMETOOLONG (InvalidBucketName, InvalidURI, KeyTooLongError, a key the
 * client refuses), ENXIO (no backend for the URI), EFBIG (EntityTooLarge),
 * ENOTDIR, EISDIR, EROFS and ELOOP (posix), EBADMSG (the bytes on the pool
 * do not match the writer's CRC-32C: they will not next time either).
 * Everything else is transient: EIO (a 5xx after the retries, an unknown
 * answer), EAGAIN (SlowDown), ETIMEDOUT, ECONNREFUSED, ENOSPC, ENOMEM.
 */
bool hc_egress_permanent(int err);

/*
 * hc_egress_message() - @why as the kernel keeps it (HC_A_EGRESS_MESSAGE):
 * at most @len - 1 bytes, cut before a UTF-8 sequence it would split,
 * NUL-terminated; strerror(@err) if @why is NULL or "".
 */
void hc_egress_message(char *dst, size_t len, int err, const char *why);

#endif /* HC_EGRESS_H */
