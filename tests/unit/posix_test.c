// SPDX-License-Identifier: GPL-2.0
/*
 * The posix backend's rules (helper/lib/posix.c), shared by hypercached
 * and hcctl: the one key containment rule, and the one atomic write
 * (temporary, fsync, rename, fsync of the directory; stale temporaries
 * removed).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "kselftest_harness.h"
#include "posix.h"
#include "util.h"

static int key(const char *k)
{
	return hc_posix_key_check(k, strlen(k), NULL, 0);
}

/*
 * tools/hcctl/dataset.c accepted a bare "..", "a/.." and "a/../.." (it
 * looked only for "../" and "/../"): ROOT/.. is outside ROOT.
 */
TEST(dot_dot_anywhere_is_refused)
{
	char err[128] = "";

	EXPECT_EQ(-EACCES, hc_posix_key_check("..", 2, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "\"..\" component")) TH_LOG("%s", err);
	EXPECT_EQ(-EACCES, key("a/../.."));
	EXPECT_EQ(-EACCES, key("a/.."));
	EXPECT_EQ(-EACCES, key("../a"));
	EXPECT_EQ(-EACCES, key("a/../b"));
	EXPECT_EQ(-EACCES, key("a//../b"));
}

TEST(absolute_empty_and_nul_are_refused)
{
	char err[128] = "";

	EXPECT_EQ(-EACCES, hc_posix_key_check("/etc/passwd", 11, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "absolute")) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, hc_posix_key_check("", 0, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "empty")) TH_LOG("%s", err);
	EXPECT_EQ(-EINVAL, hc_posix_key_check("a\0/../..", 8, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "NUL")) TH_LOG("%s", err);
}

TEST(dots_inside_names_are_fine)
{
	EXPECT_EQ(0, key("a..b/..c/d.."));
	EXPECT_EQ(0, key("."));
	EXPECT_EQ(0, key("./a/./b"));
	EXPECT_EQ(0, key("..."));
	EXPECT_EQ(0, key("ckpt/step 100/a?b#c"));
}

TEST(path_joins_root_and_key)
{
	struct hc_backend b = { 0 };
	char out[64], err[128];

	snprintf(b.root, sizeof(b.root), "/srv/data//");
	EXPECT_EQ(0, hc_posix_path(&b, "a/b", 3, out, sizeof(out), err, sizeof(err)));
	EXPECT_STREQ("/srv/data/a/b", out);
	snprintf(b.root, sizeof(b.root), "/");
	EXPECT_EQ(0, hc_posix_path(&b, "a", 1, out, sizeof(out), err, sizeof(err)));
	EXPECT_STREQ("/a", out);
	EXPECT_EQ(-EACCES, hc_posix_path(&b, "..", 2, out, sizeof(out), err, sizeof(err)));
	EXPECT_EQ(-ENAMETOOLONG, hc_posix_path(&b, "0123456789", 10, out, 8, err, sizeof(err)));
}

FIXTURE(atomic) {
	char dir[64];
	char path[128];
};

FIXTURE_SETUP(atomic)
{
	snprintf(self->dir, sizeof(self->dir), "/tmp/posix_test.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->path, sizeof(self->path), "%s/sub/dir/file", self->dir);
}

FIXTURE_TEARDOWN(atomic)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	if (system(cmd))
		TH_LOG("cannot remove %s", self->dir);
}

