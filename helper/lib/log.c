// SPDX-License-Identifier: GPL-2.0
/* The start of a daemon's log line: see log.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/stat.h>
#include "log.h"

static const char *const hc_level_names[] = {
	[HC_LOG_ERROR] = "error",
	[HC_LOG_WARN] = "warn",
	[HC_LOG_INFO] = "info",
	[HC_LOG_DEBUG] = "debug",
};

static const int hc_level_prio[] = {
	[HC_LOG_ERROR] = LOG_ERR,
	[HC_LOG_WARN] = LOG_WARNING,
	[HC_LOG_INFO] = LOG_INFO,
	[HC_LOG_DEBUG] = LOG_DEBUG,
};

bool hc_log_detect(int fd, const char *journal_stream)
{
	unsigned long long dev, ino;
	struct stat st;
	char tail;

	if (!journal_stream ||
	    sscanf(journal_stream, "%llu:%llu%c", &dev, &ino, &tail) != 2)
		return false;
	if (fstat(fd, &st))
		return false;
	return (unsigned long long)st.st_dev == dev &&
	       (unsigned long long)st.st_ino == ino;
}

int hc_log_priority(enum hc_log_level lvl)
{
	if ((unsigned int)lvl > HC_LOG_DEBUG)
		return LOG_DEBUG;
	return hc_level_prio[lvl];
}

size_t hc_log_prefix(char *buf, size_t len, bool journal, const char *prog,
		     enum hc_log_level lvl, const struct timespec *now)
{
	const char *name = (unsigned int)lvl > HC_LOG_DEBUG ?
			   "debug" : hc_level_names[lvl];
	char stamp[32];
	struct tm tm;
	int n;

	if (!len)
		return 0;
	if (journal) {
		n = snprintf(buf, len, "<%d>%s: ", hc_log_priority(lvl), name);
	} else {
		gmtime_r(&now->tv_sec, &tm);
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
		n = snprintf(buf, len, "%s.%03ldZ %s: %s: ", stamp,
			     now->tv_nsec / 1000000, prog, name);
	}
	if (n < 0) {
		buf[0] = '\0';
		return 0;
	}
	return (size_t)n < len ? (size_t)n : len - 1;
}
