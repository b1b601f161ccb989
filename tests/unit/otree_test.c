// SPDX-License-Identifier: GPL-2.0
/*
 * The ordered tree (kmod/core/otree.c): order, equal items in insertion
 * order, ceil/next as a sorted array answers them, the walk that removes
 * as it goes, the reserve (an insert without it changes nothing), the
 * fill bound whatever the order of inserts (ascending, descending, into
 * one gap, random) and a long random workload against a sorted shadow,
 * the structure checked after every step.
 */
#include <stdio.h>
#include <stdlib.h>
#include "kselftest_harness.h"
#include "otree.h"

struct item {
	u32 key;
	u32 serial;
};

static int item_cmp(const void *item, const void *key)
{
	u32 a = ((const struct item *)item)->key, b = *(const u32 *)key;

	return a < b ? -1 : a > b;
}

static int item_order(const void *a, const void *b)
{
	return item_cmp(a, &((const struct item *)b)->key);
}

static const struct hc_otree_ops ops = {
	.cmp = item_cmp,
	.order = item_order,
};

static u64 rng = 88172645463325252ull;

static u32 rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (u32)(rng >> 11);
}

static void fill_reserve(struct hc_otree *t)
{
	while (hc_otree_reserve_needed(t))
		hc_otree_give(t, malloc(sizeof(struct hc_otree_node)));
}

static void drain(struct hc_otree *t, u32 keep)
{
	struct hc_otree_node *n;

	while ((n = hc_otree_take(t, keep)))
		free(n);
}

static int add(struct hc_otree *t, struct item *it)
{
	fill_reserve(t);
	return hc_otree_insert(t, it, &it->key);
}

static int check(const struct hc_otree *t)
{
	const char *why;
	int err = hc_otree_check(t, &why);

	if (err)
		fprintf(stderr, "# otree: %s\n", why);
	return err;
}

/* The tree's bytes (nodes) per item. */
static double per_item(const struct hc_otree *t)
{
	return (double)t->nodes * HC_OTREE_NODE_BYTES / t->items;
}

TEST(node_is_its_size)
{
	EXPECT_EQ(HC_OTREE_NODE_BYTES, sizeof(struct hc_otree_node));
	EXPECT_EQ(63, HC_OTREE_SLOTS);
}

TEST(empty)
{
	struct hc_otree t;
	u32 k = 5;

	hc_otree_init(&t, &ops);
	EXPECT_EQ(NULL, hc_otree_first(&t));
	EXPECT_EQ(NULL, hc_otree_ceil(&t, &k, false));
	EXPECT_EQ(-ENOENT, hc_otree_remove(&t, &k, &k));
	EXPECT_EQ(1, hc_otree_reserve_needed(&t));
	EXPECT_EQ(0, check(&t));
}

/* Without its reserve an insert is refused and changes nothing. */
TEST(insert_needs_reserve)
{
	struct item it[200], more = { .key = 1000 };
	struct hc_otree t;
	u32 i;

	hc_otree_init(&t, &ops);
	EXPECT_EQ(-ENOMEM, hc_otree_insert(&t, &more, &more.key));
	EXPECT_EQ(0, t.items);
	for (i = 0; i < 200; i++) {
		it[i].key = i;
		ASSERT_EQ(0, add(&t, &it[i]));
	}
	drain(&t, 0);
	EXPECT_EQ(2, t.depth);
	EXPECT_EQ(3, hc_otree_reserve_needed(&t));
	EXPECT_EQ(-ENOMEM, hc_otree_insert(&t, &more, &more.key));
	EXPECT_EQ(200, t.items);
	EXPECT_EQ(0, check(&t));
	hc_otree_clear(&t);
	EXPECT_EQ(0, t.nodes);
	EXPECT_GE(t.nr_spare, 4);
	drain(&t, 0);
}

