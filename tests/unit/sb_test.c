// SPDX-License-Identifier: GPL-2.0
/*
 * Superblocks: the on-disk layout, encode/decode, every refusal, the
 * creation geometry and the validation of a set of members.
 */
#include <stddef.h>
#include "kselftest_harness.h"
#include "sb.h"

static const u8 uuid_a[16] = { 0xa1, 0xa2, 0xa3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static const u8 uuid_b[16] = { 0xb1, 0xb2, 0xb3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

static struct hc_sb good_sb(u32 index, u32 count)
{
	struct hc_sb sb;

	memset(&sb, 0, sizeof(sb));	/* padding too: round_trip memcmp()s */
	sb.version = HC_SB_VERSION;
	sb.member_index = index;
	sb.member_count = count;
	sb.chunk_size = HC_CHUNK_SIZE_DEFAULT;
	sb.member_bytes = 256ULL << 20;
	sb.meta_offset = HC_SB_SIZE;
	sb.data_offset = 4ULL << 20;
	sb.member_chunks = 63;
	sb.ctime_ns = 1764430000000000000ULL;
	memcpy(sb.pool_uuid, uuid_a, 16);
	memset(sb.member_uuid, (int)index, 16);
	return sb;
}

/* Re-checksum a block after poking a field. */
static void reseal(u8 *block)
{
	struct hc_sb_disk *d = (struct hc_sb_disk *)block;

	d->csum = cpu_to_le32(hc_sb_csum(block));
}

TEST(crc32c_is_castagnoli)
{
	/* The CRC-32C check value (RFC 3720, iSCSI). */
	EXPECT_EQ(0xE3069283U, ~hc_crc32c(~0U, "123456789", 9));
}

/* The layout is ABI: these offsets must never change. */
TEST(disk_layout_is_fixed)
{
	EXPECT_EQ(0, offsetof(struct hc_sb_disk, csum));
	EXPECT_EQ(4, offsetof(struct hc_sb_disk, magic));
	EXPECT_EQ(12, offsetof(struct hc_sb_disk, version));
	EXPECT_EQ(16, offsetof(struct hc_sb_disk, sb_size));
	EXPECT_EQ(24, offsetof(struct hc_sb_disk, feature_compat));
	EXPECT_EQ(40, offsetof(struct hc_sb_disk, feature_incompat));
	EXPECT_EQ(48, offsetof(struct hc_sb_disk, pool_uuid));
	EXPECT_EQ(64, offsetof(struct hc_sb_disk, member_uuid));
	EXPECT_EQ(80, offsetof(struct hc_sb_disk, member_index));
	EXPECT_EQ(84, offsetof(struct hc_sb_disk, member_count));
	EXPECT_EQ(88, offsetof(struct hc_sb_disk, chunk_size));
	EXPECT_EQ(96, offsetof(struct hc_sb_disk, member_bytes));
	EXPECT_EQ(112, offsetof(struct hc_sb_disk, data_offset));
	EXPECT_EQ(120, offsetof(struct hc_sb_disk, member_chunks));
	EXPECT_EQ(128, offsetof(struct hc_sb_disk, ctime_ns));
	EXPECT_EQ(264, sizeof(struct hc_sb_disk));
}

TEST(encode_is_little_endian)
{
	struct hc_sb sb = good_sb(2, 3);
	u8 block[HC_SB_SIZE];

	hc_sb_encode(&sb, block);
	EXPECT_EQ(0, memcmp(block + 4, "HYPCACHE", 8));
	EXPECT_EQ(2, block[80]);
	EXPECT_EQ(0, block[81]);
	EXPECT_EQ(3, block[84]);
	/* chunk size 0x00400000 */
	EXPECT_EQ(0x00, block[88]);
	EXPECT_EQ(0x00, block[89]);
	EXPECT_EQ(0x40, block[90]);
	EXPECT_EQ(0x00, block[91]);
	/* everything past the struct is zero */
	for (size_t i = sizeof(struct hc_sb_disk); i < HC_SB_SIZE; i++)
		ASSERT_EQ(0, block[i]);
}

TEST(round_trip)
{
	struct hc_sb sb = good_sb(1, 3), out;
	u8 block[HC_SB_SIZE];
	const char *msg = NULL;

	memset(&out, 0, sizeof(out));
	hc_sb_encode(&sb, block);
	ASSERT_EQ(0, hc_sb_decode(block, &out, &msg));
	EXPECT_EQ(0, memcmp(&sb, &out, sizeof(sb)));
}

TEST(refuses_zeroes)
{
	u8 block[HC_SB_SIZE] = { 0 };
	struct hc_sb out;
	const char *msg = NULL;

	EXPECT_EQ(-EINVAL, hc_sb_decode(block, &out, &msg));
	EXPECT_STREQ("no HyperCache superblock", msg);
}

/* Any single flipped bit past the checksum field is caught. */
TEST(refuses_every_bit_flip)
{
	struct hc_sb sb = good_sb(0, 1), out;
	u8 block[HC_SB_SIZE];
	const char *msg;

	hc_sb_encode(&sb, block);
	for (size_t byte = 12; byte < HC_SB_SIZE; byte += 7) {
		block[byte] ^= 1u << (byte % 8);
		ASSERT_EQ(-EBADMSG, hc_sb_decode(block, &out, &msg));
		block[byte] ^= 1u << (byte % 8);
	}
	block[0] ^= 0x80;
	EXPECT_EQ(-EBADMSG, hc_sb_decode(block, &out, &msg));
}

FIXTURE(poke) {
	u8 block[HC_SB_SIZE];
	struct hc_sb_disk *d;
};

FIXTURE_SETUP(poke)
{
	struct hc_sb sb = good_sb(1, 3);

	hc_sb_encode(&sb, self->block);
	self->d = (struct hc_sb_disk *)self->block;
}

FIXTURE_TEARDOWN(poke)
{
}

static int decode(u8 *block, const char **msg)
{
	struct hc_sb out;

	reseal(block);
	return hc_sb_decode(block, &out, msg);
}

TEST_F(poke, newer_version)
{
	const char *msg;

	self->d->version = cpu_to_le32(HC_SB_VERSION + 1);
	EXPECT_EQ(-EOPNOTSUPP, decode(self->block, &msg));
}

TEST_F(poke, version_zero)
{
	const char *msg;

	self->d->version = 0;
	EXPECT_EQ(-EOPNOTSUPP, decode(self->block, &msg));
}

TEST_F(poke, unknown_incompat_feature)
{
	const char *msg;

	self->d->feature_incompat = cpu_to_le64(1ULL << 63);
	EXPECT_EQ(-EOPNOTSUPP, decode(self->block, &msg));
	EXPECT_STREQ("unknown incompatible feature", msg);
}

/* Format v2's bit is known; with any other bit beside it, refused. */
TEST_F(poke, format_v2_bit)
{
	struct hc_sb out;
	const char *msg;

	self->d->feature_incompat = cpu_to_le64(HC_FEATURE_INCOMPAT_V2);
	reseal(self->block);
	ASSERT_EQ(0, hc_sb_decode(self->block, &out, &msg));
	EXPECT_EQ(2U, hc_sb_format(&out));
	EXPECT_EQ(1U, out.version);
	/* a module of format v1 only refuses it */
	EXPECT_EQ(-EOPNOTSUPP, hc_sb_decode_feat(self->block, 0, &out, &msg));
	self->d->feature_incompat = cpu_to_le64(HC_FEATURE_INCOMPAT_V2 | 0x2);
	EXPECT_EQ(-EOPNOTSUPP, decode(self->block, &msg));
	EXPECT_STREQ("unknown incompatible feature", msg);
	self->d->feature_incompat = 0;
	reseal(self->block);
	ASSERT_EQ(0, hc_sb_decode(self->block, &out, &msg));
	EXPECT_EQ(1U, hc_sb_format(&out));
}

TEST_F(poke, unknown_ro_compat_feature)
{
	const char *msg;

	self->d->feature_ro_compat = cpu_to_le64(1);
	EXPECT_EQ(-EOPNOTSUPP, decode(self->block, &msg));
}

TEST_F(poke, unknown_compat_feature_is_ignored)
{
	const char *msg;

	self->d->feature_compat = cpu_to_le64(1ULL << 40);
	EXPECT_EQ(0, decode(self->block, &msg));
}

TEST_F(poke, index_beyond_count)
{
	const char *msg;

	self->d->member_index = cpu_to_le32(3);
	EXPECT_EQ(-EUCLEAN, decode(self->block, &msg));
}

TEST_F(poke, count_zero_or_too_many)
{
	const char *msg;

	self->d->member_index = 0;
	self->d->member_count = 0;
	EXPECT_EQ(-EUCLEAN, decode(self->block, &msg));
	self->d->member_count = cpu_to_le32(HC_MAX_MEMBERS + 1);
	EXPECT_EQ(-EUCLEAN, decode(self->block, &msg));
}

TEST_F(poke, chunk_size_not_power_of_two)
{
	const char *msg;

	self->d->chunk_size = cpu_to_le32(3U << 20);
	EXPECT_EQ(-EUCLEAN, decode(self->block, &msg));
}

TEST_F(poke, data_offset_misaligned_or_small)
{
	const char *msg;

	self->d->data_offset = cpu_to_le64((4ULL << 20) + 4096);
	EXPECT_EQ(-EUCLEAN, decode(self->block, &msg));
	self->d->data_offset = cpu_to_le64(4096);
	EXPECT_EQ(-EUCLEAN, decode(self->block, &msg));
}

TEST_F(poke, data_area_beyond_member)
{
	const char *msg;

	self->d->member_chunks = cpu_to_le64(64);	/* 4 MiB + 64 * 4 MiB > 256 MiB */
	EXPECT_EQ(-EUCLEAN, decode(self->block, &msg));
	self->d->member_chunks = cpu_to_le64(63);
	self->d->member_bytes = cpu_to_le64(4ULL << 20);
	EXPECT_EQ(-EUCLEAN, decode(self->block, &msg));
}

TEST_F(poke, sb_size_field)
{
	const char *msg;

	self->d->sb_size = cpu_to_le32(512);
	EXPECT_EQ(-EUCLEAN, decode(self->block, &msg));
}

TEST(geometry_automatic)
{
	u64 off, chunks;
	const char *msg;

	/* 256 MiB: 1/256 is 1 MiB, rounded up to one chunk. */
	ASSERT_EQ(0, hc_sb_geometry(256ULL << 20, HC_CHUNK_SIZE_DEFAULT, 0,
				    &off, &chunks, &msg));
	EXPECT_EQ(4ULL << 20, off);
	EXPECT_EQ(63, chunks);
	/* 4 TiB: capped at 1 GiB of metadata. */
	ASSERT_EQ(0, hc_sb_geometry(4ULL << 40, HC_CHUNK_SIZE_DEFAULT, 0,
				    &off, &chunks, &msg));
	EXPECT_EQ(1ULL << 30, off);
	EXPECT_EQ(((4ULL << 40) - (1ULL << 30)) / (4 << 20), chunks);
	/* 64 GiB: 256 MiB, already aligned. */
	ASSERT_EQ(0, hc_sb_geometry(64ULL << 30, HC_CHUNK_SIZE_DEFAULT, 0,
				    &off, &chunks, &msg));
	EXPECT_EQ(256ULL << 20, off);
}

TEST(geometry_requested)
{
	u64 off, chunks;
	const char *msg;

	ASSERT_EQ(0, hc_sb_geometry(256ULL << 20, HC_CHUNK_SIZE_DEFAULT,
				    5ULL << 20, &off, &chunks, &msg));
	EXPECT_EQ(8ULL << 20, off);
	EXPECT_EQ(62, chunks);
	EXPECT_EQ(-EINVAL, hc_sb_geometry(256ULL << 20, HC_CHUNK_SIZE_DEFAULT,
					  253ULL << 20, &off, &chunks, &msg));
	EXPECT_EQ(-EINVAL, hc_sb_geometry(256ULL << 20, HC_CHUNK_SIZE_DEFAULT,
					  ~0ULL, &off, &chunks, &msg));
}

TEST(geometry_too_small)
{
	u64 off, chunks;
	const char *msg;

	EXPECT_EQ(-ENOSPC, hc_sb_geometry(7ULL << 20, HC_CHUNK_SIZE_DEFAULT, 0,
					  &off, &chunks, &msg));
	EXPECT_EQ(0, hc_sb_geometry(8ULL << 20, HC_CHUNK_SIZE_DEFAULT, 0,
				    &off, &chunks, &msg));
	EXPECT_EQ(1, chunks);
}

TEST(set_any_order)
{
	struct hc_sb sbs[3] = { good_sb(2, 3), good_sb(0, 3), good_sb(1, 3) };
	u32 order[HC_MAX_MEMBERS];
	struct hc_sb_verdict v;

	ASSERT_EQ(0, hc_sb_check_set(sbs, 3, order, &v));
	EXPECT_EQ(1, order[0]);
	EXPECT_EQ(2, order[1]);
	EXPECT_EQ(0, order[2]);
}

TEST(set_mixed_pools)
{
	struct hc_sb sbs[3] = { good_sb(0, 3), good_sb(1, 3), good_sb(2, 3) };
	u32 order[HC_MAX_MEMBERS];
	struct hc_sb_verdict v;

	memcpy(sbs[2].pool_uuid, uuid_b, 16);
	EXPECT_EQ(-EXDEV, hc_sb_check_set(sbs, 3, order, &v));
	EXPECT_EQ(2, v.pos);
	EXPECT_STREQ("member of a different pool", v.msg);
}

TEST(set_geometry_disagrees)
{
	struct hc_sb sbs[2] = { good_sb(0, 2), good_sb(1, 2) };
	u32 order[HC_MAX_MEMBERS];
	struct hc_sb_verdict v;

	sbs[1].member_chunks = 62;
	EXPECT_EQ(-EUCLEAN, hc_sb_check_set(sbs, 2, order, &v));
	EXPECT_EQ(1, v.pos);
}

TEST(set_member_count_disagrees)
{
	struct hc_sb sbs[2] = { good_sb(0, 2), good_sb(1, 3) };
	u32 order[HC_MAX_MEMBERS];
	struct hc_sb_verdict v;

	EXPECT_EQ(-EUCLEAN, hc_sb_check_set(sbs, 2, order, &v));
	EXPECT_EQ(1, v.pos);
}

TEST(set_duplicate_index)
{
	struct hc_sb sbs[3] = { good_sb(0, 3), good_sb(1, 3), good_sb(1, 3) };
	u32 order[HC_MAX_MEMBERS];
	struct hc_sb_verdict v;

	EXPECT_EQ(-EEXIST, hc_sb_check_set(sbs, 3, order, &v));
	EXPECT_EQ(2, v.pos);
}

TEST(set_missing_member)
{
	struct hc_sb sbs[2] = { good_sb(2, 3), good_sb(0, 3) };
	u32 order[HC_MAX_MEMBERS];
	struct hc_sb_verdict v;

	EXPECT_EQ(-ENODEV, hc_sb_check_set(sbs, 2, order, &v));
	EXPECT_EQ(-1, v.pos);
	EXPECT_EQ(1, v.index);
}

TEST(set_count_out_of_range)
{
	struct hc_sb sbs[1] = { good_sb(0, 1) };
	u32 order[HC_MAX_MEMBERS];
	struct hc_sb_verdict v;

	EXPECT_EQ(-EINVAL, hc_sb_check_set(sbs, 0, order, &v));
	EXPECT_EQ(0, hc_sb_check_set(sbs, 1, order, &v));
	EXPECT_EQ(0, order[0]);
}

TEST_HARNESS_MAIN
