// SPDX-License-Identifier: GPL-2.0
/*
 * hypercached: the user-space helper of the HyperCache kernel module.
 *
 *   hypercached [-f] [-c CONFIG]
 *
 * Loads the configuration (exit 2 on error), registers as the helper over
 * generic netlink and serves the kernel's INGEST requests one object at a
 * time, each with ingest_concurrency parallel parts (fill.h):
 *   s3://BUCKET/KEY                 the default S3 backend
 *   hypercache://NAME/BUCKET/KEY    S3 backend NAME
 *   hypercache://NAME/KEY           posix backend NAME: ROOT/KEY
 * An S3 object is read with HEAD (size, ETag) then ranged GETs carrying
 * If-Match, so an object replaced during the ingest is never cached half
 * old, half new.  Runs in the foreground, logs to stderr; SIGTERM or SIGINT
 * stop it (exit 0).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "channel.h"
#include "config.h"
#include "fill.h"
#include "posix.h"
#include "s3.h"
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

/*
 * Report @size/@etag (unless the kernel allocated the request already, as it
 * does for a request re-sent after a helper died: then the size must not
 * have changed), fill the extents from @fetch/@src and report DONE with the
 * CRC-32C, or FAIL.  @what names the source in the log.
 */
static void ingest_fill(struct hc_channel *ch, const struct hc_config *cfg,
			struct hc_ingest_req *r, uint64_t size,
			const char *etag, hc_fill_fetch_fn fetch, void *src,
			const char *what, int (*refetch)(void *src,
							 uint64_t size))
{
	struct hc_fill_result res;
	struct hc_fill f;
	char err[768];
	bool admitted;
	int ret, tries = 0;

	if (r->allocated) {
		if (r->size != size) {
			hc_log(HC_LOG_WARN, "%s: size changed (%llu, now %llu)",
			       r->uri, (unsigned long long)r->size,
			       (unsigned long long)size);
			fail(ch, r, ESTALE);
			return;
		}
	} else {
		ret = hc_channel_alloc(ch, r, size, etag, &admitted);
		if (ret) {
			hc_log(HC_LOG_WARN, "%s: ALLOC of %llu bytes: %s",
			       r->uri, (unsigned long long)size,
			       strerror(-ret));
			return;
		}
		if (!admitted) {
			hc_log(HC_LOG_INFO, "%s: not admitted", r->uri);
			return;
		}
	}
	hc_log(HC_LOG_DEBUG, "%s: %llu bytes in %u extents from %s", r->uri,
	       (unsigned long long)r->size, r->nr_ext, what);
	f = (struct hc_fill){
		.size = r->size,
		.ext = r->ext,
		.nr_ext = r->nr_ext,
		.dev = HC_DEV_PATH,
		.part_size = cfg->part_size,
		.workers = cfg->ingest_concurrency,
		.fetch = fetch,
		.src = src,
	};
again:
	ret = hc_fill_run(&f, &res, err, sizeof(err));
	/*
	 * The object changed in the backend while we copied it: what is in
	 * the extents may be half old, half new.  Start over once from the
	 * new version if it has the same size; never report it done.
	 */
	if (ret == -ESTALE && refetch && !tries++) {
		hc_log(HC_LOG_WARN, "%s: changed during the ingest (%s); "
		       "starting over", r->uri, err);
		ret = refetch(src, r->size);
		if (!ret)
			goto again;
		snprintf(err, sizeof(err), "changed during the ingest");
	}
	if (ret) {
		hc_log(HC_LOG_ERROR, "%s: %s", r->uri, err);
		fail(ch, r, -ret);
		return;
	}
	ret = hc_channel_done(ch, r->id, &res.crc32c);
	if (ret)
		hc_log(HC_LOG_WARN, "%s: DONE: %s", r->uri, strerror(-ret));
	else
		hc_log(HC_LOG_INFO, "%s: ingested %llu bytes in %.3f s "
		       "(%.1f MB/s, %llu parts, crc32c %08x)", r->uri,
		       (unsigned long long)r->size, res.seconds,
		       res.seconds > 0 ? r->size / res.seconds / 1e6 : 0.0,
		       (unsigned long long)res.parts, res.crc32c);
}

