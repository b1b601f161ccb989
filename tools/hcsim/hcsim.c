// SPDX-License-Identifier: GPL-2.0
/*
 * hcsim - run the object cache's W-TinyLFU policy (kmod/core/policy.c, the same
 * core code as the module) and a size-aware LRU side by side on a trace,
 * and print request and byte hit ratios; or generate a synthetic trace.
 *
 *   hcsim [--format arc|kv] [--unit BYTES] --capacity N[K|M|G|T] TRACE
 *   hcsim --gen zipf --objects N --requests M [--alpha A] [--scan K]
 *	   [--seed S] [--max-chunks C] [--unit BYTES]
 *
 * Formats: arc is "start_block count ignored request_no", each block a key
 * of one unit (default unit 512 bytes); kv is "key size_in_bytes", weight
 * = ceil(size / unit) (default unit 4 MiB, one chunk); a key that is not a
 * decimal number is hashed.  A capacity with a suffix is bytes, without one
 * it is units.  TRACE "-" reads stdin.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "policy.h"
#include "lru.h"

struct obj {
	struct hc_policy_entry pe;	/* first: lru.c casts links to it */
	u64 size;
	struct obj *hnext;
};

struct map {
	struct obj **b;
	u64 mask;
};

struct cache {
	const char *name;
	bool tinylfu;
	struct hc_policy pol;
	struct lru lru;
	struct map map;
	u64 reqs, hits, bytes, bytes_hit;
};

static struct hc_policy_entry **victims;
static u32 victims_max;

static void die(const char *msg)
{
	fprintf(stderr, "hcsim: %s\n", msg);
	exit(1);
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n, sz);

	if (!p)
		die("out of memory");
	return p;
}

static u64 map_slot(const struct map *m, u64 key)
{
	return hc_sketch_mix(key, 0x5bd1e995) & m->mask;
}

static struct obj *map_find(struct map *m, u64 key)
{
	struct obj *o;

	for (o = m->b[map_slot(m, key)]; o; o = o->hnext)
		if (o->pe.key == key)
			return o;
	return NULL;
}

static void map_add(struct map *m, struct obj *o)
{
	u64 s = map_slot(m, o->pe.key);

	o->hnext = m->b[s];
	m->b[s] = o;
}

static void map_del(struct map *m, struct obj *o)
{
	struct obj **pp = &m->b[map_slot(m, o->pe.key)];

	while (*pp != o)
		pp = &(*pp)->hnext;
	*pp = o->hnext;
}

static void cache_init(struct cache *c, const char *name, bool tinylfu,
		       u64 capacity)
{
	u64 buckets = 1024;

	c->name = name;
	c->tinylfu = tinylfu;
	while (buckets < 2 * capacity && buckets < (1ULL << 26))
		buckets <<= 1;
	c->map.b = xcalloc(buckets, sizeof(*c->map.b));
	c->map.mask = buckets - 1;
	if (tinylfu) {
		size_t bytes = hc_sketch_bytes(capacity);
		void *table = bytes ? aligned_alloc(8, bytes) : NULL;

		if (!table || hc_policy_init(&c->pol, capacity, table, bytes))
			die("cannot set up the policy (capacity too large?)");
	} else {
		lru_init(&c->lru, capacity);
	}
}

