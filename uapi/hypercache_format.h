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
/* feature_incompat: none defined in version 1. */
#define HC_FEATURE_INCOMPAT_SUPP	0ULL

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

#endif /* _UAPI_HYPERCACHE_FORMAT_H */
