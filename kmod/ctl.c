// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/hypercache-ctl: the object ioctls (uapi/hypercache.h).
 *
 * What an open file holds (holds, stages) belongs to it: closing the file
 * releases the holds and aborts the stages.  Every ioctl but a LOCATE hit
 * and COMMIT takes the pool lock for its whole duration; copies to and
 * from user memory happen under it, which is safe because nothing a page
 * fault can trigger takes it (the data path of /dev/hypercacheN never
 * does).  LOCATE with WAIT, and STAGE over the dirty limit, sleep without
 * it; COMMIT drops it for every step that waits for a member
 * (hc_ctl_store()).
 *
 * A LOCATE hit without a layout is answered under RCU without the pool
 * lock (hc_ctl_locate_fast()); with HOLD too when the file holds the
 * object already: the hold is one more on the file's entry (its count
 * under hc_ctl.lock, the object's with hc_cache_hold_more()).  The first
 * hold of a file on an object allocates the entry and takes the pool lock.
 */
#include <linux/blkdev.h>
#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/pagemap.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "cache.h"
#include "hypercache.h"
#include "trace.h"

/**
 * struct hc_ctl - one open file of the control device
 * @lock: the entries' counts, and @holds for a reader without the pool
 *	lock (a spinlock: taken under rcu_read_lock(); inside the pool lock)
 * @holds: struct hc_ctl_hold entries; entries are added and removed with
 *	the pool lock and @lock held, so either one keeps the list stable
 * @stages: the transits of the objects this file stages
 *	(hc_obj_transit.queue_node), pool lock
 */
struct hc_ctl {
	spinlock_t lock;	/* the entries' counts, and @holds (above) */
	struct list_head holds;
	struct list_head stages;
};

/*
 * How many holds one file has on one object (1..HC_HOLD_MAX), changed
 * under hc_ctl.lock.  The object's holds count each of them (a hold is
 * added to the object before the entry's count, and taken off after), so
 * an entry keeps its object held, indexed and allocated.
 */
struct hc_ctl_hold {
	struct list_head node;
	struct hc_obj *obj;
	u32 count;
};

/**
 * hc_copy_struct_in - read a size-first ioctl struct (uapi/hypercache.h)
 * @k: the kernel's struct
 * @ksize: its size
 * @ver1: the struct's version-1 size (HC_*_SIZE_VER1), the least accepted
 * @u: the user's struct
 *
 * Every ioctl of /dev/hypercache-ctl and /dev/hypercacheN reads its
 * argument here, so that a struct grows the same way everywhere.  May
 * sleep (user copy).  Return: the user's size, or -EFAULT, -EINVAL
 * (shorter than version 1) or -E2BIG (unknown non-zero tail).
 */
long hc_copy_struct_in(void *k, size_t ksize, size_t ver1, void __user *u)
{
	u32 usize;
	int err;

	if (get_user(usize, (u32 __user *)u))
		return -EFAULT;
	if (usize < ver1)
		return -EINVAL;
	err = copy_struct_from_user(k, ksize, u, usize);
	if (err)
		return err;
	return usize;
}

/* Write back min(@ksize, @usize) bytes of an ioctl struct. */
int hc_copy_struct_out(void __user *u, const void *k, size_t ksize,
		       u32 usize)
{
	return copy_to_user(u, k, min_t(size_t, ksize, usize)) ? -EFAULT : 0;
}

/* Copy and check a URI: 1..HC_URI_MAX bytes without NUL. */
static int hc_ctl_uri(u64 uptr, u32 len, u8 *buf)
{
	if (!len)
		return -EINVAL;
	if (len > HC_URI_MAX)
		return -E2BIG;
	if (copy_from_user(buf, u64_to_user_ptr(uptr), len))
		return -EFAULT;
	if (memchr(buf, 0, len))
		return -EINVAL;
	return 0;
}

static bool hc_ctl_reserved_zero(const __u64 *r, int n)
{
	while (n--)
		if (r[n])
			return false;
	return true;
}

/**
 * hc_ctl_args - check the fields every object ioctl's struct shares
 * @flags: the struct's flags
 * @all: the flags this ioctl knows
 * @reserved0: the struct's reserved0 (0 for a struct without one)
 * @reserved: its reserved array
 * @nr_reserved: ARRAY_SIZE() of @reserved
 * @uri: the URI's user pointer
 * @uri_len: its length
 * @buf: HC_URI_MAX bytes that receive the URI
 *
 * The one prologue of LOCATE, STAGE, GROW and the object references, after
 * hc_copy_struct_in() and before anything is locked or allocated.  May
 * sleep (user copy).  Return: 0, -EOPNOTSUPP (an unknown flag), -EINVAL (a
 * reserved field is not zero, or a bad URI: hc_ctl_uri()), -E2BIG, -EFAULT.
 */
static int hc_ctl_args(u32 flags, u32 all, u32 reserved0,
		       const __u64 *reserved, int nr_reserved, u64 uri,
		       u32 uri_len, u8 *buf)
{
	if (flags & ~all)
		return -EOPNOTSUPP;
	if (reserved0 || !hc_ctl_reserved_zero(reserved, nr_reserved))
		return -EINVAL;
	return hc_ctl_uri(uri, uri_len, buf);
}

/*
 * The running pool's cache, with the pool lock held; -ENODEV if none.
 * LOCATE with AUTO_INGEST on a miss indexes the URI as INGESTING and asks
 * the helper (netlink.c) to fetch it.
 */
static struct hc_cache *hc_ctl_cache(struct hc_pool **poolp)
{
	struct hc_pool *pool = hc_pool_current();

