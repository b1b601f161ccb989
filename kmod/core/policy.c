// SPDX-License-Identifier: GPL-2.0
/*
 * Size-aware W-TinyLFU (see policy.h).  Core code: shared with the unit
 * tests and tools/hcsim.
 */
#include "policy.h"

/* Largest capacity: keeps the controller's 64-bit products exact. */
#define HC_POLICY_CAPACITY_MAX	BIT_ULL(40)
/* Control period: requests between two window moves, at least this many. */
#define HC_POLICY_PERIOD_MIN	128
/* Hits (weight) a period needs before the controller trusts the ratio. */
#define HC_POLICY_HITS_MIN	16
/* Window step: capacity >> GAIN_SHIFT per doubling of the ratio ... */
#define HC_POLICY_GAIN_SHIFT	4
/* ... bounded to capacity >> STEP_SHIFT per period. */
#define HC_POLICY_STEP_SHIFT	3
/*
 * Main keeps at least capacity >> MAIN_MIN_SHIFT when the window grows (a
 * recency workload: the sliding working set of bench-policy.sh).  Main's
 * few entries there hold what won duels long ago and earn no hits, so
 * every unit kept for them is lost to the window: at 1 % (the window's own
 * minimum) the steady state ran 0.4 points below LRU of the same capacity.
 */
#define HC_POLICY_MAIN_MIN_SHIFT	8
/* Fixed-point log2: 16 fractional bits. */
#define HC_POLICY_FP_SHIFT	16
/*
 * A candidate must earn more than this many hits per chunk above the
 * victims' average to displace them: with equal frequencies the residents
 * stay.  Without it a loop over more objects than the cache (a dataset
 * epoch read in a fresh order) churns: the shard just read (k sightings)
 * beats the resident one not yet read this epoch (k - 1), so every epoch
 * replaces the cache and hits nothing.
 */
#define HC_POLICY_MARGIN	1
/*
 * ... once the victims were seen this often on average: a candidate seen
 * twice still displaces one-hit wonders (a scan that filled a cold cache).
 * A candidate no larger than HC_POLICY_LIKE times the victims' average
 * weight (a shard against shards or against a model, a unit against units)
 * needs the margin from an average of 1: the second epoch of a loop must
 * not churn the first one's shards, nor a shard seen twice evict a model
 * seen once, while a larger object seen twice (a tail model against the
 * shards that filled a cold cache) still wins.
 */
#define HC_POLICY_MARGIN_FROM	2
#define HC_POLICY_LIKE		2
/*
 * The ghost's pass (ghost.h): granted while main's share of the requested
 * weight over the last eighth to quarter of a capacity of requests
 * (halved at capacity >> RATE_SHIFT) is below 1 / 2^GATE_SHIFT.  A loop
 * over more objects than the cache keeps main's share near the cache's
 * share of the loop (29 % on the training workload at 1/4, 2026-12-07), a
 * phase change drops it to the window's few hits: the block trace's
 * phases that LRU keeps and the duel turned away (policy.md, "A ghost of
 * rejected candidates").  A loop of more than twice the cache comes back
 * after the ghost has forgotten it.  The horizon is a compromise measured
 * on the block trace and a loop in a fixed order over twice the cache
 * (policy_test.c): halving at a half or a whole capacity kept the loop's
 * hits and lost the block trace's phases (30.91 and 28.98 % at 0.3, LRU
 * 30.82), at an eighth the loop's misses, 1 000 in a row, opened the gate
 * and cost it a fifth of its hits.
 */
#define HC_POLICY_GATE_SHIFT		3
#define HC_POLICY_RATE_SHIFT		2
/* A losing candidate this frequent still wins 1 duel in 128 (anti-flood). */
#define HC_POLICY_WARM_FREQ	6
/* An explicit admission evicts entries this cold (seen once) first. */
#define HC_POLICY_COLD_FREQ	1

/* ---- intrusive list ---------------------------------------------------- */

static void hc_policy_link_init(struct hc_policy_link *l)
{
	l->next = l;
	l->prev = l;
}

