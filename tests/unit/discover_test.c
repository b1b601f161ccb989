// SPDX-License-Identifier: GPL-2.0
/*
 * Drive discovery and safety checks (helper/lib/discover.c) against fake root
 * trees built in a temporary directory: sysfs entries (dev, size,
 * partition, holders, slaves, model, serial), mountinfo, swaps, and /dev
 * image files carrying real on-disk signatures written byte by byte, which
 * libblkid must recognise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "kselftest_harness.h"
#include "discover.h"

#define IMG_SIZE	(4U << 20)	/* every /dev image file */

/* --- building a fake tree ---------------------------------------------------- */

static int mkdirs(const char *root, const char *fmt, ...)
{
	char path[PATH_MAX], *p;
	va_list ap;
	int n;

	n = snprintf(path, sizeof(path), "%s/", root);
	va_start(ap, fmt);
	vsnprintf(path + n, sizeof(path) - n, fmt, ap);
	va_end(ap);
	for (p = path + strlen(root) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

static int put_file(const char *root, const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fputs(text, f);
	return fclose(f) ? -errno : 0;
}

static int putf(const char *root, const char *rel, const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	return put_file(root, rel, text);
}

/* sys/class/block/NAME as a real directory (a disk or a dm/md device). */
static int add_disk(const char *root, const char *name, unsigned int major,
		    unsigned int minor, unsigned long long sectors,
		    const char *model, const char *serial)
{
	char rel[PATH_MAX];

	if (mkdirs(root, "sys/class/block/%s/holders", name) ||
	    mkdirs(root, "sys/class/block/%s/slaves", name))
		return -1;
	snprintf(rel, sizeof(rel), "sys/class/block/%s/dev", name);
	if (putf(root, rel, "%u:%u\n", major, minor))
		return -1;
	snprintf(rel, sizeof(rel), "sys/class/block/%s/size", name);
	if (putf(root, rel, "%llu\n", sectors))
		return -1;
	if (model) {
		if (mkdirs(root, "sys/class/block/%s/device", name))
			return -1;
		snprintf(rel, sizeof(rel), "sys/class/block/%s/device/model", name);
		if (putf(root, rel, "%-40s\n", model))
			return -1;
		snprintf(rel, sizeof(rel), "sys/class/block/%s/device/serial", name);
		if (putf(root, rel, "%s  \n", serial))
			return -1;
	}
	return 0;
}

/*
 * A partition as sysfs has it: a directory inside its disk's, with a
 * "partition" file, and sys/class/block/PART a symlink to it.
 */
static int add_part(const char *root, const char *disk, const char *part,
		    unsigned int major, unsigned int minor, int index)
{
	char rel[PATH_MAX], link[PATH_MAX], target[PATH_MAX];

	if (mkdirs(root, "sys/class/block/%s/%s/holders", disk, part))
		return -1;
	snprintf(rel, sizeof(rel), "sys/class/block/%s/%s/dev", disk, part);
	if (putf(root, rel, "%u:%u\n", major, minor))
		return -1;
	snprintf(rel, sizeof(rel), "sys/class/block/%s/%s/size", disk, part);
	if (putf(root, rel, "2048\n"))
		return -1;
	snprintf(rel, sizeof(rel), "sys/class/block/%s/%s/partition", disk, part);
	if (putf(root, rel, "%d\n", index))
		return -1;
	snprintf(link, sizeof(link), "%s/sys/class/block/%s", root, part);
	snprintf(target, sizeof(target), "%s/%s", disk, part);
	return symlink(target, link) ? -errno : 0;
}

/* holders/HOLDER of NAME (a disk, or a partition through its symlink). */
static int add_holder(const char *root, const char *name, const char *holder)
{
	return mkdirs(root, "sys/class/block/%s/holders/%s", name, holder);
}

static int add_slave(const char *root, const char *name, const char *slave)
{
	return mkdirs(root, "sys/class/block/%s/slaves/%s", name, slave);
}

/* dev/NAME: a zero-filled image file of IMG_SIZE bytes. */
static int add_image(const char *root, const char *name)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/dev/%s", root, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, IMG_SIZE) < 0) {
		close(fd);
		return -errno;
	}
	return close(fd);
}

static int poke(const char *root, const char *name, off_t off,
		const void *buf, size_t len)
{
	char path[PATH_MAX];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/dev/%s", root, name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = pwrite(fd, buf, len, off);
	close(fd);
	return n == (ssize_t)len ? 0 : -EIO;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return remove(path);
}

/* --- on-disk signatures, byte by byte ---------------------------------------- */

static void le16(uint8_t *p, uint16_t v) { p[0] = v; p[1] = v >> 8; }
static void le32(uint8_t *p, uint32_t v) { le16(p, v); le16(p + 2, v >> 16); }
static void le64(uint8_t *p, uint64_t v) { le32(p, v); le32(p + 4, v >> 32); }
static void be16(uint8_t *p, uint16_t v) { p[0] = v >> 8; p[1] = v; }
static void be32(uint8_t *p, uint32_t v) { be16(p, v >> 16); be16(p + 2, v); }
static void be64(uint8_t *p, uint64_t v) { be32(p, v >> 32); be32(p + 4, v); }

