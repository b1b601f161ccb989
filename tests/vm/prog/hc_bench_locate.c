// SPDX-License-Identifier: GPL-2.0
/*
 * hc_bench_locate COUNT N [ROUNDS]: benchmark of the object index (guest
 * only; scripts/bench-locate.sh runs it, not `make check`).
 *
 * 1. Indexes COUNT objects of 0 bytes ("bench/obj/%08u", STAGE + COMMIT
 *    with HC_COMMIT_F_CLEAN: no chunk, no data) and reports the kernel
 *    memory this took per object: the delta of /proc/meminfo's Slab and of
 *    /proc/slabinfo (active objects x object size, summed over all caches,
 *    with the caches that grew most) from before to after, divided by COUNT.
 * 2. Measures, in the same run and interleaved over ROUNDS rounds (default
 *    5), the mean latency of N ioctls of each kind:
 *      getsize  BLKGETSIZE64 on /dev/hypercache0 (the floor: a trivial ioctl)
 *      locate   HC_IOC_LOCATE of a hit (a random indexed URI), no hold
 *      hold     HC_IOC_LOCATE + HC_LOCATE_F_HOLD then HC_IOC_RELEASE (the
 *               pair, and per ioctl)
 *    and prints the best round's mean of each and the ratios to getsize.
 *
 * Output lines are "key value" pairs for the script to pick up.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include "hypercache.h"

#define URI_LEN	32

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
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

#define MAX_CACHES 512
struct slab {
	char name[64];
	long long bytes;	/* active objects x object size */
};

static int read_slabinfo(struct slab *s)
{
	char line[512];
	int n = 0;
	FILE *f = fopen("/proc/slabinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && n < MAX_CACHES) {
		long long active, total, size;

		if (line[0] == '#' || !strncmp(line, "slabinfo", 8))
			continue;
		if (sscanf(line, "%63s %lld %lld %lld", s[n].name, &active,
			   &total, &size) != 4)
			continue;
		s[n].bytes = active * size;
		n++;
	}
	fclose(f);
	return n;
}

static void uri_of(char *buf, unsigned int i)
{
	snprintf(buf, URI_LEN, "bench/obj/%08u", i);
}

static void die(const char *what)
{
	fprintf(stderr, "hc_bench_locate: %s: %s\n", what, strerror(errno));
	exit(1);
}

