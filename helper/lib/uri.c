// SPDX-License-Identifier: GPL-2.0
/*
 * Object URIs: s3://bucket/key and hypercache://name/key.  See uri.h.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "uri.h"
#include "util.h"

static bool uri_lower_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* Four dot-separated decimal groups of 1..3 digits: "192.168.5.4". */
static bool uri_looks_ipv4(const char *b)
{
	int groups = 0, digits = 0;

	for (;; b++) {
		if (*b >= '0' && *b <= '9') {
			if (++digits > 3)
				return false;
		} else if (*b == '.' || *b == '\0') {
			if (!digits)
				return false;
			groups++;
			digits = 0;
			if (!*b)
				break;
		} else {
			return false;
		}
	}
	return groups == 4;
}

int uri_bucket_check(const char *b, char *err, size_t errlen)
{
	size_t len = strlen(b), i;

	if (len < URI_BUCKET_MIN || len > URI_BUCKET_MAX)
		return hc_seterr(err, errlen, -EINVAL,
				"bucket '%.80s': length %zu, must be %d..%d",
				b, len, URI_BUCKET_MIN, URI_BUCKET_MAX);
	for (i = 0; i < len; i++) {
		char c = b[i];

		if (c >= 'A' && c <= 'Z')
			return hc_seterr(err, errlen, -EINVAL,
					"bucket '%s': upper-case '%c' (names are lower-case)",
					b, c);
		if (!uri_lower_alnum(c) && c != '.' && c != '-')
			return hc_seterr(err, errlen, -EINVAL,
					"bucket '%s': character 0x%02x at %zu not allowed (a-z 0-9 . -)",
					b, (unsigned char)c, i);
		if (c == '.' && i && b[i - 1] == '.')
			return hc_seterr(err, errlen, -EINVAL,
					"bucket '%s': adjacent dots at %zu", b, i - 1);
	}
	if (!uri_lower_alnum(b[0]) || !uri_lower_alnum(b[len - 1]))
		return hc_seterr(err, errlen, -EINVAL,
				"bucket '%s': must begin and end with a letter or digit", b);
	if (uri_looks_ipv4(b))
		return hc_seterr(err, errlen, -EINVAL,
				"bucket '%s': formatted as an IP address", b);
	if (!strncmp(b, "xn--", 4))
		return hc_seterr(err, errlen, -EINVAL,
				"bucket '%s': prefix 'xn--' is reserved", b);
	if (len >= 8 && !strcmp(b + len - 8, "-s3alias"))
		return hc_seterr(err, errlen, -EINVAL,
				"bucket '%s': suffix '-s3alias' is reserved", b);
	return 0;
}

int uri_key_check(const char *k, size_t len, char *err, size_t errlen)
{
	if (len == 0)
		return hc_seterr(err, errlen, -EINVAL, "key is empty");
	if (len > URI_KEY_MAX)
		return hc_seterr(err, errlen, -EINVAL, "key is %zu bytes, at most %d",
				len, URI_KEY_MAX);
	if (memchr(k, '\0', len))
		return hc_seterr(err, errlen, -EINVAL, "key contains a NUL byte at %zu",
				(size_t)((const char *)memchr(k, '\0', len) - k));
	return 0;
}

static int uri_name_check(const char *n, char *err, size_t errlen)
{
	size_t len = strlen(n), i;

	if (len == 0 || len > URI_NAME_MAX)
		return hc_seterr(err, errlen, -EINVAL,
				"backend name '%.80s': length %zu, must be 1..%d",
				n, len, URI_NAME_MAX);
	if (!uri_lower_alnum(n[0]))
		return hc_seterr(err, errlen, -EINVAL,
				"backend name '%s': must begin with a-z or 0-9", n);
	for (i = 0; i < len; i++)
		if (!uri_lower_alnum(n[i]) && n[i] != '-' && n[i] != '_')
			return hc_seterr(err, errlen, -EINVAL,
					"backend name '%s': character 0x%02x at %zu not allowed (a-z 0-9 _ -)",
					n, (unsigned char)n[i], i);
	return 0;
}

static int uri_parse_as(const char *s, size_t len, bool prefix,
			struct uri *out, char *err, size_t errlen)
{
	static const char s3[] = "s3://", hc[] = "hypercache://";
	const char *auth, *slash, *end = s + len;
	size_t alen, max;
	char *dst;
	int rc;

	if (!s || !out)
		return hc_seterr(err, errlen, -EINVAL, "NULL argument");
	memset(out, 0, sizeof(*out));
	if (len >= sizeof(s3) - 1 && !memcmp(s, s3, sizeof(s3) - 1)) {
		out->scheme = URI_S3;
		auth = s + sizeof(s3) - 1;
		dst = out->bucket;
		max = URI_BUCKET_MAX;
	} else if (len >= sizeof(hc) - 1 && !memcmp(s, hc, sizeof(hc) - 1)) {
		out->scheme = URI_NAMED;
		auth = s + sizeof(hc) - 1;
		dst = out->backend;
		max = URI_NAME_MAX;
	} else {
		return hc_seterr(err, errlen, -EINVAL,
				"'%.*s': scheme must be s3:// or hypercache://",
				(int)(len > 80 ? 80 : len), s);
	}
	slash = memchr(auth, '/', (size_t)(end - auth));
	if (!slash)
		return hc_seterr(err, errlen, -EINVAL, "'%.*s': no '/' before the key",
				(int)(len > 80 ? 80 : len), s);
	alen = (size_t)(slash - auth);
	if (memchr(auth, '\0', alen))
		return hc_seterr(err, errlen, -EINVAL, "%s contains a NUL byte",
				out->scheme == URI_S3 ? "bucket" : "backend name");
	if (alen > max)
		return hc_seterr(err, errlen, -EINVAL, "%s '%.*s...': longer than %zu",
				out->scheme == URI_S3 ? "bucket" : "backend name",
				40, auth, max);
	memcpy(dst, auth, alen);
	dst[alen] = '\0';
	rc = out->scheme == URI_S3 ? uri_bucket_check(dst, err, errlen)
				   : uri_name_check(dst, err, errlen);
	if (rc)
		return rc;
	out->key_len = (size_t)(end - slash - 1);
	if (!(prefix && !out->key_len)) {
		rc = uri_key_check(slash + 1, out->key_len, err, errlen);
		if (rc)
			return rc;
	}
	memcpy(out->key, slash + 1, out->key_len);
	out->key[out->key_len] = '\0';
	return 0;
}

int uri_parse(const char *s, size_t len, struct uri *out,
	      char *err, size_t errlen)
{
	return uri_parse_as(s, len, false, out, err, errlen);
}

int uri_parse_prefix(const char *s, size_t len, struct uri *out,
		     char *err, size_t errlen)
{
	return uri_parse_as(s, len, true, out, err, errlen);
}
