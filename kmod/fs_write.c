// SPDX-License-Identifier: GPL-2.0
/*
 * Writes through the view: create + write + close stores a new object.
 *
 * Creating a file stages a growable object of its URI (hc_cache_stage(),
 * HC_STAGE_F_GROW's kernel side), not shown in the view until it is
 * stored.  Its writer (the file opened by the create, or an open with
 * O_TRUNC of a stored file, which replaces that object as STAGE with
 * HC_STAGE_F_REPLACE does) writes front to back: the bytes gather in one
 * of two buffers of pages (a chunk's, at most HC_FS_WR_SEG bytes), and
 * each full buffer is written with direct bios onto the pool's disk
 * (which remaps them onto the members) while the writer fills the other,
 * so that copying and checksumming the next bytes overlap the write of
 * the last; a buffer's write is waited for before the buffer is filled
 * again, and all at the store.  The stage grows by a chunk
 * (hc_cache_grow()) when a write starts a new one.  The last close (or
 * fsync) stores it as COMMIT does: the last partial buffer written, the
 * fence sealed, the unused tail freed (hc_cache_trim()), every member
 * flushed (all at once: hc_members_flush()), the journal record with the
 * data's CRC-32C written; the object is DIRTY from then on.  A writer
 * that is closed by its process's exit (killed, or exit without close),
 * or whose writes failed, aborts the stage: nothing is stored.
 *
 * Locking: hc_fs_writer.lock serialises one file's writes, fsync and
 * close; the pool lock around every call into the cache, never held across
 * a user copy or the data's I/O.  The stage belongs to the writer: nothing
 * else ends a STAGED object (evict and a replacing STAGE are EBUSY, and
 * the pool cannot stop while mounted), so the writer uses it without the
 * pool lock between calls.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include "fs.h"
#include "trace.h"

/* A writer's buffers, and the bytes of one at most (less for small chunks). */
#define HC_FS_WR_BUFS	2
#define HC_FS_WR_SEG	(4U << 20)

/**
 * struct hc_fs_wbuf - one buffer of a writer
 * @done: its write completed (hc_fs_wr_endio())
 * @status: that write's status
 * @busy: a write of it was submitted and not waited for yet
 * @pages: its pages (of hc_fs_writer.pages)
 */
struct hc_fs_wbuf {
	struct completion done;
	blk_status_t status;
	bool busy;
	struct page **pages;
};

/**
 * struct hc_fs_writer - an open file that writes a new object
 * @lock: serialises the file's writes, fsync and close
 * @obj: its STAGED object (growable); NULL once stored or aborted
 * @inode: the inode created for it, whose size follows the writes; NULL
 *	for an O_TRUNC open of a stored file (its inode is the old object's)
 * @chunk: the pool's chunk size
 * @seg: bytes of a buffer: the chunk size, at most HC_FS_WR_SEG (a
 *	buffer never crosses a chunk)
 * @nr_pages: pages of a buffer
 * @cur: the buffer being filled
 * @fill: bytes of it filled: the segment that starts at @size - @fill
 * @size: bytes written
 * @crc: CRC-32C state (not inverted) of the bytes written
 * @err: the first error: later writes, fsync and close return it, and the
 *	stage is aborted
 * @stored: the object is stored (fsync); later writes are EPERM
 * @buf: the buffers
 * @pages: the buffers' pages, HC_FS_WR_BUFS * @nr_pages
 */
struct hc_fs_writer {
	struct mutex lock;	/* serialises the file's writes, fsync, close */
	struct hc_obj *obj;
	struct inode *inode;
	u32 chunk;
	u32 seg;
	u32 nr_pages;
	u32 cur;
	u32 fill;
	u64 size;
	u32 crc;
	int err;
	bool stored;
	struct hc_fs_wbuf buf[HC_FS_WR_BUFS];
	struct page *pages[];
};

static struct hc_cache *hc_fs_wr_cache(struct file *file)
{
	return HC_FS_SB(file_inode(file)->i_sb)->pool->cache;
}

/* A buffer's write completed (any context). */
static void hc_fs_wr_endio(struct bio *bio)
{
	struct hc_fs_wbuf *b = bio->bi_private;

	b->status = bio->bi_status;
	bio_put(bio);
	complete(&b->done);
}

/* Wait for @b's write, if one is in flight.  Return: 0 or its errno. */
static int hc_fs_wr_wait(struct hc_fs_wbuf *b)
{
	if (!b->busy)
		return 0;
	wait_for_completion_io(&b->done);
	b->busy = false;
	return blk_status_to_errno(b->status);
}

