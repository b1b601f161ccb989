/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * libhypercache: read and write HyperCache objects from C.
 *
 * DOC: model
 *
 * A context (struct hc_ctx) owns one descriptor of /dev/hypercache-ctl and
 * the descriptors of /dev/hypercacheN a process needs; it is the only
 * shared state, and a process normally opens one.  A reader (struct
 * hc_reader) is a LOCATE with HOLD on one object: while it is open the
 * object cannot be evicted and its extents stay valid; closing it releases
 * the hold.  A writer (struct hc_writer) is a STAGE: it is written with
 * O_DIRECT and becomes an object at hc_writer_commit(), or disappears at
 * hc_writer_abort() (or when the context closes).
 *
 * Every function returns 0 (or a count) on success and a negative errno on
 * failure; the handle then also keeps a message naming the object and the
 * reason (hc_reader_error(), hc_writer_error()).  Functions that create a
 * handle take an optional buffer for that message instead.  Handles may be
 * used from several threads at once; a handle must not be closed while
 * another thread uses it.  A context may be used from several threads and
 * closed only after all its handles.
 */
#ifndef HYPERCACHE_HYPERCACHE_H
#define HYPERCACHE_HYPERCACHE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HC_LIB_VERSION_MAJOR	1
#define HC_LIB_VERSION_MINOR	3

struct hc_ctx;
struct hc_reader;
struct hc_writer;

/**
 * struct hc_lib_extent - a run of whole chunks of an object
 * @offset: byte offset in /dev/hypercacheN
 * @length: bytes (whole chunks)
 */
struct hc_lib_extent {
	uint64_t offset;
	uint64_t length;
};

/**
 * struct hc_lib_chunk - where one chunk of an object lives
 * @member: member index
 * @member_offset: byte offset on that member's block device
 * @dev_offset: byte offset in /dev/hypercacheN
 * @length: bytes of the object in this chunk (the last one may be short)
 */
struct hc_lib_chunk {
	uint32_t member;
	uint64_t member_offset;
	uint64_t dev_offset;
	uint64_t length;
};

/**
 * hc_ctx_open() - open the control device and the pool's block device
 * @ctxp: set to the new context
 * @ctl_path: the control device, or NULL for /dev/hypercache-ctl (or
 *	$HYPERCACHE_CTL)
 * @dev_path: the block device, or NULL for /dev/hypercache0 (or
 *	$HYPERCACHE_DEV)
 * @err: optional buffer for a message on failure
 * @errlen: its size
 *
 * The control device is opened for reading and writing when the caller may
 * (else read-only: readers work, writers fail with -EBADF).  A block
 * device the caller may not open (EACCES, EPERM) still gives a context for
 * the index (hc_ctx_info(), hc_ctx_list(), hc_ctx_locate()): its readers
 * and writers then fail with -EACCES and hc_ctx_chunk_size() is 0.
 *
 * Return: 0; -ENOENT (no such device: the module is not loaded), -EACCES,
 * -ENODEV (no pool runs), -ENOMEM.
 */
int hc_ctx_open(struct hc_ctx **ctxp, const char *ctl_path,
		const char *dev_path, char *err, size_t errlen);

/**
 * hc_ctx_close() - close a context (NULL is allowed)
 * @ctx: the context; its handles must be closed already
 */
void hc_ctx_close(struct hc_ctx *ctx);

/**
 * hc_ctx_chunk_size() - the pool's chunk size in bytes
 * @ctx: the context
 *
 * Return: the chunk size (4 MiB on every pool made by hcctl), 0 if the
 * block device could not be opened.
 */
uint32_t hc_ctx_chunk_size(const struct hc_ctx *ctx);

/* hc_reader_open() flags */
#define HC_OPEN_WAIT		(1U << 0) /* wait while the object is being ingested or staged */
#define HC_OPEN_AUTO_INGEST	(1U << 1) /* on a miss, ask the helper to fetch it (implies WAIT) */
#define HC_OPEN_PEEK		(1U << 2) /* not a hit or a miss for the policy */

