// SPDX-License-Identifier: GPL-2.0
/*
 * Ours: the module's policy (kmod/core/policy.c and sketch.c, compiled
 * unchanged) driven the way kmod/cache.c drives it: a hit is
 * hc_policy_access(), a miss hc_policy_admit() and the victims it returns
 * are evicted; a write is a STAGE, admitted as an unevictable (DIRTY)
 * object whose flag is cleared once written back.  With --inflight N an
 * admitted object is held (HC_POLICY_F_HELD) and a staged one DIRTY for
 * the next N requests, its ingest or upload in flight (sim_inflight).
 */
#include <stdio.h>
#include <stdlib.h>
#include "sim.h"

struct tinylfu {
	const struct sim_trace *t;
	struct hc_policy pol;
	void *table;
	struct hc_policy_entry *pe;
	struct hc_policy_entry **victims;
	u32 victims_max;
	/* --inflight: ring of the ids whose flag a later request clears */
	u32 *ring;		/* id + 1, 0: empty slot */
	u32 *ring_flag;		/* the HC_POLICY_F_* flag to clear */
	u64 *release_at;	/* per id: request that clears its flag */
	u64 now;		/* requests (reads and writes) so far */
};

static void *tinylfu_create(const struct sim_trace *t, u64 capacity)
{
	struct tinylfu *s = sim_xcalloc(1, sizeof(*s));
	size_t bytes = hc_policy_table_bytes(capacity);
	u32 i;

	s->t = t;
	s->table = bytes ? aligned_alloc(8, (bytes + 7) & ~(size_t)7) : NULL;
	if (!s->table || hc_policy_init(&s->pol, capacity, s->table, bytes)) {
		fprintf(stderr, "hcsim: cannot set up the policy (capacity too large?)\n");
		exit(1);
	}
	s->pe = sim_xcalloc(t->nr_objs, sizeof(*s->pe));
	for (i = 0; i < t->nr_objs; i++) {
		hc_policy_entry_init(&s->pe[i], t->objs[i].key, t->objs[i].weight);
		if (t->objs[i].weight > s->victims_max)
			s->victims_max = t->objs[i].weight;
	}
	s->victims = sim_xcalloc(s->victims_max, sizeof(*s->victims));
	if (sim_inflight) {
		s->ring = sim_xcalloc(sim_inflight, sizeof(*s->ring));
		s->ring_flag = sim_xcalloc(sim_inflight, sizeof(*s->ring_flag));
		s->release_at = sim_xcalloc(t->nr_objs, sizeof(*s->release_at));
	}
	return s;
}

/*
 * One request arrives: the ingest or upload started sim_inflight requests
 * ago is done (unless its object was staged or admitted again since, a
 * later request then clears it), and @id's, if @flag, starts now (@flag
 * set on it until then).
 */
static void tinylfu_inflight(struct tinylfu *s, u32 id, u32 flag)
{
	u32 slot = s->now % sim_inflight, old = s->ring[slot];

	s->now++;
	if (old && s->release_at[old - 1] == s->now)
		hc_policy_set_flags(&s->pol, &s->pe[old - 1], 0,
				    s->ring_flag[slot]);
	s->ring[slot] = 0;
	if (!flag)
		return;
	if (s->release_at[id] > s->now) {	/* in flight again: one slot */
		u32 prev = (s->release_at[id] - 1) % sim_inflight;

		if (s->ring[prev] == id + 1 && s->ring_flag[prev] != flag)
			hc_policy_set_flags(&s->pol, &s->pe[id], 0,
					    s->ring_flag[prev]);
		s->ring[prev] = 0;
	}
	hc_policy_set_flags(&s->pol, &s->pe[id], flag, 0);
	s->ring[slot] = id + 1;
	s->ring_flag[slot] = flag;
	s->release_at[id] = s->now + sim_inflight;
}

static void tinylfu_admit(struct tinylfu *s, u32 id)
{
	u32 nr;
	int ret;

	ret = hc_policy_admit(&s->pol, &s->pe[id], s->victims, s->victims_max,
			      &nr);
	if (ret == -ENOSPC)
		return;
	if (ret < 0) {
		fprintf(stderr, "hcsim: hc_policy_admit: error %d\n", ret);
		exit(1);
	}
	/* The *nr victims are already out of the policy: nothing to free. */
}

static bool tinylfu_read(void *st, u32 id)
{
	struct tinylfu *s = st;
	bool hit = hc_policy_resident(&s->pe[id]);

	if (hit)
		hc_policy_access(&s->pol, &s->pe[id]);
	else
		tinylfu_admit(s, id);
	/* an admitted object is held while it is ingested */
	if (sim_inflight)
		tinylfu_inflight(s, id, !hit && hc_policy_resident(&s->pe[id]) ?
				 HC_POLICY_F_HELD : 0);
	return hit;
}

static void tinylfu_write(void *st, u32 id)
{
	struct tinylfu *s = st;
	struct hc_policy_entry *e = &s->pe[id];

	hc_policy_remove(&s->pol, e);
	hc_policy_set_flags(&s->pol, e, HC_POLICY_F_DIRTY, 0);
	tinylfu_admit(s, id);
	/* DIRTY until uploaded: at once, or sim_inflight requests later */
	if (sim_inflight)
		tinylfu_inflight(s, id, hc_policy_resident(e) ?
				 HC_POLICY_F_DIRTY : 0);
	if (!sim_inflight || !hc_policy_resident(e))
		hc_policy_set_flags(&s->pol, e, 0, HC_POLICY_F_DIRTY);
}

static void tinylfu_destroy(void *st)
{
	struct tinylfu *s = st;

	free(s->ring);
	free(s->ring_flag);
	free(s->release_at);
	free(s->victims);
	free(s->pe);
	free(s->table);
	free(s);
}

const struct sim_ops sim_tinylfu_ops = {
	.name = "ours",
	.create = tinylfu_create,
	.read = tinylfu_read,
	.write = tinylfu_write,
	.destroy = tinylfu_destroy,
};
