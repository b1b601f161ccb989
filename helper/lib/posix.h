/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The posix backend, shared by hypercached (ingest, write-back) and hcctl
 * (preload listing, flush, restore): hypercache://NAME/KEY of a
 * [backend NAME] with type = posix is the file ROOT/KEY.
 *
 * The containment rule, the only one: KEY is 1..URI_KEY_MAX bytes without
 * NUL, relative (no leading '/'), and has no ".." component anywhere
 * ("..", "../a", "a/..", "a/../b"), so ROOT/KEY never climbs out of ROOT
 * by its spelling (symbolic links inside ROOT are the administrator's).
 *
 * Files are written atomically, the only way: a temporary
 * PATH.hc-tmp-<16 hex digits> in the same directory (O_EXCL), fsync, rename
 * onto PATH, fsync of the directory.  Creating one first removes the
 * temporaries of PATH that a crash left; one writer per PATH at a time.
 *
 * Functions return 0 or a negative errno, with a message in @err (may be
 * NULL; truncated to @errlen).
 */
#ifndef HC_POSIX_H
#define HC_POSIX_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include "config.h"

#define HC_POSIX_TMP_SUFFIX	".hc-tmp-"

/*
 * hc_posix_key_check() - 0 if @len bytes at @key may name a file under a
 * root; -EINVAL if empty or holding a NUL, -EACCES if absolute or with a
 * ".." component.  Pure.
 */
int hc_posix_key_check(const char *key, size_t len, char *err, size_t errlen);

/*
 * hc_posix_path() - ROOT/KEY of backend @b into @out (@outlen bytes), after
 * hc_posix_key_check(); -ENAMETOOLONG if it does not fit.  Pure.
 */
int hc_posix_path(const struct hc_backend *b, const char *key, size_t key_len,
		  char *out, size_t outlen, char *err, size_t errlen);

/*
 * hc_posix_open() - open regular file @path for reading; its size and, if
 * @mtime is not NULL, its st_mtime (seconds since the epoch, the
 * nanoseconds dropped).
 */
int hc_posix_open(const char *path, int *fd, uint64_t *size, int64_t *mtime,
		  char *err, size_t errlen);

/*
 * hc_posix_fetch() - an hc_fill_fetch_fn (fill.h): @len bytes at @off of
 * the file whose descriptor is @src (cast from intptr_t); pread() is safe
 * from several workers at once.  A file that shrank is -EIO.
 */
int hc_posix_fetch(void *src, unsigned int worker, uint64_t off, size_t len,
		   void *buf, char *err, size_t errlen);

/* A file being written atomically (above). */
struct hc_posix_file {
	int fd;				/* the temporary, for writing */
	int dfd;			/* its directory */
	char path[PATH_MAX];
	char tmp[PATH_MAX];
};

/*
 * hc_posix_create() - start writing absolute file @path: create its
 * missing parent directories (0755), remove its stale temporaries, create
 * a new temporary (0644).  On failure nothing is left to undo.
 */
int hc_posix_create(struct hc_posix_file *f, const char *path,
		    char *err, size_t errlen);

/*
 * hc_posix_commit() - make the temporary durable and PATH: fsync, close,
 * rename, fsync the directory.  @f is closed whatever the outcome; on a
 * failure before the rename the temporary is removed and PATH unchanged.
 */
int hc_posix_commit(struct hc_posix_file *f, char *err, size_t errlen);

/* hc_posix_abort() - close and remove the temporary; PATH is unchanged. */
void hc_posix_abort(struct hc_posix_file *f);

/*
 * hc_posix_remove() - unlink @path and fsync its directory; a missing
 * file is success.
 */
int hc_posix_remove(const char *path, char *err, size_t errlen);

#endif /* HC_POSIX_H */
