// SPDX-License-Identifier: GPL-2.0
/*
 * The SCR-style dataset flush's documents and decisions (helper/lib/flushdoc.c):
 * summary and index round trips, invalid summaries refused, an index
 * update that keeps the older datasets, the choice of the dataset to
 * restore with incomplete and corrupt datasets, the step machine.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kselftest_harness.h"
#include "flushdoc.h"

static void make_summary(struct hcf_summary *s, const char *name)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->complete = true;
	s->time = 1700000000;
	hcf_summary_add(s, "rank1/model.pt", 4194305, 0xdeadbeef, 7);
	hcf_summary_add(s, "a.bin", 0, 0, 3);
	hcf_summary_add(s, "big", 5ULL << 40, 0xffffffff, UINT64_MAX);
	hcf_summary_sort(s);
}

TEST(split)
{
	char name[HCF_NAME_MAX + 1], err[256];
	size_t pl;

	ASSERT_EQ(0, hcf_split("s3://bkt/ckpt/run1/step-100/", &pl, name, err, sizeof(err)));
	EXPECT_STREQ("step-100", name);
	EXPECT_EQ(strlen("s3://bkt/ckpt/run1/"), pl);
	ASSERT_EQ(0, hcf_split("hypercache://store/step-1/", &pl, name, err, sizeof(err)));
	EXPECT_STREQ("step-1", name);
	EXPECT_EQ(-EINVAL, hcf_split("s3://bkt/ckpt/step-1", &pl, name, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "ends in '/'"));
	EXPECT_EQ(-EINVAL, hcf_split("s3://bkt/", &pl, name, err, sizeof(err)));
	EXPECT_EQ(-EINVAL, hcf_split("s3://bkt//", &pl, name, err, sizeof(err)));
	EXPECT_EQ(-EINVAL, hcf_split("s3://bkt/../", &pl, name, err, sizeof(err)));
	EXPECT_EQ(-EINVAL, hcf_split("step/", &pl, name, err, sizeof(err)));
}

TEST(keys)
{
	EXPECT_TRUE(hcf_key_ok("a"));
	EXPECT_TRUE(hcf_key_ok("a/b/c.pt"));
	EXPECT_TRUE(hcf_key_ok(".hidden"));
	EXPECT_FALSE(hcf_key_ok(""));
	EXPECT_FALSE(hcf_key_ok("/a"));
	EXPECT_FALSE(hcf_key_ok("a//b"));
	EXPECT_FALSE(hcf_key_ok("a/"));
	EXPECT_FALSE(hcf_key_ok("a/../b"));
	EXPECT_FALSE(hcf_key_ok("./a"));
	EXPECT_FALSE(hcf_key_ok(".hypercache/summary.json"));
}

TEST(summary_round_trip)
{
	struct hcf_summary s, d;
	char err[256], *text;

	make_summary(&s, "step-100");
	EXPECT_EQ(3, s.nfiles);
	EXPECT_EQ(4194305 + (5ULL << 40), s.bytes);
	text = hcf_summary_encode(&s);
	ASSERT_NE(NULL, text);
	EXPECT_NE(NULL, strstr(text, "\"file_count\""));
	EXPECT_NE(NULL, strstr(text, "\"rank1/model.pt\""));	/* '/' not escaped */
	ASSERT_EQ(0, hcf_summary_decode(text, strlen(text), "step-100", &d, err,
					sizeof(err))) TH_LOG("%s", err);
	EXPECT_STREQ("step-100", d.name);
	EXPECT_TRUE(d.complete);
	EXPECT_EQ(s.time, d.time);
	EXPECT_EQ(s.bytes, d.bytes);
	ASSERT_EQ(3, d.nfiles);
	EXPECT_STREQ("a.bin", d.files[0].key);
	EXPECT_STREQ("big", d.files[1].key);
	EXPECT_EQ(5ULL << 40, d.files[1].size);
	EXPECT_EQ(0xffffffff, d.files[1].crc32);
	EXPECT_EQ(UINT64_MAX, d.files[1].generation);
	EXPECT_EQ(0xdeadbeef, hcf_summary_find(&d, "rank1/model.pt")->crc32);
	EXPECT_EQ(NULL, hcf_summary_find(&d, "nope"));
	EXPECT_TRUE(hcf_summary_same_files(&s, &d));
	d.files[2].generation++;
	EXPECT_FALSE(hcf_summary_same_files(&s, &d));
	/* another dataset's summary is not this one's */
	hcf_summary_free(&d);
	EXPECT_EQ(-EINVAL, hcf_summary_decode(text, strlen(text), "step-200", &d,
					      err, sizeof(err)));
	free(text);
	hcf_summary_free(&s);
	/* an empty dataset is a dataset */
	memset(&s, 0, sizeof(s));
	strcpy(s.name, "empty");
	s.complete = true;
	text = hcf_summary_encode(&s);
	ASSERT_EQ(0, hcf_summary_decode(text, strlen(text), NULL, &d, err, sizeof(err)));
	EXPECT_EQ(0, d.nfiles);
	hcf_summary_free(&d);
	free(text);
}

