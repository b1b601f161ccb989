// SPDX-License-Identifier: GPL-2.0
/*
 * S3 XML bodies: error documents and ListObjectsV2 pages.  See s3xml.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "s3xml.h"
#include "util.h"

#define S3XML_PARSE_OPTS (XML_PARSE_NONET | XML_PARSE_NOERROR | \
			  XML_PARSE_NOWARNING | XML_PARSE_NOBLANKS)

/* Parse @doc; on failure report libxml2's own reason. */
static xmlDocPtr s3xml_read(const char *doc, size_t len, const char *root,
			    xmlNodePtr *rootp, int *rc, char *err, size_t errlen)
{
	xmlParserCtxtPtr ctx;
	xmlDocPtr d;
	const xmlError *e;

	xmlInitParser();
	if (!doc || len > INT32_MAX) {
		*rc = hc_seterr(err, errlen, -EBADMSG, "no document or too large");
		return NULL;
	}
	ctx = xmlNewParserCtxt();
	if (!ctx) {
		*rc = hc_seterr(err, errlen, -ENOMEM, "out of memory");
		return NULL;
	}
	d = xmlCtxtReadMemory(ctx, doc, (int)len, NULL, NULL, S3XML_PARSE_OPTS);
	if (!d || !ctx->wellFormed) {
		e = xmlCtxtGetLastError(ctx);
		*rc = hc_seterr(err, errlen, -EBADMSG,
				 "malformed XML (line %d): %.*s",
				 e ? e->line : 0,
				 e && e->message ? (int)strcspn(e->message, "\n") : 7,
				 e && e->message ? e->message : "unknown");
		xmlFreeDoc(d);
		xmlFreeParserCtxt(ctx);
		return NULL;
	}
	xmlFreeParserCtxt(ctx);
	*rootp = xmlDocGetRootElement(d);
	if (!*rootp || xmlStrcmp((*rootp)->name, BAD_CAST root)) {
		*rc = hc_seterr(err, errlen, -EBADMSG,
				 "root element is <%s>, expected <%s>",
				 *rootp ? (const char *)(*rootp)->name : "",
				 root);
		xmlFreeDoc(d);
		return NULL;
	}
	*rc = 0;
	return d;
}

/* The first child element of @parent named @name, or NULL. */
static xmlNodePtr s3xml_child(xmlNodePtr parent, const char *name)
{
	xmlNodePtr n;

	for (n = parent->children; n; n = n->next)
		if (n->type == XML_ELEMENT_NODE && !xmlStrcmp(n->name, BAD_CAST name))
			return n;
	return NULL;
}

/* The text of child @name (malloc'd by libxml2, xmlFree it), or NULL. */
static char *s3xml_text(xmlNodePtr parent, const char *name)
{
	xmlNodePtr n = s3xml_child(parent, name);

	return n ? (char *)xmlNodeGetContent(n) : NULL;
}

int s3xml_error_parse(const char *doc, size_t len, struct s3xml_error *out,
		      char *err, size_t errlen)
{
	xmlNodePtr root;
	char *code, *msg;
	xmlDocPtr d;
	int rc;

	memset(out, 0, sizeof(*out));
	d = s3xml_read(doc, len, "Error", &root, &rc, err, errlen);
	if (!d)
		return rc;
	code = s3xml_text(root, "Code");
	msg = s3xml_text(root, "Message");
	if (!code || !*code) {
		rc = hc_seterr(err, errlen, -EBADMSG, "<Error> has no <Code>");
	} else {
		snprintf(out->code, sizeof(out->code), "%s", code);
		snprintf(out->message, sizeof(out->message), "%s", msg ? msg : "");
	}
	xmlFree(code);
	xmlFree(msg);
	xmlFreeDoc(d);
	return rc;
}

