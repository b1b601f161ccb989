/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * HyperCache generic netlink family, version 1.
 *
 * Documentation/netlink/specs/hypercache.yaml is the description of this
 * family; this header must agree with it.
 *
 * DOC: extension rules
 *
 * Commands, attributes and enum values are only ever appended.  The kernel
 * validates every request strictly: an attribute it does not know is refused
 * with -EINVAL and an extended-ack pointing at it.  Every operation that
 * changes state needs CAP_NET_ADMIN (the generic-netlink admin
 * permission); HC_CMD_POOL_GET is open to everybody; HC_CMD_OBJ_GET and
 * HC_CMD_STATS_GET need CAP_NET_ADMIN or a descriptor of an open
 * /dev/hypercache-ctl in the request (HC_A_OBJ_CTL_FD, HC_A_STATS_CTL_FD),
 * the same rule as the control device's ioctls.
 *
 * Errors carry an extended-ack message, and where one member caused the
 * failure the ack's offset points at that member's HC_A_POOL_MEMBER nest, so
 * a tool can name the device.
 */
#ifndef _UAPI_HYPERCACHE_NETLINK_H
#define _UAPI_HYPERCACHE_NETLINK_H

#define HC_GENL_NAME		"hypercache"
#define HC_GENL_VERSION		1
#define HC_GENL_MCGRP_EVENTS	"events"

