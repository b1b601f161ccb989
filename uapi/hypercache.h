/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * HyperCache ioctls, version 1.
 *
 * DOC: extension rules and errno contract
 *
 * Every ioctl argument is a struct that begins with "__u32 size; __u32 flags"
 * and is only ever extended by appending fields.  The caller sets @size to
 * sizeof() the struct it was compiled with.  The kernel reads the struct with
 * copy_struct_from_user(), with the version-1 size (HC_*_SIZE_VER1 below,
 * as openat2 has OPEN_HOW_SIZE_VER0) as the minimum: a struct of at least
 * version 1 but shorter than the kernel's is zero-extended, so a binary
 * built against this header keeps working against a kernel whose struct has
 * grown; a longer one is accepted only if the bytes the kernel does not know
 * are zero.  Output fields are written back for min(@size, the kernel's
 * size) bytes.  Layouts use only fixed-width types, 64-bit values are
 * __aligned_u64, and reserved fields must be zero.  Ioctl numbers are _IO():
 * the size travels in the struct, not in the number (as in iommufd), so a
 * struct grows without a new number.
 *
 *   ENOTTY      unknown ioctl number
 *   EINVAL      @size smaller than version 1, or a non-zero reserved field
 *   EOPNOTSUPP  a bit in @flags this kernel does not know: a program probes
 *               for a flag by trying it (nothing is done then)
 *   E2BIG       @size larger than the kernel's struct with non-zero bytes in
 *               the part the kernel does not know
 *   EFAULT      the argument is not readable/writable
 *   ENODEV      the pool behind the device has stopped
 */
#ifndef _UAPI_HYPERCACHE_H
#define _UAPI_HYPERCACHE_H

#include <linux/types.h>
#include <linux/ioctl.h>
#include "hypercache_format.h"

#define HC_IOCTL_MAGIC	0xCA

/**
 * struct hc_geometry - HC_IOC_GEOMETRY: the stripe geometry of a pool
 * @size: sizeof(struct hc_geometry), in
 * @flags: must be zero, in
 * @chunk_size: chunk size in bytes, out
 * @member_count: number of members, out
 * @chunks: chunks in the device's address space, out
 * @capacity: bytes, out (chunks * chunk_size)
 * @pool_uuid: out
 * @reserved: must be zero, in
 *
 * Issued on /dev/hypercacheN (opened read-only is enough).  Chunk v of the
 * device lives on member v % member_count.
 */
struct hc_geometry {
	__u32 size;
	__u32 flags;
	__u32 chunk_size;
	__u32 member_count;
	__aligned_u64 chunks;
	__aligned_u64 capacity;
	__u8 pool_uuid[16];
	__aligned_u64 reserved[2];
};

#define HC_GEOMETRY_SIZE_VER1	64	/* sizeof(struct hc_geometry), version 1 */

#define HC_IOC_GEOMETRY	_IO(HC_IOCTL_MAGIC, 0x00)

