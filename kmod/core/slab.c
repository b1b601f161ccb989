// SPDX-License-Identifier: GPL-2.0
/*
 * Sub-chunk allocator (see slab.h and Documentation/on-disk-format.md).
 * Core code: shared with the unit tests and hcsim.
 *
 * Slab chunks are found by a linear search of the table: a pool of 4 MiB
 * chunks holds a few thousand slab chunks at most in the workloads measured
 * (Documentation/on-disk-format.md), and every search is a compare per
 * entry.
 */
#include "slab.h"

#define HC_WORD_BITS	64

static bool hc_slab_bit(const u64 *w, u32 i)
{
	return w[i / HC_WORD_BITS] >> (i % HC_WORD_BITS) & 1;
}

static void hc_slab_set(u64 *w, u32 i, bool on)
{
	if (on)
		w[i / HC_WORD_BITS] |= 1ULL << (i % HC_WORD_BITS);
	else
		w[i / HC_WORD_BITS] &= ~(1ULL << (i % HC_WORD_BITS));
}

/* Whether blocks [@b, @b + @n) of @c are all free. */
static bool hc_slab_range_free(const struct hc_slab_chunk *c, u32 b, u32 n)
{
	u32 i;

	for (i = b; i < b + n; i++)
		if (hc_slab_bit(c->used, i))
			return false;
	return true;
}

/* Mark blocks [@b, @b + @n) of @c as one object (@on) or free (!@on). */
static void hc_slab_mark(struct hc_slab_chunk *c, u32 b, u32 n, bool on)
{
	u32 i;

	for (i = b; i < b + n; i++)
		hc_slab_set(c->used, i, on);
	hc_slab_set(c->head, b, on);
	if (on) {
		c->nr_used += n;
		c->nr_objs++;
	} else {
		c->nr_used -= n;
		c->nr_objs--;
	}
}

/* Blocks of the object whose first block is @b (a head bit of @c). */
static u32 hc_slab_obj_len(const struct hc_slab *s,
			   const struct hc_slab_chunk *c, u32 b)
{
	u32 i = b + 1;

	while (i < s->blocks_per_chunk && hc_slab_bit(c->used, i) &&
	       !hc_slab_bit(c->head, i))
		i++;
	return i - b;
}

/* The lowest free run of @n blocks of @c: its first block, or -ENOSPC. */
static int hc_slab_fit(const struct hc_slab *s, const struct hc_slab_chunk *c,
		       u32 n)
{
	u32 i, run = 0;

	if (s->blocks_per_chunk - c->nr_used < n)
		return -ENOSPC;
	for (i = 0; i < s->blocks_per_chunk; i++) {
		run = hc_slab_bit(c->used, i) ? 0 : run + 1;
		if (run == n)
			return i + 1 - n;
	}
	return -ENOSPC;
}

static u32 hc_slab_member(const struct hc_slab *s, u64 chunk)
{
	u32 rem;

	div_u64_rem(chunk, s->members, &rem);
	return rem;
}

static struct hc_slab_chunk *hc_slab_find(struct hc_slab *s, u64 chunk)
{
	u32 i;

	for (i = 0; i < s->nr_chunks; i++)
		if (s->chunks[i].chunk == chunk)
			return &s->chunks[i];
	return NULL;
}

/*
 * The fullest non-draining slab chunk on @member (on any member if @member
 * is @s->members) with a free run of @n blocks; sets *@block to its lowest.
 * Equal fill: the lower chunk number, so the choice does not depend on the
 * table's order.
 */
static struct hc_slab_chunk *hc_slab_best(struct hc_slab *s, u32 member,
					  u32 n, u32 *block)
{
	struct hc_slab_chunk *best = NULL;
	u32 i;
	int b, best_b = 0;

	for (i = 0; i < s->nr_chunks; i++) {
		struct hc_slab_chunk *c = &s->chunks[i];

		if (c->draining ||
		    (member < s->members &&
		     hc_slab_member(s, c->chunk) != member))
			continue;
		if (best && (c->nr_used < best->nr_used ||
			     (c->nr_used == best->nr_used &&
			      c->chunk > best->chunk)))
			continue;
		b = hc_slab_fit(s, c, n);
		if (b < 0)
			continue;
		best = c;
		best_b = b;
	}
	if (best)
		*block = best_b;
	return best;
}

