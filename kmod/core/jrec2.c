// SPDX-License-Identifier: GPL-2.0
/*
 * Journal records of format v2 (see jrec2.h and Documentation/journal.md).
 * Core code: shared with the unit tests.
 */
#include "jrec2.h"

#define HC_JREC2_HEAD	sizeof(struct hc_jrec_disk)
#define HC_JREC2_BODY	sizeof(struct hc_jrec_object2_disk)
#define HC_JREC2_EXT	sizeof(struct hc_jrec_ext_disk)
/* Blocks a sub-chunk extent may reach: the largest chunk's. */
#define HC_JREC2_BLOCKS	(HC_CHUNK_SIZE_MAX / HC_SUBBLOCK_SIZE)

/* Standard CRC-32C of bytes [4, @len) of a record. */
static u32 hc_jrec2_csum(const void *p, size_t len)
{
	return ~hc_crc32c(~0U, (const u8 *)p + 4, len - 4);
}

static bool hc_jrec2_block_ok(u32 block_size)
{
	return is_power_of_2(block_size) && block_size >= HC_JREC_BLOCK_MIN &&
	       block_size <= HC_JREC_BLOCK_MAX;
}

static size_t hc_jrec2_pad(size_t bytes, u32 block_size)
{
	return (bytes + block_size - 1) & ~((size_t)block_size - 1);
}

/* Unpadded bytes of a v2 record; the arguments are within their limits. */
static size_t hc_jrec2_payload(u32 type, u32 uri_len, u32 nr_ext,
			       u32 etag_len)
{
	if (type == HC_JREC_DELETE)
		return HC_JREC2_HEAD + uri_len;
	return HC_JREC2_HEAD + HC_JREC2_BODY + nr_ext * HC_JREC2_EXT +
	       etag_len + uri_len;
}

/* Whether the v2-only fields of @r are absent (a record v1 can carry). */
static bool hc_jrec2_is_v1(const struct hc_jrec2 *r)
{
	return !(r->r.flags & ~HC_OBJ_F_ALL) && !r->etag_len &&
	       !r->backend_size && !r->backend_mtime;
}

/* Whether @r is a v2 record this version may write. */
static bool hc_jrec2_valid(const struct hc_jrec2 *r)
{
	const struct hc_jrec *b = &r->r;
	u64 blocks = 0;
	u32 i;

	if (b->uri_len < 1 || b->uri_len > HC_URI_MAX ||
	    memchr(b->uri, 0, b->uri_len))
		return false;
	if (b->type == HC_JREC_DELETE)
		return b->nr_ext == 0 && hc_jrec2_is_v1(r) && !b->flags;
	if (b->type != HC_JREC_OBJECT)
		return false;
	if (b->state < HC_OBJ_INGESTING || b->state > HC_OBJ_SYNCING ||
	    b->flags & ~HC_OBJ_F_ALL_V2 || b->nr_ext > HC_MAX_EXTENTS)
		return false;
	if (!(b->flags & HC_OBJ_F_BACKEND) &&
	    (r->etag_len || r->backend_size || r->backend_mtime))
		return false;
	if (r->etag_len > HC_ETAG_MAX || memchr(r->etag, 0, r->etag_len))
		return false;
	if (!(b->flags & HC_OBJ_F_SUBCHUNK)) {
		for (i = 0; i < b->nr_ext; i++)
			if (!b->ext[i].count ||
			    b->ext[i].count > ~0ULL - b->ext[i].start)
				return false;
		return true;
	}
	/* sub-chunk extents describe the object's blocks exactly */
	if (!b->nr_ext)
		return false;
	for (i = 0; i < b->nr_ext; i++) {
		const struct hc_sext *e = &r->sext[i];

		if (!e->nr_blocks || e->block >= HC_JREC2_BLOCKS ||
		    e->nr_blocks > HC_JREC2_BLOCKS - e->block)
			return false;
		blocks += e->nr_blocks;
	}
	return b->size && blocks == hc_slab_blocks(b->size);
}

/**
 * hc_jrec2_hdr_decode - check and decode the header block of a v1 or v2 half
 * @block: HC_JHDR_SIZE bytes read from the start of a half
 * @pool_uuid: the pool's UUID (16 bytes), or NULL to accept any pool
 * @h: filled on success; @h->version tells the half's version
 *
 * Return: as hc_jrec_hdr_decode(), with HC_JOURNAL_VERSION_V2 accepted.
 */
