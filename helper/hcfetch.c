// SPDX-License-Identifier: GPL-2.0
/*
 * hcfetch: fetch one object the way hypercached ingests it (its version,
 * then parallel ranged GETs with If-Match through the fill engine, written
 * with O_DIRECT and made durable), but into a regular file instead of the
 * cache's extents.  The version comes from a HEAD here; hypercached gets
 * it with the object's first MiB in one GET where its budget has room.  For measuring the ingest path without the kernel
 * (scripts/bench-fetch.sh) and for checking a backend's configuration.
 *
 *   hcfetch [-c CONFIG] [-w WORKERS] [-p PART] [-o FILE] URI
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "config.h"
#include "fill.h"
#include "resolve.h"
#include "s3.h"

extern char **environ;

struct src {
	struct hcs3 *c[HC_FILL_WORKERS_MAX];
	const char *bucket;
	const char *key;
	struct hcs3_object obj;
};

static int fetch(void *arg, unsigned int worker, uint64_t off, size_t len,
		 void *buf, char *err, size_t errlen)
{
	struct src *s = arg;

	return hcs3_get_range(s->c[worker], s->bucket, s->key, off, len,
			      s->obj.etag, buf, err, errlen);
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: hcfetch [-c CONFIG] [-w WORKERS] [-p PART] [-o FILE] URI\n"
"\n"
"Fetch the S3 object URI (s3://BUCKET/KEY, or hypercache://NAME/BUCKET/KEY\n"
"of an s3 backend) the way hypercached ingests it: HEAD, then WORKERS\n"
"parallel ranged GETs of PART bytes with If-Match, each written with\n"
"O_DIRECT at its place in FILE, then fdatasync.  Prints the size, the\n"
"time, the rate and the CRC-32C.\n"
"\n"
"Options:\n"
"  -c, --config CONFIG  hypercached's configuration (default " HC_CONFIG_PATH ")\n"
"  -w, --workers N      parallel ranged GETs (default: ingest_concurrency)\n"
"  -p, --part SIZE      bytes per GET, K/M/G suffix (default: part_size)\n"
"  -o, --output FILE    where to write (default hcfetch.out); the file is\n"
"                       created or truncated, on a file system with O_DIRECT\n"
"  -h, --help           show this help\n"
"\n"
"Exit status: 0 fetched, 1 the fetch failed, 2 bad usage or configuration.\n");
}

/*
 * Decimal digits, with an optional K, M or G (binary) if @suffix: no sign,
 * nothing after, no overflow.
 */
static int parse_number(const char *s, bool suffix, uint64_t *out)
{
	unsigned int shift = 0;
	unsigned long long v;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (suffix ? *end : '\0') {
	case 'K': case 'k': shift = 10; end++; break;
	case 'M': case 'm': shift = 20; end++; break;
	case 'G': case 'g': shift = 30; end++; break;
	}
	if (*end || v > UINT64_MAX >> shift)
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "workers", required_argument, NULL, 'w' },
		{ "part", required_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cfg_path = HC_CONFIG_PATH, *out = "hcfetch.out";
	static struct hc_config cfg;
	static struct hc_creds creds;
	static struct hc_target target, *t = &target;
	char err[1024];
	const struct hc_backend *b;
	struct hc_fill_result res;
	struct hc_extent ext;
	struct hcs3_opts so;
	unsigned int workers = 0, i;
	uint64_t part = 0;
	struct src src = { 0 };
	struct hc_fill f;
	int c, ret, fd;

	while ((c = getopt_long(argc, argv, "c:w:p:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			cfg_path = optarg;
			break;
		case 'w': {
			uint64_t w;

			workers = 0;
			if (!parse_number(optarg, false, &w) &&
			    w <= HC_FILL_WORKERS_MAX)
				workers = w;
			if (!workers) {
				fprintf(stderr, "hcfetch: --workers: '%s' is not a number in 1..%u\n",
					optarg, HC_FILL_WORKERS_MAX);
				return 2;
			}
			break;
		}
		case 'p':
			if (parse_number(optarg, true, &part)) {
				fprintf(stderr, "hcfetch: --part: '%s' is not a size (bytes, or with K, M or G)\n",
					optarg);
				return 2;
			}
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return 2;
	}
	if (hc_config_load(cfg_path, &cfg, err, sizeof(err))) {
		fprintf(stderr, "hcfetch: %s\n", err);
		return 2;
	}
	if (hc_resolve(&cfg, argv[optind], strlen(argv[optind]), 0, t, err,
		       sizeof(err))) {
		fprintf(stderr, "hcfetch: %s: %s\n", argv[optind], err);
		return 2;
	}
	b = t->b;
	if (b->type != HC_BACKEND_S3) {
		fprintf(stderr, "hcfetch: %s: backend %s is not an S3 backend\n",
			argv[optind], b->name);
		return 2;
	}
	src.bucket = t->bucket;
	src.key = t->key;
	if (!workers)
		workers = cfg.ingest_concurrency;
	if (!part)
		part = cfg.part_size;
	if (hc_creds_lookup(b, environ, getenv("HOME"), &creds, err,
			    sizeof(err))) {
		fprintf(stderr, "hcfetch: %s\n", err);
		return 2;
	}
	so = (struct hcs3_opts){ .timeout_connect = cfg.timeout_connect,
				 .timeout_request = cfg.timeout_request };
	for (i = 0; i < workers; i++) {
		if (hcs3_new(b, &creds, &so, &src.c[i], err, sizeof(err))) {
			fprintf(stderr, "hcfetch: %s\n", err);
			return 2;
		}
	}
	ret = hcs3_head(src.c[0], src.bucket, src.key, &src.obj, err,
			sizeof(err));
	if (ret) {
		fprintf(stderr, "hcfetch: %s\n", err);
		return 1;
	}
	/* the whole file is one extent, rounded up to whole blocks */
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || ftruncate(fd, (src.obj.size + HC_FILL_BLOCK - 1) &
				 ~(uint64_t)(HC_FILL_BLOCK - 1))) {
		fprintf(stderr, "hcfetch: %s: %s\n", out, strerror(errno));
		return 1;
	}
	close(fd);
	ext = (struct hc_extent){ .offset = 0,
		.length = (src.obj.size + HC_FILL_BLOCK - 1) &
			  ~(uint64_t)(HC_FILL_BLOCK - 1) };
	f = (struct hc_fill){ .size = src.obj.size, .ext = &ext,
			      .nr_ext = src.obj.size ? 1 : 0, .dev = out,
			      .part_size = part, .workers = workers,
			      .fetch = fetch, .src = &src };
	ret = hc_fill_run(&f, &res, err, sizeof(err));
	if (!ret && truncate(out, src.obj.size))
		ret = -errno;
	for (i = 0; i < workers; i++)
		hcs3_free(src.c[i]);
	if (ret) {
		fprintf(stderr, "hcfetch: %s\n", err);
		return 1;
	}
	printf("%llu bytes in %.3f s (%.1f MB/s), %u workers x %llu-byte "
	       "parts, crc32c %08x\n",
	       (unsigned long long)src.obj.size, res.seconds,
	       res.seconds > 0 ? src.obj.size / res.seconds / 1e6 : 0,
	       workers, (unsigned long long)part, res.crc32c);
	return 0;
}
