/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stripe geometry: the pool's address space as RAID-0 over its members.
 *
 * Virtual chunk v lives on member v mod N at member chunk v div N, and member
 * chunk c begins at sector data_offset + (c << chunk_shift) of that member.
 * Pure arithmetic (core code): never blocks, never allocates.
 */
#ifndef HC_STRIPE_H
#define HC_STRIPE_H

#include "core.h"

/**
 * struct hc_stripe - geometry of a pool, all in 512-byte sectors
 * @members: number of members N (1..HC_MAX_MEMBERS)
 * @chunk_shift: log2 of the chunk size in sectors
 * @member_shift: log2(@members) when it is a power of two, else -1
 * @member_chunks: chunks in the data area of each member
 * @data_offset: first sector of chunk 0 on each member
 */
struct hc_stripe {
	u32 members;
	u32 chunk_shift;
	int member_shift;
	u64 member_chunks;
	u64 data_offset;
};

/**
 * struct hc_stripe_loc - where one sector of the pool lives
 * @member: member index
 * @sector: sector on that member (data offset included)
 * @chunk_left: sectors from @sector to the end of its chunk (>= 1)
 */
struct hc_stripe_loc {
	u32 member;
	u64 sector;
	u32 chunk_left;
};

int hc_stripe_init(struct hc_stripe *s, u32 members, u32 chunk_bytes,
		   u64 member_chunks, u64 data_offset_bytes);
u64 hc_stripe_chunks(const struct hc_stripe *s);
u64 hc_stripe_sectors(const struct hc_stripe *s);
void hc_stripe_map(const struct hc_stripe *s, u64 sector,
		   struct hc_stripe_loc *loc);
int hc_stripe_unmap(const struct hc_stripe *s, u32 member, u64 msector,
		    u64 *sector);

#endif /* HC_STRIPE_H */
