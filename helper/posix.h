/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The posix backend: hypercache://NAME/KEY of a [backend NAME] with
 * type = posix is the file ROOT/KEY.  KEY must be relative and must not
 * climb out of ROOT: a leading '/' or a ".." component is -EACCES.
 *
 * Functions return 0 or a negative errno, with a message in @err (may be
 * NULL; truncated to @errlen).
 */
#ifndef HC_POSIX_H
#define HC_POSIX_H

#include <stddef.h>
#include <stdint.h>
#include "config.h"
#include "hypercache.h"

#define HC_DEV_PATH	"/dev/hypercache0"

/* hc_posix_path() - ROOT/KEY of backend @b into @out (@outlen bytes). */
int hc_posix_path(const struct hc_backend *b, const char *key, size_t key_len,
		  char *out, size_t outlen, char *err, size_t errlen);

/* hc_posix_open() - open regular file @path for reading; its size. */
int hc_posix_open(const char *path, int *fd, uint64_t *size,
		  char *err, size_t errlen);

/*
 * hc_posix_fill() - copy @size bytes of @fd into the @nr_ext extents @ext
 * of @dev (O_DIRECT, 4 KiB-aligned buffers, the last block zero-padded),
 * then fdatasync @dev.
 */
int hc_posix_fill(int fd, uint64_t size, const struct hc_extent *ext,
		  uint32_t nr_ext, const char *dev, char *err, size_t errlen);

#endif /* HC_POSIX_H */
