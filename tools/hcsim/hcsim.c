// SPDX-License-Identifier: GPL-2.0
/*
 * hcsim - run the object cache's policy (kmod/core/policy.c, the same core
 * code as the module) beside reference policies on a trace and print
 * request and byte hit ratios; or generate a synthetic trace.
 *
 *   hcsim [--format arc|kv] [--unit BYTES] [--policies LIST] [--classes]
 *	   [--inflight N] (--capacity N[K|M|G|T] | --fraction F) TRACE
 *   hcsim --gen zipf --objects N --requests M [--alpha A] [--scan K]
 *	   [--seed S] [--max-chunks C] [--unit BYTES]
 *   hcsim --gen ai|inference|training [--seed S] [--set NAME=VALUE]...
 *
 * Formats: arc is "start_block count ignored request_no", each block a key
 * of one unit (default unit 512 bytes); kv is "key size_in_bytes [w]",
 * weight = ceil(size / unit) (default unit 4 MiB, one chunk), "w" marks a
 * write (a STAGE: not a request, the object enters the cache); a key that is
 * not a decimal number is hashed, and its first path component classes it
 * (model/, data/, ckpt/, other) for --classes, which prints the byte hit
 * ratio of each class and of the hot models (model objects read more often
 * than any data object).  A capacity with a suffix is
 * bytes, without one units; --fraction is a share of the distinct units the
 * trace reads.  --inflight N holds each object ours admits, and keeps each
 * staged one DIRTY, for the next N requests (an ingest or upload in flight:
 * sim.h).  TRACE "-" reads stdin.  See Documentation/policy.md.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gen.h"
#include "sim.h"
#include "capacity.h"

static const char *const sim_class_names[SIM_CLASSES] = {
	"model", "data", "ckpt", "other",
};

static const struct sim_ops *const sim_policies[] = {
	&sim_tinylfu_ops, &sim_lru_ops, &sim_arc_ops, &sim_gdsf_ops,
	&sim_gdsfb_ops, &sim_oracle_ops, &sim_oracle_cold_ops,
};

#define SIM_NR_POLICIES	(sizeof(sim_policies) / sizeof(sim_policies[0]))

u32 sim_inflight;

static void die(const char *msg)
{
	fprintf(stderr, "hcsim: %s\n", msg);
	exit(1);
}

/* ---- trace loading ------------------------------------------------------ */

struct intern {
	u32 *slot;		/* id + 1, 0 = empty */
	u64 mask;
};

static u32 trace_intern(struct sim_trace *t, struct intern *h, u64 *cap,
			u64 key, u64 size, u32 weight)
{
	u64 i;

	if (2 * (u64)t->nr_objs >= h->mask) {
		struct intern n = { .mask = 2 * h->mask + 1 };
		u32 j;

		n.slot = sim_xcalloc(n.mask + 1, sizeof(*n.slot));
		for (j = 0; j < t->nr_objs; j++) {
			i = hc_sketch_mix(t->objs[j].key, 0x5bd1e995) & n.mask;
			while (n.slot[i])
				i = (i + 1) & n.mask;
			n.slot[i] = j + 1;
		}
		free(h->slot);
		*h = n;
	}
	i = hc_sketch_mix(key, 0x5bd1e995) & h->mask;
	for (; h->slot[i]; i = (i + 1) & h->mask)
		if (t->objs[h->slot[i] - 1].key == key)
			return h->slot[i] - 1;
	if (t->nr_objs == *cap) {
		*cap = *cap ? 2 * *cap : 1024;
		t->objs = realloc(t->objs, *cap * sizeof(*t->objs));
		if (!t->objs)
			die("out of memory");
	}
	t->objs[t->nr_objs] = (struct sim_objinfo){ key, size, weight };
	h->slot[i] = ++t->nr_objs;
	return t->nr_objs - 1;
}

