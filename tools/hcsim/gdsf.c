// SPDX-License-Identifier: GPL-2.0
/*
 * GreedyDual-Size-Frequency (Cherkasova, HP Labs 1998): each resident
 * object has the priority H = L + freq x cost / size; the object with the
 * lowest H goes first and L (the inflation) becomes its H, so objects not
 * hit for long age out.  freq counts hits since the object entered.  Every
 * miss is admitted (unless larger than the cache).
 *
 *   GDSF    cost = 1: the classic form, tuned for the request hit ratio
 *   GDSF-B  cost = size: the byte hit ratio form (H = L + freq)
 *
 * Resident objects sit in a binary min-heap on H.
 */
#include <stdlib.h>
#include "sim.h"

struct gdsf {
	const struct sim_trace *t;
	u32 *heap;		/* ids */
	u32 *pos;		/* id -> heap index + 1, 0 = not resident */
	double *h;
	u32 *freq;
	u32 n;
	u64 used, capacity;
	double inflation;
	bool bytes;
};

static void *gdsf_create_as(const struct sim_trace *t, u64 capacity,
			    bool bytes)
{
	struct gdsf *s = sim_xcalloc(1, sizeof(*s));

	s->t = t;
	s->heap = sim_xcalloc(t->nr_objs, sizeof(*s->heap));
	s->pos = sim_xcalloc(t->nr_objs, sizeof(*s->pos));
	s->h = sim_xcalloc(t->nr_objs, sizeof(*s->h));
	s->freq = sim_xcalloc(t->nr_objs, sizeof(*s->freq));
	s->capacity = capacity;
	s->bytes = bytes;
	return s;
}

static void *gdsf_create(const struct sim_trace *t, u64 capacity)
{
	return gdsf_create_as(t, capacity, false);
}

static void *gdsfb_create(const struct sim_trace *t, u64 capacity)
{
	return gdsf_create_as(t, capacity, true);
}

static void gdsf_set(struct gdsf *s, u32 i, u32 id)
{
	s->heap[i] = id;
	s->pos[id] = i + 1;
}

static void gdsf_up(struct gdsf *s, u32 i)
{
	u32 id = s->heap[i];

	while (i && s->h[s->heap[(i - 1) / 2]] > s->h[id]) {
		gdsf_set(s, i, s->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	gdsf_set(s, i, id);
}

static void gdsf_down(struct gdsf *s, u32 i)
{
	u32 id = s->heap[i];

	for (;;) {
		u32 c = 2 * i + 1;

		if (c >= s->n)
			break;
		if (c + 1 < s->n && s->h[s->heap[c + 1]] < s->h[s->heap[c]])
			c++;
		if (s->h[s->heap[c]] >= s->h[id])
			break;
		gdsf_set(s, i, s->heap[c]);
		i = c;
	}
	gdsf_set(s, i, id);
}

static void gdsf_del(struct gdsf *s, u32 id)
{
	u32 i = s->pos[id] - 1, last = s->heap[--s->n];

	s->pos[id] = 0;
	s->used -= s->t->objs[id].weight;
	if (last == id)
		return;
	gdsf_set(s, i, last);
	gdsf_up(s, i);
	gdsf_down(s, s->pos[last] - 1);
}

static double gdsf_value(const struct gdsf *s, u32 id)
{
	return s->bytes ? s->freq[id] :
	       (double)s->freq[id] / s->t->objs[id].weight;
}

static void gdsf_insert(struct gdsf *s, u32 id)
{
	u32 w = s->t->objs[id].weight;

	if (w > s->capacity)
		return;
	while (s->used + w > s->capacity) {
		u32 v = s->heap[0];

		s->inflation = s->h[v];
		gdsf_del(s, v);
	}
	s->freq[id] = 1;
	s->h[id] = s->inflation + gdsf_value(s, id);
	s->used += w;
	gdsf_set(s, s->n++, id);
	gdsf_up(s, s->n - 1);
}

static bool gdsf_read(void *st, u32 id)
{
	struct gdsf *s = st;

	if (s->pos[id]) {
		s->freq[id]++;
		s->h[id] = s->inflation + gdsf_value(s, id);
		gdsf_down(s, s->pos[id] - 1);
		return true;
	}
	gdsf_insert(s, id);
	return false;
}

static void gdsf_write(void *st, u32 id)
{
	struct gdsf *s = st;

	if (s->pos[id])
		gdsf_del(s, id);
	gdsf_insert(s, id);
}

static void gdsf_destroy(void *st)
{
	struct gdsf *s = st;

	free(s->heap);
	free(s->pos);
	free(s->h);
	free(s->freq);
	free(s);
}

const struct sim_ops sim_gdsf_ops = {
	.name = "GDSF",
	.create = gdsf_create,
	.read = gdsf_read,
	.write = gdsf_write,
	.destroy = gdsf_destroy,
};

const struct sim_ops sim_gdsfb_ops = {
	.name = "GDSF-B",
	.create = gdsfb_create,
	.read = gdsf_read,
	.write = gdsf_write,
	.destroy = gdsf_destroy,
};
