// SPDX-License-Identifier: GPL-2.0
/*
 * Member superblocks (see sb.h).  Core code: shared with the unit tests.
 */
#include "sb.h"

/* The largest data offset a pool creation picks by itself. */
#define HC_DATA_OFFSET_AUTO_MAX	SZ_1G

/* Standard CRC-32C of bytes [4, HC_SB_SIZE) of a superblock block. */
u32 hc_sb_csum(const void *block)
{
	return ~hc_crc32c(~0U, (const u8 *)block + 4, HC_SB_SIZE - 4);
}

/**
 * hc_sb_encode - build the on-disk block of a superblock
 * @sb: superblock to write
 * @block: HC_SB_SIZE bytes, entirely overwritten
 */
void hc_sb_encode(const struct hc_sb *sb, void *block)
{
	struct hc_sb_disk *d = block;

	memset(block, 0, HC_SB_SIZE);
	memcpy(d->magic, HC_SB_MAGIC, HC_SB_MAGIC_LEN);
	d->version = cpu_to_le32(sb->version);
	d->sb_size = cpu_to_le32(HC_SB_SIZE);
	d->feature_compat = cpu_to_le64(sb->feature_compat);
	d->feature_ro_compat = cpu_to_le64(sb->feature_ro_compat);
	d->feature_incompat = cpu_to_le64(sb->feature_incompat);
	memcpy(d->pool_uuid, sb->pool_uuid, 16);
	memcpy(d->member_uuid, sb->member_uuid, 16);
	d->member_index = cpu_to_le32(sb->member_index);
	d->member_count = cpu_to_le32(sb->member_count);
	d->chunk_size = cpu_to_le32(sb->chunk_size);
	d->member_bytes = cpu_to_le64(sb->member_bytes);
	d->meta_offset = cpu_to_le64(sb->meta_offset);
	d->data_offset = cpu_to_le64(sb->data_offset);
	d->member_chunks = cpu_to_le64(sb->member_chunks);
	d->ctime_ns = cpu_to_le64(sb->ctime_ns);
	d->csum = cpu_to_le32(hc_sb_csum(block));
}

/**
 * hc_sb_decode - check and decode the on-disk block of a superblock
 * @block: HC_SB_SIZE bytes read from offset HC_SB_OFFSET of a member
 * @sb: filled on success
 * @msg: set to a static reason on failure
 *
 * Return: 0; -EINVAL if the block carries no HyperCache magic; -EBADMSG if
 * the checksum does not match; -EOPNOTSUPP for a newer format version or an
 * unknown incompatible or read-only-compatible feature; -EUCLEAN if a field
 * is out of range (a corrupt or hand-made superblock).
 */
int hc_sb_decode(const void *block, struct hc_sb *sb, const char **msg)
{
	return hc_sb_decode_feat(block, HC_FEATURE_INCOMPAT_SUPP, sb, msg);
}

/**
 * hc_sb_decode_feat - hc_sb_decode() for a reader of more features
 * @block: HC_SB_SIZE bytes read from offset HC_SB_OFFSET of a member
 * @incompat_supp: the incompatible features the caller understands (the
 *	format v2 core: HC_FORMAT_V2_INCOMPAT)
 * @sb: filled on success
 * @msg: set to a static reason on failure
 *
 * Return: as hc_sb_decode().
 */
int hc_sb_decode_feat(const void *block, u64 incompat_supp, struct hc_sb *sb,
		      const char **msg)
{
	const struct hc_sb_disk *d = block;

	if (memcmp(d->magic, HC_SB_MAGIC, HC_SB_MAGIC_LEN)) {
		*msg = "no HyperCache superblock";
		return -EINVAL;
	}
	if (le32_to_cpu(d->csum) != hc_sb_csum(block)) {
		*msg = "superblock checksum mismatch";
		return -EBADMSG;
	}

	sb->version = le32_to_cpu(d->version);
	sb->feature_compat = le64_to_cpu(d->feature_compat);
	sb->feature_ro_compat = le64_to_cpu(d->feature_ro_compat);
	sb->feature_incompat = le64_to_cpu(d->feature_incompat);
	memcpy(sb->pool_uuid, d->pool_uuid, 16);
	memcpy(sb->member_uuid, d->member_uuid, 16);
	sb->member_index = le32_to_cpu(d->member_index);
	sb->member_count = le32_to_cpu(d->member_count);
	sb->chunk_size = le32_to_cpu(d->chunk_size);
	sb->member_bytes = le64_to_cpu(d->member_bytes);
	sb->meta_offset = le64_to_cpu(d->meta_offset);
	sb->data_offset = le64_to_cpu(d->data_offset);
	sb->member_chunks = le64_to_cpu(d->member_chunks);
	sb->ctime_ns = le64_to_cpu(d->ctime_ns);

	if (sb->version == 0 || sb->version > HC_SB_VERSION) {
		*msg = "unsupported superblock format version";
		return -EOPNOTSUPP;
	}
	if (sb->feature_incompat & ~incompat_supp) {
		*msg = "unknown incompatible feature";
		return -EOPNOTSUPP;
	}
	if (sb->feature_ro_compat & ~HC_FEATURE_RO_COMPAT_SUPP) {
		*msg = "unknown read-only-compatible feature";
		return -EOPNOTSUPP;
	}
	if (le32_to_cpu(d->sb_size) != HC_SB_SIZE) {
		*msg = "superblock size field is wrong";
		return -EUCLEAN;
	}
	if (sb->member_count < 1 || sb->member_count > HC_MAX_MEMBERS ||
	    sb->member_index >= sb->member_count) {
		*msg = "member index or count out of range";
		return -EUCLEAN;
	}
	if (!is_power_of_2(sb->chunk_size) ||
	    sb->chunk_size < HC_CHUNK_SIZE_MIN ||
	    sb->chunk_size > HC_CHUNK_SIZE_MAX) {
		*msg = "chunk size out of range";
		return -EUCLEAN;
	}
	if (sb->meta_offset != HC_SB_SIZE ||
	    sb->data_offset < HC_DATA_OFFSET_MIN ||
	    sb->data_offset % sb->chunk_size) {
		*msg = "metadata or data offset out of range";
		return -EUCLEAN;
	}
	if (sb->data_offset >= sb->member_bytes || sb->member_chunks < 1 ||
	    sb->member_chunks > (sb->member_bytes - sb->data_offset) /
				sb->chunk_size) {
		*msg = "data area does not fit the member";
		return -EUCLEAN;
	}
	return 0;
}

