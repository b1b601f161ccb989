// SPDX-License-Identifier: GPL-2.0
/*
 * Object URIs: both schemes, the S3 bucket naming rules, key bounds, and
 * that each refusal names what is wrong.
 */
#include <errno.h>
#include <string.h>
#include "kselftest_harness.h"
#include "uri.h"

static int parse(const char *s, struct uri *u, char *err)
{
	return uri_parse(s, strlen(s), u, err, 256);
}

TEST(s3_uri)
{
	struct uri u;
	char err[256] = "";

	ASSERT_EQ(0, parse("s3://my-bucket.v2/models/llama/7b.safetensors", &u, err))
		TH_LOG("%s", err);
	EXPECT_EQ(URI_S3, u.scheme);
	EXPECT_STREQ("my-bucket.v2", u.bucket);
	EXPECT_STREQ("", u.backend);
	EXPECT_STREQ("models/llama/7b.safetensors", u.key);
	EXPECT_EQ(strlen("models/llama/7b.safetensors"), u.key_len);
}

TEST(named_uri)
{
	struct uri u;
	char err[256] = "";

	ASSERT_EQ(0, parse("hypercache://ceph_rgw-2/ckpt/step 100/a?b#c", &u, err))
		TH_LOG("%s", err);
	EXPECT_EQ(URI_NAMED, u.scheme);
	EXPECT_STREQ("ceph_rgw-2", u.backend);
	EXPECT_STREQ("", u.bucket);
	EXPECT_STREQ("ckpt/step 100/a?b#c", u.key);	/* literal, no decoding */
}

TEST(keys_keep_slashes_and_dots)
{
	struct uri u;
	char err[256];

	ASSERT_EQ(0, parse("s3://abc//a/../b/", &u, err));
	EXPECT_STREQ("/a/../b/", u.key);
}

TEST(bucket_bounds)
{
	char b[70], err[256];

	memset(b, 'a', sizeof(b));
	b[3] = '\0';
	EXPECT_EQ(0, uri_bucket_check(b, err, sizeof(err)));
	b[2] = '\0';
	EXPECT_EQ(-EINVAL, uri_bucket_check(b, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "length 2")) TH_LOG("%s", err);
	b[2] = b[3] = 'a';
	b[63] = '\0';
	EXPECT_EQ(0, uri_bucket_check(b, err, sizeof(err)));
	b[63] = 'a';
	b[64] = '\0';
	EXPECT_EQ(-EINVAL, uri_bucket_check(b, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "length 64")) TH_LOG("%s", err);
}

static const struct {
	const char *uri;
	const char *why;	/* a word the message must contain */
} bad[] = {
	{ "http://bucket/key", "scheme" },
	{ "S3://bucket/key", "scheme" },
	{ "s3:/bucket/key", "scheme" },
	{ "s3://bucket", "no '/'" },
	{ "s3://bucket/", "key is empty" },
	{ "s3:///key", "length 0" },
	{ "s3://ab/key", "length 2" },
	{ "s3://Bucket/key", "upper-case" },
	{ "s3://my_bucket/key", "0x5f" },
	{ "s3://my..bucket/key", "adjacent dots" },
	{ "s3://-bucket/key", "begin and end" },
	{ "s3://bucket-/key", "begin and end" },
	{ "s3://.bucket/key", "begin and end" },
	{ "s3://192.168.5.4/key", "IP address" },
	{ "s3://xn--bucket/key", "xn--" },
	{ "s3://bucket-s3alias/key", "-s3alias" },
	{ "s3://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/k", "longer than 63" },
	{ "hypercache:///key", "length 0" },
	{ "hypercache://cEph/key", "0x45" },
	{ "hypercache://-ceph/key", "begin with" },
	{ "hypercache://ce.ph/key", "0x2e" },
	{ "hypercache://ceph", "no '/'" },
	{ "hypercache://ceph/", "key is empty" },
};

TEST(bad_uris_say_why)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct uri u;
		char err[256] = "";

		EXPECT_EQ(-EINVAL, parse(bad[i].uri, &u, err)) TH_LOG("%s", bad[i].uri);
		EXPECT_NE(NULL, strstr(err, bad[i].why))
			TH_LOG("%s: '%s' lacks '%s'", bad[i].uri, err, bad[i].why);
	}
}

TEST(ip_like_but_not_ip_is_fine)
{
	struct uri u;
	char err[256] = "";

	EXPECT_EQ(0, parse("s3://192.168.5.4a/key", &u, err)) TH_LOG("%s", err);
	EXPECT_EQ(0, parse("s3://1.2.3/key", &u, err)) TH_LOG("%s", err);
	EXPECT_EQ(0, parse("s3://1.2.3.4.5/key", &u, err)) TH_LOG("%s", err);
}

TEST(key_bounds_and_nul)
{
	static char buf[8 + 1 + URI_KEY_MAX + 2];
	struct uri u;
	char err[256] = "";
	size_t n;

	n = (size_t)sprintf(buf, "s3://bkt/");
	memset(buf + n, 'k', URI_KEY_MAX + 1);
	EXPECT_EQ(0, uri_parse(buf, n + URI_KEY_MAX, &u, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(URI_KEY_MAX, u.key_len);
	EXPECT_EQ(URI_KEY_MAX, strlen(u.key));
	EXPECT_EQ(-EINVAL, uri_parse(buf, n + URI_KEY_MAX + 1, &u, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "1025 bytes, at most 1024")) TH_LOG("%s", err);

	EXPECT_EQ(-EINVAL, uri_parse("s3://bkt/a\0b", 12, &u, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "NUL byte at 1")) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, uri_parse("s3://b\0t/ab", 11, &u, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "bucket contains a NUL")) TH_LOG("%s", err);
}

/* A prefix may have an empty key; messages quote it as given. */
TEST(prefix_may_be_empty)
{
	struct uri u;
	char err[256] = "";

	ASSERT_EQ(0, uri_parse_prefix("s3://bkt/", 9, &u, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(0, u.key_len);
	EXPECT_STREQ("bkt", u.bucket);
	ASSERT_EQ(0, uri_parse_prefix("hypercache://nfs/ds/sh", 22, &u, err, sizeof(err)));
	EXPECT_STREQ("ds/sh", u.key);
	EXPECT_EQ(-EINVAL, uri_parse_prefix("s3://bkt", 8, &u, err, sizeof(err)));
	EXPECT_STREQ("'s3://bkt': no '/' before the key", err);
	EXPECT_EQ(-EINVAL, uri_parse("s3://bkt/", 9, &u, err, sizeof(err)));
}

TEST(err_may_be_null)
{
	struct uri u;

	EXPECT_EQ(-EINVAL, uri_parse("s3://x/k", 8, &u, NULL, 0));
	EXPECT_EQ(-EINVAL, uri_parse(NULL, 0, &u, NULL, 0));
}

TEST_HARNESS_MAIN
