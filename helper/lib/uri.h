/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Object URIs, the keys of the cache index:
 *   s3://BUCKET/KEY            the default S3 backend
 *   hypercache://NAME/KEY      a named backend from the helper's config
 *
 * Pure, thread-safe, no allocation: struct uri holds copies.  The key is
 * taken literally (no percent-decoding): it is the S3 object key.
 *
 * Rules (each refusal returns -EINVAL and a message naming the part):
 *   BUCKET  S3 bucket naming: 3..63 characters of a-z 0-9 . -, beginning
 *           and ending with a letter or digit, no "..", not an IPv4
 *           address, not "xn--..." nor "...-s3alias".
 *   NAME    1..63 characters of a-z 0-9 _ -, beginning with a letter or
 *           digit.
 *   KEY     1..1024 bytes, no NUL (everything after the first '/' that
 *           ends BUCKET or NAME).
 */
#ifndef HC_URI_H
#define HC_URI_H

#include <stddef.h>

#define URI_BUCKET_MIN	3
#define URI_BUCKET_MAX	63
#define URI_NAME_MAX	63
#define URI_KEY_MAX	1024

enum uri_scheme {
	URI_S3,		/* s3://bucket/key */
	URI_NAMED,	/* hypercache://name/key */
};

struct uri {
	enum uri_scheme scheme;
	char bucket[URI_BUCKET_MAX + 1];	/* URI_S3 only, else "" */
	char backend[URI_NAME_MAX + 1];		/* URI_NAMED only, else "" */
	char key[URI_KEY_MAX + 1];
	size_t key_len;
};

/*
 * uri_parse() - parse @len bytes at @s (need not be NUL-terminated; a NUL
 * inside is refused).  Returns 0 and fills @out, or -EINVAL with a message
 * in @err (may be NULL; truncated to @errlen).  @out is undefined on error.
 */
int uri_parse(const char *s, size_t len, struct uri *out,
	      char *err, size_t errlen);

/*
 * uri_parse_prefix() - as uri_parse(), for a URI whose key is a prefix of
 * keys: the key may be empty ("s3://bkt/" lists the bucket).  Messages
 * quote @s as given.
 */
int uri_parse_prefix(const char *s, size_t len, struct uri *out,
		     char *err, size_t errlen);

/* uri_bucket_check() - 0 if @b (NUL-terminated) is a valid bucket name. */
int uri_bucket_check(const char *b, char *err, size_t errlen);

/* uri_key_check() - 0 if @len bytes at @k are a valid key. */
int uri_key_check(const char *k, size_t len, char *err, size_t errlen);

#endif /* HC_URI_H */
