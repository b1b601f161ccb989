// SPDX-License-Identifier: GPL-2.0
/*
 * The posix backend: see posix.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "posix.h"
#include "util.h"


int hc_posix_path(const struct hc_backend *b, const char *key, size_t key_len,
		  char *out, size_t outlen, char *err, size_t errlen)
{
	size_t i = 0, rl;

	if (!key_len || memchr(key, '\0', key_len))
		return hc_seterr(err, errlen, -EINVAL, "empty or malformed key");
	if (key[0] == '/')
		return hc_seterr(err, errlen, -EACCES,
			      "key %.*s: absolute (leading '/')",
			      (int)key_len, key);
	while (i < key_len) {
		size_t j = i;

		while (j < key_len && key[j] != '/')
			j++;
		if (j - i == 2 && key[i] == '.' && key[i + 1] == '.')
			return hc_seterr(err, errlen, -EACCES,
				      "key %.*s: has a \"..\" component",
				      (int)key_len, key);
		i = j + 1;
	}
	rl = strlen(b->root);
	while (rl > 1 && b->root[rl - 1] == '/')
		rl--;
	if (rl + 1 + key_len + 1 > outlen)
		return hc_seterr(err, errlen, -ENAMETOOLONG,
			      "key %.*s: path too long", (int)key_len, key);
	memcpy(out, b->root, rl);
	i = rl;
	if (!(rl == 1 && b->root[0] == '/'))
		out[i++] = '/';
	memcpy(out + i, key, key_len);
	out[i + key_len] = '\0';
	return 0;
}

int hc_posix_open(const char *path, int *fd, uint64_t *size,
		  char *err, size_t errlen)
{
	struct stat st;
	int f, ret;

	f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return hc_seterr(err, errlen, -errno, "%s: %s", path,
			      strerror(errno));
	if (fstat(f, &st)) {
		ret = -errno;
		close(f);
		return hc_seterr(err, errlen, ret, "%s: %s", path, strerror(-ret));
	}
	if (!S_ISREG(st.st_mode)) {
		ret = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		close(f);
		return hc_seterr(err, errlen, ret, "%s: not a regular file", path);
	}
	*fd = f;
	*size = st.st_size;
	return 0;
}

int hc_posix_fetch(void *src, unsigned int worker __attribute__((unused)),
		   uint64_t off, size_t len,
		   void *buf, char *err, size_t errlen)
{
	int fd = (int)(intptr_t)src;
	int ret = hc_pread_full(fd, buf, len, off);

	if (ret == -EIO)
		return hc_seterr(err, errlen, ret,
			      "the file shrank while being read (at %llu)",
			      (unsigned long long)off);
	if (ret)
		return hc_seterr(err, errlen, ret, "read at %llu: %s",
			      (unsigned long long)off, strerror(-ret));
	return 0;
}
