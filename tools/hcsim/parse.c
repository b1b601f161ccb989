// SPDX-License-Identifier: GPL-2.0
/* Checked number parsing for hcsim's options and traces (see parse.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "parse.h"

/**
 * sim_parse_u64 - a whole number in 0..@max
 * @s: decimal digits, nothing else
 * @max: largest value accepted
 * @v: set to the value on success
 *
 * Return: true if @s is such a number (then *@v is set).
 */
bool sim_parse_u64(const char *s, u64 max, u64 *v)
{
	unsigned long long x;
	char *end;

	if (!isdigit((unsigned char)*s))
		return false;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (*end || errno == ERANGE || x > max)
		return false;
	*v = x;
	return true;
}

void sim_usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("hcsim: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* The value of option @opt: a whole number in @min..@max, or exit 2. */
u64 sim_opt_u64(const char *opt, const char *s, u64 min, u64 max)
{
	u64 v;

	if (!sim_parse_u64(s, max, &v) || v < min)
		sim_usage_error("%s: \"%s\" is not a whole number in %llu..%llu",
				opt, s, (unsigned long long)min,
				(unsigned long long)max);
	return v;
}

/* The value of option @opt: a finite decimal number in @min..@max, or exit 2. */
double sim_opt_double(const char *opt, const char *s, double min, double max)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || isspace((unsigned char)*s) || errno == ERANGE ||
	    !isfinite(v) || v < min || v > max)
		sim_usage_error("%s: \"%s\" is not a number in %g..%g", opt, s,
				min, max);
	return v;
}

/*
 * The value of option @opt: N, or N with K, M, G or T (binary multiples),
 * at least 1 and below 2^64, or exit 2.  *@bytes (if not NULL) says
 * whether a suffix was given.
 */
u64 sim_opt_size(const char *opt, const char *s, bool *bytes)
{
	static const char suffixes[] = "KMGT";
	unsigned long long v;
	const char *p;
	char *end;
	int shift = 0;

	errno = 0;
	v = isdigit((unsigned char)*s) ? strtoull(s, &end, 10) : 0;
	if (!v || errno == ERANGE)
		goto bad;
	if (*end) {
		p = end[1] ? NULL : strchr(suffixes, toupper((unsigned char)*end));
		if (!p)
			goto bad;
		shift = 10 * (int)(p - suffixes + 1);
	}
	if (v > UINT64_MAX >> shift)
		goto bad;
	if (bytes)
		*bytes = shift;
	return (u64)v << shift;
bad:
	sim_usage_error("%s: \"%s\" is not a size (N, or N with K, M, G or T; at least 1, below 2^64)",
			opt, s);
}