/* Add @chunk (already taken from the chunk allocator) to the table. */
static struct hc_slab_chunk *hc_slab_add(struct hc_slab *s, u64 chunk)
{
	struct hc_slab_chunk *c = &s->chunks[s->nr_chunks++];

	c->chunk = chunk;
	c->nr_used = 0;
	c->nr_objs = 0;
	c->draining = false;
	memset(c->used, 0, s->chunk_words * sizeof(u64));
	memset(c->head, 0, s->chunk_words * sizeof(u64));
	return c;
}

/* Drop the empty @c from the table, its chunk back to the allocator. */
static void hc_slab_drop(struct hc_slab *s, struct hc_alloc *a,
			 struct hc_slab_chunk *c)
{
	struct hc_slab_chunk *last = &s->chunks[--s->nr_chunks];
	struct hc_ext e = { .start = c->chunk, .count = 1 };
	u64 *used = c->used, *head = c->head;

	hc_alloc_put(a, &e, 1);
	if (c != last) {
		/* each entry keeps its own bitmap words: copy last's into c's */
		memcpy(used, last->used, s->chunk_words * sizeof(u64));
		memcpy(head, last->head, s->chunk_words * sizeof(u64));
		*c = *last;
		c->used = used;
		c->head = head;
	}
}

/**
 * hc_slab_words - u64 words of bitmap a slab needs
 * @max_chunks: entries of its table
 * @chunk_size: the pool's chunk size (a power of two >= HC_SUBBLOCK_SIZE)
 *
 * Return: the number of words to pass to hc_slab_init() (two bitmaps per
 * entry), or 0 if @chunk_size is not a power of two of at least 64 blocks.
 */
size_t hc_slab_words(u32 max_chunks, u32 chunk_size)
{
	if (!is_power_of_2(chunk_size) ||
	    chunk_size < HC_WORD_BITS * HC_SUBBLOCK_SIZE)
		return 0;
	return (size_t)max_chunks * 2 * (chunk_size / HC_SUBBLOCK_SIZE /
					 HC_WORD_BITS);
}

/**
 * hc_slab_init - set up an empty slab
 * @s: the slab
 * @chunk_size: the pool's chunk size
 * @members: members of the pool, 1..HC_MAX_MEMBERS
 * @max_chunks: entries of @chunks: the most slab chunks there may be
 * @chunks: the table, @max_chunks entries
 * @words: hc_slab_words(@max_chunks, @chunk_size) words
 *
 * Return: 0, or -EINVAL if an argument is out of range.
 */
int hc_slab_init(struct hc_slab *s, u32 chunk_size, u32 members,
		 u32 max_chunks, struct hc_slab_chunk *chunks, u64 *words)
{
	u32 i;

	if (!hc_slab_words(1, chunk_size) || members < 1 ||
	    members > HC_MAX_MEMBERS || !max_chunks)
		return -EINVAL;
	s->chunks = chunks;
	s->words = words;
	s->max_chunks = max_chunks;
	s->nr_chunks = 0;
	s->blocks_per_chunk = chunk_size / HC_SUBBLOCK_SIZE;
	s->chunk_words = s->blocks_per_chunk / HC_WORD_BITS;
	s->members = members;
	s->bad_puts = 0;
	for (i = 0; i < max_chunks; i++) {
		chunks[i].used = words + (size_t)i * 2 * s->chunk_words;
		chunks[i].head = chunks[i].used + s->chunk_words;
	}
	return 0;
}

/* Blocks an object of @bytes takes (0 for 0 bytes; never fails). */
u32 hc_slab_blocks(u64 bytes)
{
	u64 n = (bytes + HC_SUBBLOCK_SIZE - 1) / HC_SUBBLOCK_SIZE;

	return n > ~0U ? ~0U : (u32)n;
}

