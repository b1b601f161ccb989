// SPDX-License-Identifier: GPL-2.0
/*
 * The object journal (see journal.h and Documentation/journal.md).
 *
 * It is mirrored: every record goes to the same offset of every member, one
 * member after another, and is acknowledged only when it is durable on all
 * of them (each record is written with PREFLUSH|FUA, so it is also ordered
 * after the data and the records before it).  Replay reads every member
 * and takes each header and record from a member that holds it intact.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "cache.h"
#include "journal.h"
#include "hypercache.h"
#include "trace.h"
#include "../uapi/hypercache_netlink.h"

#define HC_JOURNAL_SYNC	(REQ_OP_WRITE | REQ_SYNC | REQ_META | REQ_PREFLUSH | \
			 REQ_FUA)

/* Write @len bytes at @off of every member.  On failure the journal breaks. */
static int hc_journal_write(struct hc_journal *j, u64 off, void *buf,
			    size_t len, blk_opf_t opf)
{
	struct hc_pool *pool = j->pool;
	u32 i;
	int err;

	for (i = 0; i < pool->nr_members; i++) {
		err = hc_member_io(&pool->members[i], off, buf, len, opf);
		if (err) {
			pr_err("%s: journal write at %llu failed (%d); the cache no longer takes changes\n",
			       pool->name, off, err);
			j->broken = true;
			return err;
		}
	}
	if (opf & REQ_FUA)
		j->flushes++;
	return 0;
}

/*
 * Fill @r2 for a half of @version: a v2 half's OBJECT record carries the
 * backend version @bver (the ETag, Last-Modified and size) when the object
 * has one.  @bver is the caller's to find (hc_obj_bver() under the pool
 * lock, or a compaction's snapshot of it): a record written without the
 * pool lock must not look for it in the object.
 */
static void hc_journal_fill(struct hc_jrec2 *r2, u32 version,
			    const struct hc_obj *obj,
			    const struct hc_bver *bver, u32 type, u32 state,
			    u32 flags)
{
	struct hc_jrec *r = &r2->r;

	r2->etag_len = 0;
	r2->backend_size = 0;
	r2->backend_mtime = 0;
	memset(r, 0, offsetof(struct hc_jrec, uri));
	r->type = type;
	r->uri_len = obj->uri_len;
	memcpy(r->uri, obj->uri, obj->uri_len);
	r->size = 0;
	r->generation = 0;
	r->state = 0;
	r->flags = 0;
	r->data_crc = 0;
	r->nr_ext = 0;
	if (type == HC_JREC_DELETE)
		return;
	r->size = obj->size;
	r->generation = obj->generation;
	r->state = state;
	r->flags = flags & (HC_OBJ_F_PINNED | HC_OBJ_F_DATA_CRC);
	r->data_crc = (flags & HC_OBJ_F_DATA_CRC) ? obj->data_crc : 0;
	r->nr_ext = obj->nr_ext;
	if (obj->flags & HC_OBJ_F_SUBCHUNK) {
		/* only in a v2 half (hc_journal_v2()): v1 refuses it */
		r->flags |= HC_OBJ_F_SUBCHUNK;
		r2->sext[0] = *obj->sext;
	} else {
		memcpy(r->ext, obj->ext, obj->nr_ext * sizeof(*obj->ext));
	}
	if (version != HC_JOURNAL_VERSION_V2 || !bver)
		return;
	r->flags |= HC_OBJ_F_BACKEND;
	r2->etag_len = bver->etag_len;
	memcpy(r2->etag, bver->etag, bver->etag_len);
	r2->backend_size = obj->size;
	r2->backend_mtime = bver->mtime;
}

struct hc_journal_batch {
	struct hc_journal *j;
	struct hc_jrec_hdr *h;
	struct hc_jrec_pos pos;
	u64 batch_off;	/* offset in the half of buf[0] */
	size_t used;
	u64 half;	/* byte offset of the half on the members */
	int err;
};

static int hc_journal_flush_batch(struct hc_journal_batch *b)
{
	int err = 0;

	if (b->used)
		err = hc_journal_write(b->j, b->half + b->batch_off, b->j->buf,
				       b->used, REQ_OP_WRITE | REQ_SYNC |
				       REQ_META);
	b->batch_off = b->pos.off;
	b->used = 0;
	return err;
}

/*
 * Encode @obj, to be recorded as @state, into the compaction batch, writing
 * the batch out when it is full.
 */
static int hc_journal_batch_obj(void *arg, const struct hc_journal_snap *s)
{
	struct hc_journal_batch *b = arg;
	struct hc_journal *j = b->j;
	int len, tries;

	hc_journal_fill(j->crec, b->h->version, s->obj, s->bver, HC_JREC_OBJECT,
			s->state, s->obj->flags);
	for (tries = 0; tries < 2; tries++) {
		size_t room = min_t(u64, HC_JOURNAL_BUF - b->used,
				    j->half_size - b->pos.off);

		len = hc_jrec2_encode(j->crec, b->h, &b->pos, j->buf + b->used,
				      room);
		if (len != -ENOSPC || !b->used)
			break;
		b->err = hc_journal_flush_batch(b);
		if (b->err)
			return b->err;
	}
	if (len < 0) {
		b->err = len;	/* -ENOSPC: the live objects fill a half */
		return len;
	}
	hc_jrec_advance(&b->pos, j->buf + b->used);
	b->used += len;
	return 0;
}

/*
 * The other half is current now: write the good copy of the header of the
 * half replay read (still j->hdr) back to the members whose copy was bad
 * (j->heal), so that every member's journal is the same again.  That
 * header is no longer current, so the order of these writes does not
 * matter, and a member that cannot take it (a bad sector there) costs
 * nothing but a warning at the next assembly: best effort, never fails.
 */
static void hc_journal_heal(struct hc_journal *j)
{
	struct hc_pool *pool = j->pool;
	struct hc_jrec_hdr old = j->hdr;
	u32 m;
	int err;

	if (!j->heal || hc_jrec_hdr_encode_ver(&old, old.version, j->hdrblk))
		return;
	for (m = 0; m < pool->nr_members; m++) {
		if (!(j->heal & BIT_ULL(m)))
			continue;
		err = hc_member_io(&pool->members[m], j->half_off[j->cur],
				   j->hdrblk, HC_JHDR_SIZE, HC_JOURNAL_SYNC);
		if (err)
			pr_warn("pool %pUb: member %pg: cannot rewrite its bad copy of journal header %c (%d); the other members hold it\n",
				pool->uuid, pool->members[m].dev.bdev,
				'A' + j->cur, err);
	}
	j->heal = 0;
}

