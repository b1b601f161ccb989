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
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>
#include "hypercache.h"
#include "trace.h"
#include "../uapi/hypercache_netlink.h"

#define HC_INGEST_LIMIT_MAX	65536	/* max_ingests */
#define HC_INGEST_TIMEOUT_MAX	(24 * 3600 * MSEC_PER_SEC) /* ingest_timeout_ms */
#define HC_INGEST_RESEND_MS	MSEC_PER_SEC	/* undelivered: try again */

static unsigned int hc_ingest_limit = 1024;
static unsigned int hc_ingest_timeout_ms = 60 * MSEC_PER_SEC;

static int hc_ingest_limit_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, HC_INGEST_LIMIT_MAX);
}

static int hc_ingest_timeout_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, HC_INGEST_TIMEOUT_MAX);
}

static const struct kernel_param_ops hc_ingest_limit_ops = {
	.set	= hc_ingest_limit_set,
	.get	= param_get_uint,
};

static const struct kernel_param_ops hc_ingest_timeout_ops = {
	.set	= hc_ingest_timeout_set,
	.get	= param_get_uint,
};

module_param_cb(max_ingests, &hc_ingest_limit_ops, &hc_ingest_limit, 0644);
MODULE_PARM_DESC(max_ingests,
		 "objects of a pool waiting to be ingested at most; an AUTO_INGEST past it is EAGAIN (1..65536, default 1024)");
module_param_cb(ingest_timeout_ms, &hc_ingest_timeout_ops,
		&hc_ingest_timeout_ms, 0644);
MODULE_PARM_DESC(ingest_timeout_ms,
		 "an ingest request ends (EHOSTDOWN) after waiting this long without a registered helper (ms, default 60000)");

static void hc_nl_ingest_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(hc_nl_ingest_dwork, hc_nl_ingest_work);

/*
 * The registered helper: its socket's port, 0 if none, and network
 * namespace (compared, never dereferenced: the family is not netnsok, so
 * it is init_net).  Ports are per namespace, so the port alone does not
 * name the socket.  Under the pool lock.
 */
static u32 hc_nl_helper;
static struct net *hc_nl_helper_net;

/* ---- the helper channel ----------------------------------------------- */

/* Is an ingest helper registered?  With the pool lock held. */
bool hc_nl_ingest_registered(void)
{
	return hc_nl_helper != 0;
}

/* How many objects of a pool may be INGESTING at once (cache.c). */
u32 hc_nl_ingest_limit(void)
{
	return READ_ONCE(hc_ingest_limit);
}

/* ingest_timeout_ms: also how long a reader waits for a revalidation. */
u32 hc_nl_ingest_timeout_ms(void)
{
	return READ_ONCE(hc_ingest_timeout_ms);
}

/*
 * Unicast @msg (consumed) to the registered helper; with the pool lock
 * held (reval.c's HC_CMD_REVALIDATE).  Return: 0, -ENOTCONN (no helper),
 * or genlmsg_unicast()'s errno.
 */
int hc_nl_ingest_unicast(struct sk_buff *msg)
{
	if (!hc_nl_helper) {
		nlmsg_free(msg);
		return -ENOTCONN;
	}
	return genlmsg_unicast(&init_net, msg, hc_nl_helper);
}

/*
 * hc_nl_peer_begin() for the ingest helper's registration (reval.c's
 * requests come from the same helper), with the extack message of a
 * refusal: the one check of the requests of that channel.
 */
struct hc_pool *hc_nl_ingest_peer_begin(struct genl_info *info,
					const struct nlattr *uuid)
{
	struct hc_pool *pool;

	pool = hc_nl_peer_begin(info, &hc_nl_helper, &hc_nl_helper_net, uuid);
	if (PTR_ERR_OR_ZERO(pool) == -EPERM)
		NL_SET_ERR_MSG(info->extack, "not the registered helper");
	else if (IS_ERR(pool))
		NL_SET_ERR_MSG_ATTR(info->extack, uuid,
				    "the request belongs to another pool");
	return pool;
}

/* When hc_nl_ingest_work() is due, if @hc_nl_ingest_armed; pool lock. */
static unsigned long hc_nl_ingest_due;
static bool hc_nl_ingest_armed;

/*
 * Look at the requests again in @ms, or earlier if that is already due
 * (a shorter ingest_timeout_ms applies at once).  With the pool lock held.
 */