static bool hc_policy_link_empty(const struct hc_policy_link *head)
{
	return head->next == head;
}

/* Insert @l right after @head: the most recently used position. */
static void hc_policy_link_add(struct hc_policy_link *head,
			       struct hc_policy_link *l)
{
	l->next = head->next;
	l->prev = head;
	head->next->prev = l;
	head->next = l;
}

static void hc_policy_link_del(struct hc_policy_link *l)
{
	l->prev->next = l->next;
	l->next->prev = l->prev;
	hc_policy_link_init(l);
}

static struct hc_policy_entry *hc_policy_entry_of(struct hc_policy_link *l)
{
	return (struct hc_policy_entry *)((char *)l -
		offsetof(struct hc_policy_entry, link));
}

/* ---- regions ----------------------------------------------------------- */

/* Put @e into region @r after @at (weight and count follow). */
static void hc_policy_insert_at(struct hc_policy *p, struct hc_policy_entry *e,
				enum hc_policy_region r,
				struct hc_policy_link *at)
{
	e->region = r;
	hc_policy_link_add(at, &e->link);
	p->weight[r] += e->weight;
	p->count[r]++;
	if (r == HC_POLICY_PROTECTED && !hc_policy_evictable(e))
		p->protected_parked += e->weight;
}

/*
 * Put @e at the MRU end of region @r; an unevictable entry is counted in
 * @r but linked on the parked list, out of every victim walk.
 */
static void hc_policy_insert(struct hc_policy *p, struct hc_policy_entry *e,
			     enum hc_policy_region r)
{
	hc_policy_insert_at(p, e, r, hc_policy_evictable(e) ? &p->lru[r] :
							     &p->parked);
}

/* Take @e out of its region (it stays counted in @used). */
static void hc_policy_unlink(struct hc_policy *p, struct hc_policy_entry *e)
{
	hc_policy_link_del(&e->link);
	p->weight[e->region] -= e->weight;
	p->count[e->region]--;
	if (e->region == HC_POLICY_PROTECTED && !hc_policy_evictable(e))
		p->protected_parked -= e->weight;
	e->region = HC_POLICY_NONE;
}

/* Take @e out of the policy altogether. */
static void hc_policy_drop(struct hc_policy *p, struct hc_policy_entry *e)
{
	hc_policy_unlink(p, e);
	p->used -= e->weight;
	if (!hc_policy_evictable(e))
		p->unevictable -= e->weight;
}

static void hc_policy_move(struct hc_policy *p, struct hc_policy_entry *e,
			   enum hc_policy_region r)
{
	hc_policy_unlink(p, e);
	hc_policy_insert(p, e, r);
}

/*
 * Demote protected's LRU entries to probation while protected's evictable
 * entries outweigh its share (parked ones are not demoted: they hold no
 * place in its order).
 */
static void hc_policy_demote(struct hc_policy *p)
{
	struct hc_policy_link *head = &p->lru[HC_POLICY_PROTECTED];

	while (p->weight[HC_POLICY_PROTECTED] - p->protected_parked >
	       p->protected_max && !hc_policy_link_empty(head))
		hc_policy_move(p, hc_policy_entry_of(head->prev),
			       HC_POLICY_PROBATION);
}

static u64 hc_policy_main_weight(const struct hc_policy *p)
{
	return p->weight[HC_POLICY_PROBATION] + p->weight[HC_POLICY_PROTECTED];
}

/* ---- victim walk --------------------------------------------------------- */

/*
 * Walks evictable entries from the LRU end of each region of @order in turn,
 * skipping unevictable ones and @skip.  The cursor steps past an entry
 * before returning it, so the caller may unlink it.
 */
struct hc_policy_cursor {
	const u8 *order;
	int n, i;
	struct hc_policy_link *pos;
	const struct hc_policy_entry *skip;
};

static const u8 hc_policy_main_order[] = {
	HC_POLICY_PROBATION, HC_POLICY_PROTECTED,
};

static const u8 hc_policy_any_order[] = {
	HC_POLICY_PROBATION, HC_POLICY_PROTECTED, HC_POLICY_WINDOW,
};

