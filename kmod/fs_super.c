// SPDX-License-Identifier: GPL-2.0
/*
 * The file system type "hypercache": mount, options, statfs, inodes.
 *
 * One super block per running pool; mounting needs a running pool
 * (-ENODEV otherwise), and the pool cannot stop while mounted (-EBUSY,
 * pool.c), so the super block's pool pointer never dangles.  The module
 * cannot be unloaded while mounted (the type's owner).  The view is
 * writable unless mounted "ro": create + write + close stores a new object
 * (fs_write.c), unlink evicts; rename, link, mkdir and attribute changes
 * are EPERM (Documentation/fs.md).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs_context.h>
#include <linux/fs_parser.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/statfs.h>
#include <linux/backing-dev.h>
#include <linux/random.h>
#include <linux/siphash.h>
#include "fs.h"

static struct kmem_cache *hc_fs_inode_cache;

/*
 * The key directories' inode numbers are hashed with (hc_fs_dir_ino()):
 * random, drawn when the module is loaded, and not the index's
 * (hc_cache_hash()), which readdir's d_ino would otherwise show a hash of.
 */
static siphash_key_t hc_fs_dir_ino_key __read_mostly;

/* ---- inodes ---------------------------------------------------------- */

static struct inode *hc_fs_alloc_inode(struct super_block *sb)
{
	struct hc_fs_inode *hi = alloc_inode_sb(sb, hc_fs_inode_cache,
						GFP_KERNEL);

	if (!hi)
		return NULL;
	hi->uri = NULL;
	hi->uri_len = 0;
	hi->generation = 0;
	hi->obj = NULL;
	hi->opens = 0;
	hi->stage = NULL;
	return &hi->vfs;
}

static void hc_fs_free_inode(struct inode *inode)
{
	struct hc_fs_inode *hi = HC_FS_I(inode);

	kfree(hi->uri);
	kmem_cache_free(hc_fs_inode_cache, hi);
}

static void hc_fs_inode_once(void *p)
{
	struct hc_fs_inode *hi = p;

	inode_init_once(&hi->vfs);
}

static void hc_fs_inode_common(struct inode *inode, umode_t mode)
{
	struct hc_fs_info *fsi = HC_FS_SB(inode->i_sb);

	inode->i_mode = mode;
	inode->i_uid = fsi->uid;
	inode->i_gid = fsi->gid;
	hc_inode_set_times(inode, fsi->mounted);
}

/**
 * hc_fs_dir_ino - the inode number of a directory
 * @prefix: its URI prefix, with the trailing '/' ("SCHEME://", "SCHEME://A/")
 * @len: its bytes (not 0: the root is HC_FS_ROOT_INO)
 *
 * The prefix's SipHash under a key drawn at module load, with the top bit
 * set (HC_FS_DIR_INO_BIT: never a file's, whose number is its generation):
 * the same for a prefix while the module is loaded (across remounts and an
 * inode's eviction), and nobody can choose two prefixes of one number, as
 * with an unkeyed hash (xxh64 with seed 0, before) anyone could.  lookup
 * (hc_fs_inode_dir()) and readdir's d_ino both take it from here.
 *
 * Return: the inode number.
 */
u64 hc_fs_dir_ino(const u8 *prefix, u32 len)
{
	return siphash(prefix, len, &hc_fs_dir_ino_key) | HC_FS_DIR_INO_BIT;
}

/**
 * hc_fs_inode_dir - a new inode for a directory
 * @sb: the super block
 * @prefix: its URI prefix, kmalloc'ed (NULL for the root); the inode owns
 *	it from here on, even on failure
 * @len: its bytes
 *
 * May sleep.  Return: the inode or ERR_PTR(-ENOMEM).
 */
struct inode *hc_fs_inode_dir(struct super_block *sb, u8 *prefix, u32 len)
{
	struct hc_fs_info *fsi = HC_FS_SB(sb);
	struct inode *inode = new_inode(sb);
	umode_t bits = fsi->mode | ((fsi->mode & 0444) >> 2);