/**
 * enum hc_cmd - generic netlink commands
 * @HC_CMD_POOL_CREATE: write superblocks to the given members (one or more
 *	HC_A_POOL_MEMBER with HC_A_MEMBER_PATH, in stripe order) and start the
 *	pool.  Optional HC_A_POOL_FLAGS (HC_POOL_F_*), HC_A_POOL_DATA_OFFSET.
 *	Replies like HC_CMD_POOL_GET.
 * @HC_CMD_POOL_ASSEMBLE: read the superblocks of the given members (any
 *	order) and start the pool they describe.  Replies like HC_CMD_POOL_GET.
 * @HC_CMD_POOL_STOP: stop the running pool (-EBUSY while /dev/hypercache0
 *	is open; -ENODEV if no pool runs).
 * @HC_CMD_POOL_GET: describe the running pool (-ENODEV if none).
 * @HC_CMD_OBJ_GET: dump every indexed object (enum hc_obj_attr), or with
 *	HC_A_OBJ_URI in a do request, that one object (-ENOENT).
 * @HC_CMD_OBJ_EVICT: evict the object HC_A_OBJ_URI (-EBUSY unless idle and
 *	clean).  With HC_A_OBJ_DISCARD_DIRTY = 1 a DIRTY object is evicted
 *	too: its data, which the backend does not have, is thrown away, and
 *	the kernel log says so (-EBUSY while it is SYNCING, held or pinned).
 * @HC_CMD_OBJ_PIN: set (HC_A_OBJ_PINNED = 1) or clear (0) the pin of the
 *	object HC_A_OBJ_URI.
 * @HC_CMD_STATS_GET: the object cache's counters (enum hc_stats_attr).
 * @HC_CMD_HELPER_REGISTER: the sending socket becomes the helper (one at a
 *	time: -EBUSY while another is registered).  The kernel then sends it
 *	HC_CMD_INGEST for every object waiting to be ingested, including
 *	those a previous helper left unfinished.  The registration ends when
 *	the socket closes.
 * @HC_CMD_INGEST: kernel -> helper (unicast): fetch the object
 *	HC_A_ING_URI, request HC_A_ING_ID, of pool HC_A_ING_POOL_UUID.  When
 *	the request was already allocated (re-sent after a helper died),
 *	HC_A_ING_SIZE and the HC_A_ING_EXTENT list come with it: fill them,
 *	then send DONE.
 * @HC_CMD_INGEST_ALLOC: helper -> kernel: the object's size (HC_A_ING_SIZE)
 *	and the backend version it fetches: HC_A_ING_ETAG and
 *	HC_A_ING_LAST_MODIFIED (both optional).  The kernel runs admission and allocates; the reply
 *	(same command) carries HC_A_ING_ADMITTED and, when admitted, the
 *	HC_A_ING_EXTENT list into which the helper writes the data through
 *	/dev/hypercacheN.  Not admitted: the request ends and readers read the
 *	backend.  -ENOSPC: no room; the request ends.
 * @HC_CMD_INGEST_DONE: helper -> kernel: the data is written (every write
 *	completed; optional HC_A_ING_CRC32C); the object becomes READY,
 *	journaled after a flush of every member that makes the data durable
 *	(the helper need not fdatasync).
 * @HC_CMD_INGEST_FAIL: helper -> kernel: the fetch failed with
 *	HC_A_ING_ERRNO (positive errno, e.g. ENOENT, EACCES); the request ends
 *	and waiting readers get that error.
 *	ALLOC, DONE and FAIL are accepted only from the registered helper.
 * @HC_CMD_EGRESS_REGISTER: the sending socket becomes the egress helper
 *	(one at a time: -EBUSY while another is registered; admin).  The
 *	kernel then sends it HC_CMD_EGRESS for DIRTY objects in commit order,
 *	at most the module parameter egress_window (default 8) outstanding,
 *	including those a previous egress helper left unfinished.  The
 *	registration ends when the socket closes: its SYNCING objects become
 *	DIRTY again and are re-sent to the next egress helper.
 * @HC_CMD_EGRESS: kernel -> egress helper (unicast): upload the object
 *	HC_A_EGRESS_URI of generation HC_A_EGRESS_GENERATION and pool
 *	HC_A_EGRESS_POOL_UUID; HC_A_EGRESS_SIZE is its size,
 *	HC_A_EGRESS_EXTENT its extents, HC_A_EGRESS_CRC32C its CRC-32C when
 *	the writer gave one.  The object is now SYNCING: it cannot be evicted or
 *	replaced (STAGE with HC_STAGE_F_REPLACE is -EBUSY while the URI is
 *	DIRTY or SYNCING), and its extents stay readable and unchanged.
 * @HC_CMD_EGRESS_DONE: egress helper -> kernel: HC_A_EGRESS_URI,
 *	HC_A_EGRESS_GENERATION (the generation uploaded), HC_A_EGRESS_POOL_UUID
 *	and the backend's HC_A_EGRESS_ETAG and HC_A_EGRESS_LAST_MODIFIED
 *	(both optional: what the upload created).  The
 *	object becomes READY (clean, evictable), journaled durably before the
 *	reply.  -ESTALE if the URI now has another generation (nothing
 *	changes), -ENOENT if it is gone.
 * @HC_CMD_EGRESS_FAIL: egress helper -> kernel: HC_A_EGRESS_URI,
 *	HC_A_EGRESS_GENERATION, HC_A_EGRESS_POOL_UUID, HC_A_EGRESS_ERRNO and
 *	optional HC_A_EGRESS_RETRY_MS, HC_A_EGRESS_PERMANENT and
 *	HC_A_EGRESS_MESSAGE.  The object becomes DIRTY again, keeps
 *	its place in commit order and is re-sent after HC_A_EGRESS_RETRY_MS
 *	(default: doubling from 1 s up to 60 s per object); a permanent
 *	failure is not re-sent until an egress helper registers (again).
 *	The errno, the message and the number of failures are kept with the
 *	object (HC_A_OBJ_EGRESS_*) until it is uploaded.
 *	EGRESS_DONE and EGRESS_FAIL are accepted only from the registered
 *	egress helper.
 * @HC_CMD_POOL_NTF: multicast on HC_GENL_MCGRP_EVENTS whenever a pool starts
 *	or stops; attributes as in the HC_CMD_POOL_GET reply, members included,
 *	with HC_A_POOL_STATE telling which.
 * @HC_CMD_POOL_UPGRADE: upgrade the running pool from format v1 to v2 in
 *	place (Documentation/on-disk-format.md, "Upgrading a v1 pool"); no
 *	attributes.  -EALREADY if it is v2, -EBUSY while objects are being
 *	ingested, staged or uploaded, -ENODEV if no pool runs.
 * Appended for issue 17 (revalidation against the backend,
 * Documentation/ingest.md, "Revalidation"):
 * @HC_CMD_REVAL_RULES: helper -> kernel: the revalidation rules, one
 *	HC_A_REV_RULE nest each (at most HC_REVAL_RULES_MAX, distinct
 *	prefixes); the set replaces the one before, none clears it.  Only from
 *	the registered helper (-EPERM); a HELPER_REGISTER clears the rules.
 * @HC_CMD_REVALIDATE: kernel -> helper (unicast): is the READY object
 *	HC_A_REV_URI (request HC_A_REV_ID, pool HC_A_REV_POOL_UUID) still the
 *	backend's version?  HC_A_REV_SIZE, and HC_A_REV_ETAG and
 *	HC_A_REV_LAST_MODIFIED when known, describe the cached version.
 * @HC_CMD_REVALIDATE_DONE: helper -> kernel: HC_A_REV_ID, HC_A_REV_RESULT
 *	(enum hc_reval_result; with HC_REVAL_FAILED optionally HC_A_REV_ERRNO)
 *	and HC_A_REV_POOL_UUID.  Unchanged or failed: the object is served as
 *	it is.  Changed: it is superseded (open holders keep reading it) and
 *	its URI is ingested again.  -ENOENT if no such request is pending.
 * Appended for the slab's compaction on demand (Documentation/on-disk-format.md,
 * "Compaction in the module"):
 * @HC_CMD_POOL_COMPACT: compact the running pool's slab now (format v2's
 *	small objects out of sparse chunks) and return when done; no
 *	attributes.  A background compaction under way is waited for first.
 *	Replies with the cache's counters after the run, attributes as in the
 *	HC_CMD_STATS_GET reply (the HC_A_STATS_SLAB_* counters say what it
 *	did).  Nothing to do (a format-v1 pool, no sparse slab chunk) is a
 *	success.  -ENODEV if no pool runs; -EBUSY while the pool is stopping;
 *	-ENOMEM; -ECANCELED if the module's compact_stop_after test hook
 *	stopped it.
 */
enum hc_cmd {
	HC_CMD_UNSPEC,
	HC_CMD_POOL_CREATE,
	HC_CMD_POOL_ASSEMBLE,
	HC_CMD_POOL_STOP,
	HC_CMD_POOL_GET,
	HC_CMD_POOL_NTF,
	HC_CMD_OBJ_GET,
	HC_CMD_OBJ_EVICT,
	HC_CMD_OBJ_PIN,
	HC_CMD_STATS_GET,
	HC_CMD_HELPER_REGISTER,
	HC_CMD_INGEST,
	HC_CMD_INGEST_ALLOC,
	HC_CMD_INGEST_DONE,
	HC_CMD_INGEST_FAIL,
	HC_CMD_EGRESS_REGISTER,
	HC_CMD_EGRESS,
	HC_CMD_EGRESS_DONE,
	HC_CMD_EGRESS_FAIL,
	HC_CMD_POOL_UPGRADE,
	HC_CMD_REVAL_RULES,
	HC_CMD_REVALIDATE,
	HC_CMD_REVALIDATE_DONE,
	HC_CMD_POOL_COMPACT,

