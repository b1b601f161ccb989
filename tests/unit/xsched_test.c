// SPDX-License-Identifier: GPL-2.0
/*
 * The transfer scheduler (helper/lib/xsched.c) driven by a fake backend: a
 * discrete-event simulation where every part takes a scripted time
 * (latency + bytes / bandwidth) and may fail or answer SlowDown.  Checked:
 * small objects are not held back by a huge one, the buffer budget and
 * max_objects are never exceeded, every object completes, one failure does
 * not stop the others, SlowDown pauses its backend only.
 */
#include <errno.h>
#include <stdlib.h>
#include "kselftest_harness.h"
#include "xsched.h"

#define MIB		(1024ULL * 1024)
#define NR_OBJ_MAX	600
#define RUNNING_MAX	(HC_XSCHED_BACKENDS_MAX * HC_XSCHED_SLOTS_MAX)

struct sim;

/* What the fake backend answers for one part: out, and a Retry-After. */
typedef enum hc_xsched_outcome (*sim_script_fn)(struct sim *sim,
					       const struct hc_xsched_part *p,
					       uint64_t *retry_after);

struct sim {
	struct hc_xsched s;
	struct hc_xsched_obj obj[NR_OBJ_MAX];
	unsigned int nr_obj;
	uint64_t finished_at[NR_OBJ_MAX];	/* ms */
	int result[NR_OBJ_MAX];
	bool finished[NR_OBJ_MAX];
	uint64_t first_start[NR_OBJ_MAX];
	uint64_t started_parts[NR_OBJ_MAX];
	/* running parts and when they end */
	struct hc_xsched_part run[RUNNING_MAX];
	uint64_t ends[RUNNING_MAX];
	unsigned int nr_run;
	uint64_t now;
	uint64_t latency_ms;		/* per part */
	uint64_t mib_per_s;		/* per slot */
	sim_script_fn script;
	void *script_arg;
	/* invariants seen */
	uint64_t buffered_max;
	unsigned int active_max;	/* objects with a part running */
	uint64_t budget_violations, slot_violations;
	/* starts per backend during a pause of it */
	uint64_t paused_starts[HC_XSCHED_BACKENDS_MAX];
	uint64_t pause_until[HC_XSCHED_BACKENDS_MAX];
	uint64_t starts_after[HC_XSCHED_BACKENDS_MAX];	/* while another pauses */
};

static struct sim *sim_new(const struct hc_xsched_cfg *cfg)
{
	struct sim *sim = calloc(1, sizeof(*sim));
	char err[256];

	if (!sim || hc_xsched_init(&sim->s, cfg, err, sizeof(err)))
		abort();
	sim->latency_ms = 20;
	sim->mib_per_s = 100;
	return sim;
}

static unsigned int sim_add(struct sim *sim, uint64_t size, unsigned int be)
{
	unsigned int i = sim->nr_obj++;
	struct hc_xsched_obj *o = &sim->obj[i];

	o->size = size;
	o->backend = be;
	o->arg = (void *)(uintptr_t)i;
	sim->first_start[i] = UINT64_MAX;
	if (hc_xsched_add(&sim->s, o) == 1) {
		sim->finished[i] = true;
		sim->finished_at[i] = sim->now;
	}
	return i;
}

static unsigned int obj_index(const struct hc_xsched_obj *o)
{
	return (unsigned int)(uintptr_t)o->arg;
}

static void sim_check(struct sim *sim)
{
	unsigned int active = 0;
	bool seen[NR_OBJ_MAX] = { false };
	unsigned int per_be[HC_XSCHED_BACKENDS_MAX] = { 0 };

	if (sim->s.buffered > sim->s.cfg.budget)
		sim->budget_violations++;
	if (sim->s.buffered > sim->buffered_max)
		sim->buffered_max = sim->s.buffered;
	for (unsigned int i = 0; i < sim->nr_run; i++) {
		unsigned int k = obj_index(sim->run[i].obj);

		per_be[sim->run[i].obj->backend]++;
		if (!seen[k]) {
			seen[k] = true;
			active++;
		}
	}
	for (unsigned int b = 0; b < HC_XSCHED_BACKENDS_MAX; b++)
		if (per_be[b] > sim->s.cfg.slots)
			sim->slot_violations++;
	if (active > sim->active_max)
		sim->active_max = active;
}

