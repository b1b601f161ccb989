// SPDX-License-Identifier: GPL-2.0
/*
 * hcctl - pool description (status, monitor) and the geometry ioctl.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/socket.h>
#include <netlink/genl/genl.h>

#include "hypercache.h"
#include "hypercache_netlink.h"
#include "hcctl.h"
#include "opt.h"
#include "nl.h"
#include "scrape.h"

/* --- formatting ------------------------------------------------------------ */

void hcctl_fmt_uuid(char out[37], const uint8_t u[16])
{
	snprintf(out, 37,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9],
		 u[10], u[11], u[12], u[13], u[14], u[15]);
}

static const char *const size_units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };

/* One decimal: "704.0 MiB"; plain bytes below 1 KiB: "512 B". */
void hcctl_fmt_size(char *out, size_t len, uint64_t bytes)
{
	double v = (double)bytes;
	unsigned int u = 0;

	if (bytes < 1024) {
		snprintf(out, len, "%" PRIu64 " B", bytes);
		return;
	}
	while (v >= 1024.0 && u + 1 < sizeof(size_units) / sizeof(size_units[0])) {
		v /= 1024.0;
		u++;
	}
	snprintf(out, len, "%.1f %s", v, size_units[u]);
}

/* Exact multiples without a decimal ("4 MiB"), otherwise like hcctl_fmt_size. */
void hcctl_fmt_size_exact(char *out, size_t len, uint64_t bytes)
{
	unsigned int u = 0;
	uint64_t v = bytes;

	if (bytes == 0) {
		snprintf(out, len, "0 B");
		return;
	}
	while (v % 1024 == 0 && u + 1 < sizeof(size_units) / sizeof(size_units[0])) {
		v /= 1024;
		u++;
	}
	if (u == 0 && bytes >= 1024) {
		hcctl_fmt_size(out, len, bytes);
		return;
	}
	snprintf(out, len, "%" PRIu64 " %s", v, size_units[u]);
}

/* Device numbers in attributes are encoded as makedev(3) does. */
void hcctl_fmt_dev(char *out, size_t len, uint32_t dev)
{
	snprintf(out, len, "%u:%u", major(dev), minor(dev));
}

const char *hcctl_state_name(uint32_t state, char *buf, size_t len)
{
	switch (state) {
	case HC_POOL_STATE_RUNNING:
		return "running";
	case HC_POOL_STATE_STOPPED:
		return "stopped";
	}
	snprintf(buf, len, "state-%u", state);
	return buf;
}

/*
 * How the journal was found at the pool's start: "complete", "degraded"
 * (degraded-but-complete: repaired from other members), "new", "emptied".
 */
const char *hcctl_journal_state_name(uint32_t state, char *buf, size_t len)
{
	switch (state) {
	case HC_JOURNAL_STATE_COMPLETE:
		return "complete";
	case HC_JOURNAL_STATE_DEGRADED:
		return "degraded";
	case HC_JOURNAL_STATE_NEW:
		return "new";
	case HC_JOURNAL_STATE_EMPTIED:
		return "emptied";
	}
	snprintf(buf, len, "journal-%u", state);
	return buf;
}

/* --- parsing --------------------------------------------------------------- */

static struct nla_policy pool_policy[HC_A_POOL_MAX + 1] = {
	[HC_A_POOL_UUID]	   = { .type = NLA_UNSPEC, .minlen = 16 },
	[HC_A_POOL_STATE]	   = { .type = NLA_U32 },
	[HC_A_POOL_DISK]	   = { .type = NLA_STRING },
	[HC_A_POOL_DISK_DEV]	   = { .type = NLA_U32 },
	[HC_A_POOL_FORMAT_VERSION] = { .type = NLA_U32 },
	[HC_A_POOL_CHUNK_SIZE]	   = { .type = NLA_U32 },
	[HC_A_POOL_MEMBER_COUNT]   = { .type = NLA_U32 },
	[HC_A_POOL_CHUNKS]	   = { .type = NLA_U64 },
	[HC_A_POOL_CAPACITY]	   = { .type = NLA_U64 },
	[HC_A_POOL_DATA_OFFSET]	   = { .type = NLA_U64 },
	[HC_A_POOL_FLAGS]	   = { .type = NLA_U32 },
	[HC_A_POOL_MEMBER]	   = { .type = NLA_NESTED },
	[HC_A_POOL_JOURNAL]	   = { .type = NLA_U32 },
	[HC_A_POOL_JOURNAL_REPAIRED] = { .type = NLA_U32 },
};

