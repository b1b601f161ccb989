// SPDX-License-Identifier: GPL-2.0
/*
 * hc_cpucost [MIB]: the CPU seconds per GB of the per-byte work the cache
 * adds to a transfer, on this CPU: what scripts/bench-speed.sh weighs
 * against a peer that only moves bytes.  Over a buffer of MIB MiB (default
 * 64), each measured for at least a second of this thread's CPU time:
 *
 *   memcpy   a copy (what a bounce buffer costs)
 *   crc32c   hypercached's CRC-32C (helper/lib/crc.c: ISA-L, whose
 *            dispatcher picks the CPU's crc32 instruction or, without
 *            SSE4.2, a byte-wise table)
 *   md5      OpenSSL's MD5 (an upload's Content-MD5)
 *
 * Prints "NAME X CPU-s/GB" per line.  Exit 1 if a function computes the
 * wrong check value (CRC-32C of "123456789" is 0xe3069283; MD5 of it
 * 25f9e794323b453885f5181f1b624d0b), 2 on a usage or allocation error.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <openssl/evp.h>
#include "crc.h"

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned char *src, *dst;
static size_t len;
static volatile uint32_t sink;

static void run_memcpy(void)
{
	memcpy(dst, src, len);
	sink += dst[len / 2];
}

static void run_crc32c(void)
{
	sink += hc_crc32c(src, len);
}

static void run_md5(void)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n;

	if (!EVP_Digest(src, len, md, &n, EVP_md5(), NULL))
		exit(2);
	sink += md[0];
}

static bool checks(void)
{
	static const unsigned char md5_check[16] = {
		0x25, 0xf9, 0xe7, 0x94, 0x32, 0x3b, 0x45, 0x38,
		0x85, 0xf5, 0x18, 0x1f, 0x1b, 0x62, 0x4d, 0x0b,
	};
	const char *s = "123456789";
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int n = 0;

	if (hc_crc32c(s, 9) != 0xe3069283) {
		fprintf(stderr, "hc_cpucost: CRC-32C check value wrong\n");
		return false;
	}
	if (!EVP_Digest(s, 9, md, &n, EVP_md5(), NULL) || n != 16 ||
	    memcmp(md, md5_check, 16)) {
		fprintf(stderr, "hc_cpucost: MD5 check value wrong\n");
		return false;
	}
	return true;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} work[] = {
		{ "memcpy", run_memcpy },
		{ "crc32c", run_crc32c },
		{ "md5", run_md5 },
	};
	unsigned long mib = 64;
	size_t i;

	if (argc > 2 || (argc == 2 && (mib = strtoul(argv[1], NULL, 10)) == 0)) {
		fprintf(stderr, "usage: hc_cpucost [MIB]\n");
		return 2;
	}
	if (!checks())
		return 1;
	len = mib << 20;
	src = malloc(len);
	dst = malloc(len);
	if (!src || !dst) {
		fprintf(stderr, "hc_cpucost: out of memory for %lu MiB\n", mib);
		return 2;
	}
	for (i = 0; i < len; i++)
		src[i] = (unsigned char)(i * 2654435761u >> 24);
	memset(dst, 0, len);	/* its pages are in: a copy, not faults */
	for (i = 0; i < sizeof(work) / sizeof(work[0]); i++) {
		double t0 = cpu_now(), t;
		unsigned long rounds = 0;

		do {
			work[i].fn();
			rounds++;
			t = cpu_now() - t0;
		} while (t < 1.0);
		printf("%s %.3f CPU-s/GB\n", work[i].name,
		       t / ((double)rounds * len / 1e9));
	}
	return 0;
}
