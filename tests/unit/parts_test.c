// SPDX-License-Identifier: GPL-2.0
/*
 * The parts of an object moved by worker threads (helper/parts.c): a
 * part's CRC is handed in without waiting for the parts before it, the
 * object's CRC-32C is that of the whole bytes whatever order the parts
 * come in, the last part's caller gets it only once every part is in,
 * what is kept ahead of the fold is bounded, and a failure wakes every
 * waiter with -ECANCELED.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <isa-l/crc.h>
#include "kselftest_harness.h"
#include "parts.h"

static unsigned char *pattern(size_t size)
{
	unsigned char *b = malloc(size ? size : 1);

	for (size_t i = 0; b && i < size; i++)
		b[i] = (unsigned char)((i * 0x9E3779B97F4A7C15ULL) >> 56 ^ i);
	return b;
}

static uint32_t whole_crc(const unsigned char *b, size_t size)
{
	return ~crc32_iscsi((unsigned char *)b, (int)size, ~0U);
}

/* Parts handed in backwards by one thread: none may wait (before, each
 * waited for the part before it: this test hung). */
TEST(backwards_without_waiting)
{
	const size_t part = 4096, nr = 5, size = part * nr - 100;
	unsigned char *b = pattern(size);
	struct hc_parts p;
	char err[128] = "";
	uint32_t crc = 0;

	ASSERT_NE(NULL, b);
	hc_parts_init(&p, nr, err, sizeof(err));
	for (size_t n = nr - 1; n-- > 0;)
		ASSERT_EQ(0, hc_parts_crc(&p, n, b + n * part, part, &crc));
	EXPECT_EQ(0, crc);	/* not set for a part that is not the last */
	EXPECT_EQ(nr - 1, p.crc_part);	/* all folded but the last */
	ASSERT_EQ(0, hc_parts_crc(&p, nr - 1, b + (nr - 1) * part,
				  size - (nr - 1) * part, &crc));
	EXPECT_EQ(whole_crc(b, size), crc);
	EXPECT_EQ(whole_crc(b, size), hc_parts_crc32c(&p));
	hc_parts_destroy(&p);
	free(b);
}

TEST(empty_object)
{
	struct hc_parts p;
	char err[128] = "";
	uint32_t crc = 1;

	hc_parts_init(&p, 1, err, sizeof(err));
	ASSERT_EQ(0, hc_parts_take(&p));
	ASSERT_EQ(-1, hc_parts_take(&p));
	ASSERT_EQ(0, hc_parts_crc(&p, 0, "", 0, &crc));
	EXPECT_EQ(0, crc);
	EXPECT_EQ(0, hc_parts_crc32c(&p));
	hc_parts_destroy(&p);
}

struct run {
	struct hc_parts *p;
	const unsigned char *b;
	size_t size, part;
	unsigned int seed;
	uint32_t last_crc;
	int last_seen;
};

static void *worker(void *arg)
{
	struct run *r = arg;
	unsigned int seed = r->seed;
	int64_t t;

	while ((t = hc_parts_take(r->p)) >= 0) {
		uint64_t n = (uint64_t)t, off = n * r->part;
		size_t len = r->size - off < r->part ? r->size - off : r->part;
		uint32_t crc;

		usleep(rand_r(&seed) % 400);	/* finish in any order */
		if (hc_parts_crc(r->p, n, r->b + off, len, &crc))
			break;
		if (n + 1 == r->p->nr) {
			r->last_crc = crc;
			r->last_seen = 1;
		}
	}
	return NULL;
}

/* Eight workers, more parts than are kept ahead, random delays. */
TEST(threads_any_order)
{
	const size_t part = 1000, nr = 3 * HC_PARTS_AHEAD + 7;
	const size_t size = part * (nr - 1) + 333;
	unsigned char *b = pattern(size);
	struct run r[8];
	pthread_t tid[8];
	struct hc_parts p;
	char err[128] = "";
	uint32_t last = 0;
	int seen = 0;

	ASSERT_NE(NULL, b);
	hc_parts_init(&p, nr, err, sizeof(err));
	for (int i = 0; i < 8; i++) {
		r[i] = (struct run){ .p = &p, .b = b, .size = size,
				     .part = part, .seed = 17u * (unsigned)i + 1 };
		ASSERT_EQ(0, pthread_create(&tid[i], NULL, worker, &r[i]));
	}
	for (int i = 0; i < 8; i++) {
		pthread_join(tid[i], NULL);
		if (r[i].last_seen) {
			last = r[i].last_crc;
			seen++;
		}
	}
	EXPECT_EQ(0, p.error);
	EXPECT_EQ(nr, p.crc_part);
	EXPECT_EQ(1, seen);
	EXPECT_EQ(whole_crc(b, size), last);
	EXPECT_EQ(whole_crc(b, size), hc_parts_crc32c(&p));
	hc_parts_destroy(&p);
	free(b);
}