/**
 * hc_reader_open() - open a cached object for reading
 * @ctx: the context
 * @uri: the object's URI bytes (1..HC_URI_MAX = 1024, no NUL among them)
 * @uri_len: their number
 * @flags: HC_OPEN_*
 * @timeout_ms: with HC_OPEN_WAIT or HC_OPEN_AUTO_INGEST, how long to wait
 *	(0: until a signal)
 * @rp: set to the new reader
 * @err: optional buffer for a message on failure
 * @errlen: its size
 *
 * Return: 0; -ENOENT (not cached, or the ingest ended without data);
 * -EAGAIN (being ingested or staged, and no HC_OPEN_WAIT); -ETIMEDOUT;
 * -ENODATA (the policy did not admit it: read the backend directly);
 * -EIO (the object is marked bad: a read of its data failed on a member
 * since the pool assembled; no hold is taken: evict or replace it);
 * -EINVAL or -E2BIG (a bad URI); -EHOSTDOWN (no helper took the ingest);
 * -EOVERFLOW (too many holds); -EINTR; -ENOMEM; -ENODEV.
 */
int hc_reader_open(struct hc_ctx *ctx, const void *uri, size_t uri_len,
		   unsigned int flags, uint32_t timeout_ms,
		   struct hc_reader **rp, char *err, size_t errlen);

/**
 * hc_reader_close() - release the hold and free the reader (NULL is allowed)
 * @r: the reader; mappings made with hc_reader_mmap() stay valid until
 *	hc_reader_munmap(), but the object may then be evicted under them
 */
void hc_reader_close(struct hc_reader *r);

/** hc_reader_size() - the object's size in bytes */
uint64_t hc_reader_size(const struct hc_reader *r);

/** hc_reader_generation() - the object's generation (changes with its content) */
uint64_t hc_reader_generation(const struct hc_reader *r);

/**
 * hc_reader_extents() - the object's extents in object order
 * @r: the reader
 * @ext: array of @max entries, or NULL
 * @max: its length
 *
 * Return: the number of extents (all of them, even beyond @max).
 */
unsigned int hc_reader_extents(const struct hc_reader *r,
			       struct hc_lib_extent *ext, unsigned int max);

/**
 * hc_reader_layout() - where each chunk of the object lives
 * @r: the reader
 * @chunks: array of @max entries, or NULL
 * @max: its length
 *
 * Return: the number of chunks (even beyond @max), or a negative errno.
 */
long hc_reader_layout(struct hc_reader *r, struct hc_lib_chunk *chunks,
		      unsigned int max);

/**
 * hc_reader_pread() - read at any offset and length
 * @r: the reader
 * @buf: destination, any alignment
 * @len: bytes
 * @off: object offset
 *
 * Spans where @buf, @off and @len are aligned to the device's logical
 * block go with O_DIRECT straight into @buf; unaligned heads and tails go
 * through a small aligned bounce buffer.  Never -EINVAL for alignment.
 *
 * Return: bytes read (short only at the end of the object, 0 past it), or
 * a negative errno (-EIO).
 */
ssize_t hc_reader_pread(struct hc_reader *r, void *buf, size_t len,
			uint64_t off);

/**
 * hc_reader_read_all() - read the whole object with many reads in flight
 * @r: the reader
 * @buf: hc_reader_size() bytes; page-aligned for O_DIRECT into it (else the
 *	reads go through bounce buffers)
 * @threads: reader threads, 0 for min(64, max(16, 4 x online CPUs))
 *
 * Each thread reads whole chunks, so reads are in flight on every member.
 * Return: 0 or a negative errno.
 */
int hc_reader_read_all(struct hc_reader *r, void *buf, unsigned int threads);