/*
 * DOC: the object cache control device
 *
 * /dev/hypercache-ctl (a misc device) carries the object ioctls below.
 * What they hold belongs to the open file: closing it releases its holds
 * and aborts its unfinished stages, so a crashed application leaks nothing.
 *
 * Permissions: anyone who can open the device may LOCATE, RELEASE and read
 * STAT; STAGE, COMMIT and ABORT need the device open for writing (else
 * EBADF); PIN, UNPIN and EVICT need CAP_SYS_ADMIN (else EPERM).  Reading
 * and writing the data itself needs access to /dev/hypercacheN.  The same
 * rule covers the netlink reads of the index (HC_CMD_OBJ_GET,
 * HC_CMD_STATS_GET): without CAP_NET_ADMIN they need a descriptor of this
 * device that the caller has open (uapi/hypercache_netlink.h).
 *
 * A URI is 1..HC_URI_MAX opaque bytes without NUL, passed by pointer and
 * length: EINVAL for an empty one or one with a NUL, E2BIG for a longer one.
 *
 * Object errors: ENODEV no pool runs; ENOENT no such object; EBUSY the
 * object is held, staged, pinned or being synced where the operation needs
 * it idle; ENOSPC no room even after evicting every evictable object;
 * EFBIG an object larger than the pool; EOVERFLOW a file's holds on one
 * object would pass HC_HOLD_MAX, or the object's holds (every file's
 * together) would pass the kernel's bound of 2^30; ETIMEDOUT a LOCATE with
 * HC_LOCATE_F_WAIT timed out; EINTR a signal.
 *
 * The write fence: /dev/hypercacheN accepts writes only into the chunks of
 * a STAGED object (until COMMIT or ABORT), and there only from the thread
 * group that staged it (its threads and its io_uring workers), or into the
 * chunks of an INGESTING object from the helper's thread group.  A write
 * anywhere else fails with EIO, including the page-cache write-back that
 * kernel flusher threads do for buffered writes: buffered data reaches a
 * stage only through write-back its stager starts (fsync(), fdatasync(),
 * sync_file_range() or COMMIT itself), and a refused write-back into a
 * stage fails its COMMIT with EIO.  HC_STAGE_F_ANY_WRITER (needs
 * CAP_SYS_ADMIN) lets every writer in, for raw-device tests and
 * benchmarks.  Before an object's chunks are freed (ABORT, close, a failed
 * ingest) or sealed (COMMIT), the writes already admitted into them are
 * waited for, so none lands on chunks another object has taken since.
 */

/**
 * struct hc_extent - a run of whole chunks of an object, or of 4 KiB blocks
 * @offset: byte offset in /dev/hypercacheN: a multiple of the chunk size;
 *	for a small object of a format v2 pool (obj_flags HC_OBJ_F_SUBCHUNK,
 *	its only extent, inside one chunk shared with other small objects) a
 *	multiple of HC_SUBBLOCK_SIZE (4096)
 * @length: bytes: a multiple of the chunk size; for a small object its
 *	blocks, a multiple of HC_SUBBLOCK_SIZE (the object's size rounded up)
 */
struct hc_extent {
	__aligned_u64 offset;
	__aligned_u64 length;
};

/**
 * struct hc_chunk_loc - where one chunk of an object lives
 * @member: member index
 * @reserved: zero
 * @member_offset: byte offset on that member's block device
 * @dev_offset: byte offset in /dev/hypercacheN
 * @length: bytes of the object in this chunk (the last one may be short)
 */
struct hc_chunk_loc {
	__u32 member;
	__u32 reserved;
	__aligned_u64 member_offset;
	__aligned_u64 dev_offset;
	__aligned_u64 length;
};

#define HC_LOCATE_F_HOLD	(1U << 0) /* on a hit, hold the object until RELEASE */
#define HC_LOCATE_F_WAIT	(1U << 1) /* wait while INGESTING (timeout_ms) */
#define HC_LOCATE_F_AUTO_INGEST	(1U << 2) /* on a miss, queue an ingest */
/* inspect only: not a hit or a miss for the policy and the counters */
#define HC_LOCATE_F_PEEK	(1U << 3)
/*
 * an operator's preload: the ingest this LOCATE starts or joins is an
 * explicit admission (no frequency duel; it displaces only evictable
 * objects, cold ones first, and fails with ENOSPC, never by being refused);
 * needs the device open for writing (else EBADF)
 */
#define HC_LOCATE_F_EXPLICIT	(1U << 4)
/*
 * pin the object found, or the one whose ingest this LOCATE starts or
 * joins (admitted pinned); needs CAP_SYS_ADMIN (else EPERM).  An object
 * pinned already needs nothing; one not pinned yet whose COMMIT or ingest
 * completion is being recorded cannot change meanwhile: EBUSY, or with
 * HC_LOCATE_F_WAIT the LOCATE waits for the record and pins it then
 */
#define HC_LOCATE_F_PIN		(1U << 5)
#define HC_LOCATE_F_ALL		(HC_LOCATE_F_HOLD | HC_LOCATE_F_WAIT | \
				 HC_LOCATE_F_AUTO_INGEST | HC_LOCATE_F_PEEK | \
				 HC_LOCATE_F_EXPLICIT | HC_LOCATE_F_PIN)

