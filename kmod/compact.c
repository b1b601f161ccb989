// SPDX-License-Identifier: GPL-2.0
/*
 * Compaction of the slab: format v2's small objects moved out of sparse
 * slab chunks, so that those chunks go back to the chunk allocator
 * (Documentation/on-disk-format.md, "Small objects").
 *
 * A pass plans with the core (hc_slab_plan(): the sparsest slab chunks, at
 * most HC_COMPACT_SPARSE_PCT used, emptied into the free blocks of the
 * others; the destinations reserved, the sources draining), finds the
 * object at each move's source in the index, and moves each one that
 * hc_cache_movable() allows (READY, held by no one, no change under way):
 *
 *  1. copy, the pool lock dropped: read its blocks from their member
 *     (hc_member_io(), not through /dev/hypercacheN: the write fence does
 *     not apply), check them against the object's CRC-32C when it has one,
 *     write them to the destination with FUA and read them back to compare;
 *  2. switch, the pool lock taken again: if the object is the same one, of
 *     the same generation, at the same blocks and still movable,
 *     hc_cache_move() journals it at the destination and switches its
 *     extent; else the destination is given back (hc_slab_put()).
 *
 * Then, after a grace period (a lockless LOCATE may still have read an old
 * extent), the old extent allocations are freed and hc_slab_plan_end()
 * gives the emptied chunks back; a chunk whose objects did not all move
 * stays.  A reader never sees moved bytes change: an object is moved only
 * while nobody holds it, its old blocks keep their bytes until the plan
 * ends, and the new ones hold the same bytes before anyone can see them.
 * A run is a busy change of the cache (hc_cache_busy_change()): a pool stop
 * waits for it.
 *
 * Runs: in the background (system_unbound_wq) once a small object's blocks
 * were put or a large object found no whole chunks, at most once per
 * compact_interval_ms, when hc_slab_compactable(); or at once, by a write
 * to /sys/kernel/debug/hypercache/compact (debugfs.c), which waits for it.
 * The background work never waits for the pool lock (hc_pool_trylock(),
 * retried later): the teardown holds it while it cancels the work
 * (hc_compact_stop()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bsearch.h>
#include <linux/crc32c.h>
#include <linux/jiffies.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/sizes.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>
#include "hypercache.h"

#define HC_COMPACT_SPARSE_PCT	50	/* a source: at most half used */
#define HC_COMPACT_SOURCES	8	/* chunks a pass empties at most */
#define HC_COMPACT_RETRY	(HZ / 10)	/* the pool lock was taken */
#define HC_COMPACT_IO_MAX	SZ_1M	/* hc_member_io()'s limit */
#define HC_COMPACT_WALK_BATCH	1024	/* objects per hold of the pool lock */

static unsigned int hc_compact_interval_ms = 10000;
module_param_named(compact_interval_ms, hc_compact_interval_ms, uint, 0644);
MODULE_PARM_DESC(compact_interval_ms,
		 "least time between two background compactions of the slab, in ms (0: none; default 10000)");

/*
 * Test hook (tests/vm/guest/stage-small.sh): a run stops after this many
 * moves, the next object copied to its destination but not journaled,
 * which leaves the members as a power cut there would; 0: never.
 */
static unsigned int hc_compact_stop_after;
module_param_named(compact_stop_after, hc_compact_stop_after, uint, 0644);
MODULE_PARM_DESC(compact_stop_after,
		 "test hook: a compaction stops after this many moves, the next one copied, not journaled (0: never)");

/* Bytes of the largest small object's blocks: one copy buffer. */
static u32 hc_compact_xfer(const struct hc_cache *c)
{
	return min_t(u32, c->chunk_size, HC_SMALL_OBJ_MAX);
}

/*
 * Synchronous I/O of @len bytes of extent @e (one member: an extent never
 * crosses a chunk) to or from @buf (vmalloc'ed).
 */