static struct nla_policy member_policy[HC_A_MEMBER_MAX + 1] = {
	[HC_A_MEMBER_PATH]   = { .type = NLA_STRING },
	[HC_A_MEMBER_INDEX]  = { .type = NLA_U32 },
	[HC_A_MEMBER_DEV]    = { .type = NLA_U32 },
	[HC_A_MEMBER_NAME]   = { .type = NLA_STRING },
	[HC_A_MEMBER_UUID]   = { .type = NLA_UNSPEC, .minlen = 16 },
	[HC_A_MEMBER_BYTES]  = { .type = NLA_U64 },
	[HC_A_MEMBER_CHUNKS] = { .type = NLA_U64 },
	[HC_A_MEMBER_JOURNAL_REPAIRED] = { .type = NLA_U32 },
};

#define GET_U32(tb, attr, dst, has)					\
	do {								\
		if ((tb)[attr]) {					\
			(dst) = nla_get_u32((tb)[attr]);		\
			(has) = true;					\
		}							\
	} while (0)
#define GET_U64(tb, attr, dst, has)					\
	do {								\
		if ((tb)[attr]) {					\
			(dst) = nla_get_u64((tb)[attr]);		\
			(has) = true;					\
		}							\
	} while (0)

static int parse_member(struct nlattr *nest, struct hcctl_member_info *m)
{
	struct nlattr *tb[HC_A_MEMBER_MAX + 1];

	memset(m, 0, sizeof(*m));
	if (nla_parse_nested(tb, HC_A_MEMBER_MAX, nest, member_policy) < 0)
		return -EPROTO;
	GET_U32(tb, HC_A_MEMBER_INDEX, m->index, m->has_index);
	GET_U32(tb, HC_A_MEMBER_DEV, m->dev, m->has_dev);
	GET_U64(tb, HC_A_MEMBER_BYTES, m->bytes, m->has_bytes);
	GET_U64(tb, HC_A_MEMBER_CHUNKS, m->chunks, m->has_chunks);
	GET_U32(tb, HC_A_MEMBER_JOURNAL_REPAIRED, m->journal_repaired,
		m->has_journal_repaired);
	if (tb[HC_A_MEMBER_UUID]) {
		memcpy(m->uuid, nla_data(tb[HC_A_MEMBER_UUID]), 16);
		m->has_uuid = true;
	}
	if (tb[HC_A_MEMBER_NAME]) {
		m->name = strdup(nla_get_string(tb[HC_A_MEMBER_NAME]));
		if (!m->name)
			return -ENOMEM;
	}
	return 0;
}

