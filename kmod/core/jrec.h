/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Journal records: the codec of the persistent object journal.
 *
 * The on-disk format (two halves, a header block each, checksummed records
 * chained by sequence number and predecessor checksum) is described in
 * uapi/hypercache_format.h ("DOC: journal") and Documentation/journal.md.
 * This file encodes and decodes header blocks and records and walks a half
 * at replay; it does no I/O.  The module owns the writing rules built on it:
 *
 *  - records are appended at hc_jrec_pos.off, one encode per record, and a
 *    record is acknowledged only once it and every record before it are
 *    durable (FUA), so a torn record is never followed by an acknowledged
 *    one;
 *  - compaction writes the live objects into the other half, flushes, then
 *    writes the new header (epoch + 1) with FUA: the header is the commit;
 *  - assembly decodes both headers, picks the current half with
 *    hc_jrec_current(), and replays it with hc_jrec_scan().
 *
 * Errors of the decoders, the same everywhere:
 *   -ENODATA     no record/header here: zeroes, another magic, another pool
 *                (the normal end of a log)
 *   -EBADMSG     a torn or corrupt block: bad checksum, impossible length
 *   -ESTALE      a valid record that does not continue the log (its seq or
 *                predecessor checksum is not the expected one)
 *   -EOPNOTSUPP  written by a newer format version
 *   -EUCLEAN     checksummed but out of range: a writer bug or forgery
 *
 * Core code: no locks, never sleeps, never allocates.  Buffers holding
 * encoded headers and records must be 8-byte aligned.
 */
#ifndef HC_JREC_H
#define HC_JREC_H

#include "core.h"
#include "alloc.h"
#include "../../uapi/hypercache_format.h"

/**
 * struct hc_jrec_hdr - a journal half's header, CPU-endian
 * @csum: checksum of the header block (filled by encode and decode); the
 *	first record of the half names it as its predecessor
 * @version: HC_JOURNAL_VERSION
 * @block_size: record padding unit, a power of two in
 *	[HC_JREC_BLOCK_MIN, HC_JREC_BLOCK_MAX]
 * @epoch: compaction count, at least 1
 * @start_seq: seq of the half's first record, at least 1
 * @half_size: bytes in the half, a multiple of HC_JHDR_SIZE, at least two
 *	header blocks
 * @pool_uuid: the pool's UUID
 */
struct hc_jrec_hdr {
	u32 csum;
	u32 version;
	u32 block_size;
	u64 epoch;
	u64 start_seq;
	u64 half_size;
	u8 pool_uuid[16];
};

/**
 * struct hc_jrec - one journal record, CPU-endian
 * @type: HC_JREC_OBJECT or HC_JREC_DELETE
 * @seq: sequence number (set by decode; encode takes it from the position)
 * @csum: the record's checksum (set by decode)
 * @uri_len: bytes in @uri, 1..HC_URI_MAX
 * @uri: the URI, no NUL, not NUL-terminated
 * @size: OBJECT: size in bytes
 * @generation: OBJECT: generation
 * @state: OBJECT: HC_OBJ_INGESTING .. HC_OBJ_SYNCING
 * @flags: OBJECT: HC_OBJ_F_*
 * @data_crc: OBJECT: CRC-32C of the data if HC_OBJ_F_DATA_CRC, else 0
 * @nr_ext: OBJECT: entries of @ext used, 0..HC_MAX_EXTENTS; DELETE: 0
 * @ext: OBJECT: the extents, in the object's order
 *
 * The URI and extents are inline (about 2.1 KiB in all) so that decoding
 * needs no memory of its own: the module allocates one of these per replay
 * or per writer, never on the stack.
 */
struct hc_jrec {
	u32 type;
	u64 seq;
	u32 csum;
	u32 uri_len;
	u8 uri[HC_URI_MAX];
	u64 size;
	u64 generation;
	u32 state;
	u32 flags;
	u32 data_crc;
	u32 nr_ext;
	struct hc_ext ext[HC_MAX_EXTENTS];
};

/**
 * struct hc_jrec_pos - where a half's log continues
 * @off: byte offset in the half of the next record
 * @seq: sequence number the next record must carry
 * @prev: checksum the next record must name as its predecessor
 */
struct hc_jrec_pos {
	u64 off;
	u64 seq;
	u32 prev;
};

int hc_jrec_halves(u64 meta_offset, u64 data_offset, u64 *half_off,
		   u64 *half_size);
int hc_jrec_hdr_encode(struct hc_jrec_hdr *h, void *block);
int hc_jrec_hdr_decode(const void *block, const u8 *pool_uuid,
		       struct hc_jrec_hdr *h);
int hc_jrec_hdr_encode_ver(struct hc_jrec_hdr *h, u32 version, void *block);
int hc_jrec_hdr_decode_ver(const void *block, const u8 *pool_uuid,
			   u32 max_version, struct hc_jrec_hdr *h);
int hc_jrec_current(const struct hc_jrec_hdr *a, int err_a,
		    const struct hc_jrec_hdr *b, int err_b);
void hc_jrec_pos_init(struct hc_jrec_pos *pos, const struct hc_jrec_hdr *h);
void hc_jrec_advance(struct hc_jrec_pos *pos, const void *rec);
size_t hc_jrec_size(const struct hc_jrec *r, const struct hc_jrec_hdr *h);
size_t hc_jrec_object_size(u32 uri_len, u32 nr_ext, u32 block_size);
size_t hc_jrec_max_size(u32 block_size);
int hc_jrec_encode(const struct hc_jrec *r, const struct hc_jrec_hdr *h,
		   const struct hc_jrec_pos *pos, void *buf, size_t len);
int hc_jrec_decode(const void *buf, size_t len, const struct hc_jrec_hdr *h,
		   const struct hc_jrec_pos *pos, struct hc_jrec *r);
int hc_jrec_tail(u32 nr, u32 torn, u32 unreadable, bool successor);
int hc_jrec_hdr_missing(u32 nr, u32 torn, u32 unreadable);
int hc_jrec_scan(const void *half, size_t len, const struct hc_jrec_hdr *h,
		 struct hc_jrec *r,
		 int (*fn)(void *arg, const struct hc_jrec *r), void *arg,
		 struct hc_jrec_pos *end);

#endif /* HC_JREC_H */
