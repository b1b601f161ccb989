// SPDX-License-Identifier: GPL-2.0
/*
 * The object cache (see cache.h): index, policy, allocator and write fence
 * of one pool.
 *
 * Locking rules
 *
 * - The pool lock (hc_pool_lock(), a mutex) serialises every change: the
 *   index, the policy, the allocator, the queues, the counters in
 *   hc_cache.stats and every field of struct hc_obj.
 * - Changes that wait for members let go of it for the I/O: COMMIT (the
 *   write-back, the fence's drain, the members' flushes and the journal
 *   record), INGEST_DONE (the flushes and the record), EGRESS_DONE and a
 *   pin (the record).  Under the lock the object is marked busy
 *   (hc_obj.jop, hc_cache_busy_begin()) in its state, which every other
 *   change of it checks (and unevictable in the policy); the record is
 *   encoded with the journal mutex taken under the pool lock (lock order:
 *   pool lock -> journal mutex, journal.h; hc_journal_lock() waits for the
 *   mutex without the pool lock), written with the pool lock dropped, and
 *   applied (or undone, the errno to the caller) once the lock is retaken
 *   (hc_cache_journal_out()).  A caller that finds an object busy either
 *   fails with -EBUSY or waits (hc_cache_busy_wait()) and looks it up again.
 * - Evictions (the victims of an admission, HC_IOC_EVICT and netlink
 *   EVICT, hc_cache_supersede()) take the journal mutex first, then take
 *   the objects out of the index (hc_cache_doom(): no LOCATE finds them, no
 *   hold can be taken), encode their DELETEs as one batch and write it with
 *   the pool lock dropped (hc_cache_deletes_out()); the chunks stay
 *   allocated, on hc_cache.doomed, until the DELETEs are durable, so a
 *   crash before that replays the objects intact.  The mutex is taken
 *   before they leave the index so that no record of a new object of one of
 *   their URIs can precede their DELETE.  An admission takes it only when
 *   the policy may evict (hc_policy_would_evict()); the object being
 *   admitted is busy or not yet indexed meanwhile.  An allocation that
 *   finds its room in chunks still being deleted waits for them.
 * - Compaction, when a record does not fit in the current half: the
 *   writer takes a snapshot of the objects the log holds under both locks
 *   (hc_cache_walk_journaled()) and writes the new half without the pool
 *   lock, the journal mutex held throughout (journal.h).  The objects stay
 *   and their journaled fields (URI, size, generation, extents, flags, CRC,
 *   backend version) do not change meanwhile: a journaled object leaves the
 *   index only through a DELETE, and every change of those fields is
 *   journaled, made with the journal mutex held (a pin's flag, EGRESS_DONE's
 *   backend version) or made while the object is not journaled yet (STAGED,
 *   INGESTING: COMMIT's and INGEST_DONE's CRC, INGEST_ALLOC's backend
 *   version).  The assembly's and an upgrade's compaction run
 *   under the pool lock (nothing else runs then).
 * - A pool stop waits for the busy objects, the DELETE batches in flight
 *   and a compaction of the slab (hc_cache.nr_busy, hc_cache_quiesce()).
 * - Lockless readers of the index (hc_cache_locate_fast(), the LOCATE hit
 *   path) run under rcu_read_lock() on the pool published for RCU
 *   (hc_pool_current_rcu(); a stop unpublishes it and waits a grace period
 *   before the teardown).  For them: objects enter and leave the index's
 *   table (an rhashtable, "The index" below: resized by the kernel's
 *   worker, lookups safe under RCU during a resize) with
 *   rhashtable_lookup_insert_fast() and rhashtable_remove_fast() under
 *   the pool lock, and are freed (with their
 *   extents) by call_rcu() after they left; an object's state is
 *   published with smp_store_release() and read with smp_load_acquire();
 *   once READY, DIRTY or SYNCING an object's uri, pe.key, size, generation,
 *   chunks, nr_ext and ext never change (a replacement is a new object),
 *   except a small object's sext: the slab's compaction (hc_cache_move())
 *   points it at a new allocation with smp_store_release() while the
 *   object is READY and held by no one, readers take one READ_ONCE()
 *   snapshot of it (hc_obj_extent()), and the old allocation and its
 *   blocks are freed after a grace period (kmod/compact.c);
 *   flags, mflags (bad, revalidation pending) and checked are read with
 *   READ_ONCE() (a
 *   snapshot; a hold of an object due for revalidation retries locked).  A reader that
 *   finds anything else (a miss, a pending or bad object, an unsettled
 *   read error, a replay) retries with the pool lock.
 * - Holds (hc_obj.holds, atomic_t): the first hold on an object and the
 *   release of its last one happen only under the pool lock
 *   (hc_cache_hold(), which also tells the policy and counts the object in
 *   stats.held); a further hold may be taken without it, under RCU, by
 *   hc_cache_hold_more(), which succeeds only while the count is not zero
 *   (and below HC_OBJ_HOLDS_MAX, which bounds it: cache.h).
 *   So under the pool lock "holds is zero" cannot change, and everything
 *   that tests it there (eviction, the policy's HELD flag, stats.held and
 *   so hc_cache_busy(), which refuses a pool stop) stays true.  The caller
 *   of hc_cache_hold_more() owns a hold already (ctl.c: its file's entry),
 *   so the object is not evicted, replaced or freed meanwhile.
 * - A held object whose URI gets a new generation through the view
 *   (hc_cache_supersede()) leaves the index but lives on, on
 *   hc_cache.superseded, until its last hold goes (hc_cache_hold() frees
 *   it and its chunks then): its readers keep reading its bytes.
 * - Their hits are counted in the per-CPU hc_cache.hits and recorded in
 *   the lossy per-CPU read buffer (hc_cache.readbuf), applied to the
 *   policy under the pool lock (hc_cache_readbuf_drain()): before every
 *   admission, and when a buffer fills and the lock is free.
 * - The data path (no lock): the write fence under RCU
 *   (hc_cache_fence_get()/_put()/_failed()/_refused()) and the per-chunk
 *   read-error bits
 *   (hc_cache_read_error()), applied under the pool lock
 *   (hc_cache_bad_settle()).
 * - The data path never takes the pool lock, and no sleeping lock is
 *   taken under rcu_read_lock() (a full read buffer is drained only with
 *   mutex_trylock(), after rcu_read_unlock()).
 * - Lookups under the pool lock (hc_cache_lookup(), the read buffer's
 *   drain) take rcu_read_lock() too, which the table's lookup asks for;
 *   the pool lock is what keeps the object they return.
 * - Walks of the whole index never use the table: they follow the
 *   ordered view (hc_cache.ordered, a B+tree in URI order, changed with
 *   the table under the pool lock), which a resize does not reorder, so a
 *   resumable walk (hc_cache_for_each() with a cursor: the URI of the
 *   last object visited) misses and repeats nothing across messages.
 * - Walks of the whole index or a whole queue (hc_cache_destroy(), the
 *   replay's hc_cache_restore_finish(), compaction's
 *   hc_cache_walk_journaled(), hc_cache_for_each() of dumps,
 *   hc_cache_bad_settle(), debugfs's check, the journal's replay loop)
 *   call cond_resched() every HC_INDEX_WALK_BATCH objects or between
 *   records: with a million
 *   objects one pass takes longer than the RCU stall limit (21 s) under
 *   TCG, and without a preemption point (PREEMPT_VOLUNTARY) it starves
 *   RCU's grace-period kthread.  So they must run in process context
 *   holding no spinlock and outside rcu_read_lock(); the pool mutex is
 *   the only lock they hold.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/completion.h>
#include <linux/crc32.h>
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/rhashtable.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include "cache.h"
#include "journal.h"
#include "hypercache.h"
#include "trace.h"

/*
 * The queues that LOCATE with WAIT, the view's lookups and revalidations
 * sleep on until their object changes (hc_ctl_wait()), one per bucket of
 * the URI's hash: an object's change wakes the waiters of its URI and of
 * the few that share its bucket, not every waiter of the pool (a preload
 * of 64 objects at once woke all 64 waiters, each to take the pool lock
 * and look again, at every state change of every object).
 */
#define HC_CACHE_WAITQ_BITS	8
static struct hc_cache_waitq hc_cache_waitqs[1 << HC_CACHE_WAITQ_BITS];

struct hc_cache_waitq *hc_cache_waitq(u64 hash)
{
	return &hc_cache_waitqs[hash_64(hash, HC_CACHE_WAITQ_BITS)];
}

static void hc_cache_waitq_wake(struct hc_cache_waitq *q)
{
	atomic_inc(&q->events);
	wake_up_all(&q->wq);
}

void hc_cache_wake_all(void)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(hc_cache_waitqs); i++)
		hc_cache_waitq_wake(&hc_cache_waitqs[i]);
}

DECLARE_WAIT_QUEUE_HEAD(hc_dirty_wait);
atomic_t hc_dirty_events = ATOMIC_INIT(0);

/* Woken when a closed fence's last admitted write completes. */
static DECLARE_WAIT_QUEUE_HEAD(hc_fence_wait);

/* @obj changed or goes: wake the waiters of its URI (hc_cache_waitq()). */
static void hc_cache_event(const struct hc_obj *obj)
{
	hc_cache_waitq_wake(hc_cache_waitq(obj->pe.key));
}

/* The dirty bytes shrank or the limit moved: wake STAGEs over the limit. */
static void hc_cache_dirty_event(void)
{
	atomic_inc(&hc_dirty_events);
	wake_up_interruptible_all(&hc_dirty_wait);
}

static unsigned int hc_dirty_limit_mb;

static int hc_dirty_limit_set(const char *val, const struct kernel_param *kp)
{
	int err = param_set_uint(val, kp);

	if (!err)
		hc_cache_dirty_event();
	return err;
}

static const struct kernel_param_ops hc_dirty_limit_ops = {
	.set	= hc_dirty_limit_set,
	.get	= param_get_uint,
};

module_param_cb(dirty_limit_mb, &hc_dirty_limit_ops, &hc_dirty_limit_mb, 0644);
MODULE_PARM_DESC(dirty_limit_mb,
		 "STAGE waits while DIRTY and SYNCING objects would pass this many MiB (0: no limit)");

/*
 * Test hook (tests/vm/guest/stage-fence.sh, stage-fs.sh): an object takes
 * at most this many holds, when it is not 0 and below HC_OBJ_HOLDS_MAX,
 * which real holds cannot reach in a test; 0: HC_OBJ_HOLDS_MAX.
 */
static unsigned int hc_obj_holds_max;
module_param_named(obj_holds_max, hc_obj_holds_max, uint, 0644);
MODULE_PARM_DESC(obj_holds_max,
		 "test hook: an object takes at most this many holds (0, or 2^30 and more: 2^30)");

/* The most holds an object takes: HC_OBJ_HOLDS_MAX, or the test hook's. */
static int hc_cache_holds_max(void)
{
	unsigned int m = READ_ONCE(hc_obj_holds_max);

	return m && m < HC_OBJ_HOLDS_MAX ? m : HC_OBJ_HOLDS_MAX;
}

/* The dirty limit in bytes, 0 for none. */
u64 hc_cache_dirty_limit(void)
{
	return (u64)READ_ONCE(hc_dirty_limit_mb) << 20;
}

/**
 * hc_cache_dirty_over - would a new object of @size bytes pass the limit?
 * @c: the cache
 * @size: bytes of the object to stage
 *
 * An object larger than the limit passes only when nothing is dirty.
 */
bool hc_cache_dirty_over(const struct hc_cache *c, u64 size)
{
	u64 limit = hc_cache_dirty_limit();

	return limit && c->dirty_bytes && c->dirty_bytes + size > limit;
}

/**
 * hc_cache_size_check - may an object of @size bytes exist in this pool?
 * @c: the cache
 * @size: bytes (any u64, from user space or the helper)
 *
 * Called before anything is changed for a STAGE or an ingest allocation,
 * so that chunk counts (DIV_ROUND_UP_ULL) and the dirty bytes cannot wrap.
 * Return: 0, or -EFBIG if @size is larger than the pool's capacity.
 */
int hc_cache_size_check(const struct hc_cache *c, u64 size)
{
	return size > c->nr_chunks * c->chunk_size ? -EFBIG : 0;
}

/* Whether @state is one whose data the backend does not have yet. */
static bool hc_state_dirty(u32 state)
{
	return state == HC_OBJ_DIRTY || state == HC_OBJ_SYNCING;
}

/* Whether @state is one of a complete object (its data all there). */
static bool hc_state_complete(u32 state)
{
	return state == HC_OBJ_READY || hc_state_dirty(state);
}

/*
 * The key URIs are hashed with (hc_cache_hash()): random, drawn when the
 * module is loaded, so that nobody can choose URIs whose hashes collide.
 */
static siphash_key_t hc_cache_hash_key __read_mostly;

/*
 * Test hook (tests/vm/guest/stage-objects.sh, obj-key-collision): a pool
 * created while it is N (1..63) keeps only the low N bits of its URIs'
 * hashes, so that URIs collide; 0: all 64.
 */
static unsigned int hc_index_key_bits;
module_param_named(index_key_bits, hc_index_key_bits, uint, 0644);
MODULE_PARM_DESC(index_key_bits,
		 "test hook: pools created from now on key their index with the low N bits of the URI's hash (0 or 64 and more: all)");

/* The URI's 64-bit hash: the index's and the policy's key (hc_obj.pe.key). */
u64 hc_cache_hash(const struct hc_cache *c, const u8 *uri, u32 len)
{
	return siphash(uri, len, &hc_cache_hash_key) & c->key_mask;
}

/*
 * The index
 *
 * An rhashtable (lib/rhashtable.c) keyed by hc_obj.pe.key, the URI's
 * SipHash under a key drawn at module load (hc_cache_hash()), rather than
 * one with obj_cmpfn over the URI bytes:
 *
 * - the key is a fixed 8 bytes, so the table hashes it with jhash2 of two
 *   words and its random seed, a few instructions, where a URI key would
 *   be hashed again, all its bytes, by every lookup and every rehash;
 * - the 64-bit hash is needed anyway: it is the policy's key (the table
 *   keys on that same field, struct hc_obj holds no copy) and what the
 *   lossy read buffer records, which its drain finds objects by
 *   (hc_cache_readbuf_drain()), and LOCATE hashes the URI once for both;
 * - one object a key: an object's hnode is an rhash_head (8 bytes), not
 *   the list variant's rhlist_head (16).  The key being secret, nobody can
 *   choose URIs whose keys are equal (with the public, unkeyed xxh64 the
 *   index used before, anyone could, which is why it was the list
 *   variant then), and a chain cannot be made long; two URIs of one
 *   key happen by chance once in 2^64 / n inserts, and the second is
 *   refused as the table refuses an insert it has no room for
 *   (hc_cache_insert(): -ENOMEM, named in the log).  Each URI is in the
 *   index at most once: a STAGE, an ingest and the replay look the URI
 *   up and replace or refuse before they insert.
 *
 * The table starts at HC_INDEX_MIN_BUCKETS buckets and is grown (at 75 %
 * load) and shrunk (below 30 %) by the kernel's worker as objects come
 * and go, so its chains stay short from ten objects to millions.  Inserts
 * and removals happen under the pool lock; lookups run under RCU, with or
 * without it, and allocate nothing.  An insert can still fail (-ENOMEM,
 * or -EBUSY/-E2BIG when the table can neither grow nor be rehashed at
 * that moment): hc_cache_insert() reports -ENOMEM and its callers undo
 * what they did.  Walks of the whole index never use the table (an
 * rhashtable_walk may repeat objects across a resize): they follow
 * hc_cache.ordered, in URI order, which a resize does not touch.
 */
#define HC_INDEX_MIN_BUCKETS	64

static const struct rhashtable_params hc_index_params = {
	.head_offset		= offsetof(struct hc_obj, hnode),
	.key_offset		= offsetof(struct hc_obj, pe.key),
	.key_len		= sizeof(u64),
	.min_size		= HC_INDEX_MIN_BUCKETS,
	.automatic_shrinking	= true,
};

/* The object of @uri with @hash; under rcu_read_lock() (the caller's). */
static struct hc_obj *hc_index_find(struct hc_cache *c, u64 hash,
				    const u8 *uri, u32 len)
{
	struct hc_obj *obj = rhashtable_lookup(&c->index, &hash,
					       hc_index_params);

	/* another URI of the same key: once in 2^64 / n */
	if (obj && obj->uri_len == len && !memcmp(obj->uri, uri, len))
		return obj;
	return NULL;
}

/* Whether @obj is the index's object of its key (debugfs's check). */
bool hc_cache_index_has(struct hc_cache *c, struct hc_obj *obj)
{
	bool found;

	rcu_read_lock();
	found = rhashtable_lookup(&c->index, &obj->pe.key,
				  hc_index_params) == obj;
	rcu_read_unlock();
	return found;
}

/* Buckets of the index's current table (a resize may be under way). */
u32 hc_cache_index_buckets(struct hc_cache *c)
{
	const struct bucket_table *tbl;
	u32 size;

	rcu_read_lock();
	tbl = rcu_dereference(c->index.tbl);
	size = tbl->size;
	rcu_read_unlock();
	return size;
}

/* A search key of the ordered view: URI bytes. */
struct hc_ordered_key {
	const u8 *uri;
	u32 len;
};

/* URI order: bytes compared as unsigned, a prefix before what extends it. */
static int hc_cache_uri_cmp(const u8 *a, u32 alen, const u8 *b, u32 blen)
{
	int r = memcmp(a, b, min(alen, blen));

	if (r)
		return r;
	return alen < blen ? -1 : alen > blen;
}

static int hc_ordered_cmp(const void *item, const void *key)
{
	const struct hc_obj *o = item;
	const struct hc_ordered_key *k = key;

	return hc_cache_uri_cmp(o->uri, o->uri_len, k->uri, k->len);
}

static int hc_ordered_order(const void *a, const void *b)
{
	const struct hc_obj *o = b;
	struct hc_ordered_key k = { o->uri, o->uri_len };

	return hc_ordered_cmp(a, &k);
}

static const struct hc_otree_ops hc_ordered_ops = {
	.cmp = hc_ordered_cmp,
	.order = hc_ordered_order,
};

/* The first object of the index in URI order, or NULL.  Pool lock held. */
struct hc_obj *hc_cache_ordered_first(struct hc_cache *c)
{
	return hc_otree_first(&c->ordered);
}

/*
 * The object after @obj (indexed) in URI order, or NULL.  O(1) when
 * nothing was added or removed since the step that returned @obj, else
 * O(log n).  Pool lock held.
 */
struct hc_obj *hc_cache_ordered_next(struct hc_cache *c, struct hc_obj *obj)
{
	struct hc_ordered_key k = { obj->uri, obj->uri_len };

	return hc_otree_next(&c->ordered, obj, &k);
}

/*
 * Walks of the whole index, in URI order, under the pool lock:
 *
 *	for (obj = hc_cache_ordered_first(c); obj; obj = tmp) {
 *		tmp = hc_cache_ordered_next(c, obj);	(so @obj may be removed)
 *		hc_index_resched(&n);
 *
 * hc_index_resched() once per object: a preemption point every
 * HC_INDEX_WALK_BATCH objects (see the locking rules).
 */
#define HC_INDEX_WALK_BATCH	256

static void hc_index_resched(u32 *n)
{
	if (!(++*n % HC_INDEX_WALK_BATCH))
		cond_resched();
}

/* Whether @obj's data may be read: READY, DIRTY or SYNCING. */
bool hc_obj_valid(const struct hc_obj *obj)
{
	return obj->state == HC_OBJ_READY || obj->state == HC_OBJ_DIRTY ||
	       obj->state == HC_OBJ_SYNCING;
}

