// SPDX-License-Identifier: GPL-2.0
/*
 * The egress engine (helper/egress.c) against a regular file standing in
 * for /dev/hypercache0: the part plan (S3's 5 MiB minimum, the 10000-part
 * limit), the extents reader (scattered extents, parts straddling them,
 * odd sizes), and the posix backend (atomic rename, parent directories,
 * stale temporaries removed, the CRC-32C checked before anything is
 * published).  The S3 path runs in the VM against the real gateway
 * (tests/vm/guest/stage-writeback.sh).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <isa-l/crc.h>
#include "kselftest_harness.h"
#include "egress.h"
#include "posix.h"

#define MiB (1ULL << 20)
#define DEV_SIZE (64 * MiB)

static unsigned char obj_byte(uint64_t off)
{
	uint64_t x = off * 0x9E3779B97F4A7C15ULL;

	return (unsigned char)(x >> 56 ^ off);
}

/* Out of order on the "device", block-aligned; 16 MiB in all. */
static const struct hc_extent ext3[3] = {
	{ .offset = 40 * MiB, .length = 4 * MiB },
	{ .offset = 4 * MiB, .length = 4 * MiB },
	{ .offset = 20 * MiB, .length = 8 * MiB },
};

/* Write object bytes [0, size) into the extents, 0xA5 everywhere else. */
static void lay_out(struct __test_metadata *_metadata, int fd, uint64_t size)
{
	unsigned char *b = malloc(DEV_SIZE);
	uint64_t o = 0;

	ASSERT_NE(NULL, b);
	memset(b, 0xA5, DEV_SIZE);
	for (int i = 0; i < 3 && o < size; i++)
		for (uint64_t j = 0; j < ext3[i].length && o < size; j++, o++)
			b[ext3[i].offset + j] = obj_byte(o);
	ASSERT_EQ((ssize_t)DEV_SIZE, pwrite(fd, b, DEV_SIZE, 0));
	free(b);
}

static uint32_t obj_crc(uint64_t size)
{
	uint32_t c = ~0U;
	unsigned char b[4096];

	for (uint64_t o = 0; o < size; o += sizeof(b)) {
		size_t n = size - o < sizeof(b) ? size - o : sizeof(b);

		for (size_t i = 0; i < n; i++)
			b[i] = obj_byte(o + i);
		c = crc32_iscsi(b, (int)n, c);
	}
	return ~c;
}

/* --- the plan ------------------------------------------------------------- */

TEST(plan_single_and_multipart)
{
	struct hc_egress_plan p;

	ASSERT_EQ(0, hc_egress_plan(0, 8 * MiB, &p));
	EXPECT_FALSE(p.multipart);
	EXPECT_EQ(1, p.nr_parts);
	EXPECT_EQ(0, p.last_size);

	ASSERT_EQ(0, hc_egress_plan(8 * MiB, 8 * MiB, &p));
	EXPECT_FALSE(p.multipart);
	EXPECT_EQ(8 * MiB, p.last_size);

	ASSERT_EQ(0, hc_egress_plan(8 * MiB + 1, 8 * MiB, &p));
	EXPECT_TRUE(p.multipart);
	EXPECT_EQ(2, p.nr_parts);
	EXPECT_EQ(8 * MiB, p.part_size);
	EXPECT_EQ(1, p.last_size);

	ASSERT_EQ(0, hc_egress_plan(300 * MiB, 8 * MiB, &p));
	EXPECT_TRUE(p.multipart);
	EXPECT_EQ(38, p.nr_parts);
	EXPECT_EQ(4 * MiB, p.last_size);
}