/**
 * hc_journal_do_compact - rewrite the journal as the live objects only
 * @j: the journal
 *
 * Writes every object of the snapshot (hc_journal_snapshot(): the objects
 * the cache keeps, in the order replay must see them) into the other half
 * under a new header (epoch + 1), then makes that half current.  The
 * header write is the commit point: until it is durable, the old half
 * stays current and complete.  Called when a half is full (without the
 * pool lock, from hc_journal_write_out()), and by the pool after a replay
 * (which makes every member's copy identical again) and for an upgrade
 * (with it).  The journal mutex is held throughout, so no record is
 * written meanwhile: the snapshot is what the log holds.
 *
 * Return: 0; -ENOSPC (the live objects do not fit in a half); -EIO (the
 * journal is broken).
 */
static int hc_journal_do_compact(struct hc_journal *j)
{
	struct hc_pool *pool = j->pool;
	int other = !j->cur;
	struct hc_jrec_hdr h = {
		.version = j->version,
		.block_size = j->hdr.block_size,
		.epoch = j->hdr.epoch + 1,
		.start_seq = j->pos.seq,
		.half_size = j->half_size,
	};
	struct hc_journal_batch b = { .j = j, .h = &h };
	u64 n;
	int err;

	memcpy(h.pool_uuid, pool->uuid, sizeof(h.pool_uuid));
	/* computes h.csum; a v1 half of a v2 pool becomes v2 here */
	err = hc_jrec_hdr_encode_ver(&h, j->version, j->hdrblk);
	if (err)
		return err;
	hc_jrec_pos_init(&b.pos, &h);
	b.batch_off = b.pos.off;
	b.half = j->half_off[other];

	for (n = 0; n < j->nr_snap && !err; n++) {
		err = hc_journal_batch_obj(&b, &j->snap[n]);
		if (!(n % 1024))
			cond_resched();
	}
	if (!err)
		err = hc_journal_flush_batch(&b);
	if (err) {
		pr_err("%s: journal compaction failed (%d)\n",
		       pool->name, err);
		return err;
	}
	err = hc_members_flush(pool->members, pool->nr_members);
	if (err) {
		j->broken = true;
		return err;
	}
	err = hc_journal_write(j, j->half_off[other], j->hdrblk, HC_JHDR_SIZE,
			       HC_JOURNAL_SYNC);
	if (err)
		return err;
	hc_journal_heal(j);
	j->cur = other;
	j->hdr = h;
	j->pos = b.pos;
	j->compactions++;
	return 0;
}

/* Keep the object and state compaction is to record (a snapshot entry). */
static int hc_journal_snap_add(void *arg, const struct hc_obj *obj, u32 state)
{
	struct hc_journal *j = arg;

	if (j->nr_snap >= j->max_snap)
		return -EUCLEAN;	/* more kept objects than indexed ones */
	j->snap[j->nr_snap].obj = obj;
	j->snap[j->nr_snap].bver = hc_obj_bver(obj);
	j->snap[j->nr_snap].state = state;
	j->nr_snap++;
	return 0;
}

/* Forget the snapshot (compacted, or given up). */
static void hc_journal_snap_free(struct hc_journal *j)
{
	kvfree(j->snap);
	j->snap = NULL;
	j->nr_snap = 0;
	j->max_snap = 0;
}

/*
 * The objects the log holds, as compaction must record them, in replay
 * order (hc_cache_walk_journaled()), into j->snap: with the pool lock and
 * the journal mutex held.  The compaction may then run without the pool
 * lock: the objects stay, and their journaled fields (URI, size,
 * generation, extents, flags, CRC, ETag) do not change, as long as the
 * mutex is held, since every change of them is journaled (cache.c: the
 * locking rules).  Return: 0 or -ENOMEM.
 */
static int hc_journal_snapshot(struct hc_journal *j)
{
	struct hc_cache *c = j->pool->cache;
	int err;

	j->max_snap = max_t(u64, c->stats.objects, 1);
	j->nr_snap = 0;
	j->snap = kvmalloc_array(j->max_snap, sizeof(*j->snap), GFP_KERNEL);
	if (!j->snap)
		return -ENOMEM;
	err = hc_cache_walk_journaled(c, hc_journal_snap_add, j);
	if (err)
		hc_journal_snap_free(j);
	return err;
}

/*
 * hc_journal_do_compact() of the snapshot, traced (hc_journal_compact,
 * trace.h), which it frees; j->lock held.
 */
static int hc_journal_compact_locked(struct hc_journal *j)
{
	u64 t0 = ktime_get_ns();
	int err = hc_journal_do_compact(j);

	trace_hc_journal_compact(j->compactions, ktime_get_ns() - t0, err);
	hc_journal_snap_free(j);
	return err;
}

/* Woken when a journal's mutex is released. */
static DECLARE_WAIT_QUEUE_HEAD(hc_journal_wq);

static void hc_journal_unlock(struct hc_journal *j)
{
	mutex_unlock(&j->lock);
	wake_up_all(&hc_journal_wq);
}

/**
 * hc_journal_compact - rewrite the journal as the live objects only
 * @j: the journal (the pool lock held throughout: assembly, upgrade, when
 *	nothing else changes the cache or writes the journal)
 *
 * hc_journal_do_compact() with the journal mutex.  Return: as that, or
 * -ENOMEM.
 */
int hc_journal_compact(struct hc_journal *j)
{
	int err;

	mutex_lock(&j->lock);
	err = hc_journal_snapshot(j);
	if (!err)
		err = hc_journal_compact_locked(j);
	hc_journal_unlock(j);
	return err;
}

/*
 * Encode j->rec as the record at j->pos into j->buf (j->len bytes).  The
 * journal mutex held.  Return: 0, -ENOSPC (the current half is full) or
 * another error of hc_jrec2_encode().
 */
static int hc_journal_encode(struct hc_journal *j)
{
	int len;

	len = hc_jrec2_encode(j->rec, &j->hdr, &j->pos, j->buf,
			      min_t(u64, HC_JOURNAL_BUF,
				    j->half_size - j->pos.off));
	if (len < 0)
		return len;
	j->len = len;
	return 0;
}

/*
 * Write the record hc_journal_encode() left in j->buf to every member,
 * durably, and make it part of the log.  The journal mutex held; the pool
 * lock need not be (nothing here reads the cache).
 */
static int hc_journal_write_rec(struct hc_journal *j)
{
	int err;

	err = hc_journal_write(j, j->half_off[j->cur] + j->pos.off, j->buf,
			       j->len, HC_JOURNAL_SYNC);
	trace_hc_journal_append(j->len, j->records + !err, err);
	j->len = 0;
	if (err)
		return err;
	hc_jrec_advance(&j->pos, j->buf);
	j->records++;
	return 0;
}

/**
 * hc_journal_lock - take the journal mutex, to encode records
 * @j: the journal
 *
 * With the pool lock held.  If another writer holds the mutex (its record
 * is being written), waits for it without the pool lock (retaken before
 * this returns): nobody holding the pool lock ever waits for a member, and
 * the journal mutex is never waited for with the pool lock held.  The
 * caller keeps what it changes from going away meanwhile (cache.c:
 * hc_obj.jop) and the pool from stopping (hc_cache_quiesce()).
 * Return: 0 with the mutex held, or -EIO (the journal is broken) without.
 */