static void hc_policy_cursor_init(struct hc_policy_cursor *c, const u8 *order,
				  int n, const struct hc_policy_entry *skip)
{
	c->order = order;
	c->n = n;
	c->i = 0;
	c->pos = NULL;
	c->skip = skip;
}

static struct hc_policy_entry *hc_policy_cursor_next(struct hc_policy *p,
						     struct hc_policy_cursor *c)
{
	for (; c->i < c->n; c->i++, c->pos = NULL) {
		struct hc_policy_link *head = &p->lru[c->order[c->i]];

		if (!c->pos)
			c->pos = head->prev;
		while (c->pos != head) {
			struct hc_policy_entry *e = hc_policy_entry_of(c->pos);

			c->pos = c->pos->prev;
			if (hc_policy_evictable(e) && e != c->skip)
				return e;
		}
	}
	return NULL;
}

/* ---- main's share of the hits ------------------------------------------- */

/*
 * A request of @weight that main served (@main) or not (a window hit, a
 * miss).  Both sums are halved once the requests reach capacity >>
 * RATE_SHIFT: main's share is that of the last eighth to quarter of a
 * capacity of requests, about one request per resident entry at most.
 */
static void hc_policy_rate(struct hc_policy *p, bool main, u32 weight)
{
	if (main)
		p->rate_main += weight;
	p->rate_all += weight;
	if (p->rate_all >= p->capacity >> HC_POLICY_RATE_SHIFT) {
		p->rate_main /= 2;
		p->rate_all /= 2;
	}
}

/* Whether a candidate back from the ghost is passed: main earns few hits. */
static bool hc_policy_gate_open(const struct hc_policy *p)
{
	return p->rate_main << HC_POLICY_GATE_SHIFT < p->rate_all;
}

/* ---- window controller --------------------------------------------------- */

/* log2(@x) in 16.16 fixed point, linear between powers of two; @x >= 1. */
static s64 hc_policy_log2(u64 x)
{
	u32 n = ilog2(x);
	u64 frac;

	if (n >= HC_POLICY_FP_SHIFT)
		frac = x >> (n - HC_POLICY_FP_SHIFT);
	else
		frac = x << (HC_POLICY_FP_SHIFT - n);
	frac &= (1ULL << HC_POLICY_FP_SHIFT) - 1;
	return ((s64)n << HC_POLICY_FP_SHIFT) | (s64)frac;
}

static void hc_policy_set_window(struct hc_policy *p, u64 window_max)
{
	u64 main_min = p->capacity >> HC_POLICY_MAIN_MIN_SHIFT ? : 1;
	u64 hi = p->capacity > 2 * p->window_min ?
		 p->capacity - main_min : p->window_min;

	if (window_max < p->window_min)
		window_max = p->window_min;
	if (window_max > hi)
		window_max = hi;
	p->window_max = window_max;
	p->protected_max = (p->capacity - window_max) * 4 / 5;
}

/*
 * Compare hits per weight unit in the window with hits per unit in main and
 * move the window target by (capacity / 16) x log2 of that ratio, at most
 * capacity / 8 per period: a window that earns twice what main earns per
 * unit grows by 1/16 of the cache.  Hits are weights, so the controller
 * optimises bytes hit.  Quiet periods (a scan, no hits) leave it alone.
 */
