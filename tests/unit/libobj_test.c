// SPDX-License-Identifier: GPL-2.0
/*
 * libhypercache's reading of an HC_CMD_OBJ_GET reply (lib/index.c,
 * hcl_obj_attr()): every field of struct hc_lib_object, the backend's
 * ETag and Last-Modified when the kernel sends them, and what a short or
 * oversized attribute leaves.
 */
#include <stdint.h>
#include <string.h>
#include <linux/netlink.h>
#include "kselftest_harness.h"
#include "hypercache_netlink.h"
#include "hypercache/hypercache.h"
#include "internal.h"

/* An attribute of @len payload bytes in @buf (aligned storage). */
static const struct nlattr *attr(uint64_t *buf, uint16_t type,
				 const void *data, uint16_t len)
{
	struct nlattr *a = (struct nlattr *)buf;

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, data, len);
	return a;
}

TEST(every_field)
{
	uint64_t buf[64], size = 5 << 20, gen = 7, chunks = 2, lm = 1764577805;
	uint32_t state = 2, flags = 1, holds = 3;
	struct hc_lib_object o;

	memset(&o, 0, sizeof(o));
	hcl_obj_attr(&o, attr(buf, HC_A_OBJ_STATE, &state, 4));
	hcl_obj_attr(&o, attr(buf, HC_A_OBJ_FLAGS, &flags, 4));
	hcl_obj_attr(&o, attr(buf, HC_A_OBJ_SIZE, &size, 8));
	hcl_obj_attr(&o, attr(buf, HC_A_OBJ_GENERATION, &gen, 8));
	hcl_obj_attr(&o, attr(buf, HC_A_OBJ_CHUNKS, &chunks, 8));
	hcl_obj_attr(&o, attr(buf, HC_A_OBJ_HOLDS, &holds, 4));
	hcl_obj_attr(&o, attr(buf, HC_A_OBJ_ETAG, "\"9b2cf535\"", 11));
	hcl_obj_attr(&o, attr(buf, HC_A_OBJ_LAST_MODIFIED, &lm, 8));
	EXPECT_EQ(2, o.state);
	EXPECT_EQ(1, o.flags);
	EXPECT_EQ(5 << 20, o.size);
	EXPECT_EQ(7, o.generation);
	EXPECT_EQ(2, o.chunks);
	EXPECT_EQ(3, o.holds);
	EXPECT_EQ(10, o.etag_len);
	EXPECT_STREQ("\"9b2cf535\"", o.etag);
	EXPECT_EQ(1764577805, o.last_modified);
}

TEST(uri_points_into_the_message)
{
	uint64_t buf[64];
	const struct nlattr *a = attr(buf, HC_A_OBJ_URI, "s3://b/k", 8);
	struct hc_lib_object o;

	memset(&o, 0, sizeof(o));
	hcl_obj_attr(&o, a);
	EXPECT_EQ(8, o.uri_len);
	EXPECT_EQ((const char *)a + NLA_HDRLEN, (const char *)o.uri);
}

/* No ETag or Last-Modified attribute: both unknown, as the header says. */
TEST(unknown_backend_version)
{
	uint64_t buf[64], size = 100;
	struct hc_lib_object o;

	memset(&o, 0, sizeof(o));
	hcl_obj_attr(&o, attr(buf, HC_A_OBJ_SIZE, &size, 8));
	EXPECT_EQ(0, o.etag_len);
	EXPECT_STREQ("", o.etag);
	EXPECT_EQ(0, o.last_modified);
}

/* Attributes shorter than their type change nothing. */
TEST(short_attributes_ignored)
{
	uint64_t buf[64], v = UINT64_MAX;
	struct hc_lib_object o;

	memset(&o, 0, sizeof(o));
	hcl_obj_attr(&o, attr(buf, HC_A_OBJ_STATE, &v, 3));
	hcl_obj_attr(&o, attr(buf, HC_A_OBJ_SIZE, &v, 4));
	hcl_obj_attr(&o, attr(buf, HC_A_OBJ_LAST_MODIFIED, &v, 7));
	hcl_obj_attr(&o, attr(buf, HC_A_OBJ_CHUNKS, &v, 0));
	EXPECT_EQ(0, o.state);
	EXPECT_EQ(0, o.size);
	EXPECT_EQ(0, o.last_modified);
	EXPECT_EQ(0, o.chunks);
}

/* An ETag longer than HC_LIB_ETAG_MAX is cut there, still NUL-terminated. */
TEST(etag_cut_at_the_maximum)
{
	uint64_t buf[128];
	char long_etag[HC_LIB_ETAG_MAX + 40];
	struct hc_lib_object o;

	memset(long_etag, 'e', sizeof(long_etag));
	memset(&o, 0x55, sizeof(o));
	hcl_obj_attr(&o, attr(buf, HC_A_OBJ_ETAG, long_etag, sizeof(long_etag)));
	EXPECT_EQ(HC_LIB_ETAG_MAX, o.etag_len);
	EXPECT_EQ(HC_LIB_ETAG_MAX, strlen(o.etag));
	EXPECT_EQ('\0', o.etag[HC_LIB_ETAG_MAX]);
}

/* The ETag ends at its NUL (NLA_NUL_STRING), not at the attribute's end. */
TEST(etag_ends_at_its_nul)
{
	uint64_t buf[64];
	struct hc_lib_object o;

	memset(&o, 0, sizeof(o));
	hcl_obj_attr(&o, attr(buf, HC_A_OBJ_ETAG, "\"ab\"\0\0\0", 8));
	EXPECT_EQ(4, o.etag_len);
	EXPECT_STREQ("\"ab\"", o.etag);
	/* an empty ETag is as none */
	hcl_obj_attr(&o, attr(buf, HC_A_OBJ_ETAG, "", 1));
	EXPECT_EQ(0, o.etag_len);
	EXPECT_STREQ("", o.etag);
}

TEST_HARNESS_MAIN
