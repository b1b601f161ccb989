// SPDX-License-Identifier: GPL-2.0
/*
 * The v1 -> v2 upgrade step machine (kmod/core/upgrade.c), run against a
 * model of a pool's members (superblocks and both journal halves, with the
 * real codecs): every power cut of the upgrade -- after every write, and
 * inside every multi-sector write after every 512-byte sector -- leaves
 * members that assemble (by the rules of Documentation/journal.md) as v1
 * or as v2 with every object, that a v1-only reader refuses once any
 * superblock is v2, and from which the machine finishes the upgrade.
 * Also: the states the machine refuses, and the superblock write being a
 * single logical block.
 */
#include <stdio.h>
#include <stdlib.h>
#include "kselftest_harness.h"
#include "upgrade.h"

#define NM		3
#define SECTOR		512
#define DATA_OFF	(1ULL << 20)
#define IMG		DATA_OFF	/* superblock + metadata area */
#define MAXOBJ		64
#define MAXWR		64

static const u8 pool_uuid[16] = { 0x51, 0x52, 0x53, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };

struct pool {
	u8 *img[NM];
};

struct wr {
	u32 member;
	u64 off;
	u32 len;
	u8 *data;
};

struct objs {
	u32 n;
	struct hc_jrec2 o[MAXOBJ];
};

static u64 half_off[2], half_size;
static struct hc_jrec2 scratch;

static void pool_alloc(struct pool *p)
{
	u32 i;

	for (i = 0; i < NM; i++)
		p->img[i] = calloc(1, IMG);
}

static void pool_copy(struct pool *dst, const struct pool *src)
{
	u32 i;

	for (i = 0; i < NM; i++)
		memcpy(dst->img[i], src->img[i], IMG);
}

static void pool_free(struct pool *p)
{
	u32 i;

	for (i = 0; i < NM; i++)
		free(p->img[i]);
}

static void objs_apply(struct objs *s, const struct hc_jrec2 *r)
{
	u32 i;

	for (i = 0; i < s->n; i++)
		if (s->o[i].r.uri_len == r->r.uri_len &&
		    !memcmp(s->o[i].r.uri, r->r.uri, r->r.uri_len))
			break;
	if (r->r.type == HC_JREC_DELETE) {
		if (i < s->n)
			s->o[i] = s->o[--s->n];
		return;
	}
	if (i == s->n)
		s->n++;
	s->o[i] = *r;
}

static int objs_cb(void *arg, const struct hc_jrec2 *r)
{
	objs_apply(arg, r);
	return 0;
}

/* Same objects with the same state and extents (order aside). */
static bool objs_same(const struct objs *a, const struct objs *b)
{
	u32 i, j;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++) {
		const struct hc_jrec *x = &a->o[i].r;

		for (j = 0; j < b->n; j++) {
			const struct hc_jrec *y = &b->o[j].r;

			if (x->uri_len == y->uri_len &&
			    !memcmp(x->uri, y->uri, x->uri_len))
				break;
		}
		if (j == b->n)
			return false;
		{
			const struct hc_jrec *y = &b->o[j].r;

			if (x->size != y->size || x->generation != y->generation ||
			    x->state != y->state || x->flags != y->flags ||
			    x->data_crc != y->data_crc || x->nr_ext != y->nr_ext ||
			    memcmp(x->ext, y->ext, x->nr_ext * sizeof(x->ext[0])))
				return false;
		}
	}
	return true;
}

