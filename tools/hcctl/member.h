/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hcctl - a member's on-disk headers (member.c): read, scan, wipe.
 */
#ifndef HCCTL_MEMBER_H
#define HCCTL_MEMBER_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "sb.h"
#include "jrec.h"

/**
 * struct hcctl_member - what one block device says about itself
 * @path: the device node as given or found
 * @rdev: its device number
 * @bytes: its size (BLKGETSIZE64), 0 if unknown
 * @magic: the superblock block carries HC_SB_MAGIC (valid or not)
 * @sb_err: 0 if @sb is valid, else hc_sb_decode()'s or the read's -errno
 * @sb_msg: static reason for @sb_err
 * @sb: the decoded superblock (valid only if @sb_err is 0)
 * @jerr: hc_jrec_hdr_decode()'s result (or a read's -errno) per half
 * @jhdr: the decoded journal headers (valid where @jerr is 0)
 * @jcurrent: hc_jrec_current(): 0 (A), 1 (B) or a negative errno
 * @holder: "hypercacheN" while the running pool's disk holds it, else ""
 */
struct hcctl_member {
	char path[PATH_MAX];
	dev_t rdev;
	unsigned long long bytes;
	bool magic;
	int sb_err;
	const char *sb_msg;
	struct hc_sb sb;
	int jerr[2];
	struct hc_jrec_hdr jhdr[2];
	int jcurrent;
	char holder[32];
};

/* Read @path's headers into @m: 0, or -errno if it cannot be opened. */
int hcctl_member_read(const char *path, struct hcctl_member *m);

/*
 * Find the members of one pool among all block devices (the pool whose
 * UUID is @uuid, or the only one found), waiting up to @timeout_s seconds
 * for missing members to appear.  0 with the member paths in index order
 * in *@devs (free with hcctl_member_free_devs()), or -1 after printing why
 * not (which member is missing, which pools were found, ...).
 */
int hcctl_member_scan(const char *uuid, unsigned int timeout_s, char ***devs,
		      int *ndev);
void hcctl_member_free_devs(char **devs, int n);

#endif /* HCCTL_MEMBER_H */
