// SPDX-License-Identifier: GPL-2.0
/*
 * hypercached's NUMA placement with libnuma: see place.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <numa.h>
#include <numaif.h>
#include "place.h"
#include "channel.h"
#include "util.h"

#define MASK_LONGS	((HC_NUMA_NODE_MAX + 1) / (8 * sizeof(unsigned long)))

static struct {
	hc_place_log_fn log;
	bool on;
	int max_node;			/* numa_max_node() */
	cpu_set_t all;			/* the CPUs the process started on */
	cpu_set_t *cpus;		/* per node, within @all */
	int nic_node;			/* -1: none known */
	char nic[64];
	pthread_mutex_t lock;		/* the map cache */
	bool have_map;
	uint8_t uuid[16];
	struct hc_numa_map map;
	struct hc_scrape_numa st;	/* the exporter's, atomic adds */
} pl = {
	.nic_node = -1,
	.lock = PTHREAD_MUTEX_INITIALIZER,
};

/* the node the calling thread was last moved to; -2: never moved */
static __thread int thread_node = -2;
/* the node of libcurl's receive buffer in this thread's transfer; -2: none seen */
static __thread int recv_node = -2;

#define plog(...) do { if (pl.log) pl.log(__VA_ARGS__); } while (0)

#define ADD(field, v) __atomic_add_fetch(&(field), (v), __ATOMIC_RELAXED)

/* @node's counters, or NULL for no node (-1) or one past the exporter's */
static struct hc_scrape_numa_node *st_node(int node)
{
	return node >= 0 && (unsigned int)node < pl.st.nr_nodes ?
	       &pl.st.n[node] : NULL;
}

void hc_place_init(enum hc_numa_mode mode, hc_place_log_fn log)
{
	struct bitmask *bm;
	char route[16384];
	size_t len = 0;
	FILE *f;
	int n, nodes = 0;

	pl.log = log;
	if (mode == HC_NUMA_OFF) {
		plog(HC_LOG_INFO, "numa: off (numa = off)");
		return;
	}
	if (numa_available() < 0 || numa_num_configured_nodes() < 2) {
		plog(HC_LOG_DEBUG, "numa: one memory node: no placement");
		return;
	}
	if (sched_getaffinity(0, sizeof(pl.all), &pl.all)) {
		plog(HC_LOG_DEBUG, "numa: sched_getaffinity: %s: no placement",
		       strerror(errno));
		return;
	}
	pl.max_node = numa_max_node();
	if (pl.max_node > HC_NUMA_NODE_MAX)
		pl.max_node = HC_NUMA_NODE_MAX;
	pl.cpus = calloc((size_t)pl.max_node + 1, sizeof(*pl.cpus));
	bm = numa_allocate_cpumask();
	if (!pl.cpus || !bm) {
		free(pl.cpus);
		pl.cpus = NULL;
		if (bm)
			numa_free_cpumask(bm);
		return;
	}
	for (n = 0; n <= pl.max_node; n++) {
		unsigned int c;

		CPU_ZERO(&pl.cpus[n]);
		if (numa_node_to_cpus(n, bm))
			continue;
		for (c = 0; c < bm->size && c < CPU_SETSIZE; c++)
			if (numa_bitmask_isbitset(bm, c) && CPU_ISSET(c, &pl.all))
				CPU_SET(c, &pl.cpus[n]);
		if (CPU_COUNT(&pl.cpus[n]))
			nodes++;
	}
	numa_free_cpumask(bm);
	pl.on = true;
	/* the NIC of the default route */
	f = fopen("/proc/net/route", "re");
	if (f) {
		len = fread(route, 1, sizeof(route) - 1, f);
		fclose(f);
	}
	route[len] = '\0';
	if (!hc_numa_default_if(route, pl.nic, sizeof(pl.nic)))
		pl.nic_node = hc_numa_sysfs_node("/sys", "net", pl.nic);
	else
		pl.nic[0] = '\0';
	if (pl.nic_node > pl.max_node)
		pl.nic_node = -1;
	pl.st.nr_nodes = (unsigned int)pl.max_node + 1 > HC_SCRAPE_NODES_MAX ?
			 HC_SCRAPE_NODES_MAX : (unsigned int)pl.max_node + 1;
	pl.st.nic_node = pl.nic_node;
	pl.st.on = true;
	plog(HC_LOG_INFO, "numa: %d nodes (%d with CPUs of ours); NIC %s on node %d",
	       pl.max_node + 1, nodes, *pl.nic ? pl.nic : "(no default route)",
	       pl.nic_node);
}

bool hc_place_on(void)
{
	return pl.on;
}

