// SPDX-License-Identifier: GPL-2.0
/*
 * The posix backend: see posix.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "posix.h"

#define HC_BLOCK	4096u
#define HC_BUF		(1u << 20)

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

int hc_posix_fill(int fd, uint64_t size, const struct hc_extent *ext,
		  uint32_t nr_ext, const char *dev, char *err, size_t errlen)
{
	uint64_t done = 0;
	void *buf = NULL;
	int out, ret = 0;

	out = open(dev, O_WRONLY | O_DIRECT | O_CLOEXEC);
	if (out < 0)
		return seterr(err, errlen, -errno, "%s: %s", dev,
			      strerror(errno));
	if (posix_memalign(&buf, HC_BLOCK, HC_BUF)) {
		close(out);
		return seterr(err, errlen, -ENOMEM, "out of memory");
	}
	for (uint32_t i = 0; i < nr_ext && done < size; i++) {
		for (uint64_t o = 0; o < ext[i].length && done < size;) {
			uint64_t room = ext[i].length - o;
			size_t n = room < HC_BUF ? room : HC_BUF, pad;
			ssize_t w;

			if (n > size - done)
				n = size - done;
			ret = read_full(fd, buf, n, done);
			if (ret) {
				seterr(err, errlen, ret, "read at %llu: %s",
				       (unsigned long long)done, strerror(-ret));
				goto out;
			}
			pad = (n + HC_BLOCK - 1) & ~(size_t)(HC_BLOCK - 1);
			if (pad > room) {
				ret = seterr(err, errlen, -EINVAL,
					     "extent %u: length %llu not a "
					     "multiple of %u", i,
					     (unsigned long long)ext[i].length,
					     HC_BLOCK);
				goto out;
			}
			memset((char *)buf + n, 0, pad - n);
			w = pwrite(out, buf, pad, ext[i].offset + o);
			if (w != (ssize_t)pad) {
				ret = w < 0 ? -errno : -EIO;
				seterr(err, errlen, ret, "%s: write at %llu: %s",
				       dev, (unsigned long long)(ext[i].offset + o),
				       strerror(-ret));
				goto out;
			}
			o += pad;
			done += n;
		}
	}
	if (done != size) {
		ret = seterr(err, errlen, -ENOSPC,
			     "extents hold %llu of %llu bytes",
			     (unsigned long long)done,
			     (unsigned long long)size);
		goto out;
	}
	if (fdatasync(out)) {
		ret = -errno;
		seterr(err, errlen, ret, "%s: fdatasync: %s", dev,
		       strerror(-ret));
	}
out:
	free(buf);
	if (close(out) && !ret)
		ret = seterr(err, errlen, -EIO, "%s: close failed", dev);
	return ret;
}