/* A v1 pool: superblocks, and half A with objects, updates and deletes. */
static void make_v1_pool(struct pool *p, struct objs *live)
{
	struct hc_jrec_hdr h = { 0 };
	struct hc_jrec_pos pos;
	struct hc_sb sb = { 0 };
	struct hc_jrec2 r;
	u32 i, k;

	sb.version = 1;
	memcpy(sb.pool_uuid, pool_uuid, 16);
	sb.member_count = NM;
	sb.chunk_size = 64 << 10;
	sb.member_bytes = 1ULL << 30;
	sb.meta_offset = HC_SB_SIZE;
	sb.data_offset = DATA_OFF;
	sb.member_chunks = (sb.member_bytes - DATA_OFF) / sb.chunk_size;
	sb.ctime_ns = 1764547200000000000ULL;
	for (i = 0; i < NM; i++) {
		sb.member_index = i;
		memset(sb.member_uuid, 0x70 + i, 16);
		hc_sb_encode(&sb, p->img[i]);
	}
	h.block_size = SECTOR;
	h.epoch = 4;
	h.start_seq = 1000;
	h.half_size = half_size;
	memcpy(h.pool_uuid, pool_uuid, 16);
	hc_jrec_hdr_encode(&h, p->img[0] + half_off[0]);
	hc_jrec_pos_init(&pos, &h);
	live->n = 0;
	for (k = 0; k < 30; k++) {
		memset(&r, 0, sizeof(r));
		r.r.type = HC_JREC_OBJECT;
		r.r.uri_len = snprintf((char *)r.r.uri, sizeof(r.r.uri),
				       "s3://bkt/model/f%02u", k % 24);
		r.r.size = (u64)(k + 1) << 22;
		r.r.generation = k;
		r.r.state = k % 4 == 1 ? HC_OBJ_DIRTY : HC_OBJ_READY;
		r.r.flags = (k % 3 ? HC_OBJ_F_DATA_CRC : 0) |
			    (k % 5 == 0 ? HC_OBJ_F_PINNED : 0);
		r.r.data_crc = k % 3 ? 0x1000 + k : 0;
		r.r.nr_ext = 1 + k % 3;
		for (i = 0; i < r.r.nr_ext; i++) {
			r.r.ext[i].start = 100 * k + 10 * i;
			r.r.ext[i].count = 1 + i;
		}
		if (k % 7 == 6) {	/* a deletion */
			r.r.nr_ext = 0;
			r.r.type = HC_JREC_DELETE;
			r.r.size = r.r.generation = r.r.data_crc = 0;
			r.r.state = r.r.flags = 0;
		}
		if (hc_jrec2_encode(&r, &h, &pos,
				    p->img[0] + half_off[0] + pos.off,
				    half_size - pos.off) <= 0)
			abort();
		hc_jrec_advance(&pos, p->img[0] + half_off[0] + pos.off);
		objs_apply(live, &r);
	}
	for (i = 1; i < NM; i++)
		memcpy(p->img[i] + half_off[0], p->img[0] + half_off[0],
		       half_size);
}

/* Assembly's view (the rules of journal.md); -errno if it refuses. */
struct view {
	int format;
	u64 sb_v2;
	struct hc_jrec_hdr h;
	int cur;
	struct hc_jrec_pos end;
	struct hc_sb sb[NM];
	struct objs objs;
	bool v1_refuses;
};

