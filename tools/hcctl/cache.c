// SPDX-License-Identifier: GPL-2.0
/*
 * hcctl - the object cache as a whole: ls [PREFIX] (HC_CMD_OBJ_GET dump),
 * stats (HC_CMD_STATS_GET), and evict/pin/unpin --prefix (the dump, then
 * one HC_CMD_OBJ_EVICT or _PIN per object).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/genl/genl.h>

#include "hypercache.h"
#include "hypercache_format.h"
#include "hypercache_netlink.h"
#include "hcctl.h"
#include "opt.h"
#include "ctl.h"
#include "nl.h"
#include "scrape.h"
#include "cache.h"
#include "util.h"

/* --- ls -------------------------------------------------------------------- */

static struct nla_policy obj_policy[HC_A_OBJ_MAX + 1] = {
	[HC_A_OBJ_URI]	      = { .type = NLA_UNSPEC },
	[HC_A_OBJ_STATE]      = { .type = NLA_U32 },
	[HC_A_OBJ_FLAGS]      = { .type = NLA_U32 },
	[HC_A_OBJ_SIZE]	      = { .type = NLA_U64 },
	[HC_A_OBJ_GENERATION] = { .type = NLA_U64 },
	[HC_A_OBJ_CHUNKS]     = { .type = NLA_U64 },
	[HC_A_OBJ_HOLDS]      = { .type = NLA_U32 },
	[HC_A_OBJ_EXTENT]     = { .type = NLA_NESTED },
	[HC_A_OBJ_PINNED]     = { .type = NLA_U8 },
	[HC_A_OBJ_ETAG]	      = { .type = NLA_NUL_STRING },
	[HC_A_OBJ_EGRESS_ERRNO]	    = { .type = NLA_U32 },
	[HC_A_OBJ_EGRESS_MESSAGE]   = { .type = NLA_NUL_STRING },
	[HC_A_OBJ_EGRESS_FAILURES]  = { .type = NLA_U32 },
	[HC_A_OBJ_EGRESS_FAILED_AT] = { .type = NLA_U64 },
	[HC_A_OBJ_EGRESS_PERMANENT] = { .type = NLA_U8 },
	[HC_A_OBJ_LAST_MODIFIED]    = { .type = NLA_U64 },
};

static struct nla_policy ext_policy[HC_A_EXT_MAX + 1] = {
	[HC_A_EXT_OFFSET] = { .type = NLA_U64 },
	[HC_A_EXT_LENGTH] = { .type = NLA_U64 },
};

static void obj_free(struct obj_info *o)
{
	free(o->uri);
	free(o->shown);
	free(o->etag);
	free(o->egress_msg);
	free(o->ext);
}

static int obj_parse(struct nl_msg *msg, struct obj_info *o)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *gnlh = nlmsg_data(nlh);
	struct nlattr *tb[HC_A_OBJ_MAX + 1], *xb[HC_A_EXT_MAX + 1];
	struct nlattr *a;
	uint32_t n = 0;
	int rem;

	memset(o, 0, sizeof(*o));
	if (genlmsg_parse(nlh, 0, tb, HC_A_OBJ_MAX, obj_policy) < 0)
		return -EPROTO;
	if (!tb[HC_A_OBJ_URI] || nla_len(tb[HC_A_OBJ_URI]) <= 0 ||
	    nla_len(tb[HC_A_OBJ_URI]) > HC_URI_MAX)
		return -EPROTO;
	o->uri_len = (uint32_t)nla_len(tb[HC_A_OBJ_URI]);
	o->uri = malloc(o->uri_len);
	if (!o->uri)
		return -ENOMEM;
	memcpy(o->uri, nla_data(tb[HC_A_OBJ_URI]), o->uri_len);
	o->shown = hcctl_uri_escape(o->uri, o->uri_len);
	if (!o->shown)
		return -ENOMEM;
#define GET(attr, field, get)						\
	do {								\
		if (tb[attr]) {						\
			o->field = get(tb[attr]);			\
			o->has_##field = true;				\
		}							\
	} while (0)
	GET(HC_A_OBJ_STATE, state, nla_get_u32);
	GET(HC_A_OBJ_FLAGS, flags, nla_get_u32);
	GET(HC_A_OBJ_SIZE, size, nla_get_u64);
	GET(HC_A_OBJ_GENERATION, generation, nla_get_u64);
	GET(HC_A_OBJ_CHUNKS, chunks, nla_get_u64);
	GET(HC_A_OBJ_HOLDS, holds, nla_get_u32);
#undef GET
	if (tb[HC_A_OBJ_ETAG]) {
		o->etag = strdup(nla_get_string(tb[HC_A_OBJ_ETAG]));
		if (!o->etag)
			return -ENOMEM;
	}
	if (tb[HC_A_OBJ_LAST_MODIFIED])
		o->last_modified = nla_get_u64(tb[HC_A_OBJ_LAST_MODIFIED]);
	if (tb[HC_A_OBJ_EGRESS_ERRNO]) {
		o->has_egress = true;
		o->egress_errno = nla_get_u32(tb[HC_A_OBJ_EGRESS_ERRNO]);
		if (tb[HC_A_OBJ_EGRESS_FAILURES])
			o->egress_failures = nla_get_u32(tb[HC_A_OBJ_EGRESS_FAILURES]);
		if (tb[HC_A_OBJ_EGRESS_FAILED_AT])
			o->egress_failed_at = nla_get_u64(tb[HC_A_OBJ_EGRESS_FAILED_AT]);
		o->egress_permanent = tb[HC_A_OBJ_EGRESS_PERMANENT] &&
				      nla_get_u8(tb[HC_A_OBJ_EGRESS_PERMANENT]);
	}
	if (o->has_egress && tb[HC_A_OBJ_EGRESS_MESSAGE]) {
		o->egress_msg = strdup(nla_get_string(tb[HC_A_OBJ_EGRESS_MESSAGE]));
		if (!o->egress_msg)
			return -ENOMEM;
	}

	/* HC_A_OBJ_EXTENT repeats; nla_parse() kept only the last one. */
	nla_for_each_attr(a, genlmsg_attrdata(gnlh, 0), genlmsg_attrlen(gnlh, 0), rem)
		if (nla_type(a) == HC_A_OBJ_EXTENT)
			n++;
	if (!n)
		return 0;
	o->ext = calloc(n, sizeof(*o->ext));
	if (!o->ext)
		return -ENOMEM;
	nla_for_each_attr(a, genlmsg_attrdata(gnlh, 0), genlmsg_attrlen(gnlh, 0), rem) {
		if (nla_type(a) != HC_A_OBJ_EXTENT)
			continue;
		if (nla_parse_nested(xb, HC_A_EXT_MAX, a, ext_policy) < 0 ||
		    !xb[HC_A_EXT_OFFSET] || !xb[HC_A_EXT_LENGTH])
			return -EPROTO;
		o->ext[o->next].offset = nla_get_u64(xb[HC_A_EXT_OFFSET]);
		o->ext[o->next].length = nla_get_u64(xb[HC_A_EXT_LENGTH]);
		o->next++;
	}
	return 0;
}

