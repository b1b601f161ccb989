/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Chunk allocator of the object cache.
 *
 * The pool's address space is nr_chunks chunks of the chunk size (4 MiB);
 * pool chunk v lives on member v mod N (stripe.h).  The allocator keeps one
 * bit per chunk (set = used) in u64 words the caller provides, sized by
 * hc_alloc_words() (the module allocates them with kvcalloc(), the tests with
 * malloc()), and a free-chunk counter.  Bits past nr_chunks in the last word
 * are kept set, so they are never found free.
 *
 * Placement policy of hc_alloc_get() for an object of k chunks whose start
 * member is s (the caller passes crc32(uri) mod N):
 *
 *  1. the lowest-addressed run of k free chunks whose first chunk v has
 *     v mod N == s, so chunk i of the object lands on member (s + i) mod N
 *     and the object is one extent of /dev/hypercache0;
 *  2. else the lowest-addressed free run of at least k chunks, whatever its
 *     member (one extent, start member not honoured; it takes the run's
 *     first k chunks);
 *  3. else the fewest extents: the largest free runs, largest first (equal
 *     lengths: lower address first), the last one trimmed to what is still
 *     needed (its first chunks), returned in address order.  At most max_ext
 *     extents; if more would be needed the request fails with -E2BIG.
 *
 * First fit by address keeps the free space of a large cache towards its end
 * in long runs; the workload's objects are large (hundreds to thousands of
 * chunks), allocations are rare next to reads, and one scan of the bitmap
 * (word at a time: all-used and all-free words are skipped whole) costs
 * tens of microseconds for a million chunks.  The result depends only on the
 * bitmap and the arguments: the allocator is deterministic.
 *
 * Every call either succeeds completely or changes nothing.
 *
 * Core code: no locks (the caller serialises every call on one allocator),
 * never sleeps, never allocates.
 */
#ifndef HC_ALLOC_H
#define HC_ALLOC_H

#include "core.h"
#include "../../uapi/hypercache_format.h"

/**
 * struct hc_ext - one extent of an object, in chunks of the pool
 * @start: first pool chunk
 * @count: number of chunks, at least 1
 */
struct hc_ext {
	u64 start;
	u64 count;
};

/**
 * struct hc_alloc - the chunk allocator
 * @words: hc_alloc_words(@nr_chunks) words, bit v set = chunk v used
 * @nr_chunks: chunks in the pool's address space
 * @nr_words: words in @words
 * @nr_free: free chunks
 * @members: number of members N of the pool
 * @bad_puts: hc_alloc_put() calls refused because a chunk was not in use
 *	(or out of range): each one is a bug in the caller
 */
struct hc_alloc {
	u64 *words;
	u64 nr_chunks;
	u64 nr_words;
	u64 nr_free;
	u32 members;
	u64 bad_puts;
};

size_t hc_alloc_words(u64 nr_chunks);
int hc_alloc_init(struct hc_alloc *a, u64 nr_chunks, u32 members, u64 *words);
int hc_alloc_get(struct hc_alloc *a, u64 nr, u32 start_member,
		 struct hc_ext *ext, u32 max_ext, u32 *nr_ext);
int hc_alloc_put(struct hc_alloc *a, const struct hc_ext *ext, u32 nr_ext);
int hc_alloc_claim(struct hc_alloc *a, const struct hc_ext *ext, u32 nr_ext);
u64 hc_alloc_free(const struct hc_alloc *a);
bool hc_alloc_used(const struct hc_alloc *a, u64 chunk);

#endif /* HC_ALLOC_H */