/* Wait for every buffer's write.  Return: 0 or the first errno. */
static int hc_fs_wr_drain(struct hc_fs_writer *w)
{
	int err = 0, e;
	u32 i;

	for (i = 0; i < HC_FS_WR_BUFS; i++) {
		e = hc_fs_wr_wait(&w->buf[i]);
		if (!err)
			err = e;
	}
	return err;
}

static void hc_fs_wr_free(struct hc_fs_writer *w)
{
	u32 i;

	hc_fs_wr_drain(w);	/* none in flight: stored or aborted */
	for (i = 0; i < HC_FS_WR_BUFS * w->nr_pages; i++)
		if (w->pages[i])
			__free_page(w->pages[i]);
	kvfree(w);
}

/*
 * Drop the stage (pool lock taken here), once no write into its chunks is
 * in flight any more: they are free for other objects after this.
 */
static void hc_fs_wr_abort(struct file *file, struct hc_fs_writer *w)
{
	if (!w->obj)
		return;
	hc_fs_wr_drain(w);
	hc_pool_lock();
	hc_cache_abort(hc_fs_wr_cache(file), w->obj);
	hc_pool_unlock();
	w->obj = NULL;
}

/*
 * Make the stage hold @size bytes (whole chunks), waiting, interruptibly,
 * while the dirty limit is over as STAGE and GROW do.  Return: 0 or the
 * errno of hc_ctl_dirty_wait() or hc_cache_grow().
 */
static int hc_fs_wr_grow(struct hc_fs_writer *w, u64 size)
{
	struct hc_pool *pool;
	struct hc_cache *c;
	int err;

	/* takes the pool lock; held on return but for -EINTR */
	c = hc_ctl_dirty_wait(size, false, &pool);
	if (c == ERR_PTR(-EINTR))
		return -EINTR;		/* the lock is not held */
	err = IS_ERR(c) ? PTR_ERR(c) : hc_cache_grow(c, w->obj, size);
	hc_pool_unlock();
	return err;
}

/*
 * Start the write of the first @len bytes of buffer @b (whole pages) to
 * the stage's chunk at byte @pos of the object; hc_fs_wr_wait() waits for
 * it.  May sleep.  Return: 0, or -EIO (@pos is past the stage's chunks:
 * nothing submitted); a member's write error, or the fence's refusal, is
 * the wait's.
 */
static int hc_fs_wr_submit(struct file *file, struct hc_fs_writer *w,
			   struct hc_fs_wbuf *b, u64 pos, u32 len)
{
	struct hc_pool *pool = HC_FS_SB(file_inode(file)->i_sb)->pool;
	struct block_device *bdev = pool->disk->part0;
	u32 n = DIV_ROUND_UP(len, PAGE_SIZE), i;
	struct bio *bio = NULL;
	u64 addr, run;
	int err;

	err = hc_fs_obj_map(w->obj, w->chunk, pos, &addr, &run);
	if (err || run < len)
		return -EIO;
	for (i = 0; i < n; i++) {
		if (bio && bio_add_page(bio, b->pages[i], PAGE_SIZE, 0))
			continue;
		/* chains the full bio to the new one and submits it */
		bio = blk_next_bio(bio, bdev, min_t(u32, n - i, BIO_MAX_VECS),
				   REQ_OP_WRITE, GFP_KERNEL);
		bio->bi_iter.bi_sector = (addr + (u64)i * PAGE_SIZE) >>
					 SECTOR_SHIFT;
		__bio_add_page(bio, b->pages[i], PAGE_SIZE, 0);
	}
	/* the last bio ends when every bio chained to it has */
	reinit_completion(&b->done);
	b->busy = true;
	bio->bi_private = b;
	bio->bi_end_io = hc_fs_wr_endio;
	submit_bio(bio);
	return 0;
}

/*
 * Start the write of the buffer being filled (its filled pages; the rest
 * of the last zeroed) and go on with the next buffer.
 */
static int hc_fs_wr_put_seg(struct file *file, struct hc_fs_writer *w)
{
	struct hc_fs_wbuf *b = &w->buf[w->cur];
	u32 off = w->fill % PAGE_SIZE;
	int err;

	if (!w->fill)
		return 0;
	if (off)
		memset(page_address(b->pages[w->fill / PAGE_SIZE]) + off, 0,
		       PAGE_SIZE - off);
	err = hc_fs_wr_submit(file, w, b, w->size - w->fill,
			      round_up(w->fill, PAGE_SIZE));
	if (!err) {
		w->fill = 0;
		w->cur = (w->cur + 1) % HC_FS_WR_BUFS;
	}
	return err;
}