	__HC_CMD_MAX,
	HC_CMD_MAX = __HC_CMD_MAX - 1
};

/**
 * enum hc_pool_state - HC_A_POOL_STATE values
 * @HC_POOL_STATE_RUNNING: /dev/hypercacheN is live
 * @HC_POOL_STATE_STOPPED: the pool has stopped (only in HC_CMD_POOL_NTF)
 */
enum hc_pool_state {
	HC_POOL_STATE_UNSPEC,
	HC_POOL_STATE_RUNNING,
	HC_POOL_STATE_STOPPED,
};

/*
 * HC_A_POOL_FLAGS.  HC_POOL_F_FORCE (create only): overwrite an existing
 * superblock.  HC_POOL_F_FORCE_EMPTY_JOURNAL (assemble only): when no
 * member's journal can be read with certainty (the assembly would be
 * refused with EUCLEAN or EIO), start an empty journal instead: every
 * object the old journal recorded is forgotten and its chunks are free.
 * HC_POOL_F_FORMAT_V2 (create only): make a pool of format v2
 * (HC_FEATURE_INCOMPAT_V2, a v2 journal); without it the pool is v1.
 */
#define HC_POOL_F_FORCE			(1U << 0)
#define HC_POOL_F_FORCE_EMPTY_JOURNAL	(1U << 1)
#define HC_POOL_F_FORMAT_V2		(1U << 2)
#define HC_POOL_F_ALL		(HC_POOL_F_FORCE | HC_POOL_F_FORCE_EMPTY_JOURNAL | \
				 HC_POOL_F_FORMAT_V2)

/**
 * enum hc_journal_state - HC_A_POOL_JOURNAL values: how the running pool's
 *	journal was found when the pool started
 * @HC_JOURNAL_STATE_COMPLETE: every member's copy agreed (or the pool was
 *	just created)
 * @HC_JOURNAL_STATE_DEGRADED: replayed complete, but some headers or
 *	records were damaged, missing or unreadable on a member and were read
 *	from another one (HC_A_POOL_JOURNAL_REPAIRED, and per member
 *	HC_A_MEMBER_JOURNAL_REPAIRED); the journal has since been rewritten on
 *	every member
 * @HC_JOURNAL_STATE_NEW: no member held a journal of this pool; an empty
 *	one was started
 * @HC_JOURNAL_STATE_EMPTIED: the journal could not be read and the
 *	operator asked for an empty one (HC_POOL_F_FORCE_EMPTY_JOURNAL)
 */
enum hc_journal_state {
	HC_JOURNAL_STATE_UNSPEC,
	HC_JOURNAL_STATE_COMPLETE,
	HC_JOURNAL_STATE_DEGRADED,
	HC_JOURNAL_STATE_NEW,
	HC_JOURNAL_STATE_EMPTIED,
};

/**
 * enum hc_pool_attr - attributes of a pool
 * @HC_A_POOL_PAD: padding for 64-bit attributes
 * @HC_A_POOL_UUID: binary, 16 bytes
 * @HC_A_POOL_STATE: u32, enum hc_pool_state
 * @HC_A_POOL_DISK: string, name of the block device ("hypercache0")
 * @HC_A_POOL_DISK_DEV: u32, its device number, encoded as makedev(3) does
 *	(decode with major(3) and minor(3))
 * @HC_A_POOL_FORMAT_VERSION: u32, on-disk format of the members: 1, or 2 for
 *	a pool whose superblocks carry HC_FEATURE_INCOMPAT_V2
 * @HC_A_POOL_CHUNK_SIZE: u32, bytes
 * @HC_A_POOL_MEMBER_COUNT: u32
 * @HC_A_POOL_CHUNKS: u64, chunks in the pool's address space
 * @HC_A_POOL_CAPACITY: u64, bytes of /dev/hypercacheN
 * @HC_A_POOL_DATA_OFFSET: u64, byte offset of the data area on each member;
 *	on create, a request, rounded up to a multiple of the chunk size (so
 *	at least one chunk); without it the kernel picks 1/256 of the smallest
 *	member, between one chunk and 1 GiB
 * @HC_A_POOL_FLAGS: u32, HC_POOL_F_* (requests only)
 * @HC_A_POOL_MEMBER: nest, enum hc_member_attr; repeated once per member
 * @HC_A_POOL_JOURNAL: u32, enum hc_journal_state (replies only)
 * @HC_A_POOL_JOURNAL_REPAIRED: u32, journal headers and records that the
 *	assembly read from another member than the one whose copy was bad
 *	(replies only)
 */
enum hc_pool_attr {
	HC_A_POOL_UNSPEC,
	HC_A_POOL_PAD,
	HC_A_POOL_UUID,
	HC_A_POOL_STATE,
	HC_A_POOL_DISK,
	HC_A_POOL_DISK_DEV,
	HC_A_POOL_FORMAT_VERSION,
	HC_A_POOL_CHUNK_SIZE,
	HC_A_POOL_MEMBER_COUNT,
	HC_A_POOL_CHUNKS,
	HC_A_POOL_CAPACITY,
	HC_A_POOL_DATA_OFFSET,
	HC_A_POOL_FLAGS,
	HC_A_POOL_MEMBER,
	HC_A_POOL_JOURNAL,
	HC_A_POOL_JOURNAL_REPAIRED,

