// SPDX-License-Identifier: GPL-2.0
/*
 * Pool administration: create, assemble, stop.
 *
 * One pool runs at a time (/dev/hypercache0).  hc_pool_mutex serialises
 * every administrative operation; the data path never takes it (it reaches
 * the pool through disk->private_data, which lives as long as the disk).
 *
 * Both create and assemble validate every member before they write anything:
 * a member that fails validation is never written.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uuid.h>
#include <linux/timekeeping.h>
#include "hypercache.h"
#include "core/upgrade.h"
#include "../uapi/hypercache_netlink.h"

static DEFINE_MUTEX(hc_pool_mutex);
static struct hc_pool *hc_pool_cur;	/* under hc_pool_mutex */
/*
 * The running pool for lockless readers (LOCATE hits): published once the
 * pool is up, unpublished and waited for (synchronize_rcu()) before it is
 * torn down, so a reader inside rcu_read_lock() sees a live pool and cache.
 */
static struct hc_pool __rcu *hc_pool_rcu;

void hc_pool_lock(void)
{
	mutex_lock(&hc_pool_mutex);
}

void hc_pool_unlock(void)
{
	mutex_unlock(&hc_pool_mutex);
}

struct hc_pool *hc_pool_current(void)
{
	lockdep_assert_held(&hc_pool_mutex);
	return hc_pool_cur;
}

/* The pool lock if it is free now (process context, never sleeps). */
bool hc_pool_trylock(void)
{
	return mutex_trylock(&hc_pool_mutex);
}

/* The running pool, or NULL; valid until rcu_read_unlock(). */
struct hc_pool *hc_pool_current_rcu(void)
{
	return rcu_dereference(hc_pool_rcu);
}

static void hc_pool_fail_set(struct hc_pool_fail *fail, int pos,
			     const char *msg)
{
	fail->pos = pos;
	fail->msg = msg;
}

/* Close members [0, n) of @given and free it.  @holder is their holder. */
static void hc_pool_close_given(struct hc_member *given, u32 n, void *holder)
{
	while (n--)
		hc_member_close(&given[n], holder);
	kfree(given);
}

/*
 * With the pool lock held and no pool running (else -EBUSY), open every
 * path exclusively, in order, into a new array.  The holder is @holder (the
 * pool under construction).  A path given twice is refused (-EEXIST).
 */
static struct hc_member *hc_pool_open_given(const struct hc_pool_req *req,
					    void *holder,
					    struct hc_pool_fail *fail)
{
	struct hc_member *given;
	const char *msg;
	u32 i, j;
	int err;

	lockdep_assert_held(&hc_pool_mutex);
	if (hc_pool_cur) {
		hc_pool_fail_set(fail, -1, "a pool is already running");
		return ERR_PTR(-EBUSY);
	}
	given = kcalloc(req->n, sizeof(*given), GFP_KERNEL);
	if (!given)
		return ERR_PTR(-ENOMEM);

	for (i = 0; i < req->n; i++) {
		err = hc_member_open(&given[i], req->paths[i], holder, &msg);
		if (err) {
			pr_err("%s: %s (%d)\n", req->paths[i], msg,
			       err);
			hc_pool_fail_set(fail, i, msg);
			goto out_close;
		}
		for (j = 0; j < i; j++) {
			if (given[j].dev.bdev == given[i].dev.bdev) {
				pr_err("%s: device given twice\n",
				       req->paths[i]);
				hc_pool_fail_set(fail, i, "device given twice");
				hc_member_close(&given[i], holder);
				err = -EEXIST;
				goto out_close;
			}
		}
	}
	return given;

out_close:
	hc_pool_close_given(given, i, holder);
	return ERR_PTR(err);
}

static int hc_pool_apply(void *arg, const struct hc_jrec2 *r)
{
	return hc_cache_restore(arg, r);
}

/*
 * Assembly: replay the journal into the (empty) cache, let the cache check
 * what came back, then compact, which also makes every member's copy the
 * same again.  Compaction runs only after a replay that found no damage it
 * could not repair from another member.  With
 * HC_POOL_F_FORCE_EMPTY_JOURNAL, a journal damaged beyond repair is
 * replaced by an empty one, and the cache starts empty.
 */
