// SPDX-License-Identifier: GPL-2.0
/*
 * hc_pattern SEED SIZE: write SIZE deterministic pseudo-random bytes
 * (xorshift64* seeded with SEED) to standard output, so that a test can
 * regenerate an object's expected content after a reboot.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	uint64_t x, left;
	uint64_t buf[8192];

	if (argc != 3) {
		fprintf(stderr, "usage: hc_pattern SEED SIZE\n");
		return 2;
	}
	x = strtoull(argv[1], NULL, 0) * 0x9e3779b97f4a7c15ULL + 1;
	left = strtoull(argv[2], NULL, 0);
	while (left) {
		size_t n = left < sizeof(buf) ? left : sizeof(buf);

		for (size_t i = 0; i < sizeof(buf) / 8; i++) {
			x ^= x >> 12;
			x ^= x << 25;
			x ^= x >> 27;
			buf[i] = x * 0x2545f4914f6cdd1dULL;
		}
		if (write(1, buf, n) != (ssize_t)n) {
			perror("hc_pattern");
			return 1;
		}
		left -= n;
	}
	return 0;
}
