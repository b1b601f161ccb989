// SPDX-License-Identifier: GPL-2.0
/*
 * The ghost of rejected candidates: sizing, a key remembered for one to two
 * lives of misses and then forgotten, false positives bounded by the
 * table's load, and bad tables refused.
 */
#include <stdlib.h>
#include "kselftest_harness.h"
#include "ghost.h"

TEST(sizing)
{
	EXPECT_EQ(16, hc_ghost_bytes(0));	/* two generations of 64 bits */
	EXPECT_EQ(16, hc_ghost_bytes(8));
	EXPECT_EQ(32, hc_ghost_bytes(9));
	EXPECT_EQ(2 * 1024, hc_ghost_bytes(1024));
}

TEST(init_rejects)
{
	u64 table[4];
	struct hc_ghost g;

	EXPECT_EQ(-EINVAL, hc_ghost_init(&g, NULL, sizeof(table), 10));
	EXPECT_EQ(-EINVAL, hc_ghost_init(&g, (char *)table + 1, 16, 10));
	EXPECT_EQ(-EINVAL, hc_ghost_init(&g, table, 15, 10));
	EXPECT_EQ(-EINVAL, hc_ghost_init(&g, table, sizeof(table), 0));
	EXPECT_EQ(0, hc_ghost_init(&g, table, sizeof(table), 10));
	EXPECT_EQ(127, g.mask);		/* 32 bytes: 2 x 128 bits */
}

/* Added in one life: still there after the next turn, gone after two. */
TEST(one_to_two_lives)
{
	size_t bytes = hc_ghost_bytes(1024);
	void *table = malloc(bytes);
	struct hc_ghost g;

	ASSERT_NE(NULL, table);
	ASSERT_EQ(0, hc_ghost_init(&g, table, bytes, 100));
	EXPECT_FALSE(hc_ghost_has(&g, 42));
	hc_ghost_add(&g, 42);
	EXPECT_TRUE(hc_ghost_has(&g, 42));
	hc_ghost_tick(&g, 99);
	EXPECT_EQ(0, g.turns);
	hc_ghost_tick(&g, 1);			/* first turn: the older */
	EXPECT_EQ(1, g.turns);
	EXPECT_TRUE(hc_ghost_has(&g, 42));
	hc_ghost_add(&g, 7);			/* in the new generation */
	hc_ghost_tick(&g, 250);			/* a heavy miss turns once */
	EXPECT_EQ(2, g.turns);
	EXPECT_FALSE(hc_ghost_has(&g, 42));
	EXPECT_TRUE(hc_ghost_has(&g, 7));
	hc_ghost_tick(&g, 100);
	EXPECT_FALSE(hc_ghost_has(&g, 7));
	free(table);
}

/* A full life of keys at the sizing: false positives stay near 1 in 8. */
TEST(false_positives_bounded)
{
	const u64 keys = 4096;
	size_t bytes = hc_ghost_bytes(keys);
	void *table = malloc(bytes);
	struct hc_ghost g;
	u64 k, fp = 0;

	ASSERT_NE(NULL, table);
	ASSERT_EQ(0, hc_ghost_init(&g, table, bytes, keys));
	for (k = 0; k < keys; k++)
		hc_ghost_add(&g, k);
	for (k = 0; k < keys; k++)
		ASSERT_TRUE(hc_ghost_has(&g, k));
	for (k = 1000000; k < 1000000 + 10 * keys; k++)
		fp += hc_ghost_has(&g, k);
	TH_LOG("%llu false positives in %llu", (unsigned long long)fp,
	       (unsigned long long)(10 * keys));
	EXPECT_LE(fp * 6, 10 * keys);		/* at most 1 in 6 */
	free(table);
}

TEST_HARNESS_MAIN