/* struct hc_locate.status */
#define HC_LOCATE_HIT		1 /* READY, DIRTY or SYNCING: the data is valid */
#define HC_LOCATE_MISS		2 /* not cached */
#define HC_LOCATE_PENDING	3 /* INGESTING or STAGED: not yet valid */
#define HC_LOCATE_NOT_ADMITTED	4 /* not admitted: read the backend directly */
/*
 * a read of its data failed on a member (EIO to that reader): not valid,
 * never held; evict it (READY) or stage a replacement
 */
#define HC_LOCATE_BAD		5

/*
 * struct hc_locate.obj_flags and HC_A_OBJ_FLAGS also carry
 * HC_OBJ_F_SUBCHUNK (hypercache_format.h, 0x4): a small object in the slab
 * of a v2 pool, its extent a run of 4 KiB blocks (struct hc_extent).
 *
 * struct hc_locate.obj_flags and HC_A_OBJ_FLAGS only, never in the journal:
 * a read of the object's data failed on a member since the pool assembled
 */
#define HC_OBJ_F_BAD		(1U << 31)

/*
 * A file's holds on one object are bounded: LOCATE|HOLD beyond is EOVERFLOW.
 * So are an object's holds by every file together, at 2^30 (the view's
 * open files count too): LOCATE|HOLD is EOVERFLOW there as well.
 */
#define HC_HOLD_MAX		65535

/**
 * struct hc_locate - HC_IOC_LOCATE: find an object
 * @size: sizeof(struct hc_locate), in
 * @flags: HC_LOCATE_F_*, in
 * @uri: user pointer to the URI bytes, in
 * @uri_len: in
 * @timeout_ms: with HC_LOCATE_F_WAIT, how long to wait; 0 waits until a
 *	signal, in
 * @extents: user pointer to @max_extents struct hc_extent, or 0, in
 * @max_extents: in
 * @nr_extents: extents of the object (all of them, even beyond
 *	@max_extents: compare to see whether the array was large enough), out
 * @layout: user pointer to @max_layout struct hc_chunk_loc, or 0, in
 * @max_layout: in
 * @nr_layout: chunks of the object, out
 * @status: HC_LOCATE_*, out
 * @state: HC_OBJ_* (uapi/hypercache_format.h), 0 on a miss, out
 * @obj_size: bytes, out
 * @generation: changes whenever the URI's content changes, out
 * @obj_flags: HC_OBJ_F_*, out
 * @reserved0: zero
 * @reserved: zero
 *
 * A hold is counted per open file and object (at most HC_HOLD_MAX, then
 * EOVERFLOW and no hold is taken; EOVERFLOW too when the object has 2^30
 * holds, every file's together); an object with a hold is never evicted.
 * Extents and layout are filled for every status but a miss.
 *
 * HC_LOCATE_F_AUTO_INGEST on a miss: EAGAIN when the pool already has
 * max_ingests (module parameter, default 1024) objects waiting to be
 * ingested; a request that no helper takes within ingest_timeout_ms
 * (default 60 s) ends, and readers waiting for it get EHOSTDOWN.
 */
struct hc_locate {
	__u32 size;
	__u32 flags;
	__aligned_u64 uri;
	__u32 uri_len;
	__u32 timeout_ms;
	__aligned_u64 extents;
	__u32 max_extents;
	__u32 nr_extents;
	__aligned_u64 layout;
	__u32 max_layout;
	__u32 nr_layout;
	__u32 status;
	__u32 state;
	__aligned_u64 obj_size;
	__aligned_u64 generation;
	__u32 obj_flags;
	__u32 reserved0;
	__aligned_u64 reserved[2];
};

/**
 * struct hc_obj_ref - HC_IOC_RELEASE, _ABORT, _PIN, _UNPIN, _EVICT: name an
 * object
 * @size: sizeof(struct hc_obj_ref), in
 * @flags: zero, in
 * @uri: user pointer to the URI bytes, in
 * @uri_len: in
 * @reserved0: zero
 * @reserved: zero
 *
 * RELEASE drops one hold of this file (ENOENT if it holds none); ABORT
 * drops this file's stage (ENOENT if it has none); EVICT removes an idle
 * object (EBUSY if held, staged, ingesting, pinned, DIRTY or SYNCING).
 */
