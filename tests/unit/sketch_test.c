// SPDX-License-Identifier: GPL-2.0
/*
 * Count-min sketch: sizing, estimates never below the truth, saturation,
 * halving, and the doorkeeper in front.
 */
#include <stdlib.h>
#include "kselftest_harness.h"
#include "sketch.h"

#define CAP	1024

FIXTURE(sketch) {
	struct hc_sketch s;
	void *table;
};

FIXTURE_SETUP(sketch)
{
	size_t bytes = hc_sketch_bytes(CAP);

	ASSERT_EQ(4 * CAP, bytes);
	self->table = malloc(bytes);
	ASSERT_NE(NULL, self->table);
	ASSERT_EQ(0, hc_sketch_init(&self->s, self->table, bytes));
	ASSERT_EQ(CAP, hc_sketch_width(&self->s));
	ASSERT_EQ(10 * CAP, self->s.sample);
}

FIXTURE_TEARDOWN(sketch)
{
	free(self->table);
}

TEST(sizing)
{
	u64 buf[64];
	struct hc_sketch s;

	EXPECT_EQ(4 * 64, hc_sketch_bytes(0));
	EXPECT_EQ(4 * 64, hc_sketch_bytes(64));
	EXPECT_EQ(4 * 128, hc_sketch_bytes(65));
	EXPECT_EQ(0, hc_sketch_bytes((1ULL << 32) + 1));
	EXPECT_EQ(-EINVAL, hc_sketch_init(&s, buf, 255));
	EXPECT_EQ(-EINVAL, hc_sketch_init(&s, (char *)buf + 1, 256));
	EXPECT_EQ(-EINVAL, hc_sketch_init(&s, NULL, 256));
	/* A larger table than asked for: the largest width that fits. */
	EXPECT_EQ(0, hc_sketch_init(&s, buf, sizeof(buf)));
	EXPECT_EQ(128, hc_sketch_width(&s));
}

/* The first sighting only sets the doorkeeper; the second reaches a counter. */
TEST_F(sketch, doorkeeper)
{
	EXPECT_EQ(0, hc_sketch_frequency(&self->s, 42));
	hc_sketch_add(&self->s, 42);
	EXPECT_EQ(1, hc_sketch_frequency(&self->s, 42));
	/* No row counter moved: the whole rows are still zero. */
	for (u64 i = 0; i < HC_SKETCH_ROWS * (u64)self->s.row_words; i++) {
		ASSERT_EQ(0, self->s.rows[i]);
	}
	hc_sketch_add(&self->s, 42);
	EXPECT_EQ(2, hc_sketch_frequency(&self->s, 42));
	EXPECT_EQ(0, hc_sketch_frequency(&self->s, 43));
}

/* Estimates are never below the true count, and saturate at 15 + 1. */
TEST_F(sketch, estimates_bound_truth)
{
	static u32 truth[CAP / 2];
	u32 over = 0;

	srandom(7);
	memset(truth, 0, sizeof(truth));
	/* Fewer additions than the sample: no halving in between. */
	for (int i = 0; i < 8 * CAP; i++) {
		u32 k = random() % (CAP / 2);

		k = (k * k) % (CAP / 2);	/* skewed */
		hc_sketch_add(&self->s, k);
		truth[k]++;
	}
	ASSERT_EQ(0, self->s.resets);
	for (u32 k = 0; k < CAP / 2; k++) {
		u32 f = hc_sketch_frequency(&self->s, k);
		u32 t = truth[k] < HC_SKETCH_FREQ_MAX ? truth[k] : HC_SKETCH_FREQ_MAX;

		ASSERT_GE(f, t);
		ASSERT_LE(f, HC_SKETCH_FREQ_MAX);
		over += f - t;
	}
	/* Collisions are rare at half the capacity. */
	EXPECT_LT(over, CAP / 8);

	for (int i = 0; i < 100; i++)
		hc_sketch_add(&self->s, 1ULL << 40);
	EXPECT_EQ(HC_SKETCH_FREQ_MAX, hc_sketch_frequency(&self->s, 1ULL << 40));
}

/* Every counter halves and the doorkeeper empties, on demand... */
TEST_F(sketch, reset_halves)
{
	u64 n = HC_SKETCH_ROWS * (u64)self->s.row_words;
	u64 *before = malloc(n * sizeof(u64));
	u64 keys = 300;

	ASSERT_NE(NULL, before);
	for (u64 k = 0; k < keys; k++)
		for (u64 i = 0; i <= k % 20; i++)
			hc_sketch_add(&self->s, k);
	memcpy(before, self->s.rows, n * sizeof(u64));
	hc_sketch_reset(&self->s);
	EXPECT_EQ(1, self->s.resets);
	for (u64 i = 0; i < n; i++) {
		for (int c = 0; c < 16; c++) {
			ASSERT_EQ(((before[i] >> (4 * c)) & 0xf) / 2,
				  (self->s.rows[i] >> (4 * c)) & 0xf);
		}
	}
	for (u64 i = 0; i <= self->s.door_mask / 64; i++) {
		ASSERT_EQ(0, self->s.door[i]);
	}
	/* No doorkeeper bit any more: frequency is the halved counter only. */
	EXPECT_EQ(0, hc_sketch_frequency(&self->s, 0));
	/* Key 9: doorkeeper + 9 increments, halved to 4. */
	EXPECT_GE(hc_sketch_frequency(&self->s, 9), 4);
	EXPECT_LE(hc_sketch_frequency(&self->s, 9), 5);
	free(before);
}

/* ...and by itself after 10 x capacity additions. */
TEST_F(sketch, periodic_halving)
{
	u64 i;

	for (i = 0; i < 20; i++)
		hc_sketch_add(&self->s, 5);
	EXPECT_EQ(HC_SKETCH_FREQ_MAX, hc_sketch_frequency(&self->s, 5));
	for (i = 20; i < 10 * CAP - 1; i++)
		hc_sketch_add(&self->s, 1000000 + i);
	EXPECT_EQ(0, self->s.resets);
	hc_sketch_add(&self->s, 7);
	EXPECT_EQ(1, self->s.resets);
	EXPECT_EQ(5 * CAP, self->s.additions);
	/* 15 halves to 7, doorkeeper cleared. */
	EXPECT_EQ(7, hc_sketch_frequency(&self->s, 5));
}

TEST(mix_spreads)
{
	/* Neighbouring keys differ in about half their bits. */
	for (u64 k = 0; k < 1000; k++) {
		int d = __builtin_popcountll(hc_sketch_mix(k, 1) ^
					     hc_sketch_mix(k + 1, 1));

		ASSERT_GT(d, 10);
		ASSERT_LT(d, 54);
	}
}

TEST_HARNESS_MAIN