/* Tell the policy why @obj may not be evicted, from its own fields. */
static void hc_cache_sync_policy(struct hc_cache *c, struct hc_obj *obj)
{
	u32 want = 0;

	if (obj->flags & HC_OBJ_F_PINNED)
		want |= HC_POLICY_F_PINNED;
	if (atomic_read(&obj->holds) || obj->jop ||
	    obj->state == HC_OBJ_STAGED || obj->state == HC_OBJ_INGESTING)
		want |= HC_POLICY_F_HELD;
	if (obj->state == HC_OBJ_DIRTY || obj->state == HC_OBJ_SYNCING)
		want |= HC_POLICY_F_DIRTY;
	hc_policy_set_flags(&c->policy, &obj->pe, want, HC_POLICY_F_ALL & ~want);
}

static struct kmem_cache *hc_transit_cache __read_mostly;

/*
 * Give @obj, which has none, a new transit, which takes over its backend
 * version (hc_obj.side).  Pool lock held, or @obj not indexed yet.  May
 * sleep.  Return: the transit; NULL: no memory (nothing changed).
 */
static struct hc_obj_transit *hc_cache_transit_new(struct hc_obj *obj)
{
	struct hc_obj_transit *t;

	if (WARN_ON_ONCE(hc_obj_transit(obj)))
		return hc_obj_transit(obj);
	t = kmem_cache_zalloc(hc_transit_cache, GFP_KERNEL);
	if (!t)
		return NULL;
	t->obj = obj;
	INIT_LIST_HEAD(&t->queue_node);
	t->bver = obj->side.bver;
	obj->side.transit = t;
	hc_obj_mset(obj, HC_OBJ_M_TRANSIT, true);
	return t;
}

/*
 * Free @obj's transit, whose fence is freed already (hc_cache_fence_free()):
 * its backend version goes back to the object.
 */
static void hc_cache_transit_free(struct hc_obj *obj)
{
	struct hc_obj_transit *t = hc_obj_transit(obj);

	if (!t)
		return;
	WARN_ON_ONCE(t->fence || !list_empty(&t->queue_node));
	hc_obj_mset(obj, HC_OBJ_M_TRANSIT, false);
	obj->side.bver = t->bver;
	kfree(t->egress_err);
	kmem_cache_free(hc_transit_cache, t);
}

/*
 * @obj's transit ends if @obj is READY with nothing pending: no fence (a
 * COMMIT or INGEST_DONE frees it before the state changes), no queue, no
 * revalidation.  Under the pool lock; never sleeps, never fails.
 */
static void hc_cache_transit_settle(struct hc_obj *obj)
{
	struct hc_obj_transit *t = hc_obj_transit(obj);

	if (t && obj->state == HC_OBJ_READY && !hc_obj_m(obj, HC_OBJ_M_REVAL) &&
	    !t->fence && list_empty(&t->queue_node))
		hc_cache_transit_free(obj);
}

/*
 * Change @obj's state.  Entering DIRTY from a clean state queues it at the
 * tail of the egress queue (commit order); DIRTY <-> SYNCING keeps its
 * place; leaving both dequeues it.
 */
static void hc_cache_set_state(struct hc_cache *c, struct hc_obj *obj,
			       u32 state)
{
	bool was_dirty = obj->state && hc_state_dirty(obj->state);
	struct hc_obj_transit *t = hc_obj_transit(obj);

	if (obj->state)
		c->stats.by_state[obj->state]--;
	if (!(obj->state && hc_state_complete(obj->state)) &&
	    hc_state_complete(state)) {
		obj->committed = ktime_get_real_seconds();
		/* new data is checked now; a replayed object is due at once */
		if (!c->replaying)
			WRITE_ONCE(obj->checked, hc_cache_reval_now());
	}
	/* a dirty object has its transit: STAGED, or replayed with one */
	if (!was_dirty && hc_state_dirty(state)) {
		list_add_tail(&t->queue_node, &c->egress);
		t->egress_defer = false;
		t->egress_backoff = 0;
		t->dirty_since = ktime_get_boottime_ns();
		c->dirty_bytes += obj->size;
	} else if (was_dirty && !hc_state_dirty(state)) {
		kfree(t->egress_err);		/* uploaded: no longer news */
		t->egress_err = NULL;
		list_del_init(&t->queue_node);
		c->dirty_bytes -= obj->size;
		hc_cache_dirty_event();
	}
	/* publishes the fields set before (hc_cache_locate_fast()) */
	smp_store_release(&obj->state, state);
	c->stats.by_state[state]++;
	hc_cache_transit_settle(obj);
	hc_cache_sync_policy(c, obj);
	hc_cache_event(obj);
}

/**
 * hc_cache_dirty_oldest_ns - how long the oldest DIRTY or SYNCING object
 * has waited for its upload, in nanoseconds (0 when none is)
 * @c: the cache, with the pool lock held
 *
 * The egress queue is in the order objects became DIRTY (an object enters
 * it at the tail, once, and keeps its place through SYNCING and failed
 * uploads), so its head is the oldest.  Does not sleep.
 */
u64 hc_cache_dirty_oldest_ns(const struct hc_cache *c)
{
	u64 now = ktime_get_boottime_ns();
	const struct hc_obj_transit *t;

	if (list_empty(&c->egress))
		return 0;
	t = list_first_entry(&c->egress, struct hc_obj_transit, queue_node);
	return now > t->dirty_since ? now - t->dirty_since : 1;
}

/*
 * A new fence for an object the calling task stages or ingests; it opens
 * with hc_cache_fence_open().  May sleep.
 */
static struct hc_fence *hc_cache_fence_alloc(bool any_writer)
{
	struct hc_fence *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return NULL;
	f->closed = true;
	f->any_writer = any_writer;
	f->owner = get_pid(task_tgid(current));
	return f;
}

/* Free @obj's fence, which is closed and drained (or was never opened). */
static void hc_cache_fence_free(struct hc_obj *obj)
{
	struct hc_fence *f = hc_obj_fence(obj);

	if (!f)
		return;
	hc_obj_transit(obj)->fence = NULL;
	put_pid(f->owner);
	kfree_rcu(f, rcu);
}

/* *@pp under hc_cache.fence_lock */
static struct hc_fence *hc_cache_fence_deref(struct hc_cache *c,
					     struct hc_fence __rcu **pp)
{
	return rcu_dereference_protected(*pp, lockdep_is_held(&c->fence_lock));
}

/*
 * Add (@on) or remove the fence of a small object to or from its slab
 * chunk's list (other small objects of the chunk may be staged too).
 */
static void hc_cache_fence_link(struct hc_cache *c, struct hc_obj *obj,
				bool on)
{
	struct hc_fence *f = hc_obj_fence(obj), *p;
	struct hc_fence __rcu **pp = &c->fence[obj->sext->chunk];

	spin_lock(&c->fence_lock);
	if (on) {
		f->block = obj->sext->block;
		f->nr_blocks = obj->sext->nr_blocks;
		p = hc_cache_fence_deref(c, pp);
		RCU_INIT_POINTER(f->next, p);
		rcu_assign_pointer(*pp, f);	/* release: after the fields */
	} else {
		while ((p = hc_cache_fence_deref(c, pp)) && p != f)
			pp = &p->next;
		/* a reader on @f still finds the rest of the list */
		if (p) {
			p = hc_cache_fence_deref(c, &f->next);
			rcu_assign_pointer(*pp, p);
		}
	}
	spin_unlock(&c->fence_lock);
}

/* Point the fence entries of @obj's chunks at @f (or NULL). */
static void hc_cache_fence_publish(struct hc_cache *c, struct hc_obj *obj,
				   struct hc_fence *f)
{
	u64 k;
	u32 i;

	if (obj->flags & HC_OBJ_F_SUBCHUNK) {
		hc_cache_fence_link(c, obj, f);
		return;
	}
	for (i = 0; i < obj->nr_ext; i++)
		for (k = 0; k < obj->ext[i].count; k++)
			rcu_assign_pointer(c->fence[obj->ext[i].start + k], f);
}

/*
 * The fence in @c->fence[@chunk]'s list that covers byte @off of the chunk
 * (a large object's covers the whole chunk, a small object's exactly its
 * blocks), or NULL; *@left: the bytes it covers from @off.  Under RCU.
 */
static struct hc_fence *hc_cache_fence_find(struct hc_cache *c, u64 chunk,
					    u32 off, u32 *left)
{
	struct hc_fence *f = rcu_dereference(c->fence[chunk]);
	u32 b = off / HC_SUBBLOCK_SIZE;

	while (f && f->nr_blocks &&
	       (b < f->block || b - f->block >= f->nr_blocks))
		f = rcu_dereference(f->next);
	if (f)
		*left = (f->nr_blocks ? (f->block + f->nr_blocks) *
			 HC_SUBBLOCK_SIZE : c->chunk_size) - off;
	return f;
}

/* Open the write fence over @obj's chunks, for its fence's owner. */
static void hc_cache_fence_open(struct hc_cache *c, struct hc_obj *obj)
{
	struct hc_fence *f = hc_obj_fence(obj);

	WRITE_ONCE(f->closed, false);
	hc_cache_fence_publish(c, obj, f);	/* release: after it */
}

/*
 * Close the write fence over @obj's chunks and wait for every write it
 * admitted to complete on its member: after this, nothing written through
 * the fence can land on the chunks any more, so they may be sealed, freed
 * or given to another object.  Sleeps (uninterruptibly: member I/O always
 * completes); the data path never takes the pool lock, so holding it here
 * is safe.  A no-op on a closed fence or an object without one.
 */
static void hc_cache_fence_close(struct hc_cache *c, struct hc_obj *obj)
{
	struct hc_fence *f = hc_obj_fence(obj);

	if (!f || f->closed)
		return;
	hc_cache_fence_publish(c, obj, NULL);
	WRITE_ONCE(f->closed, true);
	smp_mb();	/* pairs with hc_cache_fence_get() and _put() */
	wait_event(hc_fence_wait, !atomic_read(&f->inflight));
}

/**
 * hc_cache_fence_get - may the calling task write to @chunk now?
 * @c: the cache
 * @chunk: pool chunk
 * @off: first byte of the write in the chunk
 * @left: set to the bytes from @off the fence admits (to the end of the
 *	chunk, or of a small object's blocks): the caller splits the write
 *	there, as at a chunk's end
 *
 * Lockless (RCU), any context; called by the data path for every write
 * piece, in the context of the task that submitted the bio.  Byte @off
 * must belong to a STAGED or INGESTING object whose fence is open (a
 * small object's: within its blocks), and the task must be in the fence's
 * owner thread group (unless any writer may write).  Return: the fence,
 * counted as one write in flight until hc_cache_fence_put(); or NULL
 * (refused).
 */
struct hc_fence *hc_cache_fence_get(struct hc_cache *c, u64 chunk, u32 off,
				    u32 *left)
{
	struct hc_fence *f;

	if (chunk >= c->nr_chunks)
		return NULL;
	rcu_read_lock();
	f = hc_cache_fence_find(c, chunk, off, left);
	if (f && !f->any_writer && f->owner != task_tgid(current))
		f = NULL;
	if (f) {
		atomic_inc(&f->inflight);
		smp_mb__after_atomic();	/* pairs with hc_cache_fence_close() */
		if (READ_ONCE(f->closed)) {
			hc_cache_fence_put(f);
			f = NULL;
		}
	}
	rcu_read_unlock();
	return f;
}

/**
 * hc_cache_fence_failed - a write that hc_cache_fence_get() admitted failed
 * on its member
 * @f: its fence, before hc_cache_fence_put() (so that a drain sees it)
 *
 * Any context.  Counted as lost, for the COMMIT's seal to report.
 */
void hc_cache_fence_failed(struct hc_fence *f)
{
	atomic_inc(&f->lost);
}

/**
 * hc_cache_fence_refused - hc_cache_fence_get() refused a write-back of
 * the device's page cache into @chunk
 * @c: the cache
 * @chunk: pool chunk
 * @off: first byte of the write-back in the chunk
 * @len: its bytes
 *
 * Any context, no lock (RCU).  Its pages are lost and nobody is told (a
 * flusher's write-back of a buffered stager, or of another writer's pages
 * in the stage's range): counted as lost in the fence of the object that
 * owns @chunk (every small object's whose blocks the bytes touch), if any;
 * a refusal elsewhere concerns no stage.  A refused direct write is not
 * counted: its submitter gets the error.
 */
void hc_cache_fence_refused(struct hc_cache *c, u64 chunk, u32 off, u32 len)
{
	u32 first = off / HC_SUBBLOCK_SIZE;
	u32 last = (off + max_t(u32, len, 1) - 1) / HC_SUBBLOCK_SIZE;
	struct hc_fence *f;

	if (chunk >= c->nr_chunks)
		return;
	rcu_read_lock();
	for (f = rcu_dereference(c->fence[chunk]); f;
	     f = rcu_dereference(f->next))
		if (!f->nr_blocks || (first < f->block + f->nr_blocks &&
				      last >= f->block))
			atomic_inc(&f->lost);
	rcu_read_unlock();
}

/**
 * hc_cache_fence_put - a write that hc_cache_fence_get() admitted completed
 * @f: its fence
 *
 * Any context.  Wakes the closer waiting for the last one.
 */
void hc_cache_fence_put(struct hc_fence *f)
{
	/* A closer frees @f only after a grace period: RCU keeps it here. */
	rcu_read_lock();
	if (atomic_dec_and_test(&f->inflight) && READ_ONCE(f->closed))
		wake_up_all(&hc_fence_wait);
	rcu_read_unlock();
}

/**
 * hc_cache_read_error - a read of @chunk failed on its member
 * @c: the cache
 * @chunk: pool chunk
 *
 * Any context, no lock: called by the read's completion before the reader
 * sees the error, so that a LOCATE after the reader's EIO finds the object
 * bad (hc_cache_bad_settle()).  The mark stays on the chunk until it is
 * placed in an object again; a read still in flight from an object that
 * was evicted meanwhile may mark the chunk's next object (readers hold the
 * objects they read).
 */
void hc_cache_read_error(struct hc_cache *c, u64 chunk)
{
	if (chunk >= c->nr_chunks)
		return;
	set_bit(chunk, c->bad_chunks);
	smp_mb__before_atomic();	/* pairs with hc_cache_bad_settle() */
	atomic_inc(&c->bad_pending);
}

/* Whether a read of one of @obj's chunks failed. */
static bool hc_obj_has_bad_chunk(const struct hc_cache *c,
				 const struct hc_obj *obj)
{
	u64 end;
	u32 i;

	if (obj->flags & HC_OBJ_F_SUBCHUNK)	/* marked per chunk */
		return obj->nr_ext && test_bit(obj->sext->chunk, c->bad_chunks);
	for (i = 0; i < obj->nr_ext; i++) {
		end = obj->ext[i].start + obj->ext[i].count;
		if (find_next_bit(c->bad_chunks, end, obj->ext[i].start) < end)
			return true;
	}
	return false;
}

/**
 * hc_cache_bad_settle - mark the objects whose reads failed as bad
 * @c: the cache
 *
 * Called by the readers of the index (LOCATE, OBJ_GET and its dump) before
 * they look; costs one atomic read when no read failed.  The objects stay
 * where they are, with their data and state: a DIRTY one may still be
 * uploaded if the error was transient, a READY one may be evicted.
 */
void hc_cache_bad_settle(struct hc_cache *c)
{
	struct hc_obj *obj, *tmp;
	u32 n = 0;

	if (likely(!atomic_read(&c->bad_pending)))
		return;
	atomic_set(&c->bad_pending, 0);
	smp_mb__after_atomic();	/* pairs with hc_cache_read_error() */
	for (obj = hc_cache_ordered_first(c); obj; obj = tmp) {
		tmp = hc_cache_ordered_next(c, obj);
		hc_index_resched(&n);
		if (hc_obj_m(obj, HC_OBJ_M_BAD) || !hc_obj_has_bad_chunk(c, obj))
			continue;
		hc_obj_mset(obj, HC_OBJ_M_BAD, true);
		pr_warn("object '%.*s' (generation %llu): a read of its data failed on a member: marked bad\n",
			obj->uri_len, obj->uri, obj->generation);
		hc_cache_event(obj);
	}
}

/* @obj's flags as LOCATE and OBJ_GET report them (HC_OBJ_F_BAD included). */
u32 hc_obj_flags(const struct hc_obj *obj)
{
	return obj->flags | (hc_obj_m(obj, HC_OBJ_M_BAD) ? HC_OBJ_F_BAD : 0);
}

/**
 * hc_cache_seal - close the write fence over a STAGED object, wait for the
 * writes it admitted (COMMIT, before the members are flushed) and tell
 * whether a write into its chunks was lost
 * @c: the cache
 * @obj: the object, STAGED and busy (hc_cache_commit_begin())
 *
 * Sleeps.  With or without the pool lock: nothing else changes the fence
 * of a busy object.  hc_cache_unseal() (with the lock) opens it again if
 * the COMMIT fails.  A write is lost when it failed on its member, or when
 * the fence refused a write-back of the device's page cache into @obj's
 * chunks (struct hc_fence, @lost): only writes into @obj's chunks count,
 * never those elsewhere on the device.  Reported once: a rewrite and a new
 * COMMIT may succeed.
 * Return: 0; -EIO if one was lost since the stage opened or since the last
 * seal that returned -EIO (the fence is closed either way).
 */
int hc_cache_seal(struct hc_cache *c, struct hc_obj *obj)
{
	struct hc_fence *f = hc_obj_fence(obj);
	int lost;

	hc_cache_fence_close(c, obj);
	if (!f)
		return 0;
	/* the drain saw the last put, which follows its failure's count */
	smp_rmb();
	lost = atomic_read(&f->lost);
	if (lost == f->lost_seen)
		return 0;
	f->lost_seen = lost;
	return -EIO;
}

/* Open the fence of a sealed STAGED object again (its COMMIT failed). */
void hc_cache_unseal(struct hc_cache *c, struct hc_obj *obj)
{
	struct hc_fence *f = hc_obj_fence(obj);

	if (f && f->closed)
		hc_cache_fence_open(c, obj);
}

/*
 * struct hc_obj's own slab cache: with the URI in the same kzalloc, the
 * object (216 bytes then) and a URI of 41 bytes or more rounded up to
 * kmalloc-512 (512 bytes per object with 64-byte URIs, measured by
 * r-memory); here the object takes its own size and the URI the kmalloc
 * size of its length.
 */
static struct kmem_cache *hc_obj_cache;

