// SPDX-License-Identifier: GPL-2.0
/*
 * Drive discovery and safety checks (see discover.h for the contract).
 *
 * One call takes a snapshot of the system below @root (every block device
 * of sysfs with its device number and, for a partition, its disk; the
 * mounts; the swap areas; the devices the root file system sits on), then
 * judges drives against it.  Signatures are libblkid's business: its
 * low-level probe is run over every superblock and partition-table prober,
 * as wipefs does.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include <blkid.h>

#include "discover.h"

#define NAME_LEN	HC_DRIVE_NAME_MAX

struct blk {
	char name[NAME_LEN];
	char parent[NAME_LEN];	/* disk of a partition, "" for a disk */
	unsigned int major, minor;
	bool part;
};

struct mnt {
	unsigned int major, minor;
	char name[NAME_LEN];	/* block device named by the source, or "" */
	char point[PATH_MAX];
};

struct snap {
	char root[PATH_MAX];	/* prefix without trailing '/': "" for "/" */
	struct blk *blk;
	size_t nblk;
	struct mnt *mnt;
	size_t nmnt;
	char (*swap)[NAME_LEN];
	size_t nswap;
	char (*rootset)[NAME_LEN];	/* / and everything below it */
	size_t nroot;
	char rootdev[NAME_LEN];		/* the device / is mounted from */
};

/* --- small helpers --------------------------------------------------------- */

static int rpath(const struct snap *s, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Build "<root><path>"; path starts with '/'. */
static int rpath(const struct snap *s, char *buf, size_t len, const char *fmt, ...)
{
	size_t off = strlen(s->root);
	va_list ap;
	int n;

	if (off >= len)
		return -ENAMETOOLONG;
	memcpy(buf, s->root, off);
	va_start(ap, fmt);
	n = vsnprintf(buf + off, len - off, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - off)
		return -ENAMETOOLONG;
	return 0;
}

/* First line of a small file, trailing white space removed. */
static int read_text(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f)) {
		buf[0] = '\0';
		fclose(f);
		return -EIO;
	}
	fclose(f);
	n = strlen(buf);
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return 0;
}