static int cmp_member(const void *a, const void *b)
{
	const struct hcctl_member_info *x = a, *y = b;

	if (x->has_index != y->has_index)
		return x->has_index ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

int hcctl_pool_parse(struct nl_msg *msg, struct hcctl_pool_info *p)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[HC_A_POOL_MAX + 1];
	struct genlmsghdr *gnlh;
	struct nlattr *a;
	size_t n = 0;
	int rem, ret;

	memset(p, 0, sizeof(*p));
	if (genlmsg_parse(nlh, 0, tb, HC_A_POOL_MAX, pool_policy) < 0)
		return -EPROTO;
	gnlh = nlmsg_data(nlh);

	if (tb[HC_A_POOL_UUID]) {
		memcpy(p->uuid, nla_data(tb[HC_A_POOL_UUID]), 16);
		p->has_uuid = true;
	}
	GET_U32(tb, HC_A_POOL_STATE, p->state, p->has_state);
	GET_U32(tb, HC_A_POOL_DISK_DEV, p->disk_dev, p->has_disk_dev);
	GET_U32(tb, HC_A_POOL_FORMAT_VERSION, p->format_version,
		p->has_format_version);
	GET_U32(tb, HC_A_POOL_CHUNK_SIZE, p->chunk_size, p->has_chunk_size);
	GET_U32(tb, HC_A_POOL_MEMBER_COUNT, p->member_count,
		p->has_member_count);
	GET_U64(tb, HC_A_POOL_CHUNKS, p->chunks, p->has_chunks);
	GET_U64(tb, HC_A_POOL_CAPACITY, p->capacity, p->has_capacity);
	GET_U64(tb, HC_A_POOL_DATA_OFFSET, p->data_offset, p->has_data_offset);
	GET_U32(tb, HC_A_POOL_JOURNAL, p->journal, p->has_journal);
	GET_U32(tb, HC_A_POOL_JOURNAL_REPAIRED, p->journal_repaired,
		p->has_journal_repaired);
	if (tb[HC_A_POOL_DISK]) {
		p->disk = strdup(nla_get_string(tb[HC_A_POOL_DISK]));
		if (!p->disk)
			return -ENOMEM;
	}

	/* HC_A_POOL_MEMBER repeats; nla_parse() kept only the last one. */
	nla_for_each_attr(a, genlmsg_attrdata(gnlh, 0), genlmsg_attrlen(gnlh, 0), rem)
		if (nla_type(a) == HC_A_POOL_MEMBER)
			n++;
	if (n) {
		p->members = calloc(n, sizeof(*p->members));
		if (!p->members)
			return -ENOMEM;
	}
	nla_for_each_attr(a, genlmsg_attrdata(gnlh, 0), genlmsg_attrlen(gnlh, 0), rem) {
		if (nla_type(a) != HC_A_POOL_MEMBER)
			continue;
		ret = parse_member(a, &p->members[p->nmembers]);
		if (ret < 0)
			return ret;
		p->nmembers++;
	}
	qsort(p->members, p->nmembers, sizeof(*p->members), cmp_member);
	return 0;
}

void hcctl_pool_free(struct hcctl_pool_info *p)
{
	size_t i;

	for (i = 0; i < p->nmembers; i++)
		free(p->members[i].name);
	free(p->members);
	free(p->disk);
	memset(p, 0, sizeof(*p));
}

/* --- output ---------------------------------------------------------------- */

void hcctl_json_print(json_object *obj, bool pretty)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE;

	if (pretty)
		flags |= JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED;
	else
		flags |= JSON_C_TO_STRING_PLAIN;
	puts(json_object_to_json_string_ext(obj, flags));
}

static void json_add_str(json_object *o, const char *key, const char *val)
{
	json_object_object_add(o, key, json_object_new_string(val));
}

static void json_add_u64(json_object *o, const char *key, uint64_t val)
{
	json_object_object_add(o, key, json_object_new_uint64(val));
}

json_object *hcctl_pool_json(const struct hcctl_pool_info *p)
{
	json_object *o = json_object_new_object();
	json_object *arr = json_object_new_array();
	char buf[64];
	size_t i;

	if (p->has_uuid) {
		hcctl_fmt_uuid(buf, p->uuid);
		json_add_str(o, "uuid", buf);
	}
	if (p->has_state)
		json_add_str(o, "state", hcctl_state_name(p->state, buf, sizeof(buf)));
	if (p->disk)
		json_add_str(o, "disk", p->disk);
	if (p->has_disk_dev) {
		hcctl_fmt_dev(buf, sizeof(buf), p->disk_dev);
		json_add_str(o, "dev", buf);
	}
	if (p->has_format_version)
		json_add_u64(o, "format_version", p->format_version);
	if (p->has_chunk_size)
		json_add_u64(o, "chunk_size", p->chunk_size);
	if (p->has_member_count)
		json_add_u64(o, "member_count", p->member_count);
	if (p->has_chunks)
		json_add_u64(o, "chunks", p->chunks);
	if (p->has_capacity)
		json_add_u64(o, "capacity", p->capacity);
	if (p->has_data_offset)
		json_add_u64(o, "data_offset", p->data_offset);
	if (p->has_journal)
		json_add_str(o, "journal", hcctl_journal_state_name(p->journal, buf,
								 sizeof(buf)));
	if (p->has_journal_repaired)
		json_add_u64(o, "journal_repaired", p->journal_repaired);

	for (i = 0; i < p->nmembers; i++) {
		const struct hcctl_member_info *m = &p->members[i];
		json_object *mo = json_object_new_object();

		if (m->has_index)
			json_add_u64(mo, "index", m->index);
		if (m->name)
			json_add_str(mo, "name", m->name);
		if (m->has_dev) {
			hcctl_fmt_dev(buf, sizeof(buf), m->dev);
			json_add_str(mo, "dev", buf);
		}
		if (m->has_uuid) {
			hcctl_fmt_uuid(buf, m->uuid);
			json_add_str(mo, "uuid", buf);
		}
		if (m->has_bytes)
			json_add_u64(mo, "bytes", m->bytes);
		if (m->has_chunks)
			json_add_u64(mo, "chunks", m->chunks);
		if (m->has_journal_repaired)
			json_add_u64(mo, "journal_repaired", m->journal_repaired);
		json_object_array_add(arr, mo);
	}
	json_object_object_add(o, "members", arr);
	return o;
}

