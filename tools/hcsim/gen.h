/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hcsim's workload generators: deterministic per seed (the same parameters
 * and seed give the same trace, byte for byte, on every machine: the only
 * randomness is SplitMix64, and floating point is used only for the Zipf
 * CDF, compared, never printed).  Output is hcsim's kv format, one request
 * per line: "key size_bytes", or "key size_bytes w" for a write (STAGE).
 * See Documentation/policy.md for the workloads.
 */
#ifndef HCSIM_GEN_H
#define HCSIM_GEN_H

#include <stdio.h>
#include "core.h"

enum gen_node {
	GEN_NODE_MIXED,		/* models + dataset epochs + checkpoints */
	GEN_NODE_INFERENCE,	/* models only, popularity drifting */
	GEN_NODE_TRAINING,	/* one model + dataset epochs + checkpoints */
};

/**
 * struct gen_ai - parameters of the AI-node workload (gen_ai_defaults() sets
 *	the node's defaults in the fields that are 0)
 * @node: GEN_NODE_*
 * @seed: seed of every random stream
 * @steps: training steps (the generator's clock)
 * @models: number of models
 * @model_min_mib: smallest model, MiB (all files together)
 * @model_max_mib: largest model, MiB (sizes log-uniform in between)
 * @alpha_x100: Zipf exponent of model popularity, x 100
 * @jobs_per_kstep: model jobs per 1000 steps (each reads its model whole)
 * @shards: dataset shards (~@shard_mib each) in this node's share
 * @shard_mib: shard size, MiB
 * @shards_per_step: shards read per step (an epoch reads all, shuffled)
 * @ckpt_every: steps between two checkpoint writes (0: none)
 * @ckpt_mib: checkpoint size, MiB
 * @restores_per_kstep: checkpoint reads per 1000 steps (newest most likely)
 * @drift_every: steps between two popularity changes (0: none)
 */
struct gen_ai {
	enum gen_node node;
	u64 seed;
	u64 steps;
	u32 models;
	u64 model_min_mib, model_max_mib;
	u32 alpha_x100;
	u32 jobs_per_kstep;
	u32 shards;
	u64 shard_mib;
	u32 shards_per_step;
	u32 ckpt_every;
	u64 ckpt_mib;
	u32 restores_per_kstep;
	u32 drift_every;
};

/* Largest model, shard or checkpoint size (MiB): 16 TiB. */
#define GEN_MIB_MAX	(1ULL << 24)
/* Largest --objects and --scan of the Zipf generator. */
#define GEN_ZIPF_MAX	100000000ULL

void gen_ai_defaults(struct gen_ai *g);
const char *gen_ai_invalid(const struct gen_ai *g);
int gen_ai_set(struct gen_ai *g, const char *name, const char *value, u64 *max);
void gen_ai_print_params(FILE *f, const char *sep);
int gen_ai(FILE *f, const struct gen_ai *g);
int gen_zipf(FILE *f, u64 objects, u64 requests, double alpha, u64 scan,
	     u64 seed, u64 max_chunks, u64 unit);

#endif
