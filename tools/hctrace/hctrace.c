// SPDX-License-Identifier: GPL-2.0
/*
 * hctrace - latency histograms of hypercache.ko per member and operation,
 * LOCATE latency, the slowest LOCATEs and the helper channels' throughput,
 * per interval, from the module's raw tracepoints (hctrace.bpf.c).  In the
 * manner of the biolatency family of bcc/libbpf-tools.  Documentation/
 * tracing.md describes the events and this tool.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "hctrace.h"
#include "hctrace.skel.h"

#define TOP_MAX	64

static volatile sig_atomic_t stop;

struct slow {
	unsigned long long ns, size;
	unsigned int status, uri_len;
	char uri[HCT_URI * 4 + 1];	/* escaped */
};

struct ctx {
	struct slow top[TOP_MAX];
	unsigned int ntop, want;
	unsigned long long events;
};

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Printable ASCII but backslash and quote as is, the rest \xNN. */
static void escape(const unsigned char *u, unsigned int n, char *out)
{
	static const char hex[] = "0123456789abcdef";

	for (unsigned int i = 0; i < n; i++) {
		if (u[i] >= 0x20 && u[i] < 0x7f && u[i] != '\\' && u[i] != '"') {
			*out++ = (char)u[i];
		} else {
			*out++ = '\\';
			*out++ = 'x';
			*out++ = hex[u[i] >> 4];
			*out++ = hex[u[i] & 15];
		}
	}
	*out = '\0';
}

/* Keep the @want slowest LOCATEs of the interval (insertion, small N). */
static int on_event(void *arg, void *data, size_t len)
{
	const struct hct_locate_ev *e = data;
	struct ctx *c = arg;
	unsigned int i, n;

	if (len < sizeof(*e))
		return 0;
	c->events++;
	if (!c->want)
		return 0;
	if (c->ntop == c->want && e->ns <= c->top[c->ntop - 1].ns)
		return 0;
	i = c->ntop < c->want ? c->ntop++ : c->ntop - 1;
	while (i > 0 && c->top[i - 1].ns < e->ns) {
		c->top[i] = c->top[i - 1];
		i--;
	}
	c->top[i].ns = e->ns;
	c->top[i].size = e->size;
	c->top[i].status = e->status;
	c->top[i].uri_len = e->uri_len;
	n = e->uri_len < HCT_URI ? e->uri_len : HCT_URI;
	escape(e->uri, n, c->top[i].uri);
	return 0;
}

