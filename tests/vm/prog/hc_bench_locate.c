// SPDX-License-Identifier: GPL-2.0
/*
 * hc_bench_locate [-t THREADS] [-j DEVS] COUNTS CALLS [BATCH]: benchmark of the
 * object index (guest only; scripts/bench-locate.sh runs it through
 * tests/vm/guest/stage-bench-locate.sh).
 *
 * COUNTS is an ascending, comma-separated list of object counts (for
 * example 1000,100000,1000000).  For each count C in turn:
 *
 * 1. The index grows to C objects "bench/obj/%08u" of 1 byte each: STAGE
 *    (one chunk, one extent: the smallest object that has an extent, so it
 *    is in the policy and its hits update the sketch and the LRU), then
 *    COMMIT with HC_COMMIT_F_CLEAN (READY).  No data is written: nothing
 *    reads it.  Reported: the time per object of this step and the kernel
 *    memory it took per object (/proc/meminfo Slab and the sum over
 *    /proc/slabinfo of active objects x object size, before and after).
 *    With -j DEVS (the pool's members, space-separated, in order; the
 *    pool must have no other objects) the same objects come from the
 *    journal instead, as a pool that held them would replay them: the pool
 *    is stopped, `hc_jpoke objects-1b` appends their records (object k on
 *    chunk k) and `hcctl pool assemble DEVS` replays every record and
 *    admits each object to the policy.  A million objects then take about
 *    a minute where STAGE + COMMIT take 2.5-3.7 ms each under TCG (an hour).
 *    The time per object is then that of the stop, the append and the
 *    whole replay, and the memory the difference between the running pool
 *    before and after ("fill=journal" on the line; "fill=commit" without
 *    -j).
 * 2. HC_IOC_STAT must then show C objects, all READY, none evicted, and
 *    C chunks in use: else the figures would be of misses or of objects
 *    outside the policy, and the program fails.
 * 3. For T = 1 .. THREADS (default 2) threads, each with its own open of
 *    /dev/hypercache-ctl and /dev/hypercache0: CALLS ioctls of each kind
 *    per thread, in batches of BATCH calls (default 1000), the kinds taking
 *    turns batch by batch and the threads starting each batch together at
 *    a barrier:
 *      getsize  BLKGETSIZE64 on /dev/hypercache0 (the no-op peer)
 *      locate   HC_IOC_LOCATE of a random hit, no hold, no arrays
 *      extents  the same with an array of HC_MAX_EXTENTS extents, as
 *               `hcctl get` asks (the extent is copied out)
 *      hold     HC_IOC_LOCATE with HC_LOCATE_F_HOLD, then HC_IOC_RELEASE
 *               (the pair)
 *    A batch's latency is the mean over the threads of each one's elapsed
 *    time / BATCH.  On a shared host (and under TCG) most batches are
 *    disturbed by something else; short batches in turn make every kind
 *    see the same disturbances, and the least disturbed batch of a kind (the
 *    minimum) is the figure, with the median beside it.
 *
 * Output (stdout): "key value" lines, and per count and thread number
 *   result objects=C threads=T getsize_ns=G locate_ns=L extents_ns=E
 *          hold_pair_ns=H ratio_locate=L/G ratio_extents=E/G
 *          ratio_hold_pair=H/G
 *   median objects=C threads=T (the same keys, of the medians)
 * Progress of long indexing steps goes to stderr.  Exit status 0, or 1
 * with a message on stderr if any ioctl fails or a lookup is not a hit.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include "hypercache.h"

#define URI_LEN		32
#define MAX_COUNTS	16
#define MAX_THREADS	8
#define MAX_CACHES	512

enum { K_GETSIZE, K_LOCATE, K_EXTENTS, K_HOLD, K_NR };
static const char *const kind_name[K_NR] = {
	"getsize_ns", "locate_ns", "extents_ns", "hold_pair_ns"
};

struct worker {
	pthread_t tid;
	int ctl, dev;
	unsigned int kind;
	char (*uris)[URI_LEN];
	uint32_t *lens;
	double *lat[K_NR];	/* per kind, per batch: ns per call */
	int err;		/* 0, or the errno of the failed ioctl */
	const char *what;
};

