// SPDX-License-Identifier: GPL-2.0
/*
 * Chunk allocator: the start-member rule, the fallbacks (one unaligned run,
 * then the fewest largest runs), refusals that change nothing, double-free
 * detection, journal-replay claims, and a long random workload checked
 * against a shadow bitmap.
 */
#include <stdlib.h>
#include "kselftest_harness.h"
#include "alloc.h"
#include "stripe.h"

/* Everything a refused call must leave as it was. */
struct snap {
	u64 *words;
	u64 nr_words;
	u64 nr_free;
};

static void snap_take(struct snap *s, const struct hc_alloc *a)
{
	s->nr_words = a->nr_words;
	s->nr_free = a->nr_free;
	s->words = malloc(a->nr_words * sizeof(u64));
	memcpy(s->words, a->words, a->nr_words * sizeof(u64));
}

static bool snap_same(struct snap *s, const struct hc_alloc *a)
{
	bool same = s->nr_free == a->nr_free &&
		    !memcmp(s->words, a->words, a->nr_words * sizeof(u64));

	free(s->words);
	return same;
}

static u64 *new_alloc(struct hc_alloc *a, u64 nr_chunks, u32 members)
{
	u64 *words = malloc(hc_alloc_words(nr_chunks) * sizeof(u64));

	if (words && hc_alloc_init(a, nr_chunks, members, words)) {
		free(words);
		return NULL;
	}
	return words;
}

/* Claim everything but the given runs (pairs of start, count, 0-ended). */
static int leave_free(struct hc_alloc *a, const u64 *runs)
{
	u64 pos = 0;
	struct hc_ext e;
	int err;

	for (; runs[1]; runs += 2) {
		if (runs[0] > pos) {
			e.start = pos;
			e.count = runs[0] - pos;
			err = hc_alloc_claim(a, &e, 1);
			if (err)
				return err;
		}
		pos = runs[0] + runs[1];
	}
	if (pos < a->nr_chunks) {
		e.start = pos;
		e.count = a->nr_chunks - pos;
		return hc_alloc_claim(a, &e, 1);
	}
	return 0;
}

TEST(sizing_and_init)
{
	struct hc_alloc a;
	u64 w[2];

	EXPECT_EQ(0, hc_alloc_words(0));
	EXPECT_EQ(1, hc_alloc_words(1));
	EXPECT_EQ(1, hc_alloc_words(64));
	EXPECT_EQ(2, hc_alloc_words(65));
	EXPECT_EQ(1ULL << 26, hc_alloc_words(1ULL << 32));
	EXPECT_EQ(0, hc_alloc_words((1ULL << 32) + 1));
	EXPECT_EQ(-EINVAL, hc_alloc_init(&a, 0, 1, w));
	EXPECT_EQ(-EINVAL, hc_alloc_init(&a, 64, 0, w));
	EXPECT_EQ(-EINVAL, hc_alloc_init(&a, 64, HC_MAX_MEMBERS + 1, w));
	EXPECT_EQ(-EINVAL, hc_alloc_init(&a, 64, 1, NULL));
	ASSERT_EQ(0, hc_alloc_init(&a, 70, HC_MAX_MEMBERS, w));
	EXPECT_EQ(70, hc_alloc_free(&a));
	EXPECT_FALSE(hc_alloc_used(&a, 69));
	EXPECT_TRUE(hc_alloc_used(&a, 70));
	EXPECT_TRUE(hc_alloc_used(&a, ~0ULL));
}

/* The bits past the last chunk are never handed out. */
TEST(tail_of_last_word)
{
	struct hc_alloc a;
	struct hc_ext e[4];
	u32 n = 0;
	u64 w[2];

	ASSERT_EQ(0, hc_alloc_init(&a, 70, 1, w));
	EXPECT_EQ(-ENOSPC, hc_alloc_get(&a, 71, 0, e, 4, &n));
	ASSERT_EQ(0, hc_alloc_get(&a, 70, 0, e, 4, &n));
	EXPECT_EQ(1, n);
	EXPECT_EQ(0, e[0].start);
	EXPECT_EQ(70, e[0].count);
	EXPECT_EQ(0, hc_alloc_free(&a));
	EXPECT_EQ(-ENOSPC, hc_alloc_get(&a, 1, 0, e, 4, &n));
	ASSERT_EQ(0, hc_alloc_put(&a, e, 1));
	EXPECT_EQ(70, hc_alloc_free(&a));
}

