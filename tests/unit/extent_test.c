// SPDX-License-Identifier: GPL-2.0
/*
 * The one extents check (helper/lib/extent.c) that hypercached's engines
 * and hcctl's put, get, flush and restore run on what the kernel returns.
 */
#include <errno.h>
#include <string.h>
#include "kselftest_harness.h"
#include "extent.h"

TEST(good_extents_pass)
{
	struct hc_extent e[2] = { { 0, 4096 }, { 1 << 20, 8192 } };
	char err[128] = "";

	EXPECT_EQ(0, hc_extents_check(e, 2, 12288, 4096, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(0, hc_extents_check(e, 2, 12000, 4096, err, sizeof(err)));
	EXPECT_EQ(0, hc_extents_check(NULL, 0, 0, 4096, err, sizeof(err)));
}

TEST(block_size_is_the_callers)
{
	struct hc_extent e[1] = { { 512, 1024 } };
	char err[128] = "";

	EXPECT_EQ(0, hc_extents_check(e, 1, 1000, 512, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, hc_extents_check(e, 1, 1000, 4096, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "extent 0 (512+1024) is not 4096-aligned")) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, hc_extents_check(e, 1, 1000, 1000, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "block size 1000")) TH_LOG("%s", err);
}

TEST(short_empty_or_too_many)
{
	struct hc_extent e[2] = { { 0, 4096 }, { 8192, 0 } };
	char err[128] = "";

	/* the object's last block must be covered, not only its bytes */
	EXPECT_EQ(-EINVAL, hc_extents_check(e, 1, 4097, 4096, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "extents hold 4096 bytes, the object 4097")) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, hc_extents_check(e, 2, 4096, 4096, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "extent 1")) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, hc_extents_check(e, HC_MAX_EXTENTS + 1, 0, 4096, err, sizeof(err)));
	EXPECT_EQ(-EINVAL, hc_extents_check(NULL, 1, 0, 4096, NULL, 0));
}

TEST_HARNESS_MAIN
