// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter's page from a kernel statistics reply and the daemon's
 * counters (scrape.h; every family is described in Documentation/metrics.md).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "scrape.h"

const double hc_scrape_sec_bounds[HC_SCRAPE_SEC_BUCKETS] = {
	0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300,
};

void hc_scrape_sec_observe(struct hc_scrape_sec_hist *h, double seconds)
{
	unsigned int i = 0;

	if (seconds < 0)
		seconds = 0;
	while (i < HC_SCRAPE_SEC_BUCKETS && seconds > hc_scrape_sec_bounds[i])
		i++;
	h->counts[i]++;
	h->sum += seconds;
}

/* --- parsing ----------------------------------------------------------- */

#define NLA_HDR		4
#define NLA_ALIGNED(n)	(((n) + 3) & ~(size_t)3)
#define NLA_TYPEMASK	0x3fff

/*
 * Walk the attributes in @buf: for each, @fn(arg, type, payload, len);
 * -EPROTO if one overruns the buffer or @fn says so.
 */
static int scrape_walk(const unsigned char *buf, size_t len,
		       int (*fn)(void *arg, unsigned int type,
				 const unsigned char *p, size_t n),
		       void *arg)
{
	while (len >= NLA_HDR) {
		uint16_t alen, type;
		int ret;

		memcpy(&alen, buf, 2);
		memcpy(&type, buf + 2, 2);
		if (alen < NLA_HDR || alen > len)
			return -EPROTO;
		ret = fn(arg, type & NLA_TYPEMASK, buf + NLA_HDR, alen - NLA_HDR);
		if (ret)
			return ret;
		if (NLA_ALIGNED(alen) >= len)
			break;
		buf += NLA_ALIGNED(alen);
		len -= NLA_ALIGNED(alen);
	}
	return 0;
}

static int scrape_u64(const unsigned char *p, size_t n, uint64_t *v)
{
	if (n != sizeof(*v))
		return -EPROTO;
	memcpy(v, p, sizeof(*v));
	return 0;
}

/* A histogram attribute: a newer kernel may append buckets; ignore them. */
static int scrape_hist(const unsigned char *p, size_t n, uint64_t *h)
{
	if (n < HC_STATS_HIST_BUCKETS * sizeof(uint64_t))
		return -EPROTO;
	memcpy(h, p, HC_STATS_HIST_BUCKETS * sizeof(uint64_t));
	return 0;
}

static int scrape_member_attr(void *arg, unsigned int type,
			      const unsigned char *p, size_t n)
{
	struct hc_scrape_member *m = arg;
	uint64_t *u64s[] = {
		[HC_A_STATS_MEMBER_READS] = &m->reads,
		[HC_A_STATS_MEMBER_WRITES] = &m->writes,
		[HC_A_STATS_MEMBER_READ_BYTES] = &m->read_bytes,
		[HC_A_STATS_MEMBER_WRITE_BYTES] = &m->write_bytes,
		[HC_A_STATS_MEMBER_ERRORS] = &m->errors,
		[HC_A_STATS_MEMBER_READ_NS] = &m->read_ns,
		[HC_A_STATS_MEMBER_WRITE_NS] = &m->write_ns,
	};

	if (type == HC_A_STATS_MEMBER_READ_HIST)
		return scrape_hist(p, n, m->read_hist);
	if (type == HC_A_STATS_MEMBER_WRITE_HIST)
		return scrape_hist(p, n, m->write_hist);
	if (type < sizeof(u64s) / sizeof(u64s[0]) && u64s[type])
		return scrape_u64(p, n, u64s[type]);
	return 0;	/* INDEX (the nests come in order), PAD, newer ones */
}

static int scrape_attr(void *arg, unsigned int type, const unsigned char *p,
		       size_t n)
{
	struct hc_scrape_kernel *k = arg;

	switch (type) {
	case HC_A_STATS_UNSPEC:
	case HC_A_STATS_PAD:
	case HC_A_STATS_CTL_FD:
		return 0;
	case HC_A_STATS_LOCATE_HIST:
		return scrape_hist(p, n, k->locate_hist);
	case HC_A_STATS_MEMBER:
		if (k->nr_members >= HC_SCRAPE_MEMBERS_MAX)
			return -EPROTO;
		return scrape_walk(p, n, scrape_member_attr,
				   &k->m[k->nr_members++]);
	default:
		if (type > HC_A_STATS_MAX)
			return 0;	/* appended by a newer kernel */
		k->has[type] = true;
		return scrape_u64(p, n, &k->v[type]);
	}
}

