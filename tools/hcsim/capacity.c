// SPDX-License-Identifier: GPL-2.0
/*
 * hcsim capacity - cached bytes / pool capacity of format v1 (every object
 * in whole chunks, kmod/core/alloc.c) against format v2 (objects below a
 * threshold packed in slab chunks, kmod/core/slab.c), with the module's
 * own allocators.
 *
 *   hcsim capacity --workload model|dataset|demo|mixed --pool-gib G
 *	[--members N] [--threshold BYTES|v1] [--churn R] [--compact]
 *	[--seed S]
 *
 * The pool is filled with the workload's objects (start member crc-like:
 * a hash of the object number) until 32 placements in a row are refused;
 * then, --churn R times, a random 30 % of the objects are deleted and the
 * pool refilled the same way (with --compact, the slab is compacted first:
 * hc_slab_plan() with chunks at most 50 % used as sources).  One line per
 * run: the workload, the format, the threshold, objects, cached bytes, the
 * pool's bytes and their ratio (after the last refill), and the slab's
 * chunks and free blocks.
 *
 * Workloads (sizes in bytes):
 *   model    directories of a 70B-class model in safetensors: 4 shards of
 *	      4.63 GiB and one of 1.1 GiB plus 16 small files (config and
 *	      tokenizer JSON, index, README, LICENSE...: 200 B .. 9.1 MB)
 *   dataset  items of 100 KiB
 *   demo     the demo's 1 MiB shards
 *   mixed    one model directory per 4000 dataset items and 200 shards
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "slab.h"
#include "capacity.h"
#include "parse.h"

#define CAP_CHUNK	HC_CHUNK_SIZE_DEFAULT
#define CAP_MAX_EXT	HC_MAX_EXTENTS

static const u64 cap_model_files[] = {
	4970000000ULL, 4970000000ULL, 4970000000ULL, 4970000000ULL,
	1170000000ULL,				/* model-0000N-of-00005 */
	9085657, 2183982, 55351, 23950,		/* tokenizer.json, .model, _config, index */
	40213, 7627, 4696, 1519, 855, 654,	/* README, LICENSE, USE_POLICY, ... */
	296, 187, 181, 126, 73, 1000,
};

#define CAP_MODEL_FILES	(sizeof(cap_model_files) / sizeof(cap_model_files[0]))

struct cap_obj {
	u64 size;
	bool small;
	bool live;
	u32 nr_ext;
	struct hc_ext ext[CAP_MAX_EXT];
	struct hc_sext sext;
};

struct cap {
	struct hc_alloc a;
	struct hc_slab s;
	u64 threshold;		/* 0: v1 */
	u32 members;
	u64 seq;		/* objects generated */
	const char *workload;
	struct cap_obj *o;
	u64 nr, max;
	u64 cached;
};

static void die(const char *msg)
{
	fprintf(stderr, "hcsim capacity: %s\n", msg);
	exit(2);
}

static u64 cap_next_size(struct cap *c)
{
	u64 i = c->seq++;

	if (!strcmp(c->workload, "model"))
		return cap_model_files[i % CAP_MODEL_FILES];
	if (!strcmp(c->workload, "dataset"))
		return 100 << 10;
	if (!strcmp(c->workload, "demo"))
		return 1 << 20;
	/* mixed: per 4221 objects: a model directory, 4000 items, 200 shards */
	i %= CAP_MODEL_FILES + 4200;
	if (i < CAP_MODEL_FILES)
		return cap_model_files[i];
	return i < CAP_MODEL_FILES + 4000 ? 100 << 10 : 1 << 20;
}

static u32 cap_member(struct cap *c, u64 i)
{
	return (u32)((i * 0x9e3779b97f4a7c15ULL) >> 40) % c->members;
}

/* Place object @o; 0 or -ENOSPC / -E2BIG. */
static int cap_place(struct cap *c, struct cap_obj *o, u64 id)
{
	u64 chunks = (o->size + CAP_CHUNK - 1) / CAP_CHUNK;
	int err;

	o->small = c->threshold && o->size < c->threshold;
	if (o->small)
		return hc_slab_get(&c->s, &c->a, o->size, cap_member(c, id),
				   &o->sext);
	err = hc_alloc_get(&c->a, chunks, cap_member(c, id), o->ext,
			   CAP_MAX_EXT, &o->nr_ext);
	return err;
}

static void cap_drop(struct cap *c, struct cap_obj *o)
{
	if (o->small)
		hc_slab_put(&c->s, &c->a, &o->sext);
	else
		hc_alloc_put(&c->a, o->ext, o->nr_ext);
	o->live = false;
	c->cached -= o->size;
}

static void cap_fill(struct cap *c)
{
	u32 refused = 0;

	while (refused < 32) {
		struct cap_obj *o;

		if (c->nr == c->max) {
			c->max = c->max ? 2 * c->max : 4096;
			c->o = realloc(c->o, c->max * sizeof(*c->o));
			if (!c->o)
				die("out of memory");
		}
		o = &c->o[c->nr];
		o->size = cap_next_size(c);
		if (!o->size)
			continue;
		if (cap_place(c, o, c->nr)) {
			refused++;
			continue;
		}
		refused = 0;
		o->live = true;
		c->cached += o->size;
		c->nr++;
	}
}