static bool exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/* Names longer than NAME_LEN - 1 are skipped when read, so this never cuts. */
static void copy_name(char *dst, const char *src)
{
	size_t n = strnlen(src, NAME_LEN - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

static int push(void **arr, size_t *n, size_t size)
{
	void *p = realloc(*arr, (*n + 1) * size);

	if (!p)
		return -ENOMEM;
	*arr = p;
	memset((char *)p + *n * size, 0, size);
	(*n)++;
	return 0;
}

/* --- the snapshot: block devices ------------------------------------------ */

static const struct blk *blk_by_name(const struct snap *s, const char *name)
{
	size_t i;

	for (i = 0; i < s->nblk; i++)
		if (!strcmp(s->blk[i].name, name))
			return &s->blk[i];
	return NULL;
}

static const struct blk *blk_by_dev(const struct snap *s, unsigned int major,
				    unsigned int minor)
{
	size_t i;

	for (i = 0; i < s->nblk; i++)
		if (s->blk[i].major == major && s->blk[i].minor == minor)
			return &s->blk[i];
	return NULL;
}

static int blk_cmp(const void *a, const void *b)
{
	return strcmp(((const struct blk *)a)->name, ((const struct blk *)b)->name);
}

/*
 * Every entry of <root>/sys/class/block with a readable "dev".  The disk
 * of a partition is the directory its sysfs entry lives in.
 */
static int load_blocks(struct snap *s)
{
	char dir[PATH_MAX], path[PATH_MAX + 512], buf[64], *real, *slash;
	struct dirent *de;
	struct blk *b;
	DIR *d;
	int err;

	err = rpath(s, dir, sizeof(dir), "/sys/class/block");
	if (err)
		return err;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		unsigned int major, minor;

		if (de->d_name[0] == '.' || strlen(de->d_name) >= NAME_LEN)
			continue;
		snprintf(path, sizeof(path), "%s/%s/dev", dir, de->d_name);
		if (read_text(path, buf, sizeof(buf)) ||
		    sscanf(buf, "%u:%u", &major, &minor) != 2)
			continue;
		err = push((void **)&s->blk, &s->nblk, sizeof(*s->blk));
		if (err)
			break;
		b = &s->blk[s->nblk - 1];
		copy_name(b->name, de->d_name);
		b->major = major;
		b->minor = minor;
		snprintf(path, sizeof(path), "%s/%s/partition", dir, de->d_name);
		b->part = exists(path);
		if (!b->part)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		real = realpath(path, NULL);
		if (!real)
			continue;
		slash = strrchr(real, '/');
		if (slash) {
			*slash = '\0';
			slash = strrchr(real, '/');
			if (slash)
				copy_name(b->parent, slash + 1);
		}
		free(real);
	}
	closedir(d);
	if (!err && s->nblk)
		qsort(s->blk, s->nblk, sizeof(*s->blk), blk_cmp);
	return err;
}

/*
 * The block device a path of the target system names (a mount source, a
 * swap area): matched by device number if it is a device node, else, for a
 * file under <root>/dev (a fake tree), by its name.
 */
static const struct blk *blk_by_path(const struct snap *s, const char *p)
{
	char path[PATH_MAX], devdir[PATH_MAX], *real;
	const struct blk *b = NULL;
	struct stat st;
	size_t dlen;

	if (p[0] != '/' || rpath(s, path, sizeof(path), "%s", p))
		return NULL;
	if (stat(path, &st) < 0)
		return NULL;
	if (S_ISBLK(st.st_mode))
		return blk_by_dev(s, major(st.st_rdev), minor(st.st_rdev));
	if (rpath(s, path, sizeof(path), "/dev"))
		return NULL;
	real = realpath(path, NULL);
	if (!real)
		return NULL;
	snprintf(devdir, sizeof(devdir), "%s/", real);
	free(real);
	if (rpath(s, path, sizeof(path), "%s", p))
		return NULL;
	real = realpath(path, NULL);
	if (!real)
		return NULL;
	dlen = strlen(devdir);
	if (!strncmp(real, devdir, dlen) && !strchr(real + dlen, '/'))
		b = blk_by_name(s, real + dlen);
	free(real);
	return b;
}

/* --- the snapshot: mounts, swaps, root --------------------------------------- */

/* Undo the octal escapes of mountinfo and /proc/swaps ("\040"). */
static void unescape(char *str)
{
	char *r = str, *w = str;

	while (*r) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' &&
		    r[2] >= '0' && r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') << 6 | (r[2] - '0') << 3 |
				      (r[3] - '0'));
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

/*
 * mountinfo: "ID PARENT MAJ:MIN ROOT POINT OPTS [OPTIONAL...] - TYPE SOURCE SUPER".
 * The last mount of "/" is the one in effect.
 */
static int load_mounts(struct snap *s, const struct blk **rootblk)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0;
	FILE *f;
	int err;

	*rootblk = NULL;
	err = rpath(s, path, sizeof(path), "/proc/self/mountinfo");
	if (err)
		return err;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		char point[PATH_MAX], source[PATH_MAX] = "", *sep;
		unsigned int major, minor;
		const struct blk *b = NULL;
		struct mnt *m;

		if (sscanf(line, "%*s %*s %u:%u %*s %4095s", &major, &minor,
			   point) != 3)
			continue;
		sep = strstr(line, " - ");
		if (sep && sscanf(sep, " - %*s %4095s", source) == 1) {
			unescape(source);
			b = blk_by_path(s, source);
		}
		if (!b && major)
			b = blk_by_dev(s, major, minor);
		unescape(point);
		err = push((void **)&s->mnt, &s->nmnt, sizeof(*s->mnt));
		if (err)
			break;
		m = &s->mnt[s->nmnt - 1];
		m->major = major;
		m->minor = minor;
		if (b)
			copy_name(m->name, b->name);
		snprintf(m->point, sizeof(m->point), "%s", point);
		if (!strcmp(point, "/"))
			*rootblk = b;
	}
	free(line);
	fclose(f);
	return err;
}