int hc_scrape_parse(const void *attrs, size_t len, struct hc_scrape_kernel *k)
{
	memset(k, 0, sizeof(*k));
	return scrape_walk(attrs, len, scrape_attr, k);
}

/* --- rendering --------------------------------------------------------- */

/* The kernel's counter @attr, kept monotonic across a pool restart. */
static uint64_t kc(const struct hc_scrape_in *in, struct hc_scrape_state *st,
		   int attr)
{
	return hc_prom_counter_update(&st->k[attr], in->k.v[attr]);
}

static void family_u64(struct hc_prom *p, const char *name,
		       enum hc_prom_type t, const char *help, uint64_t v)
{
	hc_prom_family(p, name, t, help);
	hc_prom_u64(p, name, NULL, 0, v);
}

static void family_f64(struct hc_prom *p, const char *name, const char *help,
		       double v)
{
	hc_prom_family(p, name, HC_PROM_GAUGE, help);
	hc_prom_f64(p, name, NULL, 0, v);
}

/* The mean of what was added to (sum, n) since (*ls, *ln); else overall. */
static double mean_since(uint64_t sum, uint64_t n, uint64_t ls, uint64_t ln)
{
	if (n > ln && sum >= ls)
		return (double)(sum - ls) / (double)(n - ln);
	return n ? (double)sum / (double)n : 0;
}

static uint64_t hist_total(const uint64_t *h)
{
	uint64_t t = 0;

	for (unsigned int i = 0; i < HC_STATS_HIST_BUCKETS; i++)
		t += h[i];
	return t;
}

/* A kernel histogram (log2 us buckets) as seconds, counters monotonic. */
static void kernel_hist(struct hc_prom *p, const char *name,
			const struct hc_prom_label *l, unsigned int nl,
			const uint64_t *raw, uint64_t ns,
			struct hc_prom_counter *mono, struct hc_prom_counter *mns)
{
	double bounds[HC_STATS_HIST_BUCKETS - 1];
	uint64_t counts[HC_STATS_HIST_BUCKETS];
	struct hc_prom_hist h = {
		.bounds = bounds,
		.counts = counts,
		.nr = HC_STATS_HIST_BUCKETS - 1,
	};
	unsigned int i;

	for (i = 0; i < HC_STATS_HIST_BUCKETS; i++) {
		if (i < HC_STATS_HIST_BUCKETS - 1)
			bounds[i] = (double)(1ULL << i) * 1e-6;
		counts[i] = mono ? hc_prom_counter_update(&mono[i], raw[i]) :
				   raw[i];
	}
	h.sum = (double)(mns ? hc_prom_counter_update(mns, ns) : ns) * 1e-9;
	hc_prom_histogram(p, name, l, nl, &h);
}

/* (@now - @last) bytes in the @dt seconds since the last scrape, in MB/s. */
static double mb_per_s_since(const struct hc_scrape_state *st, double dt,
			     uint64_t now, uint64_t last)
{
	if (!st->primed || dt <= 0 || now < last)
		return 0;
	return (double)(now - last) / dt / 1e6;
}

static void render_seed(struct hc_prom *p, const struct hc_scrape_in *in,
			struct hc_scrape_state *st)
{
	const struct hc_scrape_kernel *k = &in->k;
	uint64_t reads = 0, read_bytes = 0, read_ns = 0, locate_n, head_n = 0;
	uint64_t hits = k->v[HC_A_STATS_HITS], misses = k->v[HC_A_STATS_MISSES];
	uint64_t saved = k->v[HC_A_STATS_HIT_BYTES], fetched = 0, egressed = 0;
	uint64_t cap = k->v[HC_A_STATS_CAPACITY];
	uint64_t used = k->v[HC_A_STATS_BYTES_USED];
	double head_s = 0, busy = 0, mbps = 0, dt;
	unsigned int i;

	for (i = 0; i < k->nr_members; i++) {
		reads += k->m[i].reads;
		read_bytes += k->m[i].read_bytes;
		read_ns += k->m[i].read_ns;
	}
	for (i = 0; i < in->nr_backends; i++) {
		head_n += in->b[i].head_count;
		head_s += in->b[i].head_seconds;
		fetched += in->b[i].fetched_bytes;
		egressed += in->b[i].egress_bytes;
		busy += in->b[i].ingest_busy_seconds;
	}
	locate_n = hist_total(k->locate_hist);
	dt = in->now - st->last_now;
	if (st->primed && dt > 0 && read_bytes >= st->last_read_bytes)
		mbps = (double)(read_bytes - st->last_read_bytes) / dt / 1e6;

