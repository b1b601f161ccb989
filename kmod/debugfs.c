// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/debug/hypercache/check: a consistency verdict on the running
 * pool's cache, computed in the kernel under the pool lock, for the tests
 * (the control-surface fuzzer reads it after every run).
 *
 * Reading it walks the index, the allocator bitmap and the write fence and
 * prints one line, "ok objects=N used=U free=F fenced=X dirty_bytes=D
 * index_buckets=B superseded=S" (B: buckets of the index's table now), or
 * "no pool", or "FAIL" followed by up to HC_DBG_MAX_PROBLEMS lines naming
 * what disagrees.  What must agree:
 *
 *  - every object of the ordered view is found in the index's table under
 *    its URI's hash, the table holds as many as the view, in a valid state,
 *    with extents inside the pool that add up to its chunks, and as many
 *    chunks as its size needs (an INGESTING object before its allocation
 *    has none);
 *  - no chunk belongs to two objects; every chunk of an object is used in
 *    the allocator and every used chunk belongs to an object; the
 *    allocator's free count is the number of unused chunks;
 *  - a chunk is open in the write fence only for the fence of the STAGED
 *    object (or INGESTING one with its allocation) that owns it; a
 *    closed fence (COMMIT and the helper hand-over close it for a moment,
 *    under the pool lock) is not a problem;
 *  - the object and per-state counters, the pinned count and the dirty
 *    bytes match the objects; the egress queue holds exactly the DIRTY and
 *    SYNCING objects, the ingest list exactly the INGESTING ones;
 *  - an object has its struct hc_obj_transit exactly while it is not a
 *    quiet READY one (STAGED, INGESTING, DIRTY, SYNCING, or READY with a
 *    revalidation pending), and the transit names it.
 *
 * The directory is created at module load and removed at unload; a kernel
 * without debugfs gets no file and loses nothing else.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/debugfs.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include "hypercache.h"

#define HC_DBG_MAX_PROBLEMS	16

static struct dentry *hc_dbg_dir;

struct hc_dbg_check {
	struct seq_file *m;
	unsigned int problems;
	unsigned long *owned;	/* chunks seen in some object */
	u64 objects;
	u64 by_state[8];
	u64 pinned;
	u64 used;
	u64 fenced;
	u64 dirty_bytes;
	u64 jbytes;	/* the journal charges of the objects */
	u64 superseded;
	u64 small;		/* small objects (HC_OBJ_F_SUBCHUNK) */
	u64 small_blocks;	/* their blocks */
	u64 slab_chunks;
	u32 buckets;	/* of the index's table */
};

static __printf(2, 3) void hc_dbg_problem(struct hc_dbg_check *k,
					  const char *fmt, ...)
{
	va_list ap;

	if (!k->problems)
		seq_puts(k->m, "FAIL\n");
	if (++k->problems > HC_DBG_MAX_PROBLEMS)
		return;
	va_start(ap, fmt);
	seq_vprintf(k->m, fmt, ap);
	va_end(ap);
	seq_putc(k->m, '\n');
}

/* How much of a URI a message shows (%*pEhp: non-printable bytes in hex). */
static int hc_dbg_ulen(const struct hc_obj *obj)
{
	return min_t(u32, obj->uri_len, 64);
}

/* Whether @a's URI comes strictly before @b's in the ordered view. */
static bool hc_dbg_uri_before(const struct hc_obj *a, const struct hc_obj *b)
{
	int r = memcmp(a->uri, b->uri, min(a->uri_len, b->uri_len));

	return r < 0 || (!r && a->uri_len < b->uri_len);
}

/* Whether @obj's chunks must be open in the fence. */
static bool hc_dbg_fenced(const struct hc_obj *obj)
{
	return obj->state == HC_OBJ_STAGED ||
	       (obj->state == HC_OBJ_INGESTING && hc_obj_allocated(obj));
}

/*
 * A small object's sub-chunk extent: exactly an object of the slab (so
 * its blocks are used there, and no other object starts inside them), its
 * fence on its slab chunk's list while it must be open, none otherwise.
 * That no two objects share a block is the count's: every object of the
 * slab is one object's (hc_dbg_check_slab()).
 */
static void hc_dbg_check_small(struct hc_dbg_check *k, struct hc_cache *c,
			       struct hc_obj *obj)
{
	const struct hc_sext *e = obj->sext;
	struct hc_fence *f;
	bool found = false;