/* Each of these is not a valid summary of dataset "s": refused. */
TEST(summary_invalid)
{
	static const char *const bad[] = {
		"",
		"{",
		"[]",
		"{\"format\":1}",
		"{\"format\":1,\"dataset\":\"s\",\"complete\":true,\"time\":\"t\",\"flushed_at\":1,\"bytes\":0,\"file_count\":0}",
		"{\"format\":2,\"dataset\":\"s\",\"complete\":true,\"time\":\"t\",\"flushed_at\":1,\"bytes\":0,\"file_count\":0,\"files\":[]}",
		"{\"format\":1,\"dataset\":\"s\",\"complete\":false,\"time\":\"t\",\"flushed_at\":1,\"bytes\":0,\"file_count\":0,\"files\":[]}",
		"{\"format\":1,\"dataset\":\"x\",\"complete\":true,\"time\":\"t\",\"flushed_at\":1,\"bytes\":0,\"file_count\":0,\"files\":[]}",
		"{\"format\":1,\"dataset\":\"s\",\"complete\":true,\"flushed_at\":1,\"bytes\":0,\"file_count\":0,\"files\":[]}",
		"{\"format\":1,\"dataset\":\"s\",\"complete\":true,\"time\":\"t\",\"flushed_at\":1,\"bytes\":1,\"file_count\":0,\"files\":[]}",
		"{\"format\":1,\"dataset\":\"s\",\"complete\":true,\"time\":\"t\",\"flushed_at\":1,\"bytes\":0,\"file_count\":1,\"files\":[]}",
		"{\"format\":1,\"dataset\":\"s\",\"complete\":true,\"time\":\"t\",\"flushed_at\":1,\"bytes\":1,\"file_count\":1,\"files\":[{\"key\":\"a\",\"size\":1,\"crc32\":4294967296,\"generation\":1}]}",
		"{\"format\":1,\"dataset\":\"s\",\"complete\":true,\"time\":\"t\",\"flushed_at\":1,\"bytes\":1,\"file_count\":1,\"files\":[{\"key\":\"a\",\"size\":-1,\"crc32\":1,\"generation\":1}]}",
		"{\"format\":1,\"dataset\":\"s\",\"complete\":true,\"time\":\"t\",\"flushed_at\":1,\"bytes\":1,\"file_count\":1,\"files\":[{\"key\":\"../a\",\"size\":1,\"crc32\":1,\"generation\":1}]}",
		"{\"format\":1,\"dataset\":\"s\",\"complete\":true,\"time\":\"t\",\"flushed_at\":1,\"bytes\":1,\"file_count\":1,\"files\":[{\"size\":1,\"crc32\":1,\"generation\":1}]}",
		"{\"format\":1,\"dataset\":\"s\",\"complete\":true,\"time\":\"t\",\"flushed_at\":1,\"bytes\":2,\"file_count\":2,\"files\":[{\"key\":\"a\",\"size\":1,\"crc32\":1,\"generation\":1},{\"key\":\"a\",\"size\":1,\"crc32\":1,\"generation\":1}]}",
		"{\"format\":1,\"dataset\":\"s\",\"complete\":true,\"time\":\"t\",\"flushed_at\":1,\"bytes\":1,\"file_count\":1,\"files\":[{\"key\":\"a\",\"size\":\"1\",\"crc32\":1,\"generation\":1}]}",
		"{\"format\":1,\"dataset\":\"s\",\"complete\":true,\"time\":\"t\",\"flushed_at\":1,\"bytes\":1,\"file_count\":1,\"files\":[{\"key\":\"a\",\"size\":1,\"crc32\":1,\"generation\":1}]} trailing",
	};
	static const char good[] =
		"{\"format\":1,\"dataset\":\"s\",\"complete\":true,\"time\":\"t\",\"flushed_at\":1,\"bytes\":1,\"file_count\":1,\"files\":[{\"key\":\"a\",\"size\":1,\"crc32\":4294967295,\"generation\":1}]}";
	struct hcf_summary d;
	char err[256];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = 0;
		EXPECT_EQ(-EINVAL, hcf_summary_decode(bad[i], strlen(bad[i]), "s",
						      &d, err, sizeof(err)))
			TH_LOG("bad[%zu] accepted", i);
		EXPECT_NE(0, err[0]);
		EXPECT_EQ(0, d.nfiles);
	}
	ASSERT_EQ(0, hcf_summary_decode(good, strlen(good), "s", &d, err, sizeof(err)))
		TH_LOG("%s", err);
	hcf_summary_free(&d);
	/* truncated anywhere: refused */
	for (i = 0; i < strlen(good); i++)
		EXPECT_EQ(-EINVAL, hcf_summary_decode(good, i, "s", &d, err, sizeof(err)));
}