	family_f64(p, "hypercache_bandwidth_mbps",
		   "Bytes read from the members per second since the previous scrape, in MB/s (1e6 bytes)",
		   mbps);
	/* the daemon's own counters: they only grow while it runs */
	family_f64(p, "hypercache_ingest_mbps",
		   "Bytes the ingests fetched from the backends per second since the previous scrape, all objects together, in MB/s (1e6 bytes)",
		   mb_per_s_since(st, dt, fetched, st->last_fetched));
	family_f64(p, "hypercache_egress_mbps",
		   "Bytes the uploads sent to the backends per second since the previous scrape, all objects together, in MB/s (1e6 bytes)",
		   mb_per_s_since(st, dt, egressed, st->last_egressed));
	family_f64(p, "hypercache_local_metadata_latency_us",
		   "Mean LOCATE latency since the previous scrape (the whole ioctl, a wait included), in microseconds",
		   mean_since(k->v[HC_A_STATS_LOCATE_NS], locate_n,
			      st->last_locate_ns, st->last_locate_n) / 1e3);
	family_f64(p, "hypercache_remote_metadata_latency_us",
		   "Mean latency of the backends' metadata requests (S3 HEAD, POSIX stat) since the previous scrape, in microseconds",
		   (head_n > st->last_head_n ?
		    (head_s - st->last_head_s) / (double)(head_n - st->last_head_n) :
		    head_n ? head_s / (double)head_n : 0) * 1e6);
	family_f64(p, "hypercache_local_ttfb_us",
		   "Mean latency of a member read (submission to completion) since the previous scrape, in microseconds",
		   mean_since(read_ns, reads, st->last_mread_ns,
			      st->last_mread_n) / 1e3);
	family_f64(p, "hypercache_hit_ratio_percent",
		   "LOCATE hits per LOCATE since the pool started, in percent",
		   hits + misses ? 100.0 * (double)hits / (double)(hits + misses) : 0);
	saved = kc(in, st, HC_A_STATS_HIT_BYTES);
	family_u64(p, "hypercache_s3_egress_bytes_saved_total", HC_PROM_COUNTER,
		   "Bytes of objects LOCATE found in the cache: bytes not fetched from a backend (S3 or POSIX)",
		   saved);
	family_f64(p, "hypercache_estimated_cost_savings_dollars",
		   "hypercache_s3_egress_bytes_saved_total at the configured egress price per GB (1e9 bytes), in dollars",
		   (double)saved / 1e9 * in->price_per_gb);
	family_f64(p, "hypercache_gpu_idle_time_saved_seconds",
		   "hypercache_s3_egress_bytes_saved_total at the backends' measured ingest throughput: the time readers did not wait for downloads, in seconds",
		   fetched && busy > 0 ? (double)saved / ((double)fetched / busy) : 0);
	family_u64(p, "hypercache_storage_capacity_bytes", HC_PROM_GAUGE,
		   "Data capacity of the pool, in bytes", cap);
	family_u64(p, "hypercache_storage_used_bytes", HC_PROM_GAUGE,
		   "Bytes of the pool's chunks allocated to objects", used);
	family_f64(p, "hypercache_storage_utilization_percent",
		   "hypercache_storage_used_bytes per hypercache_storage_capacity_bytes, in percent",
		   cap ? 100.0 * (double)used / (double)cap : 0);
	family_u64(p, "hypercache_active_devices_count", HC_PROM_GAUGE,
		   "Members of the running pool", k->nr_members);
	family_u64(p, "hypercache_cached_objects_count", HC_PROM_GAUGE,
		   "Objects in the index (every state)", k->v[HC_A_STATS_OBJECTS]);
	family_u64(p, "hypercache_evictions_total", HC_PROM_COUNTER,
		   "Objects the policy evicted", kc(in, st, HC_A_STATS_EVICTIONS));

	st->last_read_bytes = read_bytes;
	st->last_fetched = fetched;
	st->last_egressed = egressed;
	st->last_locate_ns = k->v[HC_A_STATS_LOCATE_NS];
	st->last_locate_n = locate_n;
	st->last_mread_ns = read_ns;
	st->last_mread_n = reads;
	st->last_head_n = head_n;
	st->last_head_s = head_s;
}