struct hc_obj_ref {
	__u32 size;
	__u32 flags;
	__aligned_u64 uri;
	__u32 uri_len;
	__u32 reserved0;
	__aligned_u64 reserved[2];
};

#define HC_STAGE_F_REPLACE	(1U << 0) /* evict an existing idle object first */
#define HC_STAGE_F_NOWAIT	(1U << 1) /* over the dirty limit: EAGAIN, do not wait */
/* any writer may write the extents, not only the stager (CAP_SYS_ADMIN) */
#define HC_STAGE_F_ANY_WRITER	(1U << 2)
/* growable: @obj_size is a hint, HC_IOC_GROW extends it (see below) */
#define HC_STAGE_F_GROW		(1U << 3)
#define HC_STAGE_F_ALL		(HC_STAGE_F_REPLACE | HC_STAGE_F_NOWAIT | \
				 HC_STAGE_F_ANY_WRITER | HC_STAGE_F_GROW)

/**
 * struct hc_stage - HC_IOC_STAGE: allocate a new object for writing
 * @size: sizeof(struct hc_stage), in
 * @flags: HC_STAGE_F_*, in
 * @uri: user pointer to the URI bytes, in
 * @uri_len: in
 * @max_extents: in
 * @obj_size: bytes the object will have, in (0 is allowed: no extent)
 * @extents: user pointer to @max_extents struct hc_extent, out; must be
 *	large enough for the allocation (up to HC_MAX_EXTENTS; E2BIG if the
 *	allocation needs more and nothing is staged)
 * @nr_extents: out
 * @reserved0: zero
 * @generation: the generation the object will have, out
 * @reserved: zero
 *
 * The extents become writable through /dev/hypercacheN (the write fence
 * opens) for this object until COMMIT or ABORT, by the calling thread group
 * (every writer with HC_STAGE_F_ANY_WRITER; EPERM without CAP_SYS_ADMIN).
 * EFBIG if @obj_size is larger than the pool (nothing changes); EEXIST if
 * the URI is cached and HC_STAGE_F_REPLACE is not given; EBUSY if it cannot
 * be replaced now.  HC_STAGE_F_REPLACE takes over a pending ingest of
 * the URI that the helper has not started to write (no size reported yet):
 * the ingest ends and readers waiting for it wait for this stage.
 *
 * Dirty limit: while the bytes of DIRTY and SYNCING objects plus @obj_size
 * would pass the limit (module parameter dirty_limit_mb, 0 = none), STAGE
 * waits for uploads to finish (interruptible: EINTR on a signal), or fails
 * with EAGAIN at once with HC_STAGE_F_NOWAIT.  An object larger than the
 * limit waits until nothing is dirty.
 *
 * HC_STAGE_F_GROW makes a growable stage, for a writer that does not know
 * the final size (a stream): @obj_size is only a hint, the stage gets
 * DIV_ROUND_UP(@obj_size, chunk size) chunks (none for 0), and its size
 * while staged is what it holds, whole chunks.  HC_IOC_GROW extends it by
 * whole chunks; COMMIT must then give the final size (HC_COMMIT_F_SIZE),
 * which frees the chunks past it.  The write fence covers exactly the
 * chunks the stage holds at any time.
 */
struct hc_stage {
	__u32 size;
	__u32 flags;
	__aligned_u64 uri;
	__u32 uri_len;
	__u32 max_extents;
	__aligned_u64 obj_size;
	__aligned_u64 extents;
	__u32 nr_extents;
	__u32 reserved0;
	__aligned_u64 generation;
	__aligned_u64 reserved[2];
};

