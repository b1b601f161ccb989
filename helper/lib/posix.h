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
 * hc_posix_fetch() - an hc_fill_fetch_fn (fill.h): @len bytes at @off of
 * the file whose descriptor is @src (cast from intptr_t); pread() is safe
 * from several workers at once.  A file that shrank is -EIO.
 */
int hc_posix_fetch(void *src, unsigned int worker, uint64_t off, size_t len,
		   void *buf, char *err, size_t errlen);

#endif /* HC_POSIX_H */
