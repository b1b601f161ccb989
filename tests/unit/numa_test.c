// SPDX-License-Identifier: GPL-2.0
/*
 * hypercached's NUMA topology (helper/lib/numatopo.c): the node of a block
 * device or NIC in fake sysfs trees (an NVMe namespace under its
 * controller under a PCI function, a partition, a controller that says
 * -1 under a PCI function that says a node, a virtual device, names that
 * would leave class/), the default route's interface in /proc/net/route
 * texts, and a part's bytes cut into per-node runs over extents of a
 * striped pool, with the node holding most of them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kselftest_harness.h"
#include "numatopo.h"

#define MIB (1ULL << 20)

static void mkdirs(const char *root, const char *rel)
{
	char p[PATH_MAX], *s;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (s = p + strlen(root) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
}

static void put(const char *root, const char *rel, const char *text)
{
	char p[PATH_MAX];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* SYSFS/class/CLS/NAME -> ../../devices/REL (as sysfs links them) */
static void link_class(const char *root, const char *cls, const char *name,
		       const char *rel)
{
	char p[PATH_MAX], t[PATH_MAX];

	snprintf(p, sizeof(p), "class/%s", cls);
	mkdirs(root, p);
	snprintf(p, sizeof(p), "%s/class/%s/%s", root, cls, name);
	snprintf(t, sizeof(t), "../../devices/%s", rel);
	if (symlink(t, p))
		perror(p);
}

FIXTURE(sysfs) {
	char root[64];
};

FIXTURE_SETUP(sysfs)
{
	const char *n0 = "pci0000:20/0000:20:00.0/0000:21:00.0";
	const char *n1 = "pci0000:40/0000:40:00.0/0000:41:00.0";
	char p[PATH_MAX];

	strcpy(self->root, "/tmp/numa_test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->root));
	/* nvme0 on node 0: the controller says it, its PCI function too */
	snprintf(p, sizeof(p), "devices/%s/nvme/nvme0/nvme0n1/nvme0n1p1", n0);
	mkdirs(self->root, p);
	snprintf(p, sizeof(p), "devices/%s/numa_node", n0);
	put(self->root, p, "0\n");
	snprintf(p, sizeof(p), "devices/%s/nvme/nvme0/numa_node", n0);
	put(self->root, p, "0\n");
	snprintf(p, sizeof(p), "%s/nvme/nvme0/nvme0n1", n0);
	link_class(self->root, "block", "nvme0n1", p);
	snprintf(p, sizeof(p), "%s/nvme/nvme0/nvme0n1/nvme0n1p1", n0);
	link_class(self->root, "block", "nvme0n1p1", p);
	/* nvme1: its controller says -1, its PCI function node 1 */
	snprintf(p, sizeof(p), "devices/%s/nvme/nvme1/nvme1n1", n1);
	mkdirs(self->root, p);
	snprintf(p, sizeof(p), "devices/%s/numa_node", n1);
	put(self->root, p, "1\n");
	snprintf(p, sizeof(p), "devices/%s/nvme/nvme1/numa_node", n1);
	put(self->root, p, "-1\n");
	snprintf(p, sizeof(p), "%s/nvme/nvme1/nvme1n1", n1);
	link_class(self->root, "block", "nvme1n1", p);
	/* a NIC on node 1 */
	snprintf(p, sizeof(p), "devices/%s/virtio3/net/eth0", n1);
	mkdirs(self->root, p);
	snprintf(p, sizeof(p), "%s/virtio3/net/eth0", n1);
	link_class(self->root, "net", "eth0", p);
	/* a virtual device: no node anywhere up */
	mkdirs(self->root, "devices/virtual/block/loop0");
	link_class(self->root, "block", "loop0", "virtual/block/loop0");
	/* a device whose numa_node is garbage, under one with none */
	mkdirs(self->root, "devices/platform/foo/block/sdz");
	put(self->root, "devices/platform/foo/block/sdz/numa_node", "x1\n");
	link_class(self->root, "block", "sdz", "platform/foo/block/sdz");
	/* a numa_node above SYSFS/devices is never read */
	put(self->root, "numa_node", "3\n");
}

FIXTURE_TEARDOWN(sysfs)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->root);
	if (system(cmd))
		fprintf(stderr, "cannot remove %s\n", self->root);
}

