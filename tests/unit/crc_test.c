// SPDX-License-Identifier: GPL-2.0
/*
 * CRC-32C of pieces (helper/lib/crc.c): the check value, and the CRC of a
 * buffer cut at many places, combined from its pieces, equals the CRC of
 * the whole (ISA-L over the whole buffer).
 */
#include <stdlib.h>
#include "kselftest_harness.h"
#include "crc.h"

TEST(check_value)
{
	EXPECT_EQ(0xe3069283u, hc_crc32c("123456789", 9));
	EXPECT_EQ(0u, hc_crc32c("", 0));
}

TEST(combine_equals_whole)
{
	size_t n = 3 * 1024 * 1024 + 77;
	unsigned char *b = malloc(n);
	size_t cuts[] = { 0, 1, 2, 3, 4, 511, 4096, 65537, 1 << 20,
			  2 * 1024 * 1024 + 5, n - 1, n };
	uint32_t whole;

	ASSERT_NE(NULL, b);
	srand(7);
	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)rand();
	whole = hc_crc32c(b, n);
	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		size_t c = cuts[i];

		EXPECT_EQ(whole, hc_crc32c_combine(hc_crc32c(b, c),
						   hc_crc32c(b + c, n - c),
						   n - c));
	}
	free(b);
}

/* Parts of 8 KiB folded left to right, as hypercached does. */
TEST(fold_parts)
{
	size_t part = 8192, n = 100 * part + 123;
	unsigned char *b = malloc(n);
	uint32_t crc = 0;

	ASSERT_NE(NULL, b);
	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)(i * 31 + 7);
	for (size_t off = 0; off < n; off += part) {
		size_t len = n - off < part ? n - off : part;

		crc = off ? hc_crc32c_combine(crc, hc_crc32c(b + off, len), len)
			  : hc_crc32c(b, len);
	}
	EXPECT_EQ(hc_crc32c(b, n), crc);
	free(b);
}

TEST_HARNESS_MAIN
