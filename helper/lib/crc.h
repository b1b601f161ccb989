/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CRC-32C (Castagnoli, the iSCSI CRC the kernel checks at INGEST_DONE) of
 * pieces computed apart: the CRC of A||B from crc(A), crc(B) and len(B), so
 * that the parts of an object can be checksummed in any order, each by the
 * thread that moved it.  Values are the standard CRC-32C (pre- and
 * post-inverted): hc_crc32c("123456789") = 0xe3069283.  Pure; no locks.
 */
#ifndef HC_CRC_H
#define HC_CRC_H

#include <stddef.h>
#include <stdint.h>

/* hc_crc32c() - the CRC-32C of @len bytes at @buf (ISA-L). */
uint32_t hc_crc32c(const void *buf, size_t len);

/* hc_crc32c_combine() - the CRC-32C of A||B, @len2 = the bytes of B. */
uint32_t hc_crc32c_combine(uint32_t crc1, uint32_t crc2, uint64_t len2);

#endif /* HC_CRC_H */
