// SPDX-License-Identifier: GPL-2.0
/*
 * Journal records (see jrec.h and Documentation/journal.md).  Core code:
 * shared with the unit tests.
 */
#include "jrec.h"

#define HC_JREC_HEAD	sizeof(struct hc_jrec_disk)
#define HC_JREC_BODY	sizeof(struct hc_jrec_object_disk)
#define HC_JREC_EXT	sizeof(struct hc_jrec_ext_disk)

/* Standard CRC-32C of bytes [4, @len) of a header block or a record. */
static u32 hc_jrec_csum(const void *p, size_t len)
{
	return ~hc_crc32c(~0U, (const u8 *)p + 4, len - 4);
}

static bool hc_jrec_block_ok(u32 block_size)
{
	return is_power_of_2(block_size) && block_size >= HC_JREC_BLOCK_MIN &&
	       block_size <= HC_JREC_BLOCK_MAX;
}

/* Unpadded bytes of a record; the arguments are within their limits. */
static size_t hc_jrec_payload(u32 type, u32 uri_len, u32 nr_ext)
{
	if (type == HC_JREC_DELETE)
		return HC_JREC_HEAD + uri_len;
	return HC_JREC_HEAD + HC_JREC_BODY + nr_ext * HC_JREC_EXT + uri_len;
}

static size_t hc_jrec_pad(size_t bytes, u32 block_size)
{
	return (bytes + block_size - 1) & ~((size_t)block_size - 1);
}

/* Whether @r is a record this version may write. */
static bool hc_jrec_valid(const struct hc_jrec *r)
{
	u32 i;

	if (r->uri_len < 1 || r->uri_len > HC_URI_MAX ||
	    memchr(r->uri, 0, r->uri_len))
		return false;
	if (r->type == HC_JREC_DELETE)
		return r->nr_ext == 0;
	if (r->type != HC_JREC_OBJECT)
		return false;
	if (r->state < HC_OBJ_INGESTING || r->state > HC_OBJ_SYNCING ||
	    r->flags & ~HC_OBJ_F_ALL || r->nr_ext > HC_MAX_EXTENTS)
		return false;
	for (i = 0; i < r->nr_ext; i++)
		if (!r->ext[i].count || r->ext[i].count > ~0ULL - r->ext[i].start)
			return false;
	return true;
}

/**
 * hc_jrec_halves - where the two halves of a member's journal lie
 * @meta_offset: start of the metadata area (HC_SB_SIZE), a multiple of
 *	HC_JHDR_SIZE
 * @data_offset: start of the data area
 * @half_off: filled with the byte offsets of half A and half B
 * @half_size: filled with the bytes in each half, a multiple of
 *	HC_JHDR_SIZE
 *
 * Return: 0, or -EINVAL if the metadata area cannot hold two halves of at
 * least two header blocks each.
 */
int hc_jrec_halves(u64 meta_offset, u64 data_offset, u64 *half_off,
		   u64 *half_size)
{
	u64 half;

	if (meta_offset % HC_JHDR_SIZE || data_offset <= meta_offset)
		return -EINVAL;
	half = (data_offset - meta_offset) / 2 & ~(u64)(HC_JHDR_SIZE - 1);
	if (half < 2 * HC_JHDR_SIZE)
		return -EINVAL;
	half_off[0] = meta_offset;
	half_off[1] = meta_offset + half;
	*half_size = half;
	return 0;
}

/* Whether the fields of a header are within their limits. */
static bool hc_jrec_hdr_valid(const struct hc_jrec_hdr *h)
{
	return hc_jrec_block_ok(h->block_size) && h->epoch >= 1 &&
	       h->start_seq >= 1 && !(h->half_size % HC_JHDR_SIZE) &&
	       h->half_size >= 2 * HC_JHDR_SIZE;
}