int hc_place_map(const uint8_t uuid[16], struct hc_numa_map *m)
{
	struct hc_pool_members pm;
	char line[1024];
	size_t at = 0;
	uint32_t i;
	int ret;

	if (!pl.on)
		return -EOPNOTSUPP;
	pthread_mutex_lock(&pl.lock);
	if (pl.have_map && !memcmp(pl.uuid, uuid, 16)) {
		*m = pl.map;
		pthread_mutex_unlock(&pl.lock);
		return 0;
	}
	ret = hc_channel_pool_members(&pm);
	if (!ret && memcmp(pm.pool_uuid, uuid, 16))
		ret = -ESTALE;		/* the pool changed since */
	if (!ret && (!pm.chunk_size || (pm.chunk_size & (pm.chunk_size - 1))))
		ret = -EINVAL;
	if (ret) {
		pthread_mutex_unlock(&pl.lock);
		plog(HC_LOG_DEBUG, "numa: the pool's members: %s: no placement",
		       strerror(-ret));
		return ret;
	}
	memset(&pl.map, 0, sizeof(pl.map));
	pl.map.chunk_size = pm.chunk_size;
	pl.map.member_count = pm.member_count;
	line[0] = '\0';
	for (i = 0; i < pm.member_count; i++) {
		int node = *pm.name[i] ?
			   hc_numa_sysfs_node("/sys", "block", pm.name[i]) : -1;

		if (node > pl.max_node)
			node = -1;
		pl.map.node[i] = (int16_t)node;
		if (at < sizeof(line))
			at += (size_t)snprintf(line + at, sizeof(line) - at,
					       "%s%s node %d", i ? ", " : "",
					       *pm.name[i] ? pm.name[i] : "?",
					       node);
	}
	memcpy(pl.uuid, uuid, 16);
	pl.have_map = true;
	*m = pl.map;
	pthread_mutex_unlock(&pl.lock);
	plog(HC_LOG_INFO, "numa: pool members %s", line);
	return 0;
}

/*
 * Placing: a mapping of its own, whose pages fault in on the nodes its runs
 * are bound to.  Not placing: the allocator's, as before (glibc reuses the
 * memory of freed parts, which saves their page faults).
 */