TEST_F(sysfs, nvme_namespace_and_partition)
{
	EXPECT_EQ(0, hc_numa_sysfs_node(self->root, "block", "nvme0n1"));
	EXPECT_EQ(0, hc_numa_sysfs_node(self->root, "block", "nvme0n1p1"));
}

TEST_F(sysfs, minus_one_goes_on_up)
{
	EXPECT_EQ(1, hc_numa_sysfs_node(self->root, "block", "nvme1n1"));
}

TEST_F(sysfs, nic)
{
	EXPECT_EQ(1, hc_numa_sysfs_node(self->root, "net", "eth0"));
	EXPECT_EQ(-1, hc_numa_sysfs_node(self->root, "net", "eth1"));
}

TEST_F(sysfs, no_preference)
{
	EXPECT_EQ(-1, hc_numa_sysfs_node(self->root, "block", "loop0"));
	EXPECT_EQ(-1, hc_numa_sysfs_node(self->root, "block", "sdz"));
	EXPECT_EQ(-1, hc_numa_sysfs_node(self->root, "block", "nvme9n1"));
	EXPECT_EQ(-1, hc_numa_sysfs_node(self->root, "block", ""));
	EXPECT_EQ(-1, hc_numa_sysfs_node(self->root, "block", ".."));
	EXPECT_EQ(-1, hc_numa_sysfs_node(self->root, "block", "../block/nvme0n1"));
	EXPECT_EQ(-1, hc_numa_sysfs_node(self->root, "../class/block", "nvme0n1"));
	EXPECT_EQ(-1, hc_numa_sysfs_node("/nonexistent", "block", "nvme0n1"));
}

static const char route_hdr[] =
	"Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n";

TEST(default_route)
{
	char text[1024], ifn[16];

	snprintf(text, sizeof(text), "%s%s%s%s", route_hdr,
		 "eth1\t0002000A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n",
		 "eth0\t00000000\t0202000A\t0003\t0\t0\t100\t00000000\t0\t0\t0\n",
		 "eth2\t00000000\t0202010A\t0003\t0\t0\t50\t00000000\t0\t0\t0\n");
	ASSERT_EQ(0, hc_numa_default_if(text, ifn, sizeof(ifn)));
	EXPECT_STREQ("eth2", ifn);
	EXPECT_EQ(-ENAMETOOLONG, hc_numa_default_if(text, ifn, 4));
	/* a default route that is down does not count */
	snprintf(text, sizeof(text), "%s%s", route_hdr,
		 "eth0\t00000000\t0202000A\t0002\t0\t0\t0\t00000000\t0\t0\t0\n");
	EXPECT_EQ(-ENOENT, hc_numa_default_if(text, ifn, sizeof(ifn)));
	EXPECT_EQ(-ENOENT, hc_numa_default_if(route_hdr, ifn, sizeof(ifn)));
	EXPECT_EQ(-EINVAL, hc_numa_default_if("", ifn, sizeof(ifn)));
	EXPECT_EQ(-EINVAL, hc_numa_default_if("garbage\n", ifn, sizeof(ifn)));
	snprintf(text, sizeof(text), "%s%s", route_hdr, "eth0 zz\n");
	EXPECT_EQ(-EINVAL, hc_numa_default_if(text, ifn, sizeof(ifn)));
}

/* 3 members of 4 MiB chunks: members 0 and 2 on node 0, member 1 on 1 */
static const struct hc_numa_map map3 = {
	.chunk_size = 4 * MIB, .member_count = 3, .node = { 0, 1, 0 },
};