static void cache_request(struct cache *c, u64 key, u64 size, u32 weight)
{
	struct obj *o = map_find(&c->map, key);
	u32 i, nr;
	int ret;

	c->reqs++;
	c->bytes += size;
	if (o) {
		c->hits++;
		c->bytes_hit += size;
		if (c->tinylfu)
			hc_policy_access(&c->pol, &o->pe);
		else
			lru_access(&c->lru, &o->pe);
		return;
	}
	if (weight > victims_max) {
		victims_max = weight;
		victims = realloc(victims, victims_max * sizeof(*victims));
		if (!victims)
			die("out of memory");
	}
	o = xcalloc(1, sizeof(*o));
	hc_policy_entry_init(&o->pe, key, weight);
	o->size = size;
	if (c->tinylfu)
		ret = hc_policy_admit(&c->pol, &o->pe, victims, victims_max, &nr);
	else
		ret = lru_admit(&c->lru, &o->pe, victims, victims_max, &nr);
	if (ret < 0)
		die("admission failed");
	for (i = 0; i < nr; i++) {
		struct obj *v = (struct obj *)victims[i];

		map_del(&c->map, v);
		free(v);
	}
	if (ret == HC_POLICY_ADMITTED)
		map_add(&c->map, o);
	else
		free(o);
}

/* A decimal key as is; anything else through FNV-1a. */
static u64 parse_key(const char *s)
{
	char *end;
	u64 k = strtoull(s, &end, 10);

	if (*s && !*end)
		return k;
	k = 0xcbf29ce484222325ULL;
	for (; *s; s++)
		k = (k ^ (u8)*s) * 0x100000001b3ULL;
	return k;
}

static u64 parse_size(const char *s, bool *bytes)
{
	char *end;
	u64 v = strtoull(s, &end, 10);
	int shift = 0;

	switch (*end) {
	case 'K': case 'k': shift = 10; break;
	case 'M': case 'm': shift = 20; break;
	case 'G': case 'g': shift = 30; break;
	case 'T': case 't': shift = 40; break;
	case '\0': break;
	default: die("bad size (N, or N with K, M, G or T)");
	}
	if (bytes)
		*bytes = shift || end[0];
	return v << shift;
}

static void report(struct cache *c, int n, const char *trace,
		   const char *format, u64 unit, u64 capacity)
{
	int i;

	printf("# trace %s, format %s, unit %llu bytes, capacity %llu units (%.1f MiB)\n",
	       trace, format, (unsigned long long)unit,
	       (unsigned long long)capacity, capacity * (double)unit / (1 << 20));
	printf("%-10s %12s %12s %9s %9s\n", "policy", "requests", "hits",
	       "hit%", "bytes%");
	for (i = 0; i < n; i++)
		printf("%-10s %12llu %12llu %9.2f %9.2f\n", c[i].name,
		       (unsigned long long)c[i].reqs,
		       (unsigned long long)c[i].hits,
		       c[i].reqs ? 100.0 * c[i].hits / c[i].reqs : 0.0,
		       c[i].bytes ? 100.0 * c[i].bytes_hit / c[i].bytes : 0.0);
	printf("# W-TinyLFU window at the end: %llu of %llu units, %llu moves\n",
	       (unsigned long long)c[0].pol.window_max,
	       (unsigned long long)capacity,
	       (unsigned long long)c[0].pol.adjustments);
}

static int simulate(const char *trace, const char *format, u64 unit,
		    u64 capacity)
{
	struct cache c[2] = { 0 };
	bool arc = !strcmp(format, "arc");
	char line[4096];
	FILE *f;
	int i;

	if (!arc && strcmp(format, "kv"))
		die("--format is arc or kv");
	f = strcmp(trace, "-") ? fopen(trace, "r") : stdin;
	if (!f) {
		perror(trace);
		return 1;
	}
	cache_init(&c[0], "W-TinyLFU", true, capacity);
	cache_init(&c[1], "LRU", false, capacity);

	while (fgets(line, sizeof(line), f)) {
		char k[4096];
		unsigned long long a, b;

		if (arc) {
			if (sscanf(line, "%llu %llu", &a, &b) != 2)
				continue;
			for (u64 j = 0; j < b; j++)
				for (i = 0; i < 2; i++)
					cache_request(&c[i], a + j, unit, 1);
		} else {
			u64 w;

			if (sscanf(line, "%4095s %llu", k, &b) != 2)
				continue;
			w = (b + unit - 1) / unit;
			if (!w)
				w = 1;
			if (w > UINT32_MAX)
				die("object too large");
			a = parse_key(k);
			for (i = 0; i < 2; i++)
				cache_request(&c[i], a, b, (u32)w);
		}
	}
	if (f != stdin)
		fclose(f);
	report(c, 2, trace, format, unit, capacity);
	return 0;
}

