// SPDX-License-Identifier: GPL-2.0
/*
 * Sub-chunk allocator (kmod/core/slab.c): placement over the members, no
 * two objects sharing a block (a shadow map of block owners), a chunk freed
 * with its last object, compaction (sparse chunks emptied, the data moved
 * intact, drained blocks never reused during the plan), refusals that
 * change nothing, replay claims, and every block free at the end.  The
 * random tests print their seed; HC_SEED=N reruns one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "kselftest_harness.h"
#include "slab.h"

#define CHUNK		(4U << 20)
#define BPC		(CHUNK / HC_SUBBLOCK_SIZE)

struct pool {
	struct hc_alloc a;
	struct hc_slab s;
	u64 *awords;
	u64 *swords;
	struct hc_slab_chunk *tab;
	u64 nr_chunks;
	/* shadow: owner (object index + 1) of each block, 0 = free */
	u32 *owner;
};

static int pool_new(struct pool *p, u64 nr_chunks, u32 members, u32 max_slab)
{
	memset(p, 0, sizeof(*p));
	p->nr_chunks = nr_chunks;
	p->awords = calloc(hc_alloc_words(nr_chunks), sizeof(u64));
	p->swords = calloc(hc_slab_words(max_slab, CHUNK), sizeof(u64));
	p->tab = calloc(max_slab, sizeof(*p->tab));
	p->owner = calloc(nr_chunks * BPC, sizeof(u32));
	if (!p->awords || !p->swords || !p->tab || !p->owner)
		return -ENOMEM;
	if (hc_alloc_init(&p->a, nr_chunks, members, p->awords))
		return -EINVAL;
	return hc_slab_init(&p->s, CHUNK, members, max_slab, p->tab, p->swords);
}

static void pool_free(struct pool *p)
{
	free(p->awords);
	free(p->swords);
	free(p->tab);
	free(p->owner);
}

static u32 *owner_of(struct pool *p, u64 chunk, u32 block)
{
	return &p->owner[chunk * BPC + block];
}

/* Record @e as object @id in the shadow; false if a block was taken. */
static bool shadow_take(struct pool *p, const struct hc_sext *e, u32 id)
{
	u32 i;

	if (e->chunk >= p->nr_chunks || !e->nr_blocks ||
	    e->block + e->nr_blocks > BPC)
		return false;
	for (i = 0; i < e->nr_blocks; i++)
		if (*owner_of(p, e->chunk, e->block + i))
			return false;
	for (i = 0; i < e->nr_blocks; i++)
		*owner_of(p, e->chunk, e->block + i) = id;
	return true;
}

static void shadow_drop(struct pool *p, const struct hc_sext *e)
{
	u32 i;

	for (i = 0; i < e->nr_blocks; i++)
		*owner_of(p, e->chunk, e->block + i) = 0;
}

static bool shadow_is(struct pool *p, const struct hc_sext *e, u32 id)
{
	u32 i;

	for (i = 0; i < e->nr_blocks; i++)
		if (*owner_of(p, e->chunk, e->block + i) != id)
			return false;
	return true;
}

/* The slab's stats agree with the shadow and the chunk allocator. */
static bool consistent(struct pool *p)
{
	struct hc_slab_stats st;
	u64 used = 0, i;
	u32 k;

	hc_slab_stats(&p->s, &st);
	for (i = 0; i < p->nr_chunks * BPC; i++)
		used += p->owner[i] != 0;
	if (used != st.used_blocks)
		return false;
	for (k = 0; k < p->s.nr_chunks; k++)
		if (!hc_alloc_used(&p->a, p->s.chunks[k].chunk))
			return false;
	return hc_alloc_free(&p->a) == p->nr_chunks - st.chunks &&
	       st.free_blocks == st.chunks * BPC - st.used_blocks;
}

static unsigned int test_seed(void)
{
	const char *env = getenv("HC_SEED");
	unsigned int seed = env ? strtoul(env, NULL, 0) : (unsigned int)time(NULL);

	printf("# seed %u (HC_SEED=%u reruns it)\n", seed, seed);
	fflush(stdout);
	return seed;
}