int main(int argc, char **argv)
{
	static struct slab before[MAX_CACHES], after[MAX_CACHES];
	unsigned int count, n, rounds, i, r;
	long long slab0, slab1, sum = 0;
	int nb, na, ctl, dev;
	double best[3] = { 1e30, 1e30, 1e30 }, cur[3], t0, t;
	char (*uris)[URI_LEN];
	uint32_t *lens;
	uint64_t bytes;
	struct hc_stats st = { .size = sizeof(st) };

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: hc_bench_locate COUNT N [ROUNDS]\n");
		return 2;
	}
	count = strtoul(argv[1], NULL, 0);
	n = strtoul(argv[2], NULL, 0);
	rounds = argc == 4 ? strtoul(argv[3], NULL, 0) : 5;
	if (!count || !n || !rounds)
		return 2;
	ctl = open("/dev/" HC_CTL_NAME, O_RDWR);
	if (ctl < 0)
		die("/dev/" HC_CTL_NAME);
	dev = open("/dev/hypercache0", O_RDONLY);
	if (dev < 0)
		die("/dev/hypercache0");

	/* 1. index COUNT objects, memory before and after */
	sync();
	nb = read_slabinfo(before);
	slab0 = meminfo_kb("Slab");
	t0 = now_ns();
	for (i = 0; i < count; i++) {
		char uri[URI_LEN];
		struct hc_stage s = { .size = sizeof(s) };
		struct hc_commit c = { .size = sizeof(c),
				       .flags = HC_COMMIT_F_CLEAN };

		uri_of(uri, i);
		s.uri = c.uri = (uintptr_t)uri;
		s.uri_len = c.uri_len = strlen(uri);
		if (ioctl(ctl, HC_IOC_STAGE, &s))
			die(uri);
		if (ioctl(ctl, HC_IOC_COMMIT, &c))
			die(uri);
	}
	t = now_ns() - t0;
	slab1 = meminfo_kb("Slab");
	na = read_slabinfo(after);
	if (ioctl(ctl, HC_IOC_STAT, &st))
		die("STAT");
	printf("indexed %u\n", count);
	printf("index_ns_per_object %.0f\n", t / count);
	printf("stat_objects %llu\n", (unsigned long long)st.objects);
	printf("stat_evictions %llu\n", (unsigned long long)st.evictions);
	printf("stat_bytes_used %llu\n", (unsigned long long)st.bytes_used);
	printf("meminfo_slab_delta_kb %lld\n", slab1 - slab0);
	printf("meminfo_slab_bytes_per_object %.1f\n",
	       (slab1 - slab0) * 1024.0 / count);
	if (nb > 0 && na > 0) {
		for (int a = 0; a < na; a++) {
			long long d = after[a].bytes;

			for (int b = 0; b < nb; b++)
				if (!strcmp(before[b].name, after[a].name)) {
					d -= before[b].bytes;
					break;
				}
			sum += d;
			if (d > 256 * 1024)
				printf("slab_cache_delta %s %lld bytes %.1f per object\n",
				       after[a].name, d, (double)d / count);
		}
		printf("slabinfo_bytes_per_object %.1f\n", (double)sum / count);
	}
	if (st.objects < count) {
		fprintf(stderr, "hc_bench_locate: only %llu of %u objects stayed indexed\n",
			(unsigned long long)st.objects, count);
		return 1;
	}

	/* 2. the URIs to look up, random hits, generated before timing */
	uris = malloc((size_t)n * URI_LEN);
	lens = malloc((size_t)n * sizeof(*lens));
	if (!uris || !lens)
		die("malloc");
	srand(1);
	for (i = 0; i < n; i++) {
		uri_of(uris[i], (unsigned int)rand() % count);
		lens[i] = strlen(uris[i]);
	}

	for (r = 0; r < rounds; r++) {
		struct hc_locate l;
		struct hc_obj_ref ref = { .size = sizeof(ref) };

		t0 = now_ns();
		for (i = 0; i < n; i++)
			if (ioctl(dev, BLKGETSIZE64, &bytes))
				die("BLKGETSIZE64");
		t = (now_ns() - t0) / n;
		cur[0] = t;
		if (t < best[0])
			best[0] = t;

		t0 = now_ns();
		for (i = 0; i < n; i++) {
			memset(&l, 0, sizeof(l));
			l.size = sizeof(l);
			l.uri = (uintptr_t)uris[i];
			l.uri_len = lens[i];
			if (ioctl(ctl, HC_IOC_LOCATE, &l))
				die("LOCATE");
			if (l.status != HC_LOCATE_HIT) {
				fprintf(stderr, "hc_bench_locate: %s: status %u\n",
					uris[i], l.status);
				return 1;
			}
		}
		t = (now_ns() - t0) / n;
		cur[1] = t;
		if (t < best[1])
			best[1] = t;

		t0 = now_ns();
		for (i = 0; i < n; i++) {
			memset(&l, 0, sizeof(l));
			l.size = sizeof(l);
			l.flags = HC_LOCATE_F_HOLD;
			l.uri = (uintptr_t)uris[i];
			l.uri_len = lens[i];
			if (ioctl(ctl, HC_IOC_LOCATE, &l))
				die("LOCATE+HOLD");
			if (l.status != HC_LOCATE_HIT)
				return 1;
			ref.uri = l.uri;
			ref.uri_len = l.uri_len;
			if (ioctl(ctl, HC_IOC_RELEASE, &ref))
				die("RELEASE");
		}
		t = (now_ns() - t0) / n;
		cur[2] = t;
		if (t < best[2])
			best[2] = t;
		printf("round %u getsize_ns %.0f locate_ns %.0f hold_release_ns %.0f\n",
		       r, cur[0], cur[1], cur[2]);
	}
	printf("getsize_ns %.0f\n", best[0]);
	printf("locate_ns %.0f\n", best[1]);
	printf("hold_release_pair_ns %.0f\n", best[2]);
	printf("ratio_locate %.2f\n", best[1] / best[0]);
	printf("ratio_hold_release_per_ioctl %.2f\n", best[2] / 2 / best[0]);
	printf("ratio_hold_release_pair %.2f\n", best[2] / best[0]);
	return 0;
}