static void hc_nl_ingest_later(unsigned long ms)
{
	unsigned long delay = msecs_to_jiffies(ms);

	if (hc_nl_ingest_armed &&
	    !time_before(jiffies + delay, hc_nl_ingest_due))
		return;
	hc_nl_ingest_due = jiffies + delay;
	hc_nl_ingest_armed = true;
	mod_delayed_work(system_wq, &hc_nl_ingest_dwork, delay);
}

/*
 * Send @obj's request to the registered helper.  Return: 0, or a negative
 * errno if it was not delivered (no memory, the helper's receive queue is
 * full, its socket is closing).
 */
static int hc_nl_ingest_send(struct hc_pool *pool, struct hc_obj *obj)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put(msg, 0, 0, &hc_nl_family, 0, HC_CMD_INGEST);
	if (!hdr ||
	    nla_put_u64_64bit(msg, HC_A_ING_ID, obj->generation, HC_A_ING_PAD) ||
	    nla_put(msg, HC_A_ING_URI, obj->uri_len, obj->uri) ||
	    nla_put(msg, HC_A_ING_POOL_UUID, sizeof(pool->uuid), pool->uuid) ||
	    (hc_obj_allocated(obj) &&
	     (nla_put_u64_64bit(msg, HC_A_ING_SIZE, obj->size, HC_A_ING_PAD) ||
	      hc_nl_put_extents(msg, pool, obj, HC_A_ING_EXTENT)))) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_unicast(&init_net, msg, hc_nl_helper);
}

/*
 * Ask the registered helper to fetch @obj (INGESTING); with the pool lock
 * held.  A request that cannot be delivered is sent again a second later
 * (hc_nl_ingest_work()); without a helper it waits for the next one to
 * register, at most ingest_timeout_ms.
 */
void hc_nl_ingest_request(struct hc_pool *pool, struct hc_obj *obj)
{
	struct hc_obj_transit *t = hc_obj_transit(obj);	/* INGESTING: there */

	t->ingest_resend = false;
	if (!hc_nl_helper) {
		hc_nl_ingest_later(READ_ONCE(hc_ingest_timeout_ms));
		return;
	}
	if (hc_nl_ingest_send(pool, obj)) {
		t->ingest_resend = true;
		hc_nl_ingest_later(HC_INGEST_RESEND_MS);
		return;
	}
	trace_hc_ingest_request(obj->uri, obj->uri_len, obj->generation,
				hc_obj_allocated(obj) ? obj->size : 0);
}

/*
 * With a helper: send the requests that could not be delivered again.
 * Without one: end the requests that waited ingest_timeout_ms for a helper
 * (waiting readers get EHOSTDOWN, the chunks of an allocated one are
 * freed).  Either way, come back when something is due.
 */
static void hc_nl_ingest_work(struct work_struct *work)
{
	unsigned long timeout = msecs_to_jiffies(READ_ONCE(hc_ingest_timeout_ms));
	unsigned long now = jiffies, next = 0;
	struct hc_obj_transit *t, *tmp;
	struct hc_obj *obj;
	struct hc_pool *pool;
	bool again = false;

	hc_pool_lock();
	if (!delayed_work_pending(&hc_nl_ingest_dwork))
		hc_nl_ingest_armed = false;	/* else re-armed meanwhile */
	pool = hc_pool_current();
	if (!pool)
		goto out;
	list_for_each_entry_safe(t, tmp, &pool->cache->ingests, queue_node) {
		obj = t->obj;
		if (hc_nl_helper) {
			if (t->ingest_resend)
				hc_nl_ingest_request(pool, obj);
			continue;
		}
		if (time_after_eq(now, t->ingest_since + timeout) &&
		    !obj->jop) {	/* not while its INGEST_DONE is under way */
			pr_info_ratelimited("no helper for %u ms: ingest %llu ends\n",
					    jiffies_to_msecs(timeout),
					    obj->generation);
			hc_cache_ingest_end(pool->cache, obj, -EHOSTDOWN);
			continue;
		}
		if (!again || time_before(t->ingest_since + timeout, next))
			next = t->ingest_since + timeout;
		again = true;
	}
	if (again)
		hc_nl_ingest_later(jiffies_to_msecs(next - now));
out:
	hc_pool_unlock();
}