/* Equal items stay in insertion order; ceil and next as documented. */
TEST(equal_items_and_steps)
{
	struct item it[300];
	struct hc_otree t;
	struct item *p;
	u32 i, k;

	hc_otree_init(&t, &ops);
	for (i = 0; i < 300; i++) {
		it[i].key = (i % 3) * 10;	/* 0, 10, 20: 100 of each */
		it[i].serial = i;
		ASSERT_EQ(0, add(&t, &it[i]));
	}
	ASSERT_EQ(0, check(&t));
	p = hc_otree_first(&t);
	for (i = 0; i < 300; i++) {
		ASSERT_NE(NULL, p);
		EXPECT_EQ((i / 100) * 10, p->key);
		EXPECT_EQ((i / 100) + (i % 100) * 3, p->serial);
		p = hc_otree_next(&t, p, &p->key);
	}
	EXPECT_EQ(NULL, p);
	k = 10;
	p = hc_otree_ceil(&t, &k, false);
	EXPECT_EQ(1, p->serial);
	p = hc_otree_ceil(&t, &k, true);
	EXPECT_EQ(2, p->serial);
	k = 11;
	EXPECT_EQ(2, ((struct item *)hc_otree_ceil(&t, &k, false))->serial);
	k = 20;
	EXPECT_EQ(NULL, hc_otree_ceil(&t, &k, true));
	/* remove a middle equal one: the others keep their order */
	k = 10;
	EXPECT_EQ(0, hc_otree_remove(&t, &it[151], &k));
	EXPECT_EQ(-ENOENT, hc_otree_remove(&t, &it[151], &k));
	k = 0;
	EXPECT_EQ(-ENOENT, hc_otree_remove(&t, &it[154], &k)); /* wrong key */
	EXPECT_EQ(0, check(&t));
	p = hc_otree_ceil(&t, &it[148].key, false);
	for (i = 0; p && p->key == 10; i++)
		p = hc_otree_next(&t, p, &p->key);
	EXPECT_EQ(99, i);
	hc_otree_clear(&t);
	drain(&t, 0);
}

/* The kernel's walk: the next item taken before the current is removed. */
TEST(walk_removing)
{
	static struct item it[5000];
	struct hc_otree t;
	struct item *p, *tmp;
	u32 i, seen = 0;

	hc_otree_init(&t, &ops);
	for (i = 0; i < 5000; i++) {
		it[i].key = rnd() % 2000;
		ASSERT_EQ(0, add(&t, &it[i]));
	}
	for (p = hc_otree_first(&t); p; p = tmp) {
		tmp = hc_otree_next(&t, p, &p->key);
		seen++;
		if (p->key % 3)
			ASSERT_EQ(0, hc_otree_remove(&t, p, &p->key));
	}
	EXPECT_EQ(5000, seen);
	EXPECT_EQ(0, check(&t));
	for (p = hc_otree_first(&t), seen = 0; p; p = tmp) {
		tmp = hc_otree_next(&t, p, &p->key);
		EXPECT_EQ(0, p->key % 3);
		ASSERT_EQ(0, hc_otree_remove(&t, p, &p->key));
		seen++;
	}
	EXPECT_EQ(0, t.items);
	EXPECT_EQ(0, t.nodes);
	EXPECT_EQ(NULL, t.root);
	EXPECT_EQ(0, check(&t));
	drain(&t, 0);
	(void)seen;
}

static void insert_order(struct __test_metadata *_metadata, u32 n,
			 u32 (*key)(u32 i, u32 n), double bound,
			 const char *name)
{
	struct item *it = calloc(n, sizeof(*it));
	struct hc_otree t;
	u32 i;

	ASSERT_NE(NULL, it);
	hc_otree_init(&t, &ops);
	for (i = 0; i < n; i++) {
		it[i].key = key(i, n);
		ASSERT_EQ(0, add(&t, &it[i]));
	}
	ASSERT_EQ(0, check(&t));
	fprintf(stderr, "# %s: %u items, %.2f bytes an item, depth %u\n",
		name, n, per_item(&t), t.depth);
	EXPECT_LE(per_item(&t), bound);
	hc_otree_clear(&t);
	drain(&t, 0);
	free(it);
}

static u32 ascending(u32 i, u32 n) { return i; }
static u32 descending(u32 i, u32 n) { return n - i; }
static u32 random_key(u32 i, u32 n) { return rnd(); }
/* every key into the gap just after one leaf's last item */
static u32 one_gap(u32 i, u32 n) { return i < n / 2 ? 2 * i : n - 1 - 2 * (i - n / 2); }

TEST(fill_whatever_the_order)
{
	/* 8 bytes a slot: full leaves give 8.1, half full ones 16.3 */
	insert_order(_metadata, 200000, ascending, 8.4, "ascending");
	insert_order(_metadata, 200000, descending, 16.8, "descending");
	insert_order(_metadata, 200000, one_gap, 16.8, "one gap");
	insert_order(_metadata, 200000, random_key, 11.0, "random");
}