int hc_cache_slab_init(void)
{
	u32 i;

	get_random_bytes(&hc_cache_hash_key, sizeof(hc_cache_hash_key));

	/* struct hc_obj's narrow fields hold every value they are given */
	BUILD_BUG_ON(HC_OBJ_SYNCING >> (8 * sizeof_field(struct hc_obj, state)));
	BUILD_BUG_ON((HC_OBJ_F_ALL | HC_OBJ_F_SUBCHUNK) >>
		     (8 * sizeof_field(struct hc_obj, flags)));
	BUILD_BUG_ON(HC_MAX_EXTENTS >> (8 * sizeof_field(struct hc_obj, nr_ext)));
	BUILD_BUG_ON(HC_URI_MAX >> (8 * sizeof_field(struct hc_obj, uri_len)));
	/* what shares the policy's link leaves its key alone (LOCATE's) */
	BUILD_BUG_ON(offsetof(struct hc_obj, gone_node) !=
		     offsetof(struct hc_obj, pe.link));
	BUILD_BUG_ON(max(sizeof(struct list_head), sizeof(struct rcu_head)) >
		     offsetof(struct hc_policy_entry, key));
	/*
	 * The memory budget (issue 15, policy.md "Memory"): 104 bytes, 39 a
	 * 4 KiB slab page (what only busy objects need is in struct
	 * hc_obj_transit, which holds the backend version while there, so
	 * that one pointer serves both; the chunks and the journal charge
	 * are derived, hc_obj_chunks() and hc_obj_jbytes(); holds is
	 * 32-bit, bounded by HC_OBJ_HOLDS_MAX; the ordered view holds a
	 * pointer in a B+tree node, not an rb_node; the index's head is an
	 * rhash_head, not an rhlist_head; the in-memory booleans are bits of
	 * mflags; committed is in seconds).  A field that needs more is a
	 * decision made with r-memory's limits, not a drift that only
	 * check-reliability would see.
	 */
	BUILD_BUG_ON(sizeof(struct hc_obj) > 104);
	BUILD_BUG_ON(HC_OBJ_M_CHARGED >> (8 * sizeof_field(struct hc_obj, mflags)));
	/* a busy object's fields: 56 a page of their own cache */
	BUILD_BUG_ON(sizeof(struct hc_obj_transit) > 72);
	for (i = 0; i < ARRAY_SIZE(hc_cache_waitqs); i++)
		init_waitqueue_head(&hc_cache_waitqs[i].wq);
	hc_obj_cache = KMEM_CACHE(hc_obj, 0);
	if (!hc_obj_cache)
		return -ENOMEM;
	hc_transit_cache = KMEM_CACHE(hc_obj_transit, 0);
	if (!hc_transit_cache) {
		kmem_cache_destroy(hc_obj_cache);
		return -ENOMEM;
	}
	return 0;
}

void hc_cache_slab_exit(void)
{
	kmem_cache_destroy(hc_transit_cache);
	kmem_cache_destroy(hc_obj_cache);
}

/* Free the object and its URI only: its extents and fence are the caller's. */
static void hc_cache_obj_release(struct hc_obj *obj)
{
	hc_cache_transit_free(obj);
	kfree(obj->side.bver);
	kfree(obj->uri);
	kmem_cache_free(hc_obj_cache, obj);
}

static struct hc_obj *hc_cache_obj_alloc(struct hc_cache *c, const u8 *uri,
					 u32 len)
{
	struct hc_obj *obj;

	/* every caller checked it: hc_obj.uri_len is a u16 */
	if (WARN_ON_ONCE(len > HC_URI_MAX))
		return NULL;
	obj = kmem_cache_zalloc(hc_obj_cache, GFP_KERNEL);
	if (!obj)
		return NULL;
	obj->uri = kmemdup(uri, len, GFP_KERNEL);
	if (!obj->uri) {
		kmem_cache_free(hc_obj_cache, obj);
		return NULL;
	}
	obj->uri_len = len;
	/* the index's key (hc_index_params): set before any insert */
	obj->pe.key = hc_cache_hash(c, uri, len);
	return obj;
}

/* Free an object that lockless readers never saw (never indexed). */
static void hc_cache_obj_free(struct hc_obj *obj)
{
	hc_cache_fence_free(obj);
	kfree(obj->ext);
	hc_cache_obj_release(obj);
}

static void hc_cache_obj_free_rcu(struct rcu_head *head)
{
	struct hc_obj *obj = container_of(head, struct hc_obj, rcu);

	kfree(obj->ext);
	hc_cache_obj_release(obj);
}

/*
 * Fill the ordered view's reserve for one insert.  May sleep; pool lock
 * held.  Return: 0 or -ENOMEM (what was added stays in the reserve).
 */
static int hc_cache_ordered_reserve(struct hc_cache *c)
{
	while (hc_otree_reserve_needed(&c->ordered)) {
		struct hc_otree_node *n = kmalloc(sizeof(*n), GFP_KERNEL);

		if (!n)
			return -ENOMEM;
		hc_otree_give(&c->ordered, n);
	}
	return 0;
}

/* Free the reserve's nodes beyond what one insert may need (all: @all). */
static void hc_cache_ordered_trim(struct hc_cache *c, bool all)
{
	struct hc_otree_node *n;

	while ((n = hc_otree_take(&c->ordered,
				  all ? 0 : c->ordered.depth + 1)))
		kfree(n);
}

/**
 * hc_cache_ordered_ceil - a step of an ordered walk of the index
 * @c: the cache
 * @key: URI bytes to start from
 * @len: their number
 * @strict: skip an object whose URI is @key
 *
 * O(log n).  Return: the first object in URI order whose URI is >= @key
 * (> @key if @strict), or NULL.
 */
struct hc_obj *hc_cache_ordered_ceil(struct hc_cache *c, const u8 *key,
				     u32 len, bool strict)
{
	struct hc_ordered_key k = { key, len };

	return hc_otree_ceil(&c->ordered, &k, strict);
}

/*
 * Index @obj in @state.  Return: 0, or -ENOMEM: the ordered view had no
 * memory for its node, or the table refused it
 * (rhashtable_lookup_insert_fast(): -ENOMEM, -EBUSY/-E2BIG when it could
 * neither grow nor be rehashed then, -EEXIST when another URI has the
 * same key); nothing changed, @obj is the caller's to undo.
 */
static int hc_cache_insert(struct hc_cache *c, struct hc_obj *obj, u32 state)
{
	struct hc_ordered_key k = { obj->uri, obj->uri_len };
	int err;

	err = hc_cache_ordered_reserve(c);
	if (!err)
		err = rhashtable_lookup_insert_fast(&c->index, &obj->hnode,
						    hc_index_params);
	if (!err) {
		/* cannot fail with its reserve (-E2BIG: beyond any memory) */
		err = hc_otree_insert(&c->ordered, obj, &k);
		if (WARN_ON_ONCE(err))
			rhashtable_remove_fast(&c->index, &obj->hnode,
					       hc_index_params);
	}
	if (err == -EEXIST) {
		pr_warn_ratelimited("object '%*pE': another URI of the index has its 64-bit key (a chance of 1 in 2^64 / %llu): refused (-ENOMEM)\n",
				    obj->uri_len, obj->uri, c->stats.objects);
		return -ENOMEM;
	}
	if (err) {
		pr_warn_ratelimited("the index refused an object (%d, %llu objects): -ENOMEM\n",
				    err, c->stats.objects);
		return -ENOMEM;
	}
	hc_obj_mset(obj, HC_OBJ_M_INDEXED, true);
	c->stats.objects++;
	hc_cache_set_state(c, obj, state);
	return 0;
}

/* Take @obj out of the index (the table and the ordered view). */
static void hc_cache_unindex(struct hc_cache *c, struct hc_obj *obj)
{
	struct hc_ordered_key k = { obj->uri, obj->uri_len };

	WARN_ON_ONCE(rhashtable_remove_fast(&c->index, &obj->hnode,
					    hc_index_params));
	WARN_ON_ONCE(hc_otree_remove(&c->ordered, obj, &k));
	hc_obj_mset(obj, HC_OBJ_M_INDEXED, false);
	hc_cache_ordered_trim(c, false);
}

/**
 * hc_obj_jbytes - the journal bytes an object is charged
 * @c: the cache (pool lock held)
 * @obj: the object
 *
 * Its record's size in the journal's version with its extents now.
 * Derived, not kept (issue 15 point 5: 4 bytes an object), so every change
 * of what it depends on while charged is bracketed by
 * hc_cache_journal_uncharge() and hc_cache_journal_charge(): @obj's
 * extents (hc_cache_grow(), hc_cache_trim()) and the journal's version
 * (hc_cache_journal_recharge()).
 *
 * Return: the bytes; 0 if @obj is not charged (HC_OBJ_M_CHARGED).
 */
u32 hc_obj_jbytes(const struct hc_cache *c, const struct hc_obj *obj)
{
	if (!c->journal || !hc_obj_m(obj, HC_OBJ_M_CHARGED))
		return 0;
	return hc_journal_obj_bytes(c->journal, obj->uri_len, obj->nr_ext);
}

/* Charge @obj, placed, its journal record (hc_cache_journal_room()). */
static void hc_cache_journal_charge(struct hc_cache *c, struct hc_obj *obj)
{
	if (!c->journal)
		return;
	hc_obj_mset(obj, HC_OBJ_M_CHARGED, true);
	c->jbytes += hc_obj_jbytes(c, obj);
}

/* Give back what hc_cache_journal_charge() charged @obj (if it did). */
static void hc_cache_journal_uncharge(struct hc_cache *c, struct hc_obj *obj)
{
	c->jbytes -= hc_obj_jbytes(c, obj);
	hc_obj_mset(obj, HC_OBJ_M_CHARGED, false);
}

/*
 * Take @obj out of everything (the index, the policy, the queues, the
 * counters) but its chunks, which stay allocated, and keep it: the caller
 * frees it with hc_cache_reap().  Its fence is closed and drained first
 * (writes into its chunks end before they can be reused).
 */
static void hc_cache_detach(struct hc_cache *c, struct hc_obj *obj)
{
	hc_policy_remove(&c->policy, &obj->pe);
	/* Restored objects never opened a fence (and are unchecked yet). */
	hc_cache_fence_close(c, obj);
	if (obj->flags & HC_OBJ_F_PINNED)
		c->stats.pinned--;
	if (atomic_read(&obj->holds))
		c->stats.held--;
	hc_cache_journal_uncharge(c, obj);
	if (hc_state_dirty(obj->state)) {
		c->dirty_bytes -= obj->size;
		hc_cache_dirty_event();
	}
	c->stats.by_state[obj->state]--;
	c->stats.objects--;
	hc_cache_unindex(c, obj);
	if (hc_obj_transit(obj))	/* its stager's list, or one of the queues */
		list_del_init(&hc_obj_transit(obj)->queue_node);
	hc_cache_event(obj);
}

/*
 * Give @obj's chunks back to the chunk allocator, or a small object's
 * blocks to the slab (which gives its slab chunk back with its last
 * object).
 */
static void hc_cache_put_space(struct hc_cache *c, struct hc_obj *obj)
{
	if (!obj->nr_ext)
		return;
	if (obj->flags & HC_OBJ_F_SUBCHUNK) {
		WARN_ON_ONCE(hc_slab_put(&c->slab, &c->alloc, obj->sext));
		hc_compact_kick(c);	/* the slab may be sparse now */
	} else {
		WARN_ON_ONCE(hc_alloc_put(&c->alloc, obj->ext, obj->nr_ext));
	}
}

/*
 * Free @obj, detached: its chunks return to the pool unless @keep_chunks
 * (a journal DELETE failed: the chunks must not be reused, since the
 * object may come back at the next assembly) or the object was never
 * placed (replay).
 */
static void hc_cache_reap(struct hc_cache *c, struct hc_obj *obj,
			  bool keep_chunks)
{
	if (!keep_chunks && !c->replaying)
		hc_cache_put_space(c, obj);
	hc_cache_fence_free(obj);
	call_rcu(&obj->rcu, hc_cache_obj_free_rcu);	/* LOCATE may read it */
}

/* Drop @obj from everything and free it, chunks included. */
static void hc_cache_unlink(struct hc_cache *c, struct hc_obj *obj,
			    bool keep_chunks)
{
	hc_cache_detach(c, obj);
	hc_cache_reap(c, obj, keep_chunks);
}

/* Drop @obj, which the journal does not record (or no longer needs to). */
static void hc_cache_remove(struct hc_cache *c, struct hc_obj *obj)
{
	hc_cache_unlink(c, obj, false);
}

/*
 * @obj goes for good, and its DELETE is about to be journaled: it leaves
 * the index now (no LOCATE finds it, no hold can be taken) and waits on
 * hc_cache.doomed, its chunks allocated, until the DELETE is durable
 * (hc_cache_deletes_out()).
 */
static void hc_cache_doom(struct hc_cache *c, struct hc_obj *obj)
{
	hc_cache_detach(c, obj);
	list_add_tail(&obj->gone_node, &c->doomed);
	c->reserved += hc_obj_chunks(obj);
}

/* A doomed object's DELETE is durable (or failed: @keep_chunks): free it. */
static void hc_cache_doomed_free(struct hc_cache *c, struct hc_obj *obj,
				 bool keep_chunks)
{
	list_del(&obj->gone_node);
	c->reserved -= hc_obj_chunks(obj);
	hc_cache_reap(c, obj, keep_chunks);
}

/*
 * Woken whenever a busy change ends (hc_busy_seq counts them, under the
 * pool lock): hc_cache_quiesce() waits for the last, hc_cache_busy_wait()
 * for the next.
 */
static DECLARE_WAIT_QUEUE_HEAD(hc_busy_wait);
static unsigned int hc_busy_seq;

/* A busy change (counted in hc_cache.nr_busy) ends. */
static void hc_cache_busy_put(struct hc_cache *c)
{
	hc_busy_seq++;
	c->nr_busy--;
	wake_up_all(&hc_busy_wait);
}

/* Mark @obj busy (hc_obj.jop): a change with the pool lock dropped starts. */
static void hc_cache_busy_begin(struct hc_cache *c, struct hc_obj *obj)
{
	obj->jop = HC_JOP_BUSY;
	c->nr_busy++;
}

/* The change of hc_cache_busy_begin() is applied or undone. */
static void hc_cache_busy_end(struct hc_cache *c, struct hc_obj *obj)
{
	obj->jop = 0;
	hc_cache_busy_put(c);
	hc_cache_event(obj);	/* a LOCATE|PIN|WAIT of @obj goes on */
}

/**
 * hc_cache_busy_wait - wait for the end of a busy change
 *
 * The pool lock held on entry and on return, dropped until some object's
 * busy change (hc_obj.jop) ends or some DELETEs are durable.  The caller
 * wanted to change an object that was busy: it looks the pool and the
 * object up again, since either may have gone meanwhile.  Sleeps.
 */
void hc_cache_busy_wait(void)
{
	unsigned int seen = hc_busy_seq;

	hc_pool_unlock();
	wait_event(hc_busy_wait, READ_ONCE(hc_busy_seq) != seen);
	hc_pool_lock();
}

/*
 * Journal the DELETEs of the @n doomed objects @objs (hc_cache_doom()) as
 * one batch, with the pool lock dropped for the member I/O, then free them;
 * the journal mutex is held on entry (hc_journal_lock(), taken before they
 * left the index: a record of a new object of one of their URIs cannot
 * come before their DELETE) and released here.  Their chunks are reused
 * only once the DELETEs are durable: a crash before that replays them
 * intact.  On a journal error they are freed with their chunks kept
 * allocated (not reusable until the next assembly, which may bring them
 * back).  The pool stop waits meanwhile (hc_cache.nr_busy).  Sleeps.
 * Return: 0, or the journal's errno.
 */
static int hc_cache_deletes_out(struct hc_cache *c, struct hc_obj **objs,
				u32 n)
{
	struct hc_journal *j = c->journal;
	u32 i;
	int err;

	err = hc_journal_prepare_deletes(j, objs, n);
	if (!err) {
		c->nr_busy++;
		hc_pool_unlock();
		err = hc_journal_write_out(j, NULL, 0);
		hc_pool_lock();
		hc_cache_busy_put(c);
	}
	for (i = 0; i < n; i++)
		hc_cache_doomed_free(c, objs[i], err);
	return err;
}

/**
 * hc_cache_quiesce - wait until no object is busy (a pool stop)
 * @c: the cache, with the pool lock held
 *
 * Return: 0 if none was (the pool lock was held throughout), or -EAGAIN
 * after a wait without the pool lock (taken again): the caller checks
 * everything again.  Sleeps.
 */
int hc_cache_quiesce(struct hc_cache *c)
{
	if (!c->nr_busy)
		return 0;
	hc_pool_unlock();
	wait_event(hc_busy_wait, !READ_ONCE(c->nr_busy));
	hc_pool_lock();
	return -EAGAIN;
}

/**
 * hc_cache_busy_change - a change of the cache that is no one object's
 * starts (@on) or ends, with the pool lock dropped for its I/O meanwhile
 * @c: the cache, with the pool lock held
 * @on: starts
 *
 * A pool stop waits for it (hc_cache_quiesce()): the slab's compaction.
 */
void hc_cache_busy_change(struct hc_cache *c, bool on)
{
	if (on)
		c->nr_busy++;
	else
		hc_cache_busy_put(c);
}

/**
 * hc_cache_movable - whether the slab's compaction may move @obj now
 * @obj: an object, under the pool lock
 *
 * A small object, indexed, READY (its data is in the backend and nobody
 * writes it: no egress reads it), no change under way, not bad, no
 * revalidation with the helper, and held by no one: no open file or LOCATE
 * with HOLD has its extent, and none can take a hold without the pool lock
 * (the locking rules), so every holder after the move gets the new one.
 * A pinned object may move: its bytes stay the same.
 */
bool hc_cache_movable(const struct hc_obj *obj)
{
	return hc_obj_valid(obj) && (obj->flags & HC_OBJ_F_SUBCHUNK) &&
	       obj->state == HC_OBJ_READY && !obj->jop && !hc_obj_m(obj, HC_OBJ_M_BAD) &&
	       !hc_obj_m(obj, HC_OBJ_M_REVAL) && !atomic_read(&obj->holds);
}

/**
 * hc_cache_move - put a small object at a copy of its blocks
 * @c: the cache, with the pool lock held (dropped for the journal I/O)
 * @obj: the object, hc_cache_movable()
 * @to: blocks reserved in the slab (hc_slab_plan()) that hold a durable,
 *	verified copy of @obj's bytes
 * @e: a new extent allocation for @obj (kmalloc)
 * @old: set to the allocation @obj leaves, or @e if @obj did not move
 *	(lockless LOCATE may have read either): the caller frees it after a
 *	grace period; NULL if @e was never published (freed then with kfree())
 *
 * @obj is busy (hc_obj.jop) while the journal mutex is awaited and its
 * record written; its extent changes to @to with the journal mutex held,
 * before the record is encoded, so that a compaction of the log records
 * the extent the log has (as a pin's flag).  The record is an OBJECT record
 * of the same URI, generation, state and flags at @to: replay keeps the
 * last record of a URI, so after a crash the object is whole at its old
 * extent (record not durable) or at @to.  Once it is durable @obj's old
 * blocks are put in the slab; they are not reused before the plan ends
 * (their chunk is draining).  Sleeps.
 *
 * Return: 0 (moved); -EAGAIN (@obj was held meanwhile) or the journal's
 * errno before its write (nothing changed: @to stays reserved); -EIO (the
 * record's write failed: @obj stays at @to, whose reservation is its
 * extent now, and its old blocks stay used until the next assembly, which
 * may find it at either).
 */
int hc_cache_move(struct hc_cache *c, struct hc_obj *obj,
		  const struct hc_sext *to, struct hc_sext *e,
		  struct hc_sext **old)
{
	struct hc_journal *j = c->journal;
	struct hc_sext *was = obj->sext;
	int err;

	*old = NULL;
	hc_cache_busy_begin(c, obj);
	hc_cache_sync_policy(c, obj);
	err = hc_journal_lock(j);	/* may drop the pool lock */
	if (!err && atomic_read(&obj->holds)) {
		hc_journal_cancel(j);
		err = -EAGAIN;
	}
	if (err)
		goto out;
	*e = *to;
	smp_store_release(&obj->sext, e);	/* hc_obj_extent()'s snapshot */
	err = hc_journal_prepare(j, obj, HC_OBJ_READY, obj->flags);
	if (err) {
		WRITE_ONCE(obj->sext, was);
		*old = e;
		goto out;
	}
	hc_pool_unlock();
	err = hc_journal_write_out(j, &obj->jop, HC_OBJ_READY);
	hc_pool_lock();
	*old = was;
	if (err) {
		pr_err("\"%*pE\": the record of its move failed (%d); its blocks %u+%u of chunk %llu stay used\n",
		       obj->uri_len, obj->uri, err, was->block, was->nr_blocks,
		       was->chunk);
		err = -EIO;
	} else {
		WARN_ON_ONCE(hc_slab_put(&c->slab, &c->alloc, was));
	}
out:
	hc_cache_busy_end(c, obj);
	hc_cache_sync_policy(c, obj);
	return err;
}

