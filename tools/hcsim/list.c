// SPDX-License-Identifier: GPL-2.0
/* Weighted lists of object ids for the reference policies (see sim.h). */
#include <stdio.h>
#include <stdlib.h>
#include "sim.h"

void *sim_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p) {
		fprintf(stderr, "hcsim: out of memory\n");
		exit(1);
	}
	return p;
}

void sim_list_init(struct sim_list *l)
{
	l->head = SIM_NIL;
	l->tail = SIM_NIL;
	l->weight = 0;
	l->count = 0;
}

/* Put @id at the head (most recently used end) of @l, tagged @tag. */
void sim_list_push(struct sim_list *l, struct sim_node *nodes, u32 id, u64 w,
		   u8 tag)
{
	struct sim_node *n = &nodes[id];

	n->prev = SIM_NIL;
	n->next = l->head;
	if (l->head != SIM_NIL)
		nodes[l->head].prev = id;
	else
		l->tail = id;
	l->head = id;
	n->list = tag;
	l->weight += w;
	l->count++;
}

void sim_list_del(struct sim_list *l, struct sim_node *nodes, u32 id, u64 w)
{
	struct sim_node *n = &nodes[id];

	if (n->prev != SIM_NIL)
		nodes[n->prev].next = n->next;
	else
		l->head = n->next;
	if (n->next != SIM_NIL)
		nodes[n->next].prev = n->prev;
	else
		l->tail = n->prev;
	n->list = 0;
	l->weight -= w;
	l->count--;
}