void hcctl_pool_print(const struct hcctl_pool_info *p, FILE *f)
{
	char uuid[37] = "-", state[32] = "-", sbuf[32], dev[32] = "?:?";
	char cap[32] = "?", chunk[32] = "?", off[32] = "?";
	int namew = 0, idxw = 1, w;
	size_t i;

	if (p->has_uuid)
		hcctl_fmt_uuid(uuid, p->uuid);
	if (p->has_state)
		snprintf(state, sizeof(state), "%s",
			 hcctl_state_name(p->state, sbuf, sizeof(sbuf)));
	if (p->has_disk_dev)
		hcctl_fmt_dev(dev, sizeof(dev), p->disk_dev);
	fprintf(f, "pool %s  %s  /dev/%s (%s)\n", uuid, state,
		p->disk ? p->disk : "?", dev);

	if (p->has_capacity)
		hcctl_fmt_size(cap, sizeof(cap), p->capacity);
	if (p->has_chunk_size)
		hcctl_fmt_size_exact(chunk, sizeof(chunk), p->chunk_size);
	if (p->has_data_offset)
		hcctl_fmt_size_exact(off, sizeof(off), p->data_offset);
	fprintf(f, "  capacity %s (", cap);
	if (p->has_chunks)
		fprintf(f, "%" PRIu64, p->chunks);
	else
		fputc('?', f);
	fprintf(f, " chunks of %s), ", chunk);
	if (p->has_member_count)
		fprintf(f, "%u member%s", p->member_count,
			p->member_count == 1 ? "" : "s");
	else
		fprintf(f, "? members");
	if (p->has_format_version)
		fprintf(f, ", format v%u", p->format_version);
	fprintf(f, ", data offset %s\n", off);
	if (p->has_journal) {
		fprintf(f, "  journal %s", hcctl_journal_state_name(p->journal, sbuf,
								  sizeof(sbuf)));
		if (p->journal == HC_JOURNAL_STATE_DEGRADED)
			fprintf(f, "-but-complete: %u block%s read from other members at assembly",
				p->journal_repaired,
				p->journal_repaired == 1 ? "" : "s");
		else if (p->journal == HC_JOURNAL_STATE_EMPTIED)
			fprintf(f, ": started empty over an unreadable journal (--force-empty-journal)");
		fputc('\n', f);
	}

	for (i = 0; i < p->nmembers; i++) {
		w = p->members[i].name ? (int)strlen(p->members[i].name) : 1;
		if (w > namew)
			namew = w;
		w = snprintf(NULL, 0, "%u", p->members[i].index);
		if (w > idxw)
			idxw = w;
	}
	for (i = 0; i < p->nmembers; i++) {
		const struct hcctl_member_info *m = &p->members[i];
		char mdev[32] = "?:?", muuid[37] = "-", size[32] = "?";

		if (m->has_dev)
			hcctl_fmt_dev(mdev, sizeof(mdev), m->dev);
		if (m->has_uuid)
			hcctl_fmt_uuid(muuid, m->uuid);
		if (m->has_bytes)
			hcctl_fmt_size(size, sizeof(size), m->bytes);
		if (m->has_index)
			fprintf(f, "  member %-*u  ", idxw, m->index);
		else
			fprintf(f, "  member %-*s  ", idxw, "?");
		fprintf(f, "%-*s  (%s)  uuid %s  %s", namew,
			m->name ? m->name : "?", mdev, muuid, size);
		if (m->has_chunks)
			fprintf(f, "  %" PRIu64 " chunks", m->chunks);
		if (m->journal_repaired)
			fprintf(f, "  journal: %u bad block%s repaired",
				m->journal_repaired,
				m->journal_repaired == 1 ? "" : "s");
		fputc('\n', f);
	}
}

