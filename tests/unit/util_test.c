// SPDX-License-Identifier: GPL-2.0
/*
 * The small shared helpers (helper/lib/util.c): the error message helper
 * and the whole-buffer I/O loops, over pipes (short counts) and files
 * (end of file).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "kselftest_harness.h"
#include "util.h"

TEST(seterr_formats_truncates_and_returns)
{
	char err[8];

	EXPECT_EQ(-EIO, hc_seterr(err, sizeof(err), -EIO, "%s %d", "abc", 12345));
	EXPECT_STREQ("abc 123", err);
	EXPECT_EQ(-EINVAL, hc_seterr(NULL, 0, -EINVAL, "x"));
	EXPECT_EQ(0, hc_seterr(err, 0, 0, "y"));
	EXPECT_STREQ("abc 123", err);	/* errlen 0: untouched */
}

/* ISO 8601 UTC of a Last-Modified; what gmtime cannot say as @SECONDS. */
TEST(fmt_utc)
{
	char b[HC_UTC_LEN], small[8];

	EXPECT_STREQ("1970-01-01T00:00:00Z", hc_fmt_utc(b, sizeof(b), 0));
	EXPECT_STREQ("2025-12-01T00:00:00Z", hc_fmt_utc(b, sizeof(b), 1764547200));
	EXPECT_STREQ("9999-12-31T23:59:59Z", hc_fmt_utc(b, sizeof(b), 253402300799LL));
	EXPECT_STREQ("@253402300800", hc_fmt_utc(b, sizeof(b), 253402300800LL));
	EXPECT_STREQ("1969-12-31T23:59:59Z", hc_fmt_utc(b, sizeof(b), -1));
	EXPECT_STREQ("@9223372036854775807", hc_fmt_utc(b, sizeof(b), INT64_MAX));
	/* a buffer too small for either: cut, NUL-terminated */
	EXPECT_STREQ("@176454", hc_fmt_utc(small, sizeof(small), 1764547200));
}

TEST(clock_is_monotonic)
{
	double a = hc_now();
	uint64_t ms = hc_now_ms();

	hc_sleep_ms(20);
	EXPECT_GE(hc_now() - a, 0.019);
	EXPECT_GE(hc_now_ms() - ms, 19);
}

/* A pipe delivers at most what was written: read_full must loop. */
TEST(read_full_loops_and_stops_at_eof)
{
	char buf[64];
	size_t got = 99;
	int p[2];

	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, hc_write_full(p[1], "hello ", 6));
	ASSERT_EQ(0, hc_write_full(p[1], "world", 5));
	close(p[1]);
	EXPECT_EQ(0, hc_read_full(p[0], buf, sizeof(buf), &got));
	EXPECT_EQ(11, got);
	EXPECT_EQ(0, memcmp(buf, "hello world", 11));
	EXPECT_EQ(0, hc_read_full(p[0], buf, sizeof(buf), &got));
	EXPECT_EQ(0, got);
	close(p[0]);
}

TEST(write_full_reports_errno)
{
	int p[2];

	ASSERT_EQ(0, pipe(p));
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	EXPECT_EQ(-EPIPE, hc_write_full(p[1], "x", 1));
	close(p[1]);
	EXPECT_EQ(-EBADF, hc_write_full(p[1], "x", 1));
}

TEST(pread_past_eof_is_eio)
{
	char path[] = "/tmp/util_test.XXXXXX", buf[16];
	int fd = mkstemp(path);

	ASSERT_LE(0, fd);
	unlink(path);
	EXPECT_EQ(0, hc_pwrite_full(fd, "0123456789", 10, 4));
	EXPECT_EQ(0, hc_pread_full(fd, buf, 6, 8));
	EXPECT_EQ(0, memcmp(buf, "456789", 6));
	EXPECT_EQ(-EIO, hc_pread_full(fd, buf, 6, 9));	/* one byte short */
	EXPECT_EQ(-EIO, hc_pread_full(fd, buf, 1, 14));
	close(fd);
}

TEST_HARNESS_MAIN
