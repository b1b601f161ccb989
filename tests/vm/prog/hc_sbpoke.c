// SPDX-License-Identifier: GPL-2.0
/*
 * hc_sbpoke DEV FIELD=VALUE...: change fields of the HyperCache superblock
 * on DEV and write it back with a valid checksum (O_DIRECT, then fsync), so
 * that tests can make superblocks the kernel must refuse for a reason other
 * than a bad checksum.  FIELD is one of version, incompat, ro_compat,
 * compat, index, count, chunks.  "hc_sbpoke DEV show" prints the fields.
 * Uses the module's own codec (kmod/core/sb.c) for the checksum.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sb.h"

int main(int argc, char **argv)
{
	struct hc_sb_disk *d;
	void *block;
	int fd;

	if (argc < 3) {
		fprintf(stderr, "usage: hc_sbpoke DEV FIELD=VALUE...|show\n");
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_DIRECT);
	if (fd < 0 || posix_memalign(&block, 4096, HC_SB_SIZE) ||
	    pread(fd, block, HC_SB_SIZE, HC_SB_OFFSET) != HC_SB_SIZE) {
		fprintf(stderr, "hc_sbpoke: %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	d = block;
	for (int i = 2; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		uint64_t v;

		if (!strcmp(argv[i], "show")) {
			printf("version=%u index=%u count=%u chunks=%" PRIu64
			       " incompat=%#" PRIx64 "\n",
			       le32_to_cpu(d->version),
			       le32_to_cpu(d->member_index),
			       le32_to_cpu(d->member_count),
			       (uint64_t)le64_to_cpu(d->member_chunks),
			       (uint64_t)le64_to_cpu(d->feature_incompat));
			return 0;
		}
		if (!eq) {
			fprintf(stderr, "hc_sbpoke: %s: expected FIELD=VALUE\n",
				argv[i]);
			return 2;
		}
		*eq = 0;
		v = strtoull(eq + 1, NULL, 0);
		if (!strcmp(argv[i], "version"))
			d->version = cpu_to_le32(v);
		else if (!strcmp(argv[i], "incompat"))
			d->feature_incompat = cpu_to_le64(v);
		else if (!strcmp(argv[i], "ro_compat"))
			d->feature_ro_compat = cpu_to_le64(v);
		else if (!strcmp(argv[i], "compat"))
			d->feature_compat = cpu_to_le64(v);
		else if (!strcmp(argv[i], "index"))
			d->member_index = cpu_to_le32(v);
		else if (!strcmp(argv[i], "count"))
			d->member_count = cpu_to_le32(v);
		else if (!strcmp(argv[i], "chunks"))
			d->member_chunks = cpu_to_le64(v);
		else {
			fprintf(stderr, "hc_sbpoke: unknown field %s\n", argv[i]);
			return 2;
		}
	}
	d->csum = cpu_to_le32(hc_sb_csum(block));
	if (pwrite(fd, block, HC_SB_SIZE, HC_SB_OFFSET) != HC_SB_SIZE ||
	    fsync(fd)) {
		fprintf(stderr, "hc_sbpoke: %s: write: %s\n", argv[1],
			strerror(errno));
		return 2;
	}
	return 0;
}