/**
 * hc_jrec_hdr_encode_ver - build the header block of a half of a version
 * @h: header to write (@version is ignored: @version is written);
 *	@h->csum is set to the block's checksum
 * @version: HC_JOURNAL_VERSION, or HC_JOURNAL_VERSION_V2 (jrec2.h)
 * @block: HC_JHDR_SIZE bytes, entirely overwritten
 *
 * Return: 0, or -EINVAL if a field or @version is out of range (@block
 * untouched).
 */
int hc_jrec_hdr_encode_ver(struct hc_jrec_hdr *h, u32 version, void *block)
{
	struct hc_jhdr_disk *d = block;

	if (!hc_jrec_hdr_valid(h) || version < HC_JOURNAL_VERSION ||
	    version > HC_JOURNAL_VERSION_V2)
		return -EINVAL;
	memset(block, 0, HC_JHDR_SIZE);
	memcpy(d->magic, HC_JHDR_MAGIC, HC_JHDR_MAGIC_LEN);
	d->version = cpu_to_le32(version);
	d->hdr_size = cpu_to_le32(HC_JHDR_SIZE);
	d->block_size = cpu_to_le32(h->block_size);
	d->epoch = cpu_to_le64(h->epoch);
	d->start_seq = cpu_to_le64(h->start_seq);
	d->half_size = cpu_to_le64(h->half_size);
	memcpy(d->pool_uuid, h->pool_uuid, 16);
	h->version = version;
	h->csum = hc_jrec_csum(block, HC_JHDR_SIZE);
	d->csum = cpu_to_le32(h->csum);
	return 0;
}

/**
 * hc_jrec_hdr_encode - build the header block of a half (format v1)
 * @h: header to write (@version is ignored: HC_JOURNAL_VERSION is written);
 *	@h->csum is set to the block's checksum
 * @block: HC_JHDR_SIZE bytes, entirely overwritten
 *
 * Return: 0, or -EINVAL if a field is out of range (@block untouched).
 */
int hc_jrec_hdr_encode(struct hc_jrec_hdr *h, void *block)
{
	return hc_jrec_hdr_encode_ver(h, HC_JOURNAL_VERSION, block);
}

/**
 * hc_jrec_hdr_decode_ver - check and decode the header block of a half
 * @block: HC_JHDR_SIZE bytes read from the start of a half
 * @pool_uuid: the pool's UUID (16 bytes), or NULL to accept any pool
 * @max_version: the newest journal version the caller reads
 * @h: filled on success
 *
 * Return: 0; -ENODATA if there is no header (no magic: a half never
 * written) or it belongs to another pool; -EBADMSG if the checksum does not
 * match (a torn header write); -EOPNOTSUPP for a version of 0 or above
 * @max_version (@h->version tells which); -EUCLEAN if a field is out of
 * range.
 */
int hc_jrec_hdr_decode_ver(const void *block, const u8 *pool_uuid,
			   u32 max_version, struct hc_jrec_hdr *h)
{
	const struct hc_jhdr_disk *d = block;

	if (memcmp(d->magic, HC_JHDR_MAGIC, HC_JHDR_MAGIC_LEN))
		return -ENODATA;
	h->csum = le32_to_cpu(d->csum);
	if (h->csum != hc_jrec_csum(block, HC_JHDR_SIZE))
		return -EBADMSG;
	if (pool_uuid && memcmp(d->pool_uuid, pool_uuid, 16))
		return -ENODATA;
	h->version = le32_to_cpu(d->version);
	if (h->version < HC_JOURNAL_VERSION || h->version > max_version)
		return -EOPNOTSUPP;
	h->block_size = le32_to_cpu(d->block_size);
	h->epoch = le64_to_cpu(d->epoch);
	h->start_seq = le64_to_cpu(d->start_seq);
	h->half_size = le64_to_cpu(d->half_size);
	memcpy(h->pool_uuid, d->pool_uuid, 16);
	if (le32_to_cpu(d->hdr_size) != HC_JHDR_SIZE || !hc_jrec_hdr_valid(h))
		return -EUCLEAN;
	return 0;
}