/* Run until every object finished; false if it never does. */
static bool sim_run(struct sim *sim)
{
	for (unsigned int steps = 0; steps < 1000000; steps++) {
		struct hc_xsched_part p;
		uint64_t wake, t;
		unsigned int i, first;
		int ret;

		while (!(ret = hc_xsched_next(&sim->s, sim->now, &p, &wake))) {
			unsigned int k = obj_index(p.obj), b = p.obj->backend;

			if (sim->nr_run == RUNNING_MAX)
				return false;
			if (sim->now < sim->pause_until[b])
				sim->paused_starts[b]++;
			for (unsigned int o = 0; o < HC_XSCHED_BACKENDS_MAX; o++)
				if (o != b && sim->now < sim->pause_until[o])
					sim->starts_after[o]++;
			if (sim->first_start[k] == UINT64_MAX)
				sim->first_start[k] = sim->now;
			sim->started_parts[k]++;
			sim->run[sim->nr_run] = p;
			sim->ends[sim->nr_run] = sim->now + sim->latency_ms +
				p.len * 1000 / (sim->mib_per_s * MIB);
			sim->nr_run++;
			sim_check(sim);
		}
		if (ret == -ENOENT)
			return sim->nr_run == 0;
		if (!sim->nr_run && wake == UINT64_MAX)
			return false;	/* stuck: nothing runs, nothing due */
		/* the next event: a part ends, or a pause does */
		t = wake;
		first = 0;
		for (i = 0; i < sim->nr_run; i++)
			if (sim->ends[i] < sim->ends[first])
				first = i;
		if (sim->nr_run && sim->ends[first] <= t) {
			struct hc_xsched_part done = sim->run[first];
			enum hc_xsched_outcome out = HC_XSCHED_OK;
			uint64_t ra = 0;
			unsigned int k = obj_index(done.obj);

			sim->now = sim->ends[first];
			sim->run[first] = sim->run[sim->nr_run - 1];
			sim->ends[first] = sim->ends[sim->nr_run - 1];
			sim->nr_run--;
			if (sim->script)
				out = sim->script(sim, &done, &ra);
			if (out == HC_XSCHED_SLOWDOWN) {
				uint64_t until = sim->now + ra;

				if (until > sim->pause_until[done.obj->backend])
					sim->pause_until[done.obj->backend] = until;
			}
			if (hc_xsched_end(&sim->s, &done, out,
					 out == HC_XSCHED_FAIL ? -EIO : 0, ra,
					 sim->now)) {
				sim->finished[k] = true;
				sim->finished_at[k] = sim->now;
				sim->result[k] = done.obj->error;
			}
			sim_check(sim);
		} else {
			sim->now = t;
		}
	}
	return false;
}

static const struct hc_xsched_cfg cfg_default = {
	.max_objects = 4,
	.slots = 8,
	.part_size = 8 * MIB,
	.budget = 64 * MIB,
};

TEST(init_checks)
{
	struct hc_xsched s;
	struct hc_xsched_cfg c = cfg_default;
	char err[256];

	EXPECT_EQ(0, hc_xsched_init(&s, &c, err, sizeof(err)));
	c.budget = c.part_size - 1;
	EXPECT_EQ(-EINVAL, hc_xsched_init(&s, &c, err, sizeof(err)));
	EXPECT_NE(NULL, strstr(err, "buffer budget"));
	c = cfg_default;
	c.slots = HC_XSCHED_SLOTS_MAX + 1;
	EXPECT_EQ(-EINVAL, hc_xsched_init(&s, &c, err, sizeof(err)));
	c = cfg_default;
	c.max_objects = 0;
	EXPECT_EQ(-EINVAL, hc_xsched_init(&s, &c, err, sizeof(err)));
	c = cfg_default;
	c.part_size = 1000;
	EXPECT_EQ(-EINVAL, hc_xsched_init(&s, &c, err, sizeof(err)));
}