	if (!inode) {
		kfree(prefix);
		return ERR_PTR(-ENOMEM);
	}
	HC_FS_I(inode)->uri = prefix;
	HC_FS_I(inode)->uri_len = len;
	inode->i_ino = len ? hc_fs_dir_ino(prefix, len) : HC_FS_ROOT_INO;
	hc_fs_inode_common(inode, S_IFDIR | bits);
	inode->i_op = &hc_fs_dir_iops;
	inode->i_fop = &hc_fs_dir_fops;
	set_nlink(inode, 2);
	return inode;
}

static int hc_fs_inode_test(struct inode *inode, void *data)
{
	return HC_FS_I(inode)->generation == *(u64 *)data;
}

static int hc_fs_inode_set(struct inode *inode, void *data)
{
	HC_FS_I(inode)->generation = *(u64 *)data;
	inode->i_ino = *(u64 *)data;
	return 0;
}

/**
 * hc_fs_inode_file - the inode of an object's generation
 * @sb: the super block
 * @uri: the URI, kmalloc'ed; consumed (kept by a new inode, else freed)
 * @len: its bytes
 * @generation: the object's generation: the inode number, so the number
 *	is stable for (URI, generation) and never reused while the module
 *	is loaded
 * @size: bytes
 * @chunks: chunks it occupies
 * @mtime: its times, CLOCK_REALTIME ns: the object's commit time
 *	(hc_obj.committed), or a stage's creation
 *
 * May sleep.  Return: the inode (referenced) or ERR_PTR(-ENOMEM).
 */
struct inode *hc_fs_inode_file(struct super_block *sb, u8 *uri, u32 len,
			       u64 generation, u64 size, u64 chunks, u64 mtime)
{
	struct hc_fs_info *fsi = HC_FS_SB(sb);
	struct inode *inode;

	inode = iget5_locked(sb, generation, hc_fs_inode_test,
			     hc_fs_inode_set, &generation);
	if (!inode) {
		kfree(uri);
		return ERR_PTR(-ENOMEM);
	}
	if (!(inode->i_state & I_NEW)) {
		kfree(uri);
		return inode;
	}
	HC_FS_I(inode)->uri = uri;
	HC_FS_I(inode)->uri_len = len;
	hc_fs_inode_common(inode, S_IFREG | fsi->mode);
	hc_inode_set_times(inode, ns_to_timespec64(mtime));
	inode->i_op = &hc_fs_file_iops;
	inode->i_fop = &hc_fs_file_fops;
	inode->i_mapping->a_ops = &hc_fs_aops;
	hc_mapping_large_folios(inode->i_mapping);
	i_size_write(inode, size);
	inode->i_blocks = chunks * (fsi->pool->chunk_size >> 9);
	set_nlink(inode, 1);
	unlock_new_inode(inode);
	return inode;
}

/* ---- the super block ------------------------------------------------- */

static int hc_fs_statfs(struct dentry *dentry, struct kstatfs *st)
{
	struct hc_fs_info *fsi = HC_FS_SB(dentry->d_sb);
	struct hc_cache *c;

	hc_pool_lock();
	c = fsi->pool->cache;
	st->f_type = HC_FS_MAGIC;
	st->f_bsize = fsi->pool->chunk_size;
	st->f_frsize = fsi->pool->chunk_size;
	st->f_blocks = c->nr_chunks;
	st->f_bfree = hc_alloc_free(&c->alloc);
	st->f_bavail = st->f_bfree;
	st->f_files = c->stats.objects;
	st->f_ffree = 0;
	st->f_namelen = HC_FSPATH_NAME_MAX;
	memcpy(&st->f_fsid, fsi->pool->uuid, sizeof(st->f_fsid));
	hc_pool_unlock();
	return 0;
}

static void hc_fs_evict_inode(struct inode *inode)
{
	hc_fs_stage_drop(inode);
	truncate_inode_pages_final(&inode->i_data);
	clear_inode(inode);
}

static int hc_fs_show_options(struct seq_file *m, struct dentry *root)
{
	struct hc_fs_info *fsi = HC_FS_SB(root->d_sb);

	seq_printf(m, ",uid=%u", from_kuid_munged(&init_user_ns, fsi->uid));
	seq_printf(m, ",gid=%u", from_kgid_munged(&init_user_ns, fsi->gid));
	seq_printf(m, ",mode=%04o", fsi->mode);
	if (fsi->ingest)
		seq_printf(m, ",ingest=on,ingest_timeout=%u",
			   fsi->ingest_ms / (u32)MSEC_PER_SEC);
	return 0;
}

