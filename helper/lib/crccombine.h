/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * The CRC-32C of A||B from crc(A), crc(B) and len(B), so that pieces can
 * be checksummed apart, in any order, each by the thread that moved it
 * (hypercached's ingest parts, libhypercache's writes).  Values are the
 * standard CRC-32C (pre- and post-inverted).  Pure; no locks.
 */
#ifndef HC_CRCCOMBINE_H
#define HC_CRCCOMBINE_H

#include <stdint.h>

/* hc_crc32c_combine() - the CRC-32C of A||B, @len2 = the bytes of B. */
uint32_t hc_crc32c_combine(uint32_t crc1, uint32_t crc2, uint64_t len2);

#endif /* HC_CRCCOMBINE_H */