TEST(index_update_keeps_old_entries)
{
	struct hcf_index ix, d;
	char err[256], *text;

	ASSERT_EQ(0, hcf_index_decode("", 0, &ix, err, sizeof(err)));
	EXPECT_EQ(0, ix.n);
	EXPECT_STREQ("", ix.current);
	ASSERT_EQ(0, hcf_index_publish(&ix, "step-1", 100, 10, 2));
	ASSERT_EQ(0, hcf_index_publish(&ix, "step-2", 200, 20, 3));
	text = hcf_index_encode(&ix);
	ASSERT_NE(NULL, text);
	hcf_index_free(&ix);
	ASSERT_EQ(0, hcf_index_decode(text, strlen(text), &d, err, sizeof(err)))
		TH_LOG("%s", err);
	free(text);
	EXPECT_STREQ("step-2", d.current);
	ASSERT_EQ(2, d.n);
	EXPECT_STREQ("step-1", d.v[0].name);
	EXPECT_TRUE(d.v[0].complete);
	EXPECT_EQ(100, d.v[0].flushed_at);
	EXPECT_EQ(10, d.v[0].bytes);
	EXPECT_EQ(2, d.v[0].files);
	EXPECT_LT(d.v[0].id, d.v[1].id);
	/* step-3: added, current; the others kept */
	ASSERT_EQ(0, hcf_index_publish(&d, "step-3", 300, 30, 4));
	EXPECT_EQ(3, d.n);
	EXPECT_STREQ("step-3", d.current);
	EXPECT_TRUE(hcf_index_find(&d, "step-1")->complete);
	EXPECT_TRUE(hcf_index_find(&d, "step-2")->complete);
	/* flushing step-3 again: it is incomplete, step-2 current meanwhile */
	EXPECT_TRUE(hcf_index_unpublish(&d, "step-3"));
	EXPECT_FALSE(hcf_index_find(&d, "step-3")->complete);
	EXPECT_STREQ("step-2", d.current);
	EXPECT_FALSE(hcf_index_unpublish(&d, "step-3"));
	EXPECT_FALSE(hcf_index_unpublish(&d, "step-9"));
	/* republished: newest again */
	ASSERT_EQ(0, hcf_index_publish(&d, "step-3", 400, 31, 4));
	EXPECT_EQ(3, d.n);
	EXPECT_STREQ("step-3", d.current);
	EXPECT_EQ(31, hcf_index_find(&d, "step-3")->bytes);
	EXPECT_GT(hcf_index_find(&d, "step-3")->id, hcf_index_find(&d, "step-2")->id);
	/* unpublishing a non-current one keeps current */
	EXPECT_TRUE(hcf_index_unpublish(&d, "step-1"));
	EXPECT_STREQ("step-3", d.current);
	hcf_index_free(&d);

	/* bad indexes */
	EXPECT_EQ(-EINVAL, hcf_index_decode("{}", 2, &d, err, sizeof(err)));
	text = "{\"format\":1,\"current\":\"x\",\"datasets\":[]}";
	EXPECT_EQ(-EINVAL, hcf_index_decode(text, strlen(text), &d, err, sizeof(err)));
	text = "{\"format\":1,\"current\":null,\"datasets\":[]}";
	EXPECT_EQ(0, hcf_index_decode(text, strlen(text), &d, err, sizeof(err)));
	hcf_index_free(&d);
}

