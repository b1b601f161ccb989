/* SPDX-License-Identifier: GPL-2.0 */
/*
 * numatopo: where a pool's bytes live, for hypercached's NUMA placement
 * (helper/place.c moves threads and buffers; Documentation/hypercached.rst,
 * "NUMA placement").
 *
 * The node of a device is read from sysfs under a root (SYSFS, "/sys" but
 * for the tests): SYSFS/class/CLASS/NAME is resolved to its directory under
 * SYSFS/devices and the first of it and its ancestors with a numa_node
 * file saying a node (0 or more) gives it; -1 (absent, "-1", unreadable,
 * a virtual device) means no preference.  So a whole NVMe namespace
 * (nvme0n1 -> its controller nvme0 -> the PCI function), a partition (its
 * disk first), a SCSI or virtio disk (their PCI parent) and a NIC are all
 * found by the one rule.
 *
 * A map holds the node of each member in stripe order; chunk v of the
 * pool lives on member v % member_count (uapi/hypercache_format.h), so a
 * part of an object (object bytes [off, off + len) in its extents) is cut
 * into runs of bytes that sit on one node each.
 *
 * Nothing here allocates or keeps state; reentrant.
 */
#ifndef HC_NUMATOPO_H
#define HC_NUMATOPO_H

#include <stddef.h>
#include <stdint.h>
#include "hypercache.h"
#include "hypercache_format.h"

#define HC_NUMA_NODE_MAX	1023	/* nodes above are "no preference" */

/*
 * hc_numa_sysfs_node() - the node of SYSFS/class/@cls/@name (@cls "block"
 * or "net"), or -1.  A @name with '/' or starting with '.' is -1.
 */
int hc_numa_sysfs_node(const char *sysfs, const char *cls, const char *name);

/*
 * hc_numa_default_if() - the interface of the IPv4 default route in
 * @route, the text of /proc/net/route (the first up default route of the
 * lowest metric), into @ifname (@len bytes).  Returns 0, -ENOENT if there
 * is none, -EINVAL if @route is not such a table, -ENAMETOOLONG.
 */
int hc_numa_default_if(const char *route, char *ifname, size_t len);

struct hc_numa_map {
	uint32_t chunk_size;			/* bytes, a power of two */
	uint32_t member_count;			/* 1..HC_MAX_MEMBERS */
	int16_t node[HC_MAX_MEMBERS];		/* per member, -1: none */
};

/* One run of a part: @len bytes at @off in the part's buffer, on @node. */
struct hc_numa_run {
	uint64_t off;
	uint64_t len;
	int node;
};

/*
 * hc_numa_runs() - cut object bytes [@off, @off + @len) of an object in
 * extents @ext (byte offsets in the pool's device, chunk-aligned) into
 * runs on one node each (neighbours on the same node merged), at most
 * @max of them, in @runs.  Returns how many, or -EINVAL (a malformed map,
 * the bytes not inside the extents), -ENOSPC (more than @max runs).
 */
int hc_numa_runs(const struct hc_numa_map *m, const struct hc_extent *ext,
		 uint32_t nr_ext, uint64_t off, uint64_t len,
		 struct hc_numa_run *runs, unsigned int max);

/*
 * hc_numa_major() - the node that holds most bytes of @runs (a tie: the
 * one met first), not counting runs without a node; -1 if none has one.
 */
int hc_numa_major(const struct hc_numa_run *runs, unsigned int n);

#endif /* HC_NUMATOPO_H */
