// SPDX-License-Identifier: GPL-2.0
/*
 * The v1 -> v2 upgrade step machine (see upgrade.h).  Core code: shared
 * with the unit tests.
 */
#include "upgrade.h"

static u64 hc_upgrade_all(u32 nr)
{
	return nr >= 64 ? ~0ULL : (1ULL << nr) - 1;
}

/**
 * hc_upgrade_sb_mask - which members' superblocks are already v2
 * @sbs: the decoded superblocks (hc_sb_decode_feat() with
 *	HC_FORMAT_V2_INCOMPAT), one per member present
 * @n: entries of @sbs
 * @sb_v2: filled with bit member_index set for each v2 superblock
 * @msg: set to a static reason on failure
 *
 * The members of a pool whose upgrade a crash interrupted differ in
 * HC_FEATURE_INCOMPAT_V2 (and their checksums) only; the caller then
 * checks the set with hc_sb_check_set() on copies with the bit set on all.
 *
 * Return: 0, or -EUCLEAN if the superblocks differ in another feature or
 * a member index is out of range.
 */
int hc_upgrade_sb_mask(const struct hc_sb *sbs, u32 n, u64 *sb_v2,
		       const char **msg)
{
	u64 other = 0;
	u32 i;

	*sb_v2 = 0;
	for (i = 0; i < n; i++) {
		u64 rest = sbs[i].feature_incompat & ~HC_FEATURE_INCOMPAT_V2;

		if (sbs[i].member_index >= HC_MAX_MEMBERS) {
			*msg = "member index out of range";
			return -EUCLEAN;
		}
		if (i && rest != other) {
			*msg = "members differ in incompatible features other than format v2";
			return -EUCLEAN;
		}
		other = rest;
		if (sbs[i].feature_incompat & HC_FEATURE_INCOMPAT_V2)
			*sb_v2 |= 1ULL << sbs[i].member_index;
	}
	return 0;
}

/**
 * hc_upgrade_format - what the pool is
 * @s: what assembly found
 * @msg: set to a static reason on failure
 *
 * Return: HC_POOL_FORMAT_V1 (no superblock is v2, the journal is v1);
 * HC_POOL_FORMAT_V2_PART (some superblocks are v2, or all are and the
 * journal is still v1: an upgrade a crash interrupted, which assembly
 * finishes); HC_POOL_FORMAT_V2; -EUCLEAN for a state the upgrade never
 * produces (a v2 journal under v1 superblocks, bits of absent members, an
 * unknown journal version), -EINVAL if @s->nr is out of range.
 */
int hc_upgrade_format(const struct hc_upgrade_state *s, const char **msg)
{
	u64 all;

	if (s->nr < 1 || s->nr > HC_MAX_MEMBERS) {
		*msg = "member count out of range";
		return -EINVAL;
	}
	all = hc_upgrade_all(s->nr);
	if (s->sb_v2 & ~all) {
		*msg = "format v2 flag on a member index past the member count";
		return -EUCLEAN;
	}
	if (s->journal_version != HC_JOURNAL_VERSION &&
	    s->journal_version != HC_JOURNAL_VERSION_V2) {
		*msg = "unknown journal version";
		return -EUCLEAN;
	}
	if (!s->sb_v2) {
		if (s->journal_version == HC_JOURNAL_VERSION)
			return HC_POOL_FORMAT_V1;
		*msg = "v2 journal under v1 superblocks";
		return -EUCLEAN;
	}
	if (s->sb_v2 != all || s->journal_version == HC_JOURNAL_VERSION)
		return HC_POOL_FORMAT_V2_PART;
	return HC_POOL_FORMAT_V2;
}

/**
 * hc_upgrade_next - the next step of the upgrade
 * @s: the pool's state now (after the previous step, or as assembly found
 *	it after a crash)
 * @step: filled with the step to take
 * @msg: set to a static reason on failure
 *
 * The steps: the superblock of every member not yet v2, lowest index
 * first; then the journal, when every superblock is v2; then done.  The
 * caller takes the step, makes it durable, updates @s and asks again; a
 * crash anywhere leaves a state this function continues from.
 *
 * Return: 0; -EBUSY if @s->busy and a step is left (quiesce first); the
 * errors of hc_upgrade_format().
 */
int hc_upgrade_next(const struct hc_upgrade_state *s,
		    struct hc_upgrade_step *step, const char **msg)
{
	int fmt = hc_upgrade_format(s, msg);
	u32 i;

	if (fmt < 0)
		return fmt;
	step->member = 0;
	if (fmt == HC_POOL_FORMAT_V2) {
		step->op = HC_UPGRADE_DONE;
		return 0;
	}
	if (s->busy) {
		*msg = "objects are being ingested, staged or uploaded";
		return -EBUSY;
	}
	for (i = 0; i < s->nr; i++) {
		if (!(s->sb_v2 & 1ULL << i)) {
			step->op = HC_UPGRADE_SB;
			step->member = i;
			return 0;
		}
	}
	step->op = HC_UPGRADE_JOURNAL;
	return 0;
}

/**
 * hc_upgrade_sb - the v2 superblock block of a v1 member
 * @v1: the member's decoded v1 superblock
 * @block: HC_SB_SIZE bytes, overwritten with the v2 block; only its first
 *	HC_UPGRADE_SB_BYTES differ from the v1 block's (checksum and
 *	feature_incompat), and only they are written
 */
void hc_upgrade_sb(const struct hc_sb *v1, void *block)
{
	struct hc_sb sb = *v1;

	sb.feature_incompat |= HC_FEATURE_INCOMPAT_V2;
	hc_sb_encode(&sb, block);
}

/**
 * hc_upgrade_record - the v2 record of an object from its v1 record
 * @v1: a decoded v1 record
 * @v2: filled: the same object, whole-chunk extents, no backend version
 *	(unknown until revalidation asks the backend)
 */
void hc_upgrade_record(const struct hc_jrec *v1, struct hc_jrec2 *v2)
{
	memset(v2, 0, sizeof(*v2));
	v2->r = *v1;
	v2->version = HC_JOURNAL_VERSION_V2;
}
