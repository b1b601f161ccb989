// SPDX-License-Identifier: GPL-2.0
/*
 * The posix backend: see posix.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "posix.h"


static int seterr(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

int hc_posix_path(const struct hc_backend *b, const char *key, size_t key_len,
		  char *out, size_t outlen, char *err, size_t errlen)
{
	size_t i = 0, rl;

	if (!key_len || memchr(key, '\0', key_len))
		return seterr(err, errlen, -EINVAL, "empty or malformed key");
	if (key[0] == '/')
		return seterr(err, errlen, -EACCES,
			      "key %.*s: absolute (leading '/')",
			      (int)key_len, key);
	while (i < key_len) {
		size_t j = i;

		while (j < key_len && key[j] != '/')
			j++;
		if (j - i == 2 && key[i] == '.' && key[i + 1] == '.')
			return seterr(err, errlen, -EACCES,
				      "key %.*s: has a \"..\" component",
				      (int)key_len, key);
		i = j + 1;
	}
	rl = strlen(b->root);
	while (rl > 1 && b->root[rl - 1] == '/')
		rl--;
	if (rl + 1 + key_len + 1 > outlen)
		return seterr(err, errlen, -ENAMETOOLONG,
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
		return seterr(err, errlen, -errno, "%s: %s", path,
			      strerror(errno));
	if (fstat(f, &st)) {
		ret = -errno;
		close(f);
		return seterr(err, errlen, ret, "%s: %s", path, strerror(-ret));
	}
	if (!S_ISREG(st.st_mode)) {
		ret = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		close(f);
		return seterr(err, errlen, ret, "%s: not a regular file", path);
	}
	*fd = f;
	*size = st.st_size;
	return 0;
}

/* Read exactly @n bytes at @off (short only at end of file: -EIO). */
static int read_full(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, (char *)buf + got, n - got, off + got);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -EIO;	/* the file shrank under us */
		got += r;
	}
	return 0;
}

int hc_posix_fetch(void *src, unsigned int worker __attribute__((unused)),
		   uint64_t off, size_t len,
		   void *buf, char *err, size_t errlen)
{
	int fd = (int)(intptr_t)src;
	int ret = read_full(fd, buf, len, off);

	if (ret == -EIO)
		return seterr(err, errlen, ret,
			      "the file shrank while being read (at %llu)",
			      (unsigned long long)off);
	if (ret)
		return seterr(err, errlen, ret, "read at %llu: %s",
			      (unsigned long long)off, strerror(-ret));
	return 0;
}
