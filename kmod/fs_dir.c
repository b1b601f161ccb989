// SPDX-License-Identifier: GPL-2.0
/*
 * The view's namespace: lookup, readdir and revalidation of the paths of
 * cached objects (core/fspath.c is the URI <-> path rule).
 *
 * A directory exists while some object of the index lies under its URI
 * prefix; a file is a complete object (hc_fs_obj_visible()), and a file
 * shadows a directory of the same path.  readdir walks the index's ordered
 * view: one O(log n) step (hc_cache_ordered_ceil()) per entry, skipping
 * each sub-directory's subtree whole.  Dentries are revalidated against
 * the index at every lookup (an evicted or replaced object's dentry goes,
 * a negative dentry is never trusted), so what a path shows is the
 * index's state, not the state when it was first looked up.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/namei.h>
#include <linux/slab.h>
#include "fs.h"

#define HC_FS_URI_BUF	(HC_FSPATH_URI_MAX + 8)

/* Is there an object under the directory prefix @p?  Pool lock held. */
static bool hc_fs_dir_exists(struct hc_cache *c, const u8 *p, u32 len)
{
	struct hc_obj *o = hc_cache_ordered_ceil(c, p, len, false);

	return o && hc_obj_under(o, p, len);
}

/* A shown object with exactly this URI.  Pool lock held. */
static struct hc_obj *hc_fs_file_find(struct hc_cache *c, const u8 *uri,
				      u32 len)
{
	struct hc_obj *o = hc_cache_lookup(c, uri, len);

	return o && hc_fs_obj_visible(o) ? o : NULL;
}

/*
 * ingest=on: @uri is not cached and is being opened: ask the helper for it
 * (AUTO_INGEST's path: hc_cache_ingest(), hc_nl_ingest_request()) and wait,
 * interruptibly, for the object, at most the mount's ingest_timeout.  One
 * ingest serves every opener that waits for it.  Pool lock held (dropped
 * while waiting).  Return: the object (shown), or ERR_PTR(-ENOTCONN: no
 * helper registered, or it went away; the helper's errno for the URI:
 * -ENOENT no such key, -EACCES, -EIO, ...; -ENOBUFS: the policy did not
 * admit it; -ETIMEDOUT; -EINTR; -EAGAIN: too many ingests at once).
 */
static struct hc_obj *hc_fs_ingest(struct hc_fs_info *fsi, const u8 *uri,
				   u32 len)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(fsi->ingest_ms);
	struct hc_cache *c = fsi->pool->cache;
	struct hc_obj *obj;
	u64 waited = 0;
	int err;

	for (;;) {
		obj = hc_cache_lookup(c, uri, len);
		/* The ingest waited for ended without data: say how. */
		if (waited && (!obj || obj->generation != waited)) {
			err = hc_cache_outcome(c, uri, len, waited);
			if (err == HC_INGEST_NOT_ADMITTED)
				return ERR_PTR(-ENOBUFS);
			if (err < 0)
				return ERR_PTR(err);
			waited = 0;
		}
		if (obj && hc_fs_obj_visible(obj))
			return obj;
		if (!hc_nl_ingest_registered())
			return ERR_PTR(-ENOTCONN);
		if (!obj) {
			err = hc_cache_ingest(c, uri, len, &obj);
			if (err)
				return ERR_PTR(err);
			hc_nl_ingest_request(fsi->pool, obj);
			hc_cache_miss(c, uri, len);
		}
		waited = obj->generation;	/* INGESTING, or STAGED */
		err = hc_ctl_wait(obj->pe.key, deadline, false);
		if (err)
			return ERR_PTR(err);
	}
}