	__HC_A_POOL_MAX,
	HC_A_POOL_MAX = __HC_A_POOL_MAX - 1
};

/**
 * enum hc_member_attr - attributes of one member (nested in HC_A_POOL_MEMBER)
 * @HC_A_MEMBER_PAD: padding for 64-bit attributes
 * @HC_A_MEMBER_PATH: string, path of the block device (requests; at most
 *	PATH_MAX - 1 bytes plus the terminating NUL)
 * @HC_A_MEMBER_INDEX: u32, position in the stripe
 * @HC_A_MEMBER_DEV: u32, device number, encoded as makedev(3) does
 * @HC_A_MEMBER_NAME: string, kernel name of the block device ("nvme0n1")
 * @HC_A_MEMBER_UUID: binary, 16 bytes
 * @HC_A_MEMBER_BYTES: u64, size of the block device
 * @HC_A_MEMBER_CHUNKS: u64, chunks of the data area in use
 * @HC_A_MEMBER_JOURNAL_REPAIRED: u32, journal headers and records that
 *	were bad on this member when the pool assembled and were read from
 *	another member
 */
enum hc_member_attr {
	HC_A_MEMBER_UNSPEC,
	HC_A_MEMBER_PAD,
	HC_A_MEMBER_PATH,
	HC_A_MEMBER_INDEX,
	HC_A_MEMBER_DEV,
	HC_A_MEMBER_NAME,
	HC_A_MEMBER_UUID,
	HC_A_MEMBER_BYTES,
	HC_A_MEMBER_CHUNKS,
	HC_A_MEMBER_JOURNAL_REPAIRED,

	__HC_A_MEMBER_MAX,
	HC_A_MEMBER_MAX = __HC_A_MEMBER_MAX - 1
};

/**
 * enum hc_obj_attr - attributes of an object (HC_CMD_OBJ_*)
 * @HC_A_OBJ_PAD: padding for 64-bit attributes
 * @HC_A_OBJ_URI: binary, 1..HC_URI_MAX bytes
 * @HC_A_OBJ_STATE: u32, HC_OBJ_* (uapi/hypercache_format.h)
 * @HC_A_OBJ_FLAGS: u32, HC_OBJ_F_*
 * @HC_A_OBJ_SIZE: u64, bytes
 * @HC_A_OBJ_GENERATION: u64
 * @HC_A_OBJ_CHUNKS: u64, chunks allocated
 * @HC_A_OBJ_HOLDS: u32, holds by all open files
 * @HC_A_OBJ_EXTENT: nest, enum hc_ext_attr; repeated once per extent
 * @HC_A_OBJ_PINNED: u8, the pin to set (HC_CMD_OBJ_PIN requests)
 * @HC_A_OBJ_CTL_FD: u32, HC_CMD_OBJ_GET requests: a file descriptor of
 *	/dev/hypercache-ctl that the caller has open.  Without CAP_NET_ADMIN,
 *	reading the index needs it: whoever may open the control device may
 *	read it, over netlink as over the ioctls (-EPERM otherwise)
 * @HC_A_OBJ_ETAG: string (replies), the backend's ETag of the version the
 *	object came from (ingest) or was uploaded as (EGRESS_DONE), as the
 *	helper reported it; absent when unknown (a v1 pool after a restart, an
 *	object written but not uploaded yet, a helper that sent none)
 *
 * Appended for issue 14 (the last failed upload of a DIRTY object, in
 * replies only when an upload of it failed since it became DIRTY; kept in
 * memory, not journaled):
 * @HC_A_OBJ_EGRESS_ERRNO: u32, positive errno of the last failed upload
 * @HC_A_OBJ_EGRESS_MESSAGE: string, the egress helper's message about it
 *	(at most HC_EGRESS_MESSAGE_MAX bytes; absent if it sent none)
 * @HC_A_OBJ_EGRESS_FAILURES: u32, failed uploads since it became DIRTY
 * @HC_A_OBJ_EGRESS_FAILED_AT: u64, CLOCK_REALTIME nanoseconds of the last
 *	failure
 * @HC_A_OBJ_EGRESS_PERMANENT: u8, 1 if the helper called the last failure
 *	permanent: the object is not re-sent until an egress helper registers
 * @HC_A_OBJ_DISCARD_DIRTY: u8, HC_CMD_OBJ_EVICT requests: 1 evicts a
 *	DIRTY object too, throwing away data its backend does not have
 *
 * Appended for issue 17 (the backend version, beside HC_A_OBJ_ETAG):
 * @HC_A_OBJ_LAST_MODIFIED: u64 (replies), the backend's Last-Modified of
 *	that version, seconds since the Unix epoch (UTC), as the helper
 *	reported it (HC_A_ING_LAST_MODIFIED, HC_A_EGRESS_LAST_MODIFIED);
 *	absent when unknown, as HC_A_OBJ_ETAG
 *
 * Appended for issue 15 (a prefix-scoped listing):
 * @HC_A_OBJ_PREFIX: binary, 0..HC_URI_MAX bytes, HC_CMD_OBJ_GET dump
 *	requests: only the objects whose URI starts with these bytes, found
 *	in the index's ordered view from the first such URI on (O(log n) to
 *	start, not a walk of the whole index); empty or absent: every object
 */