static int hc_pool_replay(struct hc_pool *pool, u32 flags, const char **msg)
{
	struct hc_journal_replay rp = {
		.apply = hc_pool_apply,
		.arg = pool->cache,
	};
	int err;

	err = hc_journal_open(pool, &rp);
	*msg = rp.msg;
	if (!err)
		pool->cache->journal = pool->journal;
	if (!err && !rp.fresh) {
		err = hc_cache_restore_finish(pool->cache);
		if (err) {
			*msg = "two journaled objects claim one chunk (see dmesg)";
			rp.damaged = true;
			pool->cache->journal = NULL;
			hc_journal_destroy(pool);
		}
	}
	if (err && rp.damaged && (flags & HC_POOL_F_FORCE_EMPTY_JOURNAL)) {
		pr_warn("pool %pUb: the journal cannot be replayed (%d): starting an EMPTY journal, as force-empty-journal asks; every object it recorded is forgotten and its chunks are free\n",
			pool->uuid, err);
		hc_cache_destroy(pool);
		*msg = "cannot start the object cache";
		err = hc_cache_create(pool);
		if (err)
			return err;
		*msg = "cannot start the journal";
		err = hc_journal_create(pool);
		if (err)
			return err;
		pool->journal->state = HC_JOURNAL_STATE_EMPTIED;
		pool->cache->journal = pool->journal;
		return 0;
	}
	if (err || rp.fresh)
		return err;
	*msg = "cannot compact the journal";
	err = hc_journal_compact(pool->journal);
	if (err) {
		pool->cache->journal = NULL;
		hc_journal_destroy(pool);
	}
	return err;
}

/* How far hc_pool_start() got: the parts hc_pool_teardown() undoes. */
enum hc_pool_up {
	HC_POOL_UP_CACHE,	/* the object cache */
	HC_POOL_UP_JOURNAL,	/* and the journal */
	HC_POOL_UP_DISK,	/* and /dev/hypercacheN: running */
};

/*
 * Undo hc_pool_start() from @up, in the reverse order of the start: the
 * one teardown of a pool, for a failed start and for a stop.  The members
 * stay open (the caller closes them).  May sleep.
 */
static void hc_pool_teardown(struct hc_pool *pool, enum hc_pool_up up)
{
	switch (up) {
	case HC_POOL_UP_DISK:
		hc_disk_stop(pool);
		fallthrough;
	case HC_POOL_UP_JOURNAL:
		hc_journal_destroy(pool);
		fallthrough;
	case HC_POOL_UP_CACHE:
		hc_cache_destroy(pool);
	}
}

/*
 * Build the running pool from validated members (@given, in the caller's
 * order; @order[index] = position in @given) whose superblocks are in
 * given[].sb.  @flags: HC_POOL_F_* of an assembly.  Takes over the members
 * on success.
 */
static int hc_pool_start(struct hc_pool *pool, struct hc_member *given,
			 const u32 *order, u32 n, bool create, u32 flags,
			 struct hc_pool_fail *fail)
{
	const char *msg = "cannot start the object cache";
	const struct hc_sb *sb0 = &given[0].sb;
	u32 i;
	int err;

	err = hc_stripe_init(&pool->stripe, n, sb0->chunk_size,
			     sb0->member_chunks, sb0->data_offset);
	if (err)
		return err;
	memcpy(pool->uuid, sb0->pool_uuid, sizeof(pool->uuid));
	pool->chunk_size = sb0->chunk_size;
	pool->data_offset = sb0->data_offset;
	pool->nr_members = n;
	/* v2 from the first member an upgrade wrote (hc_upgrade_format()) */
	pool->format = 1;
	for (i = 0; i < n; i++)
		if (hc_sb_format(&given[i].sb) == 2)
			pool->format = 2;
	for (i = 0; i < n; i++)
		pool->members[i] = given[order[i]];

