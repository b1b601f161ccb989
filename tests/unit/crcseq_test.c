// SPDX-License-Identifier: GPL-2.0
/*
 * libhypercache's CRC-32C of pieces in any order (lib/crcseq.c), against
 * ISA-L's CRC of the whole: the combination at many cuts and lengths; a
 * sequence fed many small, unaligned pieces in order, shuffled within a
 * window (two or more writes in flight), and backwards; a piece missing
 * (a write that failed in flight) leaves no result until it is written;
 * an overlap, a piece past the size, or too many pieces ahead give none.
 */
#include <stdlib.h>
#include <isa-l/crc.h>
#include "kselftest_harness.h"
#include "crcseq.h"
#include "crccombine.h"

static uint32_t crc_of(const unsigned char *b, size_t n)
{
	return ~crc32_iscsi((unsigned char *)b, (int)n, ~0u);
}

static unsigned char *random_bytes(size_t n, unsigned int seed)
{
	unsigned char *b = malloc(n ? n : 1);

	srand(seed);
	for (size_t i = 0; b && i < n; i++)
		b[i] = (unsigned char)rand();
	return b;
}

TEST(combine_equals_whole)
{
	size_t n = 3 * 1024 * 1024 + 77;
	unsigned char *b = random_bytes(n, 7);
	size_t cuts[] = { 0, 1, 2, 3, 4, 7, 8, 9, 511, 4096, 65537, 1 << 20,
			  2 * 1024 * 1024 + 5, n - 1, n };

	ASSERT_NE(NULL, b);
	EXPECT_EQ(0xe3069283u, crc_of((const unsigned char *)"123456789", 9));
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		size_t c = cuts[i];

		EXPECT_EQ(crc_of(b, n),
			  hc_crc32c_combine(crc_of(b, c), crc_of(b + c, n - c),
					     n - c));
	}
	free(b);
}

/* Pieces of lengths from a seed: [off[k], off[k + 1]). */
static size_t cut(size_t n, size_t maxlen, unsigned int seed, size_t *off)
{
	size_t k = 0, o = 0;

	srand(seed);
	while (o < n) {
		off[k++] = o;
		o += 1 + (size_t)rand() % maxlen;
		if (o > n)
			o = n;
	}
	off[k] = n;
	return k;
}

static void add_piece(struct hcl_crcseq *s, const unsigned char *b,
		      const size_t *off, size_t k)
{
	hcl_crcseq_add(s, off[k], off[k + 1] - off[k],
		       crc_of(b + off[k], off[k + 1] - off[k]));
}

TEST(in_order_small_unaligned)
{
	size_t n = 5 * 1024 * 1024 + 3, *off = malloc((n + 1) * sizeof(*off));
	unsigned char *b = random_bytes(n, 11);
	struct hcl_crcseq s;
	uint32_t crc = 0;
	size_t k, nr;

	ASSERT_NE(NULL, b);
	ASSERT_NE(NULL, off);
	nr = cut(n, 9000, 3, off);
	hcl_crcseq_init(&s, 0);
	for (k = 0; k < nr; k++)
		add_piece(&s, b, off, k);
	ASSERT_EQ(1, hcl_crcseq_result(&s, n, &crc));
	EXPECT_EQ(crc_of(b, n), crc);
	EXPECT_EQ(0, hcl_crcseq_result(&s, n - 1, &crc));
	free(off);
	free(b);
}

/* Each window of W pieces arrives in a random order (W writes in flight). */
TEST(shuffled_in_flight)
{
	size_t n = 4 * 1024 * 1024 + 4097, *off = malloc((n + 1) * sizeof(*off));
	unsigned char *b = random_bytes(n, 12);
	size_t w, k, nr, order[64];
	struct hcl_crcseq s;
	uint32_t crc = 0;

	ASSERT_NE(NULL, b);
	ASSERT_NE(NULL, off);
	nr = cut(n, 70000, 5, off);
	for (w = 2; w <= HCL_CRCSEQ_MAX; w *= 2) {
		hcl_crcseq_init(&s, 0);
		for (k = 0; k < nr; k += w) {
			size_t m = nr - k < w ? nr - k : w;

			for (size_t i = 0; i < m; i++)
				order[i] = k + i;
			for (size_t i = m; i > 1; i--) {
				size_t j = (size_t)rand() % i, t = order[i - 1];

				order[i - 1] = order[j];
				order[j] = t;
			}
			for (size_t i = 0; i < m; i++)
				add_piece(&s, b, off, order[i]);
		}
		ASSERT_EQ(1, hcl_crcseq_result(&s, n, &crc));
		EXPECT_EQ(crc_of(b, n), crc);
	}
	free(off);
	free(b);
}

