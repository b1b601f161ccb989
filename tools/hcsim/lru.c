// SPDX-License-Identifier: GPL-2.0
/*
 * Size-aware LRU: every miss is admitted (unless larger than the cache) and
 * the least recently used objects go until it fits.
 */
#include <stdlib.h>
#include "sim.h"

struct lru {
	const struct sim_trace *t;
	struct sim_node *nodes;
	struct sim_list l;
	u64 capacity;
};

static void *lru_create(const struct sim_trace *t, u64 capacity)
{
	struct lru *s = sim_xcalloc(1, sizeof(*s));

	s->t = t;
	s->nodes = sim_xcalloc(t->nr_objs, sizeof(*s->nodes));
	sim_list_init(&s->l);
	s->capacity = capacity;
	return s;
}

static void lru_insert(struct lru *s, u32 id)
{
	u32 w = s->t->objs[id].weight;

	if (w > s->capacity)
		return;
	while (s->l.weight + w > s->capacity) {
		u32 v = s->l.tail;

		sim_list_del(&s->l, s->nodes, v, s->t->objs[v].weight);
	}
	sim_list_push(&s->l, s->nodes, id, w, 1);
}

static bool lru_read(void *st, u32 id)
{
	struct lru *s = st;
	u32 w = s->t->objs[id].weight;

	if (s->nodes[id].list) {
		sim_list_del(&s->l, s->nodes, id, w);
		sim_list_push(&s->l, s->nodes, id, w, 1);
		return true;
	}
	lru_insert(s, id);
	return false;
}

static void lru_write(void *st, u32 id)
{
	struct lru *s = st;

	if (s->nodes[id].list)
		sim_list_del(&s->l, s->nodes, id, s->t->objs[id].weight);
	lru_insert(s, id);
}

static void lru_destroy(void *st)
{
	struct lru *s = st;

	free(s->nodes);
	free(s);
}

const struct sim_ops sim_lru_ops = {
	.name = "LRU",
	.create = lru_create,
	.read = lru_read,
	.write = lru_write,
	.destroy = lru_destroy,
};
