// SPDX-License-Identifier: GPL-2.0
/* hcctl's "did you mean" (tools/hcctl/suggest.c). */
#include <string.h>
#include "kselftest_harness.h"
#include "suggest.h"

static const char *const cmds[] = {
	"pool", "inspect", "status", "monitor", "geometry", "put", "get",
	"locate", "evict", "pin", "unpin", "preload", "preload-batch", "flush",
	"restore", "ls", "stats", "help", "version",
};
#define N (sizeof(cmds) / sizeof(cmds[0]))

TEST(distance)
{
	char big[HCCTL_SUGGEST_MAX + 2];

	EXPECT_EQ(0, hcctl_edit_distance("locate", "locate"));
	EXPECT_EQ(1, hcctl_edit_distance("lcoate", "locate"));	/* swap */
	EXPECT_EQ(1, hcctl_edit_distance("locat", "locate"));
	EXPECT_EQ(1, hcctl_edit_distance("locatee", "locate"));
	EXPECT_EQ(1, hcctl_edit_distance("lacate", "locate"));
	EXPECT_EQ(3, hcctl_edit_distance("", "abc"));
	EXPECT_EQ(3, hcctl_edit_distance("kitten", "sitting"));
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	EXPECT_EQ(-1, hcctl_edit_distance(big, "a"));
}

TEST(suggests_the_closest)
{
	EXPECT_STREQ("locate", hcctl_suggest("lcoate", cmds, N));
	EXPECT_STREQ("status", hcctl_suggest("stauts", cmds, N));
	EXPECT_STREQ("inspect", hcctl_suggest("inpsect", cmds, N));
	EXPECT_STREQ("preload", hcctl_suggest("prelaod", cmds, N));
	EXPECT_STREQ("evict", hcctl_suggest("evi", cmds, N));	/* prefix */
	EXPECT_STREQ("version", hcctl_suggest("verison", cmds, N));
	EXPECT_STREQ("status", hcctl_suggest("stat", cmds, N));	/* a tie: the earlier */
}

TEST(suggests_nothing_far_or_short)
{
	EXPECT_EQ(NULL, hcctl_suggest("frob", cmds, N));
	EXPECT_EQ(NULL, hcctl_suggest("x", cmds, N));
	EXPECT_EQ(NULL, hcctl_suggest("", cmds, N));
	EXPECT_EQ(NULL, hcctl_suggest("zz", cmds, N));
	EXPECT_EQ(NULL, hcctl_suggest("locate", cmds, 0));
}

TEST_HARNESS_MAIN