	*poolp = pool;
	return pool ? pool->cache : ERR_PTR(-ENODEV);
}

/* The page cache of the running pool's /dev/hypercacheN. */
static struct address_space *hc_ctl_mapping(struct hc_pool *pool)
{
	return hc_bdev_mapping(pool->disk->part0);
}

static struct hc_ctl_hold *hc_ctl_find_hold(struct hc_ctl *ctl,
					    struct hc_obj *obj)
{
	struct hc_ctl_hold *h;

	list_for_each_entry(h, &ctl->holds, node)
		if (h->obj == obj)
			return h;
	return NULL;
}

/*
 * The object of @uri this file holds that left the index for a new
 * generation (hc_cache_supersede()), or NULL.  The pool lock is held (the
 * held object cannot go).
 */
static struct hc_obj *hc_ctl_find_superseded(struct hc_ctl *ctl,
					     const u8 *uri, u32 len)
{
	struct hc_obj *obj = NULL;
	struct hc_ctl_hold *h;

	spin_lock(&ctl->lock);
	list_for_each_entry(h, &ctl->holds, node) {
		if (hc_obj_superseded(h->obj) && h->obj->uri_len == len &&
		    !memcmp(h->obj->uri, uri, len)) {
			obj = h->obj;
			break;
		}
	}
	spin_unlock(&ctl->lock);
	return obj;
}

/* Copy the extents of @obj to user memory (STAGE, under the pool lock). */
static int hc_ctl_put_extents(const struct hc_pool *pool,
			      const struct hc_obj *obj, u64 uptr, u32 max)
{
	struct hc_extent __user *u = u64_to_user_ptr(uptr);
	struct hc_extent e;
	u32 i;

	for (i = 0; i < obj->nr_ext && i < max; i++) {
		e = hc_obj_extent(obj, pool->chunk_size, i);
		if (copy_to_user(&u[i], &e, sizeof(e)))
			return -EFAULT;
	}
	return 0;
}

/*
 * LOCATE's buffer: the URI until the object is found, then the extents
 * (in bytes of the device) that are copied out once, with no lock held.
 */
union hc_ctl_locate_buf {
	u8 uri[HC_URI_MAX];
	struct hc_extent out[HC_MAX_EXTENTS];
};

/*
 * Copy the first @n extents in @b (hc_obj_extent()'s) to @uptr in one
 * copy.  Sleeps (user memory): no lock may be held.
 */
static int hc_ctl_copy_extents(union hc_ctl_locate_buf *b, u64 uptr, u32 n)
{
	if (n && copy_to_user(u64_to_user_ptr(uptr), b->out,
			      n * sizeof(b->out[0])))
		return -EFAULT;
	return 0;
}

/* Copy the per-chunk layout of @obj to user memory. */
static int hc_ctl_put_layout(const struct hc_pool *pool,
			     const struct hc_obj *obj, u64 uptr, u32 max)
{
	struct hc_chunk_loc __user *u = u64_to_user_ptr(uptr);
	struct hc_stripe_loc loc;
	struct hc_chunk_loc l;
	u64 done = 0, k;
	u32 i, n = 0;

	memset(&l, 0, sizeof(l));
	for (i = 0; i < obj->nr_ext; i++) {
		struct hc_extent e = hc_obj_extent(obj, pool->chunk_size, i);
		u64 run = e.length;

		/* a small object: one entry, its blocks inside one chunk */
		for (k = 0; k < e.length && n < max; k += run, n++) {
			u64 off = e.offset + k;

			run = min_t(u64, e.length - k, pool->chunk_size -
				    (off & (pool->chunk_size - 1)));
			hc_stripe_map(&pool->stripe, off >> SECTOR_SHIFT, &loc);
			l.member = loc.member;
			l.member_offset = loc.sector << SECTOR_SHIFT;
			l.dev_offset = off;
			l.length = min_t(u64, run, obj->size - done);
			done += l.length;
			if (copy_to_user(&u[n], &l, sizeof(l)))
				return -EFAULT;
		}
	}
	return 0;
}

/*
 * Wait until an event of the object whose URI hashes to @hash (or of one
 * sharing its queue: the caller looks again) or the deadline; with the
 * pool lock dropped.
 */
int hc_ctl_wait(u64 hash, unsigned long deadline, bool forever)
{
	struct hc_cache_waitq *q = hc_cache_waitq(hash);
	int seen = atomic_read(&q->events);
	long left = forever ? MAX_SCHEDULE_TIMEOUT :
		    (long)(deadline - jiffies);
	long ret;

	if (!forever && left <= 0)
		return -ETIMEDOUT;
	hc_pool_unlock();
	ret = wait_event_interruptible_timeout(q->wq,
					       atomic_read(&q->events) != seen,
					       left);
	hc_pool_lock();
	if (ret < 0)
		return -EINTR;
	if (!ret && !forever)
		return -ETIMEDOUT;
	return 0;
}

/* A lockless HOLD (hc_ctl_hold_fast()): the file, and the object held. */
struct hc_ctl_fast_hold {
	struct hc_ctl *ctl;
	struct hc_obj *obj;
};

/*
 * hc_cache_locate_fast()'s @hold: one more hold on @obj if this file
 * holds it already and fewer than HC_HOLD_MAX times.  Under RCU, does not
 * sleep.  Return: whether the hold was taken.
 */
static bool hc_ctl_hold_fast(struct hc_obj *obj, void *arg)
{
	struct hc_ctl_fast_hold *fh = arg;
	struct hc_ctl_hold *h;
	bool ok = false;

	spin_lock(&fh->ctl->lock);
	h = hc_ctl_find_hold(fh->ctl, obj);
	if (h && h->count < HC_HOLD_MAX && hc_cache_hold_more(obj)) {
		h->count++;
		ok = true;
	}
	spin_unlock(&fh->ctl->lock);
	if (ok)
		fh->obj = obj;
	return ok;
}

