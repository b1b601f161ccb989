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
 * Every bio in flight on a member holds pool->io_ref, so stopping the pool
 * can wait for all of them after the disk is deleted.
 */
#include <linux/module.h>
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/uaccess.h>
#include "hypercache.h"
#include "../uapi/hypercache.h"

static int hc_major;

/* A clone of (part of) a caller's bio, submitted to one member. */
struct hc_io {
	struct hc_pool *pool;
	struct bio *orig;
	unsigned long start;
	struct bio clone;	/* last: allocated with front_pad */
};

static void hc_disk_io_endio(struct bio *clone)
{
	struct hc_io *io = container_of(clone, struct hc_io, clone);
	struct hc_pool *pool = io->pool;
	struct bio *orig = io->orig;

	if (unlikely(clone->bi_status) && !orig->bi_status)
		orig->bi_status = clone->bi_status;
	if (io->start)
		bio_end_io_acct(orig, io->start);
	bio_put(clone);
	bio_endio(orig);
	percpu_ref_put(&pool->io_ref);
}

/* Send @bio, which lies within one chunk at @loc, to its member. */
static void hc_disk_remap(struct hc_pool *pool, struct bio *bio,
			  const struct hc_stripe_loc *loc)
{
	struct block_device *bdev = pool->members[loc->member].dev.bdev;
	struct bio *clone;
	struct hc_io *io;

	clone = bio_alloc_clone(bdev, bio, GFP_NOIO, &pool->clone_bs);
	io = container_of(clone, struct hc_io, clone);
	io->pool = pool;
	io->orig = bio;
	io->start = blk_queue_io_stat(pool->disk->queue) ?
		    bio_start_io_acct(bio) : 0;
	clone->bi_iter.bi_sector = loc->sector;
	clone->bi_end_io = hc_disk_io_endio;
	percpu_ref_get(&pool->io_ref);
	submit_bio_noacct(clone);
}

/* Split a data bio at its first chunk boundary and remap the first part. */
static void hc_disk_map(struct hc_pool *pool, struct bio *bio)
{
	struct hc_stripe_loc loc;

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
	 * being staged or ingested, so a stray writer cannot corrupt cached
	 * data.  A bio is checked chunk by chunk as it is split.
	 */
	if (op_is_write(bio_op(bio)) &&
	    !hc_cache_fence_allows(pool->cache,
				   bio->bi_iter.bi_sector >> pool->stripe.chunk_shift)) {
		bio_io_error(bio);
		return;
	}

	hc_stripe_map(&pool->stripe, bio->bi_iter.bi_sector, &loc);
	if (bio_sectors(bio) > loc.chunk_left) {
		struct bio *split = bio_split(bio, loc.chunk_left, GFP_NOIO,
					      &pool->split_bs);

		bio_chain(split, bio);
		submit_bio_noacct(bio);	/* the rest comes back through us */
		bio = split;
	}
	hc_disk_remap(pool, bio, &loc);
}

/* Queue @bio for the worker; the caller has taken a reference for it. */
static void hc_disk_queue(struct hc_pool *pool, struct bio *bio)
{
	unsigned long flags;

	spin_lock_irqsave(&pool->deferred_lock, flags);
	bio_list_add(&pool->deferred, bio);
	spin_unlock_irqrestore(&pool->deferred_lock, flags);
	queue_work(pool->wq, &pool->deferred_work);
}

/* All member flushes of a pre-flush are done: continue with the data. */
static void hc_disk_preflush_endio(struct bio *parent)
{
	struct bio *bio = parent->bi_private;
	struct hc_pool *pool = bio->bi_bdev->bd_disk->private_data;
	blk_status_t status = parent->bi_status;

	bio_put(parent);
	if (status || !bio_sectors(bio)) {
		bio->bi_status = status;
		bio_endio(bio);
		percpu_ref_put(&pool->io_ref);
		return;
	}
	bio->bi_opf &= ~REQ_PREFLUSH;
	hc_disk_queue(pool, bio);	/* keeps its reference */
}

/*
 * Flush every member, then continue @bio from hc_disk_preflush_endio().
 * Runs in the worker, so the member flushes are dispatched at once rather
 * than parked on current->bio_list.
 */