struct ahead_run {
	struct hc_parts *p;
	const unsigned char *b;
	size_t part;
	volatile int handed;	/* parts 1.. handed in */
	int ret;
};

/* Hands in parts 1..HC_PARTS_AHEAD: the last of them must wait for 0. */
static void *ahead_worker(void *arg)
{
	struct ahead_run *a = arg;
	uint32_t crc;

	for (uint64_t n = 1; n <= HC_PARTS_AHEAD; n++) {
		a->ret = hc_parts_crc(a->p, n, a->b + n * a->part, a->part,
				      &crc);
		if (a->ret)
			return NULL;
		__atomic_store_n(&a->handed, (int)n, __ATOMIC_RELEASE);
	}
	return NULL;
}

TEST(ahead_is_bounded)
{
	const size_t part = 512, nr = HC_PARTS_AHEAD + 2;
	unsigned char *b = pattern(part * nr);
	struct hc_parts p;
	struct ahead_run a;
	pthread_t tid;
	char err[128] = "";
	uint32_t crc = 0;

	ASSERT_NE(NULL, b);
	hc_parts_init(&p, nr, err, sizeof(err));
	a = (struct ahead_run){ .p = &p, .b = b, .part = part };
	ASSERT_EQ(0, pthread_create(&tid, NULL, ahead_worker, &a));
	for (int i = 0; i < 200 && __atomic_load_n(&a.handed, __ATOMIC_ACQUIRE) <
				   HC_PARTS_AHEAD - 1; i++)
		usleep(10000);
	usleep(100000);
	/* parts 1..AHEAD-1 went in without part 0; part AHEAD waits */
	EXPECT_EQ(HC_PARTS_AHEAD - 1, __atomic_load_n(&a.handed,
						      __ATOMIC_ACQUIRE));
	EXPECT_EQ(0, p.crc_part);
	ASSERT_EQ(0, hc_parts_crc(&p, 0, b, part, &crc));
	pthread_join(tid, NULL);
	EXPECT_EQ(0, a.ret);
	EXPECT_EQ(HC_PARTS_AHEAD, a.handed);
	EXPECT_EQ(HC_PARTS_AHEAD + 1, p.crc_part);
	ASSERT_EQ(0, hc_parts_crc(&p, nr - 1, b + (nr - 1) * part, part, &crc));
	EXPECT_EQ(whole_crc(b, part * nr), crc);
	hc_parts_destroy(&p);
	free(b);
}

struct last_run {
	struct hc_parts *p;
	const unsigned char *b;
	int ret;
	volatile int done;
};

static void *last_worker(void *arg)
{
	struct last_run *l = arg;
	uint32_t crc;

	l->ret = hc_parts_crc(l->p, 2, l->b, 10, &crc);
	__atomic_store_n(&l->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* The last part waits for the others; a failure wakes it, canceled. */
TEST(failure_wakes_the_last_part)
{
	unsigned char *b = pattern(30);
	struct hc_parts p;
	struct last_run l;
	pthread_t tid;
	char err[128] = "";
	uint32_t crc;

	ASSERT_NE(NULL, b);
	hc_parts_init(&p, 3, err, sizeof(err));
	ASSERT_EQ(0, hc_parts_crc(&p, 1, b + 10, 10, &crc));
	l = (struct last_run){ .p = &p, .b = b + 20 };
	ASSERT_EQ(0, pthread_create(&tid, NULL, last_worker, &l));
	usleep(100000);
	EXPECT_EQ(0, __atomic_load_n(&l.done, __ATOMIC_ACQUIRE));
	hc_parts_fail(&p, -EIO, "part 1: read error");
	pthread_join(tid, NULL);
	EXPECT_EQ(-ECANCELED, l.ret);
	EXPECT_EQ(-EIO, p.error);
	EXPECT_NE(NULL, strstr(err, "part 1: read error"));
	EXPECT_EQ(-ECANCELED, hc_parts_crc(&p, 0, b, 10, &crc));
	EXPECT_EQ(-1, hc_parts_take(&p));
	hc_parts_destroy(&p);
	free(b);
}

TEST_HARNESS_MAIN