/**
 * hc_slab_get - place a small object
 * @s: the slab
 * @a: the chunk allocator new slab chunks come from
 * @bytes: the object's size, 1..chunk size
 * @start_member: the member its first block should be on, < members
 * @e: filled with its extent
 *
 * Placement as described in slab.h.  Return: 0; -EINVAL if @bytes or
 * @start_member is out of range; -ENOSPC if no slab chunk has a free run
 * of the object's blocks and no new slab chunk can be had.
 */
int hc_slab_get(struct hc_slab *s, struct hc_alloc *a, u64 bytes,
		u32 start_member, struct hc_sext *e)
{
	struct hc_slab_chunk *c;
	struct hc_ext ext;
	u32 n = hc_slab_blocks(bytes), nr_ext, block = 0;

	if (!n || n > s->blocks_per_chunk || start_member >= s->members)
		return -EINVAL;
	c = hc_slab_best(s, start_member, n, &block);
	if (!c && s->nr_chunks < s->max_chunks &&
	    !hc_alloc_get(a, 1, start_member, &ext, 1, &nr_ext))
		c = hc_slab_add(s, ext.start);
	if (!c)
		c = hc_slab_best(s, s->members, n, &block);
	if (!c)
		return -ENOSPC;
	hc_slab_mark(c, block, n, true);
	e->chunk = c->chunk;
	e->block = block;
	e->nr_blocks = n;
	return 0;
}

/* Whether @e is exactly an object of @c. */
static bool hc_slab_is_obj(const struct hc_slab *s,
			   const struct hc_slab_chunk *c,
			   const struct hc_sext *e)
{
	return e->nr_blocks && e->block < s->blocks_per_chunk &&
	       e->nr_blocks <= s->blocks_per_chunk - e->block &&
	       hc_slab_bit(c->head, e->block) &&
	       hc_slab_obj_len(s, c, e->block) == e->nr_blocks;
}

/**
 * hc_slab_has - whether an extent is exactly a live object of the slab
 * @s: the slab
 * @e: the extent
 *
 * For consistency checks (debugfs): its chunk is a slab chunk, its first
 * block starts an object and that object has exactly its blocks.
 */
bool hc_slab_has(const struct hc_slab *s, const struct hc_sext *e)
{
	u32 i;

	for (i = 0; i < s->nr_chunks; i++)
		if (s->chunks[i].chunk == e->chunk)
			return hc_slab_is_obj(s, &s->chunks[i], e);
	return false;
}

/**
 * hc_slab_put - free a small object
 * @s: the slab
 * @a: the chunk allocator its slab chunk goes back to when it empties
 * @e: the object's extent, exactly as hc_slab_get(), hc_slab_claim() or
 *	hc_slab_plan() returned it
 *
 * When the last object of a slab chunk goes, the chunk goes back to @a.
 *
 * Return: 0; -EINVAL if @e is not exactly a live object of the slab
 * (nothing changes; @s->bad_puts counts it).
 */
int hc_slab_put(struct hc_slab *s, struct hc_alloc *a,
		const struct hc_sext *e)
{
	struct hc_slab_chunk *c = hc_slab_find(s, e->chunk);

	if (!c || !hc_slab_is_obj(s, c, e)) {
		s->bad_puts++;
		return -EINVAL;
	}
	hc_slab_mark(c, e->block, e->nr_blocks, false);
	if (!c->nr_objs && !c->draining)
		hc_slab_drop(s, a, c);
	return 0;
}

/**
 * hc_slab_claim - mark a small object found at journal replay as used
 * @s: the slab
 * @a: the chunk allocator: a chunk not yet in the slab is claimed there
 * @e: the extent recorded in the journal
 *
 * Return: 0; -EINVAL if @e is out of range (past the pool, the chunk or
 * empty); -EEXIST if one of its blocks is already used, or its chunk is
 * used by a whole-chunk extent; -ENOSPC if the slab's table is full.  On
 * failure nothing changes.
 */
