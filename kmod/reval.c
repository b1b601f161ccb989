// SPDX-License-Identifier: GPL-2.0
/*
 * Revalidation against the backend (Documentation/ingest.md,
 * "Revalidation"): the registered helper's rules (HC_CMD_REVAL_RULES), the
 * check a reader's open of a due READY object waits for (HC_CMD_REVALIDATE
 * to the helper, HC_CMD_REVALIDATE_DONE back) and what its answer does.
 * The rule logic is kmod/core/reval.c; the objects' side is cache.c's
 * hc_cache_reval_*().
 *
 * The rule set is module-wide, like the helper's registration: replaced
 * whole under the pool lock and read under RCU, also by lockless LOCATE
 * (hc_cache_locate_fast() asks hc_reval_obj_due() for a hold).  A
 * HELPER_REGISTER clears it (a helper that sends none revalidates
 * nothing); the helper's departure keeps it, so that due objects are
 * counted as failed checks and served, never waited for.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <net/genetlink.h>
#include "hypercache.h"
#include "core/reval.h"
#include "../uapi/hypercache_netlink.h"

/**
 * struct hc_reval_set - the rules in force
 * @rcu: freed after a grace period (lockless LOCATE reads it)
 * @nr: rules in @rule
 * @rule: the rules; their prefixes are in the same allocation, after them
 */
struct hc_reval_set {
	struct rcu_head rcu;
	u32 nr;
	struct hc_reval_rule rule[];
};

/* Replaced under the pool lock, read under RCU; NULL: no rule. */
static struct hc_reval_set __rcu *hc_reval_rules;

/*
 * The revalidation clock's now (hc_cache_reval_now()), from the coarse
 * boot clock: no clocksource read on LOCATE's lockless path.
 */
static u32 hc_reval_now_coarse(void)
{
	struct timespec64 ts;

	ktime_get_coarse_boottime_ts64(&ts);
	return (u32)ts.tv_sec + 1;
}

/**
 * hc_reval_obj_due - must a reader's open of @obj check it first?
 * @obj: a READY object (the caller checks the state)
 *
 * Under RCU or the pool lock; never sleeps.  Costs one pointer load when
 * no rule is set (revalidate = never everywhere, the default).
 */
bool hc_reval_obj_due(const struct hc_obj *obj)
{
	const struct hc_reval_rule *r = NULL;
	const struct hc_reval_set *set;
	u32 checked;
	bool due;

	rcu_read_lock();
	set = rcu_dereference(hc_reval_rules);
	if (set)
		r = hc_reval_match(set->rule, set->nr, obj->uri, obj->uri_len);
	checked = READ_ONCE(obj->checked);
	/* the clock is read only for a period that may have passed */
	due = hc_reval_due(r, checked, r && r->mode == HC_REVAL_AFTER &&
			   checked ? hc_reval_now_coarse() : 0);
	rcu_read_unlock();
	return due;
}

/* Install @set (NULL: none); with the pool lock held. */
static void hc_reval_install(struct hc_reval_set *set)
{
	struct hc_reval_set *old;

	old = rcu_dereference_protected(hc_reval_rules, true);	/* pool lock */
	rcu_assign_pointer(hc_reval_rules, set);
	if (old)
		kfree_rcu(old, rcu);
}

/* A helper registers: the rules of the one before end (pool lock held). */
void hc_reval_clear(void)
{
	hc_reval_install(NULL);
}

/* Module exit, after the family is unregistered. */
void hc_reval_stop(void)
{
	hc_pool_lock();
	hc_reval_install(NULL);
	hc_pool_unlock();
	rcu_barrier();	/* kfree_rcu() of the last set */
}

/*
 * The helper went away (pool lock held): every revalidation it had ends
 * as failed, and its readers are served the cached copy.
 */
void hc_reval_release(struct hc_pool *pool)
{
	struct hc_obj_transit *t, *tmp;

	/* an end may free @t: the next one is not freed */
	list_for_each_entry_safe(t, tmp, &pool->cache->revals, queue_node)
		hc_cache_reval_end(pool->cache, t->obj, HC_REVAL_FAILED);
}

