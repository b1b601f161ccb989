// SPDX-License-Identifier: GPL-2.0
/*
 * The "hypercache" generic netlink family: its policies and operation
 * table, pool administration and events, objects and statistics.  The
 * helper channels are in ingest.c and egress.c.
 * Documentation/netlink/specs/hypercache.yaml describes it.
 *
 * Requests are validated strictly against the policies below (unknown
 * attributes are refused); state-changing operations need CAP_NET_ADMIN,
 * and reads of the index and its counters follow the control device's
 * rule (hc_nl_may_read()).
 * Failures carry an extended-ack message and, when one member is at fault,
 * point at that member's HC_A_POOL_MEMBER nest.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/limits.h>
#include <linux/kdev_t.h>
#include <linux/blkdev.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/cred.h>
#include <linux/sched.h>
#include <net/genetlink.h>
#include "hypercache.h"
#include "../uapi/hypercache_netlink.h"

/*
 * One policy per operation, each accepting exactly the request attributes
 * of the spec: with strict validation an attribute without an entry (type
 * 0) or past the policy's end is refused, so a request cannot carry
 * reply-only attributes.  Each operation's maxattr is its policy's last
 * entry.
 */

/* Operations without request attributes: 1 is refused, any other too. */
static const struct nla_policy hc_nl_empty_policy[2] = {
	[1]			= { .type = NLA_REJECT },
};

static const struct nla_policy hc_nl_member_policy[HC_A_MEMBER_PATH + 1] = {
	[HC_A_MEMBER_PATH]	= { .type = NLA_NUL_STRING, .len = PATH_MAX - 1 },
};

static const struct nla_policy hc_nl_create_policy[HC_A_POOL_MAX + 1] = {
	[HC_A_POOL_DATA_OFFSET]	= { .type = NLA_U64 },
	[HC_A_POOL_FLAGS]	= NLA_POLICY_MASK(NLA_U32, HC_POOL_F_ALL),
	[HC_A_POOL_MEMBER]	= NLA_POLICY_NESTED(hc_nl_member_policy),
};

static const struct nla_policy hc_nl_assemble_policy[HC_A_POOL_MAX + 1] = {
	[HC_A_POOL_FLAGS]	= NLA_POLICY_MASK(NLA_U32, HC_POOL_F_ALL),
	[HC_A_POOL_MEMBER]	= NLA_POLICY_NESTED(hc_nl_member_policy),
};

static const struct nla_policy hc_nl_evict_policy[HC_A_OBJ_DISCARD_DIRTY + 1] = {
	[HC_A_OBJ_URI]		= { .type = NLA_BINARY, .len = HC_URI_MAX },
	[HC_A_OBJ_DISCARD_DIRTY] = NLA_POLICY_MAX(NLA_U8, 1),
};

static const struct nla_policy hc_nl_obj_get_policy[HC_A_OBJ_MAX + 1] = {
	[HC_A_OBJ_URI]		= { .type = NLA_BINARY, .len = HC_URI_MAX },
	[HC_A_OBJ_CTL_FD]	= { .type = NLA_U32 },
	[HC_A_OBJ_PREFIX]	= { .type = NLA_BINARY, .len = HC_URI_MAX },
};

static const struct nla_policy hc_nl_stats_policy[HC_A_STATS_MAX + 1] = {
	[HC_A_STATS_CTL_FD]	= { .type = NLA_U32 },
};

static const struct nla_policy hc_nl_pin_policy[HC_A_OBJ_PINNED + 1] = {
	[HC_A_OBJ_URI]		= { .type = NLA_BINARY, .len = HC_URI_MAX },
	[HC_A_OBJ_PINNED]	= NLA_POLICY_MAX(NLA_U8, 1),
};

/*
 * HC_A_*_LAST_MODIFIED: seconds since the epoch, 0 = unknown.  Not const:
 * 6.1's nla_policy points at a non-const range (never written).
 */
static struct netlink_range_validation hc_nl_last_modified_range = {
	.min = 0,
	.max = HC_LAST_MODIFIED_MAX,
};

static const struct nla_policy hc_nl_ing_alloc_policy[HC_A_ING_MAX + 1] = {
	[HC_A_ING_ID]		= { .type = NLA_U64 },
	[HC_A_ING_SIZE]		= { .type = NLA_U64 },
	[HC_A_ING_ETAG]		= { .type = NLA_NUL_STRING, .len = 127 },
	[HC_A_ING_POOL_UUID]	= NLA_POLICY_EXACT_LEN(16),
	[HC_A_ING_LAST_MODIFIED] = NLA_POLICY_FULL_RANGE(NLA_U64,
						&hc_nl_last_modified_range),
};

static const struct nla_policy hc_nl_ing_done_policy[HC_A_ING_MAX + 1] = {
	[HC_A_ING_ID]		= { .type = NLA_U64 },
	[HC_A_ING_CRC32C]	= { .type = NLA_U32 },
	[HC_A_ING_POOL_UUID]	= NLA_POLICY_EXACT_LEN(16),
};

static const struct nla_policy hc_nl_ing_fail_policy[HC_A_ING_MAX + 1] = {
	[HC_A_ING_ID]		= { .type = NLA_U64 },
	[HC_A_ING_ERRNO]	= NLA_POLICY_RANGE(NLA_U32, 1, MAX_ERRNO),
	[HC_A_ING_POOL_UUID]	= NLA_POLICY_EXACT_LEN(16),
};