/*
 * Record @obj, busy (hc_cache_busy_begin()), as @state with @flags in the
 * journal, durably, with the pool lock dropped for the member I/O: held on
 * entry and on return, not throughout.  Once the record is durable
 * @obj->jop holds @state until the caller applies it, so that a
 * compaction meanwhile records it as the log has it.  Sleeps.
 * Return: 0, or an errno of hc_journal_begin() or hc_journal_write_out()
 * (the caller undoes its change).
 */
static int hc_cache_journal_out(struct hc_cache *c, struct hc_obj *obj,
				u32 state, u32 flags)
{
	struct hc_journal *j = c->journal;
	int err;

	err = hc_journal_begin(j, obj, state, flags);
	if (err)
		return err;
	hc_pool_unlock();
	err = hc_journal_write_out(j, &obj->jop, state);
	hc_pool_lock();
	return err;
}

/**
 * hc_cache_lookup - find an object by URI
 * @c: the cache
 * @uri: URI bytes
 * @len: their number
 *
 * Return: the object or NULL.
 */
struct hc_obj *hc_cache_lookup(struct hc_cache *c, const u8 *uri, u32 len)
{
	struct hc_obj *obj;

	/* the pool lock keeps it: RCU is what the table's lookup asks */
	rcu_read_lock();
	obj = hc_index_find(c, hc_cache_hash(c, uri, len), uri, len);
	rcu_read_unlock();
	return obj;
}

/*
 * The lossy read buffer (as Caffeine's): a lockless LOCATE hit records the
 * object's hash in a slot of its CPU's ring instead of updating the policy,
 * which needs the pool lock; whoever holds the lock applies the recorded
 * hits (hc_cache_readbuf_drain()).  A full ring is drained by the hit that
 * filled it if the pool lock is free (mutex_trylock), else the next hits
 * overwrite the oldest slots: the policy may miss some accesses, as a
 * sampled frequency sketch does anyway.  Slots are atomic so the drainer
 * and a writer on another CPU (after a migration) never tear one; 0 is
 * "empty" (a URI whose hash is 0 loses its buffered hits).
 */
#define HC_READBUF_SLOTS	16

struct hc_readbuf {
	unsigned int head;
	atomic64_t slot[HC_READBUF_SLOTS];
};

/**
 * hc_cache_locate_fast - answer a LOCATE hit without the pool lock
 * @c: the cache of the running pool (hc_pool_current_rcu())
 * @uri: URI bytes
 * @len: their number
 * @peek: HC_LOCATE_F_PEEK: count nothing
 * @v: filled on a hit
 * @ext: filled with the first @max_ext extents on a hit, in bytes of the
 *	device (hc_obj_extent())
 * @max_ext: room in @ext
 * @hold: NULL, or called for a hit before anything is counted or filled,
 *	to take a hold on the object without the pool lock (it may only use
 *	hc_cache_hold_more()); false refuses the hit (-EAGAIN)
 * @arg: @hold's argument
 *
 * Under rcu_read_lock(), never sleeps, allocates nothing.  The index is
 * changed under the pool lock with RCU list operations and objects are
 * freed after a grace period, so the object found stays readable here.
 * Only a READY, DIRTY or SYNCING object is answered: its extents, size,
 * generation and chunks do not change any more once that state is
 * published (smp_store_release() in hc_cache_set_state()).
 * A hold (@hold, without @peek) of a READY object that is due for
 * revalidation (hc_reval_obj_due(), or one under way) is not answered
 * here: the caller asks the helper with the pool lock (kmod/reval.c), so
 * objects that are not due keep this path.
 * Return: 0 (a hit; counted per CPU and recorded in the read buffer
 * unless @peek), 1 (the same, and the read buffer is full: drain it with
 * the pool lock if it is free), or -EAGAIN: anything else (a miss, a
 * pending or bad object, an unsettled read error, a replay, a hold of an
 * object due for revalidation), which the caller answers with the pool
 * lock.
 */
int hc_cache_locate_fast(struct hc_cache *c, const u8 *uri, u32 len,
			 bool peek, struct hc_cache_view *v,
			 struct hc_extent *ext, u32 max_ext,
			 bool (*hold)(struct hc_obj *obj, void *arg),
			 void *arg)
{
	u64 hash = hc_cache_hash(c, uri, len);
	struct hc_readbuf *rb;
	struct hc_obj *obj;
	unsigned int i;
	u32 state;

	if (READ_ONCE(c->replaying) || atomic_read(&c->bad_pending))
		return -EAGAIN;
	obj = hc_index_find(c, hash, uri, len);
	if (!obj)
		return -EAGAIN;
	state = smp_load_acquire(&obj->state);	/* pairs with set_state() */
	if ((state != HC_OBJ_READY && state != HC_OBJ_DIRTY &&
	     state != HC_OBJ_SYNCING) || hc_obj_m(obj, HC_OBJ_M_BAD))
		return -EAGAIN;
	/* a reader's hold of a clean object due for revalidation: locked */
	if (hold && !peek && state == HC_OBJ_READY &&
	    (hc_obj_m(obj, HC_OBJ_M_REVAL) || hc_reval_obj_due(obj)))
		return -EAGAIN;
	if (hold && !hold(obj, arg))
		return -EAGAIN;
	v->state = state;
	v->flags = READ_ONCE(obj->flags);
	v->nr_ext = obj->nr_ext;
	v->size = obj->size;
	v->generation = obj->generation;
	v->chunks = hc_obj_chunks(obj);
	for (i = 0; i < obj->nr_ext && i < max_ext; i++)
		ext[i] = hc_obj_extent(obj, c->chunk_size, i);
	if (peek)
		return 0;
	this_cpu_inc(*c->hits);
	rb = get_cpu_ptr(c->readbuf);
	i = rb->head++ % HC_READBUF_SLOTS;
	atomic64_set(&rb->slot[i], hash);
	put_cpu_ptr(c->readbuf);
	return i == HC_READBUF_SLOTS - 1;
}

/**
 * hc_cache_readbuf_drain - apply the hits recorded in the read buffers
 * @c: the cache
 *
 * Under the pool lock.  Each recorded hash is an access of the object of
 * that hash if it is still indexed and in the policy.
 */
void hc_cache_readbuf_drain(struct hc_cache *c)
{
	struct hc_obj *obj;
	unsigned int i;
	int cpu;
	u64 hash;

	for_each_possible_cpu(cpu) {
		struct hc_readbuf *rb = per_cpu_ptr(c->readbuf, cpu);

		for (i = 0; i < HC_READBUF_SLOTS; i++) {
			if (!atomic64_read(&rb->slot[i]))
				continue;
			hash = atomic64_xchg(&rb->slot[i], 0);
			rcu_read_lock();	/* the table's; the pool lock */
			obj = rhashtable_lookup(&c->index, &hash,
						hc_index_params);
			if (obj && hc_obj_valid(obj) &&
			    hc_policy_resident(&obj->pe))
				hc_policy_access(&c->policy, &obj->pe);
			rcu_read_unlock();
		}
	}
}

/* All LOCATE hits: those under the pool lock and the lockless ones. */
u64 hc_cache_hits(const struct hc_cache *c)
{
	u64 sum = c->stats.hits;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += *per_cpu_ptr(c->hits, cpu);
	return sum;
}

/*
 * The member of an object's first chunk: the standard (zlib) CRC-32 of the
 * URI mod N, so that objects spread their first chunks over all members.
 */
static u32 hc_cache_start_member(const struct hc_cache *c,
				 const struct hc_obj *obj)
{
	return (crc32_le(~0U, obj->uri, obj->uri_len) ^ ~0U) % c->members;
}

/*
 * The policy weight of @chunks whole chunks: chunks in a v1 pool, 4 KiB
 * blocks in a v2 one (hc_cache.wshift); at least 1, at most U32_MAX (an
 * object of 16 TiB or more weighs 16 TiB in a v2 pool).
 */
static u32 hc_cache_weight(const struct hc_cache *c, u64 chunks)
{
	if (chunks > (U32_MAX >> c->wshift))
		return U32_MAX;
	return max_t(u64, chunks << c->wshift, 1);
}

/*
 * Set up the slab at the first small object (or replayed sub-chunk
 * extent): its table is vmalloc'ed only for pools that use it.  Return:
 * 0, -ENOMEM or -EINVAL (the chunk size cannot hold a slab).
 */
static int hc_cache_slab_ready(struct hc_cache *c)
{
	u32 max = min_t(u64, c->nr_chunks, HC_SLAB_MAX_CHUNKS);
	size_t words = hc_slab_words(max, c->chunk_size);
	struct hc_slab_chunk *chunks;
	u64 *w;

	if (c->slab_chunks)
		return 0;
	if (!words)
		return -EINVAL;
	chunks = kvcalloc(max, sizeof(*chunks), GFP_KERNEL);
	w = kvcalloc(words, sizeof(*w), GFP_KERNEL);
	if (!chunks || !w) {
		kvfree(chunks);
		kvfree(w);
		return -ENOMEM;
	}
	if (WARN_ON_ONCE(hc_slab_init(&c->slab, c->chunk_size, c->members,
				      max, chunks, w))) {
		kvfree(chunks);
		kvfree(w);
		return -EINVAL;
	}
	c->slab_chunks = chunks;
	c->slab_words = w;
	return 0;
}

/*
 * Whether a new object of @size bytes goes into the slab: a v2 pool
 * (policy in blocks, v2 journal records), a size known at placement,
 * 1 byte to below HC_SMALL_OBJ_MAX and the chunk size, and room in the
 * slab's table (else it takes a whole chunk, as in v1).  May sleep (the
 * slab's first allocation).
 */
static bool hc_cache_small(struct hc_cache *c, u64 size)
{
	if (!c->wshift || !size || size >= HC_SMALL_OBJ_MAX ||
	    size >= c->chunk_size || !c->journal ||
	    !hc_journal_v2(c->journal) || hc_cache_slab_ready(c))
		return false;
	return c->slab.nr_chunks < c->slab.max_chunks;
}

/*
 * The policy weight of a new object of @size bytes: its 4 KiB blocks if
 * @small, else its chunks' (hc_cache_weight()).
 */
static u32 hc_cache_size_weight(const struct hc_cache *c, u64 size,
				bool small)
{
	if (small)
		return hc_slab_blocks(size);
	return hc_cache_weight(c, DIV_ROUND_UP_ULL(size, c->chunk_size));
}

/**
 * hc_obj_extent - one extent of an object, in bytes of the device
 * @obj: the object (its extents fixed: held, or under the pool lock)
 * @chunk_size: the pool's chunk size
 * @i: the extent, < @obj->nr_ext
 *
 * The one place that turns an object's extents into bytes of the device
 * (LOCATE, STAGE's reply, OBJ_GET, COMMIT's write-back, the file system
 * view's reads and writes): whole chunks, or for a small object
 * (HC_OBJ_F_SUBCHUNK) its run of 4 KiB blocks, its offset and length
 * multiples of HC_SUBBLOCK_SIZE.
 */
struct hc_extent hc_obj_extent(const struct hc_obj *obj, u32 chunk_size,
			       u32 i)
{
	if (obj->flags & HC_OBJ_F_SUBCHUNK) {
		/* one snapshot: compaction may move it (hc_cache_move()) */
		const struct hc_sext *e = READ_ONCE(obj->sext);

		return (struct hc_extent){
			.offset = e->chunk * chunk_size +
				  (u64)e->block * HC_SUBBLOCK_SIZE,
			.length = (u64)e->nr_blocks * HC_SUBBLOCK_SIZE };
	}
	return (struct hc_extent){ .offset = obj->ext[i].start * chunk_size,
				   .length = obj->ext[i].count * chunk_size };
}

/*
 * Would an object with a @uri_len-byte URI and at most @nr_ext extents
 * still fit in the journal, in place of the @charged bytes it is charged
 * now (0 for a new one)?  Return: 0 or -ENOSPC.
 */
static int hc_cache_journal_room(const struct hc_cache *c, u32 uri_len,
				 u64 nr_ext, u32 charged)
{
	const struct hc_journal *j = c->journal;

	if (!j)
		return 0;
	nr_ext = min_t(u64, nr_ext, HC_MAX_EXTENTS);
	if (c->jbytes - charged + hc_journal_obj_bytes(j, uri_len, nr_ext) >
	    hc_journal_capacity(j))
		return -ENOSPC;
	return 0;
}

/**
 * hc_cache_journal_fits - whether the objects' records fit the journal's
 * halves in another version (an upgrade's check, before it writes)
 * @c: the cache, with a journal; the pool lock held
 * @version: the version the next compaction would write
 * @need: filled with the bytes the records of the charged objects take in
 *	@version
 * @room: filled with hc_journal_capacity_in(@version)
 *
 * A v2 record is larger than a v1 one (room for an ETag): a v1 journal the
 * capacity rule keeps below its capacity may not hold its objects in v2.
 * Return: 0, or -ENOSPC (@need > @room).
 */
int hc_cache_journal_fits(struct hc_cache *c, u32 version, u64 *need,
			  u64 *room)
{
	const struct hc_journal *j = c->journal;
	struct hc_obj *obj;
	u32 n = 0;

	*need = 0;
	*room = hc_journal_capacity_in(j, version);
	for (obj = hc_cache_ordered_first(c); obj;
	     obj = hc_cache_ordered_next(c, obj)) {
		hc_index_resched(&n);
		if (hc_obj_m(obj, HC_OBJ_M_CHARGED))
			*need += hc_journal_obj_bytes_in(j, version,
							 obj->uri_len,
							 obj->nr_ext);
	}
	return *need > *room ? -ENOSPC : 0;
}

/**
 * hc_cache_journal_recharge - charge every object its record in the
 * journal's version, which changed (an upgrade: j->version)
 * @c: the cache, with a journal; the pool lock held
 *
 * So that the capacity rule counts what the next compaction writes, as an
 * assembly of the upgraded pool charges it.
 */
void hc_cache_journal_recharge(struct hc_cache *c)
{
	struct hc_obj *obj;
	u32 n = 0;

	/* every charged object is indexed: one left uncharged first */
	c->jbytes = 0;
	for (obj = hc_cache_ordered_first(c); obj;
	     obj = hc_cache_ordered_next(c, obj)) {
		hc_index_resched(&n);
		c->jbytes += hc_obj_jbytes(c, obj);
	}
}

/*
 * Admit @obj (weight set, flags set, not resident) into the policy and
 * evict the objects it names to make room.  An unevictable @obj cannot be refused, only
 * fail for want of room; neither can an explicit admission
 * (HC_OBJ_M_EXPLICIT: an operator's preload, no frequency duel).
 * @resized: @obj was resident with another weight (a stage grown or
 * trimmed), placed again by hc_policy_admit_resized(): not a new request
 * for the policy's sketch (a growable stage is placed again at each new
 * chunk).
 *
 * The victims leave the index at once and their DELETEs are journaled as
 * one batch with the pool lock dropped (hc_cache_deletes_out()); the
 * journal mutex is taken first, before the policy chooses them, whenever
 * the admission can evict (the lock may be dropped while waiting for it).
 * So the caller keeps @obj busy (hc_obj.jop) or out of the index; once
 * admitted it is unevictable (HC_POLICY_F_HELD, until the caller's
 * hc_cache_sync_policy()).  May sleep.  Return: 0 (resident);
 * HC_INGEST_NOT_ADMITTED (an evictable object lost its duel);
 * -ENOSPC (no room: counted in refused_room); -EIO (the journal is broken,
 * or the victims' DELETEs failed: they are gone, their chunks kept); not
 * resident on error.
 */
static int hc_cache_admit(struct hc_cache *c, struct hc_obj *obj,
			  bool resized)
{
	struct hc_policy_entry **victims;
	/* the same slots, turned into the victims' objects one by one */
	struct hc_obj **doomed;
	bool jlocked = false;
	u32 nr = 0, max, i;
	int ret, err = 0;

	if (c->journal && hc_policy_would_evict(&c->policy, obj->pe.weight)) {
		err = hc_journal_lock(c->journal);
		if (err)
			return err;
		jlocked = true;
	}
	/*
	 * Sized now, the lock held from here to the policy's choice: the
	 * policy's weights are 4 KiB blocks in a v2 pool, so the weight can
	 * be far more than the entries that could be victims.
	 */
	max = hc_policy_max_victims(&c->policy, obj->pe.weight);
	victims = kvmalloc_array(max_t(u32, max, 1), sizeof(*victims),
				 GFP_KERNEL);
	if (!victims) {
		if (jlocked)
			hc_journal_cancel(c->journal);
		return -ENOMEM;
	}
	doomed = (struct hc_obj **)victims;
	hc_cache_readbuf_drain(c);	/* the victims are chosen on fresh hits */
	if (hc_obj_m(obj, HC_OBJ_M_EXPLICIT))
		ret = hc_policy_admit_explicit(&c->policy, &obj->pe, victims,
					       max, &nr);
	else if (resized)
		ret = hc_policy_admit_resized(&c->policy, &obj->pe, victims,
					      max, &nr);
	else
		ret = hc_policy_admit(&c->policy, &obj->pe, victims, max, &nr);
	if (hc_policy_resident(&obj->pe))
		hc_policy_set_flags(&c->policy, &obj->pe, HC_POLICY_F_HELD, 0);
	for (i = 0; i < nr; i++) {
		struct hc_obj *v = container_of(victims[i], struct hc_obj, pe);

		c->stats.evictions++;
		trace_hc_evict(v->uri, v->uri_len, v->generation, v->size);
		hc_cache_doom(c, v);
		doomed[i] = v;
	}
	if (nr && c->journal && WARN_ON_ONCE(!jlocked)) {
		err = hc_journal_lock(c->journal);
		jlocked = !err;
	}
	if (nr && jlocked) {
		err = hc_cache_deletes_out(c, doomed, nr);
	} else {
		if (jlocked)
			hc_journal_cancel(c->journal);
		for (i = 0; i < nr; i++)	/* no journal (or broken) */
			hc_cache_doomed_free(c, doomed[i], err);
	}
	kvfree(victims);
	if (err) {
		hc_policy_remove(&c->policy, &obj->pe);
		return err;
	}
	if (ret == -ENOSPC)
		c->stats.refused_room++;
	if (ret < 0)
		return ret;
	if (ret == HC_POLICY_REJECTED) {
		c->stats.rejections++;
		return HC_INGEST_NOT_ADMITTED;
	}
	return 0;
}

/*
 * Place small @obj (hc_cache_small()), admitted, in the slab: its blocks
 * in a slab chunk on its start member.  Return: 0; -ENOSPC (no slab chunk
 * has a free run of its blocks and no chunk is free); -ENOMEM.
 */
static int hc_cache_place_small(struct hc_cache *c, struct hc_obj *obj,
				u64 size)
{
	struct hc_sext *e = kmalloc(sizeof(*e), GFP_KERNEL);
	int err;

	BUILD_BUG_ON(sizeof(*e) != sizeof(*obj->ext));
	if (!e)
		return -ENOMEM;
	for (;;) {
		err = hc_slab_get(&c->slab, &c->alloc, size,
				  hc_cache_start_member(c, obj), e);
		/* room being freed by victims' DELETEs: as hc_cache_place() */
		if (err != -ENOSPC || !c->reserved)
			break;
		hc_cache_busy_wait();
	}
	if (err) {
		kfree(e);
		return err;
	}
	obj->sext = e;
	obj->flags |= HC_OBJ_F_SUBCHUNK;
	return 0;
}

