/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * HyperCache on-disk format, version 1.
 *
 * DOC: member layout
 *
 * Every member of a pool begins with one superblock of HC_SB_SIZE bytes at
 * byte 0, followed by the metadata area (the object journal) and then the
 * data area, which starts at @data_offset, a multiple of the chunk size and at
 * least 1 MiB.  The data area holds @member_chunks chunks; every member of a
 * pool holds the same number, so chunk v of /dev/hypercacheN lives on member
 * (v mod member_count) at member chunk (v div member_count).
 *
 *   0            HC_SB_SIZE                      data_offset
 *   | superblock | metadata area (journal) ...   | chunk 0 | chunk 1 | ...
 *
 * All integers are little-endian.  The checksum is the standard CRC-32C
 * (Castagnoli; seed ~0, final complement) of bytes [4, HC_SB_SIZE) of the
 * superblock block, which is zero past the end of struct hc_sb_disk.
 *
 * Compatibility: a reader refuses a superblock whose @version is greater
 * than HC_SB_VERSION or which has a bit set in @feature_incompat that it does
 * not know.  Unknown @feature_ro_compat bits allow a read-only assembly
 * (not implemented yet: they refuse too).  Unknown @feature_compat bits are
 * ignored.  Reserved bytes are written as zero and ignored on read, so that
 * a later version can give them a meaning through a compat feature bit.
 */
#ifndef _UAPI_HYPERCACHE_FORMAT_H
#define _UAPI_HYPERCACHE_FORMAT_H

#include <linux/types.h>

#define HC_SB_OFFSET		0
#define HC_SB_SIZE		4096
#define HC_SB_MAGIC		"HYPCACHE"	/* 8 bytes, no NUL */
#define HC_SB_MAGIC_LEN		8
#define HC_SB_VERSION		1

/* Geometry limits (checked at creation and at assembly). */
#define HC_MAX_MEMBERS		64
#define HC_CHUNK_SIZE_DEFAULT	(4U << 20)	/* 4 MiB */
#define HC_CHUNK_SIZE_MIN	(64U << 10)
#define HC_CHUNK_SIZE_MAX	(1U << 30)
#define HC_DATA_OFFSET_MIN	(1ULL << 20)	/* 1 MiB */

/* feature_compat: none defined in version 1. */
#define HC_FEATURE_COMPAT_SUPP		0ULL
/* feature_ro_compat: none defined in version 1. */
#define HC_FEATURE_RO_COMPAT_SUPP	0ULL
/*
 * feature_incompat: none defined in version 1; the module assembles pools of
 * format v2 (HC_FEATURE_INCOMPAT_V2, "DOC: format v2" below) too.
 */
#define HC_FEATURE_INCOMPAT_SUPP	HC_FEATURE_INCOMPAT_V2

/**
 * struct hc_sb_disk - the member superblock as stored on disk
 * @csum: CRC-32C of bytes [4, HC_SB_SIZE) of the superblock block
 * @magic: HC_SB_MAGIC
 * @version: format version, HC_SB_VERSION
 * @sb_size: HC_SB_SIZE; the number of bytes the checksum protects (+4)
 * @feature_compat: features an old reader may ignore
 * @feature_ro_compat: features an old reader may only read
 * @feature_incompat: features an old reader must refuse
 * @pool_uuid: random at pool creation; identical on every member
 * @member_uuid: random per member at pool creation
 * @member_index: position of this member in the stripe, 0..member_count-1
 * @member_count: number of members in the pool, 1..HC_MAX_MEMBERS
 * @chunk_size: chunk size in bytes, a power of two
 * @reserved0: zero
 * @reserved1: zero
 * @member_bytes: size of this member's block device at creation
 * @meta_offset: byte offset of the metadata area (HC_SB_SIZE)
 * @data_offset: byte offset of chunk 0, a multiple of @chunk_size
 * @member_chunks: chunks in the data area, identical on every member
 * @ctime_ns: creation time, nanoseconds since the Unix epoch
 * @reserved: zero
 */