/**
 * hc_sb_format - the format of the pool a decoded superblock belongs to
 * @sb: a superblock hc_sb_decode() accepted
 *
 * Return: 2 if it carries HC_FEATURE_INCOMPAT_V2 (the superblock's own
 * @version stays 1), else @sb->version.
 */
u32 hc_sb_format(const struct hc_sb *sb)
{
	return sb->feature_incompat & HC_FEATURE_INCOMPAT_V2 ? 2 : sb->version;
}

/**
 * hc_sb_geometry - lay out the members of a new pool
 * @min_member_bytes: size of the smallest member
 * @chunk_size: chunk size (valid: a power of two in range)
 * @data_offset_req: requested start of the data area, or 0 for automatic
 *	(1/256 of the smallest member, between one chunk and 1 GiB)
 * @data_offset: the chosen data offset, a multiple of @chunk_size >= 1 MiB
 * @member_chunks: chunks per member
 * @msg: set to a static reason on failure
 *
 * Return: 0, or -ENOSPC if the smallest member cannot hold the metadata
 * area and at least one chunk, or -EINVAL for a request beyond that.
 */
int hc_sb_geometry(u64 min_member_bytes, u32 chunk_size, u64 data_offset_req,
		   u64 *data_offset, u64 *member_chunks, const char **msg)
{
	u64 off = data_offset_req;

	if (!off) {
		off = min_member_bytes / 256;
		if (off > HC_DATA_OFFSET_AUTO_MAX)
			off = HC_DATA_OFFSET_AUTO_MAX;
	}
	if (off < HC_DATA_OFFSET_MIN)
		off = HC_DATA_OFFSET_MIN;
	if (off > ~0ULL - chunk_size) {
		*msg = "data offset out of range";
		return -EINVAL;
	}
	off = (off + chunk_size - 1) & ~((u64)chunk_size - 1);

	if (min_member_bytes < off || min_member_bytes - off < chunk_size) {
		*msg = data_offset_req ? "data offset leaves no room for data" :
					 "member too small for one chunk of data";
		return data_offset_req ? -EINVAL : -ENOSPC;
	}
	*data_offset = off;
	*member_chunks = (min_member_bytes - off) / chunk_size;
	return 0;
}

/* Geometry every member of one pool must agree on. */
static bool hc_sb_same_geometry(const struct hc_sb *a, const struct hc_sb *b)
{
	return a->version == b->version &&
	       a->feature_compat == b->feature_compat &&
	       a->feature_ro_compat == b->feature_ro_compat &&
	       a->feature_incompat == b->feature_incompat &&
	       a->member_count == b->member_count &&
	       a->chunk_size == b->chunk_size &&
	       a->meta_offset == b->meta_offset &&
	       a->data_offset == b->data_offset &&
	       a->member_chunks == b->member_chunks;
}

/**
 * hc_sb_check_set - check that decoded superblocks form one complete pool
 * @sbs: the members' decoded superblocks, in the order the caller gave them
 * @n: number of entries in @sbs (1..HC_MAX_MEMBERS)
 * @order: filled on success: @order[index] = position in @sbs of the member
 *	with that member index; HC_MAX_MEMBERS entries
 * @v: filled on failure
 *
 * Return: 0; -EINVAL if @n is out of range; -EXDEV if a member belongs to
 * another pool than the first; -EUCLEAN if a member of the same pool
 * disagrees on the geometry; -EEXIST if two members carry the same index;
 * -ENODEV if a member is missing.
 */
int hc_sb_check_set(const struct hc_sb *sbs, u32 n, u32 *order,
		    struct hc_sb_verdict *v)
{
	u64 seen = 0;
	u32 i;

	v->pos = -1;
	v->index = 0;
	if (n < 1 || n > HC_MAX_MEMBERS) {
		v->msg = "number of members out of range";
		return -EINVAL;
	}

	for (i = 0; i < n; i++) {
		const struct hc_sb *sb = &sbs[i];

		v->pos = i;
		if (memcmp(sb->pool_uuid, sbs[0].pool_uuid, 16)) {
			v->msg = "member of a different pool";
			return -EXDEV;
		}
		if (!hc_sb_same_geometry(sb, &sbs[0])) {
			v->msg = "member disagrees with the pool's geometry";
			return -EUCLEAN;
		}
		if (seen & (1ULL << sb->member_index)) {
			v->msg = "duplicate member (its index is given twice)";
			return -EEXIST;
		}
		seen |= 1ULL << sb->member_index;
		order[sb->member_index] = i;
	}

	v->pos = -1;
	if (n < sbs[0].member_count) {
		for (i = 0; i < sbs[0].member_count; i++)
			if (!(seen & (1ULL << i)))
				break;
		v->index = i;
		v->msg = "member missing";
		return -ENODEV;
	}
	return 0;
}