/*
 * Admissions refused by reason (issue 15's counters; the policy's duel
 * losses are hypercache_rejections_total).  Left out, not 0, when the
 * kernel does not send them (a module older than the daemon).
 */
static void render_refused(struct hc_prom *p, const struct hc_scrape_in *in,
			   struct hc_scrape_state *st)
{
	static const struct {
		int attr;
		const char *reason;
	} r[] = {
		{ HC_A_STATS_REFUSED_ROOM, "room" },
		{ HC_A_STATS_REFUSED_JOURNAL, "journal" },
		{ HC_A_STATS_REFUSED_TOO_BIG, "too_big" },
		{ HC_A_STATS_REFUSED_FRAGMENTED, "fragmented" },
	};
	struct hc_prom_label l;
	unsigned int i;

	if (!in->k.has[HC_A_STATS_REFUSED_ROOM])
		return;
	hc_prom_family(p, "hypercache_admission_refused_total", HC_PROM_COUNTER,
		       "Ingests and stages refused by reason: room (pinned, held and dirty objects left none), journal (no room for the record), too_big (an ingest larger than the pool), fragmented (room, but not in few enough extents)");
	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		l = (struct hc_prom_label){ "reason", r[i].reason };
		hc_prom_u64(p, "hypercache_admission_refused_total", &l, 1,
			    kc(in, st, r[i].attr));
	}
}

/*
 * Revalidations of READY objects against their backend by result (issue
 * 17; Documentation/ingest.md, "Revalidation"): each due open ends as one.
 * Left out for a kernel without them.
 */
static void render_reval(struct hc_prom *p, const struct hc_scrape_in *in,
			 struct hc_scrape_state *st)
{
	static const struct {
		int attr;
		const char *result;
	} r[] = {
		{ HC_A_STATS_REVAL_UNCHANGED, "unchanged" },
		{ HC_A_STATS_REVAL_CHANGED, "changed" },
		{ HC_A_STATS_REVAL_FAILED, "failed" },
	};
	struct hc_prom_label l;
	unsigned int i;

	if (!in->k.has[HC_A_STATS_REVALIDATIONS])
		return;
	hc_prom_family(p, "hypercache_revalidations_total", HC_PROM_COUNTER,
		       "Revalidations of cached objects against their backend when opened, by result: unchanged (served), changed (ingested again), failed (no helper, a backend error or no answer: the cached copy served)");
	for (i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		l = (struct hc_prom_label){ "result", r[i].result };
		hc_prom_u64(p, "hypercache_revalidations_total", &l, 1,
			    kc(in, st, r[i].attr));
	}
}

/*
 * What the admission policy is doing (Documentation/policy.md): its
 * window's target size, the controller's moves of it and the candidates
 * the ghost passed.  Left out for a kernel without them.
 */
static void render_policy(struct hc_prom *p, const struct hc_scrape_in *in,
			  struct hc_scrape_state *st)
{
	if (!in->k.has[HC_A_STATS_POLICY_WINDOW])
		return;
	family_u64(p, "hypercache_policy_window_bytes", HC_PROM_GAUGE,
		   "Target size of the admission policy's window (where new objects enter before their duel with the main region)",
		   in->k.v[HC_A_STATS_POLICY_WINDOW]);
	family_u64(p, "hypercache_policy_window_moves_total", HC_PROM_COUNTER,
		   "Moves of the window's target by the policy's controller",
		   kc(in, st, HC_A_STATS_POLICY_WINDOW_MOVES));
	family_u64(p, "hypercache_policy_ghost_passes_total", HC_PROM_COUNTER,
		   "Candidates back from the ghost of rejected ones that the policy passed (no margin at their duel)",
		   kc(in, st, HC_A_STATS_POLICY_PASSES));
}

