/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Revalidation rules (Documentation/ingest.md, "Revalidation"): which
 * objects are checked against their backend when opened, and when.
 *
 * hypercached sends one rule per backend (HC_CMD_REVAL_RULES): a URI
 * prefix, a mode (enum hc_reval_mode) and, for HC_REVAL_AFTER, a period.
 * An object follows the rule with the longest prefix of its URI; no rule,
 * never.  Its last check is kept in memory only, as a second of the boot
 * clock plus one (0: not checked since the pool was assembled, so due at
 * once under HC_REVAL_AFTER).
 *
 * Pure code (core): never blocks, never allocates, takes no lock.
 */
#ifndef HC_REVAL_H
#define HC_REVAL_H

#include "core.h"
#include "../../uapi/hypercache_netlink.h"

/**
 * struct hc_reval_rule - one rule
 * @prefix: the URI prefix it applies to (@prefix_len bytes, no NUL)
 * @prefix_len: 1..HC_REVAL_PREFIX_MAX
 * @mode: enum hc_reval_mode
 * @ttl: HC_REVAL_AFTER: seconds between checks, 1..HC_REVAL_TTL_MAX;
 *	0 for the other modes
 */
struct hc_reval_rule {
	const u8 *prefix;
	u32 prefix_len;
	u32 mode;
	u32 ttl;
};

#define HC_REVAL_PREFIX_MAX	1024	/* HC_URI_MAX */

int hc_reval_rule_check(const struct hc_reval_rule *r);
int hc_reval_set_check(const struct hc_reval_rule *r, u32 nr, u32 *bad);
const struct hc_reval_rule *hc_reval_match(const struct hc_reval_rule *r,
					   u32 nr, const u8 *uri, u32 len);
bool hc_reval_due(const struct hc_reval_rule *r, u32 checked, u32 now);

#endif /* HC_REVAL_H */