TEST(plan_bumps_to_5mib)
{
	struct hc_egress_plan p;

	/* 4 MiB configured: parts of 5 MiB, and 4 MiB + 1 is one PUT */
	ASSERT_EQ(0, hc_egress_plan(4 * MiB + 1, 4 * MiB, &p));
	EXPECT_FALSE(p.multipart);
	EXPECT_EQ(5 * MiB, p.part_size);
	ASSERT_EQ(0, hc_egress_plan(5 * MiB + 1, 1 * MiB, &p));
	EXPECT_TRUE(p.multipart);
	EXPECT_EQ(5 * MiB, p.part_size);
	EXPECT_EQ(2, p.nr_parts);
	ASSERT_EQ(0, hc_egress_plan(300 * MiB, 4 * MiB, &p));
	EXPECT_EQ(60, p.nr_parts);
	EXPECT_EQ(5 * MiB, p.last_size);
	/* every part but the last >= 5 MiB, the sum is the size */
	EXPECT_EQ(300 * MiB, (p.nr_parts - 1) * p.part_size + p.last_size);
}

TEST(plan_at_most_10000_parts)
{
	struct hc_egress_plan p;
	uint64_t size = 100ULL << 30;

	ASSERT_EQ(0, hc_egress_plan(size, 8 * MiB, &p));
	EXPECT_TRUE(p.multipart);
	EXPECT_LE(p.nr_parts, HC_EGRESS_PARTS_MAX);
	EXPECT_EQ(11 * MiB, p.part_size);
	EXPECT_EQ(size, (p.nr_parts - 1) * p.part_size + p.last_size);
	EXPECT_GT(p.last_size, 0);
	EXPECT_LE(p.last_size, p.part_size);
}

/*
 * Part threads per upload: by the uploads running, not by
 * max_objects_in_flight (a lone 256 MiB put got one thread of 8 with the
 * defaults: 128 MiB / (16 x 8 MiB)).
 */
TEST(workers_by_the_uploads_running)
{
	uint64_t half = 128 * MiB;

	EXPECT_EQ(8, hc_egress_workers(half, 8 * MiB, 1, 8));
	EXPECT_EQ(8, hc_egress_workers(half, 8 * MiB, 0, 8));
	EXPECT_EQ(8, hc_egress_workers(half, 8 * MiB, 2, 8));
	EXPECT_EQ(5, hc_egress_workers(half, 8 * MiB, 3, 8));
	EXPECT_EQ(2, hc_egress_workers(half, 8 * MiB, 8, 8));
	EXPECT_EQ(1, hc_egress_workers(half, 8 * MiB, 16, 8));
	EXPECT_EQ(1, hc_egress_workers(half, 8 * MiB, 100, 8));
	EXPECT_EQ(1, hc_egress_workers(4 * MiB, 8 * MiB, 1, 8));	/* always one */
	EXPECT_EQ(HC_EGRESS_WORKERS_MAX, hc_egress_workers(64ULL << 30, 5 * MiB, 1, 1000));
}

TEST(plan_bad_part_size)
{
	struct hc_egress_plan p;

	EXPECT_EQ(-EINVAL, hc_egress_plan(1, 0, &p));
	EXPECT_EQ(-EINVAL, hc_egress_plan(1, 8 * MiB + 1, &p));
}

/* --- the reader and posix, on a file ------------------------------------ */

FIXTURE(dev) {
	char path[64];
	char root[64];
	int fd;
};

FIXTURE_SETUP(dev)
{
	strcpy(self->path, "/tmp/hc-egress-XXXXXX");
	self->fd = mkstemp(self->path);
	ASSERT_GE(self->fd, 0);
	ASSERT_EQ(0, ftruncate(self->fd, DEV_SIZE));
	strcpy(self->root, "/tmp/hc-egress-root-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->root));
}

FIXTURE_TEARDOWN(dev)
{
	char cmd[128];

	close(self->fd);
	unlink(self->path);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->root);
	if (system(cmd))
		TH_LOG("cannot remove %s", self->root);
}

