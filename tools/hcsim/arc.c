// SPDX-License-Identifier: GPL-2.0
/*
 * Size-aware ARC (Megiddo and Modha, FAST 2003, with every length counted
 * in chunks instead of pages): T1/T2 resident, B1/B2 their ghosts, the
 * target p of T1 learnt from ghost hits.  A ghost hit in B1 grows p by the
 * object's weight times max(1, B2/B1) (B2 symmetrically), so a ghost of a
 * 4 GiB object says as much as a thousand ghosts of a chunk.
 */
#include <stdlib.h>
#include "sim.h"

enum { ARC_NONE, ARC_T1, ARC_T2, ARC_B1, ARC_B2, ARC_LISTS };

struct arc {
	const struct sim_trace *t;
	struct sim_node *nodes;
	struct sim_list l[ARC_LISTS];
	u64 capacity;
	u64 p;
};

static u32 arc_w(const struct arc *s, u32 id)
{
	return s->t->objs[id].weight;
}

static void *arc_create(const struct sim_trace *t, u64 capacity)
{
	struct arc *s = sim_xcalloc(1, sizeof(*s));
	int i;

	s->t = t;
	s->nodes = sim_xcalloc(t->nr_objs, sizeof(*s->nodes));
	for (i = 0; i < ARC_LISTS; i++)
		sim_list_init(&s->l[i]);
	s->capacity = capacity;
	return s;
}

static void arc_move(struct arc *s, u32 id, int to)
{
	int from = s->nodes[id].list;

	if (from)
		sim_list_del(&s->l[from], s->nodes, id, arc_w(s, id));
	if (to)
		sim_list_push(&s->l[to], s->nodes, id, arc_w(s, id), to);
}

/* Make room for @w units: T1's LRU end to B1 while T1 exceeds p, else T2's. */
static void arc_replace(struct arc *s, u64 w, bool in_b2)
{
	while (s->l[ARC_T1].weight + s->l[ARC_T2].weight + w > s->capacity) {
		u64 t1 = s->l[ARC_T1].weight;

		if (t1 && (t1 > s->p || (in_b2 && t1 >= s->p) ||
			   !s->l[ARC_T2].count))
			arc_move(s, s->l[ARC_T1].tail, ARC_B1);
		else
			arc_move(s, s->l[ARC_T2].tail, ARC_B2);
	}
}

/* Ghosts: |T1| + |B1| <= c and the whole directory <= 2c (in units). */
static void arc_trim(struct arc *s)
{
	while (s->l[ARC_B1].count &&
	       s->l[ARC_T1].weight + s->l[ARC_B1].weight > s->capacity)
		arc_move(s, s->l[ARC_B1].tail, ARC_NONE);
	while (s->l[ARC_B2].count &&
	       s->l[ARC_T1].weight + s->l[ARC_T2].weight +
	       s->l[ARC_B1].weight + s->l[ARC_B2].weight > 2 * s->capacity)
		arc_move(s, s->l[ARC_B2].tail, ARC_NONE);
}

static bool arc_read(void *st, u32 id)
{
	struct arc *s = st;
	u64 w = arc_w(s, id), b1 = s->l[ARC_B1].weight, b2 = s->l[ARC_B2].weight;
	u64 d;

	switch (s->nodes[id].list) {
	case ARC_T1:
	case ARC_T2:
		arc_move(s, id, ARC_T2);
		return true;
	case ARC_B1:
		d = b1 && b2 > b1 ? w * b2 / b1 : w;
		s->p = s->p + d > s->capacity ? s->capacity : s->p + d;
		arc_move(s, id, ARC_NONE);
		arc_replace(s, w, false);
		arc_move(s, id, ARC_T2);
		break;
	case ARC_B2:
		d = b2 && b1 > b2 ? w * b1 / b2 : w;
		s->p = s->p > d ? s->p - d : 0;
		arc_move(s, id, ARC_NONE);
		arc_replace(s, w, true);
		arc_move(s, id, ARC_T2);
		break;
	default:
		if (w > s->capacity)
			return false;
		arc_replace(s, w, false);
		arc_move(s, id, ARC_T1);
		break;
	}
	arc_trim(s);
	return false;
}

static void arc_write(void *st, u32 id)
{
	struct arc *s = st;
	u64 w = arc_w(s, id);

	arc_move(s, id, ARC_NONE);
	if (w > s->capacity)
		return;
	arc_replace(s, w, false);
	arc_move(s, id, ARC_T1);
	arc_trim(s);
}

static void arc_destroy(void *st)
{
	struct arc *s = st;

	free(s->nodes);
	free(s);
}

const struct sim_ops sim_arc_ops = {
	.name = "ARC",
	.create = arc_create,
	.read = arc_read,
	.write = arc_write,
	.destroy = arc_destroy,
};