TEST(empty_object_finishes_at_once)
{
	struct sim *sim = sim_new(&cfg_default);
	struct hc_xsched_obj bad = { .size = 1, .backend = HC_XSCHED_BACKENDS_MAX };
	struct hc_xsched_part p;
	uint64_t wake;

	sim_add(sim, 0, 0);
	EXPECT_TRUE(sim->finished[0]);
	EXPECT_EQ(-EINVAL, hc_xsched_add(&sim->s, &bad));
	EXPECT_EQ(-ENOENT, hc_xsched_next(&sim->s, 0, &p, &wake));
	free(sim);
}

/* One 16 GiB model, then 50 shards of 1 MiB: the shards do not wait for it. */
TEST(small_not_held_back_by_huge)
{
	struct sim *sim = sim_new(&cfg_default);
	uint64_t last_small = 0, huge_time;

	sim_add(sim, 16384 * MIB, 0);
	for (int i = 0; i < 50; i++)
		sim_add(sim, 1 * MIB, 0);
	ASSERT_TRUE(sim_run(sim));
	for (unsigned int i = 0; i < sim->nr_obj; i++) {
		EXPECT_TRUE(sim->finished[i]);
		EXPECT_EQ(0, sim->result[i]);
	}
	for (unsigned int i = 1; i < sim->nr_obj; i++)
		if (sim->finished_at[i] > last_small)
			last_small = sim->finished_at[i];
	huge_time = sim->finished_at[0];
	/*
	 * 16 GiB over 8 slots of 100 MiB/s is ~20 s; 50 shards of 1 MiB in
	 * the slots the model leaves are done in well under a second.  FIFO
	 * by part (the model's 2048 parts first) would finish them last.
	 */
	EXPECT_LT(last_small, 2000);
	EXPECT_GT(huge_time, 15000);
	/* the model moved while the shards did: it got a share */
	EXPECT_LT(sim->first_start[0], 1);
	EXPECT_EQ(0, sim->budget_violations);
	EXPECT_EQ(0, sim->slot_violations);
	free(sim);
}

/* Budget: many objects, a budget of 3 parts: never above, and reached. */
TEST(budget_never_exceeded)
{
	struct hc_xsched_cfg c = cfg_default;
	struct sim *sim;

	c.budget = 3 * c.part_size;
	c.max_objects = 16;
	sim = sim_new(&c);
	for (int i = 0; i < 40; i++)
		sim_add(sim, (uint64_t)(i % 7 + 1) * 3 * MIB + 123, 0);
	sim_add(sim, 1024 * MIB, 0);
	ASSERT_TRUE(sim_run(sim));
	for (unsigned int i = 0; i < sim->nr_obj; i++) {
		EXPECT_TRUE(sim->finished[i]);
		EXPECT_EQ(0, sim->result[i]);
	}
	EXPECT_EQ(0, sim->budget_violations);
	EXPECT_LE(sim->buffered_max, c.budget);
	EXPECT_GT(sim->buffered_max, 2 * c.part_size);
	EXPECT_EQ(sim->buffered_max, sim->s.buffered_max);
	EXPECT_EQ(0, sim->s.buffered);
	free(sim);
}

/*
 * Write-back's buffers share the budget (hc_xsched_reserve()): with 3 of
 * a budget of 4 parts reserved, one part runs at a time; once they are
 * released after the 10th part, up to 4 run; never above the budget.
 */
struct reserve_run {
	uint64_t reserved, ends;
	unsigned int running_max_reserved, running_max_after;
};