/* Read [off, off + len) through the O_DIRECT reader and check it. */
static void read_check(struct __test_metadata *_metadata, const char *path,
		       uint64_t off, size_t len)
{
	int fd = open(path, O_RDONLY | O_DIRECT);
	unsigned char *buf = NULL;
	char err[256] = "";

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, posix_memalign((void **)&buf, 4096,
				    (len + 4095) / 4096 * 4096 + 4096));
	ASSERT_EQ(0, hc_egress_read(fd, ext3, 3, off, len, buf, err,
				    sizeof(err))) TH_LOG("%s", err);
	for (size_t i = 0; i < len; i++) {
		ASSERT_EQ(obj_byte(off + i), buf[i])
			TH_LOG("byte %zu of [%llu, +%zu)", i,
			       (unsigned long long)off, len);
	}
	free(buf);
	close(fd);
}

TEST_F(dev, reader_sizes_and_extents)
{
	lay_out(_metadata, self->fd, 16 * MiB);
	read_check(_metadata, self->path, 0, 0);
	read_check(_metadata, self->path, 0, 1);
	read_check(_metadata, self->path, 0, 4095);
	read_check(_metadata, self->path, 0, 4096);
	read_check(_metadata, self->path, 0, 4097);
	/* straddles extent 0 -> 1, and 1 -> 2 */
	read_check(_metadata, self->path, 4 * MiB - 8192, 3 * MiB);
	read_check(_metadata, self->path, 3 * MiB, 6 * MiB + 17);
	/* all three extents at once */
	read_check(_metadata, self->path, 0, 16 * MiB);
	/* the tail of the last extent */
	read_check(_metadata, self->path, 16 * MiB - 4096, 4096);
}

TEST_F(dev, reader_refuses)
{
	int fd = open(self->path, O_RDONLY | O_DIRECT);
	static void *buf;
	char err[256];

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, posix_memalign(&buf, 4096, 8192));
	/* unaligned offset */
	EXPECT_EQ(-EINVAL, hc_egress_read(fd, ext3, 3, 100, 10, buf, err,
					  sizeof(err)));
	/* past the last extent */
	EXPECT_EQ(-EIO, hc_egress_read(fd, ext3, 3, 16 * MiB, 1, buf, err,
				       sizeof(err)));
	free(buf);
	close(fd);
}

/* Upload @size bytes to ROOT/@key; check the file and that no temporary
 * is left. */
static void posix_one(struct __test_metadata *_metadata, const char *dev,
		      int fd, const char *root, const char *key,
		      uint64_t size, uint64_t part)
{
	uint32_t want = obj_crc(size);
	struct hc_egress e = {
		.size = size, .ext = ext3, .nr_ext = 3, .dev = dev,
		.part_size = part, .workers = 1, .crc = &want,
	};
	struct hc_egress_result res;
	char path[256], etag[16], err[512] = "";
	unsigned char *got;
	struct stat st;
	int in, ntmp = 0;
	struct dirent *d;
	DIR *dir;
	char *slash;

	lay_out(_metadata, fd, size);
	snprintf(path, sizeof(path), "%s/%s", root, key);
	ASSERT_EQ(0, hc_egress_posix(&e, path, &res, err, sizeof(err)))
		TH_LOG("%s", err);
	snprintf(etag, sizeof(etag), "%08x", want);
	EXPECT_STREQ(etag, res.etag);
	EXPECT_EQ(want, res.crc32c);
	ASSERT_EQ(0, stat(path, &st));
	ASSERT_EQ((off_t)size, st.st_size);
	/* the Last-Modified sent with EGRESS_DONE: the renamed file's */
	EXPECT_EQ((int64_t)st.st_mtim.tv_sec, res.mtime);
	EXPECT_EQ(0, res.mtime_err);
	got = malloc(size + 1);
	ASSERT_NE(NULL, got);
	in = open(path, O_RDONLY);
	ASSERT_GE(in, 0);
	ASSERT_EQ((ssize_t)size, read(in, got, size + 1));
	close(in);
	for (uint64_t i = 0; i < size; i++) {
		ASSERT_EQ(obj_byte(i), got[i]) TH_LOG("byte %llu",
						     (unsigned long long)i);
	}
	free(got);
	slash = strrchr(path, '/');
	*slash = '\0';
	dir = opendir(path);
	ASSERT_NE(NULL, dir);
	while ((d = readdir(dir)))
		if (strstr(d->d_name, HC_POSIX_TMP_SUFFIX))
			ntmp++;
	closedir(dir);
	EXPECT_EQ(0, ntmp);
}

