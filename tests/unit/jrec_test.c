// SPDX-License-Identifier: GPL-2.0
/*
 * Journal records: the layout, round trips, every refusal of the decoders,
 * the choice of the current half, and replay scans that stop at torn,
 * stale, out-of-sequence or garbage tails and say where to resume.
 */
#include <stddef.h>
#include <stdlib.h>
#include "kselftest_harness.h"
#include "jrec.h"

static const u8 uuid_a[16] = { 0xa1, 0xa2, 0xa3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static const u8 uuid_b[16] = { 0xb1, 0xb2, 0xb3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

#define HALF_SIZE	(256 * 1024)

/* A half being written: its bytes, header and append position. */
struct log {
	u8 *half;
	size_t len;
	struct hc_jrec_hdr h;
	struct hc_jrec_pos pos;
};

static int log_init(struct log *l, u32 block_size, size_t len, u64 epoch,
		    u64 start_seq)
{
	if (!l->half) {
		l->half = calloc(1, len);
		if (!l->half)
			return -ENOMEM;
	}
	l->len = len;
	memset(&l->h, 0, sizeof(l->h));
	l->h.block_size = block_size;
	l->h.epoch = epoch;
	l->h.start_seq = start_seq;
	l->h.half_size = len;
	memcpy(l->h.pool_uuid, uuid_a, 16);
	if (hc_jrec_hdr_encode(&l->h, l->half))
		return -EINVAL;
	hc_jrec_pos_init(&l->pos, &l->h);
	return 0;
}

/* Append @r at the log's position; returns the record's offset or -errno. */
static long log_append(struct log *l, const struct hc_jrec *r)
{
	u64 off = l->pos.off;
	int n = hc_jrec_encode(r, &l->h, &l->pos, l->half + off,
			       l->len - off);

	if (n < 0)
		return n;
	hc_jrec_advance(&l->pos, l->half + off);
	return off;
}

static void set_uri(struct hc_jrec *r, const char *s)
{
	r->uri_len = strlen(s);
	memcpy(r->uri, s, r->uri_len);
}

static void make_object(struct hc_jrec *r, const char *uri, u32 nr_ext)
{
	u32 i;

	memset(r, 0, sizeof(*r));
	r->type = HC_JREC_OBJECT;
	set_uri(r, uri);
	r->size = 12345678901ULL;
	r->generation = 7;
	r->state = HC_OBJ_READY;
	r->nr_ext = nr_ext;
	for (i = 0; i < nr_ext; i++) {
		r->ext[i].start = 1000 * i + 3;
		r->ext[i].count = i + 1;
	}
}

static void make_delete(struct hc_jrec *r, const char *uri)
{
	memset(r, 0, sizeof(*r));
	r->type = HC_JREC_DELETE;
	set_uri(r, uri);
}

/* A record with the longest URI (no NUL) and the most extents. */
static void make_biggest(struct hc_jrec *r)
{
	u32 i;

	make_object(r, "x", HC_MAX_EXTENTS);
	r->uri_len = HC_URI_MAX;
	for (i = 0; i < HC_URI_MAX; i++)
		r->uri[i] = 1 + i % 255;
	r->flags = HC_OBJ_F_PINNED | HC_OBJ_F_DATA_CRC;
	r->data_crc = 0xdeadbeef;
	r->state = HC_OBJ_DIRTY;
	r->ext[HC_MAX_EXTENTS - 1].start = ~0ULL - 5;
	r->ext[HC_MAX_EXTENTS - 1].count = 5;
}

/* Recompute a record's checksum after poking a field. */
static void reseal(void *rec)
{
	struct hc_jrec_disk *d = rec;
	u32 len = le32_to_cpu(d->length);

	d->csum = cpu_to_le32(~hc_crc32c(~0U, (u8 *)rec + 4, len - 4));
}

static bool same_record(const struct hc_jrec *a, const struct hc_jrec *b)
{
	u32 i;

	if (a->type != b->type || a->uri_len != b->uri_len ||
	    memcmp(a->uri, b->uri, a->uri_len) || a->nr_ext != b->nr_ext)
		return false;
	if (a->type == HC_JREC_DELETE)
		return true;
	for (i = 0; i < a->nr_ext; i++)
		if (a->ext[i].start != b->ext[i].start ||
		    a->ext[i].count != b->ext[i].count)
			return false;
	return a->size == b->size && a->generation == b->generation &&
	       a->state == b->state && a->flags == b->flags &&
	       a->data_crc == b->data_crc;
}

/* The layout is ABI: these offsets must never change. */
TEST(disk_layout_is_fixed)
{
	EXPECT_EQ(0, offsetof(struct hc_jhdr_disk, csum));
	EXPECT_EQ(4, offsetof(struct hc_jhdr_disk, magic));
	EXPECT_EQ(12, offsetof(struct hc_jhdr_disk, version));
	EXPECT_EQ(16, offsetof(struct hc_jhdr_disk, hdr_size));
	EXPECT_EQ(20, offsetof(struct hc_jhdr_disk, block_size));
	EXPECT_EQ(24, offsetof(struct hc_jhdr_disk, epoch));
	EXPECT_EQ(32, offsetof(struct hc_jhdr_disk, start_seq));
	EXPECT_EQ(40, offsetof(struct hc_jhdr_disk, half_size));
	EXPECT_EQ(48, offsetof(struct hc_jhdr_disk, pool_uuid));
	EXPECT_EQ(64, offsetof(struct hc_jhdr_disk, reserved));
	EXPECT_EQ(128, sizeof(struct hc_jhdr_disk));

	EXPECT_EQ(0, offsetof(struct hc_jrec_disk, csum));
	EXPECT_EQ(4, offsetof(struct hc_jrec_disk, magic));
	EXPECT_EQ(8, offsetof(struct hc_jrec_disk, type));
	EXPECT_EQ(10, offsetof(struct hc_jrec_disk, version));
	EXPECT_EQ(12, offsetof(struct hc_jrec_disk, length));
	EXPECT_EQ(16, offsetof(struct hc_jrec_disk, seq));
	EXPECT_EQ(24, offsetof(struct hc_jrec_disk, prev_csum));
	EXPECT_EQ(28, offsetof(struct hc_jrec_disk, uri_len));
	EXPECT_EQ(30, offsetof(struct hc_jrec_disk, nr_ext));
	EXPECT_EQ(32, sizeof(struct hc_jrec_disk));

	EXPECT_EQ(0, offsetof(struct hc_jrec_object_disk, size));
	EXPECT_EQ(8, offsetof(struct hc_jrec_object_disk, generation));
	EXPECT_EQ(16, offsetof(struct hc_jrec_object_disk, state));
	EXPECT_EQ(20, offsetof(struct hc_jrec_object_disk, flags));
	EXPECT_EQ(24, offsetof(struct hc_jrec_object_disk, data_crc));
	EXPECT_EQ(32, sizeof(struct hc_jrec_object_disk));
	EXPECT_EQ(0, offsetof(struct hc_jrec_ext_disk, start));
	EXPECT_EQ(8, offsetof(struct hc_jrec_ext_disk, count));
	EXPECT_EQ(16, sizeof(struct hc_jrec_ext_disk));
}

TEST(halves)
{
	u64 off[2], size;

	ASSERT_EQ(0, hc_jrec_halves(HC_SB_SIZE, 1 << 20, off, &size));
	EXPECT_EQ(127 * 4096, size);
	EXPECT_EQ(4096, off[0]);
	EXPECT_EQ(4096 + 127 * 4096, off[1]);
	ASSERT_EQ(0, hc_jrec_halves(HC_SB_SIZE, 4 << 20, off, &size));
	EXPECT_EQ(511 * 4096, size);
	EXPECT_LE(off[1] + size, 4 << 20);
	EXPECT_EQ(-EINVAL, hc_jrec_halves(HC_SB_SIZE, 5 * 4096 - 1, off, &size));
	EXPECT_EQ(0, hc_jrec_halves(HC_SB_SIZE, 5 * 4096, off, &size));
	EXPECT_EQ(-EINVAL, hc_jrec_halves(100, 1 << 20, off, &size));
	EXPECT_EQ(-EINVAL, hc_jrec_halves(8192, 4096, off, &size));
}

TEST(header_round_trip_and_refusals)
{
	static u8 block[HC_JHDR_SIZE] __attribute__((aligned(8)));
	struct hc_jrec_hdr h = {
		.block_size = 512, .epoch = 3, .start_seq = 1000,
		.half_size = HALF_SIZE,
	}, out;
	struct hc_jhdr_disk *d = (void *)block;

	memcpy(h.pool_uuid, uuid_a, 16);
	ASSERT_EQ(0, hc_jrec_hdr_encode(&h, block));
	EXPECT_EQ(0, memcmp(block + 4, "HCJOURNL", 8));
	EXPECT_EQ(3, block[24]);
	EXPECT_EQ(0, block[25]);
	EXPECT_EQ(0xe8, block[32]);	/* 1000 = 0x3e8, little-endian */
	EXPECT_EQ(0x03, block[33]);
	for (size_t i = sizeof(struct hc_jhdr_disk); i < HC_JHDR_SIZE; i++)
		ASSERT_EQ(0, block[i]);

	ASSERT_EQ(0, hc_jrec_hdr_decode(block, uuid_a, &out));
	EXPECT_EQ(h.csum, out.csum);
	EXPECT_EQ(HC_JOURNAL_VERSION, out.version);
	EXPECT_EQ(512, out.block_size);
	EXPECT_EQ(3, out.epoch);
	EXPECT_EQ(1000, out.start_seq);
	EXPECT_EQ(HALF_SIZE, out.half_size);
	EXPECT_EQ(0, memcmp(uuid_a, out.pool_uuid, 16));
	EXPECT_EQ(0, hc_jrec_hdr_decode(block, NULL, &out));

	/* Another pool's journal left on the drive is not ours. */
	EXPECT_EQ(-ENODATA, hc_jrec_hdr_decode(block, uuid_b, &out));

	/* Every flipped bit is a torn or corrupt header. */
	for (size_t byte = 0; byte < HC_JHDR_SIZE; byte += 3) {
		int want = byte >= 4 && byte < 12 ? -ENODATA : -EBADMSG;

		block[byte] ^= 1u << (byte % 8);
		ASSERT_EQ(want, hc_jrec_hdr_decode(block, uuid_a, &out)) {
			TH_LOG("byte %zu", byte);
		}
		block[byte] ^= 1u << (byte % 8);
	}

	/* Checksummed but newer, or out of range. */
	d->version = cpu_to_le32(2);
	d->csum = cpu_to_le32(~hc_crc32c(~0U, block + 4, HC_JHDR_SIZE - 4));
	EXPECT_EQ(-EOPNOTSUPP, hc_jrec_hdr_decode(block, uuid_a, &out));
	d->version = cpu_to_le32(1);
	d->block_size = cpu_to_le32(1024 + 512);
	d->csum = cpu_to_le32(~hc_crc32c(~0U, block + 4, HC_JHDR_SIZE - 4));
	EXPECT_EQ(-EUCLEAN, hc_jrec_hdr_decode(block, uuid_a, &out));

	memset(block, 0, sizeof(block));
	EXPECT_EQ(-ENODATA, hc_jrec_hdr_decode(block, uuid_a, &out));

	/* Encode refuses what decode would. */
	out = h;
	out.epoch = 0;
	EXPECT_EQ(-EINVAL, hc_jrec_hdr_encode(&out, block));
	out = h;
	out.block_size = 8192;
	EXPECT_EQ(-EINVAL, hc_jrec_hdr_encode(&out, block));
	out = h;
	out.half_size = HC_JHDR_SIZE;
	EXPECT_EQ(-EINVAL, hc_jrec_hdr_encode(&out, block));
	out = h;
	out.start_seq = 0;
	EXPECT_EQ(-EINVAL, hc_jrec_hdr_encode(&out, block));
}

TEST(current_half)
{
	struct hc_jrec_hdr a = { .epoch = 4 }, b = { .epoch = 5 };

	EXPECT_EQ(1, hc_jrec_current(&a, 0, &b, 0));
	EXPECT_EQ(0, hc_jrec_current(&b, 0, &a, 0));
	/* A torn or absent header does not count. */
	EXPECT_EQ(0, hc_jrec_current(&a, 0, &b, -EBADMSG));
	EXPECT_EQ(0, hc_jrec_current(&a, 0, &b, -ENODATA));
	EXPECT_EQ(1, hc_jrec_current(&a, -EBADMSG, &b, 0));
	EXPECT_EQ(-ENODATA, hc_jrec_current(&a, -ENODATA, &b, -EBADMSG));
	/* A newer writer, a forged header or an I/O error refuse. */
	EXPECT_EQ(-EOPNOTSUPP, hc_jrec_current(&a, 0, &b, -EOPNOTSUPP));
	EXPECT_EQ(-EUCLEAN, hc_jrec_current(&a, -EUCLEAN, &b, 0));
	EXPECT_EQ(-EIO, hc_jrec_current(&a, -EIO, &b, -ENODATA));
	b.epoch = 4;
	EXPECT_EQ(-EUCLEAN, hc_jrec_current(&a, 0, &b, 0));
}

/*
 * Where no member continues a mirrored log: an interrupted append (at most
 * one torn or unreadable copy, the others without the record) may end it;
 * more damage than a crash explains, or a record found behind a torn one,
 * refuses.
 */
TEST(mirrored_tail)
{
	EXPECT_EQ(0, hc_jrec_tail(3, 0, 0, false));	/* the plain end */
	EXPECT_EQ(0, hc_jrec_tail(3, 1, 0, false));	/* interrupted append */
	EXPECT_EQ(0, hc_jrec_tail(3, 0, 1, false));
	EXPECT_EQ(0, hc_jrec_tail(1, 1, 0, false));	/* cannot be told apart */
	EXPECT_EQ(-EUCLEAN, hc_jrec_tail(3, 2, 0, false));
	EXPECT_EQ(-EUCLEAN, hc_jrec_tail(2, 2, 0, false));
	EXPECT_EQ(-EIO, hc_jrec_tail(3, 1, 1, false));
	EXPECT_EQ(-EIO, hc_jrec_tail(1, 0, 1, false));	/* the only copy */
	EXPECT_EQ(-EUCLEAN, hc_jrec_tail(3, 1, 0, true));
	EXPECT_EQ(-EUCLEAN, hc_jrec_tail(1, 1, 0, true));
}

/* A half with no valid header on any member. */
TEST(mirrored_header_missing)
{
	struct hc_jrec_hdr a = { .epoch = 4 }, b = { .epoch = 5 };
	int torn_everywhere = hc_jrec_hdr_missing(3, 3, 0);
	int torn_once = hc_jrec_hdr_missing(3, 1, 0);

	EXPECT_EQ(-ENODATA, hc_jrec_hdr_missing(3, 0, 0));
	EXPECT_EQ(-EBADMSG, hc_jrec_hdr_missing(3, 1, 0));	/* crash */
	EXPECT_EQ(-EBADMSG, hc_jrec_hdr_missing(3, 0, 1));
	EXPECT_EQ(-EBADMSG, hc_jrec_hdr_missing(1, 1, 0));
	EXPECT_EQ(-EIO, hc_jrec_hdr_missing(1, 0, 1));
	EXPECT_EQ(-EUCLEAN, hc_jrec_hdr_missing(3, 3, 0));
	EXPECT_EQ(-EUCLEAN, hc_jrec_hdr_missing(2, 2, 0));
	EXPECT_EQ(-EIO, hc_jrec_hdr_missing(3, 2, 1));
	/* hc_jrec_current() then refuses rather than fall back */
	EXPECT_EQ(-EUCLEAN, hc_jrec_current(&a, 0, &b, torn_everywhere));
	EXPECT_EQ(0, hc_jrec_current(&a, 0, &b, torn_once));
}

/* What an object costs the journal: its OBJECT record, padded. */
TEST(object_size)
{
	struct hc_jrec_hdr h = { .block_size = 512 };
	struct hc_jrec r;

	memset(&r, 0, sizeof(r));
	r.type = HC_JREC_OBJECT;
	r.state = HC_OBJ_READY;
	r.uri_len = 448;
	memset(r.uri, 'u', sizeof(r.uri));
	EXPECT_EQ(512, hc_jrec_object_size(448, 0, 512));
	EXPECT_EQ(hc_jrec_size(&r, &h), hc_jrec_object_size(448, 0, 512));
	EXPECT_EQ(1024, hc_jrec_object_size(449, 0, 512));
	EXPECT_EQ(1536, hc_jrec_object_size(1000, 0, 512));
	EXPECT_EQ(4096, hc_jrec_object_size(1, 0, 4096));
	EXPECT_EQ(2560, hc_jrec_max_size(512));
	EXPECT_EQ(4096, hc_jrec_max_size(4096));
	EXPECT_EQ(0, hc_jrec_object_size(0, 0, 512));
	EXPECT_EQ(0, hc_jrec_object_size(HC_URI_MAX + 1, 0, 512));
	EXPECT_EQ(0, hc_jrec_object_size(1, HC_MAX_EXTENTS + 1, 512));
	EXPECT_EQ(0, hc_jrec_object_size(1, 0, 256));
}

FIXTURE(half) {
	struct log l;
	struct hc_jrec r, out;
};

FIXTURE_VARIANT(half) {
	u32 block_size;
};

FIXTURE_VARIANT_ADD(half, b512) { .block_size = 512 };
FIXTURE_VARIANT_ADD(half, b4096) { .block_size = 4096 };

FIXTURE_SETUP(half)
{
	self->l.half = NULL;
	ASSERT_EQ(0, log_init(&self->l, variant->block_size, HALF_SIZE, 1, 1));
}

FIXTURE_TEARDOWN(half)
{
	free(self->l.half);
}

TEST_F(half, object_round_trip)
{
	struct hc_jrec_pos at;
	long off;

	make_biggest(&self->r);
	EXPECT_EQ(variant->block_size == 512 ? 2560 : 4096,
		  hc_jrec_size(&self->r, &self->l.h));
	at = self->l.pos;
	off = log_append(&self->l, &self->r);
	ASSERT_EQ(HC_JHDR_SIZE, off);
	EXPECT_EQ(HC_JHDR_SIZE + hc_jrec_size(&self->r, &self->l.h),
		  self->l.pos.off);
	EXPECT_EQ(2, self->l.pos.seq);
	ASSERT_EQ(hc_jrec_size(&self->r, &self->l.h),
		  hc_jrec_decode(self->l.half + off, HALF_SIZE - off,
				 &self->l.h, &at, &self->out));
	EXPECT_TRUE(same_record(&self->r, &self->out));
	EXPECT_EQ(1, self->out.seq);
	EXPECT_EQ(self->l.pos.prev, self->out.csum);

	/* The URI sits after the extents; zeroes pad the rest. */
	EXPECT_EQ(0, memcmp(self->l.half + off + 64 + 64 * 16, self->r.uri,
			    HC_URI_MAX));
	for (u64 i = 64 + 64 * 16 + HC_URI_MAX; i < self->l.pos.off - off; i++)
		ASSERT_EQ(0, self->l.half[off + i]);
}

TEST_F(half, delete_round_trip)
{
	struct hc_jrec_pos at = self->l.pos;
	long off;

	make_delete(&self->r, "s3://bucket/model.safetensors");
	EXPECT_EQ(variant->block_size, hc_jrec_size(&self->r, &self->l.h));
	off = log_append(&self->l, &self->r);
	ASSERT_LE(0, off);
	ASSERT_EQ(variant->block_size,
		  hc_jrec_decode(self->l.half + off, HALF_SIZE - off,
				 &self->l.h, &at, &self->out));
	EXPECT_TRUE(same_record(&self->r, &self->out));
	EXPECT_EQ(0, self->out.size);
	EXPECT_EQ(0, self->out.state);

	/* The longest URI in a DELETE. */
	make_delete(&self->r, "y");
	self->r.uri_len = HC_URI_MAX;
	memset(self->r.uri, 'y', HC_URI_MAX);
	at = self->l.pos;
	off = log_append(&self->l, &self->r);
	ASSERT_LE(0, off);
	ASSERT_LT(0, hc_jrec_decode(self->l.half + off, HALF_SIZE - off,
				    &self->l.h, &at, &self->out));
	EXPECT_TRUE(same_record(&self->r, &self->out));
}

TEST_F(half, encode_refuses)
{
	struct hc_jrec *r = &self->r;
	u8 *buf = self->l.half + HC_JHDR_SIZE;
	struct hc_jrec_pos zero = self->l.pos;

	make_object(r, "ok", 2);
	ASSERT_LT(0, (long)hc_jrec_size(r, &self->l.h));
#define REFUSE(poke) do {						\
		make_object(r, "ok", 2);				\
		poke;							\
		EXPECT_EQ(0, hc_jrec_size(r, &self->l.h));		\
		EXPECT_EQ(-EINVAL, hc_jrec_encode(r, &self->l.h,	\
				&self->l.pos, buf, 4096));		\
	} while (0)
	REFUSE(r->uri_len = 0);
	REFUSE(r->uri_len = HC_URI_MAX + 1);
	REFUSE(r->uri[1] = 0);
	REFUSE(r->nr_ext = HC_MAX_EXTENTS + 1);
	REFUSE(r->state = 0);
	REFUSE(r->state = HC_OBJ_SYNCING + 1);
	REFUSE(r->flags = 4);
	REFUSE(r->ext[1].count = 0);
	REFUSE(r->ext[1].start = ~0ULL);
	REFUSE(r->type = 3);
	REFUSE(r->type = HC_JREC_DELETE);	/* with extents */
#undef REFUSE
	/* Nothing was written. */
	for (int i = 0; i < 4096; i++)
		ASSERT_EQ(0, buf[i]);

	make_object(r, "ok", 2);
	zero.seq = 0;
	EXPECT_EQ(-EINVAL, hc_jrec_encode(r, &self->l.h, &zero, buf, 4096));
	EXPECT_EQ(-ENOSPC, hc_jrec_encode(r, &self->l.h, &self->l.pos, buf,
					  variant->block_size - 1));
	for (int i = 0; i < 4096; i++)
		ASSERT_EQ(0, buf[i]);

	/* A full half: the append that does not fit is refused. */
	while (log_append(&self->l, r) >= 0)
		;
	EXPECT_EQ(HALF_SIZE, self->l.pos.off);
	EXPECT_EQ(-ENOSPC, log_append(&self->l, r));
}

/* Every single flipped bit of a record is detected. */
TEST_F(half, every_bit_flip)
{
	struct hc_jrec_pos at = self->l.pos;
	u8 *rec = self->l.half + HC_JHDR_SIZE;
	u32 len;

	make_biggest(&self->r);
	ASSERT_EQ(HC_JHDR_SIZE, log_append(&self->l, &self->r));
	len = self->l.pos.off - HC_JHDR_SIZE;
	for (u32 bit = 0; bit < len * 8; bit++) {
		int want = bit / 8 >= 4 && bit / 8 < 8 ? -ENODATA : -EBADMSG;

		rec[bit / 8] ^= 1u << (bit % 8);
		ASSERT_EQ(want, hc_jrec_decode(rec, HALF_SIZE - HC_JHDR_SIZE,
					       &self->l.h, &at, &self->out)) {
			TH_LOG("bit %u", bit);
		}
		rec[bit / 8] ^= 1u << (bit % 8);
	}
	EXPECT_EQ(len, hc_jrec_decode(rec, HALF_SIZE - HC_JHDR_SIZE,
				      &self->l.h, &at, &self->out));
	self->l.h.block_size = 0;
	EXPECT_EQ(-EINVAL, hc_jrec_decode(rec, HALF_SIZE - HC_JHDR_SIZE,
					  &self->l.h, &at, &self->out));
}

/* Checksummed records that are newer or out of range are refused. */
TEST_F(half, checksummed_but_wrong)
{
	struct hc_jrec_pos at = self->l.pos, end;
	u8 *rec = self->l.half + HC_JHDR_SIZE;
	struct hc_jrec_disk *d = (void *)rec;
	struct hc_jrec_object_disk *o = (void *)(d + 1);

	make_object(&self->r, "s3://b/k", 3);
	ASSERT_EQ(HC_JHDR_SIZE, log_append(&self->l, &self->r));
	make_delete(&self->r, "s3://b/k");
	ASSERT_LE(0, log_append(&self->l, &self->r));

	d->version = cpu_to_le16(2);
	reseal(rec);
	EXPECT_EQ(-EOPNOTSUPP, hc_jrec_decode(rec, HALF_SIZE - HC_JHDR_SIZE,
					      &self->l.h, &at, &self->out));
	/* Replay refuses rather than drop the records after it. */
	EXPECT_EQ(-EOPNOTSUPP, hc_jrec_scan(self->l.half, HALF_SIZE,
					    &self->l.h, &self->out, NULL,
					    NULL, &end));
	EXPECT_EQ(HC_JHDR_SIZE, end.off);
	/*
	 * A newer record that does not continue this log is what a pool of
	 * a newer format left on the drives before this one was created
	 * over it: the end of the log, not a refusal (ESTALE before the
	 * version).
	 */
	d->prev_csum = cpu_to_le32(le32_to_cpu(d->prev_csum) ^ 1);
	reseal(rec);
	EXPECT_EQ(-ESTALE, hc_jrec_decode(rec, HALF_SIZE - HC_JHDR_SIZE,
					  &self->l.h, &at, &self->out));
	EXPECT_EQ(0, hc_jrec_scan(self->l.half, HALF_SIZE, &self->l.h,
				  &self->out, NULL, NULL, &end));
	EXPECT_EQ(HC_JHDR_SIZE, end.off);
	d->prev_csum = cpu_to_le32(le32_to_cpu(d->prev_csum) ^ 1);
	d->version = cpu_to_le16(1);

#define UNCLEAN(poke, undo) do {					\
		poke;							\
		reseal(rec);						\
		EXPECT_EQ(-EUCLEAN, hc_jrec_decode(rec,			\
				HALF_SIZE - HC_JHDR_SIZE, &self->l.h,	\
				&at, &self->out));			\
		undo;							\
		reseal(rec);						\
	} while (0)
	UNCLEAN(d->type = cpu_to_le16(9), d->type = cpu_to_le16(1));
	UNCLEAN(o->state = cpu_to_le32(0), o->state = cpu_to_le32(2));
	UNCLEAN(o->flags = cpu_to_le32(8), o->flags = 0);
	UNCLEAN(d->uri_len = 0, d->uri_len = cpu_to_le16(8));
	UNCLEAN(d->uri_len = cpu_to_le16(HC_URI_MAX + 1),
		d->uri_len = cpu_to_le16(8));
	UNCLEAN(d->nr_ext = cpu_to_le16(HC_MAX_EXTENTS + 1),
		d->nr_ext = cpu_to_le16(3));
	UNCLEAN(rec[64 + 3 * 16 + 5] = 0, rec[64 + 3 * 16 + 5] = 'b');
#undef UNCLEAN
	EXPECT_EQ(2, hc_jrec_scan(self->l.half, HALF_SIZE, &self->l.h,
				  &self->out, NULL, NULL, &end));
	EXPECT_EQ(-EINVAL, hc_jrec_scan(self->l.half, HALF_SIZE - 4096,
					&self->l.h, &self->out, NULL, NULL,
					&end));
}

