/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * HyperCache ioctls, version 1.
 *
 * DOC: extension rules and errno contract
 *
 * Every ioctl argument is a struct that begins with "__u32 size; __u32 flags"
 * and is only ever extended by appending fields.  The caller sets @size to
 * sizeof() the struct it was compiled with.  The kernel reads the struct with
 * copy_struct_from_user(): a shorter struct (not shorter than version 1) is
 * zero-extended, a longer one is accepted only if the bytes the kernel does
 * not know are zero.  Output fields are written back for min(@size, the
 * kernel's size) bytes.  Layouts use only fixed-width types, 64-bit values are
 * __aligned_u64, and reserved fields must be zero.  Ioctl numbers are _IO():
 * the size travels in the struct, not in the number (as in iommufd), so a
 * struct grows without a new number.
 *
 *   ENOTTY      unknown ioctl number
 *   EINVAL      @size smaller than version 1, an unknown bit in @flags, or a
 *               non-zero reserved field
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
 * ETIMEDOUT a LOCATE with HC_LOCATE_F_WAIT timed out; EINTR a signal.
 */

/**
 * struct hc_extent - a run of whole chunks of an object
 * @offset: byte offset in /dev/hypercacheN (a multiple of the chunk size)
 * @length: bytes (a multiple of the chunk size)
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
#define HC_LOCATE_F_ALL		(HC_LOCATE_F_HOLD | HC_LOCATE_F_WAIT | \
				 HC_LOCATE_F_AUTO_INGEST | HC_LOCATE_F_PEEK)

/* struct hc_locate.status */
#define HC_LOCATE_HIT		1 /* READY, DIRTY or SYNCING: the data is valid */
#define HC_LOCATE_MISS		2 /* not cached */
#define HC_LOCATE_PENDING	3 /* INGESTING or STAGED: not yet valid */
#define HC_LOCATE_NOT_ADMITTED	4 /* not admitted: read the backend directly */

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
 * A hold is counted per open file and object; an object with a hold is
 * never evicted.  Extents and layout are filled for every status but a miss.
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
#define HC_STAGE_F_ALL		(HC_STAGE_F_REPLACE | HC_STAGE_F_NOWAIT)

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
 * opens) for this object until COMMIT or ABORT.  EEXIST if the URI is
 * cached and HC_STAGE_F_REPLACE is not given; EBUSY if it cannot be
 * replaced now.  HC_STAGE_F_REPLACE takes over a pending ingest of the URI
 * that the helper has not started to write (no size reported yet): the
 * ingest ends and readers waiting for it wait for this stage.
 *
 * Dirty limit: while the bytes of DIRTY and SYNCING objects plus @obj_size
 * would pass the limit (module parameter dirty_limit_mb, 0 = none), STAGE
 * waits for uploads to finish (interruptible: EINTR on a signal), or fails
 * with EAGAIN at once with HC_STAGE_F_NOWAIT.  An object larger than the
 * limit waits until nothing is dirty.
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
#define HC_COMMIT_F_ALL		(HC_COMMIT_F_CRC | HC_COMMIT_F_CLEAN)

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
 *
 * When COMMIT returns, the object is DIRTY (or READY with
 * HC_COMMIT_F_CLEAN), its data and its journal record are durable, and the
 * write fence has closed over it.
 */
struct hc_commit {
	__u32 size;
	__u32 flags;
	__aligned_u64 uri;
	__u32 uri_len;
	__u32 crc32c;
	__aligned_u64 generation;
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

#define HC_IOC_LOCATE	_IO(HC_IOCTL_MAGIC, 0x10)
#define HC_IOC_RELEASE	_IO(HC_IOCTL_MAGIC, 0x11)
#define HC_IOC_STAGE	_IO(HC_IOCTL_MAGIC, 0x12)
#define HC_IOC_COMMIT	_IO(HC_IOCTL_MAGIC, 0x13)
#define HC_IOC_ABORT	_IO(HC_IOCTL_MAGIC, 0x14)
#define HC_IOC_PIN	_IO(HC_IOCTL_MAGIC, 0x15)
#define HC_IOC_UNPIN	_IO(HC_IOCTL_MAGIC, 0x16)
#define HC_IOC_EVICT	_IO(HC_IOCTL_MAGIC, 0x17)
#define HC_IOC_STAT	_IO(HC_IOCTL_MAGIC, 0x18)

#define HC_CTL_NAME	"hypercache-ctl"	/* /dev/hypercache-ctl */

#endif /* _UAPI_HYPERCACHE_H */
