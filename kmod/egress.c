// SPDX-License-Identifier: GPL-2.0
/*
 * The egress (write-back) channel of the "hypercache" family: the
 * registered egress helper, the HC_CMD_EGRESS* requests and the scheduler
 * that sends them (window, batching, retry deferral).  netlink.c holds the
 * family, its policies and the operation table.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/jiffies.h>
#include <linux/moduleparam.h>
#include <linux/workqueue.h>
#include <net/genetlink.h>
#include "hypercache.h"
#include "trace.h"
#include "../uapi/hypercache_netlink.h"

/*
 * The registered egress helper: port (0 if none) and network namespace,
 * as for the ingest helper (ingest.c).  Under the pool lock.
 */
static u32 hc_nl_egress;
static struct net *hc_nl_egress_net;

#define HC_EGRESS_WINDOW_MAX	1024	/* egress_window */
#define HC_EGRESS_RESEND_MS	MSEC_PER_SEC	/* undelivered: try again */

static unsigned int hc_egress_window = 8;

/* Is an egress helper registered?  With the pool lock held. */
bool hc_nl_egress_registered(void)
{
	return hc_nl_egress != 0;
}

/* Refuse a window outside 1..HC_EGRESS_WINDOW_MAX when it is set. */
static int hc_egress_window_set(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, HC_EGRESS_WINDOW_MAX);
}

static const struct kernel_param_ops hc_egress_window_ops = {
	.set	= hc_egress_window_set,
	.get	= param_get_uint,
};

module_param_cb(egress_window, &hc_egress_window_ops, &hc_egress_window,
		0644);
MODULE_PARM_DESC(egress_window,
		 "uploads outstanding at the egress helper at most (1..1024, default 8)");

/*
 * EGRESS_DONE answers once the object's READY record is queued (the
 * journal writes the records of many DONEs with one flush) rather than
 * once it is durable: a crash before then means one more upload of the
 * same bytes (Documentation/journal.md, "Group commit").
 */
static bool hc_egress_batch = true;
module_param_named(egress_batch, hc_egress_batch, bool, 0644);
MODULE_PARM_DESC(egress_batch,
		 "answer EGRESS_DONE before its journal record is durable, batching the records (default Y)");

static void hc_nl_egress_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(hc_nl_egress_dwork, hc_nl_egress_work);

/* ---- the egress (write-back) channel ---------------------------------- */

/* Look at the egress queue soon (from process context, no lock needed). */
void hc_nl_egress_kick(void)
{
	mod_delayed_work(system_wq, &hc_nl_egress_dwork, 0);
}

static struct sk_buff *hc_nl_egress_msg(const struct hc_pool *pool,
					const struct hc_obj *obj)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return NULL;
	hdr = genlmsg_put(msg, 0, 0, &hc_nl_family, 0, HC_CMD_EGRESS);
	if (!hdr ||
	    nla_put_u64_64bit(msg, HC_A_EGRESS_GENERATION, obj->generation,
			      HC_A_EGRESS_PAD) ||
	    nla_put(msg, HC_A_EGRESS_URI, obj->uri_len, obj->uri) ||
	    nla_put(msg, HC_A_EGRESS_POOL_UUID, sizeof(pool->uuid),
		    pool->uuid) ||
	    nla_put_u64_64bit(msg, HC_A_EGRESS_SIZE, obj->size,
			      HC_A_EGRESS_PAD) ||
	    hc_nl_put_extents(msg, pool, obj, HC_A_EGRESS_EXTENT) ||
	    ((obj->flags & HC_OBJ_F_DATA_CRC) &&
	     nla_put_u32(msg, HC_A_EGRESS_CRC32C, obj->data_crc))) {
		nlmsg_free(msg);
		return NULL;
	}
	genlmsg_end(msg, hdr);
	return msg;
}

/*
 * A request could not be delivered (the helper's receive queue is full, or
 * it is closing): put the object of generation @gen back to DIRTY, to be
 * tried again in a second (the caller comes back then), unless its helper
 * is already gone (then the release notifier did that).
 */
static void hc_nl_egress_undo(u32 port, u64 gen)
{
	struct hc_obj_transit *t;
	struct hc_pool *pool;

	hc_pool_lock();
	pool = hc_pool_current();
	if (pool && hc_nl_egress == port)
		list_for_each_entry(t, &pool->cache->egress, queue_node)
			if (t->obj->generation == gen &&
			    t->obj->state == HC_OBJ_SYNCING) {
				hc_cache_egress_requeue(pool->cache, t->obj,
							HC_EGRESS_RESEND_MS);
				break;
			}
	hc_pool_unlock();
}

#define HC_NL_EGRESS_BATCH	16

