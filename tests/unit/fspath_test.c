// SPDX-License-Identifier: GPL-2.0
/*
 * The file system view's namespace (kmod/core/fspath.c): hostile URIs never
 * give a path outside the mount, and a listing walked the way fs_dir.c
 * walks the index (ordered view, hc_fspath_entry(), hc_fspath_skip_key())
 * shows every clean URI exactly once and nothing else.
 */
#include <stdio.h>
#include <stdlib.h>
#include "kselftest_harness.h"
#include "fspath.h"

struct blob {
	u32 len;
	u8 b[HC_FSPATH_URI_MAX + 8];
};

static int blob_cmp(const u8 *a, u32 al, const u8 *b, u32 bl)
{
	u32 m = al < bl ? al : bl;
	int r = m ? memcmp(a, b, m) : 0;

	return r ? r : (al > bl) - (al < bl);
}

static int blob_qcmp(const void *x, const void *y)
{
	const struct blob *a = x, *b = y;

	return blob_cmp(a->b, a->len, b->b, b->len);
}

/* The ordered view: the first URI >= (or > when @strict) @key. */
static u32 lower_bound(const struct blob *v, u32 n, const u8 *key, u32 klen,
		       bool strict)
{
	u32 lo = 0, hi = n;

	while (lo < hi) {
		u32 mid = (lo + hi) / 2;
		int c = blob_cmp(v[mid].b, v[mid].len, key, klen);

		if (c < 0 || (strict && c == 0))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool exists(const struct blob *v, u32 n, const u8 *key, u32 klen)
{
	u32 i = lower_bound(v, n, key, klen, false);

	return i < n && !blob_cmp(v[i].b, v[i].len, key, klen);
}

/* What a listing produced: a file's URI, rebuilt from its path's names. */
struct walk {
	struct blob *out;
	u32 nout;
	u32 dirs;
	int bad;		/* a name that is not clean */
};

static void walk_dir(struct walk *w, const struct blob *v, u32 n,
		     const u8 *dir, u32 dlen, int depth)
{
	u32 i = lower_bound(v, n, dir, dlen, false);

	while (i < n && v[i].len >= dlen &&
	       (!dlen || !memcmp(v[i].b, dir, dlen))) {
		struct hc_fspath_ent ent;
		u8 key[HC_FSPATH_URI_MAX + 8], child[HC_FSPATH_URI_MAX + 8];
		const u8 *name = v[i].b + dlen;
		u32 klen;
		int clen;

		if (!hc_fspath_entry(dir, dlen, v[i].b, v[i].len, &ent)) {
			if (!hc_fspath_name_ok(name, ent.name_len) ||
			    memchr(name, '/', ent.name_len))
				w->bad++;
			clen = hc_fspath_child(dir, dlen, name, ent.name_len,
					       ent.is_dir, child, sizeof(child));
			if (clen < 0) {
				w->bad++;
			} else if (!ent.is_dir) {
				memcpy(w->out[w->nout].b, child, clen);
				w->out[w->nout++].len = clen;
			} else if (!dlen || !exists(v, n, child, clen - 1)) {
				/* A directory, unless a file shadows it. */
				w->dirs++;
				walk_dir(w, v, n, child, clen, depth + 1);
			}
		}
		klen = hc_fspath_skip_key(v[i].b, &ent, key);
		if (klen)
			i = lower_bound(v, n, key, klen, false);
		else
			i = lower_bound(v, n, v[i].b, v[i].len, true);
	}
}

/*
 * The reference rule, written independently: SCHEME "://" then clean
 * names separated by single '/', and no proper prefix of it at a name
 * boundary (past the scheme) is itself a URI of the set.
 */
static bool ref_visible(const struct blob *v, u32 n, const struct blob *u)
{
	const u8 *s = u->b;
	u32 len = u->len, i = 0, start;

	while (i < len && s[i] != ':')
		i++;
	if (!hc_fspath_scheme_ok(s, i) || len - i < 3 ||
	    memcmp(s + i, "://", 3))
		return false;
	i += 3;
	for (;;) {
		start = i;
		while (i < len && s[i] != '/')
			i++;
		if (!hc_fspath_name_ok(s + start, i - start))
			return false;
		if (i == len)
			return true;
		if (exists(v, n, s, i))
			return false;	/* shadowed by a file */
		i++;
	}
}

static void add(struct blob *v, u32 *n, const char *s, u32 len)
{
	memcpy(v[*n].b, s, len);
	v[*n].len = len;
	(*n)++;
}

#define ADD(v, n, lit)	add(v, n, lit, sizeof(lit) - 1)

static u32 hostile_set(struct blob *v)
{
	static char big[1100];
	u32 n = 0, i;

	ADD(v, &n, "s3://bucket/a/b/c");
	ADD(v, &n, "s3://bucket/a/b/d");
	ADD(v, &n, "s3://bucket/a!x");
	ADD(v, &n, "s3://bucket/a");		/* shadows the directory a */
	ADD(v, &n, "s3://bucket/../etc/passwd");
	ADD(v, &n, "s3://bucket/./x");
	ADD(v, &n, "s3://bucket/..");
	ADD(v, &n, "s3://bucket/.");
	ADD(v, &n, "s3://bucket//x");
	ADD(v, &n, "s3://bucket/x//y");
	ADD(v, &n, "s3://bucket/trailing/");
	ADD(v, &n, "s3://");
	ADD(v, &n, "s3:/one-slash");
	ADD(v, &n, "s3:");
	ADD(v, &n, "://noscheme/k");
	ADD(v, &n, "..://bucket/k");
	ADD(v, &n, ".://bucket/k");
	ADD(v, &n, "1s3://bucket/k");
	ADD(v, &n, "a/b://bucket/k");
	ADD(v, &n, "no-scheme-at-all");
	ADD(v, &n, "/absolute/path");
	ADD(v, &n, "hypercache://store/key");
	ADD(v, &n, "hypercache://store/dir/key");
	ADD(v, &n, "s3://bucket/nul\0inside");
	ADD(v, &n, "s3://bucket/bin\x01\x7f\x80\xff\xfe");
	ADD(v, &n, "s3://bucket/\xff/\x01");
	ADD(v, &n, "S3://Bucket/upper");
	ADD(v, &n, "s3://bucket/..hidden-but-fine");
	ADD(v, &n, "s3://bucket/...");
	/* a 256-byte name (too long) and a 255-byte one (fine) */
	memcpy(big, "s3://bucket/", 12);
	memset(big + 12, 'n', 256);
	add(v, &n, big, 12 + 256);
	memset(big + 12, 'm', 255);
	add(v, &n, big, 12 + 255);
	/* 1024 bytes of 4-byte names */
	memcpy(big, "s3://deep/", 10);
	for (i = 10; i < HC_FSPATH_URI_MAX; i++)
		big[i] = (i % 4 == 1) ? '/' : 'z';
	big[HC_FSPATH_URI_MAX - 1] = 'z';
	add(v, &n, big, HC_FSPATH_URI_MAX);
	/* 1024 bytes of '/' and '.' */
	memcpy(big, "s3://dots/", 10);
	for (i = 10; i < HC_FSPATH_URI_MAX; i++)
		big[i] = (i % 3 == 0) ? '/' : '.';
	add(v, &n, big, HC_FSPATH_URI_MAX);
	qsort(v, n, sizeof(*v), blob_qcmp);
	return n;
}

TEST(name_rule)
{
	u8 long_name[256];

	memset(long_name, 'a', sizeof(long_name));
	EXPECT_TRUE(hc_fspath_name_ok((const u8 *)"a", 1));
	EXPECT_TRUE(hc_fspath_name_ok((const u8 *)"...", 3));
	EXPECT_TRUE(hc_fspath_name_ok((const u8 *)".a", 2));
	EXPECT_TRUE(hc_fspath_name_ok((const u8 *)"\xff\x01", 2));
	EXPECT_TRUE(hc_fspath_name_ok(long_name, 255));
	EXPECT_FALSE(hc_fspath_name_ok(long_name, 256));
	EXPECT_FALSE(hc_fspath_name_ok((const u8 *)"", 0));
	EXPECT_FALSE(hc_fspath_name_ok((const u8 *)".", 1));
	EXPECT_FALSE(hc_fspath_name_ok((const u8 *)"..", 2));
	EXPECT_FALSE(hc_fspath_name_ok((const u8 *)"a/b", 3));
	EXPECT_FALSE(hc_fspath_name_ok((const u8 *)"a\0b", 3));
	EXPECT_TRUE(hc_fspath_scheme_ok((const u8 *)"s3", 2));
	EXPECT_TRUE(hc_fspath_scheme_ok((const u8 *)"git+ssh", 7));
	EXPECT_FALSE(hc_fspath_scheme_ok((const u8 *)"3s", 2));
	EXPECT_FALSE(hc_fspath_scheme_ok((const u8 *)"..", 2));
	EXPECT_FALSE(hc_fspath_scheme_ok((const u8 *)"a b", 3));
}

TEST(child)
{
	u8 out[HC_FSPATH_URI_MAX + 8];
	u8 dir[HC_FSPATH_URI_MAX];

	EXPECT_EQ(5, hc_fspath_child(NULL, 0, (const u8 *)"s3", 2, true,
				     out, sizeof(out)));
	EXPECT_EQ(0, memcmp(out, "s3://", 5));
	EXPECT_EQ(-ENOENT, hc_fspath_child(NULL, 0, (const u8 *)"s3", 2,
					   false, out, sizeof(out)));
	EXPECT_EQ(-ENOENT, hc_fspath_child(NULL, 0, (const u8 *)"..", 2,
					   true, out, sizeof(out)));
	EXPECT_EQ(7, hc_fspath_child((const u8 *)"s3://", 5,
				     (const u8 *)"b", 1, true, out,
				     sizeof(out)));
	EXPECT_EQ(0, memcmp(out, "s3://b/", 7));
	EXPECT_EQ(9, hc_fspath_child((const u8 *)"s3://b/", 7,
				     (const u8 *)"kk", 2, false, out,
				     sizeof(out)));
	EXPECT_EQ(0, memcmp(out, "s3://b/kk", 9));
	EXPECT_EQ(-ENOENT, hc_fspath_child((const u8 *)"s3://b/", 7,
					   (const u8 *)"..", 2, false, out,
					   sizeof(out)));
	EXPECT_EQ(-ENOENT, hc_fspath_child((const u8 *)"s3://b/", 7,
					   (const u8 *)"", 0, true, out,
					   sizeof(out)));
	memset(dir, 'd', sizeof(dir));
	EXPECT_EQ(-ENAMETOOLONG, hc_fspath_child(dir, 1020,
						 (const u8 *)"abcde", 5,
						 false, out, sizeof(out)));
	EXPECT_EQ(-ENAMETOOLONG, hc_fspath_child(dir, 4, (const u8 *)"abc",
						 3, false, out, 6));
}

/* Hostile URIs: every listed name clean, each visible URI listed once. */
TEST(walk_hostile)
{
	struct blob *v = calloc(64, sizeof(*v));
	struct walk w = { .out = calloc(64, sizeof(struct blob)) };
	u32 n = hostile_set(v), i, j, visible = 0;

	ASSERT_NE(NULL, v);
	walk_dir(&w, v, n, NULL, 0, 0);
	EXPECT_EQ(0, w.bad);
	for (i = 0; i < n; i++) {
		u32 seen = 0;

		for (j = 0; j < w.nout; j++)
			if (!blob_cmp(w.out[j].b, w.out[j].len, v[i].b,
				      v[i].len))
				seen++;
		if (ref_visible(v, n, &v[i])) {
			visible++;
			EXPECT_EQ(1, seen) TH_LOG("uri #%u (%u bytes) listed %u times",
						  i, v[i].len, seen);
		} else {
			EXPECT_EQ(0, seen) TH_LOG("hidden uri #%u listed", i);
		}
	}
	EXPECT_EQ(visible, w.nout);
	/* the clean ones (a/b/c and a/b/d are shadowed by the file a) */
	EXPECT_EQ(11, visible);
	free(w.out);
	free(v);
}

/* 100,000 URIs under one directory and around it: each listed once. */
TEST(walk_many)
{
	u32 n = 0, i, cap = 100000 + 4;
	struct blob *v = calloc(cap, sizeof(*v));
	struct walk w = { .out = calloc(cap, sizeof(struct blob)) };
	char s[64];

	ASSERT_NE(NULL, v);
	ASSERT_NE(NULL, w.out);
	for (i = 0; i < 100000; i++)
		add(v, &n, s, snprintf(s, sizeof(s), "s3://b/d/k%06u", i));
	ADD(v, &n, "s3://b/d");		/* a file shadowing everything */
	ADD(v, &n, "s3://b/d0");
	ADD(v, &n, "s3://b/d./x");
	ADD(v, &n, "s3://b/c");
	qsort(v, n, sizeof(*v), blob_qcmp);
	walk_dir(&w, v, n, NULL, 0, 0);
	EXPECT_EQ(0, w.bad);
	EXPECT_EQ(4, w.nout);			/* c, d, d0, d./x */

	/* Without the shadowing file, every key of d once. */
	w.nout = 0;
	for (i = 0; i < n; i++)
		if (v[i].len == 8 && !memcmp(v[i].b, "s3://b/d", 8))
			v[i].b[7] = 'a';	/* now s3://b/a */
	qsort(v, n, sizeof(*v), blob_qcmp);
	walk_dir(&w, v, n, NULL, 0, 0);
	EXPECT_EQ(100000 + 4, w.nout);
	for (i = 1; i < w.nout; i++)
		EXPECT_GT(0, blob_qcmp(&w.out[i - 1], &w.out[i]));
	free(w.out);
	free(v);
}

TEST_HARNESS_MAIN