int hc_journal_lock(struct hc_journal *j)
{
	while (!mutex_trylock(&j->lock)) {
		hc_pool_unlock();
		wait_event(hc_journal_wq, !mutex_is_locked(&j->lock));
		hc_pool_lock();
	}
	if (j->broken) {
		hc_journal_unlock(j);
		return -EIO;
	}
	return 0;
}

/* Give up the mutex hc_journal_lock() took, with nothing written. */
void hc_journal_cancel(struct hc_journal *j)
{
	j->len = 0;
	j->nr_dels = 0;
	j->rec_pending = false;
	hc_journal_snap_free(j);
	hc_journal_unlock(j);
}

/**
 * hc_journal_prepare - encode a record of an object as the log's next one
 * @j: the journal, its mutex held (hc_journal_lock())
 * @obj: the object; the caller keeps it from changing and from going
 *	away until the record is written (hc_journal_write_out()) and
 *	applied (cache.c: hc_obj.jop)
 * @state: the state to record
 * @flags: the HC_OBJ_F_* flags to record
 *
 * With the pool lock held.  When the record does not fit in the current
 * half, the objects the log holds are taken for a compaction
 * (hc_journal_snapshot()) that hc_journal_write_out() runs first, without
 * the pool lock; the record is encoded into the new half after it.
 * Return: 0; -EIO (the journal is broken); -ENOMEM (no memory for the
 * compaction's snapshot); another error of the codec.  On error the mutex
 * is released.
 */
int hc_journal_prepare(struct hc_journal *j, const struct hc_obj *obj,
		       u32 state, u32 flags)
{
	int err = -EIO;

	if (j->broken)
		goto out;
	hc_journal_fill(j->rec, j->hdr.version, obj, hc_obj_bver(obj),
			HC_JREC_OBJECT, state, flags);
	err = hc_journal_encode(j);
	if (err == -ENOSPC) {
		/* compact first, without the pool lock: encoded after it */
		err = hc_journal_snapshot(j);
		j->rec_pending = !err;
	}
out:
	if (err)
		hc_journal_unlock(j);
	return err;
}

/**
 * hc_journal_prepare_deletes - make DELETE records of @n objects the log's
 * next ones, to be written as one batch without the pool lock
 * @j: the journal, its mutex held (hc_journal_lock())
 * @objs: the objects; the cache has taken them out of the index already
 *	and keeps them (and their chunks) until hc_journal_write_out()
 *	returns
 * @n: how many
 *
 * With the pool lock held.  If the records do not fit in the current half,
 * the half is compacted instead (hc_journal_snapshot(), written by
 * hc_journal_write_out()): the objects are no longer in the index, so the
 * new half does not hold them and no DELETE is needed any more.
 * Return: 0; -EIO; -ENOMEM.  On error the mutex is released.
 */
int hc_journal_prepare_deletes(struct hc_journal *j,
			       struct hc_obj *const *objs, u32 n)
{
	u64 bytes = 0;
	u32 i;
	int err;

	if (j->broken) {
		hc_journal_unlock(j);
		return -EIO;
	}
	for (i = 0; i < n; i++) {
		hc_journal_fill(j->rec, j->hdr.version, objs[i], NULL,
				HC_JREC_DELETE, 0, 0);
		bytes += hc_jrec2_size(j->rec, &j->hdr);
	}
	j->dels = objs;
	j->nr_dels = n;
	if (j->pos.off + bytes <= j->half_size)
		return 0;
	j->nr_dels = 0;
	err = hc_journal_snapshot(j);
	if (err)
		hc_journal_unlock(j);
	return err;
}

/* Write buf[0, @used) at @off of the current half; @pos follows it. */
static int hc_journal_write_piece(struct hc_journal *j, u64 off, size_t used,
				  const struct hc_jrec_pos *pos, u32 recs)
{
	int err;

	err = hc_journal_write(j, j->half_off[j->cur] + off, j->buf, used,
			       HC_JOURNAL_SYNC);
	trace_hc_journal_append(used, j->records + (err ? 0 : recs), err);
	if (err)
		return err;
	j->pos = *pos;
	j->records += recs;
	return 0;
}

/* Fill j->rec as record @i of a batch hc_journal_write_batch() writes. */
typedef void (*hc_journal_fill_fn)(struct hc_journal *j, u32 i, void *arg);

/*
 * Write @n records, each filled into j->rec by @fill, in as few writes as
 * HC_JOURNAL_BUF allows, each PREFLUSH|FUA.  A record longer than one block
 * ends its write: the next record is written only once it is durable, so
 * that a crash in the middle of a write can tear a record only where
 * nothing follows it (replay takes a torn record with an intact successor
 * for damage, journal.md).  A record of one block cannot tear (a logical
 * block is written atomically).  The caller made sure that they fit in
 * the current half.
 */
static int hc_journal_write_batch(struct hc_journal *j, u32 n,
				  hc_journal_fill_fn fill, void *arg)
{
	struct hc_jrec_pos pos = j->pos;
	u64 start = pos.off;
	size_t used = 0, room;
	u32 i = 0, recs = 0;
	int len, err = 0;

	while (i < n && !err) {
		fill(j, i, arg);
		room = min_t(u64, HC_JOURNAL_BUF - used,
			     j->half_size - pos.off);
		len = hc_jrec2_encode(j->rec, &j->hdr, &pos, j->buf + used,
				      room);
		if (len == -ENOSPC && used) {
			err = hc_journal_write_piece(j, start, used, &pos, recs);
			start = pos.off;
			used = 0;
			recs = 0;
			continue;
		}
		if (len < 0) {
			err = len;
			break;
		}
		hc_jrec_advance(&pos, j->buf + used);
		used += len;
		recs++;
		i++;
		if (len > j->hdr.block_size || i == n) {
			err = hc_journal_write_piece(j, start, used, &pos, recs);
			start = pos.off;
			used = 0;
			recs = 0;
		}
	}
	return err;
}

/* The DELETE of hc_journal_prepare_deletes()'s object @i. */
static void hc_journal_fill_delete(struct hc_journal *j, u32 i, void *arg)
{
	hc_journal_fill(j->rec, j->hdr.version, j->dels[i], NULL,
			HC_JREC_DELETE, 0, 0);
}

/* Write the DELETE records hc_journal_prepare_deletes() was given. */
static int hc_journal_write_deletes(struct hc_journal *j)
{
	int err = hc_journal_write_batch(j, j->nr_dels, hc_journal_fill_delete,
					 NULL);

	j->nr_dels = 0;
	return err;
}

/**
 * hc_journal_begin - hc_journal_lock() and hc_journal_prepare() in one
 * @j: the journal
 * @obj: the object, as for hc_journal_prepare()
 * @state: the state to record
 * @flags: the HC_OBJ_F_* flags to record
 *
 * With the pool lock held (dropped while waiting for the mutex).  On
 * success the journal mutex is held and the record is encoded; the caller
 * drops the pool lock and calls hc_journal_write_out().
 * Return: 0; -EIO; -ENOSPC.  On error nothing is held but the pool lock.
 */
