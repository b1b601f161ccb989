// SPDX-License-Identifier: GPL-2.0
/*
 * The statistics the cache's counters do not hold: LOCATE latency, each
 * member's I/O (counts, bytes, errors, latency), helper registration and
 * the journal's use, and their part of the HC_CMD_STATS_GET reply
 * (uapi/hypercache_netlink.h, appended after the cache's counters).
 *
 * The members' counters are atomic64_t, updated from any context (the
 * members' completions run in interrupt context) without a lock; a reader
 * sees each counter exactly, not a snapshot of all of them at one instant.
 *
 * The LOCATE histogram is per CPU (every LOCATE, hits without any lock,
 * would otherwise bounce one cache line between the CPUs): a LOCATE adds
 * to its CPU's copy with this_cpu_*() (process context, preemption-safe
 * without disabling it), and HC_CMD_STATS_GET sums the copies.  The sum
 * is not a snapshot of one instant either: a LOCATE that ends during the
 * sum may be counted in its bucket and not yet in the nanoseconds, or the
 * other way round; no LOCATE that ended before the sum began is missed.
 */
#include <linux/atomic.h>
#include <linux/bio.h>
#include <linux/percpu.h>
#include <net/genetlink.h>
#include "hypercache.h"
#include "core/hist.h"
#include "../uapi/hypercache_netlink.h"

/* One CPU's part of the LOCATE histogram: as struct hc_hist, not atomic. */
struct hc_stats_pcpu_hist {
	u64 b[HC_STATS_HIST_BUCKETS];
	u64 ns;
};

/* LOCATE ioctls since the module was loaded (any pool), per CPU. */
static DEFINE_PER_CPU(struct hc_stats_pcpu_hist, hc_stats_locate);

void hc_hist_add(struct hc_hist *h, u64 ns)
{
	atomic64_inc(&h->b[hc_hist_bucket(ns)]);
	atomic64_add(ns, &h->ns);
}

void hc_stats_locate_done(u64 ns)
{
	this_cpu_inc(hc_stats_locate.b[hc_hist_bucket(ns)]);
	this_cpu_add(hc_stats_locate.ns, ns);
}

/*
 * The LOCATE histogram summed over every possible CPU (a CPU that went
 * offline keeps its part): counts into @b, the nanoseconds returned.
 */
static u64 hc_stats_locate_sum(u64 b[HC_STATS_HIST_BUCKETS])
{
	const struct hc_stats_pcpu_hist *p;
	u64 ns = 0;
	int cpu;
	u32 i;

	memset(b, 0, HC_STATS_HIST_BUCKETS * sizeof(b[0]));
	for_each_possible_cpu(cpu) {
		p = per_cpu_ptr(&hc_stats_locate, cpu);
		for (i = 0; i < HC_STATS_HIST_BUCKETS; i++)
			b[i] += READ_ONCE(p->b[i]);
		ns += READ_ONCE(p->ns);
	}
	return ns;
}

/*
 * A clone of @bytes sent to member @m completed with @status after @ns.
 * Flushes and discards are not counted; a failed bio of any kind is.
 */
void hc_stats_member_io(struct hc_member *m, enum req_op op, u32 bytes,
			blk_status_t status, u64 ns)
{
	struct hc_member_io *io = &m->io;
	int dir;

	if (unlikely(status))
		atomic64_inc(&io->errors);
	if (op == REQ_OP_READ)
		dir = 0;
	else if (op == REQ_OP_WRITE)
		dir = 1;
	else
		return;
	atomic64_inc(&io->ops[dir]);
	atomic64_add(bytes, &io->bytes[dir]);
	hc_hist_add(&io->lat[dir], ns);
}

static int hc_stats_put_hist(struct sk_buff *msg, int attr,
			     const struct hc_hist *h)
{
	u64 b[HC_STATS_HIST_BUCKETS];
	u32 i;

	for (i = 0; i < HC_STATS_HIST_BUCKETS; i++)
		b[i] = atomic64_read(&h->b[i]);
	return nla_put(msg, attr, sizeof(b), b);
}

static int hc_stats_put_member(struct sk_buff *msg, u32 idx,
			       struct hc_member_io *io)
{
	const struct {
		int attr;
		atomic64_t *val;
	} v[] = {
		{ HC_A_STATS_MEMBER_READS, &io->ops[0] },
		{ HC_A_STATS_MEMBER_WRITES, &io->ops[1] },
		{ HC_A_STATS_MEMBER_READ_BYTES, &io->bytes[0] },
		{ HC_A_STATS_MEMBER_WRITE_BYTES, &io->bytes[1] },
		{ HC_A_STATS_MEMBER_ERRORS, &io->errors },
		{ HC_A_STATS_MEMBER_READ_NS, &io->lat[0].ns },
		{ HC_A_STATS_MEMBER_WRITE_NS, &io->lat[1].ns },
	};
	struct nlattr *nest;
	u32 i;

