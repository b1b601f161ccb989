// SPDX-License-Identifier: GPL-2.0
/*
 * URI -> (backend, bucket, key): see resolve.h.
 */
#include <errno.h>
#include <string.h>

#include "resolve.h"
#include "util.h"

int hc_resolve(const struct hc_config *cfg, const char *s, size_t len,
	       unsigned int flags, struct hc_target *t, char *err,
	       size_t errlen)
{
	const bool prefix = flags & HC_RESOLVE_PREFIX;
	const char *name, *slash;
	size_t blen;
	int ret;

	memset(t, 0, sizeof(*t));
	if (flags & ~HC_RESOLVE_PREFIX)
		return hc_seterr(err, errlen, -EINVAL, "flags %#x", flags);
	ret = prefix ? uri_parse_prefix(s, len, &t->u, err, errlen) :
		       uri_parse(s, len, &t->u, err, errlen);
	if (ret)
		return ret;
	name = t->u.scheme == URI_S3 ? cfg->default_backend : t->u.backend;
	t->b = hc_config_backend(cfg, name);
	if (!t->b)
		return hc_seterr(err, errlen, -ENXIO,
				 "no [backend %s] in the configuration%s",
				 name, t->u.scheme == URI_S3 ?
				 " (default_backend, for s3:// URIs)" : "");
	t->key = t->u.key;
	t->key_len = t->u.key_len;
	t->head_len = len - t->u.key_len;
	if (t->b->type == HC_BACKEND_POSIX) {
		if (t->u.scheme == URI_S3)
			return hc_seterr(err, errlen, -ENXIO,
					 "s3:// URIs need an s3 backend, and default_backend %s is posix",
					 t->b->name);
		return 0;
	}
	if (t->u.scheme == URI_S3) {
		memcpy(t->bucket, t->u.bucket, sizeof(t->bucket));
		return 0;
	}
	/* hypercache://NAME/BUCKET/KEY of an S3 backend */
	slash = memchr(t->u.key, '/', t->u.key_len);
	if (!slash)
		return hc_seterr(err, errlen, -EINVAL,
				 "backend %s is s3: the URI is hypercache://%s/BUCKET/%s",
				 t->b->name, t->b->name,
				 prefix ? "PREFIX" : "KEY");
	blen = (size_t)(slash - t->u.key);
	if (blen > URI_BUCKET_MAX)
		return hc_seterr(err, errlen, -EINVAL,
				 "bucket longer than %d", URI_BUCKET_MAX);
	memcpy(t->bucket, t->u.key, blen);
	t->bucket[blen] = '\0';
	ret = uri_bucket_check(t->bucket, err, errlen);
	if (ret)
		return ret;
	t->key = slash + 1;
	t->key_len = t->u.key_len - blen - 1;
	t->head_len = len - t->key_len;
	if (!t->key_len && !prefix)
		return hc_seterr(err, errlen, -EINVAL, "key is empty");
	return 0;
}