static int stop_at_third(void *arg, const struct hc_jrec *r)
{
	int *calls = arg;

	return ++*calls == 3 ? -ENOMEM : 0;
}

TEST_F(half, callback_error_stops)
{
	struct hc_jrec_pos end;
	int calls = 0;

	for (int i = 0; i < 5; i++) {
		make_delete(&self->r, "u");
		ASSERT_LE(0, log_append(&self->l, &self->r));
	}
	EXPECT_EQ(-ENOMEM, hc_jrec_scan(self->l.half, HALF_SIZE, &self->l.h,
					&self->out, stop_at_third, &calls,
					&end));
	EXPECT_EQ(3, calls);
	EXPECT_EQ(3, end.seq);
	EXPECT_EQ(HC_JHDR_SIZE + 2 * variant->block_size, end.off);
}

/*
 * Ten records, the last one several blocks long, then its last block torn
 * (zeroed, or stale): the scan stops before it and resumes there.
 */
static void torn_tail(struct __test_metadata *_metadata, struct log *l,
		      struct hc_jrec *r, struct hc_jrec *out, bool zeroed)
{
	struct hc_jrec_pos before, end;
	long off = 0;
	u32 bs = l->h.block_size, size;
	u8 *last;
	int i;

	for (i = 0; i < 10; i++) {
		if (i % 3 == 2)
			make_delete(r, "s3://bucket/gone");
		else
			make_object(r, "s3://bucket/obj", i % 4);
		if (i == 9)
			make_biggest(r);
		before = l->pos;
		off = log_append(l, r);
		ASSERT_LE(0, off);
	}
	size = l->pos.off - off;
	if (bs == 512)
		ASSERT_LT(bs, size);	/* the tear is past its first block */
	last = l->half + l->pos.off - bs;