	err = hc_cache_create(pool);
	if (err)
		goto out_fail;
	if (create) {
		msg = "cannot start the journal";
		err = hc_journal_create(pool);
		if (!err)
			pool->cache->journal = pool->journal;
	} else {
		err = hc_pool_replay(pool, flags, &msg);
	}
	if (err) {
		hc_pool_teardown(pool, HC_POOL_UP_CACHE);
		goto out_fail;
	}
	msg = "cannot start the block device";
	err = hc_disk_start(pool);
	if (err) {
		hc_pool_teardown(pool, HC_POOL_UP_JOURNAL);
		goto out_fail;
	}
	hc_pool_cur = pool;
	rcu_assign_pointer(hc_pool_rcu, pool);
	hc_nl_egress_kick();	/* replayed DIRTY objects */
	return 0;

out_fail:
	hc_pool_fail_set(fail, -1, msg);
	return err;
}

static struct hc_pool *hc_pool_alloc(u32 n)
{
	struct hc_pool *pool;

	return kzalloc(struct_size(pool, members, n), GFP_KERNEL);
}

/* Log the pool that just started. */
static void hc_pool_announce(struct hc_pool *pool, const char *how)
{
	pr_info("%s pool %pUb: %s, %u members, %llu chunks of %u KiB, format v%u\n",
		how, pool->uuid, pool->name, pool->nr_members,
		hc_stripe_chunks(&pool->stripe), pool->chunk_size >> 10,
		pool->format);
}

/**
 * hc_pool_create - write superblocks to new members and start the pool
 * @req: member paths in stripe order, flags, requested data offset
 * @fail: filled on failure
 *
 * Return: 0; -EBUSY if a pool runs or a member is in use; -EINVAL for bad
 * arguments; -EEXIST if a member already carries a HyperCache superblock and
 * HC_POOL_F_FORCE is not set, or a device is given twice; -ENOSPC if the
 * smallest member cannot hold one chunk; -EIO if a superblock cannot be read
 * or written (superblocks already written are then wiped again).
 */