static void render_cache(struct hc_prom *p, const struct hc_scrape_in *in,
			 struct hc_scrape_state *st)
{
	static const struct {
		int attr;
		const char *name, *help;
	} counters[] = {
		{ HC_A_STATS_HITS, "hypercache_hits_total",
		  "LOCATEs that found the object with its data" },
		{ HC_A_STATS_MISSES, "hypercache_misses_total",
		  "LOCATEs that did not" },
		{ HC_A_STATS_ADMISSIONS, "hypercache_admissions_total",
		  "Objects the policy admitted" },
		{ HC_A_STATS_REJECTIONS, "hypercache_rejections_total",
		  "Objects the policy did not admit" },
		{ HC_A_STATS_HIT_BYTES, "hypercache_served_bytes_total",
		  "Bytes of the objects LOCATE found with their data (what readers were handed from the cache)" },
		{ HC_A_STATS_EGRESS_DONE, "hypercache_writeback_done_total",
		  "Uploads of DIRTY objects the egress helper acknowledged" },
		{ HC_A_STATS_EGRESS_FAILED, "hypercache_writeback_failed_total",
		  "Upload attempts the egress helper reported failed (each is re-sent)" },
		{ HC_A_STATS_JOURNAL_RECORDS, "hypercache_journal_records_total",
		  "Journal records appended since the pool was assembled" },
		{ HC_A_STATS_JOURNAL_COMPACTIONS, "hypercache_journal_compactions_total",
		  "Journal compactions since the pool was assembled" },
		{ HC_A_STATS_JOURNAL_FLUSHES, "hypercache_journal_flushes_total",
		  "Durable (PREFLUSH|FUA) journal writes since the pool was assembled, each to every member" },
		{ HC_A_STATS_SLAB_COMPACTIONS, "hypercache_slab_compactions_total",
		  "Compactions of the slab (format v2's small objects) since the pool was assembled" },
		{ HC_A_STATS_SLAB_MOVED, "hypercache_slab_moved_total",
		  "Small objects the slab's compactions moved" },
		{ HC_A_STATS_SLAB_CHUNKS_FREED, "hypercache_slab_chunks_freed_total",
		  "Slab chunks the slab's compactions gave back to the chunk allocator" },
		{ HC_A_STATS_SLAB_BYTES_COPIED, "hypercache_slab_bytes_copied_total",
		  "Bytes the slab's compactions copied (whole 4 KiB blocks)" },
	};
	static const struct {
		int attr;
		const char *state;
	} states[] = {
		{ HC_A_STATS_INGESTING, "ingesting" },
		{ HC_A_STATS_READY, "ready" },
		{ HC_A_STATS_STAGED, "staged" },
		{ HC_A_STATS_DIRTY, "dirty" },
		{ HC_A_STATS_SYNCING, "syncing" },
	};
	const struct hc_scrape_kernel *k = &in->k;
	struct hc_prom_label l;
	unsigned int i;

	for (i = 0; i < sizeof(counters) / sizeof(counters[0]); i++)
		family_u64(p, counters[i].name, HC_PROM_COUNTER,
			   counters[i].help, kc(in, st, counters[i].attr));
	render_refused(p, in, st);
	render_reval(p, in, st);
	render_policy(p, in, st);
	hc_prom_family(p, "hypercache_objects", HC_PROM_GAUGE,
		       "Objects in the index by state");
	for (i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		l = (struct hc_prom_label){ "state", states[i].state };
		hc_prom_u64(p, "hypercache_objects", &l, 1,
			    k->v[states[i].attr]);
	}
	family_u64(p, "hypercache_pinned_objects", HC_PROM_GAUGE,
		   "Pinned objects", k->v[HC_A_STATS_PINNED]);
	family_u64(p, "hypercache_held_objects", HC_PROM_GAUGE,
		   "Objects an open file holds", k->v[HC_A_STATS_HELD]);
	family_u64(p, "hypercache_dirty_bytes", HC_PROM_GAUGE,
		   "Bytes of DIRTY and SYNCING objects (not yet in their backend)",
		   k->v[HC_A_STATS_DIRTY_BYTES]);
	family_u64(p, "hypercache_dirty_limit_bytes", HC_PROM_GAUGE,
		   "The dirty-bytes limit (0: none)",
		   k->v[HC_A_STATS_DIRTY_LIMIT]);
	family_f64(p, "hypercache_dirty_oldest_age_seconds",
		   "Time since the oldest DIRTY or SYNCING object was committed (0: none; DIRTY at assembly counts from the assembly)",
		   (double)k->v[HC_A_STATS_DIRTY_OLDEST_NS] * 1e-9);
	family_u64(p, "hypercache_journal_used_bytes", HC_PROM_GAUGE,
		   "Bytes of journal records the live objects take",
		   k->v[HC_A_STATS_JOURNAL_USED]);
	family_u64(p, "hypercache_journal_capacity_bytes", HC_PROM_GAUGE,
		   "The most journal bytes the live objects may take",
		   k->v[HC_A_STATS_JOURNAL_CAPACITY]);
	hc_prom_family(p, "hypercache_helper_registered", HC_PROM_GAUGE,
		       "1 while a helper of the channel is registered with the kernel");
	l = (struct hc_prom_label){ "channel", "ingest" };
	hc_prom_u64(p, "hypercache_helper_registered", &l, 1,
		    k->v[HC_A_STATS_INGEST_HELPER]);
	l = (struct hc_prom_label){ "channel", "egress" };
	hc_prom_u64(p, "hypercache_helper_registered", &l, 1,
		    k->v[HC_A_STATS_EGRESS_HELPER]);
	hc_prom_family(p, "hypercache_locate_latency_seconds",
		       HC_PROM_HISTOGRAM,
		       "LOCATE ioctls by latency (a wait included), since the module was loaded");
	kernel_hist(p, "hypercache_locate_latency_seconds", NULL, 0,
		    k->locate_hist, k->v[HC_A_STATS_LOCATE_NS], st->locate,
		    &st->k[HC_A_STATS_LOCATE_NS]);
}

