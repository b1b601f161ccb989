// SPDX-License-Identifier: GPL-2.0
/*
 * hc_churn N K SIZE: N times, stage (replacing) and commit as READY the
 * object churn/(i mod K) of SIZE bytes (the data is not written: the test
 * is about the index and its journal).  Each round appends a DELETE and an
 * OBJECT record to the journal, so a few thousand rounds fill a journal
 * half and force compactions.  Prints the last generation of each URI as
 * "churn/J GEN" lines.  Exit 1 on the first failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "hypercache.h"

int main(int argc, char **argv)
{
	struct hc_extent ext[HC_MAX_EXTENTS];
	unsigned long n, k, i;
	unsigned long long size, *gen;
	char uri[64];
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: hc_churn N K SIZE\n");
		return 2;
	}
	n = strtoul(argv[1], NULL, 0);
	k = strtoul(argv[2], NULL, 0);
	size = strtoull(argv[3], NULL, 0);
	gen = calloc(k ? k : 1, sizeof(*gen));
	fd = open("/dev/" HC_CTL_NAME, O_RDWR);
	if (!k || !gen || fd < 0) {
		perror("hc_churn");
		return 2;
	}
	for (i = 0; i < n; i++) {
		struct hc_stage st = {
			.size = sizeof(st),
			.flags = HC_STAGE_F_REPLACE,
			.uri = (uintptr_t)uri,
			.max_extents = HC_MAX_EXTENTS,
			.obj_size = size,
			.extents = (uintptr_t)ext,
		};
		struct hc_commit cm = {
			.size = sizeof(cm),
			.flags = HC_COMMIT_F_CLEAN,
			.uri = (uintptr_t)uri,
		};

		st.uri_len = cm.uri_len = snprintf(uri, sizeof(uri),
						   "churn/%lu", i % k);
		if (ioctl(fd, HC_IOC_STAGE, &st) ||
		    ioctl(fd, HC_IOC_COMMIT, &cm)) {
			fprintf(stderr, "hc_churn: round %lu: %s: %s\n", i, uri,
				strerror(errno));
			return 1;
		}
		gen[i % k] = cm.generation;
	}
	for (i = 0; i < k && i < n; i++)
		printf("churn/%lu %llu\n", i, gen[i]);
	return 0;
}