static const struct super_operations hc_fs_sops = {
	.alloc_inode	= hc_fs_alloc_inode,
	.free_inode	= hc_fs_free_inode,
	.evict_inode	= hc_fs_evict_inode,
	.statfs		= hc_fs_statfs,
	.show_options	= hc_fs_show_options,
};

/* ---- mount ----------------------------------------------------------- */

enum {
	HC_FS_OPT_UID, HC_FS_OPT_GID, HC_FS_OPT_MODE, HC_FS_OPT_INGEST,
	HC_FS_OPT_INGEST_TIMEOUT,
};

#define HC_FS_INGEST_TIMEOUT_DEF	30	/* seconds */
#define HC_FS_INGEST_TIMEOUT_MAX	3600

/* "on" and "off" (6.1's fsparam_bool knows neither) */
static const struct constant_table hc_fs_onoff[] = {
	{ "off",	0 },
	{ "on",		1 },
	{}
};

static const struct fs_parameter_spec hc_fs_params[] = {
	fsparam_u32("uid", HC_FS_OPT_UID),
	fsparam_u32("gid", HC_FS_OPT_GID),
	fsparam_u32oct("mode", HC_FS_OPT_MODE),
	fsparam_enum("ingest", HC_FS_OPT_INGEST, hc_fs_onoff),
	fsparam_u32("ingest_timeout", HC_FS_OPT_INGEST_TIMEOUT),
	{}
};

/* The options of a mount being set up (fc->fs_private). */
struct hc_fs_opts {
	kuid_t uid;
	kgid_t gid;
	umode_t mode;
	bool ingest;
	u32 ingest_timeout;
};

static int hc_fs_parse_param(struct fs_context *fc, struct fs_parameter *param)
{
	struct hc_fs_opts *o = fc->fs_private;
	struct fs_parse_result r;
	int opt;

	opt = fs_parse(fc, hc_fs_params, param, &r);
	if (opt < 0)
		return opt;
	switch (opt) {
	case HC_FS_OPT_UID:
		o->uid = make_kuid(current_user_ns(), r.uint_32);
		if (!uid_valid(o->uid))
			return invalfc(fc, "uid=%u is not a valid user id",
				       r.uint_32);
		break;
	case HC_FS_OPT_GID:
		o->gid = make_kgid(current_user_ns(), r.uint_32);
		if (!gid_valid(o->gid))
			return invalfc(fc, "gid=%u is not a valid group id",
				       r.uint_32);
		break;
	case HC_FS_OPT_MODE:
		if (r.uint_32 & ~0777U)
			return invalfc(fc, "mode=%o: only permission bits (0..0777)",
				       r.uint_32);
		o->mode = r.uint_32;
		break;
	case HC_FS_OPT_INGEST:
		o->ingest = r.uint_32;
		break;
	case HC_FS_OPT_INGEST_TIMEOUT:
		if (!r.uint_32 || r.uint_32 > HC_FS_INGEST_TIMEOUT_MAX)
			return invalfc(fc, "ingest_timeout=%u: 1..%u seconds",
				       r.uint_32, HC_FS_INGEST_TIMEOUT_MAX);
		o->ingest_timeout = r.uint_32;
		break;
	}
	return 0;
}