static u64 rnd_bytes(void)
{
	/* 1 B .. 1 MiB, log-uniform-ish: most objects small */
	u32 shift = rand() % 21;

	return 1 + (u64)rand() % (1ULL << shift);
}

TEST(blocks_and_limits)
{
	struct pool p;
	struct hc_sext e;

	ASSERT_EQ(0, pool_new(&p, 16, 2, 8));
	EXPECT_EQ(0U, hc_slab_blocks(0));
	EXPECT_EQ(1U, hc_slab_blocks(1));
	EXPECT_EQ(1U, hc_slab_blocks(4096));
	EXPECT_EQ(2U, hc_slab_blocks(4097));
	EXPECT_EQ(-EINVAL, hc_slab_get(&p.s, &p.a, 0, 0, &e));
	EXPECT_EQ(-EINVAL, hc_slab_get(&p.s, &p.a, CHUNK + 1ULL, 0, &e));
	EXPECT_EQ(-EINVAL, hc_slab_get(&p.s, &p.a, 1, 2, &e));
	EXPECT_EQ(0U, p.s.nr_chunks);
	EXPECT_EQ(16U, hc_alloc_free(&p.a));
	EXPECT_EQ(0, hc_slab_get(&p.s, &p.a, CHUNK, 1, &e));
	EXPECT_EQ(0U, e.block);
	EXPECT_EQ(BPC, e.nr_blocks);
	EXPECT_EQ(1U, e.chunk % 2);
	EXPECT_EQ(0, hc_slab_put(&p.s, &p.a, &e));
	EXPECT_EQ(0U, p.s.nr_chunks);
	EXPECT_EQ(16U, hc_alloc_free(&p.a));
	EXPECT_EQ(-EINVAL, hc_slab_init(&p.s, 4096, 2, 8, p.tab, p.swords));
	EXPECT_EQ(-EINVAL, hc_slab_init(&p.s, CHUNK, 0, 8, p.tab, p.swords));
	EXPECT_EQ(-EINVAL, hc_slab_init(&p.s, CHUNK, 65, 8, p.tab, p.swords));
	EXPECT_EQ(0U, hc_slab_words(1, 3 << 20));
	pool_free(&p);
}

/* Small objects land on their start member and pack densely there. */
TEST(placement_over_members)
{
	u32 per_member[4] = { 0 }, m, i;
	struct pool p;
	struct hc_sext e;

	ASSERT_EQ(0, pool_new(&p, 64, 4, 64));
	for (i = 0; i < 4000; i++) {
		m = i % 4;
		ASSERT_EQ(0, hc_slab_get(&p.s, &p.a, 1 + i % 65536, m, &e));
		ASSERT_TRUE(shadow_take(&p, &e, i + 1));
		EXPECT_EQ(m, e.chunk % 4);
		per_member[m] += e.nr_blocks;
	}
	/* 4000 objects of 1 B..64 KiB average ~8 blocks: ~8 chunks each */
	for (m = 0; m < 4; m++) {
		u32 chunks = 0;

		for (i = 0; i < p.s.nr_chunks; i++)
			chunks += p.s.chunks[i].chunk % 4 == m;
		EXPECT_GE(chunks, 1U);
		/* dense: at most one partly filled chunk beyond the need */
		EXPECT_LE(chunks, per_member[m] / BPC + 2);
	}
	EXPECT_TRUE(consistent(&p));
	pool_free(&p);
}