/*
 * Make room for @obj (weight set, flags set) through the policy and
 * allocate its chunks, or with @small its blocks in the slab
 * (hc_cache_small(): @chunks is then 1, @size its bytes).  An unevictable
 * @obj cannot be refused, only fail for want of room.
 * May sleep (GFP_KERNEL), and drop the pool lock (hc_cache_admit()): @obj
 * is busy or not indexed.
 * Return: 0; HC_INGEST_NOT_ADMITTED (an evictable object lost its duel);
 * -ENOSPC (no room); -E2BIG (room, but too fragmented for HC_MAX_EXTENTS
 * extents); -ENOMEM.
 */
static int hc_cache_place(struct hc_cache *c, struct hc_obj *obj, u64 chunks,
			  bool small, u64 size)
{
	struct hc_ext *ext;
	u32 nr_ext = 0, i;
	int err;

	ext = kmalloc_array(HC_MAX_EXTENTS, sizeof(*ext), GFP_KERNEL);
	if (!ext) {
		err = -ENOMEM;
		goto out;
	}
	err = hc_cache_admit(c, obj, false);
	if (err)
		goto out;

	if (small) {
		err = hc_cache_place_small(c, obj, size);
		if (err) {
			hc_policy_remove(&c->policy, &obj->pe);
			goto out;
		}
		nr_ext = 1;
	} else if (chunks) {
		for (;;) {
			err = hc_alloc_get(&c->alloc, chunks,
					   hc_cache_start_member(c, obj), ext,
					   HC_MAX_EXTENTS, &nr_ext);
			/*
			 * The policy made room, but the room is chunks of
			 * another admission's victims, whose DELETEs are
			 * being written: wait for them (@obj is busy).
			 */
			if (err != -ENOSPC || !c->reserved)
				break;
			hc_cache_busy_wait();
		}
		if (err) {
			if (err == -E2BIG)
				c->stats.refused_fragmented++;
			/* the room may be free blocks of slab chunks */
			hc_compact_kick(c);
			hc_policy_remove(&c->policy, &obj->pe);
			goto out;
		}
		obj->ext = kmemdup(ext, nr_ext * sizeof(*ext), GFP_KERNEL);
		if (!obj->ext) {
			WARN_ON_ONCE(hc_alloc_put(&c->alloc, ext, nr_ext));
			hc_policy_remove(&c->policy, &obj->pe);
			err = -ENOMEM;
			goto out;
		}
		/* new data will be written: forget old read errors */
		for (i = 0; i < nr_ext; i++)
			bitmap_clear(c->bad_chunks, ext[i].start, ext[i].count);
	}
	obj->nr_ext = nr_ext;
	c->stats.admissions++;
	err = 0;
out:
	kfree(ext);
	return err;
}

/* Give back what hc_cache_place() gave @obj (it is not indexed). */
static void hc_cache_unplace(struct hc_cache *c, struct hc_obj *obj)
{
	hc_policy_remove(&c->policy, &obj->pe);
	hc_cache_put_space(c, obj);
	kfree(obj->ext);
	obj->ext = NULL;
	obj->nr_ext = 0;
	obj->flags &= ~HC_OBJ_F_SUBCHUNK;
}

/*
 * hc_cache_place() of a new stage may have dropped the pool lock (its
 * victims' DELETEs): check again what hc_cache_stage() checked before.
 * Return: 0; -EEXIST or -EBUSY (@replace) if another object of the URI
 * came meanwhile; -ENOSPC (no journal room any more); what @obj was given
 * is given back on error.
 */
static int hc_cache_replaced_check(struct hc_cache *c, struct hc_obj *obj,
				   bool replace)
{
	int err = 0;

	if (hc_cache_lookup(c, obj->uri, obj->uri_len)) {
		err = replace ? -EBUSY : -EEXIST;
	} else if (hc_cache_journal_room(c, obj->uri_len, obj->nr_ext, 0)) {
		c->stats.refused_journal++;
		err = -ENOSPC;
	}
	if (err)
		hc_cache_unplace(c, obj);
	return err;
}

/**
 * hc_cache_stage - allocate a new object for an application to write
 * @c: the cache
 * @uri: URI bytes (validated by the caller)
 * @len: their number
 * @size: the object's size in bytes
 * @replace: evict an existing idle object of that URI first
 * @any_writer: the fence admits every writer, not only the calling task's
 *	thread group (the caller checked the privilege)
 * @growable: HC_STAGE_F_GROW: @size is a hint, the stage holds whole
 *	chunks (hc_cache_grow(), hc_cache_trim()); else, in a v2 pool, an
 *	object below the small-object threshold goes into the slab
 *	(HC_OBJ_F_SUBCHUNK: one run of 4 KiB blocks)
 * @stager: the control file that owns the stage
 * @objp: set to the new STAGED object
 *
 * The new object is unevictable while staged, so the policy admits it if
 * evicting evictable objects makes room.  Its write fence opens for the
 * calling task's thread group.  May sleep.
 *
 * With @replace, a pending ingest of the URI that has no allocation yet
 * (the helper is not writing) is taken over: it ends, and readers waiting
 * for it wait for this stage instead.
 *
 * Return: 0; -EFBIG (larger than the pool; nothing changed); -EEXIST (URI
 * cached, no @replace); -EAGAIN (@replace, and a change of the READY
 * object of the URI is under way, a pin or a compaction's move: the caller
 * waits, hc_cache_busy_wait(), and looks the pool up again); -EBUSY (it
 * cannot be replaced now); -ENOSPC;
 * -E2BIG; -ENOMEM.
 */
int hc_cache_stage(struct hc_cache *c, const u8 *uri, u32 len, u64 size,
		   bool replace, bool any_writer, bool growable,
		   struct hc_ctl *stager, struct hc_obj **objp)
{
	struct hc_obj_transit *t;
	struct hc_obj *obj;
	bool small;
	u64 chunks;
	int err;

	err = hc_cache_size_check(c, size);
	if (err)
		return err;
	chunks = DIV_ROUND_UP_ULL(size, c->chunk_size);
	obj = hc_cache_lookup(c, uri, len);
	if (obj) {
		if (!replace)
			return -EEXIST;
		/* a change of it is being journaled; a READY one's ends soon */
		if (obj->jop)
			return obj->state == HC_OBJ_READY ? -EAGAIN : -EBUSY;
		if (obj->state == HC_OBJ_INGESTING && !hc_obj_allocated(obj))
			hc_cache_ingest_end(c, obj, 0);	/* outcome: unknown */
		else
			err = hc_cache_evict(c, obj, false);
		if (err)
			return err;
	}
	err = hc_cache_journal_room(c, len, chunks, 0);
	if (err) {
		c->stats.refused_journal++;
		return err;
	}

	obj = hc_cache_obj_alloc(c, uri, len);
	if (!obj)
		return -ENOMEM;
	t = hc_cache_transit_new(obj);
	if (t)
		t->fence = hc_cache_fence_alloc(any_writer);
	if (!hc_obj_fence(obj)) {
		hc_cache_obj_free(obj);
		return -ENOMEM;
	}
	obj->size = size;
	/*
	 * An empty object takes no chunk: it stays out of the policy (which
	 * weighs chunks) and is only ever removed explicitly.
	 */
	small = !growable && hc_cache_small(c, size);
	hc_policy_entry_init(&obj->pe, obj->pe.key,
			     hc_cache_size_weight(c, size, small));
	if (chunks) {
		hc_policy_set_flags(&c->policy, &obj->pe, HC_POLICY_F_HELD, 0);
		hc_cache_busy_begin(c, obj);	/* not indexed: for a pool stop */
		err = hc_cache_place(c, obj, chunks, small, size);
		hc_cache_busy_end(c, obj);
		if (!err)
			err = hc_cache_replaced_check(c, obj, replace);
		if (err) {
			hc_cache_obj_free(obj);
			return err > 0 ? -ENOSPC : err;	/* held: never refused */
		}
	} else {
		c->stats.admissions++;
	}
	obj->generation = c->next_generation++;
	hc_obj_transit(obj)->stager = stager;
	err = hc_cache_insert(c, obj, HC_OBJ_STAGED);
	if (err) {
		/* the victims stay evicted; this object's place is undone */
		hc_policy_remove(&c->policy, &obj->pe);
		hc_cache_put_space(c, obj);
		hc_cache_obj_free(obj);
		return err;
	}
	hc_cache_journal_charge(c, obj);
	hc_cache_fence_open(c, obj);
	if (growable) {
		/*
		 * Its size is what its chunks hold, whole chunks;
		 * hc_cache_grow() extends it and hc_cache_trim() cuts it to
		 * the final size at COMMIT.
		 */
		hc_obj_transit(obj)->growable = true;
		obj->size = hc_obj_chunks(obj) * c->chunk_size;
	}
	*objp = obj;
	return 0;
}

/*
 * Give @obj, STAGED, the policy weight of @chunks (0: out of the policy, as
 * an empty object is): it leaves the policy and is admitted again,
 * unevictable, evicting what the policy names.  May sleep.  Return: 0;
 * -ENOSPC; -ENOMEM; -EIO (a victim's journal DELETE failed).
 */
static int hc_cache_reweigh(struct hc_cache *c, struct hc_obj *obj,
			    u64 chunks)
{
	int err;

	hc_policy_remove(&c->policy, &obj->pe);
	hc_policy_entry_init(&obj->pe, obj->pe.key, hc_cache_weight(c, chunks));
	if (!chunks)
		return 0;
	hc_cache_sync_policy(c, obj);	/* STAGED: unevictable */
	err = hc_cache_admit(c, obj, true);	/* not a new request */
	return err > 0 ? -ENOSPC : err;
}

/**
 * hc_cache_grow - extend a growable stage by whole chunks (HC_IOC_GROW)
 * @c: the cache
 * @obj: the object, STAGED with HC_STAGE_F_GROW, its fence open
 * @size: bytes the stage must hold: it grows to DIV_ROUND_UP(@size, chunk
 *	size) chunks, and does nothing if it holds that many already
 *
 * The new chunks continue the last extent when the chunks after it are
 * free (chunk i of the object stays on member (start + i) mod N), else
 * hc_alloc_get() places them from the member after the last chunk's.  The
 * policy weighs the whole stage (evicting evictable objects for room) and
 * the journal must have room for its record with the new extents, as for
 * STAGE.  The fence opens over the new chunks before this returns.  May
 * sleep.
 *
 * Return: 0; -EINVAL (not a growable stage with an open fence); -EBUSY
 * (its COMMIT is under way); -EFBIG (larger than the pool); -ENOSPC (no
 * room, or no journal room); -E2BIG (more than HC_MAX_EXTENTS extents);
 * -ENOMEM; -EIO (a journal DELETE of an evicted object failed).  On error
 * the stage is as it was (objects evicted for room stay evicted).
 */
int hc_cache_grow(struct hc_cache *c, struct hc_obj *obj, u64 size)
{
	struct hc_ext *ext = NULL, *all = NULL, *last = NULL;
	u64 chunks, add, old = hc_obj_chunks(obj), end = 0, k;
	u32 nr = 0, merge, n, i;
	bool busy = false;
	int err;

	if (obj->jop)
		return -EBUSY;		/* its COMMIT (or a GROW) is under way */
	if (!hc_obj_growable(obj) || obj->state != HC_OBJ_STAGED ||
	    !hc_obj_fence(obj) || hc_obj_fence(obj)->closed)
		return -EINVAL;
	err = hc_cache_size_check(c, size);
	if (err)
		return err;
	chunks = DIV_ROUND_UP_ULL(size, c->chunk_size);
	if (chunks <= old)
		return 0;
	add = chunks - old;
	err = hc_cache_journal_room(c, obj->uri_len, (u64)obj->nr_ext + add,
				    hc_obj_jbytes(c, obj));
	if (err)
		return err;
	ext = kmalloc_array(HC_MAX_EXTENTS, sizeof(*ext), GFP_KERNEL);
	all = kmalloc_array(HC_MAX_EXTENTS, sizeof(*all), GFP_KERNEL);
	if (!ext || !all) {
		err = -ENOMEM;
		goto out;
	}

	/* the pool lock may be dropped for the victims' DELETEs */
	hc_cache_busy_begin(c, obj);
	busy = true;
	err = hc_cache_reweigh(c, obj, chunks);
	if (!err)	/* another change may have used the room meanwhile */
		err = hc_cache_journal_room(c, obj->uri_len,
					    (u64)obj->nr_ext + add,
					    hc_obj_jbytes(c, obj));
	if (err)
		goto restore;
	if (obj->nr_ext) {
		last = &obj->ext[obj->nr_ext - 1];
		end = last->start + last->count;
		ext[0].start = end;
		ext[0].count = add;
		if (!hc_alloc_claim(&c->alloc, ext, 1))
			nr = 1;
	}
	if (!nr) {
		err = hc_alloc_get(&c->alloc, add,
				   last ? end % c->members :
					  hc_cache_start_member(c, obj),
				   ext, HC_MAX_EXTENTS, &nr);
		if (err)
			goto restore;
	}
	merge = last && ext[0].start == end;
	n = obj->nr_ext + nr - merge;
	if (n > HC_MAX_EXTENTS) {
		WARN_ON_ONCE(hc_alloc_put(&c->alloc, ext, nr));
		err = -E2BIG;
		goto restore;
	}
	if (obj->nr_ext)
		memcpy(all, obj->ext, obj->nr_ext * sizeof(*all));
	if (merge)
		all[obj->nr_ext - 1].count += ext[0].count;
	memcpy(all + obj->nr_ext, ext + merge, (nr - merge) * sizeof(*all));
	last = kmemdup(all, n * sizeof(*all), GFP_KERNEL);
	if (!last) {
		WARN_ON_ONCE(hc_alloc_put(&c->alloc, ext, nr));
		err = -ENOMEM;
		goto restore;
	}

	/*
	 * The fence covers exactly the stage's chunks: the new ones too.
	 * New data will be written there: forget old read errors.
	 */
	for (i = 0; i < nr; i++) {
		for (k = 0; k < ext[i].count; k++)
			rcu_assign_pointer(c->fence[ext[i].start + k],
					   hc_obj_transit(obj)->fence);
		bitmap_clear(c->bad_chunks, ext[i].start, ext[i].count);
	}
	kfree(obj->ext);
	hc_cache_journal_uncharge(c, obj);	/* of the old extents */
	obj->ext = last;
	obj->nr_ext = n;
	obj->size = chunks * c->chunk_size;
	hc_cache_journal_charge(c, obj);
	goto out;

restore:
	/* The old weight fits: the stage held it before. */
	hc_cache_reweigh(c, obj, old);
out:
	if (busy)
		hc_cache_busy_end(c, obj);
	kfree(all);
	kfree(ext);
	return err;
}

/**
 * hc_cache_trim - cut a sealed growable stage to its final size (COMMIT)
 * @c: the cache
 * @obj: the object, STAGED with HC_STAGE_F_GROW, sealed (hc_cache_seal())
 * @size: the final size in bytes, at most what the stage holds
 *
 * Frees the chunks past @size (the fence over them is closed and drained),
 * gives the policy the smaller weight and sets the object's size.  May
 * sleep.  Return: 0; -EINVAL (not a sealed growable stage); -EFBIG (@size
 * more than the stage holds); -ENOMEM; nothing changes on these.  -EIO: a
 * journal DELETE of an object the policy evicted failed (the stage is cut).
 */
int hc_cache_trim(struct hc_cache *c, struct hc_obj *obj, u64 size)
{
	struct hc_ext *tail = NULL;
	u64 chunks, keep = 0, take;
	u32 i, nr_keep = 0, nr_tail = 0;
	int err;

	if (!hc_obj_growable(obj) || obj->state != HC_OBJ_STAGED ||
	    (hc_obj_fence(obj) && !hc_obj_fence(obj)->closed))
		return -EINVAL;
	if (size > hc_obj_chunks(obj) * c->chunk_size)
		return -EFBIG;
	chunks = DIV_ROUND_UP_ULL(size, c->chunk_size);
	if (chunks == hc_obj_chunks(obj)) {
		obj->size = size;
		return 0;
	}
	tail = kmalloc_array(obj->nr_ext, sizeof(*tail), GFP_KERNEL);
	if (!tail)
		return -ENOMEM;
	hc_cache_journal_uncharge(c, obj);	/* of the old extents */
	for (i = 0; i < obj->nr_ext; i++) {
		struct hc_ext *e = &obj->ext[i];

		take = min_t(u64, e->count, chunks - keep);
		if (take < e->count) {
			tail[nr_tail].start = e->start + take;
			tail[nr_tail].count = e->count - take;
			nr_tail++;
		}
		if (take) {
			e->count = take;
			nr_keep = i + 1;
		}
		keep += take;
	}
	WARN_ON_ONCE(hc_alloc_put(&c->alloc, tail, nr_tail));
	obj->nr_ext = nr_keep;
	obj->size = size;
	hc_cache_journal_charge(c, obj);
	err = hc_cache_reweigh(c, obj, chunks);
	kfree(tail);
	return err;
}

/**
 * hc_cache_commit_begin - COMMIT starts: mark the STAGED object busy
 * @c: the cache
 * @obj: the object
 *
 * From here until hc_cache_commit() or hc_cache_commit_cancel() the
 * caller may drop the pool lock (for the write-back, the seal and the
 * members' flushes); every other change of @obj is refused meanwhile.
 * Return: 0; -EINVAL (not STAGED); -EBUSY (a COMMIT of it is under way).
 */
int hc_cache_commit_begin(struct hc_cache *c, struct hc_obj *obj)
{
	if (obj->state != HC_OBJ_STAGED)
		return -EINVAL;
	if (obj->jop)
		return -EBUSY;
	hc_cache_busy_begin(c, obj);
	return 0;
}

/* A COMMIT failed before its record: open the fence again, not busy. */
void hc_cache_commit_cancel(struct hc_cache *c, struct hc_obj *obj)
{
	hc_cache_unseal(c, obj);
	hc_cache_busy_end(c, obj);
}

/**
 * hc_cache_commit - a STAGED object's data is written: keep it
 * @c: the cache
 * @obj: the object, STAGED, busy since hc_cache_commit_begin()
 * @clean: the backend holds the same data: READY instead of DIRTY
 * @has_crc: @crc is the CRC-32C of the data
 * @crc: see @has_crc
 *
 * The caller has sealed the object (hc_cache_seal()) and then made the
 * data durable.  Records the object in the journal (durably, the pool
 * lock dropped for the I/O: hc_cache_journal_out()) and drops its fence;
 * either way @obj is no longer busy on return.  Return: 0; -EIO or
 * -ENOSPC from the journal (the object stays STAGED, its fence open again:
 * hc_cache_commit_cancel()).
 */
int hc_cache_commit(struct hc_cache *c, struct hc_obj *obj, bool clean,
		    bool has_crc, u32 crc)
{
	u32 state = clean ? HC_OBJ_READY : HC_OBJ_DIRTY;
	u32 old_flags = obj->flags, old_crc = obj->data_crc;
	int err;

	/* what the record says, in the object before a compaction can see it */
	if (has_crc) {
		obj->flags |= HC_OBJ_F_DATA_CRC;
		obj->data_crc = crc;
	}
	/* The promise: the record is durable before COMMIT returns. */
	err = hc_cache_journal_out(c, obj, state, obj->flags);
	if (err) {
		obj->flags = old_flags;
		obj->data_crc = old_crc;
		hc_cache_commit_cancel(c, obj);
		return err;
	}
	hc_cache_fence_free(obj);
	hc_obj_transit(obj)->stager = NULL;
	list_del_init(&hc_obj_transit(obj)->queue_node);	/* the stager's list */
	hc_cache_busy_end(c, obj);
	hc_cache_set_state(c, obj, state);
	return 0;
}

/**
 * hc_cache_abort - drop a STAGED object and free its chunks
 * @c: the cache
 * @obj: the object, STAGED
 */
void hc_cache_abort(struct hc_cache *c, struct hc_obj *obj)
{
	trace_hc_abort(obj->uri, obj->uri_len, obj->generation, obj->size);
	hc_cache_remove(c, obj);
}