	nest = nla_nest_start(msg, HC_A_STATS_MEMBER);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(msg, HC_A_STATS_MEMBER_INDEX, idx))
		goto cancel;
	for (i = 0; i < ARRAY_SIZE(v); i++)
		if (nla_put_u64_64bit(msg, v[i].attr, atomic64_read(v[i].val),
				      HC_A_STATS_MEMBER_PAD))
			goto cancel;
	if (hc_stats_put_hist(msg, HC_A_STATS_MEMBER_READ_HIST, &io->lat[0]) ||
	    hc_stats_put_hist(msg, HC_A_STATS_MEMBER_WRITE_HIST, &io->lat[1]))
		goto cancel;
	nla_nest_end(msg, nest);
	return 0;
cancel:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}

/* The u64 attributes hc_stats_fill() appends (checked there). */
#define HC_STATS_FILL_U64	21

/*
 * hc_stats_msg_size() - room for a whole HC_CMD_STATS_GET reply: the
 * cache's counters (NLMSG_GOODSIZE held them alone), what hc_stats_fill()
 * appends, and HC_MAX_MEMBERS member nests.
 */
size_t hc_stats_msg_size(void)
{
	size_t hist = nla_total_size(HC_STATS_HIST_BUCKETS * sizeof(u64));
	size_t member = nla_total_size(0) + nla_total_size(sizeof(u32)) +
			7 * nla_total_size_64bit(sizeof(u64)) + 2 * hist;

	return NLMSG_GOODSIZE +
	       HC_STATS_FILL_U64 * nla_total_size_64bit(sizeof(u64)) + hist +
	       HC_MAX_MEMBERS * member;
}

/*
 * The policy's window target in bytes: its weight unit is chunk_size >>
 * wshift bytes (a chunk in a format v1 pool, a 4 KiB block in a v2 one,
 * as hc_cache_weight() converts).
 */
static u64 hc_stats_policy_window(const struct hc_cache *c)
{
	return c->policy.window_max * (c->chunk_size >> c->wshift);
}

/*
 * hc_stats_fill() - append the attributes from HC_A_STATS_HIT_BYTES on to
 * a HC_CMD_STATS_GET reply of @pool.  With the pool lock held; does not
 * sleep.  Returns 0 or -EMSGSIZE.
 */
int hc_stats_fill(struct sk_buff *msg, struct hc_pool *pool)
{
	const struct hc_cache *c = pool->cache;
	const struct hc_journal *j = pool->journal;
	u64 locate[HC_STATS_HIST_BUCKETS];
	u64 locate_ns = hc_stats_locate_sum(locate);
	const struct {
		int attr;
		u64 val;
	} v[] = {
		{ HC_A_STATS_HIT_BYTES, c->hit_bytes },
		{ HC_A_STATS_INGEST_HELPER, hc_nl_ingest_registered() },
		{ HC_A_STATS_EGRESS_HELPER, hc_nl_egress_registered() },
		{ HC_A_STATS_LOCATE_NS, locate_ns },
		{ HC_A_STATS_JOURNAL_USED, c->jbytes },
		{ HC_A_STATS_JOURNAL_CAPACITY, j ? hc_journal_capacity(j) : 0 },
		{ HC_A_STATS_JOURNAL_RECORDS, j ? j->records : 0 },
		{ HC_A_STATS_JOURNAL_COMPACTIONS, j ? j->compactions : 0 },
		{ HC_A_STATS_JOURNAL_FLUSHES, j ? j->flushes : 0 },
		{ HC_A_STATS_DIRTY_OLDEST_NS, hc_cache_dirty_oldest_ns(c) },
		{ HC_A_STATS_REFUSED_ROOM, c->stats.refused_room },
		{ HC_A_STATS_REFUSED_JOURNAL, c->stats.refused_journal },
		{ HC_A_STATS_REFUSED_TOO_BIG, c->stats.refused_too_big },
		{ HC_A_STATS_REFUSED_FRAGMENTED, c->stats.refused_fragmented },
		{ HC_A_STATS_SLAB_COMPACTIONS, c->compact.runs },
		{ HC_A_STATS_SLAB_MOVED, c->compact.moved },
		{ HC_A_STATS_SLAB_CHUNKS_FREED, c->compact.chunks_freed },
		{ HC_A_STATS_SLAB_BYTES_COPIED, c->compact.bytes_copied },
		/*
		 * The policy is changed only under the pool lock (cache.c,
		 * "Locking rules"; the read buffer's drain takes it too),
		 * which is held here: plain reads see one consistent state.
		 */
		{ HC_A_STATS_POLICY_WINDOW, hc_stats_policy_window(c) },
		{ HC_A_STATS_POLICY_WINDOW_MOVES, c->policy.adjustments },
		{ HC_A_STATS_POLICY_PASSES, c->policy.passes },
	};
	u32 i;

	BUILD_BUG_ON(ARRAY_SIZE(v) != HC_STATS_FILL_U64);
	for (i = 0; i < ARRAY_SIZE(v); i++)
		if (nla_put_u64_64bit(msg, v[i].attr, v[i].val,
				      HC_A_STATS_PAD))
			return -EMSGSIZE;
	if (nla_put(msg, HC_A_STATS_LOCATE_HIST, sizeof(locate), locate))
		return -EMSGSIZE;
	for (i = 0; i < pool->nr_members; i++)
		if (hc_stats_put_member(msg, i, &pool->members[i].io))
			return -EMSGSIZE;
	return 0;
}
