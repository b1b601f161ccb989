// SPDX-License-Identifier: GPL-2.0
/*
 * Retry policy: transient outcomes, full-jitter exponential backoff,
 * bounded attempts and total time.  See retry.h and Documentation/s3.md.
 */
#include <errno.h>
#include <sys/random.h>
#include <time.h>

#include "retry.h"

const struct retry_policy retry_policy_default = {
	.max_attempts	= RETRY_DEFAULT_ATTEMPTS,
	.base_ms	= RETRY_DEFAULT_BASE_MS,
	.cap_ms		= RETRY_DEFAULT_CAP_MS,
	.budget_ms	= RETRY_DEFAULT_BUDGET_MS,
};

int retry_policy_check(const struct retry_policy *p)
{
	if (!p || p->max_attempts < 1 || p->base_ms < 1 || p->cap_ms < p->base_ms)
		return -EINVAL;
	return 0;
}

int retry_init(struct retry_state *s, const struct retry_policy *p,
	       retry_rand_fn rand, void *rand_ctx)
{
	if (!s || retry_policy_check(p))
		return -EINVAL;
	s->policy = p;
	s->rand = rand ? rand : retry_rand_os;
	s->rand_ctx = rand_ctx;
	s->attempts = 0;
	return 0;
}

bool retry_retryable(enum retry_outcome o, int http_status)
{
	switch (o) {
	case RETRY_OUT_HTTP:
		if (http_status == 429)
			return true;
		return http_status >= 500 && http_status <= 599 &&
		       http_status != 501 && http_status != 505;
	case RETRY_OUT_TIMEOUT:
	case RETRY_OUT_RESET:
	case RETRY_OUT_CONNECT:
		return true;
	case RETRY_OUT_FATAL:
	default:
		return false;
	}
}

/* Upper bound of the wait after failed attempt @n (1-based). */
static uint64_t retry_ceiling(const struct retry_policy *p, unsigned int n)
{
	uint64_t c = p->base_ms;

	while (--n && c < p->cap_ms)
		c = c > p->cap_ms / 2 ? p->cap_ms : c * 2;
	return c < p->cap_ms ? c : p->cap_ms;
}

enum retry_verdict retry_next(struct retry_state *s, enum retry_outcome o,
			      int http_status, uint64_t elapsed_ms,
			      uint64_t *delay_ms)
{
	const struct retry_policy *p = s->policy;
	uint64_t ceil, d;

	*delay_ms = 0;
	s->attempts++;
	if (!retry_retryable(o, http_status))
		return RETRY_DONE;
	if (s->attempts >= p->max_attempts)
		return RETRY_NO_ATTEMPTS;
	ceil = retry_ceiling(p, s->attempts);
	/* uniform in [0, ceil]; the modulo bias is below 2^-40 for ceil < 2^24 */
	d = ceil == UINT64_MAX ? s->rand(s->rand_ctx) : s->rand(s->rand_ctx) % (ceil + 1);
	if (elapsed_ms >= p->budget_ms || d > p->budget_ms - elapsed_ms)
		return RETRY_NO_TIME;
	*delay_ms = d;
	return RETRY_AGAIN;
}

const char *retry_verdict_name(enum retry_verdict v)
{
	switch (v) {
	case RETRY_AGAIN:
		return "again";
	case RETRY_DONE:
		return "done";
	case RETRY_NO_ATTEMPTS:
		return "no attempts left";
	case RETRY_NO_TIME:
		return "no time left";
	}
	return "?";
}

uint64_t retry_rand_os(void *ctx)
{
	uint64_t v = 0;

	(void)ctx;
	if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != sizeof(v)) {
		struct timespec ts;

		/* jitter only needs to decorrelate clients, not be secret */
		clock_gettime(CLOCK_MONOTONIC, &ts);
		v = (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ULL ^ (uint64_t)ts.tv_sec;
	}
	return v;
}