/**
 * hc_reader_read_range() - read a range with many reads in flight (1.3)
 * @r: the reader
 * @buf: @len bytes; where @buf, @off and the pieces are aligned to the
 *	logical block the reads go with O_DIRECT straight into it (a
 *	page-aligned @buf at a chunk-aligned @off: every piece), else through
 *	bounce buffers
 * @len: bytes
 * @off: object offset
 * @threads: reader threads, 0 for min(64, max(16, 4 x online CPUs)); never
 *	more than the pieces
 *
 * The range is cut at the object's chunk boundaries into pieces of at most
 * one chunk, which the threads read with hc_reader_pread(), so reads are
 * in flight on several members at once.  hc_reader_read_all() is this
 * over the whole object.  Return: bytes read (short only at the end of the
 * object, 0 past it), or a negative errno (-EIO, -ENOMEM).
 */
ssize_t hc_reader_read_range(struct hc_reader *r, void *buf, size_t len,
			     uint64_t off, unsigned int threads);

/**
 * hc_reader_mmap() - map the whole object read-only as one contiguous range
 * @r: the reader
 * @addrp: set to the mapping's address (NULL for an empty object)
 *
 * A range of the object's size is reserved, then each extent is mapped
 * into it with MAP_FIXED from the device's page cache.  Keep the reader
 * open while the mapping is used.  Return: 0 or a negative errno.
 */
int hc_reader_mmap(struct hc_reader *r, void **addrp);

/**
 * hc_reader_munmap() - undo hc_reader_mmap()
 * @r: the reader
 * @addr: the address it returned
 */
void hc_reader_munmap(struct hc_reader *r, void *addr);

/**
 * hc_reader_error() - the message of the reader's last failure
 * @r: the reader
 *
 * Return: "" if none; valid until the next call on the reader.
 */
const char *hc_reader_error(struct hc_reader *r);

/* hc_writer_create() @size when the size is unknown: a growable stage */
#define HC_SIZE_UNKNOWN		UINT64_MAX

/* hc_writer_create() flags */
#define HC_CREATE_REPLACE	(1U << 0) /* replace an idle cached object of the URI */
#define HC_CREATE_NOWAIT	(1U << 1) /* over the dirty limit: -EAGAIN, do not wait */
#define HC_CREATE_NO_CRC	(1U << 2) /* no CRC-32C as the writes come (1.1) */

/**
 * hc_writer_create() - stage a new object
 * @ctx: the context (its control device open for writing)
 * @uri: URI bytes
 * @uri_len: their number
 * @size: the object's size, or HC_SIZE_UNKNOWN for a stage that grows by
 *	whole chunks as it is written (HC_STAGE_F_GROW)
 * @flags: HC_CREATE_*; HC_CREATE_NO_CRC (1.1) when the commit will pass
 *	HC_COMMIT_NO_CRC: the writes then compute no CRC-32C (a commit that
 *	asks for one reads the bytes back)
 * @wp: set to the new writer
 * @err: optional buffer for a message on failure
 * @errlen: its size
 *
 * Return: 0; -EEXIST (cached, no HC_CREATE_REPLACE); -EBUSY; -EFBIG
 * (larger than the pool); -ENOSPC; -EAGAIN; -EBADF (the context's control
 * device is read-only); -EINVAL or -E2BIG (a bad URI); -ENOMEM.
 */
int hc_writer_create(struct hc_ctx *ctx, const void *uri, size_t uri_len,
		     uint64_t size, unsigned int flags, struct hc_writer **wp,
		     char *err, size_t errlen);

/**
 * hc_writer_pwrite() - write at any offset and length
 * @w: the writer
 * @buf: source, any alignment
 * @len: bytes
 * @off: object offset
 *
 * Aligned spans go with O_DIRECT from @buf; unaligned edges are merged
 * through a bounce block.  A growable stage grows first when the write
 * ends past what it holds (at least doubling it).  Writes to different
 * ranges may run in parallel from several threads (unaligned edges that
 * share a block are read-modify-written one at a time): each thread computes
 * the CRC-32C of the bytes it wrote beside the other threads' writes, and
 * the writer folds the pieces in offset order (up to 32 pieces may wait
 * ahead of a gap), so a commit needs no read-back when the writes cover
 * the object once each, in whatever order they completed.  A write that
 * fails adds nothing to the CRC; written again, it is counted then.
 *
 * Return: @len, or a negative errno: -EFBIG (past the fixed size, or the
 * pool), -ENOSPC, -EIO.
 */
