// SPDX-License-Identifier: GPL-2.0
/*
 * hc_scrapetime: where a scrape of the exporter spends its time, phase by
 * phase, measured inside one process (no process start in the figures).
 *
 *   hc_scrapetime stats N
 *	N HC_CMD_STATS_GET requests on one generic netlink socket, each
 *	waited for to its ack, as hypercached's exporter sends them; prints
 *	"stats n=N bytes=B min_us=.. median_us=.. max_us=.."
 *   hc_scrapetime dump
 *	one HC_CMD_OBJ_GET dump of the whole index (what a per-object
 *	exporter would have to read, and what hcctl ls reads); prints
 *	"dump objects=N bytes=B ms=.. us_per_object=.."
 *   hc_scrapetime http HOST PORT N
 *	N GET /metrics, a new TCP connection each (as Prometheus' scrapes
 *	over a closed connection); prints the medians
 *	"http n=N bytes=B connect_us=.. first_byte_us=.. total_us=.."
 *	(first byte: from the request's send to the first byte of the
 *	answer, which holds the exporter's whole work: it builds the page
 *	before it sends a byte; total: from connect() to the end of the
 *	answer)
 *
 * Exit 0, or 1 with the failure on stderr.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include "hypercache_netlink.h"

#define MAX_RUNS	10000

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of @v[0..n) (sorts it). */
static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int die(const char *what, int err)
{
	fprintf(stderr, "hc_scrapetime: %s: %s\n", what, strerror(err));
	return 1;
}

/* --- netlink ----------------------------------------------------------- */

struct xfer {
	bool done;
	int err;		/* 0 or -errno from the ack */
	uint64_t bytes;		/* payload bytes of the replies */
	uint64_t msgs;		/* replies (objects, for a dump) */
};

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct xfer *x = arg;

	x->bytes += nlmsg_hdr(msg)->nlmsg_len;
	x->msgs++;
	return NL_OK;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct xfer *x = arg;

	(void)msg;
	x->done = true;
	return NL_STOP;
}

static int on_err(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct xfer *x = arg;

	(void)nla;
	x->err = e->error < 0 ? e->error : -EIO;
	x->done = true;
	return NL_STOP;
}

static struct nl_sock *nl_open(int *family, struct nl_cb **cb, struct xfer *x)
{
	struct nl_sock *sk = nl_socket_alloc();

	if (!sk || genl_connect(sk)) {
		fprintf(stderr, "hc_scrapetime: no generic netlink socket\n");
		exit(1);
	}
	*family = genl_ctrl_resolve(sk, HC_GENL_NAME);
	if (*family < 0) {
		fprintf(stderr, "hc_scrapetime: no family %s (module loaded?)\n",
			HC_GENL_NAME);
		exit(1);
	}
	/* a dump's replies take more than the default 32 KiB at a time */
	nl_socket_set_msg_buf_size(sk, 1 << 20);
	*cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!*cb) {
		fprintf(stderr, "hc_scrapetime: out of memory\n");
		exit(1);
	}
	nl_cb_set(*cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, x);
	nl_cb_set(*cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, x);
	nl_cb_set(*cb, NL_CB_FINISH, NL_CB_CUSTOM, on_ack, x);
	nl_cb_err(*cb, NL_CB_CUSTOM, on_err, x);
	return sk;
}

/* One request of @cmd (@flags: 0 or NLM_F_DUMP), waited for: 0 or -errno. */
static int nl_request(struct nl_sock *sk, int family, struct nl_cb *cb,
		      struct xfer *x, int cmd, int flags)
{
	struct nl_msg *m = nlmsg_alloc();
	int ret;

	if (!m)
		return -ENOMEM;
	if (!genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0,
			 NLM_F_ACK | flags, (uint8_t)cmd, HC_GENL_VERSION)) {
		nlmsg_free(m);
		return -ENOMEM;
	}
	memset(x, 0, sizeof(*x));
	ret = nl_send_auto(sk, m);
	nlmsg_free(m);
	while (ret >= 0 && !x->done)
		ret = nl_recvmsgs(sk, cb);
	if (ret < 0)
		return -EIO;
	return x->err;
}