static const struct nla_policy hc_nl_egr_done_policy[HC_A_EGRESS_MAX + 1] = {
	[HC_A_EGRESS_GENERATION] = { .type = NLA_U64 },
	[HC_A_EGRESS_URI]	= { .type = NLA_BINARY, .len = HC_URI_MAX },
	[HC_A_EGRESS_ETAG]	= { .type = NLA_NUL_STRING, .len = 127 },
	[HC_A_EGRESS_POOL_UUID]	= NLA_POLICY_EXACT_LEN(16),
	[HC_A_EGRESS_LAST_MODIFIED] = NLA_POLICY_FULL_RANGE(NLA_U64,
						&hc_nl_last_modified_range),
};

static const struct nla_policy hc_nl_egr_fail_policy[HC_A_EGRESS_MAX + 1] = {
	[HC_A_EGRESS_GENERATION] = { .type = NLA_U64 },
	[HC_A_EGRESS_URI]	= { .type = NLA_BINARY, .len = HC_URI_MAX },
	[HC_A_EGRESS_ERRNO]	= NLA_POLICY_RANGE(NLA_U32, 1, MAX_ERRNO),
	[HC_A_EGRESS_RETRY_MS]	= { .type = NLA_U32 },
	[HC_A_EGRESS_POOL_UUID]	= NLA_POLICY_EXACT_LEN(16),
	[HC_A_EGRESS_PERMANENT]	= NLA_POLICY_MAX(NLA_U8, 1),
	[HC_A_EGRESS_MESSAGE]	= { .type = NLA_NUL_STRING,
				    .len = HC_EGRESS_MESSAGE_MAX },
};

/* HC_A_REV_RULE_TTL: past a policy's s16 max, so a range (not const: 6.1). */
static struct netlink_range_validation hc_nl_reval_ttl_range = {
	.min = 0,
	.max = HC_REVAL_TTL_MAX,
};

/* HC_CMD_REVAL_RULES: a rule's nest (hc_nl_reval_rules(), kmod/reval.c). */
const struct nla_policy hc_nl_rev_rule_policy[HC_A_REV_RULE_MAX + 1] = {
	[HC_A_REV_RULE_PREFIX]	= NLA_POLICY_RANGE(NLA_BINARY, 1, HC_URI_MAX),
	[HC_A_REV_RULE_MODE]	= NLA_POLICY_MAX(NLA_U8, HC_REVAL_ALWAYS),
	[HC_A_REV_RULE_TTL]	= NLA_POLICY_FULL_RANGE(NLA_U32,
							&hc_nl_reval_ttl_range),
};

static const struct nla_policy hc_nl_rev_rules_policy[HC_A_REV_RULE + 1] = {
	[HC_A_REV_RULE]		= NLA_POLICY_NESTED(hc_nl_rev_rule_policy),
};

static const struct nla_policy hc_nl_rev_done_policy[HC_A_REV_ERRNO + 1] = {
	[HC_A_REV_ID]		= { .type = NLA_U64 },
	[HC_A_REV_POOL_UUID]	= NLA_POLICY_EXACT_LEN(16),
	[HC_A_REV_RESULT]	= NLA_POLICY_RANGE(NLA_U8, HC_REVAL_UNCHANGED,
						   HC_REVAL_FAILED),
	[HC_A_REV_ERRNO]	= NLA_POLICY_RANGE(NLA_U32, 1, MAX_ERRNO),
};

enum hc_nl_mcgrp {
	HC_NL_MCGRP_EVENTS,
};

static const struct genl_multicast_group hc_nl_mcgrps[] = {
	[HC_NL_MCGRP_EVENTS] = { .name = HC_GENL_MCGRP_EVENTS },
};

/* Device numbers on the wire: as user space's makedev(3) encodes them. */
static u32 hc_nl_dev(dev_t dev)
{
	return new_encode_dev(dev);
}