static void hc_policy_adapt(struct hc_policy *p)
{
	u64 hw = p->hits[HC_POLICY_WINDOW];
	u64 hm = p->hits[HC_POLICY_PROBATION] + p->hits[HC_POLICY_PROTECTED];
	u64 ww = p->weight[HC_POLICY_WINDOW] ? : 1;
	u64 wm = hc_policy_main_weight(p) ? : 1;
	u64 step, bound = p->capacity >> HC_POLICY_STEP_SHIFT ? : 1;
	s64 l;
	int r;

	if (hw + hm < HC_POLICY_HITS_MIN)
		return;
	l = hc_policy_log2(hw + 1) - hc_policy_log2(ww) -
	    hc_policy_log2(hm + 1) + hc_policy_log2(wm);
	step = (p->capacity * (u64)(l < 0 ? -l : l)) >>
	       (HC_POLICY_FP_SHIFT + HC_POLICY_GAIN_SHIFT);
	if (step > bound)
		step = bound;
	if (step) {
		u64 was = p->window_max;

		if (l > 0)
			hc_policy_set_window(p, p->window_max + step);
		else
			hc_policy_set_window(p, p->window_max > step ?
					     p->window_max - step : 0);
		/* a move, not a step clamped at a bound */
		if (p->window_max != was)
			p->adjustments++;
	}
	for (r = 0; r < HC_POLICY_NR_REGIONS; r++)
		p->hits[r] = 0;
}

/* One request seen: close the control period when it is complete. */
static void hc_policy_tick(struct hc_policy *p)
{
	u64 n = p->count[HC_POLICY_WINDOW] + p->count[HC_POLICY_PROBATION] +
		p->count[HC_POLICY_PROTECTED];

	if (++p->period < (n > HC_POLICY_PERIOD_MIN ? n : HC_POLICY_PERIOD_MIN))
		return;
	p->period = 0;
	hc_policy_adapt(p);
}

/* ---- API ---------------------------------------------------------------- */

/**
 * hc_policy_table_bytes - the table a policy needs: sketch and ghost
 * @objects: the number of objects the cache may hold (chunks, say)
 *
 * hc_sketch_bytes(@objects) for the sketch (4 bytes per counter of a row)
 * and hc_ghost_bytes() of the sketch's width for the ghost (2 more): 6
 * bytes per counter of a row.
 *
 * Return: bytes, or 0 if @objects exceeds HC_SKETCH_WIDTH_MAX.
 */
size_t hc_policy_table_bytes(u64 objects)
{
	size_t sketch = hc_sketch_bytes(objects);

	if (!sketch)
		return 0;
	/* the sketch's width: sketch bytes / 4 (hc_sketch_bytes()) */
	return sketch + hc_ghost_bytes(sketch / 4);
}

/**
 * hc_policy_init - set up an empty policy
 * @p: policy
 * @capacity: total weight (chunks) the cache may hold, 1..2^40
 * @table: table for the sketch and the ghost, owned by the caller, 8-byte
 *	   aligned; hc_policy_table_bytes(expected number of objects) bytes
 * @bytes: its size: two thirds of it (rounded down to a width) go to the
 *	   sketch, the rest to the ghost
 *
 * Not for the fast path (clears the table).
 *
 * Return: 0, or -EINVAL for a bad capacity or a table too small for the
 * smallest sketch and ghost.
 */
int hc_policy_init(struct hc_policy *p, u64 capacity, void *table,
		   size_t bytes)
{
	size_t sketch;
	int r, err;

	if (capacity < 1 || capacity > HC_POLICY_CAPACITY_MAX)
		return -EINVAL;
	err = hc_sketch_init(&p->sketch, table, bytes / 3 * 2);
	if (err)
		return err;
	sketch = hc_sketch_bytes(hc_sketch_width(&p->sketch));
	err = hc_ghost_init(&p->ghost, (u8 *)table + sketch, bytes - sketch,
			    capacity);
	if (err)
		return err;
	hc_policy_link_init(&p->parked);
	p->protected_parked = 0;
	for (r = 0; r < HC_POLICY_NR_REGIONS; r++) {
		hc_policy_link_init(&p->lru[r]);
		p->weight[r] = 0;
		p->count[r] = 0;
		p->hits[r] = 0;
	}
	p->capacity = capacity;
	p->used = 0;
	p->unevictable = 0;
	p->window_min = capacity / 100 ? : 1;
	hc_policy_set_window(p, p->window_min);
	p->period = 0;
	p->rng = 0x853c49e6748fea9bULL;
	p->rate_main = 0;
	p->rate_all = 0;
	p->adjustments = 0;
	p->passes = 0;
	return 0;
}