static int assemble(const struct pool *p, struct view *v)
{
	struct hc_jrec_hdr best[2], hd;
	int err[2], ret, src = -1;
	struct hc_upgrade_state st;
	const char *msg;
	struct hc_sb sb1;
	u32 i, half;

	memset(v, 0, sizeof(*v));
	v->v1_refuses = false;
	for (i = 0; i < NM; i++) {
		ret = hc_sb_decode_feat(p->img[i], HC_FORMAT_V2_INCOMPAT,
					&v->sb[i], &msg);
		if (ret)
			return ret;
		/* a module of format v1 only: no incompatible feature */
		if (hc_sb_decode_feat(p->img[i], 0, &sb1, &msg) == -EOPNOTSUPP)
			v->v1_refuses = true;
	}
	ret = hc_upgrade_sb_mask(v->sb, NM, &v->sb_v2, &msg);
	if (ret)
		return ret;
	for (half = 0; half < 2; half++) {
		u32 torn = 0;
		bool found = false;

		for (i = 0; i < NM; i++) {
			ret = hc_jrec2_hdr_decode(p->img[i] + half_off[half],
						  pool_uuid, &hd);
			if (ret == -EBADMSG)
				torn++;
			else if (ret == 0 && (!found || hd.epoch > best[half].epoch)) {
				best[half] = hd;
				found = true;
			} else if (ret && ret != -ENODATA) {
				return ret;
			}
		}
		err[half] = found ? 0 : hc_jrec_hdr_missing(NM, torn, 0);
		if (err[half] && err[half] != -ENODATA && err[half] != -EBADMSG)
			return err[half];
	}
	v->cur = hc_jrec_current(&best[0], err[0], &best[1], err[1]);
	if (v->cur < 0)
		return v->cur;
	v->h = best[v->cur];
	for (i = 0; i < NM && src < 0; i++)
		if (!hc_jrec2_hdr_decode(p->img[i] + half_off[v->cur], pool_uuid,
					 &hd) && hd.csum == v->h.csum)
			src = i;
	ret = hc_jrec2_scan(p->img[src] + half_off[v->cur], half_size, &v->h,
			    &scratch, objs_cb, &v->objs, &v->end);
	if (ret < 0)
		return ret;
	st.nr = NM;
	st.sb_v2 = v->sb_v2;
	st.journal_version = v->h.version;
	st.busy = false;
	v->format = hc_upgrade_format(&st, &msg);
	return v->format < 0 ? v->format : 0;
}

static void wr_add(struct wr *w, u32 *nw, u32 member, u64 off, const void *d,
		   u32 len)
{
	w[*nw].member = member;
	w[*nw].off = off;
	w[*nw].len = len;
	w[*nw].data = malloc(len);
	memcpy(w[*nw].data, d, len);
	(*nw)++;
}

/* Run the machine from @p to the end; the writes it makes, in order. */
static int upgrade_writes(struct pool *p, struct wr *w, u32 *nw)
{
	struct hc_upgrade_state st = { .nr = NM };
	struct hc_upgrade_step step;
	struct view v;
	const char *msg;
	u8 *buf = calloc(1, half_size);
	int ret, guard;

	*nw = 0;
	for (guard = 0; guard < 2 * NM + 4; guard++) {
		u32 first = *nw, i;

		ret = assemble(p, &v);
		if (ret)
			break;
		st.sb_v2 = v.sb_v2;
		st.journal_version = v.h.version;
		ret = hc_upgrade_next(&st, &step, &msg);
		if (ret || step.op == HC_UPGRADE_DONE)
			break;
		if (step.op == HC_UPGRADE_SB) {
			u8 block[HC_SB_SIZE];

			hc_upgrade_sb(&v.sb[step.member], block);
			wr_add(w, nw, step.member, 0, block, HC_UPGRADE_SB_BYTES);
		} else {
			struct hc_jrec_hdr h = v.h;
			struct hc_jrec_pos pos;
			u32 other = !v.cur;

			h.epoch++;
			h.start_seq = v.end.seq;
			hc_jrec_hdr_encode_ver(&h, HC_JOURNAL_VERSION_V2, buf);
			hc_jrec_pos_init(&pos, &h);
			for (i = 0; i < v.objs.n; i++) {
				struct hc_jrec2 r;

				hc_upgrade_record(&v.objs.o[i].r, &r);
				ret = hc_jrec2_encode(&r, &h, &pos, buf + pos.off,
						      half_size - pos.off);
				if (ret < 0)
					goto out;
				hc_jrec_advance(&pos, buf + pos.off);
			}
			/* records to every member (then a flush), then the
			 * header to one member after another
			 */
			for (i = 0; i < NM; i++)
				wr_add(w, nw, i, half_off[other] + HC_JHDR_SIZE,
				       buf + HC_JHDR_SIZE, pos.off - HC_JHDR_SIZE);
			for (i = 0; i < NM; i++)
				wr_add(w, nw, i, half_off[other], buf, HC_JHDR_SIZE);
		}
		for (i = first; i < *nw; i++)
			memcpy(p->img[w[i].member] + w[i].off, w[i].data,
			       w[i].len);
	}
out:
	free(buf);
	return ret;
}

