// SPDX-License-Identifier: GPL-2.0
/*
 * The S3 client: libcurl transfers, SigV4 signing, retries, S3 error
 * documents.  See s3.h for the contract and Documentation/s3.md.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>
#include <openssl/evp.h>

#include "s3.h"
#include "sigv4.h"
#include "uri.h"
#include "util.h"

#define HCS3_ERRBODY_MAX	(64 << 10)	/* error and XML bodies kept */
#define HCS3_XMLBODY_MAX	(16 << 20)	/* listing pages */
#define HCS3_KEY_MAX		1024
#define HCS3_BUCKET_MAX		255
#define HCS3_HDR_MAX		16

struct hcs3 {
	CURL *curl;
	struct hc_backend b;
	struct hc_creds creds;
	struct hcs3_opts opts;
	struct retry_policy policy;
	char *scheme;		/* "http" / "https" */
	char *host;		/* as in the URL: "h", "[::1]" */
	char *port;		/* NULL when not in the endpoint */
	char *base;		/* endpoint path without trailing '/', raw */
	struct curl_slist *resolve;
	struct hcs3_stats stats;
	uint64_t retry_after_ms;	/* of the last response, 0: none */
	hcs3_recv_hook_fn recv_hook;	/* hcs3_set_recv_hook() */
	void *recv_arg;
};

/* ------------------------------------------------------------ the client */

static pthread_once_t hcs3_once = PTHREAD_ONCE_INIT;
static CURLcode hcs3_global_rc;