static void render_members(struct hc_prom *p, const struct hc_scrape_in *in,
			   struct hc_scrape_state *st)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} f[] = {
		{ "hypercache_member_reads_total", "Read bios of /dev/hypercache0 completed by the member",
		  offsetof(struct hc_scrape_member, reads) },
		{ "hypercache_member_writes_total", "Write bios completed by the member",
		  offsetof(struct hc_scrape_member, writes) },
		{ "hypercache_member_read_bytes_total", "Bytes read from the member's data area",
		  offsetof(struct hc_scrape_member, read_bytes) },
		{ "hypercache_member_written_bytes_total", "Bytes written to the member's data area",
		  offsetof(struct hc_scrape_member, write_bytes) },
		{ "hypercache_member_errors_total", "Bios the member completed with an error",
		  offsetof(struct hc_scrape_member, errors) },
	};
	const struct hc_scrape_kernel *k = &in->k;
	unsigned int i, j, n = k->nr_members;
	char idx[HC_SCRAPE_MEMBERS_MAX][12];
	struct hc_prom_label l;

	for (j = 0; j < n; j++)
		snprintf(idx[j], sizeof(idx[j]), "%u", j);
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		hc_prom_family(p, f[i].name, HC_PROM_COUNTER, f[i].help);
		for (j = 0; j < n; j++) {
			uint64_t raw;

			memcpy(&raw, (const char *)&k->m[j] + f[i].off,
			       sizeof(raw));
			l = (struct hc_prom_label){ "member", idx[j] };
			hc_prom_u64(p, f[i].name, &l, 1,
				    hc_prom_counter_update(&st->m[j][i], raw));
		}
	}
	hc_prom_family(p, "hypercache_member_read_latency_seconds",
		       HC_PROM_HISTOGRAM, "Member reads by latency (submission to completion)");
	for (j = 0; j < n; j++) {
		l = (struct hc_prom_label){ "member", idx[j] };
		kernel_hist(p, "hypercache_member_read_latency_seconds", &l, 1,
			    k->m[j].read_hist, k->m[j].read_ns, st->mh[j][0],
			    &st->m[j][5]);
	}
	hc_prom_family(p, "hypercache_member_write_latency_seconds",
		       HC_PROM_HISTOGRAM, "Member writes by latency (submission to completion)");
	for (j = 0; j < n; j++) {
		l = (struct hc_prom_label){ "member", idx[j] };
		kernel_hist(p, "hypercache_member_write_latency_seconds", &l, 1,
			    k->m[j].write_hist, k->m[j].write_ns, st->mh[j][1],
			    &st->m[j][6]);
	}
}

static void sec_hist(struct hc_prom *p, const char *name,
		     const struct hc_prom_label *l,
		     const struct hc_scrape_sec_hist *s)
{
	struct hc_prom_hist h = {
		.bounds = hc_scrape_sec_bounds,
		.counts = s->counts,
		.nr = HC_SCRAPE_SEC_BUCKETS,
		.sum = s->sum,
	};

	hc_prom_histogram(p, name, l, 2, &h);
}