static int hc_nl_fill_member(struct sk_buff *msg, const struct hc_member *m,
			     u32 journal_repaired)
{
	struct block_device *bdev = m->dev.bdev;
	char name[DISK_NAME_LEN + 8];
	struct nlattr *nest;

	snprintf(name, sizeof(name), "%pg", bdev);
	nest = nla_nest_start(msg, HC_A_POOL_MEMBER);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(msg, HC_A_MEMBER_INDEX, m->sb.member_index) ||
	    nla_put_u32(msg, HC_A_MEMBER_DEV, hc_nl_dev(bdev->bd_dev)) ||
	    nla_put_string(msg, HC_A_MEMBER_NAME, name) ||
	    nla_put(msg, HC_A_MEMBER_UUID, 16, m->sb.member_uuid) ||
	    nla_put_u64_64bit(msg, HC_A_MEMBER_BYTES, bdev_nr_bytes(bdev),
			      HC_A_MEMBER_PAD) ||
	    nla_put_u64_64bit(msg, HC_A_MEMBER_CHUNKS, m->sb.member_chunks,
			      HC_A_MEMBER_PAD) ||
	    nla_put_u32(msg, HC_A_MEMBER_JOURNAL_REPAIRED, journal_repaired)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

/* Describe @pool; its members must still be open (the journal may be gone). */
static int hc_nl_fill_pool(struct sk_buff *msg, const struct hc_pool *pool,
			   u32 state)
{
	const struct hc_journal *j = pool->journal;
	u32 i;

	if (nla_put(msg, HC_A_POOL_UUID, 16, pool->uuid) ||
	    nla_put_u32(msg, HC_A_POOL_STATE, state) ||
	    nla_put_string(msg, HC_A_POOL_DISK, pool->name) ||
	    nla_put_u32(msg, HC_A_POOL_DISK_DEV, hc_nl_dev(pool->devt)) ||
	    nla_put_u32(msg, HC_A_POOL_FORMAT_VERSION, pool->format) ||
	    nla_put_u32(msg, HC_A_POOL_CHUNK_SIZE, pool->chunk_size) ||
	    nla_put_u32(msg, HC_A_POOL_MEMBER_COUNT, pool->nr_members) ||
	    nla_put_u64_64bit(msg, HC_A_POOL_CHUNKS,
			      hc_stripe_chunks(&pool->stripe), HC_A_POOL_PAD) ||
	    nla_put_u64_64bit(msg, HC_A_POOL_CAPACITY,
			      hc_stripe_sectors(&pool->stripe) << SECTOR_SHIFT,
			      HC_A_POOL_PAD) ||
	    nla_put_u64_64bit(msg, HC_A_POOL_DATA_OFFSET, pool->data_offset,
			      HC_A_POOL_PAD))
		return -EMSGSIZE;
	if (j && (nla_put_u32(msg, HC_A_POOL_JOURNAL, j->state) ||
		  nla_put_u32(msg, HC_A_POOL_JOURNAL_REPAIRED, j->repaired)))
		return -EMSGSIZE;
	for (i = 0; i < pool->nr_members; i++)
		if (hc_nl_fill_member(msg, &pool->members[i],
				      j ? j->member_repaired[i] : 0))
			return -EMSGSIZE;
	return 0;
}

/* Reply to @info with the running pool. */
static int hc_nl_reply_pool(struct genl_info *info, u8 cmd)
{
	struct hc_pool *pool;
	struct sk_buff *msg;
	void *hdr;
	int err;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &hc_nl_family, 0, cmd);
	if (!hdr) {
		err = -EMSGSIZE;
		goto out_free;
	}

	hc_pool_lock();
	pool = hc_pool_current();
	if (!pool) {
		NL_SET_ERR_MSG(info->extack, "no pool is running");
		err = -ENODEV;
	} else {
		err = hc_nl_fill_pool(msg, pool, HC_POOL_STATE_RUNNING);
	}
	hc_pool_unlock();
	if (err)
		goto out_free;

	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

out_free:
	nlmsg_free(msg);
	return err;
}

/* Multicast a pool event.  Called with the pool lock held. */
void hc_nl_notify(struct hc_pool *pool, u32 state)
{
	struct sk_buff *msg;
	void *hdr;

	if (!genl_has_listeners(&hc_nl_family, &init_net, HC_NL_MCGRP_EVENTS))
		return;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &hc_nl_family, 0, HC_CMD_POOL_NTF);
	if (!hdr || hc_nl_fill_pool(msg, pool, state)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast(&hc_nl_family, msg, 0, HC_NL_MCGRP_EVENTS,
			  GFP_KERNEL);
}

/*
 * Collect the member paths of a create/assemble request, in message order,
 * remembering each member's nest for error reports.
 */
static int hc_nl_parse_req(struct genl_info *info, struct hc_pool_req *req,
			   const struct nlattr **nests)
{
	struct nlattr *tb[HC_A_MEMBER_PATH + 1];
	const struct nlattr *attr;
	int rem, err;

	memset(req, 0, sizeof(*req));
	nlmsg_for_each_attr(attr, info->nlhdr, GENL_HDRLEN, rem) {
		if (nla_type(attr) != HC_A_POOL_MEMBER)
			continue;
		if (req->n == HC_MAX_MEMBERS) {
			NL_SET_ERR_MSG_ATTR(info->extack, attr,
					    "more than 64 members");
			return -EINVAL;
		}
		err = nla_parse_nested(tb, HC_A_MEMBER_PATH, attr,
				       hc_nl_member_policy, info->extack);
		if (err)
			return err;
		if (!tb[HC_A_MEMBER_PATH]) {
			NL_SET_ERR_MSG_ATTR(info->extack, attr,
					    "member without a path");
			return -EINVAL;
		}
		req->paths[req->n] = nla_data(tb[HC_A_MEMBER_PATH]);
		nests[req->n++] = attr;
	}
	if (!req->n) {
		NL_SET_ERR_MSG(info->extack, "no members given");
		return -EINVAL;
	}
	if (info->attrs[HC_A_POOL_FLAGS])
		req->flags = nla_get_u32(info->attrs[HC_A_POOL_FLAGS]);
	if (info->attrs[HC_A_POOL_DATA_OFFSET])
		req->data_offset = nla_get_u64(info->attrs[HC_A_POOL_DATA_OFFSET]);
	return 0;
}

/*
 * Report a pool failure in the extended ack.  The messages come from the
 * pool and superblock code as static strings chosen at run time, which the
 * NL_SET_ERR_MSG*() macros (string literals only) cannot take; this does
 * what they do.
 */
static void hc_nl_set_fail(struct genl_info *info,
			   const struct hc_pool_fail *fail,
			   const struct nlattr **nests)
{
	struct netlink_ext_ack *extack = info->extack;

	if (!extack || !fail->msg)
		return;
	extack->_msg = fail->msg;
	if (nests && fail->pos >= 0)
		extack->bad_attr = nests[fail->pos];
}