static void wr_free(struct wr *w, u32 nw)
{
	while (nw--)
		free(w[nw].data);
}

TEST(sb_write_is_one_sector)
{
	struct pool p;
	struct objs live;
	struct view v;
	u8 block[HC_SB_SIZE];
	u32 i;

	ASSERT_EQ(0, hc_jrec_halves(HC_SB_SIZE, DATA_OFF, half_off, &half_size));
	pool_alloc(&p);
	make_v1_pool(&p, &live);
	ASSERT_EQ(0, assemble(&p, &v));
	EXPECT_EQ(HC_POOL_FORMAT_V1, v.format);
	EXPECT_FALSE(v.v1_refuses);
	for (i = 0; i < NM; i++) {
		hc_upgrade_sb(&v.sb[i], block);
		EXPECT_EQ(0, memcmp(block + HC_UPGRADE_SB_BYTES,
				    p.img[i] + HC_UPGRADE_SB_BYTES,
				    HC_SB_SIZE - HC_UPGRADE_SB_BYTES));
		EXPECT_NE(0, memcmp(block, p.img[i], HC_UPGRADE_SB_BYTES));
	}
	pool_free(&p);
}

TEST(refusals)
{
	struct hc_upgrade_state s = { .nr = 3, .journal_version = 1 };
	struct hc_upgrade_step step;
	const char *msg = NULL;
	struct hc_sb sbs[2] = { { 0 } };
	u64 mask;

	EXPECT_EQ(HC_POOL_FORMAT_V1, hc_upgrade_format(&s, &msg));
	s.busy = true;
	EXPECT_EQ(-EBUSY, hc_upgrade_next(&s, &step, &msg));
	EXPECT_NE(NULL, strstr(msg, "ingested"));
	s.busy = false;
	s.journal_version = 2;
	EXPECT_EQ(-EUCLEAN, hc_upgrade_format(&s, &msg));
	EXPECT_EQ(-EUCLEAN, hc_upgrade_next(&s, &step, &msg));
	EXPECT_NE(NULL, strstr(msg, "v2 journal under v1"));
	s.journal_version = 3;
	s.sb_v2 = 7;
	EXPECT_EQ(-EUCLEAN, hc_upgrade_format(&s, &msg));
	s.journal_version = 2;
	s.sb_v2 = 0xf;
	EXPECT_EQ(-EUCLEAN, hc_upgrade_format(&s, &msg));
	s.sb_v2 = 7;
	EXPECT_EQ(HC_POOL_FORMAT_V2, hc_upgrade_format(&s, &msg));
	s.busy = true;		/* done: nothing left to refuse */
	EXPECT_EQ(0, hc_upgrade_next(&s, &step, &msg));
	EXPECT_EQ((u32)HC_UPGRADE_DONE, step.op);
	s.nr = 0;
	EXPECT_EQ(-EINVAL, hc_upgrade_format(&s, &msg));
	/* the order: superblocks by index, then the journal */
	s.nr = 3;
	s.busy = false;
	s.journal_version = 1;
	s.sb_v2 = 0x5;
	EXPECT_EQ(HC_POOL_FORMAT_V2_PART, hc_upgrade_format(&s, &msg));
	EXPECT_EQ(0, hc_upgrade_next(&s, &step, &msg));
	EXPECT_EQ((u32)HC_UPGRADE_SB, step.op);
	EXPECT_EQ(1U, step.member);
	s.sb_v2 = 7;
	EXPECT_EQ(0, hc_upgrade_next(&s, &step, &msg));
	EXPECT_EQ((u32)HC_UPGRADE_JOURNAL, step.op);
	/* members may differ in the v2 bit only */
	sbs[0].member_index = 0;
	sbs[1].member_index = 1;
	sbs[1].feature_incompat = HC_FEATURE_INCOMPAT_V2;
	EXPECT_EQ(0, hc_upgrade_sb_mask(sbs, 2, &mask, &msg));
	EXPECT_EQ(2ULL, mask);
	sbs[1].feature_incompat |= 0x100;
	EXPECT_EQ(-EUCLEAN, hc_upgrade_sb_mask(sbs, 2, &mask, &msg));
}