TEST_F(dev, posix_sizes)
{
	posix_one(_metadata, self->path, self->fd, self->root, "o0", 0, MiB);
	posix_one(_metadata, self->path, self->fd, self->root, "o1", 1, MiB);
	posix_one(_metadata, self->path, self->fd, self->root, "o4095", 4095, MiB);
	posix_one(_metadata, self->path, self->fd, self->root, "o4097", 4097, MiB);
	/* 1 MiB parts, three extents */
	posix_one(_metadata, self->path, self->fd, self->root, "big",
		  10 * MiB + 123, MiB);
	/* 3 MiB parts straddle the extent ends */
	posix_one(_metadata, self->path, self->fd, self->root, "big3",
		  16 * MiB, 3 * MiB);
}

TEST_F(dev, posix_parent_dirs_and_replace)
{
	posix_one(_metadata, self->path, self->fd, self->root,
		  "a/b/c/ckpt.pt", 4097, MiB);
	/* again over the existing file: replaced */
	posix_one(_metadata, self->path, self->fd, self->root,
		  "a/b/c/ckpt.pt", 3 * MiB + 5, MiB);
}

TEST_F(dev, posix_removes_stale_tmp)
{
	struct hc_egress e = {
		.size = 10, .ext = ext3, .nr_ext = 3, .dev = self->path,
		.part_size = MiB, .workers = 1,
	};
	struct hc_egress_result res;
	char pk[256], pkk[256], path[256], err[512] = "";
	int f;

	lay_out(_metadata, self->fd, 10);
	snprintf(pk, sizeof(pk), "%s/k%s0123456789abcdef", self->root,
		 HC_POSIX_TMP_SUFFIX);
	snprintf(pkk, sizeof(pkk), "%s/kk%s0123456789abcdef", self->root,
		 HC_POSIX_TMP_SUFFIX);
	f = open(pk, O_WRONLY | O_CREAT, 0644);
	ASSERT_GE(f, 0);
	close(f);
	f = open(pkk, O_WRONLY | O_CREAT, 0644);
	ASSERT_GE(f, 0);
	close(f);
	/* kk's crash leftover goes, k's (another key) stays */
	snprintf(path, sizeof(path), "%s/kk", self->root);
	ASSERT_EQ(0, hc_egress_posix(&e, path, &res, err, sizeof(err)))
		TH_LOG("%s", err);
	EXPECT_NE(0, access(pkk, F_OK));
	EXPECT_EQ(0, access(pk, F_OK));
	/* then k's: none left at all */
	posix_one(_metadata, self->path, self->fd, self->root, "k", 10, MiB);
}

TEST_F(dev, posix_bad_crc_publishes_nothing)
{
	uint32_t wrong = obj_crc(5000) ^ 1;
	struct hc_egress e = {
		.size = 5000, .ext = ext3, .nr_ext = 3, .dev = self->path,
		.part_size = MiB, .workers = 1, .crc = &wrong,
	};
	struct hc_egress_result res;
	char path[256], err[512];
	DIR *dir;
	struct dirent *d;
	int n = 0;

	lay_out(_metadata, self->fd, 5000);
	snprintf(path, sizeof(path), "%s/bad", self->root);
	EXPECT_EQ(-EBADMSG, hc_egress_posix(&e, path, &res, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "CRC-32C"));
	EXPECT_NE(0, access(path, F_OK));
	dir = opendir(self->root);
	ASSERT_NE(NULL, dir);
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			n++;
	closedir(dir);
	EXPECT_EQ(0, n);
}

