// SPDX-License-Identifier: GPL-2.0
/*
 * Retry policy: the retryable outcomes, full-jitter backoff bounds with an
 * injected random source, the attempt limit and the time budget.
 */
#include <errno.h>
#include "kselftest_harness.h"
#include "retry.h"

/* Returns the values of a script, then repeats the last. */
struct script {
	const uint64_t *v;
	int n, i;
};

static uint64_t scripted(void *ctx)
{
	struct script *s = ctx;

	return s->v[s->i < s->n ? s->i++ : s->n - 1];
}

static uint64_t all_ones(void *ctx)
{
	return UINT64_MAX;
}

TEST(retryable_outcomes)
{
	EXPECT_TRUE(retry_retryable(RETRY_OUT_HTTP, 500));
	EXPECT_TRUE(retry_retryable(RETRY_OUT_HTTP, 502));
	EXPECT_TRUE(retry_retryable(RETRY_OUT_HTTP, 503));
	EXPECT_TRUE(retry_retryable(RETRY_OUT_HTTP, 504));
	EXPECT_TRUE(retry_retryable(RETRY_OUT_HTTP, 599));
	EXPECT_TRUE(retry_retryable(RETRY_OUT_HTTP, 429));
	EXPECT_FALSE(retry_retryable(RETRY_OUT_HTTP, 501));
	EXPECT_FALSE(retry_retryable(RETRY_OUT_HTTP, 505));
	EXPECT_FALSE(retry_retryable(RETRY_OUT_HTTP, 200));
	EXPECT_FALSE(retry_retryable(RETRY_OUT_HTTP, 206));
	EXPECT_FALSE(retry_retryable(RETRY_OUT_HTTP, 304));
	EXPECT_FALSE(retry_retryable(RETRY_OUT_HTTP, 403));
	EXPECT_FALSE(retry_retryable(RETRY_OUT_HTTP, 404));
	EXPECT_FALSE(retry_retryable(RETRY_OUT_HTTP, 412));
	EXPECT_FALSE(retry_retryable(RETRY_OUT_HTTP, 600));
	EXPECT_TRUE(retry_retryable(RETRY_OUT_TIMEOUT, 0));
	EXPECT_TRUE(retry_retryable(RETRY_OUT_RESET, 0));
	EXPECT_TRUE(retry_retryable(RETRY_OUT_CONNECT, 0));
	EXPECT_FALSE(retry_retryable(RETRY_OUT_FATAL, 0));
}

TEST(policy_bounds)
{
	struct retry_policy p = retry_policy_default;
	struct retry_state s;

	EXPECT_EQ(0, retry_policy_check(&p));
	p.max_attempts = 0;
	EXPECT_EQ(-EINVAL, retry_policy_check(&p));
	EXPECT_EQ(-EINVAL, retry_init(&s, &p, NULL, NULL));
	p = retry_policy_default;
	p.base_ms = 0;
	EXPECT_EQ(-EINVAL, retry_policy_check(&p));
	p = retry_policy_default;
	p.cap_ms = p.base_ms - 1;
	EXPECT_EQ(-EINVAL, retry_policy_check(&p));
	EXPECT_EQ(-EINVAL, retry_policy_check(NULL));
}

/* A random value equal to the ceiling gives the ceiling: 100, 200, ... capped. */
TEST(ceilings_double_up_to_the_cap)
{
	struct retry_policy p = { .max_attempts = 10, .base_ms = 100,
				  .cap_ms = 1000, .budget_ms = UINT64_MAX };
	static const uint64_t want[] = { 100, 200, 400, 800, 1000, 1000, 1000, 1000, 1000 };
	struct script sc = { want, ARRAY_SIZE(want), 0 };
	struct retry_state s;
	uint64_t d;
	size_t i;

	ASSERT_EQ(0, retry_init(&s, &p, scripted, &sc));
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		ASSERT_EQ(RETRY_AGAIN, retry_next(&s, RETRY_OUT_HTTP, 503, 0, &d));
		EXPECT_EQ(want[i], d) TH_LOG("wait %zu", i + 1);
	}
	EXPECT_EQ(RETRY_NO_ATTEMPTS, retry_next(&s, RETRY_OUT_HTTP, 503, 0, &d));
	EXPECT_EQ(0, d);
}

