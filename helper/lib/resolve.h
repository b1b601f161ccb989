/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a URI lives: the one resolver of an object URI (or a prefix of
 * object URIs) to (backend, bucket, key), used by hypercached's ingest and
 * write-back, hcfetch, hcctl's preload listing and its flush and restore.
 *
 *   s3://BUCKET/KEY               default_backend, which must be type = s3
 *   hypercache://NAME/BUCKET/KEY  backend NAME of type = s3
 *   hypercache://NAME/KEY         backend NAME of type = posix: ROOT/KEY
 *
 * The URI obeys uri.h (scheme, bucket or name rules, key bounds); for an
 * S3 backend named by hypercache://, the key's first component is the
 * bucket and obeys the bucket rules, and what follows it is the object
 * key.  The object key may be empty only with HC_RESOLVE_PREFIX (a
 * listing prefix); BUCKET/ is required even then.  The posix containment
 * rule is posix.h's, applied where a path is made.
 *
 * Pure: no I/O, no allocation, thread-safe.  Errors: -EINVAL for a
 * malformed URI, -ENXIO when no backend of the right type serves it; the
 * message names the part at fault (callers say which URI), and where it
 * quotes the URI it quotes it as given.
 */
#ifndef HC_RESOLVE_H
#define HC_RESOLVE_H

#include <stddef.h>
#include "config.h"
#include "uri.h"

#define HC_RESOLVE_PREFIX	0x1u	/* the key is a prefix: may be empty */

struct hc_target {
	const struct hc_backend *b;	/* in the configuration given */
	struct uri u;			/* the URI as parsed */
	char bucket[URI_BUCKET_MAX + 1];	/* S3 backends; "" for posix */
	const char *key;		/* the object key (posix: under ROOT), in @u */
	size_t key_len;
	size_t head_len;		/* bytes of the URI before @key */
};

/*
 * hc_resolve() - resolve @len bytes at @s with the backends of @cfg into
 * @t.  @flags: 0 or HC_RESOLVE_PREFIX.  The URI of object key K under the
 * same backend and bucket is the first @t->head_len bytes of @s then K.
 */
int hc_resolve(const struct hc_config *cfg, const char *s, size_t len,
	       unsigned int flags, struct hc_target *t, char *err,
	       size_t errlen);

#endif /* HC_RESOLVE_H */