int hc_jrec2_hdr_decode(const void *block, const u8 *pool_uuid,
			struct hc_jrec_hdr *h)
{
	return hc_jrec_hdr_decode_ver(block, pool_uuid, HC_JOURNAL_VERSION_V2,
				      h);
}

/**
 * hc_jrec2_size - bytes a record takes in a half, padding included
 * @r: the record
 * @h: the half's header (its version and block size)
 *
 * Return: a multiple of @h->block_size, or 0 if @r cannot be written in
 * that half (hc_jrec2_encode() would return -EINVAL).
 */
size_t hc_jrec2_size(const struct hc_jrec2 *r, const struct hc_jrec_hdr *h)
{
	if (h->version == HC_JOURNAL_VERSION)
		return hc_jrec2_is_v1(r) ? hc_jrec_size(&r->r, h) : 0;
	if (h->version != HC_JOURNAL_VERSION_V2 ||
	    !hc_jrec2_block_ok(h->block_size) || !hc_jrec2_valid(r))
		return 0;
	return hc_jrec2_pad(hc_jrec2_payload(r->r.type, r->r.uri_len,
					     r->r.nr_ext, r->etag_len),
			    h->block_size);
}

/**
 * hc_jrec2_object_size - bytes the v2 OBJECT record of an object takes
 * @uri_len: bytes of its URI, 1..HC_URI_MAX
 * @nr_ext: its extents, 0..HC_MAX_EXTENTS
 * @etag_len: bytes of its ETag, 0..HC_ETAG_MAX
 * @block_size: the half's block size
 *
 * What the object costs a v2 half at every compaction (the capacity the
 * cache charges it).  Return: a multiple of @block_size, or 0 if an
 * argument is out of range.
 */
size_t hc_jrec2_object_size(u32 uri_len, u32 nr_ext, u32 etag_len,
			    u32 block_size)
{
	if (!hc_jrec2_block_ok(block_size) || uri_len < 1 ||
	    uri_len > HC_URI_MAX || nr_ext > HC_MAX_EXTENTS ||
	    etag_len > HC_ETAG_MAX)
		return 0;
	return hc_jrec2_pad(hc_jrec2_payload(HC_JREC_OBJECT, uri_len, nr_ext,
					     etag_len), block_size);
}

/**
 * hc_jrec2_max_size - bytes of the largest record of a v2 half
 * @block_size: the half's block size
 *
 * Return: a multiple of @block_size (never less than hc_jrec_max_size()),
 * or 0 if it is out of range.
 */
size_t hc_jrec2_max_size(u32 block_size)
{
	return hc_jrec2_object_size(HC_URI_MAX, HC_MAX_EXTENTS, HC_ETAG_MAX,
				    block_size);
}

/**
 * hc_jrec2_encode - build a record in the half's version
 * @r: the record; @r->r.seq, @r->r.csum and @r->version are ignored
 * @h: the half's header: a v1 half gets a v1 record (hc_jrec_encode(),
 *	and @r may then carry no v2 field), a v2 half a v2 record
 * @pos: where the record goes (as hc_jrec_encode())
 * @buf: where to build it, 8-byte aligned
 * @len: bytes available at @buf
 *
 * Return: the bytes written, padding zeroed; -EINVAL if @r is out of range
 * or cannot be written in a half of that version, the block size is bad
 * or @pos->seq is 0; -ENOSPC if @len is too small.  On failure @buf is
 * untouched.
 */