/**
 * hc_jrec_hdr_decode - check and decode the header block of a v1 half
 * @block: HC_JHDR_SIZE bytes read from the start of a half
 * @pool_uuid: the pool's UUID (16 bytes), or NULL to accept any pool
 * @h: filled on success
 *
 * Return: as hc_jrec_hdr_decode_ver() with HC_JOURNAL_VERSION: a v2 half
 * is -EOPNOTSUPP.
 */
int hc_jrec_hdr_decode(const void *block, const u8 *pool_uuid,
		       struct hc_jrec_hdr *h)
{
	return hc_jrec_hdr_decode_ver(block, pool_uuid, HC_JOURNAL_VERSION, h);
}

/**
 * hc_jrec_current - pick the current half
 * @a: decoded header of half A (looked at only if @err_a is 0)
 * @err_a: what hc_jrec_hdr_decode() (or reading the block) returned for A
 * @b: decoded header of half B
 * @err_b: the same for B
 *
 * A half whose header is absent or torn (-ENODATA, -EBADMSG) does not
 * count; of two valid headers the higher epoch wins.  Any other error of
 * either half (-EOPNOTSUPP: a newer writer; -EUCLEAN; an I/O error) is
 * returned: falling back to the other half could replay an older log.
 *
 * Return: 0 for A, 1 for B; -ENODATA if neither half has a header (a new
 * pool); -EUCLEAN if both have the same epoch; or the error of A, else of B.
 */
int hc_jrec_current(const struct hc_jrec_hdr *a, int err_a,
		    const struct hc_jrec_hdr *b, int err_b)
{
	bool none_a = err_a == -ENODATA || err_a == -EBADMSG;
	bool none_b = err_b == -ENODATA || err_b == -EBADMSG;

	if (err_a && !none_a)
		return err_a;
	if (err_b && !none_b)
		return err_b;
	if (none_a && none_b)
		return -ENODATA;
	if (none_a)
		return 1;
	if (none_b)
		return 0;
	if (a->epoch == b->epoch)
		return -EUCLEAN;
	return a->epoch > b->epoch ? 0 : 1;
}

/* The position of a half's first record (never fails). */
void hc_jrec_pos_init(struct hc_jrec_pos *pos, const struct hc_jrec_hdr *h)
{
	pos->off = HC_JHDR_SIZE;
	pos->seq = h->start_seq;
	pos->prev = h->csum;
}

/*
 * Move @pos past @rec, a record just encoded or decoded at @pos (never
 * fails).
 */
void hc_jrec_advance(struct hc_jrec_pos *pos, const void *rec)
{
	const struct hc_jrec_disk *d = rec;

	pos->off += le32_to_cpu(d->length);
	pos->seq++;
	pos->prev = le32_to_cpu(d->csum);
}

/**
 * hc_jrec_size - bytes a record takes in a half, padding included
 * @r: the record
 * @h: the half's header (for its block size)
 *
 * Return: a multiple of @h->block_size, or 0 if @r or the block size is out
 * of range (hc_jrec_encode() would return -EINVAL).
 */
size_t hc_jrec_size(const struct hc_jrec *r, const struct hc_jrec_hdr *h)
{
	if (!hc_jrec_block_ok(h->block_size) || !hc_jrec_valid(r))
		return 0;
	return hc_jrec_pad(hc_jrec_payload(r->type, r->uri_len, r->nr_ext),
			   h->block_size);
}

/**
 * hc_jrec_object_size - bytes the OBJECT record of an object takes in a half
 * @uri_len: bytes of its URI, 1..HC_URI_MAX
 * @nr_ext: its extents, 0..HC_MAX_EXTENTS
 * @block_size: the half's block size
 *
 * What the object costs the journal at every compaction (the capacity the
 * cache charges it).  Return: a multiple of @block_size, or 0 if an
 * argument is out of range.
 */