/* ext4: superblock at 1024, magic 0xEF53 at 1080; journal + extents. */
static int sig_ext4(const char *root, const char *name)
{
	uint8_t sb[1024] = { 0 };

	le32(sb + 0x00, 256);		/* s_inodes_count */
	le32(sb + 0x04, 4096);		/* s_blocks_count_lo (1 KiB blocks) */
	le32(sb + 0x18, 0);		/* s_log_block_size: 1 KiB */
	le32(sb + 0x20, 8192);		/* s_blocks_per_group */
	le32(sb + 0x28, 256);		/* s_inodes_per_group */
	le16(sb + 0x38, 0xEF53);	/* s_magic: byte 1080 of the device */
	le16(sb + 0x3A, 1);		/* s_state: clean */
	le32(sb + 0x4C, 1);		/* s_rev_level: dynamic */
	le16(sb + 0x58, 256);		/* s_inode_size */
	le32(sb + 0x5C, 0x4);		/* compat: has_journal */
	le32(sb + 0x60, 0x2 | 0x40);	/* incompat: filetype, extents */
	memcpy(sb + 0x68, "0123456789abcdef", 16);	/* s_uuid */
	return poke(root, name, 1024, sb, sizeof(sb));
}

/* swap: "SWAPSPACE2" at page size - 10 (4 KiB pages), version 1 header. */
static int sig_swap(const char *root, const char *name)
{
	uint8_t hdr[128] = { 0 };

	le32(hdr + 0, 1);			/* version */
	le32(hdr + 4, IMG_SIZE / 4096 - 1);	/* last_page */
	memcpy(hdr + 12, "0123456789abcdef", 16);	/* uuid */
	return poke(root, name, 1024, hdr, sizeof(hdr)) ?:
	       poke(root, name, 4096 - 10, "SWAPSPACE2", 10);
}

/* XFS: a v4 superblock (no CRC) that passes libblkid's sanity checks. */
static int sig_xfs(const char *root, const char *name)
{
	uint8_t sb[512] = { 0 };

	memcpy(sb + 0, "XFSB", 4);	/* sb_magicnum */
	be32(sb + 4, 4096);		/* sb_blocksize */
	be64(sb + 8, IMG_SIZE / 4096);	/* sb_dblocks */
	memcpy(sb + 32, "0123456789abcdef", 16);	/* sb_uuid */
	be32(sb + 80, 1);		/* sb_rextsize */
	be32(sb + 84, IMG_SIZE / 4096);	/* sb_agblocks */
	be32(sb + 88, 1);		/* sb_agcount */
	be16(sb + 100, 4);		/* sb_versionnum: v4 */
	be16(sb + 102, 512);		/* sb_sectsize */
	be16(sb + 104, 256);		/* sb_inodesize */
	be16(sb + 106, 16);		/* sb_inopblock */
	sb[120] = 12;			/* sb_blocklog */
	sb[121] = 9;			/* sb_sectlog */
	sb[122] = 8;			/* sb_inodelog */
	sb[123] = 4;			/* sb_inopblog */
	sb[124] = 10;			/* sb_agblklog */
	sb[127] = 25;			/* sb_imax_pct */
	return poke(root, name, 0, sb, sizeof(sb));
}

/* LUKS1: "LUKS\xba\xbe" at 0, version 1. */
static int sig_luks(const char *root, const char *name)
{
	uint8_t hdr[592] = { 0 };

	memcpy(hdr, "LUKS\xba\xbe", 6);
	be16(hdr + 6, 1);				/* version */
	memcpy(hdr + 8, "aes", 3);			/* cipher name */
	memcpy(hdr + 40, "xts-plain64", 11);		/* cipher mode */
	memcpy(hdr + 72, "sha256", 6);			/* hash spec */
	be32(hdr + 104, 4096);				/* payload offset */
	be32(hdr + 108, 64);				/* key bytes */
	memcpy(hdr + 168, "01234567-89ab-cdef-0123-456789abcdef", 36);
	return poke(root, name, 0, hdr, sizeof(hdr));
}

static uint32_t crc32_le(const uint8_t *p, size_t len)
{
	uint32_t crc = 0xffffffff;
	int k;

	while (len--) {
		crc ^= *p++;
		for (k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320 & -(crc & 1));
	}
	return ~crc;
}

