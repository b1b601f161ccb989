/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place where kernel versions differ.
 *
 * Tested: 6.1 (Debian 12) and 6.12 LTS.  The other branches follow the
 * upstream API history (6.5: blk_mode_t and holder-based blkdev_put; 6.7:
 * bdev_open_by_path; 6.9: bdev_file_open_by_path and blk_alloc_disk with
 * queue_limits; 6.11: queue feature flags) but are not built by the CI.
 * Everything else in kmod/ is written against the newest API in plain form.
 */
#ifndef HC_COMPAT_H
#define HC_COMPAT_H

#include <linux/version.h>
#include <linux/blkdev.h>
#include <linux/fs.h>
#include <linux/err.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "hypercache needs Linux 6.1 or later"
#endif

/* ---- opening a member exclusively ---------------------------------- */

/**
 * struct hc_bdev - an exclusively opened block device
 * @bdev: the block device, valid between hc_bdev_open() and hc_bdev_close()
 */
struct hc_bdev {
	struct block_device *bdev;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
	struct file *file;
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
	struct bdev_handle *handle;
#endif
};

/* May sleep.  Return: 0, or a negative errno (-EBUSY: claimed elsewhere). */
static inline int hc_bdev_open(struct hc_bdev *h, const char *path,
			       void *holder)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
	h->file = bdev_file_open_by_path(path, BLK_OPEN_READ | BLK_OPEN_WRITE,
					 holder, NULL);
	if (IS_ERR(h->file))
		return PTR_ERR(h->file);
	h->bdev = file_bdev(h->file);
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
	h->handle = bdev_open_by_path(path, BLK_OPEN_READ | BLK_OPEN_WRITE,
				      holder, NULL);
	if (IS_ERR(h->handle))
		return PTR_ERR(h->handle);
	h->bdev = h->handle->bdev;
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
	h->bdev = blkdev_get_by_path(path, BLK_OPEN_READ | BLK_OPEN_WRITE,
				     holder, NULL);
	if (IS_ERR(h->bdev))
		return PTR_ERR(h->bdev);
#else
	h->bdev = blkdev_get_by_path(path, FMODE_READ | FMODE_WRITE |
				     FMODE_EXCL, holder);
	if (IS_ERR(h->bdev))
		return PTR_ERR(h->bdev);
#endif
	return 0;
}

/* May sleep. */
static inline void hc_bdev_close(struct hc_bdev *h, void *holder)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
	fput(h->file);
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
	bdev_release(h->handle);
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
	blkdev_put(h->bdev, holder);
#else
	blkdev_put(h->bdev, FMODE_READ | FMODE_WRITE | FMODE_EXCL);
#endif
	h->bdev = NULL;
}

/* ---- allocating the bio-based disk --------------------------------- */

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
typedef blk_mode_t hc_blk_mode_t;
#else
typedef fmode_t hc_blk_mode_t;
#endif

/**
 * struct hc_limits - queue limits of /dev/hypercacheN, in one version-free
 * form.  Sizes in bytes, lengths in 512-byte sectors.
 */
struct hc_limits {
	unsigned int logical_block_size;
	unsigned int physical_block_size;
	unsigned int io_min;
	unsigned int io_opt;
	unsigned int chunk_sectors;
	unsigned int max_hw_sectors;
	unsigned short max_segments;
	unsigned int max_segment_size;
	unsigned int max_discard_sectors;
	unsigned int discard_granularity;
	unsigned int max_write_zeroes_sectors;
};

/*
 * Allocate a bio-based disk with a volatile write cache and FUA (so that
 * flushes and FUA writes reach the members), I/O accounting, non-rotational.
 * May sleep.  Return: the disk or an ERR_PTR.
 */
static inline struct gendisk *hc_alloc_disk(const struct hc_limits *l,
					    int node)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
	struct queue_limits lim = {
		.logical_block_size	= l->logical_block_size,
		.physical_block_size	= l->physical_block_size,
		.io_min			= l->io_min,
		.io_opt			= l->io_opt,
		.chunk_sectors		= l->chunk_sectors,
		.max_hw_sectors		= l->max_hw_sectors,
		.max_segments		= l->max_segments,
		.max_segment_size	= l->max_segment_size,
		.max_hw_discard_sectors	= l->max_discard_sectors,
		.discard_granularity	= l->discard_granularity,
		.max_write_zeroes_sectors = l->max_write_zeroes_sectors,
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
		.features		= BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA |
					  BLK_FEAT_IO_STAT,
#endif
	};
	struct gendisk *disk = blk_alloc_disk(&lim, node);

	if (IS_ERR(disk))
		return disk;
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 11, 0)
	blk_queue_write_cache(disk->queue, true, true);
	blk_queue_flag_set(QUEUE_FLAG_NONROT, disk->queue);
	blk_queue_flag_set(QUEUE_FLAG_IO_STAT, disk->queue);