/* Compact the slab: every move applied at once (the data is not modelled). */
static u64 cap_compact(struct cap *c)
{
	struct hc_slab_move *mv = calloc(1 << 16, sizeof(*mv));
	u64 i, k, moved = 0;
	int n;

	if (!mv)
		die("out of memory");
	n = hc_slab_plan(&c->s, 50, 1 << 20, mv, 1 << 16);
	for (k = 0; n > 0 && k < (u64)n; k++) {
		for (i = 0; i < c->nr; i++) {
			struct cap_obj *o = &c->o[i];

			if (o->live && o->small &&
			    o->sext.chunk == mv[k].from.chunk &&
			    o->sext.block == mv[k].from.block) {
				o->sext = mv[k].to;
				break;
			}
		}
		hc_slab_put(&c->s, &c->a, &mv[k].from);
		moved++;
	}
	hc_slab_plan_end(&c->s, &c->a);
	free(mv);
	return moved;
}

/* Drop the refused tail and the deleted objects from the table. */
static void cap_pack(struct cap *c)
{
	u64 i, n = 0;

	for (i = 0; i < c->nr; i++)
		if (c->o[i].live)
			c->o[n++] = c->o[i];
	c->nr = n;
}

int sim_capacity_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "workload", required_argument, NULL, 'w' },
		{ "pool-gib", required_argument, NULL, 'p' },
		{ "members", required_argument, NULL, 'm' },
		{ "threshold", required_argument, NULL, 't' },
		{ "churn", required_argument, NULL, 'r' },
		{ "compact", no_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, 's' },
		{ NULL, 0, NULL, 0 }
	};
	struct cap c = { .members = 4, .workload = "dataset" };
	struct hc_slab_stats st;
	u64 pool_gib = 16, nr_chunks, i, moved = 0;
	u32 churn = 0, round, seed = 1;
	bool compact = false;
	u64 *awords, *swords;
	struct hc_slab_chunk *tab;
	int opt;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'w': c.workload = optarg; break;
		case 'p':
			pool_gib = sim_opt_u64("--pool-gib", optarg, 1, 1 << 16);
			break;
		case 'm':
			c.members = sim_opt_u64("--members", optarg, 1,
						HC_MAX_MEMBERS);
			break;
		case 't':
			c.threshold = 0;
			if (strcmp(optarg, "v1") &&
			    (!sim_parse_u64(optarg, CAP_CHUNK, &c.threshold) ||
			     !c.threshold))
				sim_usage_error("--threshold: \"%s\" is v1 or a number of bytes, 1..%llu",
						optarg,
						(unsigned long long)CAP_CHUNK);
			break;
		case 'r':
			churn = sim_opt_u64("--churn", optarg, 0, 1000000);
			break;
		case 'c': compact = true; break;
		case 's':
			seed = sim_opt_u64("--seed", optarg, 0, UINT32_MAX);
			break;
		default: die("usage: see the comment at the top of capacity.c");
		}
	}
	if (strcmp(c.workload, "model") && strcmp(c.workload, "dataset") &&
	    strcmp(c.workload, "demo") && strcmp(c.workload, "mixed"))
		die("--workload must be model, dataset, demo or mixed");
	srand(seed);
	nr_chunks = pool_gib * (SZ_1G / CAP_CHUNK);
	awords = calloc(hc_alloc_words(nr_chunks), sizeof(u64));
	swords = calloc(hc_slab_words(nr_chunks, CAP_CHUNK), sizeof(u64));
	tab = calloc(nr_chunks, sizeof(*tab));
	if (!awords || !swords || !tab)
		die("out of memory");
	if (hc_alloc_init(&c.a, nr_chunks, c.members, awords) ||
	    hc_slab_init(&c.s, CAP_CHUNK, c.members, nr_chunks, tab, swords))
		die("cannot set up the allocators");

	cap_fill(&c);
	for (round = 0; round < churn; round++) {
		for (i = 0; i < c.nr; i++)
			if (c.o[i].live && rand() % 100 < 30)
				cap_drop(&c, &c.o[i]);
		cap_pack(&c);
		if (compact && c.threshold)
			moved += cap_compact(&c);
		cap_fill(&c);
	}
	hc_slab_stats(&c.s, &st);
	printf("workload=%s format=%s threshold=%llu members=%u churn=%u compact=%d objects=%llu cached_bytes=%llu pool_bytes=%llu ratio=%.4f slab_chunks=%llu slab_free_blocks=%llu moves=%llu\n",
	       c.workload, c.threshold ? "v2" : "v1",
	       (unsigned long long)c.threshold, c.members, churn, compact,
	       (unsigned long long)c.nr, (unsigned long long)c.cached,
	       (unsigned long long)(nr_chunks * CAP_CHUNK),
	       (double)c.cached / (double)(nr_chunks * CAP_CHUNK),
	       (unsigned long long)st.chunks,
	       (unsigned long long)st.free_blocks, (unsigned long long)moved);
	free(c.o);
	free(awords);
	free(swords);
	free(tab);
	return 0;
}
