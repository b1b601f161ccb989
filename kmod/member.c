// SPDX-License-Identifier: GPL-2.0
/*
 * Members: opening them exclusively and reading/writing their superblocks.
 * Not on the data path; everything here may sleep.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/vmalloc.h>
#include "hypercache.h"

/**
 * hc_member_open - open a member exclusively
 * @m: member to fill
 * @path: path of the block device
 * @holder: the exclusive holder (the pool being built)
 * @msg: set to a static reason on failure
 *
 * Return: 0; -ENOENT, -ENOTBLK, -EBUSY (mounted, claimed by another driver
 * such as md or dm, or opened exclusively elsewhere) or another error from
 * the open; -EINVAL if its logical block size is above HC_SB_SIZE.
 */
int hc_member_open(struct hc_member *m, const char *path, void *holder,
		   const char **msg)
{
	int err;

	err = hc_bdev_open(&m->dev, path, holder);
	if (err) {
		switch (err) {
		case -ENOENT:
			*msg = "no such device";
			break;
		case -ENOTBLK:
			*msg = "not a block device";
			break;
		case -EBUSY:
			*msg = "device is in use (mounted, claimed by another driver, or a member)";
			break;
		default:
			*msg = "cannot open the device";
			break;
		}
		return err;
	}
	if (bdev_logical_block_size(m->dev.bdev) > HC_SB_SIZE) {
		*msg = "logical block size above 4096 bytes";
		hc_bdev_close(&m->dev, holder);
		return -EINVAL;
	}
	return 0;
}

/* Close a member opened by hc_member_open(). */
void hc_member_close(struct hc_member *m, void *holder)
{
	if (m->dev.bdev)
		hc_bdev_close(&m->dev, holder);
}

/* Synchronous I/O of the HC_SB_SIZE bytes at HC_SB_OFFSET. */
static int hc_member_sb_io(struct hc_member *m, void *block, blk_opf_t opf)
{
	struct page *page;
	struct bio *bio;
	int err;

	BUILD_BUG_ON(HC_SB_SIZE > PAGE_SIZE);
	page = alloc_page(GFP_KERNEL);
	if (!page)
		return -ENOMEM;
	if (op_is_write(opf))
		memcpy(page_address(page), block, HC_SB_SIZE);

	bio = bio_alloc(m->dev.bdev, 1, opf, GFP_KERNEL);
	bio->bi_iter.bi_sector = HC_SB_OFFSET >> SECTOR_SHIFT;
	__bio_add_page(bio, page, HC_SB_SIZE, 0);
	err = submit_bio_wait(bio);
	bio_put(bio);

	if (!err && !op_is_write(opf))
		memcpy(block, page_address(page), HC_SB_SIZE);
	__free_page(page);
	return err;
}

/**
 * hc_member_io - synchronous I/O of a metadata buffer
 * @m: the member
 * @off: byte offset on the member, a multiple of 512
 * @buf: page-aligned memory from vmalloc() or alloc_pages()
 * @len: bytes, a multiple of 512, at most 1 MiB
 * @opf: REQ_OP_READ or REQ_OP_WRITE plus flags (REQ_FUA, REQ_PREFLUSH...)
 *
 * May sleep.  Return: 0 or a negative errno (-EIO).
 */
int hc_member_io(struct hc_member *m, u64 off, void *buf, size_t len,
		 blk_opf_t opf)
{
	unsigned int nr = DIV_ROUND_UP(len, PAGE_SIZE);
	struct bio *bio;
	size_t done;
	int err;

	if (WARN_ON_ONCE(nr > BIO_MAX_VECS || (off | len) & (SECTOR_SIZE - 1)))
		return -EINVAL;
	bio = bio_alloc(m->dev.bdev, nr, opf, GFP_KERNEL);
	bio->bi_iter.bi_sector = off >> SECTOR_SHIFT;
	for (done = 0; done < len; done += PAGE_SIZE) {
		void *p = buf + done;
		struct page *page = is_vmalloc_addr(p) ? vmalloc_to_page(p) :
							  virt_to_page(p);

		__bio_add_page(bio, page, min_t(size_t, PAGE_SIZE, len - done),
			       0);
	}
	err = submit_bio_wait(bio);
	bio_put(bio);
	return err;
}

/**
 * hc_members_flush - flush the volatile caches of members, all at once
 * @m: the members
 * @nr: their number, at least 1
 *
 * One empty PREFLUSH bio per member, every one chained to the last
 * member's and in flight together (a flush of each member in turn would
 * make a commit wait for the sum of the members' flushes instead of the
 * slowest one).  May sleep.  Return: 0 or the first member's errno (-EIO).
 */
int hc_members_flush(struct hc_member *m, u32 nr)
{
	struct bio *last, *bio;
	u32 i;
	int err;

	last = bio_alloc(m[nr - 1].dev.bdev, 0, REQ_OP_WRITE | REQ_PREFLUSH,
			 GFP_KERNEL);
	for (i = 0; i + 1 < nr; i++) {
		bio = bio_alloc(m[i].dev.bdev, 0, REQ_OP_WRITE | REQ_PREFLUSH,
				GFP_KERNEL);
		bio_chain(bio, last);
		submit_bio(bio);
	}
	err = submit_bio_wait(last);
	bio_put(last);
	return err;
}

/* Read the superblock block of a member.  Return: 0 or -EIO. */
int hc_member_read_sb(struct hc_member *m, void *block)
{
	return hc_member_sb_io(m, block, REQ_OP_READ | REQ_SYNC | REQ_META);
}

/*
 * Write the superblock block of a member, durable on return (pre-flush and
 * FUA), and drop the member's page cache so readers of the member device
 * see it.  Return: 0 or -EIO.
 */
int hc_member_write_sb(struct hc_member *m, const void *block)
{
	int err;

	err = hc_member_sb_io(m, (void *)block, REQ_OP_WRITE | REQ_SYNC |
			      REQ_META | REQ_PREFLUSH | REQ_FUA);
	invalidate_bdev(m->dev.bdev);
	return err;
}