/* With the start member's chunks gone, placement falls back. */
TEST(fallback_and_full)
{
	struct pool p;
	struct hc_sext e[8];
	u32 i;

	/* 2 chunks, 2 members: member 0 has chunk 0, member 1 chunk 1 */
	ASSERT_EQ(0, pool_new(&p, 2, 2, 4));
	ASSERT_EQ(0, hc_slab_get(&p.s, &p.a, CHUNK - 4096, 0, &e[0]));
	EXPECT_EQ(0U, e[0].chunk);
	/* member 0's chunk is full; the allocator gives chunk 1 */
	ASSERT_EQ(0, hc_slab_get(&p.s, &p.a, 8192, 0, &e[1]));
	EXPECT_EQ(1U, e[1].chunk);
	/* no free chunk: the last block of chunk 0 on member 0 */
	ASSERT_EQ(0, hc_slab_get(&p.s, &p.a, 4096, 0, &e[2]));
	EXPECT_EQ(0U, e[2].chunk);
	EXPECT_EQ(BPC - 1, e[2].block);
	/* member 0 full, no chunk left: member 1's chunk */
	ASSERT_EQ(0, hc_slab_get(&p.s, &p.a, 4096, 0, &e[3]));
	EXPECT_EQ(1U, e[3].chunk);
	/* too big for any free run: refused, nothing changes */
	i = p.s.chunks[1].nr_used;
	EXPECT_EQ(-ENOSPC, hc_slab_get(&p.s, &p.a, CHUNK, 1, &e[4]));
	EXPECT_EQ(i, p.s.chunks[1].nr_used);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(0, hc_slab_put(&p.s, &p.a, &e[i]));
	EXPECT_EQ(0U, p.s.nr_chunks);
	EXPECT_EQ(2U, hc_alloc_free(&p.a));
	pool_free(&p);
}

TEST(chunk_freed_with_last_object)
{
	struct pool p;
	struct hc_sext a, b;

	ASSERT_EQ(0, pool_new(&p, 8, 1, 8));
	ASSERT_EQ(0, hc_slab_get(&p.s, &p.a, 100 << 10, 0, &a));
	ASSERT_EQ(0, hc_slab_get(&p.s, &p.a, 100 << 10, 0, &b));
	EXPECT_EQ(a.chunk, b.chunk);
	EXPECT_EQ(a.block + a.nr_blocks, b.block);
	EXPECT_EQ(0, hc_slab_put(&p.s, &p.a, &a));
	EXPECT_TRUE(hc_alloc_used(&p.a, b.chunk));
	EXPECT_EQ(1U, p.s.nr_chunks);
	/* the freed run is reused first (lowest fit in the fullest chunk) */
	ASSERT_EQ(0, hc_slab_get(&p.s, &p.a, 4096, 0, &a));
	EXPECT_EQ(0U, a.block);
	EXPECT_EQ(0, hc_slab_put(&p.s, &p.a, &a));
	EXPECT_EQ(0, hc_slab_put(&p.s, &p.a, &b));
	EXPECT_FALSE(hc_alloc_used(&p.a, b.chunk));
	EXPECT_EQ(0U, p.s.nr_chunks);
	EXPECT_EQ(0U, p.s.bad_puts);
	pool_free(&p);
}