static void hc_disk_preflush(struct hc_pool *pool, struct bio *bio)
{
	struct bio *parent;
	u32 i;

	parent = bio_alloc_bioset(NULL, 0, REQ_OP_WRITE, GFP_NOIO,
				  &pool->flush_bs);
	parent->bi_end_io = hc_disk_preflush_endio;
	parent->bi_private = bio;
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

	while ((bio = bio_list_pop(&bios))) {
		if (bio->bi_opf & REQ_PREFLUSH) {
			hc_disk_preflush(pool, bio);
		} else {
			hc_disk_map(pool, bio);
			percpu_ref_put(&pool->io_ref);
		}
	}
}

static void hc_disk_submit_bio(struct bio *bio)
{
	struct hc_pool *pool = bio->bi_bdev->bd_disk->private_data;

	if (unlikely(bio->bi_opf & REQ_PREFLUSH)) {
		percpu_ref_get(&pool->io_ref);
		hc_disk_queue(pool, bio);
		return;
	}
	hc_disk_map(pool, bio);
}

/* HC_IOC_GEOMETRY; see uapi/hypercache.h for the size and errno rules. */
static int hc_disk_ioctl_geometry(struct hc_pool *pool,
				  struct hc_geometry __user *ugeo)
{
	struct hc_geometry geo;
	u32 usize;
	int err;

	if (get_user(usize, &ugeo->size))
		return -EFAULT;
	if (usize < offsetofend(struct hc_geometry, reserved))
		return -EINVAL;
	err = copy_struct_from_user(&geo, sizeof(geo), ugeo, usize);
	if (err)
		return err;
	if (geo.flags || geo.reserved[0] || geo.reserved[1])
		return -EINVAL;

	geo.size = sizeof(geo);
	geo.chunk_size = pool->chunk_size;
	geo.member_count = pool->nr_members;
	geo.chunks = hc_stripe_chunks(&pool->stripe);
	geo.capacity = hc_stripe_sectors(&pool->stripe) << SECTOR_SHIFT;
	memcpy(geo.pool_uuid, pool->uuid, sizeof(geo.pool_uuid));
	if (copy_to_user(ugeo, &geo, min_t(size_t, usize, sizeof(geo))))
		return -EFAULT;
	return 0;
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

static const struct block_device_operations hc_disk_fops = {
	.owner		= THIS_MODULE,
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
	err = bioset_init(&pool->flush_bs, BIO_POOL_SIZE, 0, 0);
	if (err)
		goto out_split;
	init_completion(&pool->io_done);
	err = percpu_ref_init(&pool->io_ref, hc_disk_io_release, 0,
			      GFP_KERNEL);
	if (err)
		goto out_flush;
	spin_lock_init(&pool->deferred_lock);
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
		err = PTR_ERR(disk);
		goto out_io;
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
	if (err)
		goto out_put;
	for (i = 0; i < pool->nr_members; i++) {
		err = bd_link_disk_holder(pool->members[i].dev.bdev, disk);
		if (err)
			goto out_unlink;
	}
	strscpy(pool->name, disk->disk_name, sizeof(pool->name));
	pool->devt = disk_devt(disk);
	return 0;

out_unlink:
	while (i--)
		bd_unlink_disk_holder(pool->members[i].dev.bdev, disk);
	del_gendisk(disk);
out_put:
	/* Someone may have read the disk already: drain as hc_disk_stop(). */
	percpu_ref_kill(&pool->io_ref);
	wait_for_completion(&pool->io_done);
	flush_workqueue(pool->wq);
	put_disk(disk);
	pool->disk = NULL;
out_io:
	hc_disk_exit_io(pool);
	return err;
}

/**
 * hc_disk_stop - delete /dev/hypercache0 and wait for its I/O to drain
 * @pool: the pool
 *
 * New I/O fails once this starts; on return no bio of the pool is in flight
 * on any member.  May sleep.
 */
void hc_disk_stop(struct hc_pool *pool)
{
	u32 i;

	for (i = pool->nr_members; i--; )
		bd_unlink_disk_holder(pool->members[i].dev.bdev, pool->disk);
	del_gendisk(pool->disk);
	percpu_ref_kill(&pool->io_ref);
	wait_for_completion(&pool->io_done);
	flush_workqueue(pool->wq);
	put_disk(pool->disk);
	pool->disk = NULL;
	hc_disk_exit_io(pool);
}

/* Whether /dev/hypercache0 is open (a racy snapshot, good for -EBUSY). */
bool hc_disk_busy(struct hc_pool *pool)
{
	return disk_openers(pool->disk) > 0;
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
