// SPDX-License-Identifier: GPL-2.0
/*
 * The view's files: open holds the object, reads go to /dev/hypercacheN.
 *
 * Each open file holds its object (hc_cache_hold(), as a LOCATE with HOLD
 * does), so it is never evicted while a file is open or mapped (a mapping
 * keeps its file); the last close drops the hold.  Reads build bios on the
 * pool's disk at the object's chunks, which disk.c splits and remaps onto
 * the members as it does any bio: buffered reads and mmap through the
 * file's page cache (readahead of a chunk, folios zeroed past the end of
 * the object, so a mapping never shows another object's bytes), O_DIRECT
 * through iomap straight into the caller's pages.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/iomap.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/uio.h>
#include "fs.h"

/* ---- open files hold their object ----------------------------------- */

/*
 * Open for reading: hold the current object of @inode's URI.  Return: 0;
 * -ESTALE (evicted or replaced since the lookup: the VFS looks again);
 * -ENFILE (the object has HC_OBJ_HOLDS_MAX holds already, nothing changed);
 * -EINTR (a signal while its revalidation was waited for).
 */
static int hc_fs_open(struct inode *inode, struct file *file)
{
	struct hc_fs_inode *hi = HC_FS_I(inode);
	struct hc_cache *c;
	struct hc_obj *obj;
	u64 rechecked = 0;	/* hc_reval_gate()'s */
	int err = 0;

	if (file->f_mode & FMODE_WRITE)
		return hc_fs_write_open(inode, file);
	hc_pool_lock();
	c = HC_FS_SB(inode->i_sb)->pool->cache;
again:
	obj = hc_cache_lookup(c, hi->uri, hi->uri_len);
	if (!obj || !hc_fs_obj_visible(obj) ||
	    obj->generation != hi->generation) {
		/*
		 * Evicted or replaced since the lookup (or found changed by
		 * its revalidation): the VFS looks again.
		 */
		err = -ESTALE;
		goto out;
	}
	/* as many holds as it may take (every file's): no hold, no change */
	if (hc_cache_holds_full(obj)) {
		err = -ENFILE;
		goto out;
	}
	err = hc_reval_gate(HC_FS_SB(inode->i_sb)->pool, obj, &rechecked);
	if (err == -EAGAIN)
		goto again;	/* waited for its revalidation */
	if (!err) {
		hc_cache_hold(c, obj, 1);
		hc_cache_hit(c, obj);
		if (!hi->opens++)
			WRITE_ONCE(hi->obj, obj);
	}
out:
	hc_pool_unlock();
	return err;
}

static int hc_fs_release(struct inode *inode, struct file *file)
{
	struct hc_fs_inode *hi = HC_FS_I(inode);
	struct hc_cache *c;

	hc_pool_lock();
	c = HC_FS_SB(inode->i_sb)->pool->cache;
	hc_cache_hold(c, hi->obj, -1);
	if (!--hi->opens)
		WRITE_ONCE(hi->obj, NULL);
	hc_pool_unlock();
	return 0;
}

/**
 * hc_fs_obj_map - where byte @pos of an object is on the pool's disk
 * @obj: the object, held (or staged by the caller): its extents fixed
 * @chunk: the pool's chunk size
 * @pos: offset in the object
 * @addr: set to the disk byte address
 * @run: set to the bytes of the object's extent from there (a run of
 *	chunks, or a small object's 4 KiB blocks: hc_obj_extent())
 *
 * Return: 0, or -EIO past the object's extents.
 */
int hc_fs_obj_map(const struct hc_obj *obj, u32 chunk, loff_t pos,
		  u64 *addr, u64 *run)
{
	u64 base = 0;
	u32 i;

	if (pos < 0)
		return -EIO;
	for (i = 0; i < obj->nr_ext; i++) {
		struct hc_extent e = hc_obj_extent(obj, chunk, i);

		if ((u64)pos < base + e.length) {
			*addr = e.offset + (pos - base);
			*run = base + e.length - pos;
			return 0;
		}
		base += e.length;
	}
	return -EIO;
}

/* hc_fs_obj_map() of the object an open file of @inode holds. */
static int hc_fs_map(struct inode *inode, loff_t pos, u64 *addr, u64 *run)
{
	struct hc_obj *obj = READ_ONCE(HC_FS_I(inode)->obj);

	if (WARN_ON_ONCE(!obj))
		return -EIO;
	return hc_fs_obj_map(obj, HC_FS_SB(inode->i_sb)->pool->chunk_size,
			     pos, addr, run);
}

/* ---- buffered reads and mmap: the page cache ------------------------ */

/*
 * A read bio's end: zero what lies past the end of the object in each
 * folio (the chunk's tail holds stale bytes), then mark it up to date.
 */
static void hc_fs_read_endio(struct bio *bio)
{
	struct folio_iter fi;

	bio_for_each_folio_all(fi, bio) {
		struct folio *folio = fi.folio;
		loff_t size = i_size_read(folio->mapping->host);
		loff_t start = folio_pos(folio);

		if (!bio->bi_status) {
			if (size < start + folio_size(folio))
				folio_zero_segment(folio, size - start,
						   folio_size(folio));
			folio_mark_uptodate(folio);
		}
		folio_unlock(folio);
	}
	bio_put(bio);
}

/**
 * struct hc_fs_rd - bios being built for a readahead
 * @bio: the bio being filled, or NULL
 * @next: the disk byte address that continues @bio
 * @left: folios still to come (sizes the next bio)
 */
struct hc_fs_rd {
	struct bio *bio;
	u64 next;
	unsigned int left;
};

