/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ghost: which keys lost their admission duel lately (policy.c).
 *
 * Two generations of a bitmap, one bit per key (a Bloom filter with one
 * probe), over a table the caller allocates with the sketch's
 * (hc_policy_table_bytes()).  A rejected candidate's key is set in the
 * current generation; a key is in the ghost if either generation has its
 * bit.  The ghost's clock counts the weight of the requests that miss:
 * once it has counted @life (the policy's capacity) the older generation
 * is cleared and becomes the current one, so a key stays in the ghost for
 * one to two capacities of misses, and a loop over more than twice the
 * cache has always left it when it comes back.
 *
 * A false positive (a key that was never rejected, or long ago) is as
 * likely as the share of bits set: at most one key per 8 bits of a
 * generation while the keys of one life fit the table's sizing.
 *
 * Core code: no locks (the caller serialises), never sleeps, never allocates.
 */
#ifndef HC_GHOST_H
#define HC_GHOST_H

#include "core.h"

/* Bits per generation for each expected key. */
#define HC_GHOST_BITS_PER_KEY	8

/**
 * struct hc_ghost - the recently rejected keys
 * @gen: the two generations' bitmaps, @mask + 1 bits each
 * @mask: bits per generation - 1 (a power of two minus one)
 * @cur: the generation keys are added to (0 or 1)
 * @clock: weight of misses since the last turn
 * @life: weight of misses between two turns
 * @turns: turns so far (statistics)
 */
struct hc_ghost {
	u64 *gen[2];
	u64 mask;
	u32 cur;
	u64 clock;
	u64 life;
	u64 turns;
};

size_t hc_ghost_bytes(u64 keys);
int hc_ghost_init(struct hc_ghost *g, void *table, size_t bytes, u64 life);
void hc_ghost_add(struct hc_ghost *g, u64 key);
bool hc_ghost_has(const struct hc_ghost *g, u64 key);
void hc_ghost_tick(struct hc_ghost *g, u64 weight);

#endif /* HC_GHOST_H */
