// SPDX-License-Identifier: GPL-2.0
/*
 * numatopo: the node of a device in sysfs, the default route's interface, and
 * a part's bytes cut into runs per node (numatopo.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "numatopo.h"

/* The node in the numa_node file at @path: 0.., or -1. */
static int read_node(const char *path)
{
	char buf[32], *end;
	FILE *f = fopen(path, "re");
	long v;

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || (*end && *end != '\n') || v < 0 ||
	    v > HC_NUMA_NODE_MAX)
		return -1;
	return (int)v;
}

int hc_numa_sysfs_node(const char *sysfs, const char *cls, const char *name)
{
	char path[PATH_MAX], top[PATH_MAX], *dir, *slash;
	size_t ntop;
	int node = -1;

	if (!*name || name[0] == '.' || strchr(name, '/') || strchr(cls, '/'))
		return -1;
	if (snprintf(path, sizeof(path), "%s/class/%s/%s", sysfs, cls, name) >=
	    (int)sizeof(path))
		return -1;
	/* every device directory lives under SYSFS/devices */
	if (snprintf(top, sizeof(top), "%s/devices", sysfs) >= (int)sizeof(top))
		return -1;
	dir = realpath(path, NULL);
	if (!dir)
		return -1;
	{
		char *rtop = realpath(top, NULL);

		if (!rtop) {
			free(dir);
			return -1;
		}
		snprintf(top, sizeof(top), "%s", rtop);
		free(rtop);
	}
	ntop = strlen(top);
	/* up from the device to SYSFS/devices, the first node said wins */
	while (strlen(dir) > ntop && !strncmp(dir, top, ntop) &&
	       dir[ntop] == '/') {
		if (snprintf(path, sizeof(path), "%s/numa_node", dir) <
		    (int)sizeof(path)) {
			node = read_node(path);
			if (node >= 0)
				break;
		}
		slash = strrchr(dir, '/');
		*slash = '\0';
	}
	free(dir);
	return node;
}

int hc_numa_default_if(const char *route, char *ifname, size_t len)
{
	const char *l = route, *nl;
	unsigned long best_metric = ULONG_MAX;
	char best[64] = "";
	bool header = true;

	while (*l) {
		char ifc[64], line[512];
		unsigned long dest, gw, flags, refcnt, use, metric, mask;
		size_t n;

		nl = strchr(l, '\n');
		n = nl ? (size_t)(nl - l) : strlen(l);
		if (n >= sizeof(line))
			return -EINVAL;
		memcpy(line, l, n);
		line[n] = '\0';
		l += n + (nl ? 1 : 0);
		if (header) {
			if (strncmp(line, "Iface", 5))
				return -EINVAL;
			header = false;
			continue;
		}
		if (!*line)
			continue;
		if (sscanf(line, "%63s %lx %lx %lx %lu %lu %lu %lx", ifc, &dest,
			   &gw, &flags, &refcnt, &use, &metric, &mask) != 8)
			return -EINVAL;
		/* RTF_UP, destination and mask 0.0.0.0 */
		if (!(flags & 0x1) || dest || mask)
			continue;
		if (metric < best_metric) {
			best_metric = metric;
			snprintf(best, sizeof(best), "%s", ifc);
		}
	}
	if (header)
		return -EINVAL;
	if (!*best)
		return -ENOENT;
	if (strlen(best) >= len)
		return -ENAMETOOLONG;
	memcpy(ifname, best, strlen(best) + 1);
	return 0;
}

int hc_numa_runs(const struct hc_numa_map *m, const struct hc_extent *ext,
		 uint32_t nr_ext, uint64_t off, uint64_t len,
		 struct hc_numa_run *runs, unsigned int max)
{
	uint64_t base = 0, done = 0;
	unsigned int n = 0;
	uint32_t i;

	if (!m->member_count || m->member_count > HC_MAX_MEMBERS ||
	    !m->chunk_size || (m->chunk_size & (m->chunk_size - 1)))
		return -EINVAL;
	for (i = 0; i < nr_ext && done < len; i++) {
		uint64_t elen = ext[i].length;

		if ((ext[i].offset | elen) & (m->chunk_size - 1))
			return -EINVAL;
		/* this extent holds object bytes [base, base + elen) */
		while (done < len && off + done < base + elen) {
			uint64_t in = off + done - base;
			uint64_t dev = ext[i].offset + in;
			uint64_t chunk = dev / m->chunk_size;
			uint64_t take = m->chunk_size - dev % m->chunk_size;
			int node = m->node[chunk % m->member_count];

			if (take > elen - in)
				take = elen - in;
			if (take > len - done)
				take = len - done;
			if (n && runs[n - 1].node == node) {
				runs[n - 1].len += take;
			} else {
				if (n == max)
					return -ENOSPC;
				runs[n].off = done;
				runs[n].len = take;
				runs[n].node = node;
				n++;
			}
			done += take;
		}
		base += elen;
	}
	if (done < len)
		return -EINVAL;
	return (int)n;
}

int hc_numa_major(const struct hc_numa_run *runs, unsigned int n)
{
	int best = -1;
	uint64_t best_len = 0;
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		uint64_t sum = 0;

		if (runs[i].node < 0)
			continue;
		/* first meeting of this node: its total */
		for (j = 0; j < i; j++)
			if (runs[j].node == runs[i].node)
				break;
		if (j < i)
			continue;
		for (j = i; j < n; j++)
			if (runs[j].node == runs[i].node)
				sum += runs[j].len;
		if (sum > best_len) {
			best_len = sum;
			best = runs[i].node;
		}
	}
	return best;
}
