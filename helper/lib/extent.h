/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The extents the kernel hands out (struct hc_extent of uapi/hypercache.h:
 * byte offset and length on /dev/hypercacheN), checked once before any
 * byte is read or written through them: by the fill and egress engines of
 * hypercached and by hcctl's put, get, flush and restore.
 */
#ifndef HC_EXTENT_H
#define HC_EXTENT_H

#include <stddef.h>
#include <stdint.h>
#include "hypercache.h"

/*
 * hc_extents_check() - 0, or -EINVAL with a message in @err if @nr_ext
 * extents are more than HC_MAX_EXTENTS, one is empty or not aligned to
 * @block bytes (a power of two: the device's logical block size, or the
 * engines' 4 KiB), or together they hold fewer than @size bytes rounded
 * up to @block.  Pure.
 */
int hc_extents_check(const struct hc_extent *ext, uint32_t nr_ext,
		     uint64_t size, unsigned int block, char *err,
		     size_t errlen);

#endif /* HC_EXTENT_H */