void *hc_place_buf(size_t len)
{
	void *p;

	if (!pl.on)
		return posix_memalign(&p, 4096, len ? len : 1) ? NULL : p;
	p = mmap(NULL, len ? len : 1, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

void hc_place_buf_free(void *buf, size_t len)
{
	if (!pl.on)
		free(buf);
	else if (buf)
		munmap(buf, len ? len : 1);
}

/* Move the calling thread onto @node's CPUs (-1: the process's again). */
static void thread_to(int node)
{
	const cpu_set_t *set;

	if (node == thread_node)
		return;
	set = node >= 0 ? &pl.cpus[node] : &pl.all;
	if (!CPU_COUNT(set))
		return;		/* no CPU of ours there: memory only */
	if (sched_setaffinity(0, sizeof(*set), set))
		plog(HC_LOG_DEBUG, "numa: sched_setaffinity to node %d: %s",
		       node, strerror(errno));
	else
		thread_node = node;
}

void hc_place_part(const struct hc_numa_map *m, const struct hc_extent *ext,
		   uint32_t nr_ext, uint64_t off, uint64_t len, void *buf,
		   struct hc_place_part *pp)
{
	long page = sysconf(_SC_PAGESIZE);
	int i, n;

	pp->nr = 0;
	pp->node = -1;
	pp->net = false;
	if (!pl.on || !len)
		return;
	n = hc_numa_runs(m, ext, nr_ext, off, len, pp->runs, HC_PLACE_RUNS_MAX);
	if (n <= 0)
		return;
	for (i = 0; i < n; i++) {
		struct hc_numa_run *r = &pp->runs[i];
		unsigned long mask[MASK_LONGS] = { 0 };
		uint64_t blen = (r->len + (uint64_t)page - 1) & ~((uint64_t)page - 1);

		if (r->node < 0 || r->off % (uint64_t)page)
			continue;
		mask[r->node / (8 * sizeof(long))] |= 1UL << (r->node % (8 * sizeof(long)));
		/*
		 * The run's old contents are not wanted (the part is read or
		 * fetched into it next): drop its pages rather than migrate
		 * them.  A migration is best effort (a page that something
		 * else holds a reference to stays where it is, silently), and
		 * copies bytes that are about to be overwritten; a page
		 * dropped faults in again under the new policy.
		 */
		if (madvise((char *)buf + r->off, blen, MADV_DONTNEED))
			plog(HC_LOG_DEBUG, "numa: madvise: %s", strerror(errno));
		if (mbind((char *)buf + r->off, blen, MPOL_PREFERRED, mask,
			  HC_NUMA_NODE_MAX + 1, 0))
			plog(HC_LOG_DEBUG, "numa: mbind to node %d: %s",
			       r->node, strerror(errno));
	}
	pp->nr = n;
	pp->node = hc_numa_major(pp->runs, n);
	thread_to(pp->node);
}

void hc_place_count(const struct hc_place_part *pp, const void *buf,
		    enum hc_place_path path, struct hc_place_tally *t)
{
	void *pages[HC_PLACE_RUNS_MAX];
	int status[HC_PLACE_RUNS_MAX], nodes[HC_PLACE_RUNS_MAX];
	unsigned long n = 0, i, local = 0;
	struct hc_scrape_numa_node *sn;
	bool queried;
	int cpu;

	if (!pp->nr)
		return;
	for (i = 0; i < (unsigned long)pp->nr; i++) {
		if (pp->runs[i].node < 0)
			continue;
		pages[n] = (char *)buf + pp->runs[i].off;
		nodes[n] = pp->runs[i].node;
		n++;
	}
	/* move_pages without nodes: where each page is, or -errno */
	queried = n && !move_pages(0, n, pages, NULL, status, 0);
	for (i = 0; i < n; i++) {
		bool here = queried && status[i] == nodes[i];

		local += here;
		sn = st_node(nodes[i]);
		if (!sn)
			continue;
		if (here)
			ADD(sn->pages_local[path], 1);
		else
			ADD(sn->pages_remote[path], 1);
	}
	cpu = sched_getcpu();
	ADD(t->parts, 1);
	ADD(t->pages, n);
	ADD(t->local, local);
	sn = st_node(pp->node);
	if (sn)
		ADD(sn->parts[path], 1);
	if (pp->node >= 0 && cpu >= 0 && numa_node_of_cpu(cpu) == pp->node) {
		ADD(t->on_node, 1);
		if (sn)
			ADD(sn->workers_on[path], 1);
	} else if (sn) {
		ADD(sn->workers_off[path], 1);
	}
}

void hc_place_net_begin(struct hc_place_part *pp)
{
	pp->net = false;
	if (!pl.on || pl.nic_node < 0 || !CPU_COUNT(&pl.cpus[pl.nic_node]))
		return;
	thread_to(pl.nic_node);
	pp->net = thread_node == pl.nic_node;
}

void hc_place_net_recv(void *arg, const void *ptr)
{
	long page = sysconf(_SC_PAGESIZE);
	void *pg = (void *)((uintptr_t)ptr & ~((uintptr_t)page - 1));
	int status, node;

	if (!pl.on)
		return;
	/* move_pages without nodes: where the page is, or -errno */
	node = move_pages(0, 1, &pg, NULL, &status, 0) ? -1 : status;
	if (arg)
		*(int *)arg = node;
	else
		recv_node = node;
}

void hc_place_net_recv_from(int node)
{
	recv_node = node;
}

void hc_place_net_end(struct hc_place_part *pp, enum hc_place_path path,
		      struct hc_place_tally *t)
{
	struct hc_scrape_numa_node *sn = st_node(pl.nic_node);
	int cpu, rn = recv_node;

	recv_node = -2;
	if (!pp->net)
		return;
	pp->net = false;
	cpu = sched_getcpu();
	ADD(t->net, 1);
	if (cpu >= 0 && numa_node_of_cpu(cpu) == pl.nic_node) {
		ADD(t->net_on, 1);
		if (sn)
			ADD(sn->net_on[path], 1);
	} else if (sn) {
		ADD(sn->net_off[path], 1);
	}
	if (rn != -2) {
		ADD(t->net_pages, 1);
		if (rn == pl.nic_node) {
			ADD(t->net_local, 1);
			if (sn)
				ADD(sn->net_pages_local, 1);
		} else if (sn) {
			ADD(sn->net_pages_remote, 1);
		}
	}
	thread_to(pp->node);
}

void hc_place_net_thread(bool counted)
{
	unsigned long mask[MASK_LONGS] = { 0 };
	int node = pl.nic_node;
	struct hc_scrape_numa_node *sn;

	if (!pl.on || node < 0)
		return;
	thread_to(node);
	mask[node / (8 * sizeof(long))] |= 1UL << (node % (8 * sizeof(long)));
	if (set_mempolicy(MPOL_PREFERRED, mask, HC_NUMA_NODE_MAX + 1))
		plog(HC_LOG_DEBUG, "numa: set_mempolicy to node %d: %s", node,
		       strerror(errno));
	sn = st_node(node);
	if (counted && sn && thread_node == node)
		ADD(sn->net_threads, 1);
}

void hc_place_stats(struct hc_scrape_numa *s)
{
	unsigned int i;
	size_t k;

	s->on = pl.on;
	s->nr_nodes = pl.st.nr_nodes;
	s->nic_node = pl.st.nic_node;
	for (i = 0; i < s->nr_nodes; i++) {
		const uint64_t *from = (const uint64_t *)&pl.st.n[i];
		uint64_t *to = (uint64_t *)&s->n[i];

		for (k = 0; k < sizeof(s->n[i]) / sizeof(uint64_t); k++)
			to[k] = __atomic_load_n(&from[k], __ATOMIC_RELAXED);
	}
}
