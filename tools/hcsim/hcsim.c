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
 * sim.h).  TRACE "-" reads stdin.  A trace line or an option value that
 * cannot be read ends the run with its place and reason (parse.h): exit
 * status 1 for a trace, 2 for usage.  See Documentation/policy.md.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "gen.h"
#include "sim.h"
#include "capacity.h"
#include "parse.h"

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

/* A trace line that cannot be read: name the file, the line and why. */
static void __attribute__((format(printf, 3, 4), noreturn))
trace_fail(const char *path, u64 lineno, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "hcsim: %s:%llu: ", path, (unsigned long long)lineno);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* Split @line at blanks into at most @max fields; returns how many (@max + 1: more). */
static int trace_fields(char *line, char **field, int max)
{
	char *save, *tok;
	int n = 0;

	for (tok = strtok_r(line, " \t\r\n", &save); tok;
	     tok = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == max)
			return max + 1;
		field[n++] = tok;
	}
	return n;
}

/* One kv line: "key size_in_bytes [w]". */
static void trace_kv_line(struct sim_trace *t, struct intern *h, u64 *ocap,
			  u64 *rcap, u64 unit, char **fl, int n,
			  const char *path, u64 lineno)
{
	u64 size, weight;

	if (n == 1)
		trace_fail(path, lineno, "key \"%s\" has no size (kv lines are \"key size_in_bytes [w]\")",
			   fl[0]);
	if (n > 3)
		trace_fail(path, lineno, "more than three fields (kv lines are \"key size_in_bytes [w]\")");
	if (n == 3 && strcmp(fl[2], "w"))
		trace_fail(path, lineno, "third field \"%s\" of key \"%s\" is not \"w\" (a write) or nothing",
			   fl[2], fl[0]);
	if (!sim_parse_u64(fl[1], UINT64_MAX, &size))
		trace_fail(path, lineno, "size \"%s\" of key \"%s\" is not a number of bytes",
			   fl[1], fl[0]);
	weight = size / unit + !!(size % unit);
	if (weight > UINT32_MAX)
		trace_fail(path, lineno, "key \"%s\": %llu bytes is more than 2^32 units of %llu bytes",
			   fl[0], (unsigned long long)size,
			   (unsigned long long)unit);
	trace_push(t, rcap, trace_intern(t, h, ocap, parse_key(fl[0]), size,
		   weight ? (u32)weight : 1), n == 3, key_class(fl[0]));
}

/* Blocks one request of an arc trace may read (the traces read: 1-512). */
#define TRACE_ARC_COUNT_MAX	(1ULL << 24)

/* One arc line: "start_block count ignored request_no" (the last two optional). */
static void trace_arc_line(struct sim_trace *t, struct intern *h, u64 *ocap,
			   u64 *rcap, u64 unit, char **fl, int n,
			   const char *path, u64 lineno)
{
	u64 start, count, j;

	if (n < 2)
		trace_fail(path, lineno, "\"%s\" has no block count (arc lines are \"start_block count ignored request_no\")",
			   fl[0]);
	if (n > 4)
		trace_fail(path, lineno, "more than four fields (arc lines are \"start_block count ignored request_no\")");
	if (!sim_parse_u64(fl[0], UINT64_MAX, &start))
		trace_fail(path, lineno, "start block \"%s\" is not a block number", fl[0]);
	if (!sim_parse_u64(fl[1], TRACE_ARC_COUNT_MAX, &count) || !count)
		trace_fail(path, lineno, "block count \"%s\" is not a number of blocks, 1..%llu",
			   fl[1], TRACE_ARC_COUNT_MAX);
	if (start > UINT64_MAX - (count - 1))
		trace_fail(path, lineno, "blocks %s + %s run past block 2^64 - 1", fl[0], fl[1]);
	for (j = 0; j < count; j++)
		trace_push(t, rcap, trace_intern(t, h, ocap, start + j, unit, 1),
			   false, SIM_CLASSES - 1);
}

/*
 * Load a trace whole.  Blank lines and lines whose first field starts with
 * '#' are skipped; any other line that is not of the format ends hcsim
 * with its file, line number and reason (exit status 1): a trace read in
 * part would give ratios of some other trace.
 */