static void hcs3_global_init(void)
{
	hcs3_global_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

void hcs3_free(struct hcs3 *c)
{
	if (!c)
		return;
	if (c->curl)
		curl_easy_cleanup(c->curl);
	curl_slist_free_all(c->resolve);
	curl_free(c->scheme);
	curl_free(c->host);
	curl_free(c->port);
	free(c->base);
	hc_creds_release(&c->creds);
	explicit_bzero(&c->b, sizeof(c->b));
	free(c);
}

/* Split the endpoint URL with curl's own parser. */
static int hcs3_endpoint(struct hcs3 *c, char *err, size_t errlen)
{
	CURLU *u = curl_url();
	char *path = NULL;
	size_t n;
	int rc = 0;

	if (!u)
		return hc_seterr(err, errlen, -ENOMEM, "out of memory");
	if (curl_url_set(u, CURLUPART_URL, c->b.endpoint, 0) ||
	    curl_url_get(u, CURLUPART_SCHEME, &c->scheme, 0) ||
	    curl_url_get(u, CURLUPART_HOST, &c->host, 0)) {
		rc = hc_seterr(err, errlen, -EINVAL, "endpoint '%s': not a URL",
			    c->b.endpoint);
		goto out;
	}
	if (strcmp(c->scheme, "http") && strcmp(c->scheme, "https")) {
		rc = hc_seterr(err, errlen, -EINVAL,
			    "endpoint '%s': scheme must be http or https",
			    c->b.endpoint);
		goto out;
	}
	curl_url_get(u, CURLUPART_PORT, &c->port, 0);	/* may be absent */
	{
		char *q = NULL;

		if (!curl_url_get(u, CURLUPART_QUERY, &q, 0)) {
			curl_free(q);
			rc = hc_seterr(err, errlen, -EINVAL,
				    "endpoint '%s': has a query", c->b.endpoint);
			goto out;
		}
	}
	if (curl_url_get(u, CURLUPART_PATH, &path, CURLU_URLDECODE)) {
		rc = hc_seterr(err, errlen, -EINVAL, "endpoint '%s': bad path",
			    c->b.endpoint);
		goto out;
	}
	n = strlen(path);
	while (n && path[n - 1] == '/')
		n--;
	c->base = strndup(path, n);
	if (!c->base)
		rc = hc_seterr(err, errlen, -ENOMEM, "out of memory");
out:
	curl_free(path);
	curl_url_cleanup(u);
	return rc;
}

int hcs3_new(const struct hc_backend *b, const struct hc_creds *creds,
	     const struct hcs3_opts *opts, struct hcs3 **out,
	     char *err, size_t errlen)
{
	struct hcs3 *c;
	int rc;

	*out = NULL;
	if (!b || !creds ||
	    (creds->source != HC_CREDS_ANONYMOUS &&
	     (!*creds->access_key || !*creds->secret_key)))
		return hc_seterr(err, errlen, -EINVAL, "no backend or credentials");
	if (!*b->region && !*creds->region)
		return hc_seterr(err, errlen, -EINVAL, "backend has no region");
	if (!*b->endpoint && !*creds->endpoint)
		return hc_seterr(err, errlen, -EINVAL, "backend has no endpoint");
	pthread_once(&hcs3_once, hcs3_global_init);
	if (hcs3_global_rc)
		return hc_seterr(err, errlen, -ENOMEM, "curl_global_init: %s",
			      curl_easy_strerror(hcs3_global_rc));
	c = calloc(1, sizeof(*c));
	if (!c)
		return hc_seterr(err, errlen, -ENOMEM, "out of memory");
	c->b = *b;
	if (*creds->region)
		strcpy(c->b.region, creds->region);	/* the chain's choice */
	if (*creds->endpoint)
		strcpy(c->b.endpoint, creds->endpoint);	/* likewise */
	hc_creds_hold(&c->creds, creds);
	if (opts)
		c->opts = *opts;
	c->opts.resolve = NULL;		/* not kept: copied below */
	if (!c->opts.timeout_connect)
		c->opts.timeout_connect = 10;
	if (!c->opts.timeout_request)
		c->opts.timeout_request = 300;
	c->policy = opts && opts->retry ? *opts->retry : retry_policy_default;
	c->opts.retry = &c->policy;
	if (retry_policy_check(&c->policy)) {
		rc = hc_seterr(err, errlen, -EINVAL, "bad retry policy");
		goto fail;
	}
	rc = hcs3_endpoint(c, err, errlen);
	if (rc)
		goto fail;
	if (opts && opts->resolve) {
		c->resolve = curl_slist_append(NULL, opts->resolve);
		if (!c->resolve) {
			rc = hc_seterr(err, errlen, -ENOMEM, "out of memory");
			goto fail;
		}
	}
	c->curl = curl_easy_init();
	if (!c->curl) {
		rc = hc_seterr(err, errlen, -ENOMEM, "curl_easy_init failed");
		goto fail;
	}
	*out = c;
	return 0;
fail:
	hcs3_free(c);
	return rc;
}

uint64_t hcs3_retry_after_ms(const struct hcs3 *c)
{
	return c->retry_after_ms;
}

void hcs3_set_recv_hook(struct hcs3 *c, hcs3_recv_hook_fn fn, void *arg)
{
	c->recv_hook = fn;
	c->recv_arg = arg;
}

void hcs3_get_stats(const struct hcs3 *c, struct hcs3_stats *out)
{
	*out = c->stats;
}

/* ----------------------------------------------------------------- URLs */

static bool hcs3_virtual(const struct hcs3 *c)
{
	return c->b.addressing == HC_ADDR_VIRTUAL;
}

static int hcs3_check(const struct hcs3 *c, const char *bucket,
		      const char *key, bool need_key, char *err, size_t errlen)
{
	size_t bl = bucket ? strlen(bucket) : 0;

	if (!bl || bl > HCS3_BUCKET_MAX || strchr(bucket, '/'))
		return hc_seterr(err, errlen, -EINVAL, "bucket '%.80s': empty, too long or has '/'",
			      bucket ? bucket : "");
	if (hcs3_virtual(c) && uri_bucket_check(bucket, err, errlen))
		return -EINVAL;	/* not a DNS label: no virtual host */
	if (need_key && (!key || !*key))
		return hc_seterr(err, errlen, -EINVAL, "empty key");
	if (key && strlen(key) > HCS3_KEY_MAX)
		return hc_seterr(err, errlen, -EINVAL, "key longer than %d bytes",
			      HCS3_KEY_MAX);
	return 0;
}

/* The Host header for @bucket: what curl would send for the URL. */
static char *hcs3_hostport(const struct hcs3 *c, const char *bucket)
{
	char *s;

	if (asprintf(&s, "%s%s%s%s%s",
		     hcs3_virtual(c) ? bucket : "", hcs3_virtual(c) ? "." : "",
		     c->host, c->port ? ":" : "", c->port ? c->port : "") < 0)
		return NULL;
	return s;
}

/* The raw (unencoded) path of @bucket/@key, as the signer wants it. */
static char *hcs3_path(const struct hcs3 *c, const char *bucket,
		       const char *key)
{
	char *s;
	int n;

	if (hcs3_virtual(c))
		n = asprintf(&s, "%s/%s", c->base, key ? key : "");
	else
		n = asprintf(&s, "%s/%s%s%s", c->base, bucket,
			     key ? "/" : "", key ? key : "");
	return n < 0 ? NULL : s;
}

/* scheme://host/encoded-path[?query] */
static char *hcs3_url_q(const struct hcs3 *c, const char *bucket,
			const char *key, const char *query)
{
	char *host, *path, *epath, *url = NULL;

	if (hcs3_virtual(c) && uri_bucket_check(bucket, NULL, 0))
		return NULL;
	host = hcs3_hostport(c, bucket);
	path = hcs3_path(c, bucket, key);
	epath = path ? sigv4_uri_encode(path, strlen(path), true) : NULL;
	if (host && epath &&
	    asprintf(&url, "%s://%s%s%s%s", c->scheme, host, epath,
		     query ? "?" : "", query ? query : "") < 0)
		url = NULL;
	free(host);
	free(path);
	free(epath);
	return url;
}

char *hcs3_url(const struct hcs3 *c, const char *bucket, const char *key)
{
	if (!bucket || !*bucket)
		return NULL;
	return hcs3_url_q(c, bucket, key, NULL);
}

/*
 * A wire query string from @n (name, value) pairs given in name order
 * (value NULL: a bare name, "uploads"); NULL pairs are skipped.
 */
struct hcs3_qp {
	const char *name;
	const char *value;
	bool present;
};

static char *hcs3_query(const struct hcs3_qp *p, size_t n)
{
	char *buf = NULL, *v;
	size_t len = 0, i;
	bool first = true;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	for (i = 0; i < n; i++) {
		if (!p[i].present)
			continue;
		fprintf(f, "%s%s", first ? "" : "&", p[i].name);
		first = false;
		if (!p[i].value)
			continue;
		v = sigv4_uri_encode(p[i].value, strlen(p[i].value), false);
		if (!v) {
			fclose(f);
			free(buf);
			return NULL;
		}
		fprintf(f, "=%s", v);
		free(v);
	}
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* ------------------------------------------------------------- requests */

struct hcs3_req {
	/* in */
	const char *method;
	const char *bucket;
	const char *key;		/* NULL: the bucket */
	const char *query;		/* wire query or NULL */
	const void *body;		/* PUT/POST body */
	size_t body_len;
	bool has_body;
	const char *payload_hash;	/* hex SHA-256 of the body */
	const char *content_md5;	/* base64 or NULL */
	const char *range;		/* "bytes=a-b" or NULL */
	const char *if_match;
	const char *if_none_match;	/* a conditional HEAD's ETag */
	char *dst;			/* 2xx body goes here (ranged GET) */
	size_t dst_cap;
	size_t xml_max;			/* cap on a collected 2xx body */
	/* out, per attempt */
	CURL *curl;
	long status;
	size_t dst_got;
	hcs3_recv_hook_fn recv_hook;	/* the client's, for @dst's first bytes */
	void *recv_arg;
	bool dst_overflow;
	bool nomem;
	char *body_in;			/* collected body (error or XML) */
	size_t body_in_len;
	bool body_trunc;
	char etag[HCS3_ETAG_MAX + 1];
	bool etag_bad;			/* too long */
	int64_t last_modified;		/* Last-Modified, s; 0: none */
	curl_off_t content_length;	/* -1 unknown */
	char content_range[128];
	uint64_t retry_after_ms;	/* Retry-After: N seconds, 0: none */
	char *url;
	unsigned int attempts;
	enum retry_outcome outcome;
	CURLcode cc;
	char curl_err[CURL_ERROR_SIZE];
};

static size_t hcs3_write(char *ptr, size_t size, size_t nmemb, void *arg)
{
	struct hcs3_req *r = arg;
	size_t n = size * nmemb, cap;
	bool ok;
	char *nb;

	if (!r->status)
		curl_easy_getinfo(r->curl, CURLINFO_RESPONSE_CODE, &r->status);
	ok = r->status >= 200 && r->status < 300;
	if (ok && r->dst) {
		if (n > r->dst_cap - r->dst_got) {
			r->dst_overflow = true;
			return 0;	/* never past the buffer: abort */
		}
		if (!r->dst_got && r->recv_hook)
			r->recv_hook(r->recv_arg, ptr);
		memcpy(r->dst + r->dst_got, ptr, n);
		r->dst_got += n;
		return n;
	}
	if (ok && !r->xml_max)
		return n;	/* a body nobody reads */
	cap = ok ? r->xml_max : HCS3_ERRBODY_MAX;
	if (n > cap - r->body_in_len) {
		r->body_trunc = true;
		if (ok)
			return 0;
		n = cap - r->body_in_len;	/* keep the start of an error */
	}
	if (n) {
		nb = realloc(r->body_in, r->body_in_len + n + 1);
		if (!nb) {
			r->nomem = true;
			return 0;
		}
		r->body_in = nb;
		memcpy(nb + r->body_in_len, ptr, n);
		r->body_in_len += n;
		nb[r->body_in_len] = '\0';
	}
	return size * nmemb;
}

static int hcs3_sign(struct hcs3 *c, struct hcs3_req *r, const char *host,
		     struct curl_slist **hdrs, char *err, size_t errlen)
{
	struct sigv4_header h[HCS3_HDR_MAX];
	struct sigv4_credentials cred = {
		.access_key = c->creds.access_key,
		.secret_key = c->creds.secret_key,
		.session_token = *c->creds.session_token ?
				 c->creds.session_token : NULL,
	};
	struct sigv4_params par = {
		.region = c->b.region,
		.service = "s3",
		.timestamp = time(NULL),
		.flags = SIGV4_S3,
	};
	struct sigv4_request req = { 0 };
	struct sigv4_result res;
	struct curl_slist *l = NULL, *t;
	char line[8192];
	size_t n = 0, i;
	char *path;
	int rc;

	h[n++] = (struct sigv4_header){ "Host", host };
	h[n++] = (struct sigv4_header){ "x-amz-content-sha256",
					r->payload_hash };
	if (r->range)
		h[n++] = (struct sigv4_header){ "Range", r->range };
	if (r->if_match)
		h[n++] = (struct sigv4_header){ "If-Match", r->if_match };
	if (r->if_none_match)
		h[n++] = (struct sigv4_header){ "If-None-Match",
						r->if_none_match };
	if (r->content_md5)
		h[n++] = (struct sigv4_header){ "Content-MD5", r->content_md5 };
	rc = hc_creds_current(&c->creds, err, errlen);	/* refreshed if due */
	if (rc)
		return rc;
	cred.session_token = *c->creds.session_token ?
			     c->creds.session_token : NULL;
	if (c->creds.source == HC_CREDS_ANONYMOUS) {
		memset(&res, 0, sizeof(res));
		goto headers;
	}
	path = hcs3_path(c, r->bucket, r->key);
	if (!path)
		return hc_seterr(err, errlen, -ENOMEM, "out of memory");
	req.method = r->method;
	req.path = path;
	req.query = r->query;
	req.headers = h;
	req.n_headers = n;
	req.payload_hash = r->payload_hash;
	rc = sigv4_sign(&req, &cred, &par, &res, err, errlen);
	free(path);
	if (rc)
		return rc;
headers:
	for (i = 0; i < n + res.n_added + 1; i++) {
		const struct sigv4_header *x = i < n ? &h[i] :
			i < n + res.n_added ? &res.added[i - n] : NULL;

		if (!x && !res.authorization)
			continue;	/* anonymous: unsigned */
		if (x)
			snprintf(line, sizeof(line), "%s: %s", x->name,
				 x->value);
		else
			snprintf(line, sizeof(line), "Authorization: %s",
				 res.authorization);
		t = curl_slist_append(l, line);
		if (!t)
			goto nomem;
		l = t;
	}
	/* no "Expect: 100-continue", no form content type on PUT/POST */
	t = curl_slist_append(l, "Expect:");
	if (!t)
		goto nomem;
	l = t;
	t = curl_slist_append(l, "Content-Type:");
	if (!t)
		goto nomem;
	l = t;
	explicit_bzero(line, sizeof(line));
	sigv4_result_free(&res);
	*hdrs = l;
	return 0;
nomem:
	explicit_bzero(line, sizeof(line));
	sigv4_result_free(&res);
	curl_slist_free_all(l);
	return hc_seterr(err, errlen, -ENOMEM, "out of memory");
}

static void hcs3_setopts(struct hcs3 *c, struct hcs3_req *r,
			 struct curl_slist *hdrs)
{
	CURL *h = c->curl;

	curl_easy_reset(h);	/* keeps the connection cache */
	curl_easy_setopt(h, CURLOPT_URL, r->url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, (long)c->opts.timeout_connect);
	curl_easy_setopt(h, CURLOPT_TIMEOUT, (long)c->opts.timeout_request);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 60L);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, r->curl_err);
	if (*c->b.ca_file)
		curl_easy_setopt(h, CURLOPT_CAINFO, c->b.ca_file);
	if (c->resolve)
		curl_easy_setopt(h, CURLOPT_RESOLVE, c->resolve);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, hcs3_write);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, r);
	if (!strcmp(r->method, "HEAD")) {
		curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
	} else if (r->has_body) {
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)r->body_len);
		curl_easy_setopt(h, CURLOPT_POSTFIELDS,
				 r->body_len ? r->body : "");
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, r->method);
	} else {
		curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
		if (strcmp(r->method, "GET"))
			curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, r->method);
	}
}

