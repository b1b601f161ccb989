// SPDX-License-Identifier: GPL-2.0
/*
 * hcctl - central-controller sharding: which listed items are this node's,
 * and where N and I come from (shard.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shard.h"
#include "util.h"


/* The value of @name in @envp, NULL if unset or empty. */
static const char *env_get(char *const envp[], const char *name)
{
	size_t len = strlen(name);

	for (; envp && *envp; envp++)
		if (!strncmp(*envp, name, len) && (*envp)[len] == '=')
			return (*envp)[len + 1] ? *envp + len + 1 : NULL;
	return NULL;
}

/* Plain decimal 0..@max into *v; -EINVAL naming @src otherwise. */
static int parse_num(const char *src, const char *s, unsigned long max,
		     unsigned int *v, char *err, size_t errlen)
{
	unsigned long n;
	char *end;

	if (s[0] < '0' || s[0] > '9')
		goto bad;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || *end || n > max)
		goto bad;
	*v = (unsigned int)n;
	return 0;
bad:
	return hc_seterr(err, errlen, -EINVAL, "%s '%.40s': not a number in 0..%lu",
			  src, s, max);
}

struct shard_source {
	const char *index_var;	/* NULL: the --node-index option */
	const char *count_var;	/* used without --node-count */
};

static const struct shard_source sources[] = {
	{ NULL,			  "HC_NODE_COUNT" },
	{ "SLURM_NODEID",	  "SLURM_NNODES" },
	{ "RANK",		  "WORLD_SIZE" },
	{ "JOB_COMPLETION_INDEX", "HC_NODE_COUNT" },
};

int hcctl_shard_resolve(const char *opt_count, const char *opt_index,
		     char *const envp[], struct hcctl_shard *out,
		     char *err, size_t errlen)
{
	const struct shard_source *src = NULL;
	const char *index = NULL, *count;
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < sizeof(sources) / sizeof(sources[0]); i++) {
		index = sources[i].index_var ?
			env_get(envp, sources[i].index_var) : opt_index;
		if (index) {
			src = &sources[i];
			break;
		}
	}
	if (!src)
		return hc_seterr(err, errlen, -EINVAL,
				  "this node's index is not known: give --node-index, or set SLURM_NODEID, RANK or JOB_COMPLETION_INDEX");
	out->index_src = src->index_var ? src->index_var : "--node-index";

	if (opt_count) {
		count = opt_count;
		out->count_src = "--node-count";
	} else {
		count = env_get(envp, src->count_var);
		out->count_src = src->count_var;
		if (!count)
			return hc_seterr(err, errlen, -EINVAL,
					  "the node count is not known: %s is set but %s is not (give --node-count)",
					  out->index_src, src->count_var);
	}

	ret = parse_num(out->count_src, count, HC_SHARD_MAX_NODES, &out->count,
			err, errlen);
	if (ret)
		return ret;
	if (!out->count)
		return hc_seterr(err, errlen, -EINVAL, "%s '0': needs at least 1 node",
				  out->count_src);
	ret = parse_num(out->index_src, index, UINT_MAX, &out->index, err,
			errlen);
	if (ret)
		return ret;
	if (out->index >= out->count)
		return hc_seterr(err, errlen, -EINVAL,
				  "%s %u is not below %s %u (indexes count from 0)",
				  out->index_src, out->index, out->count_src,
				  out->count);
	return 0;
}

size_t hcctl_shard_select(void *base, size_t n, size_t size,
		       const struct hcctl_shard *s)
{
	char *p = base;
	size_t i, kept = 0;

	for (i = 0; i < n; i++) {
		if (!hcctl_shard_mine(s, i))
			continue;
		if (kept != i)
			memcpy(p + kept * size, p + i * size, size);
		kept++;
	}
	return kept;
}
