// SPDX-License-Identifier: GPL-2.0
/* "Did you mean": see suggest.h. */
#include <string.h>
#include "suggest.h"

static int min3(int a, int b, int c)
{
	int m = a < b ? a : b;

	return m < c ? m : c;
}

int hcctl_edit_distance(const char *a, const char *b)
{
	int d[HCCTL_SUGGEST_MAX + 1][HCCTL_SUGGEST_MAX + 1];
	size_t la = strlen(a), lb = strlen(b), i, j;

	if (la > HCCTL_SUGGEST_MAX || lb > HCCTL_SUGGEST_MAX)
		return -1;
	for (i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			int cost = a[i - 1] != b[j - 1];

			d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1,
				       d[i - 1][j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < d[i][j])
				d[i][j] = d[i - 2][j - 2] + 1;
		}
	}
	return d[la][lb];
}

const char *hcctl_suggest(const char *word, const char *const *cands, size_t n)
{
	size_t len = strlen(word), i;
	const char *best = NULL;
	int best_d = 3, dist;

	for (i = 0; i < n; i++) {
		if (len >= 3 && len < strlen(cands[i]) &&
		    !strncmp(word, cands[i], len))
			dist = 1;
		else
			dist = hcctl_edit_distance(word, cands[i]);
		if (dist < 0 || dist >= best_d || 2 * (size_t)dist >= len)
			continue;
		best = cands[i];
		best_d = dist;
	}
	return best;
}
