// SPDX-License-Identifier: GPL-2.0
/*
 * Journal records of format v2 (kmod/core/jrec2.c): the layout, round
 * trips of every kind of record (whole-chunk and sub-chunk extents, with
 * and without the backend version), v1 records and halves read back
 * exactly as the v1 codec reads them, every flipped bit of every record
 * detected, checksummed-but-wrong records refused, v2 records refused in a
 * v1 half and by the v1 decoder, and a mixed log replayed.
 */
#include <stddef.h>
#include <stdlib.h>
#include "kselftest_harness.h"
#include "jrec2.h"

static const u8 uuid[16] = { 0xc1, 0xc2, 0xc3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

#define HALF_SIZE	(256 * 1024)

struct log {
	u8 *half;
	size_t len;
	struct hc_jrec_hdr h;
	struct hc_jrec_pos pos;
};

static int log_init(struct log *l, u32 version, u32 block_size)
{
	if (!l->half)
		l->half = calloc(1, HALF_SIZE);
	if (!l->half)
		return -ENOMEM;
	memset(l->half, 0, HALF_SIZE);
	l->len = HALF_SIZE;
	memset(&l->h, 0, sizeof(l->h));
	l->h.block_size = block_size;
	l->h.epoch = 3;
	l->h.start_seq = 100;
	l->h.half_size = HALF_SIZE;
	memcpy(l->h.pool_uuid, uuid, 16);
	if (hc_jrec_hdr_encode_ver(&l->h, version, l->half))
		return -EINVAL;
	hc_jrec_pos_init(&l->pos, &l->h);
	return 0;
}

static long log_append(struct log *l, const struct hc_jrec2 *r)
{
	u64 off = l->pos.off;
	int n = hc_jrec2_encode(r, &l->h, &l->pos, l->half + off,
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

/* A large object: whole chunks, no backend version (a v1-able record). */
static void make_large(struct hc_jrec2 *r, const char *uri, u32 nr_ext)
{
	u32 i;

	memset(r, 0, sizeof(*r));
	r->r.type = HC_JREC_OBJECT;
	set_uri(&r->r, uri);
	r->r.size = 12345678901ULL;
	r->r.generation = 7;
	r->r.state = HC_OBJ_READY;
	r->r.flags = HC_OBJ_F_DATA_CRC;
	r->r.data_crc = 0xdeadbeef;
	r->r.nr_ext = nr_ext;
	for (i = 0; i < nr_ext; i++) {
		r->r.ext[i].start = 1000 * i + 3;
		r->r.ext[i].count = i + 1;
	}
}

/* A small object in a slab chunk, with its S3 version. */
static void make_small(struct hc_jrec2 *r, const char *uri, u64 size)
{
	static const char etag[] = "\"9b2cf535f27731c974343645a3985328\"";

	memset(r, 0, sizeof(*r));
	r->r.type = HC_JREC_OBJECT;
	set_uri(&r->r, uri);
	r->r.size = size;
	r->r.generation = 2;
	r->r.state = HC_OBJ_READY;
	r->r.flags = HC_OBJ_F_SUBCHUNK | HC_OBJ_F_BACKEND | HC_OBJ_F_PINNED;
	r->r.nr_ext = 1;
	r->sext[0].chunk = 77;
	r->sext[0].block = 1000;
	r->sext[0].nr_blocks = hc_slab_blocks(size);
	r->etag_len = strlen(etag);
	memcpy(r->etag, etag, r->etag_len);
	r->backend_size = size;
	r->backend_mtime = 1764547200;	/* 2025-12-01T00:00:00Z */
}

static bool same(const struct hc_jrec2 *a, const struct hc_jrec2 *b)
{
	const struct hc_jrec *x = &a->r, *y = &b->r;
	u32 i;

	if (x->type != y->type || x->uri_len != y->uri_len ||
	    memcmp(x->uri, y->uri, x->uri_len) || x->size != y->size ||
	    x->generation != y->generation || x->state != y->state ||
	    x->flags != y->flags || x->data_crc != y->data_crc ||
	    x->nr_ext != y->nr_ext || a->etag_len != b->etag_len ||
	    memcmp(a->etag, b->etag, a->etag_len) ||
	    a->backend_size != b->backend_size ||
	    a->backend_mtime != b->backend_mtime)
		return false;
	for (i = 0; i < x->nr_ext; i++) {
		if (x->flags & HC_OBJ_F_SUBCHUNK) {
			if (a->sext[i].chunk != b->sext[i].chunk ||
			    a->sext[i].block != b->sext[i].block ||
			    a->sext[i].nr_blocks != b->sext[i].nr_blocks)
				return false;
		} else if (x->ext[i].start != y->ext[i].start ||
			   x->ext[i].count != y->ext[i].count) {
			return false;
		}
	}
	return true;
}

TEST(disk_layout_is_fixed)
{
	EXPECT_EQ(48U, sizeof(struct hc_jrec_object2_disk));
	EXPECT_EQ(0U, offsetof(struct hc_jrec_object2_disk, size));
	EXPECT_EQ(8U, offsetof(struct hc_jrec_object2_disk, generation));
	EXPECT_EQ(16U, offsetof(struct hc_jrec_object2_disk, state));
	EXPECT_EQ(20U, offsetof(struct hc_jrec_object2_disk, flags));
	EXPECT_EQ(24U, offsetof(struct hc_jrec_object2_disk, data_crc));
	EXPECT_EQ(28U, offsetof(struct hc_jrec_object2_disk, etag_len));
	EXPECT_EQ(30U, offsetof(struct hc_jrec_object2_disk, reserved));
	EXPECT_EQ(32U, offsetof(struct hc_jrec_object2_disk, backend_size));
	EXPECT_EQ(40U, offsetof(struct hc_jrec_object2_disk, backend_mtime));
	EXPECT_EQ(16U, sizeof(struct hc_jrec_sext_disk));
	EXPECT_EQ(8U, offsetof(struct hc_jrec_sext_disk, block));
	EXPECT_EQ(12U, offsetof(struct hc_jrec_sext_disk, nr_blocks));
	EXPECT_EQ(sizeof(struct hc_jrec_ext_disk),
		  sizeof(struct hc_jrec_sext_disk));
	/* 32 + 48 + 64 * 16 + 128 + 1024 = 2256: five 512-byte blocks */
	EXPECT_EQ(2560U, hc_jrec2_max_size(512));
	EXPECT_EQ(4096U, hc_jrec2_max_size(4096));
	EXPECT_GE(hc_jrec2_max_size(512), hc_jrec_max_size(512));
	/* a typical small object: 60-byte URI, one extent, S3 ETag: 1 block */
	EXPECT_EQ(512U, hc_jrec2_object_size(60, 1, 34, 512));
	EXPECT_EQ(0U, hc_jrec2_object_size(60, 1, HC_ETAG_MAX + 1, 512));
	EXPECT_EQ(0x1ULL, HC_FEATURE_INCOMPAT_V2);
	/* the module assembles v2 pools; the core knows no other bit */
	EXPECT_EQ(HC_FEATURE_INCOMPAT_V2, HC_FEATURE_INCOMPAT_SUPP);
	EXPECT_EQ(HC_FORMAT_V2_INCOMPAT, HC_FEATURE_INCOMPAT_SUPP);
}

TEST(header_versions)
{
	u8 *v1 = calloc(1, HC_JHDR_SIZE);
	struct log l = { 0 };
	struct hc_jrec_hdr d, h;

	ASSERT_EQ(0, log_init(&l, HC_JOURNAL_VERSION_V2, 512));
	EXPECT_EQ(0, hc_jrec2_hdr_decode(l.half, uuid, &d));
	EXPECT_EQ(2U, d.version);
	EXPECT_EQ(l.h.csum, d.csum);
	EXPECT_EQ(3U, d.epoch);
	/* a v1-only reader refuses a v2 half */
	EXPECT_EQ(-EOPNOTSUPP, hc_jrec_hdr_decode(l.half, uuid, &d));
	ASSERT_EQ(0, log_init(&l, HC_JOURNAL_VERSION, 512));
	EXPECT_EQ(0, hc_jrec2_hdr_decode(l.half, uuid, &d));
	EXPECT_EQ(1U, d.version);
	EXPECT_EQ(0, hc_jrec_hdr_decode(l.half, uuid, &d));
	/* v1 headers are byte-identical to what the v1 encoder writes */
	h = l.h;
	ASSERT_NE(NULL, v1);
	ASSERT_EQ(0, hc_jrec_hdr_encode(&h, v1));
	EXPECT_EQ(0, memcmp(v1, l.half, HC_JHDR_SIZE));
	free(v1);
	EXPECT_EQ(-EINVAL, hc_jrec_hdr_encode_ver(&l.h, 3, l.half));
	EXPECT_EQ(-EINVAL, hc_jrec_hdr_encode_ver(&l.h, 0, l.half));
	free(l.half);
}

FIXTURE(half) {
	struct log l;
	struct hc_jrec2 r, out;
	struct hc_jrec v1out;
};

FIXTURE_VARIANT(half) {
	u32 block_size;
};

FIXTURE_VARIANT_ADD(half, b512) { .block_size = 512 };
FIXTURE_VARIANT_ADD(half, b4096) { .block_size = 4096 };

FIXTURE_SETUP(half)
{
	memset(&self->l, 0, sizeof(self->l));
	ASSERT_EQ(0, log_init(&self->l, HC_JOURNAL_VERSION_V2,
			      variant->block_size));
}

FIXTURE_TEARDOWN(half)
{
	free(self->l.half);
}

/* Decode the record at @off, at the position it was written at. */
static int decode_at(struct log *l, long off, u64 seq, u32 prev,
		     struct hc_jrec2 *out)
{
	struct hc_jrec_pos pos = { .off = off, .seq = seq, .prev = prev };

	return hc_jrec2_decode(l->half + off, l->len - off, &l->h, &pos, out);
}

TEST_F(half, round_trips)
{
	struct hc_jrec_pos start = self->l.pos, pos;
	struct hc_jrec2 recs[6];
	long off[6];
	u32 prev[6];
	int i;

	make_small(&recs[0], "s3://bucket/model/config.json", 731);
	make_small(&recs[1], "s3://bucket/data/000001.jpg", 100 << 10);
	recs[1].r.nr_ext = 3;		/* fragmented: three runs */
	recs[1].sext[0].nr_blocks = 10;
	recs[1].sext[1] = (struct hc_sext){ .chunk = 9, .block = 0, .nr_blocks = 10 };
	recs[1].sext[2] = (struct hc_sext){ .chunk = 4, .block = 1023, .nr_blocks = 5 };
	make_large(&recs[2], "s3://bucket/model/model-00001-of-00004.safetensors", 64);
	recs[2].r.flags |= HC_OBJ_F_BACKEND;	/* large, with its ETag */
	recs[2].etag_len = HC_ETAG_MAX;
	memset(recs[2].etag, 'e', HC_ETAG_MAX);
	recs[2].backend_size = recs[2].r.size;
	recs[2].backend_mtime = -1;	/* before 1970: kept as is */
	make_large(&recs[3], "file:///data/empty", 0);
	recs[3].r.flags = HC_OBJ_F_BACKEND;	/* POSIX: size and mtime, no ETag */
	recs[3].r.data_crc = 0;
	recs[3].r.size = 0;
	recs[3].backend_mtime = 1700000000;
	make_small(&recs[4], "hcfs://ckpt/step-10/meta.json", 4096);
	recs[4].r.state = HC_OBJ_DIRTY;		/* not uploaded: no version */
	recs[4].r.flags = HC_OBJ_F_SUBCHUNK;
	recs[4].etag_len = 0;
	recs[4].backend_size = 0;
	recs[4].backend_mtime = 0;
	memset(&recs[5], 0, sizeof(recs[5]));
	recs[5].r.type = HC_JREC_DELETE;
	set_uri(&recs[5].r, "s3://bucket/model/config.json");

	for (i = 0; i < 6; i++) {
		prev[i] = self->l.pos.prev;
		off[i] = log_append(&self->l, &recs[i]);
		ASSERT_GE(off[i], 0) TH_LOG("record %d: %ld", i, off[i]);
		EXPECT_EQ(0U, (self->l.pos.off - off[i]) % variant->block_size);
	}
	for (i = 0; i < 6; i++) {
		int n = decode_at(&self->l, off[i], start.seq + i, prev[i],
				  &self->out);

		ASSERT_EQ((long)(i < 5 ? off[i + 1] : (long)self->l.pos.off) - off[i], n);
		EXPECT_EQ(2U, self->out.version);
		EXPECT_TRUE(same(&recs[i], &self->out)) TH_LOG("record %d", i);
		/* the v1 decoder refuses every v2 record */
		pos.off = off[i];
		pos.seq = start.seq + i;
		pos.prev = prev[i];
		EXPECT_EQ(-EOPNOTSUPP,
			  hc_jrec_decode(self->l.half + off[i],
					 self->l.len - off[i], &self->l.h,
					 &pos, &self->v1out));
	}
	EXPECT_EQ(6, hc_jrec2_scan(self->l.half, self->l.len, &self->l.h,
				   &self->out, NULL, NULL, &start));
	EXPECT_EQ(self->l.pos.off, start.off);
}

/* v1 records in a v1 half: the same bytes as the v1 codec, decoded alike. */
TEST_F(half, v1_records_unchanged)
{
	struct log v1 = { 0 };
	u8 *ref = calloc(1, HALF_SIZE);
	struct hc_jrec_pos p1, p2, p;
	struct hc_jrec2 r;
	struct hc_jrec ref_out;
	int i, n1, n2;

	ASSERT_NE(NULL, ref);
	ASSERT_EQ(0, log_init(&v1, HC_JOURNAL_VERSION, variant->block_size));
	memcpy(ref, v1.half, HC_JHDR_SIZE);
	p1 = v1.pos;
	p2 = v1.pos;
	for (i = 0; i < 40; i++) {
		char uri[64];

		snprintf(uri, sizeof(uri), "s3://b/k%d", i);
		make_large(&r, uri, i % 65);
		if (i % 7 == 3) {
			r.r.type = HC_JREC_DELETE;
			r.r.nr_ext = 0;
			r.r.flags = 0;
			r.r.size = r.r.generation = r.r.data_crc = 0;
			r.r.state = 0;
		}
		n1 = hc_jrec2_encode(&r, &v1.h, &p1, v1.half + p1.off,
				     HALF_SIZE - p1.off);
		n2 = hc_jrec_encode(&r.r, &v1.h, &p2, ref + p2.off,
				    HALF_SIZE - p2.off);
		ASSERT_GT(n1, 0);
		ASSERT_EQ(n1, n2);
		hc_jrec_advance(&p1, v1.half + p1.off);
		hc_jrec_advance(&p2, ref + p2.off);
	}
	EXPECT_EQ(0, memcmp(ref, v1.half, HALF_SIZE));
	/* decoded alike, record by record, in a v1 and in a v2 half */
	hc_jrec_pos_init(&p1, &v1.h);
	for (i = 0; i < 40; i++) {
		n1 = hc_jrec2_decode(v1.half + p1.off, HALF_SIZE - p1.off,
				     &v1.h, &p1, &r);
		n2 = hc_jrec_decode(ref + p1.off, HALF_SIZE - p1.off, &v1.h,
				    &p1, &ref_out);
		ASSERT_EQ(n2, n1);
		EXPECT_EQ(1U, r.version);
		EXPECT_EQ(0, memcmp(&ref_out, &r.r, offsetof(struct hc_jrec, ext) +
				    r.r.nr_ext * sizeof(r.r.ext[0])));
		EXPECT_EQ(0U, r.etag_len);
		hc_jrec_advance(&p1, v1.half + p1.off);
	}
	EXPECT_EQ(-ENODATA, hc_jrec2_decode(v1.half + p1.off,
					    HALF_SIZE - p1.off, &v1.h, &p1,
					    &r));
	/* a record with a v2 field cannot go into a v1 half */
	make_small(&r, "s3://b/small", 10);
	EXPECT_EQ(0U, hc_jrec2_size(&r, &v1.h));
	EXPECT_EQ(-EINVAL, hc_jrec2_encode(&r, &v1.h, &p1, v1.half + p1.off,
					   HALF_SIZE - p1.off));
	/* a v2 record found in a v1 half is refused, not taken as a tail */
	p = p1;
	ASSERT_GT(hc_jrec2_encode(&r, &self->l.h, &p, v1.half + p1.off,
				  HALF_SIZE - p1.off), 0);
	EXPECT_EQ(-EOPNOTSUPP,
		  hc_jrec2_decode(v1.half + p1.off, HALF_SIZE - p1.off,
				  &v1.h, &p1, &r));
	EXPECT_EQ(-EOPNOTSUPP,
		  hc_jrec2_scan(v1.half, HALF_SIZE, &v1.h, &r, NULL, NULL, &p));
	/*
	 * ... but one that does not continue the log is stale: what a v2
	 * pool leaves behind when a v1 pool is created over its drives
	 * (pool create --format 1 --force): the log ends before it.
	 */
	p = p1;
	p.prev ^= 1;
	ASSERT_GT(hc_jrec2_encode(&r, &self->l.h, &p, v1.half + p1.off,
				  HALF_SIZE - p1.off), 0);
	EXPECT_EQ(-ESTALE,
		  hc_jrec2_decode(v1.half + p1.off, HALF_SIZE - p1.off,
				  &v1.h, &p1, &r));
	n1 = hc_jrec2_scan(v1.half, HALF_SIZE, &v1.h, &r, NULL, NULL, &p);
	EXPECT_LE(0, n1);
	EXPECT_EQ(p1.off, p.off);
	/* v1 records are read in a v2 half too (before its compaction) */
	p = self->l.pos;
	make_large(&r, "s3://b/v1-in-v2", 2);
	ASSERT_GT(hc_jrec_encode(&r.r, &self->l.h, &p, self->l.half + p.off,
				 HALF_SIZE - p.off), 0);
	EXPECT_GT(hc_jrec2_decode(self->l.half + p.off, HALF_SIZE - p.off,
				  &self->l.h, &p, &self->out), 0);
	EXPECT_EQ(1U, self->out.version);
	EXPECT_TRUE(same(&r, &self->out));
	free(ref);
	free(v1.half);
}

/* Every bit of every byte of a record, padding included, is covered. */
TEST_F(half, every_bit_flip)
{
	struct hc_jrec2 recs[3];
	int i, bit, ret;
	u32 b;

	make_small(&recs[0], "s3://bucket/tokenizer.json", 17000);
	make_large(&recs[1], "s3://bucket/w.bin", 3);
	memset(&recs[2], 0, sizeof(recs[2]));
	recs[2].r.type = HC_JREC_DELETE;
	set_uri(&recs[2].r, "s3://bucket/gone");
	for (i = 0; i < 3; i++) {
		struct hc_jrec_pos pos = self->l.pos;
		long off = log_append(&self->l, &recs[i]);
		u32 len = self->l.pos.off - off;

		ASSERT_GE(off, 0);
		for (b = 0; b < len; b++) {
			for (bit = 0; bit < 8; bit++) {
				self->l.half[off + b] ^= 1 << bit;
				ret = decode_at(&self->l, off, pos.seq,
						pos.prev, &self->out);
				self->l.half[off + b] ^= 1 << bit;
				ASSERT_LT(ret, 0)
					TH_LOG("record %d byte %u bit %d taken",
					       i, b, bit);
				ASSERT_TRUE(ret == -EBADMSG || ret == -ENODATA)
					TH_LOG("record %d byte %u: %d", i, b,
					       ret);
			}
		}
		ASSERT_EQ((int)len, decode_at(&self->l, off, pos.seq,
					      pos.prev, &self->out));
	}
}

/* Re-checksum a record after changing it: a writer bug, not a torn write. */
static void reseal(u8 *rec)
{
	struct hc_jrec_disk *d = (void *)rec;
	u32 len = le32_to_cpu(d->length);

	d->csum = cpu_to_le32(~hc_crc32c(~0U, rec + 4, len - 4));
}

TEST_F(half, checksummed_but_wrong)
{
	struct hc_jrec_pos pos = self->l.pos;
	struct hc_jrec_object2_disk *o;
	struct hc_jrec_sext_disk *e;
	struct hc_jrec_disk *d;
	long off;
	u8 *rec, *copy;
	u32 len;

	make_small(&self->r, "s3://bucket/x.json", 9000);	/* 3 blocks */
	off = log_append(&self->l, &self->r);
	ASSERT_GE(off, 0);
	rec = self->l.half + off;
	len = self->l.pos.off - off;
	copy = malloc(len);
	ASSERT_NE(NULL, copy);
	memcpy(copy, rec, len);
	d = (void *)rec;
	o = (void *)(d + 1);
	e = (void *)(o + 1);

#define WRONG(stmt, err) do {						\
		memcpy(rec, copy, len);					\
		stmt;							\
		reseal(rec);						\
		EXPECT_EQ(err, decode_at(&self->l, off, pos.seq,	\
					 pos.prev, &self->out))		\
			TH_LOG("%s", #stmt);				\
	} while (0)

	WRONG(d->version = cpu_to_le16(3), -EOPNOTSUPP);
	WRONG(d->seq = cpu_to_le64(pos.seq + 1), -ESTALE);
	WRONG(d->type = cpu_to_le16(9), -EUCLEAN);
	WRONG(o->state = cpu_to_le32(9), -EUCLEAN);
	WRONG(o->flags = cpu_to_le32(0x10 | HC_OBJ_F_SUBCHUNK), -EUCLEAN);
	/* the blocks must match the size exactly */
	WRONG(e->nr_blocks = cpu_to_le32(4), -EUCLEAN);
	WRONG(o->size = cpu_to_le64(8192), -EUCLEAN);
	WRONG(o->size = cpu_to_le64(0), -EUCLEAN);
	WRONG(e->nr_blocks = cpu_to_le32(0), -EUCLEAN);
	WRONG(e->block = cpu_to_le32(HC_CHUNK_SIZE_MAX / HC_SUBBLOCK_SIZE), -EUCLEAN);
	/* no backend version: no ETag, size or time */
	WRONG(o->flags = cpu_to_le32(HC_OBJ_F_SUBCHUNK), -EUCLEAN);
	WRONG(o->etag_len = cpu_to_le16(HC_ETAG_MAX + 1), -EUCLEAN);
	WRONG(o->etag_len = cpu_to_le16(len), -EUCLEAN);
	WRONG(((u8 *)(e + 1))[3] = 0, -EUCLEAN);	/* NUL in the ETag */
	WRONG(d->uri_len = cpu_to_le16(0), -EUCLEAN);
	WRONG(d->nr_ext = cpu_to_le16(HC_MAX_EXTENTS + 1), -EUCLEAN);
	WRONG(d->nr_ext = cpu_to_le16(0), -EUCLEAN);
#undef WRONG
	memcpy(rec, copy, len);
	EXPECT_EQ((int)len, decode_at(&self->l, off, pos.seq, pos.prev,
				      &self->out));
	free(copy);
}

TEST_F(half, encode_refuses)
{
	struct hc_jrec_pos pos = self->l.pos;
	u8 *buf = self->l.half + pos.off;
	size_t room = self->l.len - pos.off;

	make_small(&self->r, "s3://b/k", 5000);
	self->r.sext[0].nr_blocks = 1;		/* 5000 B needs 2 blocks */
	EXPECT_EQ(-EINVAL, hc_jrec2_encode(&self->r, &self->l.h, &pos, buf, room));
	make_small(&self->r, "s3://b/k", 5000);
	self->r.r.flags &= ~HC_OBJ_F_BACKEND;	/* an ETag without the flag */
	EXPECT_EQ(-EINVAL, hc_jrec2_encode(&self->r, &self->l.h, &pos, buf, room));
	make_small(&self->r, "s3://b/k", 5000);
	self->r.etag[2] = 0;
	EXPECT_EQ(-EINVAL, hc_jrec2_encode(&self->r, &self->l.h, &pos, buf, room));
	make_small(&self->r, "s3://b/k", 5000);
	self->r.etag_len = HC_ETAG_MAX + 1;
	EXPECT_EQ(-EINVAL, hc_jrec2_encode(&self->r, &self->l.h, &pos, buf, room));
	make_small(&self->r, "s3://b/k", 5000);
	self->r.r.flags |= 0x100;
	EXPECT_EQ(-EINVAL, hc_jrec2_encode(&self->r, &self->l.h, &pos, buf, room));
	make_small(&self->r, "s3://b/k", 5000);
	EXPECT_EQ(-ENOSPC, hc_jrec2_encode(&self->r, &self->l.h, &pos, buf,
					   variant->block_size - 1));
	memset(&self->r, 0, sizeof(self->r));
	self->r.r.type = HC_JREC_DELETE;
	set_uri(&self->r.r, "s3://b/k");
	self->r.etag_len = 1;			/* a DELETE carries nothing */
	EXPECT_EQ(-EINVAL, hc_jrec2_encode(&self->r, &self->l.h, &pos, buf, room));
	/* nothing was written */
	EXPECT_EQ(-ENODATA, hc_jrec2_decode(buf, room, &self->l.h, &pos,
					    &self->out));
}

static int count_live(void *arg, const struct hc_jrec2 *r)
{
	int *n = arg;

	*n += r->r.type == HC_JREC_OBJECT ? 1 : -1;
	return 0;
}

/* A v2 log of thousands of small objects, then a torn tail. */
TEST_F(half, long_log_and_torn_tail)
{
	struct hc_jrec_pos end;
	int i, n, live = 0;
	long last = 0;

	for (i = 0;; i++) {
		char uri[64];

		snprintf(uri, sizeof(uri), "s3://ds/train/%06d.jpg", i);
		make_small(&self->r, uri, 1 + (i * 7919) % (1 << 20));
		if (i % 5 == 4)
			make_large(&self->r, uri, 1 + i % 64);
		n = log_append(&self->l, &self->r);
		if (n == -ENOSPC)
			break;
		ASSERT_GE(n, 0);
		last = n;
	}
	n = hc_jrec2_scan(self->l.half, self->l.len, &self->l.h, &self->out,
			  count_live, &live, &end);
	EXPECT_EQ(i, n);
	EXPECT_EQ(i, live);
	EXPECT_EQ(self->l.pos.off, end.off);
	/* tear the last record: the log ends before it */
	self->l.half[self->l.pos.off - 1] ^= 0x40;
	live = 0;
	EXPECT_EQ(i - 1, hc_jrec2_scan(self->l.half, self->l.len, &self->l.h,
				       &self->out, count_live, &live, &end));
	EXPECT_EQ((u64)last, end.off);
}

TEST_HARNESS_MAIN