/* A put must name exactly an object: anything else changes nothing. */
TEST(bad_puts_and_claims)
{
	struct pool p;
	struct hc_sext e, x;
	struct hc_ext big;
	u32 nr_ext;

	ASSERT_EQ(0, pool_new(&p, 8, 1, 2));
	ASSERT_EQ(0, hc_slab_get(&p.s, &p.a, 5 * 4096, 0, &e));
	EXPECT_TRUE(hc_slab_has(&p.s, &e));
	x = e;
	x.nr_blocks = 4;		/* part of the object */
	EXPECT_FALSE(hc_slab_has(&p.s, &x));
	EXPECT_EQ(-EINVAL, hc_slab_put(&p.s, &p.a, &x));
	x.nr_blocks = 6;		/* more than the object */
	EXPECT_FALSE(hc_slab_has(&p.s, &x));
	x.block = 1;			/* not its head */
	x.nr_blocks = 4;
	EXPECT_FALSE(hc_slab_has(&p.s, &x));
	x = e;
	x.chunk = 5;			/* not a slab chunk */
	EXPECT_FALSE(hc_slab_has(&p.s, &x));
	EXPECT_EQ(1U, p.s.bad_puts);	/* hc_slab_has() counts nothing */
	x = e;
	x.block = 1;			/* not its head */
	x.nr_blocks = 4;
	EXPECT_EQ(-EINVAL, hc_slab_put(&p.s, &p.a, &x));
	x = e;
	x.chunk = 5;			/* not a slab chunk */
	EXPECT_EQ(-EINVAL, hc_slab_put(&p.s, &p.a, &x));
	EXPECT_EQ(3U, p.s.bad_puts);
	EXPECT_EQ(5U, p.s.chunks[0].nr_used);
	EXPECT_EQ(0, hc_slab_put(&p.s, &p.a, &e));
	EXPECT_FALSE(hc_slab_has(&p.s, &e));
	EXPECT_EQ(-EINVAL, hc_slab_put(&p.s, &p.a, &e));	/* double put */
	EXPECT_EQ(4U, p.s.bad_puts);

	/* replay: claims of two objects in one chunk, an overlap refused */
	e.chunk = 3;
	e.block = 10;
	e.nr_blocks = 20;
	EXPECT_EQ(0, hc_slab_claim(&p.s, &p.a, &e));
	EXPECT_TRUE(hc_alloc_used(&p.a, 3));
	x = e;
	x.block = 29;
	x.nr_blocks = 1;
	EXPECT_EQ(-EEXIST, hc_slab_claim(&p.s, &p.a, &x));
	x.block = 30;
	EXPECT_EQ(0, hc_slab_claim(&p.s, &p.a, &x));
	EXPECT_EQ(2U, p.s.chunks[0].nr_objs);
	/* a chunk a large object holds */
	ASSERT_EQ(0, hc_alloc_get(&p.a, 1, 0, &big, 1, &nr_ext));
	x.chunk = big.start;
	EXPECT_EQ(-EEXIST, hc_slab_claim(&p.s, &p.a, &x));
	/* out of range */
	x.chunk = 8;
	EXPECT_EQ(-EINVAL, hc_slab_claim(&p.s, &p.a, &x));
	x.chunk = 4;
	x.block = BPC - 1;
	x.nr_blocks = 2;
	EXPECT_EQ(-EINVAL, hc_slab_claim(&p.s, &p.a, &x));
	x.nr_blocks = 0;
	EXPECT_EQ(-EINVAL, hc_slab_claim(&p.s, &p.a, &x));
	/* the slab's table (2 entries) is full */
	x.chunk = 4;
	x.block = 0;
	x.nr_blocks = 1;
	EXPECT_EQ(0, hc_slab_claim(&p.s, &p.a, &x));
	x.chunk = 5;
	EXPECT_EQ(-ENOSPC, hc_slab_claim(&p.s, &p.a, &x));
	EXPECT_FALSE(hc_alloc_used(&p.a, 5));
	pool_free(&p);
}

struct obj {
	struct hc_sext e;
	bool live;
};

/* Random gets and puts against the shadow; everything free at the end. */
TEST(random_no_overlap)
{
	unsigned int seed = test_seed();
	struct pool p;
	struct obj *o = calloc(20000, sizeof(*o));
	u32 i, n = 0, live = 0, enospc = 0;
	int err;

	ASSERT_NE(NULL, o);
	srand(seed);
	ASSERT_EQ(0, pool_new(&p, 48, 3, 48));
	for (i = 0; i < 60000; i++) {
		if (n < 20000 && (live == 0 || rand() % 3)) {
			err = hc_slab_get(&p.s, &p.a, rnd_bytes(), rand() % 3,
					  &o[n].e);
			if (err == -ENOSPC) {
				enospc++;
				continue;
			}
			ASSERT_EQ(0, err) TH_LOG("seed %u op %u", seed, i);
			ASSERT_TRUE(shadow_take(&p, &o[n].e, n + 1))
				TH_LOG("seed %u: overlap at op %u", seed, i);
			o[n++].live = true;
			live++;
		} else {
			u32 k = rand() % n;

			if (!o[k].live)
				continue;
			ASSERT_TRUE(shadow_is(&p, &o[k].e, k + 1));
			ASSERT_EQ(0, hc_slab_put(&p.s, &p.a, &o[k].e));
			shadow_drop(&p, &o[k].e);
			o[k].live = false;
			live--;
		}
		if (i % 997 == 0)
			ASSERT_TRUE(consistent(&p)) TH_LOG("seed %u op %u",
							    seed, i);
	}
	ASSERT_TRUE(consistent(&p));
	for (i = 0; i < n; i++)
		if (o[i].live)
			ASSERT_EQ(0, hc_slab_put(&p.s, &p.a, &o[i].e));
	EXPECT_EQ(0U, p.s.nr_chunks);
	EXPECT_EQ(48U, hc_alloc_free(&p.a));
	EXPECT_EQ(0U, p.s.bad_puts);
	printf("# %u objects placed, %u refused for space\n", n, enospc);
	fflush(stdout);
	free(o);
	pool_free(&p);
}

