// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/hypercacheN: a bio-based disk that stripes the pool's chunks over its
 * members.
 *
 * Data bios are split at chunk boundaries and remapped to one member each
 * through a clone that shares the caller's pages (no copy).  A bio with
 * REQ_PREFLUSH first flushes every member and only then goes on, without the
 * flag, to the member its data maps to: when it completes, everything that
 * completed before it was submitted is durable on all members, as the flag
 * promises.  REQ_FUA stays on the remapped bio.  Discard and write-zeroes
 * pass through when every member supports them.
 *
 * Writes pass the write fence (cache.c) piece by piece, always in the
 * context of the task that submitted them (the pre-flush of a write is
 * waited for by its already fenced clone, not by the original bio), so the
 * fence can tell the writer; each admitted piece counts in its fence until
 * it completes on the member.  A write lost in a stage's chunks is counted
 * in the stage's fence for its COMMIT to report: one that fails on its
 * member, and a refused write-back of the device's page cache (the pages
 * are gone; a refused direct write's submitter gets EIO itself).
 *
 * A read that fails on its member marks its chunk (hc_cache_read_error())
 * before the caller sees the error, so the object is reported bad.
 *
 * Every bio in flight on a member holds pool->io_ref, so stopping the pool
 * can wait for all of them after the disk is deleted.  Opens are counted
 * under pool->open_lock, so that a stop that found the disk closed refuses
 * every later open (hc_disk_claim()).
 */
#include <linux/module.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/uaccess.h>
#include "hypercache.h"
#include "trace.h"
#include "../uapi/hypercache.h"

static int hc_major;

/* A clone of (part of) a caller's bio, submitted to one member. */
struct hc_io {
	struct hc_pool *pool;
	struct bio *orig;
	struct hc_fence *fence;	/* a write the fence admitted, or NULL */
	u64 chunk;		/* the pool chunk it lies in */
	unsigned long start;
	u64 t0;			/* ktime_get_ns() at submission */
	u32 bytes;		/* the clone's size (its iter is consumed) */
	u32 member;
	u64 sector;		/* on the member */
	struct bio clone;	/* last: allocated with front_pad */
};

/*
 * A pre-flush: every member's flush is chained to @parent; when they are
 * done, @bio goes on (a fenced clone) or ends (an empty flush).
 */
struct hc_flush {
	struct hc_pool *pool;
	struct bio *bio;
	bool data;
	struct bio parent;	/* last: allocated with front_pad */
};

static void hc_disk_preflush(struct hc_pool *pool, struct bio *bio,
			     bool data);

static void hc_disk_io_endio(struct bio *clone)
{
	struct hc_io *io = container_of(clone, struct hc_io, clone);
	struct hc_pool *pool = io->pool;
	struct bio *orig = io->orig;
	u64 ns;

	if (io->fence) {
		/* counted before the put, so that a COMMIT's drain sees it */
		if (unlikely(clone->bi_status))
			hc_cache_fence_failed(io->fence);
		hc_cache_fence_put(io->fence);
	}
	ns = ktime_get_ns() - io->t0;
	hc_stats_member_io(&pool->members[io->member], bio_op(clone),
			   io->bytes, clone->bi_status, ns);
	trace_hc_member_io(io->member, bio_op(clone), io->bytes, ns,
			   blk_status_to_errno(clone->bi_status));
	if (unlikely(clone->bi_status))
		trace_hc_member_error(io->member, bio_op(clone), io->sector,
				      blk_status_to_errno(clone->bi_status));
	/* before the reader sees the error: its next LOCATE says BAD */
	if (unlikely(clone->bi_status) && bio_op(clone) == REQ_OP_READ)
		hc_cache_read_error(pool->cache, io->chunk);
	if (unlikely(clone->bi_status) && !orig->bi_status)
		orig->bi_status = clone->bi_status;
	if (io->start)
		bio_end_io_acct(orig, io->start);
	bio_put(clone);
	bio_endio(orig);
	percpu_ref_put(&pool->io_ref);
}

/*
 * Send @bio, which lies within one chunk at @loc, to its member; @fence
 * (or NULL) admitted it and is put when the clone completes.  A clone
 * with REQ_PREFLUSH waits for the member flushes first.
 */
static void hc_disk_remap(struct hc_pool *pool, struct bio *bio,
			  const struct hc_stripe_loc *loc,
			  struct hc_fence *fence)
{
	struct block_device *bdev = pool->members[loc->member].dev.bdev;
	struct bio *clone;
	struct hc_io *io;

