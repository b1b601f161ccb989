// SPDX-License-Identifier: GPL-2.0
/*
 * AWS Signature Version 4: canonical request, string to sign, signing key,
 * signature and Authorization header.  See sigv4.h for the contract and
 * Documentation/s3.md for the choices.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include "sigv4.h"
#include "util.h"

#define SIGV4_MAX_FIELD 4096	/* bound on region/service/date/secret */

/* ---------------------------------------------------------------- hashing */

static void sigv4_hex(const unsigned char *b, size_t n, char *hex)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		hex[2 * i] = digits[b[i] >> 4];
		hex[2 * i + 1] = digits[b[i] & 15];
	}
	hex[2 * n] = '\0';
}

void sigv4_sha256_hex(const void *data, size_t len, char hex[65])
{
	unsigned char md[SHA256_DIGEST_LENGTH];

	SHA256(data, len, md);
	sigv4_hex(md, sizeof(md), hex);
}

static void sigv4_hmac(const void *key, size_t klen, const char *msg,
		       unsigned char out[32])
{
	unsigned int olen = 32;

	HMAC(EVP_sha256(), key, (int)klen, (const unsigned char *)msg,
	     strlen(msg), out, &olen);
}

int sigv4_signing_key(const char *secret, const char *date,
		      const char *region, const char *service,
		      unsigned char key[32])
{
	char k0[4 + SIGV4_MAX_FIELD + 1];
	unsigned char k[32];

	if (!secret || !date || !region || !service ||
	    strlen(secret) > SIGV4_MAX_FIELD)
		return -EINVAL;
	snprintf(k0, sizeof(k0), "AWS4%s", secret);
	sigv4_hmac(k0, strlen(k0), date, k);
	sigv4_hmac(k, 32, region, k);
	sigv4_hmac(k, 32, service, k);
	sigv4_hmac(k, 32, "aws4_request", key);
	OPENSSL_cleanse(k0, sizeof(k0));
	OPENSSL_cleanse(k, sizeof(k));
	return 0;
}

/* --------------------------------------------------------------- encoding */

static bool sigv4_unreserved(unsigned char c)
{
	return isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

char *sigv4_uri_encode(const char *s, size_t len, bool keep_slash)
{
	static const char digits[] = "0123456789ABCDEF";
	char *out = malloc(3 * len + 1), *p = out;
	size_t i;

	if (!out)
		return NULL;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (sigv4_unreserved(c) || (keep_slash && c == '/')) {
			*p++ = (char)c;
		} else {
			*p++ = '%';
			*p++ = digits[c >> 4];
			*p++ = digits[c & 15];
		}
	}
	*p = '\0';
	return out;
}

static int sigv4_hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Percent-decode @len bytes of @s, then encode them (RFC 3986). */
static int sigv4_query_recode(const char *s, size_t len, char **out,
			      char *err, size_t errlen)
{
	char *raw = malloc(len + 1);
	size_t i, n = 0;

	if (!raw)
		return -ENOMEM;
	for (i = 0; i < len; i++) {
		if (s[i] != '%') {
			raw[n++] = s[i];
			continue;
		}
		if (i + 2 >= len) {
			free(raw);
			return hc_seterr(err, errlen, -EINVAL,
					  "query: truncated %%-escape in '%.*s'",
					  (int)len, s);
		}
		if (sigv4_hexval(s[i + 1]) < 0 || sigv4_hexval(s[i + 2]) < 0) {
			free(raw);
			return hc_seterr(err, errlen, -EINVAL,
					  "query: bad %%-escape in '%.*s'",
					  (int)len, s);
		}
		raw[n++] = (char)(sigv4_hexval(s[i + 1]) * 16 +
				  sigv4_hexval(s[i + 2]));
		i += 2;
	}
	*out = sigv4_uri_encode(raw, n, false);
	free(raw);
	return *out ? 0 : -ENOMEM;
}

/* ------------------------------------------------------------------- path */

/*
 * Remove "." and ".." segments and empty segments ("//").  A trailing
 * slash (or a final "." / "..") is kept as a trailing slash, unless the
 * result is the root.  Returns a malloc'd path or NULL.
 */
static char *sigv4_path_normalise(const char *path)
{
	size_t len = strlen(path), n = 0, i = 0;
	char *out = malloc(len + 2);
	bool trailing = false;

	if (!out)
		return NULL;
	while (i < len) {
		size_t start, seglen;

		while (i < len && path[i] == '/')
			i++;
		start = i;
		while (i < len && path[i] != '/')
			i++;
		seglen = i - start;
		trailing = i == len ? false : true;
		if (seglen == 0) {
			trailing = true;
			continue;
		}
		if (seglen == 1 && path[start] == '.') {
			trailing = true;
			continue;
		}
		if (seglen == 2 && path[start] == '.' && path[start + 1] == '.') {
			while (n > 0 && out[n - 1] != '/')
				n--;
			if (n > 0)
				n--;	/* the '/' before the popped segment */
			trailing = true;
			continue;
		}
		out[n++] = '/';
		memcpy(out + n, path + start, seglen);
		n += seglen;
	}
	if (n == 0 || trailing)
		out[n++] = '/';
	out[n] = '\0';
	return out;
}