/*
 * A LOCATE hit of a READY, DIRTY or SYNCING object without a layout is
 * answered without the pool lock (hc_cache_locate_fast()); with HOLD only
 * if the file holds the object already (hc_ctl_hold_fast()).
 * Return: true if @loc and @b are filled (extents to copy: *@next; the
 * object held: fh->obj, the cache: *@cp).
 */
static bool hc_ctl_locate_fast(struct hc_locate *loc,
			       union hc_ctl_locate_buf *b, u32 *next,
			       struct hc_ctl_fast_hold *fh,
			       struct hc_cache **cp)
{
	bool hold = loc->flags & HC_LOCATE_F_HOLD;
	struct hc_cache_view v;
	struct hc_pool *pool;
	bool drain = false;
	int ret = -EAGAIN;

	if ((loc->flags & HC_LOCATE_F_PIN) || loc->layout)
		return false;
	rcu_read_lock();
	pool = hc_pool_current_rcu();
	if (pool) {
		/* the URI is read only until the object is found */
		ret = hc_cache_locate_fast(pool->cache, b->uri, loc->uri_len,
					   loc->flags & HC_LOCATE_F_PEEK, &v,
					   b->out, loc->extents ?
					   min_t(u32, loc->max_extents,
						 HC_MAX_EXTENTS) : 0,
					   hold ? hc_ctl_hold_fast : NULL, fh);
		*cp = pool->cache;
	}
	rcu_read_unlock();
	if (ret < 0)
		return false;
	drain = ret > 0;
	loc->status = HC_LOCATE_HIT;
	loc->state = v.state;
	loc->obj_size = v.size;
	loc->generation = v.generation;
	loc->obj_flags = v.flags;
	loc->nr_extents = v.nr_ext;
	loc->nr_layout = v.chunks;
	*next = loc->extents ? min(v.nr_ext, loc->max_extents) : 0;
	/* the read buffer is full: apply it if nobody holds the lock */
	if (drain && hc_pool_trylock()) {
		pool = hc_pool_current();
		if (pool)
			hc_cache_readbuf_drain(pool->cache);
		hc_pool_unlock();
	}
	return true;
}

/*
 * Release one of this file's holds on @obj, under the pool lock: the
 * entry's first (its last hold frees it), then the object's.
 * Return: 0, or -ENOENT if the file does not hold @obj.
 */
static int hc_ctl_put_hold(struct hc_ctl *ctl, struct hc_cache *c,
			   struct hc_obj *obj)
{
	struct hc_ctl_hold *h;
	int err = -ENOENT;

	spin_lock(&ctl->lock);
	h = hc_ctl_find_hold(ctl, obj);
	if (h) {
		if (!--h->count) {
			list_del(&h->node);
			kfree(h);
		}
		err = 0;
	}
	spin_unlock(&ctl->lock);
	if (!err)
		hc_cache_hold(c, obj, -1);
	return err;
}

/* Undo the hold a LOCATE took (its extents could not be copied out). */
static void hc_ctl_unhold(struct hc_ctl *ctl, struct hc_cache *c,
			  struct hc_obj *obj)
{
	struct hc_pool *pool;

	hc_pool_lock();
	pool = hc_pool_current();
	if (pool && pool->cache == c)
		hc_ctl_put_hold(ctl, c, obj);
	hc_pool_unlock();
}

/*
 * Account a LOCATE that is answered: its latency since @t0 and the trace
 * event, with the URI's first bytes kept in @turi (the URI's buffer holds
 * the extents by now).
 *
 * The clock is local_clock() (sched_clock: the TSC, read with one
 * instruction), not ktime_get_ns(): that reads the system's clocksource,
 * which on some machines is the HPET, a device read each time (the QEMU
 * guests of the tests: two HPET reads were most of what a LOCATE hit cost
 * above a no-op ioctl, Documentation/benchmarks.md).  local_clock() may
 * differ by a little between CPUs, so a LOCATE that moved to another CPU
 * (a WAIT) may count a little more or less; never less than 0.
 */
static void hc_ctl_locate_done(const u8 *turi, const struct hc_locate *loc,
			       u64 t0)
{
	s64 d = (s64)(local_clock() - t0);
	u64 ns = d > 0 ? d : 0;

	hc_stats_locate_done(ns);
	trace_hc_locate(turi, loc->uri_len, loc->status, loc->obj_size, ns);
}

