// SPDX-License-Identifier: GPL-2.0
/*
 * The transfer scheduler: see xsched.h.
 */
#include <errno.h>
#include <string.h>
#include "xsched.h"
#include "util.h"

int hc_xsched_init(struct hc_xsched *s, const struct hc_xsched_cfg *cfg,
		  char *err, size_t errlen)
{
	if (!cfg->max_objects)
		return hc_seterr(err, errlen, -EINVAL,
				 "max_objects_in_flight is 0");
	if (!cfg->slots || cfg->slots > HC_XSCHED_SLOTS_MAX)
		return hc_seterr(err, errlen, -EINVAL,
				 "%u transfer slots per backend (1..%u)",
				 cfg->slots, HC_XSCHED_SLOTS_MAX);
	if (!cfg->part_size || cfg->part_size % HC_XSCHED_BLOCK)
		return hc_seterr(err, errlen, -EINVAL,
				 "part size %llu is not a multiple of %u",
				 (unsigned long long)cfg->part_size,
				 HC_XSCHED_BLOCK);
	if (cfg->budget < cfg->part_size)
		return hc_seterr(err, errlen, -EINVAL,
				 "buffer budget %llu is below the part size %llu",
				 (unsigned long long)cfg->budget,
				 (unsigned long long)cfg->part_size);
	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	for (unsigned int i = 0; i < HC_XSCHED_BACKENDS_MAX; i++)
		s->be[i].window = cfg->slots;
	return 0;
}

int hc_xsched_add(struct hc_xsched *s, struct hc_xsched_obj *o)
{
	uint64_t ps = s->cfg.part_size;

	if (o->backend >= HC_XSCHED_BACKENDS_MAX)
		return -EINVAL;
	o->state = HC_XSCHED_QUEUED;
	o->error = 0;
	o->nr_parts = (o->size + ps - 1) / ps;
	o->next_part = 0;
	o->done_parts = 0;
	o->running = 0;
	o->nr_retry = 0;
	o->seq = s->seq++;
	o->next = NULL;
	if (!o->nr_parts) {
		o->state = HC_XSCHED_FINISHED;
		return 1;
	}
	if (s->queue_tail)
		s->queue_tail->next = o;
	else
		s->queue = o;
	s->queue_tail = o;
	return 0;
}

/* Move queued objects to the active list while there is room. */
static void xsched_admit(struct hc_xsched *s)
{
	while (s->queue && s->nr_active < s->cfg.max_objects) {
		struct hc_xsched_obj *o = s->queue;

		s->queue = o->next;
		if (!s->queue)
			s->queue_tail = NULL;
		o->state = HC_XSCHED_ACTIVE;
		o->next = s->active;
		s->active = o;
		s->nr_active++;
	}
}

static uint64_t parts_left(const struct hc_xsched_obj *o)
{
	if (o->error)
		return 0;
	return o->nr_parts - o->next_part + o->nr_retry;
}

/* Is @a a better pick than @b (fewest running, fewest left, oldest)? */
static bool xsched_before(const struct hc_xsched_obj *a,
			 const struct hc_xsched_obj *b)
{
	if (!b)
		return true;
	if (a->running != b->running)
		return a->running < b->running;
	if (parts_left(a) != parts_left(b))
		return parts_left(a) < parts_left(b);
	return a->seq < b->seq;
}

static void xsched_take(struct hc_xsched *s, uint64_t bytes)
{
	s->buffered += bytes;
	if (s->buffered > s->buffered_max)
		s->buffered_max = s->buffered;
}

int hc_xsched_reserve(struct hc_xsched *s, uint64_t bytes)
{
	if (!bytes || bytes > s->cfg.budget)
		return -EFBIG;
	if (s->buffered + bytes > s->cfg.budget)
		return -EAGAIN;
	xsched_take(s, bytes);
	return 0;
}

void hc_xsched_release(struct hc_xsched *s, uint64_t bytes)
{
	s->buffered -= bytes;
}

