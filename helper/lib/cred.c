// SPDX-License-Identifier: GPL-2.0
/*
 * S3 credentials: the AWS SDKs' chain and the refresh of temporary
 * credentials.  See cred.h for the contract.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <json-c/json.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "config.h"
#include "cred.h"
#include "sigv4.h"
#include "util.h"

#define CRED_URL_MAX		1023
#define CRED_ARN_MAX		2047
#define CRED_SESSION_MAX	64	/* RoleSessionName */
#define CRED_EXTERNAL_ID_MAX	1224	/* ExternalId */
#define CRED_MFA_MAX		256	/* SerialNumber */
#define CRED_DURATION_MIN	900	/* DurationSeconds */
#define CRED_DURATION_MAX	43200
#define CRED_ROLE_DEPTH_MAX	8	/* profiles in a source_profile chain */
#define CRED_PROCESS_CMD_MAX	4095
#define CRED_HTTP_BODY_MAX	(1 << 20)
#define CRED_TOKEN_FILE_MAX	(64 << 10)
#define CRED_IMDS_DEFAULT	"http://169.254.169.254"
#define CRED_IMDS_TTL		"21600"

_Static_assert(HC_CRED_ENDPOINT_MAX == HC_URL_MAX, "an endpoint is a config URL");

/* A refreshable source: its parameters and the set every copy follows. */
struct hc_credp {
	pthread_mutex_t lock;		/* refs, cur, stale */
	pthread_mutex_t refresh;	/* one fetch at a time */
	unsigned int refs;
	enum hc_creds_source source;
	struct hc_creds cur;		/* cur.provider is NULL */
	bool stale;			/* refused as expired */
	/* web identity and AssumeRole */
	char token_file[HC_PATH_MAX + 1];
	char token_what[HC_CRED_NAME_MAX + 48];	/* the file's name in messages */
	char role_arn[CRED_ARN_MAX + 1];
	char session_name[CRED_SESSION_MAX + 1];
	char sts_url[CRED_URL_MAX + 1];
	/* AssumeRole */
	char external_id[CRED_EXTERNAL_ID_MAX + 1];	/* "": none */
	unsigned int duration;		/* s; 0: STS's default */
	char region[HC_CRED_REGION_MAX + 1];	/* STS's signing region */
	struct hc_creds src;		/* the source's; under refresh */
	/* credential_process, AssumeRole */
	char process[CRED_PROCESS_CMD_MAX + 1];
	char profile[HC_CRED_NAME_MAX + 1];
	unsigned int timeout;		/* s */
	char *const *envp;		/* the caller's; the process's env */
	/* IMDS */
	char imds_url[CRED_URL_MAX + 1];
};

const char *hc_creds_source_name(enum hc_creds_source s)
{
	switch (s) {
	case HC_CREDS_CONFIG:
		return "the configuration";
	case HC_CREDS_ENV:
		return "the environment";
	case HC_CREDS_WEB_IDENTITY:
		return "web identity (STS AssumeRoleWithWebIdentity)";
	case HC_CREDS_FILE:
		return "the shared credentials file";
	case HC_CREDS_PROCESS:
		return "credential_process";
	case HC_CREDS_ASSUME_ROLE:
		return "an assume-role profile (STS AssumeRole)";
	case HC_CREDS_IMDS:
		return "the EC2 instance metadata service";
	case HC_CREDS_ANONYMOUS:
		return "nowhere (anonymous, unsigned requests)";
	}
	return "?";
}

/* ------------------------------------------------------------- helpers */

static const char *cred_env(char *const envp[], const char *name)
{
	size_t len = strlen(name);

	for (; envp && *envp; envp++)
		if (!strncmp(*envp, name, len) && (*envp)[len] == '=')
			return (*envp)[len + 1] ? *envp + len + 1 : NULL;
	return NULL;		/* unset and empty alike */
}

/* Copy @v into @dst (@size bytes); -EINVAL if empty or too long. */
static int cred_put(char *dst, size_t size, const char *v)
{
	size_t len = v ? strlen(v) : 0;

	if (len == 0 || len >= size)
		return -EINVAL;
	memcpy(dst, v, len + 1);
	return 0;
}

static bool cred_region_ok(const char *v)
{
	const char *s;

	if (!*v || strlen(v) > HC_CRED_REGION_MAX)
		return false;
	for (s = v; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '-'))
			return false;
	return true;
}

int hc_creds_parse_time(const char *s, time_t *t)
{
	struct tm tm = { 0 };
	const char *e;

	if (!s)
		return -EINVAL;
	e = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!e)
		return -EINVAL;
	if (*e == '.') {
		for (e++; *e >= '0' && *e <= '9'; e++)
			;
	}
	if (strcmp(e, "Z") && strcmp(e, "+00:00") && strcmp(e, "UTC") &&
	    strcmp(e, ""))
		return -EINVAL;
	*t = timegm(&tm);
	return *t == (time_t)-1 ? -EINVAL : 0;
}

/* -------------------------------------------------------------- HTTP */

struct cred_body {
	char *buf;
	size_t len;
	bool over;
};

static size_t cred_write(char *ptr, size_t size, size_t nmemb, void *arg)
{
	struct cred_body *b = arg;
	size_t n = size * nmemb;
	char *nb;

	if (b->len + n > CRED_HTTP_BODY_MAX) {
		b->over = true;
		return 0;
	}
	nb = realloc(b->buf, b->len + n + 1);
	if (!nb)
		return 0;
	memcpy(nb + b->len, ptr, n);
	b->len += n;
	nb[b->len] = '\0';
	b->buf = nb;
	return n;
}

/*
 * One request of @method to @url with headers @hdrs (NULL-terminated) and
 * @body (POST/PUT; NULL: none).  @direct: never through a proxy (the
 * instance metadata service is link-local: a proxy cannot reach it, and
 * must not see its tokens); else libcurl's proxy variables apply, as they
 * do to S3 requests and to the AWS CLI's STS calls.  Returns 0 with the status in *@status and
 * the body in *@out (free() it; never NULL on success), or -ETIMEDOUT /
 * -ECONNREFUSED / -EIO when no response arrived.
 */
static int cred_http(const char *method, const char *url,
		     const char *const *hdrs, const char *body, bool direct,
		     long timeout_ms, long *status, char **out,
		     char *err, size_t errlen)
{
	struct curl_slist *l = NULL, *t;
	struct cred_body b = { 0 };
	char cerr[CURL_ERROR_SIZE] = "";
	CURLcode cc;
	CURL *h;
	int rc = 0;

	*out = NULL;
	h = curl_easy_init();
	if (!h)
		return hc_seterr(err, errlen, -ENOMEM, "curl_easy_init failed");
	for (; hdrs && *hdrs; hdrs++) {
		t = curl_slist_append(l, *hdrs);
		if (!t) {
			rc = hc_seterr(err, errlen, -ENOMEM, "out of memory");
			goto out;
		}
		l = t;
	}
	t = curl_slist_append(l, "Expect:");
	if (!t) {
		rc = hc_seterr(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	l = t;
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	if (direct)
		curl_easy_setopt(h, CURLOPT_NOPROXY, "*");
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, l);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, cred_write);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
	if (body) {
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE,
				 (curl_off_t)strlen(body));
	}
	if (strcmp(method, body ? "POST" : "GET"))
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
	cc = curl_easy_perform(h);
	if (cc != CURLE_OK) {
		rc = cc == CURLE_OPERATION_TIMEDOUT ? -ETIMEDOUT :
		     cc == CURLE_COULDNT_CONNECT ? -ECONNREFUSED :
		     b.over ? -EFBIG : -EIO;
		hc_seterr(err, errlen, rc, "%s %s: %s%s%s", method, url,
			  curl_easy_strerror(cc), *cerr ? ": " : "", cerr);
		goto out;
	}
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
	if (!b.buf) {
		b.buf = strdup("");
		if (!b.buf) {
			rc = hc_seterr(err, errlen, -ENOMEM, "out of memory");
			goto out;
		}
	}
	*out = b.buf;
	b.buf = NULL;
out:
	free(b.buf);
	curl_slist_free_all(l);
	curl_easy_cleanup(h);
	return rc;
}

/* ----------------------------------------------------------- answers */

/* The text of the first element called @name under @n, or NULL. */
static xmlNode *cred_xml_find(xmlNode *n, const char *name)
{
	xmlNode *c, *f;

	for (c = n; c; c = c->next) {
		if (c->type != XML_ELEMENT_NODE)
			continue;
		if (!strcmp((const char *)c->name, name))
			return c;
		f = cred_xml_find(c->children, name);
		if (f)
			return f;
	}
	return NULL;
}

static int cred_xml_put(xmlNode *root, const char *name, char *dst,
			size_t size)
{
	xmlNode *n = cred_xml_find(root, name);
	xmlChar *v;
	int rc;

	if (!n)
		return -ENOENT;
	v = xmlNodeGetContent(n);
	rc = cred_put(dst, size, (const char *)v);
	xmlFree(v);
	return rc;
}

/*
 * An STS answer, AssumeRoleWithWebIdentity's or AssumeRole's: the keys of
 * its <Credentials>, or the <Code> of its <Error> into @code (@codelen
 * bytes; "" when there is none) and -EACCES.
 */
