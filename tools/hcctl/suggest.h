/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "Did you mean": the candidate closest to a mistyped word.
 *
 * Distance is the optimal string alignment distance (insertions,
 * deletions, substitutions and swaps of two adjacent characters, each 1),
 * so "lcoate" is 1 from "locate".  A candidate is suggested when it is at
 * most 2 away and closer than half the word's length (so "x" suggests
 * nothing), or when the word is a prefix of it of at least 3 characters
 * ("evi" suggests "evict").  Ties go to the earlier candidate.  Pure: no
 * allocation for words up to HCCTL_SUGGEST_MAX bytes (longer ones never
 * match), no I/O.
 */
#ifndef HCCTL_SUGGEST_H
#define HCCTL_SUGGEST_H

#include <stddef.h>

#define HCCTL_SUGGEST_MAX	64

/* The optimal string alignment distance of @a and @b (-1 if one is longer than HCCTL_SUGGEST_MAX). */
int hcctl_edit_distance(const char *a, const char *b);

/* The candidate of @cands (@n of them) to suggest for @word, or NULL. */
const char *hcctl_suggest(const char *word, const char *const *cands, size_t n);

#endif /* HCCTL_SUGGEST_H */
