// SPDX-License-Identifier: GPL-2.0
/*
 * The exporter (metrics.h): libmicrohttpd on metrics_listen, one kernel
 * statistics request per scrape, the daemon's counters under one mutex.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include "hypercache_netlink.h"
#include "metrics.h"
#include "place.h"
#include "scrape.h"
#include "util.h"

static struct {
	pthread_mutex_t lock;		/* everything below */
	bool on;
	struct MHD_Daemon *httpd;
	struct nl_sock *nl;
	int family;
	double price;
	struct hc_scrape_in in;		/* the backends' counters live here */
	struct hc_scrape_state st;
} M = { .lock = PTHREAD_MUTEX_INITIALIZER };

static struct hc_scrape_backend *metrics_backend(const char *name)
{
	for (unsigned int i = 0; i < M.in.nr_backends; i++)
		if (!strcmp(M.in.b[i].name, name))
			return &M.in.b[i];
	return NULL;
}

#define NOTE(name, body) do {					\
	struct hc_scrape_backend *b;				\
	pthread_mutex_lock(&M.lock);				\
	b = M.on ? metrics_backend(name) : NULL;		\
	if (b) { body; }					\
	pthread_mutex_unlock(&M.lock);				\
} while (0)

void hc_metrics_note_head(const char *backend, double seconds)
{
	NOTE(backend, b->head_count++; b->head_seconds += seconds);
}

void hc_metrics_note_ttfb(const char *backend, double seconds)
{
	NOTE(backend, hc_scrape_sec_observe(&b->ttfb, seconds));
}

void hc_metrics_note_ingest(const char *backend, bool ok, uint64_t bytes,
			    double seconds, bool retried)
{
	NOTE(backend,
	     b->fetched_bytes += bytes;
	     b->ingest_retries += retried;
	     if (ok) {
		     b->ingest_objects++;
		     b->ingest_busy_seconds += seconds;
		     hc_scrape_sec_observe(&b->ingest, seconds);
	     } else {
		     b->ingest_failures++;
	     });
}

void hc_metrics_note_egress(const char *backend, bool ok, uint64_t bytes,
			    double seconds)
{
	NOTE(backend,
	     if (ok) {
		     b->egress_objects++;
		     b->egress_bytes += bytes;
		     hc_scrape_sec_observe(&b->egress, seconds);
	     } else {
		     b->egress_failures++;
	     });
}

/* --- the kernel's statistics ------------------------------------------- */

/*
 * One request's answer: the reply, then its ack (or an error).  The ack is
 * waited for explicitly: nl_send_sync() returns after the first batch it
 * reads, the reply alone, and leaves the ack in the socket, where the next
 * request takes it for its own ack and leaves its reply for the scrape
 * after: every page one scrape late.
 */
struct metrics_xfer {
	struct hc_scrape_kernel *k;
	bool done;
	int err;		/* 0 or -errno */
};

static int metrics_stats_reply(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct metrics_xfer *x = arg;

	if (hc_scrape_parse(genlmsg_attrdata(nlmsg_data(nlh), 0),
			    (size_t)genlmsg_attrlen(nlmsg_data(nlh), 0), x->k))
		x->err = -EPROTO;
	return NL_OK;
}

static int metrics_stats_ack(struct nl_msg *msg, void *arg)
{
	struct metrics_xfer *x = arg;

	(void)msg;
	x->done = true;
	return NL_STOP;
}

static int metrics_stats_err(struct sockaddr_nl *nla, struct nlmsgerr *e,
			     void *arg)
{
	struct metrics_xfer *x = arg;

	(void)nla;
	x->err = e->error < 0 ? e->error : -EIO;
	x->done = true;
	return NL_STOP;
}

/* One HC_CMD_STATS_GET into M.in.k: 0 or a negative errno (-ENODEV: no pool). */
static int metrics_read_kernel(void)
{
	struct metrics_xfer x = { .k = &M.in.k };
	struct nl_msg *msg;
	struct nl_cb *cb;
	int ret;

	if (!M.nl) {
		M.nl = nl_socket_alloc();
		if (!M.nl)
			return -ENOMEM;
		if (genl_connect(M.nl) < 0 ||
		    (M.family = genl_ctrl_resolve(M.nl, HC_GENL_NAME)) < 0) {
			nl_socket_free(M.nl);
			M.nl = NULL;
			return -ENOENT;		/* no module */
		}
	}
	msg = nlmsg_alloc();
	if (!msg)
		return -ENOMEM;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, M.family, 0, 0,
			 HC_CMD_STATS_GET, HC_GENL_VERSION)) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, metrics_stats_reply, &x);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, metrics_stats_ack, &x);
	nl_cb_err(cb, NL_CB_CUSTOM, metrics_stats_err, &x);
	ret = nl_send_auto(M.nl, msg);
	nlmsg_free(msg);
	while (ret >= 0 && !x.done)
		ret = nl_recvmsgs(M.nl, cb);
	nl_cb_put(cb);
	if (ret < 0) {
		/* a broken socket, or the module went away: reconnect next time */
		nl_socket_free(M.nl);
		M.nl = NULL;
		return -EIO;
	}
	return x.err;	/* -ENODEV: no pool runs */
}