TEST(bad_arguments)
{
	struct hc_alloc a;
	struct hc_ext e[HC_MAX_EXTENTS + 1];
	struct snap s;
	u32 n;
	u64 w[4];

	ASSERT_EQ(0, hc_alloc_init(&a, 256, 3, w));
	snap_take(&s, &a);
	EXPECT_EQ(-EINVAL, hc_alloc_get(&a, 0, 0, e, 1, &n));
	EXPECT_EQ(-EINVAL, hc_alloc_get(&a, 1, 3, e, 1, &n));
	EXPECT_EQ(-EINVAL, hc_alloc_get(&a, 1, 0, e, 0, &n));
	EXPECT_EQ(-EINVAL, hc_alloc_get(&a, 1, 0, e, HC_MAX_EXTENTS + 1, &n));
	EXPECT_EQ(-EINVAL, hc_alloc_get(&a, 1, 0, NULL, 1, &n));
	EXPECT_EQ(-EINVAL, hc_alloc_get(&a, 1, 0, e, 1, NULL));
	EXPECT_TRUE(snap_same(&s, &a));
}

/* Every chunk of a one-extent object sits on member (start + i) mod N. */
FIXTURE(members) {
	struct hc_alloc a;
	struct hc_stripe geo;
	u64 *words;
};

FIXTURE_VARIANT(members) {
	u32 members;
};

FIXTURE_VARIANT_ADD(members, n1) { .members = 1 };
FIXTURE_VARIANT_ADD(members, n2) { .members = 2 };
FIXTURE_VARIANT_ADD(members, n3) { .members = 3 };
FIXTURE_VARIANT_ADD(members, n4) { .members = 4 };
FIXTURE_VARIANT_ADD(members, n5) { .members = 5 };

#define MEMBER_CHUNKS	1000

FIXTURE_SETUP(members)
{
	u32 n = variant->members;

	self->words = new_alloc(&self->a, (u64)n * MEMBER_CHUNKS, n);
	ASSERT_NE(NULL, self->words);
	ASSERT_EQ(0, hc_stripe_init(&self->geo, n, HC_CHUNK_SIZE_DEFAULT,
				    MEMBER_CHUNKS, 4ULL << 20));
}

FIXTURE_TEARDOWN(members)
{
	free(self->words);
}

TEST_F(members, start_member_rule)
{
	u32 n = variant->members, shift = self->geo.chunk_shift;
	u64 used = 0;
	int i;

	/* Sizes 1..13, start members cycling: all fit aligned by far. */
	for (i = 0; i < 60; i++) {
		u64 nr = 1 + (i * 7) % 13;
		u32 sm = (i * 3 + i / 5) % n, nr_ext = 0;
		struct hc_ext e[4];

		ASSERT_EQ(0, hc_alloc_get(&self->a, nr, sm, e, 4, &nr_ext));
		ASSERT_EQ(1, nr_ext);
		ASSERT_EQ(nr, e[0].count);
		for (u64 c = 0; c < nr; c++) {
			struct hc_stripe_loc loc;

			hc_stripe_map(&self->geo, (e[0].start + c) << shift,
				      &loc);
			ASSERT_EQ((sm + c) % n, loc.member) {
				TH_LOG("object %d chunk %llu at %llu", i,
				       (unsigned long long)c,
				       (unsigned long long)(e[0].start + c));
			}
		}
		used += nr;
	}
	EXPECT_EQ((u64)n * MEMBER_CHUNKS - used, hc_alloc_free(&self->a));
}

/* An aligned run later in the pool beats an unaligned one earlier. */
TEST_F(members, aligned_run_is_searched_for)
{
	u32 n = variant->members, nr_ext = 0;
	/* k = 3 from member 0: [1, 4) has no aligned fit unless N = 1. */
	u64 runs[] = { 1, 3, 4 * n + 1, n + 2, 0, 0 };
	struct hc_ext e[2];

	ASSERT_EQ(0, leave_free(&self->a, runs));
	ASSERT_EQ(0, hc_alloc_get(&self->a, 3, 0, e, 2, &nr_ext));
	ASSERT_EQ(1, nr_ext);
	EXPECT_EQ(n == 1 ? 1 : 5 * n, e[0].start);
}