static unsigned int calls, batch;
static pthread_barrier_t start_line;
static const char *jdevs;	/* -j: the members, or NULL */

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "hc_bench_locate: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void uri_of(char *buf, unsigned int i)
{
	snprintf(buf, URI_LEN, "bench/obj/%08u", i);
}

static long long meminfo_kb(const char *key)
{
	char line[256];
	long long v = -1;
	size_t n = strlen(key);
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':') {
			v = atoll(line + n + 1);
			break;
		}
	fclose(f);
	return v;
}

/* Sum over every cache of active objects x object size, or -1. */
static long long slabinfo_bytes(void)
{
	char line[512], name[64];
	long long sum = 0, active, total, size;
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#' || !strncmp(line, "slabinfo", 8))
			continue;
		if (sscanf(line, "%63s %lld %lld %lld", name, &active, &total,
			   &size) == 4)
			sum += active * size;
	}
	fclose(f);
	return sum;
}

/* Index objects [from, to): 1 byte, one chunk, committed READY. */
static void index_objects(int ctl, unsigned int from, unsigned int to)
{
	struct hc_extent ext[HC_MAX_EXTENTS];
	unsigned int i;

	for (i = from; i < to; i++) {
		char uri[URI_LEN];
		struct hc_stage s = { .size = sizeof(s) };
		struct hc_commit c = { .size = sizeof(c),
				       .flags = HC_COMMIT_F_CLEAN };

		uri_of(uri, i);
		s.uri = c.uri = (uintptr_t)uri;
		s.uri_len = c.uri_len = strlen(uri);
		s.obj_size = 1;
		s.extents = (uintptr_t)ext;
		s.max_extents = HC_MAX_EXTENTS;
		if (ioctl(ctl, HC_IOC_STAGE, &s))
			die(uri);
		if (s.nr_extents != 1) {
			fprintf(stderr, "hc_bench_locate: %s: %u extents, not 1\n",
				uri, s.nr_extents);
			exit(1);
		}
		if (ioctl(ctl, HC_IOC_COMMIT, &c))
			die(uri);
		if ((i + 1) % 100000 == 0)
			fprintf(stderr, "hc_bench_locate: %u objects indexed\n",
				i + 1);
	}
}

/*
 * Index objects [from, to) through the journal of the stopped pool (-j):
 * every open of the pool's devices is closed first (a stop refuses an open
 * /dev/hypercache0) and opened again after the assembly.
 */
static void index_by_journal(int *ctl, struct worker *w, unsigned int nt,
			     unsigned int from, unsigned int to)
{
	char cmd[1024];
	unsigned int t;
	int rc;

	for (t = 0; t < nt; t++) {
		close(w[t].ctl);
		close(w[t].dev);
	}
	close(*ctl);
	snprintf(cmd, sizeof(cmd),
		 "hcctl pool stop >/dev/null && "
		 "hc_jpoke objects-1b bench/obj/ %u %u %s >/dev/null && "
		 "hcctl pool assemble %s >/dev/null", from, to, jdevs, jdevs);
	fprintf(stderr, "hc_bench_locate: objects %u..%u from the journal\n",
		from, to - 1);
	rc = system(cmd);
	if (rc) {
		fprintf(stderr, "hc_bench_locate: \"%s\" exited %d\n", cmd, rc);
		exit(1);
	}
	*ctl = open("/dev/" HC_CTL_NAME, O_RDWR);
	if (*ctl < 0)
		die("/dev/" HC_CTL_NAME);
	for (t = 0; t < nt; t++) {
		w[t].ctl = open("/dev/" HC_CTL_NAME, O_RDONLY);
		w[t].dev = open("/dev/hypercache0", O_RDONLY);
		if (w[t].ctl < 0 || w[t].dev < 0)
			die("open");
	}
}