	clone = bio_alloc_clone(bdev, bio, GFP_NOIO, &pool->clone_bs);
	io = container_of(clone, struct hc_io, clone);
	io->pool = pool;
	io->orig = bio;
	io->fence = fence;
	io->chunk = bio->bi_iter.bi_sector >> pool->stripe.chunk_shift;
	io->start = blk_queue_io_stat(pool->disk->queue) ?
		    bio_start_io_acct(bio) : 0;
	clone->bi_iter.bi_sector = loc->sector;
	clone->bi_end_io = hc_disk_io_endio;
	io->member = loc->member;
	io->sector = loc->sector;
	io->bytes = clone->bi_iter.bi_size;
	io->t0 = ktime_get_ns();
	percpu_ref_get(&pool->io_ref);
	if (unlikely(clone->bi_opf & REQ_PREFLUSH)) {
		hc_disk_preflush(pool, clone, true);
		return;
	}
	submit_bio_noacct(clone);
}

/*
 * Whether @bio carries pages of the device's own page cache (write-back of
 * buffered writes, by whoever): refused, they are lost without their
 * writer being told, unlike the pages of a direct write.
 */
static bool hc_disk_is_writeback(struct hc_pool *pool, struct bio *bio)
{
	return bio_has_data(bio) && page_folio(bio_page(bio))->mapping ==
				    hc_bdev_mapping(pool->disk->part0);
}

/*
 * Split a data bio at its first chunk boundary and remap the first part.
 * Runs in the submitter's context (the fence checks the writer).
 */
static void hc_disk_map(struct hc_pool *pool, struct bio *bio)
{
	struct hc_fence *fence = NULL;
	struct hc_stripe_loc loc;
	u32 limit;

	bio = bio_split_to_limits(bio);
	if (!bio)
		return;

	switch (bio_op(bio)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
	case REQ_OP_DISCARD:
	case REQ_OP_WRITE_ZEROES:
		break;
	default:
		bio->bi_status = BLK_STS_NOTSUPP;
		bio_endio(bio);
		return;
	}
	if (unlikely(!bio_sectors(bio))) {
		bio_endio(bio);
		return;
	}

	/*
	 * The write fence: data may only be written into chunks of objects
	 * being staged or ingested, by their stager or helper, so a stray
	 * writer cannot corrupt cached data.  A bio is checked chunk by
	 * chunk as it is split, and inside a slab chunk small object by small
	 * object (a write-back may merge the pages of two).
	 */
	hc_stripe_map(&pool->stripe, bio->bi_iter.bi_sector, &loc);
	limit = loc.chunk_left;
	if (op_is_write(bio_op(bio))) {
		sector_t sector = bio->bi_iter.bi_sector;
		u64 chunk = sector >> pool->stripe.chunk_shift;
		u32 off = (sector & ((1U << pool->stripe.chunk_shift) - 1)) <<
			  SECTOR_SHIFT;
		u32 left, len = min(bio_sectors(bio), loc.chunk_left) <<
				SECTOR_SHIFT;

		fence = hc_cache_fence_get(pool->cache, chunk, off, &left);
		if (!fence) {
			/* a stage's pages lost: its COMMIT must know */
			if (hc_disk_is_writeback(pool, bio))
				hc_cache_fence_refused(pool->cache, chunk, off,
						       len);
			bio_io_error(bio);
			return;
		}
		limit = min_t(u32, limit, left >> SECTOR_SHIFT);
	}

	if (bio_sectors(bio) > limit) {
		struct bio *split = bio_split(bio, limit, GFP_NOIO,
					      &pool->split_bs);

		bio_chain(split, bio);
		submit_bio_noacct(bio);	/* the rest comes back through us */
		bio = split;
	}
	hc_disk_remap(pool, bio, &loc, fence);
}

/* Queue a clone whose pre-flush is done, for the worker to submit. */
static void hc_disk_queue(struct hc_pool *pool, struct bio *clone)
{
	unsigned long flags;

	spin_lock_irqsave(&pool->deferred_lock, flags);
	bio_list_add(&pool->deferred, clone);
	spin_unlock_irqrestore(&pool->deferred_lock, flags);
	queue_work(pool->wq, &pool->deferred_work);
}

/* All member flushes of a pre-flush are done: continue or end the bio. */
static void hc_disk_preflush_endio(struct bio *parent)
{
	struct hc_flush *fl = container_of(parent, struct hc_flush, parent);
	struct hc_pool *pool = fl->pool;
	struct bio *bio = fl->bio;
	blk_status_t status = parent->bi_status;
	bool data = fl->data;

	bio_put(parent);
	if (status || !data) {
		/* a clone ends through hc_disk_io_endio(): its own put */
		bio->bi_status = status;
		bio_endio(bio);
		if (!data)
			percpu_ref_put(&pool->io_ref);
		return;
	}
	bio->bi_opf &= ~REQ_PREFLUSH;
	hc_disk_queue(pool, bio);	/* not from here: may be irq context */
}

