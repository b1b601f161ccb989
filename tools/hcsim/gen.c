// SPDX-License-Identifier: GPL-2.0
/*
 * Workload generators (see gen.h).
 *
 * The AI node: a clock of training steps.  At every step, independently:
 *   - model jobs arrive (@jobs_per_kstep per 1000 steps on average); a job
 *     picks a model by Zipf(@alpha) over its popularity ranks and reads every
 *     file of it whole: a config and a tokenizer file (KiB), then 1-4
 *     weight files sharing the model's size;
 *   - the trainer reads @shards_per_step shards: each epoch reads all of
 *     this node's shards once, in a fresh random order (a scan larger than
 *     the cache);
 *   - every @ckpt_every steps a checkpoint is written (a STAGE: "w");
 *   - restores arrive (@restores_per_kstep per 1000 steps) and read one
 *     checkpoint: the newest with probability 1/2, the one before with 1/4...
 *   - every @drift_every steps a quarter of the models swap popularity
 *     ranks with another at random (changing popularity).
 * Each of these draws from its own random stream, so a trace without the
 * dataset (shards_per_step 0 in the parameters) has the same model jobs:
 * the scan-resistance measurement compares the two.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "gen.h"
#include "parse.h"
#include "sketch.h"

#define MIB		(1ULL << 20)

struct gen_rng {
	u64 s;
};

static void gen_rng_init(struct gen_rng *r, u64 seed, u64 stream)
{
	r->s = hc_sketch_mix(seed, stream);
}

/* SplitMix64. */
static u64 gen_next(struct gen_rng *r)
{
	r->s += 0x9e3779b97f4a7c15ULL;
	return hc_sketch_mix(r->s, 0);
}

/* Uniform in [0, n), n >= 1 (the bias of the modulo is below 2^-40 here). */
static u64 gen_below(struct gen_rng *r, u64 n)
{
	return gen_next(r) % n;
}

/* True with probability @per_k / 1000. */
static bool gen_chance(struct gen_rng *r, u32 per_k)
{
	return gen_below(r, 1000) < per_k;
}

/* Events per step at a rate of @per_k per 1000: whole ones plus a chance. */
static u32 gen_events(struct gen_rng *r, u32 per_k)
{
	return per_k / 1000 + gen_chance(r, per_k % 1000);
}