struct hc_sb_disk {
	__le32	csum;
	__u8	magic[HC_SB_MAGIC_LEN];
	__le32	version;
	__le32	sb_size;
	__le32	reserved0;
	__le64	feature_compat;
	__le64	feature_ro_compat;
	__le64	feature_incompat;
	__u8	pool_uuid[16];
	__u8	member_uuid[16];
	__le32	member_index;
	__le32	member_count;
	__le32	chunk_size;
	__le32	reserved1;
	__le64	member_bytes;
	__le64	meta_offset;
	__le64	data_offset;
	__le64	member_chunks;
	__le64	ctime_ns;
	__le64	reserved[16];
};

/*
 * DOC: objects
 *
 * An object of the cache is named by a URI: 1..HC_URI_MAX opaque bytes, no
 * NUL.  Its data occupies whole chunks of the pool, described by at most
 * HC_MAX_EXTENTS extents (first pool chunk, chunk count).
 */
#define HC_URI_MAX		1024
#define HC_MAX_EXTENTS		64

/* Object states, as recorded in the journal. */
#define HC_OBJ_INGESTING	1	/* space allocated, data being fetched */
#define HC_OBJ_READY		2	/* clean: matches the backend */
#define HC_OBJ_STAGED		3	/* an application writes a new object */
#define HC_OBJ_DIRTY		4	/* committed locally, not in the backend */
#define HC_OBJ_SYNCING		5	/* being uploaded to the backend */

/* Object flags, as recorded in the journal. */
#define HC_OBJ_F_PINNED		0x1	/* operator pin: never evicted */
#define HC_OBJ_F_DATA_CRC	0x2	/* the record's data_crc is valid */
#define HC_OBJ_F_ALL		(HC_OBJ_F_PINNED | HC_OBJ_F_DATA_CRC)

/*
 * DOC: journal
 *
 * The object journal lives in the metadata area [HC_SB_SIZE, data_offset) of
 * every member; every member holds the same bytes (the journal is mirrored,
 * so any one member can be replayed).  The area is split into two halves, A
 * at HC_SB_SIZE and B right after it, each
 *
 *   half_size = ((data_offset - HC_SB_SIZE) / 2) rounded down to
 *               HC_JHDR_SIZE
 *
 * bytes.  A half begins with a header block (struct hc_jhdr_disk, padded
 * with zeroes to HC_JHDR_SIZE) followed by records.  The half whose header
 * is valid and has the higher @epoch is the current one; replay reads it
 * only.
 *
 * Records (struct hc_jrec_disk, then a type-specific body, then padding)
 * are appended one after another from offset HC_JHDR_SIZE.  Each record is
 * padded with zeroes to a multiple of the header's @block_size (512, or 4096
 * on members with 4 KiB logical blocks), so a record never shares a block
 * with another and appending never rewrites a block that holds an
 * acknowledged record.  Within a half, record seq numbers increase by
 * exactly one from the header's @start_seq, and each record carries the
 * checksum of its predecessor (for the first one: the header's checksum),
 * so a stale record left from an earlier use of the half, or written after
 * a torn one, never continues the log.  The log ends at the first block that
 * is not a valid continuation: no magic (zeroes), a bad checksum (a torn or
 * corrupt write), or a record that does not continue the chain.
 *
 * Checksums are the standard CRC-32C (seed ~0, final complement), as in the
 * superblock: of bytes [4, HC_JHDR_SIZE) of a header block, of bytes
 * [4, @length) of a record, padding included.
 *
 * Compaction: when the current half is full, the writer writes every live
 * object as an OBJECT record into the other half (from offset HC_JHDR_SIZE,
 * with seq numbers from the new @start_seq, chained from the new header's
 * checksum), flushes, and only then writes the new header, @epoch + 1, with
 * FUA.  The header write is the commit point: a crash before it leaves the
 * old half current.
 *
 * Compatibility: a reader refuses a header or record whose @version it does
 * not know, and an unknown record @type.  Reserved fields are written as
 * zero and ignored on read.
 */
