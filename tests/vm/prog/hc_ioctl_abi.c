// SPDX-License-Identifier: GPL-2.0
/*
 * hc_ioctl_abi DEV: the size/flags/reserved contract of every ioctl of
 * /dev/hypercacheN (uapi/hypercache.h), as the iommufd selftest checks it:
 * size - 1 → EINVAL; size + 1 with a junk byte → E2BIG; size + 1 with a
 * zero byte → success; an unknown flag or a non-zero reserved field →
 * EINVAL; an unknown ioctl number → ENOTTY; a bad pointer → EFAULT.
 * Prints one line per check and exits 1 if any failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "hypercache.h"

static int failures;

static void expect(const char *what, int ret, int want_errno)
{
	int got = ret ? errno : 0;

	if (got == want_errno) {
		printf("ok   %s: %s\n", what, got ? strerror(got) : "success");
	} else {
		printf("FAIL %s: got %s, want %s\n", what,
		       got ? strerror(got) : "success",
		       want_errno ? strerror(want_errno) : "success");
		failures++;
	}
}

int main(int argc, char **argv)
{
	struct {
		struct hc_geometry g;
		unsigned char tail[8];
	} buf;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: hc_ioctl_abi DEV\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 2;
	}

	memset(&buf, 0, sizeof(buf));
	buf.g.size = sizeof(buf.g);
	expect("geometry: exact size", ioctl(fd, HC_IOC_GEOMETRY, &buf), 0);
	if (buf.g.chunk_size != 4u << 20 || !buf.g.member_count ||
	    buf.g.capacity != buf.g.chunks * buf.g.chunk_size) {
		printf("FAIL geometry: implausible answer chunk=%u members=%u\n",
		       buf.g.chunk_size, buf.g.member_count);
		failures++;
	}

	memset(&buf, 0, sizeof(buf));
	buf.g.size = sizeof(buf.g) - 1;
	expect("geometry: size - 1", ioctl(fd, HC_IOC_GEOMETRY, &buf), EINVAL);

	memset(&buf, 0, sizeof(buf));
	buf.g.size = 0;
	expect("geometry: size 0", ioctl(fd, HC_IOC_GEOMETRY, &buf), EINVAL);

	memset(&buf, 0, sizeof(buf));
	buf.g.size = sizeof(buf.g) + 1;
	buf.tail[0] = 0xa5;
	expect("geometry: size + 1, junk", ioctl(fd, HC_IOC_GEOMETRY, &buf),
	       E2BIG);

	memset(&buf, 0, sizeof(buf));
	buf.g.size = sizeof(buf.g) + 1;
	expect("geometry: size + 1, zero", ioctl(fd, HC_IOC_GEOMETRY, &buf), 0);
	if (buf.tail[0] != 0) {
		printf("FAIL geometry: wrote past the kernel's struct\n");
		failures++;
	}

	memset(&buf, 0, sizeof(buf));
	buf.g.size = sizeof(buf.g);
	buf.g.flags = 1;
	expect("geometry: unknown flag", ioctl(fd, HC_IOC_GEOMETRY, &buf),
	       EINVAL);

	memset(&buf, 0, sizeof(buf));
	buf.g.size = sizeof(buf.g);
	buf.g.reserved[1] = 1;
	expect("geometry: reserved non-zero", ioctl(fd, HC_IOC_GEOMETRY, &buf),
	       EINVAL);

	expect("geometry: bad pointer", ioctl(fd, HC_IOC_GEOMETRY, (void *)8),
	       EFAULT);
	expect("unknown ioctl", ioctl(fd, _IO(HC_IOCTL_MAGIC, 0x7f), &buf),
	       ENOTTY);

	close(fd);
	return failures ? 1 : 0;
}