/**
 * hc_policy_entry_init - prepare an entry before its first hc_policy_admit()
 * @e: entry embedded in the caller's object
 * @key: the object's 64-bit key
 * @weight: its size in chunks, >= 1
 */
void hc_policy_entry_init(struct hc_policy_entry *e, u64 key, u32 weight)
{
	hc_policy_link_init(&e->link);
	e->key = key;
	e->weight = weight;
	e->region = HC_POLICY_NONE;
	e->flags = 0;
	e->pass = 0;
	e->reserved = 0;
}

/**
 * hc_policy_record - count a request for @key that neither hits nor admits
 * @p: the policy
 * @key: the key of the missed object
 *
 * For misses the caller serves without caching (e.g. after -ENOSPC), so the
 * key still builds up frequency.  Cannot fail.
 */
void hc_policy_record(struct hc_policy *p, u64 key)
{
	hc_sketch_add(&p->sketch, key);
	hc_policy_tick(p);
}

/**
 * hc_policy_access - a hit on a resident entry
 * @p: the policy
 * @e: the resident entry that was hit
 *
 * Counts the request in the sketch and moves @e to the MRU end of its
 * region; a hit in probation promotes it to protected (demoting protected's
 * LRU entries if protected outgrows its share).  Never evicts, cannot fail.
 * On an entry that is not resident only the sketch is updated.
 */
void hc_policy_access(struct hc_policy *p, struct hc_policy_entry *e)
{
	hc_sketch_add(&p->sketch, e->key);
	if (hc_policy_resident(e)) {
		hc_policy_rate(p, e->region != HC_POLICY_WINDOW, e->weight);
		p->hits[e->region] += e->weight;
		switch (e->region) {
		case HC_POLICY_WINDOW:
		case HC_POLICY_PROTECTED:
			hc_policy_move(p, e, e->region);
			break;
		case HC_POLICY_PROBATION:
			hc_policy_move(p, e, HC_POLICY_PROTECTED);
			hc_policy_demote(p);
			break;
		}
	}
	hc_policy_tick(p);
}

/*
 * The TinyLFU duel, size-aware: @c (out of the window, not in any region;
 * still counted in @used) against the LRU end of main, evictable entries
 * worth @c's own weight (or the excess over capacity if that is more):
 * the weight @c takes from main, whether or not the cache is full.  The
 * excess alone would let a large entry pushed out by a small arrival
 * (a 1024-chunk checkpoint by a 32-chunk shard) duel with one shard.  @c
 * wins if its frequency beats the victims' frequency averaged by weight,
 * by more than HC_POLICY_MARGIN once that average reaches
 * HC_POLICY_MARGIN_FROM (1 for a candidate not larger than the victims),
 * i.e. if keeping it yields clearly more hits per unit.  A candidate
 * larger than the victims also wins a tie: a model read once against
 * shards read once (a cold cache a scan filled), a model read k + 1 times
 * against shards read k times in k epochs; the candidate brings more bytes
 * per hit than any one of the victims, and at 1/4 of the ai workload the
 * scan cost the models 2.2 points of their hit ratio when it lost ties.
 * On a win only the excess over capacity is evicted: the victims are
 * dropped and appended to @victims.  An empty main region is room: @c
 * wins.
 */
static bool hc_policy_duel(struct hc_policy *p, struct hc_policy_entry *c,
			   struct hc_policy_entry **victims, u32 *nr)
{
	struct hc_policy_cursor cur;
	struct hc_policy_entry *v;
	u64 need = p->used > p->capacity ? p->used - p->capacity : 0;
	u64 judge = need > c->weight ? need : c->weight;
	u64 got = 0, vfreq = 0, cfreq, n = 0, from, bar;
	bool larger;

	hc_policy_cursor_init(&cur, hc_policy_main_order,
			      sizeof(hc_policy_main_order), NULL);
	while (got < judge && (v = hc_policy_cursor_next(p, &cur))) {
		got += v->weight;
		n++;
		vfreq += (u64)hc_sketch_frequency(&p->sketch, v->key) * v->weight;
	}
	if (got < need)
		return false;
	if (!got)
		return true;