int hc_journal_begin(struct hc_journal *j, const struct hc_obj *obj, u32 state,
		     u32 flags)
{
	int err = hc_journal_lock(j);

	return err ? err : hc_journal_prepare(j, obj, state, flags);
}

/**
 * hc_journal_write_out - write what hc_journal_prepare() or
 * hc_journal_prepare_deletes() left to write: first the compaction they
 * decided on, if any (then no DELETE is needed any more), then the records
 * @j: the journal, its mutex held (released here)
 * @durable: NULL, or set to @val once the record is durable, before the mutex is
 *	released, so that a compaction (which needs the mutex) that runs
 *	before the caller has applied the record in memory records what the
 *	log says (hc_cache_walk_journaled())
 * @val: see @durable
 *
 * Without the pool lock; sleeps (member I/O).  Return: 0 once the record is
 * durable on every member; -EIO (the journal is broken); -ENOSPC (the
 * compaction's objects do not fit in a half).
 */
int hc_journal_write_out(struct hc_journal *j, u8 *durable, u8 val)
{
	int err = 0;

	if (j->snap)
		err = hc_journal_compact_locked(j);
	if (!err && j->rec_pending)
		err = hc_journal_encode(j);	/* fits: the capacity rule */
	j->rec_pending = false;
	if (err) {
		j->len = 0;
		j->nr_dels = 0;
	} else if (j->nr_dels) {
		err = hc_journal_write_deletes(j);
	} else if (j->len) {
		err = hc_journal_write_rec(j);
	}
	if (!err && durable)
		WRITE_ONCE(*durable, val);
	hc_journal_unlock(j);
	return err;
}

/* --- group commit: the batch writer ----------------------------------- */

/* Where hc_journal_fill_req() is in the batch being written. */
struct hc_journal_cursor {
	struct hc_journal_req *q;
	u32 i;
};

/*
 * The OBJECT record of request @q, with or without the pool lock: its
 * object is INGESTING or SYNCING until @q->done, so its transit, which
 * holds the version hc_journal_take() swapped in, stays (cache.h:
 * hc_obj.side).
 */
static void hc_journal_fill_one(struct hc_journal *j,
				const struct hc_journal_req *q)
{
	hc_journal_fill(j->rec, j->hdr.version, q->obj, hc_obj_bver(q->obj),
			HC_JREC_OBJECT, q->state, q->flags);
}

/* Record @i of the batch: hc_journal_write_batch() asks in order. */
static void hc_journal_fill_req(struct hc_journal *j, u32 i, void *arg)
{
	struct hc_journal_cursor *cur = arg;

	for (; cur->i < i; cur->i++)
		cur->q = list_next_entry(cur->q, node);
	hc_journal_fill_one(j, cur->q);
}

/*
 * Move the requests of the next batch from j->queue onto @batch (@n of
 * them), swapping each one's backend version in: as many as fit in the
 * current half, in queue order; when not even the first does, the first
 * alone, after a compaction (hc_journal_snapshot(), run by the caller: by
 * the capacity rule it then fits).  With the pool lock and the journal
 * mutex held.  Return: 0 or -ENOMEM (nothing moved).
 */
static int hc_journal_take(struct hc_journal *j, struct list_head *batch,
			   u32 *n)
{
	struct hc_journal_req *q, *tmp;
	u64 off = j->pos.off;
	int err;

	*n = 0;
	list_for_each_entry_safe(q, tmp, &j->queue, node) {
		size_t len;

		swap(*hc_obj_bver_slot(q->obj), q->bver);
		hc_journal_fill_one(j, q);
		len = hc_jrec2_size(j->rec, &j->hdr);
		if (off + len > j->half_size) {
			swap(*hc_obj_bver_slot(q->obj), q->bver);	/* the next batch's */
			break;
		}
		off += len;
		list_move_tail(&q->node, batch);
		(*n)++;
	}
	if (*n || list_empty(&j->queue))
		return 0;
	err = hc_journal_snapshot(j);
	if (err)
		return err;
	q = list_first_entry(&j->queue, struct hc_journal_req, node);
	swap(*hc_obj_bver_slot(q->obj), q->bver);
	list_move_tail(&q->node, batch);
	*n = 1;
	return 0;
}

/*
 * Write the batch hc_journal_take() made: the compaction it asked for
 * first, or a flush of every member when a record publishes unflushed
 * data (hc_journal_req.flush_data: one flush for all of the batch's),
 * then the records; each object's jop gets the state recorded once it is
 * durable, before the mutex is released (as hc_journal_write_out()).
 * Without the pool lock, the mutex held (released here).
 */
static int hc_journal_write_reqs(struct hc_journal *j, struct list_head *batch,
				 u32 n)
{
	struct hc_journal_cursor cur = {
		.q = list_first_entry(batch, struct hc_journal_req, node),
	};
	struct hc_journal_req *q;
	bool flush = false;
	int err = 0;

	list_for_each_entry(q, batch, node)
		flush |= q->flush_data;
	if (j->snap)	/* flushes every member before its header */
		err = hc_journal_compact_locked(j);
	else if (flush)
		err = hc_members_flush(j->pool->members, j->pool->nr_members);
	if (!err)
		err = hc_journal_write_batch(j, n, hc_journal_fill_req, &cur);
	if (!err)
		list_for_each_entry(q, batch, node)
			WRITE_ONCE(q->obj->jop, q->state);
	hc_journal_unlock(j);
	return err;
}

/*
 * The batch writer: while requests are queued, take the next batch, write
 * it without the pool lock and call each request's @done with it.  The
 * requests queued meanwhile make the next batch.  A pool stop waits for
 * every request (their objects are busy: hc_cache_quiesce()), so once it
 * tears the journal down nothing is queued and a run still pending returns
 * without the pool lock (hc_journal_free() flushes it with the lock held).
 */
static void hc_journal_batch_work(struct work_struct *work)
{
	struct hc_journal *j = container_of(work, struct hc_journal,
					    batch_work);
	struct hc_journal_req *q, *tmp;
	LIST_HEAD(batch);
	u32 n;
	int err;

	if (!READ_ONCE(j->queued))
		return;
	hc_pool_lock();
	while (!list_empty(&j->queue)) {
		err = hc_journal_lock(j);	/* may drop the pool lock */
		if (!err) {
			err = hc_journal_take(j, &batch, &n);
			if (err)
				hc_journal_unlock(j);
		}
		if (err) {
			/* broken, or no memory for the compaction: all fail */
			list_splice_tail_init(&j->queue, &batch);
		} else {
			hc_pool_unlock();
			err = hc_journal_write_reqs(j, &batch, n);
			hc_pool_lock();
		}
		list_for_each_entry_safe(q, tmp, &batch, node) {
			list_del(&q->node);
			WRITE_ONCE(j->queued, j->queued - 1);
			q->done(j, q, err);
		}
	}
	hc_pool_unlock();
}