	k->small++;
	k->small_blocks += e->nr_blocks;
	if (obj->nr_ext != 1 || !c->slab_chunks ||
	    !hc_slab_has(&c->slab, e)) {
		hc_dbg_problem(k, "%*pEhp: blocks %u+%u of chunk %llu: no slab object",
			       hc_dbg_ulen(obj), obj->uri, e->block,
			       e->nr_blocks, e->chunk);
		return;
	}
	if ((u64)e->nr_blocks * HC_SUBBLOCK_SIZE < obj->size ||
	    (u64)(e->nr_blocks - 1) * HC_SUBBLOCK_SIZE >= obj->size)
		hc_dbg_problem(k, "%*pEhp: %llu bytes in %u blocks",
			       hc_dbg_ulen(obj), obj->uri, obj->size,
			       e->nr_blocks);
	for (f = rcu_access_pointer(c->fence[e->chunk]); f;
	     f = rcu_access_pointer(f->next)) {
		if (f == hc_obj_fence(obj))
			found = true;
		if (!f->nr_blocks)
			hc_dbg_problem(k, "%*pEhp: slab chunk %llu has a whole-chunk fence",
				       hc_dbg_ulen(obj), obj->uri, e->chunk);
	}
	if (found ? !hc_dbg_fenced(obj) :
	    (hc_dbg_fenced(obj) && !obj->jop && hc_obj_fence(obj) &&
	     !hc_obj_fence(obj)->closed))
		hc_dbg_problem(k, "%*pEhp (state %u): blocks %u+%u of chunk %llu misfenced",
			       hc_dbg_ulen(obj), obj->uri, obj->state, e->block,
			       e->nr_blocks, e->chunk);
}

/*
 * The slab: each slab chunk used in the allocator and no large object's,
 * and its objects exactly the small objects' (counts and blocks).
 */
static void hc_dbg_check_slab(struct hc_dbg_check *k, struct hc_cache *c)
{
	struct hc_slab_stats st = { 0 };
	u64 blocks = 0;
	u32 i;

	if (c->slab_chunks) {
		hc_slab_stats(&c->slab, &st);
		for (i = 0; i < c->slab.nr_chunks; i++) {
			u64 v = c->slab.chunks[i].chunk;

			if (v >= c->nr_chunks) {
				hc_dbg_problem(k, "slab: chunk %llu outside the pool", v);
				continue;
			}
			if (test_and_set_bit(v, k->owned))
				hc_dbg_problem(k, "slab: chunk %llu is an object's too", v);
			if (!hc_alloc_used(&c->alloc, v))
				hc_dbg_problem(k, "slab: chunk %llu is free in the allocator", v);
			/* a compaction's source, emptied: freed at its end */
			if (!c->slab.chunks[i].nr_objs &&
			    !c->slab.chunks[i].draining)
				hc_dbg_problem(k, "slab: chunk %llu holds no object", v);
		}
		if (c->slab.bad_puts)
			hc_dbg_problem(k, "slab: %llu refused puts", c->slab.bad_puts);
	}
	/* a compaction's reserved destinations: blocks of no object yet */
	st.objects -= hc_compact_reserved(c, &blocks);
	st.used_blocks -= blocks;
	if (st.objects != k->small || st.used_blocks != k->small_blocks)
		hc_dbg_problem(k, "slab: %llu objects in %llu blocks, small ones %llu in %llu",
			       st.objects, st.used_blocks, k->small,
			       k->small_blocks);
	k->slab_chunks = st.chunks;
}

/* @obj's extents: inside the pool, owned once, used, fenced as it must. */
static void hc_dbg_check_extents(struct hc_dbg_check *k, struct hc_cache *c,
				 struct hc_obj *obj)
{
	u64 sum = 0, want;
	u32 i;

	if (obj->flags & HC_OBJ_F_SUBCHUNK) {
		hc_dbg_check_small(k, c, obj);
		return;
	}