static void trace_push(struct sim_trace *t, u64 *cap, u32 id, bool write,
		       u8 class)
{
	if (t->nr_reqs == *cap) {
		*cap = *cap ? 2 * *cap : 4096;
		t->reqs = realloc(t->reqs, *cap * sizeof(*t->reqs));
		if (!t->reqs)
			die("out of memory");
	}
	t->reqs[t->nr_reqs++] = (struct sim_req){ id, write, class, 0 };
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

static u8 key_class(const char *k)
{
	u8 c;

	for (c = 0; c < SIM_CLASSES - 1; c++) {
		size_t n = strlen(sim_class_names[c]);

		if (!strncmp(k, sim_class_names[c], n) && k[n] == '/')
			return c;
	}
	return SIM_CLASSES - 1;
}

static void trace_load(struct sim_trace *t, const char *path, bool arc,
		       u64 unit)
{
	struct intern h = { .mask = 1023 };
	u64 ocap = 0, rcap = 0, lineno = 0, i, data_max = 0;
	u64 *reads;
	char line[4096];
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;

	if (!f) {
		perror(path);
		exit(1);
	}
	h.slot = sim_xcalloc(h.mask + 1, sizeof(*h.slot));
	memset(t, 0, sizeof(*t));
	while (fgets(line, sizeof(line), f)) {
		char k[4096], op[8];
		unsigned long long a, b;
		int n;

		lineno++;
		if (arc) {
			if (sscanf(line, "%llu %llu", &a, &b) != 2)
				continue;
			for (u64 j = 0; j < b; j++)
				trace_push(t, &rcap, trace_intern(t, &h, &ocap,
					   a + j, unit, 1), false,
					   SIM_CLASSES - 1);
			continue;
		}
		n = sscanf(line, "%4095s %llu %7s", k, &b, op);
		if (n < 2 || k[0] == '#')
			continue;
		if (n == 3 && strcmp(op, "w")) {
			fprintf(stderr, "hcsim: %s:%llu: third field is \"w\" or nothing\n",
				path, (unsigned long long)lineno);
			exit(1);
		}
		a = (b + unit - 1) / unit;
		if (a > UINT32_MAX)
			die("object too large");
		trace_push(t, &rcap, trace_intern(t, &h, &ocap, parse_key(k), b,
			   a ? (u32)a : 1), n == 3, key_class(k));
	}
	if (f != stdin)
		fclose(f);
	free(h.slot);
	reads = sim_xcalloc(t->nr_objs, sizeof(*reads));
	for (i = 0; i < t->nr_reqs; i++) {
		const struct sim_req *q = &t->reqs[i];

		if (q->write)
			continue;
		if (!reads[q->id]++)
			t->distinct_units += t->objs[q->id].weight;
		if (q->class == 1 && reads[q->id] > data_max)
			data_max = reads[q->id];
	}
	for (i = 0; i < t->nr_reqs; i++)
		t->reqs[i].hot = t->reqs[i].class == 0 &&
				 reads[t->reqs[i].id] > data_max;
	free(reads);
}

/* ---- simulation --------------------------------------------------------- */

struct result {
	u64 reqs, hits, bytes, bytes_hit;
	u64 cbytes[SIM_CLASSES], cbytes_hit[SIM_CLASSES];
	u64 hot_bytes, hot_bytes_hit;
};

static void run(const struct sim_ops *ops, const struct sim_trace *t,
		u64 capacity, struct result *r)
{
	void *st = ops->create(t, capacity);
	u64 i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < t->nr_reqs; i++) {
		const struct sim_req *q = &t->reqs[i];
		u64 size = t->objs[q->id].size;

		if (q->write) {
			ops->write(st, q->id);
			continue;
		}
		r->reqs++;
		r->bytes += size;
		r->cbytes[q->class] += size;
		r->hot_bytes += q->hot ? size : 0;
		if (ops->read(st, q->id)) {
			r->hits++;
			r->bytes_hit += size;
			r->cbytes_hit[q->class] += size;
			r->hot_bytes_hit += q->hot ? size : 0;
		}
	}
	ops->destroy(st);
}

