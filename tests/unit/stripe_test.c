// SPDX-License-Identifier: GPL-2.0
/*
 * Stripe geometry: chunk v on member v mod N at member chunk v div N.
 */
#include <stdlib.h>
#include "kselftest_harness.h"
#include "stripe.h"

#define CHUNK		(4U << 20)
#define CHUNK_SECT	(CHUNK >> 9)
#define DATA_OFF	(8ULL << 20)

FIXTURE(stripe) {
	struct hc_stripe s;
};

FIXTURE_VARIANT(stripe) {
	u32 members;
	u64 member_chunks;
};

FIXTURE_VARIANT_ADD(stripe, one) { .members = 1, .member_chunks = 17 };
FIXTURE_VARIANT_ADD(stripe, two) { .members = 2, .member_chunks = 9 };
FIXTURE_VARIANT_ADD(stripe, three) { .members = 3, .member_chunks = 7 };
FIXTURE_VARIANT_ADD(stripe, four) { .members = 4, .member_chunks = 5 };
FIXTURE_VARIANT_ADD(stripe, sixtyfour) { .members = 64, .member_chunks = 3 };

FIXTURE_SETUP(stripe)
{
	ASSERT_EQ(0, hc_stripe_init(&self->s, variant->members, CHUNK,
				    variant->member_chunks, DATA_OFF));
}

FIXTURE_TEARDOWN(stripe)
{
}

TEST_F(stripe, capacity)
{
	EXPECT_EQ(variant->members * variant->member_chunks,
		  hc_stripe_chunks(&self->s));
	EXPECT_EQ(variant->members * variant->member_chunks * CHUNK_SECT,
		  hc_stripe_sectors(&self->s));
}

/* Every chunk's first, middle and last sector lands where the rule says. */
TEST_F(stripe, map_every_chunk)
{
	u64 v, chunks = hc_stripe_chunks(&self->s);
	const u32 offs[] = { 0, 1, CHUNK_SECT / 2, CHUNK_SECT - 1 };

	for (v = 0; v < chunks; v++) {
		for (unsigned int i = 0; i < 4; i++) {
			struct hc_stripe_loc loc;
			u64 sector = v * CHUNK_SECT + offs[i];

			hc_stripe_map(&self->s, sector, &loc);
			ASSERT_EQ(v % variant->members, loc.member);
			ASSERT_EQ((DATA_OFF >> 9) +
				  (v / variant->members) * CHUNK_SECT + offs[i],
				  loc.sector);
			ASSERT_EQ(CHUNK_SECT - offs[i], loc.chunk_left);
		}
	}
}

/* unmap() inverts map() for every chunk boundary neighbourhood. */
TEST_F(stripe, unmap_inverts_map)
{
	u64 sectors = hc_stripe_sectors(&self->s);
	u64 sector, back;

	srandom(42);
	for (int i = 0; i < 20000; i++) {
		struct hc_stripe_loc loc;

		sector = ((u64)random() << 31 ^ random()) % sectors;
		hc_stripe_map(&self->s, sector, &loc);
		ASSERT_EQ(0, hc_stripe_unmap(&self->s, loc.member, loc.sector,
					     &back));
		ASSERT_EQ(sector, back);
	}
}

TEST_F(stripe, unmap_out_of_range)
{
	u64 back, end = (DATA_OFF >> 9) + variant->member_chunks * CHUNK_SECT;

	EXPECT_EQ(-ERANGE, hc_stripe_unmap(&self->s, 0, 0, &back));
	EXPECT_EQ(-ERANGE, hc_stripe_unmap(&self->s, 0, (DATA_OFF >> 9) - 1,
					   &back));
	EXPECT_EQ(-ERANGE, hc_stripe_unmap(&self->s, 0, end, &back));
	EXPECT_EQ(0, hc_stripe_unmap(&self->s, 0, end - 1, &back));
	EXPECT_EQ(-ERANGE, hc_stripe_unmap(&self->s, variant->members,
					   DATA_OFF >> 9, &back));
}

TEST(init_rejects_bad_geometry)
{
	struct hc_stripe s;

	EXPECT_EQ(-EINVAL, hc_stripe_init(&s, 0, CHUNK, 1, DATA_OFF));
	EXPECT_EQ(-EINVAL, hc_stripe_init(&s, 65, CHUNK, 1, DATA_OFF));
	EXPECT_EQ(-EINVAL, hc_stripe_init(&s, 2, CHUNK + 4096, 1, DATA_OFF));
	EXPECT_EQ(-EINVAL, hc_stripe_init(&s, 2, 32768, 1, DATA_OFF));
	EXPECT_EQ(-EINVAL, hc_stripe_init(&s, 2, 2U << 30, 1, DATA_OFF));
	EXPECT_EQ(-EINVAL, hc_stripe_init(&s, 2, CHUNK, 0, DATA_OFF));
	EXPECT_EQ(-EINVAL, hc_stripe_init(&s, 2, CHUNK, 1, DATA_OFF + 4096));
	/* The capacity in bytes must fit in 64 bits. */
	EXPECT_EQ(-EINVAL, hc_stripe_init(&s, 64, CHUNK, 1ULL << 40, DATA_OFF));
	EXPECT_EQ(0, hc_stripe_init(&s, 64, CHUNK, 1ULL << 30, DATA_OFF));
}

/* A chunk never straddles: the last sector of a chunk has 1 sector left. */
TEST(chunk_left_at_boundaries)
{
	struct hc_stripe s;
	struct hc_stripe_loc a, b;

	ASSERT_EQ(0, hc_stripe_init(&s, 3, CHUNK, 4, DATA_OFF));
	hc_stripe_map(&s, CHUNK_SECT - 1, &a);
	hc_stripe_map(&s, CHUNK_SECT, &b);
	EXPECT_EQ(1, a.chunk_left);
	EXPECT_EQ(0, a.member);
	EXPECT_EQ(1, b.member);
	EXPECT_EQ(DATA_OFF >> 9, b.sector);
	EXPECT_EQ(CHUNK_SECT, b.chunk_left);
}

TEST_HARNESS_MAIN
