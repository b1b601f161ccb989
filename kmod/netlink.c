// SPDX-License-Identifier: GPL-2.0
/*
 * The "hypercache" generic netlink family: pool administration and events.
 * Documentation/netlink/specs/hypercache.yaml describes it.
 *
 * Requests are validated strictly against the policies below (unknown
 * attributes are refused); state-changing operations need CAP_NET_ADMIN.
 * Failures carry an extended-ack message and, when one member is at fault,
 * point at that member's HC_A_POOL_MEMBER nest.
 */
#include <linux/module.h>
#include <linux/limits.h>
#include <linux/kdev_t.h>
#include <net/genetlink.h>
#include "pool.h"
#include "../uapi/hypercache_netlink.h"

static const struct nla_policy hc_nl_member_policy[HC_A_MEMBER_MAX + 1] = {
	[HC_A_MEMBER_PATH]	= { .type = NLA_NUL_STRING, .len = PATH_MAX - 1 },
	[HC_A_MEMBER_INDEX]	= { .type = NLA_U32 },
	[HC_A_MEMBER_DEV]	= { .type = NLA_U32 },
	[HC_A_MEMBER_NAME]	= { .type = NLA_NUL_STRING, .len = DISK_NAME_LEN - 1 },
	[HC_A_MEMBER_UUID]	= NLA_POLICY_EXACT_LEN(16),
	[HC_A_MEMBER_BYTES]	= { .type = NLA_U64 },
	[HC_A_MEMBER_CHUNKS]	= { .type = NLA_U64 },
};

static const struct nla_policy hc_nl_pool_policy[HC_A_POOL_MAX + 1] = {
	[HC_A_POOL_UUID]	= NLA_POLICY_EXACT_LEN(16),
	[HC_A_POOL_STATE]	= { .type = NLA_U32 },
	[HC_A_POOL_DISK]	= { .type = NLA_NUL_STRING, .len = DISK_NAME_LEN - 1 },
	[HC_A_POOL_DISK_DEV]	= { .type = NLA_U32 },
	[HC_A_POOL_FORMAT_VERSION] = { .type = NLA_U32 },
	[HC_A_POOL_CHUNK_SIZE]	= { .type = NLA_U32 },
	[HC_A_POOL_MEMBER_COUNT] = { .type = NLA_U32 },
	[HC_A_POOL_CHUNKS]	= { .type = NLA_U64 },
	[HC_A_POOL_CAPACITY]	= { .type = NLA_U64 },
	[HC_A_POOL_DATA_OFFSET]	= { .type = NLA_U64 },
	[HC_A_POOL_FLAGS]	= NLA_POLICY_MASK(NLA_U32, HC_POOL_F_ALL),
	[HC_A_POOL_MEMBER]	= NLA_POLICY_NESTED(hc_nl_member_policy),
};

static struct genl_family hc_nl_family;

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

static int hc_nl_fill_member(struct sk_buff *msg, const struct hc_member *m)
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
			      HC_A_MEMBER_PAD)) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

/* Describe @pool; its members must still be open. */
static int hc_nl_fill_pool(struct sk_buff *msg, const struct hc_pool *pool,
			   u32 state)
{
	u32 i;

	if (nla_put(msg, HC_A_POOL_UUID, 16, pool->uuid) ||
	    nla_put_u32(msg, HC_A_POOL_STATE, state) ||
	    nla_put_string(msg, HC_A_POOL_DISK, pool->name) ||
	    nla_put_u32(msg, HC_A_POOL_DISK_DEV, hc_nl_dev(pool->devt)) ||
	    nla_put_u32(msg, HC_A_POOL_FORMAT_VERSION,
			pool->members[0].sb.version) ||
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
	for (i = 0; i < pool->nr_members; i++)
		if (hc_nl_fill_member(msg, &pool->members[i]))
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
	struct nlattr *tb[HC_A_MEMBER_MAX + 1];
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
		err = nla_parse_nested(tb, HC_A_MEMBER_MAX, attr,
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

static const struct genl_small_ops hc_nl_ops[] = {
	{
		.cmd	= HC_CMD_POOL_CREATE,
		.doit	= hc_nl_pool_create,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= HC_CMD_POOL_ASSEMBLE,
		.doit	= hc_nl_pool_assemble,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= HC_CMD_POOL_STOP,
		.doit	= hc_nl_pool_stop,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= HC_CMD_POOL_GET,
		.doit	= hc_nl_pool_get,
	},
};

static struct genl_family hc_nl_family __ro_after_init = {
	.name		= HC_GENL_NAME,
	.version	= HC_GENL_VERSION,
	.maxattr	= HC_A_POOL_MAX,
	.policy		= hc_nl_pool_policy,
	.module		= THIS_MODULE,
	.small_ops	= hc_nl_ops,
	.n_small_ops	= ARRAY_SIZE(hc_nl_ops),
	.resv_start_op	= HC_CMD_POOL_CREATE,
	.mcgrps		= hc_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(hc_nl_mcgrps),
};

int hc_nl_register(void)
{
	return genl_register_family(&hc_nl_family);
}

void hc_nl_unregister(void)
{
	genl_unregister_family(&hc_nl_family);
}
