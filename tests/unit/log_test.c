// SPDX-License-Identifier: GPL-2.0
/*
 * The start of a daemon's log line (helper/lib/log.c): the journal is
 * recognised only by the DEVICE:INODE of $JOURNAL_STREAM matching the
 * descriptor; then "<N>" syslog priorities, otherwise UTC timestamps.
 */
#include <stdio.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <sys/stat.h>
#include "kselftest_harness.h"
#include "log.h"

TEST(journal_stream_must_name_the_descriptor)
{
	char js[64], other[64];
	struct stat st;
	int p[2];

	ASSERT_EQ(0, pipe(p));
	ASSERT_EQ(0, fstat(p[1], &st));
	snprintf(js, sizeof(js), "%llu:%llu", (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	snprintf(other, sizeof(other), "%llu:%llu",
		 (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino + 1);
	EXPECT_TRUE(hc_log_detect(p[1], js));
	/* inherited by a child whose stderr went elsewhere: not the journal */
	EXPECT_FALSE(hc_log_detect(p[1], other));
	EXPECT_FALSE(hc_log_detect(p[1], NULL));
	EXPECT_FALSE(hc_log_detect(p[1], ""));
	EXPECT_FALSE(hc_log_detect(p[1], "12"));
	strcat(js, "x");
	EXPECT_FALSE(hc_log_detect(p[1], js));
	close(p[0]);
	close(p[1]);
	EXPECT_FALSE(hc_log_detect(p[1], other));	/* closed */
}

TEST(journal_prefix_is_the_syslog_priority)
{
	struct timespec t = { 0 };
	char buf[64];

	EXPECT_EQ(10, hc_log_prefix(buf, sizeof(buf), true, "hypercached",
				    HC_LOG_ERROR, &t));
	EXPECT_STREQ("<3>error: ", buf);
	hc_log_prefix(buf, sizeof(buf), true, "x", HC_LOG_WARN, &t);
	EXPECT_STREQ("<4>warn: ", buf);
	hc_log_prefix(buf, sizeof(buf), true, "x", HC_LOG_INFO, &t);
	EXPECT_STREQ("<6>info: ", buf);
	hc_log_prefix(buf, sizeof(buf), true, "x", HC_LOG_DEBUG, &t);
	EXPECT_STREQ("<7>debug: ", buf);
	EXPECT_EQ(LOG_ERR, hc_log_priority(HC_LOG_ERROR));
	EXPECT_EQ(LOG_DEBUG, hc_log_priority((enum hc_log_level)42));
}

TEST(terminal_prefix_is_a_utc_timestamp)
{
	/* 2026-12-01T12:00:00.123Z */
	struct timespec t = { .tv_sec = 1796126400, .tv_nsec = 123999999 };
	char buf[64], small[8];

	hc_log_prefix(buf, sizeof(buf), false, "hypercached", HC_LOG_WARN, &t);
	EXPECT_STREQ("2026-12-01T12:00:00.123Z hypercached: warn: ", buf);
	EXPECT_EQ(7, hc_log_prefix(small, sizeof(small), false, "hypercached",
				   HC_LOG_WARN, &t));
	EXPECT_STREQ("2026-12", small);
	EXPECT_EQ(0, hc_log_prefix(small, 0, false, "p", HC_LOG_INFO, &t));
}

TEST_HARNESS_MAIN