/*
 * Store the object (w->lock held, the stage live, no error so far): the
 * last segment, every buffer's write waited for, then COMMIT's steps
 * (hc_ctl_store(): seal, trim to the size, flush the members, the journal
 * record; the pool lock dropped for each I/O).  Sleeps.  Return: 0, or an
 * errno of those steps; the stage is still there on error (the caller
 * aborts it).
 */
static int hc_fs_wr_store(struct file *file, struct hc_fs_writer *w)
{
	struct hc_pool *pool = HC_FS_SB(file_inode(file)->i_sb)->pool;
	struct hc_obj *obj = w->obj;
	u64 mtime = 0;
	int err, e;

	err = hc_fs_wr_put_seg(file, w);
	e = hc_fs_wr_drain(w);
	if (err || e)
		return err ?: e;
	hc_pool_lock();
	err = hc_ctl_store(pool, obj, false, w->size, false, true, ~w->crc);
	if (!err) {
		trace_hc_commit(obj->uri, obj->uri_len, obj->generation,
				obj->size);
		mtime = hc_obj_mtime_ns(obj);
		w->obj = NULL;
		w->stored = true;
	}
	hc_pool_unlock();
	if (err)
		return err;
	if (w->inode) {
		i_size_write(w->inode, w->size);
		hc_inode_set_times(w->inode, ns_to_timespec64(mtime));
	}
	hc_nl_egress_kick();
	return 0;
}

/* Store, or abort and remember the error (w->lock held). */
static int hc_fs_wr_finish(struct file *file, struct hc_fs_writer *w)
{
	if (w->obj && !w->err)
		w->err = hc_fs_wr_store(file, w);
	if (w->err)
		hc_fs_wr_abort(file, w);
	return w->err;
}

static ssize_t hc_fs_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct file *file = iocb->ki_filp;
	struct hc_fs_writer *w = file->private_data;
	size_t done = 0, n, copied;
	struct page *pg;
	u32 off;
	int err;

	mutex_lock(&w->lock);
	err = w->err;
	if (!err && w->stored)
		err = -EPERM;		/* fsync stored it */
	if (!err && !(iocb->ki_flags & IOCB_APPEND) && iocb->ki_pos != w->size)
		err = -EINVAL;		/* front to back only */
	while (!err && iov_iter_count(from)) {
		if (!w->fill) {
			/* this buffer's last write is done before it is filled */
			err = hc_fs_wr_wait(&w->buf[w->cur]);
			if (!err && w->size % w->chunk == 0)
				err = hc_fs_wr_grow(w, w->size + 1);
			if (err)
				break;
		}
		pg = w->buf[w->cur].pages[w->fill / PAGE_SIZE];
		off = w->fill % PAGE_SIZE;
		n = min_t(size_t, PAGE_SIZE - off, iov_iter_count(from));
		copied = copy_page_from_iter(pg, off, n, from);
		if (!copied) {
			err = -EFAULT;
			break;
		}
		w->crc = crc32c(w->crc, page_address(pg) + off, copied);
		w->fill += copied;
		w->size += copied;
		done += copied;
		if (w->fill == w->seg)
			err = hc_fs_wr_put_seg(file, w);
	}
	/*
	 * A signal in the dirty wait leaves the file usable; any other error
	 * (a seek, no room, an I/O error) fails it: nothing is stored.
	 */
	if (err && err != -EINTR && !w->err)
		w->err = err;
	if (w->inode)
		i_size_write(w->inode, w->size);
	iocb->ki_pos = w->size;
	mutex_unlock(&w->lock);
	return done && !w->err ? done : err;
}

/* fsync stores the object (durable when it returns), as the last close. */
static int hc_fs_wr_fsync(struct file *file, loff_t start, loff_t end,
			  int datasync)
{
	struct hc_fs_writer *w = file->private_data;
	int err;

	mutex_lock(&w->lock);
	err = hc_fs_wr_finish(file, w);
	mutex_unlock(&w->lock);
	return err;
}

/*
 * close(): the last close of the file stores the object and returns its
 * errno; a close by the process's exit (PF_EXITING) aborts the stage.
 */