/* GPT: protective MBR, then "EFI PART" at 512 with valid CRCs, no entries. */
static int sig_gpt(const char *root, const char *name)
{
	const uint64_t last = IMG_SIZE / 512 - 1;
	uint8_t mbr[512] = { 0 }, hdr[92] = { 0 };
	uint8_t *entries = calloc(128, 128);
	int err;

	if (!entries)
		return -ENOMEM;
	mbr[446 + 4] = 0xEE;			/* type: GPT protective */
	le32(mbr + 446 + 8, 1);			/* first LBA */
	le32(mbr + 446 + 12, last);		/* sectors */
	mbr[510] = 0x55;
	mbr[511] = 0xAA;

	memcpy(hdr, "EFI PART", 8);
	le32(hdr + 8, 0x00010000);		/* revision 1.0 */
	le32(hdr + 12, 92);			/* header size */
	le64(hdr + 24, 1);			/* my LBA */
	le64(hdr + 32, last);			/* alternate LBA */
	le64(hdr + 40, 34);			/* first usable */
	le64(hdr + 48, last - 33);		/* last usable */
	memcpy(hdr + 56, "0123456789abcdef", 16);	/* disk GUID */
	le64(hdr + 72, 2);			/* entries LBA */
	le32(hdr + 80, 128);			/* number of entries */
	le32(hdr + 84, 128);			/* entry size */
	le32(hdr + 88, crc32_le(entries, 128 * 128));
	le32(hdr + 16, crc32_le(hdr, 92));	/* header CRC (field was 0) */

	err = poke(root, name, 0, mbr, sizeof(mbr)) ?:
	      poke(root, name, 512, hdr, sizeof(hdr)) ?:
	      poke(root, name, 1024, entries, 128 * 128);
	free(entries);
	return err;
}

/* MBR: boot signature and one Linux partition. */
static int sig_mbr(const char *root, const char *name)
{
	uint8_t mbr[512] = { 0 };

	le32(mbr + 440, 0x12345678);		/* disk id */
	mbr[446 + 4] = 0x83;			/* type: Linux */
	le32(mbr + 446 + 8, 2048);		/* first LBA */
	le32(mbr + 446 + 12, 4096);		/* sectors */
	mbr[510] = 0x55;
	mbr[511] = 0xAA;
	return poke(root, name, 0, mbr, sizeof(mbr));
}

/* --- the fixture: a host with four NVMe drives, a SATA and a virtio disk --- */

/*
 * nvme0n1 (259:0) with partitions nvme0n1p1 (259:1), nvme0n1p2 (259:2);
 * nvme1n1 (259:3) with nvme1n1p1 (259:4); nvme2n1 (259:5) with nvme2n1p1
 * (259:6); nvme3n1 (259:7); sda (8:0); vda (254:0); loop0 (7:0); dm-0
 * (253:0).  Every disk has a blank image in dev/.  No mounts, no swap.
 */
FIXTURE(disc) {
	char root[256];
};

FIXTURE_SETUP(disc)
{
	const char *root = self->root;

	snprintf(self->root, sizeof(self->root), "%s/hc-discover-XXXXXX",
		 getenv("TMPDIR") ?: "/tmp");
	ASSERT_NE(NULL, mkdtemp(self->root));
	ASSERT_EQ(0, mkdirs(root, "sys/class/block"));
	ASSERT_EQ(0, mkdirs(root, "proc/self"));
	ASSERT_EQ(0, mkdirs(root, "dev"));
	ASSERT_EQ(0, add_disk(root, "nvme0n1", 259, 0, 1ULL << 31,
			      "Samsung SSD 990 PRO 2TB", "S6Z1NJ0W100001"));
	ASSERT_EQ(0, add_part(root, "nvme0n1", "nvme0n1p1", 259, 1, 1));
	ASSERT_EQ(0, add_part(root, "nvme0n1", "nvme0n1p2", 259, 2, 2));
	ASSERT_EQ(0, add_disk(root, "nvme1n1", 259, 3, 7501476528ULL,
			      "SAMSUNG MZQL23T8HCLS-00A07", "S64HNE0T500001"));
	ASSERT_EQ(0, add_part(root, "nvme1n1", "nvme1n1p1", 259, 4, 1));
	ASSERT_EQ(0, add_disk(root, "nvme2n1", 259, 5, 7501476528ULL,
			      "SAMSUNG MZQL23T8HCLS-00A07", "S64HNE0T500002"));
	ASSERT_EQ(0, add_part(root, "nvme2n1", "nvme2n1p1", 259, 6, 1));
	ASSERT_EQ(0, add_disk(root, "nvme3n1", 259, 7, 7501476528ULL,
			      NULL, NULL));
	ASSERT_EQ(0, add_disk(root, "sda", 8, 0, 1ULL << 24, "ST2000DM008", "ZFL0001"));
	ASSERT_EQ(0, add_disk(root, "vda", 254, 0, 1ULL << 21, NULL, NULL));
	ASSERT_EQ(0, add_disk(root, "loop0", 7, 0, 8192, NULL, NULL));
	ASSERT_EQ(0, add_disk(root, "dm-0", 253, 0, 1ULL << 30, NULL, NULL));
	/* a hidden multipath path device: never a candidate */
	ASSERT_EQ(0, add_disk(root, "nvme0c0n1", 259, 8, 1ULL << 31, NULL, NULL));
	ASSERT_EQ(0, put_file(root, "proc/self/mountinfo",
		"22 27 0:21 / /proc rw,relatime - proc proc rw\n"
		"23 27 0:22 / /sys rw,relatime - sysfs sysfs rw\n"));
	ASSERT_EQ(0, put_file(root, "proc/swaps",
		"Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"));
	for (const char *const *n = (const char *const []){ "nvme0n1", "nvme0n1p1",
	     "nvme0n1p2", "nvme1n1", "nvme1n1p1", "nvme2n1", "nvme2n1p1",
	     "nvme3n1", "sda", "vda", "loop0", "dm-0", NULL }; *n; n++)
		ASSERT_EQ(0, add_image(root, *n));
}