static double pct(u64 a, u64 b)
{
	return b ? 100.0 * a / b : 0.0;
}

static int simulate(const char *trace, bool arc, u64 unit, u64 capacity,
		    double fraction, const char *policies, bool classes)
{
	struct sim_trace t;
	struct result r;
	size_t i;
	int c;

	trace_load(&t, trace, arc, unit);
	if (fraction > 0)
		capacity = (u64)(fraction * t.distinct_units);
	if (!capacity)
		die("capacity is less than one unit");
	printf("# trace %s: %llu requests, %u objects, %llu distinct units read; unit %llu bytes\n",
	       trace, (unsigned long long)t.nr_reqs, t.nr_objs,
	       (unsigned long long)t.distinct_units, (unsigned long long)unit);
	printf("# capacity %llu units (%.1f MiB, %.3f of distinct)\n",
	       (unsigned long long)capacity, capacity * (double)unit / (1 << 20),
	       t.distinct_units ? (double)capacity / t.distinct_units : 0.0);
	printf("%-11s %12s %12s %8s %8s", "policy", "requests", "hits", "hit%",
	       "bytes%");
	if (classes) {
		for (c = 0; c < SIM_CLASSES; c++)
			printf(" %7s%%", sim_class_names[c]);
		printf(" %7s%%", "hot");
	}
	printf("\n");
	for (i = 0; i < SIM_NR_POLICIES; i++) {
		const struct sim_ops *ops = sim_policies[i];

		if (policies && !strstr(policies, ops->name))
			continue;
		run(ops, &t, capacity, &r);
		printf("%-11s %12llu %12llu %8.2f %8.2f", ops->name,
		       (unsigned long long)r.reqs, (unsigned long long)r.hits,
		       pct(r.hits, r.reqs), pct(r.bytes_hit, r.bytes));
		if (classes) {
			for (c = 0; c < SIM_CLASSES; c++)
				printf(" %8.2f", pct(r.cbytes_hit[c], r.cbytes[c]));
			printf(" %8.2f", pct(r.hot_bytes_hit, r.hot_bytes));
		}
		printf("\n");
	}
	free(t.reqs);
	free(t.objs);
	return 0;
}

/* ---- command line ------------------------------------------------------- */

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
		*bytes = shift;
	return v << shift;
}

