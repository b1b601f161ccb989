// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter's text writer (helper/lib/prom.c) and its page computed from
 * a canned HC_CMD_STATS_GET reply (helper/lib/scrape.c).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "kselftest_harness.h"
#include "prom.h"
#include "scrape.h"
#include "hist.h"

TEST(label_and_help_escaping)
{
	struct hc_prom_label l = { "backend", "a\"b\\c\nd" };
	struct hc_prom p;

	hc_prom_init(&p, false);
	hc_prom_family(&p, "x_total", HC_PROM_COUNTER, "line\\one\ntwo \"q\"");
	hc_prom_u64(&p, "x_total", &l, 1, 18446744073709551615ULL);
	ASSERT_EQ(0, hc_prom_finish(&p));
	EXPECT_STREQ("# HELP x_total line\\\\one\\ntwo \"q\"\n"
		     "# TYPE x_total counter\n"
		     "x_total{backend=\"a\\\"b\\\\c\\nd\"} 18446744073709551615\n",
		     p.buf);
	hc_prom_free(&p);
}

TEST(bad_names_fail_the_page)
{
	struct hc_prom_label l = { "0bad", "v" };
	struct hc_prom p;

	hc_prom_init(&p, false);
	hc_prom_u64(&p, "ok_name", &l, 1, 1);
	EXPECT_EQ(-EINVAL, hc_prom_finish(&p));
	hc_prom_free(&p);
	hc_prom_init(&p, false);
	hc_prom_family(&p, "bad-name", HC_PROM_GAUGE, "h");
	EXPECT_EQ(-EINVAL, hc_prom_finish(&p));
	hc_prom_free(&p);
}

TEST(histogram_buckets_are_cumulative)
{
	static const double b[] = { 0.001, 0.01, 1 };
	static const uint64_t c[] = { 2, 0, 3, 1 };
	struct hc_prom_hist h = { b, c, 3, 2.5 };
	struct hc_prom_label l = { "member", "1" };
	struct hc_prom p;

	hc_prom_init(&p, false);
	hc_prom_histogram(&p, "lat_seconds", &l, 1, &h);
	ASSERT_EQ(0, hc_prom_finish(&p));
	EXPECT_STREQ("lat_seconds_bucket{member=\"1\",le=\"0.001\"} 2\n"
		     "lat_seconds_bucket{member=\"1\",le=\"0.01\"} 2\n"
		     "lat_seconds_bucket{member=\"1\",le=\"1\"} 5\n"
		     "lat_seconds_bucket{member=\"1\",le=\"+Inf\"} 6\n"
		     "lat_seconds_sum{member=\"1\"} 2.5\n"
		     "lat_seconds_count{member=\"1\"} 6\n", p.buf);
	hc_prom_free(&p);
}

TEST(histogram_bounds_must_ascend)
{
	static const double b[] = { 1, 1 };
	static const uint64_t c[] = { 0, 0, 0 };
	struct hc_prom_hist h = { b, c, 2, 0 };
	struct hc_prom p;

	hc_prom_init(&p, false);
	hc_prom_histogram(&p, "h", NULL, 0, &h);
	EXPECT_EQ(-EINVAL, hc_prom_finish(&p));
	hc_prom_free(&p);
}

TEST(openmetrics_drops_total_from_the_family_and_ends_with_eof)
{
	struct hc_prom p;

	hc_prom_init(&p, true);
	hc_prom_family(&p, "hits_total", HC_PROM_COUNTER, "h");
	hc_prom_u64(&p, "hits_total", NULL, 0, 3);
	ASSERT_EQ(0, hc_prom_finish(&p));
	EXPECT_STREQ("# HELP hits h\n# TYPE hits counter\nhits_total 3\n# EOF\n",
		     p.buf);
	EXPECT_TRUE(hc_prom_wants_openmetrics("application/openmetrics-text; version=1.0.0,text/plain;q=0.5"));
	EXPECT_FALSE(hc_prom_wants_openmetrics("text/plain"));
	EXPECT_FALSE(hc_prom_wants_openmetrics(NULL));
	hc_prom_free(&p);
}