static void ingest_posix(struct hc_channel *ch, const struct hc_config *cfg,
			 struct hc_ingest_req *r, const struct hc_backend *b,
			 const struct uri *u)
{
	char path[HC_PATH_MAX + URI_KEY_MAX + 2], err[512];
	uint64_t size;
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
	ingest_fill(ch, cfg, r, size, NULL, hc_posix_fetch,
		    (void *)(intptr_t)fd, path, NULL);
	close(fd);
}

/* The clients of one S3 backend: one per worker, kept between objects. */
struct s3_backend {
	const struct hc_backend *b;
	struct hcs3 *c[HC_FILL_WORKERS_MAX];
};

static struct s3_backend s3_backends[HC_BACKENDS_MAX];

static struct s3_backend *s3_clients(const struct hc_config *cfg,
				     const struct hc_backend *b,
				     char *err, size_t errlen)
{
	struct retry_policy *pol;
	struct hcs3_opts opts;
	struct hc_creds creds;
	struct s3_backend *s;
	unsigned int i;
	int ret;

	for (i = 0; i < HC_BACKENDS_MAX; i++) {
		s = &s3_backends[i];
		if (s->b == b)
			return s;
		if (!s->b)
			break;
	}
	if (i == HC_BACKENDS_MAX) {
		snprintf(err, errlen, "too many S3 backends");
		return NULL;
	}
	ret = hc_creds_lookup(b, environ, getenv("HOME"), &creds, err, errlen);
	if (ret)
		return NULL;
	pol = malloc(sizeof(*pol));
	if (!pol) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	*pol = retry_policy_default;
	pol->max_attempts = cfg->retry_attempts;
	opts = (struct hcs3_opts){
		.timeout_connect = cfg->timeout_connect,
		.timeout_request = cfg->timeout_request,
		.retry = pol,
	};
	for (i = 0; i < cfg->ingest_concurrency; i++) {
		ret = hcs3_new(b, &creds, &opts, &s->c[i], err, errlen);
		if (ret) {
			while (i--)
				hcs3_free(s->c[i]);
			free(pol);
			return NULL;
		}
	}
	s->b = b;
	hc_log(HC_LOG_DEBUG, "backend %s: %u S3 clients (credentials from %s)",
	       b->name, cfg->ingest_concurrency,
	       creds.source == HC_CREDS_CONFIG ? "the configuration" :
	       creds.source == HC_CREDS_ENV ? "the environment" :
	       "the shared credentials file");
	return s;
}

struct s3_src {
	struct s3_backend *s;
	const char *bucket;
	const char *key;
	struct hcs3_object obj;		/* size and ETag every part must match */
};

static int s3_fetch(void *src, unsigned int worker, uint64_t off, size_t len,
		    void *buf, char *err, size_t errlen)
{
	struct s3_src *s = src;

	return hcs3_get_range(s->s->c[worker], s->bucket, s->key, off, len,
			      s->obj.etag, buf, err, errlen);
}

/* The object changed: fetch it again if it has kept its size. */
static int s3_refetch(void *src, uint64_t size)
{
	struct s3_src *s = src;
	char err[512];
	int ret;

	ret = hcs3_head(s->s->c[0], s->bucket, s->key, &s->obj, err,
			sizeof(err));
	if (ret)
		return ret;
	return s->obj.size == size ? 0 : -ESTALE;
}

