// SPDX-License-Identifier: GPL-2.0
/*
 * The S3 client (helper/lib/s3.c) against an in-process fake S3 server
 * (libmicrohttpd on 127.0.0.1) that checks every request's SigV4
 * signature by recomputing it with the server's secret, the wire encoding
 * of the path, x-amz-content-sha256 and Content-MD5 against the body, and
 * can be scripted per test: 503/429 N times, a reset mid-body, an ETag
 * that changes, a Range it ignores, a 200 with an <Error> body.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>
#include <openssl/evp.h>

#include "kselftest_harness.h"
#include <fcntl.h>
#include <isa-l/crc.h>
#include "egress.h"
#include "s3.h"
#include "sigv4.h"

#define AK	"AKIDTEST"
#define SK	"secret/Key+123"
#define BKT	"bkt"
#define MAXOBJ	16
#define MAXPART	8

struct fobj {
	char key[256];
	char *data;
	size_t len;
	char etag[80];
	time_t mtime;		/* Last-Modified: a minute per store() */
};

/* The fake server's state; the MHD thread and the test share it. */
struct fake {
	pthread_mutex_t lock;
	struct MHD_Daemon *d;
	unsigned short port;
	struct fobj obj[MAXOBJ];
	int nobj;
	/* script */
	int fail_503, fail_429, reset_body;	/* next N requests */
	int fail_n, fail_status;		/* next N: this status, */
	const char *fail_code;			/* with this S3 code */
	unsigned int retry_after;		/* seconds, on a 503; 0: none */
	const char *retry_after_raw;		/* the header as sent, if set */
	bool ignore_range, ignore_if_match, complete_error, complete_no_etag;
	bool ignore_if_none_match;	/* HEAD: answer 200, never 304 */
	unsigned int sleep_ms;
	/* HEAD and GET: Last-Modified sent as this text (NULL: the object's
	 * time as an IMF-fixdate), none at all with no_last_modified; the
	 * ETag of a HEAD replaced by head_etag (another writer's version);
	 * the next fail_head HEADs 403 */
	const char *last_modified;
	bool no_last_modified;
	const char *head_etag;
	int fail_head;
	time_t clock;		/* the last store()'s mtime */
	/* seen */
	int requests, connections, bad_sigs, bad_hash, bad_md5, bad_wire;
	char host[128];
	char token[256];	/* x-amz-security-token */
	char last_query[512];
	char last_path[512];
	char last_sha[80];	/* x-amz-content-sha256 of the last PUT/POST */
	/* multipart */
	bool upload_open;
	char *part[MAXPART + 1];
	size_t part_len[MAXPART + 1];
	char part_etag[MAXPART + 1][80];
};

static struct fake F;
#define UPLOAD_ID "2~up/load+id="

struct rq {
	char *raw;		/* request-target as on the wire */
	char *body;
	size_t len;
	bool started;
};

static void *uri_log(void *cls, const char *uri, struct MHD_Connection *c)
{
	struct rq *r = calloc(1, sizeof(*r));

	r->raw = strdup(uri);
	return r;
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
		      enum MHD_RequestTerminationCode toe)
{
	struct rq *r = *con_cls;

	if (r) {
		free(r->raw);
		free(r->body);
		free(r);
	}
	*con_cls = NULL;
}

static void conn_note(void *cls, struct MHD_Connection *c, void **socket_ctx,
		      enum MHD_ConnectionNotificationCode toe)
{
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		pthread_mutex_lock(&F.lock);
		F.connections++;
		pthread_mutex_unlock(&F.lock);
	}
}

static void md5hex(const void *p, size_t n, char *out)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int l, i;

	EVP_Digest(p, n, md, &l, EVP_md5(), NULL);
	for (i = 0; i < l; i++)
		sprintf(out + 2 * i, "%02x", md[i]);
}

static void md5b64(const void *p, size_t n, char *out)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int l;

	EVP_Digest(p, n, md, &l, EVP_md5(), NULL);
	EVP_EncodeBlock((unsigned char *)out, md, (int)l);
}

static const char *hdr(struct MHD_Connection *c, const char *name)
{
	return MHD_lookup_connection_value(c, MHD_HEADER_KIND, name);
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned int status,
			     const char *body, size_t len, const char *etag,
			     const char *crange)
{
	struct MHD_Response *r;
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, (void *)body,
					    MHD_RESPMEM_MUST_COPY);
	if (etag)
		MHD_add_response_header(r, "ETag", etag);
	if (crange)
		MHD_add_response_header(r, "Content-Range", crange);
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* 200 to a HEAD or GET of @o: ETag and Last-Modified as scripted. */
static enum MHD_Result reply_obj(struct MHD_Connection *c, unsigned int status,
				 const char *body, size_t len,
				 const struct fobj *o, const char *etag,
				 const char *crange)
{
	struct MHD_Response *r;
	enum MHD_Result ret;
	char lm[64];
	struct tm tm;

	r = MHD_create_response_from_buffer(len, (void *)body,
					    MHD_RESPMEM_MUST_COPY);
	MHD_add_response_header(r, "ETag", etag);
	if (crange)
		MHD_add_response_header(r, "Content-Range", crange);
	if (F.last_modified) {
		MHD_add_response_header(r, "Last-Modified", F.last_modified);
	} else if (!F.no_last_modified) {
		gmtime_r(&o->mtime, &tm);
		strftime(lm, sizeof(lm), "%a, %d %b %Y %H:%M:%S GMT", &tm);
		MHD_add_response_header(r, "Last-Modified", lm);
	}
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result s3err(struct MHD_Connection *c, unsigned int status,
			     const char *code, const char *msg)
{
	char b[512];

	snprintf(b, sizeof(b),
		 "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>%s</Code>"
		 "<Message>%s</Message><RequestId>r1</RequestId></Error>",
		 code, msg);
	return reply(c, status, b, strlen(b), NULL, NULL);
}

/* Recompute the request's signature as a server would. */
static bool sig_ok(struct MHD_Connection *c, const char *method,
		   const char *path, const char *query)
{
	const char *auth = hdr(c, "Authorization"), *date = hdr(c, "x-amz-date");
	const char *sh, *sig;
	struct sigv4_header h[16];
	struct sigv4_request req = { 0 };
	struct sigv4_credentials cred = { AK, SK, NULL };
	struct sigv4_params par = { "us-east-1", "s3", 0, SIGV4_S3 };
	struct sigv4_result res;
	char names[512], *save, *n;
	struct tm tm = { 0 };
	size_t nh = 0;
	bool ok;

	if (!auth || !date || strncmp(auth, "AWS4-HMAC-SHA256 Credential=" AK "/", 29))
		return false;
	if (!strptime(date, "%Y%m%dT%H%M%SZ", &tm))
		return false;
	par.timestamp = timegm(&tm);
	sh = strstr(auth, "SignedHeaders=");
	sig = strstr(auth, "Signature=");
	if (!sh || !sig || !strstr(auth, "/us-east-1/s3/aws4_request"))
		return false;
	sh += 14;
	snprintf(names, sizeof(names), "%.*s", (int)strcspn(sh, ","), sh);
	for (n = strtok_r(names, ";", &save); n && nh < 16;
	     n = strtok_r(NULL, ";", &save)) {
		const char *v = hdr(c, n);

		if (!v)
			return false;
		h[nh++] = (struct sigv4_header){ n, v };
	}
	if (hdr(c, "x-amz-security-token"))
		cred.session_token = hdr(c, "x-amz-security-token");
	req.method = method;
	req.path = path;
	req.query = query;
	req.headers = h;
	req.n_headers = nh;
	req.payload_hash = hdr(c, "x-amz-content-sha256");
	if (!req.payload_hash || sigv4_sign(&req, &cred, &par, &res, NULL, 0))
		return false;
	ok = !strcmp(sig + 10, res.signature);
	sigv4_result_free(&res);
	return ok;
}

static struct fobj *find(const char *key)
{
	int i;

	for (i = 0; i < F.nobj; i++)
		if (!strcmp(F.obj[i].key, key))
			return &F.obj[i];
	return NULL;
}

static struct fobj *store(const char *key, const void *p, size_t n)
{
	struct fobj *o = find(key);
	char hex[40];

	if (!o) {
		o = &F.obj[F.nobj++];
		snprintf(o->key, sizeof(o->key), "%s", key);
	}
	free(o->data);
	o->data = malloc(n + 1);
	memcpy(o->data, p, n);
	o->len = n;
	md5hex(p, n, hex);
	snprintf(o->etag, sizeof(o->etag), "\"%s\"", hex);
	F.clock += 60;
	o->mtime = F.clock;
	return o;
}

static int cmp_obj(const void *a, const void *b)
{
	return strcmp(((const struct fobj *)a)->key, ((const struct fobj *)b)->key);
}

/* A body cut in the middle: the connection closes after half of it. */
struct slice {
	const char *p;
	size_t len;
};

static ssize_t short_body(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct slice *s = cls;

	if (pos >= s->len / 2)
		return MHD_CONTENT_READER_END_WITH_ERROR;	/* drop it */
	if (max > s->len / 2 - pos)
		max = s->len / 2 - pos;
	memcpy(buf, s->p + pos, max);
	return (ssize_t)max;
}

static enum MHD_Result do_get(struct MHD_Connection *c, struct fobj *o,
			      bool head)
{
	const char *range = hdr(c, "Range"), *im = hdr(c, "If-Match");
	unsigned long long a, b;
	char cr[96];

	if (im && !F.ignore_if_match && strcmp(im, o->etag))
		return s3err(c, 412, "PreconditionFailed",
			     "At least one of the pre-conditions you specified did not hold");
	if (head && F.fail_head) {
		F.fail_head--;
		return reply(c, 403, "", 0, NULL, NULL);
	}
	if (head && hdr(c, "If-None-Match") && !F.ignore_if_none_match &&
	    !strcmp(hdr(c, "If-None-Match"), o->etag))
		return reply(c, 304, "", 0, o->etag, NULL);
	if (head)
		return reply_obj(c, 200, o->data, o->len, o,
				 F.head_etag ? F.head_etag : o->etag, NULL);
	if (!range || F.ignore_range)
		return reply_obj(c, 200, o->data, o->len, o, o->etag, NULL);
	if (sscanf(range, "bytes=%llu-%llu", &a, &b) != 2 || a > b ||
	    a >= o->len)
		return s3err(c, 416, "InvalidRange", "bad range");
	if (b >= o->len)
		b = o->len - 1;
	snprintf(cr, sizeof(cr), "bytes %llu-%llu/%zu", a, b, o->len);
	if (F.reset_body) {
		struct slice *sl = malloc(sizeof(*sl));
		struct MHD_Response *r;
		enum MHD_Result ret;

		F.reset_body--;
		sl->p = o->data + a;
		sl->len = b - a + 1;
		r = MHD_create_response_from_callback(sl->len, 1024, short_body,
						      sl, free);
		MHD_add_response_header(r, "ETag", o->etag);
		MHD_add_response_header(r, "Content-Range", cr);
		ret = MHD_queue_response(c, 206, r);
		MHD_destroy_response(r);
		return ret;
	}
	return reply_obj(c, 206, o->data + a, b - a + 1, o, o->etag, cr);
}

static const char *arg(struct MHD_Connection *c, const char *name)
{
	return MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, name);
}

