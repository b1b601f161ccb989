/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Count-min sketch of 4-bit counters with periodic halving and a doorkeeper:
 * the frequency estimator of the W-TinyLFU policy (policy.c).
 *
 * Four rows of 4-bit counters, sixteen to a u64, live in a table the caller
 * allocates (the module with kvmalloc(), user space with malloc()), sized by
 * hc_sketch_bytes().  In front of the rows sits a doorkeeper, a Bloom filter
 * bitmap in the same table: the first sighting of a key only sets its
 * doorkeeper bits, later sightings increment the counters (conservative
 * update: only the row counters equal to the minimum).  A key's frequency is
 * the minimum of its four counters plus its doorkeeper bit, 0..16.
 *
 * After a sample of 10 x capacity additions the sketch ages: every counter is
 * halved and the doorkeeper is cleared, so old popularity fades.
 *
 * Core code: no locks (the caller serialises), never sleeps, never allocates.
 * Keys are u64; the module hashes URIs with its own hash first.
 */
#ifndef HC_SKETCH_H
#define HC_SKETCH_H

#include "core.h"

#define HC_SKETCH_ROWS		4
#define HC_SKETCH_COUNTER_MAX	15
#define HC_SKETCH_FREQ_MAX	(HC_SKETCH_COUNTER_MAX + 1)
/* Counters per row are at least this, and a power of two. */
#define HC_SKETCH_WIDTH_MIN	64ULL
#define HC_SKETCH_WIDTH_MAX	BIT_ULL(32)
/* Additions between two halvings, per counter of a row. */
#define HC_SKETCH_SAMPLE_FACTOR	10
/* Doorkeeper bits per counter of a row, and probes per key. */
#define HC_SKETCH_DOOR_FACTOR	16

/**
 * struct hc_sketch - a sketch over a caller-owned table
 * @rows: HC_SKETCH_ROWS rows of @row_words words, then the doorkeeper
 * @door: doorkeeper bitmap, @door_mask + 1 bits
 * @row_words: u64 words per row (16 counters each), a power of two
 * @door_mask: doorkeeper bits - 1 (bits are a power of two)
 * @sample: additions after which the sketch is halved
 * @additions: additions since the last halving (halved with the counters)
 * @resets: halvings so far (statistics)
 */
struct hc_sketch {
	u64 *rows;
	u64 *door;
	u32 row_words;
	u64 door_mask;
	u64 sample;
	u64 additions;
	u64 resets;
};

size_t hc_sketch_bytes(u64 capacity);
int hc_sketch_init(struct hc_sketch *s, void *table, size_t bytes);
u64 hc_sketch_width(const struct hc_sketch *s);
void hc_sketch_add(struct hc_sketch *s, u64 key);
u32 hc_sketch_frequency(const struct hc_sketch *s, u64 key);
void hc_sketch_reset(struct hc_sketch *s);
u64 hc_sketch_mix(u64 key, u64 seed);

#endif /* HC_SKETCH_H */
