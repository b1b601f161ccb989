// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * The CRC-32C of pieces written in any order: see crcseq.h.
 *
 * Combination: with CRC(M) = (M(x) x^32 + I(x) x^|M|) mod P for the
 * standard pre- and post-inverted CRC, CRC(A||B) = CRC(A) x^(8|B|) +
 * CRC(B) mod P (the inversions of A's end and B's start cancel).  So the
 * combination is one product mod P with x^(8|B|), which is built from
 * the powers x^(2^k) by repeated squaring: about log2(8|B|) products of
 * 32 steps each.  Polynomials are reflected, as the CRC is: bit 31 is
 * x^0, bit 0 is x^31.
 */
#include "crcseq.h"

#define CRC32C_POLY_REFLECTED	0x82f63b78u
#define X0			0x80000000u	/* the polynomial 1 */

/* a(x) b(x) mod P. */
static uint32_t mul_mod(uint32_t a, uint32_t b)
{
	uint32_t p = 0;

	for (uint32_t m = X0; m && a; m >>= 1) {
		if (a & m) {
			p ^= b;
			a ^= m;
		}
		b = b & 1 ? (b >> 1) ^ CRC32C_POLY_REFLECTED : b >> 1;
	}
	return p;
}

/* x^(8n) mod P. */
static uint32_t x8n_mod(uint64_t n)
{
	uint32_t p = X0, sq = X0 >> 8;	/* x^8 = x^(8 * 2^0) */

	for (; n; n >>= 1) {
		if (n & 1)
			p = mul_mod(sq, p);
		sq = mul_mod(sq, sq);
	}
	return p;
}

uint32_t hcl_crc32c_combine(uint32_t crc1, uint32_t crc2, uint64_t len2)
{
	if (!len2)
		return crc1;
	return mul_mod(x8n_mod(len2), crc1) ^ crc2;
}

void hcl_crcseq_init(struct hcl_crcseq *s, int broken)
{
	s->pos = 0;
	s->crc = 0;
	s->broken = !!broken;
	s->nr = 0;
}

static void piece_del(struct hcl_crcseq *s, unsigned int i)
{
	for (; i + 1 < s->nr; i++)
		s->piece[i] = s->piece[i + 1];
	s->nr--;
}

void hcl_crcseq_add(struct hcl_crcseq *s, uint64_t off, uint64_t len,
		    uint32_t crc)
{
	struct hcl_crc_piece *p;
	unsigned int i;
	int folded = 0;

	if (s->broken || !len)
		return;
	if (off + len < off || off < s->pos) {	/* a rewrite of bytes in */
		s->broken = 1;
		return;
	}
	/* where it goes among the pieces ahead; none may overlap it */
	for (i = 0; i < s->nr && s->piece[i].off < off; i++)
		;
	if ((i && s->piece[i - 1].off + s->piece[i - 1].len > off) ||
	    (i < s->nr && off + len > s->piece[i].off)) {
		s->broken = 1;
		return;
	}
	if (off == s->pos) {
		s->crc = hcl_crc32c_combine(s->crc, crc, len);
		s->pos += len;
		folded = 1;
	} else if (i && s->piece[i - 1].off + s->piece[i - 1].len == off) {
		p = &s->piece[i - 1];	/* appended to the piece before */
		p->crc = hcl_crc32c_combine(p->crc, crc, len);
		p->len += len;
		i--;
	} else {
		if (s->nr == HCL_CRCSEQ_MAX) {
			s->broken = 1;
			return;
		}
		for (unsigned int j = s->nr; j > i; j--)
			s->piece[j] = s->piece[j - 1];
		s->piece[i] = (struct hcl_crc_piece){ off, len, crc };
		s->nr++;
	}
	/* the piece at i may now touch the one after it */
	if (!folded && i + 1 < s->nr &&
	    s->piece[i].off + s->piece[i].len == s->piece[i + 1].off) {
		p = &s->piece[i];
		p->crc = hcl_crc32c_combine(p->crc, s->piece[i + 1].crc,
					    s->piece[i + 1].len);
		p->len += s->piece[i + 1].len;
		piece_del(s, i + 1);
	}
	/* fold what the running CRC now reaches */
	while (s->nr && s->piece[0].off == s->pos) {
		s->crc = hcl_crc32c_combine(s->crc, s->piece[0].crc,
					    s->piece[0].len);
		s->pos += s->piece[0].len;
		piece_del(s, 0);
	}
}

int hcl_crcseq_result(const struct hcl_crcseq *s, uint64_t size,
		      uint32_t *crc)
{
	if (s->broken || s->nr || s->pos != size)
		return 0;
	*crc = s->crc;
	return 1;
}