static int hc_fs_fill_super(struct super_block *sb, struct fs_context *fc)
{
	struct hc_fs_opts *o = fc->fs_private;
	struct hc_fs_info *fsi;
	struct hc_pool *pool;
	struct inode *root;
	int err;

	fsi = kzalloc(sizeof(*fsi), GFP_KERNEL);
	if (!fsi)
		return -ENOMEM;
	hc_pool_lock();
	pool = hc_pool_current();
	if (!pool || pool->fs_sb) {
		hc_pool_unlock();
		kfree(fsi);
		if (!pool) {
			errorfc(fc, "no pool is running");
			return -ENODEV;
		}
		errorfc(fc, "the pool %s is already mounted", pool->name);
		return -EBUSY;
	}
	pool->fs_sb = sb;
	fsi->pool = pool;
	hc_pool_unlock();

	/* From here on hc_fs_kill_sb() undoes it all. */
	fsi->uid = o->uid;
	fsi->gid = o->gid;
	fsi->mode = o->mode;
	fsi->ingest = o->ingest;
	fsi->ingest_ms = o->ingest_timeout * MSEC_PER_SEC;
	ktime_get_real_ts64(&fsi->mounted);
	sb->s_fs_info = fsi;
	sb->s_magic = HC_FS_MAGIC;
	sb->s_op = &hc_fs_sops;
	sb->s_d_op = &hc_fs_dops;
	sb->s_flags |= SB_NOATIME;	/* SB_RDONLY: "ro", as given */
	sb->s_time_gran = 1;
	sb->s_maxbytes = MAX_LFS_FILESIZE;
	sb->s_blocksize = PAGE_SIZE;
	sb->s_blocksize_bits = PAGE_SHIFT;
	err = super_setup_bdi(sb);
	if (err)
		return err;
	/* Readahead of whole chunks: one sequential reader keeps a drive busy. */
	sb->s_bdi->ra_pages = pool->chunk_size >> PAGE_SHIFT;
	sb->s_bdi->io_pages = sb->s_bdi->ra_pages;

	root = hc_fs_inode_dir(sb, NULL, 0);
	if (IS_ERR(root))
		return PTR_ERR(root);
	sb->s_root = d_make_root(root);
	if (!sb->s_root)
		return -ENOMEM;
	return 0;
}

static int hc_fs_get_tree(struct fs_context *fc)
{
	return get_tree_nodev(fc, hc_fs_fill_super);
}

static void hc_fs_free_fc(struct fs_context *fc)
{
	kfree(fc->fs_private);
}

static const struct fs_context_operations hc_fs_context_ops = {
	.free		= hc_fs_free_fc,
	.parse_param	= hc_fs_parse_param,
	.get_tree	= hc_fs_get_tree,
};

static int hc_fs_init_fs_context(struct fs_context *fc)
{
	struct hc_fs_opts *o = kzalloc(sizeof(*o), GFP_KERNEL);

	if (!o)
		return -ENOMEM;
	/* Only root and the group given by gid= (hcctl mount: "hypercache"). */
	o->uid = GLOBAL_ROOT_UID;
	o->gid = GLOBAL_ROOT_GID;
	o->mode = 0440;
	o->ingest_timeout = HC_FS_INGEST_TIMEOUT_DEF;
	fc->fs_private = o;
	fc->ops = &hc_fs_context_ops;
	return 0;
}

static void hc_fs_kill_sb(struct super_block *sb)
{
	struct hc_fs_info *fsi = HC_FS_SB(sb);

	kill_anon_super(sb);
	if (!fsi)
		return;
	hc_pool_lock();
	if (fsi->pool->fs_sb == sb)
		fsi->pool->fs_sb = NULL;
	hc_pool_unlock();
	kfree(fsi);
}

static struct file_system_type hc_fs_type = {
	.owner			= THIS_MODULE,
	.name			= "hypercache",
	.init_fs_context	= hc_fs_init_fs_context,
	.parameters		= hc_fs_params,
	.kill_sb		= hc_fs_kill_sb,
};
MODULE_ALIAS_FS("hypercache");

/* Module init.  Return: 0 or a negative errno (nothing left behind). */
int hc_fs_register(void)
{
	int err;

	get_random_bytes(&hc_fs_dir_ino_key, sizeof(hc_fs_dir_ino_key));
	hc_fs_inode_cache = kmem_cache_create("hypercache_fs_inode",
					      sizeof(struct hc_fs_inode), 0,
					      SLAB_RECLAIM_ACCOUNT |
					      SLAB_ACCOUNT,
					      hc_fs_inode_once);
	if (!hc_fs_inode_cache)
		return -ENOMEM;
	err = register_filesystem(&hc_fs_type);
	if (err)
		kmem_cache_destroy(hc_fs_inode_cache);
	return err;
}

void hc_fs_unregister(void)
{
	unregister_filesystem(&hc_fs_type);
	rcu_barrier();		/* free_inode runs after a grace period */
	kmem_cache_destroy(hc_fs_inode_cache);
}
