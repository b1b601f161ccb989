/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The object cache of a pool: the index (URI -> object), the policy
 * (W-TinyLFU), the chunk allocator and the write fence.
 *
 * Locking (the rules: the top of cache.c): every function here except
 * hc_cache_fence_get(), _put(), _failed(), _refused(), hc_cache_read_error(),
 * hc_cache_locate_fast(), hc_cache_hold_more() and hc_cache_seal() (of a
 * busy object, either way) is called with the pool lock held (pool.c),
 * which serialises every change to the cache; none of them sleeps except
 * where it says so.  The fence and the read-error bits are used by the
 * data path, and the index is read by LOCATE hits, under RCU without the
 * pool lock.
 */
#ifndef HC_CACHE_H
#define HC_CACHE_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/rhashtable-types.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include "core/alloc.h"
#include "core/otree.h"
#include "core/policy.h"
#include "core/slab.h"
#include "../uapi/hypercache.h"

struct hc_pool;
struct hc_ctl;
struct hc_journal;
struct hc_jrec;
struct hc_jrec2;
struct hc_readbuf;
struct seq_file;

/**
 * struct hc_fence - the write fence over the chunks of one STAGED or
 * INGESTING object: who may write them, and the writes in flight
 * @inflight: writes the data path admitted into the chunks and that have
 *	not completed on their member yet
 * @closed: no new write is admitted (set before @inflight is drained)
 * @any_writer: every task may write (HC_STAGE_F_ANY_WRITER), kernel
 *	write-back included, not only @owner's
 * @owner: the thread group whose tasks may write (the stager, or the
 *	helper that allocated the ingest)
 * @lost: writes into the chunks that were lost, whoever submitted them:
 *	admitted ones that failed on their member (hc_cache_fence_failed())
 *	and refused write-backs of the device's page cache
 *	(hc_cache_fence_refused())
 * @lost_seen: @lost when COMMIT last reported it (hc_cache_seal())
 * @rcu: freed after a grace period (hc_cache_fence_get() runs under RCU)
 * @next: a small object's fence (format v2, HC_OBJ_F_SUBCHUNK): the next
 *	fence open in the same slab chunk (RCU list, changed under
 *	hc_cache.fence_lock); NULL for a large object's
 * @block: a small object's: the first 4 KiB block of the chunk it covers
 * @nr_blocks: a small object's: the blocks it covers, exactly the object's;
 *	0: the whole chunk (a large object's fence, one per chunk)
 *
 * The data path looks the fence of a chunk up in hc_cache.fence and counts
 * itself in @inflight before it checks @closed; closing sets @closed and
 * then waits for @inflight to reach zero, so a write either sees the fence
 * closed or is waited for (hc_cache_fence_get()).
 */
struct hc_fence {
	atomic_t inflight;
	bool closed;
	bool any_writer;
	struct pid *owner;
	atomic_t lost;
	int lost_seen;
	struct rcu_head rcu;
	struct hc_fence __rcu *next;
	u32 block;
	u32 nr_blocks;
};

