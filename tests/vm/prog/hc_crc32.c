// SPDX-License-Identifier: GPL-2.0
/*
 * hc_crc32 STRING [N]: the standard (zlib, ISO-HDLC) CRC-32 of STRING's
 * bytes, printed in decimal; with N, that value mod N.  The kernel picks an
 * object's start member as this CRC of its URI mod the member count.
 *
 * Own table-free implementation (reflected 0xedb88320, seed and final
 * complement), checked against the standard check value 0xcbf43926 of
 * "123456789" and, when built with zlib (HAVE_ZLIB), against zlib's crc32().
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_ZLIB
#include <zlib.h>
#endif

static uint32_t crc32_std(const unsigned char *p, size_t n)
{
	uint32_t c = ~0U;

	while (n--) {
		c ^= *p++;
		for (int k = 0; k < 8; k++)
			c = (c >> 1) ^ (0xedb88320U & -(c & 1));
	}
	return ~c;
}

int main(int argc, char **argv)
{
	const unsigned char *s;
	size_t len;
	uint32_t c;

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: hc_crc32 STRING [N]\n");
		return 2;
	}
	if (crc32_std((const unsigned char *)"123456789", 9) != 0xcbf43926U) {
		fprintf(stderr, "hc_crc32: self-check failed\n");
		return 1;
	}
	s = (const unsigned char *)argv[1];
	len = strlen(argv[1]);
	c = crc32_std(s, len);
#ifdef HAVE_ZLIB
	if (c != (uint32_t)crc32(crc32(0L, Z_NULL, 0), s, len)) {
		fprintf(stderr, "hc_crc32: differs from zlib's crc32()\n");
		return 1;
	}
#endif
	if (argc == 3)
		printf("%u\n", c % (uint32_t)strtoul(argv[2], NULL, 0));
	else
		printf("%u\n", c);
	return 0;
}
