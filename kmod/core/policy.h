/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Admission and eviction of the object cache: size-aware W-TinyLFU.
 *
 * The policy orders entries the caller owns: the caller embeds a struct
 * hc_policy_entry in each object and keeps its own index (key -> object).
 * Three regions, each an LRU list of weighted entries (weight = chunks):
 *
 *   window     new objects enter here (plain LRU, adaptive size)
 *   probation  main region, entries that won admission (20 % of main)
 *   protected  main region, entries hit again while in probation (80 %)
 *
 * An entry pushed out of the window duels with the main region's victims:
 * it moves into probation only if its sketch frequency (sketch.h) beats
 * theirs, weighted by size; otherwise it is evicted, and remembered in the
 * ghost (ghost.h).  While main earns few of the hits (its residents are an
 * old working set's), a candidate that comes back from the ghost within a
 * capacity of misses needs no margin over its victims: a new working set
 * that fits the cache gets in as it would under LRU, while a loop larger
 * than the cache (whose residents keep earning hits) still cannot churn.
 * The window's share of the capacity follows a controller that compares
 * hits per weight unit in the window with hits per unit in the main region
 * and moves the window by the log of that ratio (bounded steps, minimum
 * 1 % of capacity; the main region keeps at least 1/256 of it).
 *
 * Entries with any of HC_POLICY_F_* set (pinned, held, dirty or syncing) are
 * never returned as victims: they are parked on a list of their own, still
 * counted in their region's weight, so no victim walk visits them, and
 * come back at the MRU end of their region once evictable again.
 *
 * Locking and context: none inside.  The caller serialises every call on
 * one policy (the module: under its index lock).  No call sleeps or
 * allocates; hc_policy_admit() is O(weight pushed out of the window (each
 * candidate is judged against victims worth its weight)) plus, once per
 * sketch sample, the sketch's O(table) halving, however many entries are
 * unevictable.
 */
#ifndef HC_POLICY_H
#define HC_POLICY_H

#include "core.h"
#include "sketch.h"
#include "ghost.h"

/* Why an entry may not be evicted; any bit set makes it unevictable. */
#define HC_POLICY_F_PINNED	BIT(0)	/* operator pin */
#define HC_POLICY_F_HELD	BIT(1)	/* hold count > 0 (open reader) */
#define HC_POLICY_F_DIRTY	BIT(2)	/* DIRTY or SYNCING: not in backend */
#define HC_POLICY_F_ALL		(HC_POLICY_F_PINNED | HC_POLICY_F_HELD | \
				 HC_POLICY_F_DIRTY)

/* Regions; HC_POLICY_NONE: not in the policy. */
enum hc_policy_region {
	HC_POLICY_NONE,
	HC_POLICY_WINDOW,
	HC_POLICY_PROBATION,
	HC_POLICY_PROTECTED,
	HC_POLICY_NR_REGIONS,
};

/* hc_policy_admit() results (>= 0); errors are negative errno. */
#define HC_POLICY_REJECTED	0
#define HC_POLICY_ADMITTED	1

/* A minimal intrusive doubly-linked circular list (no <linux/list.h> here). */
struct hc_policy_link {
	struct hc_policy_link *next, *prev;
};

/**
 * struct hc_policy_entry - the policy's part of a cached object (32 bytes)
 * @link: position in its region's list (head = most recently used)
 * @key: 64-bit hash of the object's URI (the sketch's key)
 * @weight: size in the caller's unit (chunks; 4 KiB blocks in a format v2
 *	pool, kmod/cache.c), >= 1; fixed while the entry is in the policy
 * @region: enum hc_policy_region
 * @flags: HC_POLICY_F_*; change them only with hc_policy_set_flags()
 * @pass: it came back from the ghost (lost a duel lately) while main
 *	earned few hits: its next duel waives the margin and wins a tie
 */
struct hc_policy_entry {
	struct hc_policy_link link;
	u64 key;
	u32 weight;
	u8 region;
	u8 flags;
	u8 pass;
	u8 reserved;
};