TEST_F(dev, posix_stop)
{
	volatile int stop = 1;
	struct hc_egress e = {
		.size = 5000, .ext = ext3, .nr_ext = 3, .dev = self->path,
		.part_size = MiB, .workers = 1, .stop = &stop,
	};
	struct hc_egress_result res;
	char path[256], err[512];

	snprintf(path, sizeof(path), "%s/stopped", self->root);
	EXPECT_EQ(-ECANCELED, hc_egress_posix(&e, path, &res, err, sizeof(err)));
	EXPECT_NE(0, access(path, F_OK));
}

TEST_F(dev, check_refuses)
{
	struct hc_extent bad = { .offset = 100, .length = 4096 };
	struct hc_egress e = {
		.size = 17 * MiB, .ext = ext3, .nr_ext = 3, .dev = self->path,
		.part_size = MiB, .workers = 1,
	};
	char err[256];

	/* extents too short */
	EXPECT_EQ(-EINVAL, hc_egress_check(&e, err, sizeof(err)));
	e.size = 10;
	e.ext = &bad;
	e.nr_ext = 1;
	EXPECT_EQ(-EINVAL, hc_egress_check(&e, err, sizeof(err)));
	e.ext = ext3;
	e.nr_ext = 3;
	e.workers = 0;
	EXPECT_EQ(-EINVAL, hc_egress_check(&e, err, sizeof(err)));
	e.workers = 1;
	EXPECT_EQ(0, hc_egress_check(&e, err, sizeof(err)));
}

/* What stops the retries of an upload, and what does not. */
TEST(permanent_errors)
{
	static const int permanent[] = {
		EACCES, EPERM, ENOENT, EINVAL, ENAMETOOLONG, ENXIO, EFBIG,
		ENOTDIR, EISDIR, EROFS, ELOOP, EBADMSG,
	};
	static const int transient[] = {
		EIO, EAGAIN, ETIMEDOUT, ECONNREFUSED, ECONNRESET, ENOSPC,
		ENOMEM, ECANCELED, ESTALE, EHOSTUNREACH, 0,
	};
	size_t i;

	for (i = 0; i < sizeof(permanent) / sizeof(permanent[0]); i++)
		EXPECT_TRUE(hc_egress_permanent(permanent[i])) {
			TH_LOG("errno %d should be permanent", permanent[i]);
		}
	for (i = 0; i < sizeof(transient) / sizeof(transient[0]); i++)
		EXPECT_FALSE(hc_egress_permanent(transient[i])) {
			TH_LOG("errno %d should be transient", transient[i]);
		}
}

/* The message the kernel keeps: bounded, whole UTF-8 sequences. */
TEST(message_cut)
{
	char big[600], out[256];
	size_t i;

	hc_egress_message(out, sizeof(out), EACCES, NULL);
	EXPECT_STREQ(strerror(EACCES), out);
	hc_egress_message(out, sizeof(out), EACCES, "");
	EXPECT_STREQ(strerror(EACCES), out);
	hc_egress_message(out, sizeof(out), EIO, "S3 AccessDenied: no");
	EXPECT_STREQ("S3 AccessDenied: no", out);
	/* 254 ASCII bytes, then a 2-byte sequence across the limit */
	memset(big, 'a', 254);
	strcpy(big + 254, "\xc3\xa9tail");
	hc_egress_message(out, sizeof(out), EIO, big);
	EXPECT_EQ(254, strlen(out));
	/* all 2-byte sequences: the cut falls between two of them */
	for (i = 0; i + 2 < sizeof(big); i += 2) {
		big[i] = '\xc3';
		big[i + 1] = '\xa9';
	}
	big[i] = 0;
	hc_egress_message(out, sizeof(out), EIO, big);
	EXPECT_EQ(254, strlen(out));
	hc_egress_message(out, 1, EIO, "x");
	EXPECT_STREQ("", out);
}

TEST_HARNESS_MAIN
