// SPDX-License-Identifier: GPL-2.0
/*
 * CRC-32C of a buffer: see crc.h (the combination of pieces:
 * crccombine.c).
 */
#include <isa-l/crc.h>
#include "crc.h"

uint32_t hc_crc32c(const void *buf, size_t len)
{
	return ~crc32_iscsi((unsigned char *)buf, (int)len, ~0u);
}