static int cred_sts_parse(const char *doc, size_t len, struct hc_creds *out,
			  char *code, size_t codelen, char *err, size_t errlen)
{
	char msg[512] = "", exp[64] = "";
	xmlDoc *d;
	xmlNode *root;
	int rc = 0;

	*code = '\0';
	d = xmlReadMemory(doc, (int)len, "sts.xml", NULL,
			  XML_PARSE_NONET | XML_PARSE_NOERROR |
			  XML_PARSE_NOWARNING);
	if (!d)
		return hc_seterr(err, errlen, -EINVAL, "STS: the answer is not XML");
	root = xmlDocGetRootElement(d);
	if (cred_xml_find(root, "Error")) {
		cred_xml_put(root, "Code", code, codelen);
		cred_xml_put(root, "Message", msg, sizeof(msg));
		rc = hc_seterr(err, errlen, -EACCES, "STS: %s: %s",
			       *code ? code : "error", msg);
		goto out;
	}
	if (cred_xml_put(root, "AccessKeyId", out->access_key,
			 sizeof(out->access_key)) ||
	    cred_xml_put(root, "SecretAccessKey", out->secret_key,
			 sizeof(out->secret_key)) ||
	    cred_xml_put(root, "SessionToken", out->session_token,
			 sizeof(out->session_token)) ||
	    cred_xml_put(root, "Expiration", exp, sizeof(exp)) ||
	    hc_creds_parse_time(exp, &out->expiration)) {
		rc = hc_seterr(err, errlen, -EINVAL,
			       "STS: <Credentials> without AccessKeyId, SecretAccessKey, SessionToken or a valid Expiration");
		goto out;
	}
out:
	xmlFreeDoc(d);
	return rc;
}

int hc_creds_parse_sts(const char *doc, size_t len, struct hc_creds *out,
		       char *err, size_t errlen)
{
	char code[128];

	return cred_sts_parse(doc, len, out, code, sizeof(code), err, errlen);
}

static const char *cred_json_str(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/* Keys @ak/@sk/@tok and optional Expiration of JSON object @o into @out. */
static int cred_json_keys(json_object *o, const char *what, const char *tok,
			  bool need_exp, struct hc_creds *out,
			  char *err, size_t errlen)
{
	const char *exp = cred_json_str(o, "Expiration");
	const char *st = cred_json_str(o, tok);

	if (cred_put(out->access_key, sizeof(out->access_key),
		     cred_json_str(o, "AccessKeyId")) ||
	    cred_put(out->secret_key, sizeof(out->secret_key),
		     cred_json_str(o, "SecretAccessKey")))
		return hc_seterr(err, errlen, -EINVAL,
				 "%s: no AccessKeyId or SecretAccessKey string (or too long)",
				 what);
	if (st && *st && cred_put(out->session_token,
				  sizeof(out->session_token), st))
		return hc_seterr(err, errlen, -EINVAL, "%s: %s too long",
				 what, tok);
	out->expiration = 0;
	if ((exp || need_exp) && hc_creds_parse_time(exp, &out->expiration))
		return hc_seterr(err, errlen, -EINVAL,
				 "%s: Expiration \"%.40s\" is not an ISO 8601 UTC time",
				 what, exp ? exp : "");
	return 0;
}

/* @s as one JSON value and nothing else but white space, or NULL. */
static json_object *cred_json_parse(const char *s)
{
	struct json_tokener *t = json_tokener_new();
	size_t len = strlen(s), end;
	json_object *o;

	if (!t)
		return NULL;
	o = json_tokener_parse_ex(t, s, (int)len);
	end = json_tokener_get_parse_end(t);
	if (o && json_tokener_get_error(t) == json_tokener_success)
		for (; end < len; end++)
			if (!strchr(" \t\r\n", s[end])) {
				json_object_put(o);
				o = NULL;
				break;
			}
	json_tokener_free(t);
	return o;
}

int hc_creds_parse_process(const char *json, struct hc_creds *out,
			   char *err, size_t errlen)
{
	json_object *o = cred_json_parse(json), *v;
	int rc;

	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return hc_seterr(err, errlen, -EINVAL,
				 "credential_process: the output is not one JSON object");
	}
	if (!json_object_object_get_ex(o, "Version", &v) ||
	    !json_object_is_type(v, json_type_int) ||
	    json_object_get_int(v) != 1) {
		json_object_put(o);
		return hc_seterr(err, errlen, -EINVAL,
				 "credential_process: \"Version\" is not 1");
	}
	rc = cred_json_keys(o, "credential_process", "SessionToken", false,
			    out, err, errlen);
	json_object_put(o);
	return rc;
}

int hc_creds_parse_imds(const char *json, struct hc_creds *out,
			char *err, size_t errlen)
{
	json_object *o = cred_json_parse(json);
	const char *code;
	int rc;

	if (!o || !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return hc_seterr(err, errlen, -EINVAL,
				 "IMDS: the role credentials are not a JSON object");
	}
	code = cred_json_str(o, "Code");
	if (code && strcmp(code, "Success")) {
		rc = hc_seterr(err, errlen, -EACCES, "IMDS: Code \"%.60s\"", code);
		json_object_put(o);
		return rc;
	}
	rc = cred_json_keys(o, "IMDS", "Token", true, out, err, errlen);
	json_object_put(o);
	return rc;
}

/* ------------------------------------------------------------ sources */

/* Rewrite @err as @fmt's text followed by its old text. */
static void cred_err_prefix(char *err, size_t errlen, const char *fmt, ...)
{
	char *old, pre[HC_CRED_NAME_MAX + CRED_ARN_MAX + 128];
	va_list ap;

	if (!err || !errlen)
		return;
	old = strdup(err);
	if (!old)
		return;		/* the message without its context */
	va_start(ap, fmt);
	vsnprintf(pre, sizeof(pre), fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "%s%s", pre, old);
	free(old);
}

/* @err, a failed STS call of provider @p, with whose role it asked where. */
static void cred_sts_context(const struct hc_credp *p, char *err,
			     size_t errlen)
{
	size_t n;

	if (*p->profile)
		cred_err_prefix(err, errlen, "profile [%s]: ", p->profile);
	n = err ? strlen(err) : 0;
	if (err && n < errlen)
		snprintf(err + n, errlen - n, " (role %s at %s)", p->role_arn,
			 p->sts_url);
}

#define CRED_FORM	"application/x-www-form-urlencoded"
#define CRED_STS_LINES	8	/* header lines of an STS request */

/*
 * The lines that sign a POST of @body to @url for STS with @sig's keys
 * (SigV4, service "sts", region @region): Host (sent as signed, not left
 * to curl), X-Amz-Date, @sig's session token as X-Amz-Security-Token,
 * Authorization; each malloc'd, appended at lines[*n] (room for 4 more).
 */
