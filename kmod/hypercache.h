/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A pool: N member block devices striped into one /dev/hypercacheN.
 */
#ifndef HC_HYPERCACHE_H
#define HC_HYPERCACHE_H

#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/mutex.h>
#include <linux/percpu-refcount.h>
#include <linux/completion.h>
#include <linux/workqueue.h>
#include "compat.h"
#include "core/stripe.h"
#include "core/sb.h"
#include "cache.h"
#include "journal.h"
#include "../uapi/hypercache_netlink.h"

/**
 * struct hc_member - one member of a pool
 * @dev: the exclusively opened block device
 * @sb: its decoded superblock
 */
/*
 * struct hc_hist - a latency histogram (stats.c): counts per bucket
 * (HC_STATS_HIST_BUCKETS, core/hist.h) and the sum in nanoseconds
 */
struct hc_hist {
	atomic64_t b[HC_STATS_HIST_BUCKETS];
	atomic64_t ns;
};

/*
 * struct hc_member_io - the I/O /dev/hypercacheN sent to one member
 * (stats.c): [0] reads, [1] writes
 */
struct hc_member_io {
	atomic64_t ops[2];
	atomic64_t bytes[2];
	atomic64_t errors;
	struct hc_hist lat[2];
};

struct hc_member {
	struct hc_bdev dev;
	struct hc_sb sb;
	struct hc_member_io io;
};

/**
 * struct hc_pool - a running pool
 * @stripe: geometry of the address space
 * @uuid: pool UUID
 * @chunk_size: bytes
 * @data_offset: bytes, start of the data area on every member
 * @disk: /dev/hypercacheN
 * @name: its name, kept for messages after the disk is gone
 * @devt: its device number
 * @clone_bs: bio set for the per-member clones (front pad: struct hc_io)
 * @split_bs: bio set for splits at chunk boundaries
 * @flush_bs: bio set for the member flushes of a pre-flush
 * @wq: runs @deferred_work (WQ_MEM_RECLAIM: it is on the writeback path)
 * @io_ref: counts bios in flight on the members; killed at stop
 * @io_done: completed when @io_ref drops to zero after the kill
 * @deferred: bios whose pre-flush finished, waiting for @deferred_work
 * @deferred_lock: protects @deferred
 * @deferred_work: submits @deferred bios from process context
 * @open_lock: protects @openers and @closing (taken in the disk's open)
 * @openers: open files of /dev/hypercacheN
 * @closing: a stop claimed the disk: opens fail with -ENODEV
 * @cache: the object cache (index, policy, allocator, write fence)
 * @journal: the object journal on the members' metadata areas
 * @nr_members: number of members
 * @fs_sb: the super block of the file system view while it is mounted
 *	(pool lock): the pool cannot stop then (fs_super.c)
 * @format: the on-disk format, 1 or 2 (hc_sb_format() of its superblocks):
 *	the journal version compaction and a new journal write
 * @members: the members, in index (stripe) order
 */
struct hc_pool {
	struct hc_stripe stripe;
	u8 uuid[16];
	u32 chunk_size;
	u64 data_offset;
	struct gendisk *disk;
	char name[DISK_NAME_LEN];
	dev_t devt;
	struct bio_set clone_bs;
	struct bio_set split_bs;
	struct bio_set flush_bs;
	struct workqueue_struct *wq;
	struct percpu_ref io_ref;
	struct completion io_done;
	struct bio_list deferred;
	spinlock_t deferred_lock;	/* protects @deferred; taken in end_io */
	struct work_struct deferred_work;
	spinlock_t open_lock;		/* protects @openers, @closing */
	u32 openers;
	bool closing;
	struct hc_cache *cache;
	struct hc_journal *journal;
	u32 nr_members;
	struct super_block *fs_sb;
	u32 format;
	struct hc_member members[];
};

/**
 * struct hc_pool_req - what create and assemble are asked to do
 * @n: number of member paths
 * @paths: member device paths (create: in stripe order; assemble: any order)
 * @flags: HC_POOL_F_* (create only)
 * @data_offset: requested data offset in bytes, 0 = automatic (create only)
 */
struct hc_pool_req {
	u32 n;
	const char *paths[HC_MAX_MEMBERS];
	u32 flags;
	u64 data_offset;
};

/**
 * struct hc_pool_fail - why a request failed
 * @pos: position in hc_pool_req.paths of the member at fault, or -1
 * @msg: static reason, for the extended ack
 */
struct hc_pool_fail {
	int pos;
	const char *msg;
};

/* pool.c: administration; every function may sleep and takes the pool lock. */
int hc_pool_create(const struct hc_pool_req *req, struct hc_pool_fail *fail);
int hc_pool_assemble(const struct hc_pool_req *req, struct hc_pool_fail *fail);
int hc_pool_stop(bool force, struct hc_pool_fail *fail);
int hc_pool_upgrade(struct hc_pool_fail *fail);
void hc_pool_lock(void);
void hc_pool_unlock(void);
struct hc_pool *hc_pool_current(void);	/* with the pool lock held */
bool hc_pool_trylock(void);
struct hc_pool *hc_pool_current_rcu(void);	/* under rcu_read_lock() */

/* member.c: member I/O outside the data path; may sleep. */
int hc_member_open(struct hc_member *m, const char *path, void *holder,
		   const char **msg);
void hc_member_close(struct hc_member *m, void *holder);
int hc_member_read_sb(struct hc_member *m, void *block);
int hc_member_write_sb(struct hc_member *m, const void *block);
int hc_member_io(struct hc_member *m, u64 off, void *buf, size_t len,
		 blk_opf_t opf);
int hc_members_flush(struct hc_member *m, u32 nr);