static enum hc_xsched_outcome release_at_10(struct sim *sim,
					    const struct hc_xsched_part *p,
					    uint64_t *ra)
{
	struct reserve_run *r = sim->script_arg;
	unsigned int *m = r->reserved ? &r->running_max_reserved :
					&r->running_max_after;

	(void)p;
	(void)ra;
	if (sim->nr_run + 1 > *m)
		*m = sim->nr_run + 1;
	if (++r->ends == 10) {
		hc_xsched_release(&sim->s, r->reserved);
		r->reserved = 0;
	}
	return HC_XSCHED_OK;
}

TEST(reserve_shares_the_budget)
{
	struct hc_xsched_cfg c = cfg_default;
	struct reserve_run r = { 0 };
	struct sim *sim;

	c.budget = 4 * c.part_size;
	c.max_objects = 16;
	sim = sim_new(&c);
	EXPECT_EQ(-EFBIG, hc_xsched_reserve(&sim->s, 0));
	EXPECT_EQ(-EFBIG, hc_xsched_reserve(&sim->s, c.budget + 1));
	ASSERT_EQ(0, hc_xsched_reserve(&sim->s, 3 * c.part_size));
	r.reserved = 3 * c.part_size;
	EXPECT_EQ(-EAGAIN, hc_xsched_reserve(&sim->s, 2 * c.part_size));
	EXPECT_EQ(r.reserved, sim->s.buffered);
	sim->script = release_at_10;
	sim->script_arg = &r;
	for (int i = 0; i < 20; i++)
		sim_add(sim, 3 * c.part_size, 0);
	ASSERT_TRUE(sim_run(sim));
	for (unsigned int i = 0; i < sim->nr_obj; i++) {
		EXPECT_TRUE(sim->finished[i]);
		EXPECT_EQ(0, sim->result[i]);
	}
	EXPECT_EQ(0, r.reserved);
	EXPECT_EQ(1, r.running_max_reserved);
	EXPECT_EQ(4, r.running_max_after);
	EXPECT_EQ(0, sim->budget_violations);
	EXPECT_EQ(c.budget, sim->s.buffered_max);
	EXPECT_EQ(0, sim->s.buffered);
	/* a reservation that fits again once the parts are done */
	EXPECT_EQ(0, hc_xsched_reserve(&sim->s, c.budget));
	hc_xsched_release(&sim->s, c.budget);
	free(sim);
}

/* max_objects: never more objects moving at once; 1 is one at a time. */
TEST(max_objects_in_flight)
{
	unsigned int limits[] = { 1, 4, 16 };

	for (unsigned int l = 0; l < 3; l++) {
		struct hc_xsched_cfg c = cfg_default;
		struct sim *sim;

		c.max_objects = limits[l];
		c.budget = 1024 * MIB;
		c.slots = 32;
		sim = sim_new(&c);
		for (int i = 0; i < 500; i++)
			sim_add(sim, 64 * 1024 + (uint64_t)i * 8191, 0);
		ASSERT_TRUE(sim_run(sim));
		for (unsigned int i = 0; i < sim->nr_obj; i++) {
			EXPECT_TRUE(sim->finished[i]);
			EXPECT_EQ(1, sim->started_parts[i]);
		}
		EXPECT_EQ(limits[l], sim->active_max);
		EXPECT_EQ(0, sim->slot_violations);
		free(sim);
	}
}

/* Part 2 of object 3 fails: object 3 fails, every other completes. */
static enum hc_xsched_outcome fail_obj3(struct sim *sim,
				       const struct hc_xsched_part *p,
				       uint64_t *ra)
{
	return obj_index(p->obj) == 3 && p->no == 2 ? HC_XSCHED_FAIL :
						     HC_XSCHED_OK;
}