static int hc_nl_pool_build(struct genl_info *info, bool create)
{
	const struct nlattr *nests[HC_MAX_MEMBERS];
	struct hc_pool_fail fail;
	struct hc_pool_req *req;
	int err;

	req = kmalloc(sizeof(*req), GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	err = hc_nl_parse_req(info, req, nests);
	if (err)
		goto out;

	err = create ? hc_pool_create(req, &fail) :
		       hc_pool_assemble(req, &fail);
	if (err) {
		hc_nl_set_fail(info, &fail, nests);
		goto out;
	}
	err = hc_nl_reply_pool(info, create ? HC_CMD_POOL_CREATE :
					      HC_CMD_POOL_ASSEMBLE);
out:
	kfree(req);
	return err;
}

static int hc_nl_pool_create(struct sk_buff *skb, struct genl_info *info)
{
	return hc_nl_pool_build(info, true);
}

static int hc_nl_pool_assemble(struct sk_buff *skb, struct genl_info *info)
{
	return hc_nl_pool_build(info, false);
}

static int hc_nl_pool_upgrade(struct sk_buff *skb, struct genl_info *info)
{
	struct hc_pool_fail fail;
	int err;

	err = hc_pool_upgrade(&fail);
	if (err)
		hc_nl_set_fail(info, &fail, NULL);
	return err;
}

static int hc_nl_pool_stop(struct sk_buff *skb, struct genl_info *info)
{
	struct hc_pool_fail fail;
	int err;

	err = hc_pool_stop(false, &fail);
	if (err)
		hc_nl_set_fail(info, &fail, NULL);
	return err;
}

static int hc_nl_pool_get(struct sk_buff *skb, struct genl_info *info)
{
	return hc_nl_reply_pool(info, HC_CMD_POOL_GET);
}

/* ---- objects and statistics ------------------------------------------ */

/*
 * Who may read the index and its counters: the control device's rule.
 * CAP_NET_ADMIN, or @fd naming an open /dev/hypercache-ctl in the caller's
 * file table (whoever may open the device may LOCATE and STAT through it;
 * its mode and group decide who that is).  Called in the sender's context,
 * as every doit and a dump's start are.  Return: 0 or -EPERM.
 */
static int hc_nl_may_read(struct sk_buff *skb, const struct nlattr *fd,
			  struct netlink_ext_ack *extack)
{
	struct file *file;
	bool ok;

	if (netlink_capable(skb, CAP_NET_ADMIN))
		return 0;
	if (!fd) {
		NL_SET_ERR_MSG(extack,
			       "needs CAP_NET_ADMIN or an open /dev/hypercache-ctl (ctl-fd)");
		return -EPERM;
	}
	file = fget(nla_get_u32(fd));
	ok = file && hc_ctl_is_ctl_file(file);
	if (file)
		fput(file);
	if (!ok) {
		NL_SET_ERR_MSG_ATTR(extack, fd, "not an open /dev/hypercache-ctl");
		return -EPERM;
	}
	return 0;
}

/* @obj's extents, in bytes of the device, as nests of type @attr. */
int hc_nl_put_extents(struct sk_buff *msg, const struct hc_pool *pool,
		      const struct hc_obj *obj, int attr)
{
	struct nlattr *nest;
	u32 i;

	for (i = 0; i < obj->nr_ext; i++) {
		struct hc_extent e = hc_obj_extent(obj, pool->chunk_size, i);

		nest = nla_nest_start(msg, attr);
		if (!nest ||
		    nla_put_u64_64bit(msg, HC_A_EXT_OFFSET, e.offset,
				      HC_A_EXT_PAD) ||
		    nla_put_u64_64bit(msg, HC_A_EXT_LENGTH, e.length,
				      HC_A_EXT_PAD))
			return -EMSGSIZE;
		nla_nest_end(msg, nest);
	}
	return 0;
}

/* The last failed upload of a DIRTY object (HC_A_OBJ_EGRESS_*). */
static int hc_nl_fill_egress_err(struct sk_buff *msg,
				 const struct hc_egress_err *e)
{
	struct nlattr *a;

	if (nla_put_u32(msg, HC_A_OBJ_EGRESS_ERRNO, e->err) ||
	    nla_put_u32(msg, HC_A_OBJ_EGRESS_FAILURES, e->failures) ||
	    nla_put_u64_64bit(msg, HC_A_OBJ_EGRESS_FAILED_AT, e->failed_at,
			      HC_A_OBJ_PAD) ||
	    nla_put_u8(msg, HC_A_OBJ_EGRESS_PERMANENT, e->permanent))
		return -EMSGSIZE;
	if (!e->msg_len)
		return 0;
	a = nla_reserve(msg, HC_A_OBJ_EGRESS_MESSAGE, e->msg_len + 1);
	if (!a)
		return -EMSGSIZE;
	memcpy(nla_data(a), e->msg, e->msg_len);
	((char *)nla_data(a))[e->msg_len] = 0;
	return 0;
}

/*
 * The backend version of an object: its ETag (a NUL-terminated string) as
 * @etag_attr and its Last-Modified as @mtime_attr (padded with @pad), each
 * only when known (HC_A_OBJ_ETAG and _LAST_MODIFIED; HC_A_REV_*).
 */
int hc_nl_put_bver(struct sk_buff *msg, const struct hc_bver *v,
		   int etag_attr, int mtime_attr, int pad)
{
	struct nlattr *a;

	if (v->mtime && nla_put_u64_64bit(msg, mtime_attr, v->mtime, pad))
		return -EMSGSIZE;
	if (!v->etag_len)
		return 0;
	a = nla_reserve(msg, etag_attr, v->etag_len + 1);
	if (!a)
		return -EMSGSIZE;
	memcpy(nla_data(a), v->etag, v->etag_len);
	((char *)nla_data(a))[v->etag_len] = 0;
	return 0;
}

static int hc_nl_fill_obj(struct sk_buff *msg, const struct hc_pool *pool,
			  const struct hc_obj *obj)
{
	if (nla_put(msg, HC_A_OBJ_URI, obj->uri_len, obj->uri) ||
	    nla_put_u32(msg, HC_A_OBJ_STATE, obj->state) ||
	    nla_put_u32(msg, HC_A_OBJ_FLAGS, hc_obj_flags(obj)) ||
	    nla_put_u64_64bit(msg, HC_A_OBJ_SIZE, obj->size, HC_A_OBJ_PAD) ||
	    nla_put_u64_64bit(msg, HC_A_OBJ_GENERATION, obj->generation,
			      HC_A_OBJ_PAD) ||
	    nla_put_u64_64bit(msg, HC_A_OBJ_CHUNKS, hc_obj_chunks(obj), HC_A_OBJ_PAD) ||
	    nla_put_u32(msg, HC_A_OBJ_HOLDS, atomic_read(&obj->holds)))
		return -EMSGSIZE;
	if (hc_obj_bver(obj) &&
	    hc_nl_put_bver(msg, hc_obj_bver(obj), HC_A_OBJ_ETAG,
			   HC_A_OBJ_LAST_MODIFIED, HC_A_OBJ_PAD))
		return -EMSGSIZE;
	if (hc_obj_egress_err(obj) &&
	    hc_nl_fill_egress_err(msg, hc_obj_egress_err(obj)))
		return -EMSGSIZE;
	return hc_nl_put_extents(msg, pool, obj, HC_A_OBJ_EXTENT);
}

/*
 * The object named by HC_A_OBJ_URI in the running pool, with the pool lock
 * held.  On failure the lock is dropped and the extack set.
 */
static struct hc_obj *hc_nl_obj_lookup(struct genl_info *info,
				       struct hc_pool **poolp)
{
	struct nlattr *a = info->attrs[HC_A_OBJ_URI];
	struct hc_pool *pool;
	struct hc_obj *obj;

	if (!a || !nla_len(a) || memchr(nla_data(a), 0, nla_len(a))) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "a URI of 1..1024 bytes without NUL is needed");
		return ERR_PTR(-EINVAL);
	}
	hc_pool_lock();
	pool = hc_pool_current();
	if (!pool) {
		hc_pool_unlock();
		NL_SET_ERR_MSG(info->extack, "no pool is running");
		return ERR_PTR(-ENODEV);
	}
	hc_cache_bad_settle(pool->cache);
	obj = hc_cache_lookup(pool->cache, nla_data(a), nla_len(a));
	if (!obj) {
		hc_pool_unlock();
		NL_SET_ERR_MSG_ATTR(info->extack, a, "no such object");
		return ERR_PTR(-ENOENT);
	}
	*poolp = pool;
	return obj;
}