struct fake {
	const char *bad[8];	/* datasets whose summary does not verify */
	char tried[256];
};

static int fake_verify(const struct hcf_entry *e, void *arg)
{
	struct fake *f = arg;
	size_t i;

	strcat(f->tried, e->name);
	strcat(f->tried, " ");
	for (i = 0; i < 8 && f->bad[i]; i++)
		if (!strcmp(f->bad[i], e->name))
			return -EINVAL;
	return 0;
}

static long choose(struct hcf_index *ix, const char *only, struct fake *f)
{
	f->tried[0] = 0;
	return hcf_restore_choose(ix, only, fake_verify, f);
}

TEST(restore_choice)
{
	struct hcf_index ix = { 0 };
	struct fake f = { 0 };
	long i;

	EXPECT_EQ(-1, choose(&ix, NULL, &f));
	hcf_index_publish(&ix, "s1", 1, 1, 1);
	hcf_index_publish(&ix, "s2", 2, 1, 1);
	hcf_index_publish(&ix, "s3", 3, 1, 1);
	hcf_index_publish(&ix, "s4", 4, 1, 1);
	i = choose(&ix, NULL, &f);
	EXPECT_STREQ("s4", ix.v[i].name);
	EXPECT_STREQ("s4 ", f.tried);
	/* the current one's summary does not verify: walk back */
	f.bad[0] = "s4";
	f.bad[1] = "s3";
	i = choose(&ix, NULL, &f);
	EXPECT_STREQ("s2", ix.v[i].name);
	EXPECT_STREQ("s4 s3 s2 ", f.tried);
	/* incomplete ones are skipped without being tried */
	f.bad[0] = f.bad[1] = NULL;
	hcf_index_find(&ix, "s3")->complete = false;
	hcf_index_unpublish(&ix, "s4");	/* current falls back to s2 */
	EXPECT_STREQ("s2", ix.current);
	i = choose(&ix, NULL, &f);
	EXPECT_STREQ("s2", ix.v[i].name);
	EXPECT_STREQ("s2 ", f.tried);
	f.bad[0] = "s2";
	i = choose(&ix, NULL, &f);
	EXPECT_STREQ("s1", ix.v[i].name);
	EXPECT_STREQ("s2 s1 ", f.tried);
	/* nothing verifies */
	f.bad[1] = "s1";
	EXPECT_EQ(-1, choose(&ix, NULL, &f));
	/* --dataset: that one only */
	f.bad[0] = f.bad[1] = NULL;
	i = choose(&ix, "s1", &f);
	EXPECT_STREQ("s1", ix.v[i].name);
	EXPECT_STREQ("s1 ", f.tried);
	EXPECT_EQ(-1, choose(&ix, "s3", &f));	/* incomplete */
	EXPECT_EQ(-1, choose(&ix, "s9", &f));
	f.bad[0] = "s1";
	EXPECT_EQ(-1, choose(&ix, "s1", &f));
	/* no current: the newest complete one first */
	f.bad[0] = NULL;
	ix.current[0] = 0;
	hcf_index_find(&ix, "s4")->complete = true;
	i = choose(&ix, NULL, &f);
	EXPECT_STREQ("s4", ix.v[i].name);
	hcf_index_free(&ix);
}