	EXPECT_EQ(10, hc_jrec_scan(l->half, l->len, &l->h, out, NULL, NULL,
				   &end));
	EXPECT_EQ(l->pos.off, end.off);

	if (zeroed) {
		memset(last, 0, bs);
	} else {
		/* The block holds what an earlier record left there. */
		memcpy(last, l->half + HC_JHDR_SIZE, bs);
	}
	EXPECT_EQ(9, hc_jrec_scan(l->half, l->len, &l->h, out, NULL, NULL,
				  &end));
	EXPECT_EQ(before.off, end.off);
	EXPECT_EQ(before.seq, end.seq);
	EXPECT_EQ(before.prev, end.prev);
	EXPECT_EQ(10, end.seq);

	/* Resume there: the new record continues the log. */
	l->pos = end;
	make_delete(r, "s3://bucket/after-crash");
	ASSERT_EQ(off, log_append(l, r));
	EXPECT_EQ(10, hc_jrec_scan(l->half, l->len, &l->h, out, NULL, NULL,
				   &end));
	EXPECT_TRUE(same_record(r, out));
	EXPECT_EQ(11, end.seq);
}

TEST_F(half, torn_tail_zeroed)
{
	torn_tail(_metadata, &self->l, &self->r, &self->out, true);
}

TEST_F(half, torn_tail_stale)
{
	torn_tail(_metadata, &self->l, &self->r, &self->out, false);
}