void hcctl_pool_output(const struct hcctl_pool_info *p, bool json)
{
	if (json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "pool", hcctl_pool_json(p));
		hcctl_json_print(o, false);
		json_object_put(o);
	} else {
		hcctl_pool_print(p, stdout);
	}
}

/* --- status ---------------------------------------------------------------- */

static int status_reply(struct nl_msg *msg, void *arg)
{
	struct hcctl_pool_info *pool = arg;

	hcctl_pool_free(pool);
	return hcctl_pool_parse(msg, pool);
}

/* Parse the options of a command that only takes --json and --help. */
int hcctl_parse_json_only(const struct hcctl_cmd *cmd, int argc, char **argv,
			   bool *json)
{
	int rc, first = hcctl_opt_parse(cmd, argc, argv, NULL, &rc);

	*json = hcctl_opt_json;
	if (first < 0)
		return rc;
	optind = first;
	return -1;
}

/*
 * HC_CMD_POOL_GET into @pool.  Returns 0; -ENODEV (nothing printed) if no
 * pool runs and @quiet_nodev; -1 after printing a diagnostic.
 */
static int pool_get(const char *object, struct hcctl_pool_info *pool,
		    bool quiet_nodev)
{
	struct hcctl_nl nl = { 0 };
	struct hcctl_nl_err err;
	struct nl_msg *msg;
	int ret;

	memset(pool, 0, sizeof(*pool));
	if (hcctl_nl_open(&nl, object) < 0)
		return -1;
	msg = hcctl_nl_request(&nl, HC_CMD_POOL_GET, 0);
	if (!msg) {
		hcctl_err(object, "cannot build netlink request", ENOMEM);
		hcctl_nl_close(&nl);
		return -1;
	}
	ret = hcctl_nl_transact(&nl, msg, status_reply, pool, &err);
	hcctl_nl_close(&nl);
	if (ret == 0)
		return 0;
	hcctl_pool_free(pool);
	if (ret == -ENODEV && err.kernel) {
		if (quiet_nodev)
			return -ENODEV;
		hcctl_err(object, "no pool is running", 0);
		return -1;
	}
	hcctl_nl_report(object, &err, NULL, NULL, 0);
	return -1;
}

int hcctl_pool_get(const char *object, struct hcctl_pool_info *pool)
{
	return pool_get(object, pool, false) < 0 ? -1 : 0;
}

int hcctl_cmd_status(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	struct hcctl_pool_info pool = { 0 };
	static struct hc_scrape_kernel st;
	bool json, have_stats;
	int ret;

	ret = hcctl_parse_json_only(cmd, argc, argv, &json);
	if (ret >= 0)
		return ret;
	if (optind < argc)
		return hcctl_usage_error(cmd, "unexpected argument '%s'",
				      argv[optind]);

	ret = pool_get(cmd->name, &pool, true);
	if (ret == -ENODEV) {
		if (json) {
			puts("{\"pool\":null}");
			return HC_EXIT_OK;
		}
		hcctl_err(cmd->name, "no pool is running", 0);
		return HC_EXIT_FAIL;
	}
	if (ret < 0)
		return HC_EXIT_FAIL;
	/* The helpers, if we may read the statistics (ctl device or admin). */
	have_stats = hcctl_stats_get(cmd->name, &st, true) == 0 &&
		     st.has[HC_A_STATS_INGEST_HELPER];
	if (json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "pool", hcctl_pool_json(&pool));
		if (have_stats) {
			json_object *h = json_object_new_object();

			json_object_object_add(h, "ingest", json_object_new_boolean(
				st.v[HC_A_STATS_INGEST_HELPER] != 0));
			json_object_object_add(h, "egress", json_object_new_boolean(
				st.v[HC_A_STATS_EGRESS_HELPER] != 0));
			json_object_object_add(o, "helpers", h);
		}
		hcctl_json_print(o, false);
		json_object_put(o);
	} else {
		hcctl_pool_print(&pool, stdout);
		if (have_stats)
			printf("  helpers: ingest %s, egress %s\n",
			       hcctl_stats_registered(&st, HC_A_STATS_INGEST_HELPER),
			       hcctl_stats_registered(&st, HC_A_STATS_EGRESS_HELPER));
	}
	hcctl_pool_free(&pool);
	return HC_EXIT_OK;
}

