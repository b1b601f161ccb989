/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The file system view of the cache: mount -t hypercache (Documentation/fs.md).
 *
 * fs_super.c: the type, mount options, statfs, inodes; fs_dir.c: the
 * namespace (lookup, readdir, revalidation) over the index's ordered view;
 * fs_file.c: open files, which hold their object, and reads (page cache
 * with chunk-sized readahead, mmap, O_DIRECT onto the pool's disk);
 * fs_write.c: writes (create + write + close stores a new object).
 *
 * Locking: the pool lock (hc_pool_lock()) around every look at the cache;
 * never held across user copies or I/O.  The pool cannot stop while a
 * super block exists (hc_pool.fs_sb), so hc_fs_info.pool stays valid.
 */
#ifndef HC_FS_H
#define HC_FS_H

#include <linux/fs.h>
#include "hypercache.h"
#include "core/fspath.h"

#define HC_FS_MAGIC		0x48434653	/* "HCFS" */
#define HC_FS_ROOT_INO		1
#define HC_FS_DIR_INO_BIT	BIT_ULL(63)	/* directories; files: generation */

/**
 * struct hc_fs_info - one mount (the super block's s_fs_info)
 * @pool: the pool it shows
 * @uid: owner of every inode (mount option uid=, default 0)
 * @gid: group of every inode (gid=, default 0)
 * @mode: permission bits of files (mode=, default 0440); directories get
 *	them plus x where r is set
 * @mounted: the directories' times (a file's are its object's commit time)
 * @ingest: ingest=on: opening a path that is not cached ingests it
 * @ingest_ms: how long such an open waits (ingest_timeout=, seconds)
 */
struct hc_fs_info {
	struct hc_pool *pool;
	kuid_t uid;
	kgid_t gid;
	umode_t mode;
	struct timespec64 mounted;
	bool ingest;
	u32 ingest_ms;
};

/**
 * struct hc_fs_inode - an inode of the view
 * @vfs: the VFS inode
 * @uri: a file's URI, a directory's URI prefix ("" for the root); owned
 * @uri_len: its bytes
 * @generation: a file's object generation (its inode number)
 * @obj: a file's object while @opens > 0 (held by each open file)
 * @opens: open files of this inode (pool lock)
 * @stage: a created file's STAGED object until its writer's open takes it
 *	(pool lock; fs_write.c)
 */
struct hc_fs_inode {
	struct inode vfs;
	u8 *uri;
	u32 uri_len;
	u64 generation;
	struct hc_obj *obj;
	u32 opens;
	struct hc_obj *stage;
};

static inline struct hc_fs_inode *HC_FS_I(struct inode *inode)
{
	return container_of(inode, struct hc_fs_inode, vfs);
}

static inline struct hc_fs_info *HC_FS_SB(struct super_block *sb)
{
	return sb->s_fs_info;
}

/* Objects shown as files: complete ones (READY, DIRTY, SYNCING). */
static inline bool hc_fs_obj_visible(const struct hc_obj *obj)
{
	return obj->state == HC_OBJ_READY || obj->state == HC_OBJ_DIRTY ||
	       obj->state == HC_OBJ_SYNCING;
}

/* fs_super.c */
u64 hc_fs_dir_ino(const u8 *prefix, u32 len);
struct inode *hc_fs_inode_dir(struct super_block *sb, u8 *prefix, u32 len);
struct inode *hc_fs_inode_file(struct super_block *sb, u8 *uri, u32 len,
			       u64 generation, u64 size, u64 chunks, u64 mtime);

/* fs_dir.c */
extern const struct inode_operations hc_fs_dir_iops;
extern const struct file_operations hc_fs_dir_fops;
extern const struct dentry_operations hc_fs_dops;

/* fs_file.c */
extern const struct file_operations hc_fs_file_fops;
extern const struct address_space_operations hc_fs_aops;

int hc_fs_obj_map(const struct hc_obj *obj, u32 chunk, loff_t pos,
		  u64 *addr, u64 *run);

/* fs_write.c: create + write + close stores a new object */
extern const struct inode_operations hc_fs_file_iops;
int hc_fs_write_open(struct inode *inode, struct file *file);
int hc_fs_create(struct inode *dir, struct dentry *dentry);
void hc_fs_stage_drop(struct inode *inode);

#endif /* HC_FS_H */