static int hc_fs_wr_flush(struct file *file, fl_owner_t id)
{
	struct hc_fs_writer *w = file->private_data;
	int err;

	if (file_count(file) > 1)
		return 0;		/* not the last: dup(), fork() */
	mutex_lock(&w->lock);
	if (w->obj && (current->flags & PF_EXITING))
		hc_fs_wr_abort(file, w);
	err = hc_fs_wr_finish(file, w);
	mutex_unlock(&w->lock);
	return err;
}

/*
 * The last reference went without a last close (the file's last close
 * came while another reference lived): store unless the process exits.
 */
static int hc_fs_wr_release(struct inode *inode, struct file *file)
{
	struct hc_fs_writer *w = file->private_data;

	if (w->obj && (current->flags & PF_EXITING))
		hc_fs_wr_abort(file, w);
	hc_fs_wr_finish(file, w);
	hc_fs_wr_free(w);
	return 0;
}

static const struct file_operations hc_fs_write_fops = {
	.write_iter	= hc_fs_write_iter,
	.fsync		= hc_fs_wr_fsync,
	.flush		= hc_fs_wr_flush,
	.release	= hc_fs_wr_release,
	.llseek		= generic_file_llseek,
};

/*
 * Stage @uri as a new growable object (pool lock held), a new generation
 * of a stored READY or DIRTY object of @uri: that one is superseded
 * (hc_cache_supersede(): its open files and mappings keep reading it, a
 * DIRTY one is not written back).  EBUSY for one that is pinned, SYNCING,
 * or being written.  Return: 0 or the errno of hc_cache_supersede() or
 * hc_cache_stage().
 */
static int hc_fs_stage(struct hc_cache *c, const u8 *uri, u32 len,
		       struct hc_obj **objp)
{
	struct hc_obj *old;
	int err;

again:
	old = hc_cache_lookup(c, uri, len);
	if (old && (old->state == HC_OBJ_READY ||
		    old->state == HC_OBJ_DIRTY)) {
		err = hc_cache_supersede(c, old);
		if (err == -EAGAIN) {	/* being changed: look again */
			hc_cache_busy_wait();
			goto again;
		}
		if (err)
			return err;
	}
	err = hc_cache_stage(c, uri, len, 0, true, true, true, NULL, objp);
	if (err == -EAGAIN) {	/* mounted: the pool and @c stay */
		hc_cache_busy_wait();
		goto again;
	}
	return err;
}

/**
 * hc_fs_write_open - open a file of the view for writing (hc_fs_open())
 * @inode: the file
 * @file: the new open file, FMODE_WRITE
 *
 * A created file's writer takes its stage; a stored file is written again
 * only with O_TRUNC (a new object replacing it; EPERM without).  O_RDWR is
 * EINVAL: a file being written cannot be read (its object is not stored
 * yet).  May sleep.  Return: 0; -EINVAL; -EPERM; -ENOMEM; an errno of
 * hc_cache_stage() (-EBUSY, -ENOSPC, ...).
 */
int hc_fs_write_open(struct inode *inode, struct file *file)
{
	struct hc_fs_info *fsi = HC_FS_SB(inode->i_sb);
	struct hc_fs_inode *hi = HC_FS_I(inode);
	u32 chunk = fsi->pool->chunk_size, seg, i;
	struct hc_fs_writer *w;
	int err = 0;

	if (file->f_mode & FMODE_READ)
		return -EINVAL;
	seg = min(chunk, HC_FS_WR_SEG);
	w = kvzalloc(struct_size(w, pages, HC_FS_WR_BUFS * (seg / PAGE_SIZE)),
		     GFP_KERNEL);
	if (!w)
		return -ENOMEM;
	mutex_init(&w->lock);
	w->chunk = chunk;
	w->seg = seg;
	w->nr_pages = seg / PAGE_SIZE;
	w->crc = ~0U;
	for (i = 0; i < HC_FS_WR_BUFS; i++) {
		init_completion(&w->buf[i].done);
		w->buf[i].pages = w->pages + i * w->nr_pages;
	}
	for (i = 0; i < HC_FS_WR_BUFS * w->nr_pages; i++) {
		w->pages[i] = alloc_page(GFP_KERNEL);
		if (!w->pages[i]) {
			err = -ENOMEM;
			goto out_free;
		}
	}

	hc_pool_lock();
	if (hi->stage) {
		w->obj = hi->stage;
		w->inode = inode;
		hi->stage = NULL;
	} else if (!(file->f_flags & O_TRUNC)) {
		err = -EPERM;		/* a stored object is not changed */
	} else {
		err = hc_fs_stage(fsi->pool->cache, hi->uri, hi->uri_len,
				  &w->obj);
	}
	hc_pool_unlock();
	if (err)
		goto out_free;
	file->private_data = w;
	replace_fops(file, &hc_fs_write_fops);
	return 0;

out_free:
	hc_fs_wr_free(w);
	return err;
}

