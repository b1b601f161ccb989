/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The object journal of a pool: writing records to every member's
 * metadata area, compaction, and reading it back from every member at
 * assembly.  The record format and its rules are in jrec.h and
 * Documentation/journal.md.
 *
 * Every function is called with the pool lock held and may sleep, except
 * hc_journal_obj_bytes() and hc_journal_capacity(), and
 * hc_journal_write_out(), which runs without it.  Only hc_journal_write_out()
 * and hc_journal_compact() wait for member I/O; the latter under the pool
 * lock, at assembly and upgrade.  When a record does not fit in the current
 * half, hc_journal_prepare() or hc_journal_prepare_deletes() takes the
 * objects the log holds (a snapshot, under both locks) and
 * hc_journal_write_out() compacts them into the other half first, without
 * the pool lock: the mutex, held throughout, keeps every other record out,
 * so the snapshot stays what the log holds.
 *
 * Group commit: hc_journal_queue() (with the pool lock) queues an OBJECT
 * record and returns; the batch writer, a work item, takes every record
 * queued so far, writes them in one PREFLUSH|FUA write when they fit
 * (hc_journal_write_batch()'s rule: a record longer than one block ends
 * its write) and calls each one's @done.  Records queued while a batch is
 * being written go into the next one.  It takes the journal mutex as
 * every writer does (hc_journal_lock(), with the pool lock), and drops the
 * pool lock for the I/O.
 *
 * Locking: @lock (the journal mutex) is held from a record's encode until
 * the record is durable on every member (an offset reserved for a record
 * still being written would be a hole that ends replay and loses every
 * record after it).  It nests inside the pool lock: it is taken only with
 * the pool lock held (hc_journal_lock() waits for it without the pool
 * lock), and the pool lock is never taken while it is held.  So a writer
 * may drop the pool lock for its I/O (hc_journal_write_out()) while the
 * records it encoded stay the log's next ones, and nobody holding the pool
 * lock ever waits for a member.  A writer takes the mutex before it
 * changes what its records describe (a DELETE's object leaves the index
 * only with it held), so that the log's order is the order of the changes.
 */
#ifndef HC_JOURNAL_H
#define HC_JOURNAL_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/sizes.h>
#include <linux/workqueue.h>
#include "core/jrec2.h"

struct hc_pool;
struct hc_obj;
struct hc_bver;
struct hc_journal;
struct hc_journal_req;

/*
 * A queued record is durable (@err 0) or could not be written: called by
 * the batch writer once per request, with the pool lock held and the
 * journal mutex not.
 */
typedef void (*hc_journal_done_fn)(struct hc_journal *j,
				   struct hc_journal_req *q, int err);

/**
 * struct hc_journal_req - an OBJECT record queued for the batch writer
 *	(hc_journal_queue(); group commit, Documentation/journal.md)
 * @node: in hc_journal.queue, then in the batch being written
 * @obj: the object, busy (hc_obj.jop) from before it is queued until @done
 *	ran: nothing else changes it or journals it meanwhile
 * @state: the state to record; @obj->jop holds it once the record is
 *	durable (as hc_journal_write_out()'s @durable does)
 * @flags: the HC_OBJ_F_* flags to record
 * @bver: the backend version that replaces @obj's when the record is taken
 *	into a batch (with the pool lock and the journal mutex held); then the
 *	one it replaced, for @done to free
 * @flush_data: the record publishes data written since the last flush (an
 *	INGEST_DONE's: the helper's writes, completed but not flushed): the
 *	batch writer flushes every member before the batch's first write, so
 *	that the record is on no member before the data is durable on all
 * @done: called once, when the record is durable or failed
 */
struct hc_journal_req {
	struct list_head node;
	struct hc_obj *obj;
	u32 state;
	u32 flags;
	bool flush_data;
	struct hc_bver *bver;
	hc_journal_done_fn done;
};

/*
 * One object a compaction records, the state it records it in and its
 * backend version (taken under the pool lock: hc_obj_bver()).
 */
struct hc_journal_snap {
	const struct hc_obj *obj;
	const struct hc_bver *bver;
	u32 state;
};