int hc_pool_create(const struct hc_pool_req *req, struct hc_pool_fail *fail)
{
	u32 order[HC_MAX_MEMBERS];
	struct hc_member *given;
	struct hc_pool *pool;
	u64 min_bytes = U64_MAX, data_offset, member_chunks;
	const char *msg;
	u8 pool_uuid[16];
	void *block;
	u64 now;
	u32 i;
	int err;

	hc_pool_fail_set(fail, -1, NULL);
	if (req->n < 1 || req->n > HC_MAX_MEMBERS) {
		hc_pool_fail_set(fail, -1, "between 1 and 64 members");
		return -EINVAL;
	}
	if (req->flags & ~(HC_POOL_F_FORCE | HC_POOL_F_FORMAT_V2)) {
		hc_pool_fail_set(fail, -1, req->flags & ~HC_POOL_F_ALL ?
				 "unknown flags" :
				 "force-empty-journal is for assemble only");
		return -EINVAL;
	}

	block = kmalloc(HC_SB_SIZE, GFP_KERNEL);
	pool = hc_pool_alloc(req->n);
	if (!block || !pool) {
		err = -ENOMEM;
		goto out_free;
	}

	mutex_lock(&hc_pool_mutex);
	given = hc_pool_open_given(req, pool, fail);
	if (IS_ERR(given)) {
		err = PTR_ERR(given);
		goto out_unlock;
	}

	/* Validate every member before writing any. */
	for (i = 0; i < req->n; i++) {
		struct hc_sb old;

		err = hc_member_read_sb(&given[i], block);
		if (err) {
			hc_pool_fail_set(fail, i, "cannot read the superblock area");
			goto out_close;
		}
		if (hc_sb_decode(block, &old, &msg) != -EINVAL &&
		    !(req->flags & HC_POOL_F_FORCE)) {
			pr_err("%s: already holds a HyperCache superblock\n",
			       req->paths[i]);
			hc_pool_fail_set(fail, i,
					 "device already holds a HyperCache superblock (use force to overwrite)");
			err = -EEXIST;
			goto out_close;
		}
		min_bytes = min_t(u64, min_bytes,
				  bdev_nr_bytes(given[i].dev.bdev));
	}
	err = hc_sb_geometry(min_bytes, HC_CHUNK_SIZE_DEFAULT, req->data_offset,
			     &data_offset, &member_chunks, &msg);
	if (err) {
		hc_pool_fail_set(fail, -1, msg);
		goto out_close;
	}

	uuid_gen((uuid_t *)pool_uuid);
	now = ktime_get_real_ns();
	for (i = 0; i < req->n; i++) {
		struct hc_sb *sb = &given[i].sb;

		*sb = (struct hc_sb) {
			.version = HC_SB_VERSION,
			.member_index = i,
			.member_count = req->n,
			.chunk_size = HC_CHUNK_SIZE_DEFAULT,
			.member_bytes = bdev_nr_bytes(given[i].dev.bdev),
			.meta_offset = HC_SB_SIZE,
			.data_offset = data_offset,
			.member_chunks = member_chunks,
			.ctime_ns = now,
		};
		if (req->flags & HC_POOL_F_FORMAT_V2)
			sb->feature_incompat = HC_FEATURE_INCOMPAT_V2;
		memcpy(sb->pool_uuid, pool_uuid, 16);
		uuid_gen((uuid_t *)sb->member_uuid);
		order[i] = i;
	}

	for (i = 0; i < req->n; i++) {
		hc_sb_encode(&given[i].sb, block);
		err = hc_member_write_sb(&given[i], block);
		if (err) {
			pr_err("%s: superblock write failed (%d)\n",
			       req->paths[i], err);
			hc_pool_fail_set(fail, i, "superblock write failed");
			goto out_wipe;
		}
	}

	err = hc_pool_start(pool, given, order, req->n, true, 0, fail);
	if (err)
		goto out_wipe;
	kfree(given);
	kfree(block);
	hc_pool_announce(pool, "created");
	hc_nl_notify(pool, HC_POOL_STATE_RUNNING);
	mutex_unlock(&hc_pool_mutex);
	return 0;

out_wipe:
	/* Best effort: a half-created pool must not look assemblable. */
	memset(block, 0, HC_SB_SIZE);
	while (i--)
		hc_member_write_sb(&given[i], block);
	i = req->n;
out_close:
	hc_pool_close_given(given, req->n, pool);
out_unlock:
	mutex_unlock(&hc_pool_mutex);
out_free:
	kfree(pool);
	kfree(block);
	return err;
}

static u64 hc_pool_sb_v2(const struct hc_pool *pool);
static int hc_pool_upgrade_run(struct hc_pool *pool, bool any,
			       struct hc_pool_fail *fail);

/* Every member of @pool, as a mask of member indexes. */
static u64 hc_pool_sb_v2_all(const struct hc_pool *pool)
{
	return pool->nr_members >= 64 ? ~0ULL : BIT_ULL(pool->nr_members) - 1;
}

/**
 * hc_pool_assemble - start the pool described by the members' superblocks
 * @req: member paths in any order
 * @fail: filled on failure
 *
 * Nothing is written to any member before the members and their journal
 * have been read and found sound (the journal is then compacted); a
 * journal damaged beyond what the mirrors repair refuses the assembly,
 * unless @req->flags has HC_POOL_F_FORCE_EMPTY_JOURNAL.
 *
 * Return: 0; -EBUSY if a pool runs or a member is in use; -EEXIST if a
 * device is given twice or two members carry the same index; -EINVAL if a
 * member has no superblock; -EBADMSG if its checksum is wrong; -EOPNOTSUPP
 * for an unknown format version or incompatible feature; -EUCLEAN for a
 * corrupt superblock, members that disagree on the geometry, or a member
 * smaller than its superblock says; -EXDEV for a member of another pool;
 * -ENODEV if a member is missing; -EIO if a superblock cannot be read; the
 * journal's errors (hc_journal_open(): -EUCLEAN or -EIO for a journal
 * damaged on every member, -EUCLEAN for two objects on one chunk).
 */