	if (obj->nr_ext > HC_MAX_EXTENTS) {
		hc_dbg_problem(k, "%*pEhp: %u extents", hc_dbg_ulen(obj), obj->uri,
			       obj->nr_ext);
		return;
	}
	for (i = 0; i < obj->nr_ext; i++) {
		const struct hc_ext *e = &obj->ext[i];
		struct hc_fence *f;
		u64 v;

		if (!e->count || e->start >= c->nr_chunks ||
		    e->count > c->nr_chunks - e->start) {
			hc_dbg_problem(k, "%*pEhp: extent %u [%llu, +%llu) outside the %llu chunks",
				       hc_dbg_ulen(obj), obj->uri, i, e->start,
				       e->count, c->nr_chunks);
			continue;
		}
		sum += e->count;
		for (v = e->start; v < e->start + e->count; v++) {
			if (test_and_set_bit(v, k->owned))
				hc_dbg_problem(k, "%*pEhp: chunk %llu is another object's too",
					       hc_dbg_ulen(obj), obj->uri, v);
			if (!hc_alloc_used(&c->alloc, v))
				hc_dbg_problem(k, "%*pEhp: chunk %llu is free in the allocator",
					       hc_dbg_ulen(obj), obj->uri, v);
			f = rcu_access_pointer(c->fence[v]);
			if (f && (!hc_dbg_fenced(obj) || f != hc_obj_fence(obj)))
				hc_dbg_problem(k, "%*pEhp (state %u): chunk %llu misfenced",
					       hc_dbg_ulen(obj), obj->uri, obj->state,
					       v);
		}
	}
	/* not DIV_ROUND_UP_ULL(): it wraps for sizes near 2^64 */
	want = div_u64(obj->size, c->chunk_size) + !!(obj->size % c->chunk_size);
	if (obj->state == HC_OBJ_INGESTING && !hc_obj_allocated(obj))
		want = 0;
	if (sum != want)
		hc_dbg_problem(k, "%*pEhp: %llu bytes in %llu chunks, need %llu",
			       hc_dbg_ulen(obj), obj->uri, obj->size, sum, want);
}

static void hc_dbg_check_obj(struct hc_dbg_check *k, struct hc_cache *c,
			     struct hc_obj *obj)
{
	const struct hc_obj_transit *t;
	bool quiet;

	k->objects++;
	if (obj->pe.key != hc_cache_hash(c, obj->uri, obj->uri_len))
		hc_dbg_problem(k, "%*pEhp: hash %llx is not its URI's",
			       hc_dbg_ulen(obj), obj->uri, obj->pe.key);
	if (!hc_cache_index_has(c, obj))
		hc_dbg_problem(k, "%*pEhp: not in the index's table under its hash",
			       hc_dbg_ulen(obj), obj->uri);
	if (obj->state < HC_OBJ_INGESTING || obj->state > HC_OBJ_SYNCING) {
		hc_dbg_problem(k, "%*pEhp: state %u", hc_dbg_ulen(obj), obj->uri,
			       obj->state);
		return;
	}
	k->by_state[obj->state]++;
	/* a transit from the start of a busy period to its end (cache.h) */
	quiet = obj->state == HC_OBJ_READY && !hc_obj_m(obj, HC_OBJ_M_REVAL);
	t = hc_obj_transit(obj);
	if (!t != quiet || (t && t->obj != obj))
		hc_dbg_problem(k, "%*pEhp (state %u%s): %s",
			       hc_dbg_ulen(obj), obj->uri, obj->state,
			       hc_obj_m(obj, HC_OBJ_M_REVAL) ? ", revalidating" : "",
			       !t ? "no transit" :
			       t->obj != obj ? "another's transit" :
			       "a transit left");
	if (obj->flags & HC_OBJ_F_PINNED)
		k->pinned++;
	if (obj->state == HC_OBJ_DIRTY || obj->state == HC_OBJ_SYNCING)
		k->dirty_bytes += obj->size;
	/* charged from STAGE, INGEST_ALLOC or its replay on */
	if (c->journal && !hc_obj_m(obj, HC_OBJ_M_CHARGED) &&
	    (obj->state != HC_OBJ_INGESTING || hc_obj_allocated(obj)))
		hc_dbg_problem(k, "%*pEhp (state %u): indexed, not charged to the journal",
			       hc_dbg_ulen(obj), obj->uri, obj->state);
	k->jbytes += hc_obj_jbytes(c, obj);
	hc_dbg_check_extents(k, c, obj);
}

