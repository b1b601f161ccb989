// SPDX-License-Identifier: GPL-2.0
/*
 * hcsim's AI-node workload generator (tools/hcsim/gen.c): deterministic per
 * seed, each epoch reads every shard once, checkpoints are writes, and the
 * model jobs do not depend on whether the dataset is read (the streams are
 * independent: the scan-resistance figures compare the two traces).
 */
#include <stdio.h>
#include <stdlib.h>
#include "kselftest_harness.h"
#include "gen.h"

/* The trace of @g (defaults already applied by the caller). */
static char *trace(struct gen_ai g, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	if (gen_ai(f, &g)) {
		fclose(f);
		free(buf);
		return NULL;
	}
	fclose(f);
	return buf;
}

/* Keep the lines of @t that start with @prefix. */
static char *only(const char *t, const char *prefix)
{
	char *out = calloc(1, strlen(t) + 1), *o = out;
	size_t n = strlen(prefix);

	if (!out)
		return NULL;
	while (*t) {
		const char *nl = strchr(t, '\n');
		size_t l = nl ? (size_t)(nl - t + 1) : strlen(t);

		if (!strncmp(t, prefix, n)) {
			memcpy(o, t, l);
			o += l;
		}
		t += l;
	}
	return out;
}

TEST(same_seed_same_trace)
{
	static const enum gen_node nodes[] = {
		GEN_NODE_MIXED, GEN_NODE_INFERENCE, GEN_NODE_TRAINING,
	};
	size_t la, lb, lc;

	for (size_t i = 0; i < 3; i++) {
		struct gen_ai g = { .node = nodes[i], .seed = 7, .steps = 3000 };
		char *a, *b, *c;

		gen_ai_defaults(&g);
		a = trace(g, &la);
		b = trace(g, &lb);

		g.seed = 8;
		c = trace(g, &lc);
		ASSERT_NE(NULL, a);
		ASSERT_NE(NULL, b);
		ASSERT_NE(NULL, c);
		EXPECT_GT(la, 1000);
		EXPECT_EQ(la, lb);
		EXPECT_EQ(0, strcmp(a, b));
		EXPECT_NE(0, strcmp(a, c));
		free(a);
		free(b);
		free(c);
	}
}

TEST(epochs_read_every_shard_once)
{
	struct gen_ai g = { .node = GEN_NODE_TRAINING, .seed = 3, .steps = 1000,
			    .shards = 100, .shards_per_step = 1 };
	size_t len;
	char *t, *d, *line;
	int seen[100] = { 0 }, n = 0;

	gen_ai_defaults(&g);
	t = trace(g, &len);
	ASSERT_NE(NULL, t);
	d = only(t, "data/");
	ASSERT_NE(NULL, d);
	for (line = strtok(d, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned int s;
		unsigned long long size;

		ASSERT_EQ(2, sscanf(line, "data/shard-%u.tar %llu", &s, &size));
		ASSERT_LT(s, 100);
		EXPECT_EQ(128ULL << 20, size);
		/* shard s is read for the k-th time in epoch k */
		EXPECT_EQ(n / 100, seen[s]);
		seen[s]++;
		n++;
	}
	EXPECT_EQ(1000, n);
	free(d);
	free(t);
}

TEST(models_do_not_depend_on_the_dataset)
{
	struct gen_ai g = { .node = GEN_NODE_MIXED, .seed = 5, .steps = 4000 };
	size_t la, lb;
	char *a, *b, *ma, *mb;

	gen_ai_defaults(&g);
	a = trace(g, &la);
	g.shards_per_step = 0;
	g.shards = 1;
	b = trace(g, &lb);
	ASSERT_NE(NULL, a);
	ASSERT_NE(NULL, b);
	ma = only(a, "model/");
	mb = only(b, "model/");
	EXPECT_GT(strlen(ma), 100);
	EXPECT_EQ(0, strcmp(ma, mb));
	EXPECT_EQ(NULL, strstr(b, "data/"));
	EXPECT_NE(NULL, strstr(a, "data/"));
	/* checkpoints are writes */
	EXPECT_NE(NULL, strstr(a, "state.pt 4294967296 w\n"));
	free(ma);
	free(mb);
	free(a);
	free(b);
}

TEST(rejects_bad_parameters)
{
	struct gen_ai g = { .node = GEN_NODE_MIXED };

	gen_ai_defaults(&g);
	g.model_min_mib = g.model_max_mib + 1;
	EXPECT_EQ(-EINVAL, gen_ai(stdout, &g));
	EXPECT_STREQ("model_min_mib is above model_max_mib", gen_ai_invalid(&g));
	g.model_min_mib = 1;
	EXPECT_EQ(NULL, gen_ai_invalid(&g));
}

/*
 * Each parameter has a range (a wrapped shards_per_step of 2^32 - 1 was
 * read as 4 billion shards a step, a shard_mib of 2^45 overflowed its
 * bytes): gen_ai() refuses a value past it before writing anything.
 */
TEST(rejects_parameters_past_their_range)
{
	struct gen_ai g = { .node = GEN_NODE_MIXED };
	size_t len = 0;
	char *t;

	gen_ai_defaults(&g);
	g.steps = 10;
	g.shards_per_step = UINT32_MAX;
	t = trace(g, &len);
	EXPECT_EQ(NULL, t);
	free(t);
	g.shards_per_step = 1000000;	/* the most */
	g.steps = 1;
	t = trace(g, &len);
	EXPECT_NE(NULL, t);
	free(t);
	g.shard_mib = GEN_MIB_MAX + 1;
	EXPECT_EQ(-EINVAL, gen_ai(stdout, &g));
}

/* --set NAME=VALUE: known names, decimal values within range, or refused. */
TEST(set_by_name)
{
	struct gen_ai g = { .node = GEN_NODE_TRAINING };
	u64 max = 0;

	gen_ai_defaults(&g);
	EXPECT_EQ(0, gen_ai_set(&g, "shards_per_step", "0", &max));
	EXPECT_EQ(0, g.shards_per_step);
	EXPECT_EQ(1000000, max);
	EXPECT_EQ(0, gen_ai_set(&g, "steps", "123", &max));
	EXPECT_EQ(123, g.steps);
	EXPECT_EQ(0, gen_ai_set(&g, "shard_mib", "16777216", &max));
	EXPECT_EQ(GEN_MIB_MAX, g.shard_mib);
	/* bad values leave the field alone */
	EXPECT_EQ(-EINVAL, gen_ai_set(&g, "shards_per_step", "-1", &max));
	EXPECT_EQ(-EINVAL, gen_ai_set(&g, "shards_per_step", "1000001", &max));
	EXPECT_EQ(-EINVAL, gen_ai_set(&g, "shards_per_step", "0x10", &max));
	EXPECT_EQ(-EINVAL, gen_ai_set(&g, "shards_per_step", "", &max));
	EXPECT_EQ(-EINVAL, gen_ai_set(&g, "shard_mib", "16777217", &max));
	EXPECT_EQ(-EINVAL, gen_ai_set(&g, "steps", "99999999999999999999", &max));
	EXPECT_EQ(0, g.shards_per_step);
	EXPECT_EQ(GEN_MIB_MAX, g.shard_mib);
	EXPECT_EQ(123, g.steps);
	EXPECT_EQ(-ENOENT, gen_ai_set(&g, "seed", "1", &max));
	EXPECT_EQ(-ENOENT, gen_ai_set(&g, "node", "1", &max));
	EXPECT_EQ(-ENOENT, gen_ai_set(&g, "", "1", &max));
}

TEST_HARNESS_MAIN