/**
 * struct hc_obj - one cached object
 * @hnode: in the index (hc_cache.index), the object of its @pe.key
 * @pe: the policy's part.  @pe.key, the 64-bit keyed hash of the URI
 *	(hc_cache_hash(): SipHash, its key drawn at module load), is
 *	also the index's key (hc_index_params): set when the object is
 *	allocated, before it can enter the index, and never changed after
 *	(hc_policy_entry_init() is always given @pe.key again, so a lockless
 *	lookup or the table's rehash that compares it meanwhile reads the
 *	same bytes; the policy never writes it otherwise).  It replaces a
 *	separate hash field that repeated it (8 bytes)
 * @gone_node: out of the policy for good, on hc_cache.doomed (its DELETE
 *	being written) or hc_cache.superseded (held, a new generation
 *	indexed); shares its place with @pe.link, unused from
 *	hc_cache_detach() or hc_cache_supersede() on (@pe.key, the lockless
 *	lookups' key, lies beyond it: hc_cache_slab_init()'s BUILD_BUG_ON())
 * @rcu: freed after a grace period once out of the index (lockless LOCATE
 *	reads it under RCU); shares its place with @pe.link and @gone_node,
 *	unused then
 * @side: one pointer for two allocations that rarely both matter: with
 *	HC_OBJ_M_TRANSIT in @mflags, @side.transit, what the object holds
 *	only while it is staged, ingested, dirty or being revalidated (struct
 *	hc_obj_transit, its own slab cache), which then holds its backend
 *	version (hc_obj_transit.bver); without it, @side.bver, the backend
 *	version, of a quiet READY object.  The transit's arrival and
 *	departure move the version between the two (hc_cache_transit_new(),
 *	hc_cache_transit_free()), under the pool lock.  Read only through
 *	hc_obj_transit() and hc_obj_bver(), under the pool lock (a
 *	compaction, which runs without it, records the version its snapshot
 *	took: journal.c); lockless LOCATE reads neither.  Both freed with the
 *	object.  One pointer instead of two (issue 15 point 5: 8 bytes an
 *	object; the transit grew by as much, 72 bytes in its own cache)
 * @mflags: what the module alone keeps of it, one bit each (HC_OBJ_M_*:
 *	bad, explicit admission, chunks kept, revalidation pending, indexed),
 *	in memory only.  Written under the pool lock, bit by bit
 *	(hc_obj_mset()), read with READ_ONCE() of the byte (hc_obj_m()), so
 *	lockless LOCATE reads HC_OBJ_M_BAD and HC_OBJ_M_REVAL whole
 * @checked: when it was last revalidated (or became complete), in seconds
 *	of the boot clock plus one (hc_cache_reval_now()); 0: not since the
 *	assembly (replayed objects are due at once).  In memory only, never
 *	journaled; written under the pool lock, read by lockless LOCATE
 * @committed: CLOCK_REALTIME seconds (u32: until 2106) when it became
 *	complete (READY, DIRTY or
 *	SYNCING from STAGED, INGESTING or new): its COMMIT or INGEST_DONE,
 *	or, as for hc_obj_transit.dirty_since, its replay at assembly (format v1 records
 *	no time); set by hc_cache_set_state(); the view's mtime (fs.md)
 * @size: bytes
 * @generation: changes whenever the URI's content changes
 * @state: HC_OBJ_* (1..HC_OBJ_SYNCING: a u8, hc_cache_slab_init()'s
 *	BUILD_BUG_ON()); published with smp_store_release(), read by
 *	lockless LOCATE with smp_load_acquire() (a byte: single-copy atomic)
 * @flags: HC_OBJ_F_* of the journal (HC_OBJ_F_ALL) and HC_OBJ_F_SUBCHUNK,
 *	nothing else (HC_OBJ_F_BAD is HC_OBJ_M_BAD): a u8 (BUILD_BUG_ON()); read by
 *	lockless LOCATE with READ_ONCE()
 * @data_crc: CRC-32C of the data when HC_OBJ_F_DATA_CRC is set
 * @holds: holds by all open files (a control file's at most HC_HOLD_MAX,
 *	a file of the view's one), at most HC_OBJ_HOLDS_MAX + 1 (see there),
 *	so the 32-bit count cannot wrap; atomic: it goes from 0 to 1 and back
 *	only under the pool lock, and above 1 also without it
 *	(hc_cache_hold_more())
 * @nr_ext: entries in @ext (or @sext: 1), at most HC_MAX_EXTENTS (64: a u8,
 *	BUILD_BUG_ON())
 * @uri_len: bytes in @uri, 1..HC_URI_MAX (1024: a u16, BUILD_BUG_ON();
 *	hc_cache_obj_alloc() refuses more)
 * @ext: extents in chunks, in object order (allocated once placed)
 * @sext: with HC_OBJ_F_SUBCHUNK in @flags (a small object of a format v2
 *	pool): its one sub-chunk extent (slab.h) instead, a run of 4 KiB
 *	blocks in a slab chunk, the same 16-byte allocation; hc_obj_extent()
 *	turns either into bytes of the device.  The slab's compaction may
 *	point it at a new allocation while the object is READY and unheld
 *	(hc_cache_move(): smp_store_release(), the old one freed after a
 *	grace period); lockless readers take one READ_ONCE() snapshot
 * @uri: the URI (@uri_len bytes, its own kmalloc: hc_obj has its own slab
 *	cache, so a long URI does not round the object up to kmalloc-512;
 *	freed with the object, after the same grace period)
 * @side.bver (hc_obj_transit.bver while it has a transit: hc_obj_bver()):
 *	the backend version it came from or was uploaded as (its own
 *	kmalloc, only when the helper reported an ETag or a Last-Modified:
 *	most objects of a v1 pool have none), from INGEST_ALLOC, EGRESS_DONE
 *	or the journal (format v2); NULL: unknown.  Replaced under the pool
 *	lock (and, once journaled, the journal mutex), freed with the object
 * @jop: a change of the object is under way with the pool lock dropped for
 *	its I/O (COMMIT's write-back, flushes and journal record; INGEST_DONE's
 *	flushes and record; EGRESS_DONE's and a pin's record; an eviction's
 *	wait for the journal mutex; an admission's victims' DELETEs): 0 when
 *	none is;
 *	HC_JOP_BUSY while its record is not durable yet; then, until the
 *	owner applies it under the pool lock, the HC_OBJ_* state that the
 *	durable record holds (compaction records that one:
 *	hc_cache_walk_journaled()).  Every other change of the object (ABORT,
 *	GROW, COMMIT, pin, eviction, INGEST_FAIL and expiry, the helpers'
 *	hand-over, EGRESS_FAIL) is refused with -EBUSY or skips it meanwhile;
 *	it is unevictable (hc_cache_sync_policy()), and a pool stop waits
 *	for its journal writer (hc_cache_quiesce()).
 *	Set and cleared under the pool lock; the durable state under the
 *	journal mutex (hc_journal_write_out())
 */
struct hc_obj {
	struct rhash_head hnode;
	union {
		struct hc_policy_entry pe;
		union {		/* out of the policy for good */
			struct list_head gone_node;
			struct rcu_head rcu;
		};
	};
	u8 jop;			/* HC_JOP_BUSY or a durable HC_OBJ_* state */
	u8 state;
	u8 flags;
	u8 nr_ext;
	u8 mflags;
	u16 uri_len;
	u32 checked;
	u32 data_crc;
	atomic_t holds;
	u32 committed;
	u64 size;
	u64 generation;
	union {
		struct hc_ext *ext;
		struct hc_sext *sext;
	};
	u8 *uri;
	union {			/* which one: HC_OBJ_M_TRANSIT */
		struct hc_bver *bver;
		struct hc_obj_transit *transit;
	} side;			/* 104 bytes, 1 of them a hole */
};

