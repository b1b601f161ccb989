/* SPDX-License-Identifier: GPL-2.0 */
/*
 * S3 XML response bodies, parsed with libxml2: error documents and
 * ListObjectsV2 results.
 *
 * Documents are parsed from memory with the network and entity
 * substitution off (XML_PARSE_NONET, no XML_PARSE_NOENT); element names
 * are matched by local name, so the S3 namespace may or may not be
 * declared.  Thread-safe once libxml2 is initialised: call xmlInitParser()
 * in the main thread before starting threads (these functions also call
 * it, which is harmless).  No function here blocks or keeps state.
 *
 * Errors: -EBADMSG for a malformed document or a missing/invalid required
 * field, -ENOMEM, or what the list callback returned; each with a message
 * in @err (may be NULL).
 */
#ifndef HC_S3XML_H
#define HC_S3XML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define S3XML_CODE_MAX	64
#define S3XML_MSG_MAX	512

/* <Error><Code>..</Code><Message>..</Message>...</Error> */
struct s3xml_error {
	char code[S3XML_CODE_MAX];	/* required; truncated if longer */
	char message[S3XML_MSG_MAX];	/* "" when absent; truncated */
};

/*
 * s3xml_error_parse() - parse the @len bytes of an error body.
 * Returns 0, or -EBADMSG when it is not XML, the root is not <Error>, or
 * <Code> is missing or empty.
 */
int s3xml_error_parse(const char *doc, size_t len, struct s3xml_error *out,
		      char *err, size_t errlen);

/*
 * s3xml_code_errno() - the positive errno for an S3 error code:
 *   NoSuchKey, NoSuchBucket                           ENOENT
 *   AccessDenied, SignatureDoesNotMatch,
 *   InvalidAccessKeyId, AllAccessDisabled,
 *   AccountProblem                                    EACCES
 *   InvalidBucketName, InvalidURI, InvalidArgument    EINVAL
 *   KeyTooLongError                                   ENAMETOOLONG
 *   EntityTooLarge                                    EFBIG
 *   SlowDown                                          EAGAIN
 *   InternalError and every other code (or NULL)      EIO
 */
int s3xml_code_errno(const char *code);

/* One <Contents> entry; the strings live until the callback returns. */
struct s3xml_object {
	const char *key;	/* required, non-empty */
	uint64_t size;		/* required, decimal */
	const char *etag;	/* as sent, quotes included; "" if absent */
};

/*
 * Called once per object, in document order.  Return 0 to go on; any
 * other value stops the parse and is returned by s3xml_list_parse().
 */
typedef int (*s3xml_list_cb)(const struct s3xml_object *obj, void *arg);

struct s3xml_list_page {
	bool truncated;		/* IsTruncated: another page follows */
	char *next_token;	/* NextContinuationToken, malloc'd, or NULL */
	size_t count;		/* objects passed to the callback */
};

/*
 * s3xml_list_parse() - parse a ListObjectsV2 <ListBucketResult>.
 * Every <Contents> is validated before the first callback, so the
 * callback never sees part of a page that turns out to be bad.
 * Returns 0 and fills @page (free with s3xml_list_page_free()), or a
 * negative error and @page holds nothing to free.  -EBADMSG also when
 * IsTruncated is missing or not true/false, or is true without a
 * NextContinuationToken (the caller could not ask for the next page).
 */
int s3xml_list_parse(const char *doc, size_t len, s3xml_list_cb cb, void *arg,
		     struct s3xml_list_page *page, char *err, size_t errlen);

void s3xml_list_page_free(struct s3xml_list_page *page);

/*
 * Multipart uploads.
 *
 * s3xml_mpu_init_parse() - the <UploadId> of an
 * <InitiateMultipartUploadResult> into @upload_id (@size bytes, NUL
 * included).  -EBADMSG when missing, empty or longer than @size - 1.
 */
int s3xml_mpu_init_parse(const char *doc, size_t len, char *upload_id,
			 size_t size, char *err, size_t errlen);

/*
 * s3xml_mpu_complete_parse() - the <ETag> of a
 * <CompleteMultipartUploadResult> into @etag (@size bytes); an empty
 * <ETag></ETag> (as radosgw sends it) gives "" and 0, a missing one
 * -EBADMSG.  A 200 answer
 * whose body is an <Error> document is -EBADMSG here: parse it with
 * s3xml_error_parse() first.
 */
int s3xml_mpu_complete_parse(const char *doc, size_t len, char *etag,
			     size_t size, char *err, size_t errlen);

/*
 * s3xml_mpu_complete_doc() - the <CompleteMultipartUpload> request body
 * listing parts 1..@nr_parts with ETags @etags[0..nr_parts-1], written by
 * libxml2.  *@doc is malloc'd (free() it), *@len its length.
 * -EINVAL when @nr_parts is 0 or an ETag is NULL, -ENOMEM.
 */
int s3xml_mpu_complete_doc(const char *const *etags, unsigned int nr_parts,
			   char **doc, size_t *len, char *err, size_t errlen);

/* One <Upload> of a <ListMultipartUploadsResult>; strings as above. */
typedef int (*s3xml_upload_cb)(const char *key, const char *upload_id,
			       void *arg);

struct s3xml_uploads_page {
	bool truncated;		/* IsTruncated */
	char *next_key;		/* NextKeyMarker, malloc'd, or NULL */
	char *next_upload_id;	/* NextUploadIdMarker, malloc'd, or NULL */
	size_t count;
};

/*
 * s3xml_uploads_parse() - parse a ListMultipartUploads result; @cb is
 * called per <Upload> (Key and UploadId required) after the page was
 * validated whole.  A truncated page needs NextKeyMarker.  Free @page with
 * s3xml_uploads_page_free().
 */
int s3xml_uploads_parse(const char *doc, size_t len, s3xml_upload_cb cb,
			void *arg, struct s3xml_uploads_page *page,
			char *err, size_t errlen);

void s3xml_uploads_page_free(struct s3xml_uploads_page *page);

#endif /* HC_S3XML_H */