TEST_F(half, sequence_gap)
{
	struct hc_jrec_pos at, end;
	long off;

	make_delete(&self->r, "a");
	ASSERT_LE(0, log_append(&self->l, &self->r));
	ASSERT_LE(0, log_append(&self->l, &self->r));
	at = self->l.pos;
	self->l.pos.seq += 1;		/* seq 4 where 3 belongs */
	off = log_append(&self->l, &self->r);
	ASSERT_LE(0, off);
	EXPECT_EQ(-ESTALE, hc_jrec_decode(self->l.half + off, HALF_SIZE - off,
					  &self->l.h, &at, &self->out));
	EXPECT_EQ(2, hc_jrec_scan(self->l.half, HALF_SIZE, &self->l.h,
				  &self->out, NULL, NULL, &end));
	EXPECT_EQ(3, end.seq);
	EXPECT_EQ(off, end.off);

	/* Right seq, wrong predecessor: not a continuation either. */
	self->l.pos = at;
	self->l.pos.prev ^= 1;
	ASSERT_EQ(off, log_append(&self->l, &self->r));
	EXPECT_EQ(-ESTALE, hc_jrec_decode(self->l.half + off, HALF_SIZE - off,
					  &self->l.h, &at, &self->out));
	EXPECT_EQ(2, hc_jrec_scan(self->l.half, HALF_SIZE, &self->l.h,
				  &self->out, NULL, NULL, &end));
}

