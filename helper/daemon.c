// SPDX-License-Identifier: GPL-2.0
/*
 * hypercached: the user-space helper of the HyperCache kernel module.
 *
 *   hypercached [-f] [-c CONFIG]
 *
 * Loads the configuration (exit 2 on error), registers as the helper over
 * generic netlink and serves the kernel's INGEST requests one at a time:
 * hypercache://NAME/KEY of a posix backend is read from ROOT/KEY and
 * written into the allocated extents of /dev/hypercache0.  S3 ingest is
 * not implemented yet (EOPNOTSUPP).  Runs in the foreground, logs to
 * stderr; SIGTERM or SIGINT stop it (exit 0).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "channel.h"
#include "config.h"
#include "posix.h"
#include "uri.h"

#ifndef HYPERCACHED_VERSION
#define HYPERCACHED_VERSION "0.1.0"
#endif

static enum hc_log_level log_level = HC_LOG_INFO;
static volatile sig_atomic_t stop_signal;

static const char *const level_names[] = {
	[HC_LOG_ERROR] = "error",
	[HC_LOG_WARN] = "warn",
	[HC_LOG_INFO] = "info",
	[HC_LOG_DEBUG] = "debug",
};

__attribute__((format(printf, 2, 3)))
static void hc_log(enum hc_log_level lvl, const char *fmt, ...)
{
	va_list ap;

	if (lvl > log_level)
		return;
	fprintf(stderr, "hypercached: %s: ", level_names[lvl]);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: hypercached [-f] [-c CONFIG]\n"
"\n"
"The HyperCache helper daemon: serves the kernel's ingest requests.\n"
"\n"
"Options:\n"
"  -c, --config CONFIG  configuration file (default " HC_CONFIG_PATH ")\n"
"  -f, --foreground     run in the foreground (the only mode)\n"
"  -h, --help           show this help\n"
"  -V, --version        show the version\n");
}

/* End request @r with errno @e (positive). */
static void fail(struct hc_channel *ch, const struct hc_ingest_req *r, int e)
{
	int ret = hc_channel_fail(ch, r->id, e);

	if (ret)
		hc_log(HC_LOG_WARN, "%s: FAIL %s: %s", r->uri, strerror(e),
		       strerror(-ret));
	else
		hc_log(HC_LOG_INFO, "%s: failed: %s", r->uri, strerror(e));
}

static void ingest_posix(struct hc_channel *ch, struct hc_ingest_req *r,
			 const struct hc_backend *b, const struct uri *u)
{
	char path[HC_PATH_MAX + URI_KEY_MAX + 2], err[512];
	uint64_t size;
	bool admitted;
	int fd, ret;

	ret = hc_posix_path(b, u->key, u->key_len, path, sizeof(path),
			    err, sizeof(err));
	if (!ret)
		ret = hc_posix_open(path, &fd, &size, err, sizeof(err));
	if (ret) {
		hc_log(HC_LOG_WARN, "%s: %s", r->uri, err);
		fail(ch, r, -ret);
		return;
	}
	if (r->allocated) {
		if (r->size != size) {
			hc_log(HC_LOG_WARN, "%s: size changed (%llu, now %llu)",
			       r->uri, (unsigned long long)r->size,
			       (unsigned long long)size);
			close(fd);
			fail(ch, r, ESTALE);
			return;
		}
	} else {
		ret = hc_channel_alloc(ch, r, size, &admitted);
		if (ret) {
			hc_log(HC_LOG_WARN, "%s: ALLOC of %llu bytes: %s",
			       r->uri, (unsigned long long)size,
			       strerror(-ret));
			close(fd);
			return;
		}
		if (!admitted) {
			hc_log(HC_LOG_INFO, "%s: not admitted", r->uri);
			close(fd);
			return;
		}
	}
	hc_log(HC_LOG_DEBUG, "%s: %llu bytes in %u extents from %s", r->uri,
	       (unsigned long long)r->size, r->nr_ext, path);
	ret = hc_posix_fill(fd, r->size, r->ext, r->nr_ext, HC_DEV_PATH,
			    err, sizeof(err));
	close(fd);
	if (ret) {
		hc_log(HC_LOG_ERROR, "%s: %s", r->uri, err);
		fail(ch, r, -ret);
		return;
	}
	ret = hc_channel_done(ch, r->id);
	if (ret)
		hc_log(HC_LOG_WARN, "%s: DONE: %s", r->uri, strerror(-ret));
	else
		hc_log(HC_LOG_INFO, "%s: ingested %llu bytes", r->uri,
		       (unsigned long long)r->size);
}

static void handle(struct hc_channel *ch, const struct hc_config *cfg,
		   struct hc_ingest_req *r)
{
	const struct hc_backend *b;
	struct uri u;
	char err[256];

	hc_log(HC_LOG_DEBUG, "request %llu: %s%s", (unsigned long long)r->id,
	       r->uri, r->allocated ? " (allocated)" : "");
	if (uri_parse(r->uri, r->uri_len, &u, err, sizeof(err))) {
		hc_log(HC_LOG_WARN, "%s: %s", r->uri, err);
		fail(ch, r, EINVAL);
		return;
	}
	if (u.scheme == URI_S3) {
		hc_log(HC_LOG_WARN, "%s: S3 ingest not implemented yet", r->uri);
		fail(ch, r, EOPNOTSUPP);
		return;
	}
	b = hc_config_backend(cfg, u.backend);
	if (!b) {
		hc_log(HC_LOG_WARN, "%s: no [backend %s] in the configuration",
		       r->uri, u.backend);
		fail(ch, r, ENXIO);
		return;
	}
	if (b->type != HC_BACKEND_POSIX) {
		hc_log(HC_LOG_WARN, "%s: S3 ingest not implemented yet", r->uri);
		fail(ch, r, EOPNOTSUPP);
		return;
	}
	ingest_posix(ch, r, b, &u);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "foreground", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cfg_path = HC_CONFIG_PATH;
	static struct hc_config cfg;
	static struct hc_ingest_req req;
	struct hc_channel *ch;
	struct sigaction sa;
	sigset_t block, orig;
	char err[1024];
	int c, ret;

	while ((c = getopt_long(argc, argv, "c:fhV", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			cfg_path = optarg;
			break;
		case 'f':
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("hypercached %s\n", HYPERCACHED_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hypercached: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		return 2;
	}
	ret = hc_config_load(cfg_path, &cfg, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "hypercached: %s\n", err);
		return 2;
	}
	log_level = cfg.log_level;

	/* SIGTERM/SIGINT only interrupt the wait for the next request. */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigprocmask(SIG_BLOCK, &block, &orig);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigdelset(&orig, SIGTERM);
	sigdelset(&orig, SIGINT);

	ret = hc_channel_open(&ch, err, sizeof(err));
	if (ret) {
		hc_log(HC_LOG_ERROR, "%s", err);
		return 1;
	}
	hc_log(HC_LOG_INFO, "registered as the helper (config %s, %u backends)",
	       cfg_path, cfg.nr_backends);
	while (!stop_signal) {
		ret = hc_channel_next(ch, &req, &orig);
		if (ret == -EINTR)
			continue;
		if (ret) {
			hc_log(HC_LOG_ERROR, "helper channel: %s",
			       strerror(-ret));
			hc_channel_close(ch);
			return 1;
		}
		handle(ch, &cfg, &req);
	}
	hc_log(HC_LOG_INFO, "%s: stopping", strsignal(stop_signal));
	hc_channel_close(ch);
	return 0;
}