TEST(counters_stay_monotonic_across_a_reset)
{
	struct hc_prom_counter c = { 0 };

	EXPECT_EQ(5, hc_prom_counter_update(&c, 5));
	EXPECT_EQ(9, hc_prom_counter_update(&c, 9));
	EXPECT_EQ(9, hc_prom_counter_update(&c, 9));
	EXPECT_EQ(11, hc_prom_counter_update(&c, 2));	/* the source restarted */
	EXPECT_EQ(12, hc_prom_counter_update(&c, 3));
}

TEST(the_page_grows_past_its_first_buffer)
{
	struct hc_prom p;
	char name[32];

	hc_prom_init(&p, false);
	for (int i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "m%d", i);
		hc_prom_u64(&p, name, NULL, 0, (uint64_t)i);
	}
	ASSERT_EQ(0, hc_prom_finish(&p));
	EXPECT_NE(NULL, strstr(p.buf, "\nm1999 1999\n"));
	hc_prom_free(&p);
}

/* The kernel's bucket rule (kmod/core/hist.h): <= 2^i us, rounded up. */
TEST(hist_buckets)
{
	EXPECT_EQ(0, hc_hist_bucket(0));
	EXPECT_EQ(0, hc_hist_bucket(1000));
	EXPECT_EQ(1, hc_hist_bucket(1001));
	EXPECT_EQ(1, hc_hist_bucket(2000));
	EXPECT_EQ(2, hc_hist_bucket(2001));
	EXPECT_EQ(7, hc_hist_bucket(128000));
	EXPECT_EQ(8, hc_hist_bucket(128001));
	EXPECT_EQ(22, hc_hist_bucket(4194304000ULL));
	EXPECT_EQ(HC_STATS_HIST_BUCKETS - 1, hc_hist_bucket(4194304001ULL));
	EXPECT_EQ(HC_STATS_HIST_BUCKETS - 1, hc_hist_bucket(~0ULL));
	EXPECT_EQ(128, hc_hist_bound_us(7));
}

/* --- a canned statistics reply ----------------------------------------- */

struct msgbuf {
	unsigned char b[8192];
	size_t len;
};

static size_t put(struct msgbuf *m, uint16_t type, const void *v, size_t n)
{
	uint16_t len = (uint16_t)(4 + n);
	size_t at = m->len;

	memcpy(m->b + at, &len, 2);
	memcpy(m->b + at + 2, &type, 2);
	memcpy(m->b + at + 4, v, n);
	m->len = at + ((4 + n + 3) & ~(size_t)3);
	return at;
}

static void put64(struct msgbuf *m, uint16_t type, uint64_t v)
{
	put(m, type, &v, 8);
}

/* A member nest: @reads reads of 4 KiB each at 100 us. */
static void put_member(struct msgbuf *m, uint32_t idx, uint64_t reads)
{
	struct msgbuf in = { .len = 0 };
	uint64_t hist[HC_STATS_HIST_BUCKETS] = { 0 };

	put(&in, HC_A_STATS_MEMBER_INDEX, &idx, 4);
	put64(&in, HC_A_STATS_MEMBER_READS, reads);
	put64(&in, HC_A_STATS_MEMBER_READ_BYTES, reads * 4096);
	put64(&in, HC_A_STATS_MEMBER_READ_NS, reads * 100000);
	hist[7] = reads;	/* <= 128 us */
	put(&in, HC_A_STATS_MEMBER_READ_HIST, hist, sizeof(hist));
	put(m, HC_A_STATS_MEMBER | 0x8000, in.b, in.len);
}