static bool has_arg(struct MHD_Connection *c, const char *name)
{
	return MHD_lookup_connection_value_n(c, MHD_GET_ARGUMENT_KIND, name,
					     strlen(name), NULL, NULL) == MHD_YES;
}

/* ListObjectsV2, two keys a page; tokens with characters to encode. */
static enum MHD_Result do_list(struct MHD_Connection *c)
{
	const char *prefix = arg(c, "prefix"), *tok = arg(c, "continuation-token");
	char *b = NULL;
	size_t bl = 0;
	FILE *f = open_memstream(&b, &bl);
	int i, start = 0, n = 0, last = -1;
	enum MHD_Result ret;

	if (!arg(c, "list-type") || strcmp(arg(c, "list-type"), "2"))
		return s3err(c, 400, "InvalidArgument", "list-type");
	if (tok && sscanf(tok, "tok/%d+=", &start) != 1)
		return s3err(c, 400, "InvalidArgument", "token");
	qsort(F.obj, F.nobj, sizeof(F.obj[0]), cmp_obj);
	fprintf(f, "<ListBucketResult xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">");
	for (i = start; i < F.nobj && n < 2; i++) {
		if (prefix && strncmp(F.obj[i].key, prefix, strlen(prefix)))
			continue;
		fprintf(f, "<Contents><Key>%s</Key><Size>%zu</Size><ETag>&quot;%.32s&quot;</ETag></Contents>",
			F.obj[i].key, F.obj[i].len, F.obj[i].etag + 1);
		n++;
		last = i;
	}
	for (i = last + 1; i < F.nobj; i++)
		if (!prefix || !strncmp(F.obj[i].key, prefix, strlen(prefix)))
			break;
	if (last >= 0 && i < F.nobj)
		fprintf(f, "<IsTruncated>true</IsTruncated><NextContinuationToken>tok/%d+=</NextContinuationToken>",
			i);
	else
		fprintf(f, "<IsTruncated>false</IsTruncated>");
	fprintf(f, "</ListBucketResult>");
	fclose(f);
	ret = reply(c, 200, b, bl, NULL, NULL);
	free(b);
	return ret;
}

static enum MHD_Result do_mpu(struct MHD_Connection *c, const char *method,
			      const char *key, struct rq *r)
{
	char b[1024], etag[40], want[160];
	const char *pn = arg(c, "partNumber"), *id = arg(c, "uploadId");
	struct fobj *o;
	int i, np = 0;

	if (!strcmp(method, "POST") && has_arg(c, "uploads")) {
		F.upload_open = true;
		snprintf(b, sizeof(b),
			 "<InitiateMultipartUploadResult><Bucket>bkt</Bucket><Key>%.200s</Key>"
			 "<UploadId>%s</UploadId></InitiateMultipartUploadResult>",
			 key, UPLOAD_ID);
		return reply(c, 200, b, strlen(b), NULL, NULL);
	}
	if (!strcmp(method, "GET") && has_arg(c, "uploads")) {
		snprintf(b, sizeof(b),
			 "<ListMultipartUploadsResult><IsTruncated>false</IsTruncated>%s%s%s</ListMultipartUploadsResult>",
			 F.upload_open ? "<Upload><Key>mp/obj</Key><UploadId>" : "",
			 F.upload_open ? UPLOAD_ID : "",
			 F.upload_open ? "</UploadId></Upload>" : "");
		return reply(c, 200, b, strlen(b), NULL, NULL);
	}
	if (!id || strcmp(id, UPLOAD_ID) || !F.upload_open)
		return s3err(c, 404, "NoSuchUpload", "no such upload");
	if (!strcmp(method, "PUT") && pn) {
		i = atoi(pn);
		if (i < 1 || i > MAXPART || !hdr(c, "Content-MD5"))
			return s3err(c, 400, "InvalidArgument", "part");
		free(F.part[i]);
		F.part[i] = malloc(r->len + 1);
		memcpy(F.part[i], r->body ? r->body : "", r->len);
		F.part_len[i] = r->len;
		md5hex(r->body ? r->body : "", r->len, etag);
		snprintf(F.part_etag[i], sizeof(F.part_etag[i]), "\"%s\"", etag);
		return reply(c, 200, "", 0, F.part_etag[i], NULL);
	}
	if (!strcmp(method, "DELETE")) {
		F.upload_open = false;
		return reply(c, 204, "", 0, NULL, NULL);
	}
	if (!strcmp(method, "POST")) {
		char *all;
		size_t tot = 0, off = 0;

		if (F.complete_error)
			return s3err(c, 200, "InternalError",
				     "We encountered an internal error. Please try again.");
		for (i = 1; i <= MAXPART && F.part[i]; i++) {
			snprintf(want, sizeof(want),
				 "<Part><PartNumber>%d</PartNumber><ETag>%s</ETag></Part>",
				 i, F.part_etag[i]);
			if (!r->body || !strstr(r->body, want))
				return s3err(c, 400, "InvalidPart", want);
			tot += F.part_len[i];
			np++;
		}
		all = malloc(tot + 1);
		for (i = 1; i <= np; i++) {
			memcpy(all + off, F.part[i], F.part_len[i]);
			off += F.part_len[i];
		}
		o = store(key, all, tot);
		free(all);
		F.upload_open = false;
		for (i = 1; i <= MAXPART; i++) {
			free(F.part[i]);
			F.part[i] = NULL;
		}
		if (F.complete_no_etag) {	/* as radosgw does */
			snprintf(b, sizeof(b),
				 "<CompleteMultipartUploadResult><Key>%.200s</Key><ETag></ETag>"
				 "</CompleteMultipartUploadResult>", key);
			return reply(c, 200, b, strlen(b), NULL, NULL);
		}
		/* the object's ETag is the one the answer gives, as in S3 */
		snprintf(o->etag, sizeof(o->etag), "\"feed-%d\"", np);
		snprintf(b, sizeof(b),
			 "<CompleteMultipartUploadResult><Key>%.200s</Key><ETag>&quot;feed-%d&quot;</ETag>"
			 "</CompleteMultipartUploadResult>", key, np);
		return reply(c, 200, b, strlen(b), NULL, NULL);
	}
	return s3err(c, 405, "MethodNotAllowed", method);
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c,
			       const char *url, const char *method,
			       const char *version, const char *upload_data,
			       size_t *upload_data_size, void **con_cls)
{
	struct rq *r = *con_cls;
	const char *host = hdr(c, "Host"), *q, *sha;
	char path[1100], hex[65], *enc, raw_path[3300];
	const char *key;
	struct fobj *o;
	enum MHD_Result ret;

	if (!r->started) {	/* headers only: the body (if any) follows */
		r->started = true;
		return MHD_YES;
	}
	if (*upload_data_size) {
		r->body = realloc(r->body, r->len + *upload_data_size + 1);
		memcpy(r->body + r->len, upload_data, *upload_data_size);
		r->len += *upload_data_size;
		r->body[r->len] = '\0';
		*upload_data_size = 0;
		return MHD_YES;
	}
	pthread_mutex_lock(&F.lock);
	F.requests++;
	snprintf(F.host, sizeof(F.host), "%s", host ? host : "");
	snprintf(F.token, sizeof(F.token), "%s",
		 hdr(c, "x-amz-security-token") ? hdr(c, "x-amz-security-token") : "");
	if (F.sleep_ms)
		usleep(F.sleep_ms * 1000);
	/* the request-target: the path as sigv4_uri_encode() has it */
	q = strchr(r->raw, '?');
	snprintf(raw_path, sizeof(raw_path), "%.*s",
		 (int)(q ? q - r->raw : (long)strlen(r->raw)), r->raw);
	snprintf(F.last_path, sizeof(F.last_path), "%.500s", raw_path);
	q = q ? q + 1 : NULL;
	snprintf(F.last_query, sizeof(F.last_query), "%s", q ? q : "");
	enc = sigv4_uri_encode(url, strlen(url), true);
	if (strcmp(enc, raw_path))
		F.bad_wire++;
	free(enc);
	if (!sig_ok(c, method, url, q)) {
		F.bad_sigs++;
		ret = s3err(c, 403, "SignatureDoesNotMatch",
			    "The request signature we calculated does not match the signature you provided.");
		goto out;
	}
	sha = hdr(c, "x-amz-content-sha256");
	sigv4_sha256_hex(r->body ? r->body : "", r->len, hex);
	if (r->len)
		snprintf(F.last_sha, sizeof(F.last_sha), "%s", sha);
	if (strcmp(sha, SIGV4_UNSIGNED_PAYLOAD) && strcmp(sha, hex)) {
		F.bad_hash++;
		ret = s3err(c, 400, "XAmzContentSHA256Mismatch", "hash");
		goto out;
	}
	if (hdr(c, "Content-MD5")) {
		char b64[32];

		md5b64(r->body ? r->body : "", r->len, b64);
		if (strcmp(b64, hdr(c, "Content-MD5"))) {
			F.bad_md5++;
			ret = s3err(c, 400, "BadDigest", "md5");
			goto out;
		}
	}
	if (F.fail_n) {
		F.fail_n--;
		ret = s3err(c, F.fail_status, F.fail_code, "scripted");
		goto out;
	}
	if (F.fail_503) {
		F.fail_503--;
		if (F.retry_after || F.retry_after_raw) {
			struct MHD_Response *rs;
			char ra[32];

			snprintf(ra, sizeof(ra), "%s", F.retry_after_raw ? : "");
			if (!F.retry_after_raw)
				snprintf(ra, sizeof(ra), "%u", F.retry_after);
			rs = MHD_create_response_from_buffer(0, (void *)"",
							     MHD_RESPMEM_PERSISTENT);
			MHD_add_response_header(rs, "Retry-After", ra);
			ret = MHD_queue_response(c, 503, rs);
			MHD_destroy_response(rs);
			goto out;
		}
		ret = s3err(c, 503, "SlowDown", "Please reduce your request rate.");
		goto out;
	}
	if (F.fail_429) {
		F.fail_429--;
		ret = reply(c, 429, "", 0, NULL, NULL);
		goto out;
	}
	/* bucket: from a virtual host name, else the first path segment */
	if (host && !strncmp(host, BKT ".", 4)) {
		snprintf(path, sizeof(path), "%s", url + 1);
	} else {
		if (strncmp(url, "/" BKT, 4) || (url[4] && url[4] != '/')) {
			ret = s3err(c, 404, "NoSuchBucket", url);
			goto out;
		}
		snprintf(path, sizeof(path), "%s", url[4] ? url + 5 : "");
	}
	key = path;
	if (has_arg(c, "uploads") || has_arg(c, "uploadId")) {
		ret = do_mpu(c, method, key, r);
		goto out;
	}
	if (!*key && !strcmp(method, "GET")) {
		ret = do_list(c);
		goto out;
	}
	o = find(key);
	if (!strcmp(method, "PUT")) {
		o = store(key, r->body ? r->body : "", r->len);
		ret = reply(c, 200, "", 0, o->etag, NULL);
	} else if (!strcmp(method, "DELETE")) {
		if (o)
			o->key[0] = '\0';
		ret = reply(c, 204, "", 0, NULL, NULL);
	} else if (!o) {
		if (!strcmp(method, "HEAD"))
			ret = reply(c, 404, "", 0, NULL, NULL);
		else
			ret = s3err(c, 404, "NoSuchKey", "The specified key does not exist.");
	} else {
		ret = do_get(c, o, !strcmp(method, "HEAD"));
	}
out:
	pthread_mutex_unlock(&F.lock);
	return ret;
}

static void fake_start(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	const union MHD_DaemonInfo *di;

	memset(&F, 0, sizeof(F));
	F.clock = 1764547200;	/* 2025-12-01T00:00:00Z */
	pthread_mutex_init(&F.lock, NULL);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	F.d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD,
			       0, NULL, NULL, handler, NULL,
			       MHD_OPTION_SOCK_ADDR, &sa,
			       MHD_OPTION_URI_LOG_CALLBACK, uri_log, NULL,
			       MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
			       MHD_OPTION_NOTIFY_CONNECTION, conn_note, NULL,
			       MHD_OPTION_END);
	if (!F.d)
		abort();
	di = MHD_get_daemon_info(F.d, MHD_DAEMON_INFO_BIND_PORT);
	F.port = di->port;
}