/*
 * hc_obj.mflags
 * HC_OBJ_M_BAD: a read of one of its chunks failed on a member
 *	(hc_cache_read_error()); LOCATE answers HC_LOCATE_BAD.  A new
 *	assembly forgets it
 * HC_OBJ_M_EXPLICIT: its ingest is an operator's preload (an explicit
 *	admission, hc_cache_admit())
 * HC_OBJ_M_KEEP_CHUNKS: superseded, and its DELETE could not be
 *	journaled: its chunks are never freed (the next assembly may bring
 *	it back)
 * HC_OBJ_M_REVAL: READY, and a revalidation of it is with the helper
 *	(kmod/reval.c); it is on hc_cache.revals (its transit's queue_node)
 *	since its transit's reval_since
 * HC_OBJ_M_INDEXED: in the index (its table and its ordered view); clear
 *	for a new object and a superseded one (hc_obj_superseded())
 * HC_OBJ_M_TRANSIT: it has a transit: @side is @side.transit
 * HC_OBJ_M_CHARGED: the journal's capacity is charged its OBJECT record,
 *	from STAGE or INGEST_ALLOC (or replay) until it leaves the index; how
 *	many bytes is derived (cache.c: hc_obj_jbytes())
 */
#define HC_OBJ_M_BAD		BIT(0)
#define HC_OBJ_M_EXPLICIT	BIT(1)
#define HC_OBJ_M_KEEP_CHUNKS	BIT(2)
#define HC_OBJ_M_REVAL		BIT(3)
#define HC_OBJ_M_INDEXED	BIT(4)
#define HC_OBJ_M_TRANSIT	BIT(5)
#define HC_OBJ_M_CHARGED	BIT(6)

/* Whether @obj has the HC_OBJ_M_* bit @bit (any context). */
static inline bool hc_obj_m(const struct hc_obj *obj, u8 bit)
{
	return READ_ONCE(obj->mflags) & bit;
}

/* Set or clear the HC_OBJ_M_* bit @bit of @obj.  Pool lock held. */
static inline void hc_obj_mset(struct hc_obj *obj, u8 bit, bool on)
{
	WRITE_ONCE(obj->mflags, on ? obj->mflags | bit : obj->mflags & ~bit);
}

/*
 * The chunks allocated to @obj: its extents' (a small object,
 * HC_OBJ_F_SUBCHUNK, counts the one slab chunk it lies in).  Derived, not
 * kept (issue 15 point 5: 4 bytes an object): at most HC_MAX_EXTENTS to
 * add.  Where @obj's extents are fixed (held, READY, or the pool lock).
 */
static inline u64 hc_obj_chunks(const struct hc_obj *obj)
{
	u64 n = 0;
	u32 i;

	if (READ_ONCE(obj->flags) & HC_OBJ_F_SUBCHUNK)
		return obj->nr_ext ? 1 : 0;
	for (i = 0; i < obj->nr_ext; i++)
		n += obj->ext[i].count;
	return n;
}

/* Whether @obj's URI starts with the @len bytes of @prefix (any, if 0). */
static inline bool hc_obj_under(const struct hc_obj *obj, const u8 *prefix,
				u32 len)
{
	return obj->uri_len >= len && (!len || !memcmp(obj->uri, prefix, len));
}

/* @obj's completion time, the view's mtime: CLOCK_REALTIME ns. */
static inline u64 hc_obj_mtime_ns(const struct hc_obj *obj)
{
	return (u64)obj->committed * NSEC_PER_SEC;
}

/*
 * The most holds an object takes (hc_obj.holds, an atomic_t).  A control
 * file holds an object at most HC_HOLD_MAX (65535) times, but a hostile
 * user may open many: 32768 of them would bring a 32-bit count to 2^31.
 * So a new hold is refused while the count is at this bound: LOCATE with
 * HC_LOCATE_F_HOLD is EOVERFLOW (as past the file's HC_HOLD_MAX), an open
 * of the view (fs_file.c) ENFILE, both before anything changes, under the
 * pool lock; a lockless LOCATE's hold (hc_cache_hold_more()) is not taken
 * and the LOCATE goes to that locked path.  Lockless holds may still be
 * taken between a locked path's check and its hold, up to the bound, so
 * the count stays at most HC_OBJ_HOLDS_MAX + 1, far below 2^31.  The
 * module parameter obj_holds_max, a test hook, lowers the bound.
 */
#define HC_OBJ_HOLDS_MAX	0x40000000	/* 2^30: an int, as the count */