static void trace_load(struct sim_trace *t, const char *path, bool arc,
		       u64 unit)
{
	struct intern h = { .mask = 1023 };
	u64 ocap = 0, rcap = 0, lineno = 0, i, data_max = 0;
	u64 *reads;
	char *line = NULL;
	size_t len = 0;
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;

	if (!f) {
		fprintf(stderr, "hcsim: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	h.slot = sim_xcalloc(h.mask + 1, sizeof(*h.slot));
	memset(t, 0, sizeof(*t));
	errno = 0;
	while (getline(&line, &len, f) != -1) {
		char *fl[4];
		int n;

		lineno++;
		n = trace_fields(line, fl, 4);
		if (!n || fl[0][0] == '#')
			continue;
		if (arc)
			trace_arc_line(t, &h, &ocap, &rcap, unit, fl, n, path,
				       lineno);
		else
			trace_kv_line(t, &h, &ocap, &rcap, unit, fl, n, path,
				      lineno);
	}
	if (ferror(f)) {
		fprintf(stderr, "hcsim: %s: read error after line %llu: %s\n",
			path, (unsigned long long)lineno, strerror(errno));
		exit(1);
	}
	free(line);
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

/* The policies' names, each after a blank. */
static void print_policies(FILE *f)
{
	size_t i;

	for (i = 0; i < SIM_NR_POLICIES; i++)
		fprintf(f, " %s", sim_policies[i]->name);
}

/*
 * --policies: names from sim_policies[] separated by commas, each once,
 * case-insensitive, run in the order given; NULL: all.  Fills @run with
 * indexes into sim_policies[]; returns how many, or exits 2 naming the
 * first unknown or repeated name and the known ones.
 */
static size_t select_policies(const char *list, size_t *run)
{
	char *copy, *save, *name;
	size_t i, n = 0;

	if (!list) {
		for (i = 0; i < SIM_NR_POLICIES; i++)
			run[n++] = i;
		return n;
	}
	copy = strdup(list);
	if (!copy)
		die("out of memory");
	for (name = strtok_r(copy, ",", &save); name;
	     name = strtok_r(NULL, ",", &save)) {
		size_t j;

		for (i = 0; i < SIM_NR_POLICIES; i++)
			if (!strcasecmp(name, sim_policies[i]->name))
				break;
		for (j = 0; j < n && i < SIM_NR_POLICIES; j++)
			if (run[j] == i)
				sim_usage_error("--policies: %s is named twice",
						sim_policies[i]->name);
		if (i == SIM_NR_POLICIES) {
			fprintf(stderr, "hcsim: --policies: unknown policy \"%s\"; the policies are", name);
			print_policies(stderr);
			fputc('\n', stderr);
			exit(2);
		}
		run[n++] = i;
	}
	free(copy);
	if (!n)
		sim_usage_error("--policies: \"%s\" names no policy", list);
	return n;
}

static int simulate(const char *trace, bool arc, u64 unit, u64 capacity,
		    double fraction, const char *policies, bool classes)
{
	size_t run_idx[SIM_NR_POLICIES], nr_run, i;
	struct sim_trace t;
	struct result r;
	int c;

	nr_run = select_policies(policies, run_idx);
	trace_load(&t, trace, arc, unit);
	if (!t.distinct_units) {
		fprintf(stderr, "hcsim: %s: no read request: no hit ratio to measure\n",
			trace);
		exit(1);
	}
	if (fraction > 0)
		capacity = (u64)(fraction * t.distinct_units);
	if (!capacity)
		die("capacity is less than one unit (--fraction of a trace this small)");
	if (capacity > SIM_CAPACITY_MAX)
		die("capacity is more than 2^40 units");
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
	for (i = 0; i < nr_run; i++) {
		const struct sim_ops *ops = sim_policies[run_idx[i]];

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

/* --set NAME=VALUE for the AI generator's parameters (gen.h), or exit 2. */
static void gen_set(struct gen_ai *g, const char *kv)
{
	const char *eq = strchr(kv, '=');
	char name[64];
	u64 max = 0;
	int err = -ENOENT;

	if (eq && (size_t)(eq - kv) < sizeof(name)) {
		memcpy(name, kv, eq - kv);
		name[eq - kv] = '\0';
		err = gen_ai_set(g, name, eq + 1, &max);
	}
	if (err == -EINVAL)
		sim_usage_error("--set %s: the value of %s is a whole number in 0..%llu",
				kv, name, (unsigned long long)max);
	if (err) {
		fprintf(stderr, "hcsim: --set %s: not NAME=VALUE with a NAME of ", kv);
		gen_ai_print_params(stderr, " ");
		fprintf(stderr, "(Documentation/policy.md)\n");
		exit(2);
	}
}

/* --help: to stdout, exit 0; a usage error: to stderr, exit 2. */
static void __attribute__((noreturn)) usage(bool help)
{
	fprintf(help ? stdout : stderr,
		"usage: hcsim [--format arc|kv] [--unit BYTES] [--policies LIST] [--classes]\n"
		"             [--inflight N] (--capacity N[K|M|G|T] | --fraction F) TRACE\n"
		"       hcsim --gen zipf --objects N --requests M [--alpha A] [--scan K]\n"
		"             [--seed S] [--max-chunks C] [--unit BYTES]\n"
		"       hcsim --gen ai|inference|training [--seed S] [--set NAME=VALUE]...\n"
		"       hcsim capacity --workload model|dataset|demo|mixed --pool-gib G ...\n"
		"A capacity with a suffix is bytes, without one units; TRACE - is stdin.\n"
		"LIST: policies separated by commas, of:");
	print_policies(help ? stdout : stderr);
	fprintf(help ? stdout : stderr,
		".\nExit status: 0, 1 (a trace or file that cannot be read), 2 (usage).\n"
		"See Documentation/policy.md, \"The simulator\".\n");
	exit(help ? 0 : 2);
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
		case 'u':
			unit = sim_opt_size("--unit", optarg, NULL);
			if (unit > SIM_UNIT_MAX)
				sim_usage_error("--unit: \"%s\" is more than 2^40 bytes",
						optarg);
			break;
		case 'c': cap_arg = optarg; break;
		case 'F':
			fraction = sim_opt_double("--fraction", optarg, 0, 1e6);
			if (!(fraction > 0))
				sim_usage_error("--fraction: \"%s\" is not above 0",
						optarg);
			break;
		case 'P': policies = optarg; break;
		case 'C': classes = true; break;
		case 'i':
			sim_inflight = sim_opt_u64("--inflight", optarg, 0,
						   1000000);
			break;
		case 'g': gen = optarg; break;
		case 'o': objects = sim_opt_size("--objects", optarg, NULL); break;
		case 'r': requests = sim_opt_size("--requests", optarg, NULL); break;
		case 'a': alpha = sim_opt_double("--alpha", optarg, 0, 10); break;
		case 's': scan = sim_opt_u64("--scan", optarg, 0, GEN_ZIPF_MAX); break;
		case 'S': seed = sim_opt_u64("--seed", optarg, 0, UINT64_MAX); break;
		case 'x':
			if (nsets == 32)
				die("at most 32 --set");
			sets[nsets++] = optarg;
			break;
		case 'm':
			chunks = sim_opt_u64("--max-chunks", optarg, 1, UINT32_MAX);
			break;
		case 'h': usage(true);
		default: usage(false);
		}
	}
	if (strcmp(format, "arc") && strcmp(format, "kv"))
		sim_usage_error("--format: \"%s\" is arc or kv", format);
	if (!unit)
		unit = !strcmp(format, "arc") ? 512 : 4ULL << 20;
	if (gen) {
		if (optind != argc)
			usage(false);
		if (!strcmp(gen, "zipf")) {
			if (!objects || !requests)
				sim_usage_error("--gen zipf needs --objects N and --requests M");
			if (objects > GEN_ZIPF_MAX)
				sim_usage_error("--objects: at most %llu",
						GEN_ZIPF_MAX);
			if (chunks > UINT64_MAX / 2 / unit)
				sim_usage_error("--max-chunks %llu of --unit %llu bytes: objects of 2^63 bytes or more",
						(unsigned long long)chunks,
						(unsigned long long)unit);
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
			sim_usage_error("--gen: \"%s\" is zipf, ai, inference or training",
					gen);
		gen_ai_defaults(&g);
		g.seed = seed;
		for (o = 0; o < nsets; o++)
			gen_set(&g, sets[o]);
		if (gen_ai_invalid(&g))
			sim_usage_error("--gen %s: %s", gen, gen_ai_invalid(&g));
		if (gen_ai(stdout, &g)) {
			fprintf(stderr, "hcsim: --gen %s: out of memory\n", gen);
			return 1;
		}
		return 0;
	}
	if (!cap_arg == !(fraction > 0))
		sim_usage_error("give the cache's size: --capacity or --fraction, one of them");
	if (optind != argc - 1)
		sim_usage_error("give one TRACE (a file, or - for stdin), after the options");
	if (cap_arg) {
		capacity = sim_opt_size("--capacity", cap_arg, &cap_bytes);
		if (cap_bytes)
			capacity /= unit;
		if (!capacity)
			sim_usage_error("--capacity: %s is less than one unit of %llu bytes",
					cap_arg, (unsigned long long)unit);
	}
	return simulate(argv[optind], !strcmp(format, "arc"), unit, capacity,
			fraction, policies, classes);
}