enum hc_obj_attr {
	HC_A_OBJ_UNSPEC,
	HC_A_OBJ_PAD,
	HC_A_OBJ_URI,
	HC_A_OBJ_STATE,
	HC_A_OBJ_FLAGS,
	HC_A_OBJ_SIZE,
	HC_A_OBJ_GENERATION,
	HC_A_OBJ_CHUNKS,
	HC_A_OBJ_HOLDS,
	HC_A_OBJ_EXTENT,
	HC_A_OBJ_PINNED,
	HC_A_OBJ_CTL_FD,
	HC_A_OBJ_ETAG,
	HC_A_OBJ_EGRESS_ERRNO,
	HC_A_OBJ_EGRESS_MESSAGE,
	HC_A_OBJ_EGRESS_FAILURES,
	HC_A_OBJ_EGRESS_FAILED_AT,
	HC_A_OBJ_EGRESS_PERMANENT,
	HC_A_OBJ_DISCARD_DIRTY,
	HC_A_OBJ_LAST_MODIFIED,
	HC_A_OBJ_PREFIX,

	__HC_A_OBJ_MAX,
	HC_A_OBJ_MAX = __HC_A_OBJ_MAX - 1
};

/**
 * enum hc_ext_attr - one extent (nested in HC_A_OBJ_EXTENT)
 * @HC_A_EXT_PAD: padding for 64-bit attributes
 * @HC_A_EXT_OFFSET: u64, byte offset in /dev/hypercacheN
 * @HC_A_EXT_LENGTH: u64, bytes
 */
enum hc_ext_attr {
	HC_A_EXT_UNSPEC,
	HC_A_EXT_PAD,
	HC_A_EXT_OFFSET,
	HC_A_EXT_LENGTH,

	__HC_A_EXT_MAX,
	HC_A_EXT_MAX = __HC_A_EXT_MAX - 1
};

/**
 * enum hc_stats_attr - counters of the object cache (HC_CMD_STATS_GET);
 *	all u64, as in struct hc_stats (uapi/hypercache.h)
 * @HC_A_STATS_DIRTY_BYTES: bytes of DIRTY and SYNCING objects
 * @HC_A_STATS_DIRTY_LIMIT: the dirty-bytes limit (0 = none), see STAGE
 * @HC_A_STATS_EGRESS_DONE: uploads acknowledged (EGRESS_DONE)
 * @HC_A_STATS_EGRESS_FAILED: upload attempts that failed (EGRESS_FAIL)
 * @HC_A_STATS_CTL_FD: u32, requests only: as HC_A_OBJ_CTL_FD
 *
 * Appended in v1 for the exporter (Documentation/metrics.md), all in one
 * reply so that a scrape reads the kernel once:
 * @HC_A_STATS_HIT_BYTES: u64, the sizes of the objects LOCATE found READY
 *	(or DIRTY/SYNCING/STAGED): bytes readers did not fetch from a backend
 * @HC_A_STATS_INGEST_HELPER: u64, 1 while an ingest helper is registered
 * @HC_A_STATS_EGRESS_HELPER: u64, 1 while an egress helper is registered
 * @HC_A_STATS_LOCATE_HIST: binary, __u64[HC_STATS_HIST_BUCKETS]: LOCATE
 *	ioctls by latency (the whole ioctl, a WAIT included), see
 *	HC_STATS_HIST_BUCKETS; counts since the module was loaded
 * @HC_A_STATS_LOCATE_NS: u64, the sum of those latencies in nanoseconds
 * @HC_A_STATS_JOURNAL_USED: u64, bytes of journal records the live
 *	objects take (what a compaction keeps)
 * @HC_A_STATS_JOURNAL_CAPACITY: u64, the most they may take
 * @HC_A_STATS_JOURNAL_RECORDS: u64, records appended since assembly
 * @HC_A_STATS_JOURNAL_COMPACTIONS: u64, compactions since assembly
 * @HC_A_STATS_MEMBER: nested, repeated once per member in index order:
 *	enum hc_stats_member_attr, the I/O /dev/hypercacheN sent to it
 * @HC_A_STATS_DIRTY_OLDEST_NS: u64, nanoseconds since the oldest DIRTY or
 *	SYNCING object was committed (0 when there is none).  The time is
 *	kept in memory only: objects DIRTY in the journal when the pool was
 *	assembled count from the assembly (journal format v1 records no time)
 *
 * Appended for issue 15, admissions refused by reason (HC_A_STATS_REJECTIONS
 * counts the ones that lost the policy's frequency duel):
 * @HC_A_STATS_REFUSED_ROOM: u64, ingests and stages refused with ENOSPC:
 *	pinned, held and dirty objects left no room
 * @HC_A_STATS_REFUSED_JOURNAL: u64, refused with ENOSPC: the journal had no
 *	room for the object's record
 * @HC_A_STATS_REFUSED_TOO_BIG: u64, refused with EFBIG: larger than the pool
 * @HC_A_STATS_REFUSED_FRAGMENTED: u64, refused with E2BIG: room, but not in
 *	HC_MAX_EXTENTS extents
 * Appended for issue 17 (revalidation, Documentation/ingest.md):
 * @HC_A_STATS_REVALIDATIONS: u64, revalidations of READY objects that were
 *	due when a reader opened them (each ends as one of the next three)
 * @HC_A_STATS_REVAL_UNCHANGED: u64, the backend still had that version
 * @HC_A_STATS_REVAL_CHANGED: u64, it did not (or the key is gone): the
 *	object was superseded and ingested again
 * @HC_A_STATS_REVAL_FAILED: u64, the check could not be made (no helper, a
 *	backend error, no answer within ingest_timeout_ms): the cached copy
 *	was served
 * Appended for issue 17 point 4 (group commit, Documentation/journal.md):
 * @HC_A_STATS_JOURNAL_FLUSHES: u64, durable (PREFLUSH|FUA) journal writes
 *	since assembly, each to every member: with records batched, fewer
 *	than HC_A_STATS_JOURNAL_RECORDS
 * Appended for issue 17 point 1 (the slab's compaction, format v2,
 * Documentation/on-disk-format.md "Compaction in the module"), since
 * assembly:
 * @HC_A_STATS_SLAB_COMPACTIONS: u64, compactions of the slab run
 * @HC_A_STATS_SLAB_MOVED: u64, small objects they moved
 * @HC_A_STATS_SLAB_CHUNKS_FREED: u64, slab chunks they gave back
 * @HC_A_STATS_SLAB_BYTES_COPIED: u64, bytes they copied (whole 4 KiB
 *	blocks)
 * Appended for issue 15, what the admission policy is doing
 * (Documentation/policy.md):
 * @HC_A_STATS_POLICY_WINDOW: u64, bytes: the admission window's current
 *	target size (the policy's window_max in its weight units, chunks or
 *	4 KiB blocks, converted to bytes)
 * @HC_A_STATS_POLICY_WINDOW_MOVES: u64, moves of the window by its
 *	controller since assembly
 * @HC_A_STATS_POLICY_PASSES: u64, candidates back from the ghost that were
 *	passed (no margin at their duel) since assembly
 */