static void print_hist(const unsigned long long *slot, bool json)
{
	unsigned long long max = 0;
	int last = -1, i, j;

	for (i = 0; i < HCT_SLOTS; i++) {
		if (slot[i])
			last = i;
		if (slot[i] > max)
			max = slot[i];
	}
	if (json) {
		printf("[");
		for (i = 0; i < HCT_SLOTS; i++)
			printf("%s%llu", i ? "," : "", slot[i]);
		printf("]");
		return;
	}
	printf("     usecs               : count    distribution\n");
	for (i = 0; i <= last; i++) {
		unsigned long long lo = i ? (1ULL << (i - 1)) + 1 : 0;
		int stars = max ? (int)(slot[i] * 40 / max) : 0;

		if (i == HCT_SLOTS - 1)
			printf(" %10llu -> inf      : %-8llu |", lo, slot[i]);
		else
			printf(" %10llu -> %-10llu: %-8llu |", lo, 1ULL << i, slot[i]);
		for (j = 0; j < 40; j++)
			putchar(j < stars ? '*' : ' ');
		printf("|\n");
	}
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: hctrace [-i SECONDS] [-c COUNT] [-t N] [-j]\n"
"  Per interval, from hypercache.ko's raw tracepoints: a latency histogram\n"
"  of the bios sent to each member, per operation (read, write), with\n"
"  their count, bytes and errors; LOCATE latency (hits, others); the N\n"
"  slowest LOCATEs; the bytes ingest and egress completed (per second).\n"
"  -i, --interval SECONDS  the interval (default 1)\n"
"  -c, --count COUNT       stop after COUNT intervals (default: SIGINT)\n"
"  -t, --top N             the N slowest LOCATEs (default 5, at most 64)\n"
"  -j, --json              one JSON object per interval, one a line\n"
"  Needs CAP_BPF and CAP_PERFMON (root) and the module loaded.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "top", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct hct_io prev[HCT_MEMBERS * HCT_OPS], cur[HCT_MEMBERS * HCT_OPS];
	struct hct_locate lprev[2] = { 0 }, lcur[2];
	struct hct_xfer xprev = { 0 }, xcur;
	static struct ctx c = { .want = 5 };
	struct ring_buffer *rb = NULL;
	struct hctrace *skel;
	double interval = 1, t0, t;
	long count = -1, n = 0;
	bool json = false;
	char *end;
	int o, err, i, k;

	while ((o = getopt_long(argc, argv, "i:c:t:jh", opts, NULL)) != -1) {
		switch (o) {
		case 'i':
			interval = strtod(optarg, &end);
			if (*end || !(interval >= 0.1 && interval <= 3600)) {
				fprintf(stderr, "hctrace: --interval: 0.1..3600 seconds, got '%s'\n", optarg);
				return 2;
			}
			break;
		case 'c':
			count = strtol(optarg, &end, 10);
			if (*end || count < 1) {
				fprintf(stderr, "hctrace: --count: a positive number, got '%s'\n", optarg);
				return 2;
			}
			break;
		case 't': {
			/* digits only: "-1" and 2^32 + 1 must not wrap into range */
			unsigned long t = strtoul(optarg, &end, 10);

			if (!isdigit((unsigned char)optarg[0]) || *end ||
			    t > TOP_MAX) {
				fprintf(stderr, "hctrace: --top: 0..%d, got '%s'\n", TOP_MAX, optarg);
				return 2;
			}
			c.want = t;
			break;
		}
		case 'j':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hctrace: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
	skel = hctrace__open_and_load();
	if (!skel) {
		fprintf(stderr, "hctrace: cannot load the BPF programs: %s\n", strerror(errno));
		return 1;
	}
	err = hctrace__attach(skel);
	if (err) {
		fprintf(stderr, "hctrace: cannot attach to hypercache's tracepoints "
			"(is hypercache.ko loaded?): %s\n", strerror(-err));
		goto out;
	}
	rb = ring_buffer__new(bpf_map__fd(skel->maps.events), on_event, &c, NULL);
	if (!rb) {
		err = -errno;
		fprintf(stderr, "hctrace: ring buffer: %s\n", strerror(errno));
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (!json)
		fprintf(stderr, "hctrace: tracing hypercache.ko every %.1f s; Ctrl-C ends\n",
			interval);
	/* attached: say so (tests wait for this line) */
	fprintf(stderr, "hctrace: attached\n");
	t0 = now();
	while (!stop && (count < 0 || n < count)) {
		double due = t0 + interval * (double)(n + 1);

		while (!stop && (t = now()) < due)
			ring_buffer__poll(rb, (int)((due - t) * 1000) + 1);
		t = interval;
		for (k = 0; k < HCT_MEMBERS * HCT_OPS; k++) {
			__u32 key = (__u32)k;

			bpf_map_lookup_elem(bpf_map__fd(skel->maps.io), &key, &cur[k]);
		}
		for (k = 0; k < 2; k++) {
			__u32 key = (__u32)k;

			bpf_map_lookup_elem(bpf_map__fd(skel->maps.locate), &key, &lcur[k]);
		}
		{
			__u32 key = 0;

			bpf_map_lookup_elem(bpf_map__fd(skel->maps.xfer), &key, &xcur);
		}
		if (json)
			printf("{\"interval\":%ld,\"seconds\":%.3f,\"members\":[", n + 1, t);
		else
			printf("\n--- interval %ld (%.1f s) ---\n", n + 1, t);
		bool first = true;

		for (k = 0; k < HCT_MEMBERS * HCT_OPS; k++) {
			struct hct_io d;

			d.count = cur[k].count - prev[k].count;
			if (!cur[k].count)
				continue;
			d.bytes = cur[k].bytes - prev[k].bytes;
			d.errors = cur[k].errors - prev[k].errors;
			d.ns = cur[k].ns - prev[k].ns;
			for (i = 0; i < HCT_SLOTS; i++)
				d.slot[i] = cur[k].slot[i] - prev[k].slot[i];
			if (json) {
				printf("%s{\"member\":%d,\"op\":\"%s\",\"count\":%llu,\"bytes\":%llu,"
				       "\"errors\":%llu,\"mean_us\":%.1f,\"hist\":", first ? "" : ",",
				       k / HCT_OPS, k % HCT_OPS ? "write" : "read", d.count,
				       d.bytes, d.errors, d.count ? (double)d.ns / (double)d.count / 1e3 : 0);
				print_hist(d.slot, true);
				printf("}");
			} else if (d.count) {
				printf("member %d %s: %llu bios, %llu bytes, %llu errors, mean %.1f us\n",
				       k / HCT_OPS, k % HCT_OPS ? "write" : "read", d.count,
				       d.bytes, d.errors, (double)d.ns / (double)d.count / 1e3);
				print_hist(d.slot, false);
			}
			first = false;
		}
		if (json)
			printf("],\"locate\":{");
		for (k = 0; k < 2; k++) {
			unsigned long long d[HCT_SLOTS], dc = lcur[k].count - lprev[k].count;

			for (i = 0; i < HCT_SLOTS; i++)
				d[i] = lcur[k].slot[i] - lprev[k].slot[i];
			if (json) {
				printf("%s\"%s\":{\"count\":%llu,\"hist\":", k ? "," : "",
				       k ? "other" : "hit", dc);
				print_hist(d, true);
				printf("}");
			} else if (dc) {
				printf("LOCATE %s: %llu calls, mean %.1f us\n", k ? "miss/pending" : "hit",
				       dc, (double)(lcur[k].ns - lprev[k].ns) / (double)dc / 1e3);
				print_hist(d, false);
			}
		}
		if (json) {
			printf("},\"slowest\":[");
			for (unsigned int s = 0; s < c.ntop; s++)
				printf("%s{\"uri\":\"%s\",\"uri_len\":%u,\"status\":%u,\"size\":%llu,\"us\":%.1f}",
				       s ? "," : "", c.top[s].uri, c.top[s].uri_len,
				       c.top[s].status, c.top[s].size, (double)c.top[s].ns / 1e3);
			printf("],\"ingest_bytes\":%llu,\"ingest_objects\":%llu,"
			       "\"egress_bytes\":%llu,\"egress_objects\":%llu}\n",
			       xcur.ingest_bytes - xprev.ingest_bytes,
			       xcur.ingest_objects - xprev.ingest_objects,
			       xcur.egress_bytes - xprev.egress_bytes,
			       xcur.egress_objects - xprev.egress_objects);
		} else {
			for (unsigned int s = 0; s < c.ntop; s++)
				printf("slow LOCATE %.1f us  status %u  %llu bytes  %s%s\n",
				       (double)c.top[s].ns / 1e3, c.top[s].status,
				       c.top[s].size, c.top[s].uri,
				       c.top[s].uri_len > HCT_URI ? "..." : "");
			printf("ingest %.1f MB/s (%llu objects), egress %.1f MB/s (%llu objects)\n",
			       (double)(xcur.ingest_bytes - xprev.ingest_bytes) / t / 1e6,
			       xcur.ingest_objects - xprev.ingest_objects,
			       (double)(xcur.egress_bytes - xprev.egress_bytes) / t / 1e6,
			       xcur.egress_objects - xprev.egress_objects);
		}
		fflush(stdout);
		memcpy(prev, cur, sizeof(prev));
		memcpy(lprev, lcur, sizeof(lprev));
		xprev = xcur;
		c.ntop = 0;
		n++;
	}
	err = 0;
out:
	ring_buffer__free(rb);
	hctrace__destroy(skel);
	return err ? 1 : 0;
}