/**
 * hc_journal_queue - queue an OBJECT record for the batch writer
 * @j: the journal
 * @q: the request; its object busy, its @done set
 *
 * With the pool lock held; does not sleep.  @q->done is called later, from
 * the batch writer, once the record is durable on every member or failed;
 * the caller may wait for it or go on (group commit, journal.md).
 */
void hc_journal_queue(struct hc_journal *j, struct hc_journal_req *q)
{
	list_add_tail(&q->node, &j->queue);
	WRITE_ONCE(j->queued, j->queued + 1);
	queue_work(system_unbound_wq, &j->batch_work);
}

/**
 * hc_journal_obj_bytes_in - what an object costs a journal of a version
 * @j: the journal
 * @version: HC_JOURNAL_VERSION_V1 or _V2
 * @uri_len: bytes of its URI
 * @nr_ext: its extents
 *
 * Return: the bytes of its OBJECT record in a half of @version, with room
 * for any ETag to come in v2 (which holds it: a v2 record is larger).
 */
u32 hc_journal_obj_bytes_in(const struct hc_journal *j, u32 version,
			    u32 uri_len, u32 nr_ext)
{
	if (version == HC_JOURNAL_VERSION_V2)
		return hc_jrec2_object_size(uri_len, nr_ext, HC_ETAG_MAX,
					    j->hdr.block_size);
	return hc_jrec_object_size(uri_len, nr_ext, j->hdr.block_size);
}

/**
 * hc_journal_obj_bytes - what an object costs the journal
 * @j: the journal
 * @uri_len: bytes of its URI
 * @nr_ext: its extents
 *
 * Return: the bytes of its OBJECT record in the version every compaction
 * writes (@j->version).
 */
u32 hc_journal_obj_bytes(const struct hc_journal *j, u32 uri_len, u32 nr_ext)
{
	return hc_journal_obj_bytes_in(j, j->version, uri_len, nr_ext);
}

/**
 * hc_journal_v2 - whether records of format v2 (sub-chunk extents) can be
 * written: the current half and every compaction are v2
 * @j: the journal
 */
bool hc_journal_v2(const struct hc_journal *j)
{
	return j->version == HC_JOURNAL_VERSION_V2 &&
	       j->hdr.version == HC_JOURNAL_VERSION_V2;
}

/* The largest record a half of @version may hold. */
static size_t hc_journal_max_rec(u32 version, u32 block_size)
{
	if (version == HC_JOURNAL_VERSION_V2)
		return hc_jrec2_max_size(block_size);
	return hc_jrec_max_size(block_size);
}

/**
 * hc_journal_capacity - the bytes of records the live objects may take
 * @j: the journal
 *
 * A half less its header and room for one more record of any size: when
 * the objects' records (hc_journal_obj_bytes()) stay within this, a
 * compaction always leaves room for the next record, so a DELETE (or any
 * other change) can always be appended and the journal never locks up.
 */
u64 hc_journal_capacity(const struct hc_journal *j)
{
	return hc_journal_capacity_in(j, j->version);
}

/* hc_journal_capacity() of the journal's halves written in @version. */
u64 hc_journal_capacity_in(const struct hc_journal *j, u32 version)
{
	return j->half_size - HC_JHDR_SIZE -
	       hc_journal_max_rec(version, j->hdr.block_size);
}

static void hc_journal_free(struct hc_journal *j)
{
	if (!j)
		return;
	flush_work(&j->batch_work);	/* nothing queued: returns at once */
	mutex_destroy(&j->lock);
	kvfree(j->snap);
	kfree(j->member_repaired);
	vfree(j->buf);
	kfree(j->hdrblk);
	kvfree(j->crec);
	kvfree(j->rec);
	kfree(j);
}

static struct hc_journal *hc_journal_alloc(struct hc_pool *pool)
{
	unsigned int bs = SECTOR_SIZE;
	struct hc_journal *j;
	u32 i;

	j = kzalloc(sizeof(*j), GFP_KERNEL);
	if (!j)
		return NULL;
	j->pool = pool;
	mutex_init(&j->lock);
	INIT_LIST_HEAD(&j->queue);
	INIT_WORK(&j->batch_work, hc_journal_batch_work);
	j->state = HC_JOURNAL_STATE_COMPLETE;
	j->version = pool->format == 2 ? HC_JOURNAL_VERSION_V2 :
					 HC_JOURNAL_VERSION;
	j->rec = kvmalloc(sizeof(*j->rec), GFP_KERNEL);
	j->crec = kvmalloc(sizeof(*j->crec), GFP_KERNEL);
	j->hdrblk = kzalloc(HC_JHDR_SIZE, GFP_KERNEL);
	j->buf = vmalloc(HC_JOURNAL_BUF);
	j->member_repaired = kcalloc(pool->nr_members,
				     sizeof(*j->member_repaired), GFP_KERNEL);
	if (!j->rec || !j->crec || !j->hdrblk || !j->buf ||
	    !j->member_repaired ||
	    hc_jrec_halves(HC_SB_SIZE, pool->data_offset, j->half_off,
			   &j->half_size)) {
		hc_journal_free(j);
		return NULL;
	}
	for (i = 0; i < pool->nr_members; i++)
		bs = max(bs, bdev_logical_block_size(pool->members[i].dev.bdev));
	j->hdr.block_size = bs;
	return j;
}

/*
 * Start an empty journal in half A (epoch 1).  Header B is zeroed first
 * (the pre-flush of header A's write orders it), so that no header of an
 * earlier journal can compete with the new one.
 */
static int hc_journal_start(struct hc_journal *j)
{
	struct hc_pool *pool = j->pool;
	int err;

	memset(j->hdrblk, 0, HC_JHDR_SIZE);
	err = hc_journal_write(j, j->half_off[1], j->hdrblk, HC_JHDR_SIZE,
			       REQ_OP_WRITE | REQ_SYNC | REQ_META);
	if (err)
		return err;
	j->hdr.version = j->version;
	j->hdr.epoch = 1;
	j->hdr.start_seq = 1;
	j->hdr.half_size = j->half_size;
	memcpy(j->hdr.pool_uuid, pool->uuid, sizeof(j->hdr.pool_uuid));
	err = hc_jrec_hdr_encode_ver(&j->hdr, j->version, j->hdrblk);
	if (err)
		return err;
	err = hc_journal_write(j, j->half_off[0], j->hdrblk, HC_JHDR_SIZE,
			       HC_JOURNAL_SYNC);
	if (err)
		return err;
	j->cur = 0;
	hc_jrec_pos_init(&j->pos, &j->hdr);
	return 0;
}

/**
 * hc_journal_create - an empty journal, for a new pool or over one the
 * operator gave up (HC_POOL_F_FORCE_EMPTY_JOURNAL)
 * @pool: the pool; its members and cache are set up
 *
 * Return: 0, -ENOMEM, or an I/O error.
 */