static struct dentry *hc_fs_lookup(struct inode *dir, struct dentry *dentry,
				   unsigned int flags)
{
	struct hc_fs_inode *hd = HC_FS_I(dir);
	struct hc_fs_info *fsi = HC_FS_SB(dir->i_sb);
	const u8 *name = dentry->d_name.name;
	u32 nlen = dentry->d_name.len;
	struct inode *inode = NULL;
	u64 gen = 0, size = 0, chunks = 0, mtime = 0;
	bool file = false, subdir = false;
	struct hc_cache *c;
	struct hc_obj *obj;
	int flen, dlen;
	u8 *buf;

	if (nlen > HC_FSPATH_NAME_MAX)
		return ERR_PTR(-ENAMETOOLONG);
	buf = kmalloc(HC_FS_URI_BUF, GFP_KERNEL);
	if (!buf)
		return ERR_PTR(-ENOMEM);
	/* The directory's prefix, then the name; a file has no '/' after it. */
	dlen = hc_fspath_child(hd->uri, hd->uri_len, name, nlen, true, buf,
			       HC_FS_URI_BUF);
	flen = hd->uri_len ? dlen - 1 : -ENOENT;
	if (dlen < 0) {
		kfree(buf);
		return dlen == -ENOENT ? d_splice_alias(NULL, dentry) :
					 ERR_PTR(dlen);
	}

	hc_pool_lock();
	c = fsi->pool->cache;
	obj = flen > 0 ? hc_fs_file_find(c, buf, flen) : NULL;
	if (obj) {
		file = true;
		gen = obj->generation;
		size = obj->size;
		chunks = hc_obj_chunks(obj);
		mtime = hc_obj_mtime_ns(obj);
	} else {
		subdir = hc_fs_dir_exists(c, buf, dlen);
	}
	/*
	 * ingest=on: a path that is not cached is ingested when it is opened
	 * as a file; walked through (or looked at) it may be a prefix, so it
	 * is a directory until then; a name being created is not there.
	 */
	if (!file && !subdir && fsi->ingest && !(flags & LOOKUP_CREATE)) {
		if (flen > 0 && (flags & (LOOKUP_OPEN | LOOKUP_DIRECTORY)) ==
				LOOKUP_OPEN)
			obj = hc_fs_ingest(fsi, buf, flen);
		else
			subdir = true;
	}
	if (!IS_ERR_OR_NULL(obj) && !file) {
		file = true;
		gen = obj->generation;
		size = obj->size;
		chunks = hc_obj_chunks(obj);
		mtime = hc_obj_mtime_ns(obj);
	}
	hc_pool_unlock();
	if (IS_ERR(obj)) {
		kfree(buf);
		return ERR_CAST(obj);
	}

	if (file)
		inode = hc_fs_inode_file(dir->i_sb, buf, flen, gen, size, chunks,
					 mtime);
	else if (subdir)
		inode = hc_fs_inode_dir(dir->i_sb, buf, dlen);
	else
		kfree(buf);
	return d_splice_alias(inode, dentry);
}

/* Is @dentry's inode still what the index says its path is? */
static int hc_fs_d_revalidate(struct dentry *dentry, unsigned int flags)
{
	struct inode *inode;
	struct hc_fs_inode *hi;
	struct hc_cache *c;
	struct hc_obj *obj;
	int valid;

	if (flags & LOOKUP_RCU)
		return -ECHILD;		/* the pool lock sleeps */
	inode = d_inode(dentry);
	if (!inode)
		return 0;		/* the object may be cached by now */
	hi = HC_FS_I(inode);
	if (!hi->uri_len)
		return 1;		/* the root */
	hc_pool_lock();
	c = HC_FS_SB(inode->i_sb)->pool->cache;
	if (S_ISDIR(inode->i_mode)) {
		valid = hc_fs_dir_exists(c, hi->uri, hi->uri_len) &&
			!hc_fs_file_find(c, hi->uri, hi->uri_len - 1);
	} else {
		obj = hc_fs_file_find(c, hi->uri, hi->uri_len);
		valid = obj && obj->generation == hi->generation;
	}
	hc_pool_unlock();
	return valid;
}

const struct dentry_operations hc_fs_dops = {
	.d_revalidate	= hc_fs_d_revalidate,
};

/* ---- readdir --------------------------------------------------------- */

#define HC_FS_BATCH	16