int hc_nl_helper_register(struct sk_buff *skb, struct genl_info *info)
{
	struct hc_obj_transit *t;
	struct hc_pool *pool;
	int err = 0;

	hc_pool_lock();
	if (hc_nl_helper && hc_nl_helper != info->snd_portid) {
		NL_SET_ERR_MSG(info->extack, "another helper is registered");
		err = -EBUSY;
		goto out;
	}
	hc_nl_helper = info->snd_portid;
	hc_nl_helper_net = genl_info_net(info);
	hc_reval_clear();	/* the helper sends its own (HC_CMD_REVAL_RULES) */
	pool = hc_pool_current();
	if (pool) {
		/* this helper now writes the ingests already allocated */
		hc_cache_ingest_adopt(pool->cache);
		list_for_each_entry(t, &pool->cache->ingests, queue_node)
			hc_nl_ingest_request(pool, t->obj);
	}
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
	pool = hc_nl_ingest_peer_begin(info, uuid);
	if (IS_ERR(pool))
		return ERR_CAST(pool);
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
	struct nlattr *etag = info->attrs[HC_A_ING_ETAG];
	struct nlattr *mtime = info->attrs[HC_A_ING_LAST_MODIFIED];
	struct hc_pool *pool;
	u64 size;
	struct hc_obj *obj;
	struct sk_buff *msg;
	bool admitted;
	void *hdr;
	int err;

	if (!info->attrs[HC_A_ING_SIZE]) {
		NL_SET_ERR_MSG(info->extack, "the object's size is needed");
		return -EINVAL;
	}
	size = nla_get_u64(info->attrs[HC_A_ING_SIZE]);
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	obj = hc_nl_ing_lookup(info, &pool);
	if (IS_ERR(obj)) {
		nlmsg_free(msg);
		return PTR_ERR(obj);
	}
	err = hc_cache_size_check(pool->cache, size);	/* -EFBIG, nothing changed */
	if (err) {
		pool->cache->stats.refused_too_big++;
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[HC_A_ING_SIZE],
				    "larger than the pool");
		goto out_unlock;
	}
	err = hc_cache_ingest_alloc(pool->cache, obj, size, &admitted);
	trace_hc_ingest_alloc(obj->generation, size, err ? err : !admitted);
	/* the version being fetched: journaled at INGEST_DONE */
	if (!err && admitted)
		err = hc_cache_set_bver(obj, etag ? nla_data(etag) : NULL,
					mtime ? nla_get_u64(mtime) : 0);
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
	u64 gen, size;
	int err;

	obj = hc_nl_ing_lookup(info, &pool);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	gen = obj->generation;
	size = obj->size;
	err = hc_cache_ingest_done_begin(pool->cache, obj);
	if (err == -EINVAL)
		NL_SET_ERR_MSG(info->extack, "the request has no allocation yet");
	else if (err)
		NL_SET_ERR_MSG(info->extack, "the request is being completed");
	if (err)
		goto out;
	/*
	 * The helper's writes have completed (the fence waited for them);
	 * the batch writer flushes every member before the READY record
	 * (hc_journal_req.flush_data), once for the DONEs that wait together.
	 */
	err = hc_cache_ingest_done(pool->cache, obj, crc,
				   crc ? nla_get_u32(crc) : 0);
	trace_hc_ingest_done(gen, size, err);
out:
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
	if (obj->jop) {		/* its INGEST_DONE is under way */
		hc_pool_unlock();
		NL_SET_ERR_MSG(info->extack, "the request is being completed");
		return -EBUSY;
	}
	trace_hc_ingest_fail(obj->generation, hc_obj_allocated(obj) ? obj->size : 0,
			     -(int)nla_get_u32(e));
	hc_cache_ingest_end(pool->cache, obj, -(int)nla_get_u32(e));
	hc_pool_unlock();
	return 0;
}

/*
 * A netlink socket @portid of namespace @net closed (the release
 * notifier, with the pool lock held): if it was the helper's, the
 * registration ends and the requests wait for the next helper, each at
 * most ingest_timeout_ms from now.
 */
void hc_nl_ingest_release(struct net *net, u32 portid)
{
	struct hc_pool *pool;
	struct hc_obj_transit *t;

	if (!hc_nl_helper || portid != hc_nl_helper ||
	    !net_eq(net, hc_nl_helper_net))
		return;
	pr_info("helper (port %u) went away\n", portid);
	hc_nl_helper = 0;
	hc_nl_helper_net = NULL;
	pool = hc_pool_current();
	if (!pool)
		return;
	list_for_each_entry(t, &pool->cache->ingests, queue_node)
		t->ingest_since = jiffies;
	hc_reval_release(pool);	/* its checks fail: served as cached */
	hc_nl_ingest_later(READ_ONCE(hc_ingest_timeout_ms));
	/* the view's lookups that wait for an ingest fail at once (fs_dir.c) */
	hc_cache_wake_all();
}

/* Module exit, after the pool stopped: nothing is left to look at. */
void hc_nl_ingest_stop(void)
{
	cancel_delayed_work_sync(&hc_nl_ingest_dwork);
}
