// SPDX-License-Identifier: GPL-2.0
/* hcctl verify's verdict on one cached object (tools/hcctl/verdict.c). */
#include <errno.h>
#include "kselftest_harness.h"
#include "hypercache_format.h"
#include "verdict.h"

TEST(etag_equal)
{
	EXPECT_TRUE(hcctl_etag_equal("\"abc\"", "\"abc\""));
	EXPECT_TRUE(hcctl_etag_equal("\"abc\"", "abc"));	/* quoting differs */
	EXPECT_TRUE(hcctl_etag_equal("W/\"abc\"", "\"abc\""));
	EXPECT_TRUE(hcctl_etag_equal("\"d41d-3\"", "\"d41d-3\""));	/* multipart */
	EXPECT_FALSE(hcctl_etag_equal("\"abc\"", "\"abd\""));
	EXPECT_FALSE(hcctl_etag_equal("\"abc\"", "\"abc-2\""));
	EXPECT_FALSE(hcctl_etag_equal("\"abc\"", "\"ab\""));
	EXPECT_FALSE(hcctl_etag_equal("\"abc\"", NULL));
	EXPECT_FALSE(hcctl_etag_equal(NULL, NULL));
	EXPECT_FALSE(hcctl_etag_equal("\"\"", "\"\""));	/* empty: nothing known */
	EXPECT_FALSE(hcctl_etag_equal("", ""));
	EXPECT_FALSE(hcctl_etag_equal("\"abc", "abc"));	/* one quote is part of it */
}

TEST(before_head)
{
	EXPECT_EQ(HCCTL_V_HEAD, hcctl_verdict_before_head(true, HC_OBJ_READY, "\"e\""));
	EXPECT_EQ(HCCTL_V_NO_ETAG, hcctl_verdict_before_head(true, HC_OBJ_READY, NULL));
	EXPECT_EQ(HCCTL_V_NO_ETAG, hcctl_verdict_before_head(true, HC_OBJ_READY, ""));
	/* written through the cache and not uploaded: never checked, never evicted */
	EXPECT_EQ(HCCTL_V_NOT_UPLOADED, hcctl_verdict_before_head(true, HC_OBJ_DIRTY, "\"e\""));
	EXPECT_EQ(HCCTL_V_NOT_UPLOADED, hcctl_verdict_before_head(true, HC_OBJ_SYNCING, "\"e\""));
	EXPECT_EQ(HCCTL_V_NOT_UPLOADED, hcctl_verdict_before_head(true, HC_OBJ_STAGED, NULL));
	EXPECT_EQ(HCCTL_V_INGESTING, hcctl_verdict_before_head(true, HC_OBJ_INGESTING, NULL));
	EXPECT_EQ(HCCTL_V_ERROR, hcctl_verdict_before_head(false, HC_OBJ_READY, "\"e\""));
	EXPECT_EQ(HCCTL_V_ERROR, hcctl_verdict_before_head(true, 99, "\"e\""));
}

TEST(compare)
{
	EXPECT_EQ(HCCTL_V_CURRENT, hcctl_verdict_compare("\"e\"", 10, 0, "\"e\"", 10));
	EXPECT_EQ(HCCTL_V_CHANGED, hcctl_verdict_compare("\"e\"", 10, 0, "\"f\"", 10));
	/* the ETag decides first: a new ETag and a new size is a change */
	EXPECT_EQ(HCCTL_V_CHANGED, hcctl_verdict_compare("\"e\"", 10, 0, "\"f\"", 11));
	EXPECT_EQ(HCCTL_V_RESIZED, hcctl_verdict_compare("\"e\"", 10, 0, "\"e\"", 11));
	EXPECT_EQ(HCCTL_V_GONE, hcctl_verdict_compare("\"e\"", 10, -ENOENT, NULL, 0));
	EXPECT_EQ(HCCTL_V_ERROR, hcctl_verdict_compare("\"e\"", 10, -EACCES, NULL, 0));
	EXPECT_EQ(HCCTL_V_ERROR, hcctl_verdict_compare("\"e\"", 10, -EIO, "\"e\"", 10));
	EXPECT_EQ(HCCTL_V_CHANGED, hcctl_verdict_compare("\"e\"", 10, 0, "", 10));
}