/**
 * struct hc_fs_dirent - one entry collected under the pool lock
 * @ent: how the URI gives the entry (hc_fspath_entry())
 * @ino: its inode number
 * @type: DT_REG or DT_DIR
 * @uri_len: bytes in @uri
 * @uri: the URI that gave it (the name is in it)
 */
struct hc_fs_dirent {
	struct hc_fspath_ent ent;
	u64 ino;
	u8 type;
	u32 uri_len;
	u8 uri[HC_FS_URI_BUF];
};

/**
 * struct hc_fs_dirpos - a place in a directory's listing
 * @pos: the ctx->pos of the entry there (2 = the first after the dots)
 * @key_len: the entry there is the first URI >= @key (> @key if @strict)
 * @strict: see @key_len
 * @key: URI bytes
 */
struct hc_fs_dirpos {
	loff_t pos;
	u32 key_len;
	bool strict;
	u8 key[HC_FS_URI_BUF];
};

/**
 * struct hc_fs_cursor - an open directory's listing state
 * @at: where the next readdir goes on
 * @scan: where hc_fs_collect() looks next
 * @batch: entries collected under the pool lock, emitted after it
 */
struct hc_fs_cursor {
	struct hc_fs_dirpos at;
	struct hc_fs_dirpos scan;
	struct hc_fs_dirent batch[HC_FS_BATCH];
};

static int hc_fs_dir_open(struct inode *inode, struct file *file)
{
	struct hc_fs_cursor *cur = kvzalloc(sizeof(*cur), GFP_KERNEL);

	if (!cur)
		return -ENOMEM;
	file->private_data = cur;
	return 0;
}

static int hc_fs_dir_release(struct inode *inode, struct file *file)
{
	kvfree(file->private_data);
	return 0;
}

static void hc_fs_dirpos_rewind(struct hc_fs_dirpos *cur,
				const struct hc_fs_inode *hd)
{
	cur->pos = 2;
	cur->key_len = hd->uri_len;
	if (hd->uri_len)
		memcpy(cur->key, hd->uri, hd->uri_len);
	cur->strict = false;
}

/* Move @cur past @d: where hc_fspath_skip_key() says. */
static void hc_fs_dirpos_past(struct hc_fs_dirpos *cur,
			      const struct hc_fs_dirent *d)
{
	u32 klen = hc_fspath_skip_key(d->uri, &d->ent, cur->key);

	cur->strict = !klen;
	if (!klen) {
		memcpy(cur->key, d->uri, d->uri_len);
		klen = d->uri_len;
	}
	cur->key_len = klen;
}

/*
 * Collect up to HC_FS_BATCH entries from the cursor on, moving the cursor
 * past hidden URIs (but not past what it collects).  Pool lock held; O(log
 * n) per URI looked at.  Return: the number collected.
 */
static u32 hc_fs_collect(struct hc_cache *c, const struct hc_fs_inode *hd,
			 struct hc_fs_cursor *cur)
{
	struct hc_fs_dirpos *scan = &cur->scan;
	u32 n = 0;

	memcpy(scan, &cur->at, sizeof(*scan));
	while (n < HC_FS_BATCH) {
		struct hc_fs_dirent *d = &cur->batch[n];
		struct hc_obj *o, *f;
		bool shown;

		o = hc_cache_ordered_ceil(c, scan->key, scan->key_len,
					  scan->strict);
		if (!o || !hc_obj_under(o, hd->uri, hd->uri_len))
			break;
		memcpy(d->uri, o->uri, o->uri_len);
		d->uri_len = o->uri_len;
		shown = !hc_fspath_entry(hd->uri, hd->uri_len, o->uri,
					 o->uri_len, &d->ent);
		if (shown && d->ent.is_dir) {
			/* A file of the same path shadows the directory. */
			f = hd->uri_len ?
			    hc_fs_file_find(c, o->uri, d->ent.skip_len - 1) :
			    NULL;
			shown = !f;
			d->type = DT_DIR;
			d->ino = hc_fs_dir_ino(o->uri, d->ent.skip_len);
		} else if (shown) {
			shown = hc_fs_obj_visible(o);
			d->type = DT_REG;
			d->ino = o->generation;
		}
		hc_fs_dirpos_past(scan, d);
		if (shown)
			n++;
	}
	return n;
}