ssize_t hc_writer_pwrite(struct hc_writer *w, const void *buf, size_t len,
			 uint64_t off);

/* hc_writer_commit() flags */
#define HC_COMMIT_CLEAN		(1U << 0) /* the backend has these bytes: READY, not DIRTY */
#define HC_COMMIT_NO_CRC	(1U << 1) /* do not compute and record the CRC-32C */

/**
 * hc_writer_commit() - make the object durable and free the writer
 * @w: the writer (freed on success)
 * @flags: HC_COMMIT_*
 * @generation: optional, set to the object's generation (for
 *	hc_ctx_wait_clean())
 *
 * Computes the CRC-32C of the bytes (read back with O_DIRECT unless the
 * writes covered the object from offset 0 once each, in any order with at
 * most 32 pieces ahead of a gap) for the kernel to keep with the
 * object; the final size is the end of the furthest write (a fixed-size
 * stage keeps its size).  When this returns 0 the data and its journal
 * record are on the drives (every member flushed once); DIRTY objects are
 * then uploaded by hypercached.  On failure the writer stays open (abort
 * or retry).  Return: 0 or a negative errno.
 */
int hc_writer_commit(struct hc_writer *w, unsigned int flags,
		     uint64_t *generation);

/**
 * hc_writer_abort() - drop the stage and free the writer (NULL is allowed)
 * @w: the writer
 */
void hc_writer_abort(struct hc_writer *w);

/** hc_writer_error() - the message of the writer's last failure, or "" */
const char *hc_writer_error(struct hc_writer *w);

/* The state of an object (uapi/hypercache_format.h HC_OBJ_*) */
#define HC_LIB_INGESTING	1
#define HC_LIB_READY		2
#define HC_LIB_STAGED		3
#define HC_LIB_DIRTY		4
#define HC_LIB_SYNCING		5

/**
 * struct hc_lib_info - one object of the index
 * @uri: its URI bytes (valid during the call that passes it)
 * @uri_len: their number
 * @state: HC_LIB_*
 * @flags: HC_OBJ_F_* (pinned, data-crc)
 * @size: bytes
 * @generation: changes with the content
 */
struct hc_lib_info {
	const void *uri;
	size_t uri_len;
	uint32_t state;
	uint32_t flags;
	uint64_t size;
	uint64_t generation;
};

/**
 * hc_ctx_info() - one object's state, without a hold (and not counted as
 * a hit or a miss)
 * @ctx: the context
 * @uri: URI bytes
 * @uri_len: their number
 * @info: filled in (@info->uri points at @uri)
 *
 * Return: 0; -ENOENT (not cached); -EINVAL or -E2BIG (a bad URI).
 */
int hc_ctx_info(struct hc_ctx *ctx, const void *uri, size_t uri_len,
		struct hc_lib_info *info);

/**
 * hc_ctx_list() - call @fn for every cached object whose URI starts with
 * @prefix (in no particular order)
 * @ctx: the context (its control descriptor authorises the listing)
 * @prefix: bytes, or NULL with @prefix_len 0 for all
 * @prefix_len: their number
 * @fn: called per object; a non-zero return stops the listing
 * @arg: passed to @fn
 *
 * Return: 0, or a negative errno (-EPERM, -ENOENT: the module is not
 * loaded, -ENODEV: no pool).
 */
int hc_ctx_list(struct hc_ctx *ctx, const void *prefix, size_t prefix_len,
		int (*fn)(void *arg, const struct hc_lib_info *info),
		void *arg);

/**
 * hc_ctx_evict() - drop an idle object from the cache
 * @ctx: the context
 * @uri: URI bytes
 * @uri_len: their number
 *
 * Needs CAP_SYS_ADMIN.  Return: 0; -ENOENT; -EBUSY (held, staged, pinned,
 * ingesting, DIRTY or SYNCING); -EPERM.
 */
int hc_ctx_evict(struct hc_ctx *ctx, const void *uri, size_t uri_len);