static int hc_compact_io(struct hc_pool *pool, const struct hc_sext *e,
			 void *buf, u32 len, blk_opf_t opf)
{
	u64 off = e->chunk * pool->chunk_size +
		  (u64)e->block * HC_SUBBLOCK_SIZE;
	struct hc_stripe_loc loc;
	u32 done, n;
	int err;

	hc_stripe_map(&pool->stripe, off >> SECTOR_SHIFT, &loc);
	if (WARN_ON_ONCE(((u64)loc.chunk_left << SECTOR_SHIFT) < len))
		return -EINVAL;
	for (done = 0; done < len; done += n) {
		n = min(len - done, HC_COMPACT_IO_MAX);
		err = hc_member_io(&pool->members[loc.member],
				   (loc.sector << SECTOR_SHIFT) + done,
				   buf + done, n, opf);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Copy the @size bytes of the object at @m->from to @m->to, durably, and
 * verify the copy: the source against @crc (if @has_crc), the destination
 * read back against the source.  @buf: 2 * hc_compact_xfer() bytes.
 * Without the pool lock; sleeps.  Return: 0, -EBADMSG (the source does not
 * match its CRC-32C), -EIO (the copy reads back different) or the
 * member's errno.
 */
static int hc_compact_copy(struct hc_pool *pool, const struct hc_slab_move *m,
			   u64 size, bool has_crc, u32 crc, void *buf)
{
	u32 len = m->from.nr_blocks * HC_SUBBLOCK_SIZE;
	void *chk = buf + hc_compact_xfer(pool->cache);
	u64 off = m->to.chunk * pool->chunk_size +
		  (u64)m->to.block * HC_SUBBLOCK_SIZE;
	int err;

	err = hc_compact_io(pool, &m->from, buf, len, REQ_OP_READ);
	if (err)
		return err;
	if (has_crc && ~crc32c(~0U, buf, size) != crc)
		return -EBADMSG;
	err = hc_compact_io(pool, &m->to, buf, len,
			    REQ_OP_WRITE | REQ_SYNC | REQ_FUA);
	if (err)
		return err;
	/* pages of what these blocks held before, read through the device */
	invalidate_mapping_pages(hc_bdev_mapping(pool->disk->part0),
				 off >> PAGE_SHIFT, (off + len - 1) >> PAGE_SHIFT);
	err = hc_compact_io(pool, &m->to, chk, len, REQ_OP_READ);
	if (err)
		return err;
	return memcmp(buf, chk, len) ? -EIO : 0;
}

static int hc_compact_cmp(const void *a, const void *b)
{
	const struct hc_sext *x = &((const struct hc_compact_move *)a)->m.from;
	const struct hc_sext *y = &((const struct hc_compact_move *)b)->m.from;

	if (x->chunk != y->chunk)
		return x->chunk < y->chunk ? -1 : 1;
	if (x->block != y->block)
		return x->block < y->block ? -1 : 1;
	return 0;
}

/* The plan in progress, for the index walk: sorted by source. */
struct hc_compact_find {
	struct hc_compact_move *mv;
	u32 n;
	u32 left;		/* objects this hold of the pool lock may visit */
};

/* hc_cache_for_each(): note @obj's URI in the move from its blocks. */
static int hc_compact_find_one(void *arg, struct hc_obj *obj)
{
	struct hc_compact_find *f = arg;
	struct hc_compact_move key, *mv;

	if (!f->left)
		return 1;	/* not taken: the walk resumes at @obj */
	f->left--;
	if (!(obj->flags & HC_OBJ_F_SUBCHUNK) || !obj->nr_ext)
		return 0;
	key.m.from = *obj->sext;
	mv = bsearch(&key, f->mv, f->n, sizeof(*mv), hc_compact_cmp);
	if (!mv || mv->uri || mv->m.from.nr_blocks != obj->sext->nr_blocks)
		return 0;
	mv->uri = kmemdup(obj->uri, obj->uri_len, GFP_KERNEL);
	mv->uri_len = obj->uri_len;
	mv->generation = obj->generation;
	return 0;	/* no memory: not moved */
}

/* Whether @obj is still the object @mv was planned for, and movable. */
static bool hc_compact_same(const struct hc_obj *obj,
			    const struct hc_compact_move *mv)
{
	return obj && hc_cache_movable(obj) &&
	       obj->generation == mv->generation &&
	       obj->sext->chunk == mv->m.from.chunk &&
	       obj->sext->block == mv->m.from.block &&
	       obj->sext->nr_blocks == mv->m.from.nr_blocks;
}

/* @mv is not made: its destination goes back to the slab. */
static void hc_compact_drop(struct hc_cache *c, struct hc_compact_move *mv)
{
	WARN_ON_ONCE(hc_slab_put(&c->slab, &c->alloc, &mv->m.to));
	mv->state = HC_CMOVE_DROPPED;
	c->compact.skipped++;
}

/*
 * Make move @mv (pending): copy without the pool lock, then switch if the
 * object did not change meanwhile.  @last: the test hook stops the run
 * after the copy.  Pool lock held on entry and on return, not throughout.
 * Return: 0 (moved or not), -ECANCELED (@last).
 */
static int hc_compact_one(struct hc_cache *c, struct hc_compact_move *mv,
			  void *buf, bool last)
{
	struct hc_compact *k = &c->compact;
	struct hc_obj *obj;
	struct hc_sext *e, *old;
	bool has_crc;
	u64 size;
	u32 crc;
	int err;

	obj = mv->uri ? hc_cache_lookup(c, mv->uri, mv->uri_len) : NULL;
	if (!hc_compact_same(obj, mv)) {
		hc_compact_drop(c, mv);
		return 0;
	}
	size = obj->size;
	has_crc = obj->flags & HC_OBJ_F_DATA_CRC;
	crc = obj->data_crc;
	hc_pool_unlock();
	err = hc_compact_copy(k->pool, &mv->m, size, has_crc, crc, buf);
	e = kmalloc(sizeof(*e), GFP_KERNEL);
	hc_pool_lock();
	if (err || !e) {
		pr_warn_ratelimited("compaction: \"%*pE\" not moved: its copy failed (%d)\n",
				    mv->uri_len, mv->uri, err ? err : -ENOMEM);
		k->failed++;
		goto out_drop;
	}
	if (last) {
		pr_info("compaction stopped after %llu moves (compact_stop_after)\n",
			k->moved);
		err = -ECANCELED;
		goto out_drop;
	}
	/* the pool lock was dropped: held, changed or gone meanwhile? */
	obj = hc_cache_lookup(c, mv->uri, mv->uri_len);
	if (!hc_compact_same(obj, mv))
		goto out_drop;
	err = hc_cache_move(c, obj, &mv->m.to, e, &old);
	mv->old = old;
	if (!old)
		kfree(e);
	if (!err || err == -EIO) {
		/* -EIO: the record failed; the object is at @to all the same */
		mv->state = HC_CMOVE_MOVED;
		k->moved += !err;
		k->failed += !!err;
		k->bytes_copied += (u64)mv->m.to.nr_blocks * HC_SUBBLOCK_SIZE;
		return 0;
	}
	hc_compact_drop(c, mv);
	return 0;

out_drop:
	kfree(e);
	hc_compact_drop(c, mv);
	return err;
}

/*
 * End the pass over the @n moves @mv: the pending ones dropped, a grace
 * period for lockless readers of the old extents (pool lock dropped),
 * then the plan's end gives the emptied sources back.  Return: the slab
 * chunks freed.
 */
static u32 hc_compact_settle(struct hc_cache *c, struct hc_compact_move *mv,
			     u32 n)
{
	struct hc_compact *k = &c->compact;
	u32 i, freed = 0;

	for (i = 0; i < n; i++)
		if (mv[i].state == HC_CMOVE_PENDING)
			hc_compact_drop(c, &mv[i]);
	hc_pool_unlock();
	synchronize_rcu();
	for (i = 0; i < n; i++) {
		kfree(mv[i].old);
		kfree(mv[i].uri);
	}
	hc_pool_lock();
	for (i = 0; i < c->slab.nr_chunks; i++)
		if (c->slab.chunks[i].draining && !c->slab.chunks[i].nr_objs)
			freed++;
	hc_slab_plan_end(&c->slab, &c->alloc);
	k->moves = NULL;
	k->nr_moves = 0;
	k->chunks_freed += freed;
	return freed;
}

/*
 * Find the URIs of the objects @f's moves are planned for: a walk of the
 * whole index (nothing maps slab blocks back to objects), in batches of
 * HC_COMPACT_WALK_BATCH objects with the pool lock dropped in between, so
 * that LOCATEs with HOLD and commits wait for one batch at most.  Safe: the
 * sources are draining (no new object goes there), the destinations are
 * reserved, and every move checks its object again under the lock
 * (hc_compact_same()); an object found then replaced is skipped.  The
 * cursor (a URI) resumes after the last object visited, whatever changed.
 */
static void hc_compact_find(struct hc_cache *c, struct hc_compact_find *f,
			    struct hc_cache_cursor *cur)
{
	cur->len = 0;
	cur->prefix_len = 0;
	for (;;) {
		f->left = HC_COMPACT_WALK_BATCH;
		if (!hc_cache_for_each(c, cur, hc_compact_find_one, f))
			return;
		hc_pool_unlock();
		cond_resched();
		hc_pool_lock();
	}
}

/*
 * One pass: plan, move, settle.  @stop_at: the test hook's count of moves
 * (0: none).  Return: chunks freed, or -ECANCELED.
 */
static int hc_compact_pass(struct hc_cache *c, struct hc_slab_move *plan,
			   struct hc_compact_move *mv, u32 max, void *buf,
			   struct hc_cache_cursor *cur, u64 stop_at)
{
	struct hc_compact *k = &c->compact;
	struct hc_compact_find f = { .mv = mv };
	int n, i, err = 0;
	u32 freed;

	n = hc_slab_plan(&c->slab, HC_COMPACT_SPARSE_PCT, HC_COMPACT_SOURCES,
			 plan, max);
	if (n <= 0) {
		hc_slab_plan_end(&c->slab, &c->alloc);
		return 0;
	}
	memset(mv, 0, n * sizeof(*mv));
	for (i = 0; i < n; i++)
		mv[i].m = plan[i];
	sort(mv, n, sizeof(*mv), hc_compact_cmp, NULL);
	k->moves = mv;
	k->nr_moves = n;
	f.n = n;
	hc_compact_find(c, &f, cur);
	for (i = 0; i < n && !err; i++)
		err = hc_compact_one(c, &mv[i], buf,
				     stop_at && k->moved == stop_at);
	freed = hc_compact_settle(c, mv, n);
	return err ? err : freed;
}

/**
 * hc_compact_run - compact the slab now
 * @c: the cache, with the pool lock held (dropped for the I/O and between
 *	batches of the index walk)
 * @passes: passes at most (each empties up to HC_COMPACT_SOURCES chunks);
 *	the run ends early when a pass frees no chunk
 *
 * Sleeps.  Return: the slab chunks freed (0: nothing to do, or no slab);
 * -EBUSY (a run is under way, or the pool is stopping); -ENOMEM;
 * -ECANCELED (the test hook compact_stop_after).
 */
int hc_compact_run(struct hc_cache *c, u32 passes)
{
	struct hc_compact *k = &c->compact;
	struct hc_compact_move *mv;
	struct hc_slab_move *plan;
	struct hc_cache_cursor *cur;
	unsigned int stop = READ_ONCE(hc_compact_stop_after);
	u64 stop_at = stop ? k->moved + stop : 0;
	void *buf;
	u32 max, p, freed = 0;
	int err = 0;

	if (!c->slab_chunks || !c->journal)
		return 0;
	if (k->moves || k->stopping)
		return -EBUSY;
	/* a source is at most half used: half its blocks in objects at most */
	max = HC_COMPACT_SOURCES * (c->slab.blocks_per_chunk / 2);
	plan = kvmalloc_array(max, sizeof(*plan), GFP_KERNEL);
	mv = kvmalloc_array(max, sizeof(*mv), GFP_KERNEL);
	buf = vmalloc(2 * hc_compact_xfer(c));
	cur = kmalloc(sizeof(*cur), GFP_KERNEL);
	if (!plan || !mv || !buf || !cur) {
		err = -ENOMEM;
		goto out;
	}
	hc_cache_busy_change(c, true);
	k->runs++;
	for (p = 0; p < passes; p++) {
		err = hc_compact_pass(c, plan, mv, max, buf, cur, stop_at);
		if (err <= 0)
			break;
		freed += err;
	}
	hc_cache_busy_change(c, false);
	if (err >= 0)
		err = freed;
out:
	kfree(cur);
	vfree(buf);
	kvfree(mv);
	kvfree(plan);
	return err;
}

static void hc_compact_work(struct work_struct *work)
{
	struct hc_compact *k = container_of(to_delayed_work(work),
					    struct hc_compact, work);
	struct hc_cache *c = container_of(k, struct hc_cache, compact);
	unsigned int ms = READ_ONCE(hc_compact_interval_ms);
	bool more = false;

	if (!hc_pool_trylock()) {
		/* a teardown may hold it while it cancels this work */
		queue_delayed_work(system_unbound_wq, &k->work,
				   HC_COMPACT_RETRY);
		return;
	}
	if (ms && !k->stopping && !k->moves && hc_pool_current() == k->pool &&
	    c->slab_chunks &&
	    hc_slab_compactable(&c->slab, HC_COMPACT_SPARSE_PCT) &&
	    hc_compact_run(c, 1) > 0 &&
	    hc_slab_compactable(&c->slab, HC_COMPACT_SPARSE_PCT))
		more = true;	/* the next pass, after the interval */
	k->next = jiffies + msecs_to_jiffies(ms);
	if (more)
		hc_compact_kick(c);
	hc_pool_unlock();
}

/* Set up the compaction of a new cache of @pool (nothing runs yet). */
void hc_compact_init(struct hc_cache *c, struct hc_pool *pool)
{
	INIT_DELAYED_WORK(&c->compact.work, hc_compact_work);
	c->compact.pool = pool;
	c->compact.next = jiffies;
}

/**
 * hc_compact_kick - the slab may be worth compacting: queue a background
 * run, no sooner than compact_interval_ms after the last one
 * @c: the cache, with the pool lock held
 *
 * Cheap (the run checks hc_slab_compactable()); never sleeps.
 */
void hc_compact_kick(struct hc_cache *c)
{
	struct hc_compact *k = &c->compact;
	unsigned long now = jiffies;

	if (!READ_ONCE(hc_compact_interval_ms) || k->stopping || k->moves ||
	    c->replaying || !c->slab_chunks)
		return;
	queue_delayed_work(system_unbound_wq, &k->work,
			   time_after(k->next, now) ? k->next - now : 0);
}

/**
 * hc_compact_stop - no compaction runs any more: the pool's teardown
 * @c: the cache (NULL: none), with the pool lock held and no run under
 *	way (hc_cache_quiesce() found none busy)
 *
 * A queued run is cancelled; one waiting for the pool lock gives up.
 * Sleeps.
 */
void hc_compact_stop(struct hc_cache *c)
{
	if (!c)
		return;
	c->compact.stopping = true;
	cancel_delayed_work_sync(&c->compact.work);
}

/**
 * hc_compact_reserved - the destinations the plan in progress reserves
 * @c: the cache, with the pool lock held
 * @blocks: set to their blocks
 *
 * Return: their number: blocks used in the slab by no object yet (the
 * debugfs check counts them).
 */
u64 hc_compact_reserved(const struct hc_cache *c, u64 *blocks)
{
	const struct hc_compact *k = &c->compact;
	u64 n = 0;
	u32 i;

	*blocks = 0;
	for (i = 0; i < k->nr_moves; i++) {
		if (k->moves[i].state != HC_CMOVE_PENDING)
			continue;
		n++;
		*blocks += k->moves[i].m.to.nr_blocks;
	}
	return n;
}

/**
 * hc_compact_show - the counters, one line (debugfs)
 * @c: the cache, with the pool lock held
 * @m: where to print
 */
void hc_compact_show(const struct hc_cache *c, struct seq_file *m)
{
	const struct hc_compact *k = &c->compact;

	seq_printf(m, "runs=%llu moved=%llu skipped=%llu failed=%llu chunks_freed=%llu bytes_copied=%llu\n",
		   k->runs, k->moved, k->skipped, k->failed, k->chunks_freed,
		   k->bytes_copied);
}
