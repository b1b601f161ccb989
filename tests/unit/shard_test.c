// SPDX-License-Identifier: GPL-2.0
/*
 * hcctl's dataset sharding (tools/hcctl/shard.c): every item goes to
 * exactly one node, where N and I come from (options, Slurm, torchrun,
 * Kubernetes) and in which order, and that bad values are refused with a
 * message naming their source.
 */
#include <errno.h>
#include <string.h>
#include "kselftest_harness.h"
#include "shard.h"

static int resolve(const char *c, const char *i, char *const envp[],
		   struct hcctl_shard *s, char *err)
{
	err[0] = 0;
	return hcctl_shard_resolve(c, i, envp, s, err, 256);
}

TEST(every_item_exactly_once)
{
	static const size_t counts[] = { 0, 1, 2, 5, 12, 13, 1000 };
	unsigned int n, i;
	size_t c, k;

	for (c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		for (n = 1; n <= 17; n++) {
			unsigned int seen[1000] = { 0 };
			size_t total = 0;

			for (i = 0; i < n; i++) {
				struct hcctl_shard s = { .count = n, .index = i };
				size_t items[1000], kept;

				for (k = 0; k < counts[c]; k++)
					items[k] = k;
				kept = hcctl_shard_select(items, counts[c],
						       sizeof(items[0]), &s);
				/* balanced: floor or ceil of items / nodes */
				EXPECT_LE(counts[c] / n, kept);
				EXPECT_GE((counts[c] + n - 1) / n, kept);
				for (k = 0; k < kept; k++) {
					EXPECT_EQ(i, items[k] % n);
					if (k)	/* order kept */
						EXPECT_LT(items[k - 1], items[k]);
					seen[items[k]]++;
				}
				total += kept;
			}
			EXPECT_EQ(counts[c], total);
			for (k = 0; k < counts[c]; k++)
				ASSERT_EQ(1, seen[k]) TH_LOG("item %zu, %u nodes", k, n);
		}
	}
}

TEST(seed_example)
{
	/* two nodes: node 0 gets shards 0, 2, 4..., node 1 shards 1, 3, 5... */
	struct hcctl_shard s0 = { .count = 2, .index = 0 };
	struct hcctl_shard s1 = { .count = 2, .index = 1 };
	int a[6] = { 0, 1, 2, 3, 4, 5 }, b[6] = { 0, 1, 2, 3, 4, 5 };

	ASSERT_EQ(3, hcctl_shard_select(a, 6, sizeof(int), &s0));
	ASSERT_EQ(3, hcctl_shard_select(b, 6, sizeof(int), &s1));
	EXPECT_EQ(0, a[0]);
	EXPECT_EQ(2, a[1]);
	EXPECT_EQ(4, a[2]);
	EXPECT_EQ(1, b[0]);
	EXPECT_EQ(3, b[1]);
	EXPECT_EQ(5, b[2]);
	EXPECT_TRUE(hcctl_shard_mine(&s1, 7));
	EXPECT_FALSE(hcctl_shard_mine(&s0, 7));
}

TEST(options)
{
	char *env[] = { "SLURM_NODEID=3", "SLURM_NNODES=4", "RANK=1",
			"WORLD_SIZE=2", NULL };
	struct hcctl_shard s;
	char err[256];

	/* the options beat every variable */
	ASSERT_EQ(0, resolve("2", "1", env, &s, err)) TH_LOG("%s", err);
	EXPECT_EQ(2, s.count);
	EXPECT_EQ(1, s.index);
	EXPECT_STREQ("--node-index", s.index_src);
	EXPECT_STREQ("--node-count", s.count_src);
	/* --node-index alone: the count from HC_NODE_COUNT, never Slurm's */
	EXPECT_EQ(-EINVAL, resolve(NULL, "1", env, &s, err));
	EXPECT_NE(NULL, strstr(err, "HC_NODE_COUNT")) TH_LOG("%s", err);
	{
		char *env2[] = { "HC_NODE_COUNT=8", NULL };

		ASSERT_EQ(0, resolve(NULL, "7", env2, &s, err)) TH_LOG("%s", err);
		EXPECT_EQ(8, s.count);
		EXPECT_EQ(7, s.index);
		EXPECT_STREQ("HC_NODE_COUNT", s.count_src);
	}
	/* no environment at all */
	ASSERT_EQ(0, resolve("1", "0", NULL, &s, err));
	EXPECT_EQ(1, s.count);
	EXPECT_EQ(0, s.index);
}