static int one_call(struct worker *w, unsigned int i)
{
	struct hc_extent ext[HC_MAX_EXTENTS];
	struct hc_locate l;
	struct hc_obj_ref ref;
	uint64_t bytes;

	if (w->kind == K_GETSIZE) {
		w->what = "BLKGETSIZE64";
		return ioctl(w->dev, BLKGETSIZE64, &bytes);
	}
	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	l.uri = (uintptr_t)w->uris[i];
	l.uri_len = w->lens[i];
	if (w->kind == K_EXTENTS) {
		l.extents = (uintptr_t)ext;
		l.max_extents = HC_MAX_EXTENTS;
	}
	if (w->kind == K_HOLD)
		l.flags = HC_LOCATE_F_HOLD;
	w->what = "LOCATE";
	if (ioctl(w->ctl, HC_IOC_LOCATE, &l))
		return -1;
	if (l.status != HC_LOCATE_HIT || l.nr_extents != 1) {
		w->what = "LOCATE: not a hit with one extent";
		errno = EPROTO;
		return -1;
	}
	if (w->kind != K_HOLD)
		return 0;
	memset(&ref, 0, sizeof(ref));
	ref.size = sizeof(ref);
	ref.uri = l.uri;
	ref.uri_len = l.uri_len;
	w->what = "RELEASE";
	return ioctl(w->ctl, HC_IOC_RELEASE, &ref);
}

static double *lat[K_NR];	/* per kind: the batches' latencies */

/*
 * One thread: for every batch, every kind in turn, all threads starting
 * the batch together; its mean ns per call of each goes to w->lat[kind].
 * After a failure it keeps meeting the others at the barrier, idle.
 */