	cfreq = hc_sketch_frequency(&p->sketch, c->key);
	/* larger than HC_POLICY_LIKE x the victims' average weight */
	larger = (u64)c->weight * n > HC_POLICY_LIKE * got;
	from = larger ? HC_POLICY_MARGIN_FROM : 1;
	bar = vfreq + (vfreq >= from * got ? HC_POLICY_MARGIN * got : 0);
	/*
	 * Back from the ghost: no margin, and it wins a tie, unless it is
	 * much smaller than its victims (a shard seen twice does not evict a
	 * model 127 times its size that a cold cache holds: no hits yet
	 * leave the gate open there).
	 */
	if (c->pass) {
		c->pass = 0;
		if ((u64)c->weight * n * HC_POLICY_LIKE >= got) {
			bar = vfreq;
			larger = true;
		}
	}
	/* a larger candidate wins a tie with the bar, a smaller one loses it */
	if (larger ? cfreq * got < bar : cfreq * got <= bar) {
		/* xorshift64: a warm candidate sometimes wins (anti-flood). */
		p->rng ^= p->rng << 13;
		p->rng ^= p->rng >> 7;
		p->rng ^= p->rng << 17;
		if (cfreq < HC_POLICY_WARM_FREQ || (p->rng & 127))
			return false;
	}

	hc_policy_cursor_init(&cur, hc_policy_main_order,
			      sizeof(hc_policy_main_order), NULL);
	while (p->used > p->capacity && (v = hc_policy_cursor_next(p, &cur))) {
		hc_policy_drop(p, v);
		victims[(*nr)++] = v;
	}
	return true;
}

/*
 * hc_policy_admit() and hc_policy_admit_resized(): @request, a new request
 * (counted in the sketch, main's share of the requests and the ghost's
 * clock); else the same object placed again, which is none of these.
 */
static int hc_policy_admit_one(struct hc_policy *p, struct hc_policy_entry *e,
			       struct hc_policy_entry **victims, u32 max,
			       u32 *nr, bool request)
{
	struct hc_policy_cursor cur;
	struct hc_policy_entry *c;

	*nr = 0;
	if (hc_policy_resident(e) || e->weight < 1)
		return -EINVAL;
	if (e->weight > p->capacity) {
		if (request)
			hc_policy_record(p, e->key);
		return HC_POLICY_REJECTED;
	}
	if (max < hc_policy_max_victims(p, e->weight))
		return -EINVAL;
	if (request)
		hc_policy_record(p, e->key);
	if (p->capacity - p->used + (p->used - p->unevictable) < e->weight)
		return -ENOSPC;
	if (request) {
		hc_policy_rate(p, false, e->weight);
		hc_ghost_tick(&p->ghost, e->weight);
		if (hc_policy_gate_open(p) &&
		    hc_ghost_has(&p->ghost, e->key)) {
			e->pass = 1;
			p->passes++;
		}
	}

	hc_policy_insert(p, e, HC_POLICY_WINDOW);
	p->used += e->weight;
	if (!hc_policy_evictable(e))
		p->unevictable += e->weight;

	while (p->weight[HC_POLICY_WINDOW] > p->window_max) {
		hc_policy_cursor_init(&cur, &hc_policy_any_order[2], 1, NULL);
		c = hc_policy_cursor_next(p, &cur);
		if (!c)
			break;	/* the window is all unevictable */
		hc_policy_unlink(p, c);
		if (hc_policy_duel(p, c, victims, nr)) {
			hc_policy_insert(p, c, HC_POLICY_PROBATION);
			continue;
		}
		if (p->used <= p->capacity) {
			/*
			 * Lost, but the cache has room for it: kept at
			 * probation's cold end, the first to go when room is
			 * needed, never ahead of the residents it lost to.
			 */
			hc_policy_insert_at(p, c, HC_POLICY_PROBATION,
					    p->lru[HC_POLICY_PROBATION].prev);
			continue;
		}
		p->used -= c->weight;	/* lost: c is evictable */
		hc_ghost_add(&p->ghost, c->key);
		if (c != e)
			victims[(*nr)++] = c;
	}

	/* The window grew (or is pinned): evict from main, then the window. */
	hc_policy_cursor_init(&cur, hc_policy_any_order,
			      sizeof(hc_policy_any_order), e);
	while (p->used > p->capacity && (c = hc_policy_cursor_next(p, &cur))) {
		hc_policy_drop(p, c);
		victims[(*nr)++] = c;
	}
	/* Unreachable given the -ENOSPC check; keeps the capacity promise. */
	if (p->used > p->capacity && hc_policy_resident(e))
		hc_policy_drop(p, e);

	return hc_policy_resident(e) ? HC_POLICY_ADMITTED : HC_POLICY_REJECTED;
}

