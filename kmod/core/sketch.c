// SPDX-License-Identifier: GPL-2.0
/*
 * Count-min sketch with a doorkeeper (see sketch.h).  Core code: shared with
 * the unit tests and tools/hcsim.
 */
#include "sketch.h"

/* Per-row seeds (odd, unrelated constants) and the doorkeeper's. */
static const u64 hc_sketch_seeds[HC_SKETCH_ROWS] = {
	0x9e3779b97f4a7c15ULL, 0xc2b2ae3d27d4eb4fULL,
	0x165667b19e3779f9ULL, 0xd6e8feb86659fd93ULL,
};

#define HC_SKETCH_DOOR_SEED	0x27bb2ee687b0b0fdULL

/* Nibble mask used to halve sixteen counters at once. */
#define HC_SKETCH_HALF_MASK	0x7777777777777777ULL

/**
 * hc_sketch_mix - a 64-bit finaliser (the SplitMix64 / MurmurHash3 fmix64
 * constants) of @key combined with @seed
 * @key: the value to mix
 * @seed: per-row seed
 *
 * Every input bit affects every output bit; the rows use different seeds so
 * that two keys colliding in one row rarely collide in another.
 */
u64 hc_sketch_mix(u64 key, u64 seed)
{
	u64 h = key ^ seed;

	h ^= h >> 30;
	h *= 0xbf58476d1ce4e5b9ULL;
	h ^= h >> 27;
	h *= 0x94d049bb133111ebULL;
	h ^= h >> 31;
	return h;
}

/* Counters per row for a capacity: the next power of two, clamped. */
static u64 hc_sketch_width_for(u64 capacity)
{
	u64 w = HC_SKETCH_WIDTH_MIN;

	while (w < capacity && w < HC_SKETCH_WIDTH_MAX)
		w <<= 1;
	return w;
}

/* Table bytes for a given row width: 4 rows of 4 bits + the doorkeeper. */
static size_t hc_sketch_bytes_for_width(u64 width)
{
	return (size_t)(HC_SKETCH_ROWS * width / 2 +
			HC_SKETCH_DOOR_FACTOR * width / 8);
}

/**
 * hc_sketch_bytes - table size the caller allocates for a capacity
 * @capacity: number of distinct items the cache may hold
 *
 * Rows get the next power of two >= @capacity counters (at least 64), so the
 * table is 4 bytes per counter of a row: 2 for the four 4-bit counters and
 * 2 for the doorkeeper's 16 bits.
 *
 * Return: bytes, or 0 if @capacity exceeds HC_SKETCH_WIDTH_MAX.
 */
size_t hc_sketch_bytes(u64 capacity)
{
	if (capacity > HC_SKETCH_WIDTH_MAX)
		return 0;
	return hc_sketch_bytes_for_width(hc_sketch_width_for(capacity));
}

/**
 * hc_sketch_init - lay a sketch over a table and clear it
 * @s: sketch
 * @table: caller's table, 8-byte aligned, owned by the caller for the life
 *	   of @s (the sketch never frees it)
 * @bytes: its size; the largest width that fits is used
 *
 * Not for the fast path: clears the whole table.
 *
 * Return: 0, or -EINVAL if @table is misaligned or smaller than
 * hc_sketch_bytes(1).
 */
int hc_sketch_init(struct hc_sketch *s, void *table, size_t bytes)
{
	u64 width = HC_SKETCH_WIDTH_MIN;

	if (!table || ((unsigned long)table & 7) ||
	    bytes < hc_sketch_bytes_for_width(width))
		return -EINVAL;
	while (width < HC_SKETCH_WIDTH_MAX &&
	       hc_sketch_bytes_for_width(width << 1) <= bytes)
		width <<= 1;

	s->rows = table;
	s->row_words = width / 16;
	s->door = s->rows + HC_SKETCH_ROWS * (u64)s->row_words;
	s->door_mask = HC_SKETCH_DOOR_FACTOR * width - 1;
	s->sample = HC_SKETCH_SAMPLE_FACTOR * width;
	s->additions = 0;
	s->resets = 0;
	memset(table, 0, hc_sketch_bytes_for_width(width));
	return 0;
}