/* Entries of the file's directory other than . and .. */
static int entries(const char *path, char names[][256], int max)
{
	char dir[128], *s;
	struct dirent *d;
	DIR *dp;
	int n = 0;

	snprintf(dir, sizeof(dir), "%s", path);
	s = strrchr(dir, '/');
	*s = '\0';
	dp = opendir(dir);
	if (!dp)
		return -errno;
	while ((d = readdir(dp)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..") && n < max)
			snprintf(names[n++], 256, "%s", d->d_name);
	closedir(dp);
	return n;
}

static int slurp(const char *path, char *buf, size_t len)
{
	size_t got;
	int fd = open(path, O_RDONLY), ret;

	if (fd < 0)
		return -errno;
	ret = hc_read_full(fd, buf, len - 1, &got);
	close(fd);
	buf[got] = '\0';
	return ret;
}

/*
 * hc_posix_open(): a regular file's size and st_mtime (the ingest's
 * Last-Modified, whole seconds); @mtime may be NULL; a directory is
 * EISDIR, a missing file ENOENT.
 */
TEST_F(atomic, open_gives_size_and_mtime)
{
	struct timespec ts[2] = {
		{ .tv_sec = 1764547200, .tv_nsec = 999999999 },
		{ .tv_sec = 1764547200, .tv_nsec = 999999999 },
	};
	char path[128], err[256];
	uint64_t size = 0;
	int64_t mtime = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/f", self->dir);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, hc_write_full(fd, "12345", 5));
	close(fd);
	ASSERT_EQ(0, utimensat(AT_FDCWD, path, ts, 0));
	ASSERT_EQ(0, hc_posix_open(path, &fd, &size, &mtime, err, sizeof(err)))
		TH_LOG("%s", err);
	close(fd);
	EXPECT_EQ(5, size);
	EXPECT_EQ(1764547200, mtime);
	/* before 1970: as the file says (hypercached sends it as unknown) */
	ts[0].tv_sec = ts[1].tv_sec = -86400;
	ASSERT_EQ(0, utimensat(AT_FDCWD, path, ts, 0));
	ASSERT_EQ(0, hc_posix_open(path, &fd, &size, &mtime, err, sizeof(err)));
	close(fd);
	EXPECT_EQ(-86400, mtime);
	ASSERT_EQ(0, hc_posix_open(path, &fd, &size, NULL, err, sizeof(err)));
	close(fd);
	EXPECT_EQ(-EISDIR, hc_posix_open(self->dir, &fd, &size, &mtime, err,
					 sizeof(err)));
	snprintf(path, sizeof(path), "%s/none", self->dir);
	EXPECT_EQ(-ENOENT, hc_posix_open(path, &fd, &size, &mtime, err,
					 sizeof(err)));
}

TEST_F(atomic, commit_replaces_and_leaves_no_temporary)
{
	struct hc_posix_file f;
	char names[8][256], buf[32], err[256] = "";

	ASSERT_EQ(0, hc_posix_create(&f, self->path, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, hc_write_full(f.fd, "old", 3));
	ASSERT_EQ(0, hc_posix_commit(&f, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, hc_posix_create(&f, self->path, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, hc_write_full(f.fd, "new!", 4));
	/* until the commit, readers see the old file */
	ASSERT_EQ(0, slurp(self->path, buf, sizeof(buf)));
	EXPECT_STREQ("old", buf);
	EXPECT_EQ(2, entries(self->path, names, 8));
	ASSERT_EQ(0, hc_posix_commit(&f, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, slurp(self->path, buf, sizeof(buf)));
	EXPECT_STREQ("new!", buf);
	ASSERT_EQ(1, entries(self->path, names, 8));
	EXPECT_STREQ("file", names[0]);
}

TEST_F(atomic, abort_leaves_the_old_file)
{
	struct hc_posix_file f;
	char names[8][256], err[256] = "";

	ASSERT_EQ(0, hc_posix_create(&f, self->path, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, hc_write_full(f.fd, "part", 4));
	hc_posix_abort(&f);
	EXPECT_EQ(0, entries(self->path, names, 8));
	EXPECT_EQ(-1, access(self->path, F_OK));
}

/* A crash between create and commit leaves PATH.hc-tmp-<16 hex>. */
TEST_F(atomic, stale_temporaries_are_removed)
{
	struct hc_posix_file f, crashed;
	char names[8][256], other[160], err[256] = "";
	int fd;

	ASSERT_EQ(0, hc_posix_create(&crashed, self->path, err, sizeof(err))) TH_LOG("%s", err);
	close(crashed.fd);	/* the writer died: nothing removes it */
	close(crashed.dfd);
	/* not a temporary of "file": kept */
	snprintf(other, sizeof(other), "%s.hc-tmp-notsixteenhex", self->path);
	fd = open(other, O_CREAT | O_WRONLY, 0644);
	ASSERT_LE(0, fd);
	close(fd);
	EXPECT_EQ(2, entries(self->path, names, 8));
	ASSERT_EQ(0, hc_posix_create(&f, self->path, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(-1, access(crashed.tmp, F_OK));
	EXPECT_EQ(0, access(other, F_OK));
	ASSERT_EQ(0, hc_posix_commit(&f, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(2, entries(self->path, names, 8));
}

TEST_F(atomic, remove_syncs_and_tolerates_absence)
{
	struct hc_posix_file f;
	char err[256] = "";

	EXPECT_EQ(0, hc_posix_remove(self->path, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, hc_posix_create(&f, self->path, err, sizeof(err)));
	ASSERT_EQ(0, hc_posix_commit(&f, err, sizeof(err)));
	EXPECT_EQ(0, hc_posix_remove(self->path, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_EQ(-1, access(self->path, F_OK));
	EXPECT_EQ(-EINVAL, hc_posix_create(&f, "relative/file", err, sizeof(err)));
	EXPECT_EQ(-EINVAL, hc_posix_create(&f, "/tmp/dir/", err, sizeof(err)));
}

TEST_HARNESS_MAIN