TEST(full_jitter_is_uniform_in_zero_to_ceiling)
{
	struct retry_policy p = { .max_attempts = 6, .base_ms = 100,
				  .cap_ms = 10000, .budget_ms = UINT64_MAX };
	/* r % (ceil + 1): 100 -> [0,100], then 200, 400, 800, 1600 */
	static const uint64_t r[] = { 100, 201 * 7 + 5, 0, 800, 1601 * 3 + 1600 };
	struct script sc = { r, ARRAY_SIZE(r), 0 };
	static const uint64_t want[] = { 100, 5, 0, 800, 1600 };
	struct retry_state s;
	uint64_t d;
	size_t i;

	ASSERT_EQ(0, retry_init(&s, &p, scripted, &sc));
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		ASSERT_EQ(RETRY_AGAIN, retry_next(&s, RETRY_OUT_TIMEOUT, 0, 0, &d));
		EXPECT_EQ(want[i], d) TH_LOG("wait %zu", i + 1);
	}
	EXPECT_EQ(RETRY_NO_ATTEMPTS, retry_next(&s, RETRY_OUT_TIMEOUT, 0, 0, &d));
	EXPECT_EQ(6, s.attempts);
}

TEST(permanent_answers_stop_at_once)
{
	struct retry_state s;
	uint64_t d = 42;

	ASSERT_EQ(0, retry_init(&s, &retry_policy_default, all_ones, NULL));
	EXPECT_EQ(RETRY_DONE, retry_next(&s, RETRY_OUT_HTTP, 200, 0, &d));
	EXPECT_EQ(0, d);
	ASSERT_EQ(0, retry_init(&s, &retry_policy_default, all_ones, NULL));
	EXPECT_EQ(RETRY_DONE, retry_next(&s, RETRY_OUT_HTTP, 403, 0, &d));
	ASSERT_EQ(0, retry_init(&s, &retry_policy_default, all_ones, NULL));
	EXPECT_EQ(RETRY_DONE, retry_next(&s, RETRY_OUT_FATAL, 0, 0, &d));
	/* a transient failure then a 404: done */
	ASSERT_EQ(0, retry_init(&s, &retry_policy_default, all_ones, NULL));
	EXPECT_EQ(RETRY_AGAIN, retry_next(&s, RETRY_OUT_RESET, 0, 0, &d));
	EXPECT_EQ(RETRY_DONE, retry_next(&s, RETRY_OUT_HTTP, 404, 50, &d));
}

TEST(time_budget)
{
	struct retry_policy p = { .max_attempts = 100, .base_ms = 1000,
				  .cap_ms = 1000, .budget_ms = 5000 };
	static const uint64_t r[] = { 1000 };
	struct script sc = { r, 1, 0 };
	struct retry_state s;
	uint64_t d;

	ASSERT_EQ(0, retry_init(&s, &p, scripted, &sc));
	EXPECT_EQ(RETRY_AGAIN, retry_next(&s, RETRY_OUT_HTTP, 500, 3999, &d));
	EXPECT_EQ(1000, d);
	EXPECT_EQ(RETRY_AGAIN, retry_next(&s, RETRY_OUT_HTTP, 500, 4000, &d));	/* ends at 5000 */
	EXPECT_EQ(RETRY_NO_TIME, retry_next(&s, RETRY_OUT_HTTP, 500, 4001, &d));
	EXPECT_EQ(0, d);
	EXPECT_EQ(RETRY_NO_TIME, retry_next(&s, RETRY_OUT_HTTP, 500, 9000, &d));
}

TEST(one_attempt_means_no_retry)
{
	struct retry_policy p = retry_policy_default;
	struct retry_state s;
	uint64_t d;

	p.max_attempts = 1;
	ASSERT_EQ(0, retry_init(&s, &p, all_ones, NULL));
	EXPECT_EQ(RETRY_NO_ATTEMPTS, retry_next(&s, RETRY_OUT_HTTP, 503, 0, &d));
}

TEST(huge_cap_does_not_overflow)
{
	struct retry_policy p = { .max_attempts = 200, .base_ms = 1,
				  .cap_ms = UINT64_MAX, .budget_ms = UINT64_MAX };
	struct retry_state s;
	uint64_t d;
	int i;

	ASSERT_EQ(0, retry_init(&s, &p, all_ones, NULL));
	for (i = 0; i < 199; i++)
		ASSERT_EQ(RETRY_AGAIN, retry_next(&s, RETRY_OUT_RESET, 0, 0, &d));
	EXPECT_EQ(UINT64_MAX, d);
}

TEST(os_random_and_names)
{
	struct retry_state s;
	uint64_t d;

	ASSERT_EQ(0, retry_init(&s, &retry_policy_default, NULL, NULL));
	ASSERT_EQ(RETRY_AGAIN, retry_next(&s, RETRY_OUT_HTTP, 503, 0, &d));
	EXPECT_GE(RETRY_DEFAULT_BASE_MS, d);
	EXPECT_STREQ("no time left", retry_verdict_name(RETRY_NO_TIME));
	EXPECT_STREQ("again", retry_verdict_name(RETRY_AGAIN));
}

TEST_HARNESS_MAIN
