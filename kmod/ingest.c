// SPDX-License-Identifier: GPL-2.0
/*
 * The ingest helper channel of the "hypercache" family: the registered
 * helper (one at a time) and the HC_CMD_INGEST* requests it serves.
 * netlink.c holds the family, its policies and the operation table.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/blkdev.h>
#include <linux/err.h>
#include <net/genetlink.h>
#include "hypercache.h"
#include "../uapi/hypercache_netlink.h"

/* The registered helper's netlink port, 0 if none; under the pool lock. */
u32 hc_nl_helper;

/* ---- the helper channel ----------------------------------------------- */

/*
 * Ask the registered helper to fetch @obj (INGESTING); with the pool lock
 * held.  Without a helper, or if the message cannot be sent, the request
 * stays queued for the next helper that registers.
 */
void hc_nl_ingest_request(struct hc_pool *pool, struct hc_obj *obj)
{
	struct sk_buff *msg;
	void *hdr;

	if (!hc_nl_helper)
		return;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &hc_nl_family, 0, HC_CMD_INGEST);
	if (!hdr ||
	    nla_put_u64_64bit(msg, HC_A_ING_ID, obj->generation, HC_A_ING_PAD) ||
	    nla_put(msg, HC_A_ING_URI, obj->uri_len, obj->uri) ||
	    nla_put(msg, HC_A_ING_POOL_UUID, sizeof(pool->uuid), pool->uuid) ||
	    (obj->allocated &&
	     (nla_put_u64_64bit(msg, HC_A_ING_SIZE, obj->size, HC_A_ING_PAD) ||
	      hc_nl_put_extents(msg, pool, obj, HC_A_ING_EXTENT)))) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	genlmsg_unicast(&init_net, msg, hc_nl_helper);
}

int hc_nl_helper_register(struct sk_buff *skb, struct genl_info *info)
{
	struct hc_pool *pool;
	struct hc_obj *obj;
	int err = 0;

	hc_pool_lock();
	if (hc_nl_helper && hc_nl_helper != info->snd_portid) {
		NL_SET_ERR_MSG(info->extack, "another helper is registered");
		err = -EBUSY;
		goto out;
	}
	hc_nl_helper = info->snd_portid;
	pool = hc_pool_current();
	if (pool)
		list_for_each_entry(obj, &pool->cache->ingests, queue_node)
			hc_nl_ingest_request(pool, obj);
	pr_info("helper registered (port %u)\n", hc_nl_helper);
out:
	hc_pool_unlock();
	return err;
}

/*
 * The request named by HC_A_ING_ID (and HC_A_ING_POOL_UUID if given), for
 * the registered helper only, with the pool lock held on success.
 * -ESTALE: a request of another pool.
 */
static struct hc_obj *hc_nl_ing_lookup(struct genl_info *info,
				       struct hc_pool **poolp)
{
	struct nlattr *uuid = info->attrs[HC_A_ING_POOL_UUID];
	struct hc_pool *pool;
	struct hc_obj *obj;

	if (!info->attrs[HC_A_ING_ID]) {
		NL_SET_ERR_MSG(info->extack, "the request id is needed");
		return ERR_PTR(-EINVAL);
	}
	hc_pool_lock();
	if (!hc_nl_helper || info->snd_portid != hc_nl_helper) {
		hc_pool_unlock();
		NL_SET_ERR_MSG(info->extack, "not the registered helper");
		return ERR_PTR(-EPERM);
	}
	pool = hc_pool_current();
	if (pool && uuid && memcmp(nla_data(uuid), pool->uuid,
				   sizeof(pool->uuid))) {
		hc_pool_unlock();
		NL_SET_ERR_MSG_ATTR(info->extack, uuid,
				    "the request belongs to another pool");
		return ERR_PTR(-ESTALE);
	}
	obj = pool ? hc_cache_ingest_find(pool->cache,
				nla_get_u64(info->attrs[HC_A_ING_ID])) : NULL;
	if (!obj) {
		hc_pool_unlock();
		NL_SET_ERR_MSG(info->extack, "no such ingest request");
		return ERR_PTR(-ENOENT);
	}
	*poolp = pool;
	return obj;
}

int hc_nl_ingest_alloc(struct sk_buff *skb, struct genl_info *info)
{
	struct hc_pool *pool;
	struct hc_obj *obj;
	struct sk_buff *msg;
	bool admitted;
	void *hdr;
	int err;

	if (!info->attrs[HC_A_ING_SIZE]) {
		NL_SET_ERR_MSG(info->extack, "the object's size is needed");
		return -EINVAL;
	}
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	obj = hc_nl_ing_lookup(info, &pool);
	if (IS_ERR(obj)) {
		nlmsg_free(msg);
		return PTR_ERR(obj);
	}
	err = hc_cache_ingest_alloc(pool->cache, obj,
				    nla_get_u64(info->attrs[HC_A_ING_SIZE]),
				    &admitted);
	if (err == -EINVAL) {
		NL_SET_ERR_MSG(info->extack, "another size than reported before");
		goto out_unlock;
	}
	if (err || !admitted) {
		hc_cache_ingest_end(pool->cache, obj,
				    err ? err : HC_INGEST_NOT_ADMITTED);
		obj = NULL;
		if (err)
			goto out_unlock;
	}
	hdr = genlmsg_put_reply(msg, info, &hc_nl_family, 0,
				HC_CMD_INGEST_ALLOC);
	if (!hdr ||
	    nla_put_u64_64bit(msg, HC_A_ING_ID,
			      nla_get_u64(info->attrs[HC_A_ING_ID]),
			      HC_A_ING_PAD) ||
	    nla_put_u8(msg, HC_A_ING_ADMITTED, admitted) ||
	    nla_put(msg, HC_A_ING_POOL_UUID, sizeof(pool->uuid), pool->uuid) ||
	    (obj && (nla_put_u64_64bit(msg, HC_A_ING_SIZE, obj->size,
				       HC_A_ING_PAD) ||
		     hc_nl_put_extents(msg, pool, obj, HC_A_ING_EXTENT)))) {
		err = -EMSGSIZE;
		goto out_unlock;
	}
	hc_pool_unlock();
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

out_unlock:
	hc_pool_unlock();
	nlmsg_free(msg);
	return err;
}

int hc_nl_ingest_done(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *crc = info->attrs[HC_A_ING_CRC32C];
	struct hc_pool *pool;
	struct hc_obj *obj;
	u32 i;
	int err = 0;

	obj = hc_nl_ing_lookup(info, &pool);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	/* The helper made its writes durable; make sure of every member. */
	for (i = 0; i < pool->nr_members && !err; i++)
		err = blkdev_issue_flush(pool->members[i].dev.bdev);
	if (!err)
		err = hc_cache_ingest_done(pool->cache, obj, crc,
					   crc ? nla_get_u32(crc) : 0);
	if (err == -EINVAL)
		NL_SET_ERR_MSG(info->extack, "the request has no allocation yet");
	hc_pool_unlock();
	return err;
}

int hc_nl_ingest_fail(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *e = info->attrs[HC_A_ING_ERRNO];
	struct hc_pool *pool;
	struct hc_obj *obj;

	if (!e) {
		NL_SET_ERR_MSG(info->extack, "the errno is needed");
		return -EINVAL;
	}
	obj = hc_nl_ing_lookup(info, &pool);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	hc_cache_ingest_end(pool->cache, obj, -(int)nla_get_u32(e));
	hc_pool_unlock();
	return 0;
}