int hc_journal_create(struct hc_pool *pool)
{
	struct hc_journal *j = hc_journal_alloc(pool);
	int err;

	if (!j)
		return -ENOMEM;
	err = hc_journal_start(j);
	if (err) {
		hc_journal_free(j);
		return err;
	}
	pool->journal = j;
	return 0;
}

/* --- reading the mirrors ------------------------------------------------ */

/* What one member's copy of a header or record is. */
enum hc_jcopy {
	HC_JCOPY_VALID,		/* intact, continues the log / our header */
	HC_JCOPY_ABSENT,	/* nothing there (zeroes, another pool) */
	HC_JCOPY_STALE,		/* a record of an earlier use of the half */
	HC_JCOPY_OLDER,		/* a valid header of an earlier epoch */
	HC_JCOPY_TORN,		/* bad checksum or length: torn or corrupt */
	HC_JCOPY_UNREADABLE,	/* the member returned an I/O error */
	HC_JCOPY_REFUSE,	/* newer format or out of range: refuse */
};

static const char *const hc_jcopy_what[] = {
	[HC_JCOPY_VALID]	= "intact",
	[HC_JCOPY_ABSENT]	= "missing",
	[HC_JCOPY_STALE]	= "missing (an older record is there)",
	[HC_JCOPY_OLDER]	= "of an earlier epoch",
	[HC_JCOPY_TORN]		= "checksum mismatch (torn or corrupt)",
	[HC_JCOPY_UNREADABLE]	= "unreadable",
	[HC_JCOPY_REFUSE]	= "not of this format version, or out of range",
};

static enum hc_jcopy hc_jcopy_of(int ret)
{
	if (ret >= 0)
		return HC_JCOPY_VALID;
	switch (ret) {
	case -ENODATA:
		return HC_JCOPY_ABSENT;
	case -ESTALE:
		return HC_JCOPY_STALE;
	case -EBADMSG:
		return HC_JCOPY_TORN;
	default:
		return HC_JCOPY_REFUSE;
	}
}

/* Detailed messages per member before only the summary is logged. */
#define HC_JREPAIR_LOG	8

/*
 * Member @m's copy of a header or record at @off of half @half is @why; the
 * replay uses member @src's.  Logged (a few per member) and counted: the
 * pool assembled degraded-but-complete.
 */
static void hc_journal_repaired(struct hc_journal *j, u32 m, const char *what,
				int half, u64 off, u64 seq, enum hc_jcopy why,
				u32 src)
{
	struct hc_pool *pool = j->pool;

	if (j->member_repaired[m]++ < HC_JREPAIR_LOG)
		pr_warn("pool %pUb: member %pg: journal %s at offset %llu of half %c (seq %llu) is %s; using the copy of member %pg\n",
			pool->uuid, pool->members[m].dev.bdev, what, off,
			'A' + half, seq, hc_jcopy_what[why],
			pool->members[src].dev.bdev);
	j->repaired++;
	j->state = HC_JOURNAL_STATE_DEGRADED;
}

/* Per member: the header block copies of both halves. */
struct hc_jhdr_copies {
	struct hc_jrec_hdr hdr[2];
	enum hc_jcopy what[2];
	int err[2];
};

/*
 * Read and decode both header blocks of every member into @hc, and pick
 * for each half the newest valid copy (@best, @err_best as
 * hc_jrec_current() takes them).  Return: 0, or an error that refuses the
 * assembly (-EOPNOTSUPP, -EUCLEAN).
 */
static int hc_journal_read_headers(struct hc_journal *j,
				   struct hc_jhdr_copies *hc,
				   struct hc_jrec_hdr *best, int *err_best,
				   int *src, struct hc_journal_replay *rp)
{
	struct hc_pool *pool = j->pool;
	u32 n = pool->nr_members, m;
	int h, err;

	for (m = 0; m < n; m++) {
		for (h = 0; h < 2; h++) {
			struct hc_jhdr_copies *x = &hc[m];

			err = hc_member_io(&pool->members[m], j->half_off[h],
					   j->hdrblk, HC_JHDR_SIZE,
					   REQ_OP_READ | REQ_SYNC | REQ_META);
			x->err[h] = err;
			if (err) {
				x->what[h] = HC_JCOPY_UNREADABLE;
				continue;
			}
			/* a v1 pool refuses a v2 half (-EOPNOTSUPP) */
			err = hc_jrec_hdr_decode_ver(j->hdrblk, pool->uuid,
						     j->version, &x->hdr[h]);
			x->what[h] = hc_jcopy_of(err);
			x->err[h] = err;
			if (x->what[h] != HC_JCOPY_REFUSE)
				continue;
			pr_err("pool %pUb: member %pg: journal header %c: %s (%d)\n",
			       pool->uuid, pool->members[m].dev.bdev, 'A' + h,
			       hc_jcopy_what[HC_JCOPY_REFUSE], err);
			rp->msg = err == -EOPNOTSUPP ?
				  "journal of a newer format version" :
				  "corrupt journal headers";
			return err;
		}
	}

	for (h = 0; h < 2; h++) {
		u32 torn = 0, unreadable = 0;

		src[h] = -1;
		for (m = 0; m < n; m++) {
			const struct hc_jrec_hdr *x = &hc[m].hdr[h];

			if (hc[m].what[h] == HC_JCOPY_TORN)
				torn++;
			if (hc[m].what[h] == HC_JCOPY_UNREADABLE)
				unreadable++;
			if (hc[m].what[h] != HC_JCOPY_VALID)
				continue;
			if (src[h] >= 0 && x->epoch == best[h].epoch &&
			    x->csum != best[h].csum) {
				pr_err("pool %pUb: members %pg and %pg hold different journal headers %c of epoch %llu\n",
				       pool->uuid, pool->members[src[h]].dev.bdev,
				       pool->members[m].dev.bdev, 'A' + h,
				       x->epoch);
				rp->msg = "members hold different journal headers of one epoch";
				rp->damaged = true;
				return -EUCLEAN;
			}
			if (src[h] < 0 || x->epoch > best[h].epoch) {
				best[h] = *x;
				src[h] = m;
			}
		}
		err_best[h] = src[h] >= 0 ? 0 :
			      hc_jrec_hdr_missing(n, torn, unreadable);
	}
	return 0;
}

/*
 * The header of half @h is @best (from member @src): count and log every
 * member whose copy is not the same.
 */
static void hc_journal_check_header(struct hc_journal *j,
				    const struct hc_jhdr_copies *hc, int h,
				    const struct hc_jrec_hdr *best, u32 src)
{
	u32 m;

	for (m = 0; m < j->pool->nr_members; m++) {
		enum hc_jcopy what = hc[m].what[h];

		if (what == HC_JCOPY_VALID && hc[m].hdr[h].csum == best->csum)
			continue;
		if (what == HC_JCOPY_VALID)
			what = HC_JCOPY_OLDER;
		hc_journal_repaired(j, m, "header", h, 0, best->start_seq, what,
				    src);
		if (h == j->cur)
			j->heal |= BIT_ULL(m);
	}
}