/* --- monitor --------------------------------------------------------------- */

static volatile sig_atomic_t monitor_stop;

static void monitor_signal(int sig)
{
	(void)sig;
	monitor_stop = 1;
}

struct monitor_ctx {
	int family;
	bool json;
	unsigned long count;	/* 0: unlimited */
	unsigned long seen;
	bool done;
};

static int monitor_event(struct nl_msg *msg, void *arg)
{
	struct monitor_ctx *ctx = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *gnlh = nlmsg_data(nlh);
	struct hcctl_pool_info pool;
	char uuid[37] = "-", state[32] = "-", sbuf[32];

	if (nlh->nlmsg_type != ctx->family || !genlmsg_valid_hdr(nlh, 0) ||
	    gnlh->cmd != HC_CMD_POOL_NTF)
		return NL_SKIP;
	if (hcctl_pool_parse(msg, &pool) < 0) {
		hcctl_pool_free(&pool);
		hcctl_err("monitor", "malformed event from the kernel", 0);
		return NL_SKIP;
	}
	if (ctx->json) {
		json_object *o = hcctl_pool_json(&pool);

		json_object_object_add(o, "event", json_object_new_string("pool"));
		hcctl_json_print(o, false);
		json_object_put(o);
	} else {
		if (pool.has_uuid)
			hcctl_fmt_uuid(uuid, pool.uuid);
		if (pool.has_state)
			snprintf(state, sizeof(state), "%s",
				 hcctl_state_name(pool.state, sbuf, sizeof(sbuf)));
		printf("pool %s %s %s\n", uuid, state, pool.disk ? pool.disk : "-");
	}
	fflush(stdout);
	hcctl_pool_free(&pool);

	if (ctx->count && ++ctx->seen >= ctx->count) {
		ctx->done = true;
		return NL_STOP;
	}
	return NL_OK;
}

static int noop_seq_check(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return NL_OK;
}

/* --count N: a positive number of events. */
static int monitor_count(const struct hcctl_cmd *cmd, const char *arg, void *dst)
{
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(arg, &end, 10);
	if (!arg[0] || arg[0] == '-' || *end || errno || n == 0 ||
	    n > (unsigned long long)(unsigned long)-1)
		return hcctl_usage_error(cmd,
			"invalid --count '%s' (expected a positive integer)", arg);
	*(unsigned long *)dst = (unsigned long)n;
	return 0;
}

int hcctl_cmd_monitor(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	struct monitor_ctx ctx = { 0 };
	const struct hcctl_opt opts[] = {
		HCCTL_CALL("count", 'c', &ctx.count, monitor_count),
		HCCTL_OPT_END
	};
	struct sigaction sa = { .sa_handler = monitor_signal };
	struct hcctl_nl nl = { 0 };
	sigset_t block, orig, waitmask;
	struct pollfd pfd;
	struct nl_cb *cb = NULL;
	int c, ret = HC_EXIT_FAIL, optind;

	optind = hcctl_opt_parse(cmd, argc, argv, opts, &ret);
	if (optind < 0)
		return ret;
	ctx.json = hcctl_opt_json;
	if (optind < argc)
		return hcctl_usage_error(cmd, "unexpected argument '%s'",
				      argv[optind]);

	if (hcctl_nl_open(&nl, cmd->name) < 0)
		return HC_EXIT_FAIL;
	ctx.family = nl.family;
	if (hcctl_nl_subscribe(&nl, HC_GENL_MCGRP_EVENTS, cmd->name) < 0)
		goto out;
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		hcctl_err(cmd->name, "out of memory", ENOMEM);
		goto out;
	}
	nl_cb_set(cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, noop_seq_check, NULL);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, monitor_event, &ctx);
	if (nl_socket_set_nonblocking(nl.sk) < 0) {
		hcctl_err(cmd->name, "cannot make the socket non-blocking", errno);
		goto out;
	}

	/* Signals are only delivered inside ppoll(): no lost wake-ups. */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &orig);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	waitmask = orig;
	sigdelset(&waitmask, SIGINT);
	sigdelset(&waitmask, SIGTERM);

	pfd.fd = nl_socket_get_fd(nl.sk);
	pfd.events = POLLIN;
	while (!monitor_stop && !ctx.done) {
		if (ppoll(&pfd, 1, NULL, &waitmask) < 0) {
			if (errno == EINTR)
				continue;
			hcctl_err(cmd->name, "poll", errno);
			goto out_sig;
		}
		c = nl_recvmsgs(nl.sk, cb);
		if (c == -NLE_AGAIN || c == -NLE_INTR)
			continue;
		if (c == -NLE_NOMEM) {
			/* ENOBUFS: the socket's receive queue overflowed. */
			hcctl_err(cmd->name, "events were lost (receive buffer overrun)", 0);
			continue;
		}
		if (c < 0 && !ctx.done) {
			hcctl_errf(cmd->name, 0, "cannot receive events: %s",
				nl_geterror(c));
			goto out_sig;
		}
	}
	ret = HC_EXIT_OK;