int hc_xsched_next(struct hc_xsched *s, uint64_t now, struct hc_xsched_part *p,
		  uint64_t *wake)
{
	struct hc_xsched_obj *o, *best = NULL;
	struct hc_xsched_backend *be;
	uint64_t no, off, len, buf_len;
	unsigned int slot;

	*wake = UINT64_MAX;
	xsched_admit(s);
	if (!s->active)
		return -ENOENT;
	for (o = s->active; o; o = o->next) {
		be = &s->be[o->backend];
		if (!parts_left(o))
			continue;
		if (be->paused_until > now) {
			if (be->paused_until < *wake)
				*wake = be->paused_until;
			continue;
		}
		if (be->running >= be->window)
			continue;
		if (xsched_before(o, best))
			best = o;
	}
	if (!best)
		return -EAGAIN;
	no = best->nr_retry ? best->retry[best->nr_retry - 1] : best->next_part;
	off = no * s->cfg.part_size;
	len = best->size - off < s->cfg.part_size ? best->size - off :
						    s->cfg.part_size;
	buf_len = (len + HC_XSCHED_BLOCK - 1) & ~(uint64_t)(HC_XSCHED_BLOCK - 1);
	/* the best waits for room rather than be overtaken: no starvation */
	if (s->buffered + buf_len > s->cfg.budget)
		return -EAGAIN;
	be = &s->be[best->backend];
	for (slot = 0; slot < s->cfg.slots; slot++)
		if (!(be->slots_busy & (1ULL << slot)))
			break;
	if (best->nr_retry)
		best->nr_retry--;
	else
		best->next_part++;
	be->slots_busy |= 1ULL << slot;
	be->running++;
	best->running++;
	xsched_take(s, buf_len);
	*p = (struct hc_xsched_part){ .obj = best, .no = no, .off = off,
				     .len = len, .buf_len = buf_len,
				     .slot = slot };
	return 0;
}

static void xsched_slowdown(struct hc_xsched *s, struct hc_xsched_backend *be,
			   uint64_t retry_after_ms, uint64_t now)
{
	uint64_t pause = HC_XSCHED_BACKOFF_MS;

	be->window = be->window > 1 ? be->window / 2 : 1;
	if (be->slowdowns < 32)
		be->slowdowns++;
	for (unsigned int i = 1; i < be->slowdowns &&
	     pause < HC_XSCHED_BACKOFF_CAP_MS; i++)
		pause *= 2;
	if (pause > HC_XSCHED_BACKOFF_CAP_MS)
		pause = HC_XSCHED_BACKOFF_CAP_MS;
	if (retry_after_ms > pause)
		pause = retry_after_ms;
	if (now + pause > be->paused_until)
		be->paused_until = now + pause;
	(void)s;
}

static void xsched_unlink(struct hc_xsched *s, struct hc_xsched_obj *o)
{
	struct hc_xsched_obj **pp;

	for (pp = &s->active; *pp; pp = &(*pp)->next)
		if (*pp == o) {
			*pp = o->next;
			break;
		}
	o->next = NULL;
	o->state = HC_XSCHED_FINISHED;
	s->nr_active--;
}

bool hc_xsched_end(struct hc_xsched *s, const struct hc_xsched_part *p,
		  enum hc_xsched_outcome out, int error,
		  uint64_t retry_after_ms, uint64_t now)
{
	struct hc_xsched_obj *o = p->obj;
	struct hc_xsched_backend *be = &s->be[o->backend];

	be->slots_busy &= ~(1ULL << p->slot);
	be->running--;
	o->running--;
	s->buffered -= p->buf_len;
	switch (out) {
	case HC_XSCHED_OK:
		o->done_parts++;
		be->slowdowns = 0;
		if (be->window < s->cfg.slots)
			be->window++;
		break;
	case HC_XSCHED_SLOWDOWN:
		xsched_slowdown(s, be, retry_after_ms, now);
		if (!o->error) {
			o->retry[o->nr_retry++] = p->no;
			break;
		}
		break;
	case HC_XSCHED_FAIL:
		if (!o->error)
			o->error = error < 0 ? error : -EIO;
		o->nr_retry = 0;
		break;
	}
	if (o->running || (!o->error && o->done_parts < o->nr_parts))
		return false;
	xsched_unlink(s, o);
	return true;
}