/*
 * Fragment the slab (free most objects at random), then compact: the
 * sparse chunks empty and go back, the data moves intact (a tag per
 * block), blocks of draining chunks are never handed out during the plan
 * (a reader of the old extent keeps its bytes), and every block is free at
 * the end.
 */
TEST(fragmentation_and_compaction)
{
	unsigned int seed = test_seed();
	struct hc_slab_move *mv = calloc(4096, sizeof(*mv));
	struct obj *o = calloc(6000, sizeof(*o));
	struct hc_slab_stats before, after;
	struct hc_sext extra;
	struct pool p;
	u32 i, k, n = 0, *tag;
	int nr;

	ASSERT_NE(NULL, mv);
	ASSERT_NE(NULL, o);
	srand(seed);
	ASSERT_EQ(0, pool_new(&p, 128, 2, 128));
	tag = calloc(128 * BPC, sizeof(u32));
	ASSERT_NE(NULL, tag);
	for (n = 0; n < 6000; n++) {
		ASSERT_EQ(0, hc_slab_get(&p.s, &p.a, 1 + rand() % (64 << 10),
					 n % 2, &o[n].e));
		ASSERT_TRUE(shadow_take(&p, &o[n].e, n + 1));
		for (k = 0; k < o[n].e.nr_blocks; k++)
			tag[o[n].e.chunk * BPC + o[n].e.block + k] = n * 131 + k;
		o[n].live = true;
	}
	for (i = 0; i < n; i++) {
		if (rand() % 100 < 85) {
			ASSERT_EQ(0, hc_slab_put(&p.s, &p.a, &o[i].e));
			shadow_drop(&p, &o[i].e);
			o[i].live = false;
		}
	}
	hc_slab_stats(&p.s, &before);
	ASSERT_GT(before.free_blocks, before.used_blocks);

	nr = hc_slab_plan(&p.s, 50, 1000, mv, 4096);
	ASSERT_GT(nr, 0);
	EXPECT_EQ(-EINVAL, hc_slab_plan(&p.s, 50, 1000, mv, 4096));
	/* placement during the plan never lands in a draining chunk */
	if (!hc_slab_get(&p.s, &p.a, 4096, 0, &extra)) {
		for (i = 0; i < (u32)nr; i++)
			EXPECT_NE(mv[i].from.chunk, extra.chunk);
		EXPECT_EQ(0, hc_slab_put(&p.s, &p.a, &extra));
	}
	for (i = 0; i < (u32)nr; i++) {
		u32 id = *owner_of(&p, mv[i].from.chunk, mv[i].from.block);

		ASSERT_NE(0U, id);
		ASSERT_TRUE(shadow_is(&p, &mv[i].from, id));
		EXPECT_EQ(mv[i].from.nr_blocks, mv[i].to.nr_blocks);
		/* the reader of the old extent: bytes unchanged so far */
		for (k = 0; k < mv[i].from.nr_blocks; k++)
			tag[mv[i].to.chunk * BPC + mv[i].to.block + k] =
				tag[mv[i].from.chunk * BPC + mv[i].from.block + k];
		shadow_drop(&p, &mv[i].from);
		ASSERT_TRUE(shadow_take(&p, &mv[i].to, id));
		o[id - 1].e = mv[i].to;
		ASSERT_EQ(0, hc_slab_put(&p.s, &p.a, &mv[i].from));
	}
	hc_slab_plan_end(&p.s, &p.a);
	hc_slab_stats(&p.s, &after);
	EXPECT_EQ(before.used_blocks, after.used_blocks);
	EXPECT_EQ(before.objects, after.objects);
	EXPECT_LT(after.chunks, before.chunks);
	ASSERT_TRUE(consistent(&p));
	printf("# compaction: %u moves, chunks %llu -> %llu, free blocks %llu -> %llu\n",
	       nr, (unsigned long long)before.chunks,
	       (unsigned long long)after.chunks,
	       (unsigned long long)before.free_blocks,
	       (unsigned long long)after.free_blocks);
	fflush(stdout);
	for (i = 0; i < n; i++) {
		if (!o[i].live)
			continue;
		for (k = 0; k < o[i].e.nr_blocks; k++)
			ASSERT_EQ(i * 131 + k,
				  tag[o[i].e.chunk * BPC + o[i].e.block + k]);
		ASSERT_EQ(0, hc_slab_put(&p.s, &p.a, &o[i].e));
	}
	EXPECT_EQ(0U, p.s.nr_chunks);
	EXPECT_EQ(128U, hc_alloc_free(&p.a));
	EXPECT_EQ(0U, p.s.bad_puts);
	free(tag);
	free(mv);
	free(o);
	pool_free(&p);
}

