// SPDX-License-Identifier: GPL-2.0
/*
 * Ours: the module's policy (kmod/core/policy.c and sketch.c, compiled
 * unchanged) driven the way kmod/cache.c drives it: a hit is
 * hc_policy_access(), a miss hc_policy_admit() and the victims it returns
 * are evicted; a write is a STAGE, admitted as an unevictable (DIRTY)
 * object whose flag is cleared once written back.
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
	return s;
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

	if (hc_policy_resident(&s->pe[id])) {
		hc_policy_access(&s->pol, &s->pe[id]);
		return true;
	}
	tinylfu_admit(s, id);
	return false;
}

static void tinylfu_write(void *st, u32 id)
{
	struct tinylfu *s = st;
	struct hc_policy_entry *e = &s->pe[id];

	hc_policy_remove(&s->pol, e);
	hc_policy_set_flags(&s->pol, e, HC_POLICY_F_DIRTY, 0);
	tinylfu_admit(s, id);
	hc_policy_set_flags(&s->pol, e, 0, HC_POLICY_F_DIRTY);
}

static void tinylfu_destroy(void *st)
{
	struct tinylfu *s = st;

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
