/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How a daemon's log line starts, by where stderr goes.
 *
 * Under systemd, stderr is a stream to the journal, and systemd says so in
 * $JOURNAL_STREAM ("DEVICE:INODE" of that stream, sd_journal_stream_fd(3)).
 * The journal adds its own timestamp and identifier, and reads a leading
 * "<N>" as the line's syslog priority (sd-daemon(3)): a line then starts
 * "<3>error: ".  Anywhere else (a terminal, a file, a test's pipe) a line
 * starts with a UTC timestamp and the program's name:
 * "2026-12-01T12:00:00.123Z hypercached: error: ".
 *
 * Thread-safe once hc_log_detect() has returned; never allocates.
 */
#ifndef HC_LOG_H
#define HC_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include "config.h"

/*
 * hc_log_detect() - true when descriptor @fd is the stream that
 * @journal_stream ($JOURNAL_STREAM, may be NULL) names.
 */
bool hc_log_detect(int fd, const char *journal_stream);

/* The syslog priority (LOG_ERR ... LOG_DEBUG) of level @lvl. */
int hc_log_priority(enum hc_log_level lvl);

/*
 * hc_log_prefix() - write the start of a line of level @lvl into @buf
 * (@len bytes, NUL-terminated, truncated): for the journal "<N>LEVEL: ",
 * else "TIMESTAMP PROG: LEVEL: " with @now in UTC to the millisecond.
 * Returns the length written.
 */
size_t hc_log_prefix(char *buf, size_t len, bool journal, const char *prog,
		     enum hc_log_level lvl, const struct timespec *now);

#endif /* HC_LOG_H */