static void fake_stop(void)
{
	int i;

	MHD_stop_daemon(F.d);
	for (i = 0; i < MAXOBJ; i++)
		free(F.obj[i].data);
	for (i = 0; i <= MAXPART; i++)
		free(F.part[i]);
}

/*
 * Tiny waits: a test with retries takes milliseconds.  The budget and the
 * request timeout are generous instead: on a loaded host (make check beside
 * two TCG guests) an 8 MiB part to the fake server took over 5 s, and a
 * timeout there failed egress_put_and_multipart, not the code under test.
 */
static const struct retry_policy fast = {
	.max_attempts = 4, .base_ms = 1, .cap_ms = 5, .budget_ms = 60000,
};

/* The next clients' backend sign_payload (put_payload_signing). */
static bool sign_payload;

static struct hcs3 *client(const char *secret, enum hc_addressing a,
			   const char *resolve, const char *token)
{
	struct hc_backend b = { .type = HC_BACKEND_S3, .addressing = a,
				.sign_payload = sign_payload };
	struct hc_creds cr = { 0 };
	struct hcs3_opts o = { .timeout_connect = 10, .timeout_request = 20,
			       .retry = &fast, .resolve = resolve };
	struct hcs3 *c = NULL;
	char err[256];

	snprintf(b.endpoint, sizeof(b.endpoint), "http://%s:%u",
		 a == HC_ADDR_VIRTUAL ? "s3.test" : "127.0.0.1", F.port);
	strcpy(b.region, "us-east-1");
	strcpy(cr.access_key, AK);
	strcpy(cr.secret_key, secret);
	if (token)
		strcpy(cr.session_token, token);
	if (hcs3_new(&b, &cr, &o, &c, err, sizeof(err)))
		fprintf(stderr, "hcs3_new: %s\n", err);
	return c;
}

static const char data[] = "0123456789abcdefghijklmnopqrstuvwxyz";

FIXTURE(s3)
{
	struct hcs3 *c;
	char err[512];
};

FIXTURE_SETUP(s3)
{
	fake_start();
	store("dir/obj one+x", data, strlen(data));
	self->c = client(SK, HC_ADDR_PATH, NULL, NULL);
	ASSERT_NE(NULL, self->c);
}

FIXTURE_TEARDOWN(s3)
{
	hcs3_free(self->c);
	fake_stop();
}