static void canned(struct msgbuf *m, uint64_t hits, uint64_t reads)
{
	uint64_t lh[HC_STATS_HIST_BUCKETS] = { 0 };

	m->len = 0;
	put64(m, HC_A_STATS_HITS, hits);
	put64(m, HC_A_STATS_MISSES, 1);
	put64(m, HC_A_STATS_EVICTIONS, 2);
	put64(m, HC_A_STATS_OBJECTS, 4);
	put64(m, HC_A_STATS_READY, 3);
	put64(m, HC_A_STATS_DIRTY, 1);
	put64(m, HC_A_STATS_CAPACITY, 1000ULL << 20);
	put64(m, HC_A_STATS_BYTES_USED, 250ULL << 20);
	put64(m, HC_A_STATS_HIT_BYTES, hits * 1000000000ULL);
	put64(m, HC_A_STATS_INGEST_HELPER, 1);
	put64(m, HC_A_STATS_EGRESS_HELPER, 0);
	lh[2] = hits + 1;	/* <= 4 us */
	put(m, HC_A_STATS_LOCATE_HIST, lh, sizeof(lh));
	put64(m, HC_A_STATS_LOCATE_NS, (hits + 1) * 3000);
	put64(m, HC_A_STATS_DIRTY_OLDEST_NS, 12500000000ULL);	/* 12.5 s */
	put64(m, HC_A_STATS_REFUSED_ROOM, hits + 4);
	put64(m, HC_A_STATS_REFUSED_JOURNAL, 2);
	put64(m, HC_A_STATS_REFUSED_TOO_BIG, 3);
	put64(m, HC_A_STATS_REFUSED_FRAGMENTED, 0);
	put64(m, HC_A_STATS_REVALIDATIONS, 9);
	put64(m, HC_A_STATS_REVAL_UNCHANGED, 5);
	put64(m, HC_A_STATS_REVAL_CHANGED, 3);
	put64(m, HC_A_STATS_REVAL_FAILED, 1);
	put64(m, HC_A_STATS_POLICY_WINDOW, 12ULL << 20);
	put64(m, HC_A_STATS_POLICY_WINDOW_MOVES, 34 + hits);
	put64(m, HC_A_STATS_POLICY_PASSES, 5);
	put64(m, 200, 7);	/* an attribute of a newer kernel */
	put_member(m, 0, reads);
	put_member(m, 1, reads * 2);
}

static const char *value(const char *page, const char *series, char *out)
{
	const char *s = page;
	size_t n = strlen(series);

	while ((s = strstr(s, series))) {
		if ((s == page || s[-1] == '\n') && s[n] == ' ') {
			sscanf(s + n + 1, "%63s", out);
			return out;
		}
		s += n;
	}
	return "(none)";
}

FIXTURE(scrape) {
	struct msgbuf m;
	struct hc_scrape_in in;
	struct hc_scrape_state st;
	struct hc_prom p;
	char v[64];
};

FIXTURE_SETUP(scrape)
{
	memset(&self->in, 0, sizeof(self->in));
	memset(&self->st, 0, sizeof(self->st));
	canned(&self->m, 3, 10);
	ASSERT_EQ(0, hc_scrape_parse(self->m.b, self->m.len, &self->in.k));
	self->in.kernel_ok = true;
	self->in.price_per_gb = 0.09;
	self->in.now = 100;
	self->in.nr_backends = 1;
	strcpy(self->in.b[0].name, "s3");
	self->in.b[0].type = "s3";
	self->in.b[0].fetched_bytes = 2000000000ULL;
	self->in.b[0].ingest_busy_seconds = 4;	/* 500 MB/s */
	hc_prom_init(&self->p, false);
}

FIXTURE_TEARDOWN(scrape)
{
	hc_prom_free(&self->p);
}

TEST_F(scrape, parse_reads_counters_members_and_histograms)
{
	const struct hc_scrape_kernel *k = &self->in.k;

	EXPECT_EQ(3, k->v[HC_A_STATS_HITS]);
	EXPECT_TRUE(k->has[HC_A_STATS_HITS]);
	EXPECT_FALSE(k->has[HC_A_STATS_ADMISSIONS]);
	EXPECT_EQ(2, k->nr_members);
	EXPECT_EQ(20, k->m[1].reads);
	EXPECT_EQ(20 * 4096, k->m[1].read_bytes);
	EXPECT_EQ(20, k->m[1].read_hist[7]);
	EXPECT_EQ(4, k->locate_hist[2]);
}

TEST_F(scrape, parse_refuses_an_overrun_and_a_short_u64)
{
	struct hc_scrape_kernel k;
	unsigned char bad[8] = { 12, 0, HC_A_STATS_HITS, 0 };	/* len 12 > 8 */
	unsigned char shrt[8] = { 8, 0, HC_A_STATS_HITS, 0 };	/* 4-byte u64 */

	EXPECT_EQ(-EPROTO, hc_scrape_parse(bad, sizeof(bad), &k));
	EXPECT_EQ(-EPROTO, hc_scrape_parse(shrt, sizeof(shrt), &k));
}