static void gen_shuffle(struct gen_rng *r, u32 *v, u32 n)
{
	u32 i;

	for (i = n; i > 1; i--) {
		u32 j = gen_below(r, i), t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

struct gen_model {
	u32 files;
	u64 file_bytes;
	u64 config_bytes, tokenizer_bytes;
};

void gen_ai_defaults(struct gen_ai *g)
{
	bool infer = g->node == GEN_NODE_INFERENCE;
	bool train = g->node == GEN_NODE_TRAINING;

	if (!g->seed)
		g->seed = 1;
	if (!g->steps)
		g->steps = 20000;
	if (!g->models)
		g->models = train ? 1 : infer ? 48 : 32;
	if (!g->model_min_mib)
		g->model_min_mib = 1024;
	if (!g->model_max_mib)
		g->model_max_mib = 16384;
	if (!g->alpha_x100)
		g->alpha_x100 = 100;
	if (!g->jobs_per_kstep)
		g->jobs_per_kstep = train ? 10 : infer ? 1000 : 100;
	if (!g->shard_mib)
		g->shard_mib = 128;
	if (!g->shards)
		g->shards = train ? 2048 : 4096;
	if (!g->shards_per_step && !infer)
		g->shards_per_step = 2;
	if (!g->ckpt_every && !infer)
		g->ckpt_every = 500;
	if (!g->ckpt_mib)
		g->ckpt_mib = 4096;
	if (!g->restores_per_kstep && !infer)
		g->restores_per_kstep = 2;
	if (!g->drift_every && infer)
		g->drift_every = 2000;
}

/*
 * The parameters --set may change, each with its range: sizes up to 16 TiB
 * (2^24 MiB: bytes stay far below 2^64), counts and rates up to what a
 * trace of a few billion lines needs.  gen_ai() refuses a struct outside
 * them.
 */
static const struct gen_param {
	const char *name;
	size_t off;
	bool wide;		/* u64, else u32 */
	u64 max;
} gen_params[] = {
#define P32(n, m)	{ #n, offsetof(struct gen_ai, n), false, m }
#define P64(n, m)	{ #n, offsetof(struct gen_ai, n), true, m }
	P64(steps, 1000000000), P32(models, 100000),
	P64(model_min_mib, GEN_MIB_MAX), P64(model_max_mib, GEN_MIB_MAX),
	P32(alpha_x100, 1000), P32(jobs_per_kstep, 1000000),
	P32(shards, 10000000), P64(shard_mib, GEN_MIB_MAX),
	P32(shards_per_step, 1000000), P32(ckpt_every, 1000000000),
	P64(ckpt_mib, GEN_MIB_MAX), P32(restores_per_kstep, 1000000),
	P32(drift_every, 1000000000),
#undef P32
#undef P64
};

#define GEN_NR_PARAMS	(sizeof(gen_params) / sizeof(gen_params[0]))

static u64 gen_param_get(const struct gen_ai *g, const struct gen_param *p)
{
	const char *f = (const char *)g + p->off;

	return p->wide ? *(const u64 *)f : *(const u32 *)f;
}

/**
 * gen_ai_set - set one parameter by name (hcsim --gen ... --set NAME=VALUE)
 * @g: parameters
 * @name: a field of struct gen_ai that --set may change
 * @value: the value: decimal digits, within the parameter's range
 * @max: set to the parameter's largest value when @name is known
 *
 * Return: 0, -ENOENT for an unknown @name, -EINVAL for a bad @value.
 */
int gen_ai_set(struct gen_ai *g, const char *name, const char *value, u64 *max)
{
	size_t i;
	u64 v;

	for (i = 0; i < GEN_NR_PARAMS; i++) {
		const struct gen_param *p = &gen_params[i];
		char *f = (char *)g + p->off;

		if (strcmp(p->name, name))
			continue;
		*max = p->max;
		if (!sim_parse_u64(value, p->max, &v))
			return -EINVAL;
		if (p->wide)
			*(u64 *)f = v;
		else
			*(u32 *)f = v;
		return 0;
	}
	return -ENOENT;
}

/**
 * gen_ai_invalid - why gen_ai() would refuse @g
 * @g: parameters, after gen_ai_defaults()
 *
 * Return: NULL if gen_ai() accepts @g, else the reason (a static string).
 */
const char *gen_ai_invalid(const struct gen_ai *g)
{
	size_t i;

	for (i = 0; i < GEN_NR_PARAMS; i++)
		if (gen_param_get(g, &gen_params[i]) > gen_params[i].max)
			return "a parameter is past its range";
	if (!g->models)
		return "models is 0";
	if (!g->model_min_mib || !g->shard_mib || !g->ckpt_mib)
		return "model_min_mib, shard_mib and ckpt_mib must be at least 1";
	if (g->model_min_mib > g->model_max_mib)
		return "model_min_mib is above model_max_mib";
	if (g->shards_per_step && !g->shards)
		return "shards_per_step without shards (set shards, or shards_per_step=0)";
	return NULL;
}

/* The names gen_ai_set() knows, each followed by @sep. */
void gen_ai_print_params(FILE *f, const char *sep)
{
	size_t i;

	for (i = 0; i < GEN_NR_PARAMS; i++)
		fprintf(f, "%s%s", gen_params[i].name, sep);
}

/*
 * Inverse CDF of Zipf over @n ranks: the rank whose cumulative weight first
 * reaches u x total (u uniform in [0, 1)).
 */
static u32 gen_zipf_rank(const double *cdf, u32 n, struct gen_rng *r)
{
	double u = (double)(gen_next(r) >> 11) / (double)(1ULL << 53) *
		   cdf[n - 1];
	u32 lo = 0, hi = n - 1;

	while (lo < hi) {
		u32 mid = (lo + hi) / 2;

		if (cdf[mid] < u)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void gen_model_read(FILE *f, u32 m, const struct gen_model *md)
{
	u32 i;

	fprintf(f, "model/m%03u/config.json %llu\n", m,
		(unsigned long long)md->config_bytes);
	fprintf(f, "model/m%03u/tokenizer.json %llu\n", m,
		(unsigned long long)md->tokenizer_bytes);
	for (i = 0; i < md->files; i++)
		fprintf(f, "model/m%03u/model-%05u-of-%05u.safetensors %llu\n",
			m, i + 1, md->files, (unsigned long long)md->file_bytes);
}

/**
 * gen_ai - write an AI-node trace
 * @f: output
 * @g: parameters, after gen_ai_defaults()
 *
 * Return: 0, or -EINVAL for parameters out of range, -ENOMEM.
 */
int gen_ai(FILE *f, const struct gen_ai *g)
{
	struct gen_rng rsize, rjob, rdata, rrest, rdrift;
	struct gen_model *md;
	u32 *rank, *order, pos = 0, nckpt = 0, i;
	double *cdf, sum = 0;
	u64 step;
	int err = 0;

	if (gen_ai_invalid(g))
		return -EINVAL;
	md = calloc(g->models, sizeof(*md));
	rank = calloc(g->models, sizeof(*rank));
	cdf = calloc(g->models, sizeof(*cdf));
	order = calloc(g->shards ? g->shards : 1, sizeof(*order));
	if (!md || !rank || !cdf || !order) {
		err = -ENOMEM;
		goto out;
	}
	gen_rng_init(&rsize, g->seed, 1);
	gen_rng_init(&rjob, g->seed, 2);
	gen_rng_init(&rdata, g->seed, 3);
	gen_rng_init(&rrest, g->seed, 4);
	gen_rng_init(&rdrift, g->seed, 5);

	for (i = 0; i < g->models; i++) {
		/* log-uniform size from 1/1024 steps of the log range */
		double lo = log((double)g->model_min_mib);
		double hi = log((double)g->model_max_mib);
		u64 mib = (u64)exp(lo + (hi - lo) * gen_below(&rsize, 1024) / 1023.0);

		md[i].files = 1 + gen_below(&rsize, 4);
		md[i].file_bytes = (mib ? mib : 1) * MIB / md[i].files;
		md[i].config_bytes = 1024 + gen_below(&rsize, 7 * 1024);
		md[i].tokenizer_bytes = 16 * 1024 + gen_below(&rsize, 48 * 1024);
		rank[i] = i;
		cdf[i] = sum += 1.0 / pow((double)(i + 1), g->alpha_x100 / 100.0);
	}
	gen_shuffle(&rsize, rank, g->models);
	for (i = 0; i < g->shards; i++)
		order[i] = i;

	for (step = 0; step < g->steps; step++) {
		u32 n;

		if (g->drift_every && step && step % g->drift_every == 0)
			for (i = 0; i < (g->models + 3) / 4; i++) {
				u32 a = gen_below(&rdrift, g->models);
				u32 b = gen_below(&rdrift, g->models), t = rank[a];

				rank[a] = rank[b];
				rank[b] = t;
			}
		for (n = gen_events(&rjob, g->jobs_per_kstep); n; n--) {
			u32 m = rank[gen_zipf_rank(cdf, g->models, &rjob)];

			gen_model_read(f, m, &md[m]);
		}
		for (n = 0; n < g->shards_per_step; n++) {
			if (pos == 0)
				gen_shuffle(&rdata, order, g->shards);
			fprintf(f, "data/shard-%06u.tar %llu\n", order[pos],
				(unsigned long long)(g->shard_mib * MIB));
			if (++pos == g->shards)
				pos = 0;
		}
		if (g->ckpt_every && step && step % g->ckpt_every == 0) {
			fprintf(f, "ckpt/step-%08llu/state.pt %llu w\n",
				(unsigned long long)step,
				(unsigned long long)(g->ckpt_mib * MIB));
			nckpt++;
		}
		for (n = gen_events(&rrest, g->restores_per_kstep);
		     n && nckpt; n--) {
			u32 back = 0;

			while (back + 1 < nckpt && gen_below(&rrest, 2))
				back++;
			fprintf(f, "ckpt/step-%08llu/state.pt %llu\n",
				(unsigned long long)((nckpt - back) *
						     (u64)g->ckpt_every),
				(unsigned long long)(g->ckpt_mib * MIB));
		}
	}
out:
	free(order);
	free(cdf);
	free(rank);
	free(md);
	return err;
}

/**
 * gen_zipf - the unit-size trace the policy was first checked on: Zipf
 * (@alpha) over @objects ranks, @requests requests, a one-pass scan of @scan
 * new keys after half of them; sizes 1..@max_chunks units by key hash.
 *
 * Return: 0, or -ENOMEM.
 */
int gen_zipf(FILE *f, u64 objects, u64 requests, double alpha, u64 scan,
	     u64 seed, u64 max_chunks, u64 unit)
{
	double *cdf = calloc(objects, sizeof(*cdf)), sum = 0;
	u64 i, r, rng = seed ? seed : 1;

	if (!cdf)
		return -ENOMEM;
	for (i = 0; i < objects; i++)
		cdf[i] = sum += 1.0 / pow((double)(i + 1), alpha);
	for (r = 0; r < requests; r++) {
		u64 lo = 0, hi = objects - 1, key;
		double u;

		if (r == requests / 2)
			for (i = 0; i < scan; i++) {
				key = objects + 1 + i;
				fprintf(f, "%llu %llu\n", (unsigned long long)key,
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
		fprintf(f, "%llu %llu\n", (unsigned long long)key,
			(unsigned long long)((1 + hc_sketch_mix(key, 3) % max_chunks) * unit));
	}
	free(cdf);
	return 0;
}