#endif
	return disk;
#else
	struct gendisk *disk = blk_alloc_disk(node);
	struct request_queue *q;

	if (!disk)
		return ERR_PTR(-ENOMEM);
	q = disk->queue;
	blk_queue_logical_block_size(q, l->logical_block_size);
	blk_queue_physical_block_size(q, l->physical_block_size);
	blk_queue_io_min(q, l->io_min);
	blk_queue_io_opt(q, l->io_opt);
	blk_queue_chunk_sectors(q, l->chunk_sectors);
	blk_queue_max_hw_sectors(q, l->max_hw_sectors);
	blk_queue_max_segments(q, l->max_segments);
	blk_queue_max_segment_size(q, l->max_segment_size);
	blk_queue_max_discard_sectors(q, l->max_discard_sectors);
	q->limits.discard_granularity = l->discard_granularity;
	blk_queue_max_write_zeroes_sectors(q, l->max_write_zeroes_sectors);
	blk_queue_write_cache(q, true, true);
	blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
	blk_queue_flag_set(QUEUE_FLAG_IO_STAT, q);
	return disk;
#endif
}

/* ---- the disk's open and release hooks, its page cache ------------- */

/*
 * The block_device_operations .open and .release of /dev/hypercacheN with
 * the version's arguments, calling disk.c's version-free functions.  Since
 * 6.5 open takes the gendisk and a blk_mode_t, release only the gendisk.
 */
int hc_disk_open_disk(struct gendisk *disk);
void hc_disk_release_disk(struct gendisk *disk);

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
static inline int hc_disk_open(struct gendisk *disk, blk_mode_t mode)
{
	return hc_disk_open_disk(disk);
}

static inline void hc_disk_release(struct gendisk *disk)
{
	hc_disk_release_disk(disk);
}
#else
static inline int hc_disk_open(struct block_device *bdev, fmode_t mode)
{
	return hc_disk_open_disk(bdev->bd_disk);
}

static inline void hc_disk_release(struct gendisk *disk, fmode_t mode)
{
	hc_disk_release_disk(disk);
}
#endif

/* The page cache of a block device (bd_mapping since 6.10). */
static inline struct address_space *hc_bdev_mapping(struct block_device *bdev)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
	return bdev->bd_mapping;
#else
	return bdev->bd_inode->i_mapping;
#endif
}

/* ---- generic netlink ------------------------------------------------ */

#include <net/genetlink.h>

/*
 * The parsed request attributes of a dump, in its .start callback.  6.2
 * put a struct genl_info into struct genl_dumpit_info.
 */
static inline struct nlattr **hc_genl_dump_attrs(struct netlink_callback *cb)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	return genl_dumpit_info(cb)->info.attrs;
#else
	return genl_dumpit_info(cb)->attrs;
#endif
}

/* ---- the file system view (fs_*.c) --------------------------------- */

#include <linux/pagemap.h>
#include <linux/splice.h>
#include <linux/bio.h>

/* An inode's mtime, ctime and atime (6.6: accessors; 6.7: i_mtime gone). */
static inline void hc_inode_set_times(struct inode *inode,
				      struct timespec64 ts)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
	inode_set_mtime_to_ts(inode, ts);
	inode_set_atime_to_ts(inode, ts);
	inode_set_ctime_to_ts(inode, ts);
#else
	inode->i_mtime = ts;
	inode->i_atime = ts;
	inode->i_ctime = ts;
#endif
}

/* splice_read of a page-cache file (6.5: filemap_splice_read). */
static inline ssize_t hc_splice_read(struct file *in, loff_t *ppos,
				     struct pipe_inode_info *pipe, size_t len,
				     unsigned int flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
	return filemap_splice_read(in, ppos, pipe, len, flags);
#else
	return generic_file_splice_read(in, ppos, pipe, len, flags);
#endif
}

/*
 * Large folios in a file's page cache: on 6.12 (readahead then allocates
 * folios up to the readahead size, so an mmap loader faults in large
 * pieces); not on 6.1, whose large-folio readahead of non-XFS files is
 * untested upstream.
 */
static inline void hc_mapping_large_folios(struct address_space *mapping)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)
	mapping_set_large_folios(mapping);
#endif
}

/* bio_add_folio() (exported from 6.2 on; 6.1 inlines it the same way). */
static inline bool hc_bio_add_folio(struct bio *bio, struct folio *folio,
				    size_t len, size_t off)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	return bio_add_folio(bio, folio, len, off);
#else
	if (len > UINT_MAX || off > UINT_MAX)
		return false;
	return bio_add_page(bio, &folio->page, len, off) > 0;
#endif
}

/* The id mapping the inode operations take (6.3: struct mnt_idmap). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
typedef struct mnt_idmap hc_idmap_t;
#else
typedef struct user_namespace hc_idmap_t;
#endif

#endif /* HC_COMPAT_H */