/* --- HTTP -------------------------------------------------------------- */

static enum MHD_Result metrics_reply(struct MHD_Connection *conn,
				     unsigned int code, const char *type,
				     char *body, size_t len)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	ret = MHD_queue_response(conn, code, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result metrics_handler(void *cls, struct MHD_Connection *conn,
				       const char *url, const char *method,
				       const char *version,
				       const char *upload_data,
				       size_t *upload_size, void **con_cls)
{
	const char *accept;
	struct hc_prom p;
	double t0;
	bool om;
	int ret;

	(void)cls; (void)version; (void)upload_data; (void)upload_size;
	(void)con_cls;
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return metrics_reply(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
				     "text/plain", strdup("GET /metrics\n"),
				     13);
	if (strcmp(url, "/metrics"))
		return metrics_reply(conn, MHD_HTTP_NOT_FOUND, "text/plain",
				     strdup("not found: try /metrics\n"), 24);
	accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
					     MHD_HTTP_HEADER_ACCEPT);
	om = hc_prom_wants_openmetrics(accept);
	hc_prom_init(&p, om);
	pthread_mutex_lock(&M.lock);
	t0 = hc_now();
	M.in.kernel_ok = metrics_read_kernel() == 0;
	M.in.now = hc_now();
	hc_place_stats(&M.in.numa);
	ret = hc_scrape_render(&p, &M.in, &M.st);
	/* this scrape's cost shows on the next page */
	M.in.self.scrapes++;
	M.in.self.kernel_seconds += M.in.now - t0;
	M.in.self.render_seconds += hc_now() - M.in.now;
	pthread_mutex_unlock(&M.lock);
	if (ret) {
		hc_prom_free(&p);
		return metrics_reply(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
				     "text/plain", strdup("out of memory\n"),
				     14);
	}
	return metrics_reply(conn, MHD_HTTP_OK, hc_prom_content_type(om),
			     p.buf, p.len);
}

int hc_metrics_start(const struct hc_config *cfg, char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV | AI_PASSIVE };
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
	struct addrinfo *ai;
	char port[8];
	unsigned int i;
	int ret;

	snprintf(port, sizeof(port), "%u", cfg->metrics_port);
	ret = getaddrinfo(cfg->metrics_host, port, &hints, &ai);
	if (ret)
		return hc_seterr(err, errlen, -EADDRNOTAVAIL,
				 "metrics_listen %s: %s", cfg->metrics_listen,
				 gai_strerror(ret));
	if (ai->ai_family == AF_INET6)
		flags |= MHD_USE_DUAL_STACK;
	pthread_mutex_lock(&M.lock);
	memset(&M.in, 0, sizeof(M.in));
	memset(&M.st, 0, sizeof(M.st));
	for (i = 0; i < cfg->nr_backends && i < HC_SCRAPE_BACKENDS_MAX; i++) {
		snprintf(M.in.b[i].name, sizeof(M.in.b[i].name), "%s",
			 cfg->backends[i].name);
		M.in.b[i].type = cfg->backends[i].type == HC_BACKEND_POSIX ?
				 "posix" : "s3";
	}
	M.in.nr_backends = i;
	M.in.price_per_gb = cfg->egress_price_per_gb;
	M.on = true;
	pthread_mutex_unlock(&M.lock);
	M.httpd = MHD_start_daemon(flags, cfg->metrics_port, NULL, NULL,
				   metrics_handler, NULL,
				   MHD_OPTION_SOCK_ADDR, ai->ai_addr,
				   MHD_OPTION_CONNECTION_TIMEOUT, 10U,
				   MHD_OPTION_END);
	ret = errno;
	freeaddrinfo(ai);
	if (!M.httpd) {
		hc_metrics_stop();
		return hc_seterr(err, errlen, -(ret ? ret : EADDRINUSE),
				 "metrics_listen %s: cannot listen: %s",
				 cfg->metrics_listen,
				 strerror(ret ? ret : EADDRINUSE));
	}
	return 0;
}

void hc_metrics_stop(void)
{
	if (M.httpd)
		MHD_stop_daemon(M.httpd);	/* joins its thread */
	M.httpd = NULL;
	pthread_mutex_lock(&M.lock);
	M.on = false;
	if (M.nl)
		nl_socket_free(M.nl);
	M.nl = NULL;
	pthread_mutex_unlock(&M.lock);
}