int hc_slab_claim(struct hc_slab *s, struct hc_alloc *a,
		  const struct hc_sext *e)
{
	struct hc_slab_chunk *c;
	struct hc_ext ext = { .start = e->chunk, .count = 1 };
	int err;

	if (!e->nr_blocks || e->block >= s->blocks_per_chunk ||
	    e->nr_blocks > s->blocks_per_chunk - e->block ||
	    e->chunk >= a->nr_chunks)
		return -EINVAL;
	c = hc_slab_find(s, e->chunk);
	if (c) {
		if (!hc_slab_range_free(c, e->block, e->nr_blocks))
			return -EEXIST;
	} else {
		if (s->nr_chunks == s->max_chunks)
			return -ENOSPC;
		err = hc_alloc_claim(a, &ext, 1);
		if (err)
			return err;
		c = hc_slab_add(s, e->chunk);
	}
	hc_slab_mark(c, e->block, e->nr_blocks, true);
	return 0;
}

/*
 * The next source candidate: the sparse, non-draining slab chunk with the
 * smallest (nr_used, chunk) after *@key (none yet: @key->block is 0), or
 * NULL.  @key->nr_blocks holds nr_used, @key->chunk the chunk.
 */
static struct hc_slab_chunk *hc_slab_sparsest(struct hc_slab *s,
					      u32 sparse_pct,
					      const struct hc_sext *key)
{
	struct hc_slab_chunk *best = NULL;
	u32 i;

	for (i = 0; i < s->nr_chunks; i++) {
		struct hc_slab_chunk *c = &s->chunks[i];

		if (c->draining || !c->nr_objs ||
		    (u64)c->nr_used * 100 >
		    (u64)sparse_pct * s->blocks_per_chunk)
			continue;
		if (key->block && (c->nr_used < key->nr_blocks ||
				   (c->nr_used == key->nr_blocks &&
				    c->chunk <= key->chunk)))
			continue;
		if (best && (c->nr_used > best->nr_used ||
			     (c->nr_used == best->nr_used &&
			      c->chunk > best->chunk)))
			continue;
		best = c;
	}
	return best;
}

/* Reserve a destination for every object of @src, or none; the count. */
static int hc_slab_plan_one(struct hc_slab *s, struct hc_slab_chunk *src,
			    struct hc_slab_move *moves, u32 room)
{
	u32 b, nr = 0, member = hc_slab_member(s, src->chunk);

	if (src->nr_objs > room)
		return -ENOSPC;
	for (b = 0; b < s->blocks_per_chunk; b++) {
		struct hc_slab_chunk *dst;
		u32 n, to = 0;

		if (!hc_slab_bit(src->head, b))
			continue;
		n = hc_slab_obj_len(s, src, b);
		dst = hc_slab_best(s, member, n, &to);
		if (!dst)
			dst = hc_slab_best(s, s->members, n, &to);
		if (!dst)
			goto out_undo;
		hc_slab_mark(dst, to, n, true);
		moves[nr].from.chunk = src->chunk;
		moves[nr].from.block = b;
		moves[nr].from.nr_blocks = n;
		moves[nr].to.chunk = dst->chunk;
		moves[nr].to.block = to;
		moves[nr].to.nr_blocks = n;
		nr++;
	}
	return nr;

out_undo:
	while (nr--)
		hc_slab_mark(hc_slab_find(s, moves[nr].to.chunk),
			     moves[nr].to.block, moves[nr].to.nr_blocks, false);
	return -ENOSPC;
}

