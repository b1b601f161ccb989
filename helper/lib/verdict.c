// SPDX-License-Identifier: GPL-2.0
/*
 * hcctl verify: the verdict on one cached object (verdict.h).
 */
#include <errno.h>
#include <string.h>

#include "hypercache_format.h"
#include "verdict.h"

static const char *const verdict_names[HCCTL_V_NR] = {
	[HCCTL_V_HEAD] = "unchecked",
	[HCCTL_V_CURRENT] = "current",
	[HCCTL_V_CHANGED] = "changed",
	[HCCTL_V_RESIZED] = "resized",
	[HCCTL_V_GONE] = "gone",
	[HCCTL_V_NO_ETAG] = "no etag",
	[HCCTL_V_NOT_UPLOADED] = "not uploaded",
	[HCCTL_V_INGESTING] = "ingesting",
	[HCCTL_V_ERROR] = "error",
};

const char *hcctl_verdict_name(enum hcctl_verdict v)
{
	return (unsigned int)v < HCCTL_V_NR ? verdict_names[v] : "?";
}

enum hcctl_verdict hcctl_verdict_before_head(bool has_state, uint32_t state,
					     const char *etag)
{
	if (!has_state)
		return HCCTL_V_ERROR;
	switch (state) {
	case HC_OBJ_READY:
		break;
	case HC_OBJ_INGESTING:
		return HCCTL_V_INGESTING;
	case HC_OBJ_STAGED:
	case HC_OBJ_DIRTY:
	case HC_OBJ_SYNCING:
		return HCCTL_V_NOT_UPLOADED;
	default:
		return HCCTL_V_ERROR;
	}
	if (!etag || !etag[0])
		return HCCTL_V_NO_ETAG;
	return HCCTL_V_HEAD;
}

/* @s without "W/" and one pair of surrounding quotes: start and length. */
static const char *etag_core(const char *s, size_t *len)
{
	size_t n;

	if (!strncmp(s, "W/", 2))
		s += 2;
	n = strlen(s);
	if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
		s++;
		n -= 2;
	}
	*len = n;
	return s;
}

bool hcctl_etag_equal(const char *a, const char *b)
{
	size_t la, lb;

	if (!a || !b)
		return false;
	a = etag_core(a, &la);
	b = etag_core(b, &lb);
	return la && la == lb && !memcmp(a, b, la);
}

enum hcctl_verdict hcctl_verdict_compare(const char *kept_etag,
					 uint64_t kept_size, int ret,
					 const char *etag, uint64_t size)
{
	if (ret == -ENOENT)
		return HCCTL_V_GONE;
	if (ret)
		return HCCTL_V_ERROR;
	if (!hcctl_etag_equal(kept_etag, etag))
		return HCCTL_V_CHANGED;
	if (kept_size != size)
		return HCCTL_V_RESIZED;
	return HCCTL_V_CURRENT;
}

enum hcctl_verdict hcctl_verdict_reval(const char *kept_etag,
				       int64_t kept_mtime, uint64_t kept_size,
				       int ret, const char *etag,
				       int64_t mtime, uint64_t size)
{
	if (ret == HCCTL_REVAL_NOT_MODIFIED)
		return HCCTL_V_CURRENT;
	if (kept_etag && *kept_etag)
		return hcctl_verdict_compare(kept_etag, kept_size, ret, etag,
					     size);
	if (ret == -ENOENT)
		return HCCTL_V_GONE;
	if (ret)
		return HCCTL_V_ERROR;
	if (kept_size != size)
		return HCCTL_V_RESIZED;
	if (kept_mtime <= 0 || mtime != kept_mtime)
		return HCCTL_V_CHANGED;
	return HCCTL_V_CURRENT;
}

int hcctl_verdict_exit(const struct hcctl_verdict_count *c)
{
	size_t stale = c->n[HCCTL_V_CHANGED] + c->n[HCCTL_V_RESIZED] +
		       c->n[HCCTL_V_GONE];

	return stale || c->n[HCCTL_V_ERROR] || c->refused ? 1 : 0;
}