/*
 * Every crash point: the first k writes durable and then, for a write of
 * several sectors, its first s sectors.  Each leaves v1 or v2 with every
 * object; the machine then finishes from there.
 */
TEST(every_crash_point)
{
	struct pool orig, p, q;
	struct objs live;
	struct wr w[MAXWR], w2[MAXWR];
	struct view v;
	u32 nw, nw2, k, s, points = 0, as_v1 = 0, as_v2 = 0;

	ASSERT_EQ(0, hc_jrec_halves(HC_SB_SIZE, DATA_OFF, half_off, &half_size));
	pool_alloc(&orig);
	pool_alloc(&p);
	pool_alloc(&q);
	make_v1_pool(&orig, &live);
	ASSERT_GT(live.n, 10U);
	pool_copy(&p, &orig);
	ASSERT_EQ(0, upgrade_writes(&p, w, &nw));
	/* NM superblocks, NM record writes, NM header writes */
	ASSERT_EQ(3U * NM, nw);
	ASSERT_EQ(0, assemble(&p, &v));
	EXPECT_EQ(HC_POOL_FORMAT_V2, v.format);
	EXPECT_TRUE(objs_same(&live, &v.objs));
	EXPECT_TRUE(v.v1_refuses);
	EXPECT_EQ(2U, v.h.version);

	for (k = 0; k <= nw; k++) {
		u32 sectors = k < nw ? w[k].len / SECTOR : 1;

		for (s = 0; s < sectors; s++) {
			u32 i;

			pool_copy(&p, &orig);
			for (i = 0; i < k; i++)
				memcpy(p.img[w[i].member] + w[i].off, w[i].data,
				       w[i].len);
			if (k < nw)
				memcpy(p.img[w[k].member] + w[k].off, w[k].data,
				       s * SECTOR);
			points++;
			ASSERT_EQ(0, assemble(&p, &v))
				TH_LOG("crash after write %u sector %u", k, s);
			ASSERT_TRUE(objs_same(&live, &v.objs))
				TH_LOG("crash after write %u sector %u: objects", k, s);
			if (v.format == HC_POOL_FORMAT_V1) {
				as_v1++;
				EXPECT_EQ(0ULL, v.sb_v2);
				EXPECT_FALSE(v.v1_refuses);
			} else {
				as_v2++;
				EXPECT_TRUE(v.v1_refuses);
			}
			/* finish the upgrade from here */
			pool_copy(&q, &p);
			ASSERT_EQ(0, upgrade_writes(&q, w2, &nw2))
				TH_LOG("resume after write %u sector %u", k, s);
			wr_free(w2, nw2);
			ASSERT_EQ(0, assemble(&q, &v));
			EXPECT_EQ(HC_POOL_FORMAT_V2, v.format);
			EXPECT_TRUE(objs_same(&live, &v.objs));
		}
	}
	printf("# %u crash points: %u assemble as v1, %u as v2\n", points,
	       as_v1, as_v2);
	fflush(stdout);
	EXPECT_GT(as_v1, 0U);
	EXPECT_GT(as_v2, 0U);
	wr_free(w, nw);
	pool_free(&orig);
	pool_free(&p);
	pool_free(&q);
}

TEST_HARNESS_MAIN