static void hc_fs_rd_submit(struct hc_fs_rd *rd)
{
	if (rd->bio)
		submit_bio(rd->bio);
	rd->bio = NULL;
}

/* Add @folio (locked, not up to date) to the reads, or complete it. */
static void hc_fs_rd_folio(struct inode *inode, struct hc_fs_rd *rd,
			   struct folio *folio)
{
	struct block_device *bdev = HC_FS_SB(inode->i_sb)->pool->disk->part0;
	loff_t pos = folio_pos(folio);
	u64 addr, run;

	if (pos >= i_size_read(inode)) {
		folio_zero_range(folio, 0, folio_size(folio));
		folio_mark_uptodate(folio);
		folio_unlock(folio);
		return;
	}
	/* A folio never crosses a chunk: both are naturally aligned. */
	if (hc_fs_map(inode, pos, &addr, &run) || run < folio_size(folio)) {
		folio_unlock(folio);	/* not up to date: the reader gets EIO */
		return;
	}
	if (rd->bio && (rd->next != addr ||
			!hc_bio_add_folio(rd->bio, folio, folio_size(folio), 0)))
		hc_fs_rd_submit(rd);
	if (!rd->bio) {
		rd->bio = bio_alloc(bdev, clamp(rd->left, 1U, BIO_MAX_VECS),
				    REQ_OP_READ, GFP_KERNEL);
		rd->bio->bi_iter.bi_sector = addr >> SECTOR_SHIFT;
		rd->bio->bi_end_io = hc_fs_read_endio;
		if (!hc_bio_add_folio(rd->bio, folio, folio_size(folio), 0)) {
			bio_put(rd->bio);
			rd->bio = NULL;
			folio_unlock(folio);
			return;
		}
	}
	rd->next = addr + folio_size(folio);
}

static int hc_fs_read_folio(struct file *file, struct folio *folio)
{
	struct hc_fs_rd rd = { .left = 1 };

	hc_fs_rd_folio(folio->mapping->host, &rd, folio);
	hc_fs_rd_submit(&rd);
	return 0;
}

/* The readahead window is a chunk (fs_super.c sets the bdi's ra_pages). */
static void hc_fs_readahead(struct readahead_control *rac)
{
	struct hc_fs_rd rd = { };
	struct folio *folio;

	while ((folio = readahead_folio(rac))) {
		rd.left = readahead_count(rac) + 1;
		hc_fs_rd_folio(rac->mapping->host, &rd, folio);
	}
	hc_fs_rd_submit(&rd);
}

const struct address_space_operations hc_fs_aops = {
	.read_folio	= hc_fs_read_folio,
	.readahead	= hc_fs_readahead,
	.direct_IO	= noop_direct_IO,	/* O_DIRECT: hc_fs_read_iter() */
};

/* ---- O_DIRECT: iomap onto the pool's disk --------------------------- */

static int hc_fs_iomap_begin(struct inode *inode, loff_t pos, loff_t length,
			     unsigned int flags, struct iomap *iomap,
			     struct iomap *srcmap)
{
	u64 addr, run;
	int err;

	if (flags & IOMAP_WRITE)
		return -EROFS;
	err = hc_fs_map(inode, pos, &addr, &run);
	if (err)
		return err;
	iomap->type = IOMAP_MAPPED;
	iomap->flags = 0;
	iomap->bdev = HC_FS_SB(inode->i_sb)->pool->disk->part0;
	iomap->offset = pos;
	iomap->addr = addr;
	iomap->length = min_t(u64, run, length);
	return 0;
}

static const struct iomap_ops hc_fs_iomap_ops = {
	.iomap_begin	= hc_fs_iomap_begin,
};

/*
 * O_DIRECT: the caller's buffer, position and length must be aligned to
 * the disk's logical block (EINVAL otherwise, as on any block file
 * system).  The object's last partial block, whose disk block holds stale
 * bytes past the end, is read through the page cache instead (zeroed).
 */
static ssize_t hc_fs_read_direct(struct kiocb *iocb, struct iov_iter *to)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	struct block_device *bdev = HC_FS_SB(inode->i_sb)->pool->disk->part0;
	u32 lbs = bdev_logical_block_size(bdev);
	loff_t size = i_size_read(inode), pos = iocb->ki_pos;
	loff_t end = round_down(size, lbs);
	size_t count = iov_iter_count(to), part, rest;
	ssize_t ret = 0;

	if ((pos | count | iov_iter_alignment(to)) & (lbs - 1))
		return -EINVAL;
	if (!count || pos >= size)
		return 0;
	if (pos < end) {
		part = min_t(u64, count, end - pos);
		rest = count - part;
		iov_iter_truncate(to, part);
		ret = iomap_dio_rw(iocb, to, &hc_fs_iomap_ops, NULL,
				   rest ? IOMAP_DIO_FORCE_WAIT : 0, NULL, 0);
		iov_iter_reexpand(to, iov_iter_count(to) + rest);
		if (ret < 0 || ret < part || !rest)
			return ret;
	}
	iocb->ki_flags &= ~IOCB_DIRECT;
	ret = filemap_read(iocb, to, ret);
	iocb->ki_flags |= IOCB_DIRECT;
	return ret;
}

static ssize_t hc_fs_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	if (iocb->ki_flags & IOCB_DIRECT)
		return hc_fs_read_direct(iocb, to);
	return filemap_read(iocb, to, 0);
}

const struct file_operations hc_fs_file_fops = {
	.open		= hc_fs_open,
	.release	= hc_fs_release,
	.read_iter	= hc_fs_read_iter,
	.mmap		= generic_file_readonly_mmap,
	.splice_read	= hc_splice_read,
	.llseek		= generic_file_llseek,
};
