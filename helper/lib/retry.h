/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The retry policy for backend requests: which outcomes are worth another
 * attempt, and how long to wait ("full jitter" exponential backoff: the
 * n-th wait is uniform in [0, min(cap, base * 2^(n-1))]), bounded by a
 * number of attempts and a total time.
 *
 * Pure: no clock, no sleeping, no curl.  The caller classifies what
 * happened (enum retry_outcome), passes the time elapsed since the first
 * attempt began, and sleeps itself.  The random source is injected, so
 * tests are deterministic.  A retry_state belongs to one request and one
 * thread; the policy may be shared read-only.
 */
#ifndef HC_RETRY_H
#define HC_RETRY_H

#include <stdbool.h>
#include <stdint.h>

/* What one attempt ended with, as the transport saw it. */
enum retry_outcome {
	RETRY_OUT_HTTP,		/* a response arrived; see http_status */
	RETRY_OUT_TIMEOUT,	/* connect or transfer timed out */
	RETRY_OUT_RESET,	/* connection reset or closed mid-response */
	RETRY_OUT_CONNECT,	/* connection refused (gateway restarting) */
	RETRY_OUT_FATAL,	/* local or permanent: bad URL, TLS, out of memory */
};

enum retry_verdict {
	RETRY_AGAIN,		/* wait *delay_ms, then try again */
	RETRY_DONE,		/* success or a permanent answer: do not retry */
	RETRY_NO_ATTEMPTS,	/* retryable, but max_attempts were made */
	RETRY_NO_TIME,		/* retryable, but the wait would pass the budget */
};

struct retry_policy {
	unsigned int max_attempts;	/* total attempts, first included; >= 1 */
	uint64_t base_ms;		/* first wait's upper bound; >= 1 */
	uint64_t cap_ms;		/* largest upper bound; >= base_ms */
	uint64_t budget_ms;		/* no wait may end after this since the start */
};

#define RETRY_DEFAULT_ATTEMPTS	5
#define RETRY_DEFAULT_BASE_MS	100
#define RETRY_DEFAULT_CAP_MS	10000
#define RETRY_DEFAULT_BUDGET_MS	60000

extern const struct retry_policy retry_policy_default;

/* A uniformly distributed 64-bit value. */
typedef uint64_t (*retry_rand_fn)(void *ctx);

struct retry_state {
	const struct retry_policy *policy;
	retry_rand_fn rand;
	void *rand_ctx;
	unsigned int attempts;		/* attempts judged so far */
};

/* retry_policy_check() - 0, or -EINVAL if @p breaks a bound above. */
int retry_policy_check(const struct retry_policy *p);

/*
 * retry_init() - start a request's retry state.  @rand NULL means
 * retry_rand_os().  Returns 0, or -EINVAL for a bad policy.
 */
int retry_init(struct retry_state *s, const struct retry_policy *p,
	       retry_rand_fn rand, void *rand_ctx);

/*
 * retry_retryable() - is this outcome transient?  HTTP 429 and 5xx except
 * 501 and 505 (permanent by definition), timeouts, resets and refused
 * connections are; everything else (2xx, 3xx, 4xx, FATAL) is not.
 */
bool retry_retryable(enum retry_outcome o, int http_status);

/*
 * retry_next() - judge the attempt that just ended with (@o, @http_status)
 * at @elapsed_ms since the first attempt began.  On RETRY_AGAIN, @delay_ms
 * is the wait before the next attempt; otherwise it is 0.  Never fails.
 */
enum retry_verdict retry_next(struct retry_state *s, enum retry_outcome o,
			      int http_status, uint64_t elapsed_ms,
			      uint64_t *delay_ms);

/* retry_verdict_name() - "again", "done", "no attempts left", "no time left". */
const char *retry_verdict_name(enum retry_verdict v);

/* retry_rand_os() - random bits from getrandom(2) (never blocks). */
uint64_t retry_rand_os(void *ctx);

#endif /* HC_RETRY_H */