static const struct {
	const char *code;
	int err;
} s3xml_errno_table[] = {
	{ "NoSuchKey",			ENOENT },
	{ "NoSuchBucket",		ENOENT },
	{ "AccessDenied",		EACCES },
	{ "SignatureDoesNotMatch",	EACCES },
	{ "InvalidAccessKeyId",		EACCES },
	{ "AllAccessDisabled",		EACCES },
	{ "AccountProblem",		EACCES },
	{ "InvalidBucketName",		EINVAL },
	{ "InvalidURI",			EINVAL },
	{ "InvalidArgument",		EINVAL },
	{ "KeyTooLongError",		ENAMETOOLONG },
	{ "EntityTooLarge",		EFBIG },
	{ "SlowDown",			EAGAIN },
	{ "InternalError",		EIO },
};

int s3xml_code_errno(const char *code)
{
	size_t i;

	for (i = 0; code && i < sizeof(s3xml_errno_table) / sizeof(s3xml_errno_table[0]); i++)
		if (!strcmp(code, s3xml_errno_table[i].code))
			return s3xml_errno_table[i].err;
	return EIO;
}

/* Decimal uint64 with no sign, space or overflow. */
static int s3xml_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (!s || !*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return 0;
}

/* Check one <Contents>; with @cb, also hand it over. */
static int s3xml_contents(xmlNodePtr c, size_t index, s3xml_list_cb cb,
			  void *arg, char *err, size_t errlen)
{
	char *key = s3xml_text(c, "Key"), *size = s3xml_text(c, "Size");
	char *etag = s3xml_text(c, "ETag");
	struct s3xml_object o;
	int rc = 0;

	if (!key || !*key)
		rc = hc_seterr(err, errlen, -EBADMSG,
				"<Contents> #%zu has no <Key>", index);
	else if (!size)
		rc = hc_seterr(err, errlen, -EBADMSG,
				"<Contents> #%zu (%.200s) has no <Size>", index, key);
	else if (s3xml_u64(size, &o.size))
		rc = hc_seterr(err, errlen, -EBADMSG,
				"<Contents> #%zu (%.200s): <Size> '%.40s' is not a byte count",
				index, key, size);
	else if (cb) {
		o.key = key;
		o.etag = etag ? etag : "";
		rc = cb(&o, arg);
	}
	xmlFree(key);
	xmlFree(size);
	xmlFree(etag);
	return rc;
}

int s3xml_list_parse(const char *doc, size_t len, s3xml_list_cb cb, void *arg,
		     struct s3xml_list_page *page, char *err, size_t errlen)
{
	char *trunc = NULL, *token = NULL;
	xmlNodePtr root, n;
	size_t count = 0;
	xmlDocPtr d;
	int rc, pass;

	memset(page, 0, sizeof(*page));
	if (err && errlen)
		err[0] = '\0';
	d = s3xml_read(doc, len, "ListBucketResult", &root, &rc, err, errlen);
	if (!d)
		return rc;
	trunc = s3xml_text(root, "IsTruncated");
	token = s3xml_text(root, "NextContinuationToken");
	if (!trunc || (strcmp(trunc, "true") && strcmp(trunc, "false"))) {
		rc = hc_seterr(err, errlen, -EBADMSG,
				"<IsTruncated> is %s%.20s%s, expected true or false",
				trunc ? "'" : "", trunc ? trunc : "missing",
				trunc ? "'" : "");
		goto out;
	}
	page->truncated = !strcmp(trunc, "true");
	if (page->truncated && (!token || !*token)) {
		rc = hc_seterr(err, errlen, -EBADMSG,
				"truncated listing without <NextContinuationToken>");
		goto out;
	}
	/* pass 0 validates every entry, pass 1 calls back */
	for (pass = 0; pass < 2 && !rc; pass++) {
		count = 0;
		for (n = root->children; n && !rc; n = n->next) {
			if (n->type != XML_ELEMENT_NODE ||
			    xmlStrcmp(n->name, BAD_CAST "Contents"))
				continue;
			rc = s3xml_contents(n, count, pass ? cb : NULL, arg,
					    err, errlen);
			count++;
		}
	}
	if (!rc && token && *token) {
		page->next_token = strdup(token);
		if (!page->next_token)
			rc = hc_seterr(err, errlen, -ENOMEM, "out of memory");
	}
	page->count = count;
out:
	if (rc && err && errlen && !*err && rc != -EBADMSG && rc != -ENOMEM)
		hc_seterr(err, errlen, rc, "stopped by the callback (%d)", rc);
	if (rc)
		s3xml_list_page_free(page);
	xmlFree(trunc);
	xmlFree(token);
	xmlFreeDoc(d);
	return rc;
}