static bool hcs3_2xx(const struct hcs3_req *r)
{
	return r->status >= 200 && r->status < 300;
}

static enum retry_outcome hcs3_outcome(CURLcode cc)
{
	switch (cc) {
	case CURLE_OK:
		return RETRY_OUT_HTTP;
	case CURLE_OPERATION_TIMEDOUT:
		return RETRY_OUT_TIMEOUT;
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
		return RETRY_OUT_RESET;
	case CURLE_COULDNT_CONNECT:
		return RETRY_OUT_CONNECT;
	default:
		return RETRY_OUT_FATAL;
	}
}

/*
 * An HTTP date (RFC 9110: IMF-fixdate, and the obsolete RFC 850 and
 * asctime() forms, as curl_getdate() reads them) in seconds since the
 * epoch; 0 for one it cannot read, or before 1970-01-01T00:00:01Z.
 */
static int64_t hcs3_http_date(const char *s)
{
	time_t t = curl_getdate(s, NULL);

	return t > 0 ? (int64_t)t : 0;
}

/* Keep the response headers we use, from curl's header store. */
static void hcs3_response_headers(struct hcs3 *c, struct hcs3_req *r)
{
	struct curl_header *h;

	r->etag[0] = '\0';
	r->etag_bad = false;
	r->content_range[0] = '\0';
	r->last_modified = 0;
	if (curl_easy_header(c->curl, "Last-Modified", 0, CURLH_HEADER, -1,
			     &h) == CURLHE_OK)
		r->last_modified = hcs3_http_date(h->value);
	if (curl_easy_header(c->curl, "ETag", 0, CURLH_HEADER, -1, &h) ==
	    CURLHE_OK) {
		if (strlen(h->value) > HCS3_ETAG_MAX)
			r->etag_bad = true;
		else
			strcpy(r->etag, h->value);
	}
	if (curl_easy_header(c->curl, "Content-Range", 0, CURLH_HEADER, -1,
			     &h) == CURLHE_OK)
		snprintf(r->content_range, sizeof(r->content_range), "%s",
			 h->value);
	/* delta-seconds only (an HTTP-date is ignored), at most the cap */
	r->retry_after_ms = 0;
	if (curl_easy_header(c->curl, "Retry-After", 0, CURLH_HEADER, -1,
			     &h) == CURLHE_OK) {
		char *end;
		unsigned long v;

		/*
		 * Digits only: strtoul() would take "-5" as 2^64 - 5.  One
		 * past ULONG_MAX is ULONG_MAX, capped like any large value.
		 */
		v = strtoul(h->value, &end, 10);
		if (isdigit((unsigned char)h->value[0]) && !*end)
			r->retry_after_ms = v > HCS3_RETRY_AFTER_MAX_S ?
				HCS3_RETRY_AFTER_MAX_S * 1000ULL : v * 1000ULL;
	}
	c->retry_after_ms = r->retry_after_ms;
	if (curl_easy_getinfo(c->curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T,
			      &r->content_length))
		r->content_length = -1;
}