/**
 * struct hc_obj_transit - what an object holds only while it is in transit:
 *	staged, ingested, dirty (DIRTY or SYNCING) or being revalidated
 * @obj: the object (the cache's queues link these, not the objects)
 * @queue_node: in the stager's list of stages (STAGED: hc_ctl.stages),
 *	the cache's list of ingest requests (INGESTING), its egress queue
 *	(DIRTY and SYNCING, in commit order) or its list of revalidations
 *	with the helper (READY with HC_OBJ_M_REVAL)
 * @stager: the open control file that stages it (STAGED only)
 * @egress_at: DIRTY with @egress_defer: jiffies of the next attempt
 * @ingest_since: INGESTING: jiffies since when it waits for a helper (its
 *	creation, or the last helper's departure); it expires after the
 *	module parameter ingest_timeout_ms without one
 * @reval_since: READY with HC_OBJ_M_REVAL: jiffies of the request;
 *	readers stop waiting for it ingest_timeout_ms later
 * @dirty_since: DIRTY and SYNCING: ktime_get_boottime_ns() when it became
 *	DIRTY (its COMMIT, or its replay at assembly: journal format v1
 *	records no time); set by hc_cache_set_state(), read for
 *	HC_A_STATS_DIRTY_OLDEST_NS (hc_cache_dirty_oldest_ns())
 * @fence: the write fence over the object's extents while STAGED or
 *	INGESTING (allocated), else NULL
 * @egress_err: DIRTY or SYNCING: the last failed upload (its own kmalloc,
 *	only once an upload failed; replaced by the next failure, freed when
 *	the object leaves DIRTY and SYNCING or the index)
 * @allocated: INGESTING: the helper reported the size and the chunks are
 *	allocated (the helper is filling them); hc_obj_allocated()
 * @ingest_resend: INGESTING: the request could not be delivered to the
 *	helper; ingest.c sends it again
 * @egress_defer: DIRTY: an upload failed; not re-sent before @egress_at
 * @growable: STAGED with HC_STAGE_F_GROW: hc_obj.size is what hc_obj.ext
 *	holds (whole chunks) until COMMIT gives the final size
 *	(hc_cache_grow(), hc_cache_trim()); hc_obj_growable()
 * @egress_backoff: DIRTY: failed uploads so far, for the default retry
 *	delay (1 s doubling up to 60 s), capped
 * @bver: the object's backend version while it has the transit (hc_obj.side
 *	holds the transit then): hc_obj_bver()
 *
 * Kept out of struct hc_obj (issue 15 point 5: every object pays for its
 * fields, and most objects are READY and quiet, needing none of these).
 * Allocated where a failure can still be reported with nothing changed
 * (GFP_KERNEL): with the object at STAGE and at an ingest's creation, at
 * the replay of a DIRTY or SYNCING record (the assembly fails with
 * -ENOMEM), and when a revalidation starts (without it the check counts as
 * failed and the cached copy is served).  Kept from there to the end of
 * the busy period, so that no completion (COMMIT's record, INGEST_DONE,
 * EGRESS_DONE and _FAIL, a revalidation's end) allocates; freed when the
 * object becomes READY with nothing pending (hc_cache_transit_settle())
 * or with the object.  Under the pool lock; lockless LOCATE never reads
 * it, and the data path reaches the fence through hc_cache.fence only.
 * The fields from @allocated on were struct hc_obj's (issue 15: every
 * object paid for them); each is written only in a state that has the
 * transit, and starts false or 0 (kzalloc).  A reader that may meet an
 * object in another state uses hc_obj_allocated() or hc_obj_growable():
 * false without a transit.  72 bytes in its own slab cache (56 a page:
 * hc_cache_slab_init()'s BUILD_BUG_ON()), since @bver joined it: 64 in
 * kmalloc-64 before.
 */
struct hc_obj_transit {
	struct hc_obj *obj;
	struct list_head queue_node;
	union {
		struct hc_ctl *stager;
		unsigned long egress_at;
		unsigned long ingest_since;
		unsigned long reval_since;
	};
	u64 dirty_since;
	struct hc_fence *fence;
	struct hc_egress_err *egress_err;
	bool allocated;
	bool ingest_resend;
	bool egress_defer;
	bool growable;
	u8 egress_backoff;
	struct hc_bver *bver;	/* 72 bytes, 3 of them padding */
};

/* @obj's transit, or NULL (a quiet READY object).  Pool lock held. */
static inline struct hc_obj_transit *hc_obj_transit(const struct hc_obj *obj)
{
	return hc_obj_m(obj, HC_OBJ_M_TRANSIT) ? obj->side.transit : NULL;
}

/*
 * Where @obj's backend version lies: in its transit while it has one, else
 * in the object.  Pool lock held.
 */
static inline struct hc_bver **hc_obj_bver_slot(struct hc_obj *obj)
{
	return hc_obj_m(obj, HC_OBJ_M_TRANSIT) ? &obj->side.transit->bver :
						 &obj->side.bver;
}

/* @obj's backend version, NULL: unknown.  Pool lock held. */
static inline const struct hc_bver *hc_obj_bver(const struct hc_obj *obj)
{
	return hc_obj_m(obj, HC_OBJ_M_TRANSIT) ? obj->side.transit->bver :
						 obj->side.bver;
}

/* @obj's write fence (STAGED or INGESTING, allocated), else NULL. */
static inline struct hc_fence *hc_obj_fence(const struct hc_obj *obj)
{
	const struct hc_obj_transit *t = hc_obj_transit(obj);

	return t ? t->fence : NULL;
}

/*
 * hc_obj_transit.allocated of @obj (asked of an INGESTING object: its
 * chunks are allocated), false without a transit.
 */
static inline bool hc_obj_allocated(const struct hc_obj *obj)
{
	const struct hc_obj_transit *t = hc_obj_transit(obj);

	return t && t->allocated;
}

/*
 * hc_obj_transit.growable of @obj (asked of a STAGED object: a growable
 * stage), false without a transit.
 */
static inline bool hc_obj_growable(const struct hc_obj *obj)
{
	const struct hc_obj_transit *t = hc_obj_transit(obj);

	return t && t->growable;
}

/* @obj's last failed upload (DIRTY or SYNCING), else NULL. */
static inline struct hc_egress_err *hc_obj_egress_err(const struct hc_obj *obj)
{
	const struct hc_obj_transit *t = hc_obj_transit(obj);

	return t ? t->egress_err : NULL;
}

/**
 * struct hc_bver - the backend version of an object: what the backend
 *	said about the version the object was ingested from or uploaded as
 * @mtime: its Last-Modified, seconds since the Unix epoch (UTC),
 *	1..HC_LAST_MODIFIED_MAX; 0: unknown
 * @etag_len: bytes in @etag, 0..HC_ETAG_MAX; 0: unknown
 * @etag: its ETag as the helper reported it (quotes included), no NUL
 *
 * Kept out of struct hc_obj (issue 15: every object pays for its fields,
 * and most objects of a v1 pool have no backend version), allocated only
 * when at least one of @mtime and @etag is known.  Never changed once
 * made: a new version replaces the whole allocation.
 */