TEST(one_failure_does_not_stop_others)
{
	struct hc_xsched_cfg c = cfg_default;
	struct sim *sim;

	c.slots = 2;	/* object 3's later parts are not started yet */
	sim = sim_new(&c);
	sim->script = fail_obj3;
	for (int i = 0; i < 10; i++)
		sim_add(sim, 80 * MIB, 0);
	ASSERT_TRUE(sim_run(sim));
	for (unsigned int i = 0; i < sim->nr_obj; i++) {
		EXPECT_TRUE(sim->finished[i]);
		EXPECT_EQ(i == 3 ? -EIO : 0, sim->result[i]);
		if (i != 3)
			EXPECT_EQ(10, sim->started_parts[i]);
	}
	/* parts after the failure never started */
	EXPECT_LT(sim->started_parts[3], 10);
	EXPECT_EQ(0, sim->s.buffered);
	free(sim);
}

/*
 * Backend 0 answers SlowDown with Retry-After 500 ms to the first part
 * that ends after 100 ms: no part of backend 0 starts for 500 ms, backend 1
 * goes on meanwhile, the part is moved again and every object completes.
 */
static enum hc_xsched_outcome slow_be0(struct sim *sim,
				      const struct hc_xsched_part *p,
				      uint64_t *ra)
{
	bool *once = sim->script_arg;

	if (p->obj->backend == 0 && sim->now >= 100 && !*once) {
		*once = true;
		*ra = 500;
		return HC_XSCHED_SLOWDOWN;
	}
	return HC_XSCHED_OK;
}

TEST(slowdown_pauses_its_backend_only)
{
	struct hc_xsched_cfg c = cfg_default;
	struct sim *sim;
	bool once = false;

	c.max_objects = 8;
	sim = sim_new(&c);
	sim->script = slow_be0;
	sim->script_arg = &once;
	for (int i = 0; i < 4; i++) {
		sim_add(sim, 256 * MIB, 0);
		sim_add(sim, 256 * MIB, 1);
	}
	ASSERT_TRUE(sim_run(sim));
	EXPECT_TRUE(once);
	for (unsigned int i = 0; i < sim->nr_obj; i++) {
		EXPECT_TRUE(sim->finished[i]);
		EXPECT_EQ(0, sim->result[i]);
	}
	EXPECT_EQ(0, sim->paused_starts[0]);
	EXPECT_GT(sim->starts_after[0], 0);
	/* one part of backend 0 was moved twice */
	EXPECT_EQ(4 * 32 + 1, sim->started_parts[0] + sim->started_parts[2] +
		  sim->started_parts[4] + sim->started_parts[6]);
	/* the window grew back */
	EXPECT_EQ(c.slots, sim->s.be[0].window);
	free(sim);
}

/* Consecutive SlowDowns double the pause without a Retry-After, to a cap. */
TEST(slowdown_backoff_grows)
{
	struct hc_xsched_cfg c = cfg_default;
	struct hc_xsched s;
	struct hc_xsched_obj o = { .size = 64 * MIB };
	struct hc_xsched_part p;
	uint64_t wake, now = 0, pauses[3];
	char err[128];

	ASSERT_EQ(0, hc_xsched_init(&s, &c, err, sizeof(err)));
	ASSERT_EQ(0, hc_xsched_add(&s, &o));
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(0, hc_xsched_next(&s, now, &p, &wake));
		EXPECT_FALSE(hc_xsched_end(&s, &p, HC_XSCHED_SLOWDOWN, 0, 0, now));
		EXPECT_EQ(-EAGAIN, hc_xsched_next(&s, now, &p, &wake));
		pauses[i] = wake - now;
		now = wake;
	}
	EXPECT_EQ(HC_XSCHED_BACKOFF_MS, pauses[0]);
	EXPECT_EQ(2 * HC_XSCHED_BACKOFF_MS, pauses[1]);
	EXPECT_EQ(4 * HC_XSCHED_BACKOFF_MS, pauses[2]);
	EXPECT_EQ(1, s.be[0].window);
}

TEST_HARNESS_MAIN