TEST_F(scrape, seed_metrics_from_the_canned_reply)
{
	ASSERT_EQ(0, hc_scrape_render(&self->p, &self->in, &self->st));
	const char *pg = self->p.buf;

	EXPECT_STREQ("75", value(pg, "hypercache_hit_ratio_percent", self->v));
	EXPECT_STREQ("3000000000", value(pg, "hypercache_s3_egress_bytes_saved_total", self->v));
	EXPECT_STREQ("0.27", value(pg, "hypercache_estimated_cost_savings_dollars", self->v));
	/* 3 GB at 500 MB/s */
	EXPECT_STREQ("6", value(pg, "hypercache_gpu_idle_time_saved_seconds", self->v));
	EXPECT_STREQ("25", value(pg, "hypercache_storage_utilization_percent", self->v));
	EXPECT_STREQ("2", value(pg, "hypercache_active_devices_count", self->v));
	EXPECT_STREQ("4", value(pg, "hypercache_cached_objects_count", self->v));
	EXPECT_STREQ("2", value(pg, "hypercache_evictions_total", self->v));
	EXPECT_STREQ("3", value(pg, "hypercache_local_metadata_latency_us", self->v));
	EXPECT_STREQ("100", value(pg, "hypercache_local_ttfb_us", self->v));
	EXPECT_STREQ("0", value(pg, "hypercache_bandwidth_mbps", self->v));
	EXPECT_STREQ("1", value(pg, "hypercache_helper_registered{channel=\"ingest\"}", self->v));
	EXPECT_STREQ("0", value(pg, "hypercache_helper_registered{channel=\"egress\"}", self->v));
	EXPECT_STREQ("3", value(pg, "hypercache_objects{state=\"ready\"}", self->v));
	EXPECT_STREQ("20", value(pg, "hypercache_member_reads_total{member=\"1\"}", self->v));
	EXPECT_STREQ("20", value(pg, "hypercache_member_read_latency_seconds_bucket{member=\"1\",le=\"0.000128\"}", self->v));
	EXPECT_STREQ("0", value(pg, "hypercache_member_read_latency_seconds_bucket{member=\"1\",le=\"6.4e-05\"}", self->v));
	EXPECT_STREQ("4", value(pg, "hypercache_locate_latency_seconds_count", self->v));
}

/* The second scrape: rates over the interval; a pool restart keeps counters rising. */
TEST_F(scrape, rates_and_a_pool_restart)
{
	ASSERT_EQ(0, hc_scrape_render(&self->p, &self->in, &self->st));
	hc_prom_free(&self->p);
	/* 2 s later members read 30 + 60 more 4 KiB reads */
	canned(&self->m, 5, 40);
	ASSERT_EQ(0, hc_scrape_parse(self->m.b, self->m.len, &self->in.k));
	self->in.now = 102;
	hc_prom_init(&self->p, false);
	ASSERT_EQ(0, hc_scrape_render(&self->p, &self->in, &self->st));
	EXPECT_STREQ("0.18432", value(self->p.buf, "hypercache_bandwidth_mbps", self->v));
	EXPECT_STREQ("5", value(self->p.buf, "hypercache_hits_total", self->v));
	hc_prom_free(&self->p);
	/* the pool was re-assembled: the kernel's counters start again */
	canned(&self->m, 1, 1);
	ASSERT_EQ(0, hc_scrape_parse(self->m.b, self->m.len, &self->in.k));
	self->in.now = 103;
	hc_prom_init(&self->p, false);
	ASSERT_EQ(0, hc_scrape_render(&self->p, &self->in, &self->st));
	EXPECT_STREQ("6", value(self->p.buf, "hypercache_hits_total", self->v));
	EXPECT_STREQ("82", value(self->p.buf, "hypercache_member_reads_total{member=\"1\"}", self->v));
	EXPECT_STREQ("0", value(self->p.buf, "hypercache_bandwidth_mbps", self->v));
}

/*
 * The daemon's aggregate throughput: the backends' bytes since the last
 * scrape over its interval, all objects and backends together; 0 on the
 * first scrape (no interval yet).
 */