out_sig:
	sigprocmask(SIG_SETMASK, &orig, NULL);
out:
	if (cb)
		nl_cb_put(cb);
	hcctl_nl_close(&nl);
	return ret;
}

/* --- geometry -------------------------------------------------------------- */

int hcctl_cmd_geometry(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	struct hc_geometry g;
	const char *dev = "/dev/hypercache0";
	char uuid[37], chunk[32], cap[32];
	bool json;
	int fd, ret;

	ret = hcctl_parse_json_only(cmd, argc, argv, &json);
	if (ret >= 0)
		return ret;
	if (optind < argc)
		dev = argv[optind++];
	if (optind < argc)
		return hcctl_usage_error(cmd, "unexpected argument '%s'",
				      argv[optind]);

	fd = open(dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		hcctl_err(dev, "cannot open", errno);
		return HC_EXIT_FAIL;
	}
	memset(&g, 0, sizeof(g));
	g.size = sizeof(g);
	ret = ioctl(fd, HC_IOC_GEOMETRY, &g);
	if (ret < 0) {
		int e = errno;

		close(fd);
		if (e == ENOTTY)
			hcctl_err(dev, "not a HyperCache device", e);
		else if (e == ENODEV)
			hcctl_err(dev, "the pool has stopped", e);
		else
			hcctl_err(dev, "HC_IOC_GEOMETRY", e);
		return HC_EXIT_FAIL;
	}
	close(fd);

	hcctl_fmt_uuid(uuid, g.pool_uuid);
	if (json) {
		json_object *o = json_object_new_object();

		json_add_str(o, "device", dev);
		json_add_str(o, "uuid", uuid);
		json_add_u64(o, "chunk_size", g.chunk_size);
		json_add_u64(o, "member_count", g.member_count);
		json_add_u64(o, "chunks", g.chunks);
		json_add_u64(o, "capacity", g.capacity);
		hcctl_json_print(o, false);
		json_object_put(o);
		return HC_EXIT_OK;
	}
	hcctl_fmt_size_exact(chunk, sizeof(chunk), g.chunk_size);
	hcctl_fmt_size(cap, sizeof(cap), g.capacity);
	printf("device        %s\n", dev);
	printf("pool uuid     %s\n", uuid);
	printf("chunk size    %s (%u bytes)\n", chunk, g.chunk_size);
	printf("members       %u\n", g.member_count);
	printf("chunks        %llu\n", (unsigned long long)g.chunks);
	printf("capacity      %s (%llu bytes)\n", cap,
	       (unsigned long long)g.capacity);
	return HC_EXIT_OK;
}

/* --- the command table (main.c lists the groups) ---------------------- */

