// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * The CRC-32C of pieces written in any order: see crcseq.h.
 *
 * The combination of two CRCs is hc_crc32c_combine() (helper/lib/crccombine.c).
 */
#include "crcseq.h"
#include "crccombine.h"	/* helper/lib */

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
		s->crc = hc_crc32c_combine(s->crc, crc, len);
		s->pos += len;
		folded = 1;
	} else if (i && s->piece[i - 1].off + s->piece[i - 1].len == off) {
		p = &s->piece[i - 1];	/* appended to the piece before */
		p->crc = hc_crc32c_combine(p->crc, crc, len);
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
		p->crc = hc_crc32c_combine(p->crc, s->piece[i + 1].crc,
					    s->piece[i + 1].len);
		p->len += s->piece[i + 1].len;
		piece_del(s, i + 1);
	}
	/* fold what the running CRC now reaches */
	while (s->nr && s->piece[0].off == s->pos) {
		s->crc = hc_crc32c_combine(s->crc, s->piece[0].crc,
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