/*
 * Flush every member, then continue @bio from hc_disk_preflush_endio():
 * submit it (@data: a fenced clone for one member) or end it (an empty
 * flush).  The member flushes are only submitted here, never waited for,
 * so this may run in the submitter's context.
 */
static void hc_disk_preflush(struct hc_pool *pool, struct bio *bio,
			     bool data)
{
	struct hc_flush *fl;
	struct bio *parent;
	u32 i;

	parent = bio_alloc_bioset(NULL, 0, REQ_OP_WRITE, GFP_NOIO,
				  &pool->flush_bs);
	fl = container_of(parent, struct hc_flush, parent);
	fl->pool = pool;
	fl->bio = bio;
	fl->data = data;
	parent->bi_end_io = hc_disk_preflush_endio;
	for (i = 0; i < pool->nr_members; i++) {
		struct bio *flush;

		flush = bio_alloc_bioset(pool->members[i].dev.bdev, 0,
					 REQ_OP_WRITE | REQ_PREFLUSH | REQ_SYNC,
					 GFP_NOIO, &pool->flush_bs);
		bio_chain(flush, parent);
		submit_bio_noacct(flush);
	}
	bio_endio(parent);	/* drops the initial count */
}

/* Submit the clones whose pre-flush is done (process context). */
static void hc_disk_deferred_work(struct work_struct *work)
{
	struct hc_pool *pool = container_of(work, struct hc_pool,
					    deferred_work);
	struct bio_list bios;
	struct bio *bio;

	spin_lock_irq(&pool->deferred_lock);
	bios = pool->deferred;
	bio_list_init(&pool->deferred);
	spin_unlock_irq(&pool->deferred_lock);

	while ((bio = bio_list_pop(&bios)))
		submit_bio_noacct(bio);
}

static void hc_disk_submit_bio(struct bio *bio)
{
	struct hc_pool *pool = bio->bi_bdev->bd_disk->private_data;

	if (unlikely(bio->bi_opf & REQ_PREFLUSH) && !bio_sectors(bio)) {
		percpu_ref_get(&pool->io_ref);
		hc_disk_preflush(pool, bio, false);
		return;
	}
	hc_disk_map(pool, bio);
}

/* HC_IOC_GEOMETRY; see uapi/hypercache.h for the size and errno rules. */
static int hc_disk_ioctl_geometry(struct hc_pool *pool,
				  struct hc_geometry __user *ugeo)
{
	struct hc_geometry geo;
	long usize;

	BUILD_BUG_ON(sizeof(geo) < HC_GEOMETRY_SIZE_VER1);
	usize = hc_copy_struct_in(&geo, sizeof(geo), HC_GEOMETRY_SIZE_VER1,
				  ugeo);
	if (usize < 0)
		return usize;
	if (geo.flags)
		return -EOPNOTSUPP;
	if (geo.reserved[0] || geo.reserved[1])
		return -EINVAL;

	geo.size = sizeof(geo);
	geo.chunk_size = pool->chunk_size;
	geo.member_count = pool->nr_members;
	geo.chunks = hc_stripe_chunks(&pool->stripe);
	geo.capacity = hc_stripe_sectors(&pool->stripe) << SECTOR_SHIFT;
	memcpy(geo.pool_uuid, pool->uuid, sizeof(geo.pool_uuid));
	return hc_copy_struct_out(ugeo, &geo, sizeof(geo), usize);
}

static int hc_disk_ioctl(struct block_device *bdev, hc_blk_mode_t mode,
			 unsigned int cmd, unsigned long arg)
{
	struct hc_pool *pool = bdev->bd_disk->private_data;

	switch (cmd) {
	case HC_IOC_GEOMETRY:
		return hc_disk_ioctl_geometry(pool, (void __user *)arg);
	default:
		return -ENOTTY;
	}
}

/*
 * Opens are counted, and refused once a stop has claimed the disk, so that
 * no file of the disk outlives the pool (its ioctls read the pool).
 * Called with the disk's open_mutex held, which a stop's del_gendisk()
 * takes too: hence a spinlock of our own, not the pool lock.
 */
