/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Journal records of format v2: the backend version of every object and
 * sub-chunk extents (Documentation/journal.md, "Records of format v2").
 *
 * A v2 half (header version HC_JOURNAL_VERSION_V2) holds v2 records; a v1
 * half holds v1 records, which this codec reads back exactly as
 * hc_jrec_decode() does (same fields, same errors) and writes exactly as
 * hc_jrec_encode() does, so the module can replay and keep appending to a
 * v1 half with one codec.  A record newer than its half (a v2 record in a
 * v1 half) is refused (-EOPNOTSUPP) like any record of a newer version.
 *
 * Errors, positions, chaining and padding are those of jrec.h.  Core code:
 * no locks, never sleeps, never allocates; buffers 8-byte aligned.
 */
#ifndef HC_JREC2_H
#define HC_JREC2_H

#include "core.h"
#include "jrec.h"
#include "slab.h"
#include "../../uapi/hypercache_format.h"

/**
 * struct hc_jrec2 - one journal record of either version, CPU-endian
 * @r: the v1 fields; @r.flags may hold HC_OBJ_F_SUBCHUNK and
 *	HC_OBJ_F_BACKEND; @r.ext is used without HC_OBJ_F_SUBCHUNK
 * @version: the record's version (set by decode; encode writes the half's)
 * @etag_len: bytes in @etag, 0..HC_ETAG_MAX (HC_OBJ_F_BACKEND), else 0
 * @etag: the backend's ETag as the helper reported it, no NUL
 * @backend_size: the backend version's size (HC_OBJ_F_BACKEND), else 0
 * @backend_mtime: its Last-Modified, seconds since the Unix epoch
 *	(HC_OBJ_F_BACKEND), else 0
 * @sext: the sub-chunk extents (HC_OBJ_F_SUBCHUNK: @r.nr_ext of them, in
 *	object order, their blocks exactly hc_slab_blocks(@r.size))
 *
 * About 3.3 KiB: the module allocates one per replay or writer.
 */
struct hc_jrec2 {
	struct hc_jrec r;
	u32 version;
	u32 etag_len;
	u8 etag[HC_ETAG_MAX];
	u64 backend_size;
	s64 backend_mtime;
	struct hc_sext sext[HC_MAX_EXTENTS];
};

int hc_jrec2_hdr_decode(const void *block, const u8 *pool_uuid,
			struct hc_jrec_hdr *h);
size_t hc_jrec2_size(const struct hc_jrec2 *r, const struct hc_jrec_hdr *h);
size_t hc_jrec2_object_size(u32 uri_len, u32 nr_ext, u32 etag_len,
			    u32 block_size);
size_t hc_jrec2_max_size(u32 block_size);
int hc_jrec2_encode(const struct hc_jrec2 *r, const struct hc_jrec_hdr *h,
		    const struct hc_jrec_pos *pos, void *buf, size_t len);
int hc_jrec2_decode(const void *buf, size_t len, const struct hc_jrec_hdr *h,
		    const struct hc_jrec_pos *pos, struct hc_jrec2 *r);
int hc_jrec2_scan(const void *half, size_t len, const struct hc_jrec_hdr *h,
		  struct hc_jrec2 *r,
		  int (*fn)(void *arg, const struct hc_jrec2 *r), void *arg,
		  struct hc_jrec_pos *end);

#endif /* HC_JREC2_H */