/* /proc/swaps: a header, then "FILENAME TYPE SIZE USED PRIORITY". */
static int load_swaps(struct snap *s)
{
	char path[PATH_MAX], file[PATH_MAX], *line = NULL;
	const struct blk *b;
	size_t cap = 0;
	bool header = true;
	FILE *f;
	int err;

	err = rpath(s, path, sizeof(path), "/proc/swaps");
	if (err)
		return err;
	f = fopen(path, "re");
	if (!f)	/* no swap support compiled in */
		return errno == ENOENT ? 0 : -errno;
	while (getline(&line, &cap, f) > 0) {
		if (header) {
			header = false;
			continue;
		}
		if (sscanf(line, "%4095s", file) != 1)
			continue;
		unescape(file);
		b = blk_by_path(s, file);
		if (!b)
			continue;	/* a swap file */
		err = push((void **)&s->swap, &s->nswap, sizeof(*s->swap));
		if (err)
			break;
		copy_name(s->swap[s->nswap - 1], b->name);
	}
	free(line);
	fclose(f);
	return err;
}

static bool in_list(char (*list)[NAME_LEN], size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(list[i], name))
			return true;
	return false;
}

/*
 * Add @name and everything it is built from: the disk of a partition and,
 * recursively, the slaves of a dm/md device.  Depth-bounded against loops.
 */
static int add_root(struct snap *s, const char *name, int depth)
{
	char path[PATH_MAX];
	const struct blk *b;
	struct dirent *de;
	DIR *d;
	int err;

	if (depth > 16 || in_list(s->rootset, s->nroot, name))
		return 0;
	err = push((void **)&s->rootset, &s->nroot, sizeof(*s->rootset));
	if (err)
		return err;
	copy_name(s->rootset[s->nroot - 1], name);
	b = blk_by_name(s, name);
	if (b && b->part && b->parent[0]) {
		err = add_root(s, b->parent, depth + 1);
		if (err)
			return err;
	}
	if (rpath(s, path, sizeof(path), "/sys/class/block/%s/slaves", name))
		return 0;
	d = opendir(path);
	if (!d)
		return 0;
	while ((de = readdir(d)) && !err)
		if (de->d_name[0] != '.' && strlen(de->d_name) < NAME_LEN)
			err = add_root(s, de->d_name, depth + 1);
	closedir(d);
	return err;
}

static void snap_free(struct snap *s)
{
	free(s->blk);
	free(s->mnt);
	free(s->swap);
	free(s->rootset);
}

static int snap_load(struct snap *s, const char *root)
{
	const struct blk *rootblk;
	size_t len;
	int err;

	memset(s, 0, sizeof(*s));
	if (!root || !root[0])
		root = "/";
	len = strlen(root);
	while (len > 1 && root[len - 1] == '/')
		len--;
	if (len == 1 && root[0] == '/')
		len = 0;
	if (len >= sizeof(s->root))
		return -ENAMETOOLONG;
	memcpy(s->root, root, len);
	s->root[len] = '\0';

	err = load_blocks(s);
	if (!err)
		err = load_mounts(s, &rootblk);
	if (!err)
		err = load_swaps(s);
	if (!err && rootblk) {
		copy_name(s->rootdev, rootblk->name);
		err = add_root(s, rootblk->name, 0);
	}
	if (err)
		snap_free(s);
	return err;
}

/* --- judging one device -------------------------------------------------------- */