/**
 * hc_ctx_wait_clean() - wait until a committed object is in the backend
 * @ctx: the context
 * @uri: URI bytes
 * @uri_len: their number
 * @generation: the generation hc_writer_commit() returned
 * @timeout_ms: 0 waits for ever
 *
 * Return: 0 (READY); -ETIMEDOUT; -ESTALE (replaced by a newer generation
 * before this one was uploaded); -ENOENT (gone).
 */
int hc_ctx_wait_clean(struct hc_ctx *ctx, const void *uri, size_t uri_len,
		      uint64_t generation, uint32_t timeout_ms);

/* The longest ETag struct hc_lib_object keeps (uapi HC_ETAG_MAX) */
#define HC_LIB_ETAG_MAX		128

/**
 * struct hc_lib_object - one object of the index with its backend version (1.3)
 * @uri: its URI bytes (valid during the call that passes it)
 * @uri_len: their number
 * @state: HC_LIB_*
 * @flags: HC_OBJ_F_* (pinned, data-crc, bad)
 * @size: bytes
 * @generation: changes with the content
 * @chunks: chunks allocated to it
 * @holds: holds on it by every open control descriptor
 * @etag_len: bytes of @etag; 0 when the backend's ETag is not known
 * @last_modified: the backend's Last-Modified of the same version, seconds
 *	since the Unix epoch (UTC); 0 when not known
 * @etag: the backend's ETag of the version the object was ingested from or
 *	uploaded as, as the backend sent it (S3: with its double quotes),
 *	NUL-terminated; "" when not known
 *
 * The kernel knows the backend version of an object that hypercached
 * ingested or uploaded (format v2 journals it; a format-1 pool keeps it
 * until the pool stops).  An object written but not uploaded yet, one
 * committed clean by a writer (HC_COMMIT_CLEAN: the writer said the
 * backend has the bytes, not which version) and one whose helper sent
 * none have neither (@etag_len and @last_modified 0).
 */
struct hc_lib_object {
	const void *uri;
	size_t uri_len;
	uint32_t state;
	uint32_t flags;
	uint64_t size;
	uint64_t generation;
	uint64_t chunks;
	uint32_t holds;
	uint32_t etag_len;
	uint64_t last_modified;
	char etag[HC_LIB_ETAG_MAX + 1];
};

/**
 * hc_ctx_object_info() - one object of the index with its backend's ETag
 *	and Last-Modified (1.3)
 * @ctx: the context (its control descriptor authorises the request, as for
 *	hc_ctx_list())
 * @uri: URI bytes
 * @uri_len: their number
 * @obj: filled in (@obj->uri points at @uri); zeroed on failure
 *
 * The generic-netlink request HC_CMD_OBJ_GET for one URI (what `hcctl ls
 * --etag` shows), without a hold, not a hit or a miss for the policy.
 * Return: 0; -ENOENT (not cached, or the module is not loaded); -ENODEV
 * (no pool); -EINVAL or -E2BIG (a bad URI); -EPERM; -ENOMEM.
 */
int hc_ctx_object_info(struct hc_ctx *ctx, const void *uri, size_t uri_len,
		       struct hc_lib_object *obj);

/**
 * hc_ctx_list_objects() - call @fn for every cached object whose URI starts
 *	with @prefix, with its backend version (1.3)
 * @ctx: the context (its control descriptor authorises the listing)
 * @prefix: bytes, or NULL with @prefix_len 0 for all
 * @prefix_len: their number
 * @fn: called per object (@obj valid during the call); a non-zero return
 *	stops the listing
 * @arg: passed to @fn
 *
 * As hc_ctx_list(), with every field of struct hc_lib_object.  Return: 0,
 * or a negative errno (-EPERM, -ENOENT: the module is not loaded,
 * -ENODEV: no pool).
 */
int hc_ctx_list_objects(struct hc_ctx *ctx, const void *prefix,
			size_t prefix_len,
			int (*fn)(void *arg, const struct hc_lib_object *obj),
			void *arg);