TEST_F(scrape, aggregate_ingest_and_egress_throughput)
{
	self->in.nr_backends = 2;
	strcpy(self->in.b[1].name, "nfs");
	self->in.b[1].type = "posix";
	self->in.b[0].egress_bytes = 1000000;
	ASSERT_EQ(0, hc_scrape_render(&self->p, &self->in, &self->st));
	EXPECT_STREQ("0", value(self->p.buf, "hypercache_ingest_mbps", self->v));
	EXPECT_STREQ("0", value(self->p.buf, "hypercache_egress_mbps", self->v));
	EXPECT_NE(NULL, strstr(self->p.buf, "# TYPE hypercache_ingest_mbps gauge\n"));
	hc_prom_free(&self->p);
	/* 4 s later: 300 + 100 MB fetched, 20 + 20 MB uploaded */
	self->in.now = 104;
	self->in.b[0].fetched_bytes += 300000000;
	self->in.b[1].fetched_bytes += 100000000;
	self->in.b[0].egress_bytes += 20000000;
	self->in.b[1].egress_bytes += 20000000;
	hc_prom_init(&self->p, false);
	ASSERT_EQ(0, hc_scrape_render(&self->p, &self->in, &self->st));
	EXPECT_STREQ("100", value(self->p.buf, "hypercache_ingest_mbps", self->v));
	EXPECT_STREQ("10", value(self->p.buf, "hypercache_egress_mbps", self->v));
}

/* The kernel's nanoseconds as seconds; 0 (nothing dirty) stays 0. */
TEST_F(scrape, dirty_oldest_age_in_seconds)
{
	ASSERT_EQ(0, hc_scrape_render(&self->p, &self->in, &self->st));
	EXPECT_STREQ("12.5", value(self->p.buf, "hypercache_dirty_oldest_age_seconds", self->v));
	EXPECT_NE(NULL, strstr(self->p.buf, "# TYPE hypercache_dirty_oldest_age_seconds gauge\n"));
	hc_prom_free(&self->p);
	self->in.k.v[HC_A_STATS_DIRTY_OLDEST_NS] = 0;
	hc_prom_init(&self->p, false);
	ASSERT_EQ(0, hc_scrape_render(&self->p, &self->in, &self->st));
	EXPECT_STREQ("0", value(self->p.buf, "hypercache_dirty_oldest_age_seconds", self->v));
}

/*
 * Refused admissions by reason: one counter family, kept monotonic over a
 * pool restart as every kernel counter; left out for a kernel without them.
 */
/* Revalidations by result (issue 17); left out for a kernel without them. */
TEST_F(scrape, revalidations_by_result)
{
	const char *pg;

	ASSERT_EQ(0, hc_scrape_render(&self->p, &self->in, &self->st));
	pg = self->p.buf;
	EXPECT_NE(NULL, strstr(pg, "# TYPE hypercache_revalidations_total counter\n"));
	EXPECT_STREQ("5", value(pg, "hypercache_revalidations_total{result=\"unchanged\"}", self->v));
	EXPECT_STREQ("3", value(pg, "hypercache_revalidations_total{result=\"changed\"}", self->v));
	EXPECT_STREQ("1", value(pg, "hypercache_revalidations_total{result=\"failed\"}", self->v));
	hc_prom_free(&self->p);
	self->in.k.has[HC_A_STATS_REVALIDATIONS] = false;
	hc_prom_init(&self->p, false);
	ASSERT_EQ(0, hc_scrape_render(&self->p, &self->in, &self->st));
	EXPECT_EQ(NULL, strstr(self->p.buf, "hypercache_revalidations_total"));
}

/*
 * The admission policy: its window's target (a gauge), the window's moves
 * and the ghost's passes (counters, monotonic over a pool restart); left
 * out for a kernel without them.
 */