/**
 * hc_fs_create - create a file: stage its object (the dir's ->create)
 * @dir: the directory
 * @dentry: the new name
 *
 * The file's URI is the directory's prefix and the name (a file in the
 * root would be a scheme: EPERM).  The inode is the stage's generation's;
 * the open that follows takes the stage (hc_fs_write_open()); an inode
 * evicted with its stage untaken aborts it (hc_fs_stage_drop()).  May
 * sleep.  Return: 0; -EPERM; -ENAMETOOLONG; -ENOMEM; an errno of
 * hc_cache_stage() (-EBUSY: the URI is being written or cannot be
 * replaced; -ENOSPC; ...).
 */
int hc_fs_create(struct inode *dir, struct dentry *dentry)
{
	struct hc_fs_inode *hd = HC_FS_I(dir);
	struct hc_fs_info *fsi = HC_FS_SB(dir->i_sb);
	struct hc_obj *obj;
	struct inode *inode;
	int len, err;
	u64 gen;
	u8 *uri;

	if (!hd->uri_len)
		return -EPERM;
	uri = kmalloc(HC_FSPATH_URI_MAX + 8, GFP_KERNEL);
	if (!uri)
		return -ENOMEM;
	len = hc_fspath_child(hd->uri, hd->uri_len, dentry->d_name.name,
			      dentry->d_name.len, true, uri,
			      HC_FSPATH_URI_MAX + 8);
	if (len < 0 || len - 1 > HC_FSPATH_URI_MAX) {
		kfree(uri);
		return len == -ENOENT ? -EPERM : -ENAMETOOLONG;
	}
	len--;			/* a file: no '/' after the name */

	hc_pool_lock();
	err = hc_fs_stage(fsi->pool->cache, uri, len, &obj);
	gen = err ? 0 : obj->generation;
	hc_pool_unlock();
	if (err) {
		kfree(uri);
		return err;
	}
	inode = hc_fs_inode_file(dir->i_sb, uri, len, gen, 0, 0,
				 ktime_get_real_ns());
	if (IS_ERR(inode)) {
		hc_pool_lock();
		hc_cache_abort(fsi->pool->cache, obj);
		hc_pool_unlock();
		return PTR_ERR(inode);
	}
	HC_FS_I(inode)->stage = obj;
	d_instantiate(dentry, inode);
	return 0;
}

/* An inode goes: abort a stage no writer took (evict_inode). */
void hc_fs_stage_drop(struct inode *inode)
{
	struct hc_fs_inode *hi = HC_FS_I(inode);

	if (!hi->stage)
		return;
	hc_pool_lock();
	hc_cache_abort(HC_FS_SB(inode->i_sb)->pool->cache, hi->stage);
	hc_pool_unlock();
	hi->stage = NULL;
}

/*
 * A file's attributes do not change: EPERM, but for the truncation of an
 * O_TRUNC open (its writer's new stage is empty) and a truncation of a
 * file being written to the size it has (ftruncate(fd, size)).
 */
static int hc_fs_setattr(hc_idmap_t *idmap, struct dentry *dentry,
			 struct iattr *ia)
{
	unsigned int valid = ia->ia_valid & ~(ATTR_KILL_SUID | ATTR_KILL_SGID |
					     ATTR_KILL_PRIV | ATTR_FILE |
					     ATTR_OPEN | ATTR_MTIME |
					     ATTR_CTIME);
	struct hc_fs_writer *w;

	if (valid != ATTR_SIZE)
		return -EPERM;
	if ((ia->ia_valid & ATTR_OPEN) && !ia->ia_size)
		return 0;
	if ((ia->ia_valid & ATTR_FILE) &&
	    ia->ia_file->f_op == &hc_fs_write_fops) {
		w = ia->ia_file->private_data;
		if (ia->ia_size == READ_ONCE(w->size))
			return 0;
	}
	return -EPERM;
}

const struct inode_operations hc_fs_file_iops = {
	.setattr	= hc_fs_setattr,
};