/*
 * Send the egress helper the oldest eligible DIRTY objects (commit order;
 * one whose retry delay has not passed is skipped, not waited for, one
 * whose last upload failed for good is skipped until an egress helper
 * registers) until
 * egress_window are SYNCING.  A batch of messages is built and its objects
 * made SYNCING under the pool lock; the batch is sent after the lock is
 * dropped.  If some object waits for its retry delay, come back then; if
 * a request could not be delivered, come back when it is due again
 * (nothing else would: no COMMIT, DONE or FAIL need follow).
 */
static void hc_nl_egress_work(struct work_struct *work)
{
	struct sk_buff *msgs[HC_NL_EGRESS_BATCH];
	u64 gens[HC_NL_EGRESS_BATCH];
	unsigned long now, next;
	struct hc_obj_transit *t;
	struct hc_pool *pool;
	struct hc_cache *c;
	struct hc_obj *obj;
	bool wait, undelivered = false;
	u32 window, port, n, i;

again:
	window = READ_ONCE(hc_egress_window);	/* validated when set */
	now = jiffies;
	next = 0;
	wait = false;
	n = 0;
	hc_pool_lock();
	pool = hc_pool_current();
	port = hc_nl_egress;
	if (!pool || !port) {
		hc_pool_unlock();
		return;
	}
	c = pool->cache;
	list_for_each_entry(t, &c->egress, queue_node) {
		obj = t->obj;
		if (n == HC_NL_EGRESS_BATCH ||
		    c->stats.by_state[HC_OBJ_SYNCING] >= window)
			break;
		if (obj->state != HC_OBJ_DIRTY || obj->jop ||
		    hc_obj_egress_parked(obj))
			continue;	/* busy (its EGRESS_DONE is recorded) or parked */
		if (t->egress_defer && time_before(now, t->egress_at)) {
			if (!wait || time_before(t->egress_at, next))
				next = t->egress_at;
			wait = true;
			continue;
		}
		msgs[n] = hc_nl_egress_msg(pool, obj);
		if (!msgs[n]) {
			next = now + HZ;	/* out of memory: later */
			wait = true;
			break;
		}
		gens[n++] = obj->generation;
		hc_cache_egress_start(c, obj);
		trace_hc_egress_send(obj->uri, obj->uri_len, obj->generation,
				     obj->size);
	}
	hc_pool_unlock();

	for (i = 0; i < n; i++)
		if (genlmsg_unicast(&init_net, msgs[i], port)) {
			hc_nl_egress_undo(port, gens[i]);
			undelivered = true;
		}
	if (n == HC_NL_EGRESS_BATCH)
		goto again;
	if (undelivered) {
		unsigned long due = now + msecs_to_jiffies(HC_EGRESS_RESEND_MS);

		if (!wait || time_before(due, next))
			next = due;
		wait = true;
	}
	if (wait)
		queue_delayed_work(system_wq, &hc_nl_egress_dwork,
				   time_after(next, now) ? next - now : 0);
}

/*
 * A registration (a new egress helper, or the registered one again: a
 * daemon reloaded after its configuration was fixed) also sends the
 * objects whose last upload failed for good once more.
 */
int hc_nl_egress_register(struct sk_buff *skb, struct genl_info *info)
{
	struct hc_pool *pool;
	u32 parked = 0;
	int err = 0;

	hc_pool_lock();
	if (hc_nl_egress && hc_nl_egress != info->snd_portid) {
		NL_SET_ERR_MSG(info->extack, "another egress helper is registered");
		err = -EBUSY;
	} else {
		hc_nl_egress = info->snd_portid;
		hc_nl_egress_net = genl_info_net(info);
		pool = hc_pool_current();
		if (pool)
			parked = hc_cache_egress_unpark(pool->cache);
		pr_info("egress helper registered (port %u)%s\n",
			hc_nl_egress, parked ? ", uploads that failed for good are retried" : "");
	}
	hc_pool_unlock();
	if (!err)
		hc_nl_egress_kick();
	return err;
}

/*
 * The object named by HC_A_EGRESS_URI and HC_A_EGRESS_GENERATION (of the
 * pool HC_A_EGRESS_POOL_UUID if given), for the registered egress helper
 * only, with the pool lock held on success.  -ENOENT if the URI is not
 * cached, -ESTALE if it has another generation or belongs to another pool.
 */
static struct hc_obj *hc_nl_egress_lookup(struct genl_info *info,
					  struct hc_pool **poolp)
{
	struct nlattr *uuid = info->attrs[HC_A_EGRESS_POOL_UUID];
	struct nlattr *gen = info->attrs[HC_A_EGRESS_GENERATION];
	struct nlattr *uri = info->attrs[HC_A_EGRESS_URI];
	struct hc_pool *pool;
	struct hc_obj *obj;

