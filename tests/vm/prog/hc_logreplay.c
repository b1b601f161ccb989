// SPDX-License-Identifier: GPL-2.0
/*
 * hc_logreplay --log LOGDEV [--list]
 * hc_logreplay --log LOGDEV --replay DEV [--every K] [--after-mark NAME]
 *              [--stop-mark NAME] [--skip N] [--exec CMD]
 *
 * Reads a dm-log-writes log (the format of the kernel's drivers/md/
 * dm-log-writes.c, described in Documentation/admin-guide/device-mapper/
 * log-writes.rst) and replays it, to test what a crash at each point of a
 * workload would have left on the disk.
 *
 * The log: a super block at byte 0 (magic, version, nr_entries, sectorsize,
 * little endian), then nr_entries entries from byte sectorsize on, each one
 * sectorsize block holding {sector, nr_sectors, flags, data_len} (mark
 * entries carry their name after it in the same block), followed, for a
 * write, by nr_sectors blocks of data.  Sectors are in sectorsize units.
 * Writes are logged once they are durable (after the next flush; FUA
 * writes at once), in that order.
 *
 * --list prints one line per entry: "N FLAGS sector=S nr=NR [mark=NAME]",
 * FLAGS one letter per bit (F flush, U FUA, D discard, M mark, m metadata)
 * or "-".
 *
 * --replay applies the entries in order to DEV (writes with pwrite,
 * discards as BLKZEROOUT).  A check point is an entry with the flush or
 * FUA flag, and the log's last entry; with --every K only every K-th check
 * point is used (the last one always is).  --after-mark NAME: check points
 * before the mark NAME are not used.  At each used check point DEV is made
 * durable (fsync) and CMD is run with sh -c and the environment
 * HC_LW_ENTRY (the entry's index), HC_LW_MARK (the name of the last mark
 * before it, "" if none) and HC_LW_FLAGS; its output is passed through.
 * --stop-mark NAME: the mark NAME is the last entry replayed, and a check
 * point.  --skip N: entry N is not applied (a write that was acknowledged
 * and then lost on its device: what mirrors are for).
 * The last line is "logreplay: P points checked, F failed (E entries)";
 * the exit status is 0 if every CMD exited 0, 1 if one failed, 2 on a
 * usage or I/O error.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define LW_MAGIC	0x6a736677736872ULL
#define LW_VERSION	1ULL
#define LW_FLUSH	(1U << 0)
#define LW_FUA		(1U << 1)
#define LW_DISCARD	(1U << 2)
#define LW_MARK		(1U << 3)
#define LW_META		(1U << 4)

struct lw_super {
	uint64_t magic;
	uint64_t version;
	uint64_t nr_entries;
	uint32_t sectorsize;
} __attribute__((packed));

struct lw_entry {
	uint64_t sector;
	uint64_t nr_sectors;
	uint64_t flags;
	uint64_t data_len;
} __attribute__((packed));

static void usage(void)
{
	fprintf(stderr, "usage: hc_logreplay --log LOGDEV [--list]\n"
		"       hc_logreplay --log LOGDEV --replay DEV [--every K] [--after-mark NAME]\n"
		"                    [--stop-mark NAME] [--skip N] [--exec CMD]\n");
	exit(2);
}

static int read_full(int fd, void *buf, size_t len, off_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, off + done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += n;
	}
	return 0;
}

static int write_full(int fd, const void *buf, size_t len, off_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(fd, (const char *)buf + done, len - done, off + done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += n;
	}
	return 0;
}

static void flag_str(uint64_t f, char *s)
{
	char *p = s;

	if (f & LW_FLUSH)
		*p++ = 'F';
	if (f & LW_FUA)
		*p++ = 'U';
	if (f & LW_DISCARD)
		*p++ = 'D';
	if (f & LW_MARK)
		*p++ = 'M';
	if (f & LW_META)
		*p++ = 'm';
	if (p == s)
		*p++ = '-';
	*p = 0;
}

/* run CMD for check point @idx; returns its exit status (or 127) */
static int run_check(const char *cmd, uint64_t idx, const char *mark, uint64_t flags)
{
	char buf[32], fl[8];
	int st;

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)idx);
	flag_str(flags, fl);
	setenv("HC_LW_ENTRY", buf, 1);
	setenv("HC_LW_MARK", mark, 1);
	setenv("HC_LW_FLAGS", fl, 1);
	fflush(stdout);
	st = system(cmd);
	if (st == -1 || !WIFEXITED(st))
		return 127;
	return WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "log", required_argument, NULL, 'l' },
		{ "replay", required_argument, NULL, 'r' },
		{ "list", no_argument, NULL, 'L' },
		{ "every", required_argument, NULL, 'e' },
		{ "after-mark", required_argument, NULL, 'a' },
		{ "exec", required_argument, NULL, 'x' },
		{ "stop-mark", required_argument, NULL, 's' },
		{ "skip", required_argument, NULL, 'k' },
		{ NULL, 0, NULL, 0 },
	};
	const char *logpath = NULL, *devpath = NULL, *cmd = NULL, *after = NULL;
	const char *stop = NULL;
	long long skip = -1;
	bool list = false, armed;
	unsigned long every = 1, nth = 0, checked = 0, failed = 0;
	char mark[4096] = "", fl[8];
	struct lw_super sb;
	unsigned char *blk, *data = NULL;
	size_t data_cap = 0;
	uint32_t ss;
	uint64_t i, n;
	off_t pos;
	int c, lfd, dfd = -1;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'l': logpath = optarg; break;
		case 'r': devpath = optarg; break;
		case 'L': list = true; break;
		case 'e': every = strtoul(optarg, NULL, 0); break;
		case 'a': after = optarg; break;
		case 'x': cmd = optarg; break;
		case 's': stop = optarg; break;
		case 'k': skip = strtoll(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (!logpath || (!list && !devpath) || every == 0 || optind != argc)
		usage();
	armed = !after;

	lfd = open(logpath, O_RDONLY);
	if (lfd < 0) {
		perror(logpath);
		return 2;
	}
	if (read_full(lfd, &sb, sizeof(sb), 0)) {
		fprintf(stderr, "logreplay: %s: cannot read the super block\n", logpath);
		return 2;
	}
	ss = le32toh(sb.sectorsize);
	n = le64toh(sb.nr_entries);
	if (le64toh(sb.magic) != LW_MAGIC || le64toh(sb.version) != LW_VERSION ||
	    ss < 512 || ss > 65536 || (ss & (ss - 1))) {
		fprintf(stderr, "logreplay: %s: not a dm-log-writes log (magic %llx, version %llu, sectorsize %u)\n",
			logpath, (unsigned long long)le64toh(sb.magic),
			(unsigned long long)le64toh(sb.version), ss);
		return 2;
	}
	if (devpath) {
		dfd = open(devpath, O_RDWR);
		if (dfd < 0) {
			perror(devpath);
			return 2;
		}
	}
	blk = malloc(ss);
	if (!blk)
		return 2;

	pos = ss;
	for (i = 0; i < n; i++) {
		struct lw_entry e;
		uint64_t sector, nr, flags, dlen;
		bool point, last = i + 1 == n, apply = (long long)i != skip;

		if (read_full(lfd, blk, ss, pos)) {
			fprintf(stderr, "logreplay: entry %llu at byte %lld: read error\n",
				(unsigned long long)i, (long long)pos);
			return 2;
		}
		memcpy(&e, blk, sizeof(e));
		sector = le64toh(e.sector);
		nr = le64toh(e.nr_sectors);
		flags = le64toh(e.flags);
		dlen = le64toh(e.data_len);
		pos += ss;
		if (flags & LW_MARK) {
			size_t ml = dlen < ss - sizeof(e) ? dlen : ss - sizeof(e) - 1;

			memcpy(mark, blk + sizeof(e), ml);
			mark[ml] = 0;
			if (after && !strcmp(mark, after))
				armed = true;
			if (stop && !strcmp(mark, stop))
				last = true;
		}
		if (list) {
			flag_str(flags, fl);
			printf("%llu %s sector=%llu nr=%llu", (unsigned long long)i, fl,
			       (unsigned long long)sector, (unsigned long long)nr);
			if (flags & LW_MARK)
				printf(" mark=%s", mark);
			printf("\n");
		}
		if (!(flags & (LW_DISCARD | LW_MARK)) && nr) {
			size_t len = nr * ss;

			if (len > data_cap) {
				free(data);
				data = malloc(len);
				data_cap = data ? len : 0;
				if (!data)
					return 2;
			}
			if (read_full(lfd, data, len, pos)) {
				fprintf(stderr, "logreplay: entry %llu: data read error\n",
					(unsigned long long)i);
				return 2;
			}
			pos += len;
			if (dfd >= 0 && apply && write_full(dfd, data, len, sector * ss)) {
				fprintf(stderr, "logreplay: entry %llu: write of %zu bytes at sector %llu: %s\n",
					(unsigned long long)i, len, (unsigned long long)sector,
					strerror(errno));
				return 2;
			}
		} else if ((flags & LW_DISCARD) && dfd >= 0 && nr && apply) {
			uint64_t r[2] = { sector * ss, nr * ss };

			if (ioctl(dfd, BLKZEROOUT, r)) {
				perror("logreplay: BLKZEROOUT");
				return 2;
			}
		}
		if (dfd < 0)
			continue;
		point = (flags & (LW_FLUSH | LW_FUA)) || last;
		if (!point || !armed)
			continue;
		nth++;
		if ((nth - 1) % every && !last)
			continue;
		if (fsync(dfd)) {
			perror("logreplay: fsync");
			return 2;
		}
		checked++;
		if (cmd && run_check(cmd, i, mark, flags)) {
			failed++;
			flag_str(flags, fl);
			printf("logreplay: check at entry %llu (%s, after mark '%s') FAILED\n",
			       (unsigned long long)i, fl, mark);
		}
		if (last)
			break;
	}
	if (dfd >= 0)
		printf("logreplay: %lu points checked, %lu failed (%llu entries)\n",
		       checked, failed, (unsigned long long)n);
	free(data);
	free(blk);
	return failed ? 1 : 0;
}
