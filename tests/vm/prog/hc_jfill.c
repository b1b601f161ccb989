// SPDX-License-Identifier: GPL-2.0
/*
 * hc_jfill: append journal records of chosen sizes through the real
 * writer (the ioctls), fast, so that tests can bring the log to an exact
 * place of a journal half or fill the journal:
 *
 *   hc_jfill new PREFIX URILEN N
 *       STAGE and COMMIT (clean) N empty objects PREFIX<i>, padded with 'x'
 *       to URILEN bytes: one OBJECT record each, of URILEN + 64 bytes
 *       rounded up to the journal's block size.  Stops at the first
 *       failure: prints "created K" and "failed STAGE|COMMIT ERRNO-NAME".
 *   hc_jfill pin URI N
 *       toggle the pin of URI N times (PIN, UNPIN, ...): N OBJECT records
 *       of that object's record size, no new object.  Prints "pinned K".
 *
 * Exit 0 if everything asked was done, 1 on a failure, 2 on usage errors.
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

static int fill_new(int fd, const char *prefix, unsigned long uri_len,
		    unsigned long n)
{
	static char uri[HC_URI_MAX + 1];
	unsigned long i;
	size_t k;

	for (i = 0; i < n; i++) {
		struct hc_stage st = {
			.size = sizeof(st),
			.uri = (uintptr_t)uri,
			.obj_size = 0,
		};
		struct hc_commit cm = {
			.size = sizeof(cm),
			.flags = HC_COMMIT_F_CLEAN,
			.uri = (uintptr_t)uri,
		};
		const char *what = "STAGE";

		k = (size_t)snprintf(uri, sizeof(uri), "%s%lu", prefix, i);
		if (k > uri_len) {
			fprintf(stderr, "hc_jfill: URI %s longer than %lu\n",
				uri, uri_len);
			return 2;
		}
		memset(uri + k, 'x', uri_len - k);
		st.uri_len = cm.uri_len = (uint32_t)uri_len;
		if (!ioctl(fd, HC_IOC_STAGE, &st)) {
			what = "COMMIT";
			if (!ioctl(fd, HC_IOC_COMMIT, &cm))
				continue;
		}
		printf("created %lu\nfailed %s %s\n", i, what,
		       strerrorname_np(errno));
		return 1;
	}
	printf("created %lu\n", n);
	return 0;
}

static int fill_pin(int fd, const char *uri, unsigned long n)
{
	struct hc_obj_ref ref = {
		.size = sizeof(ref),
		.uri = (uintptr_t)uri,
		.uri_len = (uint32_t)strlen(uri),
	};
	unsigned long i;

	for (i = 0; i < n; i++) {
		if (ioctl(fd, i % 2 ? HC_IOC_UNPIN : HC_IOC_PIN, &ref)) {
			printf("pinned %lu\nfailed %s %s\n", i,
			       i % 2 ? "UNPIN" : "PIN", strerrorname_np(errno));
			return 1;
		}
	}
	printf("pinned %lu\n", n);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long n, len;
	int fd;

	if (!(argc == 5 && !strcmp(argv[1], "new")) &&
	    !(argc == 4 && !strcmp(argv[1], "pin"))) {
		fprintf(stderr, "usage: hc_jfill new PREFIX URILEN N | pin URI N\n");
		return 2;
	}
	fd = open("/dev/" HC_CTL_NAME, O_RDWR);
	if (fd < 0) {
		perror("hc_jfill: /dev/" HC_CTL_NAME);
		return 1;
	}
	if (!strcmp(argv[1], "pin"))
		return fill_pin(fd, argv[2], strtoul(argv[3], NULL, 0));
	len = strtoul(argv[3], NULL, 0);
	n = strtoul(argv[4], NULL, 0);
	if (!len || len > HC_URI_MAX) {
		fprintf(stderr, "hc_jfill: URILEN must be 1..%d\n", HC_URI_MAX);
		return 2;
	}
	return fill_new(fd, argv[2], len, n);
}