/*
 * A half used again after two compactions still holds the records of its
 * earlier epoch, with the very same seq numbers: they do not continue the
 * new log, because they chain to other checksums.
 */
TEST_F(half, earlier_epoch_never_continues)
{
	struct hc_jrec_pos end;
	int i;

	for (i = 0; i < 6; i++) {
		make_object(&self->r, "s3://old", 1);
		ASSERT_LE(0, log_append(&self->l, &self->r));
	}
	ASSERT_EQ(0, log_init(&self->l, variant->block_size, HALF_SIZE, 3, 1));
	EXPECT_EQ(0, hc_jrec_scan(self->l.half, HALF_SIZE, &self->l.h,
				  &self->out, NULL, NULL, &end));
	make_object(&self->r, "s3://new", 1);
	ASSERT_LE(0, log_append(&self->l, &self->r));
	EXPECT_EQ(1, hc_jrec_scan(self->l.half, HALF_SIZE, &self->l.h,
				  &self->out, NULL, NULL, &end));
	EXPECT_TRUE(same_record(&self->r, &self->out));
	EXPECT_EQ(2, end.seq);
}

TEST_F(half, garbage_after_log)
{
	struct hc_jrec_pos end;
	u64 x = 0x1234567;
	int i;

	for (i = 0; i < 4; i++) {
		make_object(&self->r, "s3://k", 2);
		ASSERT_LE(0, log_append(&self->l, &self->r));
	}
	for (u64 o = self->l.pos.off; o < HALF_SIZE; o++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		self->l.half[o] = x >> 56;
	}
	EXPECT_EQ(4, hc_jrec_scan(self->l.half, HALF_SIZE, &self->l.h,
				  &self->out, NULL, NULL, &end));
	EXPECT_EQ(self->l.pos.off, end.off);

	/* Garbage behind a good magic: a torn record, not a record. */
	memcpy(self->l.half + end.off + 4, HC_JREC_MAGIC, 4);
	EXPECT_EQ(4, hc_jrec_scan(self->l.half, HALF_SIZE, &self->l.h,
				  &self->out, NULL, NULL, &end));
	/* A length past the end of the half. */
	((struct hc_jrec_disk *)(self->l.half + end.off))->length =
		cpu_to_le32(HALF_SIZE);
	EXPECT_EQ(-EBADMSG, hc_jrec_decode(self->l.half + end.off,
					   HALF_SIZE - end.off, &self->l.h,
					   &end, &self->out));
}

