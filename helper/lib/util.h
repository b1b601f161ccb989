/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The small helpers every user-space module of HyperCache uses: an error
 * message into a caller's buffer, a UTC time as ISO 8601, the monotonic
 * clock, and I/O loops that move a whole buffer (retrying EINTR and short
 * counts).
 *
 * All are thread-safe and never allocate.  The I/O loops return 0 or a
 * negative errno; none prints.
 */
#ifndef HC_UTIL_H
#define HC_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/*
 * hc_seterr() - format a message into @err (@errlen bytes, truncated; @err
 * may be NULL) and return @ret, so that a failure is one statement:
 * "return hc_seterr(err, errlen, -EINVAL, "...", ...);".
 */
int hc_seterr(char *err, size_t errlen, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int hc_vseterr(char *err, size_t errlen, int ret, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

/*
 * hc_fmt_utc() - seconds since the epoch @t as ISO 8601 UTC,
 * "2025-12-01T00:00:00Z", into @out (HC_UTC_LEN bytes suffice); a time
 * gmtime_r() cannot express, or a year past 9999, as "@T" (the number).
 * Returns @out.
 */
#define HC_UTC_LEN	32
char *hc_fmt_utc(char *out, size_t len, int64_t t);

/* CLOCK_MONOTONIC, in seconds and in milliseconds. */
double hc_now(void);
uint64_t hc_now_ms(void);
/* Sleep @ms milliseconds, resumed across signals. */
void hc_sleep_ms(uint64_t ms);

/*
 * hc_read_full() - read until @n bytes or end of file; the count read in
 * *@got (also on error).  End of file before @n is not an error.
 */
int hc_read_full(int fd, void *buf, size_t n, size_t *got);
/* hc_write_full() - write all @n bytes; a write of 0 bytes is -EIO. */
int hc_write_full(int fd, const void *buf, size_t n);
/*
 * hc_pread_full(), hc_pwrite_full() - all @n bytes at @off; end of file
 * (or of the device) before @n is -EIO.  Safe for O_DIRECT descriptors
 * when @buf, @n and @off are aligned.
 */
int hc_pread_full(int fd, void *buf, size_t n, uint64_t off);
int hc_pwrite_full(int fd, const void *buf, size_t n, uint64_t off);

#endif /* HC_UTIL_H */