	if (!gen || !uri || !nla_len(uri)) {
		NL_SET_ERR_MSG(info->extack, "the URI and generation are needed");
		return ERR_PTR(-EINVAL);
	}
	pool = hc_nl_peer_begin(info, &hc_nl_egress, &hc_nl_egress_net, uuid);
	if (PTR_ERR_OR_ZERO(pool) == -EPERM)
		NL_SET_ERR_MSG(info->extack, "not the registered egress helper");
	else if (IS_ERR(pool))
		NL_SET_ERR_MSG_ATTR(info->extack, uuid,
				    "the object belongs to another pool");
	if (IS_ERR(pool))
		return ERR_CAST(pool);
	obj = pool ? hc_cache_lookup(pool->cache, nla_data(uri),
				     nla_len(uri)) : NULL;
	if (!obj) {
		hc_pool_unlock();
		NL_SET_ERR_MSG_ATTR(info->extack, uri, "no such object");
		return ERR_PTR(-ENOENT);
	}
	if (obj->generation != nla_get_u64(gen)) {
		hc_pool_unlock();
		NL_SET_ERR_MSG(info->extack, "the object has another generation");
		return ERR_PTR(-ESTALE);
	}
	*poolp = pool;
	return obj;
}

int hc_nl_egress_done(struct sk_buff *skb, struct genl_info *info)
{
	struct hc_pool *pool;
	struct hc_obj *obj;
	int err = 0;

again:
	obj = hc_nl_egress_lookup(info, &pool);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	/* READY: a repeated DONE.  DIRTY: uploaded, then its helper died. */
	if (obj->state == HC_OBJ_DIRTY || obj->state == HC_OBJ_SYNCING) {
		struct nlattr *etag = info->attrs[HC_A_EGRESS_ETAG];
		struct nlattr *mtime = info->attrs[HC_A_EGRESS_LAST_MODIFIED];
		u64 gen = obj->generation, size = obj->size;

		err = hc_cache_egress_done(pool->cache, obj,
					   etag ? nla_data(etag) : NULL,
					   mtime ? nla_get_u64(mtime) : 0,
					   !READ_ONCE(hc_egress_batch));
		if (err == -EBUSY) {	/* a pin or another DONE: wait */
			hc_cache_busy_wait();
			hc_pool_unlock();
			goto again;
		}
		trace_hc_egress_done(gen, size, err);
	} else if (obj->state != HC_OBJ_READY) {
		err = -EINVAL;
	}
	hc_pool_unlock();
	if (err == -EINVAL)
		NL_SET_ERR_MSG(info->extack, "the object is not complete");
	else if (err == -EBUSY)
		NL_SET_ERR_MSG(info->extack, "the object's upload is being completed");
	if (!err)
		hc_nl_egress_kick();
	return err;
}

int hc_nl_egress_fail(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *retry = info->attrs[HC_A_EGRESS_RETRY_MS];
	struct nlattr *perm = info->attrs[HC_A_EGRESS_PERMANENT];
	struct nlattr *msg = info->attrs[HC_A_EGRESS_MESSAGE];
	struct hc_pool *pool;
	struct hc_obj *obj;
	int err = 0;

	if (!info->attrs[HC_A_EGRESS_ERRNO]) {
		NL_SET_ERR_MSG(info->extack, "the errno is needed");
		return -EINVAL;
	}
again:
	obj = hc_nl_egress_lookup(info, &pool);
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	if (obj->jop) {		/* its EGRESS_DONE or a pin is being recorded */
		hc_cache_busy_wait();
		hc_pool_unlock();
		goto again;
	}
	if (obj->state == HC_OBJ_SYNCING) {
		u32 err_no = nla_get_u32(info->attrs[HC_A_EGRESS_ERRNO]);

		trace_hc_egress_fail(obj->generation, obj->size, -(int)err_no);
		/* the policy made @msg a NUL-terminated string */
		hc_cache_egress_fail(pool->cache, obj, retry,
				     retry ? nla_get_u32(retry) : 0, err_no,
				     perm && nla_get_u8(perm),
				     msg ? nla_data(msg) : NULL);
	} else {
		err = -EINVAL;
	}
	hc_pool_unlock();
	if (err)
		NL_SET_ERR_MSG(info->extack, "the object is not being uploaded");
	else
		hc_nl_egress_kick();
	return err;
}

/*
 * A netlink socket @portid of namespace @net closed (the release
 * notifier, with the pool lock held): if it was the egress helper's, its
 * SYNCING objects become DIRTY again for the next egress helper.
 */
void hc_nl_egress_release(struct net *net, u32 portid)
{
	struct hc_pool *pool;

	if (!hc_nl_egress || portid != hc_nl_egress ||
	    !net_eq(net, hc_nl_egress_net))
		return;
	pr_info("egress helper (port %u) went away\n", portid);
	hc_nl_egress = 0;
	hc_nl_egress_net = NULL;
	pool = hc_pool_current();
	if (pool)
		hc_cache_egress_reset(pool->cache);
}

/* Module exit, after the pool stopped: nothing may be left to send. */
void hc_nl_egress_stop(void)
{
	cancel_delayed_work_sync(&hc_nl_egress_dwork);
}