/* Backwards: every piece touches the one after it, the list stays short. */
TEST(backwards)
{
	size_t n = 1024 * 1024 + 1, *off = malloc((n + 1) * sizeof(*off));
	unsigned char *b = random_bytes(n, 13);
	struct hcl_crcseq s;
	uint32_t crc = 0;
	size_t nr;

	ASSERT_NE(NULL, b);
	ASSERT_NE(NULL, off);
	nr = cut(n, 3000, 9, off);
	ASSERT_GT(nr, HCL_CRCSEQ_MAX * 2);
	hcl_crcseq_init(&s, 0);
	for (size_t k = nr; k-- > 0;) {
		add_piece(&s, b, off, k);
		EXPECT_LE(s.nr, 1u);
	}
	ASSERT_EQ(1, hcl_crcseq_result(&s, n, &crc));
	EXPECT_EQ(crc_of(b, n), crc);
	free(off);
	free(b);
}

/* Piece 1 of 4 fails in flight: no CRC until it is written again. */
TEST(write_error_in_flight)
{
	size_t n = 64 * 1024 + 5, off[] = { 0, 16384, 32768, 49152, n };
	unsigned char *b = random_bytes(n, 14);
	struct hcl_crcseq s;
	uint32_t crc = 0;

	ASSERT_NE(NULL, b);
	hcl_crcseq_init(&s, 0);
	add_piece(&s, b, off, 0);
	add_piece(&s, b, off, 2);
	add_piece(&s, b, off, 3);
	EXPECT_EQ(0, hcl_crcseq_result(&s, n, &crc));
	EXPECT_EQ(16384u, s.pos);
	add_piece(&s, b, off, 1);	/* the retry */
	ASSERT_EQ(1, hcl_crcseq_result(&s, n, &crc));
	EXPECT_EQ(crc_of(b, n), crc);
	free(b);
}

TEST(overlap_breaks)
{
	unsigned char b[100] = { 1, 2, 3 };
	struct hcl_crcseq s;
	uint32_t crc;

	/* a rewrite of bytes already folded */
	hcl_crcseq_init(&s, 0);
	hcl_crcseq_add(&s, 0, 50, crc_of(b, 50));
	hcl_crcseq_add(&s, 10, 10, crc_of(b + 10, 10));
	hcl_crcseq_add(&s, 50, 50, crc_of(b + 50, 50));
	EXPECT_EQ(0, hcl_crcseq_result(&s, 100, &crc));
	/* two pieces ahead that overlap each other */
	hcl_crcseq_init(&s, 0);
	hcl_crcseq_add(&s, 60, 20, crc_of(b + 60, 20));
	hcl_crcseq_add(&s, 50, 11, crc_of(b + 50, 11));
	hcl_crcseq_add(&s, 0, 50, crc_of(b, 50));
	hcl_crcseq_add(&s, 80, 20, crc_of(b + 80, 20));
	EXPECT_EQ(0, hcl_crcseq_result(&s, 100, &crc));
	/* broken from the start (HC_CREATE_NO_CRC) */
	hcl_crcseq_init(&s, 1);
	hcl_crcseq_add(&s, 0, 100, crc_of(b, 100));
	EXPECT_EQ(0, hcl_crcseq_result(&s, 100, &crc));
	/* zero-length pieces change nothing */
	hcl_crcseq_init(&s, 0);
	hcl_crcseq_add(&s, 7, 0, 0);
	hcl_crcseq_add(&s, 0, 100, crc_of(b, 100));
	ASSERT_EQ(1, hcl_crcseq_result(&s, 100, &crc));
	EXPECT_EQ(crc_of(b, 100), crc);
	/* an empty object */
	hcl_crcseq_init(&s, 0);
	ASSERT_EQ(1, hcl_crcseq_result(&s, 0, &crc));
	EXPECT_EQ(0u, crc);
}

TEST(too_many_ahead)
{
	unsigned char b[4 * (HCL_CRCSEQ_MAX + 2)];
	struct hcl_crcseq s;
	uint32_t crc;
	unsigned int k;

	for (k = 0; k < sizeof(b); k++)
		b[k] = (unsigned char)(k * 7);
	/* every other 2-byte piece ahead: none adjacent, one too many */
	hcl_crcseq_init(&s, 0);
	for (k = 1; k <= HCL_CRCSEQ_MAX + 1; k++)
		hcl_crcseq_add(&s, 4 * k, 2, crc_of(b + 4 * k, 2));
	EXPECT_EQ(1, s.broken);
	/* as many as it keeps: fine once the gaps are filled */
	hcl_crcseq_init(&s, 0);
	for (k = 1; k <= HCL_CRCSEQ_MAX; k++)
		hcl_crcseq_add(&s, 4 * k, 2, crc_of(b + 4 * k, 2));
	EXPECT_EQ(0, s.broken);
	hcl_crcseq_add(&s, 0, 4, crc_of(b, 4));
	for (k = 1; k <= HCL_CRCSEQ_MAX; k++)
		hcl_crcseq_add(&s, 4 * k + 2, 2, crc_of(b + 4 * k + 2, 2));
	ASSERT_EQ(1, hcl_crcseq_result(&s, 4 * (HCL_CRCSEQ_MAX + 1), &crc));
	EXPECT_EQ(crc_of(b, 4 * (HCL_CRCSEQ_MAX + 1)), crc);
	/* a piece past the size asked for */
	EXPECT_EQ(0, hcl_crcseq_result(&s, 4 * HCL_CRCSEQ_MAX, &crc));
}

TEST_HARNESS_MAIN