enum hc_stats_attr {
	HC_A_STATS_UNSPEC,
	HC_A_STATS_PAD,
	HC_A_STATS_HITS,
	HC_A_STATS_MISSES,
	HC_A_STATS_ADMISSIONS,
	HC_A_STATS_REJECTIONS,
	HC_A_STATS_EVICTIONS,
	HC_A_STATS_OBJECTS,
	HC_A_STATS_BYTES_USED,
	HC_A_STATS_CAPACITY,
	HC_A_STATS_INGESTING,
	HC_A_STATS_READY,
	HC_A_STATS_STAGED,
	HC_A_STATS_DIRTY,
	HC_A_STATS_SYNCING,
	HC_A_STATS_PINNED,
	HC_A_STATS_HELD,
	HC_A_STATS_DIRTY_BYTES,
	HC_A_STATS_DIRTY_LIMIT,
	HC_A_STATS_EGRESS_DONE,
	HC_A_STATS_EGRESS_FAILED,
	HC_A_STATS_CTL_FD,
	HC_A_STATS_HIT_BYTES,
	HC_A_STATS_INGEST_HELPER,
	HC_A_STATS_EGRESS_HELPER,
	HC_A_STATS_LOCATE_HIST,
	HC_A_STATS_LOCATE_NS,
	HC_A_STATS_JOURNAL_USED,
	HC_A_STATS_JOURNAL_CAPACITY,
	HC_A_STATS_JOURNAL_RECORDS,
	HC_A_STATS_JOURNAL_COMPACTIONS,
	HC_A_STATS_MEMBER,
	HC_A_STATS_DIRTY_OLDEST_NS,
	HC_A_STATS_REFUSED_ROOM,
	HC_A_STATS_REFUSED_JOURNAL,
	HC_A_STATS_REFUSED_TOO_BIG,
	HC_A_STATS_REFUSED_FRAGMENTED,
	HC_A_STATS_REVALIDATIONS,
	HC_A_STATS_REVAL_UNCHANGED,
	HC_A_STATS_REVAL_CHANGED,
	HC_A_STATS_REVAL_FAILED,
	HC_A_STATS_JOURNAL_FLUSHES,
	HC_A_STATS_SLAB_COMPACTIONS,
	HC_A_STATS_SLAB_MOVED,
	HC_A_STATS_SLAB_CHUNKS_FREED,
	HC_A_STATS_SLAB_BYTES_COPIED,
	HC_A_STATS_POLICY_WINDOW,
	HC_A_STATS_POLICY_WINDOW_MOVES,
	HC_A_STATS_POLICY_PASSES,

	__HC_A_STATS_MAX,
	HC_A_STATS_MAX = __HC_A_STATS_MAX - 1
};

/*
 * HC_STATS_HIST_BUCKETS - the buckets of a latency histogram: bucket i
 * (i < HC_STATS_HIST_BUCKETS - 1) counts latencies of at most 2^i
 * microseconds (and more than 2^(i-1), bucket 0: at most 1 us); the last
 * bucket counts the longer ones (over 2^22 us, about 4.2 s).
 */
#define HC_STATS_HIST_BUCKETS	24

/**
 * enum hc_stats_member_attr - one member's I/O (in HC_A_STATS_MEMBER):
 *	the bios /dev/hypercacheN sent to the member's data area since the
 *	pool started (not the journal's or the superblock's I/O)
 * @HC_A_STATS_MEMBER_INDEX: u32, the member's index
 * @HC_A_STATS_MEMBER_READS: u64, read bios completed
 * @HC_A_STATS_MEMBER_WRITES: u64, write bios completed (flushes excluded)
 * @HC_A_STATS_MEMBER_READ_BYTES: u64
 * @HC_A_STATS_MEMBER_WRITE_BYTES: u64
 * @HC_A_STATS_MEMBER_ERRORS: u64, bios that completed with an error
 * @HC_A_STATS_MEMBER_READ_HIST: binary, __u64[HC_STATS_HIST_BUCKETS]: reads
 *	by latency (submission to completion)
 * @HC_A_STATS_MEMBER_READ_NS: u64, the sum of those latencies
 * @HC_A_STATS_MEMBER_WRITE_HIST: binary, as READ_HIST for writes
 * @HC_A_STATS_MEMBER_WRITE_NS: u64
 */
