/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scrape: the exporter's page (Documentation/metrics.md) computed from one
 * HC_CMD_STATS_GET reply of the kernel and the daemon's own counters.
 *
 *   hc_scrape_parse()   the reply's attributes (the generic netlink
 *                       payload after the genlmsghdr) -> struct hc_scrape_kernel
 *   hc_scrape_render()  every metric family into a prom page
 *
 * Pure: no I/O, no locks, no clock (the caller passes the time of the
 * scrape).  struct hc_scrape_state carries what a scrape needs from the
 * previous one (the rates' start, the counters' epochs); one per exporter.
 */
#ifndef HC_SCRAPE_H
#define HC_SCRAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "hypercache_netlink.h"
#include "prom.h"

#define HC_SCRAPE_MEMBERS_MAX	64
#define HC_SCRAPE_BACKENDS_MAX	16
#define HC_SCRAPE_NODES_MAX	64	/* NUMA nodes the exporter shows */

/* The daemon's own histograms (seconds): the finite upper bounds. */
#define HC_SCRAPE_SEC_BUCKETS	14
extern const double hc_scrape_sec_bounds[HC_SCRAPE_SEC_BUCKETS];

struct hc_scrape_sec_hist {
	uint64_t counts[HC_SCRAPE_SEC_BUCKETS + 1];
	double sum;
};

void hc_scrape_sec_observe(struct hc_scrape_sec_hist *h, double seconds);

struct hc_scrape_member {
	uint64_t reads, writes, read_bytes, write_bytes, errors;
	uint64_t read_ns, write_ns;
	uint64_t read_hist[HC_STATS_HIST_BUCKETS];
	uint64_t write_hist[HC_STATS_HIST_BUCKETS];
};

/* One HC_CMD_STATS_GET reply. */
struct hc_scrape_kernel {
	uint64_t v[HC_A_STATS_MAX + 1];		/* the u64 attributes */
	bool has[HC_A_STATS_MAX + 1];
	uint64_t locate_hist[HC_STATS_HIST_BUCKETS];
	unsigned int nr_members;
	struct hc_scrape_member m[HC_SCRAPE_MEMBERS_MAX];
};

/* The daemon's counters of one backend (by its configured name). */
struct hc_scrape_backend {
	char name[64];
	const char *type;			/* "s3" or "posix" */
	uint64_t fetched_bytes;			/* bytes read from it by ingests */
	uint64_t ingest_objects, ingest_failures, ingest_retries;
	uint64_t egress_bytes, egress_objects, egress_failures;
	uint64_t head_count;			/* metadata requests (HEAD/stat) */
	double head_seconds;
	double ingest_busy_seconds;		/* wall time of successful ingests */
	struct hc_scrape_sec_hist ttfb;		/* request -> first byte written */
	struct hc_scrape_sec_hist ingest;	/* request -> DONE */
	struct hc_scrape_sec_hist egress;	/* EGRESS request -> DONE */
};

/*
 * hypercached's NUMA placement (helper/place.h) per node, per path
 * (HC_SCRAPE_INGEST: parts fetched and written; HC_SCRAPE_EGRESS: parts
 * read and uploaded).  "Placed" is what placement meant, "local"/"on" what
 * the kernel said afterwards (move_pages of one page per run of the
 * buffer, the CPU the thread ran on).
 */
enum { HC_SCRAPE_INGEST, HC_SCRAPE_EGRESS, HC_SCRAPE_PATHS };

struct hc_scrape_numa_node {
	/* parts whose drive side (most of their bytes) is on this node */
	uint64_t parts[HC_SCRAPE_PATHS];
	/* sampled buffer pages bound to this node: on it, or not */
	uint64_t pages_local[HC_SCRAPE_PATHS], pages_remote[HC_SCRAPE_PATHS];
	/* those parts: their worker on this node's CPUs at the drive I/O */
	uint64_t workers_on[HC_SCRAPE_PATHS], workers_off[HC_SCRAPE_PATHS];
	/* network transfers of parts meant for this node (the NIC's) */
	uint64_t net_on[HC_SCRAPE_PATHS], net_off[HC_SCRAPE_PATHS];
	/* libcurl's receive buffer (sampled once per part fetched) */
	uint64_t net_pages_local, net_pages_remote;
	/* network-only threads (HEAD workers) moved to this node, the NIC's */
	uint64_t net_threads;
};

struct hc_scrape_numa {
	bool on;			/* placement runs: the families below */
	unsigned int nr_nodes;		/* 1..HC_SCRAPE_NODES_MAX */
	int nic_node;			/* -1: none known */
	struct hc_scrape_numa_node n[HC_SCRAPE_NODES_MAX];
};

/*
 * The exporter's own cost: the scrapes it answered before this one, and
 * the time they spent in their two phases (the caller measures them).
 */
struct hc_scrape_self {
	uint64_t scrapes;
	double kernel_seconds;		/* HC_CMD_STATS_GET, request to ack */
	double render_seconds;		/* hc_scrape_render() */
};

struct hc_scrape_in {
	bool kernel_ok;			/* @k is a reply (a pool runs) */
	struct hc_scrape_kernel k;
	unsigned int nr_backends;
	struct hc_scrape_backend b[HC_SCRAPE_BACKENDS_MAX];
	double price_per_gb;		/* egress price, dollars per 1e9 bytes */
	double now;			/* monotonic seconds of this scrape */
	struct hc_scrape_self self;
	struct hc_scrape_numa numa;
};

struct hc_scrape_state {
	bool primed;
	double last_now;
	uint64_t last_read_bytes;
	uint64_t last_fetched, last_egressed;	/* the backends' byte totals */
	uint64_t last_locate_ns, last_locate_n;
	uint64_t last_mread_ns, last_mread_n;
	uint64_t last_head_n;
	double last_head_s;
	struct hc_prom_counter k[HC_A_STATS_MAX + 1];
	struct hc_prom_counter locate[HC_STATS_HIST_BUCKETS];
	struct hc_prom_counter m[HC_SCRAPE_MEMBERS_MAX][7];
	struct hc_prom_counter mh[HC_SCRAPE_MEMBERS_MAX][2][HC_STATS_HIST_BUCKETS];
};

/* 0, or -EPROTO for a malformed reply (@k is then incomplete). */
int hc_scrape_parse(const void *attrs, size_t len, struct hc_scrape_kernel *k);

/* Render every family; returns hc_prom_finish()'s result. */
int hc_scrape_render(struct hc_prom *p, const struct hc_scrape_in *in,
		     struct hc_scrape_state *st);

#endif /* HC_SCRAPE_H */