TEST(runs_one_extent)
{
	/* chunks 3, 4, 5, 6: members 0, 1, 2, 0 */
	struct hc_extent ext[] = { { 12 * MIB, 16 * MIB } };
	struct hc_numa_run r[8];
	int n;

	/* an 8 MiB part at object offset 0: chunk 3 (node 0), 4 (node 1) */
	n = hc_numa_runs(&map3, ext, 1, 0, 8 * MIB, r, 8);
	ASSERT_EQ(2, n);
	EXPECT_EQ(0, r[0].off);
	EXPECT_EQ(4 * MIB, r[0].len);
	EXPECT_EQ(0, r[0].node);
	EXPECT_EQ(4 * MIB, r[1].off);
	EXPECT_EQ(4 * MIB, r[1].len);
	EXPECT_EQ(1, r[1].node);
	/* a tie: the first node met */
	EXPECT_EQ(0, hc_numa_major(r, n));
	/* 8 MiB from 6 MiB: 2 MiB of chunk 4 (1), chunks 5 and 6 (0) merged */
	n = hc_numa_runs(&map3, ext, 1, 6 * MIB, 8 * MIB, r, 8);
	ASSERT_EQ(2, n);
	EXPECT_EQ(0, r[0].off);
	EXPECT_EQ(2 * MIB, r[0].len);
	EXPECT_EQ(1, r[0].node);
	EXPECT_EQ(2 * MIB, r[1].off);
	EXPECT_EQ(6 * MIB, r[1].len);
	EXPECT_EQ(0, r[1].node);
	EXPECT_EQ(0, hc_numa_major(r, n));
	/* the part's tail in chunk 4 only */
	n = hc_numa_runs(&map3, ext, 1, 5 * MIB, 4096, r, 8);
	ASSERT_EQ(1, n);
	EXPECT_EQ(1, r[0].node);
	EXPECT_EQ(4096, r[0].len);
	EXPECT_EQ(1, hc_numa_major(r, n));
	/* past the extents, and too many runs */
	EXPECT_EQ(-EINVAL, hc_numa_runs(&map3, ext, 1, 12 * MIB, 8 * MIB, r, 8));
	EXPECT_EQ(-ENOSPC, hc_numa_runs(&map3, ext, 1, 0, 8 * MIB, r, 1));
}

TEST(runs_across_extents)
{
	/* object bytes 0..4M: chunk 7 (member 1), 4M..12M: chunks 1, 2 (1, 2) */
	struct hc_extent ext[] = { { 28 * MIB, 4 * MIB }, { 4 * MIB, 8 * MIB } };
	struct hc_numa_run r[8];
	int n;

	n = hc_numa_runs(&map3, ext, 2, 2 * MIB, 8 * MIB, r, 8);
	ASSERT_EQ(2, n);
	/* 2 MiB of chunk 7 and all of chunk 1: node 1, merged */
	EXPECT_EQ(0, r[0].off);
	EXPECT_EQ(6 * MIB, r[0].len);
	EXPECT_EQ(1, r[0].node);
	EXPECT_EQ(6 * MIB, r[1].off);
	EXPECT_EQ(2 * MIB, r[1].len);
	EXPECT_EQ(0, r[1].node);
	EXPECT_EQ(1, hc_numa_major(r, n));
}

TEST(runs_without_nodes)
{
	struct hc_numa_map m = {
		.chunk_size = 4 * MIB, .member_count = 2, .node = { -1, 1 },
	};
	struct hc_extent ext[] = { { 0, 16 * MIB } };
	struct hc_numa_run r[8];
	int n;

	/* chunk 0 (no node), 1 (node 1), 2 (no node): node 1 holds the most known */
	n = hc_numa_runs(&m, ext, 1, 0, 12 * MIB, r, 8);
	ASSERT_EQ(3, n);
	EXPECT_EQ(-1, r[0].node);
	EXPECT_EQ(1, r[1].node);
	EXPECT_EQ(1, hc_numa_major(r, n));
	m.node[1] = -1;
	n = hc_numa_runs(&m, ext, 1, 0, 12 * MIB, r, 8);
	ASSERT_EQ(1, n);
	EXPECT_EQ(-1, hc_numa_major(r, n));
	EXPECT_EQ(-1, hc_numa_major(r, 0));
}

TEST(runs_bad_map)
{
	struct hc_numa_map m = map3;
	struct hc_extent ext[] = { { 0, 8 * MIB } };
	struct hc_extent odd[] = { { 4096, 8 * MIB } };
	struct hc_numa_run r[4];

	EXPECT_EQ(-EINVAL, hc_numa_runs(&map3, odd, 1, 0, 4096, r, 4));
	m.chunk_size = 3 * MIB;
	EXPECT_EQ(-EINVAL, hc_numa_runs(&m, ext, 1, 0, 4096, r, 4));
	m = map3;
	m.member_count = 0;
	EXPECT_EQ(-EINVAL, hc_numa_runs(&m, ext, 1, 0, 4096, r, 4));
	m.member_count = HC_MAX_MEMBERS + 1;
	EXPECT_EQ(-EINVAL, hc_numa_runs(&m, ext, 1, 0, 4096, r, 4));
	/* nothing to place */
	EXPECT_EQ(0, hc_numa_runs(&map3, ext, 1, 0, 0, r, 4));
}

TEST_HARNESS_MAIN
