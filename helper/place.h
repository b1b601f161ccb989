/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hypercached's NUMA placement (libnuma; Documentation/hypercached.rst,
 * "NUMA placement"): part workers and their buffers on the node of the
 * member drive a part is written to (ingest) or read from (egress), the
 * network-only threads (the HEAD workers) and
 * their allocations on the node of the NIC of the default route.
 *
 * hc_place_init() decides once: placement is on with numa = auto on a
 * machine of two or more memory nodes whose libnuma works; otherwise
 * (numa = off, one node, no NUMA in the kernel) every call below does
 * nothing but hand out plain buffers, and nothing is said above debug.
 *
 * A part's placement (hc_place_part()): its bytes cut into runs per node
 * (lib/numatopo.h), each run of its buffer bound to its member's node
 * (mbind MPOL_PREFERRED; pages already there are dropped first, not
 * migrated: an egress worker reuses its buffer, and a migration leaves a
 * page that something else holds where it was), the calling thread moved to the CPUs of the node
 * holding most of the part (within the CPUs the process was started on).
 * hc_place_count() then asks the kernel where the buffer's pages and the
 * thread are (move_pages, sched_getcpu), which the daemon logs per object.
 *
 * A part's network transfer (hc_place_net_begin() .. hc_place_net_end()):
 * the worker runs on the CPUs of the NIC's node while libcurl receives or
 * sends it, so that libcurl's own buffers and the socket buffers are
 * first-touched and copied there (the worker's memory policy prefers the
 * NIC's node; the part's buffer keeps its binding to its member's node,
 * which a mapping's policy overrides), then returns to the part's node for
 * its CRC and drive I/O.  hc_place_net_end() checks the thread's CPU and
 * the page of libcurl's receive buffer (sampled by hc_place_net_recv()
 * while libcurl holds it: it frees it when the transfer ends).
 *
 * What every count found is also added up per node and path for the
 * exporter (hc_place_stats(), Documentation/metrics.md "NUMA placement").
 *
 * Thread-safe; the map cache takes a mutex, the rest touches only the
 * caller's thread and buffer.
 */
#ifndef HC_PLACE_H
#define HC_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "config.h"
#include "numatopo.h"
#include "scrape.h"

#define HC_PLACE_RUNS_MAX	64	/* a part of more runs: not placed */

struct hc_place_part {
	struct hc_numa_run runs[HC_PLACE_RUNS_MAX];
	int nr;			/* 0: nothing placed */
	int node;		/* the thread's, -1: left as it was */
	bool net;		/* between net_begin and net_end, moved */
};

enum hc_place_path {
	HC_PLACE_INGEST = HC_SCRAPE_INGEST,	/* fetched, then written */
	HC_PLACE_EGRESS = HC_SCRAPE_EGRESS,	/* read, then uploaded */
};

/* What hc_place_count() found, added up per object. */
struct hc_place_tally {
	uint64_t parts;		/* placed */
	uint64_t pages;		/* buffer pages asked (one per run) */
	uint64_t local;		/* of them on their member's node */
	uint64_t on_node;	/* parts whose thread ran on the part's node */
	uint64_t net;		/* transfers moved to the NIC's node */
	uint64_t net_on;	/* of them ending on its CPUs */
	uint64_t net_pages;	/* libcurl receive buffer pages sampled */
	uint64_t net_local;	/* of them on the NIC's node */
};

/* The daemon's logger. */
typedef void (*hc_place_log_fn)(enum hc_log_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * hc_place_init() - see above, before any thread is started; what it
 * found is logged through @log (info when on, debug when not).
 */
void hc_place_init(enum hc_numa_mode mode, hc_place_log_fn log);
bool hc_place_on(void);

/*
 * hc_place_map() - the map of the pool @uuid into @m: from the cache, or
 * (another pool, the first call) HC_CMD_POOL_GET and the members' nodes in
 * sysfs, logged at info.  0, or a negative errno (no pool, another pool
 * than @uuid runs): then place nothing.
 */
int hc_place_map(const uint8_t uuid[16], struct hc_numa_map *m);

/*
 * A page-aligned buffer of @len bytes, or NULL; and its release: a mapping
 * of its own when placement is on, else the allocator's.
 */
void *hc_place_buf(size_t len);
void hc_place_buf_free(void *buf, size_t len);

/*
 * hc_place_part() - place object bytes [@off, @off + @len) of an object in
 * @ext (a map from hc_place_map()) for @buf and the calling thread.  What
 * @buf held is gone: its placed runs read as zeros until written (their
 * pages are dropped and fault in again on their node).
 */
void hc_place_part(const struct hc_numa_map *m, const struct hc_extent *ext,
		   uint32_t nr_ext, uint64_t off, uint64_t len, void *buf,
		   struct hc_place_part *pp);

/*
 * hc_place_count() - once @buf holds the part (ingest) or has been read
 * (egress): add what is where to @t and to the exporter's @path counters.
 */
void hc_place_count(const struct hc_place_part *pp, const void *buf,
		    enum hc_place_path path, struct hc_place_tally *t);

/*
 * hc_place_net_begin() - before a part's network transfer: the calling
 * thread onto the NIC's node (nothing when placement is off or no NIC's
 * node is known; @pp->net says whether it moved).
 * hc_place_net_recv() - the S3 clients' receive hook (hcs3_set_recv_hook()):
 * notes which node the page of libcurl's receive buffer @ptr is on, for
 * the calling thread's next hc_place_net_end() (@arg NULL), or in the int
 * @arg points to (a client whose transfer brings bytes a part worker
 * takes later: an ingest's first GET, on a HEAD worker).
 * hc_place_net_recv_from() - the part's bytes were received by such a
 * transfer, whose receive buffer was on @node (what the hook stored; -2:
 * none seen): for the calling thread's next hc_place_net_end().
 * hc_place_net_end() - after it: whether the thread is still there and
 * where libcurl's receive buffer was (if hc_place_net_recv() saw it),
 * into @t and the exporter's @path counters; the thread back onto the
 * part's node (@pp->node) or the process's CPUs.
 */
void hc_place_net_begin(struct hc_place_part *pp);
void hc_place_net_recv(void *arg, const void *ptr);
void hc_place_net_recv_from(int node);
void hc_place_net_end(struct hc_place_part *pp, enum hc_place_path path,
		      struct hc_place_tally *t);

/*
 * hc_place_net_thread() - the calling thread onto the NIC's node and its
 * memory policy preferring that node: a network-only thread, or a part
 * worker (whose transfers run there, its drive I/O on the part's node).  @counted: shown in the
 * exporter's hypercache_numa_net_threads (the network-only threads).
 */
void hc_place_net_thread(bool counted);

/* hc_place_stats() - the exporter's counters (all zero when off). */
void hc_place_stats(struct hc_scrape_numa *s);

#endif /* HC_PLACE_H */