TEST(steps_plan_state)
{
	struct hcf_index ix = { 0 };
	struct hcf_summary a, b;
	enum hcf_step s = HCF_STEP_START;
	int n = 0;

	while (s != HCF_STEP_DONE) {
		s = hcf_step_next(s);
		n++;
	}
	EXPECT_EQ(5, n);
	EXPECT_EQ(HCF_STEP_DONE, hcf_step_next(HCF_STEP_DONE));
	EXPECT_STREQ("summary written", hcf_step_name(HCF_STEP_SUMMARY));
	EXPECT_EQ(HCF_STEP_START, hcf_crash_after(NULL));
	EXPECT_EQ(HCF_STEP_START, hcf_crash_after(""));
	EXPECT_EQ(HCF_STEP_START, hcf_crash_after("0"));
	EXPECT_EQ(HCF_STEP_START, hcf_crash_after("6"));
	EXPECT_EQ(HCF_STEP_START, hcf_crash_after("12"));
	EXPECT_EQ(HCF_STEP_MARKED, hcf_crash_after("1"));
	EXPECT_EQ(HCF_STEP_DONE, hcf_crash_after("5"));

	make_summary(&a, "s");
	make_summary(&b, "s");
	EXPECT_EQ(HCF_PLAN_FLUSH, hcf_plan(&ix, "s", false, &a, &b));
	hcf_index_publish(&ix, "s", 1, a.bytes, a.nfiles);
	EXPECT_EQ(HCF_PLAN_DONE, hcf_plan(&ix, "s", false, &a, &b));
	EXPECT_EQ(HCF_PLAN_FLUSH, hcf_plan(&ix, "s", true, &a, &b));	/* redo */
	EXPECT_EQ(HCF_PLAN_FLUSH, hcf_plan(&ix, "s", false, NULL, &b));
	b.files[0].generation++;
	EXPECT_EQ(HCF_PLAN_FLUSH, hcf_plan(&ix, "s", false, &a, &b));

	EXPECT_EQ(HCF_FLUSHED, hcf_state(&ix, "s", false, false));
	EXPECT_EQ(HCF_INTERRUPTED, hcf_state(&ix, "s", true, false));
	EXPECT_EQ(HCF_FLUSHING, hcf_state(&ix, "s", true, true));
	EXPECT_EQ(HCF_NOT_FLUSHED, hcf_state(&ix, "t", false, false));
	EXPECT_STREQ("interrupted", hcf_state_name(HCF_INTERRUPTED));
	hcf_summary_free(&a);
	hcf_summary_free(&b);
	hcf_index_free(&ix);
}

TEST(marker)
{
	char *m = hcf_marker_encode("step-3", 1700000000, 42, "node1");

	ASSERT_NE(NULL, m);
	EXPECT_NE(NULL, strstr(m, "step-3"));
	EXPECT_NE(NULL, strstr(m, "2023-11-14T22:13:20Z"));
	free(m);
}

TEST_HARNESS_MAIN