#define HC_JOURNAL_VERSION	1
#define HC_JHDR_MAGIC		"HCJOURNL"	/* 8 bytes, no NUL */
#define HC_JHDR_MAGIC_LEN	8
#define HC_JHDR_SIZE		4096
#define HC_JREC_MAGIC		"HCJR"		/* 4 bytes, no NUL */
#define HC_JREC_MAGIC_LEN	4
/* Record block sizes a half may use (the header's @block_size). */
#define HC_JREC_BLOCK_MIN	512
#define HC_JREC_BLOCK_MAX	4096

/* Record types. */
#define HC_JREC_OBJECT		1	/* the full state of one object */
#define HC_JREC_DELETE		2	/* the object is gone */

/**
 * struct hc_jhdr_disk - header block of a journal half
 * @csum: CRC-32C of bytes [4, HC_JHDR_SIZE) of the header block
 * @magic: HC_JHDR_MAGIC
 * @version: journal format version, HC_JOURNAL_VERSION
 * @hdr_size: HC_JHDR_SIZE; the first record starts at this offset
 * @block_size: records are padded to a multiple of this, a power of two in
 *	[HC_JREC_BLOCK_MIN, HC_JREC_BLOCK_MAX]
 * @epoch: incremented at every compaction, at least 1; the valid header with
 *	the higher epoch marks the current half
 * @start_seq: seq of the first record of this half, at least 1
 * @half_size: bytes in the half, header included, a multiple of
 *	HC_JHDR_SIZE
 * @pool_uuid: the pool's UUID (struct hc_sb_disk): a half left on a drive
 *	by an earlier pool is not this pool's journal
 * @reserved: zero
 */
struct hc_jhdr_disk {
	__le32	csum;
	__u8	magic[HC_JHDR_MAGIC_LEN];
	__le32	version;
	__le32	hdr_size;
	__le32	block_size;
	__le64	epoch;
	__le64	start_seq;
	__le64	half_size;
	__u8	pool_uuid[16];
	__le64	reserved[8];
};

/**
 * struct hc_jrec_disk - beginning of every journal record
 * @csum: CRC-32C of bytes [4, @length) of the record
 * @magic: HC_JREC_MAGIC
 * @type: HC_JREC_OBJECT or HC_JREC_DELETE
 * @version: journal format version, HC_JOURNAL_VERSION
 * @length: bytes in the record, padding included: a multiple of the half's
 *	block size
 * @seq: sequence number: the previous record's plus one (the first record
 *	of a half: the header's @start_seq)
 * @prev_csum: @csum of the previous record of the half (the first record:
 *	the header's @csum)
 * @uri_len: bytes in the URI, 1..HC_URI_MAX
 * @nr_ext: extents that follow the body, 0..HC_MAX_EXTENTS (DELETE: 0)
 *
 * An OBJECT record continues with struct hc_jrec_object_disk, then @nr_ext
 * struct hc_jrec_ext_disk, then the URI; a DELETE record with the URI.
 * Zeroes pad the record to @length.
 */
struct hc_jrec_disk {
	__le32	csum;
	__u8	magic[HC_JREC_MAGIC_LEN];
	__le16	type;
	__le16	version;
	__le32	length;
	__le64	seq;
	__le32	prev_csum;
	__le16	uri_len;
	__le16	nr_ext;
};

/**
 * struct hc_jrec_object_disk - body of an OBJECT record
 * @size: object size in bytes
 * @generation: object generation (changes whenever its data does)
 * @state: HC_OBJ_INGESTING .. HC_OBJ_SYNCING
 * @flags: HC_OBJ_F_*
 * @data_crc: CRC-32C of the object's data if HC_OBJ_F_DATA_CRC, else zero
 * @reserved: zero
 */
struct hc_jrec_object_disk {
	__le64	size;
	__le64	generation;
	__le32	state;
	__le32	flags;
	__le32	data_crc;
	__le32	reserved;
};

/**
 * struct hc_jrec_ext_disk - one extent of an object, in pool chunks
 * @start: first chunk of /dev/hypercacheN
 * @count: chunks, at least 1
 */