TEST_F(scrape, policy_window_and_ghost)
{
	const char *pg;

	ASSERT_EQ(0, hc_scrape_render(&self->p, &self->in, &self->st));
	pg = self->p.buf;
	EXPECT_NE(NULL, strstr(pg, "# TYPE hypercache_policy_window_bytes gauge\n"));
	EXPECT_NE(NULL, strstr(pg, "# TYPE hypercache_policy_window_moves_total counter\n"));
	EXPECT_NE(NULL, strstr(pg, "# TYPE hypercache_policy_ghost_passes_total counter\n"));
	EXPECT_STREQ("12582912", value(pg, "hypercache_policy_window_bytes", self->v));
	EXPECT_STREQ("37", value(pg, "hypercache_policy_window_moves_total", self->v));
	EXPECT_STREQ("5", value(pg, "hypercache_policy_ghost_passes_total", self->v));
	hc_prom_free(&self->p);
	/* the pool was re-assembled: moves restart at 34 + 1, the gauge follows */
	canned(&self->m, 1, 1);
	ASSERT_EQ(0, hc_scrape_parse(self->m.b, self->m.len, &self->in.k));
	self->in.k.v[HC_A_STATS_POLICY_WINDOW] = 4ULL << 20;
	hc_prom_init(&self->p, false);
	ASSERT_EQ(0, hc_scrape_render(&self->p, &self->in, &self->st));
	EXPECT_STREQ("72", value(self->p.buf, "hypercache_policy_window_moves_total", self->v));
	EXPECT_STREQ("4194304", value(self->p.buf, "hypercache_policy_window_bytes", self->v));
	hc_prom_free(&self->p);
	self->in.k.has[HC_A_STATS_POLICY_WINDOW] = false;
	hc_prom_init(&self->p, false);
	ASSERT_EQ(0, hc_scrape_render(&self->p, &self->in, &self->st));
	EXPECT_EQ(NULL, strstr(self->p.buf, "hypercache_policy_"));
}

TEST_F(scrape, refused_admissions_by_reason)
{
	const char *pg;

	ASSERT_EQ(0, hc_scrape_render(&self->p, &self->in, &self->st));
	pg = self->p.buf;
	EXPECT_NE(NULL, strstr(pg, "# TYPE hypercache_admission_refused_total counter\n"));
	EXPECT_STREQ("7", value(pg, "hypercache_admission_refused_total{reason=\"room\"}", self->v));
	EXPECT_STREQ("2", value(pg, "hypercache_admission_refused_total{reason=\"journal\"}", self->v));
	EXPECT_STREQ("3", value(pg, "hypercache_admission_refused_total{reason=\"too_big\"}", self->v));
	EXPECT_STREQ("0", value(pg, "hypercache_admission_refused_total{reason=\"fragmented\"}", self->v));
	hc_prom_free(&self->p);
	/* the pool was re-assembled: room restarts at 1 + 4 */
	canned(&self->m, 1, 1);
	ASSERT_EQ(0, hc_scrape_parse(self->m.b, self->m.len, &self->in.k));
	hc_prom_init(&self->p, false);
	ASSERT_EQ(0, hc_scrape_render(&self->p, &self->in, &self->st));
	EXPECT_STREQ("12", value(self->p.buf, "hypercache_admission_refused_total{reason=\"room\"}", self->v));
	/* journal 2 again: no decrease, so no restart is seen */
	EXPECT_STREQ("2", value(self->p.buf, "hypercache_admission_refused_total{reason=\"journal\"}", self->v));
	hc_prom_free(&self->p);
	self->in.k.has[HC_A_STATS_REFUSED_ROOM] = false;
	hc_prom_init(&self->p, false);
	ASSERT_EQ(0, hc_scrape_render(&self->p, &self->in, &self->st));
	EXPECT_EQ(NULL, strstr(self->p.buf, "hypercache_admission_refused_total"));
}

/* The exporter's own cost, as the caller measured the earlier scrapes. */
TEST_F(scrape, exporter_cost_by_phase)
{
	self->in.self = (struct hc_scrape_self){
		.scrapes = 4, .kernel_seconds = 0.0005, .render_seconds = 0.25,
	};
	self->in.kernel_ok = false;	/* shown with or without a pool */
	ASSERT_EQ(0, hc_scrape_render(&self->p, &self->in, &self->st));
	EXPECT_NE(NULL, strstr(self->p.buf, "# TYPE hypercache_exporter_scrapes_total counter\n"));
	EXPECT_STREQ("4", value(self->p.buf, "hypercache_exporter_scrapes_total", self->v));
	EXPECT_STREQ("0.0005", value(self->p.buf, "hypercache_exporter_seconds_total{phase=\"kernel\"}", self->v));
	EXPECT_STREQ("0.25", value(self->p.buf, "hypercache_exporter_seconds_total{phase=\"render\"}", self->v));
}

TEST_F(scrape, no_pool_is_pool_up_0_and_backends_only)
{
	self->in.kernel_ok = false;
	ASSERT_EQ(0, hc_scrape_render(&self->p, &self->in, &self->st));
	EXPECT_STREQ("0", value(self->p.buf, "hypercache_pool_up", self->v));
	EXPECT_EQ(NULL, strstr(self->p.buf, "hypercache_hits_total"));
	EXPECT_STREQ("2000000000", value(self->p.buf,
		"hypercache_backend_fetched_bytes_total{backend=\"s3\",type=\"s3\"}", self->v));
}