/* No aligned run: the first run that fits, whatever its member. */
TEST(unaligned_single_run)
{
	struct hc_alloc a;
	struct hc_ext e[4];
	u64 runs[] = { 1, 4, 9, 2, 0, 0 };
	u32 n = 0;
	u64 w[1];

	ASSERT_EQ(0, hc_alloc_init(&a, 16, 4, w));
	ASSERT_EQ(0, leave_free(&a, runs));
	ASSERT_EQ(6, hc_alloc_free(&a));
	ASSERT_EQ(0, hc_alloc_get(&a, 4, 0, e, 4, &n));
	EXPECT_EQ(1, n);
	EXPECT_EQ(1, e[0].start);
	EXPECT_EQ(4, e[0].count);
	EXPECT_EQ(2, hc_alloc_free(&a));
}

/* Fewest extents: largest runs first, the last trimmed, in address order. */
TEST(fewest_largest_runs)
{
	struct hc_alloc a;
	struct hc_ext e[8];
	/* runs of 5, 3, 8, 2, 8 */
	u64 runs[] = { 2, 5, 10, 3, 20, 8, 40, 2, 50, 8, 0, 0 };
	struct snap s;
	u32 n = 0;
	u64 w[1];

	ASSERT_EQ(0, hc_alloc_init(&a, 64, 1, w));
	ASSERT_EQ(0, leave_free(&a, runs));
	ASSERT_EQ(26, hc_alloc_free(&a));

	/* 20 = 8 + 8 + 4 of the 5: three extents, never four. */
	snap_take(&s, &a);
	EXPECT_EQ(-E2BIG, hc_alloc_get(&a, 20, 0, e, 2, &n));
	EXPECT_TRUE(snap_same(&s, &a));
	ASSERT_EQ(0, hc_alloc_get(&a, 20, 0, e, 8, &n));
	ASSERT_EQ(3, n);
	EXPECT_EQ(2, e[0].start);
	EXPECT_EQ(4, e[0].count);
	EXPECT_EQ(20, e[1].start);
	EXPECT_EQ(8, e[1].count);
	EXPECT_EQ(50, e[2].start);
	EXPECT_EQ(8, e[2].count);
	EXPECT_EQ(6, hc_alloc_free(&a));
	EXPECT_FALSE(hc_alloc_used(&a, 6));

	/* Left: [6, 7), [10, 13), [40, 42).  4 = 3 + 1 of the 2. */
	snap_take(&s, &a);
	EXPECT_EQ(-ENOSPC, hc_alloc_get(&a, 7, 0, e, 8, &n));
	EXPECT_TRUE(snap_same(&s, &a));
	ASSERT_EQ(0, hc_alloc_get(&a, 4, 0, e, 8, &n));
	ASSERT_EQ(2, n);
	EXPECT_EQ(10, e[0].start);
	EXPECT_EQ(3, e[0].count);
	EXPECT_EQ(40, e[1].start);
	EXPECT_EQ(1, e[1].count);

	/* Left: [6, 7), [41, 42).  Equal lengths: the lower address wins. */
	ASSERT_EQ(0, hc_alloc_get(&a, 1, 0, e, 8, &n));
	ASSERT_EQ(1, n);
	EXPECT_EQ(6, e[0].start);
	ASSERT_EQ(0, hc_alloc_get(&a, 1, 0, e, 8, &n));
	EXPECT_EQ(41, e[0].start);
	EXPECT_EQ(0, hc_alloc_free(&a));
}

#define BOARD	1024

/* Fill, free a checkerboard, allocate: single-chunk extents, all free. */
TEST(checkerboard_fallback)
{
	struct hc_alloc a;
	struct hc_ext e[HC_MAX_EXTENTS], all;
	bool was_free[BOARD];
	struct snap s;
	u64 *w;
	u32 n = 0, i;

	w = new_alloc(&a, BOARD, 3);
	ASSERT_NE(NULL, w);
	ASSERT_EQ(0, hc_alloc_get(&a, BOARD, 1, &all, 1, &n));
	ASSERT_EQ(0, hc_alloc_free(&a));
	for (i = 0; i < BOARD; i += 2) {
		struct hc_ext one = { i, 1 };

		ASSERT_EQ(0, hc_alloc_put(&a, &one, 1));
	}
	ASSERT_EQ(BOARD / 2, hc_alloc_free(&a));
	for (i = 0; i < BOARD; i++)
		was_free[i] = !hc_alloc_used(&a, i);

	snap_take(&s, &a);
	EXPECT_EQ(-E2BIG, hc_alloc_get(&a, HC_MAX_EXTENTS + 1, 0, e,
				       HC_MAX_EXTENTS, &n));
	EXPECT_EQ(-E2BIG, hc_alloc_get(&a, 10, 0, e, 9, &n));
	EXPECT_EQ(-ENOSPC, hc_alloc_get(&a, BOARD / 2 + 1, 0, e,
					HC_MAX_EXTENTS, &n));
	EXPECT_TRUE(snap_same(&s, &a));

	ASSERT_EQ(0, hc_alloc_get(&a, 10, 2, e, HC_MAX_EXTENTS, &n));
	ASSERT_EQ(10, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(1, e[i].count);
		EXPECT_TRUE(was_free[e[i].start]);
		EXPECT_TRUE(hc_alloc_used(&a, e[i].start));
		if (i)
			EXPECT_LT(e[i - 1].start, e[i].start);
	}
	EXPECT_EQ(BOARD / 2 - 10, hc_alloc_free(&a));
	EXPECT_EQ(0, a.bad_puts);
	free(w);
}