size_t hc_jrec_object_size(u32 uri_len, u32 nr_ext, u32 block_size)
{
	if (!hc_jrec_block_ok(block_size) || uri_len < 1 ||
	    uri_len > HC_URI_MAX || nr_ext > HC_MAX_EXTENTS)
		return 0;
	return hc_jrec_pad(hc_jrec_payload(HC_JREC_OBJECT, uri_len, nr_ext),
			   block_size);
}

/**
 * hc_jrec_max_size - bytes of the largest record of a half
 * @block_size: the half's block size
 *
 * An OBJECT with a HC_URI_MAX-byte URI and HC_MAX_EXTENTS extents; no
 * record is longer.  Return: a multiple of @block_size, or 0 if it is out
 * of range.
 */
size_t hc_jrec_max_size(u32 block_size)
{
	return hc_jrec_object_size(HC_URI_MAX, HC_MAX_EXTENTS, block_size);
}

/**
 * hc_jrec_encode - build a record
 * @r: the record; @r->seq and @r->csum are ignored
 * @h: the half's header
 * @pos: where the record goes: its seq and predecessor checksum (the caller
 *	writes @buf at @pos->off, then calls hc_jrec_advance())
 * @buf: where to build it, 8-byte aligned
 * @len: bytes available at @buf
 *
 * Return: the bytes written, hc_jrec_size(), padding zeroed; -EINVAL if a
 * field of @r is out of range (a URI with a NUL, a bad state, an empty
 * extent...), the block size is bad or @pos->seq is 0; -ENOSPC if @len is
 * too small (the half is full: time to compact).  On failure @buf is
 * untouched.
 */
int hc_jrec_encode(const struct hc_jrec *r, const struct hc_jrec_hdr *h,
		   const struct hc_jrec_pos *pos, void *buf, size_t len)
{
	struct hc_jrec_disk *d = buf;
	size_t size = hc_jrec_size(r, h);
	u8 *p = (u8 *)buf + HC_JREC_HEAD;
	u32 i;

	if (!size || !pos->seq)
		return -EINVAL;
	if (len < size)
		return -ENOSPC;

	memset(buf, 0, size);
	memcpy(d->magic, HC_JREC_MAGIC, HC_JREC_MAGIC_LEN);
	d->type = cpu_to_le16(r->type);
	d->version = cpu_to_le16(HC_JOURNAL_VERSION);
	d->length = cpu_to_le32(size);
	d->seq = cpu_to_le64(pos->seq);
	d->prev_csum = cpu_to_le32(pos->prev);
	d->uri_len = cpu_to_le16(r->uri_len);
	d->nr_ext = cpu_to_le16(r->nr_ext);
	if (r->type == HC_JREC_OBJECT) {
		struct hc_jrec_object_disk *o = (void *)p;
		struct hc_jrec_ext_disk *e = (void *)(o + 1);

		o->size = cpu_to_le64(r->size);
		o->generation = cpu_to_le64(r->generation);
		o->state = cpu_to_le32(r->state);
		o->flags = cpu_to_le32(r->flags);
		if (r->flags & HC_OBJ_F_DATA_CRC)
			o->data_crc = cpu_to_le32(r->data_crc);
		for (i = 0; i < r->nr_ext; i++) {
			e[i].start = cpu_to_le64(r->ext[i].start);
			e[i].count = cpu_to_le64(r->ext[i].count);
		}
		p = (u8 *)(e + r->nr_ext);
	}
	memcpy(p, r->uri, r->uri_len);
	d->csum = cpu_to_le32(hc_jrec_csum(buf, size));
	return size;
}