static int ls_reply(struct nl_msg *msg, void *arg)
{
	struct obj_list *l = arg;
	struct obj_info *v;
	int ret;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;

		v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	ret = obj_parse(msg, &l->v[l->n]);
	if (ret < 0) {
		obj_free(&l->v[l->n]);
		return ret;
	}
	l->n++;
	return 0;
}

static int cmp_obj(const void *a, const void *b)
{
	const struct obj_info *x = a, *y = b;
	uint32_t n = x->uri_len < y->uri_len ? x->uri_len : y->uri_len;
	int c = memcmp(x->uri, y->uri, n);

	if (c)
		return c;
	return x->uri_len < y->uri_len ? -1 : x->uri_len > y->uri_len;
}

static json_object *upload_error_json(const struct obj_info *o)
{
	json_object *j = json_object_new_object();

	json_object_object_add(j, "errno", json_object_new_uint64(o->egress_errno));
	json_object_object_add(j, "error", json_object_new_string(
		strerror((int)o->egress_errno)));
	if (o->egress_msg)
		json_object_object_add(j, "message",
				       json_object_new_string(o->egress_msg));
	json_object_object_add(j, "failures",
			       json_object_new_uint64(o->egress_failures));
	json_object_object_add(j, "failed_at_ns",
			       json_object_new_uint64(o->egress_failed_at));
	json_object_object_add(j, "permanent",
			       json_object_new_boolean(o->egress_permanent));
	return j;
}

json_object *hcctl_time_json(uint64_t t)
{
	char buf[HC_UTC_LEN];

	if (!t)
		return NULL;
	return json_object_new_string(hc_fmt_utc(buf, sizeof(buf), (int64_t)t));
}

static json_object *obj_json(const struct obj_info *o)
{
	json_object *j = json_object_new_object();
	char buf[32];

	json_object_object_add(j, "uri", json_object_new_string(o->shown));
	if (o->has_state)
		json_object_object_add(j, "state", json_object_new_string(
			hcctl_obj_state_name(o->state, buf, sizeof(buf))));
	if (o->has_flags) {
		json_object_object_add(j, "flags", json_object_new_uint64(o->flags));
		json_object_object_add(j, "pinned", json_object_new_boolean(
			!!(o->flags & HC_OBJ_F_PINNED)));
	}
	if (o->has_size)
		json_object_object_add(j, "size", json_object_new_uint64(o->size));
	if (o->has_generation)
		json_object_object_add(j, "generation",
				       json_object_new_uint64(o->generation));
	if (o->has_chunks)
		json_object_object_add(j, "chunks", json_object_new_uint64(o->chunks));
	if (o->has_holds)
		json_object_object_add(j, "holds", json_object_new_uint64(o->holds));
	if (o->etag)
		json_object_object_add(j, "etag", json_object_new_string(o->etag));
	json_object_object_add(j, "last_modified",
			       hcctl_time_json(o->last_modified));
	if (o->has_egress)
		json_object_object_add(j, "upload_error", upload_error_json(o));
	json_object_object_add(j, "extents", hcctl_extents_json(o->ext, o->next));
	return j;
}

/* "2026-12-02 07:10:11 UTC" of CLOCK_REALTIME nanoseconds @ns. */
static void fmt_utc(char *out, size_t len, uint64_t ns)
{
	time_t t = (time_t)(ns / 1000000000ULL);
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(out, len, "%Y-%m-%d %H:%M:%S UTC", &tm))
		snprintf(out, len, "-");
}

/*
 * The line under an object whose last upload failed (ls, evict
 * --discard-dirty): how often, when, why and whether it is retried.
 */
static void upload_error_text(const struct obj_info *o, char *out, size_t len)
{
	char when[40];

	fmt_utc(when, sizeof(when), o->egress_failed_at);
	snprintf(out, len, "upload failed %u time%s, last at %s: %s%s%s; %s",
		 o->egress_failures, o->egress_failures == 1 ? "" : "s", when,
		 strerror((int)o->egress_errno), o->egress_msg ? ": " : "",
		 o->egress_msg ? o->egress_msg : "",
		 o->egress_permanent ?
		 "permanent: not retried until hypercached is reloaded or restarted" :
		 "retried");
}


static void ls_print_text(const struct obj_list *l, bool etag)
{
	char sbuf[32], size[32], gen[24], holds[16];
	const char *state;
	size_t i;

	printf("%-9s  %-5s  %10s  %10s  %5s  %7s  ", "STATE", "FLAGS",
	       "SIZE", "GENERATION", "HOLDS", "EXTENTS");
	if (etag)
		printf("%-34s  %-20s  ", "ETAG", "LAST-MODIFIED");
	printf("URI\n");
	for (i = 0; i < l->n; i++) {
		const struct obj_info *o = &l->v[i];
		char flags[4] = "--";

		state = o->has_state ?
			hcctl_obj_state_name(o->state, sbuf, sizeof(sbuf)) : "-";
		if (o->has_flags) {
			if (o->flags & HC_OBJ_F_PINNED)
				flags[0] = 'P';
			if (o->flags & HC_OBJ_F_DATA_CRC)
				flags[1] = 'C';
			if (o->flags & HC_OBJ_F_BAD)
				flags[2] = 'B';
		}
		if (o->has_size)
			hcctl_fmt_size(size, sizeof(size), o->size);
		else
			snprintf(size, sizeof(size), "-");
		if (o->has_generation)
			snprintf(gen, sizeof(gen), "%" PRIu64, o->generation);
		else
			snprintf(gen, sizeof(gen), "-");
		if (o->has_holds)
			snprintf(holds, sizeof(holds), "%u", o->holds);
		else
			snprintf(holds, sizeof(holds), "-");
		printf("%-9s  %-5s  %10s  %10s  %5s  %7u  ", state, flags,
		       size, gen, holds, o->next);
		if (etag) {
			char when[HC_UTC_LEN];

			printf("%-34s  %-20s  ", o->etag ? o->etag : "-",
			       o->last_modified ? hc_fmt_utc(when, sizeof(when),
					(int64_t)o->last_modified) : "-");
		}
		printf("%s\n", o->shown);
		if (o->has_egress) {
			char why[HC_EGRESS_MESSAGE_MAX + 256];

			upload_error_text(o, why, sizeof(why));
			printf("           %s\n", why);
		}
	}
}

/* Whether @o's URI starts with the @plen bytes of @prefix. */
static bool obj_under(const struct obj_info *o, const char *prefix, size_t plen)
{
	return o->uri_len >= plen && !memcmp(o->uri, prefix, plen);
}