/*
 * Whether response @r refused the credentials as expired: an S3 error code
 * ExpiredToken, InvalidToken, RequestExpired or TokenRefreshRequired on a
 * 400 or 403; a bodiless 400/403 (HEAD) when they are temporary.
 */
static bool hcs3_expired(const struct hcs3 *c, const struct hcs3_req *r)
{
	static const char *const codes[] = {
		"ExpiredToken", "InvalidToken", "RequestExpired",
		"TokenRefreshRequired", NULL
	};
	struct s3xml_error e;
	size_t i;

	if (r->cc != CURLE_OK || (r->status != 400 && r->status != 403))
		return false;
	if (!r->body_in_len)
		return c->creds.expiration != 0;
	if (s3xml_error_parse(r->body_in, r->body_in_len, &e, NULL, 0))
		return false;
	for (i = 0; codes[i]; i++)
		if (!strcmp(e.code, codes[i]))
			return true;
	return false;
}

/*
 * One request with retries.  Returns 0 when a response arrived (any HTTP
 * status: see r->status), or a negative errno when none did (transport
 * failure after retries, a local failure) with @err set.
 */
static int hcs3_perform(struct hcs3 *c, struct hcs3_req *r,
			char *err, size_t errlen)
{
	struct retry_state rs;
	enum retry_verdict v;
	uint64_t start, delay;
	bool refreshed = false;
	char *host;
	int rc;

	r->url = hcs3_url_q(c, r->bucket, r->key, r->query);
	host = hcs3_hostport(c, r->bucket);
	if (!r->url || !host) {
		free(host);
		return hc_seterr(err, errlen, -ENOMEM, "out of memory");
	}
	r->curl = c->curl;
	r->recv_hook = c->recv_hook;
	r->recv_arg = c->recv_arg;
	retry_init(&rs, &c->policy, retry_rand_os, NULL);
	start = hc_now_ms();
	for (;;) {
		struct curl_slist *hdrs = NULL;
		curl_off_t up = 0, down = 0;
		long conns = 0;

		r->status = 0;
		r->dst_got = 0;		/* a retried range starts over */
		r->dst_overflow = r->nomem = r->body_trunc = false;
		free(r->body_in);
		r->body_in = NULL;
		r->body_in_len = 0;
		r->curl_err[0] = '\0';
		rc = hcs3_sign(c, r, host, &hdrs, err, errlen);	/* fresh date */
		if (rc)
			break;
		hcs3_setopts(c, r, hdrs);
		r->cc = curl_easy_perform(c->curl);
		r->attempts++;
		c->stats.requests++;
		if (!curl_easy_getinfo(c->curl, CURLINFO_NUM_CONNECTS, &conns))
			c->stats.connects += (uint64_t)conns;
		if (!curl_easy_getinfo(c->curl, CURLINFO_SIZE_UPLOAD_T, &up))
			c->stats.bytes_out += (uint64_t)up;
		if (!curl_easy_getinfo(c->curl, CURLINFO_SIZE_DOWNLOAD_T, &down))
			c->stats.bytes_in += (uint64_t)down;
		curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &r->status);
		hcs3_response_headers(c, r);
		curl_easy_setopt(c->curl, CURLOPT_HTTPHEADER, NULL);
		curl_slist_free_all(hdrs);
		if (r->nomem) {
			rc = hc_seterr(err, errlen, -ENOMEM, "out of memory");
			break;
		}
		if (r->dst_overflow) {
			rc = hc_seterr(err, errlen, -EIO,
				    "%s %s: more bytes than the %zu asked for",
				    r->method, r->url, r->dst_cap);
			break;
		}
		if (r->cc == CURLE_WRITE_ERROR && r->body_trunc &&
		    hcs3_2xx(r)) {
			rc = hc_seterr(err, errlen, -EIO,
				    "%s %s: response body over %zu bytes",
				    r->method, r->url, r->xml_max);
			break;
		}
		if (!refreshed && hcs3_expired(c, r) &&
		    hc_creds_expired(&c->creds)) {
			refreshed = true;	/* once, with fresh ones */
			c->stats.retries++;
			continue;
		}
		r->outcome = hcs3_outcome(r->cc);
		v = retry_next(&rs, r->outcome, (int)r->status,
			       hc_now_ms() - start, &delay);
		if (v != RETRY_AGAIN) {
			if (r->outcome == RETRY_OUT_HTTP) {
				rc = 0;
				break;
			}
			rc = r->outcome == RETRY_OUT_TIMEOUT ? -ETIMEDOUT :
			     r->outcome == RETRY_OUT_CONNECT ? -ECONNREFUSED :
			     -EIO;
			hc_seterr(err, errlen, rc, "%s %s: %s%s%s (attempt %u%s%s)",
			       r->method, r->url, curl_easy_strerror(r->cc),
			       *r->curl_err ? ": " : "", r->curl_err,
			       r->attempts, v == RETRY_DONE ? "" : ", ",
			       v == RETRY_DONE ? "" : retry_verdict_name(v));
			break;
		}
		c->stats.retries++;
		if (r->retry_after_ms > delay)
			delay = r->retry_after_ms;	/* the server said when */
		hc_sleep_ms(delay);
	}
	free(host);
	return rc;
}