static long hc_ctl_locate(struct hc_ctl *ctl, void __user *arg, bool writer)
{
	struct hc_locate loc;
	union hc_ctl_locate_buf b;
	u8 *uri = b.uri;
	u8 turi[HC_TRACE_URI_MAX];
	struct hc_ctl_hold *h = NULL, *old = NULL;
	struct hc_ctl_fast_hold fh = { .ctl = ctl };
	bool held = false;
	u32 next = 0, i;
	unsigned long deadline;
	struct hc_cache *c;
	struct hc_pool *pool;
	struct hc_obj *obj;
	bool counted = false;
	u64 waited = 0, rechecked = 0, t0 = local_clock();
	long usize;
	int err;

	BUILD_BUG_ON(sizeof(loc) < HC_LOCATE_SIZE_VER1);
	usize = hc_copy_struct_in(&loc, sizeof(loc), HC_LOCATE_SIZE_VER1, arg);
	if (usize < 0)
		return usize;
	err = hc_ctl_args(loc.flags, HC_LOCATE_F_ALL, loc.reserved0,
			  loc.reserved, ARRAY_SIZE(loc.reserved), loc.uri,
			  loc.uri_len, uri);
	if (err)
		return err;
	/* an explicit admission is of the ingest a miss starts; a pin acts */
	if (((loc.flags & HC_LOCATE_F_EXPLICIT) &&
	     !(loc.flags & HC_LOCATE_F_AUTO_INGEST)) ||
	    ((loc.flags & HC_LOCATE_F_PIN) && (loc.flags & HC_LOCATE_F_PEEK)))
		return -EINVAL;
	if ((loc.flags & HC_LOCATE_F_EXPLICIT) && !writer)
		return -EBADF;
	if ((loc.flags & HC_LOCATE_F_PIN) && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (trace_hc_locate_enabled())
		memcpy(turi, uri, min_t(u32, loc.uri_len, sizeof(turi)));
	deadline = jiffies + msecs_to_jiffies(loc.timeout_ms);

	loc.nr_extents = 0;
	loc.nr_layout = 0;
	loc.state = 0;
	loc.obj_size = 0;
	loc.generation = 0;
	loc.obj_flags = 0;

	if (hc_ctl_locate_fast(&loc, &b, &next, &fh, &c)) {
		err = hc_ctl_copy_extents(&b, loc.extents, next);
		if (err) {
			if (fh.obj)	/* a refused LOCATE changes nothing */
				hc_ctl_unhold(ctl, c, fh.obj);
			return err;
		}
		hc_ctl_locate_done(turi, &loc, t0);
		return hc_copy_struct_out(arg, &loc, sizeof(loc), usize);
	}

	hc_pool_lock();
	for (;;) {
		c = hc_ctl_cache(&pool);
		if (IS_ERR(c)) {
			err = PTR_ERR(c);
			goto out_unlock;
		}
		hc_cache_bad_settle(c);
		obj = hc_cache_lookup(c, uri, loc.uri_len);
		/* The ingest we waited for ended without data: say how. */
		if (waited && (!obj || obj->generation != waited)) {
			err = hc_cache_outcome(c, uri, loc.uri_len, waited);
			if (err == HC_INGEST_NOT_ADMITTED) {
				loc.status = HC_LOCATE_NOT_ADMITTED;
				goto out_copy;
			}
			if (err < 0)
				goto out_unlock;
			waited = 0;
		}
		if (!obj && (loc.flags & HC_LOCATE_F_AUTO_INGEST)) {
			err = hc_cache_ingest(c, uri, loc.uri_len, &obj);
			if (err)
				goto out_unlock;
			hc_nl_ingest_request(pool, obj);
			if (!(loc.flags & HC_LOCATE_F_PEEK))
				hc_cache_miss(c, uri, loc.uri_len);
			counted = true;
		}
		if (!obj) {
			if (!(loc.flags & HC_LOCATE_F_PEEK))
				hc_cache_miss(c, uri, loc.uri_len);
			loc.status = HC_LOCATE_MISS;
			goto out_copy;
		}
		/* before the size is known: the admission is not chosen yet */
		if ((loc.flags & HC_LOCATE_F_EXPLICIT) &&
		    obj->state == HC_OBJ_INGESTING && !hc_obj_allocated(obj))
			hc_obj_mset(obj, HC_OBJ_M_EXPLICIT, true);
		/*
		 * A reader's hold of a READY object due for revalidation
		 * waits for the helper's check (reval.c); changed, the URI
		 * is being ingested again and is waited for as a miss is.
		 */
		if ((loc.flags & HC_LOCATE_F_HOLD) &&
		    !(loc.flags & HC_LOCATE_F_PEEK)) {
			err = hc_reval_gate(pool, obj, &rechecked);
			if (err == -EAGAIN)
				continue;
			if (err)
				goto out_unlock;
		}
		if ((loc.flags & HC_LOCATE_F_PIN) && !hc_obj_m(obj, HC_OBJ_M_BAD) &&
		    (hc_obj_valid(obj) || obj->state == HC_OBJ_INGESTING)) {
			err = hc_cache_pin(c, obj, true);
			/*
			 * Being changed (hc_obj.jop: its INGEST_DONE, COMMIT
			 * or another pin is being recorded): wait for that
			 * to end and look again; if it went meanwhile, the
			 * outcome of its ingest is said.
			 */
			if (err == -EBUSY) {
				waited = obj->generation;
				hc_cache_busy_wait();
				continue;
			}
			if (err)
				goto out_unlock;
		}
		if (hc_obj_valid(obj) || !(loc.flags & HC_LOCATE_F_WAIT) ||
		    (obj->state != HC_OBJ_INGESTING &&
		     obj->state != HC_OBJ_STAGED))
			break;
		waited = obj->generation;
		err = hc_ctl_wait(obj->pe.key, deadline, !loc.timeout_ms);
		if (err)
			goto out_unlock;
	}
	if (hc_obj_m(obj, HC_OBJ_M_BAD))
		loc.status = HC_LOCATE_BAD;	/* neither a hit nor held */
	else if (hc_obj_valid(obj))
		loc.status = HC_LOCATE_HIT;
	else
		loc.status = HC_LOCATE_PENDING;
	if (!(loc.flags & HC_LOCATE_F_PEEK) && !counted && !hc_obj_m(obj, HC_OBJ_M_BAD))
		hc_cache_hit(c, obj);

	/*
	 * A hold reuses the file's entry for the object; a new entry is
	 * allocated only for the first hold.  Both are settled before
	 * anything is copied out, so that a refused hold changes nothing:
	 * past the file's HC_HOLD_MAX, or the object's HC_OBJ_HOLDS_MAX
	 * (every file's), it is EOVERFLOW.
	 */
	if ((loc.flags & HC_LOCATE_F_HOLD) && loc.status == HC_LOCATE_HIT) {
		spin_lock(&ctl->lock);
		old = hc_ctl_find_hold(ctl, obj);
		err = old && old->count >= HC_HOLD_MAX ? -EOVERFLOW : 0;
		spin_unlock(&ctl->lock);
		if (!err && hc_cache_holds_full(obj))
			err = -EOVERFLOW;
		if (err)
			goto out_unlock;
		if (!old) {
			h = kzalloc(sizeof(*h), GFP_KERNEL);
			if (!h) {
				err = -ENOMEM;
				goto out_unlock;
			}
		}
	}
	loc.state = obj->state;
	loc.obj_size = obj->size;
	loc.generation = obj->generation;
	loc.obj_flags = hc_obj_flags(obj);
	loc.nr_extents = obj->nr_ext;
	loc.nr_layout = hc_obj_chunks(obj);
	if (loc.extents) {
		/* the URI is not needed any more: @b takes the extents */
		next = min(obj->nr_ext, loc.max_extents);
		for (i = 0; i < next; i++)
			b.out[i] = hc_obj_extent(obj, pool->chunk_size, i);
	}
	if (loc.layout) {
		err = hc_ctl_put_layout(pool, obj, loc.layout, loc.max_layout);
		if (err)
			goto out_unlock;
	}
	/*
	 * A lockless LOCATE of this file may have added to @old since: its
	 * count is checked again.  The object's hold comes first.
	 */
	if (old) {
		hc_cache_hold(c, obj, 1);
		spin_lock(&ctl->lock);
		held = old->count < HC_HOLD_MAX;
		if (held)
			old->count++;
		spin_unlock(&ctl->lock);
		if (!held) {
			hc_cache_hold(c, obj, -1);
			err = -EOVERFLOW;
			goto out_unlock;
		}
	} else if (h) {
		hc_cache_hold(c, obj, 1);
		h->obj = obj;
		h->count = 1;
		spin_lock(&ctl->lock);
		list_add(&h->node, &ctl->holds);
		spin_unlock(&ctl->lock);
		h = NULL;
		held = true;
	}
out_copy:
	hc_pool_unlock();
	kfree(h);
	err = hc_ctl_copy_extents(&b, loc.extents, next);
	if (err) {
		if (held)	/* a refused LOCATE changes nothing */
			hc_ctl_unhold(ctl, c, obj);
		return err;
	}
	hc_ctl_locate_done(turi, &loc, t0);
	return hc_copy_struct_out(arg, &loc, sizeof(loc), usize);

out_unlock:
	hc_pool_unlock();
	kfree(h);
	return err;
}

/* Read a struct hc_obj_ref and its URI. */
static long hc_ctl_ref(void __user *arg, u8 *uri, u32 *len)
{
	struct hc_obj_ref ref;
	long usize;
	int err;

	BUILD_BUG_ON(sizeof(ref) < HC_OBJ_REF_SIZE_VER1);
	usize = hc_copy_struct_in(&ref, sizeof(ref), HC_OBJ_REF_SIZE_VER1, arg);
	if (usize < 0)
		return usize;
	err = hc_ctl_args(ref.flags, 0, ref.reserved0, ref.reserved,
			  ARRAY_SIZE(ref.reserved), ref.uri, ref.uri_len, uri);
	*len = ref.uri_len;
	return err;
}

/* This file's STAGED object of that URI, or NULL. */
static struct hc_obj *hc_ctl_find_stage(struct hc_ctl *ctl, const u8 *uri,
					u32 len)
{
	struct hc_obj_transit *t;

	list_for_each_entry(t, &ctl->stages, queue_node)
		if (t->obj->uri_len == len && !memcmp(t->obj->uri, uri, len))
			return t->obj;
	return NULL;
}

static long hc_ctl_obj_op(struct hc_ctl *ctl, unsigned int cmd,
			  void __user *arg)
{
	struct hc_pool *pool;
	struct hc_cache *c;
	struct hc_obj *obj;
	u8 uri[HC_URI_MAX];
	u32 len;
	long err;

	err = hc_ctl_ref(arg, uri, &len);
	if (err)
		return err;
	if ((cmd == HC_IOC_PIN || cmd == HC_IOC_UNPIN || cmd == HC_IOC_EVICT) &&
	    !capable(CAP_SYS_ADMIN))
		return -EPERM;

	hc_pool_lock();
again:
	c = hc_ctl_cache(&pool);
	if (IS_ERR(c)) {
		err = PTR_ERR(c);
		goto out;
	}
	if (cmd == HC_IOC_ABORT) {
		obj = hc_ctl_find_stage(ctl, uri, len);
		err = !obj ? -ENOENT : obj->jop ? -EBUSY : 0;
		if (!err)	/* not while its COMMIT is under way */
			hc_cache_abort(c, obj);
		goto out;
	}
	obj = hc_cache_lookup(c, uri, len);
	if (cmd == HC_IOC_RELEASE) {
		/* the URI's current object, else a generation it replaced */
		err = obj ? hc_ctl_put_hold(ctl, c, obj) : -ENOENT;
		obj = err == -ENOENT ? hc_ctl_find_superseded(ctl, uri, len) :
				       NULL;
		if (obj)
			err = hc_ctl_put_hold(ctl, c, obj);
		goto out;
	}
	if (!obj) {
		err = -ENOENT;
		goto out;
	}
	switch (cmd) {
	case HC_IOC_PIN:
	case HC_IOC_UNPIN:
		err = hc_cache_pin(c, obj, cmd == HC_IOC_PIN);
		if (err == -EBUSY) {	/* being changed: look again */
			hc_cache_busy_wait();
			goto again;
		}
		break;
	case HC_IOC_EVICT:
		err = hc_cache_evict(c, obj, false);
		if (err == -EAGAIN) {	/* being changed: look again */
			hc_cache_busy_wait();
			goto again;
		}
		break;
	}
out:
	hc_pool_unlock();
	return err;
}

/*
 * Take the pool lock and wait until an object of @size bytes fits under
 * the dirty limit (see cache.c); the lock is dropped while waiting.
 * STAGE's and GROW's step after hc_ctl_args().
 * Return: the running pool's cache, or -ENODEV, -EFBIG (larger than the
 * pool: it would never fit), -EAGAIN (@nowait), with the lock held; or
 * -EINTR (a signal), with the lock not held.
 */
struct hc_cache *hc_ctl_dirty_wait(u64 size, bool nowait,
				   struct hc_pool **poolp)
{
	struct hc_cache *c;
	int seen, err;

	hc_pool_lock();
	for (;;) {
		c = hc_ctl_cache(poolp);
		if (IS_ERR(c))
			return c;
		err = hc_cache_size_check(c, size);
		if (err)
			return ERR_PTR(err);
		seen = atomic_read(&hc_dirty_events);
		if (!hc_cache_dirty_over(c, size))
			return c;
		if (nowait)
			return ERR_PTR(-EAGAIN);
		hc_pool_unlock();
		if (wait_event_interruptible(hc_dirty_wait,
					     atomic_read(&hc_dirty_events) != seen))
			return ERR_PTR(-EINTR);
		hc_pool_lock();
	}
}

static long hc_ctl_stage(struct hc_ctl *ctl, void __user *arg)
{
	struct hc_stage st;
	struct hc_pool *pool;
	struct hc_cache *c;
	struct hc_obj *obj;
	u8 uri[HC_URI_MAX];
	long usize;
	int err;

	BUILD_BUG_ON(sizeof(st) < HC_STAGE_SIZE_VER1);
	usize = hc_copy_struct_in(&st, sizeof(st), HC_STAGE_SIZE_VER1, arg);
	if (usize < 0)
		return usize;
	err = hc_ctl_args(st.flags, HC_STAGE_F_ALL, st.reserved0, st.reserved,
			  ARRAY_SIZE(st.reserved), st.uri, st.uri_len, uri);
	if (err)
		return err;
	if ((st.flags & HC_STAGE_F_ANY_WRITER) && !capable(CAP_SYS_ADMIN))
		return -EPERM;

again:
	c = hc_ctl_dirty_wait(st.obj_size, st.flags & HC_STAGE_F_NOWAIT, &pool);
	if (c == ERR_PTR(-EINTR))
		return -EINTR;
	if (IS_ERR(c)) {
		err = PTR_ERR(c);
		goto out;
	}
	err = hc_cache_stage(c, uri, st.uri_len, st.obj_size,
			     st.flags & HC_STAGE_F_REPLACE,
			     st.flags & HC_STAGE_F_ANY_WRITER,
			     st.flags & HC_STAGE_F_GROW, ctl, &obj);
	if (err == -EAGAIN) {	/* the object it replaces is being changed */
		hc_cache_busy_wait();
		hc_pool_unlock();
		goto again;
	}
	if (err)
		goto out;
	if (obj->nr_ext > st.max_extents) {
		hc_cache_abort(c, obj);
		err = -E2BIG;
		goto out;
	}
	err = hc_ctl_put_extents(pool, obj, st.extents, st.max_extents);
	if (err) {
		hc_cache_abort(c, obj);
		goto out;
	}
	list_add(&hc_obj_transit(obj)->queue_node, &ctl->stages);
	trace_hc_stage(obj->uri, obj->uri_len, obj->generation, obj->size);
	st.nr_extents = obj->nr_ext;
	st.generation = obj->generation;
	err = hc_copy_struct_out(arg, &st, sizeof(st), usize);
out:
	hc_pool_unlock();
	return err;
}

/*
 * Write back the stage's range of the device's page cache and wait for it
 * (COMMIT), in the committer's context, so that the write fence admits the
 * write-back of a buffered writer.  Whether a write of the range was lost
 * (failed on a member, or refused: a flusher's write-back) is the seal's
 * to tell (hc_cache_seal()), from the stage's own fence: the device's
 * write-back error state is one for the whole device, and a page lost
 * elsewhere on it is no concern of this stage.  Return: 0 or the errno of
 * filemap_fdatawrite_range().  Sleeps.
 */
static int hc_ctl_writeback(struct hc_pool *pool, struct hc_obj *obj)
{
	struct address_space *m = hc_ctl_mapping(pool);
	u32 i;
	int err;

	for (i = 0; i < obj->nr_ext; i++) {
		struct hc_extent e = hc_obj_extent(obj, pool->chunk_size, i);
		loff_t start = e.offset;
		loff_t end = start + e.length - 1;

		err = filemap_fdatawrite_range(m, start, end);
		if (err)
			return err;
		filemap_fdatawait_range_keep_errors(m, start, end);
	}
	return 0;
}

/**
 * hc_ctl_store - COMMIT's steps, once its arguments are checked
 * @pool: the running pool, with the pool lock held (on return too)
 * @obj: the STAGED object
 * @writeback: write the stage's range of the device's page cache back
 *	first (a buffered writer's data: the COMMIT ioctl)
 * @size: the final size of a growable stage (its chunks past it are
 *	freed), unused for another
 * @clean: READY instead of DIRTY (hc_cache_commit())
 * @has_crc: @crc is the data's CRC-32C
 * @crc: see @has_crc
 *
 * The data first: buffered writes to the device, then no write in flight
 * any more and none of the stage's lost (hc_cache_seal(); a growable stage
 * then gives back the chunks past its final size), then every member's
 * volatile cache to stable media; only then the journal record.  The
 * object is busy throughout
 * (hc_cache_commit_begin()) and the pool lock is dropped for every step
 * that waits for a member, so that nothing else on the pool waits for
 * this COMMIT's drives.  The COMMIT ioctl's and the file system view's
 * (fs_write.c) one implementation.  Sleeps.
 * Return: 0; -EBUSY (a COMMIT of @obj is under way); -EIO (a write into
 * the stage's chunks failed or was refused: hc_cache_seal()); an errno of
 * the write-back, hc_cache_trim(), a member's flush or hc_cache_commit():
 * the object then stays STAGED, its fence open again.
 */
int hc_ctl_store(struct hc_pool *pool, struct hc_obj *obj, bool writeback,
		 u64 size, bool clean, bool has_crc, u32 crc)
{
	struct hc_cache *c = pool->cache;
	int err;

	err = hc_cache_commit_begin(c, obj);
	if (err)
		return err;
	hc_pool_unlock();
	err = writeback ? hc_ctl_writeback(pool, obj) : 0;
	if (!err)
		err = hc_cache_seal(c, obj);
	hc_pool_lock();
	if (!err && hc_obj_growable(obj))
		err = hc_cache_trim(c, obj, size);
	if (!err) {
		hc_pool_unlock();
		err = hc_members_flush(pool->members, pool->nr_members);
		hc_pool_lock();
	}
	if (err) {
		hc_cache_commit_cancel(c, obj);
		return err;
	}
	return hc_cache_commit(c, obj, clean, has_crc, crc);
}

static long hc_ctl_commit(struct hc_ctl *ctl, void __user *arg)
{
	struct hc_commit cm;
	struct hc_pool *pool;
	struct hc_cache *c;
	struct hc_obj *obj;
	u8 uri[HC_URI_MAX];
	long usize;
	int err;

	BUILD_BUG_ON(sizeof(cm) < HC_COMMIT_SIZE_VER1);
	usize = hc_copy_struct_in(&cm, sizeof(cm), HC_COMMIT_SIZE_VER1, arg);
	if (usize < 0)
		return usize;
	if (cm.flags & ~HC_COMMIT_F_ALL)
		return -EOPNOTSUPP;
	if (!hc_ctl_reserved_zero(cm.reserved, ARRAY_SIZE(cm.reserved)))
		return -EINVAL;
	/* @obj_size is read only with the flag, from a struct that has it. */
	if ((cm.flags & HC_COMMIT_F_SIZE) ? usize < HC_COMMIT_SIZE_VER2 :
					    cm.obj_size != 0)
		return -EINVAL;
	err = hc_ctl_uri(cm.uri, cm.uri_len, uri);
	if (err)
		return err;

	hc_pool_lock();
	c = hc_ctl_cache(&pool);
	if (IS_ERR(c)) {
		err = PTR_ERR(c);
		goto out;
	}
	obj = hc_ctl_find_stage(ctl, uri, cm.uri_len);
	if (!obj) {
		err = -ENOENT;
		goto out;
	}
	/* A growable stage needs its final size, and only it takes one. */
	if (hc_obj_growable(obj) != !!(cm.flags & HC_COMMIT_F_SIZE)) {
		err = -EINVAL;
		goto out;
	}
	if (hc_obj_growable(obj) && cm.obj_size > obj->size) {
		err = -EFBIG;
		goto out;
	}
	err = hc_ctl_store(pool, obj, true, cm.obj_size,
			   cm.flags & HC_COMMIT_F_CLEAN,
			   cm.flags & HC_COMMIT_F_CRC, cm.crc32c);
	if (err)
		goto out;
	cm.generation = obj->generation;
	trace_hc_commit(obj->uri, obj->uri_len, obj->generation, obj->size);
	err = hc_copy_struct_out(arg, &cm, sizeof(cm), usize);
out:
	hc_pool_unlock();
	if (!err && !(cm.flags & HC_COMMIT_F_CLEAN))
		hc_nl_egress_kick();
	return err;
}

static long hc_ctl_grow(struct hc_ctl *ctl, void __user *arg)
{
	struct hc_grow gr;
	struct hc_pool *pool;
	struct hc_cache *c;
	struct hc_obj *obj;
	u8 uri[HC_URI_MAX];
	long usize;
	int err;

	BUILD_BUG_ON(sizeof(gr) < HC_GROW_SIZE_VER1);
	usize = hc_copy_struct_in(&gr, sizeof(gr), HC_GROW_SIZE_VER1, arg);
	if (usize < 0)
		return usize;
	err = hc_ctl_args(gr.flags, HC_GROW_F_ALL, gr.reserved0, gr.reserved,
			  ARRAY_SIZE(gr.reserved), gr.uri, gr.uri_len, uri);
	if (err)
		return err;

	/* The stage is looked up after the wait: it may have ended. */
	c = hc_ctl_dirty_wait(gr.obj_size, gr.flags & HC_GROW_F_NOWAIT, &pool);
	if (c == ERR_PTR(-EINTR))
		return -EINTR;
	if (IS_ERR(c)) {
		err = PTR_ERR(c);
		goto out;
	}
	obj = hc_ctl_find_stage(ctl, uri, gr.uri_len);
	if (!obj) {
		err = -ENOENT;
		goto out;
	}
	err = hc_cache_grow(c, obj, gr.obj_size);
	if (err)
		goto out;
	if (gr.extents) {
		err = hc_ctl_put_extents(pool, obj, gr.extents,
					 gr.max_extents);
		if (err)
			goto out;
	}
	gr.nr_extents = obj->nr_ext;
	gr.capacity = obj->size;
	err = hc_copy_struct_out(arg, &gr, sizeof(gr), usize);
out:
	hc_pool_unlock();
	return err;
}

static long hc_ctl_stat(void __user *arg)
{
	struct hc_stats st;
	struct hc_pool *pool;
	struct hc_cache *c;
	long usize;
	int err = 0;

	BUILD_BUG_ON(sizeof(st) < HC_STATS_SIZE_VER1);
	usize = hc_copy_struct_in(&st, sizeof(st), HC_STATS_SIZE_VER1, arg);
	if (usize < 0)
		return usize;
	if (st.flags)
		return -EOPNOTSUPP;
	if (!hc_ctl_reserved_zero(st.reserved, ARRAY_SIZE(st.reserved)))
		return -EINVAL;

	hc_pool_lock();
	c = hc_ctl_cache(&pool);
	if (IS_ERR(c)) {
		err = PTR_ERR(c);
	} else {
		BUILD_BUG_ON(ARRAY_SIZE(st.by_state) !=
			     ARRAY_SIZE(c->stats.by_state));
		st.hits = hc_cache_hits(c);
		st.misses = c->stats.misses;
		st.admissions = c->stats.admissions;
		st.rejections = c->stats.rejections;
		st.evictions = c->stats.evictions;
		st.objects = c->stats.objects;
		st.bytes_used = (c->nr_chunks - hc_alloc_free(&c->alloc)) *
				c->chunk_size;
		st.capacity = c->nr_chunks * c->chunk_size;
		memcpy(st.by_state, c->stats.by_state, sizeof(st.by_state));
		st.pinned = c->stats.pinned;
		st.held = c->stats.held;
	}
	hc_pool_unlock();
	return err ? err : hc_copy_struct_out(arg, &st, sizeof(st), usize);
}

static long hc_ctl_ioctl(struct file *file, unsigned int cmd,
			 unsigned long arg)
{
	struct hc_ctl *ctl = file->private_data;
	void __user *argp = (void __user *)arg;
	bool writer = file->f_mode & FMODE_WRITE;

	switch (cmd) {
	case HC_IOC_LOCATE:
		return hc_ctl_locate(ctl, argp, writer);
	case HC_IOC_STAGE:
		return writer ? hc_ctl_stage(ctl, argp) : -EBADF;
	case HC_IOC_COMMIT:
		return writer ? hc_ctl_commit(ctl, argp) : -EBADF;
	case HC_IOC_GROW:
		return writer ? hc_ctl_grow(ctl, argp) : -EBADF;
	case HC_IOC_ABORT:
		if (!writer)
			return -EBADF;
		fallthrough;
	case HC_IOC_RELEASE:
	case HC_IOC_PIN:
	case HC_IOC_UNPIN:
	case HC_IOC_EVICT:
		return hc_ctl_obj_op(ctl, cmd, argp);
	case HC_IOC_STAT:
		return hc_ctl_stat(argp);
	default:
		return -ENOTTY;
	}
}

static int hc_ctl_open(struct inode *inode, struct file *file)
{
	struct hc_ctl *ctl = kzalloc(sizeof(*ctl), GFP_KERNEL);

	if (!ctl)
		return -ENOMEM;
	spin_lock_init(&ctl->lock);
	INIT_LIST_HEAD(&ctl->holds);
	INIT_LIST_HEAD(&ctl->stages);
	file->private_data = ctl;
	return 0;
}

/* Closing releases this file's holds and aborts its stages. */
static int hc_ctl_release(struct inode *inode, struct file *file)
{
	struct hc_ctl *ctl = file->private_data;
	struct hc_ctl_hold *h, *tmp;
	struct hc_obj_transit *t, *ttmp;
	struct hc_pool *pool;
	struct hc_cache *c;

	/* the last user of the file: its lists change no more */
	if (list_empty(&ctl->holds) && list_empty(&ctl->stages))
		goto out_free;
	hc_pool_lock();
	c = hc_ctl_cache(&pool);
	list_for_each_entry_safe(h, tmp, &ctl->holds, node) {
		if (!IS_ERR(c))
			hc_cache_hold(c, h->obj, -(int)h->count);
		list_del(&h->node);
		kfree(h);
	}
	list_for_each_entry_safe(t, ttmp, &ctl->stages, queue_node)
		if (!IS_ERR(c))
			hc_cache_abort(c, t->obj);
	hc_pool_unlock();
out_free:
	kfree(ctl);
	return 0;
}

static const struct file_operations hc_ctl_fops = {
	.owner		= THIS_MODULE,
	.open		= hc_ctl_open,
	.release	= hc_ctl_release,
	.unlocked_ioctl	= hc_ctl_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= noop_llseek,
};

static struct miscdevice hc_ctl_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= HC_CTL_NAME,
	.fops	= &hc_ctl_fops,
	.mode	= 0660,
};

/* Whether @file is an open /dev/hypercache-ctl (netlink reads, netlink.c). */
bool hc_ctl_is_ctl_file(const struct file *file)
{
	return file->f_op == &hc_ctl_fops;
}

int hc_ctl_register(void)
{
	return misc_register(&hc_ctl_misc);
}

void hc_ctl_unregister(void)
{
	misc_deregister(&hc_ctl_misc);
}
