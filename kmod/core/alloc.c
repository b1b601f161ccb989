// SPDX-License-Identifier: GPL-2.0
/*
 * Chunk allocator (see alloc.h).  Core code: shared with the unit tests.
 *
 * The kernel's bitops work on unsigned long and are not available in user
 * space, so the few bit operations needed are written here on u64 words.
 */
#include "alloc.h"

#define HC_ALLOC_BITS		64
/* 2^32 chunks of 4 MiB: 16 PiB, a 512 MiB bitmap. */
#define HC_ALLOC_MAX_CHUNKS	BIT_ULL(32)

/* Index of the lowest set bit of @w, which is not zero. */
static inline u32 hc_alloc_ctz(u64 w)
{
	return __builtin_ctzll(w);
}

/* Bits [@lo, @hi) of a word, 0 <= @lo < @hi <= 64. */
static inline u64 hc_alloc_mask(u32 lo, u32 hi)
{
	u64 upto = hi == HC_ALLOC_BITS ? ~0ULL : (1ULL << hi) - 1;

	return upto & ~((1ULL << lo) - 1);
}

/*
 * First chunk at or after @pos whose bit is @used, or nr_chunks if there is
 * none.  All-free words (looking for used) and all-used words (looking for
 * free) are skipped whole.
 */
static u64 hc_alloc_find(const struct hc_alloc *a, u64 pos, bool used)
{
	u64 flip = used ? 0 : ~0ULL;
	u64 i, w;

	if (pos >= a->nr_chunks)
		return a->nr_chunks;
	i = pos / HC_ALLOC_BITS;
	w = (a->words[i] ^ flip) & (~0ULL << (pos % HC_ALLOC_BITS));
	while (!w) {
		if (++i == a->nr_words)
			return a->nr_chunks;
		w = a->words[i] ^ flip;
	}
	pos = i * HC_ALLOC_BITS + hc_alloc_ctz(w);
	return pos < a->nr_chunks ? pos : a->nr_chunks;
}

/* Whether every chunk of [@start, @start + @count) has its bit equal @used. */
static bool hc_alloc_range_is(const struct hc_alloc *a, u64 start, u64 count,
			      bool used)
{
	u64 flip = used ? ~0ULL : 0;
	u64 end = start + count;

	while (start < end) {
		u64 i = start / HC_ALLOC_BITS;
		u32 lo = start % HC_ALLOC_BITS;
		u32 hi = end - i * HC_ALLOC_BITS < HC_ALLOC_BITS ?
			 end - i * HC_ALLOC_BITS : HC_ALLOC_BITS;
		u64 m = hc_alloc_mask(lo, hi);

		/* With @flip, a wanted bit reads as 0. */
		if ((a->words[i] ^ flip) & m)
			return false;
		start = i * HC_ALLOC_BITS + hi;
	}
	return true;
}

/*
 * Set the bits of [@start, @start + @count) to @used and account for them.
 * The caller has checked that all of them are currently !@used.
 */
static void hc_alloc_mark(struct hc_alloc *a, u64 start, u64 count, bool used)
{
	u64 end = start + count;

	while (start < end) {
		u64 i = start / HC_ALLOC_BITS;
		u32 lo = start % HC_ALLOC_BITS;
		u32 hi = end - i * HC_ALLOC_BITS < HC_ALLOC_BITS ?
			 end - i * HC_ALLOC_BITS : HC_ALLOC_BITS;
		u64 m = hc_alloc_mask(lo, hi);

		if (used)
			a->words[i] |= m;
		else
			a->words[i] &= ~m;
		start = i * HC_ALLOC_BITS + hi;
	}
	if (used)
		a->nr_free -= count;
	else
		a->nr_free += count;
}

/**
 * hc_alloc_words - size of the bitmap of a pool
 * @nr_chunks: chunks in the pool's address space
 *
 * Return: the number of u64 words hc_alloc_init() needs for @nr_chunks, or
 * 0 if @nr_chunks is 0 or above 2^32 (never fails otherwise).
 */
size_t hc_alloc_words(u64 nr_chunks)
{
	if (!nr_chunks || nr_chunks > HC_ALLOC_MAX_CHUNKS)
		return 0;
	return (nr_chunks + HC_ALLOC_BITS - 1) / HC_ALLOC_BITS;
}