TEST_F(s3, head_and_ranges)
{
	struct hcs3_object o;
	struct hcs3_stats st;
	char *buf = malloc(5), *whole = malloc(strlen(data));

	ASSERT_EQ(0, hcs3_head(self->c, BKT, "dir/obj one+x", &o, self->err,
			       sizeof(self->err))) TH_LOG("%s", self->err);
	EXPECT_EQ(strlen(data), o.size);
	EXPECT_STREQ(find("dir/obj one+x")->etag, o.etag);
	ASSERT_EQ(0, hcs3_get_range(self->c, BKT, "dir/obj one+x", 3, 5, o.etag,
				    buf, self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	EXPECT_EQ(0, memcmp(buf, "34567", 5));
	EXPECT_STREQ("/bkt/dir/obj%20one%2Bx", F.last_path);
	/* the last bytes, then the whole object */
	ASSERT_EQ(0, hcs3_get_range(self->c, BKT, "dir/obj one+x", 31, 5, NULL,
				    buf, self->err, sizeof(self->err)));
	EXPECT_EQ(0, memcmp(buf, "vwxyz", 5));
	ASSERT_EQ(0, hcs3_get_range(self->c, BKT, "dir/obj one+x", 0, strlen(data),
				    NULL, whole, self->err, sizeof(self->err)));
	EXPECT_EQ(0, memcmp(whole, data, strlen(data)));
	/* len 0: nothing sent */
	hcs3_get_stats(self->c, &st);
	EXPECT_EQ(0, hcs3_get_range(self->c, BKT, "dir/obj one+x", 0, 0, NULL,
				    buf, self->err, sizeof(self->err)));
	EXPECT_EQ(4, F.requests);
	/* past the end: the server says 416 */
	EXPECT_EQ(-EIO, hcs3_get_range(self->c, BKT, "dir/obj one+x", 100, 5,
				       NULL, buf, self->err, sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "S3 InvalidRange")) TH_LOG("%s", self->err);
	/* all of it kept one connection, and every wire path was canonical */
	hcs3_get_stats(self->c, &st);
	EXPECT_EQ(1, st.connects);
	EXPECT_EQ(1, F.connections);
	EXPECT_EQ(5, st.requests);
	EXPECT_EQ(0, st.retries);
	EXPECT_EQ(0, F.bad_sigs);
	EXPECT_EQ(0, F.bad_wire);
	EXPECT_GE(st.bytes_in, 5 + 5 + strlen(data));
	free(buf);
	free(whole);
}

/* What the receive hook saw: calls, and the bytes its buffer held then. */
struct recv_seen {
	unsigned int calls;
	const void *ptr;
	char first[6];
};

static void recv_hook(void *arg, const void *ptr)
{
	struct recv_seen *r = arg;

	r->calls++;
	r->ptr = ptr;
	memcpy(r->first, ptr, 5);
}

/*
 * hcs3_set_recv_hook(): called once per body received into the caller's
 * buffer, with libcurl's buffer (never the caller's) holding its first
 * bytes; not for a HEAD, nor after it is cleared.
 */
TEST_F(s3, recv_hook_sees_libcurls_buffer)
{
	struct recv_seen seen = { 0 };
	struct hcs3_object o;
	char *buf = malloc(5), *whole = malloc(strlen(data));

	hcs3_set_recv_hook(self->c, recv_hook, &seen);
	ASSERT_EQ(0, hcs3_head(self->c, BKT, "dir/obj one+x", &o, self->err,
			       sizeof(self->err))) TH_LOG("%s", self->err);
	EXPECT_EQ(0, seen.calls);
	ASSERT_EQ(0, hcs3_get_range(self->c, BKT, "dir/obj one+x", 3, 5, NULL,
				    buf, self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	EXPECT_EQ(1, seen.calls);
	EXPECT_STREQ("34567", seen.first);
	EXPECT_TRUE((const char *)seen.ptr < buf || (const char *)seen.ptr >= buf + 5);
	ASSERT_EQ(0, hcs3_get_range(self->c, BKT, "dir/obj one+x", 0, strlen(data),
				    NULL, whole, self->err, sizeof(self->err)));
	EXPECT_EQ(2, seen.calls);
	EXPECT_EQ(0, memcmp(seen.first, data, 5));
	hcs3_set_recv_hook(self->c, NULL, NULL);
	ASSERT_EQ(0, hcs3_get_range(self->c, BKT, "dir/obj one+x", 0, 5, NULL,
				    buf, self->err, sizeof(self->err)));
	EXPECT_EQ(2, seen.calls);
	free(buf);
	free(whole);
}

/*
 * HEAD's Last-Modified (HTTP date, RFC 9110 5.6.7) in seconds: the
 * IMF-fixdate S3 sends, the obsolete RFC 850 and asctime() forms a
 * recipient must read too; an unreadable one, one before 1970 and none
 * at all are 0 (unknown), never a failure.
 */
/* A conditional HEAD (revalidation, ingest.md): 304 while the ETag holds. */
TEST_F(s3, head_if_none_match)
{
	struct hcs3_object o, cur;

	ASSERT_EQ(0, hcs3_head(self->c, BKT, "dir/obj one+x", &cur, self->err,
			       sizeof(self->err))) TH_LOG("%s", self->err);
	EXPECT_EQ(HCS3_NOT_MODIFIED,
		  hcs3_head_if(self->c, BKT, "dir/obj one+x", cur.etag, &o,
			       self->err, sizeof(self->err))) TH_LOG("%s", self->err);
	EXPECT_EQ(0, o.size);	/* nothing copied from a 304 */
	/* another version: 200 with its ETag and size */
	EXPECT_EQ(0, hcs3_head_if(self->c, BKT, "dir/obj one+x", "\"old\"", &o,
				  self->err, sizeof(self->err))) TH_LOG("%s", self->err);
	EXPECT_STREQ(cur.etag, o.etag);
	EXPECT_EQ(cur.size, o.size);
	/* a server that ignores the header: 200, the same ETag */
	F.ignore_if_none_match = true;
	EXPECT_EQ(0, hcs3_head_if(self->c, BKT, "dir/obj one+x", cur.etag, &o,
				  self->err, sizeof(self->err)));
	EXPECT_STREQ(cur.etag, o.etag);
	F.ignore_if_none_match = false;
	/* gone: 404 as a plain HEAD's */
	EXPECT_EQ(-ENOENT, hcs3_head_if(self->c, BKT, "no/such", cur.etag, &o,
					self->err, sizeof(self->err)));
	/* an ETag that would split the header is refused, nothing sent */
	EXPECT_EQ(-EINVAL, hcs3_head_if(self->c, BKT, "dir/obj one+x",
					"\"a\"\r\nX-Evil: 1", &o, self->err,
					sizeof(self->err)));
	EXPECT_EQ(-EINVAL, hcs3_head_if(self->c, BKT, "dir/obj one+x", "", &o,
					self->err, sizeof(self->err)));
}

TEST_F(s3, head_last_modified)
{
	static const struct {
		const char *hdr;
		int64_t want;
	} cases[] = {
		{ "Mon, 01 Dec 2025 00:00:00 GMT", 1764547200 },
		{ "Monday, 01-Dec-25 00:00:00 GMT", 1764547200 },
		{ "Mon Dec  1 00:00:00 2025", 1764547200 },
		{ "Fri, 31 Dec 9999 23:59:59 GMT", 253402300799LL },
		{ "Thu, 01 Jan 1970 00:00:01 GMT", 1 },
		{ "Wed, 31 Dec 1969 23:59:59 GMT", 0 },
		{ "yesterday", 0 },
		{ "Mon, 32 Dec 2025 00:00:00 GMT", 0 },
	};
	struct hcs3_object o;
	size_t i;

	/* the fake's own time of the object, as an IMF-fixdate */
	ASSERT_EQ(0, hcs3_head(self->c, BKT, "dir/obj one+x", &o, self->err,
			       sizeof(self->err))) TH_LOG("%s", self->err);
	EXPECT_EQ(1764547200 + 60, o.mtime);
	EXPECT_EQ(find("dir/obj one+x")->mtime, o.mtime);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		F.last_modified = cases[i].hdr;
		o.mtime = -5;
		ASSERT_EQ(0, hcs3_head(self->c, BKT, "dir/obj one+x", &o,
				       self->err, sizeof(self->err)))
			TH_LOG("%s: %s", cases[i].hdr, self->err);
		EXPECT_EQ(cases[i].want, o.mtime) TH_LOG("%s", cases[i].hdr);
		EXPECT_EQ(strlen(data), o.size);
	}
	F.last_modified = NULL;
	F.no_last_modified = true;
	ASSERT_EQ(0, hcs3_head(self->c, BKT, "dir/obj one+x", &o, self->err,
			       sizeof(self->err)));
	EXPECT_EQ(0, o.mtime);
	/* a failed HEAD leaves nothing behind */
	F.no_last_modified = false;
	o.mtime = -5;
	EXPECT_EQ(-ENOENT, hcs3_head(self->c, BKT, "no/such", &o, self->err,
				     sizeof(self->err)));
	EXPECT_EQ(0, o.mtime);
}

TEST_F(s3, range_ignored_or_too_long)
{
	char *buf = malloc(5), *whole = malloc(strlen(data));

	F.ignore_range = true;
	/* 200 with the whole object for a range from 0 that covers it: fine */
	EXPECT_EQ(0, hcs3_get_range(self->c, BKT, "dir/obj one+x", 0, strlen(data),
				    NULL, whole, self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	/* 200 with more than asked: -EIO, and never past the buffer (ASan) */
	EXPECT_EQ(-EIO, hcs3_get_range(self->c, BKT, "dir/obj one+x", 0, 5,
				       NULL, buf, self->err, sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "more bytes")) TH_LOG("%s", self->err);
	/* 200 to a range not starting at 0 */
	EXPECT_EQ(-EIO, hcs3_get_range(self->c, BKT, "dir/obj one+x", 3, 5,
				       NULL, buf, self->err, sizeof(self->err)));
	free(buf);
	free(whole);
}

/*
 * hcs3_get_first(): one GET gives the first bytes and the version (size,
 * ETag, Last-Modified) as a HEAD would; the whole of a small object; a
 * miss with the error document; -ERANGE when the answer cannot say (an
 * empty object, a Range ignored for an object larger than the buffer).
 */
TEST_F(s3, get_first)
{
	struct hcs3_object o, h;
	char buf[64];
	size_t got = 99;

	ASSERT_EQ(0, hcs3_head(self->c, BKT, "dir/obj one+x", &h, self->err,
			       sizeof(self->err)));
	F.requests = 0;
	/* a part of a larger object: its size from Content-Range */
	ASSERT_EQ(0, hcs3_get_first(self->c, BKT, "dir/obj one+x", 10, buf,
				    &got, &o, self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	EXPECT_EQ(10, got);
	EXPECT_EQ(0, memcmp(buf, data, 10));
	EXPECT_EQ(strlen(data), o.size);
	EXPECT_STREQ(h.etag, o.etag);
	EXPECT_EQ(h.mtime, o.mtime);
	EXPECT_NE(0, o.mtime);
	/* the whole object, buffer larger than it */
	ASSERT_EQ(0, hcs3_get_first(self->c, BKT, "dir/obj one+x", sizeof(buf),
				    buf, &got, &o, self->err, sizeof(self->err)));
	EXPECT_EQ(strlen(data), got);
	EXPECT_EQ(strlen(data), o.size);
	EXPECT_EQ(0, memcmp(buf, data, strlen(data)));
	EXPECT_EQ(2, F.requests);	/* one request each, no HEAD */
	/* a Range ignored: the whole object if it fits, else -ERANGE */
	F.ignore_range = true;
	ASSERT_EQ(0, hcs3_get_first(self->c, BKT, "dir/obj one+x", sizeof(buf),
				    buf, &got, &o, self->err, sizeof(self->err)));
	EXPECT_EQ(strlen(data), got);
	EXPECT_EQ(strlen(data), o.size);
	EXPECT_EQ(-ERANGE, hcs3_get_first(self->c, BKT, "dir/obj one+x", 5, buf,
					  &got, &o, self->err, sizeof(self->err)));
	EXPECT_EQ(0, got);
	EXPECT_EQ(0, o.size);
	F.ignore_range = false;
	/* an empty object: 416, -ERANGE (the caller HEADs) */
	store("empty", "", 0);
	EXPECT_EQ(-ERANGE, hcs3_get_first(self->c, BKT, "empty", sizeof(buf),
					  buf, &got, &o, self->err,
					  sizeof(self->err)));
	EXPECT_EQ(0, got);
	/* a miss: ENOENT with S3's error document, from the one request */
	F.requests = 0;
	EXPECT_EQ(-ENOENT, hcs3_get_first(self->c, BKT, "nope", sizeof(buf),
					  buf, &got, &o, self->err,
					  sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "S3 NoSuchKey")) TH_LOG("%s", self->err);
	EXPECT_EQ(1, F.requests);
	EXPECT_EQ(-EINVAL, hcs3_get_first(self->c, BKT, "k", 0, buf, &got, &o,
					  self->err, sizeof(self->err)));
	EXPECT_EQ(0, F.bad_sigs);
}

TEST_F(s3, not_found_and_forbidden)
{
	struct hcs3_object o;
	struct hcs3 *bad;
	char buf[4];

	EXPECT_EQ(-ENOENT, hcs3_head(self->c, BKT, "nope", &o, self->err,
				     sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "HTTP 404")) TH_LOG("%s", self->err);
	EXPECT_EQ(-ENOENT, hcs3_get_range(self->c, BKT, "nope", 0, 4, NULL, buf,
					  self->err, sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "S3 NoSuchKey: The specified key does not exist. (HTTP 404, GET http://127.0.0.1:"))
		TH_LOG("%s", self->err);
	EXPECT_EQ(-ENOENT, hcs3_get_range(self->c, "otherbucket", "k", 0, 4, NULL,
					  buf, self->err, sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "NoSuchBucket")) TH_LOG("%s", self->err);
	EXPECT_EQ(0, F.bad_sigs);

	/* a wrong secret is caught by the server's own signature check */
	bad = client("wrong-secret", HC_ADDR_PATH, NULL, NULL);
	ASSERT_NE(NULL, bad);
	EXPECT_EQ(-EACCES, hcs3_get_range(bad, BKT, "dir/obj one+x", 0, 4, NULL,
					  buf, self->err, sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "S3 SignatureDoesNotMatch: The request signature"))
		TH_LOG("%s", self->err);
	EXPECT_EQ(-EACCES, hcs3_head(bad, BKT, "dir/obj one+x", &o, self->err,
				     sizeof(self->err)));
	EXPECT_EQ(2, F.bad_sigs);
	hcs3_free(bad);

	EXPECT_EQ(-EINVAL, hcs3_head(self->c, "", "k", &o, self->err, sizeof(self->err)));
	EXPECT_EQ(-EINVAL, hcs3_head(self->c, BKT, "", &o, self->err, sizeof(self->err)));
}

TEST_F(s3, session_token)
{
	struct hcs3 *t = client(SK, HC_ADDR_PATH, NULL, "FQoGZXIvYXdzE/tok+en=");
	struct hcs3_object o;

	ASSERT_NE(NULL, t);
	ASSERT_EQ(0, hcs3_head(t, BKT, "dir/obj one+x", &o, self->err,
			       sizeof(self->err))) TH_LOG("%s", self->err);
	EXPECT_STREQ("FQoGZXIvYXdzE/tok+en=", F.token);
	hcs3_free(t);
}

TEST_F(s3, retries_503_429_reset)
{
	struct hcs3_stats st;
	struct hcs3_object o;
	char buf[10];

	F.fail_503 = 2;
	ASSERT_EQ(0, hcs3_head(self->c, BKT, "dir/obj one+x", &o, self->err,
			       sizeof(self->err))) TH_LOG("%s", self->err);
	hcs3_get_stats(self->c, &st);
	EXPECT_EQ(3, st.requests);
	EXPECT_EQ(2, st.retries);

	F.fail_429 = 1;
	ASSERT_EQ(0, hcs3_get_range(self->c, BKT, "dir/obj one+x", 10, 10, NULL,
				    buf, self->err, sizeof(self->err)));
	EXPECT_EQ(0, memcmp(buf, "abcdefghij", 10));
	hcs3_get_stats(self->c, &st);
	EXPECT_EQ(5, st.requests);
	EXPECT_EQ(3, st.retries);
	EXPECT_EQ(1, st.connects);

	/* the connection drops mid-body: the range starts over on a new one */
	F.reset_body = 1;
	memset(buf, 0, sizeof(buf));
	ASSERT_EQ(0, hcs3_get_range(self->c, BKT, "dir/obj one+x", 0, 10, NULL,
				    buf, self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	EXPECT_EQ(0, memcmp(buf, "0123456789", 10));
	hcs3_get_stats(self->c, &st);
	EXPECT_EQ(7, st.requests);
	EXPECT_EQ(4, st.retries);
	EXPECT_EQ(2, st.connects);
	EXPECT_EQ(2, F.connections);
}

/* A 503 with Retry-After: 1 is retried no sooner than a second later. */
TEST_F(s3, retry_after_honoured)
{
	struct timespec t0, t1;
	struct hcs3_object o;
	double secs;

	F.retry_after = 1;
	F.fail_503 = 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, hcs3_head(self->c, BKT, "dir/obj one+x", &o, self->err,
			       sizeof(self->err))) TH_LOG("%s", self->err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	F.retry_after = 0;
	secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	EXPECT_GE(secs, 0.99);
	EXPECT_EQ(0, hcs3_retry_after_ms(self->c));	/* the 200 had none */
}

/*
 * A Retry-After that is not delta-seconds (a sign, trailing text) is
 * ignored, as an HTTP-date is: "-5" was read by strtoul() as 2^64 - 5 and
 * capped, so a bad header made the client wait HCS3_RETRY_AFTER_MAX_S.
 */
TEST_F(s3, retry_after_malformed_ignored)
{
	static const char *const bad[] = { "-5", "+5", "5s", " " };
	struct timespec t0, t1;
	struct hcs3_object o;
	unsigned int i;
	double secs;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		F.retry_after_raw = bad[i];
		F.fail_503 = 1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		ASSERT_EQ(0, hcs3_head(self->c, BKT, "dir/obj one+x", &o,
				       self->err, sizeof(self->err)))
			TH_LOG("%s", self->err);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
		EXPECT_LT(secs, 5.0) TH_LOG("Retry-After \"%s\": %.1f s", bad[i], secs);
	}
	F.retry_after_raw = NULL;
}

TEST_F(s3, retry_budget)
{
	struct timespec t0, t1;
	struct hcs3_stats st;
	struct hcs3_object o;
	char buf[10];
	struct hcs3 *dead;
	int fd;
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	char res[64];

	clock_gettime(CLOCK_MONOTONIC, &t0);
	F.fail_503 = 100;
	/* still SlowDown after the retries: -EAGAIN, the caller backs off */
	EXPECT_EQ(-EAGAIN, hcs3_head(self->c, BKT, "dir/obj one+x", &o, self->err,
				     sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "after 4 attempts")) TH_LOG("%s", self->err);
	EXPECT_EQ(0, hcs3_retry_after_ms(self->c));
	hcs3_get_stats(self->c, &st);
	EXPECT_EQ(4, st.requests);
	EXPECT_EQ(3, st.retries);
	F.fail_503 = 0;
	F.reset_body = 100;
	EXPECT_EQ(-EIO, hcs3_get_range(self->c, BKT, "dir/obj one+x", 0, 10, NULL,
				       buf, self->err, sizeof(self->err)))
		TH_LOG("reset: %s", self->err);
	F.reset_body = 0;

	/* a port nobody listens on: refused, after the attempts */
	fd = socket(AF_INET, SOCK_STREAM, 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ASSERT_EQ(0, bind(fd, (struct sockaddr *)&sa, sizeof(sa)));
	getsockname(fd, (struct sockaddr *)&sa, &sl);
	close(fd);
	snprintf(res, sizeof(res), "bkt.s3.test:%u:127.0.0.1", ntohs(sa.sin_port));
	{
		unsigned short keep = F.port;

		F.port = ntohs(sa.sin_port);
		dead = client(SK, HC_ADDR_VIRTUAL, res, NULL);
		F.port = keep;
	}
	ASSERT_NE(NULL, dead);
	EXPECT_EQ(-ECONNREFUSED, hcs3_head(dead, BKT, "k", &o, self->err,
					   sizeof(self->err)))
		TH_LOG("refused: %s", self->err);
	hcs3_get_stats(dead, &st);
	EXPECT_EQ(4, st.requests);
	hcs3_free(dead);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	EXPECT_LT(t1.tv_sec - t0.tv_sec, 3);

}

TEST_F(s3, timeout)
{
	/* a request that outlives its timeout, once */
	static const struct retry_policy once = {
		.max_attempts = 1, .base_ms = 1, .cap_ms = 1,
		.budget_ms = 1,
	};
	struct hc_backend b = { .type = HC_BACKEND_S3 };
	struct hc_creds cr = { 0 };
	struct hcs3_opts op = { .timeout_request = 1, .retry = &once };
	struct hcs3 *slow;
	struct hcs3_object o;

	snprintf(b.endpoint, sizeof(b.endpoint), "http://127.0.0.1:%u/",
		 F.port);
	strcpy(b.region, "us-east-1");
	strcpy(cr.access_key, AK);
	strcpy(cr.secret_key, SK);
	ASSERT_EQ(0, hcs3_new(&b, &cr, &op, &slow, self->err,
			      sizeof(self->err)));
	F.sleep_ms = 1300;
	EXPECT_EQ(-ETIMEDOUT, hcs3_head(slow, BKT, "dir/obj one+x", &o,
					self->err, sizeof(self->err)))
		TH_LOG("timeout: %s", self->err);
	F.sleep_ms = 0;
	hcs3_free(slow);
}

TEST_F(s3, if_match_and_etag_change)
{
	struct hcs3_object o;
	char buf[5];

	ASSERT_EQ(0, hcs3_head(self->c, BKT, "dir/obj one+x", &o, self->err,
			       sizeof(self->err)));
	/* the object changes between HEAD and GET */
	pthread_mutex_lock(&F.lock);
	store("dir/obj one+x", "ZYXWVUTSRQPONMLKJIHGFEDCBA9876543210", 36);
	pthread_mutex_unlock(&F.lock);
	EXPECT_EQ(-ESTALE, hcs3_get_range(self->c, BKT, "dir/obj one+x", 0, 5,
					  o.etag, buf, self->err, sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "PreconditionFailed")) TH_LOG("%s", self->err);
	/* a server that ignores If-Match: the response's ETag gives it away */
	F.ignore_if_match = true;
	EXPECT_EQ(-ESTALE, hcs3_get_range(self->c, BKT, "dir/obj one+x", 0, 5,
					  o.etag, buf, self->err, sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "the object changed")) TH_LOG("%s", self->err);
	EXPECT_EQ(0, hcs3_get_range(self->c, BKT, "dir/obj one+x", 0, 5,
				    find("dir/obj one+x")->etag, buf, self->err,
				    sizeof(self->err)));
	EXPECT_EQ(0, memcmp(buf, "ZYXWV", 5));
}

struct seen {
	char keys[16][64];
	int n;
	int stop_at;
};

static int list_cb(const struct s3xml_object *o, void *arg)
{
	struct seen *s = arg;

	if (s->n < 16)
		snprintf(s->keys[s->n], sizeof(s->keys[0]), "%s", o->key);
	s->n++;
	return s->n == s->stop_at ? 42 : 0;
}

TEST_F(s3, list_pages)
{
	static const char *keys[] = { "p/e", "p/a", "q/x", "p/c", "p/b", "p/d" };
	struct seen s = { .n = 0 };
	struct hcs3_stats st;
	int i;

	for (i = 0; i < 6; i++)
		store(keys[i], "x", 1);
	ASSERT_EQ(0, hcs3_list(self->c, BKT, "p/", list_cb, &s, self->err,
			       sizeof(self->err))) TH_LOG("%s", self->err);
	ASSERT_EQ(5, s.n);
	EXPECT_STREQ("p/a", s.keys[0]);
	EXPECT_STREQ("p/b", s.keys[1]);
	EXPECT_STREQ("p/c", s.keys[2]);
	EXPECT_STREQ("p/d", s.keys[3]);
	EXPECT_STREQ("p/e", s.keys[4]);
	hcs3_get_stats(self->c, &st);
	EXPECT_EQ(3, st.requests);	/* three pages */
	EXPECT_STREQ("continuation-token=tok%2F5%2B%3D&list-type=2&prefix=p%2F",
		     F.last_query);
	EXPECT_EQ(0, F.bad_sigs);
	/* the callback stops it */
	memset(&s, 0, sizeof(s));
	s.stop_at = 3;
	EXPECT_EQ(42, hcs3_list(self->c, BKT, "p/", list_cb, &s, self->err,
				sizeof(self->err)));
	EXPECT_EQ(3, s.n);
	/* everything */
	memset(&s, 0, sizeof(s));
	ASSERT_EQ(0, hcs3_list(self->c, BKT, "", list_cb, &s, self->err,
			       sizeof(self->err)));
	EXPECT_EQ(7, s.n);
}

TEST_F(s3, put_and_delete)
{
	static char big[300000];
	char etag[HCS3_ETAG_MAX + 1];
	struct hcs3_stats st;
	struct fobj *o;
	size_t i;

	for (i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 7 + (i >> 9));
	ASSERT_EQ(0, hcs3_put(self->c, BKT, "up/big ~file", big, sizeof(big), etag,
			      self->err, sizeof(self->err))) TH_LOG("%s", self->err);
	o = find("up/big ~file");
	ASSERT_NE(NULL, o);
	ASSERT_EQ(sizeof(big), o->len);
	EXPECT_EQ(0, memcmp(o->data, big, sizeof(big)));
	EXPECT_STREQ(o->etag, etag);
	EXPECT_EQ(0, F.bad_hash);
	EXPECT_EQ(0, F.bad_md5);
	hcs3_get_stats(self->c, &st);
	EXPECT_EQ(sizeof(big), st.bytes_out);
	/* an empty object */
	ASSERT_EQ(0, hcs3_put(self->c, BKT, "empty", "", 0, NULL, self->err,
			      sizeof(self->err))) TH_LOG("%s", self->err);
	ASSERT_NE(NULL, find("empty"));
	EXPECT_EQ(0, find("empty")->len);
	ASSERT_EQ(0, hcs3_delete(self->c, BKT, "up/big ~file", self->err,
				 sizeof(self->err)));
	EXPECT_EQ(NULL, find("up/big ~file"));
	/* deleting what is gone is fine; a missing bucket is not */
	EXPECT_EQ(0, hcs3_delete(self->c, BKT, "up/big ~file", self->err,
				 sizeof(self->err)));
	EXPECT_EQ(-ENOENT, hcs3_delete(self->c, "nobucket", "x", self->err,
				       sizeof(self->err)));
	EXPECT_EQ(0, F.bad_sigs);
}

static int upl_cb(const char *key, const char *id, void *arg)
{
	int *n = arg;

	(*n)++;
	return strcmp(key, "mp/obj") || strcmp(id, UPLOAD_ID) ? -1 : 0;
}

TEST_F(s3, multipart)
{
	char id[HCS3_UPLOAD_ID_MAX + 1], etags[3][HCS3_ETAG_MAX + 1];
	char etag[HCS3_ETAG_MAX + 1];
	static char p1[70000], p2[70000], p3[123];
	struct fobj *o;
	int n = 0;

	memset(p1, 'a', sizeof(p1));
	memset(p2, 'b', sizeof(p2));
	memset(p3, 'c', sizeof(p3));
	ASSERT_EQ(0, hcs3_mpu_create(self->c, BKT, "mp/obj", id, self->err,
				     sizeof(self->err))) TH_LOG("%s", self->err);
	EXPECT_STREQ(UPLOAD_ID, id);
	ASSERT_EQ(0, hcs3_mpu_list(self->c, BKT, "mp/", upl_cb, &n, self->err,
				   sizeof(self->err))) TH_LOG("%s", self->err);
	EXPECT_EQ(1, n);
	ASSERT_EQ(0, hcs3_mpu_part(self->c, BKT, "mp/obj", id, 1, p1, sizeof(p1),
				   etags[0], self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	ASSERT_EQ(0, hcs3_mpu_part(self->c, BKT, "mp/obj", id, 2, p2, sizeof(p2),
				   etags[1], self->err, sizeof(self->err)));
	F.fail_503 = 1;	/* a part retried */
	ASSERT_EQ(0, hcs3_mpu_part(self->c, BKT, "mp/obj", id, 3, p3, sizeof(p3),
				   etags[2], self->err, sizeof(self->err)));
	EXPECT_EQ(0, F.bad_md5);
	/* 200 with an <Error> body is an error */
	F.complete_error = true;
	EXPECT_EQ(-EIO, hcs3_mpu_complete(self->c, BKT, "mp/obj", id, 3, etags,
					  etag, self->err, sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "S3 InternalError")) TH_LOG("%s", self->err);
	F.complete_error = false;
	ASSERT_EQ(0, hcs3_mpu_complete(self->c, BKT, "mp/obj", id, 3, etags,
				       etag, self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	EXPECT_STREQ("\"feed-3\"", etag);
	o = find("mp/obj");
	ASSERT_NE(NULL, o);
	ASSERT_EQ(sizeof(p1) + sizeof(p2) + sizeof(p3), o->len);
	EXPECT_EQ(0, memcmp(o->data, p1, sizeof(p1)));
	EXPECT_EQ(0, memcmp(o->data + sizeof(p1), p2, sizeof(p2)));
	EXPECT_EQ(0, memcmp(o->data + sizeof(p1) + sizeof(p2), p3, sizeof(p3)));

	/* an empty <ETag> in the answer: the object's HEAD gives it */
	ASSERT_EQ(0, hcs3_mpu_create(self->c, BKT, "mp/obj", id, self->err,
				     sizeof(self->err)));
	ASSERT_EQ(0, hcs3_mpu_part(self->c, BKT, "mp/obj", id, 1, p3, sizeof(p3),
				   etags[0], self->err, sizeof(self->err)));
	F.complete_no_etag = true;
	ASSERT_EQ(0, hcs3_mpu_complete(self->c, BKT, "mp/obj", id, 1, etags,
				       etag, self->err, sizeof(self->err)))
		TH_LOG("%s", self->err);
	EXPECT_STREQ(find("mp/obj")->etag, etag);
	EXPECT_EQ(sizeof(p3), find("mp/obj")->len);

	/* abort: then the upload is gone */
	ASSERT_EQ(0, hcs3_mpu_create(self->c, BKT, "mp/obj", id, self->err,
				     sizeof(self->err)));
	ASSERT_EQ(0, hcs3_mpu_abort(self->c, BKT, "mp/obj", id, self->err,
				    sizeof(self->err))) TH_LOG("%s", self->err);
	n = 0;
	ASSERT_EQ(0, hcs3_mpu_list(self->c, BKT, "mp/", upl_cb, &n, self->err,
				   sizeof(self->err)));
	EXPECT_EQ(0, n);
	EXPECT_EQ(-ENOENT, hcs3_mpu_abort(self->c, BKT, "mp/obj", id, self->err,
					  sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "NoSuchUpload")) TH_LOG("%s", self->err);
	EXPECT_EQ(0, F.bad_sigs);
	EXPECT_EQ(0, F.bad_wire);
	EXPECT_EQ(0, F.bad_hash);
}

/*
 * The egress engine's S3 path (helper/egress.c) against the fake: a file
 * stands in for /dev/hypercache0.  A small object is one PUT; a large one
 * a multipart upload of 5 MiB parts by 3 workers, after aborting the
 * unfinished upload of the same key a "crash" left; a CRC mismatch aborts
 * the upload and publishes nothing.
 */
#define EG_MiB (1ULL << 20)

static void egress_obj(struct __test_metadata *_metadata, int fd,
		       const struct hc_extent *ext, int n, char *obj,
		       size_t size)
{
	size_t o = 0;

	for (size_t i = 0; i < size; i++)
		obj[i] = (char)(i * 7 + i / 4096);
	for (int i = 0; i < n && o < size; i++) {
		size_t len = ext[i].length < size - o ? ext[i].length : size - o;

		ASSERT_EQ((ssize_t)len, pwrite(fd, obj + o, len, ext[i].offset));
		o += len;
	}
}

TEST_F_TIMEOUT(s3, egress_put_and_multipart, 120)
{
	static const struct hc_extent ext[2] = {
		{ .offset = 12 * EG_MiB, .length = 8 * EG_MiB },
		{ .offset = 0, .length = 8 * EG_MiB },
	};
	char path[] = "/tmp/hc-egress-s3-XXXXXX";
	size_t big = 12 * EG_MiB + 5;
	char *obj = malloc(big);
	struct hcs3 *cl[3] = { self->c, client(SK, HC_ADDR_PATH, NULL, NULL),
			       client(SK, HC_ADDR_PATH, NULL, NULL) };
	struct hc_egress_result res;
	uint32_t crc;
	struct hc_egress e = {
		.ext = ext, .nr_ext = 2, .dev = path, .part_size = 4 * EG_MiB,
		.workers = 3, .crc = &crc,
	};
	struct fobj *o;
	int fd = mkstemp(path);

	ASSERT_GE(fd, 0);
	ASSERT_NE(NULL, obj);
	ASSERT_NE(NULL, cl[1]);
	ASSERT_NE(NULL, cl[2]);
	ASSERT_EQ(0, ftruncate(fd, 20 * EG_MiB));
	egress_obj(_metadata, fd, ext, 2, obj, big);

	/* 4 MiB + 1: bumped part size 5 MiB, so one PUT */
	e.size = 4 * EG_MiB + 1;
	crc = ~crc32_iscsi((unsigned char *)obj, (int)e.size, ~0U);
	ASSERT_EQ(0, hc_egress_s3(&e, cl, BKT, "mp/obj", &res, self->err,
				  sizeof(self->err))) TH_LOG("%s", self->err);
	EXPECT_FALSE(res.plan.multipart);
	o = find("mp/obj");
	ASSERT_NE(NULL, o);
	ASSERT_EQ(e.size, o->len);
	EXPECT_EQ(0, memcmp(o->data, obj, e.size));
	EXPECT_STREQ(o->etag, res.etag);
	/* its Last-Modified: the HEAD after the PUT */
	EXPECT_EQ(o->mtime, res.mtime);
	EXPECT_EQ(0, res.mtime_err) TH_LOG("%s", res.mtime_msg);

	/* 12 MiB + 5: parts of 5, 5 and 2 MiB + 5; a leftover upload first */
	F.upload_open = true;
	e.size = big;
	crc = ~crc32_iscsi((unsigned char *)obj, (int)big, ~0U);
	ASSERT_EQ(0, hc_egress_s3(&e, cl, BKT, "mp/obj", &res, self->err,
				  sizeof(self->err))) TH_LOG("%s", self->err);
	EXPECT_TRUE(res.plan.multipart);
	EXPECT_EQ(3, res.parts);
	EXPECT_EQ(1, res.aborted_leftovers);
	EXPECT_STREQ("\"feed-3\"", res.etag);
	EXPECT_EQ(crc, res.crc32c);
	o = find("mp/obj");
	ASSERT_NE(NULL, o);
	ASSERT_EQ(big, o->len);
	EXPECT_EQ(0, memcmp(o->data, obj, big));
	EXPECT_FALSE(F.upload_open);
	EXPECT_EQ(o->mtime, res.mtime);
	EXPECT_EQ(0, res.mtime_err) TH_LOG("%s", res.mtime_msg);

	/* a wrong CRC: aborted, the stored object unchanged */
	crc ^= 1;
	EXPECT_EQ(-EBADMSG, hc_egress_s3(&e, cl, BKT, "mp/other", &res,
					 self->err, sizeof(self->err)));
	EXPECT_FALSE(F.upload_open);
	EXPECT_EQ(NULL, find("mp/other"));
	/* the same for a single PUT */
	e.size = 100;
	EXPECT_EQ(-EBADMSG, hc_egress_s3(&e, cl, BKT, "mp/other", &res,
					 self->err, sizeof(self->err)));
	EXPECT_EQ(NULL, find("mp/other"));
	EXPECT_EQ(0, F.bad_sigs);
	EXPECT_EQ(0, F.bad_md5);

	hcs3_free(cl[1]);
	hcs3_free(cl[2]);
	close(fd);
	unlink(path);
	free(obj);
}

/*
 * An upload's Last-Modified is what a HEAD after it says, and only if that
 * HEAD shows the upload's ETag: another writer's version in between, a
 * HEAD that fails or one without Last-Modified leave it unknown (0, the
 * reason in mtime_err and mtime_msg) and the upload still succeeds.  The
 * HEAD takes a transfer slot as the PUT does.
 */
static int eg_slots;

static int eg_slot_get(void *arg)
{
	(void)arg;
	eg_slots++;
	return 0;
}

static void eg_slot_put(void *arg)
{
	(void)arg;
}

TEST_F(s3, egress_last_modified)
{
	static const struct hc_extent ext[1] = {
		{ .offset = 0, .length = EG_MiB },
	};
	char path[] = "/tmp/hc-egress-lm-XXXXXX";
	char obj[5000];
	struct hcs3 *cl[1] = { self->c };
	struct hc_egress_result res;
	struct hc_egress e = {
		.size = sizeof(obj), .ext = ext, .nr_ext = 1, .dev = path,
		.part_size = 4 * EG_MiB, .workers = 1,
		.slot_get = eg_slot_get, .slot_put = eg_slot_put,
	};
	int fd = mkstemp(path), requests;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, ftruncate(fd, EG_MiB));
	egress_obj(_metadata, fd, ext, 1, obj, sizeof(obj));

	/* one PUT and one HEAD, each on a slot */
	requests = F.requests;
	eg_slots = 0;
	ASSERT_EQ(0, hc_egress_s3(&e, cl, BKT, "lm/obj", &res, self->err,
				  sizeof(self->err))) TH_LOG("%s", self->err);
	EXPECT_EQ(find("lm/obj")->mtime, res.mtime);
	EXPECT_EQ(2, F.requests - requests);
	EXPECT_EQ(2, eg_slots);

	/* the HEAD sees another version: not ours */
	F.head_etag = "\"0123456789abcdef0123456789abcdef\"";
	ASSERT_EQ(0, hc_egress_s3(&e, cl, BKT, "lm/obj", &res, self->err,
				  sizeof(self->err))) TH_LOG("%s", self->err);
	EXPECT_EQ(0, res.mtime);
	EXPECT_EQ(-ESTALE, res.mtime_err);
	EXPECT_NE(NULL, strstr(res.mtime_msg, "another version"))
		TH_LOG("%s", res.mtime_msg);
	EXPECT_STREQ(find("lm/obj")->etag, res.etag);
	F.head_etag = NULL;

	/* the HEAD is refused */
	F.fail_head = 1;
	ASSERT_EQ(0, hc_egress_s3(&e, cl, BKT, "lm/obj", &res, self->err,
				  sizeof(self->err))) TH_LOG("%s", self->err);
	EXPECT_EQ(0, res.mtime);
	EXPECT_EQ(-EACCES, res.mtime_err) TH_LOG("%s", res.mtime_msg);
	EXPECT_EQ(0, F.fail_head);

	/* no Last-Modified in the HEAD */
	F.no_last_modified = true;
	ASSERT_EQ(0, hc_egress_s3(&e, cl, BKT, "lm/obj", &res, self->err,
				  sizeof(self->err))) TH_LOG("%s", self->err);
	EXPECT_EQ(0, res.mtime);
	EXPECT_EQ(-ENODATA, res.mtime_err);
	F.no_last_modified = false;

	/* a failed upload makes no HEAD */
	requests = F.requests;
	F.fail_n = 1;
	F.fail_status = 403;
	F.fail_code = "AccessDenied";
	EXPECT_EQ(-EACCES, hc_egress_s3(&e, cl, BKT, "lm/obj", &res,
					self->err, sizeof(self->err)));
	EXPECT_EQ(1, F.requests - requests);
	EXPECT_EQ(0, res.mtime);
	close(fd);
	unlink(path);
}

/*
 * Uploads carry a signed Content-MD5 and, only with the backend's
 * sign_payload, the body's SHA-256 as the payload hash (UNSIGNED-PAYLOAD
 * otherwise); the hashing time is counted in the client's digest_ns.
 */
TEST_F(s3, put_payload_signing)
{
	static char body[200000];
	struct hcs3_stats st;
	struct hcs3 *sc;
	char hex[65];

	for (size_t i = 0; i < sizeof(body); i++)
		body[i] = (char)(i * 13 + (i >> 7));
	sigv4_sha256_hex(body, sizeof(body), hex);
	ASSERT_EQ(0, hcs3_put(self->c, BKT, "sign/no", body, sizeof(body), NULL,
			      self->err, sizeof(self->err))) TH_LOG("%s", self->err);
	EXPECT_STREQ(SIGV4_UNSIGNED_PAYLOAD, F.last_sha);
	hcs3_get_stats(self->c, &st);
	EXPECT_GT(st.digest_ns, 0);
	sign_payload = true;
	sc = client(SK, HC_ADDR_PATH, NULL, NULL);
	sign_payload = false;
	ASSERT_NE(NULL, sc);
	ASSERT_EQ(0, hcs3_put(sc, BKT, "sign/yes", body, sizeof(body), NULL,
			      self->err, sizeof(self->err))) TH_LOG("%s", self->err);
	EXPECT_STREQ(hex, F.last_sha);
	ASSERT_NE(NULL, find("sign/no"));
	ASSERT_NE(NULL, find("sign/yes"));
	EXPECT_EQ(0, memcmp(find("sign/no")->data, body, sizeof(body)));
	EXPECT_EQ(0, memcmp(find("sign/yes")->data, body, sizeof(body)));
	EXPECT_EQ(0, F.bad_sigs);
	EXPECT_EQ(0, F.bad_hash);
	EXPECT_EQ(0, F.bad_md5);
	hcs3_free(sc);
}

/*
 * The egress engine takes every buffer from the caller's budget
 * (hc_egress.mem_get/mem_put, blocking): 3 part threads of 5 MiB within a
 * budget of 10 MiB never hold more than 10 MiB, give it all back, and the
 * object is whole; a budget below one part fails the upload with EFBIG and
 * publishes nothing (no multipart upload left open).  The phase times add
 * up: reads, digests and sends were timed.
 */
struct eg_budget {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	uint64_t budget, held, max;
	unsigned int gets;
};

static int eg_mem_get(void *arg, uint64_t bytes)
{
	struct eg_budget *b = arg;

	if (bytes > b->budget)
		return -EFBIG;
	pthread_mutex_lock(&b->lock);
	while (b->held + bytes > b->budget)
		pthread_cond_wait(&b->cv, &b->lock);
	b->held += bytes;
	if (b->held > b->max)
		b->max = b->held;
	b->gets++;
	pthread_mutex_unlock(&b->lock);
	return 0;
}

static void eg_mem_put(void *arg, uint64_t bytes)
{
	struct eg_budget *b = arg;

	pthread_mutex_lock(&b->lock);
	b->held -= bytes;
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->lock);
}

TEST_F_TIMEOUT(s3, egress_budget, 120)
{
	static const struct hc_extent ext[1] = {
		{ .offset = 0, .length = 16 * EG_MiB },
	};
	char path[] = "/tmp/hc-egress-s3-XXXXXX";
	size_t big = 15 * EG_MiB;
	char *obj = malloc(big);
	struct hcs3 *cl[3] = { self->c, client(SK, HC_ADDR_PATH, NULL, NULL),
			       client(SK, HC_ADDR_PATH, NULL, NULL) };
	struct eg_budget b = {
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.cv = PTHREAD_COND_INITIALIZER,
		.budget = 10 * EG_MiB,
	};
	struct hc_egress_result res;
	struct hc_egress e = {
		.ext = ext, .nr_ext = 1, .dev = path, .part_size = 4 * EG_MiB,
		.workers = 3, .size = big, .mem_get = eg_mem_get,
		.mem_put = eg_mem_put, .slot_arg = &b,
	};
	struct fobj *o;
	int fd = mkstemp(path);

	ASSERT_GE(fd, 0);
	ASSERT_NE(NULL, obj);
	ASSERT_NE(NULL, cl[1]);
	ASSERT_NE(NULL, cl[2]);
	ASSERT_EQ(0, ftruncate(fd, 16 * EG_MiB));
	egress_obj(_metadata, fd, ext, 1, obj, big);

	ASSERT_EQ(0, hc_egress_s3(&e, cl, BKT, "bud/obj", &res, self->err,
				  sizeof(self->err))) TH_LOG("%s", self->err);
	EXPECT_EQ(3, res.parts);
	EXPECT_EQ(3, b.gets);
	EXPECT_LE(b.max, b.budget);
	EXPECT_GE(b.max, 5 * EG_MiB);
	EXPECT_EQ(0, b.held);
	o = find("bud/obj");
	ASSERT_NE(NULL, o);
	ASSERT_EQ(big, o->len);
	EXPECT_EQ(0, memcmp(o->data, obj, big));
	EXPECT_GT(res.t.read, 0);
	EXPECT_GT(res.t.digest, 0);
	EXPECT_GT(res.t.send, 0);

	/* a budget below one part (5 MiB): EFBIG, nothing published */
	b.budget = 4 * EG_MiB;
	EXPECT_EQ(-EFBIG, hc_egress_s3(&e, cl, BKT, "bud/other", &res,
				       self->err, sizeof(self->err)));
	EXPECT_NE(NULL, strstr(self->err, "above buffer_budget")) TH_LOG("%s", self->err);
	EXPECT_EQ(NULL, find("bud/other"));
	EXPECT_FALSE(F.upload_open);
	EXPECT_EQ(0, b.held);
	/* a single PUT's buffer too */
	e.size = 3 * EG_MiB;
	b.budget = 2 * EG_MiB;
	EXPECT_EQ(-EFBIG, hc_egress_s3(&e, cl, BKT, "bud/other", &res,
				       self->err, sizeof(self->err)));
	EXPECT_EQ(NULL, find("bud/other"));
	EXPECT_EQ(0, b.held);
	/* and a mem_get without its mem_put is refused */
	e.mem_put = NULL;
	EXPECT_EQ(-EINVAL, hc_egress_s3(&e, cl, BKT, "bud/other", &res,
					self->err, sizeof(self->err)));

	hcs3_free(cl[1]);
	hcs3_free(cl[2]);
	close(fd);
	unlink(path);
	free(obj);
}

/*
 * An upload's failures, classified as hypercached's egress does: the
 * answers that retrying cannot change stop at once (one request, no
 * retry in the client) and are permanent; the others are not.
 */
TEST_F(s3, egress_permanent_errors)
{
	static const struct hc_extent ext[1] = {
		{ .offset = 0, .length = 4 * EG_MiB },
	};
	static const struct {
		int status;
		const char *code;
		int err;
		bool permanent;
		int requests;	/* the client's attempts */
	} cases[] = {
		{ 403, "AccessDenied", -EACCES, true, 1 },
		{ 403, "InvalidAccessKeyId", -EACCES, true, 1 },
		{ 400, "InvalidBucketName", -EINVAL, true, 1 },
		{ 400, "KeyTooLongError", -ENAMETOOLONG, true, 1 },
		{ 400, "EntityTooLarge", -EFBIG, true, 1 },
		{ 400, "BadDigest", -EIO, false, 1 },
		{ 500, "InternalError", -EIO, false, 4 },
		{ 503, "SlowDown", -EAGAIN, false, 4 },
	};
	char path[] = "/tmp/hc-egress-perm-XXXXXX";
	struct hcs3 *cl[1] = { self->c };
	struct hc_egress_result res;
	char obj[1000];
	struct hc_egress e = {
		.ext = ext, .nr_ext = 1, .dev = path, .part_size = 4 * EG_MiB,
		.workers = 1, .size = sizeof(obj),
	};
	int fd = mkstemp(path), ret;
	size_t i;

	ASSERT_GE(fd, 0);
	ASSERT_EQ(0, ftruncate(fd, 4 * EG_MiB));
	egress_obj(_metadata, fd, ext, 1, obj, sizeof(obj));
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		F.requests = 0;
		F.fail_n = 100;
		F.fail_status = cases[i].status;
		F.fail_code = cases[i].code;
		ret = hc_egress_s3(&e, cl, BKT, "perm/obj", &res, self->err,
				   sizeof(self->err));
		EXPECT_EQ(cases[i].err, ret) TH_LOG("%s: %s", cases[i].code, self->err);
		EXPECT_EQ(cases[i].permanent, hc_egress_permanent(-ret))
			TH_LOG("%s", cases[i].code);
		EXPECT_EQ(cases[i].requests, F.requests) TH_LOG("%s", cases[i].code);
		EXPECT_NE(NULL, strstr(self->err, cases[i].code)) TH_LOG("%s", self->err);
		EXPECT_EQ(NULL, find("perm/obj"));
	}
	F.fail_n = 0;
	/* a bucket that does not exist: NoSuchBucket, permanent */
	F.requests = 0;
	ret = hc_egress_s3(&e, cl, "nosuchbucket", "perm/obj", &res, self->err,
			   sizeof(self->err));
	EXPECT_EQ(-ENOENT, ret) TH_LOG("%s", self->err);
	EXPECT_TRUE(hc_egress_permanent(-ret));
	EXPECT_EQ(1, F.requests);
	/* and it works once the backend agrees */
	EXPECT_EQ(0, hc_egress_s3(&e, cl, BKT, "perm/obj", &res, self->err,
				  sizeof(self->err))) TH_LOG("%s", self->err);
	EXPECT_NE(NULL, find("perm/obj"));
	close(fd);
	unlink(path);
}

TEST_F(s3, virtual_host)
{
	struct hcs3_object o;
	struct hcs3 *v;
	char res[64], host[64], *url;

	snprintf(res, sizeof(res), "bkt.s3.test:%u:127.0.0.1", F.port);
	v = client(SK, HC_ADDR_VIRTUAL, res, NULL);
	ASSERT_NE(NULL, v);
	ASSERT_EQ(0, hcs3_head(v, BKT, "dir/obj one+x", &o, self->err,
			       sizeof(self->err))) TH_LOG("%s", self->err);
	snprintf(host, sizeof(host), "bkt.s3.test:%u", F.port);
	EXPECT_STREQ(host, F.host);
	EXPECT_EQ(strlen(data), o.size);
	url = hcs3_url(v, BKT, "a b/c");
	snprintf(res, sizeof(res), "http://bkt.s3.test:%u/a%%20b/c", F.port);
	EXPECT_STREQ(res, url);
	free(url);
	/* not a DNS label: no virtual host */
	EXPECT_EQ(NULL, hcs3_url(v, "Bad_Bucket", "k"));
	EXPECT_EQ(-EINVAL, hcs3_head(v, "Bad_Bucket", "k", &o, self->err,
				     sizeof(self->err)));
	hcs3_free(v);
	url = hcs3_url(self->c, "Bad_Bucket", "k");
	snprintf(res, sizeof(res), "http://127.0.0.1:%u/Bad_Bucket/k", F.port);
	EXPECT_STREQ(res, url);
	free(url);
}

TEST_HARNESS_MAIN