/**
 * struct hc_policy - W-TinyLFU state (read-only to callers)
 * @sketch: frequency sketch over the caller's table
 * @ghost: the keys that lost their duel lately, in the same table
 * @lru: per-region lists of the evictable entries, [HC_POLICY_NONE] unused
 * @parked: the unevictable resident entries (counted in their region's
 *	@weight and @count, linked here so that no victim walk visits them)
 * @protected_parked: weight of the parked entries of protected (its
 *	demotion to @protected_max counts only the others)
 * @weight: weight per region
 * @count: entries per region
 * @capacity: the policy never holds more weight than this
 * @used: weight of all resident entries
 * @unevictable: weight of resident entries with flags set
 * @window_max: current target weight of the window
 * @window_min: lower bound of @window_max (1 % of @capacity, >= 1)
 * @protected_max: target weight of protected (80 % of capacity - window)
 * @hits: weight of hits per region in the current control period
 * @period: requests (hits + admissions) in the current control period
 * @rng: state of the tie-breaking generator
 * @rate_main: weight of the requests main served lately (halved with
 *	@rate_all)
 * @rate_all: weight of all requests lately (hits and misses), halved
 *	when it reaches a quarter of @capacity
 * @adjustments: window moves so far (statistics)
 * @passes: candidates passed by the ghost so far (statistics)
 */
struct hc_policy {
	struct hc_sketch sketch;
	struct hc_ghost ghost;
	struct hc_policy_link lru[HC_POLICY_NR_REGIONS];
	struct hc_policy_link parked;
	u64 protected_parked;
	u64 weight[HC_POLICY_NR_REGIONS];
	u64 count[HC_POLICY_NR_REGIONS];
	u64 capacity;
	u64 used;
	u64 unevictable;
	u64 window_max;
	u64 window_min;
	u64 protected_max;
	u64 hits[HC_POLICY_NR_REGIONS];
	u64 period;
	u64 rng;
	u64 rate_main;
	u64 rate_all;
	u64 adjustments;
	u64 passes;
};

size_t hc_policy_table_bytes(u64 objects);
int hc_policy_init(struct hc_policy *p, u64 capacity, void *table,
		   size_t bytes);
void hc_policy_entry_init(struct hc_policy_entry *e, u64 key, u32 weight);
void hc_policy_access(struct hc_policy *p, struct hc_policy_entry *e);
int hc_policy_admit(struct hc_policy *p, struct hc_policy_entry *e,
		    struct hc_policy_entry **victims, u32 max, u32 *nr);
int hc_policy_admit_resized(struct hc_policy *p, struct hc_policy_entry *e,
			    struct hc_policy_entry **victims, u32 max,
			    u32 *nr);
int hc_policy_admit_explicit(struct hc_policy *p, struct hc_policy_entry *e,
			     struct hc_policy_entry **victims, u32 max,
			     u32 *nr);
void hc_policy_record(struct hc_policy *p, u64 key);
void hc_policy_remove(struct hc_policy *p, struct hc_policy_entry *e);
void hc_policy_set_flags(struct hc_policy *p, struct hc_policy_entry *e,
			 u32 set, u32 clear);

static inline bool hc_policy_resident(const struct hc_policy_entry *e)
{
	return e->region != HC_POLICY_NONE;
}

/*
 * Whether admitting an entry of @weight may return victims: only when the
 * policy would hold more than its capacity (hc_policy_admit() and
 * hc_policy_admit_explicit() evict nothing otherwise).
 */
static inline bool hc_policy_would_evict(const struct hc_policy *p, u32 weight)
{
	return p->used + weight > p->capacity;
}

/*
 * Room the @victims of an admission of an entry of @weight need: every
 * victim is a resident entry and frees at least one unit, so never more
 * than the smaller of @weight and the resident entries.
 */
static inline u32 hc_policy_max_victims(const struct hc_policy *p, u32 weight)
{
	u64 n = 0;
	int r;

	for (r = 0; r < HC_POLICY_NR_REGIONS; r++)
		n += p->count[r];
	return n < weight ? (u32)n : weight;
}

static inline bool hc_policy_evictable(const struct hc_policy_entry *e)
{
	return !(e->flags & HC_POLICY_F_ALL);
}

#endif /* HC_POLICY_H */
