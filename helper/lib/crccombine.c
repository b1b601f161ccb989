// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * The CRC-32C of A||B from crc(A), crc(B) and len(B): see crccombine.h.
 * The combination appends len2 zero bytes to crc1 by squaring the GF(2)
 * matrix of "one zero bit" (log2(len2) squarings), then adds crc2: the
 * CRC is linear over GF(2).
 *
 * Compiled into hypercached and hcctl (libhc.a) and into libhypercache
 * (lib/Makefile: its writer combines the CRCs of pieces written in any
 * order, lib/crcseq.c), hence the library's licence: the one
 * implementation of the combination in user space.
 */
#include "crccombine.h"

#define CRC32C_POLY_REFLECTED	0x82f63b78u

static uint32_t gf2_times(const uint32_t *mat, uint32_t vec)
{
	uint32_t sum = 0;

	for (; vec; vec >>= 1, mat++)
		if (vec & 1)
			sum ^= *mat;
	return sum;
}

static void gf2_square(uint32_t *sq, const uint32_t *mat)
{
	for (int n = 0; n < 32; n++)
		sq[n] = gf2_times(mat, mat[n]);
}

uint32_t hc_crc32c_combine(uint32_t crc1, uint32_t crc2, uint64_t len2)
{
	uint32_t even[32], odd[32], row = 1;

	if (!len2)
		return crc1;
	odd[0] = CRC32C_POLY_REFLECTED;	/* the operator of one zero bit */
	for (int n = 1; n < 32; n++, row <<= 1)
		odd[n] = row;
	gf2_square(even, odd);		/* two zero bits */
	gf2_square(odd, even);		/* four */
	do {				/* one zero byte first, then doubling */
		gf2_square(even, odd);
		if (len2 & 1)
			crc1 = gf2_times(even, crc1);
		len2 >>= 1;
		if (!len2)
			break;
		gf2_square(odd, even);
		if (len2 & 1)
			crc1 = gf2_times(odd, crc1);
		len2 >>= 1;
	} while (len2);
	return crc1 ^ crc2;
}
