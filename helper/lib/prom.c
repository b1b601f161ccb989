// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus / OpenMetrics text writer (prom.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "prom.h"

void hc_prom_init(struct hc_prom *p, bool openmetrics)
{
	memset(p, 0, sizeof(*p));
	p->openmetrics = openmetrics;
}

void hc_prom_free(struct hc_prom *p)
{
	free(p->buf);
	memset(p, 0, sizeof(*p));
}

static bool prom_reserve(struct hc_prom *p, size_t more)
{
	size_t cap;
	char *b;

	if (p->err)
		return false;
	if (p->len + more + 1 <= p->cap)
		return true;
	cap = p->cap ? p->cap : 4096;
	while (cap < p->len + more + 1)
		cap *= 2;
	b = realloc(p->buf, cap);
	if (!b) {
		p->err = -ENOMEM;
		return false;
	}
	p->buf = b;
	p->cap = cap;
	return true;
}

static void prom_put(struct hc_prom *p, const char *s, size_t n)
{
	if (!prom_reserve(p, n))
		return;
	memcpy(p->buf + p->len, s, n);
	p->len += n;
	p->buf[p->len] = '\0';
}

static void prom_puts(struct hc_prom *p, const char *s)
{
	prom_put(p, s, strlen(s));
}

static void __attribute__((format(printf, 2, 3)))
prom_printf(struct hc_prom *p, const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		if (!p->err)
			p->err = -EINVAL;
		return;
	}
	prom_put(p, tmp, (size_t)n);
}

/* [a-zA-Z_:][a-zA-Z0-9_:]* (metric) or without ':' (label). */
static bool prom_name_ok(const char *s, bool label)
{
	size_t i;

	if (!s || !*s)
		return false;
	for (i = 0; s[i]; i++) {
		char c = s[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    c == '_' || (!label && c == ':'))
			continue;
		if (i && c >= '0' && c <= '9')
			continue;
		return false;
	}
	return true;
}

static bool prom_check(struct hc_prom *p, const char *name, bool label)
{
	if (prom_name_ok(name, label))
		return true;
	if (!p->err)
		p->err = -EINVAL;
	return false;
}

/* @s escaped: always \\ and \n; \" too in a label value (@quote). */
static void prom_escaped(struct hc_prom *p, const char *s, bool quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			prom_puts(p, "\\\\");
		else if (*s == '\n')
			prom_puts(p, "\\n");
		else if (*s == '"' && quote)
			prom_puts(p, "\\\"");
		else
			prom_put(p, s, 1);
	}
}

void hc_prom_family(struct hc_prom *p, const char *name,
		    enum hc_prom_type type, const char *help)
{
	static const char *const types[] = {
		[HC_PROM_COUNTER] = "counter",
		[HC_PROM_GAUGE] = "gauge",
		[HC_PROM_HISTOGRAM] = "histogram",
	};
	size_t n = strlen(name);

	if (!prom_check(p, name, false))
		return;
	/* OpenMetrics names a counter family without its sample suffix. */
	if (p->openmetrics && type == HC_PROM_COUNTER && n > 6 &&
	    !strcmp(name + n - 6, "_total"))
		n -= 6;
	prom_puts(p, "# HELP ");
	prom_put(p, name, n);
	prom_puts(p, " ");
	prom_escaped(p, help, false);
	prom_puts(p, "\n# TYPE ");
	prom_put(p, name, n);
	prom_puts(p, " ");
	prom_puts(p, types[type]);
	prom_puts(p, "\n");
}