enum hc_stats_member_attr {
	HC_A_STATS_MEMBER_UNSPEC,
	HC_A_STATS_MEMBER_PAD,
	HC_A_STATS_MEMBER_INDEX,
	HC_A_STATS_MEMBER_READS,
	HC_A_STATS_MEMBER_WRITES,
	HC_A_STATS_MEMBER_READ_BYTES,
	HC_A_STATS_MEMBER_WRITE_BYTES,
	HC_A_STATS_MEMBER_ERRORS,
	HC_A_STATS_MEMBER_READ_HIST,
	HC_A_STATS_MEMBER_READ_NS,
	HC_A_STATS_MEMBER_WRITE_HIST,
	HC_A_STATS_MEMBER_WRITE_NS,

	__HC_A_STATS_MEMBER_MAX,
	HC_A_STATS_MEMBER_MAX = __HC_A_STATS_MEMBER_MAX - 1
};

/**
 * enum hc_ing_attr - attributes of the helper channel (HC_CMD_INGEST*)
 * @HC_A_ING_PAD: padding for 64-bit attributes
 * @HC_A_ING_ID: u64, the request (unique while the module is loaded)
 * @HC_A_ING_URI: binary, the object's URI
 * @HC_A_ING_SIZE: u64, bytes
 * @HC_A_ING_ETAG: string, the backend's ETag (at most 127 bytes)
 * @HC_A_ING_ADMITTED: u8, whether the object was admitted
 * @HC_A_ING_EXTENT: nest, enum hc_ext_attr; repeated once per extent
 * @HC_A_ING_CRC32C: u32, CRC-32C of the object's bytes
 * @HC_A_ING_ERRNO: u32, positive errno of a failed fetch or upload
 * @HC_A_ING_RETRY_MS: u32, unused since the egress commands have their
 *	own attributes (enum hc_egress_attr); refused in requests
 * @HC_A_ING_POOL_UUID: binary, 16 bytes: the pool the request belongs to.
 *	Sent with HC_CMD_INGEST and the ALLOC reply; a helper echoes it in
 *	ALLOC, DONE and FAIL, and a request of another pool than the running
 *	one is -ESTALE (without it, only the id is checked)
 * @HC_A_ING_LAST_MODIFIED: u64, INGEST_ALLOC: the backend's Last-Modified
 *	of the version being fetched, seconds since the Unix epoch (UTC):
 *	S3's HEAD, a posix file's st_mtime.  1..HC_LAST_MODIFIED_MAX; 0 or
 *	absent: unknown (a larger value is refused with -ERANGE)
 *
 * Each operation accepts only its own request attributes (see the spec);
 * any other is refused with -EINVAL.
 */
enum hc_ing_attr {
	HC_A_ING_UNSPEC,
	HC_A_ING_PAD,
	HC_A_ING_ID,
	HC_A_ING_URI,
	HC_A_ING_SIZE,
	HC_A_ING_ETAG,
	HC_A_ING_ADMITTED,
	HC_A_ING_EXTENT,
	HC_A_ING_CRC32C,
	HC_A_ING_ERRNO,
	HC_A_ING_RETRY_MS,
	HC_A_ING_POOL_UUID,
	HC_A_ING_LAST_MODIFIED,

	__HC_A_ING_MAX,
	HC_A_ING_MAX = __HC_A_ING_MAX - 1
};

/**
 * enum hc_egress_attr - attributes of the egress channel (HC_CMD_EGRESS*)
 *
 * Numbered as the HC_A_ING_* attributes that the egress commands carried
 * before they had their own set, so that an egress helper built against
 * that still works unchanged.
 *
 * @HC_A_EGRESS_PAD: padding for 64-bit attributes
 * @HC_A_EGRESS_GENERATION: u64, the object's generation: the content the
 *	request is about (unique while the module is loaded)
 * @HC_A_EGRESS_URI: binary, the object's URI
 * @HC_A_EGRESS_SIZE: u64, bytes
 * @HC_A_EGRESS_ETAG: string, the backend's ETag (at most 127 bytes)
 * @HC_A_EGRESS_UNUSED: never sent, refused
 * @HC_A_EGRESS_EXTENT: nest, enum hc_ext_attr; repeated once per extent
 * @HC_A_EGRESS_CRC32C: u32, CRC-32C of the object's bytes (the writer's)
 * @HC_A_EGRESS_ERRNO: u32, positive errno of a failed upload
 * @HC_A_EGRESS_RETRY_MS: u32, EGRESS_FAIL: re-send the request after this
 *	many milliseconds
 * @HC_A_EGRESS_POOL_UUID: binary, 16 bytes: the pool of the object; sent
 *	with HC_CMD_EGRESS, echoed by the helper in DONE and FAIL; another
 *	pool than the running one is -ESTALE (without it, only the URI and
 *	generation are checked)
 * @HC_A_EGRESS_PERMANENT: u8, EGRESS_FAIL: 1 if retrying cannot succeed
 *	(a 403, a missing bucket, a URI the backend refuses): the kernel does
 *	not re-send the object until an egress helper registers
 * @HC_A_EGRESS_MESSAGE: string, EGRESS_FAIL: why, for the operator (at
 *	most HC_EGRESS_MESSAGE_MAX bytes; longer is refused)
 * @HC_A_EGRESS_LAST_MODIFIED: u64, EGRESS_DONE: the backend's Last-Modified
 *	of the version the upload created, as HC_A_ING_LAST_MODIFIED (0 or
 *	absent: unknown)
 */
