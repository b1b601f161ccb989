/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Member superblocks: encode, decode, validate one, validate a set.
 *
 * struct hc_sb_disk (uapi/hypercache_format.h) is decoded once, at the
 * boundary, into the CPU-endian struct hc_sb.  Core code: never blocks,
 * never allocates; every failure is a negative errno plus a static message.
 */
#ifndef HC_SB_H
#define HC_SB_H

#include "core.h"
#include "../../uapi/hypercache_format.h"

/* CPU-endian superblock; fields as in struct hc_sb_disk. */
struct hc_sb {
	u32 version;
	u64 feature_compat;
	u64 feature_ro_compat;
	u64 feature_incompat;
	u8 pool_uuid[16];
	u8 member_uuid[16];
	u32 member_index;
	u32 member_count;
	u32 chunk_size;
	u64 member_bytes;
	u64 meta_offset;
	u64 data_offset;
	u64 member_chunks;
	u64 ctime_ns;
};

/**
 * struct hc_sb_verdict - why a set of superblocks does not form a pool
 * @pos: position (in the caller's list) of the member at fault, or -1
 * @index: for a missing member, the first missing member index
 * @msg: static, human-readable reason
 */
struct hc_sb_verdict {
	int pos;
	u32 index;
	const char *msg;
};

u32 hc_sb_csum(const void *block);
void hc_sb_encode(const struct hc_sb *sb, void *block);
int hc_sb_decode(const void *block, struct hc_sb *sb, const char **msg);
int hc_sb_decode_feat(const void *block, u64 incompat_supp, struct hc_sb *sb,
		      const char **msg);
u32 hc_sb_format(const struct hc_sb *sb);
int hc_sb_geometry(u64 min_member_bytes, u32 chunk_size, u64 data_offset_req,
		   u64 *data_offset, u64 *member_chunks, const char **msg);
int hc_sb_check_set(const struct hc_sb *sbs, u32 n, u32 *order,
		    struct hc_sb_verdict *v);

#endif /* HC_SB_H */