int hc_jrec2_encode(const struct hc_jrec2 *r, const struct hc_jrec_hdr *h,
		    const struct hc_jrec_pos *pos, void *buf, size_t len)
{
	struct hc_jrec_disk *d = buf;
	const struct hc_jrec *b = &r->r;
	size_t size = hc_jrec2_size(r, h);
	u8 *p = (u8 *)buf + HC_JREC2_HEAD;
	u32 i;

	if (h->version == HC_JOURNAL_VERSION)
		return size ? hc_jrec_encode(b, h, pos, buf, len) : -EINVAL;
	if (!size || !pos->seq)
		return -EINVAL;
	if (len < size)
		return -ENOSPC;

	memset(buf, 0, size);
	memcpy(d->magic, HC_JREC_MAGIC, HC_JREC_MAGIC_LEN);
	d->type = cpu_to_le16(b->type);
	d->version = cpu_to_le16(HC_JOURNAL_VERSION_V2);
	d->length = cpu_to_le32(size);
	d->seq = cpu_to_le64(pos->seq);
	d->prev_csum = cpu_to_le32(pos->prev);
	d->uri_len = cpu_to_le16(b->uri_len);
	d->nr_ext = cpu_to_le16(b->nr_ext);
	if (b->type == HC_JREC_OBJECT) {
		struct hc_jrec_object2_disk *o = (void *)p;

		o->size = cpu_to_le64(b->size);
		o->generation = cpu_to_le64(b->generation);
		o->state = cpu_to_le32(b->state);
		o->flags = cpu_to_le32(b->flags);
		if (b->flags & HC_OBJ_F_DATA_CRC)
			o->data_crc = cpu_to_le32(b->data_crc);
		o->etag_len = cpu_to_le16(r->etag_len);
		o->backend_size = cpu_to_le64(r->backend_size);
		o->backend_mtime = cpu_to_le64((u64)r->backend_mtime);
		p = (u8 *)(o + 1);
		for (i = 0; i < b->nr_ext; i++, p += HC_JREC2_EXT) {
			if (b->flags & HC_OBJ_F_SUBCHUNK) {
				struct hc_jrec_sext_disk *e = (void *)p;

				e->chunk = cpu_to_le64(r->sext[i].chunk);
				e->block = cpu_to_le32(r->sext[i].block);
				e->nr_blocks = cpu_to_le32(r->sext[i].nr_blocks);
			} else {
				struct hc_jrec_ext_disk *e = (void *)p;

				e->start = cpu_to_le64(b->ext[i].start);
				e->count = cpu_to_le64(b->ext[i].count);
			}
		}
		memcpy(p, r->etag, r->etag_len);
		p += r->etag_len;
	}
	memcpy(p, b->uri, b->uri_len);
	d->csum = cpu_to_le32(hc_jrec2_csum(buf, size));
	return size;
}

/* Decode the fields of a checksummed v2 record of @length bytes. */
static int hc_jrec2_decode_v2(const void *buf, u32 length,
			      const struct hc_jrec_pos *pos,
			      struct hc_jrec2 *r)
{
	const struct hc_jrec_disk *d = buf;
	const u8 *p = (const u8 *)buf + HC_JREC2_HEAD;
	struct hc_jrec *b = &r->r;
	u32 i;

	memset(b, 0, offsetof(struct hc_jrec, ext));
	r->version = HC_JOURNAL_VERSION_V2;
	r->etag_len = 0;
	r->backend_size = 0;
	r->backend_mtime = 0;
	b->type = le16_to_cpu(d->type);
	b->seq = pos->seq;
	b->csum = le32_to_cpu(d->csum);
	b->uri_len = le16_to_cpu(d->uri_len);
	b->nr_ext = le16_to_cpu(d->nr_ext);
	if ((b->type != HC_JREC_OBJECT && b->type != HC_JREC_DELETE) ||
	    b->uri_len < 1 || b->uri_len > HC_URI_MAX ||
	    b->nr_ext > HC_MAX_EXTENTS)
		return -EUCLEAN;
	if (b->type == HC_JREC_OBJECT) {
		const struct hc_jrec_object2_disk *o = (const void *)p;

		if (hc_jrec2_payload(HC_JREC_OBJECT, b->uri_len, b->nr_ext, 0) >
		    length)
			return -EUCLEAN;
		b->size = le64_to_cpu(o->size);
		b->generation = le64_to_cpu(o->generation);
		b->state = le32_to_cpu(o->state);
		b->flags = le32_to_cpu(o->flags);
		if (b->flags & HC_OBJ_F_DATA_CRC)
			b->data_crc = le32_to_cpu(o->data_crc);
		r->etag_len = le16_to_cpu(o->etag_len);
		r->backend_size = le64_to_cpu(o->backend_size);
		r->backend_mtime = (s64)le64_to_cpu(o->backend_mtime);
		if (r->etag_len > HC_ETAG_MAX ||
		    hc_jrec2_payload(HC_JREC_OBJECT, b->uri_len, b->nr_ext,
				     r->etag_len) > length)
			return -EUCLEAN;
		p = (const u8 *)(o + 1);
		for (i = 0; i < b->nr_ext; i++, p += HC_JREC2_EXT) {
			if (b->flags & HC_OBJ_F_SUBCHUNK) {
				const struct hc_jrec_sext_disk *e = (const void *)p;

				r->sext[i].chunk = le64_to_cpu(e->chunk);
				r->sext[i].block = le32_to_cpu(e->block);
				r->sext[i].nr_blocks = le32_to_cpu(e->nr_blocks);
			} else {
				const struct hc_jrec_ext_disk *e = (const void *)p;

				b->ext[i].start = le64_to_cpu(e->start);
				b->ext[i].count = le64_to_cpu(e->count);
			}
		}
		memcpy(r->etag, p, r->etag_len);
		p += r->etag_len;
	} else if (hc_jrec2_payload(HC_JREC_DELETE, b->uri_len, 0, 0) >
		   length) {
		return -EUCLEAN;
	}
	memcpy(b->uri, p, b->uri_len);
	if (!hc_jrec2_valid(r))
		return -EUCLEAN;
	return length;
}