TEST(put_refuses_double_free)
{
	struct hc_alloc a;
	struct hc_ext e[2], bad[2];
	struct snap s;
	u32 n = 0;
	u64 w[2];

	ASSERT_EQ(0, hc_alloc_init(&a, 128, 2, w));
	ASSERT_EQ(0, hc_alloc_get(&a, 10, 1, e, 2, &n));
	ASSERT_EQ(1, n);
	ASSERT_EQ(0, hc_alloc_put(&a, e, 1));
	EXPECT_EQ(128, hc_alloc_free(&a));

	/* Again: refused, counted, nothing changes. */
	snap_take(&s, &a);
	EXPECT_EQ(-ENOENT, hc_alloc_put(&a, e, 1));
	EXPECT_EQ(1, a.bad_puts);
	EXPECT_TRUE(snap_same(&s, &a));

	/* Half used, half free: nothing is freed. */
	ASSERT_EQ(0, hc_alloc_get(&a, 10, 1, e, 2, &n));
	bad[0] = e[0];
	bad[1].start = 100;
	bad[1].count = 2;
	snap_take(&s, &a);
	EXPECT_EQ(-ENOENT, hc_alloc_put(&a, bad, 2));
	EXPECT_TRUE(snap_same(&s, &a));

	/* The same extent twice in one list, out of range, empty. */
	bad[1] = e[0];
	bad[1].start += 9;
	bad[1].count = 1;
	EXPECT_EQ(-EINVAL, hc_alloc_put(&a, bad, 2));
	bad[1].start = 127;
	bad[1].count = 2;
	EXPECT_EQ(-EINVAL, hc_alloc_put(&a, bad + 1, 1));
	bad[1].count = 0;
	EXPECT_EQ(-EINVAL, hc_alloc_put(&a, bad + 1, 1));
	EXPECT_EQ(5, a.bad_puts);
	EXPECT_EQ(118, hc_alloc_free(&a));
	EXPECT_EQ(0, hc_alloc_put(&a, e, 0));
	EXPECT_EQ(0, hc_alloc_put(&a, e, 1));
	EXPECT_EQ(128, hc_alloc_free(&a));
}

TEST(claim_conflicts)
{
	struct hc_alloc a;
	struct hc_ext e[3] = { { 0, 10 }, { 64, 70 }, { 200, 1 } };
	struct hc_ext clash[2] = { { 150, 5 }, { 5, 10 } };
	struct hc_ext self_overlap[2] = { { 150, 5 }, { 154, 2 } };
	struct hc_ext beyond = { 250, 7 };
	struct snap s;
	u64 w[4];

	ASSERT_EQ(0, hc_alloc_init(&a, 256, 4, w));
	ASSERT_EQ(0, hc_alloc_claim(&a, e, 3));
	EXPECT_EQ(256 - 81, hc_alloc_free(&a));
	EXPECT_TRUE(hc_alloc_used(&a, 133));
	EXPECT_FALSE(hc_alloc_used(&a, 134));

	snap_take(&s, &a);
	EXPECT_EQ(-EEXIST, hc_alloc_claim(&a, clash, 2));
	EXPECT_EQ(-EEXIST, hc_alloc_claim(&a, e + 2, 1));
	EXPECT_EQ(-EINVAL, hc_alloc_claim(&a, self_overlap, 2));
	EXPECT_EQ(-EINVAL, hc_alloc_claim(&a, &beyond, 1));
	EXPECT_EQ(-EINVAL, hc_alloc_claim(&a, e, HC_MAX_EXTENTS + 1));
	EXPECT_TRUE(snap_same(&s, &a));
	EXPECT_FALSE(hc_alloc_used(&a, 150));

	/* Claimed space is never handed out. */
	for (;;) {
		struct hc_ext g;
		u32 n;

		if (hc_alloc_get(&a, 1, 0, &g, 1, &n))
			break;
		EXPECT_TRUE(g.start >= 10 && (g.start < 64 || g.start >= 134) &&
			    g.start != 200);
	}
	EXPECT_EQ(0, hc_alloc_free(&a));
}