#define HC_COMMIT_F_CRC		(1U << 0) /* @crc32c is the data's CRC-32C */
#define HC_COMMIT_F_CLEAN	(1U << 1) /* the backend has this data: READY, not DIRTY */
/* @obj_size is the final size of a growable stage (size >= VER2) */
#define HC_COMMIT_F_SIZE	(1U << 2)
#define HC_COMMIT_F_ALL		(HC_COMMIT_F_CRC | HC_COMMIT_F_CLEAN | \
				 HC_COMMIT_F_SIZE)

/**
 * struct hc_commit - HC_IOC_COMMIT: make this file's stage durable
 * @size: sizeof(struct hc_commit), in
 * @flags: HC_COMMIT_F_*, in
 * @uri: user pointer to the URI bytes, in
 * @uri_len: in
 * @crc32c: with HC_COMMIT_F_CRC, the CRC-32C of the object's bytes (kept
 *	with the object for the upload to check), in
 * @generation: out
 * @reserved: zero
 * @obj_size: with HC_COMMIT_F_SIZE, the object's final size, in; zero
 *	without it (version 2)
 *
 * COMMIT first writes back and waits for the stage's range of the page
 * cache of /dev/hypercacheN (buffered writes need no fsync() before it),
 * closes the write fence and waits for the writes already admitted, then
 * flushes the members and journals the object.  When COMMIT returns, the
 * object is DIRTY (or READY with HC_COMMIT_F_CLEAN), its data and its
 * journal record are durable, and the write fence has closed over it.
 * EIO if a write into the stage's own range was lost since the STAGE (or
 * since the COMMIT that last reported one): it failed on a member, whoever
 * submitted it, or the write fence refused a write-back of the device's
 * page cache into it (the flusher's, or another process's sync, of a
 * buffered write: those pages are gone); rewrite and COMMIT again.  A page
 * lost elsewhere on the device does not fail this COMMIT.  EIO also if a
 * member flush failed.  The object then stays STAGED and writable.
 *
 * A growable stage (HC_STAGE_F_GROW) commits only with HC_COMMIT_F_SIZE
 * (else EINVAL), and HC_COMMIT_F_SIZE is only for one (else EINVAL; with
 * a @size shorter than HC_COMMIT_SIZE_VER2 too).  EFBIG if @obj_size is
 * more than the stage holds (nothing changes).  The fence closes over all
 * the stage's chunks, then the chunks past @obj_size are freed; a COMMIT
 * that fails after that leaves the stage STAGED, writable, and holding
 * only the chunks up to @obj_size.
 */
struct hc_commit {
	__u32 size;
	__u32 flags;
	__aligned_u64 uri;
	__u32 uri_len;
	__u32 crc32c;
	__aligned_u64 generation;
	__aligned_u64 reserved[2];
	__aligned_u64 obj_size;
};

#define HC_GROW_F_NOWAIT	(1U << 0) /* over the dirty limit: EAGAIN, do not wait */
#define HC_GROW_F_ALL		HC_GROW_F_NOWAIT

/**
 * struct hc_grow - HC_IOC_GROW: extend this file's growable stage
 * @size: sizeof(struct hc_grow), in
 * @flags: HC_GROW_F_*, in
 * @uri: user pointer to the URI bytes, in
 * @uri_len: in
 * @max_extents: in
 * @obj_size: bytes the stage must hold, in; it grows to
 *	DIV_ROUND_UP(@obj_size, chunk size) chunks (nothing changes if it
 *	holds that many already: GROW never shrinks)
 * @extents: user pointer to @max_extents struct hc_extent, or 0, in; the
 *	stage's extents (all of them, in object order), out
 * @nr_extents: extents of the stage (all, even beyond @max_extents:
 *	compare, and LOCATE the stage for the rest), out
 * @reserved0: zero
 * @capacity: bytes the stage holds now (whole chunks), out
 * @reserved: zero
 *
 * Needs the device open for writing (EBADF).  New chunks continue the
 * last extent where the chunks after it are free (the stripe goes on),
 * else they are placed as a STAGE places them, starting on the member
 * after the last chunk's.  The write fence opens over them for the
 * stage's writers as soon as GROW returns.  Errors: ENOENT this file has
 * no stage of that URI; EINVAL the stage is not growable; EFBIG
 * @obj_size larger than the pool; ENOSPC no room even after evicting
 * every evictable object, or no room for the object's record in the
 * journal; E2BIG the stage would need more than HC_MAX_EXTENTS extents;
 * EAGAIN with HC_GROW_F_NOWAIT, or a wait as for STAGE, while the dirty
 * limit would be passed by @obj_size.  On an error the stage is as it was.
 */