/**
 * hc_jrec2_decode - check and decode the record at a position
 * @buf: the bytes at @pos->off of the half, 8-byte aligned
 * @len: bytes available at @buf (to the end of the half)
 * @h: the half's header, as decoded by hc_jrec2_hdr_decode()
 * @pos: the expected seq and predecessor checksum
 * @r: filled on success (fields the record does not carry are zero);
 *	unspecified on failure
 *
 * A v1 record is decoded by hc_jrec_decode(), unchanged.  Return: the
 * record's length; the errors of hc_jrec_decode(), and -EOPNOTSUPP for a
 * record newer than its half that continues its log (one that does not
 * is -ESTALE: the end of the log).
 */
int hc_jrec2_decode(const void *buf, size_t len, const struct hc_jrec_hdr *h,
		    const struct hc_jrec_pos *pos, struct hc_jrec2 *r)
{
	const struct hc_jrec_disk *d = buf;
	u32 length, version;
	int ret;

	if (!hc_jrec2_block_ok(h->block_size))
		return -EINVAL;
	if (len < h->block_size)
		return -ENODATA;
	if (memcmp(d->magic, HC_JREC_MAGIC, HC_JREC_MAGIC_LEN))
		return -ENODATA;
	length = le32_to_cpu(d->length);
	if (!length || length % h->block_size || length > len ||
	    length > hc_jrec2_max_size(h->block_size))
		return -EBADMSG;
	if (le32_to_cpu(d->csum) != hc_jrec2_csum(buf, length))
		return -EBADMSG;
	version = le16_to_cpu(d->version);
	if (version == HC_JOURNAL_VERSION) {
		ret = hc_jrec_decode(buf, len, h, pos, &r->r);
		r->version = HC_JOURNAL_VERSION;
		r->etag_len = 0;
		r->backend_size = 0;
		r->backend_mtime = 0;
		return ret;
	}
	/* continuing the log first, as hc_jrec_decode() */
	if (le64_to_cpu(d->seq) != pos->seq ||
	    le32_to_cpu(d->prev_csum) != pos->prev)
		return -ESTALE;
	if (version != HC_JOURNAL_VERSION_V2 || version > h->version)
		return -EOPNOTSUPP;
	return hc_jrec2_decode_v2(buf, length, pos, r);
}

/**
 * hc_jrec2_scan - replay a v1 or v2 half: every record of its log, in order
 * @half: the whole half, 8-byte aligned
 * @len: bytes in @half; must equal @h->half_size
 * @h: the half's header, as decoded by hc_jrec2_hdr_decode()
 * @r: scratch record, passed to @fn
 * @fn: called for each record in order, or NULL; returns 0 to go on
 * @arg: passed to @fn
 * @end: filled with the position after the last valid record
 *
 * The rules of hc_jrec_scan(), with hc_jrec2_decode().  Return: the number
 * of records passed to @fn, or a negative errno as hc_jrec_scan().
 */
int hc_jrec2_scan(const void *half, size_t len, const struct hc_jrec_hdr *h,
		  struct hc_jrec2 *r,
		  int (*fn)(void *arg, const struct hc_jrec2 *r), void *arg,
		  struct hc_jrec_pos *end)
{
	int n = 0, ret;

	hc_jrec_pos_init(end, h);
	if (len != h->half_size || !hc_jrec2_block_ok(h->block_size))
		return -EINVAL;

	while (end->off < len) {
		const u8 *rec = (const u8 *)half + end->off;

		ret = hc_jrec2_decode(rec, len - end->off, h, end, r);
		if (ret == -ENODATA || ret == -EBADMSG || ret == -ESTALE)
			break;
		if (ret < 0)
			return ret;
		if (fn) {
			ret = fn(arg, r);
			if (ret)
				return ret;
		}
		hc_jrec_advance(end, rec);
		n++;
	}
	return n;
}