static int cred_sts_sign(const char *url, const char *body,
			 const struct hc_creds *sig, const char *region,
			 char **lines, size_t *n, char *err, size_t errlen)
{
	struct sigv4_credentials cred = {
		.access_key = sig->access_key,
		.secret_key = sig->secret_key,
		.session_token = *sig->session_token ? sig->session_token : NULL,
	};
	struct sigv4_params par = {
		.region = region, .service = "sts", .timestamp = time(NULL),
	};
	char *host = NULL, *port = NULL, *path = NULL, *query = NULL;
	struct sigv4_request req = { .method = "POST" };
	struct sigv4_header h[2];
	struct sigv4_result res;
	char phash[65];
	CURLU *u = curl_url();
	size_t i;
	int rc;

	if (!u)
		return hc_seterr(err, errlen, -ENOMEM, "out of memory");
	if (curl_url_set(u, CURLUPART_URL, url, 0) ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) ||
	    curl_url_get(u, CURLUPART_PATH, &path, CURLU_URLDECODE)) {
		rc = hc_seterr(err, errlen, -EINVAL, "STS endpoint %s: not a URL",
			       url);
		goto out;
	}
	curl_url_get(u, CURLUPART_PORT, &port, 0);	/* may be absent */
	curl_url_get(u, CURLUPART_QUERY, &query, 0);	/* likewise */
	if (asprintf(&lines[*n], "Host: %s%s%s", host, port ? ":" : "",
		     port ? port : "") < 0) {
		lines[*n] = NULL;
		rc = hc_seterr(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	h[0] = (struct sigv4_header){ "Host", lines[(*n)++] + strlen("Host: ") };
	h[1] = (struct sigv4_header){ "Content-Type", CRED_FORM };
	sigv4_sha256_hex(body, strlen(body), phash);
	req.path = path;
	req.query = query;
	req.headers = h;
	req.n_headers = 2;
	req.payload_hash = phash;
	rc = sigv4_sign(&req, &cred, &par, &res, err, errlen);
	if (rc) {
		cred_err_prefix(err, errlen, "STS: signing: ");
		goto out;
	}
	for (i = 0; i <= res.n_added && !rc; i++) {
		if (i < res.n_added)
			rc = asprintf(&lines[*n], "%s: %s", res.added[i].name,
				      res.added[i].value);
		else
			rc = asprintf(&lines[*n], "Authorization: %s",
				      res.authorization);
		if (rc < 0) {
			lines[*n] = NULL;
			rc = hc_seterr(err, errlen, -ENOMEM, "out of memory");
		} else {
			(*n)++;
			rc = 0;
		}
	}
	sigv4_result_free(&res);
out:
	curl_free(host);
	curl_free(port);
	curl_free(path);
	curl_free(query);
	curl_url_cleanup(u);
	return rc;
}

/*
 * One STS call: POST @body (form-encoded) to @url, SigV4-signed with
 * @sig's keys for @region, or unsigned when @sig is NULL (web identity),
 * and the <Credentials> of the answer into @out.  STS's error code goes to
 * @code (@codelen bytes, "" when none).  Returns 0, -EACCES (an STS
 * <Error>), -EIO (another HTTP status), -EINVAL (a malformed answer), or
 * cred_http()'s errors; @err says "STS: ...".
 */
static int cred_sts_call(const char *url, const char *body,
			 const struct hc_creds *sig, const char *region,
			 struct hc_creds *out, char *code, size_t codelen,
			 char *err, size_t errlen)
{
	char *lines[CRED_STS_LINES] = {
		"Content-Type: " CRED_FORM, "Accept: application/xml",
	};
	const size_t fixed = 2;
	size_t n = fixed, i;
	char *resp = NULL;
	long status = 0;
	int rc = 0;

	*code = '\0';
	if (sig)
		rc = cred_sts_sign(url, body, sig, region, lines, &n, err,
				   errlen);
	if (rc)
		goto out;
	lines[n] = NULL;
	rc = cred_http("POST", url, (const char *const *)lines, body, false,
		       HC_CRED_HTTP_TIMEOUT_S * 1000L, &status, &resp, err,
		       errlen);
	if (rc)
		goto out;
	rc = cred_sts_parse(resp, strlen(resp), out, code, codelen, err,
			    errlen);
	if (rc != -EACCES && status != 200)
		rc = hc_seterr(err, errlen, -EIO, "STS: HTTP %ld", status);
out:
	for (i = fixed; i < n; i++) {
		explicit_bzero(lines[i], strlen(lines[i]));
		free(lines[i]);
	}
	if (resp) {
		explicit_bzero(resp, strlen(resp));
		free(resp);
	}
	return rc;
}

/* The token of @p's token file, trailing white space cut, into *@tok. */
static int cred_read_token(const struct hc_credp *p, char **tok,
			   char *err, size_t errlen)
{
	size_t got = 0;
	int fd, rc;
	char *t;

	*tok = NULL;
	fd = open(p->token_file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return hc_seterr(err, errlen, -errno, "%s %s: %s",
				 p->token_what, p->token_file, strerror(errno));
	t = malloc(CRED_TOKEN_FILE_MAX + 1);
	if (!t) {
		close(fd);
		return hc_seterr(err, errlen, -ENOMEM, "out of memory");
	}
	rc = hc_read_full(fd, t, CRED_TOKEN_FILE_MAX + 1, &got);
	close(fd);
	if (rc || got > CRED_TOKEN_FILE_MAX) {
		rc = hc_seterr(err, errlen, rc ? rc : -EFBIG, "%s %s: %s",
			       p->token_what, p->token_file,
			       rc ? strerror(-rc) : "larger than 64 KiB");
		goto fail;
	}
	while (got && (t[got - 1] == '\n' || t[got - 1] == '\r' ||
		       t[got - 1] == ' '))
		got--;
	t[got] = '\0';
	if (!got) {
		rc = hc_seterr(err, errlen, -EINVAL, "%s %s: empty",
			       p->token_what, p->token_file);
		goto fail;
	}
	*tok = t;
	return 0;
fail:
	explicit_bzero(t, CRED_TOKEN_FILE_MAX + 1);
	free(t);
	return rc;
}

static int cred_fetch_web_identity(struct hc_credp *p, struct hc_creds *out,
				   char *err, size_t errlen)
{
	char *tok = NULL, *etok = NULL, *earn = NULL, *ename = NULL;
	char *body = NULL, code[128];
	int rc;

	rc = cred_read_token(p, &tok, err, errlen);
	if (rc)
		return rc;
	etok = curl_easy_escape(NULL, tok, 0);
	earn = curl_easy_escape(NULL, p->role_arn, 0);
	ename = curl_easy_escape(NULL, p->session_name, 0);
	if (!etok || !earn || !ename ||
	    asprintf(&body, "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=%s&RoleSessionName=%s&WebIdentityToken=%s",
		     earn, ename, etok) < 0) {
		body = NULL;
		rc = hc_seterr(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	rc = cred_sts_call(p->sts_url, body, NULL, NULL, out, code,
			   sizeof(code), err, errlen);
	if (rc)
		cred_sts_context(p, err, errlen);
out:
	explicit_bzero(tok, strlen(tok));
	if (body)
		explicit_bzero(body, strlen(body));
	if (etok)
		explicit_bzero(etok, strlen(etok));
	free(tok);
	free(body);
	curl_free(etok);
	curl_free(earn);
	curl_free(ename);
	return rc;
}

/*
 * STS AssumeRole of @p's role, signed with its source's credentials, which
 * are brought up to date first (a temporary source is refreshed when due).
 * A source refused as expired (ExpiredToken) is marked stale and the call
 * made once more with its next set.
 */
static int cred_fetch_assume_role(struct hc_credp *p, struct hc_creds *out,
				  char *err, size_t errlen)
{
	char *earn, *ename, *eext = NULL, *body = NULL, dur[32] = "", code[128];
	bool retried = false;
	int rc;

	earn = curl_easy_escape(NULL, p->role_arn, 0);
	ename = curl_easy_escape(NULL, p->session_name, 0);
	if (*p->external_id)
		eext = curl_easy_escape(NULL, p->external_id, 0);
	if (p->duration)
		snprintf(dur, sizeof(dur), "&DurationSeconds=%u", p->duration);
	if (!earn || !ename || (*p->external_id && !eext) ||
	    asprintf(&body, "Action=AssumeRole&Version=2011-06-15&RoleArn=%s&RoleSessionName=%s%s%s%s",
		     earn, ename, eext ? "&ExternalId=" : "",
		     eext ? eext : "", dur) < 0) {
		body = NULL;
		rc = hc_seterr(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	for (;;) {
		rc = hc_creds_current(&p->src, err, errlen);
		if (rc) {
			cred_err_prefix(err, errlen, "profile [%s]: the source of role %s: ",
					p->profile, p->role_arn);
			break;
		}
		rc = cred_sts_call(p->sts_url, body, &p->src, p->region, out,
				   code, sizeof(code), err, errlen);
		if (rc == -EACCES && !retried && !strcmp(code, "ExpiredToken") &&
		    hc_creds_expired(&p->src)) {
			retried = true;
			continue;
		}
		if (rc)
			cred_sts_context(p, err, errlen);
		break;
	}
out:
	if (body)
		explicit_bzero(body, strlen(body));
	free(body);
	curl_free(earn);
	curl_free(ename);
	curl_free(eext);
	return rc;
}

/*
 * Wait for child @pid until @deadline (hc_now() seconds); past it, kill its
 * process group.  Returns 0 with its wait status in *@status, -ETIMEDOUT
 * once it was killed (and reaped).
 */
static int cred_reap(pid_t pid, double deadline, int *status)
{
	pid_t r;

	for (;;) {
		r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return -errno;
		if (hc_now() >= deadline)
			break;
		usleep(10000);
	}
	kill(-pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return -ETIMEDOUT;
}

/*
 * Read the child's stdout (@fd) into @buf until EOF, HC_CRED_PROCESS_MAX
 * + 1 bytes or @deadline.  Returns 0, -ETIMEDOUT or a read error.
 */
static int cred_read_until(int fd, char *buf, size_t *got, double deadline)
{
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	double left;
	ssize_t n;
	int r;

	*got = 0;
	while (*got <= HC_CRED_PROCESS_MAX) {
		left = deadline - hc_now();
		if (left <= 0)
			return -ETIMEDOUT;
		r = poll(&pf, 1, (int)(left * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			continue;	/* the deadline is checked above */
		n = read(fd, buf + *got, HC_CRED_PROCESS_MAX + 1 - *got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		*got += (size_t)n;
	}
	return 0;
}

/*
 * A profile's credential_process: /bin/sh -c COMMAND in a process group of
 * its own, stdin /dev/null, the caller's environment; its stdout read for
 * at most p->timeout seconds, then the whole group is killed (a hung
 * helper must not hang the S3 clients waiting for credentials).
 */
static int cred_fetch_process(struct hc_credp *p, struct hc_creds *out,
			      char *err, size_t errlen)
{
	char *argv[] = { "/bin/sh", "-c", p->process, NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	char perr[256] = "";
	int pfd[2], status = 0, rc, wrc;
	sigset_t none, dfl;
	const char *why;
	double deadline;
	size_t got = 0;
	char *buf;
	pid_t pid;

	buf = malloc(HC_CRED_PROCESS_MAX + 1);
	if (!buf)
		return hc_seterr(err, errlen, -ENOMEM, "out of memory");
	if (pipe2(pfd, O_CLOEXEC)) {
		rc = hc_seterr(err, errlen, -errno, "pipe: %s", strerror(errno));
		goto out_free;
	}
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGHUP);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP |
					POSIX_SPAWN_SETSIGMASK |
					POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
	deadline = hc_now() + p->timeout;
	rc = -posix_spawn(&pid, "/bin/sh", &fa, &attr, argv,
			  (char **)p->envp);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	close(pfd[1]);
	if (rc) {
		close(pfd[0]);
		rc = hc_seterr(err, errlen, rc,
			       "profile [%s] credential_process: /bin/sh: %s",
			       p->profile, strerror(-rc));
		goto out_free;
	}
	rc = cred_read_until(pfd[0], buf, &got, deadline);
	close(pfd[0]);
	if (rc == -ETIMEDOUT)
		deadline = 0;	/* kill it now */
	wrc = cred_reap(pid, deadline, &status);
	if (rc == -ETIMEDOUT || wrc == -ETIMEDOUT) {
		rc = hc_seterr(err, errlen, -ETIMEDOUT,
			       "profile [%s] credential_process \"%.200s\": no answer within %u s (credential_process_timeout): killed",
			       p->profile, p->process, p->timeout);
		goto out_free;
	}
	if (wrc) {
		rc = hc_seterr(err, errlen, wrc,
			       "profile [%s] credential_process: waitpid: %s",
			       p->profile, strerror(-wrc));
		goto out_free;
	}
	if (!rc && got > HC_CRED_PROCESS_MAX) {	/* before its SIGPIPE */
		rc = hc_seterr(err, errlen, -EFBIG,
			       "profile [%s] credential_process \"%.200s\": output over 64 KiB",
			       p->profile, p->process);
		goto out_free;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		rc = hc_seterr(err, errlen, -EACCES,
			       "profile [%s] credential_process \"%.200s\": %s %d",
			       p->profile, p->process,
			       WIFEXITED(status) ? "exit status" : "killed by signal",
			       WIFEXITED(status) ? WEXITSTATUS(status) :
						   WTERMSIG(status));
		goto out_free;
	}
	if (rc) {
		rc = hc_seterr(err, errlen, rc,
			       "profile [%s] credential_process \"%.200s\": output: %s",
			       p->profile, p->process, strerror(-rc));
		goto out_free;
	}
	buf[got] = '\0';
	rc = hc_creds_parse_process(buf, out, perr, sizeof(perr));
	if (!rc && out->expiration && out->expiration <= time(NULL))
		rc = hc_seterr(perr, sizeof(perr), -EINVAL,
			       "credential_process: Expiration has passed");
	if (rc) {
		why = perr;
		if (!strncmp(why, "credential_process: ", 20))
			why += 20;
		hc_seterr(err, errlen, rc,
			  "profile [%s] credential_process \"%.200s\": %s",
			  p->profile, p->process, why);
	}
out_free:
	explicit_bzero(buf, HC_CRED_PROCESS_MAX + 1);
	free(buf);
	return rc;
}

/*
 * IMDSv2: a session token, the role's name, its credentials.  -ENODEV when
 * there is no metadata service or no role (the chain goes on).
 */
static int cred_fetch_imds(struct hc_credp *p, struct hc_creds *out,
			   char *err, size_t errlen)
{
	char url[CRED_URL_MAX + 256], th[128 + 256];
	char *tok = NULL, *role = NULL, *doc = NULL, *nl;
	const char *h_ttl[] = { "X-aws-ec2-metadata-token-ttl-seconds: " CRED_IMDS_TTL,
				NULL };
	const char *h_tok[] = { th, NULL };
	long status = 0;
	int rc;

	snprintf(url, sizeof(url), "%s/latest/api/token", p->imds_url);
	rc = cred_http("PUT", url, h_ttl, "", true, HC_CRED_IMDS_TIMEOUT_MS, &status,
		       &tok, err, errlen);
	if (rc || status != 200 || !*tok || strlen(tok) > 256) {
		rc = hc_seterr(err, errlen, -ENODEV,
			       "IMDS %s: no session token (%s%ld)", p->imds_url,
			       rc ? "no answer, " : "HTTP ", rc ? 0L : status);
		goto out;
	}
	snprintf(th, sizeof(th), "X-aws-ec2-metadata-token: %s", tok);
	snprintf(url, sizeof(url), "%s/latest/meta-data/iam/security-credentials/",
		 p->imds_url);
	rc = cred_http("GET", url, h_tok, NULL, true, HC_CRED_IMDS_TIMEOUT_MS,
		       &status, &role, err, errlen);
	if (rc || status != 200 || !*role) {
		rc = hc_seterr(err, errlen, -ENODEV,
			       "IMDS %s: no instance role (HTTP %ld)", p->imds_url,
			       rc ? 0L : status);
		goto out;
	}
	nl = strpbrk(role, "\r\n");
	if (nl)
		*nl = '\0';
	if (!*role || strlen(role) > 128 || strpbrk(role, "/?#% ")) {
		rc = hc_seterr(err, errlen, -EINVAL, "IMDS: bad role name");
		goto out;
	}
	snprintf(url, sizeof(url), "%s/latest/meta-data/iam/security-credentials/%s",
		 p->imds_url, role);
	rc = cred_http("GET", url, h_tok, NULL, true, HC_CRED_IMDS_TIMEOUT_MS,
		       &status, &doc, err, errlen);
	if (!rc && status != 200)
		rc = hc_seterr(err, errlen, -EACCES, "IMDS: role %s: HTTP %ld",
			       role, status);
	if (!rc)
		rc = hc_creds_parse_imds(doc, out, err, errlen);
out:
	explicit_bzero(th, sizeof(th));
	if (doc)
		explicit_bzero(doc, strlen(doc));
	free(tok);
	free(role);
	free(doc);
	return rc;
}

static int cred_fetch(struct hc_credp *p, struct hc_creds *out,
		      char *err, size_t errlen)
{
	switch (p->source) {
	case HC_CREDS_WEB_IDENTITY:
		return cred_fetch_web_identity(p, out, err, errlen);
	case HC_CREDS_PROCESS:
		return cred_fetch_process(p, out, err, errlen);
	case HC_CREDS_IMDS:
		return cred_fetch_imds(p, out, err, errlen);
	case HC_CREDS_ASSUME_ROLE:
		return cred_fetch_assume_role(p, out, err, errlen);
	default:
		return hc_seterr(err, errlen, -EINVAL, "not a refreshable source");
	}
}

/* ----------------------------------------------------------- provider */

static struct hc_credp *cred_provider_new(enum hc_creds_source s,
					  char *const envp[])
{
	struct hc_credp *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	pthread_mutex_init(&p->lock, NULL);
	pthread_mutex_init(&p->refresh, NULL);
	p->refs = 1;
	p->source = s;
	p->envp = envp;
	return p;
}

static void cred_provider_put(struct hc_credp *p)
{
	unsigned int left;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	left = --p->refs;
	pthread_mutex_unlock(&p->lock);
	if (left)
		return;
	hc_creds_release(&p->src);	/* an AssumeRole's source */
	pthread_mutex_destroy(&p->lock);
	pthread_mutex_destroy(&p->refresh);
	explicit_bzero(p, sizeof(*p));
	free(p);
}

/* The provider's first set into @out (keys, expiration, gen). */
static int cred_provider_start(struct hc_credp *p, struct hc_creds *out,
			       char *err, size_t errlen)
{
	int rc = cred_fetch(p, &p->cur, err, errlen);

	if (rc)
		return rc;
	p->cur.gen = 1;
	memcpy(out->access_key, p->cur.access_key, sizeof(out->access_key));
	memcpy(out->secret_key, p->cur.secret_key, sizeof(out->secret_key));
	memcpy(out->session_token, p->cur.session_token,
	       sizeof(out->session_token));
	out->expiration = p->cur.expiration;
	out->gen = p->cur.gen;
	if (p->source == HC_CREDS_PROCESS && !out->expiration)
		return 0;	/* never expires: the caller drops @p */
	out->provider = p;
	return 0;
}

void hc_creds_hold(struct hc_creds *dst, const struct hc_creds *src)
{
	if (dst != src)
		*dst = *src;
	if (dst->provider) {
		pthread_mutex_lock(&dst->provider->lock);
		dst->provider->refs++;
		pthread_mutex_unlock(&dst->provider->lock);
	}
}

void hc_creds_release(struct hc_creds *c)
{
	cred_provider_put(c->provider);
	explicit_bzero(c, sizeof(*c));
}

/* Under p->lock: whether the set must be fetched again at @now. */
static bool cred_due(const struct hc_credp *p, time_t now, bool *expired)
{
	time_t e = p->cur.expiration;

	*expired = p->stale || (e && now >= e);
	return p->stale || (e && now + HC_CRED_REFRESH_AHEAD >= e);
}

int hc_creds_current(struct hc_creds *c, char *err, size_t errlen)
{
	struct hc_credp *p = c->provider;
	struct hc_creds fresh;
	bool due, expired;
	int rc = 0;

	if (!p)
		return 0;
	pthread_mutex_lock(&p->lock);
	due = cred_due(p, time(NULL), &expired);
	pthread_mutex_unlock(&p->lock);
	if (due) {
		if (expired)
			pthread_mutex_lock(&p->refresh);
		else if (pthread_mutex_trylock(&p->refresh))
			goto copy;	/* another thread fetches; ours holds */
		pthread_mutex_lock(&p->lock);
		due = cred_due(p, time(NULL), &expired);	/* done meanwhile? */
		pthread_mutex_unlock(&p->lock);
		if (due) {
			memset(&fresh, 0, sizeof(fresh));
			rc = cred_fetch(p, &fresh, err, errlen);
			if (!rc) {
				pthread_mutex_lock(&p->lock);
				fresh.gen = p->cur.gen + 1;
				p->cur = fresh;
				p->stale = false;
				pthread_mutex_unlock(&p->lock);
			}
			explicit_bzero(&fresh, sizeof(fresh));
		}
		pthread_mutex_unlock(&p->refresh);
		if (rc && expired)
			return rc;
		rc = 0;		/* the set in hand is still valid */
	}
copy:
	pthread_mutex_lock(&p->lock);
	memcpy(c->access_key, p->cur.access_key, sizeof(c->access_key));
	memcpy(c->secret_key, p->cur.secret_key, sizeof(c->secret_key));
	memcpy(c->session_token, p->cur.session_token,
	       sizeof(c->session_token));
	c->expiration = p->cur.expiration;
	c->gen = p->cur.gen;
	pthread_mutex_unlock(&p->lock);
	return rc;
}

bool hc_creds_expired(struct hc_creds *c)
{
	struct hc_credp *p = c->provider;

	if (!p)
		return false;
	pthread_mutex_lock(&p->lock);
	if (p->cur.gen == c->gen)
		p->stale = true;
	pthread_mutex_unlock(&p->lock);
	return true;
}

/* ----------------------------------------------------- shared files */

struct cred_profile {
	const char *want;
	bool config;		/* ~/.aws/config: [profile NAME] */
	bool found;
	char bad_key[40];	/* a copy: libinih reuses its line buffer */
	char access_key[HC_CRED_KEY_MAX + 1];
	char secret_key[HC_CRED_KEY_MAX + 1];
	char session_token[HC_CRED_TOKEN_MAX + 1];
	char region[HC_CRED_REGION_MAX + 1];
	char process[CRED_PROCESS_CMD_MAX + 1];
	char endpoint_url[HC_CRED_ENDPOINT_MAX + 1];
	char services[HC_CRED_NAME_MAX + 1];	/* [services NAME] */
	char ignore_endpoints[8];		/* "true" or "false" */
	/* an assume-role profile, or web identity */
	char role_arn[CRED_ARN_MAX + 1];
	char source_profile[HC_CRED_NAME_MAX + 1];
	char cred_source[32];			/* credential_source */
	char session_name[CRED_SESSION_MAX + 1];	/* role_session_name */
	char external_id[CRED_EXTERNAL_ID_MAX + 1];
	char duration[16];			/* duration_seconds */
	char mfa_serial[CRED_MFA_MAX + 1];
	char token_file[HC_PATH_MAX + 1];	/* web_identity_token_file */
};

static int cred_profile_key(void *user, const char *section,
			    const char *name, const char *value)
{
	struct cred_profile *c = user;
	char *dst;
	size_t size;

	if (c->config ? !(!strncmp(section, "profile ", 8) &&
			  !strcmp(section + 8, c->want)) &&
			!(!strcmp(c->want, "default") &&
			  !strcmp(section, "default"))
		      : strcmp(section, c->want))
		return 1;	/* another profile */
	c->found = true;
#define CRED_KEY(k, f) (!strcmp(name, k)) { dst = c->f; size = sizeof(c->f); }
	if CRED_KEY("aws_access_key_id", access_key)
	else if CRED_KEY("aws_secret_access_key", secret_key)
	else if CRED_KEY("aws_session_token", session_token)
	else if CRED_KEY("region", region)
	else if CRED_KEY("credential_process", process)
	else if CRED_KEY("endpoint_url", endpoint_url)
	else if CRED_KEY("services", services)
	else if CRED_KEY("ignore_configured_endpoint_urls", ignore_endpoints)
	else if CRED_KEY("role_arn", role_arn)
	else if CRED_KEY("source_profile", source_profile)
	else if CRED_KEY("credential_source", cred_source)
	else if CRED_KEY("role_session_name", session_name)
	else if CRED_KEY("external_id", external_id)
	else if CRED_KEY("duration_seconds", duration)
	else if CRED_KEY("mfa_serial", mfa_serial)
	else if CRED_KEY("web_identity_token_file", token_file)
	else
		return 1;	/* keys we do not use */
#undef CRED_KEY
	if (*dst)
		return 1;	/* the credentials file, read first, wins */
	if (cred_put(dst, size, value) ||
	    (dst == c->region && !cred_region_ok(value)) ||
	    (dst == c->endpoint_url && hc_config_url_problem(value)) ||
	    (dst == c->ignore_endpoints && strcasecmp(value, "true") &&
	     strcasecmp(value, "false"))) {
		if (!*c->bad_key)
			snprintf(c->bad_key, sizeof(c->bad_key), "%s", name);
		return 0;
	}
	return 1;
}

/* @file's profile into @c; a missing file is not an error. */
static int cred_profile_file(struct cred_profile *c, const char *file,
			     char *err, size_t errlen)
{
	int rc = hc_ini_file(file, cred_profile_key, c, err, errlen);

	if (rc == -ENOENT)
		return 0;
	if (rc && *c->bad_key) {
		size_t n = err ? strlen(err) : 0;

		if (err && n < errlen)
			snprintf(err + n, errlen - n, ": %s empty, too long or malformed",
				 c->bad_key);
	}
	return rc;
}

static int cred_path(char *buf, size_t len, char *const envp[],
		     const char *env, const char *home, const char *name)
{
	const char *v = cred_env(envp, env);

	if (v)
		return (size_t)snprintf(buf, len, "%s", v) < len ? 0 : -ENAMETOOLONG;
	if (!home)
		return -ENOENT;
	return (size_t)snprintf(buf, len, "%s/.aws/%s", home, name) < len ?
	       0 : -ENAMETOOLONG;
}

/* ------------------------------------------------------------ the chain */

static int cred_env_keys(char *const envp[], struct hc_creds *out,
			 char *err, size_t errlen)
{
	const char *id = cred_env(envp, "AWS_ACCESS_KEY_ID");
	const char *secret = cred_env(envp, "AWS_SECRET_ACCESS_KEY");
	const char *token = cred_env(envp, "AWS_SESSION_TOKEN");

	if (!id != !secret)
		return hc_seterr(err, errlen, -EINVAL,
				 "environment: %s is set but %s is not",
				 id ? "AWS_ACCESS_KEY_ID" : "AWS_SECRET_ACCESS_KEY",
				 id ? "AWS_SECRET_ACCESS_KEY" : "AWS_ACCESS_KEY_ID");
	if (cred_put(out->access_key, sizeof(out->access_key), id) ||
	    cred_put(out->secret_key, sizeof(out->secret_key), secret) ||
	    (token && cred_put(out->session_token, sizeof(out->session_token),
			       token)))
		return hc_seterr(err, errlen, -EINVAL,
				 "environment: an AWS_* credential is too long");
	out->source = HC_CREDS_ENV;
	return 0;
}

/*
 * A web identity provider: the token in @file (named @what in messages),
 * role @arn, session @name (NULL: hypercache-TIME), STS at @sts;
 * @profile is the profile it comes from, NULL for the environment.
 */
static int cred_web_identity_start(char *const envp[], const char *what,
				   const char *profile, const char *file,
				   const char *arn, const char *name,
				   const char *sts, struct hc_creds *out,
				   char *err, size_t errlen)
{
	struct hc_credp *p;
	int rc;

	p = cred_provider_new(HC_CREDS_WEB_IDENTITY, envp);
	if (!p)
		return hc_seterr(err, errlen, -ENOMEM, "out of memory");
	snprintf(p->token_what, sizeof(p->token_what), "%s", what);
	if (profile)
		snprintf(p->profile, sizeof(p->profile), "%s", profile);
	if (cred_put(p->token_file, sizeof(p->token_file), file) ||
	    cred_put(p->role_arn, sizeof(p->role_arn), arn) ||
	    (name && cred_put(p->session_name, sizeof(p->session_name), name))) {
		rc = profile ?
		     hc_seterr(err, errlen, -EINVAL,
			       "profile [%s]: web_identity_token_file, role_arn or role_session_name too long",
			       profile) :
		     hc_seterr(err, errlen, -EINVAL,
			       "environment: AWS_WEB_IDENTITY_TOKEN_FILE, AWS_ROLE_ARN or AWS_ROLE_SESSION_NAME too long");
		goto fail;
	}
	if (!name)
		snprintf(p->session_name, sizeof(p->session_name),
			 "hypercache-%lld", (long long)time(NULL));
	if (cred_put(p->sts_url, sizeof(p->sts_url), sts)) {
		rc = hc_seterr(err, errlen, -EINVAL, "the STS endpoint is too long");
		goto fail;
	}
	rc = cred_provider_start(p, out, err, errlen);
	if (rc)
		goto fail;
	out->source = HC_CREDS_WEB_IDENTITY;
	if (profile)
		snprintf(out->profile, sizeof(out->profile), "%s", profile);
	return 0;
fail:
	cred_provider_put(p);
	return rc;
}

/* Web identity of the environment through STS at @sts (cred_endpoint()'s). */
static int cred_web_identity(char *const envp[], const char *sts,
			     struct hc_creds *out, char *err, size_t errlen)
{
	const char *file = cred_env(envp, "AWS_WEB_IDENTITY_TOKEN_FILE");
	const char *arn = cred_env(envp, "AWS_ROLE_ARN");

	if (!file != !arn)
		return hc_seterr(err, errlen, -EINVAL,
				 "environment: %s is set but %s is not",
				 file ? "AWS_WEB_IDENTITY_TOKEN_FILE" : "AWS_ROLE_ARN",
				 file ? "AWS_ROLE_ARN" : "AWS_WEB_IDENTITY_TOKEN_FILE");
	return cred_web_identity_start(envp, "AWS_WEB_IDENTITY_TOKEN_FILE", NULL,
				       file, arn,
				       cred_env(envp, "AWS_ROLE_SESSION_NAME"),
				       sts, out, err, errlen);
}

static int cred_process(const struct hc_backend *b, char *const envp[],
			const struct cred_profile *pr, struct hc_creds *out,
			char *err, size_t errlen)
{
	struct hc_credp *p = cred_provider_new(HC_CREDS_PROCESS, envp);
	int rc;

	if (!p)
		return hc_seterr(err, errlen, -ENOMEM, "out of memory");
	strcpy(p->process, pr->process);
	strcpy(p->profile, pr->want);
	p->timeout = b && b->process_timeout ? b->process_timeout :
		     HC_PROCESS_TIMEOUT_DEFAULT;
	rc = cred_provider_start(p, out, err, errlen);
	if (!out->provider)
		cred_provider_put(p);	/* failed, or never expires */
	if (!rc)
		out->source = HC_CREDS_PROCESS;
	return rc;
}

/* 0, -ENODEV (no metadata service or no role: go on), or an error. */
static int cred_imds(char *const envp[], struct hc_creds *out,
		     char *err, size_t errlen)
{
	const char *url = cred_env(envp, "AWS_EC2_METADATA_SERVICE_ENDPOINT");
	struct hc_credp *p;
	size_t n;
	int rc;

	p = cred_provider_new(HC_CREDS_IMDS, envp);
	if (!p)
		return hc_seterr(err, errlen, -ENOMEM, "out of memory");
	if (cred_put(p->imds_url, sizeof(p->imds_url),
		     url ? url : CRED_IMDS_DEFAULT)) {
		cred_provider_put(p);
		return hc_seterr(err, errlen, -EINVAL,
				 "AWS_EC2_METADATA_SERVICE_ENDPOINT too long");
	}
	n = strlen(p->imds_url);
	while (n && p->imds_url[n - 1] == '/')
		p->imds_url[--n] = '\0';
	rc = cred_provider_start(p, out, err, errlen);
	if (rc) {
		cred_provider_put(p);
		return rc;
	}
	out->source = HC_CREDS_IMDS;
	return 0;
}

static bool cred_true(const char *v)
{
	return v && (!strcasecmp(v, "true") || !strcmp(v, "1"));
}

struct cred_files {
	char kpath[HC_PATH_MAX + 1], cpath[HC_PATH_MAX + 1];
	int kp, cp;		/* 0: path known */
	bool loaded;
};

/* Profile @pr->want of both files, whose paths cred_profile_load() set. */
static int cred_profile_read(const struct cred_files *f,
			     struct cred_profile *pr, char *err, size_t errlen)
{
	int rc = f->kp ? 0 : cred_profile_file(pr, f->kpath, err, errlen);

	if (!rc && !f->cp) {
		pr->config = true;
		rc = cred_profile_file(pr, f->cpath, err, errlen);
	}
	return rc;
}

/* The chosen profile @pr of both files, once: only when the chain needs it. */
static int cred_profile_load(struct cred_files *f, char *const envp[],
			     const char *home, struct cred_profile *pr,
			     char *err, size_t errlen)
{
	if (f->loaded)
		return 0;
	f->loaded = true;
	f->kp = cred_path(f->kpath, sizeof(f->kpath), envp,
			  "AWS_SHARED_CREDENTIALS_FILE", home, "credentials");
	f->cp = cred_path(f->cpath, sizeof(f->cpath), envp, "AWS_CONFIG_FILE",
			  home, "config");
	if (f->kp == -ENAMETOOLONG || f->cp == -ENAMETOOLONG)
		return hc_seterr(err, errlen, -ENAMETOOLONG,
				 "the path of ~/.aws/credentials or ~/.aws/config is too long");
	return cred_profile_read(f, pr, err, errlen);
}

/* Where a profile was looked for, for messages. */
static const char *cred_files_name(const struct cred_files *f, bool config)
{
	if (config)
		return f->cp ? "~/.aws/config" : f->cpath;
	return f->kp ? "~/.aws/credentials" : f->kpath;
}

/* A service whose endpoint the chain chooses. */
struct cred_service {
	const char *env;	/* AWS_ENDPOINT_URL_<ID> */
	const char *key;	/* its sub-section of [services NAME] */
	const char *dflt;	/* printf format of the region */
};

static const struct cred_service cred_s3 = {
	"AWS_ENDPOINT_URL_S3", "s3", "https://s3.%s.amazonaws.com"
};
static const struct cred_service cred_sts = {
	"AWS_ENDPOINT_URL_STS", "sts", "https://sts.%s.amazonaws.com/"
};

/* [services NAME] of the config file: one service's endpoint_url. */
struct cred_services {
	const char *want;	/* NAME */
	const char *key;	/* "s3" */
	bool found;
	bool bad;
	char url[HC_CRED_ENDPOINT_MAX + 1];
};

/*
 * The AWS files nest a service's settings under "s3 =" in indented lines,
 * which libinih hands over as further values of "s3": "endpoint_url = URL".
 */
static int cred_services_key(void *user, const char *section,
			     const char *name, const char *value)
{
	struct cred_services *c = user;
	const char *v = value;
	size_t n = strlen("endpoint_url");

	if (strncmp(section, "services ", 9) || strcmp(section + 9, c->want))
		return 1;
	c->found = true;
	if (strcmp(name, c->key) || strncmp(v, "endpoint_url", n))
		return 1;
	for (v += n; *v == ' ' || *v == '\t'; v++)
		;
	if (*v != '=')
		return 1;	/* endpoint_url_something */
	for (v++; *v == ' ' || *v == '\t'; v++)
		;
	if (*c->url)
		return 1;	/* the first wins */
	if (cred_put(c->url, sizeof(c->url), v) || hc_config_url_problem(v)) {
		c->bad = true;
		return 0;
	}
	return 1;
}

const char *hc_endpoint_source_name(enum hc_endpoint_source s)
{
	switch (s) {
	case HC_ENDPOINT_CONFIG:
		return "the configuration";
	case HC_ENDPOINT_ENV_S3:
		return "AWS_ENDPOINT_URL_S3";
	case HC_ENDPOINT_ENV:
		return "AWS_ENDPOINT_URL";
	case HC_ENDPOINT_SERVICES:
		return "the profile's services section";
	case HC_ENDPOINT_PROFILE:
		return "the profile's endpoint_url";
	case HC_ENDPOINT_DEFAULT:
		return "the AWS default for the region";
	}
	return "?";
}

/*
 * The endpoint of service @sv as the AWS SDKs choose it ("Service-specific
 * endpoints"): @given (the backend's `endpoint`; NULL or "": none); unless
 * AWS_IGNORE_CONFIGURED_ENDPOINT_URLS (else the profile's
 * ignore_configured_endpoint_urls) is true, AWS_ENDPOINT_URL_<ID>,
 * AWS_ENDPOINT_URL, the service's endpoint_url in the profile's
 * [services NAME] section, the profile's endpoint_url; else the AWS default
 * of @region.  Into @url (HC_CRED_ENDPOINT_MAX + 1 bytes), where from in
 * *@src (HC_ENDPOINT_ENV_S3 stands for any AWS_ENDPOINT_URL_<ID>).
 */
static int cred_endpoint(const struct cred_service *sv, const char *given,
			 char *const envp[], const char *home,
			 struct cred_files *f, struct cred_profile *pr,
			 const char *region, char *url,
			 enum hc_endpoint_source *src, char *err, size_t errlen)
{
	const char *ign = cred_env(envp, "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS");
	const char *v = NULL, *name = NULL, *why;
	struct cred_services sec = { .key = sv->key };
	int rc;

	if (given && *given) {
		*src = HC_ENDPOINT_CONFIG;
		return cred_put(url, HC_CRED_ENDPOINT_MAX + 1, given) ?
		       hc_seterr(err, errlen, -EINVAL, "endpoint too long") : 0;
	}
	if (!ign) {
		rc = cred_profile_load(f, envp, home, pr, err, errlen);
		if (rc)
			return rc;
		ign = *pr->ignore_endpoints ? pr->ignore_endpoints : NULL;
	}
	if (cred_true(ign))
		goto dflt;
	if ((v = cred_env(envp, sv->env))) {
		name = sv->env;
		*src = HC_ENDPOINT_ENV_S3;
	} else if ((v = cred_env(envp, "AWS_ENDPOINT_URL"))) {
		name = "AWS_ENDPOINT_URL";
		*src = HC_ENDPOINT_ENV;
	}
	if (v) {
		why = hc_config_url_problem(v);
		if (why || strlen(v) > HC_CRED_ENDPOINT_MAX)
			return hc_seterr(err, errlen, -EINVAL, "%s: %s \"%.200s\"",
					 name, why ? why : "longer than 1023 bytes in",
					 v);
		strcpy(url, v);
		return 0;
	}
	rc = cred_profile_load(f, envp, home, pr, err, errlen);
	if (rc)
		return rc;
	if (*pr->services && !f->cp) {
		sec.want = pr->services;
		rc = hc_ini_file(f->cpath, cred_services_key, &sec, err, errlen);
		if (rc && sec.bad) {
			size_t n = err ? strlen(err) : 0;

			if (err && n < errlen)
				snprintf(err + n, errlen - n,
					 ": [services %s] %s endpoint_url empty, too long or malformed",
					 pr->services, sv->key);
		}
		if (rc && rc != -ENOENT)
			return rc;
		if (!sec.found)
			return hc_seterr(err, errlen, -ENOENT,
					 "profile [%s]: services = %s, but %s has no [services %s]",
					 pr->want, pr->services, f->cpath,
					 pr->services);
		if (*sec.url) {
			strcpy(url, sec.url);
			*src = HC_ENDPOINT_SERVICES;
			return 0;
		}
	}
	if (*pr->endpoint_url) {
		strcpy(url, pr->endpoint_url);
		*src = HC_ENDPOINT_PROFILE;
		return 0;
	}
dflt:
	snprintf(url, HC_CRED_ENDPOINT_MAX + 1, sv->dflt, region);
	*src = HC_ENDPOINT_DEFAULT;
	return 0;
}

/* ------------------------------------------------- assume-role profiles */

/* What resolving a role needs of the chain; the profiles it went through. */
struct cred_roles {
	const struct hc_backend *b;
	char *const *envp;
	const char *home;
	struct cred_files *f;
	struct cred_profile *top;		/* the chosen profile */
	const char *region;			/* STS's signing region */
	char sts[HC_CRED_ENDPOINT_MAX + 1];	/* "" until chosen */
	const char *chain[CRED_ROLE_DEPTH_MAX];	/* profile names, top first */
	unsigned int depth;
};

#define CRED_CHAIN_MAX	((HC_CRED_NAME_MAX + 4) * (CRED_ROLE_DEPTH_MAX + 1))

_Static_assert(sizeof(((struct hc_credp *)0)->sts_url) ==
	       sizeof(((struct cred_roles *)0)->sts), "one STS URL size");

/* STS's endpoint, chosen as S3's is, for the chosen profile: once. */
static int cred_roles_sts(struct cred_roles *x, char *err, size_t errlen)
{
	enum hc_endpoint_source src;

	if (*x->sts)
		return 0;
	return cred_endpoint(&cred_sts, NULL, x->envp, x->home, x->f, x->top,
			     x->region, x->sts, &src, err, errlen);
}

/* "a -> b -> @next" into @buf (CRED_CHAIN_MAX + 1 bytes). */
static const char *cred_roles_chain(const struct cred_roles *x,
				    const char *next, char *buf)
{
	size_t n = 0;
	unsigned int i;

	for (i = 0; i < x->depth; i++)
		n += (size_t)sprintf(buf + n, "%s -> ", x->chain[i]);
	sprintf(buf + n, "%s", next);
	return buf;
}

static bool cred_profile_has_keys(const struct cred_profile *pr)
{
	return *pr->access_key || *pr->secret_key;
}

/* The static keys of profile @pr. */
static int cred_profile_keys(const struct cred_profile *pr,
			     struct hc_creds *out, char *err, size_t errlen)
{
	if (!*pr->access_key || !*pr->secret_key)
		return hc_seterr(err, errlen, -EINVAL,
				 "profile [%s]: needs aws_access_key_id and aws_secret_access_key",
				 pr->want);
	out->source = HC_CREDS_FILE;
	strcpy(out->access_key, pr->access_key);
	strcpy(out->secret_key, pr->secret_key);
	strcpy(out->session_token, pr->session_token);
	strcpy(out->profile, pr->want);
	return 0;
}

/* A web_identity_token_file needs its role_arn, as in the environment. */
static int cred_profile_check(const struct cred_profile *pr, char *err,
			      size_t errlen)
{
	if (*pr->token_file && !*pr->role_arn)
		return hc_seterr(err, errlen, -EINVAL,
				 "profile [%s]: web_identity_token_file is set but role_arn is not",
				 pr->want);
	return 0;
}

static int cred_role(struct cred_roles *x, const struct cred_profile *pr,
		     struct hc_creds *out, char *err, size_t errlen);

/*
 * The credentials that profile @pr, the source_profile of @of, stands for
 * (botocore's rule): its web identity, else its keys (even beside a
 * role_arn), else its own role (chaining), else its credential_process.
 */
static int cred_source_profile(struct cred_roles *x,
			       const struct cred_profile *pr, const char *of,
			       struct hc_creds *out, char *err, size_t errlen)
{
	int rc = cred_profile_check(pr, err, errlen);

	if (rc)
		return rc;
	if (*pr->role_arn && (*pr->token_file || !cred_profile_has_keys(pr)))
		return cred_role(x, pr, out, err, errlen);
	if (cred_profile_has_keys(pr))
		return cred_profile_keys(pr, out, err, errlen);
	if (*pr->process)
		return cred_process(x->b, x->envp, pr, out, err, errlen);
	return hc_seterr(err, errlen, -EINVAL,
			 "profile [%s]: its source_profile [%s] has no credentials (aws_access_key_id, credential_process, role_arn or web_identity_token_file)",
			 of, pr->want);
}

/* The source credentials of role profile @pr, into @src. */
static int cred_role_source(struct cred_roles *x,
			    const struct cred_profile *pr,
			    struct hc_creds *src, char *err, size_t errlen)
{
	const char *name = pr->source_profile;
	char chain[CRED_CHAIN_MAX + 1];
	struct cred_profile *sp;
	unsigned int i;
	int rc;

	if (!strcasecmp(pr->cred_source, "Environment")) {
		if (!cred_env(x->envp, "AWS_ACCESS_KEY_ID") &&
		    !cred_env(x->envp, "AWS_SECRET_ACCESS_KEY"))
			return hc_seterr(err, errlen, -ENOENT,
					 "profile [%s]: credential_source = Environment, but AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set",
					 pr->want);
		rc = cred_env_keys(x->envp, src, err, errlen);
		if (rc)
			cred_err_prefix(err, errlen, "profile [%s]: credential_source = Environment: ",
					pr->want);
		return rc;
	}
	if (!strcasecmp(pr->cred_source, "Ec2InstanceMetadata")) {
		rc = cred_imds(x->envp, src, err, errlen);
		if (rc)
			cred_err_prefix(err, errlen, "profile [%s]: credential_source = Ec2InstanceMetadata: ",
					pr->want);
		return rc;
	}
	if (!strcmp(name, pr->want)) {	/* its own keys, and its role */
		if (cred_profile_has_keys(pr))
			return cred_profile_keys(pr, src, err, errlen);
		return hc_seterr(err, errlen, -ELOOP,
				 "profile [%s]: source_profile chain %s loops (a profile may be its own source_profile only with aws_access_key_id and aws_secret_access_key)",
				 x->chain[0], cred_roles_chain(x, name, chain));
	}
	for (i = 0; i < x->depth; i++)
		if (!strcmp(x->chain[i], name))
			return hc_seterr(err, errlen, -ELOOP,
					 "profile [%s]: source_profile chain %s loops",
					 x->chain[0], cred_roles_chain(x, name, chain));
	if (x->depth == CRED_ROLE_DEPTH_MAX)
		return hc_seterr(err, errlen, -ELOOP,
				 "profile [%s]: source_profile chain %s is longer than %d profiles",
				 x->chain[0], cred_roles_chain(x, name, chain),
				 CRED_ROLE_DEPTH_MAX);
	sp = calloc(1, sizeof(*sp));
	if (!sp)
		return hc_seterr(err, errlen, -ENOMEM, "out of memory");
	sp->want = name;
	rc = cred_profile_read(x->f, sp, err, errlen);
	if (!rc && !sp->found)
		rc = hc_seterr(err, errlen, -ENOENT,
			       "profile [%s]: source_profile = %s: no such profile in %s or %s",
			       pr->want, name, cred_files_name(x->f, false),
			       cred_files_name(x->f, true));
	if (!rc) {
		x->chain[x->depth++] = name;
		rc = cred_source_profile(x, sp, pr->want, src, err, errlen);
		x->depth--;
	}
	explicit_bzero(sp, sizeof(*sp));
	free(sp);
	return rc;
}

/*
 * Role profile @pr: web identity when it has a web_identity_token_file,
 * else STS AssumeRole signed with its source's credentials (source_profile
 * or credential_source), refreshed before it expires.  Everything in the
 * chain is checked before any STS call: calls are made as it unwinds.
 */
static int cred_role(struct cred_roles *x, const struct cred_profile *pr,
		     struct hc_creds *out, char *err, size_t errlen)
{
	const char *cs = pr->cred_source;
	unsigned long dur = 0;
	struct hc_credp *p;
	char *end;
	int rc;

	if (*pr->token_file) {
		char what[HC_CRED_NAME_MAX + 48];

		rc = cred_roles_sts(x, err, errlen);
		if (rc)
			return rc;
		snprintf(what, sizeof(what), "profile [%s] web_identity_token_file",
			 pr->want);
		return cred_web_identity_start(x->envp, what, pr->want,
					       pr->token_file, pr->role_arn,
					       *pr->session_name ?
					       pr->session_name : NULL,
					       x->sts, out, err, errlen);
	}
	if (*pr->mfa_serial)
		return hc_seterr(err, errlen, -EOPNOTSUPP,
				 "profile [%s]: mfa_serial = %s: AssumeRole would need an MFA token code typed in at every refresh, which a daemon cannot ask for; give the role a source that needs no MFA",
				 pr->want, pr->mfa_serial);
	if (!*pr->source_profile == !*cs)
		return hc_seterr(err, errlen, -EINVAL,
				 "profile [%s]: role_arn needs exactly one of source_profile and credential_source, not %s",
				 pr->want, *cs ? "both" : "neither");
	if (*cs && strcasecmp(cs, "Environment") &&
	    strcasecmp(cs, "Ec2InstanceMetadata")) {
		if (!strcasecmp(cs, "EcsContainer"))
			return hc_seterr(err, errlen, -EOPNOTSUPP,
					 "profile [%s]: credential_source = EcsContainer: the ECS container credentials endpoint is not supported",
					 pr->want);
		return hc_seterr(err, errlen, -EINVAL,
				 "profile [%s]: credential_source = %s: expected Environment, Ec2InstanceMetadata or EcsContainer",
				 pr->want, cs);
	}
	if (*pr->duration) {
		errno = 0;
		dur = strtoul(pr->duration, &end, 10);
		if (pr->duration[0] < '0' || pr->duration[0] > '9' || *end ||
		    errno || dur < CRED_DURATION_MIN || dur > CRED_DURATION_MAX)
			return hc_seterr(err, errlen, -EINVAL,
					 "profile [%s]: duration_seconds = %s: expected %d..%d seconds",
					 pr->want, pr->duration,
					 CRED_DURATION_MIN, CRED_DURATION_MAX);
	}
	rc = cred_roles_sts(x, err, errlen);
	if (rc)
		return rc;
	p = cred_provider_new(HC_CREDS_ASSUME_ROLE, x->envp);
	if (!p)
		return hc_seterr(err, errlen, -ENOMEM, "out of memory");
	strcpy(p->role_arn, pr->role_arn);
	strcpy(p->profile, pr->want);
	strcpy(p->external_id, pr->external_id);
	strcpy(p->region, x->region);
	strcpy(p->sts_url, x->sts);
	p->duration = (unsigned int)dur;
	if (*pr->session_name)
		strcpy(p->session_name, pr->session_name);
	else
		snprintf(p->session_name, sizeof(p->session_name),
			 "hypercache-%lld", (long long)time(NULL));
	rc = cred_role_source(x, pr, &p->src, err, errlen);
	if (!rc)
		rc = cred_provider_start(p, out, err, errlen);
	if (rc) {
		cred_provider_put(p);
		return rc;
	}
	out->source = HC_CREDS_ASSUME_ROLE;
	strcpy(out->profile, pr->want);
	return 0;
}

/*
 * Whether the chosen profile is a role whose chain of source_profile ends
 * in credential_source = Environment: then the environment's keys are that
 * role's source, not the credentials (the SDKs' rule for a profile named
 * explicitly).  The links are followed by cred_source_profile()'s rule; a
 * loop or a missing profile is left for the resolution to report.
 */
static int cred_env_feeds_role(struct cred_roles *x, bool *yes, char *err,
			       size_t errlen)
{
	const struct cred_profile *p = x->top;
	char name[HC_CRED_NAME_MAX + 1];
	struct cred_profile *q = NULL;
	unsigned int i;
	int rc;

	*yes = false;
	rc = cred_profile_load(x->f, x->envp, x->home, x->top, err, errlen);
	for (i = 0; !rc && i < CRED_ROLE_DEPTH_MAX; i++) {
		if (!*p->role_arn || *p->token_file ||
		    (i && cred_profile_has_keys(p)))
			break;
		if (*p->cred_source) {
			*yes = !strcasecmp(p->cred_source, "Environment");
			break;
		}
		if (!*p->source_profile || !strcmp(p->source_profile, p->want))
			break;
		if (!q) {
			q = malloc(sizeof(*q));
			if (!q) {
				rc = hc_seterr(err, errlen, -ENOMEM, "out of memory");
				break;
			}
		}
		strcpy(name, p->source_profile);	/* p may be q */
		memset(q, 0, sizeof(*q));
		q->want = name;
		rc = cred_profile_read(x->f, q, err, errlen);
		p = q;
	}
	if (q) {
		explicit_bzero(q, sizeof(*q));
		free(q);
	}
	return rc;
}

/* The whole chain; @pr is scratch space. */
static int cred_chain(const struct hc_backend *b, char *const envp[],
		      const char *home, struct cred_profile *pr,
		      struct hc_creds *out, char *err, size_t errlen)
{
	const char *profile = cred_env(envp, "AWS_PROFILE");
	struct cred_files f = { .loaded = false };
	struct cred_roles x = {
		.b = b, .envp = envp, .home = home, .f = &f, .top = pr,
		.region = out->region, .depth = 1,
	};
	const char *r;
	int rc;

	pr->want = profile ? profile : "default";
	x.chain[0] = pr->want;
	if (strlen(pr->want) > HC_CRED_NAME_MAX)
		return hc_seterr(err, errlen, -EINVAL,
				 "AWS_PROFILE: longer than %d bytes",
				 HC_CRED_NAME_MAX);

	/* the region first: STS's default endpoint is regional */
	r = b && b->region_set ? b->region : cred_env(envp, "AWS_REGION");
	if (!r)
		r = cred_env(envp, "AWS_DEFAULT_REGION");
	if (!r) {
		rc = cred_profile_load(&f, envp, home, pr, err, errlen);
		if (rc)
			return rc;
		r = *pr->region ? pr->region : "us-east-1";
	}
	if (!cred_region_ok(r))
		return hc_seterr(err, errlen, -EINVAL,
				 "region \"%.70s\": expected a-z 0-9 -", r);
	strcpy(out->region, r);
	rc = cred_endpoint(&cred_s3, b ? b->endpoint : NULL, envp, home, &f,
			   pr, out->region, out->endpoint,
			   &out->endpoint_source, err, errlen);
	if (rc)
		return rc;

	if (b && b->anonymous) {
		out->source = HC_CREDS_ANONYMOUS;
		return 0;
	}
	if (b && b->access_key[0] && b->secret_key[0]) {
		out->source = HC_CREDS_CONFIG;
		strcpy(out->access_key, b->access_key);
		strcpy(out->secret_key, b->secret_key);
		return 0;
	}
	if (cred_env(envp, "AWS_ACCESS_KEY_ID") ||
	    cred_env(envp, "AWS_SECRET_ACCESS_KEY")) {
		bool feeds;

		rc = cred_env_feeds_role(&x, &feeds, err, errlen);
		if (rc)
			return rc;
		if (!feeds)
			return cred_env_keys(envp, out, err, errlen);
	} else if (cred_env(envp, "AWS_WEB_IDENTITY_TOKEN_FILE") ||
		   cred_env(envp, "AWS_ROLE_ARN")) {
		rc = cred_roles_sts(&x, err, errlen);
		if (rc)
			return rc;
		return cred_web_identity(envp, x.sts, out, err, errlen);
	}
	rc = cred_profile_load(&f, envp, home, pr, err, errlen);
	if (!rc)
		rc = cred_profile_check(pr, err, errlen);
	if (rc)
		return rc;
	if (*pr->role_arn)	/* its keys, if any, are its source's */
		return cred_role(&x, pr, out, err, errlen);
	if (cred_profile_has_keys(pr))
		return cred_profile_keys(pr, out, err, errlen);
	if (*pr->process) {
		strcpy(out->profile, pr->want);
		return cred_process(b, envp, pr, out, err, errlen);
	}
	if (profile && !pr->found)
		return hc_seterr(err, errlen, -ENOENT,
				 "AWS_PROFILE=%s: no such profile in %s or %s",
				 profile, cred_files_name(&f, false),
				 cred_files_name(&f, true));
	if (!cred_true(cred_env(envp, "AWS_EC2_METADATA_DISABLED"))) {
		rc = cred_imds(envp, out, err, errlen);
		if (rc != -ENODEV)
			return rc;
	}
	if (err && errlen)
		err[0] = '\0';
	out->source = HC_CREDS_ANONYMOUS;
	return 0;
}

int hc_creds_lookup(const struct hc_backend *b, char *const envp[],
		    const char *home, struct hc_creds *out,
		    char *err, size_t errlen)
{
	struct cred_profile *pr;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	memset(out, 0, sizeof(*out));
	if (!home)
		home = cred_env(envp, "HOME");
	pr = calloc(1, sizeof(*pr));
	if (!pr)
		return hc_seterr(err, errlen, -ENOMEM, "out of memory");
	rc = cred_chain(b, envp, home, pr, out, err, errlen);
	explicit_bzero(pr, sizeof(*pr));
	free(pr);
	if (rc)
		hc_creds_release(out);
	return rc;
}