/**
 * hc_alloc_init - start an allocator with every chunk free
 * @a: allocator to fill
 * @nr_chunks: chunks in the pool's address space, 1..2^32
 * @members: number of members N, 1..HC_MAX_MEMBERS
 * @words: hc_alloc_words(@nr_chunks) words, owned by the caller for the
 *	allocator's lifetime; overwritten
 *
 * Return: 0, or -EINVAL if an argument is out of range (@a untouched).
 */
int hc_alloc_init(struct hc_alloc *a, u64 nr_chunks, u32 members, u64 *words)
{
	size_t nr_words = hc_alloc_words(nr_chunks);
	u32 tail = nr_chunks % HC_ALLOC_BITS;

	if (!nr_words || !words || members < 1 || members > HC_MAX_MEMBERS)
		return -EINVAL;

	memset(words, 0, nr_words * sizeof(*words));
	/* The bits past the last chunk read as used: no scan finds them. */
	if (tail)
		words[nr_words - 1] = hc_alloc_mask(tail, HC_ALLOC_BITS);
	a->words = words;
	a->nr_chunks = nr_chunks;
	a->nr_words = nr_words;
	a->nr_free = nr_chunks;
	a->members = members;
	a->bad_puts = 0;
	return 0;
}

/*
 * Insert the free run [@start, @start + @count) into @top, the @*kept
 * largest runs seen so far (at most @max), longest first; a run no longer
 * than every kept one is dropped when @top is full, and among equal lengths
 * the earlier (lower-addressed) run stays first.
 */
static void hc_alloc_keep(struct hc_ext *top, u32 *kept, u32 max,
			  u64 start, u64 count)
{
	u32 i;

	if (*kept == max && count <= top[max - 1].count)
		return;
	i = *kept < max ? (*kept)++ : max - 1;
	while (i > 0 && top[i - 1].count < count) {
		top[i] = top[i - 1];
		i--;
	}
	top[i].start = start;
	top[i].count = count;
}

/* Sort @n extents by start chunk (insertion sort: @n <= HC_MAX_EXTENTS). */
static void hc_alloc_sort(struct hc_ext *ext, u32 n)
{
	u32 i, j;

	for (i = 1; i < n; i++) {
		struct hc_ext e = ext[i];

		for (j = i; j > 0 && ext[j - 1].start > e.start; j--)
			ext[j] = ext[j - 1];
		ext[j] = e;
	}
}

/**
 * hc_alloc_get - allocate the chunks of an object
 * @a: allocator
 * @nr: chunks wanted, at least 1
 * @start_member: member of the object's first chunk, 0..N-1 (the module
 *	passes crc32(uri) mod N)
 * @ext: filled with the extents, in the object's order (which is address
 *	order); its contents are unspecified on failure
 * @max_ext: entries in @ext, 1..HC_MAX_EXTENTS
 * @nr_ext: set to the number of extents used on success
 *
 * Placement as described in alloc.h: one aligned run, else one run, else the
 * fewest (largest) runs.  On success exactly @nr chunks, all previously free,
 * are marked used and the extents are disjoint.
 *
 * Return: 0; -EINVAL if an argument is out of range; -ENOSPC if fewer than
 * @nr chunks are free; -E2BIG if they are free but would need more than
 * @max_ext extents.  On failure nothing is allocated.
 */
int hc_alloc_get(struct hc_alloc *a, u64 nr, u32 start_member,
		 struct hc_ext *ext, u32 max_ext, u32 *nr_ext)
{
	u64 pos = 0, fit = 0, got = 0;
	bool have_fit = false;
	u32 kept = 0, n, i;

	if (!nr || start_member >= a->members || !ext || !nr_ext ||
	    max_ext < 1 || max_ext > HC_MAX_EXTENTS)
		return -EINVAL;
	if (nr > a->nr_free)
		return -ENOSPC;

	while (pos < a->nr_chunks) {
		u64 p = hc_alloc_find(a, pos, false), e, v;
		u32 m;

		if (p == a->nr_chunks)
			break;
		e = hc_alloc_find(a, p, true);
		pos = e;
		if (e - p < nr) {
			if (!have_fit)
				hc_alloc_keep(ext, &kept, max_ext, p, e - p);
			continue;
		}
		/* The first chunk at or after @p on the start member. */
		div_u64_rem(p, a->members, &m);
		v = p + (start_member + a->members - m) % a->members;
		if (v + nr <= e) {
			fit = v;
			goto single;
		}
		if (!have_fit) {
			fit = p;
			have_fit = true;
		}
	}
	if (have_fit)
		goto single;

