/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Latency histogram buckets (HC_STATS_HIST_BUCKETS, uapi/hypercache_netlink.h):
 * bucket i counts latencies of at most 2^i us and more than 2^(i-1) us
 * (bucket 0: at most 1 us), the last bucket everything longer.  Core code:
 * pure arithmetic, never blocks; the module's counters live in kmod/stats.c,
 * the exporter turns the buckets into seconds (helper/lib/scrape.c).
 */
#ifndef HC_HIST_H
#define HC_HIST_H

#include "core.h"
#include "../../uapi/hypercache_netlink.h"

/* hc_hist_bucket() - the bucket of a latency of @ns nanoseconds. */
static inline u32 hc_hist_bucket(u64 ns)
{
	u64 us = ns / 1000 + (ns % 1000 != 0);	/* rounded up */
	u32 b = 0;

	while (b < HC_STATS_HIST_BUCKETS - 1 && us > (1ULL << b))
		b++;
	return b;
}

/* hc_hist_bound_us() - the upper bound of finite bucket @b, in us. */
static inline u64 hc_hist_bound_us(u32 b)
{
	return 1ULL << b;
}

#endif /* HC_HIST_H */