void hcctl_obj_list_free(struct obj_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		obj_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/*
 * The objects of the cache whose URI starts with @prefix (NULL: all), only
 * the dirty and syncing ones with @dirty, sorted by URI, into @l.  The
 * kernel sends only the prefix's objects (HC_A_OBJ_PREFIX: the dump starts
 * at the first of them in the index's ordered view and ends after the
 * last); the filter here stays for a prefix longer than any URI, which is
 * not sent.  Errors are reported as @who's.  Returns 0 or -1.
 */
int hcctl_obj_list_get(const char *who, const char *prefix, bool dirty,
			struct obj_list *l)
{
	size_t i, n, plen = prefix ? strlen(prefix) : 0;
	struct hcctl_nl nl = { 0 };
	struct hcctl_nl_err err;
	struct nl_msg *msg;
	int ret = -1;

	memset(l, 0, sizeof(*l));
	if (hcctl_nl_open(&nl, who) < 0)
		return -1;
	msg = hcctl_nl_request(&nl, HC_CMD_OBJ_GET, 0);
	if (msg && (hcctl_nl_put_ctl_fd(msg, HC_A_OBJ_CTL_FD) < 0 ||
		    (plen && plen <= HC_URI_MAX &&
		     nla_put(msg, HC_A_OBJ_PREFIX, (int)plen, prefix) < 0))) {
		nlmsg_free(msg);
		msg = NULL;
	}
	if (!msg) {
		hcctl_err(who, "cannot build netlink request", ENOMEM);
		goto out;
	}
	if (hcctl_nl_dump(&nl, msg, ls_reply, l, &err) < 0) {
		if (err.kernel && err.error == ENODEV && !err.msg[0])
			snprintf(err.msg, sizeof(err.msg), "no pool is running");
		hcctl_nl_report(who, &err, NULL, NULL, 0);
		hcctl_obj_list_free(l);
		goto out;
	}
	for (i = n = 0; i < l->n; i++) {
		struct obj_info *o = &l->v[i];
		bool keep = !prefix || obj_under(o, prefix, plen);

		/* only what the backend does not have yet */
		if (dirty)
			keep = keep && o->has_state &&
			       (o->state == HC_OBJ_DIRTY ||
				o->state == HC_OBJ_SYNCING);
		if (keep)
			l->v[n++] = *o;
		else
			obj_free(o);
	}
	l->n = n;
	qsort(l->v, l->n, sizeof(*l->v), cmp_obj);
	ret = 0;
out:
	hcctl_nl_close(&nl);
	return ret;
}

int hcctl_discard_describe(const char *who, const struct hcctl_uri *uri,
			   struct hcctl_discard *out)
{
	struct obj_list l = { 0 };
	struct hcctl_nl nl = { 0 };
	struct hcctl_nl_err err;
	const struct obj_info *o;
	struct nl_msg *msg;
	char size[32];
	int ret = -1;

	memset(out, 0, sizeof(*out));
	if (hcctl_nl_open(&nl, who) < 0)
		return -1;
	msg = hcctl_nl_request(&nl, HC_CMD_OBJ_GET,
			       NLA_HDRLEN + NLA_ALIGN(uri->len) + 16);
	if (msg && (nla_put(msg, HC_A_OBJ_URI, (int)uri->len, uri->bytes) < 0 ||
		    hcctl_nl_put_ctl_fd(msg, HC_A_OBJ_CTL_FD) < 0)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	if (!msg) {
		hcctl_err(who, "cannot build netlink request", ENOMEM);
		goto out;
	}
	if (hcctl_nl_transact(&nl, msg, ls_reply, &l, &err) < 0 || l.n != 1) {
		if (err.kernel && err.error == ENODEV && !err.msg[0])
			snprintf(err.msg, sizeof(err.msg), "no pool is running");
		if (err.kernel && err.error == ENOENT && !err.msg[0])
			snprintf(err.msg, sizeof(err.msg), "not cached");
		hcctl_nl_report(err.kernel ? uri->shown : who, &err, NULL, NULL, 0);
		goto out;
	}
	o = &l.v[0];
	out->shown = strdup(o->shown);
	if (!out->shown) {
		hcctl_err(who, "out of memory", ENOMEM);
		goto out;
	}
	out->dirty = o->has_state && o->state == HC_OBJ_DIRTY;
	out->size = o->size;
	out->generation = o->generation;
	if (out->dirty) {
		hcctl_fmt_size(size, sizeof(size), o->size);
		fprintf(stderr, "hcctl: %s: discarding %s: %s (%" PRIu64 " bytes), "
			"generation %" PRIu64 ", dirty: its backend does not have "
			"this data, and nothing else does\n", who, o->shown, size,
			o->size, o->generation);
		if (o->has_egress) {
			char why[HC_EGRESS_MESSAGE_MAX + 256];

			upload_error_text(o, why, sizeof(why));
			fprintf(stderr, "hcctl: %s: %s\n", o->shown, why);
		} else {
			fprintf(stderr, "hcctl: %s: no upload of it has failed yet\n",
				o->shown);
		}
	}
	ret = 0;
out:
	hcctl_obj_list_free(&l);
	hcctl_nl_close(&nl);
	return ret;
}

int hcctl_cmd_ls(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	struct obj_list l = { 0 };
	const char *prefix = NULL;
	bool json, dirty = false, etag = false;
	const struct hcctl_opt opts[] = {
		HCCTL_FLAG("dirty", 'd', &dirty),
		HCCTL_FLAG("etag", 'e', &etag),
		HCCTL_OPT_END
	};
	size_t i;
	int optind;
	int ret;

	optind = hcctl_opt_parse(cmd, argc, argv, opts, &ret);
	if (optind < 0)
		return ret;
	json = hcctl_opt_json;
	if (optind < argc)
		prefix = argv[optind++];
	if (optind < argc)
		return hcctl_usage_error(cmd, "unexpected argument '%s'",
				      argv[optind]);
	if (prefix && !prefix[0])
		return hcctl_usage_error(cmd, "empty PREFIX (omit it to list everything)");

	if (hcctl_obj_list_get(cmd->name, prefix, dirty, &l) < 0)
		return HC_EXIT_FAIL;
	if (json) {
		json_object *o = json_object_new_object();
		json_object *arr = json_object_new_array();

		for (i = 0; i < l.n; i++)
			json_object_array_add(arr, obj_json(&l.v[i]));
		json_object_object_add(o, "objects", arr);
		hcctl_json_print(o, false);
		json_object_put(o);
	} else {
		ls_print_text(&l, etag);
	}
	hcctl_obj_list_free(&l);
	return HC_EXIT_OK;
}

/* --- evict, pin, unpin --prefix --------------------------------------------- */

static const char *const prefix_verb[] = {
	[HCCTL_PREFIX_EVICT] = "evict",
	[HCCTL_PREFIX_PIN] = "pin",
	[HCCTL_PREFIX_UNPIN] = "unpin",
};

static const char *const prefix_done[] = {
	[HCCTL_PREFIX_EVICT] = "evicted",
	[HCCTL_PREFIX_PIN] = "pinned",
	[HCCTL_PREFIX_UNPIN] = "unpinned",
};

/*
 * Why the kernel will refuse @op on @o, from the listing (NULL: it will
 * not); @skip is set for an object that needs nothing (pinned already).
 * The kernel decides: this is what the dry run shows and what explains
 * an EBUSY.
 */
static const char *prefix_refusal(int op, const struct obj_info *o, bool *skip)
{
	bool pinned = o->has_flags && (o->flags & HC_OBJ_F_PINNED);

	*skip = false;
	if (op == HCCTL_PREFIX_PIN || op == HCCTL_PREFIX_UNPIN) {
		*skip = pinned == (op == HCCTL_PREFIX_PIN);
		return NULL;
	}
	if (o->has_state) {
		switch (o->state) {
		case HC_OBJ_DIRTY:
		case HC_OBJ_SYNCING:
			return "dirty: not written back to its backend yet";
		case HC_OBJ_STAGED:
			return "staged: being written";
		case HC_OBJ_INGESTING:
			return "ingesting: being fetched";
		}
	}
	if (pinned)
		return "pinned (hcctl unpin first)";
	if (o->has_holds && o->holds)
		return "held by a reader";
	return NULL;
}

/* One HC_CMD_OBJ_EVICT or _PIN of @o; 0 or a positive errno (@why set). */
static int prefix_one(struct hcctl_nl *nl, int op, const struct obj_info *o,
		      char *why, size_t len)
{
	struct hcctl_nl_err err;
	struct nl_msg *msg;
	bool skip;

	msg = hcctl_nl_request(nl, op == HCCTL_PREFIX_EVICT ? HC_CMD_OBJ_EVICT :
				   HC_CMD_OBJ_PIN,
			       NLA_HDRLEN + NLA_ALIGN(o->uri_len) + 16);
	if (!msg || nla_put(msg, HC_A_OBJ_URI, (int)o->uri_len, o->uri) < 0 ||
	    (op != HCCTL_PREFIX_EVICT &&
	     nla_put_u8(msg, HC_A_OBJ_PINNED, op == HCCTL_PREFIX_PIN) < 0)) {
		if (msg)
			nlmsg_free(msg);
		snprintf(why, len, "cannot build netlink request");
		return ENOMEM;
	}
	if (!hcctl_nl_transact(nl, msg, NULL, NULL, &err))
		return 0;
	/* the listing says which of the kernel's reasons for EBUSY it is */
	if (err.error == EBUSY && prefix_refusal(op, o, &skip))
		snprintf(why, len, "%s", prefix_refusal(op, o, &skip));
	else if (err.msg[0])
		snprintf(why, len, "%s", err.msg);
	else if (err.error == ENOENT)
		snprintf(why, len, "not cached any more");
	else if (err.error == EBUSY)
		snprintf(why, len, "the object is busy");
	else if (!err.kernel && err.local[0])
		snprintf(why, len, "%s", err.local);
	else
		snprintf(why, len, "%s", strerror(err.error));
	return err.error ? err.error : EIO;
}

const char *hcctl_evict_refusal(const struct obj_info *o)
{
	bool skip;

	return prefix_refusal(HCCTL_PREFIX_EVICT, o, &skip);
}

int hcctl_evict_one(struct hcctl_nl *nl, const struct obj_info *o, char *why,
		    size_t len)
{
	return prefix_one(nl, HCCTL_PREFIX_EVICT, o, why, len);
}

/*
 * hcctl evict|pin|unpin --prefix PREFIX [--yes]: without --yes list what
 * would be done (and what the kernel will refuse); with it, do it object
 * by object.  Exit status 1 if any object was refused.
 */
int hcctl_prefix_cmd(const struct hcctl_cmd *cmd, int argc, char **argv,
		     int op)
{
	const char *prefix = NULL;
	bool yes = false;
	const struct hcctl_opt opts[] = {
		HCCTL_STRING("prefix", 0, &prefix, "PREFIX"),
		HCCTL_FLAG("yes", 'y', &yes),
		HCCTL_OPT_END
	};
	struct hcctl_nl nl = { 0 };
	json_object *jo = NULL, *arr = NULL;
	uint64_t bytes = 0;
	size_t i, done = 0, refused = 0, skipped = 0;
	struct obj_list l;
	int optind, ret, rc = HC_EXIT_FAIL;
	char why[256];

	optind = hcctl_opt_parse(cmd, argc, argv, opts, &ret);
	if (optind < 0)
		return ret;
	if (optind < argc)
		return hcctl_usage_error(cmd, "unexpected argument '%s' (--prefix takes no URI)",
					 argv[optind]);
	if (!prefix || !prefix[0])
		return hcctl_usage_error(cmd, "empty --prefix (it would take every object)");
	if (hcctl_obj_list_get(cmd->name, prefix, false, &l) < 0)
		return HC_EXIT_FAIL;
	if (yes && hcctl_nl_open(&nl, cmd->name) < 0)
		goto out;
	if (hcctl_opt_json) {
		jo = json_object_new_object();
		arr = json_object_new_array();
		json_object_object_add(jo, "prefix", json_object_new_string(prefix));
		json_object_object_add(jo, "dry_run", json_object_new_boolean(!yes));
	} else if (!yes) {
		printf("%s --prefix %s: dry run (--yes to act), %zu object%s:\n",
		       prefix_verb[op], prefix, l.n, l.n == 1 ? "" : "s");
	}
	for (i = 0; i < l.n; i++) {
		const struct obj_info *o = &l.v[i];
		const char *reason;
		bool skip;
		int e = 0;

		reason = prefix_refusal(op, o, &skip);
		if (yes && !skip) {
			e = prefix_one(&nl, op, o, why, sizeof(why));
			reason = e ? why : NULL;
		}
		if (skip)
			skipped++;
		else if (reason)
			refused++;
		else
			done++;
		if (!reason && !skip)
			bytes += o->size;
		if (arr) {
			json_object *j = json_object_new_object();

			json_object_object_add(j, "uri", json_object_new_string(o->shown));
			json_object_object_add(j, "size", json_object_new_uint64(o->size));
			json_object_object_add(j, "result", json_object_new_string(
				skip ? "nothing to do" : reason ? "refused" :
				yes ? prefix_done[op] : "would be done"));
			if (reason) {
				json_object_object_add(j, "reason",
						       json_object_new_string(reason));
				json_object_object_add(j, "errno",
						       json_object_new_int(e));
			}
			json_object_array_add(arr, j);
		} else if (!yes) {
			printf("  %-9s %s%s%s\n", skip ? "skip" : reason ? "refused" :
			       prefix_verb[op], o->shown, reason ? ": " : "",
			       reason ? reason : "");
		}
		if (yes && reason)	/* on stderr with --json too */
			hcctl_errf(o->shown, e, "not %s: %s", prefix_done[op],
				   reason);
	}
	if (jo) {
		json_object_object_add(jo, "objects", arr);
		json_object_object_add(jo, yes ? "done" : "would_do",
				       json_object_new_uint64(done));
		json_object_object_add(jo, "bytes", json_object_new_uint64(bytes));
		json_object_object_add(jo, "refused", json_object_new_uint64(refused));
		json_object_object_add(jo, "skipped", json_object_new_uint64(skipped));
		hcctl_json_print(jo, false);
		json_object_put(jo);
	} else {
		char size[32];

		hcctl_fmt_size(size, sizeof(size), bytes);
		printf("%s %zu object%s (%s), %zu refused, %zu with nothing to do\n",
		       yes ? prefix_done[op] : "would be done:", done,
		       done == 1 ? "" : "s", size, refused, skipped);
	}
	rc = refused ? HC_EXIT_FAIL : HC_EXIT_OK;
out:
	if (yes)
		hcctl_nl_close(&nl);
	hcctl_obj_list_free(&l);
	return rc;
}

/* --- stats ----------------------------------------------------------------- */

static const struct {
	int attr;
	const char *key;	/* JSON key */
} stats_keys[] = {
	{ HC_A_STATS_HITS,	 "hits" },
	{ HC_A_STATS_MISSES,	 "misses" },
	{ HC_A_STATS_ADMISSIONS, "admissions" },
	{ HC_A_STATS_REJECTIONS, "rejections" },
	{ HC_A_STATS_EVICTIONS,	 "evictions" },
	{ HC_A_STATS_OBJECTS,	 "objects" },
	{ HC_A_STATS_BYTES_USED, "bytes_used" },
	{ HC_A_STATS_CAPACITY,	 "capacity" },
	{ HC_A_STATS_PINNED,	 "pinned" },
	{ HC_A_STATS_HELD,	 "held" },
	{ HC_A_STATS_DIRTY_BYTES, "dirty_bytes" },
	{ HC_A_STATS_DIRTY_LIMIT, "dirty_limit" },
	{ HC_A_STATS_EGRESS_DONE, "egress_done" },
	{ HC_A_STATS_EGRESS_FAILED, "egress_failed" },
	{ HC_A_STATS_HIT_BYTES, "hit_bytes" },
	{ HC_A_STATS_LOCATE_NS, "locate_ns" },
	{ HC_A_STATS_JOURNAL_USED, "journal_used" },
	{ HC_A_STATS_JOURNAL_CAPACITY, "journal_capacity" },
	{ HC_A_STATS_JOURNAL_RECORDS, "journal_records" },
	{ HC_A_STATS_JOURNAL_COMPACTIONS, "journal_compactions" },
	{ HC_A_STATS_JOURNAL_FLUSHES, "journal_flushes" },
	{ HC_A_STATS_SLAB_COMPACTIONS, "slab_compactions" },
	{ HC_A_STATS_SLAB_MOVED, "slab_moved" },
	{ HC_A_STATS_SLAB_CHUNKS_FREED, "slab_chunks_freed" },
	{ HC_A_STATS_SLAB_BYTES_COPIED, "slab_bytes_copied" },
	{ HC_A_STATS_DIRTY_OLDEST_NS, "dirty_oldest_ns" },
	{ HC_A_STATS_REFUSED_ROOM, "refused_room" },
	{ HC_A_STATS_REFUSED_JOURNAL, "refused_journal" },
	{ HC_A_STATS_REFUSED_TOO_BIG, "refused_too_big" },
	{ HC_A_STATS_REFUSED_FRAGMENTED, "refused_fragmented" },
	{ HC_A_STATS_REVALIDATIONS, "revalidations" },
	{ HC_A_STATS_REVAL_UNCHANGED, "reval_unchanged" },
	{ HC_A_STATS_REVAL_CHANGED, "reval_changed" },
	{ HC_A_STATS_REVAL_FAILED, "reval_failed" },
	{ HC_A_STATS_POLICY_WINDOW, "policy_window" },
	{ HC_A_STATS_POLICY_WINDOW_MOVES, "policy_window_moves" },
	{ HC_A_STATS_POLICY_PASSES, "policy_passes" },
};

/* Objects by state: attribute and HC_OBJ_* state. */
static const struct {
	int attr;
	uint32_t state;
} stats_states[] = {
	{ HC_A_STATS_INGESTING, HC_OBJ_INGESTING },
	{ HC_A_STATS_READY,	HC_OBJ_READY },
	{ HC_A_STATS_STAGED,	HC_OBJ_STAGED },
	{ HC_A_STATS_DIRTY,	HC_OBJ_DIRTY },
	{ HC_A_STATS_SYNCING,	HC_OBJ_SYNCING },
};

#define NSTATS_KEYS	(sizeof(stats_keys) / sizeof(stats_keys[0]))
#define NSTATS_STATES	(sizeof(stats_states) / sizeof(stats_states[0]))

/* The reply, parsed by the exporter's parser (helper/lib/scrape.c). */
#define stats hc_scrape_kernel

static int stats_reply(struct nl_msg *msg, void *arg)
{
	struct genlmsghdr *g = nlmsg_data(nlmsg_hdr(msg));

	if (hc_scrape_parse(genlmsg_attrdata(g, 0),
			    (size_t)genlmsg_attrlen(g, 0), arg))
		return -EPROTO;
	return 0;
}

static json_object *json_hist(const uint64_t *h)
{
	json_object *a = json_object_new_array();

	for (unsigned int i = 0; i < HC_STATS_HIST_BUCKETS; i++)
		json_object_array_add(a, json_object_new_uint64(h[i]));
	return a;
}

/* "helpers" and "members", when the kernel sent them. */
static void stats_json_ext(json_object *st, const struct stats *s)
{
	json_object *h, *arr, *mo;
	unsigned int i;

	if (s->has[HC_A_STATS_INGEST_HELPER]) {
		h = json_object_new_object();
		json_object_object_add(h, "ingest", json_object_new_boolean(
			s->v[HC_A_STATS_INGEST_HELPER] != 0));
		json_object_object_add(h, "egress", json_object_new_boolean(
			s->v[HC_A_STATS_EGRESS_HELPER] != 0));
		json_object_object_add(st, "helpers", h);
	}
	if (s->has[HC_A_STATS_LOCATE_NS])
		json_object_object_add(st, "locate_hist",
				       json_hist(s->locate_hist));
	if (!s->nr_members)
		return;
	arr = json_object_new_array();
	for (i = 0; i < s->nr_members; i++) {
		const struct hc_scrape_member *m = &s->m[i];

		mo = json_object_new_object();
		json_object_object_add(mo, "index", json_object_new_uint64(i));
		json_object_object_add(mo, "reads", json_object_new_uint64(m->reads));
		json_object_object_add(mo, "writes", json_object_new_uint64(m->writes));
		json_object_object_add(mo, "read_bytes", json_object_new_uint64(m->read_bytes));
		json_object_object_add(mo, "write_bytes", json_object_new_uint64(m->write_bytes));
		json_object_object_add(mo, "errors", json_object_new_uint64(m->errors));
		json_object_object_add(mo, "read_ns", json_object_new_uint64(m->read_ns));
		json_object_object_add(mo, "write_ns", json_object_new_uint64(m->write_ns));
		json_object_object_add(mo, "read_hist", json_hist(m->read_hist));
		json_object_object_add(mo, "write_hist", json_hist(m->write_hist));
		json_object_array_add(arr, mo);
	}
	json_object_object_add(st, "members", arr);
}

static void stats_print_json(const struct stats *s)
{
	json_object *o = json_object_new_object();
	json_object *st = json_object_new_object();
	json_object *by = json_object_new_object();
	char buf[32];
	size_t i;

	for (i = 0; i < NSTATS_KEYS; i++)
		if (s->has[stats_keys[i].attr])
			json_object_object_add(st, stats_keys[i].key,
				json_object_new_uint64(s->v[stats_keys[i].attr]));
	for (i = 0; i < NSTATS_STATES; i++)
		if (s->has[stats_states[i].attr])
			json_object_object_add(by, hcctl_obj_state_name(
				stats_states[i].state, buf, sizeof(buf)),
				json_object_new_uint64(s->v[stats_states[i].attr]));
	json_object_object_add(st, "by_state", by);
	stats_json_ext(st, s);
	json_object_object_add(o, "stats", st);
	hcctl_json_print(o, false);
	json_object_put(o);
}

static void print_counter(const struct stats *s, const char *label, int attr)
{
	if (s->has[attr])
		printf("%-12s%" PRIu64 "\n", label, s->v[attr]);
	else
		printf("%-12s-\n", label);
}

static const char *registered(const struct stats *s, int attr)
{
	if (!s->has[attr])
		return "-";
	return s->v[attr] ? "registered" : "not registered";
}

/* What kernels since the exporter send: helpers, served, journal, members. */
static void stats_print_ext(const struct stats *s)
{
	char a[32], b[32], c[32];
	uint64_t n = 0;
	unsigned int i;

	printf("%-12singest %s, egress %s\n", "helpers",
	       registered(s, HC_A_STATS_INGEST_HELPER),
	       registered(s, HC_A_STATS_EGRESS_HELPER));
	printf("%-12s", "served");
	if (s->has[HC_A_STATS_HIT_BYTES]) {
		hcctl_fmt_size(a, sizeof(a), s->v[HC_A_STATS_HIT_BYTES]);
		fputs(a, stdout);
	} else {
		fputc('-', stdout);
	}
	fputc('\n', stdout);
	for (i = 0; i < HC_STATS_HIST_BUCKETS; i++)
		n += s->locate_hist[i];
	printf("%-12s", "locate");
	if (s->has[HC_A_STATS_LOCATE_NS] && n)
		printf("%" PRIu64 " calls, mean %.1f us\n", n,
		       (double)s->v[HC_A_STATS_LOCATE_NS] / (double)n / 1e3);
	else
		printf("-\n");
	printf("%-12s", "journal");
	if (s->has[HC_A_STATS_JOURNAL_USED]) {
		hcctl_fmt_size(a, sizeof(a), s->v[HC_A_STATS_JOURNAL_USED]);
		hcctl_fmt_size(b, sizeof(b), s->v[HC_A_STATS_JOURNAL_CAPACITY]);
		printf("%s of %s, %" PRIu64 " records, %" PRIu64
		       " compactions", a, b, s->v[HC_A_STATS_JOURNAL_RECORDS],
		       s->v[HC_A_STATS_JOURNAL_COMPACTIONS]);
		if (s->has[HC_A_STATS_JOURNAL_FLUSHES])
			printf(", %" PRIu64 " flushes",
			       s->v[HC_A_STATS_JOURNAL_FLUSHES]);
		printf("\n");
	} else {
		printf("-\n");
	}
	/* the slab's compaction (format v2) */
	printf("%-12s", "compaction");
	if (s->has[HC_A_STATS_SLAB_COMPACTIONS]) {
		hcctl_fmt_size(a, sizeof(a), s->v[HC_A_STATS_SLAB_BYTES_COPIED]);
		printf("%" PRIu64 " runs: %" PRIu64 " objects moved (%s), %"
		       PRIu64 " slab chunks freed\n",
		       s->v[HC_A_STATS_SLAB_COMPACTIONS],
		       s->v[HC_A_STATS_SLAB_MOVED], a,
		       s->v[HC_A_STATS_SLAB_CHUNKS_FREED]);
	} else {
		printf("-\n");
	}
	/* admissions refused, by reason; the duel's are the rejections */
	printf("%-12s", "refused");
	if (s->has[HC_A_STATS_REFUSED_ROOM])
		printf("%" PRIu64 " lost the duel, %" PRIu64 " no room (pinned, held, dirty), %"
		       PRIu64 " journal full, %" PRIu64 " too big, %" PRIu64
		       " fragmented\n", s->v[HC_A_STATS_REJECTIONS],
		       s->v[HC_A_STATS_REFUSED_ROOM],
		       s->v[HC_A_STATS_REFUSED_JOURNAL],
		       s->v[HC_A_STATS_REFUSED_TOO_BIG],
		       s->v[HC_A_STATS_REFUSED_FRAGMENTED]);
	else
		printf("-\n");
	/* the admission policy: its window's target, its controller, the ghost */
	printf("%-12s", "policy");
	if (s->has[HC_A_STATS_POLICY_WINDOW]) {
		hcctl_fmt_size(a, sizeof(a), s->v[HC_A_STATS_POLICY_WINDOW]);
		printf("window %s", a);
		if (s->has[HC_A_STATS_CAPACITY] && s->v[HC_A_STATS_CAPACITY])
			printf(" (%.1f %% of the cache)", 100.0 *
			       (double)s->v[HC_A_STATS_POLICY_WINDOW] /
			       (double)s->v[HC_A_STATS_CAPACITY]);
		printf(", %" PRIu64 " window moves, %" PRIu64 " ghost passes\n",
		       s->v[HC_A_STATS_POLICY_WINDOW_MOVES],
		       s->v[HC_A_STATS_POLICY_PASSES]);
	} else {
		printf("-\n");
	}
	/* revalidations against the backend, by result */
	printf("%-12s", "revalidate");
	if (s->has[HC_A_STATS_REVALIDATIONS])
		printf("%" PRIu64 " checks: %" PRIu64 " unchanged, %" PRIu64
		       " changed, %" PRIu64 " failed (served as cached)\n",
		       s->v[HC_A_STATS_REVALIDATIONS],
		       s->v[HC_A_STATS_REVAL_UNCHANGED],
		       s->v[HC_A_STATS_REVAL_CHANGED],
		       s->v[HC_A_STATS_REVAL_FAILED]);
	else
		printf("-\n");
	for (i = 0; i < s->nr_members; i++) {
		const struct hc_scrape_member *m = &s->m[i];

		hcctl_fmt_size(a, sizeof(a), m->read_bytes);
		hcctl_fmt_size(b, sizeof(b), m->write_bytes);
		snprintf(c, sizeof(c), "member %u", i);
		printf("%-12sread %" PRIu64 " (%s, mean %.0f us), write %"
		       PRIu64 " (%s, mean %.0f us), errors %" PRIu64 "\n", c,
		       m->reads, a, m->reads ? (double)m->read_ns /
		       (double)m->reads / 1e3 : 0.0, m->writes, b,
		       m->writes ? (double)m->write_ns / (double)m->writes /
		       1e3 : 0.0, m->errors);
	}
}

static void stats_print_text(const struct stats *s)
{
	char used[32], cap[32], buf[32];
	uint64_t lookups;
	const char *sep = "";
	size_t i;

	print_counter(s, "hits", HC_A_STATS_HITS);
	print_counter(s, "misses", HC_A_STATS_MISSES);
	lookups = s->v[HC_A_STATS_HITS] + s->v[HC_A_STATS_MISSES];
	if (s->has[HC_A_STATS_HITS] && s->has[HC_A_STATS_MISSES] && lookups)
		printf("%-12s%.1f%%\n", "hit ratio",
		       100.0 * (double)s->v[HC_A_STATS_HITS] / (double)lookups);
	else
		printf("%-12s-\n", "hit ratio");
	print_counter(s, "admissions", HC_A_STATS_ADMISSIONS);
	print_counter(s, "rejections", HC_A_STATS_REJECTIONS);
	print_counter(s, "evictions", HC_A_STATS_EVICTIONS);
	print_counter(s, "objects", HC_A_STATS_OBJECTS);

	printf("%-12s", "used");
	if (s->has[HC_A_STATS_BYTES_USED]) {
		hcctl_fmt_size(used, sizeof(used), s->v[HC_A_STATS_BYTES_USED]);
		fputs(used, stdout);
	} else {
		fputc('-', stdout);
	}
	if (s->has[HC_A_STATS_CAPACITY]) {
		hcctl_fmt_size(cap, sizeof(cap), s->v[HC_A_STATS_CAPACITY]);
		printf(" of %s", cap);
		if (s->has[HC_A_STATS_BYTES_USED] && s->v[HC_A_STATS_CAPACITY])
			printf(" (%.1f%%)", 100.0 *
			       (double)s->v[HC_A_STATS_BYTES_USED] /
			       (double)s->v[HC_A_STATS_CAPACITY]);
	}
	fputc('\n', stdout);

	printf("%-12s", "by state");
	for (i = 0; i < NSTATS_STATES; i++) {
		if (!s->has[stats_states[i].attr])
			continue;
		printf("%s%s %" PRIu64, sep,
		       hcctl_obj_state_name(stats_states[i].state, buf, sizeof(buf)),
		       s->v[stats_states[i].attr]);
		sep = ", ";
	}
	if (!*sep)
		fputc('-', stdout);
	fputc('\n', stdout);
	print_counter(s, "pinned", HC_A_STATS_PINNED);
	print_counter(s, "held", HC_A_STATS_HELD);

	printf("%-12s", "dirty");
	if (s->has[HC_A_STATS_DIRTY_BYTES]) {
		hcctl_fmt_size(used, sizeof(used), s->v[HC_A_STATS_DIRTY_BYTES]);
		fputs(used, stdout);
		if (s->has[HC_A_STATS_DIRTY_LIMIT] && s->v[HC_A_STATS_DIRTY_LIMIT]) {
			hcctl_fmt_size(cap, sizeof(cap), s->v[HC_A_STATS_DIRTY_LIMIT]);
			printf(" (limit %s)", cap);
		} else if (s->has[HC_A_STATS_DIRTY_LIMIT]) {
			fputs(" (no limit)", stdout);
		}
		if (s->has[HC_A_STATS_DIRTY_OLDEST_NS] &&
		    s->v[HC_A_STATS_DIRTY_OLDEST_NS])
			printf(", oldest %.1f s", (double)
			       s->v[HC_A_STATS_DIRTY_OLDEST_NS] / 1e9);
	} else {
		fputc('-', stdout);
	}
	fputc('\n', stdout);
	print_counter(s, "uploaded", HC_A_STATS_EGRESS_DONE);
	print_counter(s, "upload fail", HC_A_STATS_EGRESS_FAILED);
	stats_print_ext(s);
}

/* HC_CMD_STATS_GET or HC_CMD_POOL_COMPACT, whose replies are the same */
static int stats_request(const char *who, int nlcmd,
			 struct hc_scrape_kernel *s, bool quiet)
{
	struct hcctl_nl nl = { 0 };
	struct hcctl_nl_err err;
	struct nl_msg *msg;
	int ret;

	memset(s, 0, sizeof(*s));
	if (hcctl_nl_open(&nl, who) < 0)
		return -EIO;
	msg = hcctl_nl_request(&nl, nlcmd, 0);
	if (msg && nlcmd == HC_CMD_STATS_GET &&
	    hcctl_nl_put_ctl_fd(msg, HC_A_STATS_CTL_FD) < 0) {
		nlmsg_free(msg);
		msg = NULL;
	}
	if (!msg) {
		hcctl_err(who, "cannot build netlink request", ENOMEM);
		hcctl_nl_close(&nl);
		return -ENOMEM;
	}
	ret = hcctl_nl_transact(&nl, msg, stats_reply, s, &err);
	hcctl_nl_close(&nl);
	if (ret < 0) {
		if (err.kernel && err.error == ENODEV && !err.msg[0])
			snprintf(err.msg, sizeof(err.msg), "no pool is running");
		if (!quiet)
			hcctl_nl_report(who, &err, NULL, NULL, 0);
		return ret;
	}
	return 0;
}

int hcctl_stats_get(const char *who, struct hc_scrape_kernel *s, bool quiet)
{
	return stats_request(who, HC_CMD_STATS_GET, s, quiet);
}

int hcctl_stats_compact(const char *who, struct hc_scrape_kernel *s)
{
	return stats_request(who, HC_CMD_POOL_COMPACT, s, false);
}

const char *hcctl_stats_registered(const struct hc_scrape_kernel *s, int attr)
{
	return registered(s, attr);
}

int hcctl_cmd_stats(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	struct stats s;
	bool json;
	int ret;

	ret = hcctl_parse_json_only(cmd, argc, argv, &json);
	if (ret >= 0)
		return ret;
	if (optind < argc)
		return hcctl_usage_error(cmd, "unexpected argument '%s'",
				      argv[optind]);
	if (hcctl_stats_get(cmd->name, &s, false) < 0)
		return HC_EXIT_FAIL;
	if (json)
		stats_print_json(&s);
	else
		stats_print_text(&s);
	return HC_EXIT_OK;
}

/* --- the command table (main.c lists the groups) ---------------------- */

const struct hcctl_cmd hcctl_cache_cmds[] = {
{
	.name = "ls",
	.summary = "list the cached objects",
	.synopsis = "[--dirty] [--etag] [--json] [PREFIX]",
	.handler = hcctl_cmd_ls,
	.help =
"DESCRIPTION\n"
"    List every object of the cache (HC_CMD_OBJ_GET dump), or only those\n"
"    whose URI starts with the bytes of PREFIX (e.g. s3://models/llama/),\n"
"    sorted by URI, one per line:\n"
"\n"
"      STATE      FLAGS        SIZE  GENERATION  HOLDS  EXTENTS  URI\n"
"      ready      P-       1.0 GiB           7      0        2  s3://m/a\n"
"\n"
"    FLAGS: P pinned, C the data's CRC-32C is recorded, B bad (a read of\n"
"    its data failed on a member), - not set.  SIZE is\n"
"    in B/KiB/MiB/GiB/TiB; HOLDS counts the holds of all processes.  URIs\n"
"    are printed with bytes outside printable ASCII, and the backslash,\n"
"    escaped as \\xNN.  A value the kernel did not send prints as -.\n"
"\n"
"OPTIONS\n"
"    -d, --dirty\n"
"        Only the objects the backend does not have yet (dirty or syncing).\n"
"\n"
"    -e, --etag\n"
"        ETAG and LAST-MODIFIED columns before URI: the backend's ETag of\n"
"        the version the object was fetched from or uploaded as, as the\n"
"        backend sent it (quotes included), and that version's\n"
"        Last-Modified in UTC (2025-12-01T08:30:00Z); - when unknown: an\n"
"        object written but not uploaded yet, or one of a format-v1 pool\n"
"        after a restart (only a format-v2 pool journals them; see 'hcctl\n"
"        help pool create').\n"
"\n"
"    -j, --json\n"
"        Print one JSON object with raw numbers:\n"
"\n"
"          {\"objects\":[{\"uri\":\"...\",\"state\":\"ready\",\"flags\":1,\n"
"            \"pinned\":true,\"size\":N,\"generation\":G,\"chunks\":C,\n"
"            \"holds\":H,\"etag\":\"...\",\"last_modified\":\"...Z\",\n"
"            \"extents\":[{\"offset\":O,\"length\":L},...]},...]}\n"
"        (\"etag\" only when known, \"last_modified\" null when unknown,\n"
"        as with --etag).\n"
"\n"
HCCTL_HELP_OPT_TEXT
"\n"
"    Needs read access to /dev/hypercache-ctl (hcctl passes it open to\n"
"    the kernel) or CAP_NET_ADMIN.\n"
"\n"
HCCTL_EXIT_STATUS_TEXT,
},
{
	.name = "stats",
	.summary = "show the object cache's counters",
	.synopsis = "[--json]",
	.handler = hcctl_cmd_stats,
	.help =
"DESCRIPTION\n"
"    Print the counters of the object cache (HC_CMD_STATS_GET):\n"
"\n"
"      hits        LOCATEs that found valid data\n"
"      misses      LOCATEs that did not\n"
"      hit ratio   hits / (hits + misses), - before the first LOCATE\n"
"      admissions  objects the policy admitted\n"
"      rejections  objects the policy refused\n"
"      evictions   objects evicted (by the policy or by 'hcctl evict')\n"
"      objects     objects indexed\n"
"      used        USED of CAPACITY (PERCENT)\n"
"      by state    ingesting N, ready N, staged N, dirty N, syncing N\n"
"      pinned      pinned objects\n"
"      held        objects with at least one hold\n"
"      dirty       bytes of dirty and syncing objects (the dirty limit),\n"
"                  and how long ago the oldest of them was committed\n"
"      uploaded    uploads the egress helper acknowledged\n"
"      upload fail upload attempts that failed\n"
"      helpers     whether an ingest and an egress helper are registered\n"
"      served      bytes of the objects LOCATE found with their data\n"
"      locate      LOCATE calls since the module loaded, mean latency\n"
"      journal     record bytes of the live objects of the most they may,\n"
"                  records and compactions since assembly\n"
"      compaction  compactions of the slab (format v2's small objects):\n"
"                  runs, objects moved (bytes), slab chunks freed\n"
"      refused     admissions refused, by reason (lost the duel, no room,\n"
"                  journal full, too big, fragmented)\n"
"      policy      the admission window's target size (share of the\n"
"                  cache), its moves and the ghost's passes since assembly\n"
"      revalidate  revalidations of cached objects, by result\n"
"      member N    bios sent to member N: reads, writes (bytes, mean\n"
"                  latency), errors\n"
"\n"
"    A value the kernel did not send prints as -.\n"
"\n"
"OPTIONS\n"
"    -j, --json\n"
"        Print one JSON object with raw numbers:\n"
"\n"
"          {\"stats\":{\"hits\":N,\"misses\":N,\"admissions\":N,\n"
"            \"rejections\":N,\"evictions\":N,\"objects\":N,\"bytes_used\":N,\n"
"            \"capacity\":N,\"pinned\":N,\"held\":N,\"dirty_bytes\":N,\n"
"            \"dirty_limit\":N,\"egress_done\":N,\"egress_failed\":N,\n"
"            \"hit_bytes\":N,\"locate_ns\":N,\"journal_used\":N,\n"
"            \"journal_capacity\":N,\"journal_records\":N,\n"
"            \"journal_compactions\":N,\"journal_flushes\":N,\n"
"            \"slab_compactions\":N,\"slab_moved\":N,\"slab_chunks_freed\":N,\n"
"            \"slab_bytes_copied\":N,\"refused_room\":N,\"refused_journal\":N,\n"
"            \"refused_too_big\":N,\"refused_fragmented\":N,\"revalidations\":N,\n"
"            \"reval_unchanged\":N,\"reval_changed\":N,\"reval_failed\":N,\n"
"            \"policy_window\":N,\"policy_window_moves\":N,\"policy_passes\":N,\n"
"            \"dirty_oldest_ns\":N,\"by_state\":{\n"
"            \"ingesting\":N,\"ready\":N,\"staged\":N,\"dirty\":N,\"syncing\":N},\n"
"            \"helpers\":{\"ingest\":B,\"egress\":B},\"locate_hist\":[...],\n"
"            \"members\":[{\"index\":0,\"reads\":N,\"writes\":N,\n"
"            \"read_bytes\":N,\"write_bytes\":N,\"errors\":N,\"read_ns\":N,\n"
"            \"write_ns\":N,\"read_hist\":[...],\"write_hist\":[...]},...]}}\n"
"\n"
"        A *_hist array counts per latency bucket: bucket i at most 2^i\n"
"        microseconds, the last one the rest.\n"
"\n"
HCCTL_HELP_OPT_TEXT
"\n"
"    Needs read access to /dev/hypercache-ctl (hcctl passes it open to\n"
"    the kernel) or CAP_NET_ADMIN.\n"
"\n"
HCCTL_EXIT_STATUS_TEXT,
},
{ .name = NULL }
};