/*
 * The errno of a non-2xx response, with the S3 error message in @err.
 * 412 (If-Match) is -ESTALE; a retryable status that outlived the retry
 * policy is -EIO.
 */
static int hcs3_http_error(struct hcs3_req *r, char *err, size_t errlen)
{
	struct s3xml_error e;
	bool xml = r->body_in_len &&
		   !s3xml_error_parse(r->body_in, r->body_in_len, &e, NULL, 0);
	bool transient = retry_retryable(RETRY_OUT_HTTP, (int)r->status);
	char after[32] = "";
	int rc = EIO;

	if (xml)
		rc = s3xml_code_errno(e.code);
	if (rc == EIO || rc == EAGAIN) {
		switch (r->status) {
		case 403:
			rc = EACCES;
			break;
		case 404:
			rc = ENOENT;
			break;
		case 412:
			rc = ESTALE;
			break;
		default:
			rc = EIO;
		}
	}
	if (transient) {
		/* 503 (SlowDown) and 429: the backend asks us to slow down */
		rc = r->status == 503 || r->status == 429 ? EAGAIN : EIO;
		snprintf(after, sizeof(after), " after %u attempts",
			 r->attempts);
	}
	if (xml)
		hc_seterr(err, errlen, 0, "S3 %s: %s (HTTP %ld, %s %s)%s",
		       e.code, e.message, r->status, r->method, r->url, after);
	else
		hc_seterr(err, errlen, 0, "HTTP %ld (%s %s)%s", r->status,
		       r->method, r->url, after);
	return -rc;
}

static void hcs3_req_done(struct hcs3_req *r)
{
	free(r->body_in);
	free(r->url);
}

/* Content-MD5: base64 of the MD5 of the body (OpenSSL). */
static int hcs3_md5_b64(const void *buf, size_t len, char out[32])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	if (!EVP_Digest(buf, len, md, &mdlen, EVP_md5(), NULL))
		return -EIO;
	EVP_EncodeBlock((unsigned char *)out, md, (int)mdlen);	/* 24 + NUL */
	return 0;
}

static int hcs3_copy_etag(const struct hcs3_req *r, char *out,
			  char *err, size_t errlen)
{
	if (r->etag_bad)
		return hc_seterr(err, errlen, -EIO, "%s %s: ETag too long",
			      r->method, r->url);
	if (out)
		strcpy(out, r->etag);
	return 0;
}

/* ------------------------------------------------------------ operations */

int hcs3_head(struct hcs3 *c, const char *bucket, const char *key,
	      struct hcs3_object *out, char *err, size_t errlen)
{
	return hcs3_head_if(c, bucket, key, NULL, out, err, errlen);
}

int hcs3_head_if(struct hcs3 *c, const char *bucket, const char *key,
		 const char *if_none_match, struct hcs3_object *out,
		 char *err, size_t errlen)
{
	struct hcs3_req r = {
		.method = "HEAD", .bucket = bucket, .key = key,
		.payload_hash = SIGV4_EMPTY_SHA256,
		.if_none_match = if_none_match,
	};
	int rc;

	memset(out, 0, sizeof(*out));
	rc = hcs3_check(c, bucket, key, true, err, errlen);
	if (rc)
		return rc;
	if (if_none_match && (!*if_none_match ||
			      strpbrk(if_none_match, "\r\n")))
		return hc_seterr(err, errlen, -EINVAL, "bad If-None-Match ETag");
	rc = hcs3_perform(c, &r, err, errlen);
	if (!rc && if_none_match && r.status == 304) {
		hcs3_req_done(&r);	/* not modified: nothing to copy */
		return HCS3_NOT_MODIFIED;
	}
	if (!rc && !hcs3_2xx(&r))
		rc = hcs3_http_error(&r, err, errlen);
	if (!rc && r.content_length < 0)
		rc = hc_seterr(err, errlen, -EIO, "HEAD %s: no Content-Length",
			    r.url);
	if (!rc)
		rc = hcs3_copy_etag(&r, out->etag, err, errlen);
	if (!rc) {
		out->size = (uint64_t)r.content_length;
		out->mtime = r.last_modified;
	}
	hcs3_req_done(&r);
	return rc;
}