/* Ask the helper about @obj (READY, pending); pool lock held. */
static int hc_reval_send(struct hc_pool *pool, struct hc_obj *obj)
{
	const struct hc_bver *v = hc_obj_bver(obj);
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put(msg, 0, 0, &hc_nl_family, 0, HC_CMD_REVALIDATE);
	if (!hdr ||
	    nla_put_u64_64bit(msg, HC_A_REV_ID, obj->generation, HC_A_REV_PAD) ||
	    nla_put(msg, HC_A_REV_URI, obj->uri_len, obj->uri) ||
	    nla_put(msg, HC_A_REV_POOL_UUID, sizeof(pool->uuid), pool->uuid) ||
	    nla_put_u64_64bit(msg, HC_A_REV_SIZE, obj->size, HC_A_REV_PAD) ||
	    (v && hc_nl_put_bver(msg, v, HC_A_REV_ETAG, HC_A_REV_LAST_MODIFIED,
				 HC_A_REV_PAD))) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return hc_nl_ingest_unicast(msg);
}

/**
 * hc_reval_gate - a reader is about to hold @obj: revalidate it if due
 * @pool: the running pool
 * @obj: the object the reader found (any state)
 * @waited: the reader's own: 0 at first; the generation whose check it
 *	waited for, so that an object checked for it is served and not
 *	checked again (always would check it forever)
 *
 * With the pool lock held; it is dropped while waiting.  Only a READY
 * object is checked (DIRTY and SYNCING ones are newer than the backend;
 * STAGED and INGESTING ones are not served yet).  Without a helper, or
 * when the request cannot be sent, the check counts as failed and the
 * cached copy is served: a reader never waits for no one.  Otherwise the
 * reader waits, interruptibly, for the helper's answer, at most
 * ingest_timeout_ms from the request (then the check fails the same way);
 * readers that come meanwhile wait for the same request.
 *
 * Return: 0: serve @obj; -EAGAIN: the caller waited with the lock dropped
 * and must look the URI up again (unchanged: the same object, checked;
 * changed: a new generation being ingested, to wait for as on a miss);
 * -EINTR: a signal.
 */
int hc_reval_gate(struct hc_pool *pool, struct hc_obj *obj, u64 *waited)
{
	struct hc_cache *c = pool->cache;
	unsigned long deadline;
	int err;

	if (obj->state != HC_OBJ_READY || hc_obj_m(obj, HC_OBJ_M_BAD) || obj->jop)
		return 0;
	if (!hc_obj_m(obj, HC_OBJ_M_REVAL)) {
		if (*waited == obj->generation)
			return 0;	/* checked while this reader waited */
		if (!hc_reval_obj_due(obj))
			return 0;
		if (!hc_nl_ingest_registered()) {
			c->stats.revalidations++;
			c->stats.reval_failed++;	/* checked when one is */
			return 0;
		}
		err = hc_cache_reval_begin(c, obj);
		if (err) {
			/* no memory to track it: a failed check, as unsent */
			c->stats.revalidations++;
			c->stats.reval_failed++;
			pr_info_ratelimited("revalidation %llu not started (%d): served as cached\n",
					    obj->generation, err);
			return 0;
		}
		err = hc_reval_send(pool, obj);
		if (err) {
			pr_info_ratelimited("revalidation %llu not sent (%d): served as cached\n",
					    obj->generation, err);
			hc_cache_reval_end(c, obj, HC_REVAL_FAILED);
			return 0;
		}
	}
	deadline = hc_obj_transit(obj)->reval_since +	/* pending: it has one */
		   msecs_to_jiffies(hc_nl_ingest_timeout_ms());
	if (!time_before(jiffies, deadline)) {
		pr_info_ratelimited("revalidation %llu not answered within %u ms: served as cached\n",
				    obj->generation, hc_nl_ingest_timeout_ms());
		hc_cache_reval_end(c, obj, HC_REVAL_FAILED);
		return 0;
	}
	*waited = obj->generation;
	err = hc_ctl_wait(obj->pe.key, deadline, false);
	return err == -EINTR ? err : -EAGAIN;
}

/* The @n-th HC_A_REV_RULE nest of @info (for an extack), or NULL. */
static const struct nlattr *hc_reval_nth_rule(struct genl_info *info, u32 n)
{
	const struct nlattr *a;
	int rem;

	nla_for_each_attr(a, genlmsg_data(info->genlhdr),
			  genlmsg_len(info->genlhdr), rem) {
		if (nla_type(a) == HC_A_REV_RULE && !n--)
			return a;
	}
	return NULL;
}

