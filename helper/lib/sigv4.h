/* SPDX-License-Identifier: GPL-2.0 */
/*
 * AWS Signature Version 4 (header-based, AWS4-HMAC-SHA256).
 *
 * Pure: no I/O, no clock, no global state; every output is allocated per
 * call and freed with sigv4_result_free().  Thread-safe.  SHA-256 and HMAC
 * come from OpenSSL's libcrypto.
 *
 * Paths.  @path is the raw (unencoded) path of the request, starting
 * with '/'.  The canonical URI is every byte outside RFC 3986's
 * unreserved set and '/' percent-encoded once, upper-case hex.
 *   - SIGV4_S3: the path is used as given, never normalised: S3 keys may
 *     contain "//", "." and ".." (a key "a//b" is not "a/b").  The caller
 *     must send exactly sigv4_uri_encode(path) on the wire.
 *   - generic (no SIGV4_S3): "." and ".." segments are removed and runs of
 *     '/' collapsed first, as the AWS test suite expects of other services.
 *     Services that want "double encoding" get it by passing the already
 *     encoded wire path: its '%' is encoded again as %25.
 *
 * Query.  @query is the query string as on the wire (without '?'); each
 * name and value is percent-decoded, re-encoded with RFC 3986 rules and
 * the pairs sorted by name, then value.  "a" is "a=".
 *
 * Headers.  Every header given is signed.  Names are lower-cased; values
 * trimmed and inner runs of spaces/tabs folded to one space; a header
 * given several times has its values joined with ',' in the order given.
 * A value may not contain CR, LF or NUL (unfold obs-fold first).
 *
 * Implied headers.  The signer also signs x-amz-date (from @timestamp),
 * x-amz-security-token (when the credentials carry a session token and
 * SIGV4_TOKEN_UNSIGNED is not set) and, with SIGV4_S3,
 * x-amz-content-sha256 (the payload hash).  If the request already has
 * one, its value must equal what the signer would use (else -EINVAL);
 * if not, it is signed anyway and listed in sigv4_result.added[]: the
 * caller must send those headers too, besides Authorization.
 */
#ifndef HC_SIGV4_H
#define HC_SIGV4_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define SIGV4_ALGORITHM		"AWS4-HMAC-SHA256"
#define SIGV4_UNSIGNED_PAYLOAD	"UNSIGNED-PAYLOAD"
/* Hex SHA-256 of the empty string: the payload hash of a GET. */
#define SIGV4_EMPTY_SHA256 \
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

enum sigv4_flags {
	SIGV4_S3		= 1u << 0, /* S3 path rules; sign x-amz-content-sha256 */
	SIGV4_TOKEN_UNSIGNED	= 1u << 1, /* session token sent but not signed */
	SIGV4_AUTHZ_COMPACT	= 1u << 2, /* "a,b,c" not "a, b, c" in Authorization */
};
#define SIGV4_FLAGS_ALL (SIGV4_S3 | SIGV4_TOKEN_UNSIGNED | SIGV4_AUTHZ_COMPACT)

struct sigv4_header {
	const char *name;
	const char *value;
};

struct sigv4_request {
	const char *method;		/* "GET", "PUT", ...; required */
	const char *path;		/* raw path, starts with '/'; required */
	const char *query;		/* wire query without '?'; NULL = none */
	const struct sigv4_header *headers;	/* must include Host */
	size_t n_headers;
	/* 64 lower-case hex digits, or SIGV4_UNSIGNED_PAYLOAD; NULL = empty body */
	const char *payload_hash;
};

struct sigv4_credentials {
	const char *access_key;		/* required */
	const char *secret_key;		/* required */
	const char *session_token;	/* NULL = long-term credentials */
};

struct sigv4_params {
	const char *region;		/* "us-east-1"; required */
	const char *service;		/* "s3"; required */
	time_t timestamp;		/* request time, UTC seconds */
	unsigned int flags;		/* enum sigv4_flags */
};

#define SIGV4_MAX_ADDED 3

struct sigv4_result {
	char *canonical_request;	/* malloc'd */
	char *string_to_sign;		/* malloc'd */
	char *authorization;		/* value of the Authorization header */
	char signature[65];		/* lower-case hex */
	char amz_date[17];		/* "YYYYMMDDTHHMMSSZ" */
	/* implied headers the request lacked; values point into this struct
	 * or into the credentials, so they live as long as both */
	struct sigv4_header added[SIGV4_MAX_ADDED];
	size_t n_added;
	char payload_hash[65];		/* storage for an added payload hash */
};

/*
 * sigv4_sign() - sign @req.
 * On success returns 0 and fills @out (free with sigv4_result_free()).
 * On failure returns -EINVAL (bad input; @err names what is wrong) or
 * -ENOMEM, and @out holds nothing to free.  @err (may be NULL) receives a
 * NUL-terminated message of at most @errlen bytes.
 */
int sigv4_sign(const struct sigv4_request *req,
	       const struct sigv4_credentials *cred,
	       const struct sigv4_params *par,
	       struct sigv4_result *out, char *err, size_t errlen);

void sigv4_result_free(struct sigv4_result *out);

/*
 * sigv4_uri_encode() - percent-encode @len bytes of @s (RFC 3986: keep
 * A-Z a-z 0-9 - . _ ~, and '/' when @keep_slash).  Returns a malloc'd
 * string, or NULL when out of memory.
 */
char *sigv4_uri_encode(const char *s, size_t len, bool keep_slash);

/* sigv4_sha256_hex() - @hex gets the lower-case hex SHA-256 of @data. */
void sigv4_sha256_hex(const void *data, size_t len, char hex[65]);

/*
 * sigv4_signing_key() - derive the signing key: HMAC chain over
 * "AWS4"+secret, @date ("YYYYMMDD"), region, service, "aws4_request".
 * Returns 0, or -EINVAL when an input is NULL or too long.
 */
int sigv4_signing_key(const char *secret, const char *date,
		      const char *region, const char *service,
		      unsigned char key[32]);

#endif /* HC_SIGV4_H */