struct hc_bver {
	u64 mtime;
	u8 etag_len;
	u8 etag[];
};

/**
 * struct hc_egress_err - the last failed upload of a DIRTY object
 * @failed_at: CLOCK_REALTIME ns of the failure
 * @err: its positive errno, as the egress helper reported it
 * @failures: failed uploads since the object became DIRTY
 * @permanent: the helper said retrying cannot succeed: the object is not
 *	re-sent until an egress helper registers (hc_cache_egress_unpark())
 * @msg_len: bytes in @msg (at most HC_EGRESS_MESSAGE_MAX), no NUL
 * @msg: the helper's message, for the operator
 */
struct hc_egress_err {
	u64 failed_at;
	u32 err;
	u32 failures;
	bool permanent;
	u8 msg_len;
	char msg[];
};

/* Whether @obj waits for an operator: its last upload failed for good. */
static inline bool hc_obj_egress_parked(const struct hc_obj *obj)
{
	const struct hc_egress_err *e = hc_obj_egress_err(obj);

	return e && e->permanent;
}

/**
 * struct hc_cache_stats - counters (read under the pool lock); the hits of
 * lockless LOCATEs are per CPU (hc_cache.hits), see hc_cache_hits()
 */
struct hc_cache_stats {
	u64 hits;
	u64 misses;
	u64 admissions;
	u64 rejections;
	u64 evictions;
	u64 objects;
	u64 by_state[8];
	u64 pinned;
	u64 held;
	u64 egress_done;
	u64 egress_failed;
	/* admissions refused, by reason (rejections: lost the duel) */
	u64 refused_room;
	u64 refused_journal;
	u64 refused_too_big;
	u64 refused_fragmented;
	/* revalidations (kmod/reval.c): each ends as one of the next three */
	u64 revalidations;
	u64 reval_unchanged;
	u64 reval_changed;
	u64 reval_failed;
};

/**
 * struct hc_compact_move - one move of the slab compaction in progress
 * @m: the slab's move: @m.to is reserved in the slab until the move ends
 * @uri: the URI of the object found at @m.from when the plan was made (its
 *	own kmalloc), NULL if no indexed object lies there (an evicted or
 *	superseded one's blocks, kept until it goes): never moved
 * @uri_len: bytes in @uri
 * @generation: that object's generation then
 * @old: once moved, the object's previous extent allocation (lockless
 *	LOCATE may still read it): freed after a grace period
 * @state: HC_CMOVE_*
 */
struct hc_compact_move {
	struct hc_slab_move m;
	u8 *uri;
	u32 uri_len;
	u32 state;
	u64 generation;
	struct hc_sext *old;
};

/* hc_compact_move.state */
#define HC_CMOVE_PENDING	0	/* @m.to reserved, not settled */
#define HC_CMOVE_MOVED		1	/* the object is at @m.to */
#define HC_CMOVE_DROPPED	2	/* not moved: @m.to given back */

/**
 * struct hc_compact - compaction of the slab (kmod/compact.c)
 * @work: the background run (system_unbound_wq)
 * @pool: the pool of the cache
 * @moves: the plan in progress (NULL: none), @nr_moves of them; under the
 *	pool lock.  Its reserved destinations are in the slab without an
 *	object (the debugfs check counts them)
 * @nr_moves: entries of @moves
 * @stopping: the pool is being torn down: no run is queued or started
 * @next: jiffies before which no automatic run starts
 * @runs: runs that made a plan
 * @moved: objects moved
 * @skipped: planned moves not made (the object was held, dirty, busy,
 *	changed or gone, or its copy failed)
 * @chunks_freed: slab chunks the runs gave back to the chunk allocator
 * @bytes_copied: bytes written to the destinations (whole 4 KiB blocks)
 * @failed: copies that failed (read, write or verification)
 */
struct hc_compact {
	struct delayed_work work;
	struct hc_pool *pool;
	struct hc_compact_move *moves;
	u32 nr_moves;
	bool stopping;
	unsigned long next;
	u64 runs;
	u64 moved;
	u64 skipped;
	u64 chunks_freed;
	u64 bytes_copied;
	u64 failed;
};