static void render_backends(struct hc_prom *p, const struct hc_scrape_in *in)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} f[] = {
		{ "hypercache_backend_fetched_bytes_total", "Bytes ingests read from the backend",
		  offsetof(struct hc_scrape_backend, fetched_bytes) },
		{ "hypercache_ingest_objects_total", "Objects ingested from the backend (DONE)",
		  offsetof(struct hc_scrape_backend, ingest_objects) },
		{ "hypercache_ingest_failures_total", "Ingests from the backend that failed (FAIL)",
		  offsetof(struct hc_scrape_backend, ingest_failures) },
		{ "hypercache_ingest_retries_total", "Ingests started over because the object changed in the backend",
		  offsetof(struct hc_scrape_backend, ingest_retries) },
		{ "hypercache_egress_bytes_total", "Bytes uploaded to the backend",
		  offsetof(struct hc_scrape_backend, egress_bytes) },
		{ "hypercache_egress_objects_total", "Objects uploaded to the backend (EGRESS_DONE)",
		  offsetof(struct hc_scrape_backend, egress_objects) },
		{ "hypercache_egress_failures_total", "Uploads to the backend that failed (each is retried)",
		  offsetof(struct hc_scrape_backend, egress_failures) },
	};
	static const struct {
		const char *name, *help;
		size_t off;
	} h[] = {
		{ "hypercache_ingest_ttfb_seconds", "Time from an ingest request to the first byte from the backend",
		  offsetof(struct hc_scrape_backend, ttfb) },
		{ "hypercache_ingest_duration_seconds", "Time from an ingest request to its DONE",
		  offsetof(struct hc_scrape_backend, ingest) },
		{ "hypercache_egress_duration_seconds", "Time from an egress request to its EGRESS_DONE",
		  offsetof(struct hc_scrape_backend, egress) },
	};
	struct hc_prom_label l[2];
	unsigned int i, j;

	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		hc_prom_family(p, f[i].name, HC_PROM_COUNTER, f[i].help);
		for (j = 0; j < in->nr_backends; j++) {
			uint64_t v;

			memcpy(&v, (const char *)&in->b[j] + f[i].off, sizeof(v));
			l[0] = (struct hc_prom_label){ "backend", in->b[j].name };
			l[1] = (struct hc_prom_label){ "type", in->b[j].type };
			hc_prom_u64(p, f[i].name, l, 2, v);
		}
	}
	for (i = 0; i < sizeof(h) / sizeof(h[0]); i++) {
		hc_prom_family(p, h[i].name, HC_PROM_HISTOGRAM, h[i].help);
		for (j = 0; j < in->nr_backends; j++) {
			l[0] = (struct hc_prom_label){ "backend", in->b[j].name };
			l[1] = (struct hc_prom_label){ "type", in->b[j].type };
			sec_hist(p, h[i].name, l, (const void *)
				 ((const char *)&in->b[j] + h[i].off));
		}
	}
}

/* One per-node, per-path family with a where label of two values. */
static const char *const numa_path[HC_SCRAPE_PATHS] = { "ingest", "egress" };

static void numa_pair(struct hc_prom *p, const struct hc_scrape_numa *nm,
		      const char *name, const char *help, const char *w0,
		      const char *w1, size_t off0, size_t off1, bool paths)
{
	struct hc_prom_label l[3];
	unsigned int n, k, np = paths ? HC_SCRAPE_PATHS : 1;
	char node[12];

	hc_prom_family(p, name, HC_PROM_COUNTER, help);
	for (n = 0; n < nm->nr_nodes && n < HC_SCRAPE_NODES_MAX; n++) {
		const char *b = (const char *)&nm->n[n];

		snprintf(node, sizeof(node), "%u", n);
		for (k = 0; k < np; k++) {
			unsigned int nl = 0;
			uint64_t v0, v1;

			memcpy(&v0, b + off0 + k * sizeof(uint64_t), sizeof(v0));
			memcpy(&v1, b + off1 + k * sizeof(uint64_t), sizeof(v1));
			if (paths)
				l[nl++] = (struct hc_prom_label){ "path", numa_path[k] };
			l[nl++] = (struct hc_prom_label){ "node", node };
			l[nl] = (struct hc_prom_label){ "where", w0 };
			hc_prom_u64(p, name, l, nl + 1, v0);
			l[nl] = (struct hc_prom_label){ "where", w1 };
			hc_prom_u64(p, name, l, nl + 1, v1);
		}
	}
}