struct hc_grow {
	__u32 size;
	__u32 flags;
	__aligned_u64 uri;
	__u32 uri_len;
	__u32 max_extents;
	__aligned_u64 obj_size;
	__aligned_u64 extents;
	__u32 nr_extents;
	__u32 reserved0;
	__aligned_u64 capacity;
	__aligned_u64 reserved[2];
};

/**
 * struct hc_stats - HC_IOC_STAT: counters of the object cache
 * @size: sizeof(struct hc_stats), in
 * @flags: zero, in
 * @hits: LOCATEs that found valid data, out
 * @misses: LOCATEs that did not, out
 * @admissions: objects the policy admitted, out
 * @rejections: objects the policy refused, out
 * @evictions: objects evicted (by the policy or by EVICT), out
 * @objects: objects indexed, out
 * @bytes_used: bytes of allocated chunks, out
 * @capacity: bytes of the pool, out
 * @by_state: objects per HC_OBJ_* state (index 0 unused), out
 * @pinned: pinned objects, out
 * @held: objects with at least one hold, out
 * @reserved: zero
 */
struct hc_stats {
	__u32 size;
	__u32 flags;
	__aligned_u64 hits;
	__aligned_u64 misses;
	__aligned_u64 admissions;
	__aligned_u64 rejections;
	__aligned_u64 evictions;
	__aligned_u64 objects;
	__aligned_u64 bytes_used;
	__aligned_u64 capacity;
	__aligned_u64 by_state[8];
	__aligned_u64 pinned;
	__aligned_u64 held;
	__aligned_u64 reserved[4];
};

/*
 * Version-1 sizes: the kernel accepts any @size from these up (the minimum it
 * passes to copy_struct_from_user()); never change them.
 */
#define HC_LOCATE_SIZE_VER1	104	/* sizeof(struct hc_locate), version 1 */
#define HC_OBJ_REF_SIZE_VER1	40	/* sizeof(struct hc_obj_ref), version 1 */
#define HC_STAGE_SIZE_VER1	72	/* sizeof(struct hc_stage), version 1 */
#define HC_COMMIT_SIZE_VER1	48	/* sizeof(struct hc_commit), version 1 */
#define HC_STATS_SIZE_VER1	184	/* sizeof(struct hc_stats), version 1 */
#define HC_COMMIT_SIZE_VER2	56	/* struct hc_commit with @obj_size */
#define HC_GROW_SIZE_VER1	72	/* sizeof(struct hc_grow), version 1 */

#define HC_IOC_LOCATE	_IO(HC_IOCTL_MAGIC, 0x10)
#define HC_IOC_RELEASE	_IO(HC_IOCTL_MAGIC, 0x11)
#define HC_IOC_STAGE	_IO(HC_IOCTL_MAGIC, 0x12)
#define HC_IOC_COMMIT	_IO(HC_IOCTL_MAGIC, 0x13)
#define HC_IOC_ABORT	_IO(HC_IOCTL_MAGIC, 0x14)
#define HC_IOC_PIN	_IO(HC_IOCTL_MAGIC, 0x15)
#define HC_IOC_UNPIN	_IO(HC_IOCTL_MAGIC, 0x16)
#define HC_IOC_EVICT	_IO(HC_IOCTL_MAGIC, 0x17)
#define HC_IOC_STAT	_IO(HC_IOCTL_MAGIC, 0x18)
#define HC_IOC_GROW	_IO(HC_IOCTL_MAGIC, 0x19)

#define HC_CTL_NAME	"hypercache-ctl"	/* /dev/hypercache-ctl */

#endif /* _UAPI_HYPERCACHE_H */
