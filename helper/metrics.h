/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hypercached's Prometheus exporter (Documentation/metrics.md): an HTTP
 * server (libmicrohttpd, its own thread) on metrics_listen serving
 * /metrics, which reads the kernel's statistics once per scrape
 * (HC_CMD_STATS_GET on a socket of its own) and renders them with the
 * daemon's counters (helper/lib/scrape.c).
 *
 * hc_metrics_start() may fail (the address is taken): the caller decides.
 * The hc_metrics_note_*() calls record what the ingest and egress threads
 * did; they take a mutex, never block otherwise, and do nothing before
 * hc_metrics_start() or after hc_metrics_stop().
 */
#ifndef HC_METRICS_H
#define HC_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "config.h"

int hc_metrics_start(const struct hc_config *cfg, char *err, size_t errlen);
void hc_metrics_stop(void);

/* A metadata request (HEAD, stat) to @backend took @seconds. */
void hc_metrics_note_head(const char *backend, double seconds);
/* An ingest from @backend ended (@ok: DONE) after @seconds; @bytes read. */
void hc_metrics_note_ingest(const char *backend, bool ok, uint64_t bytes,
			    double seconds, bool retried);
/* The first byte of an ingest from @backend arrived @seconds after the request. */
void hc_metrics_note_ttfb(const char *backend, double seconds);
/* An upload to @backend ended (@ok: acknowledged) after @seconds. */
void hc_metrics_note_egress(const char *backend, bool ok, uint64_t bytes,
			    double seconds);

#endif /* HC_METRICS_H */