/* disk.c: /dev/hypercacheN. */
int hc_disk_register(void);
void hc_disk_unregister(void);
int hc_disk_start(struct hc_pool *pool);
void hc_disk_stop(struct hc_pool *pool);
int hc_disk_claim(struct hc_pool *pool, bool force);

/* ctl.c: /dev/hypercache-ctl, and the ioctl copy-in of both devices */
int hc_ctl_register(void);
void hc_ctl_unregister(void);
long hc_copy_struct_in(void *k, size_t ksize, size_t ver1, void __user *u);
int hc_copy_struct_out(void __user *u, const void *k, size_t ksize,
		       u32 usize);
bool hc_ctl_is_ctl_file(const struct file *file);

/* debugfs.c: /sys/kernel/debug/hypercache/check (tests only); never fails. */
void hc_debugfs_init(void);
void hc_debugfs_exit(void);

/* netlink.c: the family, pool administration, objects and statistics */
struct sk_buff;
struct genl_info;
struct net;
struct nlattr;
extern struct genl_family hc_nl_family;
int hc_nl_register(void);
struct hc_pool *hc_nl_peer_begin(struct genl_info *info, const u32 *port,
				 struct net *const *net,
				 const struct nlattr *uuid);
void hc_nl_unregister(void);
void hc_nl_notify(struct hc_pool *pool, u32 state);
int hc_nl_put_extents(struct sk_buff *msg, const struct hc_pool *pool,
		      const struct hc_obj *obj, int attr);
struct hc_bver;
int hc_nl_put_bver(struct sk_buff *msg, const struct hc_bver *v,
		   int etag_attr, int mtime_attr, int pad);
extern const struct nla_policy hc_nl_rev_rule_policy[];

/* ingest.c: the ingest helper channel (HC_CMD_INGEST*) */
void hc_nl_ingest_request(struct hc_pool *pool, struct hc_obj *obj);
void hc_nl_ingest_release(struct net *net, u32 portid);
u32 hc_nl_ingest_limit(void);
void hc_nl_ingest_stop(void);
int hc_nl_helper_register(struct sk_buff *skb, struct genl_info *info);
int hc_nl_ingest_alloc(struct sk_buff *skb, struct genl_info *info);
int hc_nl_ingest_done(struct sk_buff *skb, struct genl_info *info);
int hc_nl_ingest_fail(struct sk_buff *skb, struct genl_info *info);
struct hc_pool *hc_nl_ingest_peer_begin(struct genl_info *info,
					const struct nlattr *uuid);
int hc_nl_ingest_unicast(struct sk_buff *msg);
u32 hc_nl_ingest_timeout_ms(void);

/* reval.c: revalidation against the backend (HC_CMD_REVAL*) */
bool hc_reval_obj_due(const struct hc_obj *obj);	/* RCU or pool lock */
int hc_reval_gate(struct hc_pool *pool, struct hc_obj *obj,
		  u64 *waited);				/* sleeps */
void hc_reval_clear(void);
void hc_reval_release(struct hc_pool *pool);
void hc_reval_stop(void);
int hc_nl_reval_rules(struct sk_buff *skb, struct genl_info *info);
int hc_nl_revalidate_done(struct sk_buff *skb, struct genl_info *info);

/* egress.c: the egress channel and its scheduler (HC_CMD_EGRESS*) */
void hc_nl_egress_kick(void);
void hc_nl_egress_release(struct net *net, u32 portid);
void hc_nl_egress_stop(void);
int hc_nl_egress_register(struct sk_buff *skb, struct genl_info *info);
int hc_nl_egress_done(struct sk_buff *skb, struct genl_info *info);
int hc_nl_egress_fail(struct sk_buff *skb, struct genl_info *info);

/* stats.c: LOCATE latency, member I/O, the rest of HC_CMD_STATS_GET */
void hc_hist_add(struct hc_hist *h, u64 ns);		/* any context */
void hc_stats_locate_done(u64 ns);			/* any context */
void hc_stats_member_io(struct hc_member *m, enum req_op op, u32 bytes,
			blk_status_t status, u64 ns);	/* any context */
size_t hc_stats_msg_size(void);
int hc_stats_fill(struct sk_buff *msg, struct hc_pool *pool);
bool hc_nl_ingest_registered(void);	/* ingest.c, with the pool lock */
bool hc_nl_egress_registered(void);	/* egress.c, with the pool lock */

/* fs_super.c: the file system type "hypercache" (the view of the cache) */
int hc_fs_register(void);
void hc_fs_unregister(void);

/*
 * ctl.c: wait, with the pool lock held, until @size bytes fit under the
 * dirty limit (STAGE and GROW; fs_write.c's growing writers).
 */
struct hc_cache *hc_ctl_dirty_wait(u64 size, bool nowait,
				   struct hc_pool **poolp);
/*
 * ctl.c: with the pool lock held, wait (without it, interruptibly) for the
 * next change of an object whose URI hashes to @hash (hc_obj.pe.key: its
 * wait queue, hc_cache_waitq()), until @deadline (jiffies) unless
 * @forever.
 * Return: 0, -ETIMEDOUT or -EINTR; the lock is held again on return.
 */
int hc_ctl_wait(u64 hash, unsigned long deadline, bool forever);
/*
 * ctl.c: COMMIT's steps (write-back, seal, trim, flushes, the journal
 * record), the pool lock dropped for each I/O (the COMMIT ioctl and
 * fs_write.c's store).
 */
int hc_ctl_store(struct hc_pool *pool, struct hc_obj *obj, bool writeback,
		 u64 size, bool clean, bool has_crc, u32 crc);

#endif /* HC_HYPERCACHE_H */