int hc_nl_reval_rules(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *tb[HC_A_REV_RULE_MAX + 1];
	struct hc_reval_set *set = NULL;
	const struct nlattr *a;
	struct hc_pool *pool;
	size_t bytes = 0;
	u32 nr = 0, bad = 0;
	u8 *p;
	int rem, err;

	nla_for_each_attr(a, genlmsg_data(info->genlhdr),
			  genlmsg_len(info->genlhdr), rem) {
		if (nla_type(a) != HC_A_REV_RULE)
			continue;
		if (++nr > HC_REVAL_RULES_MAX) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "more than 64 revalidation rules");
			return -E2BIG;
		}
		err = nla_parse_nested(tb, HC_A_REV_RULE_MAX, a,
				       hc_nl_rev_rule_policy, info->extack);
		if (err)
			return err;
		if (!tb[HC_A_REV_RULE_PREFIX] || !tb[HC_A_REV_RULE_MODE]) {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "a rule needs a prefix and a mode");
			return -EINVAL;
		}
		bytes += nla_len(tb[HC_A_REV_RULE_PREFIX]);
	}
	if (nr) {
		set = kzalloc(struct_size(set, rule, nr) + bytes, GFP_KERNEL);
		if (!set)
			return -ENOMEM;
		p = (u8 *)&set->rule[nr];
		nla_for_each_attr(a, genlmsg_data(info->genlhdr),
				  genlmsg_len(info->genlhdr), rem) {
			struct hc_reval_rule *r;

			if (nla_type(a) != HC_A_REV_RULE)
				continue;
			r = &set->rule[set->nr++];
			/* validated above: cannot fail */
			nla_parse_nested(tb, HC_A_REV_RULE_MAX, a,
					 hc_nl_rev_rule_policy, NULL);
			r->prefix_len = nla_len(tb[HC_A_REV_RULE_PREFIX]);
			memcpy(p, nla_data(tb[HC_A_REV_RULE_PREFIX]),
			       r->prefix_len);
			r->prefix = p;
			p += r->prefix_len;
			r->mode = nla_get_u8(tb[HC_A_REV_RULE_MODE]);
			r->ttl = tb[HC_A_REV_RULE_TTL] ?
				 nla_get_u32(tb[HC_A_REV_RULE_TTL]) : 0;
		}
		err = hc_reval_set_check(set->rule, set->nr, &bad);
		if (err) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    hc_reval_nth_rule(info, bad),
					    "a mode after needs a ttl of 1..315360000 s, the others none; prefixes are distinct");
			kfree(set);
			return err;
		}
	}
	pool = hc_nl_ingest_peer_begin(info, NULL);
	if (IS_ERR(pool)) {
		kfree(set);
		return PTR_ERR(pool);
	}
	hc_reval_install(set);
	hc_pool_unlock();
	pr_info("revalidation rules: %u\n", nr);
	return 0;
}

int hc_nl_revalidate_done(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *uuid = info->attrs[HC_A_REV_POOL_UUID];
	struct hc_obj *obj, *nobj;
	struct hc_pool *pool;
	u32 result;
	int err;

	if (!info->attrs[HC_A_REV_ID] || !info->attrs[HC_A_REV_RESULT]) {
		NL_SET_ERR_MSG(info->extack, "the request id and result are needed");
		return -EINVAL;
	}
	result = nla_get_u8(info->attrs[HC_A_REV_RESULT]);
	pool = hc_nl_ingest_peer_begin(info, uuid);
	if (IS_ERR(pool))
		return PTR_ERR(pool);
	obj = pool ? hc_cache_reval_find(pool->cache,
				nla_get_u64(info->attrs[HC_A_REV_ID])) : NULL;
	if (!obj) {
		hc_pool_unlock();
		NL_SET_ERR_MSG(info->extack, "no such revalidation request");
		return -ENOENT;
	}
	hc_cache_reval_end(pool->cache, obj, result);
	if (result == HC_REVAL_FAILED && info->attrs[HC_A_REV_ERRNO])
		pr_info_ratelimited("revalidation %llu failed (%u): served as cached\n",
				    obj->generation,
				    nla_get_u32(info->attrs[HC_A_REV_ERRNO]));
	if (result == HC_REVAL_CHANGED) {
		err = hc_cache_reval_replace(pool->cache, obj, &nobj);
		if (err == 1)
			hc_nl_ingest_request(pool, nobj);
		else if (err < 0)
			pr_warn_ratelimited("revalidation: a changed object stays as cached (%d)\n",
					    err);
	}
	hc_pool_unlock();
	return 0;
}