/* hypercached's NUMA placement (metrics.md, "NUMA placement"). */
static void render_numa(struct hc_prom *p, const struct hc_scrape_numa *nm)
{
	struct hc_prom_label l[2];
	unsigned int n, k;
	char node[12];

	family_u64(p, "hypercache_numa_placement", HC_PROM_GAUGE,
		   "1 when hypercached places workers and buffers by NUMA node",
		   nm->on);
	if (!nm->on)
		return;
	family_f64(p, "hypercache_numa_nic_node",
		   "The NUMA node of the NIC of the default route, -1 if none is known",
		   nm->nic_node);
	hc_prom_family(p, "hypercache_numa_parts_total", HC_PROM_COUNTER,
		       "Parts placed, by path and the node holding most of their bytes");
	for (n = 0; n < nm->nr_nodes && n < HC_SCRAPE_NODES_MAX; n++) {
		snprintf(node, sizeof(node), "%u", n);
		for (k = 0; k < HC_SCRAPE_PATHS; k++) {
			l[0] = (struct hc_prom_label){ "path", numa_path[k] };
			l[1] = (struct hc_prom_label){ "node", node };
			hc_prom_u64(p, "hypercache_numa_parts_total", l, 2,
				    nm->n[n].parts[k]);
		}
	}
	numa_pair(p, nm, "hypercache_numa_buffer_pages_total",
		  "Part buffer pages sampled (one per run), by the node they were bound to: on it (local) or not (remote)",
		  "local", "remote",
		  offsetof(struct hc_scrape_numa_node, pages_local),
		  offsetof(struct hc_scrape_numa_node, pages_remote), true);
	numa_pair(p, nm, "hypercache_numa_workers_total",
		  "Parts by their node: the worker ran on its CPUs for the drive I/O (on_node) or not (off_node)",
		  "on_node", "off_node",
		  offsetof(struct hc_scrape_numa_node, workers_on),
		  offsetof(struct hc_scrape_numa_node, workers_off), true);
	numa_pair(p, nm, "hypercache_numa_net_transfers_total",
		  "Network transfers of parts by the NIC's node: the worker ran on its CPUs (on_node) or not (off_node)",
		  "on_node", "off_node",
		  offsetof(struct hc_scrape_numa_node, net_on),
		  offsetof(struct hc_scrape_numa_node, net_off), true);
	numa_pair(p, nm, "hypercache_numa_net_buffer_pages_total",
		  "libcurl's receive buffer sampled once per part fetched, by the NIC's node: on it (local) or not (remote)",
		  "local", "remote",
		  offsetof(struct hc_scrape_numa_node, net_pages_local),
		  offsetof(struct hc_scrape_numa_node, net_pages_remote), false);
	hc_prom_family(p, "hypercache_numa_net_threads", HC_PROM_GAUGE,
		       "Network-only threads (the HEAD workers) moved to the node, the NIC's");
	for (n = 0; n < nm->nr_nodes && n < HC_SCRAPE_NODES_MAX; n++) {
		snprintf(node, sizeof(node), "%u", n);
		l[0] = (struct hc_prom_label){ "node", node };
		hc_prom_u64(p, "hypercache_numa_net_threads", l, 1,
			    nm->n[n].net_threads);
	}
}

/* What the scrapes before this one cost the exporter (metrics.md). */
static void render_self(struct hc_prom *p, const struct hc_scrape_self *s)
{
	struct hc_prom_label l;

	family_u64(p, "hypercache_exporter_scrapes_total", HC_PROM_COUNTER,
		   "Scrapes the exporter answered before this one", s->scrapes);
	hc_prom_family(p, "hypercache_exporter_seconds_total", HC_PROM_COUNTER,
		       "Time those scrapes spent in the exporter by phase: kernel (the HC_CMD_STATS_GET round trip), render (computing the page)");
	l = (struct hc_prom_label){ "phase", "kernel" };
	hc_prom_f64(p, "hypercache_exporter_seconds_total", &l, 1,
		    s->kernel_seconds);
	l = (struct hc_prom_label){ "phase", "render" };
	hc_prom_f64(p, "hypercache_exporter_seconds_total", &l, 1,
		    s->render_seconds);
}

int hc_scrape_render(struct hc_prom *p, const struct hc_scrape_in *in,
		     struct hc_scrape_state *st)
{
	family_u64(p, "hypercache_pool_up", HC_PROM_GAUGE,
		   "1 when a pool runs and the kernel answered the statistics request",
		   in->kernel_ok);
	if (in->kernel_ok) {
		render_seed(p, in, st);
		render_cache(p, in, st);
		render_members(p, in, st);
		st->primed = true;
	}
	st->last_now = in->now;
	render_backends(p, in);
	render_numa(p, &in->numa);
	render_self(p, &in->self);
	return hc_prom_finish(p);
}