/* Removals keep every node but its level's last at least half full. */
TEST(fill_after_removals)
{
	static struct item it[100000];
	struct hc_otree t;
	u32 i;

	hc_otree_init(&t, &ops);
	for (i = 0; i < 100000; i++) {
		it[i].key = rnd();
		ASSERT_EQ(0, add(&t, &it[i]));
	}
	for (i = 0; i < 100000; i++)
		if (i % 10)
			ASSERT_EQ(0, hc_otree_remove(&t, &it[i], &it[i].key));
	ASSERT_EQ(0, check(&t));
	fprintf(stderr, "# a tenth left: %.2f bytes an item\n", per_item(&t));
	EXPECT_LE(per_item(&t), 16.8);
	drain(&t, 0);
	hc_otree_clear(&t);
	drain(&t, 0);
}

/* A sorted array of the same items, in the same order. */
struct shadow {
	struct item **v;
	u32 n;
};

static u32 shadow_upper(const struct shadow *s, u32 key)
{
	u32 lo = 0, hi = s->n;

	while (lo < hi) {
		u32 mid = (lo + hi) / 2;

		if (s->v[mid]->key <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static u32 shadow_lower(const struct shadow *s, u32 key)
{
	u32 lo = 0, hi = s->n;

	while (lo < hi) {
		u32 mid = (lo + hi) / 2;

		if (s->v[mid]->key < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

TEST(random_workload_vs_shadow)
{
	enum { N = 20000, STEPS = 200000 };
	struct item *it = calloc(N, sizeof(*it));
	struct shadow s = { .v = calloc(N, sizeof(struct item *)) };
	bool *in = calloc(N, sizeof(bool));
	struct hc_otree t;
	u32 step, i, j, k, range = 4000;

	ASSERT_NE(NULL, it);
	hc_otree_init(&t, &ops);
	for (i = 0; i < N; i++)
		it[i].serial = i;
	for (step = 0; step < STEPS; step++) {
		u32 op = rnd() % 8;
		struct item *p;

		if (step % 50000 == 0)
			range = step % 100000 ? 400 : 40000;
		i = rnd() % N;
		if (op < 4 && !in[i]) {
			it[i].key = rnd() % range;
			ASSERT_EQ(0, add(&t, &it[i]));
			j = shadow_upper(&s, it[i].key);
			memmove(&s.v[j + 1], &s.v[j], (s.n - j) * sizeof(*s.v));
			s.v[j] = &it[i];
			s.n++;
			in[i] = true;
		} else if (op < 7 && in[i]) {
			ASSERT_EQ(0, hc_otree_remove(&t, &it[i], &it[i].key));
			for (j = shadow_lower(&s, it[i].key); s.v[j] != &it[i]; j++)
				;
			memmove(&s.v[j], &s.v[j + 1], (s.n - j - 1) * sizeof(*s.v));
			s.n--;
			in[i] = false;
			drain(&t, 4);
		} else {
			bool strict = rnd() & 1;

			k = rnd() % range;
			p = hc_otree_ceil(&t, &k, strict);
			j = strict ? shadow_upper(&s, k) : shadow_lower(&s, k);
			ASSERT_EQ(j < s.n ? s.v[j] : NULL, p);
			/* a few steps on */
			for (; p && j < s.n && j % 7; j++) {
				p = hc_otree_next(&t, p, &p->key);
				ASSERT_EQ(j + 1 < s.n ? s.v[j + 1] : NULL, p);
			}
		}
		ASSERT_EQ(s.n, t.items);
		if (step % 97 == 0 || step > STEPS - 100)
			ASSERT_EQ(0, check(&t));
	}
	/* a full walk matches */
	{
		struct item *p = hc_otree_first(&t);

		for (j = 0; j < s.n; j++) {
			ASSERT_EQ(s.v[j], p);
			p = hc_otree_next(&t, p, &p->key);
		}
		EXPECT_EQ(NULL, p);
	}
	hc_otree_clear(&t);
	EXPECT_EQ(0, check(&t));
	drain(&t, 0);
	free(it);
	free(s.v);
	free(in);
}

TEST_HARNESS_MAIN
