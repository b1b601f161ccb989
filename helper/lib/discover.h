/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Drive discovery and safety checks, shared by hcctl and hypercached.
 *
 * Every path the checks read (sysfs, /proc/self/mountinfo, /proc/swaps,
 * /dev) is taken relative to a root directory: "/" in production, a fake
 * tree in the unit tests.  Nothing is written; nothing needs privileges
 * except opening device nodes for the signature probe (libblkid).
 *
 * A drive is EXCLUDED, with a reason, if
 *   - it holds the root file system, directly, through a partition, or
 *     below a device-mapper/md stack (the slaves of / are followed), or it
 *     is a partition of such a disk;
 *   - it or one of its partitions is used as swap (/proc/swaps);
 *   - it or one of its partitions is mounted (/proc/self/mountinfo);
 *   - it is a member of the running HyperCache pool (its holder is
 *     hypercacheN);
 *   - it or one of its partitions has holders (dm, md, LVM, bcache);
 *   - it has no capacity;
 *   - libblkid finds a signature on it: a file system, swap, LUKS, LVM,
 *     md or bcache superblock, or a partition table.
 * It is UNKNOWN when it cannot be probed (no device node, no permission),
 * and SAFE otherwise.  A HyperCache superblock is not a libblkid type: a
 * member of a stopped pool is SAFE here and left to the kernel's own check;
 * one of the running pool is EXCLUDED (HC_REASON_MEMBER).
 *
 * Not thread-safe against concurrent changes of the system, obviously: the
 * answer describes the moment of the call.
 */
#ifndef HC_DISCOVER_H
#define HC_DISCOVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* hc_discover() flags */
#define HC_DISCOVER_ALL	(1U << 0)	/* also sd* (SCSI/SATA) and vd* (virtio) */

enum hc_verdict {
	HC_VERDICT_SAFE,
	HC_VERDICT_EXCLUDED,
	HC_VERDICT_UNKNOWN,	/* could not be probed */
};

enum hc_reason {
	HC_REASON_NONE,
	HC_REASON_ROOT,		/* holds or is below the root file system */
	HC_REASON_SWAP,
	HC_REASON_MOUNTED,
	HC_REASON_HOLDERS,
	HC_REASON_EMPTY,	/* size 0 */
	HC_REASON_SIGNATURE,
	HC_REASON_PROBE,	/* the probe failed (UNKNOWN) */
	HC_REASON_MEMBER,	/* a member of the running pool (held by hypercacheN) */
};

#define HC_DRIVE_NAME_MAX	64
#define HC_DRIVE_TEXT_MAX	128

struct hc_drive {
	char name[HC_DRIVE_NAME_MAX];	/* kernel name, e.g. "nvme0n1" */
	char path[HC_DRIVE_NAME_MAX + 8];	/* "/dev/" + name */
	unsigned int major, minor;
	uint64_t bytes;			/* sysfs size * 512 */
	char model[HC_DRIVE_TEXT_MAX];	/* "" if sysfs has none */
	char serial[HC_DRIVE_TEXT_MAX];
	enum hc_verdict verdict;
	enum hc_reason reason;
	char signature[32];		/* libblkid TYPE/PTTYPE, HC_REASON_SIGNATURE */
	/* Why, for people: "carries an ext4 file system", "" when SAFE. */
	char detail[2 * HC_DRIVE_TEXT_MAX];
};

/*
 * hc_discover - find candidate drives under @root and judge each one.
 * @root:  "/" in production
 * @flags: HC_DISCOVER_*
 * @out:   set to a malloc'ed array sorted by name (free with hc_discover_free)
 * @n:     set to its length (0 with *out == NULL when nothing was found)
 *
 * Candidates are the whole disks in <root>/sys/class/block named nvmeXnY
 * (and sdX, vdX with HC_DISCOVER_ALL); partitions are never candidates.
 * Returns 0 or a negative errno (-ENOENT: no <root>/sys/class/block).
 * May block (reads files, opens devices).
 */
int hc_discover(const char *root, unsigned int flags, struct hc_drive **out,
		size_t *n);
void hc_discover_free(struct hc_drive *drives);

/*
 * hc_discover_check - judge one block device, whatever its kind (loop, dm
 * and partitions too).
 * @devpath: path of the device inside @root, e.g. "/dev/nvme1n1"; symlinks
 *           are resolved.  A block device is matched by its device number,
 *           anything else (a fake tree's image file) by its name.
 * Returns 0 with @out filled, -ENODEV if sysfs has no such block device, or
 * another negative errno.
 */
int hc_discover_check(const char *root, const char *devpath,
		      struct hc_drive *out);

/*
 * hc_discover_forcible() - whether an operator's --force may override the
 * verdict @d on a device: a file-system, RAID or partition signature (the
 * data is declared expendable) or a failed probe, yes.  The disk of the
 * root file system, a mounted device, active swap, a device with holders
 * (a member of the running pool among them) and an empty device: never; such a device is refused with or without
 * --force, and --force is not suggested.  A SAFE device: true.
 */
bool hc_discover_forcible(const struct hc_drive *d);

const char *hc_discover_verdict_name(enum hc_verdict v);	/* "safe", "excluded", ... */
const char *hc_discover_reason_name(enum hc_reason r);	/* "root", "swap", ... */

#endif /* HC_DISCOVER_H */
