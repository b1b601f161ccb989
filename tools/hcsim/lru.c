// SPDX-License-Identifier: GPL-2.0
/* Size-aware LRU (see lru.h). */
#include "lru.h"

static void lru_del(struct hc_policy_link *l)
{
	l->prev->next = l->next;
	l->next->prev = l->prev;
}

static void lru_add(struct lru *l, struct hc_policy_link *n)
{
	n->next = l->head.next;
	n->prev = &l->head;
	l->head.next->prev = n;
	l->head.next = n;
}

void lru_init(struct lru *l, u64 capacity)
{
	l->head.next = l->head.prev = &l->head;
	l->capacity = capacity;
	l->used = 0;
}

/* A hit: move to the MRU end. */
void lru_access(struct lru *l, struct hc_policy_entry *e)
{
	lru_del(&e->link);
	lru_add(l, &e->link);
}

/*
 * A miss: admit @e unless it is bigger than the cache, evicting from the LRU
 * end until it fits.  Returns HC_POLICY_ADMITTED or HC_POLICY_REJECTED, or
 * -EINVAL if @max is below @e->weight.
 */
int lru_admit(struct lru *l, struct hc_policy_entry *e,
	      struct hc_policy_entry **victims, u32 max, u32 *nr)
{
	*nr = 0;
	if (e->weight > l->capacity)
		return HC_POLICY_REJECTED;
	if (max < e->weight)
		return -EINVAL;
	while (l->used + e->weight > l->capacity) {
		struct hc_policy_link *t = l->head.prev;
		struct hc_policy_entry *v = (struct hc_policy_entry *)t;

		lru_del(t);
		l->used -= v->weight;
		victims[(*nr)++] = v;
	}
	lru_add(l, &e->link);
	e->region = HC_POLICY_WINDOW;
	l->used += e->weight;
	return HC_POLICY_ADMITTED;
}