/**
 * hc_jrec_decode - check and decode the record at a position
 * @buf: the bytes at @pos->off of the half, 8-byte aligned
 * @len: bytes available at @buf (to the end of the half)
 * @h: the half's header, as decoded (its block size is valid)
 * @pos: the expected seq and predecessor checksum
 * @r: filled on success (fields a DELETE does not carry are zero); its
 *	contents are unspecified on failure
 *
 * Return: the record's length (the bytes to advance); -EINVAL if the
 * header's block size is out of range (a caller bug); -ENODATA if there is
 * no record (fewer than a block left, zeroes, no magic); -EBADMSG if the
 * length is impossible or the checksum does not match (torn or corrupt);
 * -ESTALE if the record does not continue the log (seq or predecessor
 * checksum differ), whatever its version; -EOPNOTSUPP for an unknown
 * version of a record that continues it; -EUCLEAN if a
 * field is out of range (unknown type, URI with a NUL, bad state...).
 */
int hc_jrec_decode(const void *buf, size_t len, const struct hc_jrec_hdr *h,
		   const struct hc_jrec_pos *pos, struct hc_jrec *r)
{
	const struct hc_jrec_disk *d = buf;
	const u8 *p = (const u8 *)buf + HC_JREC_HEAD;
	u32 length, i;

	if (!hc_jrec_block_ok(h->block_size))
		return -EINVAL;
	if (len < h->block_size)
		return -ENODATA;
	if (memcmp(d->magic, HC_JREC_MAGIC, HC_JREC_MAGIC_LEN))
		return -ENODATA;
	length = le32_to_cpu(d->length);
	if (!length || length % h->block_size || length > len ||
	    length > hc_jrec_max_size(h->block_size))
		return -EBADMSG;
	if (le32_to_cpu(d->csum) != hc_jrec_csum(buf, length))
		return -EBADMSG;
	/*
	 * Whether it continues the log before its version: a newer record
	 * that does not is what a pool of a newer format left on the drives
	 * before this one was created over them, the end of this log.
	 */
	if (le64_to_cpu(d->seq) != pos->seq ||
	    le32_to_cpu(d->prev_csum) != pos->prev)
		return -ESTALE;
	if (le16_to_cpu(d->version) != HC_JOURNAL_VERSION)
		return -EOPNOTSUPP;

	memset(r, 0, offsetof(struct hc_jrec, ext));
	r->type = le16_to_cpu(d->type);
	r->seq = pos->seq;
	r->csum = le32_to_cpu(d->csum);
	r->uri_len = le16_to_cpu(d->uri_len);
	r->nr_ext = le16_to_cpu(d->nr_ext);
	if ((r->type != HC_JREC_OBJECT && r->type != HC_JREC_DELETE) ||
	    r->uri_len < 1 || r->uri_len > HC_URI_MAX ||
	    r->nr_ext > HC_MAX_EXTENTS ||
	    hc_jrec_payload(r->type, r->uri_len, r->nr_ext) > length)
		return -EUCLEAN;
	if (r->type == HC_JREC_OBJECT) {
		const struct hc_jrec_object_disk *o = (const void *)p;
		const struct hc_jrec_ext_disk *e = (const void *)(o + 1);

		r->size = le64_to_cpu(o->size);
		r->generation = le64_to_cpu(o->generation);
		r->state = le32_to_cpu(o->state);
		r->flags = le32_to_cpu(o->flags);
		if (r->flags & HC_OBJ_F_DATA_CRC)
			r->data_crc = le32_to_cpu(o->data_crc);
		for (i = 0; i < r->nr_ext; i++) {
			r->ext[i].start = le64_to_cpu(e[i].start);
			r->ext[i].count = le64_to_cpu(e[i].count);
		}
		p = (const u8 *)(e + r->nr_ext);
	}
	memcpy(r->uri, p, r->uri_len);
	if (!hc_jrec_valid(r))
		return -EUCLEAN;
	return length;
}

