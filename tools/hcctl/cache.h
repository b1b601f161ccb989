/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hcctl - the object cache's listing (HC_CMD_OBJ_GET dump) and the
 * eviction of one listed object, shared by ls, evict --prefix and verify
 * (cache.c).
 */
#ifndef HCCTL_CACHE_H
#define HCCTL_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hypercache.h"

struct hcctl_nl;

/* One object of the dump. */
struct obj_info {
	unsigned char *uri;
	uint32_t uri_len;
	char *shown;		/* escaped URI */
	uint32_t state;
	bool has_state;
	uint32_t flags;
	bool has_flags;
	uint64_t size;
	bool has_size;
	uint64_t generation;
	bool has_generation;
	uint64_t chunks;
	bool has_chunks;
	uint32_t holds;
	bool has_holds;
	char *etag;	/* HC_A_OBJ_ETAG, NULL when the kernel sent none */
	uint64_t last_modified;	/* HC_A_OBJ_LAST_MODIFIED (s), 0: not sent */
	/* the last failed upload (HC_A_OBJ_EGRESS_*), if has_egress */
	bool has_egress;
	bool egress_permanent;
	uint32_t egress_errno;
	uint32_t egress_failures;
	uint64_t egress_failed_at;	/* CLOCK_REALTIME ns */
	char *egress_msg;		/* NULL when the helper sent none */
	struct hc_extent *ext;
	uint32_t next;
};

struct obj_list {
	struct obj_info *v;
	size_t n;
	size_t cap;
};

/*
 * hcctl_obj_list_get() - the objects of the cache whose URI starts with
 * @prefix (NULL: all), only the dirty and syncing ones with @dirty, sorted
 * by URI, into @l (hcctl_obj_list_free() it).  Errors are reported as
 * @who's.  Returns 0 or -1.
 */
int hcctl_obj_list_get(const char *who, const char *prefix, bool dirty,
		       struct obj_list *l);
void hcctl_obj_list_free(struct obj_list *l);

/*
 * hcctl_evict_refusal() - why the kernel will refuse to evict @o, from the
 * listing (dirty, syncing, staged, ingesting, pinned, held), or NULL.
 */
const char *hcctl_evict_refusal(const struct obj_info *o);

/*
 * hcctl_evict_one() - one HC_CMD_OBJ_EVICT of @o over @nl: 0, or a
 * positive errno with the reason (the listing's, for an EBUSY) in @why.
 */
int hcctl_evict_one(struct hcctl_nl *nl, const struct obj_info *o, char *why,
		    size_t len);

#endif /* HCCTL_CACHE_H */