int hc_disk_open_disk(struct gendisk *disk)
{
	struct hc_pool *pool = disk->private_data;
	int err = 0;

	spin_lock(&pool->open_lock);
	if (pool->closing)
		err = -ENODEV;
	else
		pool->openers++;
	spin_unlock(&pool->open_lock);
	return err;
}

void hc_disk_release_disk(struct gendisk *disk)
{
	struct hc_pool *pool = disk->private_data;

	spin_lock(&pool->open_lock);
	pool->openers--;
	spin_unlock(&pool->open_lock);
}

static const struct block_device_operations hc_disk_fops = {
	.owner		= THIS_MODULE,
	.open		= hc_disk_open,
	.release	= hc_disk_release,
	.submit_bio	= hc_disk_submit_bio,
	.ioctl		= hc_disk_ioctl,
	.compat_ioctl	= blkdev_compat_ptr_ioctl,
};

/*
 * The queue limits: the members' strictest, with the stripe's hints.  The
 * transfer and segment limits are the members' own, so that a piece split
 * off here is one request on its member, not split again there.
 */
static void hc_disk_limits(struct hc_pool *pool, struct hc_limits *lim)
{
	unsigned int chunk_sectors = pool->chunk_size >> SECTOR_SHIFT;
	bool discard = true;
	u32 i;

	*lim = (struct hc_limits) {
		.logical_block_size	= SECTOR_SIZE,
		.physical_block_size	= SECTOR_SIZE,
		.io_min			= pool->chunk_size,
		.io_opt			= pool->chunk_size * pool->nr_members,
		.chunk_sectors		= chunk_sectors,
		.max_hw_sectors		= chunk_sectors,
		.max_segments		= USHRT_MAX,
		.max_segment_size	= UINT_MAX,
		.discard_granularity	= SECTOR_SIZE,
		.max_write_zeroes_sectors = chunk_sectors,
	};
	for (i = 0; i < pool->nr_members; i++) {
		struct block_device *bdev = pool->members[i].dev.bdev;
		struct request_queue *q = bdev_get_queue(bdev);

		lim->max_hw_sectors = min(lim->max_hw_sectors,
					  queue_max_hw_sectors(q));
		lim->max_segments = min(lim->max_segments,
					queue_max_segments(q));
		lim->max_segment_size = min(lim->max_segment_size,
					    queue_max_segment_size(q));
		lim->logical_block_size = max(lim->logical_block_size,
					      bdev_logical_block_size(bdev));
		lim->physical_block_size = max(lim->physical_block_size,
					       bdev_physical_block_size(bdev));
		if (!bdev_max_discard_sectors(bdev))
			discard = false;
		lim->discard_granularity = max(lim->discard_granularity,
					       bdev_discard_granularity(bdev));
		lim->max_write_zeroes_sectors =
			min(lim->max_write_zeroes_sectors,
			    bdev_write_zeroes_sectors(bdev));
	}
	lim->physical_block_size = max(lim->physical_block_size,
				       lim->logical_block_size);
	lim->discard_granularity = max(lim->discard_granularity,
				       lim->logical_block_size);
	lim->max_discard_sectors = discard ? chunk_sectors : 0;
}

static void hc_disk_io_release(struct percpu_ref *ref)
{
	struct hc_pool *pool = container_of(ref, struct hc_pool, io_ref);

	complete(&pool->io_done);
}

/* Undo the I/O machinery set up by hc_disk_start(). */
static void hc_disk_exit_io(struct hc_pool *pool)
{
	destroy_workqueue(pool->wq);
	percpu_ref_exit(&pool->io_ref);
	bioset_exit(&pool->flush_bs);
	bioset_exit(&pool->split_bs);
	bioset_exit(&pool->clone_bs);
}

static int hc_disk_init_io(struct hc_pool *pool)
{
	int err;

	err = bioset_init(&pool->clone_bs, BIO_POOL_SIZE,
			  offsetof(struct hc_io, clone), 0);
	if (err)
		return err;
	err = bioset_init(&pool->split_bs, BIO_POOL_SIZE, 0, 0);
	if (err)
		goto out_clone;
	/*
	 * A pre-flush allocates a parent and one flush per member in the
	 * submitter's context, where the bios allocated before wait on
	 * current->bio_list: a rescuer submits them if the pool runs dry.
	 */
	err = bioset_init(&pool->flush_bs, BIO_POOL_SIZE,
			  offsetof(struct hc_flush, parent),
			  BIOSET_NEED_RESCUER);
	if (err)
		goto out_split;
	init_completion(&pool->io_done);
	err = percpu_ref_init(&pool->io_ref, hc_disk_io_release, 0,
			      GFP_KERNEL);
	if (err)
		goto out_flush;
	spin_lock_init(&pool->deferred_lock);
	spin_lock_init(&pool->open_lock);
	bio_list_init(&pool->deferred);
	INIT_WORK(&pool->deferred_work, hc_disk_deferred_work);
	pool->wq = alloc_workqueue("hypercache", WQ_MEM_RECLAIM, 0);
	if (!pool->wq) {
		err = -ENOMEM;
		goto out_ref;
	}
	return 0;

out_ref:
	percpu_ref_exit(&pool->io_ref);
out_flush:
	bioset_exit(&pool->flush_bs);
out_split:
	bioset_exit(&pool->split_bs);
out_clone:
	bioset_exit(&pool->clone_bs);
	return err;
}