FIXTURE_TEARDOWN(disc)
{
	nftw(self->root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static const struct hc_drive *find(const struct hc_drive *d, size_t n,
				   const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(d[i].name, name))
			return &d[i];
	return NULL;
}

/* Judge one device of the tree. */
static struct hc_drive check(struct __test_metadata *_metadata,
			     const char *root, const char *name)
{
	struct hc_drive d;
	char path[PATH_MAX];

	memset(&d, 0xa5, sizeof(d));
	snprintf(path, sizeof(path), "/dev/%s", name);
	EXPECT_EQ(0, hc_discover_check(root, path, &d));
	return d;
}

#define CHECK(name)	check(_metadata, self->root, (name))

/* --- candidates and SAFE ---------------------------------------------------- */

TEST_F(disc, blank_nvme_drives_are_safe)
{
	struct hc_drive *d;
	size_t n;

	ASSERT_EQ(0, hc_discover(self->root, 0, &d, &n));
	ASSERT_EQ(4, n);
	/* sorted by name, partitions and nvme0c0n1 left out */
	EXPECT_STREQ("nvme0n1", d[0].name);
	EXPECT_STREQ("nvme1n1", d[1].name);
	EXPECT_STREQ("nvme2n1", d[2].name);
	EXPECT_STREQ("nvme3n1", d[3].name);
	for (size_t i = 0; i < n; i++) {
		EXPECT_EQ(HC_VERDICT_SAFE, d[i].verdict);
		EXPECT_EQ(HC_REASON_NONE, d[i].reason);
		EXPECT_STREQ("", d[i].detail);
	}
	EXPECT_STREQ("/dev/nvme1n1", d[1].path);
	EXPECT_EQ(259, d[1].major);
	EXPECT_EQ(3, d[1].minor);
	EXPECT_EQ(7501476528ULL * 512, d[1].bytes);
	EXPECT_STREQ("SAMSUNG MZQL23T8HCLS-00A07", d[1].model);	/* trimmed */
	EXPECT_STREQ("S64HNE0T500001", d[1].serial);
	EXPECT_STREQ("", d[3].model);
	EXPECT_STREQ("", d[3].serial);
	hc_discover_free(d);
}

TEST_F(disc, all_adds_sata_and_virtio)
{
	struct hc_drive *d;
	size_t n;

	ASSERT_EQ(0, hc_discover(self->root, HC_DISCOVER_ALL, &d, &n));
	ASSERT_EQ(6, n);
	EXPECT_NE(NULL, find(d, n, "sda"));
	EXPECT_NE(NULL, find(d, n, "vda"));
	EXPECT_EQ(NULL, find(d, n, "loop0"));
	EXPECT_EQ(NULL, find(d, n, "dm-0"));
	EXPECT_EQ(NULL, find(d, n, "nvme0n1p1"));
	EXPECT_EQ(HC_VERDICT_SAFE, find(d, n, "vda")->verdict);
	hc_discover_free(d);
}

TEST_F(disc, bad_arguments)
{
	struct hc_drive *d, one;
	char path[PATH_MAX];
	size_t n;

	EXPECT_EQ(-EINVAL, hc_discover(self->root, 0x80, &d, &n));
	EXPECT_EQ(-EINVAL, hc_discover_check(self->root, "dev/nvme1n1", &one));
	EXPECT_EQ(-ENOENT, hc_discover_check(self->root, "/dev/nvme9n1", &one));
	/* a file in dev/ that sysfs does not know */
	ASSERT_EQ(0, add_image(self->root, "nvme9n1"));
	EXPECT_EQ(-ENODEV, hc_discover_check(self->root, "/dev/nvme9n1", &one));
	snprintf(path, sizeof(path), "%s/nonexistent", self->root);
	EXPECT_EQ(-ENOENT, hc_discover(path, 0, &d, &n));
}

/* A blank loop device is SAFE: pool create must keep working on one. */
TEST_F(disc, check_blank_loop_device_is_safe)
{
	struct hc_drive d = CHECK("loop0");

	EXPECT_EQ(HC_VERDICT_SAFE, d.verdict);
	EXPECT_EQ(8192ULL * 512, d.bytes);
}

/* A symlink (like /dev/disk/by-id/...) names its target. */
TEST_F(disc, check_follows_symlinks)
{
	char link[PATH_MAX];
	struct hc_drive d;

	ASSERT_EQ(0, mkdirs(self->root, "dev/disk/by-id"));
	snprintf(link, sizeof(link), "%s/dev/disk/by-id/nvme-SAMSUNG_1", self->root);
	ASSERT_EQ(0, symlink("../../nvme1n1", link));
	ASSERT_EQ(0, hc_discover_check(self->root, "/dev/disk/by-id/nvme-SAMSUNG_1", &d));
	EXPECT_STREQ("nvme1n1", d.name);
	EXPECT_EQ(HC_VERDICT_SAFE, d.verdict);
}

TEST_F(disc, empty_device_is_excluded)
{
	struct hc_drive d;

	ASSERT_EQ(0, putf(self->root, "sys/class/block/nvme3n1/size", "0\n"));
	d = CHECK("nvme3n1");
	EXPECT_EQ(HC_VERDICT_EXCLUDED, d.verdict);
	EXPECT_EQ(HC_REASON_EMPTY, d.reason);
}

TEST_F(disc, no_device_node_is_unknown)
{
	char path[PATH_MAX];
	struct hc_drive *d;
	size_t n;

	snprintf(path, sizeof(path), "%s/dev/nvme3n1", self->root);
	ASSERT_EQ(0, unlink(path));
	ASSERT_EQ(0, hc_discover(self->root, 0, &d, &n));
	ASSERT_EQ(4, n);
	EXPECT_EQ(HC_VERDICT_UNKNOWN, d[3].verdict);
	EXPECT_EQ(HC_REASON_PROBE, d[3].reason);
	EXPECT_NE(NULL, strstr(d[3].detail, "cannot probe /dev/nvme3n1"));
	hc_discover_free(d);
}

/* --- the root file system ---------------------------------------------------- */

TEST_F(disc, root_on_nvme_partition)
{
	struct hc_drive *d, one;
	size_t n;

	ASSERT_EQ(0, put_file(self->root, "proc/self/mountinfo",
		"22 27 0:21 / /proc rw,relatime - proc proc rw\n"
		"27 1 259:2 / / rw,relatime - ext4 /dev/nvme0n1p2 rw\n"));
	ASSERT_EQ(0, hc_discover(self->root, 0, &d, &n));
	ASSERT_EQ(4, n);
	EXPECT_EQ(HC_VERDICT_EXCLUDED, d[0].verdict);
	EXPECT_EQ(HC_REASON_ROOT, d[0].reason);
	EXPECT_STREQ("holds the root file system (/ is on nvme0n1p2)", d[0].detail);
	for (size_t i = 1; i < n; i++)
		EXPECT_EQ(HC_VERDICT_SAFE, d[i].verdict);
	hc_discover_free(d);

	/* the partition itself, and its sibling (child of the root disk) */
	one = CHECK("nvme0n1p2");
	EXPECT_EQ(HC_REASON_ROOT, one.reason);
	one = CHECK("nvme0n1p1");
	EXPECT_EQ(HC_REASON_ROOT, one.reason);
	EXPECT_STREQ("is a partition of nvme0n1, which holds the root file system",
		     one.detail);
}

TEST_F(disc, root_on_whole_disk)
{
	struct hc_drive d;

	ASSERT_EQ(0, put_file(self->root, "proc/self/mountinfo",
		"27 1 259:5 / / rw,relatime - xfs /dev/nvme2n1 rw\n"));
	d = CHECK("nvme2n1");
	EXPECT_EQ(HC_REASON_ROOT, d.reason);
	d = CHECK("nvme0n1");
	EXPECT_EQ(HC_VERDICT_SAFE, d.verdict);
}

/* / on LVM: dm-0 with slave nvme0n1p2 excludes nvme0n1. */
TEST_F(disc, root_on_lvm)
{
	struct hc_drive *d, one;
	size_t n;

	ASSERT_EQ(0, add_slave(self->root, "dm-0", "nvme0n1p2"));
	ASSERT_EQ(0, add_holder(self->root, "nvme0n1p2", "dm-0"));
	ASSERT_EQ(0, put_file(self->root, "proc/self/mountinfo",
		"27 1 253:0 / / rw,relatime - ext4 /dev/mapper/vg0-root rw\n"
		"28 27 259:1 / /boot rw,relatime - ext4 /dev/nvme0n1p1 rw\n"));
	ASSERT_EQ(0, hc_discover(self->root, 0, &d, &n));
	ASSERT_EQ(4, n);
	EXPECT_EQ(HC_REASON_ROOT, d[0].reason);
	EXPECT_STREQ("holds the root file system (/ is on dm-0)", d[0].detail);
	EXPECT_EQ(HC_VERDICT_SAFE, d[1].verdict);
	hc_discover_free(d);
	one = CHECK("dm-0");
	EXPECT_EQ(HC_REASON_ROOT, one.reason);
}

/* / on LVM on md RAID-1 over two NVMe partitions: both disks excluded. */
TEST_F(disc, root_on_lvm_on_md)
{
	struct hc_drive *d;
	size_t n;

	ASSERT_EQ(0, add_disk(self->root, "md0", 9, 0, 1ULL << 20, NULL, NULL));
	ASSERT_EQ(0, add_slave(self->root, "md0", "nvme1n1p1"));
	ASSERT_EQ(0, add_slave(self->root, "md0", "nvme2n1p1"));
	ASSERT_EQ(0, add_slave(self->root, "dm-0", "md0"));
	ASSERT_EQ(0, put_file(self->root, "proc/self/mountinfo",
		"27 1 253:0 / / rw,relatime - ext4 /dev/mapper/vg0-root rw\n"));
	ASSERT_EQ(0, hc_discover(self->root, 0, &d, &n));
	ASSERT_EQ(4, n);
	EXPECT_EQ(HC_VERDICT_SAFE, d[0].verdict);
	EXPECT_EQ(HC_REASON_ROOT, d[1].reason);
	EXPECT_EQ(HC_REASON_ROOT, d[2].reason);
	EXPECT_EQ(HC_VERDICT_SAFE, d[3].verdict);
	hc_discover_free(d);
}

/* Btrfs reports an anonymous device number: the mount source names it. */
TEST_F(disc, root_by_mount_source)
{
	struct hc_drive d;

	ASSERT_EQ(0, put_file(self->root, "proc/self/mountinfo",
		"27 1 0:30 /@ / rw,relatime - btrfs /dev/nvme1n1p1 rw,subvol=/@\n"));
	d = CHECK("nvme1n1");
	EXPECT_EQ(HC_REASON_ROOT, d.reason);
	EXPECT_STREQ("holds the root file system (/ is on nvme1n1p1)", d.detail);
}

/* The last mount of / wins (a later overmount). */
TEST_F(disc, root_last_mount_wins)
{
	struct hc_drive d;

	ASSERT_EQ(0, put_file(self->root, "proc/self/mountinfo",
		"1 0 259:3 / / rw - ext4 /dev/nvme1n1 rw\n"
		"27 1 259:5 / / rw - ext4 /dev/nvme2n1 rw\n"));
	d = CHECK("nvme2n1");
	EXPECT_EQ(HC_REASON_ROOT, d.reason);
	/* nvme1n1 is still mounted (underneath): excluded, not as root */
	d = CHECK("nvme1n1");
	EXPECT_EQ(HC_REASON_MOUNTED, d.reason);
}

/* --- mounts, holders, swap ----------------------------------------------------- */

TEST_F(disc, mounted_partition)
{
	struct hc_drive d;

	ASSERT_EQ(0, put_file(self->root, "proc/self/mountinfo",
		"30 27 259:4 / /mnt/my\\040data rw,relatime shared:1 - ext4 /dev/nvme1n1p1 rw\n"));
	d = CHECK("nvme1n1");
	EXPECT_EQ(HC_VERDICT_EXCLUDED, d.verdict);
	EXPECT_EQ(HC_REASON_MOUNTED, d.reason);
	EXPECT_STREQ("partition nvme1n1p1 is mounted on /mnt/my data", d.detail);
	d = CHECK("nvme1n1p1");
	EXPECT_STREQ("is mounted on /mnt/my data", d.detail);
	d = CHECK("nvme2n1");
	EXPECT_EQ(HC_VERDICT_SAFE, d.verdict);
}

TEST_F(disc, mounted_whole_disk)
{
	struct hc_drive d;

	ASSERT_EQ(0, put_file(self->root, "proc/self/mountinfo",
		"30 27 259:7 / /scratch rw - xfs /dev/nvme3n1 rw\n"));
	d = CHECK("nvme3n1");
	EXPECT_EQ(HC_REASON_MOUNTED, d.reason);
	EXPECT_STREQ("is mounted on /scratch", d.detail);
}

TEST_F(disc, holders_of_disk)
{
	struct hc_drive d;

	ASSERT_EQ(0, add_holder(self->root, "nvme3n1", "bcache0"));
	d = CHECK("nvme3n1");
	EXPECT_EQ(HC_REASON_HOLDERS, d.reason);
	EXPECT_STREQ("is held by bcache0", d.detail);
}

/* A member of the running pool is named as one, and never forcible. */
TEST_F(disc, member_of_running_pool)
{
	struct hc_drive d;

	ASSERT_EQ(0, add_holder(self->root, "nvme3n1", "hypercache0"));
	d = CHECK("nvme3n1");
	EXPECT_EQ(HC_VERDICT_EXCLUDED, d.verdict);
	EXPECT_EQ(HC_REASON_MEMBER, d.reason);
	EXPECT_STREQ("member", hc_discover_reason_name(d.reason));
	EXPECT_STREQ("is a member of the running HyperCache pool (hypercache0)", d.detail);
	EXPECT_FALSE(hc_discover_forcible(&d));
}

TEST_F(disc, holders_of_partition)
{
	struct hc_drive d;

	ASSERT_EQ(0, add_holder(self->root, "nvme2n1p1", "md127"));
	ASSERT_EQ(0, add_holder(self->root, "nvme2n1p1", "dm-3"));
	d = CHECK("nvme2n1");
	EXPECT_EQ(HC_REASON_HOLDERS, d.reason);
	EXPECT_NE(NULL, strstr(d.detail, "partition nvme2n1p1 is held by "));
	EXPECT_NE(NULL, strstr(d.detail, " and 1 more"));
}

TEST_F(disc, swap_partition)
{
	struct hc_drive d;

	ASSERT_EQ(0, put_file(self->root, "proc/swaps",
		"Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
		"/swapfile                               file\t\t1048572\t\t0\t\t-3\n"
		"/dev/nvme2n1p1                          partition\t1024\t\t0\t\t-2\n"));
	d = CHECK("nvme2n1");
	EXPECT_EQ(HC_REASON_SWAP, d.reason);
	EXPECT_STREQ("partition nvme2n1p1 is used as swap", d.detail);
	d = CHECK("nvme1n1");
	EXPECT_EQ(HC_VERDICT_SAFE, d.verdict);
}

TEST_F(disc, swap_whole_disk)
{
	struct hc_drive d;

	ASSERT_EQ(0, put_file(self->root, "proc/swaps",
		"Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
		"/dev/nvme3n1                            partition\t1024\t\t0\t\t-2\n"));
	d = CHECK("nvme3n1");
	EXPECT_EQ(HC_REASON_SWAP, d.reason);
	EXPECT_STREQ("is used as swap", d.detail);
}

/*
 * What --force may override: the root disk (also through a partition or
 * LVM), a mounted device, swap and holders never, judged on real verdicts.
 */
TEST_F(disc, force_never_overrides_root_mounted_swap_holders)
{
	struct hc_drive d;

	ASSERT_EQ(0, put_file(self->root, "proc/self/mountinfo",
		"27 1 259:2 / / rw,relatime - ext4 /dev/nvme0n1p2 rw\n"
		"30 27 259:7 / /scratch rw - xfs /dev/nvme3n1 rw\n"));
	ASSERT_EQ(0, put_file(self->root, "proc/swaps",
		"Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n"
		"/dev/nvme2n1p1                          partition\t1024\t\t0\t\t-2\n"));
	ASSERT_EQ(0, add_holder(self->root, "nvme1n1", "bcache0"));
	d = CHECK("nvme0n1");
	EXPECT_EQ(HC_REASON_ROOT, d.reason);
	EXPECT_FALSE(hc_discover_forcible(&d));
	d = CHECK("nvme0n1p1");		/* a sibling of the root partition */
	EXPECT_EQ(HC_REASON_ROOT, d.reason);
	EXPECT_FALSE(hc_discover_forcible(&d));
	d = CHECK("nvme3n1");
	EXPECT_EQ(HC_REASON_MOUNTED, d.reason);
	EXPECT_FALSE(hc_discover_forcible(&d));
	d = CHECK("nvme2n1");
	EXPECT_EQ(HC_REASON_SWAP, d.reason);
	EXPECT_FALSE(hc_discover_forcible(&d));
	d = CHECK("nvme1n1");
	EXPECT_EQ(HC_REASON_HOLDERS, d.reason);
	EXPECT_FALSE(hc_discover_forcible(&d));
	d.reason = HC_REASON_EMPTY;
	EXPECT_FALSE(hc_discover_forcible(&d));
	d.reason = HC_REASON_SIGNATURE;
	EXPECT_TRUE(hc_discover_forcible(&d));
	d.reason = HC_REASON_PROBE;
	EXPECT_TRUE(hc_discover_forcible(&d));
	d.reason = HC_REASON_NONE;
	EXPECT_TRUE(hc_discover_forcible(&d));
}

/* --- signatures (libblkid must agree with the bytes written) ------------------ */

FIXTURE(sig) {
	char root[256];
};

FIXTURE_VARIANT(sig) {
	int (*write)(const char *root, const char *name);
	const char *type;
	const char *detail;
};

FIXTURE_VARIANT_ADD(sig, ext4) { sig_ext4, "ext4", "carries an ext4 file system" };
FIXTURE_VARIANT_ADD(sig, swap) { sig_swap, "swap", "carries a swap signature" };
FIXTURE_VARIANT_ADD(sig, xfs) { sig_xfs, "xfs", "carries an XFS file system" };
FIXTURE_VARIANT_ADD(sig, luks) { sig_luks, "crypto_LUKS", "carries a LUKS header" };
FIXTURE_VARIANT_ADD(sig, gpt) { sig_gpt, "gpt", "carries a GPT partition table" };
FIXTURE_VARIANT_ADD(sig, mbr) { sig_mbr, "dos", "carries an MBR partition table" };

FIXTURE_SETUP(sig)
{
	snprintf(self->root, sizeof(self->root), "%s/hc-discover-XXXXXX",
		 getenv("TMPDIR") ?: "/tmp");
	ASSERT_NE(NULL, mkdtemp(self->root));
	ASSERT_EQ(0, mkdirs(self->root, "sys/class/block"));
	ASSERT_EQ(0, mkdirs(self->root, "proc/self"));
	ASSERT_EQ(0, mkdirs(self->root, "dev"));
	ASSERT_EQ(0, put_file(self->root, "proc/self/mountinfo", ""));
	ASSERT_EQ(0, add_disk(self->root, "nvme0n1", 259, 0, IMG_SIZE / 512,
			      NULL, NULL));
	ASSERT_EQ(0, add_disk(self->root, "nvme1n1", 259, 1, IMG_SIZE / 512,
			      NULL, NULL));
	ASSERT_EQ(0, add_image(self->root, "nvme0n1"));
	ASSERT_EQ(0, add_image(self->root, "nvme1n1"));
	ASSERT_EQ(0, variant->write(self->root, "nvme1n1"));
}

FIXTURE_TEARDOWN(sig)
{
	nftw(self->root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

TEST_F(sig, detected)
{
	struct hc_drive *d;
	size_t n;

	ASSERT_EQ(0, hc_discover(self->root, 0, &d, &n));
	ASSERT_EQ(2, n);
	EXPECT_EQ(HC_VERDICT_SAFE, d[0].verdict);
	EXPECT_EQ(HC_VERDICT_EXCLUDED, d[1].verdict);
	EXPECT_EQ(HC_REASON_SIGNATURE, d[1].reason);
	EXPECT_STREQ(variant->type, d[1].signature);
	EXPECT_STREQ(variant->detail, d[1].detail);
	hc_discover_free(d);
}

/* Wiping the signature's first bytes (as wipefs does) makes it SAFE again. */
TEST_F(sig, wiped)
{
	static const uint8_t zero[4096];
	struct hc_drive d;

	ASSERT_EQ(0, poke(self->root, "nvme1n1", 0, zero, sizeof(zero)));
	ASSERT_EQ(0, poke(self->root, "nvme1n1", 4096, zero, sizeof(zero)));
	ASSERT_EQ(0, poke(self->root, "nvme1n1", 8192, zero, sizeof(zero)));
	ASSERT_EQ(0, poke(self->root, "nvme1n1", 12288, zero, sizeof(zero)));
	ASSERT_EQ(0, poke(self->root, "nvme1n1", 16384, zero, sizeof(zero)));
	ASSERT_EQ(0, hc_discover_check(self->root, "/dev/nvme1n1", &d));
	EXPECT_EQ(HC_VERDICT_SAFE, d.verdict);
	EXPECT_STREQ("", d.signature);
}

/* Precedence: an in-use reason is reported before the signature. */
TEST_F(sig, mounted_before_signature)
{
	struct hc_drive d;

	ASSERT_EQ(0, put_file(self->root, "proc/self/mountinfo",
		"30 27 259:1 / /data rw - ext4 /dev/nvme1n1 rw\n"));
	ASSERT_EQ(0, hc_discover_check(self->root, "/dev/nvme1n1", &d));
	EXPECT_EQ(HC_REASON_MOUNTED, d.reason);
}

/* The tools' own output: mkfs.ext4 and mkswap images (SKIP without them). */
TEST_F(disc, real_mkfs_and_mkswap)
{
	char cmd[PATH_MAX + 256];
	struct hc_drive d;

	snprintf(cmd, sizeof(cmd),
		 "PATH=$PATH:/usr/sbin:/sbin; command -v mkfs.ext4 >/dev/null && command -v mkswap >/dev/null"
		 " || exit 77; mkfs.ext4 -q -F %s/dev/nvme1n1 && mkswap -q %s/dev/nvme2n1",
		 self->root, self->root);
	int rc = system(cmd);

	if (WIFEXITED(rc) && WEXITSTATUS(rc) == 77)
		SKIP(return, "mkfs.ext4 or mkswap not installed");
	ASSERT_EQ(0, rc);
	d = CHECK("nvme1n1");
	EXPECT_EQ(HC_REASON_SIGNATURE, d.reason);
	EXPECT_STREQ("ext4", d.signature);
	d = CHECK("nvme2n1");
	EXPECT_EQ(HC_REASON_SIGNATURE, d.reason);
	EXPECT_STREQ("swap", d.signature);
}

TEST_HARNESS_MAIN
