/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * HyperCache ioctls, version 1.
 *
 * DOC: extension rules and errno contract
 *
 * Every ioctl argument is a struct that begins with "__u32 size; __u32 flags"
 * and is only ever extended by appending fields.  The caller sets @size to
 * sizeof() the struct it was compiled with.  The kernel reads the struct with
 * copy_struct_from_user(): a shorter struct (not shorter than version 1) is
 * zero-extended, a longer one is accepted only if the bytes the kernel does
 * not know are zero.  Output fields are written back for min(@size, the
 * kernel's size) bytes.  Layouts use only fixed-width types, 64-bit values are
 * __aligned_u64, and reserved fields must be zero.  Ioctl numbers are _IO():
 * the size travels in the struct, not in the number (as in iommufd), so a
 * struct grows without a new number.
 *
 *   ENOTTY      unknown ioctl number
 *   EINVAL      @size smaller than version 1, an unknown bit in @flags, or a
 *               non-zero reserved field
 *   E2BIG       @size larger than the kernel's struct with non-zero bytes in
 *               the part the kernel does not know
 *   EFAULT      the argument is not readable/writable
 *   ENODEV      the pool behind the device has stopped
 */
#ifndef _UAPI_HYPERCACHE_H
#define _UAPI_HYPERCACHE_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define HC_IOCTL_MAGIC	0xCA

/**
 * struct hc_geometry - HC_IOC_GEOMETRY: the stripe geometry of a pool
 * @size: sizeof(struct hc_geometry), in
 * @flags: must be zero, in
 * @chunk_size: chunk size in bytes, out
 * @member_count: number of members, out
 * @chunks: chunks in the device's address space, out
 * @capacity: bytes, out (chunks * chunk_size)
 * @pool_uuid: out
 * @reserved: must be zero, in
 *
 * Issued on /dev/hypercacheN (opened read-only is enough).  Chunk v of the
 * device lives on member v % member_count.
 */
struct hc_geometry {
	__u32 size;
	__u32 flags;
	__u32 chunk_size;
	__u32 member_count;
	__aligned_u64 chunks;
	__aligned_u64 capacity;
	__u8 pool_uuid[16];
	__aligned_u64 reserved[2];
};

#define HC_IOC_GEOMETRY	_IO(HC_IOCTL_MAGIC, 0x00)

#endif /* _UAPI_HYPERCACHE_H */