static int hc_nl_obj_get(struct sk_buff *skb, struct genl_info *info)
{
	struct hc_pool *pool;
	struct hc_obj *obj;
	struct sk_buff *msg;
	void *hdr;
	int err;

	err = hc_nl_may_read(skb, info->attrs[HC_A_OBJ_CTL_FD], info->extack);
	if (err)
		return err;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	obj = hc_nl_obj_lookup(info, &pool);
	if (IS_ERR(obj)) {
		nlmsg_free(msg);
		return PTR_ERR(obj);
	}
	hdr = genlmsg_put_reply(msg, info, &hc_nl_family, 0, HC_CMD_OBJ_GET);
	err = hdr ? hc_nl_fill_obj(msg, pool, obj) : -EMSGSIZE;
	hc_pool_unlock();
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

struct hc_nl_dump {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	struct hc_pool *pool;
};

static int hc_nl_obj_dump_one(void *arg, struct hc_obj *obj)
{
	struct hc_nl_dump *d = arg;
	void *hdr;

	hdr = genlmsg_put(d->skb, NETLINK_CB(d->cb->skb).portid,
			  d->cb->nlh->nlmsg_seq, &hc_nl_family, NLM_F_MULTI,
			  HC_CMD_OBJ_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (hc_nl_fill_obj(d->skb, d->pool, obj)) {
		genlmsg_cancel(d->skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(d->skb, hdr);
	return 0;
}

/*
 * A dump starts in the sender's context: check it there, once.  Its
 * cursor (the URI of the last object sent, and the request's
 * HC_A_OBJ_PREFIX) is kept in cb->args[0] until hc_nl_obj_dump_done().
 */
static int hc_nl_obj_dump_start(struct netlink_callback *cb)
{
	struct nlattr **attrs = hc_genl_dump_attrs(cb);
	struct nlattr *prefix = attrs[HC_A_OBJ_PREFIX];
	struct hc_cache_cursor *cur;
	int err;

	err = hc_nl_may_read(cb->skb, attrs[HC_A_OBJ_CTL_FD], cb->extack);
	if (err)
		return err;
	cur = kmalloc(sizeof(*cur), GFP_KERNEL);
	if (!cur)
		return -ENOMEM;
	cur->len = 0;
	/* at most HC_URI_MAX bytes: the policy */
	cur->prefix_len = prefix ? nla_len(prefix) : 0;
	if (cur->prefix_len)
		memcpy(cur->prefix, nla_data(prefix), cur->prefix_len);
	cb->args[0] = (long)cur;
	return 0;
}

static int hc_nl_obj_dump_done(struct netlink_callback *cb)
{
	kfree((struct hc_cache_cursor *)cb->args[0]);
	return 0;
}

/*
 * Dump every object (or those under HC_A_OBJ_PREFIX), in URI order, each
 * message resuming after the last object sent (hc_cache_for_each()):
 * objects that exist throughout the dump are each sent once, whatever
 * changes between the messages.  A dump that spans a pool restart
 * continues in the new pool's index.
 */
static int hc_nl_obj_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct hc_cache_cursor *cur = (struct hc_cache_cursor *)cb->args[0];
	struct hc_nl_dump d = { .skb = skb, .cb = cb };
	int err;

	hc_pool_lock();
	d.pool = hc_pool_current();
	if (!d.pool) {
		hc_pool_unlock();
		return skb->len ? skb->len : -ENODEV;
	}
	hc_cache_bad_settle(d.pool->cache);
	err = hc_cache_for_each(d.pool->cache, cur, hc_nl_obj_dump_one, &d);
	hc_pool_unlock();
	if (err && !skb->len)
		return err;	/* one object does not fit an empty message */
	return skb->len;
}

/*
 * The record of a discarded DIRTY object, in the kernel log: what was
 * thrown away, what its uploads had said, and who asked.
 */
static void hc_nl_log_discard(const struct hc_obj *obj, u64 dirty_ns)
{
	const struct hc_egress_err *e = hc_obj_egress_err(obj);

	pr_warn("discarded DIRTY object %*pE (generation %llu, %llu bytes, dirty for %llu s, never uploaded; %u failed uploads, last errno %u%s%*pE) at the request of %s[%d] uid %u\n",
		(int)obj->uri_len, obj->uri, obj->generation, obj->size,
		div_u64(dirty_ns, NSEC_PER_SEC), e ? e->failures : 0,
		e ? e->err : 0, e && e->msg_len ? ": " : "",
		e ? (int)e->msg_len : 0, e ? e->msg : "", current->comm,
		task_tgid_vnr(current),
		from_kuid(&init_user_ns, current_uid()));
}

static int hc_nl_obj_evict(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *discard = info->attrs[HC_A_OBJ_DISCARD_DIRTY];
	bool dirty, discard_dirty = discard && nla_get_u8(discard);
	struct hc_pool *pool;
	struct hc_obj *obj;
	u64 dirty_ns;
	int err;

again:
	obj = hc_nl_obj_lookup(info, &pool);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	dirty = obj->state == HC_OBJ_DIRTY;
	/* DIRTY: it has its transit (cache.h) */
	dirty_ns = dirty ? ktime_get_boottime_ns() -
			   hc_obj_transit(obj)->dirty_since : 0;
	if (dirty && discard_dirty && !atomic_read(&obj->holds) &&
	    !(obj->flags & HC_OBJ_F_PINNED))
		hc_nl_log_discard(obj, dirty_ns);	/* before it is freed */
	err = hc_cache_evict(pool->cache, obj, discard_dirty);
	if (err == -EAGAIN) {	/* being changed: look it up again */
		hc_cache_busy_wait();
		hc_pool_unlock();
		goto again;
	}
	hc_pool_unlock();
	if (err == -EBUSY && dirty && !discard_dirty)
		NL_SET_ERR_MSG(info->extack,
			       "dirty: its backend does not have it yet (discard-dirty throws it away)");
	else if (err == -EBUSY)
		NL_SET_ERR_MSG(info->extack,
			       "object is held, pinned, staged, ingesting or being uploaded");
	return err;
}

static int hc_nl_obj_pin(struct sk_buff *skb, struct genl_info *info)
{
	struct hc_pool *pool;
	struct hc_obj *obj;
	int err;

	if (!info->attrs[HC_A_OBJ_PINNED]) {
		NL_SET_ERR_MSG(info->extack, "the pin to set is needed");
		return -EINVAL;
	}
again:
	obj = hc_nl_obj_lookup(info, &pool);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	err = hc_cache_pin(pool->cache, obj,
			   nla_get_u8(info->attrs[HC_A_OBJ_PINNED]));
	if (err == -EBUSY) {	/* being changed: look it up again */
		hc_cache_busy_wait();
		hc_pool_unlock();
		goto again;
	}
	hc_pool_unlock();
	return err;
}

static int hc_nl_fill_stats(struct sk_buff *msg, const struct hc_cache *c)
{
	const struct hc_cache_stats *s = &c->stats;
	const struct {
		int attr;
		u64 val;
	} v[] = {
		{ HC_A_STATS_HITS, hc_cache_hits(c) },
		{ HC_A_STATS_MISSES, s->misses },
		{ HC_A_STATS_ADMISSIONS, s->admissions },
		{ HC_A_STATS_REJECTIONS, s->rejections },
		{ HC_A_STATS_EVICTIONS, s->evictions },
		{ HC_A_STATS_OBJECTS, s->objects },
		{ HC_A_STATS_BYTES_USED,
		  (c->nr_chunks - hc_alloc_free(&c->alloc)) * c->chunk_size },
		{ HC_A_STATS_CAPACITY, c->nr_chunks * c->chunk_size },
		{ HC_A_STATS_INGESTING, s->by_state[HC_OBJ_INGESTING] },
		{ HC_A_STATS_READY, s->by_state[HC_OBJ_READY] },
		{ HC_A_STATS_STAGED, s->by_state[HC_OBJ_STAGED] },
		{ HC_A_STATS_DIRTY, s->by_state[HC_OBJ_DIRTY] },
		{ HC_A_STATS_SYNCING, s->by_state[HC_OBJ_SYNCING] },
		{ HC_A_STATS_PINNED, s->pinned },
		{ HC_A_STATS_HELD, s->held },
		{ HC_A_STATS_DIRTY_BYTES, c->dirty_bytes },
		{ HC_A_STATS_DIRTY_LIMIT, hc_cache_dirty_limit() },
		{ HC_A_STATS_EGRESS_DONE, s->egress_done },
		{ HC_A_STATS_EGRESS_FAILED, s->egress_failed },
		{ HC_A_STATS_REVALIDATIONS, s->revalidations },
		{ HC_A_STATS_REVAL_UNCHANGED, s->reval_unchanged },
		{ HC_A_STATS_REVAL_CHANGED, s->reval_changed },
		{ HC_A_STATS_REVAL_FAILED, s->reval_failed },
	};
	u32 i;

	for (i = 0; i < ARRAY_SIZE(v); i++)
		if (nla_put_u64_64bit(msg, v[i].attr, v[i].val,
				      HC_A_STATS_PAD))
			return -EMSGSIZE;
	return 0;
}

/*
 * Reply to @info with command @cmd and the running pool's counters (the
 * HC_CMD_STATS_GET attributes), after @run, if set, did its work: under
 * the pool lock (it may drop and take it again), 0 or a negative errno
 * with the reason in the extack.
 */
static int hc_nl_reply_stats(struct genl_info *info, u8 cmd,
			     int (*run)(struct genl_info *info))
{
	struct hc_pool *pool;
	struct sk_buff *msg;
	void *hdr;
	int err;

	msg = genlmsg_new(hc_stats_msg_size(), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &hc_nl_family, 0, cmd);
	if (!hdr) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	hc_pool_lock();
	err = run ? run(info) : 0;
	pool = hc_pool_current();
	if (!err && !pool) {
		NL_SET_ERR_MSG(info->extack, "no pool is running");
		err = -ENODEV;
	}
	if (!err)
		err = hc_nl_fill_stats(msg, pool->cache);
	if (!err)
		err = hc_stats_fill(msg, pool);
	hc_pool_unlock();
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int hc_nl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	int err;

	err = hc_nl_may_read(skb, info->attrs[HC_A_STATS_CTL_FD], info->extack);
	if (err)
		return err;
	return hc_nl_reply_stats(info, HC_CMD_STATS_GET, NULL);
}

/*
 * Compact the running pool's slab now, after a background run under way
 * (it holds no pool lock during its I/O: waited for, not EBUSY).
 */
static int hc_nl_compact_run(struct genl_info *info)
{
	struct hc_pool *pool;
	int err;

	for (;;) {
		pool = hc_pool_current();
		if (!pool)
			return 0;	/* hc_nl_reply_stats() says ENODEV */
		err = hc_compact_run(pool->cache, HC_COMPACT_RUN_PASSES);
		if (err != -EBUSY)
			return err < 0 ? err : 0;
		if (READ_ONCE(pool->cache->compact.stopping)) {
			NL_SET_ERR_MSG(info->extack, "the pool is stopping");
			return err;
		}
		hc_cache_busy_wait();
	}
}

/* Compact the slab now; the counters after it (uapi: HC_CMD_POOL_COMPACT). */
static int hc_nl_pool_compact(struct sk_buff *skb, struct genl_info *info)
{
	return hc_nl_reply_stats(info, HC_CMD_POOL_COMPACT, hc_nl_compact_run);
}

/*
 * A netlink socket closed: if it was a helper's (same namespace and port),
 * that registration ends.  An unprivileged user can bind any port number
 * in a network namespace of its own, so the port alone proves nothing.
 */
static int hc_nl_release(struct notifier_block *nb, unsigned long event,
			 void *ptr)
{
	struct netlink_notify *n = ptr;

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC)
		return NOTIFY_DONE;
	hc_pool_lock();
	hc_nl_ingest_release(n->net, n->portid);
	hc_nl_egress_release(n->net, n->portid);
	hc_pool_unlock();
	return NOTIFY_DONE;
}

static struct notifier_block hc_nl_notifier = {
	.notifier_call = hc_nl_release,
};

static const struct genl_ops hc_nl_ops[] = {
	{
		.cmd	= HC_CMD_POOL_CREATE,
		.doit	= hc_nl_pool_create,
		.policy	= hc_nl_create_policy,
		.maxattr = ARRAY_SIZE(hc_nl_create_policy) - 1,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= HC_CMD_POOL_ASSEMBLE,
		.doit	= hc_nl_pool_assemble,
		.policy	= hc_nl_assemble_policy,
		.maxattr = ARRAY_SIZE(hc_nl_assemble_policy) - 1,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= HC_CMD_POOL_STOP,
		.doit	= hc_nl_pool_stop,
		.policy	= hc_nl_empty_policy,
		.maxattr = ARRAY_SIZE(hc_nl_empty_policy) - 1,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= HC_CMD_POOL_UPGRADE,
		.doit	= hc_nl_pool_upgrade,
		.policy	= hc_nl_empty_policy,
		.maxattr = ARRAY_SIZE(hc_nl_empty_policy) - 1,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= HC_CMD_POOL_COMPACT,
		.doit	= hc_nl_pool_compact,
		.policy	= hc_nl_empty_policy,
		.maxattr = ARRAY_SIZE(hc_nl_empty_policy) - 1,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= HC_CMD_POOL_GET,
		.doit	= hc_nl_pool_get,
		.policy	= hc_nl_empty_policy,
		.maxattr = ARRAY_SIZE(hc_nl_empty_policy) - 1,
	},
	{
		.cmd	= HC_CMD_OBJ_GET,
		.doit	= hc_nl_obj_get,
		.start	= hc_nl_obj_dump_start,
		.dumpit	= hc_nl_obj_dump,
		.done	= hc_nl_obj_dump_done,
		.policy	= hc_nl_obj_get_policy,
		.maxattr = ARRAY_SIZE(hc_nl_obj_get_policy) - 1,
	},
	{
		.cmd	= HC_CMD_OBJ_EVICT,
		.doit	= hc_nl_obj_evict,
		.policy	= hc_nl_evict_policy,
		.maxattr = ARRAY_SIZE(hc_nl_evict_policy) - 1,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= HC_CMD_OBJ_PIN,
		.doit	= hc_nl_obj_pin,
		.policy	= hc_nl_pin_policy,
		.maxattr = ARRAY_SIZE(hc_nl_pin_policy) - 1,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= HC_CMD_STATS_GET,
		.doit	= hc_nl_stats_get,
		.policy	= hc_nl_stats_policy,
		.maxattr = ARRAY_SIZE(hc_nl_stats_policy) - 1,
	},
	{
		.cmd	= HC_CMD_HELPER_REGISTER,
		.doit	= hc_nl_helper_register,
		.policy	= hc_nl_empty_policy,
		.maxattr = ARRAY_SIZE(hc_nl_empty_policy) - 1,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= HC_CMD_INGEST_ALLOC,
		.doit	= hc_nl_ingest_alloc,
		.policy	= hc_nl_ing_alloc_policy,
		.maxattr = ARRAY_SIZE(hc_nl_ing_alloc_policy) - 1,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= HC_CMD_INGEST_DONE,
		.doit	= hc_nl_ingest_done,
		.policy	= hc_nl_ing_done_policy,
		.maxattr = ARRAY_SIZE(hc_nl_ing_done_policy) - 1,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= HC_CMD_INGEST_FAIL,
		.doit	= hc_nl_ingest_fail,
		.policy	= hc_nl_ing_fail_policy,
		.maxattr = ARRAY_SIZE(hc_nl_ing_fail_policy) - 1,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= HC_CMD_EGRESS_REGISTER,
		.doit	= hc_nl_egress_register,
		.policy	= hc_nl_empty_policy,
		.maxattr = ARRAY_SIZE(hc_nl_empty_policy) - 1,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= HC_CMD_EGRESS_DONE,
		.doit	= hc_nl_egress_done,
		.policy	= hc_nl_egr_done_policy,
		.maxattr = ARRAY_SIZE(hc_nl_egr_done_policy) - 1,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= HC_CMD_EGRESS_FAIL,
		.doit	= hc_nl_egress_fail,
		.policy	= hc_nl_egr_fail_policy,
		.maxattr = ARRAY_SIZE(hc_nl_egr_fail_policy) - 1,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= HC_CMD_REVAL_RULES,
		.doit	= hc_nl_reval_rules,
		.policy	= hc_nl_rev_rules_policy,
		.maxattr = ARRAY_SIZE(hc_nl_rev_rules_policy) - 1,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= HC_CMD_REVALIDATE_DONE,
		.doit	= hc_nl_revalidate_done,
		.policy	= hc_nl_rev_done_policy,
		.maxattr = ARRAY_SIZE(hc_nl_rev_done_policy) - 1,
		.flags	= GENL_ADMIN_PERM,
	},
};

/*
 * parallel_ops: the handlers do not need genl_mutex.  Every piece of state
 * they share (the pool, its cache, the helpers' registrations, the egress
 * scheduler) is under the pool lock, which each of them takes itself, and
 * the dump keeps its position in cb->args.  Without it, a handler waiting
 * for the pool lock (a COMMIT's member flushes, a pool create's I/O) would
 * hold genl_mutex and stall every generic netlink family on the host.
 */
struct genl_family hc_nl_family __ro_after_init = {
	.name		= HC_GENL_NAME,
	.version	= HC_GENL_VERSION,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.ops		= hc_nl_ops,
	.n_ops		= ARRAY_SIZE(hc_nl_ops),
	.resv_start_op	= HC_CMD_POOL_CREATE,
	.mcgrps		= hc_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(hc_nl_mcgrps),
};

/**
 * hc_nl_peer_begin - start a request of one of the helper channels
 * @info: the request
 * @port: the port of the registration it must come from (read under the
 *	pool lock: a registration changes only under it)
 * @net: and its network namespace (a port alone proves nothing: anybody
 *	can bind any port number in a namespace of its own)
 * @uuid: the request's pool UUID attribute, or NULL (an older helper)
 *
 * The one check of both channels (ingest.c, egress.c).  The caller sets
 * the extack message of a refusal.
 *
 * Return: with the pool lock held, the running pool (NULL if none); or,
 * with the lock dropped, ERR_PTR(-EPERM) (not from that registration) or
 * ERR_PTR(-ESTALE) (@uuid names another pool).
 */
struct hc_pool *hc_nl_peer_begin(struct genl_info *info, const u32 *port,
				 struct net *const *net,
				 const struct nlattr *uuid)
{
	struct hc_pool *pool;

	hc_pool_lock();
	if (!*port || info->snd_portid != *port ||
	    !net_eq(genl_info_net(info), *net)) {
		hc_pool_unlock();
		return ERR_PTR(-EPERM);
	}
	pool = hc_pool_current();
	if (pool && uuid && (nla_len(uuid) != sizeof(pool->uuid) ||
			     memcmp(nla_data(uuid), pool->uuid,
				    sizeof(pool->uuid)))) {
		hc_pool_unlock();
		return ERR_PTR(-ESTALE);
	}
	return pool;
}

int hc_nl_register(void)
{
	int err;

	err = netlink_register_notifier(&hc_nl_notifier);
	if (err)
		return err;
	err = genl_register_family(&hc_nl_family);
	if (err)
		netlink_unregister_notifier(&hc_nl_notifier);
	return err;
}

void hc_nl_unregister(void)
{
	genl_unregister_family(&hc_nl_family);
	netlink_unregister_notifier(&hc_nl_notifier);
	hc_nl_egress_stop();
	hc_nl_ingest_stop();
	hc_reval_stop();
}