int hc_pool_assemble(const struct hc_pool_req *req, struct hc_pool_fail *fail)
{
	u32 order[HC_MAX_MEMBERS];
	struct hc_sb_verdict v;
	struct hc_member *given;
	struct hc_pool *pool;
	struct hc_sb *sbs;
	const char *msg;
	void *block;
	u64 sb_v2;
	u32 i;
	int err;

	hc_pool_fail_set(fail, -1, NULL);
	if (req->n < 1 || req->n > HC_MAX_MEMBERS) {
		hc_pool_fail_set(fail, -1, "between 1 and 64 members");
		return -EINVAL;
	}
	if ((req->flags & ~HC_POOL_F_FORCE_EMPTY_JOURNAL) || req->data_offset) {
		hc_pool_fail_set(fail, -1, "force, format and data offset are for create only");
		return -EINVAL;
	}

	block = kmalloc(HC_SB_SIZE, GFP_KERNEL);
	sbs = kcalloc(req->n, sizeof(*sbs), GFP_KERNEL);
	pool = hc_pool_alloc(req->n);
	if (!block || !sbs || !pool) {
		err = -ENOMEM;
		goto out_free;
	}

	mutex_lock(&hc_pool_mutex);
	given = hc_pool_open_given(req, pool, fail);
	if (IS_ERR(given)) {
		err = PTR_ERR(given);
		goto out_unlock;
	}

	for (i = 0; i < req->n; i++) {
		err = hc_member_read_sb(&given[i], block);
		if (err)
			msg = "cannot read the superblock";
		else
			err = hc_sb_decode(block, &sbs[i], &msg);
		if (err == -EOPNOTSUPP && sbs[i].version &&
		    sbs[i].version <= HC_SB_VERSION &&
		    (sbs[i].feature_incompat & ~HC_FEATURE_INCOMPAT_SUPP))
			pr_err("%s: incompatible feature bits %#llx are unknown to this module (it knows %#llx): refused\n",
			       req->paths[i],
			       sbs[i].feature_incompat & ~HC_FEATURE_INCOMPAT_SUPP,
			       HC_FEATURE_INCOMPAT_SUPP);
		if (err) {
			pr_err("%s: %s (%d)\n", req->paths[i], msg, err);
			hc_pool_fail_set(fail, i, msg);
			goto out_close;
		}
		given[i].sb = sbs[i];
	}

	/*
	 * Members may differ in the v2 bit only, where an upgrade stopped
	 * between two superblocks: the pool is v2 (compared as such here; the
	 * members keep what is on disk until hc_pool_upgrade_run() below).
	 */
	err = hc_upgrade_sb_mask(sbs, req->n, &sb_v2, &msg);
	if (err) {
		pr_err("pool %pUb: %s (%d)\n", sbs[0].pool_uuid, msg, err);
		hc_pool_fail_set(fail, -1, msg);
		goto out_close;
	}
	for (i = 0; sb_v2 && i < req->n; i++)
		sbs[i].feature_incompat |= HC_FEATURE_INCOMPAT_V2;
	err = hc_sb_check_set(sbs, req->n, order, &v);
	if (err) {
		if (v.pos >= 0)
			pr_err("%s: %s (%d)\n", req->paths[v.pos],
			       v.msg, err);
		else
			pr_err("pool %pUb: %s: index %u (%d)\n",
			       sbs[0].pool_uuid, v.msg, v.index, err);
		hc_pool_fail_set(fail, v.pos, v.msg);
		goto out_close;
	}

	for (i = 0; i < req->n; i++) {
		const struct hc_sb *sb = &sbs[i];

		if (bdev_nr_bytes(given[i].dev.bdev) <
		    sb->data_offset + sb->member_chunks * sb->chunk_size) {
			pr_err("%s: smaller than its superblock says\n",
			       req->paths[i]);
			hc_pool_fail_set(fail, i, "member smaller than its superblock says");
			err = -EUCLEAN;
			goto out_close;
		}
	}

	err = hc_pool_start(pool, given, order, req->n, false,
			    req->flags, fail);
	if (err) {
		pr_err("pool %pUb: %s (%d)\n", sbs[0].pool_uuid,
		       fail->msg, err);
		goto out_close;
	}
	if (sb_v2 && hc_pool_sb_v2(pool) != hc_pool_sb_v2_all(pool)) {
		struct hc_pool_fail f;

		pr_notice("pool %pUb: an upgrade to format v2 was interrupted: finishing it\n",
			  pool->uuid);
		if (hc_pool_upgrade_run(pool, true, &f))
			pr_warn("pool %pUb: cannot finish the upgrade (%s); the pool runs as v2, the next assembly tries again\n",
				pool->uuid, f.msg);
	}
	kfree(given);
	kfree(sbs);
	kfree(block);
	hc_pool_announce(pool, "assembled");
	hc_nl_notify(pool, HC_POOL_STATE_RUNNING);
	mutex_unlock(&hc_pool_mutex);
	return 0;

out_close:
	hc_pool_close_given(given, req->n, pool);
out_unlock:
	mutex_unlock(&hc_pool_mutex);
out_free:
	kfree(pool);
	kfree(sbs);
	kfree(block);
	return err;
}