struct hc_jrec_ext_disk {
	__le64	start;
	__le64	count;
};

/*
 * DOC: format v2
 *
 * Format v2 (Documentation/on-disk-format.md, "Format v2"; journal.md,
 * "Records of format v2") adds small objects packed into shared chunks at
 * HC_SUBBLOCK_SIZE granularity and the backend version (ETag,
 * Last-Modified, size) of every object.  A v2 pool's superblocks carry
 * HC_FEATURE_INCOMPAT_V2 in @feature_incompat (the superblock @version
 * stays 1: nothing else in it changes), so a module that knows only v1
 * refuses it ("unknown incompatible feature"); its journal headers carry
 * version HC_JOURNAL_VERSION_V2, which such a module refuses too.
 *
 * A v2 half's records are version 1 or 2: DELETE records are as in v1 with
 * @version 2; a v2 OBJECT record continues the head with
 * struct hc_jrec_object2_disk, then @nr_ext extents (struct
 * hc_jrec_ext_disk, or struct hc_jrec_sext_disk if HC_OBJ_F_SUBCHUNK),
 * then @etag_len bytes of ETag, then the URI.
 *
 * HC_FORMAT_V2_INCOMPAT is what the format-v2 core code (kmod/core/jrec2.c,
 * upgrade.c) understands; HC_FEATURE_INCOMPAT_SUPP is what the module
 * assembles: v1 pools as v1, v2 pools as v2.
 */
#define HC_FEATURE_INCOMPAT_V2	0x1ULL	/* v2 journal, sub-chunk extents */
#define HC_FORMAT_V2_INCOMPAT	HC_FEATURE_INCOMPAT_V2
#define HC_JOURNAL_VERSION_V2	2
#define HC_SUBBLOCK_SIZE	4096	/* sub-chunk allocation unit */
#define HC_ETAG_MAX		128	/* bytes of a kept ETag, no NUL */

/* Object flags of format v2 (v1 records never carry them). */
#define HC_OBJ_F_SUBCHUNK	0x4	/* extents are struct hc_jrec_sext_disk */
#define HC_OBJ_F_BACKEND	0x8	/* etag/backend_size/backend_mtime valid */
#define HC_OBJ_F_ALL_V2		(HC_OBJ_F_ALL | HC_OBJ_F_SUBCHUNK | \
				 HC_OBJ_F_BACKEND)

/**
 * struct hc_jrec_object2_disk - body of a v2 OBJECT record
 * @size: object size in bytes
 * @generation: object generation (changes whenever its data does)
 * @state: HC_OBJ_INGESTING .. HC_OBJ_SYNCING
 * @flags: HC_OBJ_F_* (HC_OBJ_F_ALL_V2)
 * @data_crc: CRC-32C of the object's data if HC_OBJ_F_DATA_CRC, else zero
 * @etag_len: bytes of ETag after the extents, 0..HC_ETAG_MAX (zero
 *	without HC_OBJ_F_BACKEND)
 * @reserved: zero
 * @backend_size: size of the backend version (HC_OBJ_F_BACKEND), else zero
 * @backend_mtime: its Last-Modified, seconds since the Unix epoch
 *	(HC_OBJ_F_BACKEND), else zero
 */
struct hc_jrec_object2_disk {
	__le64	size;
	__le64	generation;
	__le32	state;
	__le32	flags;
	__le32	data_crc;
	__le16	etag_len;
	__le16	reserved;
	__le64	backend_size;
	__le64	backend_mtime;
};

/**
 * struct hc_jrec_sext_disk - a sub-chunk extent (HC_OBJ_F_SUBCHUNK)
 * @chunk: pool chunk (a slab chunk)
 * @block: first HC_SUBBLOCK_SIZE block in the chunk
 * @nr_blocks: blocks, at least 1, not past the end of the chunk
 */
struct hc_jrec_sext_disk {
	__le64	chunk;
	__le32	block;
	__le32	nr_blocks;
};

#endif /* _UAPI_HYPERCACHE_FORMAT_H */
