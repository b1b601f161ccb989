// SPDX-License-Identifier: GPL-2.0
/*
 * The posix backend: see posix.h.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include "posix.h"
#include "util.h"

int hc_posix_key_check(const char *key, size_t len, char *err, size_t errlen)
{
	size_t i = 0, j;

	if (!len)
		return hc_seterr(err, errlen, -EINVAL, "the key is empty");
	if (memchr(key, '\0', len))
		return hc_seterr(err, errlen, -EINVAL,
				 "key %.*s: contains a NUL byte",
				 (int)strnlen(key, len), key);
	if (key[0] == '/')
		return hc_seterr(err, errlen, -EACCES,
				 "key %.*s: absolute (leading '/')", (int)len, key);
	while (i < len) {
		for (j = i; j < len && key[j] != '/'; j++)
			;
		if (j - i == 2 && key[i] == '.' && key[i + 1] == '.')
			return hc_seterr(err, errlen, -EACCES,
					 "key %.*s: has a \"..\" component",
					 (int)len, key);
		i = j + 1;
	}
	return 0;
}

int hc_posix_path(const struct hc_backend *b, const char *key, size_t key_len,
		  char *out, size_t outlen, char *err, size_t errlen)
{
	size_t i, rl;
	int ret;

	ret = hc_posix_key_check(key, key_len, err, errlen);
	if (ret)
		return ret;
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

int hc_posix_open(const char *path, int *fd, uint64_t *size, int64_t *mtime,
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
	if (mtime)
		*mtime = st.st_mtim.tv_sec;
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

/* --- atomic writes ---------------------------------------------------- */

/* Create the missing parent directories of absolute @path. */
static int posix_mkdir_parents(const char *path, char *err, size_t errlen)
{
	char p[PATH_MAX], *s;

	if (strlen(path) >= sizeof(p))
		return hc_seterr(err, errlen, -ENAMETOOLONG, "%s: too long", path);
	strcpy(p, path);
	for (s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(p, 0755) && errno != EEXIST)
			return hc_seterr(err, errlen, -errno, "mkdir %s: %s", p,
					 strerror(errno));
		*s = '/';
	}
	return 0;
}

/* Remove BASE.hc-tmp-<16 hex> in directory @dfd, left by a crash. */
static void posix_remove_stale(int dfd, const char *base)
{
	size_t bl = strlen(base), sl = strlen(HC_POSIX_TMP_SUFFIX);
	int fd = dup(dfd);
	struct dirent *d;
	DIR *dir;

	if (fd < 0)
		return;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return;
	}
	while ((d = readdir(dir))) {
		const char *n = d->d_name;

		if (strncmp(n, base, bl) ||
		    strncmp(n + bl, HC_POSIX_TMP_SUFFIX, sl) ||
		    strlen(n + bl + sl) != 16 ||
		    strspn(n + bl + sl, "0123456789abcdef") != 16)
			continue;
		unlinkat(dfd, n, 0);
	}
	closedir(dir);
}

/* Open the directory of absolute @path; its descriptor. */
static int posix_open_dir(const char *path, char *err, size_t errlen)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	size_t n = slash && slash > path ? (size_t)(slash - path) : 1;
	int fd;

	memcpy(dir, path, n);
	dir[n] = '\0';
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return hc_seterr(err, errlen, -errno, "%s: %s", dir,
				 strerror(errno));
	return fd;
}

int hc_posix_create(struct hc_posix_file *f, const char *path,
		    char *err, size_t errlen)
{
	const char *base = strrchr(path, '/');
	uint64_t rnd;
	int ret;

	f->fd = f->dfd = -1;
	if (path[0] != '/' || !base || !base[1])
		return hc_seterr(err, errlen, -EINVAL,
				 "%s: not an absolute file path", path);
	base++;
	if (snprintf(f->path, sizeof(f->path), "%s", path) >= (int)sizeof(f->path) ||
	    strlen(path) + strlen(HC_POSIX_TMP_SUFFIX) + 16 >= sizeof(f->tmp))
		return hc_seterr(err, errlen, -ENAMETOOLONG, "%s: too long", path);
	if (getrandom(&rnd, sizeof(rnd), 0) != sizeof(rnd))
		rnd = (uint64_t)(hc_now() * 1e9) ^ (uint64_t)getpid() << 32;
	snprintf(f->tmp, sizeof(f->tmp), "%s%s%016llx", path,
		 HC_POSIX_TMP_SUFFIX, (unsigned long long)rnd);
	ret = posix_mkdir_parents(path, err, errlen);
	if (ret)
		return ret;
	f->dfd = posix_open_dir(path, err, errlen);
	if (f->dfd < 0)
		return f->dfd;
	posix_remove_stale(f->dfd, base);
	f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (f->fd < 0) {
		ret = hc_seterr(err, errlen, -errno, "%s: %s", f->tmp,
				strerror(errno));
		close(f->dfd);
		f->dfd = -1;
		return ret;
	}
	return 0;
}

int hc_posix_commit(struct hc_posix_file *f, char *err, size_t errlen)
{
	int ret = 0;

	if (fsync(f->fd))
		ret = hc_seterr(err, errlen, -errno, "%s: fsync: %s", f->tmp,
				strerror(errno));
	if (close(f->fd) && !ret)
		ret = hc_seterr(err, errlen, -errno, "%s: close: %s", f->tmp,
				strerror(errno));
	f->fd = -1;
	if (!ret && rename(f->tmp, f->path))
		ret = hc_seterr(err, errlen, -errno, "rename to %s: %s",
				f->path, strerror(errno));
	if (ret) {
		hc_posix_abort(f);
		return ret;
	}
	if (fsync(f->dfd))
		ret = hc_seterr(err, errlen, -errno, "%s: fsync of its directory: %s",
				f->path, strerror(errno));
	close(f->dfd);
	f->dfd = -1;
	return ret;
}

void hc_posix_abort(struct hc_posix_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	if (f->dfd >= 0) {
		unlink(f->tmp);
		close(f->dfd);
	}
	f->fd = f->dfd = -1;
}

int hc_posix_remove(const char *path, char *err, size_t errlen)
{
	int dfd, ret = 0;

	if (unlink(path) && errno != ENOENT)
		return hc_seterr(err, errlen, -errno, "%s: %s", path,
				 strerror(errno));
	dfd = posix_open_dir(path, err, errlen);
	if (dfd < 0)
		return dfd == -ENOENT ? 0 : dfd;
	if (fsync(dfd))
		ret = hc_seterr(err, errlen, -errno, "%s: fsync of its directory: %s",
				path, strerror(errno));
	close(dfd);
	return ret;
}
