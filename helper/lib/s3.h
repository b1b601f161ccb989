/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The S3 client of hypercached (libcurl, OpenSSL, libxml2).
 *
 * One struct hcs3 is one libcurl easy handle: it keeps its connections
 * open between requests (connection reuse) and must be used by one thread
 * at a time; a thread that fetches parts in parallel with others has its
 * own.  Every request is signed with AWS Signature V4 (sigv4.h), retried
 * on 5xx, 429, timeouts, resets and refused connections under the
 * client's retry policy (retry.h), and an S3 error document is turned into
 * an errno (s3xml.h) with the S3 code and message in @err.
 *
 * Errors (negative errno):
 *   -ENOENT   NoSuchKey / NoSuchBucket / 404
 *   -EACCES   AccessDenied, SignatureDoesNotMatch, InvalidAccessKeyId, 403
 *   -ESTALE   412 Precondition Failed on If-Match, or a response whose ETag
 *             differs from the one asked for: the object changed
 *   -EIO      a retryable failure that outlived the retry policy, or a
 *             malformed response
 *   -ETIMEDOUT the last attempt timed out (after retries)
 *   -ECONNREFUSED the last attempt could not connect (after retries)
 *   -EINVAL   bad arguments (empty bucket, over-long key)
 *   -ENOMEM
 */
#ifndef HC_S3_H
#define HC_S3_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "config.h"
#include "retry.h"
#include "s3xml.h"

#define HCS3_ETAG_MAX		127	/* as HC_A_ING_ETAG */
#define HCS3_UPLOAD_ID_MAX	1023

struct hcs3;

struct hcs3_opts {
	unsigned int timeout_connect;	/* seconds, 0 = 10 */
	unsigned int timeout_request;	/* seconds per attempt, 0 = 300 */
	const struct retry_policy *retry;	/* NULL = retry_policy_default */
	/* Tests only: "HOST:PORT:ADDR" as curl's CURLOPT_RESOLVE, so a
	 * virtual-host name can reach a local server; NULL = none. */
	const char *resolve;
};

/* Counters of one client since it was made (for the metrics). */
struct hcs3_stats {
	uint64_t requests;	/* HTTP requests sent, retries included */
	uint64_t retries;	/* of which repeats after a retryable failure */
	uint64_t bytes_in;	/* response bodies received */
	uint64_t bytes_out;	/* request bodies sent */
	uint64_t connects;	/* new TCP connections opened */
	uint64_t digest_ns;	/* hashing upload bodies (MD5, SHA-256) */
};

struct hcs3_object {
	uint64_t size;
	char etag[HCS3_ETAG_MAX + 1];	/* as sent, quotes included */
	/* Last-Modified in seconds since the epoch (UTC); 0: none, or an
	 * HTTP date curl_getdate() cannot read, or one before 1970 */
	int64_t mtime;
};

/*
 * hcs3_new() - a client for S3 backend @b with credentials @creds.
 * @opts may be NULL (defaults).  The backend and credentials are copied;
 * the region and endpoint hc_creds_lookup() resolved into @creds (when
 * set) replace @b's.
 */
int hcs3_new(const struct hc_backend *b, const struct hc_creds *creds,
	     const struct hcs3_opts *opts, struct hcs3 **out,
	     char *err, size_t errlen);
void hcs3_free(struct hcs3 *c);
void hcs3_get_stats(const struct hcs3 *c, struct hcs3_stats *out);

/*
 * hcs3_retry_after_ms() - the Retry-After of the client's last response in
 * ms (delta-seconds, at most HCS3_RETRY_AFTER_MAX_S; 0: none).  Between
 * retries the client waits at least that long; a request that still got
 * 503 (SlowDown) or 429 after its retries fails with -EAGAIN, so that the
 * caller can back off the whole backend (xsched.h).
 */
#define HCS3_RETRY_AFTER_MAX_S	60
uint64_t hcs3_retry_after_ms(const struct hcs3 *c);

/*
 * hcs3_set_recv_hook() - @fn(@arg, @ptr) is called, in the thread running
 * the request, with the first bytes of every body received into the
 * caller's buffer (a ranged GET; a retried attempt's too): @ptr is
 * libcurl's receive buffer, valid only during the call (libcurl frees it
 * when the transfer ends).  For NUMA placement (helper/place.h): which
 * node that buffer's page is on.  @fn NULL: none (the default).
 */
typedef void (*hcs3_recv_hook_fn)(void *arg, const void *ptr);
void hcs3_set_recv_hook(struct hcs3 *c, hcs3_recv_hook_fn fn, void *arg);

/*
 * hcs3_url() - the URL of @bucket/@key (key may be NULL: the bucket
 * itself) under the backend's addressing style, the key URI-encoded with
 * '/' kept.  Returns a malloc'd string or NULL (out of memory, or a
 * virtual-host bucket name that is not a valid DNS label).
 */