/**
 * hc_cache_ingest - a LOCATE missed with AUTO_INGEST: index the URI as
 * INGESTING and queue it for the helper
 * @c: the cache
 * @uri: URI bytes
 * @len: their number
 * @objp: set to the new object
 *
 * The object has no size and no chunks until the helper reports them (it
 * is not in the policy until then).  At most hc_nl_ingest_limit() objects
 * of a cache are INGESTING at once.  Return: 0; -EAGAIN (that many are);
 * -ENOMEM.
 */
int hc_cache_ingest(struct hc_cache *c, const u8 *uri, u32 len,
		    struct hc_obj **objp)
{
	struct hc_obj *obj;

	if (c->stats.by_state[HC_OBJ_INGESTING] >= hc_nl_ingest_limit())
		return -EAGAIN;
	obj = hc_cache_obj_alloc(c, uri, len);
	if (!obj)
		return -ENOMEM;
	if (!hc_cache_transit_new(obj)) {
		hc_cache_obj_free(obj);
		return -ENOMEM;
	}
	hc_policy_entry_init(&obj->pe, obj->pe.key, 1);
	obj->generation = c->next_generation++;
	hc_obj_transit(obj)->ingest_since = jiffies;
	if (hc_cache_insert(c, obj, HC_OBJ_INGESTING)) {
		hc_cache_obj_free(obj);
		return -ENOMEM;
	}
	list_add_tail(&hc_obj_transit(obj)->queue_node, &c->ingests);
	*objp = obj;
	return 0;
}

/**
 * hc_cache_ingest_adopt - the calling helper takes over the ingests
 * @c: the cache
 *
 * Called in the context of a helper that registers (its REGISTER doit):
 * the requests already allocated by a helper that went away are re-sent
 * with their extents and not allocated again, so their fences change
 * owner here.  Each gets a new fence; the old one is closed and drained
 * first, so that nothing the old helper had in flight lands later and
 * nothing it submits afterwards is admitted.  Sleeps.  Under memory
 * pressure a fence may keep its old owner (the new helper's writes then
 * fail with EIO and it ends the request).
 */
void hc_cache_ingest_adopt(struct hc_cache *c)
{
	struct hc_obj_transit *t;
	struct hc_fence *f;
	struct hc_obj *obj;

	list_for_each_entry(t, &c->ingests, queue_node) {
		obj = t->obj;
		if (!t->fence || t->fence->owner == task_tgid(current) ||
		    obj->jop)	/* its INGEST_DONE is under way */
			continue;
		f = hc_cache_fence_alloc(false);
		if (!f)
			continue;
		hc_cache_fence_close(c, obj);
		hc_cache_fence_free(obj);
		t->fence = f;
		hc_cache_fence_open(c, obj);
	}
}

/* The INGESTING object of request @id (its generation), or NULL. */
struct hc_obj *hc_cache_ingest_find(struct hc_cache *c, u64 id)
{
	struct hc_obj_transit *t;

	list_for_each_entry(t, &c->ingests, queue_node)
		if (t->obj->generation == id)
			return t->obj;
	return NULL;
}

/**
 * hc_cache_ingest_alloc - the helper reports an ingest's size: admit and
 * allocate
 * @c: the cache
 * @obj: an INGESTING object
 * @size: bytes
 * @admitted: set to whether the policy admitted it
 *
 * Unlike a STAGE, an ingest competes in the policy (the TinyLFU duel): a
 * cold object may be refused in favour of hotter ones.  On admission the
 * write fence opens over the new chunks.  Idempotent: a second report of
 * the same size returns the same allocation.  May sleep.
 *
 * The fence admits writes from the calling task's thread group (the
 * helper, whose doit runs in its context).
 *
 * Return: 0 (see @admitted); -EINVAL (another size than before); -EBUSY
 * (another report of it is being admitted); -EFBIG (larger than the
 * pool); -ENOSPC; -E2BIG; -ENOMEM; -EIO (the journal is broken).  When not admitted or
 * on an error, the caller ends the request (hc_cache_ingest_end()).
 */
int hc_cache_ingest_alloc(struct hc_cache *c, struct hc_obj *obj, u64 size,
			  bool *admitted)
{
	bool small;
	u64 chunks;
	int err;

	*admitted = false;
	if (hc_obj_allocated(obj)) {
		*admitted = true;
		return size == obj->size ? 0 : -EINVAL;
	}
	if (obj->jop)
		return -EBUSY;	/* another report of it is being admitted */
	err = hc_cache_size_check(c, size);
	if (err)
		return err;
	chunks = DIV_ROUND_UP_ULL(size, c->chunk_size);
	err = hc_cache_journal_room(c, obj->uri_len, chunks, 0);
	if (err) {
		c->stats.refused_journal++;
		return err;
	}
	/* INGESTING: its transit is there since hc_cache_ingest() */
	hc_obj_transit(obj)->fence = hc_cache_fence_alloc(false);
	if (!hc_obj_transit(obj)->fence)
		return -ENOMEM;
	if (chunks) {
		small = hc_cache_small(c, size);
		hc_policy_entry_init(&obj->pe, obj->pe.key,
				     hc_cache_size_weight(c, size, small));
		/* pinned while INGESTING (HC_LOCATE_F_PIN): admitted pinned */
		if (obj->flags & HC_OBJ_F_PINNED)
			hc_policy_set_flags(&c->policy, &obj->pe,
					    HC_POLICY_F_PINNED, 0);
		hc_cache_busy_begin(c, obj);	/* the lock may be dropped */
		err = hc_cache_place(c, obj, chunks, small, size);
		hc_cache_busy_end(c, obj);
		if (!err && hc_cache_journal_room(c, obj->uri_len, obj->nr_ext,
						  0)) {
			c->stats.refused_journal++;
			hc_cache_unplace(c, obj);
			err = -ENOSPC;
		}
		if (err)
			hc_cache_fence_free(obj);
		if (err > 0)
			return 0;	/* not admitted */
		if (err)
			return err;
	} else {
		c->stats.admissions++;
	}
	obj->size = size;
	hc_obj_transit(obj)->allocated = true;
	hc_cache_journal_charge(c, obj);
	hc_cache_sync_policy(c, obj);	/* INGESTING: unevictable */
	hc_cache_fence_open(c, obj);
	*admitted = true;
	return 0;
}

/**
 * hc_cache_ingest_done_begin - INGEST_DONE starts: close the fence, busy
 * @c: the cache
 * @obj: an INGESTING object
 *
 * Closes the fence and waits for the writes it admitted (sleeps), and
 * marks @obj busy until hc_cache_ingest_done(), which drops the pool lock
 * while its record is written.  Return: 0; -EINVAL (not
 * allocated yet); -EBUSY (an INGEST_DONE of it is under way).
 */
int hc_cache_ingest_done_begin(struct hc_cache *c, struct hc_obj *obj)
{
	if (!hc_obj_allocated(obj))
		return -EINVAL;
	if (obj->jop)
		return -EBUSY;
	hc_cache_busy_begin(c, obj);
	hc_cache_fence_close(c, obj);
	return 0;
}

/* An INGEST_DONE's READY record, queued for the journal's batch writer. */
struct hc_ingest_ready {
	struct hc_journal_req q;
	struct completion done;
	int err;
};

/*
 * The READY record of an ingested object is durable, or failed (@err):
 * wake its INGEST_DONE.  The batch writer swapped the copy of the
 * object's backend version in (hc_journal_take()); what is left in
 * @q->bver (the original, or the copy if the record was never taken) goes.
 * With the pool lock held (the batch writer).
 */
static void hc_cache_ingest_recorded(struct hc_journal *j,
				     struct hc_journal_req *q, int err)
{
	struct hc_ingest_ready *r = container_of(q, struct hc_ingest_ready, q);

	kfree(q->bver);
	q->bver = NULL;
	r->err = err;
	complete(&r->done);
}

/*
 * Journal @obj (busy) as READY with @flags through the batch writer and
 * wait until the record is durable: the records of ingests that end about
 * together share one write and one flush (journal.md, "Group commit").
 * The pool lock is dropped meanwhile.  Return: 0; -ENOMEM (nothing
 * written); an error of the journal.
 */
static int hc_cache_ingest_record(struct hc_cache *c, struct hc_obj *obj,
				  u32 flags)
{
	const struct hc_bver *v = hc_obj_bver(obj);
	struct hc_ingest_ready *r;
	int err;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	/* the batch writer swaps a record's version in: the same, a copy */
	if (v) {
		r->q.bver = kmemdup(v, struct_size(v, etag, v->etag_len),
				    GFP_KERNEL);
		if (!r->q.bver) {
			kfree(r);
			return -ENOMEM;
		}
	}
	r->q.obj = obj;
	r->q.state = HC_OBJ_READY;
	r->q.flags = flags;
	r->q.flush_data = true;		/* the helper's writes: no flush yet */
	r->q.done = hc_cache_ingest_recorded;
	init_completion(&r->done);
	hc_journal_queue(c->journal, &r->q);
	hc_pool_unlock();
	wait_for_completion(&r->done);
	hc_pool_lock();
	err = r->err;
	kfree(r);
	return err;
}

/**
 * hc_cache_ingest_done - the helper wrote an ingest's data
 * @c: the cache
 * @obj: an INGESTING object, busy since hc_cache_ingest_done_begin()
 * @has_crc: @crc is the CRC-32C of the data
 * @crc: see @has_crc
 *
 * Journals the object as READY (durably, through the journal's batch
 * writer: hc_cache_ingest_record(), the pool lock dropped meanwhile; it
 * flushes every member first, which makes the helper's completed writes
 * durable), wakes readers; @obj is not busy any more on return.  Return: 0,
 * -ENOMEM, or an error of the journal (nothing but the fence and the busy
 * mark change back: the fence opens again).
 */
int hc_cache_ingest_done(struct hc_cache *c, struct hc_obj *obj,
			 bool has_crc, u32 crc)
{
	u32 old_flags = obj->flags, old_crc = obj->data_crc;
	int err;

	if (has_crc) {
		obj->flags |= HC_OBJ_F_DATA_CRC;
		obj->data_crc = crc;
	}
	err = hc_cache_ingest_record(c, obj, obj->flags);
	if (err) {
		obj->flags = old_flags;
		obj->data_crc = old_crc;
		hc_cache_fence_open(c, obj);
		hc_cache_busy_end(c, obj);
		return err;
	}
	hc_cache_fence_free(obj);
	list_del_init(&hc_obj_transit(obj)->queue_node);
	hc_cache_busy_end(c, obj);
	hc_cache_set_state(c, obj, HC_OBJ_READY);	/* frees the transit */
	return 0;
}

/**
 * hc_cache_ingest_end - an ingest ends without data
 * @c: the cache
 * @obj: an INGESTING object
 * @outcome: HC_INGEST_NOT_ADMITTED or a negative errno (the helper's
 *	failure), kept for the readers that waited for it
 */
void hc_cache_ingest_end(struct hc_cache *c, struct hc_obj *obj, int outcome)
{
	u32 slot = c->outcome_next++ % ARRAY_SIZE(c->outcomes);

	c->outcomes[slot].hash = obj->pe.key;
	c->outcomes[slot].generation = obj->generation;
	c->outcomes[slot].outcome = outcome;
	hc_cache_remove(c, obj);
}

/*
 * How the ingest of @uri with @generation ended, if it ended without data
 * recently: HC_INGEST_NOT_ADMITTED, a negative errno, or 0 if unknown.
 */
int hc_cache_outcome(const struct hc_cache *c, const u8 *uri, u32 len,
		     u64 generation)
{
	u64 hash = hc_cache_hash(c, uri, len);
	u32 i;

	for (i = 0; i < ARRAY_SIZE(c->outcomes); i++)
		if (c->outcomes[i].generation == generation &&
		    c->outcomes[i].hash == hash)
			return c->outcomes[i].outcome;
	return 0;
}

/* A LOCATE found nothing and ingests nothing: count it for the policy. */
void hc_cache_miss(struct hc_cache *c, const u8 *uri, u32 len)
{
	c->stats.misses++;
	hc_policy_record(&c->policy, hc_cache_hash(c, uri, len));
}

/* A LOCATE found @obj (any state): count it for the policy and the stats. */
void hc_cache_hit(struct hc_cache *c, struct hc_obj *obj)
{
	if (hc_obj_valid(obj)) {
		c->stats.hits++;
		c->hit_bytes += obj->size;
		if (hc_policy_resident(&obj->pe))
			hc_policy_access(&c->policy, &obj->pe);
	} else {
		c->stats.misses++;
	}
}

/**
 * hc_obj_superseded - whether @obj left the index for a new generation
 * @obj: a live object
 *
 * A superseded object (hc_cache_supersede()) is the only live one that is
 * not in the index: hc_cache_insert() indexes every object it is given,
 * hc_cache_unlink() frees what it takes out (hc_cache_unindex() clears
 * HC_OBJ_M_INDEXED, which a new object's is too).
 */
bool hc_obj_superseded(const struct hc_obj *obj)
{
	return !hc_obj_m(obj, HC_OBJ_M_INDEXED);
}

/* The last hold on a superseded object went: free it and its chunks. */
static void hc_cache_superseded_free(struct hc_cache *c, struct hc_obj *obj)
{
	list_del(&obj->gone_node);
	if (!hc_obj_m(obj, HC_OBJ_M_KEEP_CHUNKS))
		hc_cache_put_space(c, obj);
	hc_cache_fence_free(obj);
	hc_cache_event(obj);
	call_rcu(&obj->rcu, hc_cache_obj_free_rcu);	/* LOCATE may read it */
}

/*
 * Add @delta (+1 or -count) to the holds on @obj, under the pool lock: the
 * only way from no hold to one and from the last hold to none.  A caller
 * that adds one asked hc_cache_holds_full() first, under the same lock.
 */
void hc_cache_hold(struct hc_cache *c, struct hc_obj *obj, int delta)
{
	int now = atomic_add_return(delta, &obj->holds);
	int was = now - delta;

	WARN_ON_ONCE(now < 0);
	if (!was && now)
		c->stats.held++;
	else if (was && !now)
		c->stats.held--;
	if (!hc_obj_superseded(obj))
		hc_cache_sync_policy(c, obj);
	else if (!now && !obj->jop)	/* else: once its DELETE is durable */
		hc_cache_superseded_free(c, obj);
}

/**
 * hc_cache_hold_more - one more hold on an object that is held already
 * @obj: an object the caller holds (one of its holds is the caller's)
 *
 * Without the pool lock (under RCU, any lock or none; never sleeps): the
 * count only grows from a value that is not zero, so nothing that the
 * pool lock's holder decided from it changes (see the locking rules), and
 * only below HC_OBJ_HOLDS_MAX (hc_cache_holds_full()), so that it cannot
 * wrap.
 * Return: true, or false if @obj has no hold or HC_OBJ_HOLDS_MAX of them
 * (nothing changed: take the hold with the pool lock, which refuses the
 * latter).
 */
bool hc_cache_hold_more(struct hc_obj *obj)
{
	int n = atomic_read(&obj->holds), max = hc_cache_holds_max();

	do {
		if (!n || n >= max)
			return false;
	} while (!atomic_try_cmpxchg(&obj->holds, &n, n + 1));
	return true;
}

/**
 * hc_cache_holds_full - whether @obj takes no new hold
 * @obj: a live object
 *
 * Its holds are at HC_OBJ_HOLDS_MAX (or the obj_holds_max test hook's
 * bound): the locked paths that add a hold (LOCATE with HC_LOCATE_F_HOLD,
 * an open of the view) refuse it before they change anything.  Any
 * context; never sleeps.
 */
bool hc_cache_holds_full(const struct hc_obj *obj)
{
	return atomic_read(&obj->holds) >= hc_cache_holds_max();
}

/*
 * Whether an explicit eviction may take @obj: idle, unpinned, not busy,
 * READY (or DIRTY with @discard_dirty).
 */
static bool hc_cache_evictable(const struct hc_obj *obj, bool discard_dirty)
{
	return !atomic_read(&obj->holds) && !(obj->flags & HC_OBJ_F_PINNED) &&
	       !obj->jop && (obj->state == HC_OBJ_READY ||
			     (discard_dirty && obj->state == HC_OBJ_DIRTY));
}

/*
 * Set or clear the pin of @obj; a complete object's pin is journaled, with
 * the pool lock dropped for the I/O: @obj is busy (hc_obj.jop) meanwhile,
 * as for COMMIT, and unevictable.  The flag changes in @obj with the
 * journal mutex held, before the record (as COMMIT's CRC): a compaction
 * after the record is durable and before this applies it records it too.
 * Return: 0, -EBUSY (a change of @obj is under way: the caller may wait,
 * hc_cache_busy_wait(), and look it up again), or an error of the journal
 * (nothing changed in memory).
 */
int hc_cache_pin(struct hc_cache *c, struct hc_obj *obj, bool pin)
{
	bool was = obj->flags & HC_OBJ_F_PINNED;
	u32 state = obj->state;
	bool flipped = false;
	int err;

	if (pin == was)
		return 0;	/* nothing changes: not even while @obj is busy */
	if (obj->jop)
		return -EBUSY;	/* its COMMIT or completion is under way */
	if (hc_obj_valid(obj) && c->journal) {
		hc_cache_busy_begin(c, obj);
		hc_cache_sync_policy(c, obj);
		err = hc_journal_lock(c->journal);
		if (!err) {
			obj->flags ^= HC_OBJ_F_PINNED;
			flipped = true;
			err = hc_journal_prepare(c->journal, obj, state,
						 obj->flags);
		}
		if (!err) {
			hc_pool_unlock();
			err = hc_journal_write_out(c->journal, &obj->jop,
						   hc_state_dirty(state) ?
						   HC_OBJ_DIRTY : state);
			hc_pool_lock();
		}
		if (err && flipped)
			obj->flags ^= HC_OBJ_F_PINNED;
		hc_cache_busy_end(c, obj);
		if (err) {
			hc_cache_sync_policy(c, obj);
			return err;
		}
		c->stats.pinned += pin ? 1 : -1;
		hc_cache_sync_policy(c, obj);
		return 0;
	}

	if (pin) {
		obj->flags |= HC_OBJ_F_PINNED;
		c->stats.pinned++;
	} else {
		obj->flags &= ~HC_OBJ_F_PINNED;
		c->stats.pinned--;
	}
	hc_cache_sync_policy(c, obj);
	return 0;
}

/**
 * hc_cache_evict - remove an idle, clean object
 * @c: the cache
 * @obj: the object
 * @discard_dirty: a DIRTY object may go too: the operator throws away
 *	data its backend does not have (the caller logs it)
 *
 * The journal mutex is taken first (busy and unevictable meanwhile: the
 * pool lock may be dropped while waiting for it), then @obj leaves the
 * index and its DELETE is written with the pool lock dropped; its chunks
 * are freed once it is durable (hc_cache_deletes_out()).  @obj is gone on
 * return, unless -EBUSY.  Sleeps.
 *
 * Return: 0; -EAGAIN if nothing but a change under way keeps @obj (a pin,
 * a compaction's move: hc_obj.jop): the caller waits for it
 * (hc_cache_busy_wait()) and looks @obj up again; -EBUSY if @obj is held,
 * pinned, or not READY (staged, ingesting or SYNCING data is never thrown
 * away, nor DIRTY data without @discard_dirty), also after the wait for
 * the journal; -EIO if the journal cannot record it (it is dropped, its
 * chunks kept allocated).
 */