/**
 * hc_policy_admit - offer a new object to the cache (a miss)
 * @p: policy
 * @e: the object's entry, set up by hc_policy_entry_init(), not resident;
 *     flags may already be set (e.g. pinned on creation)
 * @victims: filled with the entries the caller must evict; the policy has
 *	     already dropped them (not resident any more)
 * @max: room in @victims, at least hc_policy_max_victims(@p, @e->weight)
 *	 (never more victims than that are returned: each is resident and
 *	 frees at least one unit of the excess)
 * @nr: set to the number of victims
 *
 * Counts the request in the sketch, puts @e at the MRU end of the window
 * and pushes the window's LRU entries beyond its target (parked entries
 * count toward it: one held or DIRTY there fills it) into the main
 * region, each through a frequency duel with main's victims (entries worth
 * its weight); one that loses while the cache has room for it enters
 * probation's LRU end, otherwise it is evicted and remembered in the ghost
 * (a candidate back from the ghost while main earns few hits is passed:
 * see HC_POLICY_GATE_SHIFT).  Then, if the
 * cache is still over capacity, main's (then the window's) LRU entries go.
 * Unevictable entries are skipped, never returned.
 *
 * Return: HC_POLICY_ADMITTED (@e is resident), HC_POLICY_REJECTED (@e lost
 * its duel or is bigger than the whole cache; it is not resident, but the
 * *@nr victims must still be evicted), -EINVAL (@e resident, zero weight,
 * @max too small), or -ENOSPC (evictable entries cannot make room for @e;
 * nothing changed but the sketch).  On errors *@nr is 0.
 */
int hc_policy_admit(struct hc_policy *p, struct hc_policy_entry *e,
		    struct hc_policy_entry **victims, u32 max, u32 *nr)
{
	return hc_policy_admit_one(p, e, victims, max, nr, true);
}

/**
 * hc_policy_admit_resized - place again an entry whose weight changed
 * @p: policy
 * @e: the entry, taken out with hc_policy_remove() and set up again by
 *     hc_policy_entry_init() with its new weight; normally unevictable
 *     (a stage being written: held)
 * @victims: as for hc_policy_admit()
 * @max: as for hc_policy_admit()
 * @nr: set to the number of victims
 *
 * As hc_policy_admit(), but no new request: the sketch, main's share of
 * the requests, the ghost's clock and the window's control period do not
 * count it.  The module grows a stage written through the file system view
 * at each new chunk, and trims it at its commit: counted as misses, a
 * 4 GiB checkpoint so written was 1 024 requests, the counter's maximum
 * from the 15th, and won every duel once uploaded.
 *
 * Return: as hc_policy_admit().
 */
int hc_policy_admit_resized(struct hc_policy *p, struct hc_policy_entry *e,
			    struct hc_policy_entry **victims, u32 max,
			    u32 *nr)
{
	return hc_policy_admit_one(p, e, victims, max, nr, false);
}

