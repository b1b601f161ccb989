/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hcsim's trace and the interface every simulated policy implements.
 *
 * A trace is loaded whole before any policy runs: each request names an
 * object by a dense id (0..nr_objs - 1, interned at load), so a policy keeps
 * its per-object state in an array indexed by id and needs no index of its
 * own.  Sizes are bytes; weights are chunks (ceil(size / unit), >= 1).
 * A write (STAGE: the application creates the object in the cache) is not
 * a request for the hit ratios; a policy must hold the object afterwards
 * if it fits, without an admission duel, as the module does.
 */
#ifndef HCSIM_SIM_H
#define HCSIM_SIM_H

#include "policy.h"

#define SIM_CLASSES	4	/* request classes: see sim_class_names */
#define SIM_UNIT_MAX	(1ULL << 40)	/* largest --unit, bytes */
#define SIM_CAPACITY_MAX (1ULL << 40)	/* largest cache, units (the policy's) */

/*
 * @hot: a model read more often than any dataset object (more bytes per
 * chunk than every shard: what a scan must not displace)
 */
struct sim_req {
	u32 id;
	u8 write;
	u8 class;
	u8 hot;
};

struct sim_objinfo {
	u64 key;	/* 64-bit hash or decimal value of the key */
	u64 size;	/* bytes */
	u32 weight;	/* chunks */
};

struct sim_trace {
	struct sim_req *reqs;
	u64 nr_reqs;
	struct sim_objinfo *objs;
	u32 nr_objs;
	u64 distinct_units;	/* sum of the weights of all objects */
};

/**
 * struct sim_ops - one simulated policy
 * @name: column name in hcsim's tables
 * @create: state for a cache of @capacity units over @t (the oracle reads
 *	    the whole trace here; others only size their arrays)
 * @read: a read of object @id; true on a hit
 * @write: object @id written (staged) into the cache
 * @destroy: free the state
 */
struct sim_ops {
	const char *name;
	void *(*create)(const struct sim_trace *t, u64 capacity);
	bool (*read)(void *st, u32 id);
	void (*write)(void *st, u32 id);
	void (*destroy)(void *st);
};

/*
 * --inflight N: ours holds each object it admits (HC_POLICY_F_HELD) and
 * keeps each one written DIRTY for the next N requests, as the module
 * holds an object for its whole ingest and a staged one until it is
 * uploaded (N: the requests that arrive meanwhile).  0 (the default):
 * an ingest is instant and a STAGE is uploaded at once.  The other
 * policies have no unevictable objects and ignore it.
 */
extern u32 sim_inflight;

extern const struct sim_ops sim_tinylfu_ops, sim_lru_ops, sim_arc_ops,
	sim_gdsf_ops, sim_gdsfb_ops, sim_oracle_ops, sim_oracle_cold_ops;

void *sim_xcalloc(size_t n, size_t size);

/* A doubly-linked list of ids with a weight (used by LRU and ARC). */
struct sim_list {
	u32 head, tail;		/* SIM_NIL when empty */
	u64 weight;
	u64 count;
};

#define SIM_NIL		UINT32_MAX

struct sim_node {
	u32 next, prev;
	u8 list;		/* which list, 0 = none */
};

void sim_list_init(struct sim_list *l);
/* @nodes: the policy's node array, indexed by id. */
void sim_list_push(struct sim_list *l, struct sim_node *nodes, u32 id, u64 w,
		   u8 tag);
void sim_list_del(struct sim_list *l, struct sim_node *nodes, u32 id, u64 w);

#endif
