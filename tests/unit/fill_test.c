// SPDX-License-Identifier: GPL-2.0
/*
 * The fill engine (helper/fill.c) against a regular file standing in for
 * /dev/hypercache0: every byte lands at its place in scattered extents,
 * parts straddling extents, the last partial block zero-padded, the CRC-32C
 * equal to that of the whole object whatever order the workers finish in,
 * the first failure stops the run and is reported, malformed requests are
 * refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <isa-l/crc.h>
#include "kselftest_harness.h"
#include "fill.h"

#define MiB (1ULL << 20)

/* The object's byte at @off: a pattern no shift of itself matches. */
static unsigned char obj_byte(uint64_t off)
{
	uint64_t x = off * 0x9E3779B97F4A7C15ULL;

	return (unsigned char)(x >> 56 ^ off);
}

struct src {
	uint64_t size;
	int fail_at_part;	/* -1 = never */
	uint64_t part_size;
	int fail_errno;
	unsigned int jitter;	/* reorder the workers */
	unsigned int calls;
};

static int fetch(void *arg, unsigned int worker, uint64_t off, size_t len,
		 void *buf, char *err, size_t errlen)
{
	struct src *s = arg;
	unsigned char *b = buf;

	__atomic_add_fetch(&s->calls, 1, __ATOMIC_RELAXED);
	if (s->fail_at_part >= 0 &&
	    off / s->part_size == (uint64_t)s->fail_at_part) {
		snprintf(err, errlen, "part %d: injected", s->fail_at_part);
		return -s->fail_errno;
	}
	if (off + len > s->size)
		return -ERANGE;
	if (s->jitter)
		usleep((off / s->part_size * 7919) % s->jitter);
	for (size_t i = 0; i < len; i++)
		b[i] = obj_byte(off + i);
	return 0;
}

FIXTURE(fill) {
	char path[64];
	int fd;
};

FIXTURE_SETUP(fill)
{
	strcpy(self->path, "/tmp/hc-fill-XXXXXX");
	self->fd = mkstemp(self->path);
	ASSERT_GE(self->fd, 0);
	ASSERT_EQ(0, ftruncate(self->fd, 64 * MiB));
}

FIXTURE_TEARDOWN(fill)
{
	close(self->fd);
	unlink(self->path);
}