/**
 * struct hc_journal - the journal of a running pool
 * @pool: its pool
 * @hdr: the current half's header
 * @cur: the current half, 0 (A) or 1 (B)
 * @half_off: byte offsets of the halves on every member
 * @half_size: bytes per half
 * @version: the journal version compaction and a new journal write:
 *	HC_JOURNAL_VERSION_V2 in a pool of format 2, else HC_JOURNAL_VERSION
 *	(appends go in the current half's version, @hdr.version)
 * @pos: where the next record goes in the current half
 * @rec: scratch record for appends (and replay)
 * @crec: scratch record for compaction and replay
 * @buf: HC_JOURNAL_BUF bytes of scratch (vmalloc), page aligned
 * @hdrblk: one header block of scratch
 * @records: records appended since the pool started (statistics)
 * @compactions: compactions since the pool started
 * @state: how assembly found the journal, HC_JOURNAL_STATE_*
 *	(uapi/hypercache_netlink.h)
 * @repaired: header and record copies that assembly took from another
 *	member because this member's copy was damaged, missing or unreadable
 * @member_repaired: the same per member, by member index
 * @heal: members (bit = index) whose copy of the replayed half's header
 *	was bad: the first compaction, once the other half is current, writes
 *	the good copy back there, so every member's journal is the same
 * @broken: a write failed: every further change is refused with -EIO
 *	(until the pool is assembled again)
 * @lock: the journal mutex (above): @pos, @rec, @buf, @hdr, @cur, the
 *	counters and @broken change only with it held
 * @len: bytes of the record encoded in @buf, not written yet
 * @dels: the objects whose DELETE records are to be written
 *	(hc_journal_prepare_deletes()), @nr_dels of them
 * @nr_dels: see @dels; 0 when none are pending
 * @rec_pending: the OBJECT record in @rec is to be encoded after the
 *	compaction of @snap (it did not fit in the current half)
 * @snap: the objects a pending compaction records (hc_journal_snapshot()),
 *	@nr_snap of them (room for @max_snap), or NULL
 * @nr_snap: see @snap
 * @max_snap: see @snap
 * @flushes: durable (PREFLUSH|FUA) journal writes since the pool started,
 *	each one to every member (statistics)
 * @queue: the requests hc_journal_queue() queued for the next batch (the
 *	pool lock)
 * @queued: how many are queued or being written (the pool lock; read
 *	without it by the batch writer, which has nothing to do at 0)
 * @batch_work: the batch writer (hc_journal_batch_work())
 */
struct hc_journal {
	struct hc_pool *pool;
	struct hc_jrec_hdr hdr;
	int cur;
	u64 half_off[2];
	u64 half_size;
	u32 version;
	struct hc_jrec_pos pos;
	struct hc_jrec2 *rec;
	struct hc_jrec2 *crec;
	void *buf;
	void *hdrblk;
	u64 records;
	u64 compactions;
	u32 state;
	u32 repaired;
	u32 *member_repaired;
	u64 heal;
	bool broken;
	struct mutex lock;	/* from a record's encode until it is durable */
	size_t len;
	struct hc_obj *const *dels;
	u32 nr_dels;
	bool rec_pending;
	struct hc_journal_snap *snap;
	u64 nr_snap;
	u64 max_snap;
	u64 flushes;
	struct list_head queue;
	u32 queued;
	struct work_struct batch_work;
};

#define HC_JOURNAL_BUF	SZ_1M

/**
 * struct hc_journal_replay - what the pool asks of a replay, and its outcome
 * @apply: called for every record of the log, in order (the cache applies
 *	it); a non-zero return refuses the assembly
 * @arg: passed to @apply
 * @fresh: out: no member had a journal of this pool; an empty one was
 *	started
 * @damaged: out: refused because the journal is damaged beyond what the
 *	mirrors can repair (each member's fault is in the kernel log);
 *	HC_POOL_F_FORCE_EMPTY_JOURNAL would start an empty one
 * @msg: out: a static reason on failure
 */
struct hc_journal_replay {
	int (*apply)(void *arg, const struct hc_jrec2 *r);
	void *arg;
	bool fresh;
	bool damaged;
	const char *msg;
};

int hc_journal_create(struct hc_pool *pool);
int hc_journal_open(struct hc_pool *pool, struct hc_journal_replay *rp);
int hc_journal_compact(struct hc_journal *j);
void hc_journal_destroy(struct hc_pool *pool);
int hc_journal_lock(struct hc_journal *j);
void hc_journal_cancel(struct hc_journal *j);
int hc_journal_prepare(struct hc_journal *j, const struct hc_obj *obj,
		       u32 state, u32 flags);
int hc_journal_prepare_deletes(struct hc_journal *j,
			       struct hc_obj *const *objs, u32 n);
int hc_journal_begin(struct hc_journal *j, const struct hc_obj *obj, u32 state,
		     u32 flags);
int hc_journal_write_out(struct hc_journal *j, u8 *durable, u8 val);
void hc_journal_queue(struct hc_journal *j, struct hc_journal_req *q);
u32 hc_journal_obj_bytes(const struct hc_journal *j, u32 uri_len, u32 nr_ext);
u32 hc_journal_obj_bytes_in(const struct hc_journal *j, u32 version,
			    u32 uri_len, u32 nr_ext);
u64 hc_journal_capacity(const struct hc_journal *j);
u64 hc_journal_capacity_in(const struct hc_journal *j, u32 version);
bool hc_journal_v2(const struct hc_journal *j);

#endif /* HC_JOURNAL_H */
