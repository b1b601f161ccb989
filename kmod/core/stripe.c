// SPDX-License-Identifier: GPL-2.0
/*
 * Stripe geometry (see stripe.h).  Core code: shared with the unit tests.
 */
#include "stripe.h"
#include "../../uapi/hypercache_format.h"

/**
 * hc_stripe_init - validate and fill a geometry
 * @s: geometry to fill
 * @members: number of members
 * @chunk_bytes: chunk size, a power of two in [HC_CHUNK_SIZE_MIN, _MAX]
 * @member_chunks: chunks per member, at least 1
 * @data_offset_bytes: start of the data area, a multiple of @chunk_bytes
 *
 * Return: 0, or -EINVAL if any argument is out of range or the address space
 * would not fit in 64-bit sector numbers.
 */
int hc_stripe_init(struct hc_stripe *s, u32 members, u32 chunk_bytes,
		   u64 member_chunks, u64 data_offset_bytes)
{
	u32 chunk_shift;

	if (members < 1 || members > HC_MAX_MEMBERS)
		return -EINVAL;
	if (!is_power_of_2(chunk_bytes) || chunk_bytes < HC_CHUNK_SIZE_MIN ||
	    chunk_bytes > HC_CHUNK_SIZE_MAX)
		return -EINVAL;
	if (member_chunks < 1 || data_offset_bytes % chunk_bytes)
		return -EINVAL;

	chunk_shift = ilog2(chunk_bytes) - 9;
	/* The capacity in bytes, members * member_chunks * chunk_bytes, must fit. */
	if (member_chunks > (~0ULL >> (chunk_shift + 9)) / members)
		return -EINVAL;
	if (data_offset_bytes >> 9 > ~0ULL - (member_chunks << chunk_shift))
		return -EINVAL;

	s->members = members;
	s->chunk_shift = chunk_shift;
	s->member_shift = is_power_of_2(members) ? (int)ilog2(members) : -1;
	s->member_chunks = member_chunks;
	s->data_offset = data_offset_bytes >> 9;
	return 0;
}

/* Chunks in the pool's address space. */
u64 hc_stripe_chunks(const struct hc_stripe *s)
{
	return s->member_chunks * s->members;
}

/* Sectors in the pool's address space. */
u64 hc_stripe_sectors(const struct hc_stripe *s)
{
	return hc_stripe_chunks(s) << s->chunk_shift;
}

/**
 * hc_stripe_map - find the member and member sector of a pool sector
 * @s: geometry
 * @sector: sector of the pool; must be below hc_stripe_sectors()
 * @loc: filled with member, member sector and sectors left in the chunk
 */
void hc_stripe_map(const struct hc_stripe *s, u64 sector,
		   struct hc_stripe_loc *loc)
{
	u64 chunk = sector >> s->chunk_shift;
	u32 in_chunk = sector & ((1ULL << s->chunk_shift) - 1);
	u64 mchunk;
	u32 member;

	if (s->member_shift >= 0) {
		member = chunk & (s->members - 1);
		mchunk = chunk >> s->member_shift;
	} else {
		mchunk = div_u64_rem(chunk, s->members, &member);
	}

	loc->member = member;
	loc->sector = s->data_offset + (mchunk << s->chunk_shift) + in_chunk;
	loc->chunk_left = (1U << s->chunk_shift) - in_chunk;
}

/**
 * hc_stripe_unmap - the pool sector stored at a member sector
 * @s: geometry
 * @member: member index
 * @msector: sector on that member
 * @sector: filled with the pool sector
 *
 * Return: 0, or -ERANGE if @msector is outside the member's data area or
 * @member is not a member.
 */
int hc_stripe_unmap(const struct hc_stripe *s, u32 member, u64 msector,
		    u64 *sector)
{
	u64 off, mchunk;

	if (member >= s->members || msector < s->data_offset)
		return -ERANGE;
	off = msector - s->data_offset;
	mchunk = off >> s->chunk_shift;
	if (mchunk >= s->member_chunks)
		return -ERANGE;
	*sector = ((mchunk * s->members + member) << s->chunk_shift) |
		  (off & ((1ULL << s->chunk_shift) - 1));
	return 0;
}