TEST(env_precedence)
{
	char *all[] = { "PATH=/bin", "JOB_COMPLETION_INDEX=0", "HC_NODE_COUNT=9",
			"RANK=2", "WORLD_SIZE=5", "SLURM_NNODES=4",
			"SLURM_NODEID=3", NULL };
	char *torch[] = { "JOB_COMPLETION_INDEX=0", "HC_NODE_COUNT=9",
			  "RANK=2", "WORLD_SIZE=5", "SLURM_NNODES=4", NULL };
	char *k8s[] = { "JOB_COMPLETION_INDEX=6", "HC_NODE_COUNT=9",
			"WORLD_SIZE=5", "SLURM_NNODES=4", NULL };
	char *empty[] = { "SLURM_NODEID=", "RANK=", "JOB_COMPLETION_INDEX=1",
			  "HC_NODE_COUNT=2", NULL };
	struct hcctl_shard s;
	char err[256];

	ASSERT_EQ(0, resolve(NULL, NULL, all, &s, err)) TH_LOG("%s", err);
	EXPECT_EQ(4, s.count);
	EXPECT_EQ(3, s.index);
	EXPECT_STREQ("SLURM_NODEID", s.index_src);
	EXPECT_STREQ("SLURM_NNODES", s.count_src);

	/* SLURM_NNODES without SLURM_NODEID does not count */
	ASSERT_EQ(0, resolve(NULL, NULL, torch, &s, err)) TH_LOG("%s", err);
	EXPECT_EQ(5, s.count);
	EXPECT_EQ(2, s.index);
	EXPECT_STREQ("RANK", s.index_src);
	EXPECT_STREQ("WORLD_SIZE", s.count_src);

	ASSERT_EQ(0, resolve(NULL, NULL, k8s, &s, err)) TH_LOG("%s", err);
	EXPECT_EQ(9, s.count);
	EXPECT_EQ(6, s.index);
	EXPECT_STREQ("JOB_COMPLETION_INDEX", s.index_src);
	EXPECT_STREQ("HC_NODE_COUNT", s.count_src);

	/* --node-count overrides the count of any source */
	ASSERT_EQ(0, resolve("7", NULL, k8s, &s, err)) TH_LOG("%s", err);
	EXPECT_EQ(7, s.count);
	EXPECT_EQ(6, s.index);
	EXPECT_STREQ("--node-count", s.count_src);
	ASSERT_EQ(0, resolve("12", NULL, all, &s, err)) TH_LOG("%s", err);
	EXPECT_EQ(12, s.count);
	EXPECT_EQ(3, s.index);

	/* empty variables are unset */
	ASSERT_EQ(0, resolve(NULL, NULL, empty, &s, err)) TH_LOG("%s", err);
	EXPECT_STREQ("JOB_COMPLETION_INDEX", s.index_src);
	EXPECT_EQ(1, s.index);
	EXPECT_EQ(2, s.count);
}

TEST(missing)
{
	char *none[] = { "PATH=/bin", "WORLD_SIZE=4", "SLURM_NNODES=2", NULL };
	char *half[] = { "RANK=1", NULL };
	char *k8s[] = { "JOB_COMPLETION_INDEX=1", "WORLD_SIZE=4", NULL };
	struct hcctl_shard s;
	char err[256];

	EXPECT_EQ(-EINVAL, resolve(NULL, NULL, none, &s, err));
	EXPECT_NE(NULL, strstr(err, "--node-index")) TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(err, "JOB_COMPLETION_INDEX")) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, resolve("4", NULL, none, &s, err));
	EXPECT_EQ(-EINVAL, resolve(NULL, NULL, half, &s, err));
	EXPECT_NE(NULL, strstr(err, "RANK is set but WORLD_SIZE is not")) TH_LOG("%s", err);
	/* Kubernetes: the count is not taken from torchrun's variable */
	EXPECT_EQ(-EINVAL, resolve(NULL, NULL, k8s, &s, err));
	EXPECT_NE(NULL, strstr(err, "HC_NODE_COUNT")) TH_LOG("%s", err);
}

TEST(bad_values)
{
	static const char *const bad[] = { "x", "-1", "+1", " 1", "1 ", "0x2",
					   "1.5", "99999999999999999999", "" };
	char *slurm_big[] = { "SLURM_NODEID=4", "SLURM_NNODES=4", NULL };
	char *slurm_bad[] = { "SLURM_NODEID=1", "SLURM_NNODES=two", NULL };
	char *rank_bad[] = { "RANK=-1", "WORLD_SIZE=2", NULL };
	char *k8s_zero[] = { "JOB_COMPLETION_INDEX=0", "HC_NODE_COUNT=0", NULL };
	char *k8s_big[] = { "JOB_COMPLETION_INDEX=3", "HC_NODE_COUNT=3", NULL };
	struct hcctl_shard s;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		EXPECT_EQ(-EINVAL, resolve(bad[i], "0", NULL, &s, err))
			TH_LOG("count '%s'", bad[i]);
		EXPECT_NE(NULL, strstr(err, "--node-count")) TH_LOG("%s", err);
		if (!bad[i][0])
			continue;	/* an empty --node-index is "not given" */
		EXPECT_EQ(-EINVAL, resolve("2", bad[i], NULL, &s, err))
			TH_LOG("index '%s'", bad[i]);
		EXPECT_NE(NULL, strstr(err, "--node-index")) TH_LOG("%s", err);
	}
	EXPECT_EQ(-EINVAL, resolve("0", "0", NULL, &s, err));
	EXPECT_NE(NULL, strstr(err, "at least 1")) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, resolve("2", "2", NULL, &s, err));
	EXPECT_NE(NULL, strstr(err, "--node-index 2 is not below --node-count 2"))
		TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, resolve("1000001", "0", NULL, &s, err));

	EXPECT_EQ(-EINVAL, resolve(NULL, NULL, slurm_big, &s, err));
	EXPECT_NE(NULL, strstr(err, "SLURM_NODEID 4 is not below SLURM_NNODES 4"))
		TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, resolve(NULL, NULL, slurm_bad, &s, err));
	EXPECT_NE(NULL, strstr(err, "SLURM_NNODES 'two'")) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, resolve(NULL, NULL, rank_bad, &s, err));
	EXPECT_NE(NULL, strstr(err, "RANK '-1'")) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, resolve(NULL, NULL, k8s_zero, &s, err));
	EXPECT_NE(NULL, strstr(err, "HC_NODE_COUNT '0'")) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, resolve(NULL, NULL, k8s_big, &s, err));
	EXPECT_NE(NULL, strstr(err, "JOB_COMPLETION_INDEX 3 is not below HC_NODE_COUNT 3"))
		TH_LOG("%s", err);
	/* a bad --node-count is refused even if the index is bad too */
	EXPECT_EQ(-EINVAL, resolve("x", "y", NULL, &s, err));
	EXPECT_NE(NULL, strstr(err, "--node-count 'x'")) TH_LOG("%s", err);
}

TEST_HARNESS_MAIN
