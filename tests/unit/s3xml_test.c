// SPDX-License-Identifier: GPL-2.0
/*
 * S3 XML bodies: error documents as S3 and radosgw send them, the errno
 * table, ListObjectsV2 pages (with and without namespace, truncated, empty),
 * malformed XML and missing or bad fields.
 */
#include <errno.h>
#include <string.h>
#include <libxml/parser.h>
#include "kselftest_harness.h"
#include "s3xml.h"

#define P(s) s, strlen(s)

static const char aws_nosuchkey[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message>"
	"<Key>models/7b.bin</Key><RequestId>4442587FB7D0A2F9</RequestId>"
	"<HostId>b4Ah+V4y0=</HostId></Error>";

static const char rgw_sig[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
	"<Error><Code>SignatureDoesNotMatch</Code><Message></Message>"
	"<BucketName>ckpt</BucketName><RequestId>tx00000a1b2c3d4e5f-0065</RequestId>"
	"<HostId>1234-default-default</HostId></Error>";

TEST(error_document)
{
	struct s3xml_error e;
	char err[256];

	ASSERT_EQ(0, s3xml_error_parse(P(aws_nosuchkey), &e, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_STREQ("NoSuchKey", e.code);
	EXPECT_STREQ("The specified key does not exist.", e.message);
	EXPECT_EQ(ENOENT, s3xml_code_errno(e.code));

	ASSERT_EQ(0, s3xml_error_parse(P(rgw_sig), &e, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_STREQ("SignatureDoesNotMatch", e.code);
	EXPECT_STREQ("", e.message);
	EXPECT_EQ(EACCES, s3xml_code_errno(e.code));
}

TEST(error_entities_and_no_message)
{
	static const char doc[] =
		"<Error><Code>SlowDown</Code><Message>Please &amp; reduce &lt;rate&gt;</Message></Error>";
	static const char nomsg[] = "<Error><Code>InternalError</Code></Error>";
	struct s3xml_error e;

	ASSERT_EQ(0, s3xml_error_parse(P(doc), &e, NULL, 0));
	EXPECT_STREQ("Please & reduce <rate>", e.message);
	EXPECT_EQ(EAGAIN, s3xml_code_errno(e.code));
	ASSERT_EQ(0, s3xml_error_parse(P(nomsg), &e, NULL, 0));
	EXPECT_STREQ("", e.message);
	EXPECT_EQ(EIO, s3xml_code_errno(e.code));
}

TEST(errno_table)
{
	EXPECT_EQ(ENOENT, s3xml_code_errno("NoSuchKey"));
	EXPECT_EQ(ENOENT, s3xml_code_errno("NoSuchBucket"));
	EXPECT_EQ(EACCES, s3xml_code_errno("AccessDenied"));
	EXPECT_EQ(EACCES, s3xml_code_errno("SignatureDoesNotMatch"));
	EXPECT_EQ(EACCES, s3xml_code_errno("InvalidAccessKeyId"));
	EXPECT_EQ(EACCES, s3xml_code_errno("AllAccessDisabled"));
	EXPECT_EQ(EACCES, s3xml_code_errno("AccountProblem"));
	/* a URI the backend refuses: permanent for an upload */
	EXPECT_EQ(EINVAL, s3xml_code_errno("InvalidBucketName"));
	EXPECT_EQ(EINVAL, s3xml_code_errno("InvalidURI"));
	EXPECT_EQ(EINVAL, s3xml_code_errno("InvalidArgument"));
	EXPECT_EQ(ENAMETOOLONG, s3xml_code_errno("KeyTooLongError"));
	EXPECT_EQ(EFBIG, s3xml_code_errno("EntityTooLarge"));
	EXPECT_EQ(EAGAIN, s3xml_code_errno("SlowDown"));
	EXPECT_EQ(EIO, s3xml_code_errno("InternalError"));
	EXPECT_EQ(EIO, s3xml_code_errno("BadDigest"));	/* a retry re-reads */
	EXPECT_EQ(EIO, s3xml_code_errno("PreconditionFailed"));
	EXPECT_EQ(EIO, s3xml_code_errno("nosuchkey"));	/* codes are case-sensitive */
	EXPECT_EQ(EIO, s3xml_code_errno(""));
	EXPECT_EQ(EIO, s3xml_code_errno(NULL));
}

TEST(error_bad_documents)
{
	static const struct {
		const char *doc;
		const char *why;
	} bad[] = {
		{ "", "malformed XML" },
		{ "not xml at all", "malformed XML" },
		{ "<Error><Code>NoSuchKey</Code>", "malformed XML" },
		{ "<Error><Code>NoSuchKey</Cod></Error>", "malformed XML" },
		{ "<Error><Message>m</Message></Error>", "no <Code>" },
		{ "<Error><Code></Code></Error>", "no <Code>" },
		{ "<ListBucketResult/>", "root element is <ListBucketResult>" },
		{ "<!DOCTYPE Error [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
		  "<Error><Code>&x;</Code></Error>", "no <Code>" },
	};
	struct s3xml_error e;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		char err[256] = "";

		EXPECT_EQ(-EBADMSG, s3xml_error_parse(P(bad[i].doc), &e, err, sizeof(err)))
			TH_LOG("#%zu", i);
		EXPECT_NE(NULL, strstr(err, bad[i].why))
			TH_LOG("#%zu: '%s' lacks '%s'", i, err, bad[i].why);
	}
}

/* ------------------------------------------------------------ listings */

struct seen {
	int n;
	char keys[8][64];
	unsigned long long sizes[8];
	char etags[8][64];
	int stop_at;		/* return -ECANCELED at this object, -1: never */
};

static int collect(const struct s3xml_object *o, void *arg)
{
	struct seen *s = arg;

	if (s->n == s->stop_at)
		return -ECANCELED;
	snprintf(s->keys[s->n], 64, "%s", o->key);
	snprintf(s->etags[s->n], 64, "%s", o->etag);
	s->sizes[s->n] = o->size;
	s->n++;
	return 0;
}

static const char page1[] =
	"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	"<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">\n"
	"  <Name>models</Name><Prefix>llama/</Prefix><KeyCount>2</KeyCount>\n"
	"  <MaxKeys>2</MaxKeys><IsTruncated>true</IsTruncated>\n"
	"  <NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>\n"
	"  <Contents><Key>llama/7b.safetensors</Key><LastModified>2024-05-01T10:00:00.000Z</LastModified>\n"
	"    <ETag>&quot;9b2cf535f27731c974343645a3985328-1602&quot;</ETag>\n"
	"    <Size>13476839424</Size><StorageClass>STANDARD</StorageClass></Contents>\n"
	"  <Contents><Key>llama/tokenizer &amp; config.json</Key>\n"
	"    <ETag>\"d41d8cd98f00b204e9800998ecf8427e\"</ETag><Size>0</Size></Contents>\n"
	"</ListBucketResult>";

static const char page2[] =
	"<ListBucketResult><Name>models</Name><KeyCount>1</KeyCount>"
	"<IsTruncated>false</IsTruncated>"
	"<Contents><Key>llama/z</Key><Size>18446744073709551615</Size></Contents>"
	"</ListBucketResult>";

TEST(list_pages)
{
	struct seen s = { .stop_at = -1 };
	struct s3xml_list_page pg;
	char err[256];

	ASSERT_EQ(0, s3xml_list_parse(P(page1), collect, &s, &pg, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_TRUE(pg.truncated);
	EXPECT_STREQ("1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=", pg.next_token);
	EXPECT_EQ(2, pg.count);
	ASSERT_EQ(2, s.n);
	EXPECT_STREQ("llama/7b.safetensors", s.keys[0]);
	EXPECT_EQ(13476839424ULL, s.sizes[0]);
	EXPECT_STREQ("\"9b2cf535f27731c974343645a3985328-1602\"", s.etags[0]);
	EXPECT_STREQ("llama/tokenizer & config.json", s.keys[1]);
	EXPECT_EQ(0, s.sizes[1]);
	s3xml_list_page_free(&pg);

	s.n = 0;
	ASSERT_EQ(0, s3xml_list_parse(P(page2), collect, &s, &pg, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_FALSE(pg.truncated);
	EXPECT_EQ(NULL, pg.next_token);
	ASSERT_EQ(1, s.n);
	EXPECT_EQ(18446744073709551615ULL, s.sizes[0]);
	EXPECT_STREQ("", s.etags[0]);	/* no ETag: empty */
	s3xml_list_page_free(&pg);
}

TEST(list_empty)
{
	static const char doc[] =
		"<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
		"<Name>b</Name><KeyCount>0</KeyCount><IsTruncated>false</IsTruncated>"
		"</ListBucketResult>";
	struct seen s = { .stop_at = -1 };
	struct s3xml_list_page pg;

	ASSERT_EQ(0, s3xml_list_parse(P(doc), collect, &s, &pg, NULL, 0));
	EXPECT_EQ(0, pg.count);
	EXPECT_EQ(0, s.n);
	s3xml_list_page_free(&pg);
}

TEST(list_callback_stops)
{
	struct seen s = { .stop_at = 1 };
	struct s3xml_list_page pg;
	char err[256];

	EXPECT_EQ(-ECANCELED, s3xml_list_parse(P(page1), collect, &s, &pg, err, sizeof(err)));
	EXPECT_EQ(1, s.n);
	EXPECT_EQ(NULL, pg.next_token);		/* nothing to free */
	EXPECT_NE(NULL, strstr(err, "callback")) TH_LOG("%s", err);
}

TEST(list_bad_documents)
{
	static const struct {
		const char *doc;
		const char *why;
	} bad[] = {
		{ "<ListBucketResult><IsTruncated>false</IsTruncated>", "malformed XML" },
		{ "<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>a</Key>"
		  "<Size>1</Size></Contents></ListBucketResult>trailing<x/>", "malformed XML" },
		{ "<Error><Code>NoSuchBucket</Code></Error>", "root element is <Error>" },
		{ "<ListBucketResult></ListBucketResult>", "<IsTruncated> is missing" },
		{ "<ListBucketResult><IsTruncated>yes</IsTruncated></ListBucketResult>",
		  "<IsTruncated> is 'yes'" },
		{ "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",
		  "without <NextContinuationToken>" },
		{ "<ListBucketResult><IsTruncated>false</IsTruncated>"
		  "<Contents><Size>1</Size></Contents></ListBucketResult>", "#0 has no <Key>" },
		{ "<ListBucketResult><IsTruncated>false</IsTruncated>"
		  "<Contents><Key>a</Key><Size>1</Size></Contents>"
		  "<Contents><Key>b</Key></Contents></ListBucketResult>", "#1 (b) has no <Size>" },
		{ "<ListBucketResult><IsTruncated>false</IsTruncated>"
		  "<Contents><Key>a</Key><Size>-1</Size></Contents></ListBucketResult>",
		  "'-1' is not a byte count" },
		{ "<ListBucketResult><IsTruncated>false</IsTruncated>"
		  "<Contents><Key>a</Key><Size>18446744073709551616</Size></Contents></ListBucketResult>",
		  "is not a byte count" },
		{ "<ListBucketResult><IsTruncated>false</IsTruncated>"
		  "<Contents><Key>a</Key><Size> 1</Size></Contents></ListBucketResult>",
		  "is not a byte count" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct seen s = { .stop_at = -1 };
		struct s3xml_list_page pg;
		char err[256] = "";

		EXPECT_EQ(-EBADMSG, s3xml_list_parse(P(bad[i].doc), collect, &s, &pg,
						     err, sizeof(err))) TH_LOG("#%zu", i);
		EXPECT_NE(NULL, strstr(err, bad[i].why))
			TH_LOG("#%zu: '%s' lacks '%s'", i, err, bad[i].why);
		EXPECT_EQ(0, s.n) TH_LOG("#%zu: callback ran on a bad page", i);
	}
}

TEST(mpu_init_and_complete)
{
	static const char init[] =
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
		"<InitiateMultipartUploadResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
		"<Bucket>ckpt</Bucket><Key>a/b</Key>"
		"<UploadId>2~abc_DEF-123</UploadId></InitiateMultipartUploadResult>";
	static const char noid[] =
		"<InitiateMultipartUploadResult><Key>a</Key></InitiateMultipartUploadResult>";
	static const char done[] =
		"<CompleteMultipartUploadResult><Location>x</Location><Bucket>b</Bucket>"
		"<Key>k</Key><ETag>&quot;0123-2&quot;</ETag></CompleteMultipartUploadResult>";
	static const char rgw[] =
		"<CompleteMultipartUploadResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
		"<Location>http://127.0.0.1:7480/b/k</Location><Bucket>b</Bucket><Key>k</Key>"
		"<ETag></ETag></CompleteMultipartUploadResult>";
	static const char noetag[] =
		"<CompleteMultipartUploadResult><Key>k</Key></CompleteMultipartUploadResult>";
	static const char err200[] =
		"<Error><Code>InternalError</Code><Message>retry</Message></Error>";
	char id[32], etag[16], small[4], err[256];

	ASSERT_EQ(0, s3xml_mpu_init_parse(P(init), id, sizeof(id), err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_STREQ("2~abc_DEF-123", id);
	EXPECT_EQ(-EBADMSG, s3xml_mpu_init_parse(P(noid), id, sizeof(id), err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "UploadId"));
	EXPECT_EQ(-EBADMSG, s3xml_mpu_init_parse(P(init), small, sizeof(small), err, sizeof(err)));
	ASSERT_EQ(0, s3xml_mpu_complete_parse(P(done), etag, sizeof(etag), err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_STREQ("\"0123-2\"", etag);
	ASSERT_EQ(0, s3xml_mpu_complete_parse(P(rgw), etag, sizeof(etag), err, sizeof(err)));
	EXPECT_STREQ("", etag);
	EXPECT_EQ(-EBADMSG, s3xml_mpu_complete_parse(P(noetag), etag, sizeof(etag), err, sizeof(err)));
	EXPECT_EQ(-EBADMSG, s3xml_mpu_complete_parse(P(err200), etag, sizeof(etag), err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "<Error>"));
}

TEST(mpu_complete_doc)
{
	const char *etags[] = { "\"a&b\"", "\"c<d\"" };
	char *doc;
	size_t len;

	ASSERT_EQ(0, s3xml_mpu_complete_doc(etags, 2, &doc, &len, NULL, 0));
	EXPECT_EQ(strlen(doc), len);
	EXPECT_NE(NULL, strstr(doc, "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"));
	EXPECT_NE(NULL, strstr(doc, "<Part><PartNumber>1</PartNumber><ETag>\"a&amp;b\"</ETag></Part>"))
		TH_LOG("%s", doc);
	EXPECT_NE(NULL, strstr(doc, "<Part><PartNumber>2</PartNumber><ETag>\"c&lt;d\"</ETag></Part>"));
	free(doc);
	EXPECT_EQ(-EINVAL, s3xml_mpu_complete_doc(etags, 0, &doc, &len, NULL, 0));
}

struct upl {
	char seen[256];
	int n;
};

static int upl_cb(const char *key, const char *id, void *arg)
{
	struct upl *u = arg;
	size_t l = strlen(u->seen);

	snprintf(u->seen + l, sizeof(u->seen) - l, "%s=%s;", key, id);
	u->n++;
	return 0;
}

TEST(mpu_uploads)
{
	static const char page[] =
		"<ListMultipartUploadsResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
		"<Bucket>b</Bucket><KeyMarker></KeyMarker><NextKeyMarker>k2</NextKeyMarker>"
		"<NextUploadIdMarker>u2</NextUploadIdMarker><IsTruncated>true</IsTruncated>"
		"<Upload><Key>k1</Key><UploadId>u1</UploadId></Upload>"
		"<Upload><Key>k2</Key><UploadId>u2</UploadId></Upload>"
		"</ListMultipartUploadsResult>";
	static const char bad[] =
		"<ListMultipartUploadsResult><IsTruncated>false</IsTruncated>"
		"<Upload><Key>k1</Key><UploadId>u1</UploadId></Upload>"
		"<Upload><Key>k2</Key></Upload></ListMultipartUploadsResult>";
	struct s3xml_uploads_page pg;
	struct upl u = { "", 0 };
	char err[256];

	ASSERT_EQ(0, s3xml_uploads_parse(P(page), upl_cb, &u, &pg, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_TRUE(pg.truncated);
	EXPECT_STREQ("k2", pg.next_key);
	EXPECT_STREQ("u2", pg.next_upload_id);
	EXPECT_EQ(2, pg.count);
	EXPECT_STREQ("k1=u1;k2=u2;", u.seen);
	s3xml_uploads_page_free(&pg);
	u.n = 0;
	EXPECT_EQ(-EBADMSG, s3xml_uploads_parse(P(bad), upl_cb, &u, &pg, err, sizeof(err)));
	EXPECT_EQ(0, u.n);	/* validated whole before the first callback */
}

TEST_HARNESS_MAIN
