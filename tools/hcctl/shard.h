/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hcctl - central-controller sharding of a listed dataset: the items are
 * sorted by key, item i belongs to node i mod N.  Pure (no I/O, no global
 * state): the environment is an argument, so the unit tests pass arrays.
 *
 * This node's index I and the node count N come from the first source
 * whose index is set:
 *
 *   source      index                  count
 *   options     --node-index           --node-count, else HC_NODE_COUNT
 *   Slurm       SLURM_NODEID           --node-count, else SLURM_NNODES
 *   torchrun    RANK                   --node-count, else WORLD_SIZE
 *   Kubernetes  JOB_COMPLETION_INDEX   --node-count, else HC_NODE_COUNT
 *
 * An empty variable counts as unset.  Values are plain decimal (no sign,
 * no spaces, no 0x); N is 1..HC_SHARD_MAX_NODES and I < N.  A bad value
 * is refused with a message naming the option or variable it came from.
 */
#ifndef HCCTL_SHARD_H
#define HCCTL_SHARD_H

#include <stdbool.h>
#include <stddef.h>

#define HC_SHARD_MAX_NODES	1000000U

struct hcctl_shard {
	unsigned int count;		/* N */
	unsigned int index;		/* I, < N */
	const char *index_src;		/* "--node-index", "SLURM_NODEID", ... */
	const char *count_src;		/* "--node-count", "SLURM_NNODES", ... */
};

/*
 * hcctl_shard_resolve() - N and I from the options (@opt_count, @opt_index:
 * the option arguments, or NULL when not given) and @envp (NULL-terminated
 * "NAME=value" strings; may be NULL).  Returns 0, or -EINVAL with a message
 * in @err (may be NULL; truncated to @errlen).
 */
int hcctl_shard_resolve(const char *opt_count, const char *opt_index,
		     char *const envp[], struct hcctl_shard *out,
		     char *err, size_t errlen);

/* hcctl_shard_mine() - whether item @i (of the sorted list) is this node's. */
static inline bool hcctl_shard_mine(const struct hcctl_shard *s, size_t i)
{
	return i % s->count == s->index;
}

/*
 * hcctl_shard_select() - keep this node's items of the sorted array @base of
 * @n items of @size bytes, in order, at its front; returns how many.
 */
size_t hcctl_shard_select(void *base, size_t n, size_t size,
		       const struct hcctl_shard *s);

#endif /* HCCTL_SHARD_H */