/**
 * struct hc_cache - the object cache of one pool
 * @index: the index: a resizable RCU hash table (rhashtable) keyed by
 *	hc_obj.pe.key, sized by the kernel from the number of objects in it
 *	(see "The index" in cache.c)
 * @key_mask: the bits of the URIs' hashes the index keeps (all: ~0; the
 *	index_key_bits test hook's when the cache was created)
 * @policy: W-TinyLFU over the objects
 * @sketch: the policy's table, its sketch and its ghost (vmalloc'ed)
 * @alloc: chunk allocator
 * @alloc_words: its bitmap (vmalloc'ed)
 * @fence: per chunk, the fence of the STAGED or INGESTING object that owns
 *	it while its fence is open, else NULL: the only chunks
 *	/dev/hypercacheN accepts writes to (RCU: read by the data path)
 * @nr_chunks: chunks of the pool
 * @members: members of the pool
 * @chunk_size: bytes
 * @next_generation: the next generation number to hand out
 * @journal: the pool's journal: every change to a complete object is
 *	recorded there before it takes effect
 * @replaying: objects are being restored from the journal; their chunks
 *	are not claimed and they are not in the policy yet
 * @ingests: INGESTING objects, oldest first: the requests for the helper
 *	(their transits, hc_obj_transit.queue_node; so are @egress and @revals)
 * @egress: DIRTY and SYNCING objects in commit order (replayed ones in
 *	journal order): the uploads for the egress helper
 * @dirty_bytes: bytes of the objects in @egress
 * @jbytes: journal capacity charged by the objects (hc_obj_jbytes()): a
 *	STAGE or ingest that would take it past hc_journal_capacity() is
 *	refused with -ENOSPC, so a compaction always has room for the next
 *	record (DELETE included) and the journal cannot fill up with objects
 *	that take no chunks
 * @outcomes: how recent ingests that did not complete ended, for the
 *	readers that waited for them (a small ring)
 * @outcome_next: next slot of @outcomes
 * @bad_chunks: per chunk, a read failed on its member since the chunk was
 *	last placed (set by I/O completion, any context)
 * @bad_pending: read errors not yet applied to the objects
 *	(hc_cache_bad_settle())
 * @hits: per CPU, the LOCATE hits answered without the pool lock
 * @readbuf: per CPU, the policy accesses of those hits, lossy (see
 *	hc_cache_locate_fast())
 * @stats: counters
 * @ordered: every object of the index, ordered by URI (memcmp, then
 *	length): the file system view's directory listings, and every walk
 *	of the whole index (a stable order while @index resizes).  A B+tree
 *	of object pointers (core/otree.h: about 10 bytes an object, not a
 *	24-byte rb_node in each); its nodes are kmalloc'ed into its reserve
 *	before an insert (hc_cache_insert()), and the reserve kept to what
 *	one insert may need
 * @nr_busy: objects whose hc_obj.jop is set, and batches of DELETEs being
 *	written: a pool stop waits for none to be left (hc_cache_quiesce())
 * @doomed: objects out of the index whose DELETE is being journaled
 *	(hc_cache_deletes_out(), on hc_obj.gone_node): their chunks stay
 *	allocated until it is durable
 * @reserved: chunks of the @doomed objects
 * @revals: READY objects whose revalidation is with the helper
 *	(HC_OBJ_M_REVAL), oldest first
 * @slab: format v2: the small objects' slab chunks (slab.h), set up at the
 *	first small object or replayed sub-chunk extent (hc_cache_slab_ready())
 * @slab_chunks: its table (vmalloc'ed), NULL until then
 * @slab_words: its bitmaps (vmalloc'ed)
 * @wshift: the policy's weight unit is chunk_size >> @wshift bytes: 0 (a
 *	chunk) in a format v1 pool, log2(blocks per chunk) (a 4 KiB block) in
 *	a v2 pool assembled as v2, whose small objects weigh their blocks;
 *	fixed at assembly (an upgraded running pool keeps chunks until its
 *	next assembly, and no small object until then)
 * @fence_lock: serialises changes to the slab chunks' lists of small
 *	objects' fences in @fence (a seal changes them without the pool lock)
 * @compact: the slab's compaction (kmod/compact.c)
 */
struct hc_cache {
	struct rhashtable index;
	u64 key_mask;
	struct hc_otree ordered;
	struct hc_policy policy;
	void *sketch;
	struct hc_alloc alloc;
	u64 *alloc_words;
	struct hc_fence __rcu **fence;
	u64 nr_chunks;
	u32 members;
	u32 chunk_size;
	u64 next_generation;
	struct hc_journal *journal;
	bool replaying;
	struct list_head ingests;
	struct list_head egress;
	struct list_head superseded;	/* hc_cache_supersede()d, held */
	struct list_head doomed;
	struct list_head revals;
	u64 reserved;
	u64 dirty_bytes;
	u64 jbytes;
	struct {
		u64 hash;
		u64 generation;
		int outcome;
	} outcomes[32];
	u32 outcome_next;
	unsigned long *bad_chunks;
	atomic_t bad_pending;
	u64 __percpu *hits;
	struct hc_readbuf __percpu *readbuf;
	struct hc_cache_stats stats;
	u64 hit_bytes;		/* HC_A_STATS_HIT_BYTES, under the pool lock */
	u32 nr_busy;
	u32 wshift;
	struct hc_slab slab;
	struct hc_slab_chunk *slab_chunks;
	u64 *slab_words;
	spinlock_t fence_lock;	/* the slab chunks' fence lists */
	struct hc_compact compact;
};

/*
 * The small-object threshold (Documentation/on-disk-format.md, "Small
 * objects"): in a v2 pool an object of a known size below it (and below
 * the chunk size) is placed in the slab; not on disk, each record says.
 */
#define HC_SMALL_OBJ_MAX	(2U << 20)

/*
 * The most slab chunks a pool has: their table costs 40 bytes and two
 * bitmaps (256 bytes at 4 MiB chunks) each, allocated at the first small
 * object: 4.6 MiB for 16,384 slab chunks, 64 GiB of small objects at
 * 4 MiB chunks.  Past it small objects take whole chunks again.
 */
#define HC_SLAB_MAX_CHUNKS	16384U

/* hc_obj.jop: a change is under way, its journal record not durable yet. */
#define HC_JOP_BUSY	0xff

/* hc_cache_outcome(): the ingest ended because the policy did not admit it. */
#define HC_INGEST_NOT_ADMITTED	1