int hc_cache_evict(struct hc_cache *c, struct hc_obj *obj, bool discard_dirty)
{
	int err = 0;

	if (obj->jop && !atomic_read(&obj->holds) &&
	    !(obj->flags & HC_OBJ_F_PINNED) &&
	    (obj->state == HC_OBJ_READY ||
	     (discard_dirty && obj->state == HC_OBJ_DIRTY)))
		return -EAGAIN;

	if (!hc_cache_evictable(obj, discard_dirty))
		return -EBUSY;
	if (c->journal) {
		hc_cache_busy_begin(c, obj);
		hc_cache_sync_policy(c, obj);
		err = hc_journal_lock(c->journal);
		hc_cache_busy_end(c, obj);
		/* held meanwhile (a LOCATE with HOLD): it stays */
		if (!err && !hc_cache_evictable(obj, discard_dirty)) {
			hc_journal_cancel(c->journal);
			err = -EBUSY;
		}
		if (err) {
			hc_cache_sync_policy(c, obj);
			return err;
		}
	}
	c->stats.evictions++;
	trace_hc_evict(obj->uri, obj->uri_len, obj->generation, obj->size);
	hc_cache_doom(c, obj);
	if (!c->journal) {
		hc_cache_doomed_free(c, obj, false);
		return 0;
	}
	return hc_cache_deletes_out(c, &obj, 1);
}

/**
 * hc_cache_supersede - a new generation of @obj's URI is being written
 * through the view: @obj goes, but not from under its readers
 * @c: the cache
 * @obj: the object
 *
 * Its DELETE is journaled (a crash from here on does not bring it back) and
 * it leaves the index, the policy and the egress queue: a DIRTY object is
 * not written back any more (the last writer wins).  Unheld, it is freed
 * once its DELETE is durable, as an eviction frees; held (an open file of
 * the view, a mapping, a LOCATE with HOLD), it keeps its chunks on
 * hc_cache.superseded until its last hold goes (hc_cache_hold()) and its
 * DELETE is durable, so its readers keep reading its bytes while new
 * lookups find the new generation.  As for hc_cache_evict(), the journal
 * mutex is taken first and the DELETE written with the pool lock dropped.
 * Sleeps.
 *
 * Return: 0; -EAGAIN if @obj is READY or DIRTY, unpinned and busy (a
 * compaction's move, a pin: the caller waits, hc_cache_busy_wait(), and
 * looks it up again); -EBUSY if @obj is pinned, or not READY or DIRTY
 * (staged, ingesting, or SYNCING: an upload in flight is not overtaken);
 * -EIO if the journal cannot record it: it is gone from the index all the
 * same, its chunks kept allocated (not reusable until the next assembly).
 */
int hc_cache_supersede(struct hc_cache *c, struct hc_obj *obj)
{
	int err = 0;

	if ((obj->flags & HC_OBJ_F_PINNED) ||
	    (obj->state != HC_OBJ_READY && obj->state != HC_OBJ_DIRTY))
		return -EBUSY;
	if (obj->jop)
		return -EAGAIN;
	if (c->journal) {
		hc_cache_busy_begin(c, obj);
		hc_cache_sync_policy(c, obj);
		err = hc_journal_lock(c->journal);
		hc_cache_busy_end(c, obj);
		if (err) {
			hc_cache_sync_policy(c, obj);
			return err;
		}
	}
	trace_hc_evict(obj->uri, obj->uri_len, obj->generation, obj->size);
	if (!atomic_read(&obj->holds)) {
		hc_cache_doom(c, obj);
		if (!c->journal) {
			hc_cache_doomed_free(c, obj, false);
			return 0;
		}
		return hc_cache_deletes_out(c, &obj, 1);
	}
	hc_policy_remove(&c->policy, &obj->pe);
	hc_cache_journal_uncharge(c, obj);
	if (hc_state_dirty(obj->state)) {
		c->dirty_bytes -= obj->size;
		hc_cache_dirty_event();
	}
	c->stats.by_state[obj->state]--;
	c->stats.objects--;
	hc_cache_unindex(c, obj);
	if (hc_obj_transit(obj))	/* kept until the object is freed */
		list_del_init(&hc_obj_transit(obj)->queue_node);
	list_add_tail(&obj->gone_node, &c->superseded);
	hc_cache_event(obj);
	if (!c->journal)
		return 0;
	/* busy: its last hold going meanwhile does not free its chunks */
	hc_cache_busy_begin(c, obj);
	err = hc_journal_prepare_deletes(c->journal, &obj, 1);
	if (!err) {
		hc_pool_unlock();
		err = hc_journal_write_out(c->journal, NULL, 0);
		hc_pool_lock();
	}
	if (err)
		hc_obj_mset(obj, HC_OBJ_M_KEEP_CHUNKS, true);
	hc_cache_busy_end(c, obj);
	if (!atomic_read(&obj->holds))
		hc_cache_superseded_free(c, obj);
	return err;
}

/* ---- revalidation (the decisions: kmod/reval.c) ---------------------- */

/*
 * The revalidation clock (hc_obj.checked): seconds of the boot clock plus
 * one, so that 0 stays "not checked".  u32: 136 years of uptime.
 */
u32 hc_cache_reval_now(void)
{
	return (u32)ktime_get_boottime_seconds() + 1;
}

/*
 * A revalidation of @obj (READY, not pending) is sent to the helper: it is
 * pending on hc_cache.revals until hc_cache_reval_end() or until it leaves
 * the index (hc_cache_detach() and hc_cache_supersede() take it off).  Its
 * transit is allocated here (GFP_KERNEL, may sleep), so that the end
 * allocates nothing.  Return: 0, or -ENOMEM (nothing changed, nothing
 * counted).
 */
int hc_cache_reval_begin(struct hc_cache *c, struct hc_obj *obj)
{
	struct hc_obj_transit *t = hc_obj_transit(obj);

	if (!t) {
		t = hc_cache_transit_new(obj);
		if (!t)
			return -ENOMEM;
	}
	t->reval_since = jiffies;
	list_add_tail(&t->queue_node, &c->revals);
	hc_obj_mset(obj, HC_OBJ_M_REVAL, true);
	c->stats.revalidations++;
	return 0;
}

/*
 * The revalidation of @obj ends with @result (HC_REVAL_*): it is checked
 * now whatever the result (a failed check is tried again when due again,
 * not at every open of an object whose backend is down), and its readers
 * wake.  A changed object is then replaced (hc_cache_reval_replace()).
 */
void hc_cache_reval_end(struct hc_cache *c, struct hc_obj *obj, u32 result)
{
	list_del_init(&hc_obj_transit(obj)->queue_node);
	hc_obj_mset(obj, HC_OBJ_M_REVAL, false);
	hc_cache_transit_settle(obj);	/* READY: nothing else pending */
	WRITE_ONCE(obj->checked, hc_cache_reval_now());
	if (result == HC_REVAL_UNCHANGED)
		c->stats.reval_unchanged++;
	else if (result == HC_REVAL_CHANGED)
		c->stats.reval_changed++;
	else
		c->stats.reval_failed++;
	hc_cache_event(obj);
}

/* The READY object whose revalidation @id (its generation) is pending. */
struct hc_obj *hc_cache_reval_find(struct hc_cache *c, u64 id)
{
	struct hc_obj_transit *t;

	list_for_each_entry(t, &c->revals, queue_node)
		if (t->obj->generation == id)
			return t->obj;
	return NULL;
}

/**
 * hc_cache_reval_replace - the backend has another version of @obj's URI:
 *	supersede @obj and index its URI for a new ingest
 * @c: the cache
 * @obj: a READY object whose revalidation ended (hc_cache_reval_end())
 * @newp: set to the INGESTING object of the URI (the new one, or one a
 *	reader started while the lock was dropped), NULL if none could be
 *	made; the caller sends its request (hc_nl_ingest_request()) if new
 *
 * A pinned object is unpinned first (journaled) and its successor is
 * pinned while INGESTING (admitted pinned, as LOCATE with PIN does); the
 * successor's ingest is admitted as an operator's preload is
 * (HC_OBJ_M_EXPLICIT: the URI was cached, it does not duel for its place).
 * @obj leaves the index through hc_cache_supersede(): holders keep reading
 * its bytes.  Sleeps (the journal; the pool lock is dropped for the I/O).
 * Return: 1 (*@newp is new), 0 (*@newp was there already, or NULL), or
 * the errno of the unpin or of hc_cache_supersede() (-EBUSY, -EIO: @obj
 * stays served if still indexed), or of hc_cache_ingest() (-EAGAIN,
 * -ENOMEM: the URI is not cached any more).
 */
int hc_cache_reval_replace(struct hc_cache *c, struct hc_obj *obj,
			   struct hc_obj **newp)
{
	bool pinned = obj->flags & HC_OBJ_F_PINNED;
	struct hc_obj *nobj;
	u32 len = obj->uri_len;
	u8 *uri;
	int err;

	*newp = NULL;
	uri = kmemdup(obj->uri, len, GFP_KERNEL);	/* @obj may go */
	if (!uri)
		return -ENOMEM;
	err = pinned ? hc_cache_pin(c, obj, false) : 0;
	if (!err)
		err = hc_cache_supersede(c, obj);
	if (err && err != -EIO) {
		if (pinned && hc_cache_lookup(c, uri, len) == obj)
			hc_cache_pin(c, obj, true);	/* best effort */
		goto out;
	}
	/* the lock was dropped: a reader may have started an ingest */
	nobj = hc_cache_lookup(c, uri, len);
	if (nobj) {
		*newp = nobj->state == HC_OBJ_INGESTING ? nobj : NULL;
		err = 0;
		goto out;
	}
	err = hc_cache_ingest(c, uri, len, &nobj);
	if (err)
		goto out;
	hc_obj_mset(nobj, HC_OBJ_M_EXPLICIT, true);
	if (pinned)	/* INGESTING: in memory, admitted pinned */
		hc_cache_pin(c, nobj, true);
	*newp = nobj;
	err = 1;
out:
	kfree(uri);
	return err;
}

/*
 * A backend version of @etag_len bytes of @etag (no NUL needed) and @mtime:
 * NULL if neither is known, ERR_PTR(-ENOMEM).  @etag_len <= HC_ETAG_MAX.
 */
static struct hc_bver *hc_bver_new(const u8 *etag, size_t etag_len, u64 mtime)
{
	struct hc_bver *v;

	if (!etag_len && !mtime)
		return NULL;
	v = kmalloc(struct_size(v, etag, etag_len), GFP_KERNEL);
	if (!v)
		return ERR_PTR(-ENOMEM);
	v->mtime = mtime;
	v->etag_len = etag_len;
	memcpy(v->etag, etag, etag_len);
	return v;
}

/**
 * hc_cache_restore - apply one replayed journal record to the index
 * @c: the cache of an assembling pool
 * @r2: an OBJECT record (insert or replace the URI's object) or a DELETE,
 *	of either version (a v2 record's backend version is kept with the
 *	object)
 *
 * The restored objects' chunks are claimed, and the objects admitted to
 * the policy, by hc_cache_restore_finish().  Return: 0, -EUCLEAN (an
 * extent outside the pool: the record is checksummed, so the journal is
 * corrupt, not torn) or -ENOMEM.
 */
int hc_cache_restore(struct hc_cache *c, const struct hc_jrec2 *r2)
{
	const struct hc_jrec *r = &r2->r;
	bool small = r->type == HC_JREC_OBJECT &&
		     (r->flags & HC_OBJ_F_SUBCHUNK);
	struct list_head *place = NULL;
	struct hc_obj *obj;
	u64 chunks = 0;
	u32 i;

	if (small) {
		/*
		 * One sub-chunk extent, inside the pool and its chunk (the
		 * codec checked the rest): the module writes no other kind.
		 */
		if (r->nr_ext != 1 || r2->sext[0].chunk >= c->nr_chunks ||
		    (u64)r2->sext[0].block + r2->sext[0].nr_blocks >
		    c->chunk_size / HC_SUBBLOCK_SIZE)
			return -EUCLEAN;
	} else {
		for (i = 0; i < r->nr_ext; i++)
			if (r->ext[i].start >= c->nr_chunks ||
			    r->ext[i].count > c->nr_chunks - r->ext[i].start)
				return -EUCLEAN;
	}
	c->replaying = true;
	obj = hc_cache_lookup(c, r->uri, r->uri_len);
	if (obj) {
		/*
		 * A later record of the same dirty generation (a pin, say)
		 * keeps the object's place in the egress queue.
		 */
		if (r->type == HC_JREC_OBJECT && hc_state_dirty(obj->state) &&
		    hc_state_dirty(r->state) &&
		    obj->generation == r->generation)
			place = hc_obj_transit(obj)->queue_node.prev;
		hc_cache_remove(c, obj);
	}
	if (r->type != HC_JREC_OBJECT)
		return 0;

	obj = hc_cache_obj_alloc(c, r->uri, r->uri_len);
	if (!obj)
		return -ENOMEM;
	if (small)
		obj->sext = kmemdup(r2->sext, sizeof(*obj->sext), GFP_KERNEL);
	else if (r->nr_ext)
		obj->ext = kmemdup(r->ext, r->nr_ext * sizeof(*r->ext),
				   GFP_KERNEL);
	if (r->nr_ext) {
		if (!obj->ext) {
			hc_cache_obj_release(obj);
			return -ENOMEM;
		}
	}
	if (r->flags & HC_OBJ_F_BACKEND) {
		/* a time the netlink attribute could not carry is unknown */
		u64 mtime = r2->backend_mtime > 0 &&
			    (u64)r2->backend_mtime <= HC_LAST_MODIFIED_MAX ?
			    r2->backend_mtime : 0;
		struct hc_bver *v = hc_bver_new(r2->etag, r2->etag_len, mtime);

		if (IS_ERR(v)) {
			kfree(obj->ext);
			hc_cache_obj_release(obj);
			return -ENOMEM;
		}
		obj->side.bver = v;	/* no transit yet: the object holds it */
	}
	/* a dirty one is queued for egress: no allocation in its upload's end */
	if (r->state != HC_OBJ_READY) {
		if (!hc_cache_transit_new(obj)) {
			kfree(obj->ext);
			hc_cache_obj_release(obj);
			return -ENOMEM;
		}
	}
	obj->nr_ext = r->nr_ext;
	/*
	 * Each extent lies in the pool (checked above), so more than U32_MAX
	 * chunks (hc_cache_create()) overlap: the policy weight saturates
	 * (hc_cache_weight()), and hc_cache_restore_one()'s claim refuses them.
	 */
	for (i = 0; !small && i < r->nr_ext; i++)
		chunks += r->ext[i].count;
	obj->size = r->size;
	obj->generation = r->generation;
	/* not the v2 record flags, but whether the extent is a sub-chunk one */
	obj->flags = r->flags & (HC_OBJ_F_ALL | HC_OBJ_F_SUBCHUNK);
	obj->data_crc = r->data_crc;
	hc_policy_entry_init(&obj->pe, obj->pe.key, small ?
			     obj->sext->nr_blocks :
			     hc_cache_weight(c, chunks));
	if (hc_cache_insert(c, obj, r->state)) {
		hc_cache_obj_free(obj);
		return -ENOMEM;
	}
	if (obj->flags & HC_OBJ_F_PINNED)
		c->stats.pinned++;
	if (place)
		list_move(&hc_obj_transit(obj)->queue_node, place);
	if (r->generation >= c->next_generation)
		c->next_generation = r->generation + 1;
	return 0;
}

/* The backend version of a NUL-terminated @etag (NULL: none) and @mtime. */
static struct hc_bver *hc_bver_of(const char *etag, u64 mtime)
{
	return hc_bver_new(etag, etag ? strnlen(etag, HC_ETAG_MAX) : 0, mtime);
}

/**
 * hc_cache_set_bver - keep the backend version of @obj
 * @obj: the object (pool lock held), not journaled yet (INGESTING)
 * @etag: a NUL-terminated ETag of at most HC_ETAG_MAX bytes (the netlink
 *	policy caps it at 127), or NULL or "" for none
 * @mtime: its Last-Modified, seconds since the epoch, or 0 for none
 *
 * Replaces what @obj kept (with nothing if neither is known); journaled
 * with its next OBJECT record (format v2).  Return: 0, or -ENOMEM (@obj
 * unchanged).
 */
int hc_cache_set_bver(struct hc_obj *obj, const char *etag, u64 mtime)
{
	struct hc_bver **slot = hc_obj_bver_slot(obj);
	struct hc_bver *v = hc_bver_of(etag, mtime);

	if (IS_ERR(v))
		return PTR_ERR(v);
	kfree(*slot);
	*slot = v;
	return 0;
}

/**
 * hc_cache_egress_start - @obj (DIRTY) is being sent to the egress helper
 * @c: the cache
 * @obj: the object
 *
 * It becomes SYNCING: unevictable, its extents unchanged until the helper
 * answers or goes away.
 */
void hc_cache_egress_start(struct hc_cache *c, struct hc_obj *obj)
{
	hc_obj_transit(obj)->egress_defer = false;	/* DIRTY: it has its transit */
	hc_cache_set_state(c, obj, HC_OBJ_SYNCING);
}

/* An EGRESS_DONE's READY record, queued for the journal's batch writer. */
struct hc_egress_clean {
	struct hc_journal_req q;
	struct completion done;	/* @wait: hc_cache_egress_done() waits */
	bool wait;
	int err;
};

/*
 * The READY record of an uploaded object is durable (@err 0): it is clean
 * and evictable again.  Or it could not be written: it stays SYNCING, with
 * the new backend version, until its helper goes away (as when the record
 * is waited for and the helper gets the errno).  With the pool lock held
 * (the batch writer).
 */
static void hc_cache_egress_clean(struct hc_journal *j,
				  struct hc_journal_req *q, int err)
{
	struct hc_egress_clean *e = container_of(q, struct hc_egress_clean, q);
	struct hc_cache *c = j->pool->cache;
	struct hc_obj *obj = q->obj;

	kfree(q->bver);		/* the version it replaced */
	hc_cache_busy_end(c, obj);
	if (!err) {
		c->stats.egress_done++;
		/* the version uploaded */
		WRITE_ONCE(obj->checked, hc_cache_reval_now());
		hc_cache_set_state(c, obj, HC_OBJ_READY);
		hc_nl_egress_kick();	/* a place in the window */
	} else if (!e->wait) {
		pr_warn_ratelimited("%s: %.*s: uploaded, but its clean state cannot be journaled (%d): it stays SYNCING until its egress helper goes away\n",
				    j->pool->name, (int)obj->uri_len, obj->uri,
				    err);
	}
	if (e->wait) {
		e->err = err;
		complete(&e->done);
	} else {
		kfree(e);
	}
}

/**
 * hc_cache_egress_done - the backend has @obj's data: make it clean
 * @c: the cache
 * @obj: a DIRTY or SYNCING object of the generation that was uploaded
 * @etag: the ETag the upload returned, or NULL or "" if none
 * @mtime: the Last-Modified of the uploaded version, or 0 if unknown
 * @wait: return only once the record is durable
 *
 * Queues the object's READY record, with that backend version, for the
 * journal's batch writer (group commit: the records of uploads that end
 * about together share one write and one flush), the object busy until it
 * is durable: then it becomes READY (hc_cache_egress_clean()), so that it
 * does not come back DIRTY after a restart, and evictable again.  Without
 * @wait this returns at once: a crash before the record is durable brings
 * the object back DIRTY and it is uploaded again, the same bytes to the
 * same key (journal.md, "Group commit").  With @wait, the pool lock is
 * dropped until then.  The backend version is replaced with the journal
 * mutex held (a compaction reads it without the pool lock).
 * Return: 0; -EBUSY (a change of it is being journaled: the caller waits,
 * hc_cache_busy_wait(), and looks it up again); -ENOMEM (nothing
 * changed); with @wait, an error of the journal (it stays SYNCING, with
 * the new backend version).
 */
