// SPDX-License-Identifier: GPL-2.0
/*
 * The one URI resolver (helper/lib/resolve.c).  Four copies of it (the
 * daemon's resolve(), hcfetch, preload's listing, flush/restore's
 * ds_backend_open()) disagreed; each disagreement has a test here:
 *   - an empty key after BUCKET/ (only the daemon refused it),
 *   - the bucket rules of hypercache://NAME/BUCKET/ (hcfetch skipped them),
 *   - prefixes parsed as "prefix + x", so that a message about
 *     --prefix s3://bkt quoted 's3://bktx' (preload and flush),
 *   - s3:// with a posix default backend.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "kselftest_harness.h"
#include "resolve.h"

static const char conf[] =
	"[hypercached]\n"
	"default_backend = aws\n"
	"[backend aws]\n"
	"type = s3\n"
	"endpoint = http://127.0.0.1:9000\n"
	"[backend ceph]\n"
	"type = s3\n"
	"endpoint = http://127.0.0.1:9001\n"
	"[backend nfs]\n"
	"type = posix\n"
	"root = /srv/nfs\n";

FIXTURE(res) {
	struct hc_config *cfg;
	struct hc_target t;
	char err[512];
};

FIXTURE_SETUP(res)
{
	self->cfg = calloc(1, sizeof(*self->cfg));
	ASSERT_NE(NULL, self->cfg);
	ASSERT_EQ(0, hc_config_parse(conf, "t.conf", self->cfg, self->err,
				     sizeof(self->err))) TH_LOG("%s", self->err);
	self->err[0] = '\0';
}

FIXTURE_TEARDOWN(res)
{
	free(self->cfg);
}

static int resolve(struct _test_data_res *self, const char *s, unsigned int flags)
{
	return hc_resolve(self->cfg, s, strlen(s), flags, &self->t, self->err,
			  sizeof(self->err));
}

TEST_F(res, s3_default_backend)
{
	ASSERT_EQ(0, resolve(self, "s3://bkt/a/b", 0)) TH_LOG("%s", self->err);
	EXPECT_STREQ("aws", self->t.b->name);
	EXPECT_STREQ("bkt", self->t.bucket);
	EXPECT_EQ(3, self->t.key_len);
	EXPECT_EQ(0, memcmp(self->t.key, "a/b", 3));
	EXPECT_EQ(strlen("s3://bkt/"), self->t.head_len);
}

TEST_F(res, named_s3_backend_takes_the_bucket_from_the_key)
{
	ASSERT_EQ(0, resolve(self, "hypercache://ceph/bkt/k/x", 0)) TH_LOG("%s", self->err);
	EXPECT_STREQ("ceph", self->t.b->name);
	EXPECT_STREQ("bkt", self->t.bucket);
	EXPECT_STREQ("k/x", self->t.key);
	EXPECT_EQ(strlen("hypercache://ceph/bkt/"), self->t.head_len);
}

TEST_F(res, posix_backend_keeps_the_whole_key)
{
	ASSERT_EQ(0, resolve(self, "hypercache://nfs/bkt/k", 0)) TH_LOG("%s", self->err);
	EXPECT_EQ(HC_BACKEND_POSIX, self->t.b->type);
	EXPECT_STREQ("", self->t.bucket);
	EXPECT_STREQ("bkt/k", self->t.key);
	EXPECT_EQ(strlen("hypercache://nfs/"), self->t.head_len);
}

/* hcfetch accepted hypercache://ceph/bkt/ and fetched the key "". */
TEST_F(res, empty_key_after_the_bucket_only_as_a_prefix)
{
	EXPECT_EQ(-EINVAL, resolve(self, "hypercache://ceph/bkt/", 0));
	EXPECT_NE(NULL, strstr(self->err, "key is empty"))
		TH_LOG("%s", self->err);
	ASSERT_EQ(0, resolve(self, "hypercache://ceph/bkt/", HC_RESOLVE_PREFIX))
		TH_LOG("%s", self->err);
	EXPECT_STREQ("bkt", self->t.bucket);
	EXPECT_EQ(0, self->t.key_len);
	EXPECT_EQ(-EINVAL, resolve(self, "s3://bkt/", 0));
	EXPECT_EQ(0, resolve(self, "s3://bkt/", HC_RESOLVE_PREFIX));
	EXPECT_EQ(0, resolve(self, "hypercache://nfs/", HC_RESOLVE_PREFIX));
}

/* hcfetch did not check the bucket of hypercache://NAME/BUCKET/KEY. */
TEST_F(res, named_bucket_obeys_the_bucket_rules)
{
	EXPECT_EQ(-EINVAL, resolve(self, "hypercache://ceph/Bad_Bucket/k", 0));
	EXPECT_NE(NULL, strstr(self->err, "upper-case")) TH_LOG("%s", self->err);
	EXPECT_EQ(-EINVAL, resolve(self, "hypercache://ceph/ab/k", 0));
	EXPECT_NE(NULL, strstr(self->err, "length 2")) TH_LOG("%s", self->err);
	EXPECT_EQ(-EINVAL, resolve(self, "hypercache://ceph//k", 0));
	EXPECT_EQ(-EINVAL, resolve(self,
		"hypercache://ceph/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/k", 0));
	EXPECT_NE(NULL, strstr(self->err, "bucket longer than 63")) TH_LOG("%s", self->err);
}

/* preload and flush parsed "PREFIX" + "x": the message said 's3://bktx'. */
TEST_F(res, prefix_messages_quote_the_prefix_as_given)
{
	EXPECT_EQ(-EINVAL, resolve(self, "s3://bkt", HC_RESOLVE_PREFIX));
	EXPECT_NE(NULL, strstr(self->err, "'s3://bkt'")) TH_LOG("%s", self->err);
	EXPECT_EQ(NULL, strstr(self->err, "bktx")) TH_LOG("%s", self->err);
	EXPECT_EQ(-EINVAL, resolve(self, "hypercache://ceph", HC_RESOLVE_PREFIX));
	EXPECT_NE(NULL, strstr(self->err, "'hypercache://ceph'")) TH_LOG("%s", self->err);
	EXPECT_EQ(-EINVAL, resolve(self, "hypercache://ceph/bkt", HC_RESOLVE_PREFIX));
	EXPECT_NE(NULL, strstr(self->err, "backend ceph is s3: the URI is hypercache://ceph/BUCKET/PREFIX"))
		TH_LOG("%s", self->err);
}

TEST_F(res, backends_must_exist_and_fit_the_scheme)
{
	EXPECT_EQ(-ENXIO, resolve(self, "hypercache://zzz/a", 0));
	EXPECT_NE(NULL, strstr(self->err, "no [backend zzz]")) TH_LOG("%s", self->err);
	strcpy(self->cfg->default_backend, "nfs");
	EXPECT_EQ(-ENXIO, resolve(self, "s3://bkt/a", 0));
	EXPECT_NE(NULL, strstr(self->err, "default_backend nfs is posix")) TH_LOG("%s", self->err);
	strcpy(self->cfg->default_backend, "none");
	EXPECT_EQ(-ENXIO, resolve(self, "s3://bkt/a", 0));
	EXPECT_NE(NULL, strstr(self->err, "no [backend none]")) TH_LOG("%s", self->err);
	EXPECT_EQ(-EINVAL, resolve(self, "ftp://x/y", 0));
	EXPECT_NE(NULL, strstr(self->err, "scheme")) TH_LOG("%s", self->err);
	EXPECT_EQ(-EINVAL, hc_resolve(self->cfg, "s3://bkt/a", 10, 0x80, &self->t, NULL, 0));
}

TEST_HARNESS_MAIN