int hcs3_get_range(struct hcs3 *c, const char *bucket, const char *key,
		   uint64_t off, size_t len, const char *if_match, void *buf,
		   char *err, size_t errlen)
{
	struct hcs3_req r = {
		.method = "GET", .bucket = bucket, .key = key,
		.payload_hash = SIGV4_EMPTY_SHA256, .if_match = if_match,
		.dst = buf, .dst_cap = len,
	};
	uint64_t a, b, total;
	char range[64];
	int rc;

	rc = hcs3_check(c, bucket, key, true, err, errlen);
	if (rc)
		return rc;
	if (!len)
		return 0;
	if (!buf || off > UINT64_MAX - len)
		return hc_seterr(err, errlen, -EINVAL, "bad range or buffer");
	if (if_match && (!*if_match || strpbrk(if_match, "\r\n")))
		return hc_seterr(err, errlen, -EINVAL, "bad If-Match ETag");
	snprintf(range, sizeof(range), "bytes=%" PRIu64 "-%" PRIu64, off,
		 off + len - 1);
	r.range = range;
	rc = hcs3_perform(c, &r, err, errlen);
	if (rc)
		goto out;
	if (!hcs3_2xx(&r)) {
		rc = hcs3_http_error(&r, err, errlen);
		goto out;
	}
	if (if_match && r.etag[0] && strcmp(r.etag, if_match)) {
		rc = hc_seterr(err, errlen, -ESTALE,
			    "GET %s: ETag %s, expected %s: the object changed",
			    r.url, r.etag, if_match);
		goto out;
	}
	if (r.status == 206) {
		if (sscanf(r.content_range, "bytes %" SCNu64 "-%" SCNu64 "/%" SCNu64,
			   &a, &b, &total) < 2 || a != off || b != off + len - 1) {
			rc = hc_seterr(err, errlen, -EIO,
				    "GET %s: asked for %s, got Content-Range '%s'",
				    r.url, range, r.content_range);
			goto out;
		}
	} else if (r.status != 200 || off != 0) {
		rc = hc_seterr(err, errlen, -EIO,
			    "GET %s: HTTP %ld to a Range request at %" PRIu64,
			    r.url, r.status, off);
		goto out;
	}
	if (r.dst_got != len)
		rc = hc_seterr(err, errlen, -EIO,
			    "GET %s: %zu bytes of the %zu asked for", r.url,
			    r.dst_got, len);
out:
	hcs3_req_done(&r);
	return rc;
}

int hcs3_get_first(struct hcs3 *c, const char *bucket, const char *key,
		   size_t cap, void *buf, size_t *got, struct hcs3_object *out,
		   char *err, size_t errlen)
{
	struct hcs3_req r = {
		.method = "GET", .bucket = bucket, .key = key,
		.payload_hash = SIGV4_EMPTY_SHA256,
		.dst = buf, .dst_cap = cap,
	};
	uint64_t a, b, total;
	char range[64];
	int rc;

	memset(out, 0, sizeof(*out));
	*got = 0;
	rc = hcs3_check(c, bucket, key, true, err, errlen);
	if (rc)
		return rc;
	if (!buf || !cap)
		return hc_seterr(err, errlen, -EINVAL, "bad range or buffer");
	snprintf(range, sizeof(range), "bytes=0-%zu", cap - 1);
	r.range = range;
	rc = hcs3_perform(c, &r, err, errlen);
	if (rc) {
		/* a 200 with more than @cap: the Range was ignored */
		if (r.dst_overflow)
			rc = hc_seterr(err, errlen, -ERANGE,
				    "GET %s: the Range was ignored", r.url);
		goto out;
	}
	if (r.status == 416) {
		rc = hc_seterr(err, errlen, -ERANGE,
			    "GET %s: 416 to %s (an empty object)", r.url, range);
		goto out;
	}
	if (!hcs3_2xx(&r)) {
		rc = hcs3_http_error(&r, err, errlen);
		goto out;
	}
	if (r.status == 206) {
		if (sscanf(r.content_range, "bytes %" SCNu64 "-%" SCNu64 "/%" SCNu64,
			   &a, &b, &total) != 3 || a != 0 || b >= cap ||
		    b + 1 != r.dst_got || total <= b) {
			rc = hc_seterr(err, errlen, -EIO,
				    "GET %s: asked for %s, got Content-Range '%s' and %zu bytes",
				    r.url, range, r.content_range, r.dst_got);
			goto out;
		}
		out->size = total;
	} else if (r.status == 200 && r.content_length >= 0 &&
		   (uint64_t)r.content_length == r.dst_got) {
		out->size = r.dst_got;	/* the whole object, Range ignored */
	} else {
		rc = hc_seterr(err, errlen, -EIO,
			    "GET %s: HTTP %ld to %s with %zu bytes", r.url,
			    r.status, range, r.dst_got);
		goto out;
	}
	rc = hcs3_copy_etag(&r, out->etag, err, errlen);
	if (rc) {
		out->size = 0;
		goto out;
	}
	out->mtime = r.last_modified;
	*got = r.dst_got;
out:
	hcs3_req_done(&r);
	return rc;
}

/* hcs3_list: keys must come in strictly increasing order, once each. */
struct hcs3_list_ctx {
	s3xml_list_cb cb;
	void *arg;
	char *last;
	bool disorder;
};

static int hcs3_list_one(const struct s3xml_object *o, void *arg)
{
	struct hcs3_list_ctx *x = arg;
	char *k;

	if (x->last && strcmp(o->key, x->last) <= 0) {
		x->disorder = true;
		return -EIO;
	}
	k = strdup(o->key);
	if (!k)
		return -ENOMEM;
	free(x->last);
	x->last = k;
	return x->cb(o, x->arg);
}

int hcs3_list(struct hcs3 *c, const char *bucket, const char *prefix,
	      s3xml_list_cb cb, void *arg, char *err, size_t errlen)
{
	struct hcs3_list_ctx x = { .cb = cb, .arg = arg };
	char *token = NULL;
	int rc;

	rc = hcs3_check(c, bucket, NULL, false, err, errlen);
	if (rc)
		return rc;
	if (!prefix)
		prefix = "";
	for (;;) {
		struct hcs3_qp q[] = {
			{ "continuation-token", token, token != NULL },
			{ "list-type", "2", true },
			{ "prefix", prefix, true },
		};
		struct hcs3_req r = {
			.method = "GET", .bucket = bucket,
			.payload_hash = SIGV4_EMPTY_SHA256,
			.xml_max = HCS3_XMLBODY_MAX,
		};
		struct s3xml_list_page page;
		char *query = hcs3_query(q, 3);

		if (!query) {
			rc = hc_seterr(err, errlen, -ENOMEM, "out of memory");
			break;
		}
		r.query = query;
		rc = hcs3_perform(c, &r, err, errlen);
		if (!rc && !hcs3_2xx(&r))
			rc = hcs3_http_error(&r, err, errlen);
		if (!rc) {
			rc = s3xml_list_parse(r.body_in ? r.body_in : "",
					      r.body_in_len, hcs3_list_one, &x,
					      &page, err, errlen);
			if (x.disorder)
				rc = hc_seterr(err, errlen, -EIO,
					    "LIST %s: key '%.200s' out of order",
					    r.url, x.last);
			else if (rc == -EBADMSG) {
				size_t l = strlen(err ? err : "");

				if (err && l + 1 < errlen)
					snprintf(err + l, errlen - l,
						 " (GET %s)", r.url);
				rc = -EIO;
			}
		}
		free(query);
		hcs3_req_done(&r);
		if (rc)
			break;
		if (!page.truncated) {
			s3xml_list_page_free(&page);
			break;
		}
		if (token && !strcmp(token, page.next_token)) {
			s3xml_list_page_free(&page);
			rc = hc_seterr(err, errlen, -EIO,
				    "LIST %s: continuation token repeats",
				    bucket);
			break;
		}
		free(token);
		token = page.next_token;	/* taken over */
		page.next_token = NULL;
		s3xml_list_page_free(&page);
	}
	free(token);
	free(x.last);
	return rc;
}