static int exclude(struct hc_drive *d, enum hc_reason r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int exclude(struct hc_drive *d, enum hc_reason r, const char *fmt, ...)
{
	va_list ap;

	d->verdict = r == HC_REASON_PROBE ? HC_VERDICT_UNKNOWN :
					    HC_VERDICT_EXCLUDED;
	d->reason = r;
	va_start(ap, fmt);
	vsnprintf(d->detail, sizeof(d->detail), fmt, ap);
	va_end(ap);
	return 1;
}

/* "partition nvme0n1p2 " when @part is not the drive itself. */
static const char *who(const struct hc_drive *d, const struct blk *part,
		       char *buf, size_t len)
{
	if (!strcmp(part->name, d->name))
		snprintf(buf, len, "%s", "");
	else
		snprintf(buf, len, "partition %s ", part->name);
	return buf;
}

/* The device itself, then each partition of it; NULL at the end. */
static const struct blk *next_part(const struct snap *s, const struct blk *self,
				   size_t *i)
{
	if (*i == 0) {
		(*i)++;
		return self;
	}
	for (; *i <= s->nblk; (*i)++) {
		const struct blk *b = &s->blk[*i - 1];

		if (b->part && !strcmp(b->parent, self->name)) {
			(*i)++;
			return b;
		}
	}
	return NULL;
}

static int check_root(const struct snap *s, const struct blk *self,
		      struct hc_drive *d)
{
	const struct blk *b;
	size_t i = 0;

	while ((b = next_part(s, self, &i)))
		if (in_list(s->rootset, s->nroot, b->name))
			return exclude(d, HC_REASON_ROOT,
				       "holds the root file system (/ is on %s)",
				       s->rootdev);
	if (self->part && in_list(s->rootset, s->nroot, self->parent))
		return exclude(d, HC_REASON_ROOT,
			       "is a partition of %s, which holds the root file system",
			       self->parent);
	return 0;
}

static int check_swap(const struct snap *s, const struct blk *self,
		      struct hc_drive *d)
{
	const struct blk *b;
	char buf[NAME_LEN + 16];
	size_t i = 0;

	while ((b = next_part(s, self, &i)))
		if (in_list(s->swap, s->nswap, b->name))
			return exclude(d, HC_REASON_SWAP, "%sis used as swap",
				       who(d, b, buf, sizeof(buf)));
	return 0;
}

static int check_mounts(const struct snap *s, const struct blk *self,
			struct hc_drive *d)
{
	const struct blk *b;
	char buf[NAME_LEN + 16];
	size_t i = 0, j;

	while ((b = next_part(s, self, &i))) {
		for (j = 0; j < s->nmnt; j++) {
			const struct mnt *m = &s->mnt[j];

			if ((m->major == b->major && m->minor == b->minor) ||
			    !strcmp(m->name, b->name))
				return exclude(d, HC_REASON_MOUNTED,
					       "%sis mounted on %s",
					       who(d, b, buf, sizeof(buf)),
					       m->point);
		}
	}
	return 0;
}

static int check_holders(const struct snap *s, const struct blk *self,
			 struct hc_drive *d)
{
	char path[PATH_MAX], buf[NAME_LEN + 16], first[NAME_LEN];
	const struct blk *b;
	struct dirent *de;
	size_t i = 0;
	int n;
	DIR *dir;

	while ((b = next_part(s, self, &i))) {
		if (rpath(s, path, sizeof(path), "/sys/class/block/%s/holders",
			  b->name))
			continue;
		dir = opendir(path);
		if (!dir)
			continue;
		n = 0;
		while ((de = readdir(dir))) {
			if (de->d_name[0] == '.')
				continue;
			if (!n++)
				copy_name(first, de->d_name);
		}
		closedir(dir);
		/* the pool links each member's holders/ to its disk */
		if (n == 1 && !strncmp(first, "hypercache", 10))
			return exclude(d, HC_REASON_MEMBER,
				       "%sis a member of the running HyperCache pool (%s)",
				       who(d, b, buf, sizeof(buf)), first);
		if (n == 1)
			return exclude(d, HC_REASON_HOLDERS, "%sis held by %s",
				       who(d, b, buf, sizeof(buf)), first);
		if (n > 1)
			return exclude(d, HC_REASON_HOLDERS,
				       "%sis held by %s and %d more",
				       who(d, b, buf, sizeof(buf)), first, n - 1);
	}
	return 0;
}

/* How people call what libblkid found. */
static const struct {
	const char *type;
	const char *what;
} sig_names[] = {
	{ "ext2",		"an ext2 file system" },
	{ "ext3",		"an ext3 file system" },
	{ "ext4",		"an ext4 file system" },
	{ "jbd",		"an ext3/ext4 journal" },
	{ "xfs",		"an XFS file system" },
	{ "btrfs",		"a Btrfs file system" },
	{ "zfs_member",		"a ZFS pool member label" },
	{ "swap",		"a swap signature" },
	{ "crypto_LUKS",	"a LUKS header" },
	{ "LVM2_member",	"an LVM physical volume label" },
	{ "linux_raid_member",	"an md RAID member superblock" },
	{ "bcache",		"a bcache superblock" },
	{ "vfat",		"a FAT file system" },
	{ "ntfs",		"an NTFS file system" },
	{ "gpt",		"a GPT partition table" },
	{ "PMBR",		"a protective MBR" },
	{ "dos",		"an MBR partition table" },
};

static void sig_describe(const char *type, bool pt, char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < sizeof(sig_names) / sizeof(sig_names[0]); i++) {
		if (!strcmp(sig_names[i].type, type)) {
			snprintf(buf, len, "%s", sig_names[i].what);
			return;
		}
	}
	snprintf(buf, len, "a %s signature (%s)", pt ? "partition table" :
		 "superblock", type);
}