static int hc_fs_readdir(struct file *file, struct dir_context *ctx)
{
	struct hc_fs_inode *hd = HC_FS_I(file_inode(file));
	struct hc_fs_info *fsi = HC_FS_SB(file_inode(file)->i_sb);
	struct hc_fs_cursor *cur = file->private_data;
	struct hc_fs_dirpos *at = &cur->at;
	u32 n, i;

	if (!dir_emit_dots(file, ctx))
		return 0;
	/* A seek elsewhere than where the cursor is: count from the start. */
	if (ctx->pos != at->pos || ctx->pos == 2)
		hc_fs_dirpos_rewind(at, hd);
	for (;;) {
		hc_pool_lock();
		n = hc_fs_collect(fsi->pool->cache, hd, cur);
		hc_pool_unlock();
		if (!n)
			return 0;
		for (i = 0; i < n; i++) {
			struct hc_fs_dirent *d = &cur->batch[i];

			if (at->pos == ctx->pos) {
				if (!dir_emit(ctx, d->uri + d->ent.name_off,
					      d->ent.name_len, d->ino,
					      d->type))
					return 0;
				ctx->pos++;
			}
			at->pos++;
			hc_fs_dirpos_past(at, d);
		}
	}
}

static loff_t hc_fs_dir_llseek(struct file *file, loff_t offset, int whence)
{
	return generic_file_llseek_size(file, offset, whence, LLONG_MAX,
					LLONG_MAX);
}

const struct file_operations hc_fs_dir_fops = {
	.open		= hc_fs_dir_open,
	.release	= hc_fs_dir_release,
	.iterate_shared	= hc_fs_readdir,
	.read		= generic_read_dir,
	.llseek		= hc_fs_dir_llseek,
};

/* ---- changes: create, unlink = evict, rmdir ------------------------ */

static int hc_fs_dir_create(hc_idmap_t *idmap, struct inode *dir,
			    struct dentry *dentry, umode_t mode, bool excl)
{
	return hc_fs_create(dir, dentry);
}

/*
 * unlink evicts the file's object, as hcctl evict does: EBUSY while it is
 * open or mapped (held), pinned, DIRTY or SYNCING; ENOENT if it went or
 * was replaced since the lookup.
 */
static int hc_fs_unlink(struct inode *dir, struct dentry *dentry)
{
	struct inode *inode = d_inode(dentry);
	struct hc_fs_inode *hi = HC_FS_I(inode);
	struct hc_cache *c;
	struct hc_obj *obj;
	int err;

	hc_pool_lock();
	c = HC_FS_SB(dir->i_sb)->pool->cache;
again:
	obj = hc_fs_file_find(c, hi->uri, hi->uri_len);
	if (!obj || obj->generation != hi->generation)
		err = -ENOENT;
	else
		err = hc_cache_evict(c, obj, false);
	if (err == -EAGAIN) {	/* being changed: look again */
		hc_cache_busy_wait();
		goto again;
	}
	hc_pool_unlock();
	if (!err)
		clear_nlink(inode);
	return err;
}

/*
 * A directory exists while objects lie under it, so it is never empty:
 * ENOTEMPTY while one does (shown or not: a stage, an ingest), and gone
 * (0) once the last one went.
 */
static int hc_fs_rmdir(struct inode *dir, struct dentry *dentry)
{
	struct hc_fs_inode *hi = HC_FS_I(d_inode(dentry));
	bool busy;

	hc_pool_lock();
	busy = hc_fs_dir_exists(HC_FS_SB(dir->i_sb)->pool->cache, hi->uri,
				hi->uri_len);
	hc_pool_unlock();
	if (busy)
		return -ENOTEMPTY;
	clear_nlink(d_inode(dentry));
	return 0;
}

const struct inode_operations hc_fs_dir_iops = {
	.lookup		= hc_fs_lookup,
	.create		= hc_fs_dir_create,
	.unlink		= hc_fs_unlink,
	.rmdir		= hc_fs_rmdir,
};