void s3xml_list_page_free(struct s3xml_list_page *page)
{
	if (!page)
		return;
	free(page->next_token);
	memset(page, 0, sizeof(*page));
}

/* ------------------------------------------------------ multipart uploads */

/* Copy the text of @root's child @name into @out (@size bytes). */
static int s3xml_field(xmlNodePtr root, const char *name, char *out,
		       size_t size, bool may_be_empty, char *err, size_t errlen)
{
	char *v = s3xml_text(root, name);
	int rc = 0;

	if (!v || (!*v && !may_be_empty))
		rc = hc_seterr(err, errlen, -EBADMSG, "<%s> has no <%s>",
				(const char *)root->name, name);
	else if (strlen(v) >= size)
		rc = hc_seterr(err, errlen, -EBADMSG,
				"<%s> is %zu bytes, at most %zu expected",
				name, strlen(v), size - 1);
	else
		memcpy(out, v, strlen(v) + 1);
	xmlFree(v);
	return rc;
}

/* The one text field @field of a document whose root is @root_name. */
static int s3xml_one_field(const char *doc, size_t len, const char *root_name,
			   const char *field, char *out, size_t size,
			   bool may_be_empty, char *err, size_t errlen)
{
	xmlNodePtr root;
	xmlDocPtr d;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	d = s3xml_read(doc, len, root_name, &root, &rc, err, errlen);
	if (!d)
		return rc;
	rc = s3xml_field(root, field, out, size, may_be_empty, err, errlen);
	xmlFreeDoc(d);
	return rc;
}

int s3xml_mpu_init_parse(const char *doc, size_t len, char *upload_id,
			 size_t size, char *err, size_t errlen)
{
	return s3xml_one_field(doc, len, "InitiateMultipartUploadResult",
			       "UploadId", upload_id, size, false, err, errlen);
}

int s3xml_mpu_complete_parse(const char *doc, size_t len, char *etag,
			     size_t size, char *err, size_t errlen)
{
	/* radosgw (Ceph 16..18 at least) sends an empty <ETag></ETag> */
	return s3xml_one_field(doc, len, "CompleteMultipartUploadResult",
			       "ETag", etag, size, true, err, errlen);
}

int s3xml_mpu_complete_doc(const char *const *etags, unsigned int nr_parts,
			   char **doc, size_t *len, char *err, size_t errlen)
{
	xmlNodePtr root, part;
	xmlChar *mem = NULL;
	char num[16];
	unsigned int i;
	xmlDocPtr d;
	int n = 0;

	*doc = NULL;
	*len = 0;
	if (!nr_parts || !etags)
		return hc_seterr(err, errlen, -EINVAL, "no parts");
	for (i = 0; i < nr_parts; i++)
		if (!etags[i])
			return hc_seterr(err, errlen, -EINVAL,
					  "part %u has no ETag", i + 1);
	xmlInitParser();
	d = xmlNewDoc(BAD_CAST "1.0");
	root = d ? xmlNewNode(NULL, BAD_CAST "CompleteMultipartUpload") : NULL;
	if (!root)
		goto nomem;
	xmlDocSetRootElement(d, root);
	if (!xmlNewNs(root, BAD_CAST "http://s3.amazonaws.com/doc/2006-03-01/",
		      NULL))
		goto nomem;
	for (i = 0; i < nr_parts; i++) {
		snprintf(num, sizeof(num), "%u", i + 1);
		part = xmlNewChild(root, NULL, BAD_CAST "Part", NULL);
		/* xmlNewTextChild escapes the content; xmlNewChild would not */
		if (!part ||
		    !xmlNewTextChild(part, NULL, BAD_CAST "PartNumber",
				     BAD_CAST num) ||
		    !xmlNewTextChild(part, NULL, BAD_CAST "ETag",
				     BAD_CAST etags[i]))
			goto nomem;
	}
	xmlDocDumpMemoryEnc(d, &mem, &n, "UTF-8");
	if (!mem || n <= 0)
		goto nomem;
	*doc = malloc((size_t)n + 1);
	if (!*doc)
		goto nomem;
	memcpy(*doc, mem, (size_t)n + 1);
	*len = (size_t)n;
	xmlFree(mem);
	xmlFreeDoc(d);
	return 0;
nomem:
	xmlFree(mem);
	xmlFreeDoc(d);
	return hc_seterr(err, errlen, -ENOMEM, "out of memory");
}

