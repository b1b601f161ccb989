/* SPDX-License-Identifier: GPL-2.0 */
/*
 * prom: a writer of the Prometheus text exposition format (version 0.0.4)
 * and of OpenMetrics 1.0 text, into a growing buffer.
 *
 *   hc_prom_init()       an empty page, in one of the two formats
 *   hc_prom_family()     "# HELP" and "# TYPE" of a metric family
 *   hc_prom_u64/_f64()   one sample, with up to HC_PROM_LABELS_MAX labels
 *   hc_prom_histogram()  the _bucket (cumulative), _sum and _count samples
 *   hc_prom_finish()     end the page ("# EOF" for OpenMetrics): 0, or
 *                        -ENOMEM if any append failed (the page is then
 *                        unusable), -EINVAL if a name was invalid
 *
 * A counter family is named with its "_total" suffix; the writer drops it
 * from the HELP/TYPE lines of an OpenMetrics page, as that format wants.
 * Label values are escaped (\\, \", \n); HELP text is escaped (\\, \n).
 * Nothing here allocates except the buffer; no locks (one writer per page).
 *
 * hc_prom_counter_update() keeps a counter monotonic across a reset of its
 * source (the module reloaded, the pool re-assembled): a raw value smaller
 * than the last one starts a new epoch added to the old total.
 */
#ifndef HC_PROM_H
#define HC_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HC_PROM_LABELS_MAX	4

enum hc_prom_type {
	HC_PROM_COUNTER,
	HC_PROM_GAUGE,
	HC_PROM_HISTOGRAM,
};

struct hc_prom {
	char *buf;
	size_t len;
	size_t cap;
	int err;		/* sticky: the first failure */
	bool openmetrics;
};

/* One label: name and value (any bytes but NUL; escaped on output). */
struct hc_prom_label {
	const char *name;
	const char *value;
};

/*
 * A histogram in base units: @bounds[0..@nr-1] are the ascending upper
 * bounds (le) of the finite buckets, @counts[0..@nr] the observations per
 * bucket, not cumulative (@counts[@nr]: above the last bound, the +Inf
 * bucket's own share), @sum the sum of all observations.
 */
struct hc_prom_hist {
	const double *bounds;
	const uint64_t *counts;
	unsigned int nr;
	double sum;
};

struct hc_prom_counter {
	uint64_t last;		/* the last raw value */
	uint64_t base;		/* the total of earlier epochs */
};

void hc_prom_init(struct hc_prom *p, bool openmetrics);
void hc_prom_free(struct hc_prom *p);
void hc_prom_family(struct hc_prom *p, const char *name,
		    enum hc_prom_type type, const char *help);
void hc_prom_u64(struct hc_prom *p, const char *name,
		 const struct hc_prom_label *l, unsigned int nr_labels,
		 uint64_t v);
void hc_prom_f64(struct hc_prom *p, const char *name,
		 const struct hc_prom_label *l, unsigned int nr_labels,
		 double v);
void hc_prom_histogram(struct hc_prom *p, const char *name,
		       const struct hc_prom_label *l, unsigned int nr_labels,
		       const struct hc_prom_hist *h);
int hc_prom_finish(struct hc_prom *p);

/* The Content-Type of a page in the format @openmetrics selects. */
const char *hc_prom_content_type(bool openmetrics);

/* Does an Accept header ask for OpenMetrics (application/openmetrics-text)? */
bool hc_prom_wants_openmetrics(const char *accept);

uint64_t hc_prom_counter_update(struct hc_prom_counter *c, uint64_t raw);

#endif /* HC_PROM_H */