TEST(stale_and_names)
{
	int v;

	for (v = 0; v < HCCTL_V_NR; v++) {
		EXPECT_EQ(v == HCCTL_V_CHANGED || v == HCCTL_V_RESIZED || v == HCCTL_V_GONE,
			  hcctl_verdict_stale(v));
		EXPECT_NE(NULL, hcctl_verdict_name(v));
		EXPECT_STRNE("?", hcctl_verdict_name(v));
	}
	EXPECT_STREQ("?", hcctl_verdict_name(HCCTL_V_NR));
	EXPECT_STREQ("current", hcctl_verdict_name(HCCTL_V_CURRENT));
	EXPECT_STREQ("gone", hcctl_verdict_name(HCCTL_V_GONE));
}

TEST(exit_status)
{
	struct hcctl_verdict_count c = { 0 };

	EXPECT_EQ(0, hcctl_verdict_exit(&c));
	c.n[HCCTL_V_CURRENT] = 5;
	c.n[HCCTL_V_NO_ETAG] = 2;
	c.n[HCCTL_V_NOT_UPLOADED] = 1;
	c.n[HCCTL_V_INGESTING] = 1;
	EXPECT_EQ(0, hcctl_verdict_exit(&c));
	c.n[HCCTL_V_GONE] = 1;
	EXPECT_EQ(1, hcctl_verdict_exit(&c));
	c.evicted = 1;		/* evicted, but it was found stale */
	EXPECT_EQ(1, hcctl_verdict_exit(&c));
	c.n[HCCTL_V_GONE] = 0;
	c.evicted = 0;
	c.n[HCCTL_V_ERROR] = 1;
	EXPECT_EQ(1, hcctl_verdict_exit(&c));
	c.n[HCCTL_V_ERROR] = 0;
	c.refused = 1;
	EXPECT_EQ(1, hcctl_verdict_exit(&c));
}

/* hypercached's revalidation: the ETag when kept, else Last-Modified + size */
TEST(reval)
{
	/* a conditional HEAD's 304: current, whatever else is known */
	EXPECT_EQ(HCCTL_V_CURRENT, hcctl_verdict_reval("\"e\"", 0, 5,
			HCCTL_REVAL_NOT_MODIFIED, NULL, 0, 0));
	/* with an ETag: as verify's compare */
	EXPECT_EQ(HCCTL_V_CURRENT, hcctl_verdict_reval("\"e\"", 0, 5, 0, "e", 9, 5));
	EXPECT_EQ(HCCTL_V_CHANGED, hcctl_verdict_reval("\"e\"", 7, 5, 0, "\"f\"", 7, 5));
	EXPECT_EQ(HCCTL_V_RESIZED, hcctl_verdict_reval("\"e\"", 7, 5, 0, "\"e\"", 7, 6));
	EXPECT_EQ(HCCTL_V_GONE, hcctl_verdict_reval("\"e\"", 7, 5, -ENOENT, NULL, 0, 0));
	EXPECT_EQ(HCCTL_V_ERROR, hcctl_verdict_reval("\"e\"", 7, 5, -EIO, NULL, 0, 0));
	/* without one (posix): Last-Modified and size */
	EXPECT_EQ(HCCTL_V_CURRENT, hcctl_verdict_reval(NULL, 100, 5, 0, NULL, 100, 5));
	EXPECT_EQ(HCCTL_V_CURRENT, hcctl_verdict_reval("", 100, 5, 0, "", 100, 5));
	EXPECT_EQ(HCCTL_V_CHANGED, hcctl_verdict_reval(NULL, 100, 5, 0, NULL, 101, 5));
	EXPECT_EQ(HCCTL_V_RESIZED, hcctl_verdict_reval(NULL, 100, 5, 0, NULL, 100, 4));
	EXPECT_EQ(HCCTL_V_CHANGED, hcctl_verdict_reval(NULL, 100, 5, 0, NULL, 0, 5));
	/* nothing kept to compare with: fetched again */
	EXPECT_EQ(HCCTL_V_CHANGED, hcctl_verdict_reval(NULL, 0, 5, 0, NULL, 0, 5));
	EXPECT_EQ(HCCTL_V_GONE, hcctl_verdict_reval(NULL, 100, 5, -ENOENT, NULL, 0, 0));
	EXPECT_EQ(HCCTL_V_ERROR, hcctl_verdict_reval(NULL, 100, 5, -EACCES, NULL, 0, 0));
}

TEST_HARNESS_MAIN