int hc_cache_egress_done(struct hc_cache *c, struct hc_obj *obj,
			 const char *etag, u64 mtime, bool wait)
{
	struct hc_egress_clean *e;
	struct hc_bver *v;
	int err;

	if (obj->jop)
		return -EBUSY;
	v = hc_bver_of(etag, mtime);
	if (IS_ERR(v))
		return PTR_ERR(v);
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e) {
		kfree(v);
		return -ENOMEM;
	}
	e->q.obj = obj;
	e->q.state = HC_OBJ_READY;
	e->q.flags = obj->flags;
	e->q.bver = v;
	e->q.done = hc_cache_egress_clean;
	e->wait = wait;
	init_completion(&e->done);
	hc_cache_busy_begin(c, obj);
	hc_journal_queue(c->journal, &e->q);
	if (!wait)
		return 0;
	hc_pool_unlock();
	wait_for_completion(&e->done);
	hc_pool_lock();
	err = e->err;
	kfree(e);
	return err;
}

/**
 * hc_cache_egress_requeue - @obj (SYNCING) goes back to DIRTY, in its place
 * @c: the cache
 * @obj: the object
 * @delay_ms: it is not re-sent before this many milliseconds
 */
void hc_cache_egress_requeue(struct hc_cache *c, struct hc_obj *obj,
			     u32 delay_ms)
{
	struct hc_obj_transit *t = hc_obj_transit(obj);	/* dirty: it has one */

	hc_cache_set_state(c, obj, HC_OBJ_DIRTY);
	t->egress_at = jiffies + msecs_to_jiffies(delay_ms);
	t->egress_defer = true;
}

/*
 * Keep the failure in @obj's transit (egress_err): a new record with the failures
 * counted on, or, out of memory, the old one updated without its message
 * (none kept at all if there was none).  May sleep.
 */
static void hc_cache_egress_note(struct hc_obj *obj, u32 err_no,
				 bool permanent, const char *msg)
{
	struct hc_egress_err *old = hc_obj_transit(obj)->egress_err, *e;
	size_t len = msg ? strnlen(msg, HC_EGRESS_MESSAGE_MAX) : 0;

	e = kmalloc(struct_size(e, msg, len), GFP_KERNEL);
	if (!e) {
		e = old;
		if (!e)
			return;
		e->msg_len = 0;
	} else {
		e->failures = old ? old->failures : 0;
		e->msg_len = len;
		memcpy(e->msg, msg, len);
		kfree(old);
	}
	e->failed_at = ktime_get_real_ns();
	e->err = err_no;
	e->permanent = permanent;
	e->failures++;
	hc_obj_transit(obj)->egress_err = e;
}

/**
 * hc_cache_egress_fail - an upload of @obj (SYNCING) failed
 * @c: the cache
 * @obj: the object
 * @has_retry: @retry_ms is the helper's delay before the next attempt
 * @retry_ms: see @has_retry
 * @err_no: the helper's positive errno
 * @permanent: retrying cannot succeed (the helper's word): not re-sent
 *	until an egress helper registers
 * @msg: the helper's message (NUL-terminated, at most
 *	HC_EGRESS_MESSAGE_MAX bytes are kept), or NULL
 *
 * It becomes DIRTY again and keeps its place in commit order; it is not
 * re-sent before the delay: @retry_ms, or by default 1 s doubling with
 * every failure up to 60 s.  The failure is kept for the listing
 * (HC_A_OBJ_EGRESS_*).  May sleep (allocates).
 */
void hc_cache_egress_fail(struct hc_cache *c, struct hc_obj *obj,
			  bool has_retry, u32 retry_ms, u32 err_no,
			  bool permanent, const char *msg)
{
	struct hc_obj_transit *t = hc_obj_transit(obj);	/* SYNCING: it has one */
	u32 delay = has_retry ? retry_ms :
		    min_t(u32, MSEC_PER_SEC << t->egress_backoff,
			  60 * MSEC_PER_SEC);

	c->stats.egress_failed++;
	if (t->egress_backoff < 6)
		t->egress_backoff++;
	hc_cache_egress_note(obj, err_no, permanent, msg);
	hc_cache_egress_requeue(c, obj, delay);
}

/**
 * hc_cache_egress_unpark - an egress helper registered: the objects whose
 * last upload failed for good are sent again (their last error stays
 * listed until they are uploaded)
 * @c: the cache
 *
 * Return: how many there were.
 */
u32 hc_cache_egress_unpark(struct hc_cache *c)
{
	struct hc_obj_transit *t;
	u32 n = 0;

	list_for_each_entry(t, &c->egress, queue_node) {
		if (hc_obj_egress_parked(t->obj)) {
			t->egress_err->permanent = false;
			t->egress_defer = false;
			n++;
		}
		cond_resched();
	}
	return n;
}

/*
 * The egress helper went away: every SYNCING object becomes DIRTY again,
 * in its place, to be re-sent to the next egress helper.
 */
void hc_cache_egress_reset(struct hc_cache *c)
{
	struct hc_obj_transit *t;

	list_for_each_entry(t, &c->egress, queue_node) {
		/* a busy one: its EGRESS_DONE is being recorded */
		if (t->obj->state == HC_OBJ_SYNCING && !t->obj->jop)
			hc_cache_set_state(c, t->obj, HC_OBJ_DIRTY);
		cond_resched();
	}
}

/* The chunks of extent @i of @obj (a small object's: its slab chunk). */
static struct hc_ext hc_obj_chunk_ext(const struct hc_obj *obj, u32 i)
{
	if (obj->flags & HC_OBJ_F_SUBCHUNK)
		return (struct hc_ext){ .start = obj->sext->chunk, .count = 1 };
	return obj->ext[i];
}

/* Whether extent lists @a and @b share a chunk; the first one in *@chunk. */
static bool hc_ext_overlap(const struct hc_obj *a, const struct hc_obj *b,
			   u64 *chunk)
{
	u32 i, k;

	for (i = 0; i < a->nr_ext; i++)
		for (k = 0; k < b->nr_ext; k++) {
			struct hc_ext x = hc_obj_chunk_ext(a, i);
			struct hc_ext y = hc_obj_chunk_ext(b, k);
			u64 s = max(x.start, y.start);
			u64 e = min(x.start + x.count, y.start + y.count);

			if (s < e) {
				*chunk = s;
				return true;
			}
		}
	return false;
}

/*
 * @obj's chunks are claimed already: name it and the objects it collides
 * with in the kernel log (replay refuses the assembly).
 */
static void hc_cache_report_collision(struct hc_cache *c,
				      const struct hc_obj *obj)
{
	struct hc_obj *o, *tmp;
	bool named = false;
	u32 n = 0;
	u64 chunk;

	for (o = hc_cache_ordered_first(c); o; o = tmp) {
		tmp = hc_cache_ordered_next(c, o);
		hc_index_resched(&n);
		if (o == obj || !hc_ext_overlap(obj, o, &chunk))
			continue;
		pr_err("journaled objects \"%*pE\" and \"%*pE\" both claim chunk %llu\n",
		       obj->uri_len, obj->uri, o->uri_len, o->uri, chunk);
		named = true;
	}
	if (!named)
		pr_err("journaled object \"%*pE\" claims a chunk twice\n",
		       obj->uri_len, obj->uri);
}

/* Claim @obj's chunks and admit it to the policy (replay). */
static int hc_cache_restore_one(void *arg, struct hc_obj *obj)
{
	struct hc_cache *c = arg;
	struct hc_policy_entry **victims;
	u32 nr, max;
	int err;

	if (obj->state == HC_OBJ_SYNCING)
		hc_cache_set_state(c, obj, HC_OBJ_DIRTY);
	if (obj->flags & HC_OBJ_F_SUBCHUNK) {
		/* a v1 pool's module wrote none: a v2 pool has the slab */
		err = c->wshift ? hc_cache_slab_ready(c) : -EUCLEAN;
		if (!err)
			err = hc_slab_claim(&c->slab, &c->alloc, obj->sext);
		if (err) {
			pr_err("journaled object \"%*pE\": its blocks %u+%u of chunk %llu cannot be claimed (%d)\n",
			       obj->uri_len, obj->uri, obj->sext->block,
			       obj->sext->nr_blocks, obj->sext->chunk, err);
			return err == -ENOMEM ? err : -EUCLEAN;
		}
	} else {
		err = hc_alloc_claim(&c->alloc, obj->ext, obj->nr_ext);
		if (err) {
			hc_cache_report_collision(c, obj);
			return err;
		}
	}
	hc_cache_journal_charge(c, obj);
	if (!hc_obj_chunks(obj))
		return 0;	/* empty: not in the policy (hc_cache_stage()) */
	if (obj->pe.weight > c->policy.capacity)
		return -EUCLEAN;
	hc_cache_sync_policy(c, obj);
	max = max_t(u32, 1, hc_policy_max_victims(&c->policy, obj->pe.weight));
	victims = kvmalloc_array(max, sizeof(*victims), GFP_KERNEL);
	if (!victims)
		return -ENOMEM;
	/* The claims fit the pool, so the policy has room: no victim. */
	err = hc_policy_admit(&c->policy, &obj->pe, victims, max, &nr);
	kvfree(victims);
	if (err != HC_POLICY_ADMITTED || nr)
		return -EUCLEAN;
	return 0;
}

/**
 * hc_cache_restore_finish - the journal is replayed: drop what was not
 * complete, claim the chunks of the rest and admit it to the policy
 * @c: the cache
 *
 * Return: 0; -EUCLEAN if two objects claim one chunk (both are named in the
 * kernel log) or an extent lies outside the pool: the assembly is refused,
 * and the cache stays in its replay state, so that hc_cache_destroy() does
 * not hand back chunks that were never claimed.
 */
int hc_cache_restore_finish(struct hc_cache *c)
{
	struct hc_obj *obj, *tmp;
	u32 n = 0;
	int err;

	c->replaying = true;
	for (obj = hc_cache_ordered_first(c); obj; obj = tmp) {
		tmp = hc_cache_ordered_next(c, obj);
		hc_index_resched(&n);
		if (obj->state == HC_OBJ_INGESTING ||
		    obj->state == HC_OBJ_STAGED)
			hc_cache_remove(c, obj);
	}
	c->replaying = false;
	err = hc_cache_for_each(c, NULL, hc_cache_restore_one, c);
	if (err) {
		c->replaying = true;
		return -EUCLEAN;
	}
	return 0;
}

/*
 * The state the journal holds for @obj, as replay would restore it
 * (SYNCING is recorded as DIRTY), or 0 if none: a record that is durable
 * but that its writer has not applied yet (hc_obj.jop) counts.
 */
static u32 hc_cache_jstate(const struct hc_obj *obj)
{
	if (obj->jop && obj->jop != HC_JOP_BUSY)
		return obj->jop;
	if (!hc_obj_valid(obj))
		return 0;
	return hc_state_dirty(obj->state) ? HC_OBJ_DIRTY : obj->state;
}

/**
 * hc_cache_walk_journaled - visit the objects the journal keeps, in the
 * order replay must see them
 * @c: the cache
 * @fn: called with each object and the state to record; a non-zero return
 *	stops the walk and is returned
 * @arg: passed to @fn
 *
 * The egress queue first (DIRTY, and SYNCING recorded as DIRTY: SYNCING is
 * not a durable state), in commit order, so that replay queues the uploads
 * in that order again; then every other object the journal keeps (READY,
 * and those whose durable record is not applied yet: a COMMIT's DIRTY or
 * READY, an INGEST_DONE's or EGRESS_DONE's READY; hc_cache_jstate()).
 * STAGED and INGESTING objects are not journaled.  Used by compaction's
 * snapshot (journal.c), with the pool lock and the journal mutex held.
 */
int hc_cache_walk_journaled(struct hc_cache *c, hc_cache_journal_fn fn,
			    void *arg)
{
	struct hc_obj *obj, *tmp;
	struct hc_obj_transit *t;
	u32 js, n = 0;
	int err;

	list_for_each_entry(t, &c->egress, queue_node) {
		if (hc_cache_jstate(t->obj) != HC_OBJ_DIRTY)
			continue;	/* its EGRESS_DONE is durable */
		err = fn(arg, t->obj, HC_OBJ_DIRTY);
		if (err)
			return err;
		cond_resched();
	}
	for (obj = hc_cache_ordered_first(c); obj; obj = tmp) {
		tmp = hc_cache_ordered_next(c, obj);
		hc_index_resched(&n);
		js = hc_cache_jstate(obj);
		if (!js || (js == HC_OBJ_DIRTY && hc_state_dirty(obj->state)))
			continue;	/* not kept, or done above */
		err = fn(arg, obj, js);
		if (err)
			return err;
	}
	return 0;
}

/**
 * hc_cache_for_each - visit the objects in URI order, resumably
 * @c: the cache, with the pool lock held
 * @cur: NULL (one walk of every object), or where a walk stands: the
 *	visit starts after the object of @cur's URI (at the first object, or
 *	the first under @cur's prefix, if @cur->len is 0), ends after the
 *	last object under @cur's prefix, and @cur is left at the last object
 *	@fn accepted
 * @fn: called with each object; a non-zero return (the object was not
 *	taken: a full message) stops the walk and is returned
 * @arg: passed to @fn
 *
 * The cursor is a URI, not a place in the hash table, so a walk resumed
 * with the pool lock taken again (every message of a netlink dump) visits
 * every object that existed throughout exactly once, whatever was added,
 * removed or resized in between; one O(log n) step to resume, or to start
 * at a prefix.
 * Return: 0 when every object was visited, else @fn's return.
 */
int hc_cache_for_each(struct hc_cache *c, struct hc_cache_cursor *cur,
		      int (*fn)(void *arg, struct hc_obj *obj), void *arg)
{
	struct hc_obj *obj, *last = NULL;
	u32 n = 0;
	int ret = 0;

	if (cur && cur->len)
		obj = hc_cache_ordered_ceil(c, cur->uri, cur->len, true);
	else if (cur && cur->prefix_len)
		obj = hc_cache_ordered_ceil(c, cur->prefix, cur->prefix_len,
					    false);
	else
		obj = hc_cache_ordered_first(c);
	for (; obj; obj = hc_cache_ordered_next(c, obj)) {
		/* past the prefix's URIs: they are all visited */
		if (cur && !hc_obj_under(obj, cur->prefix, cur->prefix_len))
			break;
		ret = fn(arg, obj);
		if (ret)
			break;
		last = obj;
		hc_index_resched(&n);
	}
	if (cur && last) {
		cur->len = last->uri_len;
		memcpy(cur->uri, last->uri, last->uri_len);
	}
	return ret;
}

/*
 * Generations, which are also the ingest request ids, are never reused
 * while the module is loaded (uapi/hypercache_netlink.h promises it): a
 * new cache starts past every generation an earlier one handed out, so a
 * helper that survives a pool stop and create cannot complete a request
 * of the new pool with an id of the old one.  Under the pool lock.
 */
static u64 hc_cache_generation_floor = 1;

/* Whether open control files hold or stage anything in this cache. */
bool hc_cache_busy(const struct hc_cache *c)
{
	return c->stats.held || c->stats.by_state[HC_OBJ_STAGED];
}

/**
 * hc_cache_create - an empty cache for a pool whose geometry is set
 * @pool: the pool
 *
 * May sleep.  Return: 0 or -ENOMEM (nothing left behind).
 */
int hc_cache_create(struct hc_pool *pool)
{
	u64 chunks = hc_stripe_chunks(&pool->stripe);
	struct hc_cache *c;
	size_t sketch_bytes;
	int err = -ENOMEM;

	/*
	 * At most U32_MAX chunks.  Not a new limit: a pool of 2^32 chunks
	 * (hc_alloc_words()'s most) failed below anyway, with the same error
	 * (kvcalloc() refuses its fence table of 8 bytes a chunk, more than
	 * INT_MAX bytes, as it does any pool of 2^28 chunks or more).
	 */
	if (chunks > U32_MAX)
		return -ENOMEM;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->nr_chunks = chunks;
	c->members = pool->nr_members;
	c->chunk_size = pool->chunk_size;
	/* v2: the policy weighs 4 KiB blocks (a slab needs 64 a chunk) */
	if (pool->format == 2 && hc_slab_words(1, pool->chunk_size))
		c->wshift = ilog2(pool->chunk_size / HC_SUBBLOCK_SIZE);
	spin_lock_init(&c->fence_lock);
	c->next_generation = hc_cache_generation_floor;
	INIT_LIST_HEAD(&c->ingests);
	INIT_LIST_HEAD(&c->egress);
	INIT_LIST_HEAD(&c->superseded);
	INIT_LIST_HEAD(&c->revals);
	INIT_LIST_HEAD(&c->doomed);
	hc_otree_init(&c->ordered, &hc_ordered_ops);
	c->key_mask = hc_index_key_bits && hc_index_key_bits < 64 ?
		      GENMASK_ULL(hc_index_key_bits - 1, 0) : ~0ULL;
	err = rhashtable_init(&c->index, &hc_index_params);
	if (err) {
		kfree(c);
		return err;
	}
	err = -ENOMEM;
	sketch_bytes = hc_policy_table_bytes(chunks);
	c->sketch = kvzalloc(sketch_bytes, GFP_KERNEL);
	c->alloc_words = kvcalloc(hc_alloc_words(chunks), sizeof(u64),
				  GFP_KERNEL);
	c->fence = kvcalloc(chunks, sizeof(*c->fence), GFP_KERNEL);
	c->bad_chunks = kvcalloc(BITS_TO_LONGS(chunks), sizeof(long),
				 GFP_KERNEL);
	c->hits = alloc_percpu(u64);
	c->readbuf = alloc_percpu(struct hc_readbuf);
	if (!c->sketch || !c->alloc_words || !c->fence ||
	    !c->bad_chunks || !c->hits || !c->readbuf)
		goto out_free;

	err = hc_policy_init(&c->policy, chunks << c->wshift, c->sketch,
			     sketch_bytes);
	if (err)
		goto out_free;
	err = hc_alloc_init(&c->alloc, chunks, pool->nr_members,
			    c->alloc_words);
	if (err)
		goto out_free;
	hc_compact_init(c, pool);
	pool->cache = c;
	return 0;

out_free:
	free_percpu(c->readbuf);
	free_percpu(c->hits);
	kvfree(c->bad_chunks);
	kvfree(c->fence);
	kvfree(c->alloc_words);
	kvfree(c->sketch);
	rhashtable_destroy(&c->index);
	kfree(c);
	return err;
}

/* Free a cache and every object in it.  May sleep. */
void hc_cache_destroy(struct hc_pool *pool)
{
	struct hc_cache *c = pool->cache;
	struct hc_obj *obj, *tmp;
	u32 n = 0;

	if (!c)
		return;
	hc_compact_stop(c);	/* no run is under way: the stop quiesced */
	hc_cache_generation_floor = max(hc_cache_generation_floor,
					c->next_generation);
	for (obj = hc_cache_ordered_first(c); obj; obj = tmp) {
		tmp = hc_cache_ordered_next(c, obj);
		hc_index_resched(&n);
		hc_cache_remove(c, obj);
	}
	/* held by control files a forced stop outlives (hc_pool_stop()) */
	list_for_each_entry_safe(obj, tmp, &c->superseded, gone_node)
		hc_cache_superseded_free(c, obj);
	hc_cache_dirty_event();		/* STAGEs waiting for room: ENODEV */
	kvfree(c->slab_words);
	kvfree(c->slab_chunks);
	free_percpu(c->readbuf);
	free_percpu(c->hits);
	kvfree(c->bad_chunks);
	kvfree(c->fence);
	kvfree(c->alloc_words);
	kvfree(c->sketch);
	rhashtable_destroy(&c->index);	/* empty: every object was removed */
	WARN_ON_ONCE(c->ordered.items);
	hc_otree_clear(&c->ordered);
	hc_cache_ordered_trim(c, true);
	kfree(c);
	pool->cache = NULL;
}
