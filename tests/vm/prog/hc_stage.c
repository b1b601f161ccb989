// SPDX-License-Identifier: GPL-2.0
/*
 * hc_stage [--commit|--clean] [--nowait] [--any-writer]
 *	    [--fill FILE|--fill-buffered FILE] [--now] URI SIZE:
 * stage an object of SIZE bytes (replacing an idle one of that URI), print
 * its extents ("offset length" in bytes of /dev/hypercache0, one per line),
 * then "ready", and hold the stage until SIGTERM or SIGINT (--now: not at
 * all).  Then ABORT (the default), or COMMIT as DIRTY (--commit) or READY
 * (--clean), and exit.
 * --nowait: HC_STAGE_F_NOWAIT (EAGAIN over the dirty limit).
 * --any-writer: HC_STAGE_F_ANY_WRITER (every writer may write the extents).
 * --fill FILE: before "ready", this process writes FILE's bytes into the
 *	extents with O_DIRECT (FILE padded with zeros to 4 KiB);
 *	--fill-buffered FILE: the same through the page cache, with no fsync
 *	(COMMIT must write it back); the device stays open until COMMIT or
 *	ABORT returned (a last close would write the page cache back).
 * --delay MS: sleep MS milliseconds between "ready" and COMMIT or ABORT.
 *
 * Guest test helper: the write fence admits writes only to staged (or
 * ingesting) chunks, from the stager, so tests that write the raw device
 * from other processes stage it with --any-writer first.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hypercache.h"

static volatile sig_atomic_t done;

static void on_signal(int sig)
{
	(void)sig;
	done = 1;
}

/*
 * Write @path's bytes into the extents (this process is the writer).
 * Return: the open device (the caller closes it), or -1.
 */
static int fill(const char *path, int direct, const struct hc_extent *ext,
		unsigned int nr_ext)
{
	size_t bs = 4 << 20;
	unsigned int i = 0;
	uint64_t done = 0;
	int in, out;
	char *buf;

	in = open(path, O_RDONLY);
	out = open("/dev/hypercache0", O_WRONLY | (direct ? O_DIRECT : 0));
	if (in < 0 || out < 0 || posix_memalign((void **)&buf, 4096, bs)) {
		perror("hc_stage: fill");
		return -1;
	}
	for (;;) {
		ssize_t n = read(in, buf, bs), len;

		if (n < 0) {
			perror(path);
			return -1;
		}
		if (!n)
			break;
		len = (n + 4095) & ~(ssize_t)4095;
		memset(buf + n, 0, len - n);
		while (i < nr_ext && done >= ext[i].length) {
			done -= ext[i].length;
			i++;
		}
		if (i == nr_ext || (uint64_t)len > ext[i].length - done) {
			fprintf(stderr, "hc_stage: %s does not fit the extents\n",
				path);
			return -1;
		}
		if (pwrite(out, buf, len, ext[i].offset + done) != len) {
			fprintf(stderr, "hc_stage: write at %llu: %s\n",
				(unsigned long long)(ext[i].offset + done),
				strerror(errno));
			return -1;
		}
		done += len;
	}
	close(in);
	free(buf);
	return out;	/* no fsync: COMMIT makes it durable */
}

int main(int argc, char **argv)
{
	struct hc_extent ext[HC_MAX_EXTENTS];
	struct hc_stage st;
	int commit = 0, clean = 0, nowait = 0, any = 0, now = 0, direct = 1;
	const char *uri, *fill_path = NULL;
	int fd, out = -1, delay_ms = 0;

	while (argc > 1 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "--commit"))
			commit = 1;
		else if (!strcmp(argv[1], "--clean"))
			commit = clean = 1;
		else if (!strcmp(argv[1], "--nowait"))
			nowait = 1;
		else if (!strcmp(argv[1], "--any-writer"))
			any = 1;
		else if (!strcmp(argv[1], "--now"))
			now = 1;
		else if (argc > 2 && !strcmp(argv[1], "--delay")) {
			delay_ms = atoi(argv[2]);
			argv++, argc--;
		}
		else if (argc > 2 && (!strcmp(argv[1], "--fill") ||
				      !strcmp(argv[1], "--fill-buffered"))) {
			direct = !strcmp(argv[1], "--fill");
			fill_path = argv[2];
			argv++, argc--;
		} else {
			break;
		}
		argv++, argc--;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: hc_stage [--commit|--clean] [--nowait] [--any-writer] [--fill FILE|--fill-buffered FILE] [--now] [--delay MS] URI SIZE\n");
		return 2;
	}
	uri = argv[1];
	fd = open("/dev/" HC_CTL_NAME, O_RDWR);
	if (fd < 0) {
		perror("/dev/" HC_CTL_NAME);
		return 1;
	}
	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	st.flags = HC_STAGE_F_REPLACE | (nowait ? HC_STAGE_F_NOWAIT : 0) |
		   (any ? HC_STAGE_F_ANY_WRITER : 0);
	st.uri = (uintptr_t)uri;
	st.uri_len = strlen(uri);
	st.obj_size = strtoull(argv[2], NULL, 0);
	st.extents = (uintptr_t)ext;
	st.max_extents = HC_MAX_EXTENTS;
	/* Before STAGE: a signal while it waits (dirty limit) gives EINTR. */
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	if (ioctl(fd, HC_IOC_STAGE, &st)) {
		fprintf(stderr, "hc_stage: %s: STAGE: %s\n", uri, strerror(errno));
		return 1;
	}
	for (unsigned int i = 0; i < st.nr_extents; i++)
		printf("%llu %llu\n", (unsigned long long)ext[i].offset,
		       (unsigned long long)ext[i].length);
	if (fill_path) {
		out = fill(fill_path, direct, ext, st.nr_extents);
		if (out < 0)
			return 1;
	}
	printf("ready\n");
	fflush(stdout);

	while (!done && !now)
		sleep(1);	/* a signal cuts it short */
	usleep(delay_ms * 1000);
	if (commit) {
		struct hc_commit cm = {
			.size = sizeof(cm),
			.flags = clean ? HC_COMMIT_F_CLEAN : 0,
			.uri = (uintptr_t)uri,
			.uri_len = strlen(uri),
		};

		if (ioctl(fd, HC_IOC_COMMIT, &cm)) {
			fprintf(stderr, "hc_stage: %s: COMMIT: %s\n", uri,
				strerror(errno));
			return 1;
		}
	} else {
		struct hc_obj_ref ref = {
			.size = sizeof(ref),
			.uri = (uintptr_t)uri,
			.uri_len = strlen(uri),
		};

		if (ioctl(fd, HC_IOC_ABORT, &ref)) {
			fprintf(stderr, "hc_stage: %s: ABORT: %s\n", uri,
				strerror(errno));
			return 1;
		}
	}
	if (out >= 0)
		close(out);
	return 0;
}