/* Log, for a refused assembly, what every member's headers are. */
static void hc_journal_log_headers(struct hc_journal *j,
				   const struct hc_jhdr_copies *hc)
{
	struct hc_pool *pool = j->pool;
	u32 m;

	for (m = 0; m < pool->nr_members; m++)
		pr_err("pool %pUb: member %pg: journal header A %s (%d), header B %s (%d)\n",
		       pool->uuid, pool->members[m].dev.bdev,
		       hc_jcopy_what[hc[m].what[0]], hc[m].err[0],
		       hc_jcopy_what[hc[m].what[1]], hc[m].err[1]);
}

/* One member's window onto the half being replayed. */
struct hc_jmirror {
	void *buf;
	u64 off;	/* offset in the half of buf[0] */
	u64 len;	/* bytes read into buf, 0: none yet */
	int err;	/* reading the window failed */
	enum hc_jcopy what;	/* its copy at the current position */
	int ret;	/* what reading or decoding that copy returned */
};

/* Bytes past a position a window must hold: a record and its successor. */
#define HC_JREPLAY_AHEAD	(2 * HC_JREC_BLOCK_MAX)

/* Make @mi's window (@wsize bytes at most) hold @off of half @base. */
static void hc_jmirror_fill(struct hc_journal *j, struct hc_member *member,
			    struct hc_jmirror *mi, u64 base, u64 off,
			    size_t wsize)
{
	u64 end = mi->off + mi->len;

	if (mi->len && off >= mi->off &&
	    (off + HC_JREPLAY_AHEAD <= end || end == j->half_size))
		return;
	mi->off = round_down(off, PAGE_SIZE);
	mi->len = min_t(u64, wsize, j->half_size - mi->off);
	mi->err = hc_member_io(member, base + mi->off, mi->buf, mi->len,
			       REQ_OP_READ | REQ_SYNC | REQ_META);
}

/* Decode @mi's copy at @pos into @r; the bytes left in the window. */
static int hc_jmirror_decode(struct hc_journal *j, struct hc_jmirror *mi,
			     const struct hc_jrec_pos *pos, struct hc_jrec2 *r)
{
	if (mi->err || pos->off + j->hdr.block_size > mi->off + mi->len)
		return mi->err ? mi->err : -ENODATA;
	return hc_jrec2_decode(mi->buf + (pos->off - mi->off),
			       mi->off + mi->len - pos->off, &j->hdr, pos, r);
}

/*
 * No member continues the log at @pos: does a torn copy there hide an
 * acknowledged record?  It does if, behind it, some member holds the
 * record that follows it (seq + 1, naming the torn copy's checksum, which
 * a scribble over the body or padding leaves intact).
 */
static bool hc_journal_successor(struct hc_journal *j, struct hc_jmirror *mir,
				 const struct hc_jrec_pos *pos)
{
	u32 n = j->pool->nr_members, m, k;

	for (m = 0; m < n; m++) {
		const struct hc_jrec_disk *d;
		struct hc_jrec_pos next;
		u32 len;

		if (mir[m].what != HC_JCOPY_TORN)
			continue;
		d = mir[m].buf + (pos->off - mir[m].off);
		len = le32_to_cpu(d->length);
		if (!len || len % j->hdr.block_size ||
		    len > hc_journal_max_rec(j->hdr.version, j->hdr.block_size))
			continue;
		next.off = pos->off + len;
		next.seq = pos->seq + 1;
		next.prev = le32_to_cpu(d->csum);
		for (k = 0; k < n; k++)
			if (hc_jmirror_decode(j, &mir[k], &next, j->rec) > 0)
				return true;
	}
	return false;
}

/*
 * Replay the current half from every member: each record is taken from a
 * member whose copy is intact; the log ends where no member continues it
 * and hc_jrec_tail() agrees that nothing acknowledged is lost there.
 * Return: 0, or a negative errno that refuses the assembly.
 */
static int hc_journal_replay(struct hc_journal *j, struct hc_jmirror *mir,
			     size_t wsize, struct hc_journal_replay *rp)
{
	struct hc_pool *pool = j->pool;
	u64 base = j->half_off[j->cur];
	u32 n = pool->nr_members, m;
	struct hc_jrec_pos pos;
	int ret, err;

	hc_jrec_pos_init(&pos, &j->hdr);
	while (pos.off < j->half_size) {
		int src = -1, len = 0;
		u32 csum = 0;

		for (m = 0; m < n; m++) {
			struct hc_jmirror *mi = &mir[m];

			hc_jmirror_fill(j, &pool->members[m], mi, base, pos.off,
					wsize);
			ret = hc_jmirror_decode(j, mi, &pos, j->rec);
			mi->ret = ret;
			mi->what = mi->err ? HC_JCOPY_UNREADABLE :
				   hc_jcopy_of(ret);
			if (mi->what == HC_JCOPY_REFUSE) {
				pr_err("pool %pUb: member %pg: journal record at offset %llu of half %c (seq %llu): %s (%d)\n",
				       pool->uuid, pool->members[m].dev.bdev,
				       pos.off, 'A' + j->cur, pos.seq,
				       hc_jcopy_what[mi->what], ret);
				rp->msg = ret == -EOPNOTSUPP ?
					  "journal record of a newer format version" :
					  "corrupt journal record";
				return ret;
			}
			if (mi->what != HC_JCOPY_VALID)
				continue;
			if (src < 0) {
				src = m;
				len = ret;
				csum = j->rec->r.csum;
			} else if (ret != len || j->rec->r.csum != csum) {
				pr_err("pool %pUb: members %pg and %pg hold different journal records at offset %llu of half %c\n",
				       pool->uuid, pool->members[src].dev.bdev,
				       pool->members[m].dev.bdev, pos.off,
				       'A' + j->cur);
				rp->msg = "members hold different journal records at one place";
				rp->damaged = true;
				return -EUCLEAN;
			}
		}
		if (src < 0)
			break;

		for (m = 0; m < n; m++)
			if (mir[m].what != HC_JCOPY_VALID)
				hc_journal_repaired(j, m, "record", j->cur,
						    pos.off, pos.seq,
						    mir[m].what, src);
		hc_jmirror_decode(j, &mir[src], &pos, j->crec);
		err = rp->apply(rp->arg, j->crec);
		if (err) {
			rp->msg = err == -EUCLEAN ?
				  "corrupt journal record (extent outside the pool)" :
				  "cannot restore a journal record";
			return err;
		}
		hc_jrec_advance(&pos, mir[src].buf + (pos.off - mir[src].off));
		cond_resched();	/* a million records; the pool mutex only */
	}

	if (pos.off < j->half_size) {
		u32 torn = 0, unreadable = 0;

		for (m = 0; m < n; m++) {
			torn += mir[m].what == HC_JCOPY_TORN;
			unreadable += mir[m].what == HC_JCOPY_UNREADABLE;
		}
		err = hc_jrec_tail(n, torn, unreadable,
				   torn && hc_journal_successor(j, mir, &pos));
		if (err) {
			for (m = 0; m < n; m++)
				pr_err("pool %pUb: member %pg: journal record at offset %llu of half %c (seq %llu) is %s (%d)\n",
				       pool->uuid, pool->members[m].dev.bdev,
				       pos.off, 'A' + j->cur, pos.seq,
				       hc_jcopy_what[mir[m].what],
				       min(mir[m].ret, 0));
			pr_err("pool %pUb: journal record seq %llu is damaged on every member that holds it: the objects it and the records after it describe would be lost\n",
			       pool->uuid, pos.seq);
			rp->msg = "a journal record is damaged on every member (see dmesg)";
			rp->damaged = true;
			return err;
		}
		for (m = 0; m < n && torn + unreadable; m++)
			if (mir[m].what == HC_JCOPY_TORN ||
			    mir[m].what == HC_JCOPY_UNREADABLE)
				pr_notice("pool %pUb: member %pg: the journal ends at an append interrupted by a crash (offset %llu of half %c, seq %llu); it was never acknowledged\n",
					  pool->uuid, pool->members[m].dev.bdev,
					  pos.off, 'A' + j->cur, pos.seq);
	}
	j->pos = pos;
	return 0;
}

