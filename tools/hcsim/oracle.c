// SPDX-License-Identifier: GPL-2.0
/*
 * The static oracle: the best fixed set of objects chosen with hindsight,
 * greedy by bytes read per chunk (bytes of all reads of the object over its
 * weight), filled in that order, skipping what no longer fits.  The set is
 * resident from the first request (no cold misses); writes change nothing.
 * Not an upper bound of every policy (a dynamic one can follow phases), but
 * the yardstick for a workload whose popularity does not move.
 *
 * "oracle-cold" is the same rule for a cache that starts empty, as every
 * online policy does: it must read each object of its set once before that
 * object can hit.  Its set is chosen by the bytes of all reads but the
 * first, per chunk, and the first read of each member is a miss.  The gap
 * between the two oracles is the cold misses no policy can avoid.
 */
#include <stdlib.h>
#include <string.h>
#include "sim.h"

struct oracle {
	bool *in;
	bool *seen;	/* oracle-cold: the object was read once */
};

static const struct sim_trace *oracle_trace;
static double *oracle_value;

static int oracle_cmp(const void *a, const void *b)
{
	double va = oracle_value[*(const u32 *)a];
	double vb = oracle_value[*(const u32 *)b];

	if (va != vb)
		return va < vb ? 1 : -1;
	return *(const u32 *)a < *(const u32 *)b ? -1 : 1;	/* stable */
}

static void *oracle_build(const struct sim_trace *t, u64 capacity, bool cold)
{
	struct oracle *s = sim_xcalloc(1, sizeof(*s));
	u32 *order = sim_xcalloc(t->nr_objs, sizeof(*order));
	u64 i, used = 0;

	s->in = sim_xcalloc(t->nr_objs, sizeof(*s->in));
	if (cold)
		s->seen = sim_xcalloc(t->nr_objs, sizeof(*s->seen));
	oracle_value = sim_xcalloc(t->nr_objs, sizeof(*oracle_value));
	oracle_trace = t;
	for (i = 0; i < t->nr_reqs; i++) {
		u32 id = t->reqs[i].id;

		if (t->reqs[i].write)
			continue;
		if (cold && !s->seen[id])
			s->seen[id] = true;	/* the cold miss earns nothing */
		else
			oracle_value[id] += (double)t->objs[id].size;
	}
	if (cold)
		memset(s->seen, 0, t->nr_objs * sizeof(*s->seen));
	for (i = 0; i < t->nr_objs; i++) {
		oracle_value[i] /= t->objs[i].weight;
		order[i] = i;
	}
	qsort(order, t->nr_objs, sizeof(*order), oracle_cmp);
	for (i = 0; i < t->nr_objs && used < capacity; i++) {
		u32 id = order[i];

		if (oracle_value[id] > 0 && used + t->objs[id].weight <= capacity) {
			s->in[id] = true;
			used += t->objs[id].weight;
		}
	}
	free(order);
	free(oracle_value);
	oracle_value = NULL;
	return s;
}

static void *oracle_create(const struct sim_trace *t, u64 capacity)
{
	return oracle_build(t, capacity, false);
}

static void *oracle_cold_create(const struct sim_trace *t, u64 capacity)
{
	return oracle_build(t, capacity, true);
}

static bool oracle_read(void *st, u32 id)
{
	struct oracle *s = st;

	if (s->seen && !s->seen[id]) {
		s->seen[id] = true;
		return false;
	}
	return s->in[id];
}

static void oracle_write(void *st, u32 id)
{
	(void)st;
	(void)id;
}

static void oracle_destroy(void *st)
{
	struct oracle *s = st;

	free(s->seen);
	free(s->in);
	free(s);
}

const struct sim_ops sim_oracle_ops = {
	.name = "oracle",
	.create = oracle_create,
	.read = oracle_read,
	.write = oracle_write,
	.destroy = oracle_destroy,
};

const struct sim_ops sim_oracle_cold_ops = {
	.name = "oracle-cold",
	.create = oracle_cold_create,
	.read = oracle_read,
	.write = oracle_write,
	.destroy = oracle_destroy,
};