/**
 * struct hc_cache_waitq - where waiters for an object's change sleep
 * @wq: woken whenever an object whose URI hashes to this queue changes
 *	state or goes away (LOCATE with WAIT, the view's lookups and
 *	revalidations sleep here: hc_ctl_wait())
 * @events: counts those wake-ups
 *
 * hc_cache_waitq() - the queue of the URI hash @hash (hc_obj.pe.key).
 * hc_cache_wake_all() - wake every queue (the ingest helper went away).
 */
struct hc_cache_waitq {
	wait_queue_head_t wq;
	atomic_t events;
};

struct hc_cache_waitq *hc_cache_waitq(u64 hash);
void hc_cache_wake_all(void);

/*
 * Woken whenever the dirty bytes shrink or the dirty limit changes (a
 * STAGE over the limit sleeps here, without the pool lock);
 * hc_dirty_events counts those wake-ups.
 */
extern wait_queue_head_t hc_dirty_wait;
extern atomic_t hc_dirty_events;

int hc_cache_slab_init(void);	/* module init: struct hc_obj's slab cache */
void hc_cache_slab_exit(void);	/* module exit, after rcu_barrier() */
int hc_cache_create(struct hc_pool *pool);		/* may sleep */
void hc_cache_destroy(struct hc_pool *pool);		/* may sleep */
bool hc_cache_busy(const struct hc_cache *c);
void hc_cache_busy_wait(void);				/* sleeps */
int hc_cache_quiesce(struct hc_cache *c);		/* may sleep */
int hc_cache_size_check(const struct hc_cache *c, u64 size);

/* The data path's side of the write fence (any context, no lock). */
struct hc_fence *hc_cache_fence_get(struct hc_cache *c, u64 chunk, u32 off,
				    u32 *left);
void hc_cache_fence_put(struct hc_fence *f);
void hc_cache_fence_failed(struct hc_fence *f);
void hc_cache_fence_refused(struct hc_cache *c, u64 chunk, u32 off, u32 len);
struct hc_extent hc_obj_extent(const struct hc_obj *obj, u32 chunk_size,
			       u32 i);
/* The data path: a read of @chunk failed (any context, no lock). */
void hc_cache_read_error(struct hc_cache *c, u64 chunk);
void hc_cache_bad_settle(struct hc_cache *c);
u32 hc_obj_flags(const struct hc_obj *obj);
/* COMMIT: close the fence, drain its writes and count the lost ones, or
 * open it again.
 */
int hc_cache_seal(struct hc_cache *c, struct hc_obj *obj);	/* sleeps */
void hc_cache_unseal(struct hc_cache *c, struct hc_obj *obj);

struct hc_obj *hc_cache_lookup(struct hc_cache *c, const u8 *uri, u32 len);

/**
 * struct hc_cache_view - what a lockless LOCATE hit copies of an object
 * @state: HC_OBJ_READY, DIRTY or SYNCING
 * @flags: HC_OBJ_F_*
 * @nr_ext: extents of the object (all, even beyond those copied)
 * @size: bytes
 * @generation: the object's generation
 * @chunks: chunks of the object
 */
struct hc_cache_view {
	u32 state;
	u32 flags;
	u32 nr_ext;
	u64 size;
	u64 generation;
	u64 chunks;
};

/* Under rcu_read_lock(), without the pool lock (see cache.c). */
int hc_cache_locate_fast(struct hc_cache *c, const u8 *uri, u32 len,
			 bool peek, struct hc_cache_view *v,
			 struct hc_extent *ext, u32 max_ext,
			 bool (*hold)(struct hc_obj *obj, void *arg),
			 void *arg);
bool hc_cache_hold_more(struct hc_obj *obj);
bool hc_cache_holds_full(const struct hc_obj *obj);
void hc_cache_readbuf_drain(struct hc_cache *c);
u64 hc_cache_hits(const struct hc_cache *c);
int hc_cache_stage(struct hc_cache *c, const u8 *uri, u32 len, u64 size,
		   bool replace, bool any_writer, bool growable,
		   struct hc_ctl *stager, struct hc_obj **objp);
/* Growable stages (HC_STAGE_F_GROW): see cache.c. */
int hc_cache_grow(struct hc_cache *c, struct hc_obj *obj, u64 size);
int hc_cache_trim(struct hc_cache *c, struct hc_obj *obj, u64 size);
int hc_cache_commit_begin(struct hc_cache *c, struct hc_obj *obj);
void hc_cache_commit_cancel(struct hc_cache *c, struct hc_obj *obj);
int hc_cache_commit(struct hc_cache *c, struct hc_obj *obj, bool clean,
		    bool has_crc, u32 crc);
void hc_cache_abort(struct hc_cache *c, struct hc_obj *obj);
int hc_cache_ingest(struct hc_cache *c, const u8 *uri, u32 len,
		    struct hc_obj **objp);
void hc_cache_miss(struct hc_cache *c, const u8 *uri, u32 len);
void hc_cache_hit(struct hc_cache *c, struct hc_obj *obj);
void hc_cache_hold(struct hc_cache *c, struct hc_obj *obj, int delta);
int hc_cache_pin(struct hc_cache *c, struct hc_obj *obj, bool pin);
int hc_cache_evict(struct hc_cache *c, struct hc_obj *obj, bool discard_dirty);
int hc_cache_supersede(struct hc_cache *c, struct hc_obj *obj);
bool hc_obj_superseded(const struct hc_obj *obj);
bool hc_obj_valid(const struct hc_obj *obj);
int hc_cache_restore(struct hc_cache *c, const struct hc_jrec2 *r2);
int hc_cache_set_bver(struct hc_obj *obj, const char *etag, u64 mtime);
int hc_cache_journal_fits(struct hc_cache *c, u32 version, u64 *need,
			  u64 *room);