/* Wait until no bio of the pool is in flight on a member or queued. */
static void hc_disk_drain(struct hc_pool *pool)
{
	percpu_ref_kill(&pool->io_ref);
	wait_for_completion(&pool->io_done);
	flush_workqueue(pool->wq);
}

/*
 * Undo hc_disk_start(), in reverse, from where it got: @linked members hold
 * the disk, which was @added.  Someone may have used the disk already (even
 * when add_disk() failed half way): drain before it is put.  May sleep.
 */
static void hc_disk_unwind(struct hc_pool *pool, u32 linked, bool added)
{
	while (linked--)
		bd_unlink_disk_holder(pool->members[linked].dev.bdev,
				      pool->disk);
	if (added)
		del_gendisk(pool->disk);
	hc_disk_drain(pool);
	put_disk(pool->disk);
	pool->disk = NULL;
	hc_disk_exit_io(pool);
}

/**
 * hc_disk_start - create /dev/hypercache0 for a pool whose members are open
 * @pool: the pool; its stripe and members are set
 *
 * May sleep.  Return: 0 or a negative errno, with nothing left behind.
 */
int hc_disk_start(struct hc_pool *pool)
{
	struct hc_limits lim;
	struct gendisk *disk;
	u32 i;
	int err;

	err = hc_disk_init_io(pool);
	if (err)
		return err;

	hc_disk_limits(pool, &lim);
	disk = hc_alloc_disk(&lim, NUMA_NO_NODE);
	if (IS_ERR(disk)) {
		hc_disk_exit_io(pool);
		return PTR_ERR(disk);
	}
	disk->major = hc_major;
	disk->first_minor = 0;
	disk->minors = 1;
	disk->flags |= GENHD_FL_NO_PART;
	disk->fops = &hc_disk_fops;
	disk->private_data = pool;
	snprintf(disk->disk_name, DISK_NAME_LEN, "hypercache%d", 0);
	set_capacity(disk, hc_stripe_sectors(&pool->stripe));
	pool->disk = disk;

	err = add_disk(disk);
	if (err) {
		hc_disk_unwind(pool, 0, false);
		return err;
	}
	for (i = 0; i < pool->nr_members; i++) {
		err = bd_link_disk_holder(pool->members[i].dev.bdev, disk);
		if (err) {
			hc_disk_unwind(pool, i, true);
			return err;
		}
	}
	strscpy(pool->name, disk->disk_name, sizeof(pool->name));
	pool->devt = disk_devt(disk);
	return 0;
}

/**
 * hc_disk_stop - delete /dev/hypercache0 and wait for its I/O to drain
 * @pool: the pool, claimed (hc_disk_claim())
 *
 * New I/O fails once this starts; on return no bio of the pool is in flight
 * on any member.  May sleep.
 */
void hc_disk_stop(struct hc_pool *pool)
{
	hc_disk_unwind(pool, pool->nr_members, true);
}

/**
 * hc_disk_claim - a stop may go on: refuse every later open of the disk
 * @pool: the pool
 * @force: claim even while the disk is open (module unload, when no open
 *	can exist: the module is pinned while one does)
 *
 * Exact, not a snapshot: opens are counted under the same lock.  Return: 0,
 * or -EBUSY if the disk is open (nothing changed).
 */
int hc_disk_claim(struct hc_pool *pool, bool force)
{
	int err = 0;

	spin_lock(&pool->open_lock);
	if (pool->openers && !force)
		err = -EBUSY;
	else
		pool->closing = true;
	spin_unlock(&pool->open_lock);
	return err;
}

int hc_disk_register(void)
{
	hc_major = register_blkdev(0, "hypercache");
	return hc_major < 0 ? hc_major : 0;
}

void hc_disk_unregister(void)
{
	unregister_blkdev(hc_major, "hypercache");
}