static void hc_dbg_check_cache(struct hc_dbg_check *k, struct hc_cache *c)
{
	struct hc_obj *obj, *prev = NULL;
	struct hc_obj_transit *t;
	const char *why;
	u64 v, n;
	u32 s;

	if (hc_otree_check(&c->ordered, &why))
		hc_dbg_problem(k, "the ordered view's tree: %s", why);
	for (obj = hc_cache_ordered_first(c); obj;
	     obj = hc_cache_ordered_next(c, obj)) {
		if (prev && !hc_dbg_uri_before(prev, obj))
			hc_dbg_problem(k, "%*pEhp: out of order in the ordered view",
				       hc_dbg_ulen(obj), obj->uri);
		if (!hc_obj_m(obj, HC_OBJ_M_INDEXED))
			hc_dbg_problem(k, "%*pEhp: in the ordered view, not marked indexed",
				       hc_dbg_ulen(obj), obj->uri);
		prev = obj;
		hc_dbg_check_obj(k, c, obj);
		if (!(k->objects % 256))
			cond_resched();
	}
	k->buckets = hc_cache_index_buckets(c);
	if (atomic_read(&c->index.nelems) != k->objects)
		hc_dbg_problem(k, "index: the table holds %d objects, the ordered view %llu",
			       atomic_read(&c->index.nelems), k->objects);
	/* superseded generations keep their chunks while they are held */
	list_for_each_entry(obj, &c->superseded, gone_node) {
		k->superseded++;
		/* busy: its DELETE is being written, then it is freed */
		if (!atomic_read(&obj->holds) && !obj->jop)
			hc_dbg_problem(k, "%*pEhp: superseded and not held",
				       hc_dbg_ulen(obj), obj->uri);
		hc_dbg_check_extents(k, c, obj);
	}
	/* evicted, their DELETEs being written: chunks kept until durable */
	list_for_each_entry(obj, &c->doomed, gone_node)
		hc_dbg_check_extents(k, c, obj);

	hc_dbg_check_slab(k, c);
	for (v = 0; v < c->nr_chunks; v++) {
		bool used = hc_alloc_used(&c->alloc, v);

		if (!(v % 65536))
			cond_resched();

		k->used += used;
		if (used && !test_bit(v, k->owned))
			hc_dbg_problem(k, "chunk %llu is used by no object (leak)", v);
		if (rcu_access_pointer(c->fence[v])) {
			k->fenced++;
			if (!test_bit(v, k->owned))
				hc_dbg_problem(k, "chunk %llu is fenced open for no object",
					       v);
		}
	}
	if (hc_alloc_free(&c->alloc) != c->nr_chunks - k->used)
		hc_dbg_problem(k, "allocator: %llu free, bitmap has %llu of %llu used",
			       hc_alloc_free(&c->alloc), k->used, c->nr_chunks);
	if (c->alloc.bad_puts)
		hc_dbg_problem(k, "allocator: %llu refused puts", c->alloc.bad_puts);

	if (c->stats.objects != k->objects)
		hc_dbg_problem(k, "stats: %llu objects, index has %llu",
			       c->stats.objects, k->objects);
	for (s = HC_OBJ_INGESTING; s <= HC_OBJ_SYNCING; s++)
		if (c->stats.by_state[s] != k->by_state[s])
			hc_dbg_problem(k, "stats: %llu objects in state %u, index has %llu",
				       c->stats.by_state[s], s, k->by_state[s]);
	if (c->stats.pinned != k->pinned)
		hc_dbg_problem(k, "stats: %llu pinned, index has %llu",
			       c->stats.pinned, k->pinned);
	if (c->dirty_bytes != k->dirty_bytes)
		hc_dbg_problem(k, "dirty_bytes %llu, the dirty objects hold %llu",
			       c->dirty_bytes, k->dirty_bytes);
	if (c->jbytes != k->jbytes)
		hc_dbg_problem(k, "journal charged %llu bytes, the objects' records take %llu",
			       c->jbytes, k->jbytes);

	n = 0;
	list_for_each_entry(t, &c->egress, queue_node) {
		obj = t->obj;
		n++;
		if (obj->state != HC_OBJ_DIRTY && obj->state != HC_OBJ_SYNCING)
			hc_dbg_problem(k, "%*pEhp: in the egress queue in state %u",
				       hc_dbg_ulen(obj), obj->uri, obj->state);
	}
	if (n != k->by_state[HC_OBJ_DIRTY] + k->by_state[HC_OBJ_SYNCING])
		hc_dbg_problem(k, "egress queue: %llu objects, %llu are dirty or syncing",
			       n, k->by_state[HC_OBJ_DIRTY] +
			       k->by_state[HC_OBJ_SYNCING]);
	n = 0;
	list_for_each_entry(t, &c->ingests, queue_node) {
		obj = t->obj;
		n++;
		if (obj->state != HC_OBJ_INGESTING)
			hc_dbg_problem(k, "%*pEhp: in the ingest list in state %u",
				       hc_dbg_ulen(obj), obj->uri, obj->state);
	}
	if (n != k->by_state[HC_OBJ_INGESTING])
		hc_dbg_problem(k, "ingest list: %llu objects, %llu are ingesting",
			       n, k->by_state[HC_OBJ_INGESTING]);
	/* revalidations with the helper: READY objects marked pending */
	list_for_each_entry(t, &c->revals, queue_node) {
		obj = t->obj;
		if (obj->state != HC_OBJ_READY || !hc_obj_m(obj, HC_OBJ_M_REVAL) ||
		    hc_obj_superseded(obj))
			hc_dbg_problem(k, "%*pEhp: revalidating in state %u%s",
				       hc_dbg_ulen(obj), obj->uri, obj->state,
				       hc_obj_m(obj, HC_OBJ_M_REVAL) ? "" : ", not pending");
	}
}