/**
 * hc_pool_stop - stop the running pool
 * @force: stop even while /dev/hypercacheN is open (module unload: the
 *	module cannot be unloaded while it is open, so this only matters for
 *	openers racing with the unload); its I/O then fails
 * @fail: filled on failure
 *
 * Waits for the changes that dropped the pool lock for their journal I/O
 * (hc_cache_quiesce()) and for every bio in flight on the members, then
 * closes them.
 *
 * Return: 0; -ENODEV if no pool runs; -EBUSY if the device is open, an
 * open control file holds or stages objects, or the pool is mounted (even
 * with @force: the module cannot be unloaded while it is mounted).
 */
int hc_pool_stop(bool force, struct hc_pool_fail *fail)
{
	struct hc_pool *pool;
	u32 i;

	hc_pool_fail_set(fail, -1, NULL);
	mutex_lock(&hc_pool_mutex);
again:
	pool = hc_pool_cur;
	if (!pool) {
		mutex_unlock(&hc_pool_mutex);
		hc_pool_fail_set(fail, -1, "no pool is running");
		return -ENODEV;
	}
	/* a change that dropped the lock for its journal I/O ends first */
	if (hc_cache_quiesce(pool->cache))
		goto again;
	if (pool->fs_sb) {
		mutex_unlock(&hc_pool_mutex);
		hc_pool_fail_set(fail, -1, "the pool is mounted (umount it first)");
		return -EBUSY;
	}
	if (!force && hc_cache_busy(pool->cache)) {
		mutex_unlock(&hc_pool_mutex);
		hc_pool_fail_set(fail, -1, "objects are held or staged by open files");
		return -EBUSY;
	}
	/* The last check: from here on the disk refuses every open. */
	if (hc_disk_claim(pool, force)) {
		mutex_unlock(&hc_pool_mutex);
		hc_pool_fail_set(fail, -1, "the pool's block device is open");
		return -EBUSY;
	}

	RCU_INIT_POINTER(hc_pool_rcu, NULL);
	synchronize_rcu();	/* no lockless reader sees the pool any more */
	hc_pool_teardown(pool, HC_POOL_UP_DISK);
	hc_pool_cur = NULL;
	hc_nl_notify(pool, HC_POOL_STATE_STOPPED);
	pr_info("stopped pool %pUb\n", pool->uuid);
	for (i = pool->nr_members; i--; )
		hc_member_close(&pool->members[i], pool);
	mutex_unlock(&hc_pool_mutex);
	kfree(pool);
	return 0;
}

/*
 * Test hook (tests/vm/guest/stage-upgrade.sh): an upgrade stops after this
 * many writes (superblocks, then the journal's compaction) with -ECANCELED,
 * leaving the members exactly as a power cut between two writes would; 0:
 * never.
 */
static unsigned int hc_upgrade_stop_after;
module_param_named(upgrade_stop_after, hc_upgrade_stop_after, uint, 0644);
MODULE_PARM_DESC(upgrade_stop_after,
		 "test hook: stop a pool upgrade after this many writes (0: never)");