/*
 * Run every superblock and partition-table prober of libblkid over the
 * device, as wipefs does, and report the first signature found.
 */
static int check_signature(const struct snap *s, const struct blk *self,
			   struct hc_drive *d)
{
	char path[PATH_MAX], what[96], first[32] = "";
	const char *type;
	bool first_pt = false;
	blkid_probe pr;
	int n = 0, rc, err;

	if (rpath(s, path, sizeof(path), "/dev/%s", self->name))
		return exclude(d, HC_REASON_PROBE, "cannot probe: path too long");
	errno = 0;
	pr = blkid_new_probe_from_filename(path);
	if (!pr) {
		err = errno ? errno : EIO;
		return exclude(d, HC_REASON_PROBE, "cannot probe %s: %s",
			       d->path, strerror(err));
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE |
					  BLKID_SUBLKS_BADCSUM);
	blkid_probe_enable_partitions(pr, 1);
	blkid_probe_set_partitions_flags(pr, BLKID_PARTS_MAGIC);

	while ((rc = blkid_do_probe(pr)) == 0) {
		bool pt = false;

		if (blkid_probe_lookup_value(pr, "TYPE", &type, NULL) < 0) {
			if (blkid_probe_lookup_value(pr, "PTTYPE", &type, NULL) < 0)
				continue;
			pt = true;
		}
		if (!n++) {
			snprintf(first, sizeof(first), "%s", type);
			first_pt = pt;
		}
	}
	blkid_free_probe(pr);
	if (rc < 0 && !n)
		return exclude(d, HC_REASON_PROBE, "cannot probe %s", d->path);
	if (!n)
		return 0;
	snprintf(d->signature, sizeof(d->signature), "%s", first);
	sig_describe(first, first_pt, what, sizeof(what));
	if (n == 1)
		return exclude(d, HC_REASON_SIGNATURE, "carries %s", what);
	return exclude(d, HC_REASON_SIGNATURE, "carries %s (and %d more signature%s)",
		       what, n - 1, n > 2 ? "s" : "");
}

static void read_attr(const struct snap *s, const char *name, const char *attr,
		      char *out, size_t len)
{
	char path[PATH_MAX];

	out[0] = '\0';
	if (rpath(s, path, sizeof(path), "/sys/class/block/%s/%s", name, attr) ||
	    read_text(path, out, len))
		out[0] = '\0';
}

static void judge(const struct snap *s, const struct blk *self,
		  struct hc_drive *d)
{
	char buf[64];

	memset(d, 0, sizeof(*d));
	copy_name(d->name, self->name);
	snprintf(d->path, sizeof(d->path), "/dev/%s", self->name);
	d->major = self->major;
	d->minor = self->minor;
	read_attr(s, self->name, "size", buf, sizeof(buf));
	d->bytes = strtoull(buf, NULL, 10) * 512;
	read_attr(s, self->name, "device/model", d->model, sizeof(d->model));
	read_attr(s, self->name, "device/serial", d->serial, sizeof(d->serial));
	if (!d->serial[0])
		read_attr(s, self->name, "serial", d->serial, sizeof(d->serial));
	d->verdict = HC_VERDICT_SAFE;
	d->reason = HC_REASON_NONE;

	if (check_root(s, self, d) || check_swap(s, self, d) ||
	    check_mounts(s, self, d) || check_holders(s, self, d))
		return;
	if (!d->bytes) {
		exclude(d, HC_REASON_EMPTY, "has no capacity");
		return;
	}
	check_signature(s, self, d);
}

/* --- API --------------------------------------------------------------------- */

/* "PREFIX" then digits then "n" then digits: nvme0n1 (not nvme0c0n1, nvme0n1p1). */
static bool is_nvme_ns(const char *name)
{
	const char *p = name + 4;

	if (strncmp(name, "nvme", 4) || !isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != 'n' || !isdigit((unsigned char)*p))
		return false;
	while (isdigit((unsigned char)*p))
		p++;
	return *p == '\0';
}