/* Counters per row. */
u64 hc_sketch_width(const struct hc_sketch *s)
{
	return (u64)s->row_words * 16;
}

/* The word and the nibble shift of @key's counter in row @r. */
static u64 *hc_sketch_slot(const struct hc_sketch *s, u64 key, int r,
			   u32 *shift)
{
	u64 h = hc_sketch_mix(key, hc_sketch_seeds[r]);

	*shift = (u32)(h >> 60) * 4;
	return &s->rows[(u64)r * s->row_words + (h & (s->row_words - 1))];
}

/* Doorkeeper: two probes from one hash (halves of the 64-bit mix). */
static bool hc_sketch_door_test(const struct hc_sketch *s, u64 key, bool set)
{
	u64 h = hc_sketch_mix(key, HC_SKETCH_DOOR_SEED);
	u64 b[2] = { h & s->door_mask, (h >> 32) & s->door_mask };
	bool all = true;
	int i;

	for (i = 0; i < 2; i++) {
		u64 *w = &s->door[b[i] / 64];
		u64 bit = 1ULL << (b[i] % 64);

		if (!(*w & bit)) {
			all = false;
			if (set)
				*w |= bit;
		}
	}
	return all;
}

/* The minimum of @key's four counters. */
static u32 hc_sketch_min(const struct hc_sketch *s, u64 key)
{
	u32 min = HC_SKETCH_COUNTER_MAX, shift;
	int r;

	for (r = 0; r < HC_SKETCH_ROWS; r++) {
		u64 *w = hc_sketch_slot(s, key, r, &shift);
		u32 c = (*w >> shift) & 0xf;

		if (c < min)
			min = c;
	}
	return min;
}

/**
 * hc_sketch_add - record one sighting of @key
 * @s: the sketch
 * @key: the key seen
 *
 * The first sighting since the last reset sets the doorkeeper only; later
 * ones increment the smallest of the key's counters (saturating at 15).
 * Every call counts towards the sample; the call that completes it halves
 * the sketch (O(table) once per 10 x width calls, O(1) amortised).
 */
void hc_sketch_add(struct hc_sketch *s, u64 key)
{
	if (hc_sketch_door_test(s, key, true)) {
		u32 min = hc_sketch_min(s, key), shift;
		int r;

		if (min < HC_SKETCH_COUNTER_MAX) {
			for (r = 0; r < HC_SKETCH_ROWS; r++) {
				u64 *w = hc_sketch_slot(s, key, r, &shift);

				if (((*w >> shift) & 0xf) == min)
					*w += 1ULL << shift;
			}
		}
	}
	if (++s->additions >= s->sample)
		hc_sketch_reset(s);
}

/**
 * hc_sketch_frequency - estimated sightings of @key since aging
 * @s: the sketch
 * @key: the key asked about
 *
 * Never below the true count of sightings since the last reset (capped at
 * HC_SKETCH_FREQ_MAX), possibly above it through collisions.
 *
 * Return: 0..HC_SKETCH_FREQ_MAX.
 */
u32 hc_sketch_frequency(const struct hc_sketch *s, u64 key)
{
	return hc_sketch_min(s, key) +
	       (hc_sketch_door_test(s, key, false) ? 1 : 0);
}

/**
 * hc_sketch_reset - age the sketch: halve every counter, clear the doorkeeper
 * @s: the sketch
 *
 * Called by hc_sketch_add() when the sample is complete; callers may also
 * call it.  O(table size), no allocation.
 */
void hc_sketch_reset(struct hc_sketch *s)
{
	u64 i, n = HC_SKETCH_ROWS * (u64)s->row_words;

	for (i = 0; i < n; i++)
		s->rows[i] = (s->rows[i] >> 1) & HC_SKETCH_HALF_MASK;
	memset(s->door, 0, (s->door_mask + 1) / 8);
	s->additions /= 2;
	s->resets++;
}
