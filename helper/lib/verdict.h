/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hcctl verify: the verdict on one cached object against its backend.
 * Pure (no I/O, no allocation, no locks), shared with tests/unit.
 *
 * An object is checked only if it is READY (clean: it came from the
 * backend or was uploaded to it) and the kernel kept the backend's ETag
 * of that version; then a HEAD of its backend object gives (ret, ETag,
 * size) and hcctl_verdict_compare() says whether the cached copy is still
 * the backend's.  Two ETags are the same when they are equal after
 * dropping a weak validator's "W/" and the surrounding quotes: the kernel
 * keeps the ETag as the backend sent it, quotes included, and one gateway
 * may quote what another does not.
 */
#ifndef HCCTL_VERDICT_H
#define HCCTL_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum hcctl_verdict {
	HCCTL_V_HEAD,		/* not a verdict: a HEAD must decide */
	HCCTL_V_CURRENT,	/* same ETag, same size */
	HCCTL_V_CHANGED,	/* the backend's ETag differs: stale */
	HCCTL_V_RESIZED,	/* same ETag, another size: stale */
	HCCTL_V_GONE,		/* the backend has no such object (404): stale */
	HCCTL_V_NO_ETAG,	/* nothing to compare with (v1 restart, posix) */
	HCCTL_V_NOT_UPLOADED,	/* staged, dirty or syncing: never evicted */
	HCCTL_V_INGESTING,	/* being fetched: the next verify checks it */
	HCCTL_V_ERROR,		/* the HEAD failed (not 404) */
	HCCTL_V_NR,
};

/* Whether @v says the cached copy differs from the backend's object. */
static inline bool hcctl_verdict_stale(enum hcctl_verdict v)
{
	return v == HCCTL_V_CHANGED || v == HCCTL_V_RESIZED || v == HCCTL_V_GONE;
}

/* The JSON "result" of @v: "current", "changed", ..., "error". */
const char *hcctl_verdict_name(enum hcctl_verdict v);

/*
 * hcctl_verdict_before_head() - the verdict that needs no HEAD: by the
 * object's state (an HC_OBJ_*; @has_state false: unknown, which is an
 * error) and whether an ETag is kept (@etag NULL or ""), or HCCTL_V_HEAD.
 */
enum hcctl_verdict hcctl_verdict_before_head(bool has_state, uint32_t state,
					     const char *etag);

/*
 * hcctl_verdict_compare() - the verdict of a HEAD that returned @ret (0,
 * or a negative errno: -ENOENT is a 404) with @etag and @size, for an
 * object cached with @kept_etag and @kept_size.
 */
enum hcctl_verdict hcctl_verdict_compare(const char *kept_etag,
					 uint64_t kept_size, int ret,
					 const char *etag, uint64_t size);

/*
 * hcctl_verdict_reval() - hypercached's revalidation (Documentation/
 * ingest.md, "Revalidation") of an object cached as (@kept_etag, NULL or
 * "": none; @kept_mtime, 0: none; @kept_size) against a HEAD of its
 * backend object that returned @ret: HCCTL_REVAL_NOT_MODIFIED (a
 * conditional HEAD's 304), 0 with (@etag, @mtime, @size), -ENOENT (404)
 * or another negative errno.  With a kept ETag, as
 * hcctl_verdict_compare(); without one, the same size and the same known
 * Last-Modified are current, another size resized, another or an unknown
 * Last-Modified changed (nothing to compare with: fetched again once, and
 * known from then on).  Never HCCTL_V_HEAD.
 */
#define HCCTL_REVAL_NOT_MODIFIED	1
enum hcctl_verdict hcctl_verdict_reval(const char *kept_etag,
				       int64_t kept_mtime, uint64_t kept_size,
				       int ret, const char *etag,
				       int64_t mtime, uint64_t size);

/* hcctl_etag_equal() - the rule above; NULL equals nothing. */
bool hcctl_etag_equal(const char *a, const char *b);

/* The totals of a run, by verdict, and what --evict did. */
struct hcctl_verdict_count {
	size_t n[HCCTL_V_NR];
	size_t evicted, refused;
};

/*
 * hcctl_verdict_exit() - the exit status of a run: 0 when no object is
 * stale, no HEAD failed and nothing was refused (objects without an ETag,
 * not uploaded or being ingested do not count), else 1.  A run whose
 * --evict evicted every stale object still exits 1: it found them.
 */
int hcctl_verdict_exit(const struct hcctl_verdict_count *c);

#endif /* HCCTL_VERDICT_H */