/* Fill @size bytes into three scattered extents; check every byte. */
static void run_one(struct __test_metadata *_metadata, const char *path,
		    int fd, uint64_t size, uint64_t part, unsigned int workers,
		    unsigned int jitter)
{
	/* Out of order on the "device", block-aligned, 4 MiB apiece. */
	struct hc_extent ext[3] = {
		{ .offset = 40 * MiB, .length = 4 * MiB },
		{ .offset = 4 * MiB, .length = 4 * MiB },
		{ .offset = 20 * MiB, .length = 8 * MiB },
	};
	struct src s = { .size = size, .fail_at_part = -1, .part_size = part,
			 .jitter = jitter };
	struct hc_fill f = {
		.size = size, .ext = ext, .nr_ext = 3, .dev = path,
		.part_size = part, .workers = workers, .fetch = fetch,
		.src = &s,
	};
	struct hc_fill_result res;
	unsigned char *obj = malloc(size + 1), *got = malloc(16 * MiB);
	uint64_t left = size, o = 0;
	char err[256] = "";

	ASSERT_NE(NULL, obj);
	ASSERT_NE(NULL, got);
	for (uint64_t i = 0; i < size; i++)
		obj[i] = obj_byte(i);
	/* Mark the device so that unwritten bytes show. */
	memset(got, 0xA5, 16 * MiB);
	for (int i = 0; i < 3; i++)
		ASSERT_EQ((ssize_t)ext[i].length,
			  pwrite(fd, got, ext[i].length, ext[i].offset));

	ASSERT_EQ(0, hc_fill_run(&f, &res, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(~crc32_iscsi(obj, (int)size, ~0U), res.crc32c);
	EXPECT_EQ((size + part - 1) / part, res.parts);
	EXPECT_EQ(res.parts, s.calls);

	for (int i = 0; i < 3; i++) {
		uint64_t n = ext[i].length;

		ASSERT_EQ((ssize_t)n, pread(fd, got, n, ext[i].offset));
		if (n > left) {
			uint64_t pad = ((left + 4095) & ~4095ULL) - left;

			/* the last block is zero-padded, the rest untouched */
			for (uint64_t j = left; j < left + pad; j++)
				ASSERT_EQ(0, got[j]);
			if (left + pad < n)
				ASSERT_EQ(0xA5, got[left + pad]);
			n = left;
		}
		ASSERT_EQ(0, memcmp(got, obj + o, n))
			TH_LOG("extent %d differs", i);
		o += n;
		left -= n;
	}
	free(obj);
	free(got);
}

TEST_F(fill, one_worker_small_parts)
{
	run_one(_metadata, self->path, self->fd, 10 * MiB + 123, 1 * MiB, 1, 0);
}

TEST_F(fill, parts_straddle_extents)
{
	/* 3 MiB parts cross the 4 MiB extent ends */
	run_one(_metadata, self->path, self->fd, 16 * MiB, 3 * MiB, 4, 0);
}

TEST_F(fill, workers_finish_out_of_order)
{
	run_one(_metadata, self->path, self->fd, 15 * MiB + 1, 256 * 1024, 8,
		3000);
}

TEST_F(fill, tiny_objects)
{
	run_one(_metadata, self->path, self->fd, 1, 1 * MiB, 8, 0);
	run_one(_metadata, self->path, self->fd, 4095, 1 * MiB, 8, 0);
	run_one(_metadata, self->path, self->fd, 4096, 1 * MiB, 8, 0);
	run_one(_metadata, self->path, self->fd, 4097, 4096, 2, 0);
}

TEST_F(fill, zero_bytes)
{
	struct hc_extent ext = { .offset = 0, .length = 4 * MiB };
	struct src s = { .fail_at_part = -1, .part_size = MiB };
	struct hc_fill f = { .size = 0, .ext = &ext, .nr_ext = 0,
			     .dev = self->path, .part_size = MiB, .workers = 4,
			     .fetch = fetch, .src = &s };
	struct hc_fill_result res;
	char err[256];

	ASSERT_EQ(0, hc_fill_run(&f, &res, err, sizeof(err)));
	EXPECT_EQ(0, res.crc32c);
	EXPECT_EQ(0, res.parts);
	EXPECT_EQ(0, s.calls);
}

TEST_F(fill, first_failure_stops_the_run)
{
	struct hc_extent ext = { .offset = 0, .length = 64 * MiB };
	struct src s = { .size = 64 * MiB, .fail_at_part = 5,
			 .part_size = MiB, .fail_errno = ENOENT };
	struct hc_fill f = { .size = 64 * MiB, .ext = &ext, .nr_ext = 1,
			     .dev = self->path, .part_size = MiB, .workers = 2,
			     .fetch = fetch, .src = &s };
	struct hc_fill_result res;
	char err[256] = "";

	EXPECT_EQ(-ENOENT, hc_fill_run(&f, &res, err, sizeof(err)));
	EXPECT_STREQ("part 5: injected", err);
	/* nothing much past the failing part was fetched */
	EXPECT_LT(s.calls, 10);
}

TEST_F(fill, refuses_malformed)
{
	struct hc_extent ext[2] = {
		{ .offset = 0, .length = 4 * MiB },
		{ .offset = 8 * MiB + 512, .length = 4 * MiB },
	};
	struct src s = { .size = 8 * MiB, .fail_at_part = -1,
			 .part_size = MiB };
	struct hc_fill f = { .size = 4 * MiB + 1, .ext = ext, .nr_ext = 1,
			     .dev = self->path, .part_size = MiB, .workers = 4,
			     .fetch = fetch, .src = &s };
	struct hc_fill_result res;
	char err[256];

	/* extents too short for the object */
	EXPECT_EQ(-EINVAL, hc_fill_run(&f, &res, err, sizeof(err)));
	/* an extent not block-aligned */
	f.nr_ext = 2;
	EXPECT_EQ(-EINVAL, hc_fill_run(&f, &res, err, sizeof(err)));
	ext[1].offset = 8 * MiB;
	/* part size not a block multiple, no workers, too many */
	f.part_size = MiB + 1;
	EXPECT_EQ(-EINVAL, hc_fill_run(&f, &res, err, sizeof(err)));
	f.part_size = MiB;
	f.workers = 0;
	EXPECT_EQ(-EINVAL, hc_fill_run(&f, &res, err, sizeof(err)));
	f.workers = HC_FILL_WORKERS_MAX + 1;
	EXPECT_EQ(-EINVAL, hc_fill_run(&f, &res, err, sizeof(err)));
	EXPECT_EQ(0, s.calls);
	/* a device that cannot be opened */
	f.workers = 2;
	f.dev = "/nonexistent/hypercache0";
	EXPECT_EQ(-ENOENT, hc_fill_run(&f, &res, err, sizeof(err)));
}

TEST_HARNESS_MAIN