enum hc_egress_attr {
	HC_A_EGRESS_UNSPEC,
	HC_A_EGRESS_PAD,
	HC_A_EGRESS_GENERATION,
	HC_A_EGRESS_URI,
	HC_A_EGRESS_SIZE,
	HC_A_EGRESS_ETAG,
	HC_A_EGRESS_UNUSED,
	HC_A_EGRESS_EXTENT,
	HC_A_EGRESS_CRC32C,
	HC_A_EGRESS_ERRNO,
	HC_A_EGRESS_RETRY_MS,
	HC_A_EGRESS_POOL_UUID,
	HC_A_EGRESS_PERMANENT,
	HC_A_EGRESS_MESSAGE,
	HC_A_EGRESS_LAST_MODIFIED,

	__HC_A_EGRESS_MAX,
	HC_A_EGRESS_MAX = __HC_A_EGRESS_MAX - 1
};

/**
 * enum hc_rev_attr - attributes of revalidation (HC_CMD_REVAL_RULES,
 *	HC_CMD_REVALIDATE, HC_CMD_REVALIDATE_DONE)
 * @HC_A_REV_PAD: padding for 64-bit attributes
 * @HC_A_REV_ID: u64, the request: the object's generation
 * @HC_A_REV_URI: binary, the object's URI
 * @HC_A_REV_POOL_UUID: binary, 16 bytes: the pool of the object; echoed by
 *	the helper in REVALIDATE_DONE (another pool's is -ESTALE)
 * @HC_A_REV_SIZE: u64, bytes of the cached version
 * @HC_A_REV_ETAG: string, its ETag as the backend reported it
 * @HC_A_REV_LAST_MODIFIED: u64, its Last-Modified, as HC_A_OBJ_LAST_MODIFIED
 * @HC_A_REV_RESULT: u8, enum hc_reval_result (REVALIDATE_DONE)
 * @HC_A_REV_ERRNO: u32, positive errno of a failed check (REVALIDATE_DONE)
 * @HC_A_REV_RULE: nest, enum hc_rev_rule_attr; repeated once per rule
 *	(REVAL_RULES)
 */
enum hc_rev_attr {
	HC_A_REV_UNSPEC,
	HC_A_REV_PAD,
	HC_A_REV_ID,
	HC_A_REV_URI,
	HC_A_REV_POOL_UUID,
	HC_A_REV_SIZE,
	HC_A_REV_ETAG,
	HC_A_REV_LAST_MODIFIED,
	HC_A_REV_RESULT,
	HC_A_REV_ERRNO,
	HC_A_REV_RULE,

	__HC_A_REV_MAX,
	HC_A_REV_MAX = __HC_A_REV_MAX - 1
};

/**
 * enum hc_rev_rule_attr - one revalidation rule (nested in HC_A_REV_RULE):
 *	the objects whose URI starts with the prefix (the longest prefix that
 *	matches wins; a URI no prefix matches is never revalidated)
 * @HC_A_REV_RULE_PREFIX: binary, 1..HC_URI_MAX bytes
 * @HC_A_REV_RULE_MODE: u8, enum hc_reval_mode
 * @HC_A_REV_RULE_TTL: u32, seconds: HC_REVAL_AFTER's period,
 *	1..HC_REVAL_TTL_MAX (0 or absent for the other modes)
 */
enum hc_rev_rule_attr {
	HC_A_REV_RULE_UNSPEC,
	HC_A_REV_RULE_PREFIX,
	HC_A_REV_RULE_MODE,
	HC_A_REV_RULE_TTL,

	__HC_A_REV_RULE_MAX,
	HC_A_REV_RULE_MAX = __HC_A_REV_RULE_MAX - 1
};

/**
 * enum hc_reval_mode - HC_A_REV_RULE_MODE values (hypercached.conf's
 *	revalidate = never | on-open-after SECONDS | always)
 * @HC_REVAL_NEVER: never checked: served until evicted
 * @HC_REVAL_AFTER: checked when opened and HC_A_REV_RULE_TTL seconds or
 *	more passed since the last check (or no check since the assembly)
 * @HC_REVAL_ALWAYS: checked at every open
 */
enum hc_reval_mode {
	HC_REVAL_NEVER,
	HC_REVAL_AFTER,
	HC_REVAL_ALWAYS,
};

/**
 * enum hc_reval_result - HC_A_REV_RESULT values
 * @HC_REVAL_UNCHANGED: the backend's version is the cached one
 * @HC_REVAL_CHANGED: it is another one, or the key is gone
 * @HC_REVAL_FAILED: the backend could not be asked (HC_A_REV_ERRNO)
 */
enum hc_reval_result {
	HC_REVAL_RESULT_UNSPEC,
	HC_REVAL_UNCHANGED,
	HC_REVAL_CHANGED,
	HC_REVAL_FAILED,
};

/* HC_CMD_REVAL_RULES: rules in one set at most; HC_A_REV_RULE_TTL at most
 * (ten years of seconds).
 */
#define HC_REVAL_RULES_MAX	64
#define HC_REVAL_TTL_MAX	315360000U

/* HC_A_EGRESS_MESSAGE, HC_A_OBJ_EGRESS_MESSAGE: bytes without the NUL */
#define HC_EGRESS_MESSAGE_MAX	255

/*
 * HC_A_*_LAST_MODIFIED: the largest accepted, 9999-12-31T23:59:59Z (the
 * last second an HTTP date or a four-digit ISO 8601 year can name).
 */
#define HC_LAST_MODIFIED_MAX	253402300799ULL

#endif /* _UAPI_HYPERCACHE_NETLINK_H */