/* ---------------------------------------------------------------- headers */

struct sigv4_hdr {
	char *name;		/* lower-case, malloc'd */
	char *value;		/* trimmed, folded, malloc'd */
	size_t order;		/* position given: keeps duplicates in order */
};

static int sigv4_hdr_cmp(const void *a, const void *b)
{
	const struct sigv4_hdr *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

static bool sigv4_token_char(unsigned char c)
{
	return c > 32 && c < 127 && !strchr("\"(),/:;<=>?@[\\]{}", c);
}

static int sigv4_hdr_make(struct sigv4_hdr *h, const char *name,
			  const char *value, size_t order,
			  char *err, size_t errlen)
{
	size_t i, n = 0;
	const char *v;
	bool space = false;

	if (!name || !*name || !value)
		return hc_seterr(err, errlen, -EINVAL,
				  "header %zu: empty name or NULL value", order);
	for (i = 0; name[i]; i++)
		if (!sigv4_token_char((unsigned char)name[i]))
			return hc_seterr(err, errlen, -EINVAL,
					  "header '%s': invalid character in name",
					  name);
	if (strpbrk(value, "\r\n"))
		return hc_seterr(err, errlen, -EINVAL,
				  "header '%s': value contains CR or LF", name);
	h->name = strdup(name);
	h->value = malloc(strlen(value) + 1);
	h->order = order;
	if (!h->name || !h->value) {
		free(h->name);
		free(h->value);
		h->name = h->value = NULL;
		return -ENOMEM;
	}
	for (i = 0; h->name[i]; i++)
		h->name[i] = (char)tolower((unsigned char)h->name[i]);
	for (v = value; *v; v++) {
		if (*v == ' ' || *v == '\t') {
			space = n > 0;
			continue;
		}
		if (space)
			h->value[n++] = ' ';
		space = false;
		h->value[n++] = *v;
	}
	h->value[n] = '\0';
	return 0;
}

static void sigv4_hdrs_free(struct sigv4_hdr *h, size_t n)
{
	while (n--) {
		free(h[n].name);
		free(h[n].value);
	}
	free(h);
}

/*
 * An implied header: if the request has it, its (folded) value must be
 * @want; if not, it is appended to @h and listed in @out->added.
 */
static int sigv4_implied(struct sigv4_hdr *h, size_t *n, const char *lname,
			 const char *want, struct sigv4_result *out,
			 char *err, size_t errlen)
{
	size_t i;
	int rc;

	for (i = 0; i < *n; i++) {
		if (strcmp(h[i].name, lname))
			continue;
		if (strcmp(h[i].value, want))
			return hc_seterr(err, errlen, -EINVAL,
					  "header '%s' is '%s' but the signer uses '%s'",
					  lname, h[i].value, want);
		return 0;
	}
	rc = sigv4_hdr_make(&h[*n], lname, want, *n, err, errlen);
	if (rc)
		return rc;
	(*n)++;
	out->added[out->n_added].name = lname;
	out->added[out->n_added].value = want;
	out->n_added++;
	return 0;
}

/* ------------------------------------------------------------------ query */

struct sigv4_qpair {
	char *name;
	char *value;
};

static int sigv4_qpair_cmp(const void *a, const void *b)
{
	const struct sigv4_qpair *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : strcmp(x->value, y->value);
}

/* Write the canonical query string of @q to @f. */
static int sigv4_query_write(FILE *f, const char *q, char *err, size_t errlen)
{
	struct sigv4_qpair *p;
	size_t cap = 1, n = 0, i;
	const char *s;
	int rc = 0;

	if (!q)
		return 0;
	for (s = q; *s; s++)
		cap += *s == '&';
	p = calloc(cap, sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (s = q; *s && !rc;) {
		size_t len = strcspn(s, "&");
		const char *eq = memchr(s, '=', len);
		size_t nlen = eq ? (size_t)(eq - s) : len;

		if (len) {
			rc = sigv4_query_recode(s, nlen, &p[n].name, err, errlen);
			if (!rc)
				rc = sigv4_query_recode(eq ? eq + 1 : s + len,
							eq ? len - nlen - 1 : 0,
							&p[n].value, err, errlen);
			n++;
		}
		s += len;
		if (*s == '&')
			s++;
	}
	if (!rc) {
		qsort(p, n, sizeof(*p), sigv4_qpair_cmp);
		for (i = 0; i < n; i++)
			fprintf(f, "%s%s=%s", i ? "&" : "", p[i].name, p[i].value);
	}
	for (i = 0; i < n; i++) {
		free(p[i].name);
		free(p[i].value);
	}
	free(p);
	return rc;
}

/* ------------------------------------------------------------------- sign */

static bool sigv4_is_hash(const char *s)
{
	size_t i;

	if (!strcmp(s, SIGV4_UNSIGNED_PAYLOAD))
		return true;
	for (i = 0; i < 64; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return s[64] == '\0';
}

static int sigv4_check(const struct sigv4_request *req,
		       const struct sigv4_credentials *cred,
		       const struct sigv4_params *par, char *err, size_t errlen)
{
	const char *m;

	if (!req || !cred || !par)
		return hc_seterr(err, errlen, -EINVAL, "NULL argument");
	if (!req->method || !*req->method)
		return hc_seterr(err, errlen, -EINVAL, "no method");
	for (m = req->method; *m; m++)
		if (!sigv4_token_char((unsigned char)*m))
			return hc_seterr(err, errlen, -EINVAL,
					  "method '%s': invalid character", req->method);
	if (!req->path || req->path[0] != '/')
		return hc_seterr(err, errlen, -EINVAL,
				  "path must start with '/'");
	if (req->n_headers && !req->headers)
		return hc_seterr(err, errlen, -EINVAL, "NULL header list");
	if (req->payload_hash && !sigv4_is_hash(req->payload_hash))
		return hc_seterr(err, errlen, -EINVAL,
				  "payload hash '%s' is neither 64 lower-case hex digits nor "
				  SIGV4_UNSIGNED_PAYLOAD, req->payload_hash);
	if (!cred->access_key || !*cred->access_key ||
	    strchr(cred->access_key, '/'))
		return hc_seterr(err, errlen, -EINVAL,
				  "access key missing or contains '/'");
	if (!cred->secret_key || !*cred->secret_key ||
	    strlen(cred->secret_key) > SIGV4_MAX_FIELD)
		return hc_seterr(err, errlen, -EINVAL,
				  "secret key missing or too long");
	if (cred->session_token &&
	    (!*cred->session_token || strpbrk(cred->session_token, "\r\n")))
		return hc_seterr(err, errlen, -EINVAL,
				  "session token empty or contains CR/LF");
	if (!par->region || !*par->region || strchr(par->region, '/') ||
	    strlen(par->region) > 64)
		return hc_seterr(err, errlen, -EINVAL,
				  "region missing, too long or contains '/'");
	if (!par->service || !*par->service || strchr(par->service, '/') ||
	    strlen(par->service) > 64)
		return hc_seterr(err, errlen, -EINVAL,
				  "service missing, too long or contains '/'");
	if (par->flags & ~SIGV4_FLAGS_ALL)
		return hc_seterr(err, errlen, -EINVAL,
				  "unknown flags %#x", par->flags & ~SIGV4_FLAGS_ALL);
	return 0;
}

/* Build the canonical request into a malloc'd string at @creq. */
static int sigv4_canonical(const struct sigv4_request *req,
			   const struct sigv4_credentials *cred,
			   const struct sigv4_params *par, const char *phash,
			   struct sigv4_result *out, char **creq,
			   char *err, size_t errlen)
{
	struct sigv4_hdr *h;
	size_t n = 0, i;
	char *path = NULL, *uri = NULL, *buf = NULL;
	size_t buflen = 0;
	FILE *f = NULL;
	int rc = 0;
	bool host = false;

	h = calloc(req->n_headers + SIGV4_MAX_ADDED, sizeof(*h));
	if (!h)
		return -ENOMEM;
	for (i = 0; i < req->n_headers; i++) {
		rc = sigv4_hdr_make(&h[n], req->headers[i].name,
				    req->headers[i].value, i, err, errlen);
		if (rc)
			goto out;
		host |= !strcmp(h[n].name, "host");
		n++;
	}
	if (!host) {
		rc = hc_seterr(err, errlen, -EINVAL, "request has no Host header");
		goto out;
	}
	rc = sigv4_implied(h, &n, "x-amz-date", out->amz_date, out, err, errlen);
	if (!rc && cred->session_token && !(par->flags & SIGV4_TOKEN_UNSIGNED))
		rc = sigv4_implied(h, &n, "x-amz-security-token",
				   cred->session_token, out, err, errlen);
	if (!rc && (par->flags & SIGV4_S3)) {
		snprintf(out->payload_hash, sizeof(out->payload_hash), "%s", phash);
		rc = sigv4_implied(h, &n, "x-amz-content-sha256",
				   out->payload_hash, out, err, errlen);
	}
	if (rc)
		goto out;
	qsort(h, n, sizeof(*h), sigv4_hdr_cmp);

	path = par->flags & SIGV4_S3 ? strdup(req->path)
				     : sigv4_path_normalise(req->path);
	uri = path ? sigv4_uri_encode(path, strlen(path), true) : NULL;
	f = uri ? open_memstream(&buf, &buflen) : NULL;
	if (!f) {
		rc = -ENOMEM;
		goto out;
	}
	fprintf(f, "%s\n%s\n", req->method, uri);
	rc = sigv4_query_write(f, req->query, err, errlen);
	if (rc)
		goto out;
	fputc('\n', f);
	for (i = 0; i < n; i++) {
		if (i && !strcmp(h[i].name, h[i - 1].name))
			fprintf(f, ",%s", h[i].value);
		else
			fprintf(f, "%s%s:%s", i ? "\n" : "", h[i].name, h[i].value);
	}
	fputs("\n\n", f);
	for (i = 0; i < n; i++)
		if (!i || strcmp(h[i].name, h[i - 1].name))
			fprintf(f, "%s%s", i ? ";" : "", h[i].name);
	fprintf(f, "\n%s", phash);
out:
	if (f && fclose(f) && !rc)
		rc = -ENOMEM;
	if (rc)
		free(buf);
	else
		*creq = buf;
	free(uri);
	free(path);
	sigv4_hdrs_free(h, n);
	return rc;
}

/* The signed-headers line of a canonical request: the one before the hash. */
static const char *sigv4_signed_headers(const char *creq, size_t *len)
{
	const char *end = strrchr(creq, '\n');	/* before the payload hash */
	const char *start = end;

	while (start > creq && start[-1] != '\n')
		start--;
	*len = (size_t)(end - start);
	return start;
}

int sigv4_sign(const struct sigv4_request *req,
	       const struct sigv4_credentials *cred,
	       const struct sigv4_params *par,
	       struct sigv4_result *out, char *err, size_t errlen)
{
	char date[9], scope[3 * 64 + 32], creq_hash[65];
	unsigned char key[32], sig[32];
	const char *phash, *sh;
	size_t shlen;
	struct tm tm;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (!out)
		return hc_seterr(err, errlen, -EINVAL, "NULL result");
	memset(out, 0, sizeof(*out));
	rc = sigv4_check(req, cred, par, err, errlen);
	if (rc)
		return rc;
	if (!gmtime_r(&par->timestamp, &tm) ||
	    !strftime(out->amz_date, sizeof(out->amz_date), "%Y%m%dT%H%M%SZ", &tm) ||
	    tm.tm_year + 1900 > 9999 || tm.tm_year + 1900 < 1970)
		return hc_seterr(err, errlen, -EINVAL, "timestamp out of range");
	memcpy(date, out->amz_date, 8);
	date[8] = '\0';
	phash = req->payload_hash ? req->payload_hash : SIGV4_EMPTY_SHA256;

	rc = sigv4_canonical(req, cred, par, phash, out,
			     &out->canonical_request, err, errlen);
	if (rc == -ENOMEM)
		goto nomem;
	if (rc) {
		memset(out, 0, sizeof(*out));
		return rc;
	}
	sigv4_sha256_hex(out->canonical_request,
			 strlen(out->canonical_request), creq_hash);
	snprintf(scope, sizeof(scope), "%s/%s/%s/aws4_request",
		 date, par->region, par->service);
	if (asprintf(&out->string_to_sign, SIGV4_ALGORITHM "\n%s\n%s\n%s",
		     out->amz_date, scope, creq_hash) < 0) {
		out->string_to_sign = NULL;
		goto nomem;
	}
	sigv4_signing_key(cred->secret_key, date, par->region, par->service, key);
	sigv4_hmac(key, sizeof(key), out->string_to_sign, sig);
	OPENSSL_cleanse(key, sizeof(key));
	sigv4_hex(sig, sizeof(sig), out->signature);

	sh = sigv4_signed_headers(out->canonical_request, &shlen);
	if (asprintf(&out->authorization,
		     SIGV4_ALGORITHM " Credential=%s/%s,%sSignedHeaders=%.*s,%sSignature=%s",
		     cred->access_key, scope,
		     par->flags & SIGV4_AUTHZ_COMPACT ? "" : " ",
		     (int)shlen, sh,
		     par->flags & SIGV4_AUTHZ_COMPACT ? "" : " ",
		     out->signature) < 0) {
		out->authorization = NULL;
		goto nomem;
	}
	return 0;
nomem:
	sigv4_result_free(out);
	return hc_seterr(err, errlen, -ENOMEM, "out of memory");
}

void sigv4_result_free(struct sigv4_result *out)
{
	if (!out)
		return;
	free(out->canonical_request);
	free(out->string_to_sign);
	free(out->authorization);
	memset(out, 0, sizeof(*out));
}
