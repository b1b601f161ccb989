/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The transfer scheduler of hypercached: which part of which object moves
 * next, for many objects at once.
 *
 * Objects are added with their size and backend.  Up to @max_objects of
 * them are active at once (admitted in the order they were added); the
 * others wait.  Every object is cut into parts of @part_size bytes (the
 * last one shorter).  A part runs in one of the @slots transfer slots of
 * its object's backend and holds a buffer of its length rounded up to
 * HC_XSCHED_BLOCK; the buffers of all running parts never add up to more
 * than @budget bytes, together with what callers reserve outside the
 * parts (hc_xsched_reserve()).
 *
 * Fairness: the next part is taken from the active object with the fewest
 * parts running (ties: the fewest bytes left, then the oldest), so a 1 MiB
 * shard admitted beside a 16 GiB model gets the next free slot, and the
 * model still moves (max-min fair share of the slots).
 *
 * A part ends HC_XSCHED_OK, HC_XSCHED_FAIL (its object fails: the object's
 * parts not yet started never start, the other objects go on) or
 * HC_XSCHED_SLOWDOWN (the backend asked us to slow down: the part is
 * started again later, the backend's window of slots is halved and it
 * starts nothing before max(Retry-After, its backoff) has passed; every
 * part that ends OK widens the window by one again, up to @slots).
 *
 * Pure: no locks, no clock (the caller passes the time in ms), no sleeping,
 * no allocation after hc_xsched_init().  The caller serialises the calls.
 */
#ifndef HC_XSCHED_H
#define HC_XSCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HC_XSCHED_BLOCK		4096u	/* part buffers are multiples */
#define HC_XSCHED_BACKENDS_MAX	16
#define HC_XSCHED_SLOTS_MAX	64	/* per backend */
#define HC_XSCHED_BACKOFF_MS	100	/* the first SlowDown's pause */
#define HC_XSCHED_BACKOFF_CAP_MS	10000

struct hc_xsched_cfg {
	unsigned int max_objects;	/* 1.. */
	unsigned int slots;		/* per backend, 1..HC_XSCHED_SLOTS_MAX */
	uint64_t part_size;		/* HC_XSCHED_BLOCK multiple */
	uint64_t budget;		/* bytes, >= part_size */
};

enum hc_xsched_state {
	HC_XSCHED_QUEUED,
	HC_XSCHED_ACTIVE,
	HC_XSCHED_FINISHED,	/* every part ended; see @error */
};

/*
 * One object, in the caller's memory from hc_xsched_add() until it is
 * finished.  The caller sets @size, @backend and @arg; the rest is the
 * scheduler's.
 */
struct hc_xsched_obj {
	uint64_t size;
	unsigned int backend;		/* < HC_XSCHED_BACKENDS_MAX */
	void *arg;
	/* the scheduler's */
	enum hc_xsched_state state;
	int error;			/* the first failure, negative errno */
	uint64_t nr_parts, next_part, done_parts, running;
	uint64_t seq;			/* order of addition */
	uint64_t retry[HC_XSCHED_SLOTS_MAX];	/* parts to start again */
	unsigned int nr_retry;
	struct hc_xsched_obj *next;	/* in the queue or the active list */
};

/* A part to move: bytes [@off, @off + @len) of @obj in slot @slot. */
struct hc_xsched_part {
	struct hc_xsched_obj *obj;
	uint64_t no, off, len;
	uint64_t buf_len;		/* @len rounded up to HC_XSCHED_BLOCK */
	unsigned int slot;		/* 0..slots-1 of the object's backend */
};

enum hc_xsched_outcome {
	HC_XSCHED_OK,
	HC_XSCHED_FAIL,
	HC_XSCHED_SLOWDOWN,
};

struct hc_xsched_backend {
	uint64_t slots_busy;		/* bitmap of running slots */
	unsigned int running, window;
	unsigned int slowdowns;		/* consecutive */
	uint64_t paused_until;		/* ms */
};

struct hc_xsched {
	struct hc_xsched_cfg cfg;
	struct hc_xsched_obj *queue, *queue_tail;	/* waiting, in order */
	struct hc_xsched_obj *active;
	unsigned int nr_active;
	uint64_t seq;
	uint64_t buffered;		/* bytes of running parts' buffers */
	uint64_t buffered_max;		/* the most ever */
	struct hc_xsched_backend be[HC_XSCHED_BACKENDS_MAX];
};

/* hc_xsched_init() - 0, or -EINVAL with a message naming the bad value. */
int hc_xsched_init(struct hc_xsched *s, const struct hc_xsched_cfg *cfg,
		  char *err, size_t errlen);

/*
 * hc_xsched_add() - queue @o (its @size, @backend and @arg set); -EINVAL for
 * a backend out of range.  An object of 0 bytes is finished at once
 * (hc_xsched_add() returns 1: the caller completes it now).
 */
int hc_xsched_add(struct hc_xsched *s, struct hc_xsched_obj *o);

/*
 * hc_xsched_next() - the part to start at @now (ms) into @p: 0.  -EAGAIN:
 * nothing may start now (slots, budget, a paused backend); *@wake is when a
 * pause ends (UINT64_MAX: only when a part ends).  -ENOENT: no object is
 * queued or active.
 */
int hc_xsched_next(struct hc_xsched *s, uint64_t now, struct hc_xsched_part *p,
		  uint64_t *wake);

/*
 * hc_xsched_end() - part @p ended with @out (@error: the negative errno for
 * HC_XSCHED_FAIL; @retry_after_ms: the backend's Retry-After, 0 if none, for
 * HC_XSCHED_SLOWDOWN) at @now.  Returns true when @p's object is finished
 * (every part done, or it failed and no part of it still runs): the object
 * leaves the scheduler, its result in @error.
 */
bool hc_xsched_end(struct hc_xsched *s, const struct hc_xsched_part *p,
		  enum hc_xsched_outcome out, int error,
		  uint64_t retry_after_ms, uint64_t now);

/*
 * hc_xsched_reserve() - take @bytes of the budget for a buffer the
 * scheduler does not hand out itself (write-back's part buffers), so that
 * every buffer in flight counts against the one budget: 0; -EAGAIN if they
 * do not fit now (the caller waits for a part to end or a release and
 * tries again); -EFBIG if @bytes is 0 or above the whole budget (it never
 * fits).  hc_xsched_release() gives them back.
 */
int hc_xsched_reserve(struct hc_xsched *s, uint64_t bytes);
void hc_xsched_release(struct hc_xsched *s, uint64_t bytes);

/* hc_xsched_idle() - no object queued or active. */
static inline bool hc_xsched_idle(const struct hc_xsched *s)
{
	return !s->queue && !s->active;
}

#endif /* HC_XSCHED_H */