static int hc_dbg_check_show(struct seq_file *m, void *unused)
{
	struct hc_dbg_check k = { .m = m };
	struct hc_pool *pool;
	struct hc_cache *c;

	hc_pool_lock();
	pool = hc_pool_current();
	c = pool ? pool->cache : NULL;
	if (!c) {
		hc_pool_unlock();
		seq_puts(m, "no pool\n");
		return 0;
	}
	k.owned = bitmap_zalloc(c->nr_chunks, GFP_KERNEL);
	if (!k.owned) {
		hc_pool_unlock();
		return -ENOMEM;
	}
	hc_dbg_check_cache(&k, c);
	if (!k.problems)
		seq_printf(m, "ok objects=%llu used=%llu free=%llu fenced=%llu dirty_bytes=%llu small=%llu slab_chunks=%llu small_blocks=%llu index_buckets=%u superseded=%llu\n",
			   k.objects, k.used, c->nr_chunks - k.used, k.fenced,
			   k.dirty_bytes, k.small, k.slab_chunks,
			   k.small_blocks, k.buckets, k.superseded);
	else if (k.problems > HC_DBG_MAX_PROBLEMS)
		seq_printf(m, "(%u more)\n", k.problems - HC_DBG_MAX_PROBLEMS);
	hc_pool_unlock();
	bitmap_free(k.owned);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hc_dbg_check);

/*
 * /sys/kernel/debug/hypercache/compact: reading it prints the running
 * pool's compaction counters (kmod/compact.c), one line "runs=R moved=M
 * skipped=S failed=F chunks_freed=C bytes_copied=B", or "no pool"; writing
 * anything compacts the slab now and returns when it is done: ENODEV (no
 * pool runs), EBUSY (a compaction is under way), ENOMEM, ECANCELED (the
 * compact_stop_after test hook stopped it).
 */
static int hc_dbg_compact_show(struct seq_file *m, void *unused)
{
	struct hc_pool *pool;

	hc_pool_lock();
	pool = hc_pool_current();
	if (pool)
		hc_compact_show(pool->cache, m);
	else
		seq_puts(m, "no pool\n");
	hc_pool_unlock();
	return 0;
}

static int hc_dbg_compact_open(struct inode *inode, struct file *file)
{
	return single_open(file, hc_dbg_compact_show, inode->i_private);
}

static ssize_t hc_dbg_compact_write(struct file *file, const char __user *buf,
				    size_t len, loff_t *ppos)
{
	struct hc_pool *pool;
	int err;

	hc_pool_lock();
	pool = hc_pool_current();
	err = pool ? hc_compact_run(pool->cache, HC_COMPACT_RUN_PASSES) :
		     -ENODEV;
	hc_pool_unlock();
	return err < 0 ? err : len;
}

static const struct file_operations hc_dbg_compact_fops = {
	.owner		= THIS_MODULE,
	.open		= hc_dbg_compact_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= hc_dbg_compact_write,
};

/*
 * Create /sys/kernel/debug/hypercache/check and compact (failures are not
 * fatal).
 */
void hc_debugfs_init(void)
{
	hc_dbg_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("check", 0400, hc_dbg_dir, NULL, &hc_dbg_check_fops);
	debugfs_create_file("compact", 0600, hc_dbg_dir, NULL,
			    &hc_dbg_compact_fops);
}

void hc_debugfs_exit(void)
{
	debugfs_remove_recursive(hc_dbg_dir);
	hc_dbg_dir = NULL;
}