/**
 * hc_jrec_tail - may a mirrored log end where no member continues it?
 * @nr: members (mirrors), at least 1
 * @torn: members whose copy at this position is torn or corrupt
 *	(-EBADMSG from hc_jrec_decode())
 * @unreadable: members whose copy could not be read (an I/O error)
 * @successor: a checksummed record continuing the log after one of the
 *	torn copies (seq + 1, naming that copy's checksum) was found
 *
 * The others' copies hold no record here (-ENODATA) or a stale one
 * (-ESTALE).  The writer sends a record to the members one after another
 * and acknowledges it only once it is durable on all of them, so an append
 * interrupted by a crash leaves at most one member with a torn copy and
 * the others without it; an acknowledged record is on every member.
 *
 * Return: 0 if the log may end here (nothing was written, or an
 * interrupted append that was never acknowledged); -EUCLEAN if a record
 * that was acknowledged is damaged on every member (a successor exists, or
 * two or more copies are torn); -EIO if it cannot be told because copies
 * could not be read (two or more, or the only member's).
 */
int hc_jrec_tail(u32 nr, u32 torn, u32 unreadable, bool successor)
{
	if (successor)
		return -EUCLEAN;
	if (torn + unreadable >= 2 || (nr == 1 && unreadable))
		return unreadable ? -EIO : -EUCLEAN;
	return 0;
}

/**
 * hc_jrec_hdr_missing - what a half is when no member has a valid header
 * @nr: members, at least 1
 * @torn: members whose header block of the half has our magic but a bad
 *	checksum (-EBADMSG from hc_jrec_hdr_decode())
 * @unreadable: members whose header block could not be read
 *
 * The others have no header of this pool there (-ENODATA).  Headers are
 * written to one member after another, so a compaction interrupted by a
 * crash tears at most one member's copy.
 *
 * Return: -ENODATA (never written: no header anywhere); -EBADMSG (an
 * interrupted header write: the half does not count, see hc_jrec_current());
 * -EUCLEAN or -EIO (damaged or unreadable on more members than a crash
 * explains, or unreadable on the only member: its epoch cannot be known, so
 * neither half may be trusted).
 */
int hc_jrec_hdr_missing(u32 nr, u32 torn, u32 unreadable)
{
	if (!torn && !unreadable)
		return -ENODATA;
	if (torn + unreadable == 1 && (nr >= 2 || !unreadable))
		return -EBADMSG;
	return unreadable ? -EIO : -EUCLEAN;
}

/**
 * hc_jrec_scan - replay a half: every record of its log, in order
 * @half: the whole half (@h->half_size bytes from its header), 8-byte
 *	aligned
 * @len: bytes in @half; must equal @h->half_size
 * @h: the half's header, as decoded (hc_jrec_hdr_decode())
 * @r: scratch record, passed to @fn
 * @fn: called for each record of the log in order, or NULL to only find the
 *	end; returns 0 to go on or a negative errno to stop the scan
 * @arg: passed to @fn
 * @end: filled with the position after the last valid record: where the
 *	log ends and appending may resume (also on failure: the position of
 *	the record that failed)
 *
 * The log ends at the first block that is not a valid continuation
 * (-ENODATA, -EBADMSG, -ESTALE from hc_jrec_decode()): a torn or stale tail
 * is never passed to @fn.  Such a tail is not an error, since the writer
 * acknowledges a record only when every record before it is durable.
 * Resuming at @end is safe: a block written there gets a new checksum, so
 * stale records beyond it cannot continue the log.
 *
 * Return: the number of records passed to @fn; -EINVAL if @len does not
 * match the header; -EOPNOTSUPP or -EUCLEAN if a checksummed record at @end
 * is of a newer version or out of range (refuse to assemble: the records
 * after it would be lost); or the error @fn returned.
 */
int hc_jrec_scan(const void *half, size_t len, const struct hc_jrec_hdr *h,
		 struct hc_jrec *r,
		 int (*fn)(void *arg, const struct hc_jrec *r), void *arg,
		 struct hc_jrec_pos *end)
{
	int n = 0, ret;

	hc_jrec_pos_init(end, h);
	if (len != h->half_size || !hc_jrec_block_ok(h->block_size))
		return -EINVAL;

	while (end->off < len) {
		const u8 *rec = (const u8 *)half + end->off;

		ret = hc_jrec_decode(rec, len - end->off, h, end, r);
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