static int s3xml_upload(xmlNodePtr u, size_t index, s3xml_upload_cb cb,
			void *arg, char *err, size_t errlen)
{
	char *key = s3xml_text(u, "Key"), *id = s3xml_text(u, "UploadId");
	int rc = 0;

	if (!key || !*key || !id || !*id)
		rc = hc_seterr(err, errlen, -EBADMSG,
				"<Upload> #%zu lacks <Key> or <UploadId>", index);
	else if (cb)
		rc = cb(key, id, arg);
	xmlFree(key);
	xmlFree(id);
	return rc;
}

static int s3xml_strdup_text(xmlNodePtr root, const char *name, char **out)
{
	char *v = s3xml_text(root, name);

	*out = NULL;
	if (v && *v) {
		*out = strdup(v);
		if (!*out) {
			xmlFree(v);
			return -ENOMEM;
		}
	}
	xmlFree(v);
	return 0;
}

int s3xml_uploads_parse(const char *doc, size_t len, s3xml_upload_cb cb,
			void *arg, struct s3xml_uploads_page *page,
			char *err, size_t errlen)
{
	xmlNodePtr root, n;
	char *trunc = NULL;
	size_t count = 0;
	xmlDocPtr d;
	int rc, pass;

	memset(page, 0, sizeof(*page));
	if (err && errlen)
		err[0] = '\0';
	d = s3xml_read(doc, len, "ListMultipartUploadsResult", &root, &rc,
		       err, errlen);
	if (!d)
		return rc;
	trunc = s3xml_text(root, "IsTruncated");
	if (!trunc || (strcmp(trunc, "true") && strcmp(trunc, "false"))) {
		rc = hc_seterr(err, errlen, -EBADMSG,
				"<IsTruncated> missing or not true/false");
		goto out;
	}
	page->truncated = !strcmp(trunc, "true");
	if (s3xml_strdup_text(root, "NextKeyMarker", &page->next_key) ||
	    s3xml_strdup_text(root, "NextUploadIdMarker",
			      &page->next_upload_id)) {
		rc = hc_seterr(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	if (page->truncated && !page->next_key) {
		rc = hc_seterr(err, errlen, -EBADMSG,
				"truncated listing without <NextKeyMarker>");
		goto out;
	}
	for (pass = 0; pass < 2 && !rc; pass++) {
		count = 0;
		for (n = root->children; n && !rc; n = n->next) {
			if (n->type != XML_ELEMENT_NODE ||
			    xmlStrcmp(n->name, BAD_CAST "Upload"))
				continue;
			rc = s3xml_upload(n, count, pass ? cb : NULL, arg,
					  err, errlen);
			count++;
		}
	}
	page->count = count;
out:
	if (rc && err && errlen && !*err)
		hc_seterr(err, errlen, rc, "stopped by the callback (%d)", rc);
	if (rc)
		s3xml_uploads_page_free(page);
	xmlFree(trunc);
	xmlFreeDoc(d);
	return rc;
}

void s3xml_uploads_page_free(struct s3xml_uploads_page *page)
{
	if (!page)
		return;
	free(page->next_key);
	free(page->next_upload_id);
	memset(page, 0, sizeof(*page));
}