/*
 * Test hook (tests/vm/guest/stage-compat.sh): after this many writes an
 * upgrade logs "upgrade paused after K writes" and waits, the pool lock
 * held, while the parameter still says K (or until a signal), so that the
 * host can cut the power (kill QEMU) right after a given durable write;
 * 0: never.
 */
static unsigned int hc_upgrade_pause_after;
module_param_named(upgrade_pause_after, hc_upgrade_pause_after, uint, 0644);
MODULE_PARM_DESC(upgrade_pause_after,
		 "test hook: pause a pool upgrade after this many writes, until the parameter changes (0: never)");

/* The upgrade_pause_after hook: wait while it says @writes. */
static void hc_pool_upgrade_pause(const struct hc_pool *pool,
				  unsigned int writes)
{
	pr_warn("pool %pUb: upgrade paused after %u writes (upgrade_pause_after)\n",
		pool->uuid, writes);
	while (READ_ONCE(hc_upgrade_pause_after) == writes &&
	       !signal_pending(current))
		msleep_interruptible(100);
}

/* The superblocks of @pool's members that carry HC_FEATURE_INCOMPAT_V2. */
static u64 hc_pool_sb_v2(const struct hc_pool *pool)
{
	u64 mask = 0;
	u32 i;

	for (i = 0; i < pool->nr_members; i++)
		if (pool->members[i].sb.feature_incompat & HC_FEATURE_INCOMPAT_V2)
			mask |= BIT_ULL(i);
	return mask;
}

/*
 * Write member @m's superblock with HC_FEATURE_INCOMPAT_V2 (durable on
 * return) and make the pool v2 from then on: its next compaction writes a
 * v2 half.  @block: HC_SB_SIZE bytes of scratch.
 */
static int hc_pool_upgrade_sb(struct hc_pool *pool, u32 m, void *block)
{
	struct hc_member *member = &pool->members[m];
	int err;

	hc_upgrade_sb(&member->sb, block);
	err = hc_member_write_sb(member, block);
	if (err) {
		pr_err("pool %pUb: member %pg: superblock write of the upgrade failed (%d); the next assembly finishes the upgrade\n",
		       pool->uuid, member->dev.bdev, err);
		return err;
	}
	member->sb.feature_incompat |= HC_FEATURE_INCOMPAT_V2;
	pool->format = 2;
	if (pool->journal->version != HC_JOURNAL_VERSION_V2) {
		pool->journal->version = HC_JOURNAL_VERSION_V2;
		/* the next compaction writes v2 records: charge those */
		hc_cache_journal_recharge(pool->cache);
	}
	return 0;
}

/*
 * Whether every object's v2 record fits a half (hc_cache_journal_fits()),
 * before the upgrade writes anything.  Return: 0 or -ENOSPC (logged with
 * the bytes, @fail set).
 */
static int hc_pool_upgrade_room(struct hc_pool *pool,
				struct hc_pool_fail *fail)
{
	u64 need, room;

	if (!hc_cache_journal_fits(pool->cache, HC_JOURNAL_VERSION_V2, &need,
				   &room))
		return 0;
	pr_err("pool %pUb: upgrade refused: the objects' format-v2 journal records take %llu bytes, a half holds %llu; evict at least %llu bytes of records (objects with long URIs first)\n",
	       pool->uuid, need, room, need - room);
	hc_pool_fail_set(fail, -1,
			 "no journal room for every object's v2 record; evict some (see dmesg)");
	return -ENOSPC;
}

/*
 * Run the upgrade's steps (kmod/core/upgrade.c) on the running @pool from
 * where its members are, to the end.  @any: an assembly finishing an
 * interrupted upgrade (nothing to do is fine; no busy check, no test
 * hooks).  Return: 0; -EALREADY (nothing to do and @any not set); -EBUSY;
 * -ENOSPC (the objects' v2 records would not fit a half: nothing written);
 * -ECANCELED (upgrade_stop_after; not -EINTR, for which netlink sends no ack);
 * an I/O error.
 */
