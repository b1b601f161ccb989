// SPDX-License-Identifier: GPL-2.0
/*
 * The object journal (see journal.h and Documentation/journal.md).
 *
 * It is mirrored: every record goes to the same offset of every member, and
 * is acknowledged only when it is durable on all of them (each record is
 * written with PREFLUSH|FUA, so it is also ordered after the data and the
 * records before it).  Replay reads the first member that answers.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "cache.h"
#include "journal.h"
#include "hypercache.h"

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
	return 0;
}

/* Read @len bytes at @off of the first member that can. */
static int hc_journal_read(struct hc_journal *j, u64 off, void *buf,
			   size_t len)
{
	struct hc_pool *pool = j->pool;
	int err = -EIO;
	u32 i;

	for (i = 0; i < pool->nr_members; i++) {
		err = hc_member_io(&pool->members[i], off, buf, len,
				   REQ_OP_READ | REQ_SYNC | REQ_META);
		if (!err)
			return 0;
	}
	return err;
}

static void hc_journal_fill(struct hc_jrec *r, const struct hc_obj *obj,
			    u32 type, u32 state, u32 flags)
{
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
	memcpy(r->ext, obj->ext, obj->nr_ext * sizeof(*obj->ext));
}

/* Whether the journal records @obj: its data is complete. */
static bool hc_journal_keeps(const struct hc_obj *obj)
{
	return hc_obj_valid(obj);
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

/* Encode @obj into the compaction batch, writing the batch out when full. */
static int hc_journal_batch_obj(void *arg, struct hc_obj *obj)
{
	struct hc_journal_batch *b = arg;
	struct hc_journal *j = b->j;
	int len, tries;

	if (!hc_journal_keeps(obj))
		return 0;
	hc_journal_fill(j->crec, obj, HC_JREC_OBJECT,
			obj->state == HC_OBJ_SYNCING ? HC_OBJ_DIRTY : obj->state,
			obj->flags);
	for (tries = 0; tries < 2; tries++) {
		size_t room = min_t(u64, HC_JOURNAL_BUF - b->used,
				    j->half_size - b->pos.off);

		len = hc_jrec_encode(j->crec, b->h, &b->pos, j->buf + b->used,
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

/* As hc_journal_batch_obj(), for the objects not in the egress queue. */
static int hc_journal_batch_clean(void *arg, struct hc_obj *obj)
{
	if (obj->state == HC_OBJ_DIRTY || obj->state == HC_OBJ_SYNCING)
		return 0;
	return hc_journal_batch_obj(arg, obj);
}

/*
 * Write every live object into the other half under a new header (epoch
 * + 1), then make that half current.  The DIRTY and SYNCING objects go
 * first, in egress (commit) order, so that replay queues them in that
 * order again.  The header write is the commit
 * point: until it is durable, the old half stays current and complete.
 */
static int hc_journal_compact(struct hc_journal *j)
{
	struct hc_pool *pool = j->pool;
	int other = !j->cur;
	struct hc_jrec_hdr h = {
		.version = HC_JOURNAL_VERSION,
		.block_size = j->hdr.block_size,
		.epoch = j->hdr.epoch + 1,
		.start_seq = j->pos.seq,
		.half_size = j->half_size,
	};
	struct hc_journal_batch b = { .j = j, .h = &h };
	struct hc_obj *obj;
	u64 it = 0;
	u32 i;
	int err;

	memcpy(h.pool_uuid, pool->uuid, sizeof(h.pool_uuid));
	err = hc_jrec_hdr_encode(&h, j->hdrblk);	/* computes h.csum */
	if (err)
		return err;
	hc_jrec_pos_init(&b.pos, &h);
	b.batch_off = b.pos.off;
	b.half = j->half_off[other];

	err = 0;
	list_for_each_entry(obj, &pool->cache->egress, queue_node) {
		err = hc_journal_batch_obj(&b, obj);
		if (err)
			break;
	}
	if (!err)
		err = hc_cache_for_each(pool->cache, &it, hc_journal_batch_clean,
					&b);
	if (!err)
		err = hc_journal_flush_batch(&b);
	if (err) {
		pr_err("%s: journal compaction failed (%d)\n",
		       pool->name, err);
		return err;
	}
	for (i = 0; i < pool->nr_members; i++) {
		err = blkdev_issue_flush(pool->members[i].dev.bdev);
		if (err) {
			j->broken = true;
			return err;
		}
	}
	err = hc_journal_write(j, j->half_off[other], j->hdrblk, HC_JHDR_SIZE,
			       HC_JOURNAL_SYNC);
	if (err)
		return err;
	j->cur = other;
	j->hdr = h;
	j->pos = b.pos;
	j->compactions++;
	return 0;
}

/* Append j->rec, compacting first if the current half is full. */
static int hc_journal_append(struct hc_journal *j)
{
	int len, err;

	if (j->broken)
		return -EIO;
	len = hc_jrec_encode(j->rec, &j->hdr, &j->pos, j->buf,
			     min_t(u64, HC_JOURNAL_BUF,
				   j->half_size - j->pos.off));
	if (len == -ENOSPC) {
		err = hc_journal_compact(j);
		if (err)
			return err;
		len = hc_jrec_encode(j->rec, &j->hdr, &j->pos, j->buf,
				     min_t(u64, HC_JOURNAL_BUF,
					   j->half_size - j->pos.off));
	}
	if (len < 0)
		return len;
	err = hc_journal_write(j, j->half_off[j->cur] + j->pos.off, j->buf,
			       len, HC_JOURNAL_SYNC);
	if (err)
		return err;
	hc_jrec_advance(&j->pos, j->buf);
	j->records++;
	return 0;
}

/**
 * hc_journal_put - record the full state of an object, durably
 * @j: the journal
 * @obj: the object (its extents, size, generation, data CRC)
 * @state: the state to record (the caller changes obj->state on success)
 * @flags: the HC_OBJ_F_* flags to record
 *
 * Return: 0 once the record is durable on every member; -EIO (the journal
 * is broken); -ENOSPC (the live objects no longer fit in a half).
 */
int hc_journal_put(struct hc_journal *j, const struct hc_obj *obj, u32 state,
		   u32 flags)
{
	hc_journal_fill(j->rec, obj, HC_JREC_OBJECT, state, flags);
	return hc_journal_append(j);
}

/**
 * hc_journal_delete - record that an object is gone, durably
 * @j: the journal
 * @obj: the object
 *
 * Must be durable before the object's chunks are used again.
 * Return: as hc_journal_put().
 */
int hc_journal_delete(struct hc_journal *j, const struct hc_obj *obj)
{
	hc_journal_fill(j->rec, obj, HC_JREC_DELETE, 0, 0);
	return hc_journal_append(j);
}

static void hc_journal_free(struct hc_journal *j)
{
	if (!j)
		return;
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
	j->rec = kvmalloc(sizeof(*j->rec), GFP_KERNEL);
	j->crec = kvmalloc(sizeof(*j->crec), GFP_KERNEL);
	j->hdrblk = kzalloc(HC_JHDR_SIZE, GFP_KERNEL);
	j->buf = vmalloc(HC_JOURNAL_BUF);
	if (!j->rec || !j->crec || !j->hdrblk || !j->buf ||
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

/* Start an empty journal in half A (epoch 1). */
static int hc_journal_start(struct hc_journal *j)
{
	struct hc_pool *pool = j->pool;
	int err;

	j->hdr.version = HC_JOURNAL_VERSION;
	j->hdr.epoch = 1;
	j->hdr.start_seq = 1;
	j->hdr.half_size = j->half_size;
	memcpy(j->hdr.pool_uuid, pool->uuid, sizeof(j->hdr.pool_uuid));
	err = hc_jrec_hdr_encode(&j->hdr, j->hdrblk);
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
 * hc_journal_create - the journal of a newly created pool
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

/*
 * Replay the current half into the cache: every record of its log, read
 * through a window of HC_JOURNAL_BUF bytes.  Return: 0 (the log ended at
 * a torn, stale or absent record), or a negative errno that refuses the
 * assembly.
 */
static int hc_journal_replay(struct hc_journal *j, const char **msg)
{
	struct hc_cache *c = j->pool->cache;
	u64 base = j->half_off[j->cur];
	u64 win_off = 0, win_len = 0;
	struct hc_jrec_pos pos;
	int ret, err;

	hc_jrec_pos_init(&pos, &j->hdr);
	for (;;) {
		/* Keep the largest record (well under 8 KiB) inside the window. */
		if (!win_len || pos.off + 8192 > win_off + win_len) {
			win_off = round_down(pos.off, PAGE_SIZE);
			win_len = min_t(u64, HC_JOURNAL_BUF,
					j->half_size - win_off);
			err = hc_journal_read(j, base + win_off, j->buf,
					      round_up(win_len, SECTOR_SIZE));
			if (err) {
				*msg = "cannot read the journal";
				return err;
			}
		}
		ret = hc_jrec_decode(j->buf + (pos.off - win_off),
				     win_off + win_len - pos.off, &j->hdr, &pos,
				     j->crec);
		if (ret == -ENODATA || ret == -EBADMSG || ret == -ESTALE)
			break;		/* the end of the log */
		if (ret < 0) {
			*msg = ret == -EOPNOTSUPP ?
			       "journal record of a newer format version" :
			       "corrupt journal record";
			return ret;
		}
		err = hc_cache_restore(c, j->crec);
		if (err) {
			*msg = err == -EUCLEAN ?
			       "corrupt journal record (extent outside the pool)" :
			       "cannot restore a journal record";
			return err;
		}
		hc_jrec_advance(&pos, j->buf + (pos.off - win_off));
	}
	j->pos = pos;
	return 0;
}

/**
 * hc_journal_open - replay the journal of an assembled pool
 * @pool: the pool; members open, cache empty
 * @msg: set to a static reason on failure
 *
 * Brings back READY, DIRTY (SYNCING as DIRTY) and pinned objects with their
 * extents; INGESTING and STAGED ones are dropped.  Then compacts into the
 * other half, so every member's copy is identical again.  A pool without a
 * journal (neither half has a header of this pool) starts an empty one.
 *
 * Return: 0; -EOPNOTSUPP (newer format), -EUCLEAN (corrupt: two valid
 * headers of one epoch, a record out of range, two objects on one chunk),
 * -EIO, -ENOMEM.
 */
int hc_journal_open(struct hc_pool *pool, const char **msg)
{
	struct hc_jrec_hdr hdr[2];
	struct hc_journal *j;
	int err_h[2], cur, err, h;

	*msg = "cannot allocate the journal";
	j = hc_journal_alloc(pool);
	if (!j)
		return -ENOMEM;
	for (h = 0; h < 2; h++) {
		err_h[h] = hc_journal_read(j, j->half_off[h], j->hdrblk,
					   HC_JHDR_SIZE);
		if (!err_h[h])
			err_h[h] = hc_jrec_hdr_decode(j->hdrblk, pool->uuid,
						      &hdr[h]);
	}
	cur = hc_jrec_current(&hdr[0], err_h[0], &hdr[1], err_h[1]);
	if (cur == -ENODATA) {
		err = hc_journal_start(j);
		*msg = "cannot start the journal";
		goto out;
	}
	if (cur < 0) {
		err = cur;
		*msg = cur == -EOPNOTSUPP ? "journal of a newer format version" :
		       cur == -EUCLEAN ? "corrupt journal headers" :
		       "cannot read the journal";
		goto out;
	}
	if (hdr[cur].block_size < j->hdr.block_size) {
		err = -EUCLEAN;
		*msg = "journal block size below the members' block size";
		goto out;
	}
	j->cur = cur;
	j->hdr = hdr[cur];

	err = hc_journal_replay(j, msg);
	if (err)
		goto out;
	err = hc_cache_restore_finish(pool->cache);
	if (err) {
		*msg = "two journaled objects claim one chunk";
		goto out;
	}
	err = hc_journal_compact(j);
	*msg = "cannot compact the journal";
out:
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
