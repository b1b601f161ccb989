// SPDX-License-Identifier: GPL-2.0
/*
 * Revalidation rules (kmod/core/reval.c): what a rule set may hold, which
 * rule an object's URI follows, and when an object is due.
 */
#include <stdio.h>
#include <stdlib.h>
#include "kselftest_harness.h"
#include "reval.h"

#define RULE(p, m, t) { (const u8 *)(p), sizeof(p) - 1, (m), (t) }

static const u8 *U(const char *s) { return (const u8 *)s; }

TEST(rule_bounds)
{
	static u8 long_prefix[HC_REVAL_PREFIX_MAX + 1];
	struct hc_reval_rule r = RULE("s3://", HC_REVAL_AFTER, 60);

	EXPECT_EQ(0, hc_reval_rule_check(&r));
	r.ttl = 0;
	EXPECT_EQ(-EINVAL, hc_reval_rule_check(&r));	/* AFTER needs one */
	r.ttl = HC_REVAL_TTL_MAX;
	EXPECT_EQ(0, hc_reval_rule_check(&r));
	r.ttl = HC_REVAL_TTL_MAX + 1;
	EXPECT_EQ(-EINVAL, hc_reval_rule_check(&r));
	r.mode = HC_REVAL_ALWAYS;
	r.ttl = 1;
	EXPECT_EQ(-EINVAL, hc_reval_rule_check(&r));	/* only AFTER has one */
	r.ttl = 0;
	EXPECT_EQ(0, hc_reval_rule_check(&r));
	r.mode = HC_REVAL_NEVER;
	EXPECT_EQ(0, hc_reval_rule_check(&r));
	r.mode = HC_REVAL_ALWAYS + 1;
	EXPECT_EQ(-EINVAL, hc_reval_rule_check(&r));
	r.mode = HC_REVAL_NEVER;
	r.prefix_len = 0;
	EXPECT_EQ(-EINVAL, hc_reval_rule_check(&r));
	memset(long_prefix, 'a', sizeof(long_prefix));
	r.prefix = long_prefix;
	r.prefix_len = HC_REVAL_PREFIX_MAX;
	EXPECT_EQ(0, hc_reval_rule_check(&r));
	r.prefix_len = HC_REVAL_PREFIX_MAX + 1;
	EXPECT_EQ(-EINVAL, hc_reval_rule_check(&r));
}

TEST(set_check)
{
	struct hc_reval_rule set[HC_REVAL_RULES_MAX + 1];
	char names[HC_REVAL_RULES_MAX + 1][32];
	u32 bad = 99, i;

	struct hc_reval_rule dup[] = {
		RULE("s3://", HC_REVAL_NEVER, 0),
		RULE("hypercache://a/", HC_REVAL_ALWAYS, 0),
		RULE("s3://", HC_REVAL_AFTER, 5),
	};
	struct hc_reval_rule broken[] = {
		RULE("s3://", HC_REVAL_NEVER, 0),
		RULE("hypercache://a/", HC_REVAL_AFTER, 0),
	};

	EXPECT_EQ(0, hc_reval_set_check(NULL, 0, &bad));
	EXPECT_EQ(-EINVAL, hc_reval_set_check(dup, 3, &bad));
	EXPECT_EQ(2, bad);
	EXPECT_EQ(0, hc_reval_set_check(dup, 2, &bad));
	EXPECT_EQ(-EINVAL, hc_reval_set_check(broken, 2, &bad));
	EXPECT_EQ(1, bad);
	for (i = 0; i <= HC_REVAL_RULES_MAX; i++) {
		snprintf(names[i], sizeof(names[i]), "hypercache://b%u/", i);
		set[i] = (struct hc_reval_rule){ U(names[i]),
						 strlen(names[i]),
						 HC_REVAL_ALWAYS, 0 };
	}
	EXPECT_EQ(0, hc_reval_set_check(set, HC_REVAL_RULES_MAX, &bad));
	EXPECT_EQ(-E2BIG, hc_reval_set_check(set, HC_REVAL_RULES_MAX + 1,
					     &bad));
}

TEST(longest_prefix_wins)
{
	struct hc_reval_rule set[] = {
		RULE("s3://", HC_REVAL_NEVER, 0),
		RULE("s3://models/llama/", HC_REVAL_ALWAYS, 0),
		RULE("s3://models/", HC_REVAL_AFTER, 300),
		RULE("hypercache://nfs/", HC_REVAL_AFTER, 60),
	};
	const char *u;

	ASSERT_EQ(0, hc_reval_set_check(set, 4, &(u32){ 0 }));
	u = "s3://models/llama/w.bin";
	EXPECT_EQ(&set[1], hc_reval_match(set, 4, U(u), strlen(u)));
	u = "s3://models/gpt/w.bin";
	EXPECT_EQ(&set[2], hc_reval_match(set, 4, U(u), strlen(u)));
	u = "s3://data/x";
	EXPECT_EQ(&set[0], hc_reval_match(set, 4, U(u), strlen(u)));
	u = "hypercache://nfs/a";
	EXPECT_EQ(&set[3], hc_reval_match(set, 4, U(u), strlen(u)));
	/* a prefix longer than the URI, a URI of another backend */
	u = "s3://models";
	EXPECT_EQ(&set[0], hc_reval_match(set, 4, U(u), strlen(u)));
	u = "hypercache://nfs";
	EXPECT_EQ(NULL, hc_reval_match(set, 4, U(u), strlen(u)));
	u = "file:///x";
	EXPECT_EQ(NULL, hc_reval_match(set, 4, U(u), strlen(u)));
	EXPECT_EQ(NULL, hc_reval_match(set, 0, U(u), strlen(u)));
	/* the order of the set does not matter */
	u = "s3://models/llama/w.bin";
	EXPECT_EQ(&set[1], hc_reval_match(&set[1], 3, U(u), strlen(u)));
}

TEST(due)
{
	struct hc_reval_rule never = RULE("s3://", HC_REVAL_NEVER, 0);
	struct hc_reval_rule always = RULE("s3://", HC_REVAL_ALWAYS, 0);
	struct hc_reval_rule after = RULE("s3://", HC_REVAL_AFTER, 30);

	EXPECT_FALSE(hc_reval_due(NULL, 0, 100));
	EXPECT_FALSE(hc_reval_due(&never, 0, 100));
	EXPECT_FALSE(hc_reval_due(&never, 1, 1000000));
	EXPECT_TRUE(hc_reval_due(&always, 100, 100));	/* just checked */
	EXPECT_TRUE(hc_reval_due(&after, 0, 5));	/* since assembly */
	EXPECT_FALSE(hc_reval_due(&after, 100, 100));
	EXPECT_FALSE(hc_reval_due(&after, 100, 129));
	EXPECT_TRUE(hc_reval_due(&after, 100, 130));
	EXPECT_TRUE(hc_reval_due(&after, 100, 99));	/* clock went back */
	after.ttl = HC_REVAL_TTL_MAX;
	EXPECT_FALSE(hc_reval_due(&after, 1, HC_REVAL_TTL_MAX));
	EXPECT_TRUE(hc_reval_due(&after, 1, HC_REVAL_TTL_MAX + 1));
}

TEST_HARNESS_MAIN