char *hcs3_url(const struct hcs3 *c, const char *bucket, const char *key);

/* hcs3_head() - HEAD: size, ETag and Last-Modified. */
int hcs3_head(struct hcs3 *c, const char *bucket, const char *key,
	      struct hcs3_object *out, char *err, size_t errlen);

/*
 * hcs3_head_if() - hcs3_head(), conditional when @if_none_match (an ETag
 * as hcs3_head() gave it) is not NULL: HCS3_NOT_MODIFIED (a positive
 * value, @out left empty) when the backend answers 304 Not Modified, the
 * version it holds still has that ETag; otherwise as hcs3_head() (a
 * backend that ignores the header answers 200: compare @out->etag).
 */
#define HCS3_NOT_MODIFIED	1
int hcs3_head_if(struct hcs3 *c, const char *bucket, const char *key,
		 const char *if_none_match, struct hcs3_object *out,
		 char *err, size_t errlen);

/*
 * hcs3_get_range() - GET bytes [@off, @off + @len) into @buf.  With
 * @if_match (an ETag as hcs3_head() gave it) the request carries
 * If-Match, and the response's ETag is checked too: -ESTALE if the object
 * changed.  Exactly @len bytes arrive or the call fails (-EIO).
 */
int hcs3_get_range(struct hcs3 *c, const char *bucket, const char *key,
		   uint64_t off, size_t len, const char *if_match, void *buf,
		   char *err, size_t errlen);

/*
 * hcs3_get_first() - the object's first bytes and its version in one
 * request: GET bytes [0, @cap) into @buf, and from the answer's headers
 * what hcs3_head() gives (the size from Content-Range, or from the body
 * of a 200 that holds the whole object), so that an object of at most
 * @cap bytes needs no other request.  *@got: the bytes in @buf (the
 * whole object when @out->size <= @cap).  -ERANGE, with nothing in
 * @out, when the answer cannot say: an empty object (416), a backend
 * that ignored the Range for an object larger than @cap; the caller
 * then asks hcs3_head().  Errors otherwise as hcs3_get_range()'s, the
 * backend's error document in @err (no second request for it, as a HEAD
 * answer, which has no body, needs).
 */
int hcs3_get_first(struct hcs3 *c, const char *bucket, const char *key,
		   size_t cap, void *buf, size_t *got, struct hcs3_object *out,
		   char *err, size_t errlen);

/*
 * hcs3_list() - ListObjectsV2 of @bucket under @prefix (may be ""),
 * following continuation tokens; @cb is called once per object in key
 * order; a non-zero return from @cb stops the listing and is returned.
 */
int hcs3_list(struct hcs3 *c, const char *bucket, const char *prefix,
	      s3xml_list_cb cb, void *arg, char *err, size_t errlen);

/* hcs3_put() - PUT @len bytes (single request); @etag_out may be NULL. */
int hcs3_put(struct hcs3 *c, const char *bucket, const char *key,
	     const void *buf, size_t len, char etag_out[HCS3_ETAG_MAX + 1],
	     char *err, size_t errlen);

/* hcs3_delete() - DELETE; a missing key is success (S3 semantics). */
int hcs3_delete(struct hcs3 *c, const char *bucket, const char *key,
		char *err, size_t errlen);

/*
 * Multipart upload.  Parts are numbered from 1, every part but the last
 * at least 5 MiB.  Each part carries Content-MD5; complete takes the parts'
 * ETags in order.  hcs3_mpu_list() calls @cb with (key, upload id) of every
 * unfinished upload under @prefix, for cleaning up after a crash.
 */
int hcs3_mpu_create(struct hcs3 *c, const char *bucket, const char *key,
		    char upload_id[HCS3_UPLOAD_ID_MAX + 1],
		    char *err, size_t errlen);
int hcs3_mpu_part(struct hcs3 *c, const char *bucket, const char *key,
		  const char *upload_id, unsigned int part_no,
		  const void *buf, size_t len,
		  char etag_out[HCS3_ETAG_MAX + 1], char *err, size_t errlen);
int hcs3_mpu_complete(struct hcs3 *c, const char *bucket, const char *key,
		      const char *upload_id, unsigned int nr_parts,
		      char (*const part_etags)[HCS3_ETAG_MAX + 1],
		      char etag_out[HCS3_ETAG_MAX + 1],
		      char *err, size_t errlen);
int hcs3_mpu_abort(struct hcs3 *c, const char *bucket, const char *key,
		   const char *upload_id, char *err, size_t errlen);
typedef int (*hcs3_mpu_cb)(const char *key, const char *upload_id, void *arg);
int hcs3_mpu_list(struct hcs3 *c, const char *bucket, const char *prefix,
		  hcs3_mpu_cb cb, void *arg, char *err, size_t errlen);

#endif /* HC_S3_H */