/* struct hc_lib_location.status (uapi HC_LOCATE_*) */
#define HC_LIB_HIT		1 /* READY, DIRTY or SYNCING: the data is valid */
#define HC_LIB_MISS		2 /* not cached */
#define HC_LIB_PENDING		3 /* INGESTING or STAGED: not yet valid */
#define HC_LIB_NOT_ADMITTED	4 /* not admitted: read the backend directly */
#define HC_LIB_BAD		5 /* a read of its data failed on a member */

/**
 * struct hc_lib_location - what the index says of one URI, without a hold
 * @status: HC_LIB_HIT, HC_LIB_MISS, HC_LIB_PENDING, HC_LIB_NOT_ADMITTED or
 *	HC_LIB_BAD; on a miss the other fields are 0
 * @state: HC_LIB_INGESTING ... HC_LIB_SYNCING
 * @flags: HC_OBJ_F_* (pinned, data-crc, bad)
 * @size: bytes
 * @generation: changes with the content
 * @nr_extents: the object's extents (all of them, even beyond @max_ext)
 * @nr_chunks: its chunks (all of them, even beyond @max_chunks)
 */
struct hc_lib_location {
	uint32_t status;
	uint32_t state;
	uint32_t flags;
	uint32_t nr_extents;
	uint64_t size;
	uint64_t generation;
	uint32_t nr_chunks;
};

/**
 * hc_ctx_locate() - where a URI is cached, without a hold (LOCATE with
 * PEEK: not a hit or a miss for the policy)
 * @ctx: the context (only its control device is used: this works for a
 *	caller that may not open the block device)
 * @uri: URI bytes
 * @uri_len: their number
 * @loc: filled in
 * @ext: array of @max_ext extents, or NULL
 * @max_ext: its length
 * @chunks: array of @max_chunks chunk locations, or NULL
 * @max_chunks: its length (the chunk count of an object of N bytes is
 *	N / hc_ctx_chunk_size() rounded up; call again with more if
 *	@loc->nr_chunks is larger)
 * @err: optional buffer for a message on failure
 * @errlen: its size
 *
 * Every status is a success: a miss is @loc->status == HC_LIB_MISS.
 * Return: 0; -EINVAL or -E2BIG (a bad URI); -ENODEV (no pool); -ENOMEM.
 */
int hc_ctx_locate(struct hc_ctx *ctx, const void *uri, size_t uri_len,
		  struct hc_lib_location *loc, struct hc_lib_extent *ext,
		  unsigned int max_ext, struct hc_lib_chunk *chunks,
		  unsigned int max_chunks, char *err, size_t errlen);

/**
 * hc_writer_extents() - the stage's extents in object order
 * @w: the writer
 * @ext: array of @max entries, or NULL
 * @max: its length
 *
 * A growable stage has more of them as it grows.  Return: the number of
 * extents (all of them, even beyond @max).
 */
unsigned int hc_writer_extents(struct hc_writer *w, struct hc_lib_extent *ext,
			       unsigned int max);

/**
 * hc_writer_crc32c() - the CRC-32C that hc_writer_commit() would record now
 * @w: the writer
 * @crc: set to the CRC-32C of the bytes from 0 to the object's size (a
 *	growable stage: the end of the furthest write)
 *
 * Free when the writes covered the object from offset 0 once each (the
 * writer computed it as they came, see hc_writer_pwrite()), else the
 * bytes are read back with O_DIRECT; a commit
 * without HC_COMMIT_NO_CRC after it records the same value without
 * computing it again.  For a caller that reports the CRC (hcctl put
 * --crc).  Return: 0, or a negative errno of the read-back (-EIO).
 */
int hc_writer_crc32c(struct hc_writer *w, uint32_t *crc);

/**
 * hc_crc32c() - CRC-32C (Castagnoli) of a buffer, continuing @crc
 * @crc: 0 to start, or a previous result
 * @buf: bytes
 * @len: their number
 *
 * Return: the CRC-32C, as the kernel and hypercached compute it.
 */
uint32_t hc_crc32c(uint32_t crc, const void *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* HYPERCACHE_HYPERCACHE_H */