/**
 * hc_slab_plan - plan a compaction: empty the sparsest slab chunks
 * @s: the slab
 * @sparse_pct: a chunk is sparse if at most this percentage of its blocks
 *	is used (1..99)
 * @max_sources: chunks to empty at most
 * @moves: filled with the moves, in order
 * @max_moves: entries of @moves
 *
 * Takes the sparse chunks emptiest first.  A chunk becomes a source only
 * if every one of its objects fits in the free blocks of chunks that are
 * not sources (the fullest first, on the same member when possible): the
 * plan never takes a new chunk, and a chunk it drains is freed.  For each
 * move the destination blocks are reserved (used, as if got) and the
 * source chunk is marked draining: no placement goes there.
 *
 * The caller then copies each object, journals its new extent, and calls
 * hc_slab_put(@from) for every move (or, to abort, hc_slab_put(@to));
 * then hc_slab_plan_end(), which frees the emptied sources.  Readers that
 * hold the old extent keep reading it until then: the source blocks are
 * not reused while the chunk drains.
 *
 * Return: the number of moves (0: nothing to do); -EINVAL if @sparse_pct
 * is out of range or a plan is already in progress.
 */
int hc_slab_plan(struct hc_slab *s, u32 sparse_pct, u32 max_sources,
		 struct hc_slab_move *moves, u32 max_moves)
{
	struct hc_sext key = { 0 };
	struct hc_slab_chunk *src;
	u32 i, nr = 0, sources = 0;
	int n;

	if (sparse_pct < 1 || sparse_pct > 99)
		return -EINVAL;
	for (i = 0; i < s->nr_chunks; i++)
		if (s->chunks[i].draining)
			return -EINVAL;

	while (sources < max_sources &&
	       (src = hc_slab_sparsest(s, sparse_pct, &key))) {
		key.chunk = src->chunk;
		key.nr_blocks = src->nr_used;
		key.block = 1;
		src->draining = true;
		n = hc_slab_plan_one(s, src, moves + nr, max_moves - nr);
		if (n < 0) {
			src->draining = false;
			continue;
		}
		nr += n;
		sources++;
	}
	return nr;
}

/**
 * hc_slab_plan_end - finish (or abandon) a compaction plan
 * @s: the slab
 * @a: the chunk allocator the emptied chunks go back to
 *
 * Every draining chunk stops draining; those without objects (every move
 * from them was committed) go back to @a.  Never fails.
 */
void hc_slab_plan_end(struct hc_slab *s, struct hc_alloc *a)
{
	u32 i = 0;

	while (i < s->nr_chunks) {
		struct hc_slab_chunk *c = &s->chunks[i];

		c->draining = false;
		if (!c->nr_objs)
			hc_slab_drop(s, a, c);	/* entry i now holds another */
		else
			i++;
	}
}

/**
 * hc_slab_compactable - whether hc_slab_plan() could empty a chunk now
 * @s: the slab
 * @sparse_pct: as hc_slab_plan()'s
 *
 * True if no plan is in progress, some slab chunk with objects is at most
 * @sparse_pct used, and the slab's free blocks add up to at least one
 * chunk: then the free blocks of the other chunks number at least the
 * sparse chunk's used ones (a plan may still find no run for each of its
 * objects).  For the caller's decision to plan; never fails.
 */
bool hc_slab_compactable(const struct hc_slab *s, u32 sparse_pct)
{
	u64 used = 0;
	bool sparse = false;
	u32 i;

	for (i = 0; i < s->nr_chunks; i++) {
		const struct hc_slab_chunk *c = &s->chunks[i];

		if (c->draining)
			return false;
		used += c->nr_used;
		if (c->nr_objs && (u64)c->nr_used * 100 <=
		    (u64)sparse_pct * s->blocks_per_chunk)
			sparse = true;
	}
	return sparse && (u64)s->nr_chunks * s->blocks_per_chunk - used >=
			 s->blocks_per_chunk;
}

/* What the slab holds (never fails). */
void hc_slab_stats(const struct hc_slab *s, struct hc_slab_stats *st)
{
	u32 i;

	memset(st, 0, sizeof(*st));
	st->chunks = s->nr_chunks;
	for (i = 0; i < s->nr_chunks; i++) {
		st->objects += s->chunks[i].nr_objs;
		st->used_blocks += s->chunks[i].nr_used;
	}
	st->free_blocks = st->chunks * s->blocks_per_chunk - st->used_blocks;
}