/* --set NAME=VALUE for the AI generator's parameters (gen.h). */
static void gen_set(struct gen_ai *g, const char *kv)
{
	static const struct {
		const char *name;
		size_t off;
		bool wide;
	} keys[] = {
#define K32(n)	{ #n, offsetof(struct gen_ai, n), false }
#define K64(n)	{ #n, offsetof(struct gen_ai, n), true }
		K64(steps), K32(models), K64(model_min_mib), K64(model_max_mib),
		K32(alpha_x100), K32(jobs_per_kstep), K32(shards),
		K64(shard_mib), K32(shards_per_step), K32(ckpt_every),
		K64(ckpt_mib), K32(restores_per_kstep), K32(drift_every),
#undef K32
#undef K64
	};
	const char *eq = strchr(kv, '=');
	size_t i;

	for (i = 0; eq && i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strlen(keys[i].name) != (size_t)(eq - kv) ||
		    strncmp(keys[i].name, kv, eq - kv))
			continue;
		if (keys[i].wide)
			*(u64 *)((char *)g + keys[i].off) = strtoull(eq + 1, NULL, 0);
		else
			*(u32 *)((char *)g + keys[i].off) = strtoul(eq + 1, NULL, 0);
		return;
	}
	fprintf(stderr, "hcsim: --set %s: unknown parameter (see gen.h)\n", kv);
	exit(2);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: hcsim [--format arc|kv] [--unit BYTES] [--policies LIST] [--classes]\n"
		"             [--inflight N] (--capacity N[K|M|G|T] | --fraction F) TRACE\n"
		"       hcsim --gen zipf --objects N --requests M [--alpha A] [--scan K]\n"
		"             [--seed S] [--max-chunks C] [--unit BYTES]\n"
		"       hcsim --gen ai|inference|training [--seed S] [--set NAME=VALUE]...\n"
		"A capacity with a suffix is bytes, without one units; TRACE - is stdin.\n");
	exit(2);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "capacity"))
		return sim_capacity_main(argc - 1, argv + 1);
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "unit", required_argument, NULL, 'u' },
		{ "capacity", required_argument, NULL, 'c' },
		{ "fraction", required_argument, NULL, 'F' },
		{ "policies", required_argument, NULL, 'P' },
		{ "classes", no_argument, NULL, 'C' },
		{ "inflight", required_argument, NULL, 'i' },
		{ "gen", required_argument, NULL, 'g' },
		{ "objects", required_argument, NULL, 'o' },
		{ "requests", required_argument, NULL, 'r' },
		{ "alpha", required_argument, NULL, 'a' },
		{ "scan", required_argument, NULL, 's' },
		{ "seed", required_argument, NULL, 'S' },
		{ "set", required_argument, NULL, 'x' },
		{ "max-chunks", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *format = "kv", *gen = NULL, *cap_arg = NULL, *policies = NULL;
	u64 unit = 0, objects = 0, requests = 0, scan = 0, seed = 1, chunks = 1;
	u64 capacity = 0;
	double alpha = 0.9, fraction = 0;
	struct gen_ai g = { 0 };
	const char *sets[32];
	bool cap_bytes, classes = false;
	int o, nsets = 0;

	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'f': format = optarg; break;
		case 'u': unit = parse_size(optarg, NULL); break;
		case 'c': cap_arg = optarg; break;
		case 'F': fraction = atof(optarg); break;
		case 'P': policies = optarg; break;
		case 'C': classes = true; break;
		case 'i': {
			char *end;
			unsigned long v = strtoul(optarg, &end, 10);

			if (*end || end == optarg || v > 1000000)
				die("--inflight needs a number of requests, 0..1000000");
			sim_inflight = v;
			break;
		}
		case 'g': gen = optarg; break;
		case 'o': objects = parse_size(optarg, NULL); break;
		case 'r': requests = parse_size(optarg, NULL); break;
		case 'a': alpha = atof(optarg); break;
		case 's': scan = parse_size(optarg, NULL); break;
		case 'S': seed = strtoull(optarg, NULL, 0); break;
		case 'x':
			if (nsets == 32)
				die("at most 32 --set");
			sets[nsets++] = optarg;
			break;
		case 'm': chunks = strtoull(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (strcmp(format, "arc") && strcmp(format, "kv"))
		usage();
	if (!unit)
		unit = !strcmp(format, "arc") ? 512 : 4ULL << 20;
	if (gen) {
		if (optind != argc)
			usage();
		if (!strcmp(gen, "zipf")) {
			if (!objects || !requests || !chunks)
				usage();
			return gen_zipf(stdout, objects, requests, alpha, scan,
					seed, chunks, unit) ? 1 : 0;
		}
		if (!strcmp(gen, "ai"))
			g.node = GEN_NODE_MIXED;
		else if (!strcmp(gen, "inference"))
			g.node = GEN_NODE_INFERENCE;
		else if (!strcmp(gen, "training"))
			g.node = GEN_NODE_TRAINING;
		else
			usage();
		gen_ai_defaults(&g);
		g.seed = seed;
		for (o = 0; o < nsets; o++)
			gen_set(&g, sets[o]);
		if (gen_ai(stdout, &g)) {
			fprintf(stderr, "hcsim: --gen %s: parameters out of range\n", gen);
			return 2;
		}
		return 0;
	}
	if ((!cap_arg == !(fraction > 0)) || optind != argc - 1)
		usage();
	if (cap_arg) {
		capacity = parse_size(cap_arg, &cap_bytes);
		if (cap_bytes)
			capacity /= unit;
	}
	return simulate(argv[optind], !strcmp(format, "arc"), unit, capacity,
			fraction, policies, classes);
}
