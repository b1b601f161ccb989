// SPDX-License-Identifier: GPL-2.0
/*
 * hc_stage [--commit|--clean] [--nowait] URI SIZE: stage an object of SIZE
 * bytes (replacing an idle one of that URI), print its extents ("offset
 * length" in bytes of /dev/hypercache0, one per line), then "ready", and
 * hold the stage until SIGTERM or SIGINT.  Then ABORT (the
 * default), or COMMIT as DIRTY (--commit) or READY (--clean), and exit.
 * --nowait: HC_STAGE_F_NOWAIT (EAGAIN over the dirty limit).
 *
 * Guest test helper: the write fence admits writes only to staged (or
 * ingesting) chunks, so tests that write the raw device stage it first.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "hypercache.h"

static volatile sig_atomic_t done;

static void on_signal(int sig)
{
	(void)sig;
	done = 1;
}

int main(int argc, char **argv)
{
	struct hc_extent ext[HC_MAX_EXTENTS];
	struct hc_stage st;
	int commit = 0, clean = 0, nowait = 0, fd;
	const char *uri;

	while (argc > 1 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "--commit"))
			commit = 1;
		else if (!strcmp(argv[1], "--clean"))
			commit = clean = 1;
		else if (!strcmp(argv[1], "--nowait"))
			nowait = 1;
		else
			break;
		argv++, argc--;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: hc_stage [--commit|--clean] [--nowait] URI SIZE\n");
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
	st.flags = HC_STAGE_F_REPLACE | (nowait ? HC_STAGE_F_NOWAIT : 0);
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
	printf("ready\n");
	fflush(stdout);

	while (!done)
		sleep(1);	/* a signal cuts it short */
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
	return 0;
}
