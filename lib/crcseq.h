/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * The CRC-32C of an object's bytes from 0, built from pieces that arrive
 * in any order (not installed).  A writer's threads each checksum the
 * piece they wrote, beside their O_DIRECT writes; the sequence folds a
 * piece into the running CRC when the bytes before it are in, and keeps
 * up to HCL_CRCSEQ_MAX pieces ahead of that point.  A piece that overlaps
 * one already in, or one more than the sequence can keep, breaks it: the
 * writer then reads the bytes back at COMMIT (correct, slower).
 *
 * Values are the standard CRC-32C (pre- and post-inverted), as
 * hc_crc32c(0, buf, len) gives them.  No locks: the caller serialises.
 */
#ifndef HCL_CRCSEQ_H
#define HCL_CRCSEQ_H

#include <stdint.h>

#define HCL_CRCSEQ_MAX	32

struct hcl_crc_piece {
	uint64_t off;
	uint64_t len;
	uint32_t crc;
};

struct hcl_crcseq {
	uint64_t pos;		/* bytes from 0 covered by @crc */
	uint32_t crc;
	int broken;
	unsigned int nr;	/* pieces past @pos, sorted, disjoint, not adjacent */
	struct hcl_crc_piece piece[HCL_CRCSEQ_MAX];
};

/* hcl_crcseq_init() - an empty sequence; broken from the start if @broken. */
void hcl_crcseq_init(struct hcl_crcseq *s, int broken);

/*
 * hcl_crcseq_add() - bytes [@off, @off + @len) are written and their
 * CRC-32C is @crc.  Zero-length pieces are ignored.
 */
void hcl_crcseq_add(struct hcl_crcseq *s, uint64_t off, uint64_t len,
		    uint32_t crc);

/*
 * hcl_crcseq_result() - 1 and the CRC-32C of [0, @size) in *@crc when the
 * pieces in cover exactly that, each once; 0 otherwise (a hole, a piece
 * past @size, an overlap, too many pieces ahead).
 */
int hcl_crcseq_result(const struct hcl_crcseq *s, uint64_t size,
		      uint32_t *crc);

#endif /* HCL_CRCSEQ_H */
