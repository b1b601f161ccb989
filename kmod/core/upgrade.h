/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-place upgrade of a pool from format v1 to v2, as a pure step
 * machine: what the pool is from what assembly found on its members, and
 * the next write that moves it on (Documentation/on-disk-format.md,
 * "Upgrading a v1 pool").
 *
 * The upgrade is one-way and has two phases, each crash-safe by itself:
 *
 *  1. superblocks: member by member, the first HC_UPGRADE_SB_BYTES of the
 *     superblock are rewritten with HC_FEATURE_INCOMPAT_V2 set (every byte
 *     that differs from the v1 block lies in them, so the write is one
 *     logical block and a power cut leaves the old or the new block, never
 *     a torn one).  From the first member written on, the pool is v2: a v1
 *     module refuses it, the v2 module assembles it and finishes;
 *  2. journal: the ordinary compaction into the other half, as v2 records
 *     under a v2 header (epoch + 1): records, flush, then the header to one
 *     member after another with FUA; a crash before the header is durable
 *     on one member leaves the v1 half current, which v2 reads.
 *
 * No data moves: v1 objects keep their whole-chunk extents and get no
 * backend version (revalidation fetches it).  Core code: no locks, never
 * sleeps, never allocates.
 */
#ifndef HC_UPGRADE_H
#define HC_UPGRADE_H

#include "core.h"
#include "sb.h"
#include "jrec2.h"
#include "../../uapi/hypercache_format.h"

/* Bytes of the superblock the upgrade writes: one 512-byte logical block. */
#define HC_UPGRADE_SB_BYTES	512

/* What a pool is, from its superblocks and its current journal half. */
#define HC_POOL_FORMAT_V1	1	/* assembles as v1; upgrade not begun */
#define HC_POOL_FORMAT_V2	2	/* v2; the upgrade (if any) is complete */
#define HC_POOL_FORMAT_V2_PART	3	/* v2, upgrade interrupted: finish it */

/* The steps of the machine. */
#define HC_UPGRADE_DONE		0	/* nothing left to do */
#define HC_UPGRADE_SB		1	/* write member @member's superblock */
#define HC_UPGRADE_JOURNAL	2	/* compact the journal into a v2 half */

/**
 * struct hc_upgrade_state - what assembly found, and what the cache says
 * @nr: members of the pool, 1..HC_MAX_MEMBERS
 * @sb_v2: bit i set: member index i's superblock has HC_FEATURE_INCOMPAT_V2
 * @journal_version: version of the current half's header (1 or 2)
 * @busy: objects are INGESTING or STAGED, or an upload is in flight: the
 *	upgrade's journal step would race them
 */
struct hc_upgrade_state {
	u32 nr;
	u64 sb_v2;
	u32 journal_version;
	bool busy;
};

/**
 * struct hc_upgrade_step - the next step
 * @op: HC_UPGRADE_DONE, HC_UPGRADE_SB or HC_UPGRADE_JOURNAL
 * @member: HC_UPGRADE_SB: the member index whose superblock to write
 */
struct hc_upgrade_step {
	u32 op;
	u32 member;
};

int hc_upgrade_sb_mask(const struct hc_sb *sbs, u32 n, u64 *sb_v2,
		       const char **msg);
int hc_upgrade_format(const struct hc_upgrade_state *s, const char **msg);
int hc_upgrade_next(const struct hc_upgrade_state *s,
		    struct hc_upgrade_step *step, const char **msg);
void hc_upgrade_sb(const struct hc_sb *v1, void *block);
void hc_upgrade_record(const struct hc_jrec *v1, struct hc_jrec2 *v2);

#endif /* HC_UPGRADE_H */