/*
 * A PUT of @buf (whole object or one part) with a signed Content-MD5 and,
 * with the backend's sign_payload, the SHA-256 of the body as the payload
 * hash (UNSIGNED-PAYLOAD otherwise: the server still checks the MD5).
 */
static int hcs3_put_body(struct hcs3 *c, const char *bucket, const char *key,
			 const char *query, const void *buf, size_t len,
			 char *etag_out, char *err, size_t errlen)
{
	struct hcs3_req r = {
		.method = "PUT", .bucket = bucket, .key = key, .query = query,
		.body = buf, .body_len = len, .has_body = true,
	};
	char sha[65], md5[32];
	double t0 = hc_now();
	int rc;

	if (len && !buf)
		return hc_seterr(err, errlen, -EINVAL, "no buffer");
	if (c->b.sign_payload)
		sigv4_sha256_hex(len ? buf : "", len, sha);
	else
		strcpy(sha, SIGV4_UNSIGNED_PAYLOAD);
	if (hcs3_md5_b64(len ? buf : "", len, md5))
		return hc_seterr(err, errlen, -EIO, "MD5 failed");
	c->stats.digest_ns += (uint64_t)((hc_now() - t0) * 1e9);
	r.payload_hash = sha;
	r.content_md5 = md5;
	rc = hcs3_perform(c, &r, err, errlen);
	if (!rc && !hcs3_2xx(&r))
		rc = hcs3_http_error(&r, err, errlen);
	if (!rc)
		rc = hcs3_copy_etag(&r, etag_out, err, errlen);
	hcs3_req_done(&r);
	return rc;
}

int hcs3_put(struct hcs3 *c, const char *bucket, const char *key,
	     const void *buf, size_t len, char etag_out[HCS3_ETAG_MAX + 1],
	     char *err, size_t errlen)
{
	int rc = hcs3_check(c, bucket, key, true, err, errlen);

	if (etag_out)
		etag_out[0] = '\0';
	if (rc)
		return rc;
	return hcs3_put_body(c, bucket, key, NULL, buf, len, etag_out,
			     err, errlen);
}

int hcs3_delete(struct hcs3 *c, const char *bucket, const char *key,
		char *err, size_t errlen)
{
	struct hcs3_req r = {
		.method = "DELETE", .bucket = bucket, .key = key,
		.payload_hash = SIGV4_EMPTY_SHA256,
	};
	int rc = hcs3_check(c, bucket, key, true, err, errlen);

	if (rc)
		return rc;
	rc = hcs3_perform(c, &r, err, errlen);
	if (!rc && !hcs3_2xx(&r)) {
		struct s3xml_error e;
		bool nobucket = r.body_in_len &&
			!s3xml_error_parse(r.body_in, r.body_in_len, &e,
					   NULL, 0) &&
			!strcmp(e.code, "NoSuchBucket");

		rc = hcs3_http_error(&r, err, errlen);
		if (rc == -ENOENT && !nobucket)
			rc = 0;		/* already gone */
	}
	hcs3_req_done(&r);
	return rc;
}

/* ------------------------------------------------------------- multipart */

static int hcs3_check_upload_id(const char *id, char *err, size_t errlen)
{
	if (!id || !*id || strlen(id) > HCS3_UPLOAD_ID_MAX)
		return hc_seterr(err, errlen, -EINVAL, "bad upload id");
	return 0;
}

int hcs3_mpu_create(struct hcs3 *c, const char *bucket, const char *key,
		    char upload_id[HCS3_UPLOAD_ID_MAX + 1],
		    char *err, size_t errlen)
{
	struct hcs3_req r = {
		.method = "POST", .bucket = bucket, .key = key,
		.query = "uploads", .has_body = true,
		.payload_hash = SIGV4_EMPTY_SHA256,
		.xml_max = HCS3_ERRBODY_MAX,
	};
	int rc = hcs3_check(c, bucket, key, true, err, errlen);

	upload_id[0] = '\0';
	if (rc)
		return rc;
	rc = hcs3_perform(c, &r, err, errlen);
	if (!rc && !hcs3_2xx(&r))
		rc = hcs3_http_error(&r, err, errlen);
	if (!rc && s3xml_mpu_init_parse(r.body_in ? r.body_in : "",
					r.body_in_len, upload_id,
					HCS3_UPLOAD_ID_MAX + 1, err, errlen))
		rc = -EIO;
	hcs3_req_done(&r);
	return rc;
}

int hcs3_mpu_part(struct hcs3 *c, const char *bucket, const char *key,
		  const char *upload_id, unsigned int part_no,
		  const void *buf, size_t len,
		  char etag_out[HCS3_ETAG_MAX + 1], char *err, size_t errlen)
{
	char num[16];
	struct hcs3_qp q[] = {
		{ "partNumber", num, true },
		{ "uploadId", upload_id, true },
	};
	char *query;
	int rc = hcs3_check(c, bucket, key, true, err, errlen);

	if (etag_out)
		etag_out[0] = '\0';
	if (!rc)
		rc = hcs3_check_upload_id(upload_id, err, errlen);
	if (!rc && (part_no < 1 || part_no > 10000))
		rc = hc_seterr(err, errlen, -EINVAL, "part number %u not in 1..10000",
			    part_no);
	if (rc)
		return rc;
	snprintf(num, sizeof(num), "%u", part_no);
	query = hcs3_query(q, 2);
	if (!query)
		return hc_seterr(err, errlen, -ENOMEM, "out of memory");
	rc = hcs3_put_body(c, bucket, key, query, buf, len, etag_out,
			   err, errlen);
	if (!rc && etag_out && !etag_out[0])
		rc = hc_seterr(err, errlen, -EIO, "part %u: no ETag in the answer",
			    part_no);
	free(query);
	return rc;
}