static int cmd_stats(int n)
{
	static double t[MAX_RUNS];
	struct xfer x;
	struct nl_sock *sk;
	struct nl_cb *cb;
	uint64_t bytes = 0;
	int family, i, err;

	sk = nl_open(&family, &cb, &x);
	for (i = 0; i < n; i++) {
		double t0 = now_us();

		err = nl_request(sk, family, cb, &x, HC_CMD_STATS_GET, 0);
		t[i] = now_us() - t0;
		if (err)
			return die("HC_CMD_STATS_GET", -err);
		bytes = x.bytes;
	}
	qsort(t, (size_t)n, sizeof(t[0]), cmp_double);
	printf("stats n=%d bytes=%llu min_us=%.0f median_us=%.0f max_us=%.0f\n",
	       n, (unsigned long long)bytes, t[0], median(t, n), t[n - 1]);
	nl_cb_put(cb);
	nl_socket_free(sk);
	return 0;
}

static int cmd_dump(void)
{
	struct xfer x;
	struct nl_sock *sk;
	struct nl_cb *cb;
	double t0, ms;
	int family, err;

	sk = nl_open(&family, &cb, &x);
	t0 = now_us();
	err = nl_request(sk, family, cb, &x, HC_CMD_OBJ_GET, NLM_F_DUMP);
	ms = (now_us() - t0) / 1e3;
	if (err)
		return die("HC_CMD_OBJ_GET dump", -err);
	printf("dump objects=%llu bytes=%llu ms=%.1f us_per_object=%.2f\n",
	       (unsigned long long)x.msgs, (unsigned long long)x.bytes, ms,
	       x.msgs ? ms * 1e3 / (double)x.msgs : 0);
	nl_cb_put(cb);
	nl_socket_free(sk);
	return 0;
}

/* --- HTTP -------------------------------------------------------------- */

/*
 * One GET /metrics on a new connection: the phases in µs, the answer's
 * size in *@bytes; 0 or an errno (its name on stderr).
 */
static int http_get(const struct sockaddr_in *sa, double *conn_us,
		    double *first_us, double *total_us, uint64_t *bytes)
{
	static const char req[] =
		"GET /metrics HTTP/1.1\r\nHost: localhost\r\n"
		"Connection: close\r\n\r\n";
	char buf[65536];
	double t0, t1, t2 = 0;
	int fd, one = 1, err = 0;
	ssize_t r;

	*bytes = 0;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return errno;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	t0 = now_us();
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa))) {
		err = errno;
		goto out;
	}
	t1 = now_us();
	if (write(fd, req, sizeof(req) - 1) != (ssize_t)sizeof(req) - 1) {
		err = errno ? errno : EIO;
		goto out;
	}
	while ((r = read(fd, buf, sizeof(buf))) > 0) {
		if (!*bytes)
			t2 = now_us();
		*bytes += (uint64_t)r;
	}
	if (r < 0 || !*bytes) {
		err = r < 0 ? errno : ECONNRESET;
		goto out;
	}
	*conn_us = t1 - t0;
	*first_us = t2 - t1;
	*total_us = now_us() - t0;
out:
	close(fd);
	return err;
}

static int cmd_http(const char *host, const char *port, int n)
{
	static double c[MAX_RUNS], f[MAX_RUNS], t[MAX_RUNS];
	struct sockaddr_in sa = { .sin_family = AF_INET };
	uint64_t bytes = 0;
	int i, err;

	sa.sin_port = htons((uint16_t)atoi(port));
	if (inet_pton(AF_INET, host, &sa.sin_addr) != 1)
		return die(host, EINVAL);
	for (i = 0; i < n; i++) {
		err = http_get(&sa, &c[i], &f[i], &t[i], &bytes);
		if (err)
			return die("GET /metrics", err);
	}
	printf("http n=%d bytes=%llu connect_us=%.0f first_byte_us=%.0f total_us=%.0f\n",
	       n, (unsigned long long)bytes, median(c, n), median(f, n),
	       median(t, n));
	return 0;
}

static int count(const char *s)
{
	int n = atoi(s);

	if (n < 1 || n > MAX_RUNS) {
		fprintf(stderr, "hc_scrapetime: N must be 1..%d, not %s\n",
			MAX_RUNS, s);
		exit(2);
	}
	return n;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "stats"))
		return cmd_stats(count(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "dump"))
		return cmd_dump();
	if (argc == 5 && !strcmp(argv[1], "http"))
		return cmd_http(argv[2], argv[3], count(argv[4]));
	fprintf(stderr, "usage: hc_scrapetime stats N | dump | http HOST PORT N\n");
	return 2;
}