/* An aborted plan (destinations put back) leaves the slab as it was. */
TEST(compaction_abort)
{
	struct hc_slab_move mv[64];
	struct hc_slab_stats before, after;
	struct pool p;
	struct hc_sext e[8];
	int nr, i;

	ASSERT_EQ(0, pool_new(&p, 8, 1, 8));
	/* chunk A: full but one object; chunk B: one small object */
	ASSERT_EQ(0, hc_slab_get(&p.s, &p.a, CHUNK - 8 * 4096, 0, &e[0]));
	ASSERT_EQ(0, hc_slab_get(&p.s, &p.a, 8 * 4096, 0, &e[1]));
	ASSERT_EQ(0, hc_slab_get(&p.s, &p.a, 4096, 0, &e[2]));
	EXPECT_NE(e[0].chunk, e[2].chunk);
	ASSERT_EQ(0, hc_slab_put(&p.s, &p.a, &e[1]));
	hc_slab_stats(&p.s, &before);
	/* a plan with too few move slots does nothing */
	EXPECT_EQ(0, hc_slab_plan(&p.s, 50, 4, mv, 0));
	hc_slab_plan_end(&p.s, &p.a);
	nr = hc_slab_plan(&p.s, 50, 4, mv, 64);
	ASSERT_EQ(1, nr);
	EXPECT_EQ(e[2].chunk, mv[0].from.chunk);
	EXPECT_EQ(e[0].chunk, mv[0].to.chunk);
	for (i = 0; i < nr; i++)
		EXPECT_EQ(0, hc_slab_put(&p.s, &p.a, &mv[i].to));
	hc_slab_plan_end(&p.s, &p.a);
	hc_slab_stats(&p.s, &after);
	EXPECT_EQ(0, memcmp(&before, &after, sizeof(before)));
	EXPECT_EQ(0, hc_slab_put(&p.s, &p.a, &e[0]));
	EXPECT_EQ(0, hc_slab_put(&p.s, &p.a, &e[2]));
	EXPECT_EQ(8U, hc_alloc_free(&p.a));
	EXPECT_EQ(-EINVAL, hc_slab_plan(&p.s, 0, 4, mv, 64));
	EXPECT_EQ(-EINVAL, hc_slab_plan(&p.s, 100, 4, mv, 64));
	pool_free(&p);
}

/*
 * What the module's compaction does (kmod/compact.c): some moves
 * committed, some abandoned (the object was held or changed: the
 * destination put back), a source object deleted during the plan (its old
 * extent put, then the reserved destination); then the plan ends.  Chunks
 * emptied go back, the others stay, each object has exactly its blocks,
 * and hc_slab_compactable() says when a plan could free a chunk.
 */