static void hc_journal_mirrors_free(struct hc_jmirror *mir, u32 n)
{
	u32 m;

	if (!mir)
		return;
	for (m = 0; m < n; m++)
		vfree(mir[m].buf);
	kfree(mir);
}

/* Windows of @wsize bytes onto every member. */
static struct hc_jmirror *hc_journal_mirrors_alloc(u32 n, size_t wsize)
{
	struct hc_jmirror *mir = kcalloc(n, sizeof(*mir), GFP_KERNEL);
	u32 m;

	if (!mir)
		return NULL;
	for (m = 0; m < n; m++) {
		mir[m].buf = vmalloc(wsize);
		if (!mir[m].buf) {
			hc_journal_mirrors_free(mir, n);
			return NULL;
		}
	}
	return mir;
}

/* Log the summary of a degraded replay. */
static void hc_journal_log_repaired(struct hc_journal *j)
{
	struct hc_pool *pool = j->pool;
	u32 m;

	if (!j->repaired)
		return;
	for (m = 0; m < pool->nr_members; m++)
		if (j->member_repaired[m])
			pr_warn("pool %pUb: member %pg: %u journal blocks were damaged, missing or unreadable and were read from other members\n",
				pool->uuid, pool->members[m].dev.bdev,
				j->member_repaired[m]);
	pr_warn("pool %pUb: the journal was replayed degraded but complete; the compaction that follows rewrites it on every member\n",
		pool->uuid);
}

/**
 * hc_journal_open - read the journal of an assembling pool from its members
 * @pool: the pool; members open, cache empty
 * @rp: the callback that applies each record, and the outcome
 *
 * Reads both headers and the current half of every member.  A header or
 * record that is torn, missing or unreadable on one member is taken from
 * another that holds it intact (logged, and counted in the journal's
 * state); the newest valid header on any member decides the current half.
 * When nothing can be read with certainty (a header or record damaged on
 * every member that should hold it), nothing is written and the assembly
 * is refused with @rp->damaged set.  A pool on which no member has a
 * journal (no header of this pool anywhere, no damaged one) gets an empty
 * journal (@rp->fresh).  On success the pool compacts next
 * (hc_journal_compact()), after the cache has checked what was replayed.
 *
 * Return: 0; -EOPNOTSUPP (newer format); -EUCLEAN (corrupt or damaged:
 * headers, records, members that disagree); -EIO (unreadable beyond
 * repair); -ENOMEM; or what @rp->apply returned.
 */
int hc_journal_open(struct hc_pool *pool, struct hc_journal_replay *rp)
{
	u32 n = pool->nr_members;
	struct hc_jrec_hdr best[2];
	struct hc_jhdr_copies *hc;
	struct hc_jmirror *mir = NULL;
	struct hc_journal *j;
	int err_best[2], src[2], cur, err;
	size_t wsize;

	rp->fresh = false;
	rp->damaged = false;
	rp->msg = "cannot allocate the journal";
	wsize = clamp_t(size_t, rounddown(SZ_4M / n, PAGE_SIZE), SZ_64K,
			HC_JOURNAL_BUF);
	j = hc_journal_alloc(pool);
	hc = kcalloc(n, sizeof(*hc), GFP_KERNEL);
	if (!j || !hc) {
		err = -ENOMEM;
		goto out;
	}

	err = hc_journal_read_headers(j, hc, best, err_best, src, rp);
	if (err)
		goto out;
	cur = hc_jrec_current(&best[0], err_best[0], &best[1], err_best[1]);
	if (cur == -ENODATA && err_best[0] == -ENODATA &&
	    err_best[1] == -ENODATA) {
		pr_info("pool %pUb: no member holds a journal of this pool: starting an empty one\n",
			pool->uuid);
		rp->fresh = true;
		rp->msg = "cannot start the journal";
		err = hc_journal_start(j);
		if (!err)
			j->state = HC_JOURNAL_STATE_NEW;
		goto out;
	}
	if (cur < 0) {
		hc_journal_log_headers(j, hc);
		pr_err("pool %pUb: no journal header can be trusted on any member; nothing is written (assemble with --force-empty-journal to start an empty journal and forget every object)\n",
		       pool->uuid);
		rp->msg = "no member has a usable journal header (see dmesg)";
		rp->damaged = true;
		err = cur == -ENODATA ? -EUCLEAN : cur;
		goto out;
	}
	if (best[cur].block_size < j->hdr.block_size) {
		err = -EUCLEAN;
		rp->msg = "journal block size below the members' block size";
		goto out;
	}
	j->cur = cur;
	j->hdr = best[cur];
	hc_journal_check_header(j, hc, cur, &best[cur], src[cur]);
	if (src[!cur] >= 0)
		hc_journal_check_header(j, hc, !cur, &best[!cur], src[!cur]);

	mir = hc_journal_mirrors_alloc(n, wsize);
	if (!mir) {
		err = -ENOMEM;
		goto out;
	}
	err = hc_journal_replay(j, mir, wsize, rp);
	if (!err)
		hc_journal_log_repaired(j);
out:
	hc_journal_mirrors_free(mir, n);
	kfree(hc);
	if (err) {
		hc_journal_free(j);
		return err;
	}
	pool->journal = j;
	return 0;
}

/* Free the journal of a stopping pool (nothing is written). */
void hc_journal_destroy(struct hc_pool *pool)
{
	hc_journal_free(pool->journal);
	pool->journal = NULL;
}
