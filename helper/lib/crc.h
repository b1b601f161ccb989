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
#include "crccombine.h"

/* hc_crc32c() - the CRC-32C of @len bytes at @buf (ISA-L). */
uint32_t hc_crc32c(const void *buf, size_t len);

#endif /* HC_CRC_H */
