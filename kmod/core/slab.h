/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sub-chunk allocator (format v2): small objects packed into shared chunks.
 *
 * Objects below the small-object threshold (Documentation/on-disk-format.md,
 * "Small objects") do not take whole chunks: they take a run of 4 KiB blocks
 * (HC_SUBBLOCK_SIZE) inside a *slab chunk*, a pool chunk that the slab took
 * from the chunk allocator (alloc.h) and shares between small objects.  One
 * small object is one sub-chunk extent (struct hc_sext): a chunk, its first
 * block and its block count, contiguous, never crossing a chunk; O_DIRECT
 * readers therefore read whole aligned 4 KiB blocks of it.
 *
 * Per slab chunk the slab keeps two bitmaps of blocks_per_chunk bits in u64
 * words the caller provides (hc_slab_words()): @used (the block holds data of
 * a live object) and @head (the block is the first of an object), so the
 * objects of a chunk can be listed without the cache's index (compaction
 * needs them) and a put must name exactly an object that was got.
 *
 * Placement (hc_slab_get()) for an object of b blocks whose start member is s
 * (the caller passes crc32(uri) mod N, as for large objects, so small objects
 * spread over all members like large ones):
 *
 *  1. the slab chunks on member s (chunk v lives on member v mod N), the
 *     fullest first that has a free run of b blocks (best fit by chunk keeps
 *     the others empty enough to be freed), its lowest such run;
 *  2. else a new slab chunk from the chunk allocator with start member s
 *     (which may land on another member when s has no free chunk);
 *  3. else (the pool or the slab's table is full) the same as 1 on any
 *     member, fullest first.
 *
 * A slab chunk whose last object is put goes back to the chunk allocator at
 * once.  Compaction (hc_slab_plan()) moves every object out of sparse chunks
 * into the free blocks of the others, so those chunks can be freed too.
 *
 * Every call either succeeds completely or changes nothing (except the
 * counters it documents).  The result depends only on the state and the
 * arguments: the slab is deterministic.
 *
 * Core code: no locks (the caller serialises every call on one slab and its
 * chunk allocator with the same lock), never sleeps, never allocates.
 */
#ifndef HC_SLAB_H
#define HC_SLAB_H

#include "core.h"
#include "alloc.h"
#include "../../uapi/hypercache_format.h"

/**
 * struct hc_sext - a sub-chunk extent: where a small object lives
 * @chunk: pool chunk (a slab chunk)
 * @block: first 4 KiB block in the chunk
 * @nr_blocks: blocks, at least 1; @block + @nr_blocks <= blocks per chunk
 */
struct hc_sext {
	u64 chunk;
	u32 block;
	u32 nr_blocks;
};

/**
 * struct hc_slab_chunk - one slab chunk
 * @chunk: its pool chunk
 * @used: blocks_per_chunk bits, set = block holds live data
 * @head: blocks_per_chunk bits, set = first block of an object
 * @nr_used: set bits of @used
 * @nr_objs: set bits of @head
 * @draining: a source of the compaction plan in progress: never a
 *	placement target
 */
struct hc_slab_chunk {
	u64 chunk;
	u64 *used;
	u64 *head;
	u32 nr_used;
	u32 nr_objs;
	bool draining;
};

/**
 * struct hc_slab - the slab of small-object chunks
 * @chunks: table of @max_chunks entries, the first @nr_chunks in use (in no
 *	particular order: a freed chunk's entry is replaced by the last one)
 * @words: the bitmaps, 2 * @chunk_words per table entry
 * @max_chunks: entries of @chunks
 * @nr_chunks: slab chunks in use
 * @blocks_per_chunk: chunk size / HC_SUBBLOCK_SIZE
 * @chunk_words: u64 words of one bitmap
 * @members: members N of the pool
 * @bad_puts: hc_slab_put() calls refused because the extent was not exactly
 *	an object of the slab: each one is a bug in the caller
 */
struct hc_slab {
	struct hc_slab_chunk *chunks;
	u64 *words;
	u32 max_chunks;
	u32 nr_chunks;
	u32 blocks_per_chunk;
	u32 chunk_words;
	u32 members;
	u64 bad_puts;
};

/**
 * struct hc_slab_move - one move of a compaction plan
 * @from: where the object is now (a draining chunk)
 * @to: where it goes: blocks already reserved by hc_slab_plan()
 */
struct hc_slab_move {
	struct hc_sext from;
	struct hc_sext to;
};

/**
 * struct hc_slab_stats - what the slab holds
 * @chunks: slab chunks
 * @objects: small objects
 * @used_blocks: blocks holding live data
 * @free_blocks: free blocks inside slab chunks (fragmentation)
 */
struct hc_slab_stats {
	u64 chunks;
	u64 objects;
	u64 used_blocks;
	u64 free_blocks;
};

size_t hc_slab_words(u32 max_chunks, u32 chunk_size);
int hc_slab_init(struct hc_slab *s, u32 chunk_size, u32 members,
		 u32 max_chunks, struct hc_slab_chunk *chunks, u64 *words);
u32 hc_slab_blocks(u64 bytes);
int hc_slab_get(struct hc_slab *s, struct hc_alloc *a, u64 bytes,
		u32 start_member, struct hc_sext *e);
int hc_slab_put(struct hc_slab *s, struct hc_alloc *a,
		const struct hc_sext *e);
int hc_slab_claim(struct hc_slab *s, struct hc_alloc *a,
		  const struct hc_sext *e);
int hc_slab_plan(struct hc_slab *s, u32 sparse_pct, u32 max_sources,
		 struct hc_slab_move *moves, u32 max_moves);
void hc_slab_plan_end(struct hc_slab *s, struct hc_alloc *a);
bool hc_slab_compactable(const struct hc_slab *s, u32 sparse_pct);
void hc_slab_stats(const struct hc_slab *s, struct hc_slab_stats *st);
bool hc_slab_has(const struct hc_slab *s, const struct hc_sext *e);

#endif /* HC_SLAB_H */