/* Several hundred records of both types, replayed in order. */
struct replay {
	struct hc_jrec *want;
	int n;
	int bad;
};

static int check_record(void *arg, const struct hc_jrec *r)
{
	struct replay *rp = arg;

	if (!same_record(&rp->want[rp->n], r))
		rp->bad++;
	rp->n++;
	return 0;
}

TEST_F(half, long_mixed_log)
{
	const int nr = 500;
	struct hc_jrec *want = calloc(nr, sizeof(*want));
	struct replay rp = { .want = want };
	struct hc_jrec_pos end;
	u64 x = 42;
	int i;

	ASSERT_NE(NULL, want);
	free(self->l.half);
	self->l.half = NULL;
	ASSERT_EQ(0, log_init(&self->l, variant->block_size, 4 << 20, 7,
			      1ULL << 40));
	for (i = 0; i < nr; i++) {
		struct hc_jrec *r = &want[i];
		char uri[64];

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		snprintf(uri, sizeof(uri), "s3://bucket/shard-%05d", i);
		if (x >> 60 < 4) {
			make_delete(r, uri);
		} else {
			make_object(r, uri, (x >> 32) % (HC_MAX_EXTENTS + 1));
			r->state = 1 + (x >> 20) % 5;
			r->flags = (x >> 8) % 4;
			r->data_crc = r->flags & HC_OBJ_F_DATA_CRC ? x : 0;
			r->generation = i;
			r->size = x >> 3;
		}
		if (i % 97 == 0) {	/* now and then a long URI */
			u32 l0 = r->uri_len;

			r->uri_len = 900 + i % 124;
			memset(r->uri + l0, 'u', r->uri_len - l0);
		}
		ASSERT_LE(0, log_append(&self->l, r));
	}
	EXPECT_EQ(nr, hc_jrec_scan(self->l.half, self->l.len, &self->l.h,
				   &self->out, check_record, &rp, &end));
	EXPECT_EQ(nr, rp.n);
	EXPECT_EQ(0, rp.bad);
	EXPECT_EQ((1ULL << 40) + nr, end.seq);
	EXPECT_EQ(self->l.pos.off, end.off);
	EXPECT_EQ(self->l.pos.prev, end.prev);
	free(want);
}

TEST_HARNESS_MAIN