/* A large pool, almost full: the one free run at the end is found. */
TEST(million_chunks)
{
	const u64 nr = 1ULL << 20;
	struct hc_alloc a;
	struct hc_ext e[2], big = { 0, nr - 1000 };
	u32 n = 0;
	u64 *w;

	w = new_alloc(&a, nr, 5);
	ASSERT_NE(NULL, w);
	ASSERT_EQ(0, hc_alloc_claim(&a, &big, 1));
	ASSERT_EQ(0, hc_alloc_get(&a, 900, 3, e, 2, &n));
	ASSERT_EQ(1, n);
	EXPECT_EQ(3, e[0].start % 5);
	EXPECT_LE(nr - 1000, e[0].start);
	EXPECT_EQ(100, hc_alloc_free(&a));
	free(w);
}

static u64 rnd_state = 0x9e3779b97f4a7c15ULL;

static u64 rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

#define POOL	5003
#define LIVE	256

struct obj {
	struct hc_ext ext[HC_MAX_EXTENTS];
	u32 nr_ext;
	u64 nr;
};

/* Random allocs and frees: never a chunk twice, free count always right. */
TEST(random_workload_vs_shadow)
{
	static struct obj live[LIVE];
	static bool shadow[POOL];
	struct hc_alloc a;
	u64 shadow_free = POOL, *w;
	u32 nlive = 0, ok = 0, nospc = 0, toobig = 0;
	int op;

	w = new_alloc(&a, POOL, 3);
	ASSERT_NE(NULL, w);
	for (op = 0; op < 40000; op++) {
		if (nlive < LIVE && (nlive == 0 || rnd() % 100 < 55)) {
			struct obj *o = &live[nlive];
			u32 max = 1 + rnd() % HC_MAX_EXTENTS, i;
			u64 got = 0;
			int err;

			o->nr = 1 + rnd() % 120;
			err = hc_alloc_get(&a, o->nr, rnd() % 3, o->ext, max,
					   &o->nr_ext);
			if (err == -ENOSPC) {
				ASSERT_LT(shadow_free, o->nr);
				nospc++;
				continue;
			}
			if (err == -E2BIG) {
				toobig++;
				continue;
			}
			ASSERT_EQ(0, err);
			ASSERT_LE(1, o->nr_ext);
			ASSERT_GE(max, o->nr_ext);
			for (i = 0; i < o->nr_ext; i++) {
				for (u64 c = 0; c < o->ext[i].count; c++) {
					u64 v = o->ext[i].start + c;

					ASSERT_GT(POOL, v);
					ASSERT_FALSE(shadow[v]);
					shadow[v] = true;
				}
				got += o->ext[i].count;
			}
			ASSERT_EQ(o->nr, got);
			shadow_free -= got;
			nlive++;
			ok++;
		} else {
			u32 k = rnd() % nlive, i;

			ASSERT_EQ(0, hc_alloc_put(&a, live[k].ext,
						  live[k].nr_ext));
			for (i = 0; i < live[k].nr_ext; i++)
				for (u64 c = 0; c < live[k].ext[i].count; c++)
					shadow[live[k].ext[i].start + c] = false;
			shadow_free += live[k].nr;
			live[k] = live[--nlive];
		}
		ASSERT_EQ(shadow_free, hc_alloc_free(&a));
		if (op % 997 == 0)
			for (u64 v = 0; v < POOL; v++)
				ASSERT_EQ(shadow[v], hc_alloc_used(&a, v));
	}
	TH_LOG("%u allocations, %u ENOSPC, %u E2BIG", ok, nospc, toobig);
	EXPECT_LT(1000, ok);
	while (nlive) {
		nlive--;
		ASSERT_EQ(0, hc_alloc_put(&a, live[nlive].ext,
					  live[nlive].nr_ext));
	}
	EXPECT_EQ(POOL, hc_alloc_free(&a));
	EXPECT_EQ(0, a.bad_puts);
	for (u64 v = 0; v < POOL; v++)
		ASSERT_FALSE(hc_alloc_used(&a, v));
	free(w);
}

TEST_HARNESS_MAIN