/* sda, sdab, vdb: the prefix then lower-case letters only. */
static bool is_letter_disk(const char *name, const char *prefix)
{
	const char *p = name + strlen(prefix);

	if (strncmp(name, prefix, strlen(prefix)) || !*p)
		return false;
	for (; *p; p++)
		if (*p < 'a' || *p > 'z')
			return false;
	return true;
}

static bool is_candidate(const struct blk *b, unsigned int flags)
{
	if (b->part)
		return false;
	if (is_nvme_ns(b->name))
		return true;
	return (flags & HC_DISCOVER_ALL) &&
	       (is_letter_disk(b->name, "sd") || is_letter_disk(b->name, "vd"));
}

int hc_discover(const char *root, unsigned int flags, struct hc_drive **out,
		size_t *n)
{
	struct hc_drive *drives = NULL;
	struct snap s;
	size_t i, count = 0;
	int err;

	*out = NULL;
	*n = 0;
	if (flags & ~HC_DISCOVER_ALL)
		return -EINVAL;
	err = snap_load(&s, root);
	if (err)
		return err;
	for (i = 0; i < s.nblk; i++)
		count += is_candidate(&s.blk[i], flags);
	if (count) {
		drives = calloc(count, sizeof(*drives));
		if (!drives) {
			snap_free(&s);
			return -ENOMEM;
		}
	}
	count = 0;
	for (i = 0; i < s.nblk; i++)
		if (is_candidate(&s.blk[i], flags))
			judge(&s, &s.blk[i], &drives[count++]);
	snap_free(&s);
	*out = drives;
	*n = count;
	return 0;
}

void hc_discover_free(struct hc_drive *drives)
{
	free(drives);
}

int hc_discover_check(const char *root, const char *devpath,
		      struct hc_drive *out)
{
	char path[PATH_MAX], *real, *base;
	const struct blk *b = NULL;
	struct stat st;
	struct snap s;
	int err;

	if (!devpath || devpath[0] != '/')
		return -EINVAL;
	err = snap_load(&s, root);
	if (err)
		return err;
	err = rpath(&s, path, sizeof(path), "%s", devpath);
	if (err)
		goto out;
	if (stat(path, &st) < 0) {
		err = -errno;
		goto out;
	}
	if (S_ISBLK(st.st_mode)) {
		b = blk_by_dev(&s, major(st.st_rdev), minor(st.st_rdev));
	} else {
		real = realpath(path, NULL);
		if (!real) {
			err = -errno;
			goto out;
		}
		base = strrchr(real, '/');
		b = blk_by_name(&s, base ? base + 1 : real);
		free(real);
	}
	if (!b) {
		err = -ENODEV;
		goto out;
	}
	judge(&s, b, out);
out:
	snap_free(&s);
	return err;
}

const char *hc_discover_verdict_name(enum hc_verdict v)
{
	switch (v) {
	case HC_VERDICT_SAFE:
		return "safe";
	case HC_VERDICT_EXCLUDED:
		return "excluded";
	case HC_VERDICT_UNKNOWN:
		return "unknown";
	}
	return "?";
}

bool hc_discover_forcible(const struct hc_drive *d)
{
	switch (d->reason) {
	case HC_REASON_NONE:
	case HC_REASON_SIGNATURE:
	case HC_REASON_PROBE:
		return true;
	case HC_REASON_ROOT:
	case HC_REASON_SWAP:
	case HC_REASON_MOUNTED:
	case HC_REASON_HOLDERS:
	case HC_REASON_MEMBER:
	case HC_REASON_EMPTY:
		break;
	}
	return false;
}

const char *hc_discover_reason_name(enum hc_reason r)
{
	switch (r) {
	case HC_REASON_NONE:
		return "none";
	case HC_REASON_ROOT:
		return "root";
	case HC_REASON_SWAP:
		return "swap";
	case HC_REASON_MOUNTED:
		return "mounted";
	case HC_REASON_HOLDERS:
		return "holders";
	case HC_REASON_EMPTY:
		return "empty";
	case HC_REASON_SIGNATURE:
		return "signature";
	case HC_REASON_PROBE:
		return "probe";
	case HC_REASON_MEMBER:
		return "member";
	}
	return "?";
}