/**
 * hc_policy_admit_explicit - admit an object the operator asked for (preload)
 * @p: policy
 * @e: the object's entry, as for hc_policy_admit()
 * @victims: filled with the entries the caller must evict (already dropped)
 * @max: room in @victims, at least hc_policy_max_victims(@p, @e->weight)
 * @nr: set to the number of victims
 *
 * No duel: @e goes to the MRU end of probation (main), and room is made
 * from the least valuable evictable entries: first the cold ones (sketch
 * frequency <= HC_POLICY_COLD_FREQ: seen once since the sketch aged), then
 * any, each pass from the window's LRU end (candidates not yet screened),
 * then probation's, then protected's.  Unevictable entries are never
 * victims.  The request is counted in the sketch as for a miss.  Not for
 * the fast path: O(resident entries) in the worst case.
 *
 * Return: HC_POLICY_ADMITTED; -EINVAL as hc_policy_admit() (and for an
 * object larger than the cache); -ENOSPC if evictable entries cannot make
 * room (nothing changed but the sketch).  On errors *@nr is 0.
 */
int hc_policy_admit_explicit(struct hc_policy *p, struct hc_policy_entry *e,
			     struct hc_policy_entry **victims, u32 max,
			     u32 *nr)
{
	static const u8 order[] = {
		HC_POLICY_WINDOW, HC_POLICY_PROBATION, HC_POLICY_PROTECTED,
	};
	struct hc_policy_cursor cur;
	struct hc_policy_entry *c;
	int pass;

	*nr = 0;
	if (hc_policy_resident(e) || e->weight < 1 || e->weight > p->capacity ||
	    max < hc_policy_max_victims(p, e->weight))
		return -EINVAL;
	hc_policy_record(p, e->key);
	if (p->capacity - p->used + (p->used - p->unevictable) < e->weight)
		return -ENOSPC;

	/* cold entries first (seen once since the sketch aged), then any */
	for (pass = 0; pass < 2; pass++) {
		hc_policy_cursor_init(&cur, order, sizeof(order), NULL);
		while (p->used + e->weight > p->capacity &&
		       (c = hc_policy_cursor_next(p, &cur))) {
			if (!pass && hc_sketch_frequency(&p->sketch, c->key) >
				     HC_POLICY_COLD_FREQ)
				continue;
			hc_policy_drop(p, c);
			victims[(*nr)++] = c;
		}
	}
	hc_policy_insert(p, e, HC_POLICY_PROBATION);
	p->used += e->weight;
	if (!hc_policy_evictable(e))
		p->unevictable += e->weight;
	return HC_POLICY_ADMITTED;
}

/**
 * hc_policy_remove - take a resident entry out (explicit evict, delete)
 * @p: the policy
 * @e: the entry to drop
 *
 * Works on unevictable entries too (the caller decides); a no-op on an
 * entry that is not resident.  Cannot fail.
 */
void hc_policy_remove(struct hc_policy *p, struct hc_policy_entry *e)
{
	if (hc_policy_resident(e))
		hc_policy_drop(p, e);
}

/**
 * hc_policy_set_flags - change why an entry may not be evicted
 * @set: HC_POLICY_F_* bits to set
 * @clear: bits to clear (after setting)
 * @p: the policy
 * @e: the entry
 *
 * The caller owns the reasons (a hold count, the object state) and reports
 * the transitions: F_HELD when the hold count leaves or reaches 0, F_DIRTY
 * on entering DIRTY and leaving SYNCING.  A resident entry that becomes
 * unevictable is parked (off its region's list, still counted in its
 * region: no victim walk visits it); one that becomes evictable again
 * goes to the MRU end of its region.  Works on resident and non-resident
 * entries; cannot fail.
 */
void hc_policy_set_flags(struct hc_policy *p, struct hc_policy_entry *e,
			 u32 set, u32 clear)
{
	u8 flags = (e->flags | (set & HC_POLICY_F_ALL)) & ~clear;
	bool was = hc_policy_evictable(e);
	enum hc_policy_region r = e->region;

	if (!hc_policy_resident(e) || was == !(flags & HC_POLICY_F_ALL)) {
		e->flags = flags;
		return;
	}
	/* parked while unevictable; back at the MRU end of its region */
	hc_policy_unlink(p, e);
	e->flags = flags;
	if (was)
		p->unevictable += e->weight;
	else
		p->unevictable -= e->weight;
	hc_policy_insert(p, e, r);
}