	/* Fewest extents: the largest runs, the last one trimmed. */
	for (n = 0; n < kept && got < nr; n++) {
		if (ext[n].count > nr - got)
			ext[n].count = nr - got;
		got += ext[n].count;
	}
	if (got < nr)
		return -E2BIG;
	hc_alloc_sort(ext, n);
	for (i = 0; i < n; i++)
		hc_alloc_mark(a, ext[i].start, ext[i].count, true);
	*nr_ext = n;
	return 0;

single:
	ext[0].start = fit;
	ext[0].count = nr;
	hc_alloc_mark(a, fit, nr, true);
	*nr_ext = 1;
	return 0;
}

/*
 * Whether @ext[0..@nr_ext) is a well-formed extent list of this pool: at
 * most HC_MAX_EXTENTS extents, each non-empty and inside the pool, no two
 * overlapping.
 */
static bool hc_alloc_valid(const struct hc_alloc *a, const struct hc_ext *ext,
			   u32 nr_ext)
{
	u32 i, j;

	if (nr_ext > HC_MAX_EXTENTS || (nr_ext && !ext))
		return false;
	for (i = 0; i < nr_ext; i++) {
		if (!ext[i].count || ext[i].start >= a->nr_chunks ||
		    ext[i].count > a->nr_chunks - ext[i].start)
			return false;
		for (j = 0; j < i; j++)
			if (ext[i].start < ext[j].start + ext[j].count &&
			    ext[j].start < ext[i].start + ext[i].count)
				return false;
	}
	return true;
}

/**
 * hc_alloc_put - free the chunks of an object
 * @a: allocator
 * @ext: the object's extents, as hc_alloc_get() or hc_alloc_claim() took them
 * @nr_ext: number of extents, 0..HC_MAX_EXTENTS (0: nothing to do)
 *
 * Freeing a chunk that is not in use is a bug of the caller (a double free,
 * or extents that were never allocated): it is refused and counted in
 * @a->bad_puts, so the module can WARN and the tests can check.
 *
 * Return: 0; -EINVAL if the list is malformed (see hc_alloc_claim());
 * -ENOENT if any chunk of it is not in use.  On failure nothing is freed.
 */
int hc_alloc_put(struct hc_alloc *a, const struct hc_ext *ext, u32 nr_ext)
{
	u32 i;

	if (!hc_alloc_valid(a, ext, nr_ext)) {
		a->bad_puts++;
		return -EINVAL;
	}
	for (i = 0; i < nr_ext; i++) {
		if (!hc_alloc_range_is(a, ext[i].start, ext[i].count, true)) {
			a->bad_puts++;
			return -ENOENT;
		}
	}
	for (i = 0; i < nr_ext; i++)
		hc_alloc_mark(a, ext[i].start, ext[i].count, false);
	return 0;
}

/**
 * hc_alloc_claim - mark given extents used (journal replay)
 * @a: allocator
 * @ext: extents of a replayed object
 * @nr_ext: number of extents, 0..HC_MAX_EXTENTS (0: nothing to do)
 *
 * Return: 0; -EINVAL if the list is malformed: more than HC_MAX_EXTENTS
 * extents, an empty extent, one beyond the pool, or two that overlap;
 * -EEXIST if any chunk is already used (two objects claim it).  On failure
 * nothing is claimed.
 */
int hc_alloc_claim(struct hc_alloc *a, const struct hc_ext *ext, u32 nr_ext)
{
	u32 i;

	if (!hc_alloc_valid(a, ext, nr_ext))
		return -EINVAL;
	for (i = 0; i < nr_ext; i++)
		if (!hc_alloc_range_is(a, ext[i].start, ext[i].count, false))
			return -EEXIST;
	for (i = 0; i < nr_ext; i++)
		hc_alloc_mark(a, ext[i].start, ext[i].count, true);
	return 0;
}

/* Free chunks (never fails). */
u64 hc_alloc_free(const struct hc_alloc *a)
{
	return a->nr_free;
}

/* Whether @chunk is in use; chunks beyond the pool read as used. */
bool hc_alloc_used(const struct hc_alloc *a, u64 chunk)
{
	if (chunk >= a->nr_chunks)
		return true;
	return a->words[chunk / HC_ALLOC_BITS] & (1ULL << (chunk % HC_ALLOC_BITS));
}
