// SPDX-License-Identifier: GPL-2.0
/*
 * The ghost of rejected candidates (see ghost.h).  Core code: shared with
 * the unit tests and tools/hcsim.
 */
#include "ghost.h"
#include "sketch.h"

#define HC_GHOST_SEED		0x5851f42d4c957f2dULL
/* Bits per generation, at least (one word). */
#define HC_GHOST_BITS_MIN	64ULL
#define HC_GHOST_BITS_MAX	BIT_ULL(40)

/* Bits per generation for @keys expected keys: a power of two. */
static u64 hc_ghost_bits_for(u64 keys)
{
	u64 bits = HC_GHOST_BITS_MIN;

	while (bits < keys * HC_GHOST_BITS_PER_KEY && bits < HC_GHOST_BITS_MAX)
		bits <<= 1;
	return bits;
}

/**
 * hc_ghost_bytes - table size for a ghost of @keys keys per generation
 * @keys: keys one life may add (the sketch's width: hc_policy_table_bytes())
 *
 * Return: bytes of both generations, 2 bytes per key (8 bits in each).
 */
size_t hc_ghost_bytes(u64 keys)
{
	return (size_t)(2 * hc_ghost_bits_for(keys) / 8);
}

/**
 * hc_ghost_init - lay a ghost over a table and clear it
 * @g: the ghost
 * @table: the caller's table, 8-byte aligned, owned by the caller for the
 *	   life of @g
 * @bytes: its size; the largest power of two of bits that fits is used
 * @life: weight of misses between two turns (>= 1)
 *
 * Not for the fast path: clears the table.
 *
 * Return: 0, or -EINVAL if @table is misaligned or smaller than two words,
 * or @life is 0.
 */
int hc_ghost_init(struct hc_ghost *g, void *table, size_t bytes, u64 life)
{
	u64 bits = HC_GHOST_BITS_MIN;

	if (!table || ((unsigned long)table & 7) || !life ||
	    bytes < 2 * HC_GHOST_BITS_MIN / 8)
		return -EINVAL;
	while (bits < HC_GHOST_BITS_MAX && 2 * (bits << 1) / 8 <= bytes)
		bits <<= 1;
	g->gen[0] = table;
	g->gen[1] = g->gen[0] + bits / 64;
	g->mask = bits - 1;
	g->cur = 0;
	g->clock = 0;
	g->life = life;
	g->turns = 0;
	memset(table, 0, 2 * bits / 8);
	return 0;
}

static u64 hc_ghost_bit(const struct hc_ghost *g, u64 key)
{
	return hc_sketch_mix(key, HC_GHOST_SEED) & g->mask;
}

/* @key lost its duel: remember it for one to two lives. */
void hc_ghost_add(struct hc_ghost *g, u64 key)
{
	u64 b = hc_ghost_bit(g, key);

	g->gen[g->cur][b / 64] |= 1ULL << (b % 64);
}

/* Whether @key lost a duel within the last one to two lives. */
bool hc_ghost_has(const struct hc_ghost *g, u64 key)
{
	u64 b = hc_ghost_bit(g, key), m = 1ULL << (b % 64);

	return (g->gen[0][b / 64] & m) || (g->gen[1][b / 64] & m);
}

/*
 * A miss of @weight: advance the clock; after a life the older generation
 * is forgotten and takes the new keys.
 */
void hc_ghost_tick(struct hc_ghost *g, u64 weight)
{
	g->clock += weight;
	if (g->clock < g->life)
		return;
	g->clock = 0;
	g->cur ^= 1;
	memset(g->gen[g->cur], 0, (g->mask + 1) / 8);
	g->turns++;
}