const struct hcctl_cmd hcctl_status_cmds[] = {
{
	.name = "status",
	.summary = "describe the running pool",
	.synopsis = "[--json]",
	.handler = hcctl_cmd_status,
	.help =
"DESCRIPTION\n"
"    Describe the running pool.  Text output:\n"
"\n"
"      pool UUID  STATE  /dev/DISK (MAJOR:MINOR)\n"
"        capacity SIZE (N chunks of SIZE), N members, format vN, data offset SIZE\n"
"        member INDEX  NAME  (MAJOR:MINOR)  uuid UUID  SIZE  N chunks\n"
"        ...\n"
"\n"
"    Sizes are shown in B/KiB/MiB/GiB/TiB.  With --json one object is\n"
"    printed, with raw numbers (bytes) and members sorted by index:\n"
"\n"
"      {\"pool\":{\"uuid\":\"...\",\"state\":\"running\",\"disk\":\"hypercache0\",\n"
"        \"dev\":\"252:0\",\"format_version\":1,\"chunk_size\":4194304,\n"
"        \"member_count\":3,\"chunks\":176,\"capacity\":738197504,\n"
"        \"data_offset\":4194304,\"members\":[{\"index\":0,\"name\":\"nvme0n1\",\n"
"        \"dev\":\"259:0\",\"uuid\":\"...\",\"bytes\":268435456,\"chunks\":58},...]}}\n"
"\n"
"    A key is left out if the kernel did not report the value.\n"
"\n"
"    With read access to /dev/hypercache-ctl (or CAP_NET_ADMIN) a last\n"
"    line says whether the helpers are registered with the kernel:\n"
"\n"
"      helpers: ingest registered, egress not registered\n"
"\n"
"    and JSON has \"helpers\":{\"ingest\":true,\"egress\":false} beside\n"
"    \"pool\".\n"
"\n"
"    If no pool is running, text mode prints \"no pool is running\" on stderr\n"
"    and exits 1; --json prints {\"pool\":null} and exits 0, so that scripts\n"
"    can probe.  Does not need privileges.\n"
"\n"
"OPTIONS\n"
"    -j, --json\n"
"        Print one JSON object.\n"
"\n"
HCCTL_HELP_OPT_TEXT
"\n"
HCCTL_EXIT_STATUS_TEXT,
},
{
	.name = "monitor",
	.summary = "print pool events as they happen",
	.synopsis = "[--json] [--count N]",
	.handler = hcctl_cmd_monitor,
	.help =
"DESCRIPTION\n"
"    Listen on the \"events\" multicast group of the hypercache netlink family\n"
"    and print one line per event (a pool started or stopped):\n"
"\n"
"      pool UUID STATE DISK\n"
"\n"
"    With --json, each line is one JSON object shaped like the \"pool\" object\n"
"    of 'hcctl status --json' plus \"event\":\"pool\".  Output is flushed after\n"
"    every line.  Runs until SIGINT or SIGTERM (then exits 0).  Does not need\n"
"    privileges.\n"
"\n"
"OPTIONS\n"
"    -c, --count N\n"
"        Exit after N events.\n"
"\n"
"    -j, --json\n"
"        Print one JSON object per line.\n"
"\n"
HCCTL_HELP_OPT_TEXT
"\n"
HCCTL_EXIT_STATUS_TEXT,
},
{
	.name = "geometry",
	.summary = "show the stripe geometry of a HyperCache device (ioctl)",
	.synopsis = "[--json] [DEV]",
	.handler = hcctl_cmd_geometry,
	.help =
"DESCRIPTION\n"
"    Open DEV (default /dev/hypercache0) read-only and query its geometry\n"
"    with the HC_IOC_GEOMETRY ioctl: pool UUID, chunk size, member count,\n"
"    chunks and capacity.  Chunk v of the device lives on member v mod\n"
"    member_count.  With --json:\n"
"\n"
"      {\"device\":\"/dev/hypercache0\",\"uuid\":\"...\",\"chunk_size\":4194304,\n"
"       \"member_count\":3,\"chunks\":176,\"capacity\":738197504}\n"
"\n"
"    Fails with \"not a HyperCache device\" on other files and with \"the pool\n"
"    has stopped\" if the pool behind an open device went away.\n"
"\n"
"OPTIONS\n"
"    -j, --json\n"
"        Print one JSON object.\n"
"\n"
HCCTL_HELP_OPT_TEXT
"\n"
HCCTL_EXIT_STATUS_TEXT,
},
{ .name = NULL }
};