static int hc_pool_upgrade_run(struct hc_pool *pool, bool any,
			       struct hc_pool_fail *fail)
{
	struct hc_upgrade_state st = { .nr = pool->nr_members };
	const struct hc_cache_stats *cs = &pool->cache->stats;
	struct hc_upgrade_step step;
	unsigned int writes = 0, stop = any ? 0 : READ_ONCE(hc_upgrade_stop_after);
	unsigned int pause = any ? 0 : READ_ONCE(hc_upgrade_pause_after);
	const char *msg;
	void *block;
	int err;

	/* an assembly charged v2 records already and found room for them */
	if (!any && pool->journal->version != HC_JOURNAL_VERSION_V2) {
		err = hc_pool_upgrade_room(pool, fail);
		if (err)
			return err;
	}
	block = kmalloc(HC_SB_SIZE, GFP_KERNEL);
	if (!block)
		return -ENOMEM;
	st.sb_v2 = hc_pool_sb_v2(pool);
	/* finishing at assembly: the journal is v2 already, nothing races */
	st.busy = !any && (cs->by_state[HC_OBJ_INGESTING] ||
			   cs->by_state[HC_OBJ_STAGED] ||
			   cs->by_state[HC_OBJ_SYNCING] ||
			   pool->cache->nr_busy);
	for (;;) {
		st.journal_version = pool->journal->hdr.version;
		err = hc_upgrade_next(&st, &step, &msg);
		if (err) {
			hc_pool_fail_set(fail, -1, msg);
			break;
		}
		if (step.op == HC_UPGRADE_DONE) {
			if (!writes && !any) {
				hc_pool_fail_set(fail, -1, "the pool is already format v2");
				err = -EALREADY;
			}
			break;
		}
		if (step.op == HC_UPGRADE_SB) {
			err = hc_pool_upgrade_sb(pool, step.member, block);
			if (!err)
				st.sb_v2 |= BIT_ULL(step.member);
		} else {
			err = hc_journal_compact(pool->journal);
		}
		if (err) {
			hc_pool_fail_set(fail, -1, step.op == HC_UPGRADE_SB ?
					 "a superblock write failed (see dmesg)" :
					 "the journal's compaction failed (see dmesg)");
			break;
		}
		if (++writes == pause)
			hc_pool_upgrade_pause(pool, writes);
		if (writes == stop) {
			pr_warn("pool %pUb: upgrade stopped after %u writes (upgrade_stop_after)\n",
				pool->uuid, writes);
			hc_pool_fail_set(fail, -1, "stopped by the upgrade_stop_after test hook");
			err = -ECANCELED;
			break;
		}
	}
	kfree(block);
	return err;
}

/**
 * hc_pool_upgrade - upgrade the running pool from format v1 to v2 in place
 * @fail: filled on failure
 *
 * Documentation/on-disk-format.md, "Upgrading a v1 pool": the superblocks,
 * member by member (each durable before the next), then the journal's
 * compaction into a v2 half.  One way.  A power cut at any point leaves a
 * pool that assembles as v1 (before the first superblock) or as v2 with
 * every object; assembly finishes an interrupted upgrade.  Refused while
 * objects are being ingested, staged or uploaded: the pool lock is held
 * throughout, so none starts meanwhile.
 *
 * Return: 0; -ENODEV (no pool runs); -EALREADY (it is format v2); -EBUSY;
 * -ENOSPC (the journal cannot hold every object's v2 record, which is
 * larger than its v1 one: nothing written); -ENOMEM; an I/O error (the next
 * assembly finishes the upgrade).
 */
int hc_pool_upgrade(struct hc_pool_fail *fail)
{
	struct hc_pool *pool;
	int err;

	hc_pool_fail_set(fail, -1, NULL);
	mutex_lock(&hc_pool_mutex);
	pool = hc_pool_cur;
	if (!pool) {
		mutex_unlock(&hc_pool_mutex);
		hc_pool_fail_set(fail, -1, "no pool is running");
		return -ENODEV;
	}
	err = hc_pool_upgrade_run(pool, false, fail);
	if (!err)
		pr_info("pool %pUb: upgraded to format v2\n", pool->uuid);
	mutex_unlock(&hc_pool_mutex);
	return err;
}