/* NUMA placement: off is one gauge; on, every node's series by path. */
TEST_F(scrape, numa_placement_per_node_and_path)
{
	struct hc_scrape_numa *nm = &self->in.numa;
	const char *pg;

	ASSERT_EQ(0, hc_scrape_render(&self->p, &self->in, &self->st));
	EXPECT_STREQ("0", value(self->p.buf, "hypercache_numa_placement", self->v));
	EXPECT_EQ(NULL, strstr(self->p.buf, "hypercache_numa_parts_total"));
	hc_prom_free(&self->p);
	nm->on = true;
	nm->nr_nodes = 2;
	nm->nic_node = 1;
	nm->n[0].parts[HC_SCRAPE_INGEST] = 5;
	nm->n[1].parts[HC_SCRAPE_EGRESS] = 3;
	nm->n[0].pages_local[HC_SCRAPE_INGEST] = 9;
	nm->n[0].pages_remote[HC_SCRAPE_INGEST] = 1;
	nm->n[1].workers_off[HC_SCRAPE_EGRESS] = 2;
	nm->n[1].net_on[HC_SCRAPE_INGEST] = 8;
	nm->n[1].net_off[HC_SCRAPE_EGRESS] = 4;
	nm->n[1].net_pages_local = 7;
	nm->n[1].net_pages_remote = 6;
	nm->n[1].net_threads = 4;
	nm->n[2].parts[HC_SCRAPE_INGEST] = 99;	/* past nr_nodes: not shown */
	hc_prom_init(&self->p, false);
	ASSERT_EQ(0, hc_scrape_render(&self->p, &self->in, &self->st));
	pg = self->p.buf;
	EXPECT_STREQ("1", value(pg, "hypercache_numa_placement", self->v));
	EXPECT_STREQ("1", value(pg, "hypercache_numa_nic_node", self->v));
	EXPECT_NE(NULL, strstr(pg, "# TYPE hypercache_numa_parts_total counter\n"));
	EXPECT_STREQ("5", value(pg, "hypercache_numa_parts_total{path=\"ingest\",node=\"0\"}", self->v));
	EXPECT_STREQ("0", value(pg, "hypercache_numa_parts_total{path=\"egress\",node=\"0\"}", self->v));
	EXPECT_STREQ("3", value(pg, "hypercache_numa_parts_total{path=\"egress\",node=\"1\"}", self->v));
	EXPECT_EQ(NULL, strstr(pg, "node=\"2\""));
	EXPECT_STREQ("9", value(pg, "hypercache_numa_buffer_pages_total{path=\"ingest\",node=\"0\",where=\"local\"}", self->v));
	EXPECT_STREQ("1", value(pg, "hypercache_numa_buffer_pages_total{path=\"ingest\",node=\"0\",where=\"remote\"}", self->v));
	EXPECT_STREQ("2", value(pg, "hypercache_numa_workers_total{path=\"egress\",node=\"1\",where=\"off_node\"}", self->v));
	EXPECT_STREQ("0", value(pg, "hypercache_numa_workers_total{path=\"egress\",node=\"1\",where=\"on_node\"}", self->v));
	EXPECT_STREQ("8", value(pg, "hypercache_numa_net_transfers_total{path=\"ingest\",node=\"1\",where=\"on_node\"}", self->v));
	EXPECT_STREQ("4", value(pg, "hypercache_numa_net_transfers_total{path=\"egress\",node=\"1\",where=\"off_node\"}", self->v));
	EXPECT_STREQ("7", value(pg, "hypercache_numa_net_buffer_pages_total{node=\"1\",where=\"local\"}", self->v));
	EXPECT_STREQ("6", value(pg, "hypercache_numa_net_buffer_pages_total{node=\"1\",where=\"remote\"}", self->v));
	EXPECT_STREQ("4", value(pg, "hypercache_numa_net_threads{node=\"1\"}", self->v));
	EXPECT_STREQ("0", value(pg, "hypercache_numa_net_threads{node=\"0\"}", self->v));
}

TEST_HARNESS_MAIN