static void *worker_run(void *arg)
{
	struct worker *w = arg;
	unsigned int b, k, i, nb = calls / batch;
	double t0;

	for (b = 0; b < nb; b++)
		for (k = 0; k < K_NR; k++) {
			w->kind = k;
			pthread_barrier_wait(&start_line);
			t0 = now_ns();
			for (i = b * batch; i < (b + 1) * batch && !w->err; i++)
				if (one_call(w, i))
					w->err = errno;
			w->lat[k][b] = (now_ns() - t0) / batch;
		}
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void print_line(const char *tag, unsigned int count, unsigned int nt,
		       const double *v)
{
	unsigned int k;

	printf("%s objects=%u threads=%u", tag, count, nt);
	for (k = 0; k < K_NR; k++)
		printf(" %s=%.0f", kind_name[k], v[k]);
	printf(" ratio_locate=%.2f ratio_extents=%.2f ratio_hold_pair=%.2f\n",
	       v[K_LOCATE] / v[K_GETSIZE], v[K_EXTENTS] / v[K_GETSIZE],
	       v[K_HOLD] / v[K_GETSIZE]);
}

static void measure(struct worker *w, unsigned int count, unsigned int nt)
{
	unsigned int k, t, i, b, nb = calls / batch;
	double best[K_NR], med[K_NR];

	for (t = 0; t < nt; t++) {
		unsigned int seed = 1 + t;

		for (i = 0; i < calls; i++) {
			uri_of(w[t].uris[i], (unsigned int)rand_r(&seed) % count);
			w[t].lens[i] = strlen(w[t].uris[i]);
		}
		w[t].err = 0;
	}
	if (pthread_barrier_init(&start_line, NULL, nt))
		die("pthread_barrier_init");
	for (t = 0; t < nt; t++) {
		errno = pthread_create(&w[t].tid, NULL, worker_run, &w[t]);
		if (errno)
			die("pthread_create");
	}
	for (t = 0; t < nt; t++)
		pthread_join(w[t].tid, NULL);
	pthread_barrier_destroy(&start_line);
	for (t = 0; t < nt; t++)
		if (w[t].err) {
			errno = w[t].err;
			die(w[t].what);
		}
	for (k = 0; k < K_NR; k++) {
		for (b = 0; b < nb; b++) {
			lat[k][b] = 0;
			for (t = 0; t < nt; t++)
				lat[k][b] += w[t].lat[k][b] / nt;
		}
		qsort(lat[k], nb, sizeof(double), cmp_double);
		best[k] = lat[k][0];
		med[k] = lat[k][nb / 2];
	}
	fprintf(stderr, "hc_bench_locate: %u objects, %u threads measured\n",
		count, nt);
	print_line("result", count, nt, best);
	print_line("median", count, nt, med);
	fflush(stdout);
}

static int parse_counts(char *s, unsigned int *counts)
{
	unsigned int n = 0;
	char *tok, *end;

	for (tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
		unsigned long v = strtoul(tok, &end, 10);

		if (*end || !v || v > 99999999 || n == MAX_COUNTS ||
		    (n && v <= counts[n - 1]))
			return -1;
		counts[n++] = v;
	}
	return n;
}

int main(int argc, char **argv)
{
	static struct worker w[MAX_THREADS];
	unsigned int counts[MAX_COUNTS], threads = 2, done = 0;
	int nc, ctl, c, opt;
	unsigned int t, k;

	while ((opt = getopt(argc, argv, "t:j:")) != -1) {
		if (opt == 't')
			threads = strtoul(optarg, NULL, 10);
		else if (opt == 'j' && *optarg && strlen(optarg) < 400 &&
			 !strpbrk(optarg, ";&|$`'\"<>\\"))
			jdevs = optarg;
		else
			goto usage;
	}
	argc -= optind;
	argv += optind;
	if (argc != 2 && argc != 3)
		goto usage;
	nc = parse_counts(argv[0], counts);
	calls = strtoul(argv[1], NULL, 10);
	batch = argc == 3 ? strtoul(argv[2], NULL, 10) : 1000;
	if (nc <= 0 || !batch || calls < batch || !threads ||
	    threads > MAX_THREADS)
		goto usage;
	for (k = 0; k < K_NR; k++) {
		lat[k] = calloc(calls / batch, sizeof(double));
		if (!lat[k])
			die("calloc");
	}

	ctl = open("/dev/" HC_CTL_NAME, O_RDWR);
	if (ctl < 0)
		die("/dev/" HC_CTL_NAME);
	for (t = 0; t < threads; t++) {
		w[t].ctl = open("/dev/" HC_CTL_NAME, O_RDONLY);
		w[t].dev = open("/dev/hypercache0", O_RDONLY);
		if (w[t].ctl < 0 || w[t].dev < 0)
			die("open");
		w[t].uris = malloc((size_t)calls * URI_LEN);
		w[t].lens = malloc((size_t)calls * sizeof(*w[t].lens));
		if (!w[t].uris || !w[t].lens)
			die("malloc");
		for (k = 0; k < K_NR; k++) {
			w[t].lat[k] = calloc(calls / batch, sizeof(double));
			if (!w[t].lat[k])
				die("calloc");
		}
	}

	for (c = 0; c < nc; c++) {
		struct hc_stats st = { .size = sizeof(st) };
		unsigned int n = counts[c], added = n - done;
		long long slab0, slab1, sb0, sb1;
		double t0, el;

		sync();
		sb0 = slabinfo_bytes();
		slab0 = meminfo_kb("Slab");
		t0 = now_ns();
		if (jdevs)
			index_by_journal(&ctl, w, threads, done, n);
		else
			index_objects(ctl, done, n);
		el = now_ns() - t0;
		slab1 = meminfo_kb("Slab");
		sb1 = slabinfo_bytes();
		done = n;
		if (ioctl(ctl, HC_IOC_STAT, &st))
			die("STAT");
		printf("indexed objects=%u added=%u fill=%s index_ns_per_object=%.0f meminfo_slab_bytes_per_object=%.1f slabinfo_bytes_per_object=%.1f\n",
		       n, added, jdevs ? "journal" : "commit", el / added,
		       (slab1 - slab0) * 1024.0 / added,
		       sb0 < 0 || sb1 < 0 ? -1.0 : (double)(sb1 - sb0) / added);
		printf("stat objects=%u stat_objects=%llu ready=%llu evictions=%llu bytes_used=%llu\n",
		       n, (unsigned long long)st.objects,
		       (unsigned long long)st.by_state[HC_OBJ_READY],
		       (unsigned long long)st.evictions,
		       (unsigned long long)st.bytes_used);
		fflush(stdout);
		if (st.objects != n || st.by_state[HC_OBJ_READY] != n ||
		    st.evictions) {
			fprintf(stderr, "hc_bench_locate: %u objects indexed, STAT shows %llu (%llu READY, %llu evicted)\n",
				n, (unsigned long long)st.objects,
				(unsigned long long)st.by_state[HC_OBJ_READY],
				(unsigned long long)st.evictions);
			return 1;
		}
		for (t = 1; t <= threads; t++)
			measure(w, n, t);
	}
	return 0;

usage:
	fprintf(stderr, "usage: hc_bench_locate [-t THREADS] [-j DEVS] COUNTS CALLS [BATCH]\n"
		"  COUNTS: ascending, comma-separated (1000,100000,...);\n"
		"  DEVS: the pool's members, space-separated (fill through the journal);\n"
		"  CALLS >= BATCH\n");
	return 2;
}
