// SPDX-License-Identifier: GPL-2.0
/*
 * hc_openrace SECONDS [DEV]: open DEV (default /dev/hypercache0) again and
 * again for SECONDS while another process stops and assembles the pool.
 * Each open issues HC_IOC_GEOMETRY for up to 300 us, then closes, then
 * pauses up to 300 us.  Every answer must be the pool's (a 4 MiB chunk,
 * members, capacity = chunks * chunk size, the same UUID across one open);
 * a call may fail only with ENODEV/ENXIO and an open only with ENOENT,
 * ENXIO or ENODEV.  A stop must never succeed while the device is open:
 * the disk vanishing (/sys/block/NAME) under an open file is a failure (an
 * open slipped past the stop; its GEOMETRY then reads the freed pool,
 * zeros with init_on_free=1, which is printed too).
 *
 * SIGTERM ends the loop early.  Prints "opens=N answers=N refused=N" and
 * exits 1 on a bad answer.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libgen.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include "hypercache.h"

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *dev = argc > 2 ? argv[2] : "/dev/hypercache0";
	unsigned long opens = 0, answers = 0, refused = 0;
	char sys[256], name[64];
	double end;

	if (argc < 2) {
		fprintf(stderr, "usage: hc_openrace SECONDS [DEV]\n");
		return 2;
	}
	end = now() + atof(argv[1]);
	snprintf(name, sizeof(name), "%s", dev);
	snprintf(sys, sizeof(sys), "/sys/block/%s", basename(name));
	srand(getpid());
	signal(SIGTERM, on_term);
	while (!stop && now() < end) {
		unsigned char uuid[16];
		double hold_end;
		int fd, first = 1;

		fd = open(dev, O_RDONLY);
		if (fd < 0) {
			if (errno != ENOENT && errno != ENXIO && errno != ENODEV) {
				printf("FAIL open: %s\n", strerror(errno));
				return 1;
			}
			refused++;
			usleep(200);
			continue;
		}
		opens++;
		hold_end = now() + (rand() % 300) / 1e6;
		do {
			struct hc_geometry g = { .size = sizeof(g) };

			if (ioctl(fd, HC_IOC_GEOMETRY, &g)) {
				if (errno != ENODEV && errno != ENXIO) {
					printf("FAIL GEOMETRY: %s\n",
					       strerror(errno));
					return 1;
				}
				break;
			}
			answers++;
			if (g.chunk_size != 4u << 20 || !g.member_count ||
			    g.member_count > 64 || !g.chunks ||
			    g.capacity != g.chunks * g.chunk_size ||
			    (!first && memcmp(uuid, g.pool_uuid, 16))) {
				printf("FAIL GEOMETRY answered garbage: chunk_size=%u members=%u chunks=%llu capacity=%llu\n",
				       g.chunk_size, g.member_count,
				       (unsigned long long)g.chunks,
				       (unsigned long long)g.capacity);
				return 1;
			}
			memcpy(uuid, g.pool_uuid, 16);
			first = 0;
			if (access(sys, F_OK)) {
				/* the disk went away under this open file */
				usleep(200000);
				memset(&g, 0, sizeof(g));
				g.size = sizeof(g);
				ioctl(fd, HC_IOC_GEOMETRY, &g);
				printf("FAIL the pool stopped while %s was open (GEOMETRY now: chunk_size=%u members=%u chunks=%llu)\n",
				       dev, g.chunk_size, g.member_count,
				       (unsigned long long)g.chunks);
				return 1;
			}
		} while (now() < hold_end);
		close(fd);
		usleep(rand() % 300);
	}
	printf("opens=%lu answers=%lu refused=%lu\n", opens, answers, refused);
	return 0;
}