/* name{l1="v1",...,extra="ev"} -- @extra (may be NULL) goes last. */
static void prom_series(struct hc_prom *p, const char *name,
			const char *suffix, const struct hc_prom_label *l,
			unsigned int nr, const char *extra, const char *ev)
{
	unsigned int i;

	if (!prom_check(p, name, false))
		return;
	if (nr > HC_PROM_LABELS_MAX) {
		if (!p->err)
			p->err = -EINVAL;
		return;
	}
	prom_puts(p, name);
	prom_puts(p, suffix);
	if (!nr && !extra)
		return;
	prom_puts(p, "{");
	for (i = 0; i < nr; i++) {
		if (!prom_check(p, l[i].name, true))
			return;
		prom_printf(p, "%s%s=\"", i ? "," : "", l[i].name);
		prom_escaped(p, l[i].value, true);
		prom_puts(p, "\"");
	}
	if (extra) {
		prom_printf(p, "%s%s=\"", nr ? "," : "", extra);
		prom_puts(p, ev);
		prom_puts(p, "\"");
	}
	prom_puts(p, "}");
}

/* The shortest of %.15g and %.17g that reads back as @v. */
static void prom_double(char *out, size_t n, double v)
{
	snprintf(out, n, "%.15g", v);
	if (strtod(out, NULL) != v)
		snprintf(out, n, "%.17g", v);
}

static void prom_value(struct hc_prom *p, double v)
{
	char tmp[40];

	if (isnan(v)) {
		prom_puts(p, " NaN\n");
	} else if (isinf(v)) {
		prom_puts(p, v > 0 ? " +Inf\n" : " -Inf\n");
	} else {
		prom_double(tmp, sizeof(tmp), v);
		prom_printf(p, " %s\n", tmp);
	}
}

void hc_prom_u64(struct hc_prom *p, const char *name,
		 const struct hc_prom_label *l, unsigned int nr_labels,
		 uint64_t v)
{
	prom_series(p, name, "", l, nr_labels, NULL, NULL);
	prom_printf(p, " %" PRIu64 "\n", v);
}

void hc_prom_f64(struct hc_prom *p, const char *name,
		 const struct hc_prom_label *l, unsigned int nr_labels,
		 double v)
{
	prom_series(p, name, "", l, nr_labels, NULL, NULL);
	prom_value(p, v);
}

void hc_prom_histogram(struct hc_prom *p, const char *name,
		       const struct hc_prom_label *l, unsigned int nr_labels,
		       const struct hc_prom_hist *h)
{
	uint64_t cum = 0;
	char le[40];
	unsigned int i;

	for (i = 0; i <= h->nr; i++) {
		if (i && i < h->nr && !(h->bounds[i] > h->bounds[i - 1])) {
			if (!p->err)
				p->err = -EINVAL;	/* not ascending */
			return;
		}
		cum += h->counts[i];
		if (i < h->nr)
			prom_double(le, sizeof(le), h->bounds[i]);
		else
			snprintf(le, sizeof(le), "+Inf");
		prom_series(p, name, "_bucket", l, nr_labels, "le", le);
		prom_printf(p, " %" PRIu64 "\n", cum);
	}
	prom_series(p, name, "_sum", l, nr_labels, NULL, NULL);
	prom_value(p, h->sum);
	prom_series(p, name, "_count", l, nr_labels, NULL, NULL);
	prom_printf(p, " %" PRIu64 "\n", cum);
}

int hc_prom_finish(struct hc_prom *p)
{
	if (p->openmetrics)
		prom_puts(p, "# EOF\n");
	else if (!p->len)
		prom_put(p, "", 0);	/* an empty page is still a string */
	return p->err;
}

const char *hc_prom_content_type(bool openmetrics)
{
	return openmetrics ?
		"application/openmetrics-text; version=1.0.0; charset=utf-8" :
		"text/plain; version=0.0.4; charset=utf-8";
}

bool hc_prom_wants_openmetrics(const char *accept)
{
	return accept && strstr(accept, "application/openmetrics-text");
}

uint64_t hc_prom_counter_update(struct hc_prom_counter *c, uint64_t raw)
{
	if (raw < c->last)
		c->base += c->last;	/* the source restarted from 0 */
	c->last = raw;
	return c->base + raw;
}