/* Zipf(alpha) over @objects ranks, a one-pass scan of @scan new keys after
 * half the requests; "key size" lines on stdout. */
static int gen_zipf(u64 objects, u64 requests, double alpha, u64 scan,
		    u64 seed, u64 max_chunks, u64 unit)
{
	double *cdf = xcalloc(objects, sizeof(*cdf)), sum = 0;
	u64 i, r, rng = seed ? seed : 1;

	for (i = 0; i < objects; i++)
		cdf[i] = sum += 1.0 / pow((double)(i + 1), alpha);
	for (r = 0; r < requests; r++) {
		u64 lo = 0, hi = objects - 1, key;
		double u;

		if (r == requests / 2)
			for (i = 0; i < scan; i++) {
				key = objects + 1 + i;
				printf("%llu %llu\n", (unsigned long long)key,
				       (unsigned long long)((1 + hc_sketch_mix(key, 3) % max_chunks) * unit));
			}
		rng = hc_sketch_mix(rng, 0x9e3779b97f4a7c15ULL);
		u = (double)(rng >> 11) / (double)(1ULL << 53) * sum;
		while (lo < hi) {
			u64 mid = (lo + hi) / 2;

			if (cdf[mid] < u)
				lo = mid + 1;
			else
				hi = mid;
		}
		key = lo + 1;
		printf("%llu %llu\n", (unsigned long long)key,
		       (unsigned long long)((1 + hc_sketch_mix(key, 3) % max_chunks) * unit));
	}
	free(cdf);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: hcsim [--format arc|kv] [--unit BYTES] --capacity N[K|M|G|T] TRACE\n"
		"       hcsim --gen zipf --objects N --requests M [--alpha A] [--scan K]\n"
		"             [--seed S] [--max-chunks C] [--unit BYTES]\n"
		"A capacity with a suffix is bytes, without one units; TRACE - is stdin.\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "unit", required_argument, NULL, 'u' },
		{ "capacity", required_argument, NULL, 'c' },
		{ "gen", required_argument, NULL, 'g' },
		{ "objects", required_argument, NULL, 'o' },
		{ "requests", required_argument, NULL, 'r' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "scan", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		{ "max-chunks", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *format = "kv", *gen = NULL, *cap_arg = NULL;
	u64 unit = 0, objects = 0, requests = 0, scan = 0, seed = 1, chunks = 1;
	u64 capacity;
	double alpha = 0.9;
	bool cap_bytes;
	int o;

	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'f': format = optarg; break;
		case 'u': unit = parse_size(optarg, NULL); break;
		case 'c': cap_arg = optarg; break;
		case 'g': gen = optarg; break;
		case 'o': objects = parse_size(optarg, NULL); break;
		case 'r': requests = parse_size(optarg, NULL); break;
		case 'a': alpha = atof(optarg); break;
		case 's': scan = parse_size(optarg, NULL); break;
		case 'S': seed = strtoull(optarg, NULL, 0); break;
		case 'm': chunks = strtoull(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (!unit)
		unit = !strcmp(format, "arc") ? 512 : 4ULL << 20;
	if (gen) {
		if (strcmp(gen, "zipf") || !objects || !requests || !chunks ||
		    optind != argc)
			usage();
		return gen_zipf(objects, requests, alpha, scan, seed, chunks,
				unit);
	}
	if (!cap_arg || optind != argc - 1)
		usage();
	capacity = parse_size(cap_arg, &cap_bytes);
	if (cap_bytes)
		capacity /= unit;
	if (!capacity)
		die("capacity is less than one unit");
	return simulate(argv[optind], format, unit, capacity);
}
