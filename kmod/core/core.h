/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernel-agnostic core may use.
 *
 * The core (stripe.c, sb.c, and later the sketch, policy, allocator and
 * journal codec) is compiled both into hypercache.ko and into the user-space
 * unit tests and tools.  It includes only this header and uapi/: no locks, no
 * sleeping, no allocation.  This header maps the few primitives it needs onto
 * the kernel's or onto libc (plus ISA-L for CRC-32C) in user space.
 */
#ifndef HC_CORE_H
#define HC_CORE_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/math64.h>
#include <linux/log2.h>
#include <linux/crc32c.h>
#include <linux/sizes.h>
#include <linux/bits.h>
#include <asm/byteorder.h>

/* Raw CRC-32C update, no pre/post inversion (the kernel's crc32c()). */
static inline u32 hc_crc32c(u32 crc, const void *buf, size_t len)
{
	return crc32c(crc, buf, len);
}

#else /* user space */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <endian.h>
#include <linux/types.h>
#include <isa-l/crc.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

#define cpu_to_le16(x)	((__le16)htole16(x))
#define cpu_to_le32(x)	((__le32)htole32(x))
#define cpu_to_le64(x)	((__le64)htole64(x))
#define le16_to_cpu(x)	le16toh((__u16)(x))
#define le32_to_cpu(x)	le32toh((__u32)(x))
#define le64_to_cpu(x)	le64toh((__u64)(x))

#ifndef EUCLEAN
#define EUCLEAN 117
#endif

#define SZ_1G		0x40000000ULL
#define BIT(n)		(1UL << (n))
#define BIT_ULL(n)	(1ULL << (n))

static inline bool is_power_of_2(unsigned long n)
{
	return n != 0 && (n & (n - 1)) == 0;
}

static inline unsigned int ilog2_u64(u64 n)
{
	return 63 - __builtin_clzll(n);
}

#define ilog2(n)	ilog2_u64(n)

static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

/* ISA-L's crc32_iscsi() is the same raw CRC-32C update as the kernel's. */
static inline u32 hc_crc32c(u32 crc, const void *buf, size_t len)
{
	return crc32_iscsi((unsigned char *)buf, (int)len, crc);
}

#endif /* __KERNEL__ */

#endif /* HC_CORE_H */