static void ingest_s3(struct hc_channel *ch, const struct hc_config *cfg,
		      struct hc_ingest_req *r, const struct hc_backend *b,
		      const char *bucket, const char *key)
{
	struct s3_src src = { .bucket = bucket, .key = key };
	char err[768], what[HC_URL_MAX + HC_NAME_MAX + HCS3_ETAG_MAX + 32];
	int ret;

	src.s = s3_clients(cfg, b, err, sizeof(err));
	if (!src.s) {
		hc_log(HC_LOG_ERROR, "%s: backend %s: %s", r->uri, b->name,
		       err);
		fail(ch, r, EACCES);
		return;
	}
	ret = hcs3_head(src.s->c[0], bucket, key, &src.obj, err, sizeof(err));
	if (ret == -ENOENT || ret == -EACCES) {
		/*
		 * A HEAD answer has no body, so no S3 error code: ask for one
		 * byte to get the error document (NoSuchKey, NoSuchBucket,
		 * SignatureDoesNotMatch, ...) for the log.
		 */
		char one[1], why[768];

		if (hcs3_get_range(src.s->c[0], bucket, key, 0, 1, NULL, one,
				   why, sizeof(why)) == ret)
			memcpy(err, why, sizeof(err));
	}
	if (ret) {
		hc_log(ret == -ENOENT ? HC_LOG_INFO : HC_LOG_WARN, "%s: %s",
		       r->uri, err);
		fail(ch, r, -ret);
		return;
	}
	snprintf(what, sizeof(what), "%s (backend %s, ETag %s)", b->endpoint,
		 b->name, src.obj.etag);
	ingest_fill(ch, cfg, r, src.obj.size, src.obj.etag, s3_fetch, &src,
		    what, s3_refetch);
}

static void handle(struct hc_channel *ch, const struct hc_config *cfg,
		   struct hc_ingest_req *r)
{
	char bucket[URI_BUCKET_MAX + 1];
	const struct hc_backend *b;
	const char *key, *slash;
	struct uri u;
	char err[256];

	hc_log(HC_LOG_DEBUG, "request %llu: %s%s", (unsigned long long)r->id,
	       r->uri, r->allocated ? " (allocated)" : "");
	if (uri_parse(r->uri, r->uri_len, &u, err, sizeof(err))) {
		hc_log(HC_LOG_WARN, "%s: %s", r->uri, err);
		fail(ch, r, EINVAL);
		return;
	}
	b = hc_config_backend(cfg, u.scheme == URI_S3 ? cfg->default_backend :
				   u.backend);
	if (!b) {
		hc_log(HC_LOG_WARN, "%s: no [backend %s] in the configuration",
		       r->uri, u.scheme == URI_S3 ? cfg->default_backend :
		       u.backend);
		fail(ch, r, ENXIO);
		return;
	}
	if (b->type == HC_BACKEND_POSIX) {
		if (u.scheme == URI_S3) {
			hc_log(HC_LOG_WARN, "%s: the default backend %s is not "
			       "an S3 backend", r->uri, b->name);
			fail(ch, r, ENXIO);
			return;
		}
		ingest_posix(ch, cfg, r, b, &u);
		return;
	}
	if (u.scheme == URI_S3) {
		ingest_s3(ch, cfg, r, b, u.bucket, u.key);
		return;
	}
	/* hypercache://NAME/BUCKET/KEY of an S3 backend */
	slash = memchr(u.key, '/', u.key_len);
	if (!slash || slash == u.key || (size_t)(slash - u.key) > URI_BUCKET_MAX ||
	    slash + 1 == u.key + u.key_len) {
		hc_log(HC_LOG_WARN, "%s: an S3 backend's URI is "
		       "hypercache://NAME/BUCKET/KEY", r->uri);
		fail(ch, r, EINVAL);
		return;
	}
	memcpy(bucket, u.key, slash - u.key);
	bucket[slash - u.key] = '\0';
	key = slash + 1;
	if (uri_bucket_check(bucket, err, sizeof(err))) {
		hc_log(HC_LOG_WARN, "%s: %s", r->uri, err);
		fail(ch, r, EINVAL);
		return;
	}
	ingest_s3(ch, cfg, r, b, bucket, key);
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
