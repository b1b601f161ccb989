// SPDX-License-Identifier: GPL-2.0
/*
 * The extents check: see extent.h.
 */
#include <errno.h>

#include "extent.h"
#include "util.h"

int hc_extents_check(const struct hc_extent *ext, uint32_t nr_ext,
		     uint64_t size, unsigned int block, char *err,
		     size_t errlen)
{
	uint64_t total = 0;
	uint32_t i;

	if (!block || (block & (block - 1)))
		return hc_seterr(err, errlen, -EINVAL, "block size %u", block);
	if (nr_ext > HC_MAX_EXTENTS || (nr_ext && !ext))
		return hc_seterr(err, errlen, -EINVAL,
				 "%u extents, at most %u", nr_ext,
				 HC_MAX_EXTENTS);
	for (i = 0; i < nr_ext; i++) {
		if (ext[i].offset % block || ext[i].length % block ||
		    !ext[i].length)
			return hc_seterr(err, errlen, -EINVAL,
					 "extent %u (%llu+%llu) is not %u-aligned",
					 i, (unsigned long long)ext[i].offset,
					 (unsigned long long)ext[i].length,
					 block);
		total += ext[i].length;
	}
	if (total < (size + block - 1) / block * block)
		return hc_seterr(err, errlen, -EINVAL,
				 "extents hold %llu bytes, the object %llu",
				 (unsigned long long)total,
				 (unsigned long long)size);
	return 0;
}