int hcs3_mpu_complete(struct hcs3 *c, const char *bucket, const char *key,
		      const char *upload_id, unsigned int nr_parts,
		      char (*const part_etags)[HCS3_ETAG_MAX + 1],
		      char etag_out[HCS3_ETAG_MAX + 1],
		      char *err, size_t errlen)
{
	struct hcs3_qp q[] = { { "uploadId", upload_id, true } };
	struct hcs3_req r = {
		.method = "POST", .bucket = bucket, .key = key,
		.has_body = true, .xml_max = HCS3_ERRBODY_MAX,
	};
	const char **etags = NULL;
	char sha[65], *doc = NULL, *query = NULL;
	struct s3xml_error e;
	size_t doclen;
	unsigned int i;
	int rc = hcs3_check(c, bucket, key, true, err, errlen);

	if (etag_out)
		etag_out[0] = '\0';
	if (!rc)
		rc = hcs3_check_upload_id(upload_id, err, errlen);
	if (!rc && (!nr_parts || nr_parts > 10000 || !part_etags))
		rc = hc_seterr(err, errlen, -EINVAL, "%u parts", nr_parts);
	if (rc)
		return rc;
	etags = calloc(nr_parts, sizeof(*etags));
	query = hcs3_query(q, 1);
	if (!etags || !query) {
		rc = hc_seterr(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < nr_parts; i++)
		etags[i] = part_etags[i];
	rc = s3xml_mpu_complete_doc(etags, nr_parts, &doc, &doclen,
				    err, errlen);
	if (rc)
		goto out;
	sigv4_sha256_hex(doc, doclen, sha);
	r.query = query;
	r.body = doc;
	r.body_len = doclen;
	r.payload_hash = sha;
	rc = hcs3_perform(c, &r, err, errlen);
	if (!rc && !hcs3_2xx(&r))
		rc = hcs3_http_error(&r, err, errlen);
	/* S3 may answer 200 and then an <Error> once the parts are joined */
	if (!rc && r.body_in_len &&
	    !s3xml_error_parse(r.body_in, r.body_in_len, &e, NULL, 0)) {
		rc = -s3xml_code_errno(e.code);
		if (rc == -EAGAIN)
			rc = -EIO;
		hc_seterr(err, errlen, rc, "S3 %s: %s (HTTP %ld, POST %s)",
		       e.code, e.message, r.status, r.url);
	}
	if (!rc && s3xml_mpu_complete_parse(r.body_in ? r.body_in : "",
					    r.body_in_len, r.etag,
					    sizeof(r.etag), err, errlen))
		rc = -EIO;
	if (!rc && !r.etag[0]) {
		/* radosgw leaves <ETag> empty: the object's HEAD has it */
		struct hcs3_object o;

		rc = hcs3_head(c, bucket, key, &o, err, errlen);
		if (!rc)
			strcpy(r.etag, o.etag);
	}
	if (!rc && etag_out)
		strcpy(etag_out, r.etag);
out:
	hcs3_req_done(&r);
	free(doc);
	free(query);
	free(etags);
	return rc;
}

int hcs3_mpu_abort(struct hcs3 *c, const char *bucket, const char *key,
		   const char *upload_id, char *err, size_t errlen)
{
	struct hcs3_qp q[] = { { "uploadId", upload_id, true } };
	struct hcs3_req r = {
		.method = "DELETE", .bucket = bucket, .key = key,
		.payload_hash = SIGV4_EMPTY_SHA256,
	};
	int rc = hcs3_check(c, bucket, key, true, err, errlen);

	if (!rc)
		rc = hcs3_check_upload_id(upload_id, err, errlen);
	if (rc)
		return rc;
	r.query = hcs3_query(q, 1);
	if (!r.query)
		return hc_seterr(err, errlen, -ENOMEM, "out of memory");
	rc = hcs3_perform(c, &r, err, errlen);
	if (!rc && !hcs3_2xx(&r))
		rc = hcs3_http_error(&r, err, errlen);
	free((char *)r.query);
	hcs3_req_done(&r);
	return rc;
}

int hcs3_mpu_list(struct hcs3 *c, const char *bucket, const char *prefix,
		  hcs3_mpu_cb cb, void *arg, char *err, size_t errlen)
{
	char *key_marker = NULL, *id_marker = NULL;
	int rc = hcs3_check(c, bucket, NULL, false, err, errlen);

	if (rc)
		return rc;
	if (!prefix)
		prefix = "";
	for (;;) {
		struct hcs3_qp q[] = {
			{ "key-marker", key_marker, key_marker != NULL },
			{ "prefix", prefix, true },
			{ "upload-id-marker", id_marker, id_marker != NULL },
			{ "uploads", NULL, true },
		};
		struct hcs3_req r = {
			.method = "GET", .bucket = bucket,
			.payload_hash = SIGV4_EMPTY_SHA256,
			.xml_max = HCS3_XMLBODY_MAX,
		};
		struct s3xml_uploads_page page;

		r.query = hcs3_query(q, 4);
		if (!r.query) {
			rc = hc_seterr(err, errlen, -ENOMEM, "out of memory");
			break;
		}
		rc = hcs3_perform(c, &r, err, errlen);
		if (!rc && !hcs3_2xx(&r))
			rc = hcs3_http_error(&r, err, errlen);
		if (!rc) {
			rc = s3xml_uploads_parse(r.body_in ? r.body_in : "",
						 r.body_in_len, cb, arg, &page,
						 err, errlen);
			if (rc == -EBADMSG)
				rc = -EIO;
		}
		free((char *)r.query);
		hcs3_req_done(&r);
		if (rc)
			break;
		if (!page.truncated) {
			s3xml_uploads_page_free(&page);
			break;
		}
		if (key_marker && !strcmp(key_marker, page.next_key) &&
		    !strcmp(id_marker ? id_marker : "",
			    page.next_upload_id ? page.next_upload_id : "")) {
			s3xml_uploads_page_free(&page);
			rc = hc_seterr(err, errlen, -EIO,
				    "list uploads of %s: markers repeat",
				    bucket);
			break;
		}
		free(key_marker);
		free(id_marker);
		key_marker = page.next_key;
		id_marker = page.next_upload_id;
		page.next_key = page.next_upload_id = NULL;
		s3xml_uploads_page_free(&page);
	}
	free(key_marker);
	free(id_marker);
	return rc;
}