void hc_cache_journal_recharge(struct hc_cache *c);
u32 hc_obj_jbytes(const struct hc_cache *c, const struct hc_obj *obj);
struct hc_obj *hc_cache_ingest_find(struct hc_cache *c, u64 id);
void hc_cache_ingest_adopt(struct hc_cache *c);		/* sleeps */
int hc_cache_ingest_alloc(struct hc_cache *c, struct hc_obj *obj, u64 size,
			  bool *admitted);
int hc_cache_ingest_done_begin(struct hc_cache *c, struct hc_obj *obj);
int hc_cache_ingest_done(struct hc_cache *c, struct hc_obj *obj,
			 bool has_crc, u32 crc);
void hc_cache_ingest_end(struct hc_cache *c, struct hc_obj *obj, int outcome);
int hc_cache_outcome(const struct hc_cache *c, const u8 *uri, u32 len,
		     u64 generation);
int hc_cache_restore_finish(struct hc_cache *c);
bool hc_cache_dirty_over(const struct hc_cache *c, u64 size);
u64 hc_cache_dirty_limit(void);
u64 hc_cache_dirty_oldest_ns(const struct hc_cache *c);
void hc_cache_egress_start(struct hc_cache *c, struct hc_obj *obj);
int hc_cache_egress_done(struct hc_cache *c, struct hc_obj *obj,
			 const char *etag, u64 mtime, bool wait);
void hc_cache_egress_requeue(struct hc_cache *c, struct hc_obj *obj,
			     u32 delay_ms);
void hc_cache_egress_fail(struct hc_cache *c, struct hc_obj *obj,
			  bool has_retry, u32 retry_ms, u32 err_no,
			  bool permanent, const char *msg);
u32 hc_cache_egress_unpark(struct hc_cache *c);
void hc_cache_egress_reset(struct hc_cache *c);

/* Revalidation (kmod/reval.c decides; these change the objects). */
u32 hc_cache_reval_now(void);
int hc_cache_reval_begin(struct hc_cache *c, struct hc_obj *obj);
void hc_cache_reval_end(struct hc_cache *c, struct hc_obj *obj, u32 result);
struct hc_obj *hc_cache_reval_find(struct hc_cache *c, u64 id);
int hc_cache_reval_replace(struct hc_cache *c, struct hc_obj *obj,
			   struct hc_obj **newp);

/* Compaction's visitor: @state is what to record for @obj. */
typedef int (*hc_cache_journal_fn)(void *arg, const struct hc_obj *obj,
				   u32 state);
int hc_cache_walk_journaled(struct hc_cache *c, hc_cache_journal_fn fn,
			    void *arg);

/* The ordered view: the first object whose URI is >= (> if @strict) @key. */
struct hc_obj *hc_cache_ordered_ceil(struct hc_cache *c, const u8 *key,
				     u32 len, bool strict);
/* The ordered view's first object, and the one after @obj; NULL: none. */
struct hc_obj *hc_cache_ordered_first(struct hc_cache *c);
struct hc_obj *hc_cache_ordered_next(struct hc_cache *c, struct hc_obj *obj);

/**
 * struct hc_cache_cursor - where a resumable walk of the index stands
 * @len: bytes of @uri; 0 before the first object
 * @uri: the URI of the last object visited
 * @prefix_len: 0, or the walk visits only the URIs that start with the
 *	first @prefix_len bytes of @prefix (and ends after the last of them)
 * @prefix: see @prefix_len
 *
 * A URI, not a position in the hash table: the walk is in URI order
 * (hc_cache.ordered), so objects that exist throughout a dump are visited
 * exactly once whatever is added, removed or resized meanwhile.
 */
struct hc_cache_cursor {
	u32 len;
	u8 uri[HC_URI_MAX];
	u32 prefix_len;
	u8 prefix[HC_URI_MAX];
};

/* Visit every object (netlink dump); stops when @fn returns non-zero. */
int hc_cache_for_each(struct hc_cache *c, struct hc_cache_cursor *cur,
		      int (*fn)(void *arg, struct hc_obj *obj), void *arg);

/* The URI's 64-bit keyed hash (hc_obj.pe.key). */
u64 hc_cache_hash(const struct hc_cache *c, const u8 *uri, u32 len);

/* Buckets of the index's table now (debugfs). */
u32 hc_cache_index_buckets(struct hc_cache *c);

/* Whether @obj is on the index's list of its hash (debugfs). */
bool hc_cache_index_has(struct hc_cache *c, struct hc_obj *obj);
void hc_cache_busy_change(struct hc_cache *c, bool on);
bool hc_cache_movable(const struct hc_obj *obj);
int hc_cache_move(struct hc_cache *c, struct hc_obj *obj,
		  const struct hc_sext *to, struct hc_sext *e,
		  struct hc_sext **old);		/* sleeps */

/* compact.c: the slab's compaction, under the pool lock */
#define HC_COMPACT_RUN_PASSES	16	/* an explicit run's passes at most */
void hc_compact_init(struct hc_cache *c, struct hc_pool *pool);
void hc_compact_kick(struct hc_cache *c);
int hc_compact_run(struct hc_cache *c, u32 passes);	/* sleeps */
void hc_compact_stop(struct hc_cache *c);	/* sleeps */
u64 hc_compact_reserved(const struct hc_cache *c, u64 *blocks);
void hc_compact_show(const struct hc_cache *c, struct seq_file *m);

#endif /* HC_CACHE_H */