TEST(compaction_partial)
{
	struct hc_slab_move mv[64];
	struct hc_slab_stats before, after;
	struct hc_sext e[8], x;
	struct pool p;
	int nr, i;

	ASSERT_EQ(0, pool_new(&p, 8, 1, 8));
	EXPECT_FALSE(hc_slab_compactable(&p.s, 50));	/* empty */
	/* A: almost full; B and C: two small objects each */
	ASSERT_EQ(0, hc_slab_get(&p.s, &p.a, CHUNK - 32 * 4096, 0, &e[0]));
	ASSERT_EQ(0, hc_slab_get(&p.s, &p.a, 32 * 4096, 0, &e[1]));
	ASSERT_EQ(0, hc_slab_get(&p.s, &p.a, CHUNK / 2 + 4096, 0, &e[2]));
	ASSERT_EQ(0, hc_slab_get(&p.s, &p.a, CHUNK / 2 - 4096, 0, &e[3]));
	ASSERT_EQ(e[0].chunk, e[1].chunk);
	ASSERT_EQ(e[2].chunk, e[3].chunk);
	ASSERT_EQ(0, hc_slab_get(&p.s, &p.a, CHUNK / 2 + 4096, 0, &e[4]));
	ASSERT_EQ(0, hc_slab_get(&p.s, &p.a, CHUNK / 2 - 4096, 0, &e[5]));
	ASSERT_EQ(e[4].chunk, e[5].chunk);
	/* full: no free block at all */
	EXPECT_FALSE(hc_slab_compactable(&p.s, 50));
	ASSERT_EQ(0, hc_slab_put(&p.s, &p.a, &e[1]));	/* 32 free in A */
	/* a sparse chunk, but less than a chunk of free blocks */
	ASSERT_EQ(0, hc_slab_put(&p.s, &p.a, &e[2]));
	EXPECT_FALSE(hc_slab_compactable(&p.s, 50));
	ASSERT_EQ(0, hc_slab_get(&p.s, &p.a, 8 * 4096, 0, &e[6]));
	ASSERT_EQ(e[0].chunk, e[6].chunk);
	ASSERT_EQ(0, hc_slab_put(&p.s, &p.a, &e[4]));
	/* B and C half empty: a chunk of free blocks between them */
	EXPECT_TRUE(hc_slab_compactable(&p.s, 50));
	EXPECT_FALSE(hc_slab_compactable(&p.s, 10));
	hc_slab_stats(&p.s, &before);
	EXPECT_EQ(3U, before.chunks);

	nr = hc_slab_plan(&p.s, 50, 4, mv, 64);
	ASSERT_EQ(1, nr);	/* one of B, C into the other (and A's room) */
	EXPECT_FALSE(hc_slab_compactable(&p.s, 50));	/* a plan is on */
	/* abandoned: the object was held when the switch came */
	EXPECT_EQ(0, hc_slab_put(&p.s, &p.a, &mv[0].to));
	hc_slab_plan_end(&p.s, &p.a);
	hc_slab_stats(&p.s, &after);
	EXPECT_EQ(0, memcmp(&before, &after, sizeof(before)));

	nr = hc_slab_plan(&p.s, 50, 4, mv, 64);
	ASSERT_EQ(1, nr);
	/* the object goes meanwhile: its old extent, then the reservation */
	x = mv[0].from;
	EXPECT_EQ(0, hc_slab_put(&p.s, &p.a, &x));
	EXPECT_EQ(0, hc_slab_put(&p.s, &p.a, &mv[0].to));
	EXPECT_EQ(-EINVAL, hc_slab_put(&p.s, &p.a, &x));	/* only once */
	hc_slab_plan_end(&p.s, &p.a);
	hc_slab_stats(&p.s, &after);
	EXPECT_EQ(2U, after.chunks);	/* the emptied source went back */
	EXPECT_EQ(before.objects - 1, after.objects);
	EXPECT_EQ(1U, p.s.bad_puts);
	for (i = 0; i < 7; i++) {
		if (i == 1 || i == 2 || i == 4 ||
		    (e[i].chunk == x.chunk && e[i].block == x.block))
			continue;
		EXPECT_TRUE(hc_slab_has(&p.s, &e[i]));
		EXPECT_EQ(0, hc_slab_put(&p.s, &p.a, &e[i]));
	}
	EXPECT_EQ(0U, p.s.nr_chunks);
	EXPECT_EQ(8U, hc_alloc_free(&p.a));
	pool_free(&p);
}

TEST_HARNESS_MAIN
