// SPDX-License-Identifier: GPL-2.0
/*
 * Revalidation rules: validation, matching and the due rule (reval.h).
 */
#include "reval.h"

/**
 * hc_reval_rule_check - is @r a rule the kernel accepts?
 * @r: the rule
 *
 * Return: 0, or -EINVAL: an empty or too long prefix, an unknown mode, a
 * period outside 1..HC_REVAL_TTL_MAX for HC_REVAL_AFTER, or one given to
 * another mode.
 */
int hc_reval_rule_check(const struct hc_reval_rule *r)
{
	if (!r->prefix_len || r->prefix_len > HC_REVAL_PREFIX_MAX)
		return -EINVAL;
	switch (r->mode) {
	case HC_REVAL_AFTER:
		return r->ttl && r->ttl <= HC_REVAL_TTL_MAX ? 0 : -EINVAL;
	case HC_REVAL_NEVER:
	case HC_REVAL_ALWAYS:
		return r->ttl ? -EINVAL : 0;
	default:
		return -EINVAL;
	}
}

/**
 * hc_reval_set_check - is @r[0..@nr) a rule set the kernel accepts?
 * @r: the rules
 * @nr: their number, 0..HC_REVAL_RULES_MAX
 * @bad: set to the index of the first rule at fault on -EINVAL
 *
 * O(nr^2) prefix comparisons, nr <= 64.  Return: 0; -E2BIG (more than
 * HC_REVAL_RULES_MAX rules); -EINVAL (a rule hc_reval_rule_check()
 * refuses, or a prefix given twice: *@bad is the second).
 */
int hc_reval_set_check(const struct hc_reval_rule *r, u32 nr, u32 *bad)
{
	u32 i, j;

	if (nr > HC_REVAL_RULES_MAX)
		return -E2BIG;
	for (i = 0; i < nr; i++) {
		*bad = i;
		if (hc_reval_rule_check(&r[i]))
			return -EINVAL;
		for (j = 0; j < i; j++)
			if (r[j].prefix_len == r[i].prefix_len &&
			    !memcmp(r[j].prefix, r[i].prefix, r[i].prefix_len))
				return -EINVAL;
	}
	return 0;
}

/**
 * hc_reval_match - the rule an object of @uri follows
 * @r: a rule set hc_reval_set_check() accepted
 * @nr: its rules
 * @uri: the object's URI
 * @len: its bytes
 *
 * Return: the rule with the longest prefix of @uri (prefixes are
 * distinct, so there is one), or NULL if none is a prefix of it.
 */
const struct hc_reval_rule *hc_reval_match(const struct hc_reval_rule *r,
					   u32 nr, const u8 *uri, u32 len)
{
	const struct hc_reval_rule *best = NULL;
	u32 i;

	for (i = 0; i < nr; i++) {
		if (r[i].prefix_len > len ||
		    (best && r[i].prefix_len <= best->prefix_len))
			continue;
		if (!memcmp(r[i].prefix, uri, r[i].prefix_len))
			best = &r[i];
	}
	return best;
}

/**
 * hc_reval_due - must an object that follows @r be checked when opened now?
 * @r: its rule (hc_reval_match()), or NULL: none
 * @checked: when it was last checked (boot clock seconds + 1; 0: not since
 *	the assembly, or never)
 * @now: the boot clock's seconds + 1 now
 *
 * Return: never for no rule and HC_REVAL_NEVER; always for
 * HC_REVAL_ALWAYS; for HC_REVAL_AFTER, when it was not checked yet or
 * @r->ttl seconds or more passed since (a clock that went back is due).
 */
bool hc_reval_due(const struct hc_reval_rule *r, u32 checked, u32 now)
{
	if (!r)
		return false;
	switch (r->mode) {
	case HC_REVAL_ALWAYS:
		return true;
	case HC_REVAL_AFTER:
		return !checked || now < checked || now - checked >= r->ttl;
	default:
		return false;
	}
}
