// SPDX-License-Identifier: GPL-2.0
/*
 * hcctl verify [PREFIX]: every cached object whose backend ETag the kernel
 * kept, compared with a HEAD of its backend object (the URI resolved as
 * hypercached resolves it: resolve.h over its configuration, the S3 client
 * of s3.h through the plugin); the stale ones reported and, with --evict,
 * evicted.  The verdict on one object is verdict.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <isa-l/crc.h>

#include "hypercache_format.h"
#include "hcctl.h"
#include "opt.h"
#include "nl.h"
#include "cache.h"
#include "verdict.h"
#include "config.h"
#include "resolve.h"
#include "s3.h"
#include "posix.h"
#include "util.h"

extern char **environ;

#define VF_PARALLEL_DEFAULT	8
#define VF_PARALLEL_MAX		64
#define VF_MSG_MAX		512

/* One listed object and what became of it. */
struct vf_item {
	const struct obj_info *o;
	enum hcctl_verdict v;
	char etag[HCS3_ETAG_MAX + 1];	/* the backend's, after a HEAD */
	uint64_t size;			/* the backend's, after a HEAD */
	int64_t mtime;			/* its Last-Modified; 0: not given */
	int err;			/* HCCTL_V_ERROR: a positive errno */
	char msg[VF_MSG_MAX];		/* HCCTL_V_ERROR, HCCTL_V_NO_ETAG */
	bool evicted;
	int evict_err;			/* positive errno of a refusal */
	char refusal[256];		/* set when --evict was refused */
};

struct vf_ctx {
	const struct hc_config *cfg;
	struct vf_item *items;
	size_t n;
	pthread_mutex_t lock;
	size_t next;		/* the next item a worker takes */
	size_t done;		/* items decided */
	size_t stale;
	bool bar;		/* progress on stderr */
};

/* A worker's S3 clients, one per backend (made on first use). */
struct vf_worker {
	struct vf_ctx *x;
	struct hcs3 *s3[HC_BACKENDS_MAX];
	int s3_ret[HC_BACKENDS_MAX];	/* hcs3_new()'s failure, kept */
	char s3_err[HC_BACKENDS_MAX][VF_MSG_MAX];
};

/* The client of backend @b for worker @w: 0 or a negative errno (@err). */
static int vf_client(struct vf_worker *w, const struct hc_backend *b,
		     struct hcs3 **out, char *err, size_t errlen)
{
	const struct hc_config *cfg = w->x->cfg;
	size_t i = (size_t)(b - cfg->backends);
	struct hcs3_opts so = {
		.timeout_connect = cfg->timeout_connect,
		.timeout_request = cfg->timeout_request,
	};
	struct hc_creds *cr;
	int ret;

	if (!w->s3[i] && !w->s3_ret[i]) {
		cr = calloc(1, sizeof(*cr));
		if (!cr)
			return -ENOMEM;
		ret = hc_creds_lookup(b, environ, getenv("HOME"), cr,
				      w->s3_err[i], sizeof(w->s3_err[i]));
		if (!ret)
			ret = hcs3_new(b, cr, &so, &w->s3[i], w->s3_err[i],
				       sizeof(w->s3_err[i]));
		hc_creds_release(cr);
		free(cr);
		w->s3_ret[i] = ret;
	}
	if (w->s3_ret[i]) {
		snprintf(err, errlen, "backend %s: %s", b->name, w->s3_err[i]);
		return w->s3_ret[i];
	}
	*out = w->s3[i];
	return 0;
}

/*
 * A posix backend's "HEAD": the size and st_mtime of ROOT/KEY and, when it
 * is the cached size, the ETag hypercached's upload gave it (the CRC-32C of
 * the bytes as 8 hex digits, egress.c), computed by reading the file.  An
 * object ingested from a posix backend has no ETag and is not checked.
 */
static int vf_posix_head(const struct hc_target *t, uint64_t kept_size,
			 struct hcs3_object *out, char *err, size_t errlen)
{
	char path[PATH_MAX];
	uint32_t crc = ~0U;
	uint64_t off = 0;
	void *buf;
	int fd, ret;

	ret = hc_posix_path(t->b, t->key, t->key_len, path, sizeof(path),
			    err, errlen);
	if (!ret)
		ret = hc_posix_open(path, &fd, &out->size, &out->mtime, err,
				    errlen);
	if (ret)
		return ret;
	if (out->size != kept_size) {
		close(fd);
		return 0;	/* changed: no need to read it */
	}
	buf = malloc(1U << 20);
	if (!buf) {
		close(fd);
		return hc_seterr(err, errlen, -ENOMEM, "out of memory");
	}
	while (off < out->size) {
		size_t len = out->size - off < (1U << 20) ? out->size - off : (1U << 20);

		ret = hc_pread_full(fd, buf, len, off);
		if (ret) {
			hc_seterr(err, errlen, ret, "%s: read: %s", path,
				  strerror(-ret));
			break;
		}
		crc = crc32_iscsi(buf, (int)len, crc);
		off += len;
	}
	free(buf);
	close(fd);
	if (!ret)
		snprintf(out->etag, sizeof(out->etag), "%08x", ~crc);
	return ret;
}

/* The verdict on @it: from the listing, or from a HEAD. */
static void vf_check(struct vf_worker *w, struct vf_item *it)
{
	const struct obj_info *o = it->o;
	char err[VF_MSG_MAX] = "", *key;
	struct hcs3_object head;
	struct hc_target t;
	struct hcs3 *c = NULL;
	int ret;

	it->v = hcctl_verdict_before_head(o->has_state, o->state, o->etag);
	if (it->v != HCCTL_V_HEAD) {
		if (it->v == HCCTL_V_ERROR)
			snprintf(it->msg, sizeof(it->msg),
				 "the kernel sent no state this hcctl knows");
		else if (it->v == HCCTL_V_NO_ETAG)
			snprintf(it->msg, sizeof(it->msg),
				 "no ETag kept (a format-1 pool after a restart, or ingested from a posix backend)");
		return;
	}
	ret = hc_resolve(w->x->cfg, (const char *)o->uri, o->uri_len, 0, &t,
			 err, sizeof(err));
	if (ret) {
		it->v = HCCTL_V_ERROR;
		it->err = -ret;
		snprintf(it->msg, sizeof(it->msg), "%s", err);
		return;
	}
	memset(&head, 0, sizeof(head));
	if (t.b->type == HC_BACKEND_POSIX) {
		ret = vf_posix_head(&t, o->size, &head, err, sizeof(err));
		goto verdict;
	}
	key = strndup(t.key, t.key_len);
	if (!key) {
		it->v = HCCTL_V_ERROR;
		it->err = ENOMEM;
		snprintf(it->msg, sizeof(it->msg), "out of memory");
		return;
	}
	ret = vf_client(w, t.b, &c, err, sizeof(err));
	if (!ret)
		ret = hcs3_head(c, t.bucket, key, &head, err, sizeof(err));
	free(key);
verdict:
	it->v = hcctl_verdict_compare(o->etag, o->size, ret, head.etag, head.size);
	if (!ret) {
		memcpy(it->etag, head.etag, sizeof(it->etag));
		it->size = head.size;
		it->mtime = head.mtime;
	} else if (it->v == HCCTL_V_ERROR) {
		it->err = -ret;
		snprintf(it->msg, sizeof(it->msg), "HEAD failed: %s",
			 err[0] ? err : strerror(-ret));
	}
}

static void vf_bar(const struct vf_ctx *x)
{
	fprintf(stderr, "\rverify: %zu/%zu objects, %zu stale", x->done, x->n,
		x->stale);
	fflush(stderr);
}

static void *vf_worker_main(void *arg)
{
	struct vf_worker *w = arg;
	struct vf_ctx *x = w->x;
	size_t i;

	for (;;) {
		pthread_mutex_lock(&x->lock);
		i = x->next < x->n ? x->next++ : x->n;
		pthread_mutex_unlock(&x->lock);
		if (i == x->n)
			break;
		vf_check(w, &x->items[i]);
		pthread_mutex_lock(&x->lock);
		x->done++;
		if (hcctl_verdict_stale(x->items[i].v))
			x->stale++;
		if (x->bar)
			vf_bar(x);
		pthread_mutex_unlock(&x->lock);
	}
	for (i = 0; i < HC_BACKENDS_MAX; i++)
		if (w->s3[i])
			hcs3_free(w->s3[i]);
	return NULL;
}

/* Every item checked by @parallel workers (fewer for fewer objects). */
static int vf_run(struct vf_ctx *x, unsigned int parallel)
{
	struct vf_worker *w;
	pthread_t *tid;
	unsigned int i, started = 0;
	int ret = 0;

	if (parallel > x->n)
		parallel = (unsigned int)x->n;
	if (!parallel)
		return 0;
	w = calloc(parallel, sizeof(*w));
	tid = calloc(parallel, sizeof(*tid));
	if (!w || !tid) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < parallel; i++) {
		w[i].x = x;
		ret = -pthread_create(&tid[i], NULL, vf_worker_main, &w[i]);
		if (ret)
			break;
		started++;
	}
	/* with fewer workers than asked for, those that started do it all */
	if (!started)
		vf_worker_main(&w[0]);
	for (i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	ret = 0;
	if (x->bar)
		fprintf(stderr, "\r\033[K");
out:
	free(tid);
	free(w);
	return ret;
}

/* --evict: every stale item evicted, or refused with the reason. */
static int vf_evict(const char *who, struct vf_ctx *x,
		    struct hcctl_verdict_count *cnt)
{
	struct hcctl_nl nl = { 0 };
	const char *why;
	bool open = false;
	size_t i;

	for (i = 0; i < x->n; i++) {
		struct vf_item *it = &x->items[i];

		if (!hcctl_verdict_stale(it->v))
			continue;
		why = hcctl_evict_refusal(it->o);
		if (why) {
			snprintf(it->refusal, sizeof(it->refusal), "%s", why);
			it->evict_err = EBUSY;
		} else {
			if (!open && hcctl_nl_open(&nl, who) < 0)
				return -1;
			open = true;
			it->evict_err = hcctl_evict_one(&nl, it->o, it->refusal,
							sizeof(it->refusal));
		}
		if (it->evict_err) {
			cnt->refused++;
			hcctl_errf(it->o->shown, it->evict_err, "stale, not evicted: %s",
				   it->refusal);
		} else {
			it->evicted = true;
			cnt->evicted++;
		}
	}
	if (open)
		hcctl_nl_close(&nl);
	return 0;
}

/* ", modified 2025-12-01T08:30:00Z" of Last-Modified @t, "" if unknown. */
static const char *vf_modified(char *out, size_t len, int64_t t)
{
	char when[HC_UTC_LEN];

	if (!t)
		return "";
	snprintf(out, len, ", modified %s", hc_fmt_utc(when, sizeof(when), t));
	return out;
}

/* "changed: ETag A, the backend's B; ..." of a stale or failed @it. */
static void vf_reason(const struct vf_item *it, char *out, size_t len)
{
	char a[32], b[32], ma[48], mb[48];

	switch (it->v) {
	case HCCTL_V_CHANGED:
		hcctl_fmt_size(a, sizeof(a), it->o->size);
		hcctl_fmt_size(b, sizeof(b), it->size);
		snprintf(out, len, "changed: cached ETag %s (%s%s), the backend's %s (%s%s)",
			 it->o->etag, a,
			 vf_modified(ma, sizeof(ma), (int64_t)it->o->last_modified),
			 it->etag[0] ? it->etag : "not computed", b,
			 vf_modified(mb, sizeof(mb), it->mtime));
		break;
	case HCCTL_V_RESIZED:
		snprintf(out, len, "changed size: cached %" PRIu64 " bytes%s, the backend's %"
			 PRIu64 "%s (same ETag %s)", it->o->size,
			 vf_modified(ma, sizeof(ma), (int64_t)it->o->last_modified),
			 it->size, vf_modified(mb, sizeof(mb), it->mtime), it->etag);
		break;
	case HCCTL_V_GONE:
		snprintf(out, len, "gone: the backend has no such object");
		break;
	case HCCTL_V_NOT_UPLOADED:
		snprintf(out, len, "not uploaded yet");
		break;
	case HCCTL_V_INGESTING:
		snprintf(out, len, "being ingested");
		break;
	default:
		snprintf(out, len, "%s", it->msg);
	}
}

static json_object *vf_item_json(const struct vf_item *it)
{
	json_object *j = json_object_new_object();
	char why[VF_MSG_MAX + 256];

	json_object_object_add(j, "uri", json_object_new_string(it->o->shown));
	json_object_object_add(j, "result", json_object_new_string(
		hcctl_verdict_name(it->v)));
	json_object_object_add(j, "size", json_object_new_uint64(it->o->size));
	if (it->o->etag)
		json_object_object_add(j, "etag", json_object_new_string(it->o->etag));
	json_object_object_add(j, "last_modified",
			       hcctl_time_json(it->o->last_modified));
	if (it->v == HCCTL_V_CURRENT || it->v == HCCTL_V_CHANGED ||
	    it->v == HCCTL_V_RESIZED) {
		json_object_object_add(j, "backend_etag",
				       json_object_new_string(it->etag));
		json_object_object_add(j, "backend_size",
				       json_object_new_uint64(it->size));
		json_object_object_add(j, "backend_last_modified",
				       hcctl_time_json(it->mtime > 0 ?
						       (uint64_t)it->mtime : 0));
	}
	if (it->v != HCCTL_V_CURRENT) {
		vf_reason(it, why, sizeof(why));
		json_object_object_add(j, "reason", json_object_new_string(why));
	}
	if (it->v == HCCTL_V_ERROR && it->err)
		json_object_object_add(j, "errno", json_object_new_int(it->err));
	if (it->evicted)
		json_object_object_add(j, "evicted", json_object_new_boolean(true));
	if (it->evict_err) {
		json_object_object_add(j, "evicted", json_object_new_boolean(false));
		json_object_object_add(j, "refusal",
				       json_object_new_string(it->refusal));
	}
	return j;
}

static void vf_print_json(const char *prefix, const struct vf_ctx *x,
			  const struct hcctl_verdict_count *c, bool evict)
{
	json_object *jo = json_object_new_object();
	json_object *arr = json_object_new_array();
	size_t i;

	json_object_object_add(jo, "prefix", prefix ?
			       json_object_new_string(prefix) : NULL);
	for (i = 0; i < x->n; i++)
		json_object_array_add(arr, vf_item_json(&x->items[i]));
	json_object_object_add(jo, "objects", arr);
	json_object_object_add(jo, "checked", json_object_new_uint64(x->n));
	json_object_object_add(jo, "current",
			       json_object_new_uint64(c->n[HCCTL_V_CURRENT]));
	json_object_object_add(jo, "stale", json_object_new_uint64(
		c->n[HCCTL_V_CHANGED] + c->n[HCCTL_V_RESIZED] + c->n[HCCTL_V_GONE]));
	json_object_object_add(jo, "changed",
			       json_object_new_uint64(c->n[HCCTL_V_CHANGED]));
	json_object_object_add(jo, "resized",
			       json_object_new_uint64(c->n[HCCTL_V_RESIZED]));
	json_object_object_add(jo, "gone",
			       json_object_new_uint64(c->n[HCCTL_V_GONE]));
	json_object_object_add(jo, "no_etag",
			       json_object_new_uint64(c->n[HCCTL_V_NO_ETAG]));
	json_object_object_add(jo, "not_uploaded",
			       json_object_new_uint64(c->n[HCCTL_V_NOT_UPLOADED]));
	json_object_object_add(jo, "ingesting",
			       json_object_new_uint64(c->n[HCCTL_V_INGESTING]));
	json_object_object_add(jo, "errors",
			       json_object_new_uint64(c->n[HCCTL_V_ERROR]));
	if (evict) {
		json_object_object_add(jo, "evicted", json_object_new_uint64(c->evicted));
		json_object_object_add(jo, "refused", json_object_new_uint64(c->refused));
	}
	hcctl_json_print(jo, false);
	json_object_put(jo);
}

/* Text: a line per object that is not current, then the totals. */
static void vf_print_text(const struct vf_ctx *x,
			  const struct hcctl_verdict_count *c, bool evict)
{
	char why[VF_MSG_MAX + 256];
	const char *tag;
	size_t i;

	for (i = 0; i < x->n; i++) {
		const struct vf_item *it = &x->items[i];

		if (it->v == HCCTL_V_CURRENT)
			continue;
		vf_reason(it, why, sizeof(why));
		if (hcctl_verdict_stale(it->v))
			tag = it->evicted ? "evicted" : it->evict_err ? "refused" : "stale";
		else if (it->v == HCCTL_V_ERROR)
			tag = "error";
		else
			tag = "skipped";
		printf("%-8s %s: %s\n", tag, it->o->shown, why);
	}
	printf("%zu object%s: %zu current, %zu stale (%zu changed, %zu gone), "
	       "%zu without an ETag, %zu not uploaded yet, %zu being ingested, "
	       "%zu error%s",
	       x->n, x->n == 1 ? "" : "s", c->n[HCCTL_V_CURRENT],
	       c->n[HCCTL_V_CHANGED] + c->n[HCCTL_V_RESIZED] + c->n[HCCTL_V_GONE],
	       c->n[HCCTL_V_CHANGED] + c->n[HCCTL_V_RESIZED], c->n[HCCTL_V_GONE],
	       c->n[HCCTL_V_NO_ETAG], c->n[HCCTL_V_NOT_UPLOADED],
	       c->n[HCCTL_V_INGESTING], c->n[HCCTL_V_ERROR],
	       c->n[HCCTL_V_ERROR] == 1 ? "" : "s");
	if (evict)
		printf("; %zu evicted, %zu refused", c->evicted, c->refused);
	printf("\n");
}

int hcctl_cmd_verify(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	const char *prefix = NULL, *cfg_path = HC_CONFIG_PATH;
	unsigned int parallel = VF_PARALLEL_DEFAULT;
	bool evict = false, progress = true;
	const struct hcctl_opt opts[] = {
		HCCTL_FLAG("evict", 0, &evict),
		HCCTL_UINT("parallel", 'P', &parallel, 1, VF_PARALLEL_MAX),
		HCCTL_STRING("config", 0, &cfg_path, "FILE"),
		HCCTL_NOFLAG("no-progress", 0, &progress),
		HCCTL_OPT_END
	};
	struct hcctl_verdict_count cnt = { 0 };
	struct vf_ctx x = { 0 };
	struct hc_config *cfg = NULL;
	struct obj_list l = { 0 };
	char err[1024];
	int optind, rc = HC_EXIT_FAIL, ret;
	size_t i;

	optind = hcctl_opt_parse(cmd, argc, argv, opts, &rc);
	if (optind < 0)
		return rc;
	if (optind < argc)
		prefix = argv[optind++];
	if (optind < argc)
		return hcctl_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	if (prefix && !prefix[0])
		return hcctl_usage_error(cmd, "empty PREFIX (omit it to verify everything)");
	rc = HC_EXIT_FAIL;

	cfg = calloc(1, sizeof(*cfg));
	if (!cfg) {
		hcctl_err(cmd->name, "out of memory", ENOMEM);
		return HC_EXIT_FAIL;
	}
	ret = hc_config_load(cfg_path, cfg, err, sizeof(err));
	if (ret) {
		if (ret == -EINVAL)
			hcctl_err(cmd->name, err, 0);
		else
			hcctl_errf(cfg_path, -ret, "cannot load hypercached's configuration");
		goto out;
	}
	if (hcctl_obj_list_get(cmd->name, prefix, false, &l) < 0)
		goto out;
	x.cfg = cfg;
	x.n = l.n;
	x.items = calloc(l.n ? l.n : 1, sizeof(*x.items));
	if (!x.items) {
		hcctl_err(cmd->name, "out of memory", ENOMEM);
		goto out;
	}
	for (i = 0; i < l.n; i++)
		x.items[i].o = &l.v[i];
	x.bar = progress && !hcctl_opt_json && isatty(STDERR_FILENO);
	pthread_mutex_init(&x.lock, NULL);
	ret = vf_run(&x, parallel);
	pthread_mutex_destroy(&x.lock);
	if (ret) {
		hcctl_err(cmd->name, "cannot start the workers", -ret);
		goto out;
	}
	for (i = 0; i < x.n; i++) {
		cnt.n[x.items[i].v]++;
		if (x.items[i].v == HCCTL_V_ERROR)	/* on stderr with --json too */
			hcctl_errf(x.items[i].o->shown, x.items[i].err, "%s",
				   x.items[i].msg);
	}
	if (evict && vf_evict(cmd->name, &x, &cnt) < 0)
		goto out;
	if (hcctl_opt_json)
		vf_print_json(prefix, &x, &cnt, evict);
	else
		vf_print_text(&x, &cnt, evict);
	rc = hcctl_verdict_exit(&cnt);
out:
	free(x.items);
	hcctl_obj_list_free(&l);
	free(cfg);
	return rc;
}

/* --- the command table (main.c lists the groups) ---------------------- */

const struct hcctl_cmd hcctl_verify_cmds[] = {
{
	.name = "verify",
	.summary = "compare the cached objects' ETags with their backend's",
	.synopsis = "[--evict] [-P|--parallel N] [--config FILE] [--no-progress] [--json] [PREFIX]",
	.handler = hcctl_cmd_verify,
	.help =
"DESCRIPTION\n"
"    Check every cached object (or those whose URI starts with the bytes\n"
"    of PREFIX) against its backend: for each ready object whose backend\n"
"    ETag the kernel kept (the ETAG column of 'hcctl ls'), a HEAD of the\n"
"    backend object the URI names in hypercached's configuration (as\n"
"    hypercached resolves it: s3://BUCKET/KEY of default_backend,\n"
"    hypercache://NAME/BUCKET/KEY), with the backend's credentials as\n"
"    hypercached finds them.  The object is current when the backend's\n"
"    ETag is the kept one (quotes and a weak validator's W/ aside) and its\n"
"    size the cached size; stale when the ETag changed (the object was\n"
"    replaced), the size changed, or the backend has no such object any\n"
"    more (404, or no such file).  One line per object that is not\n"
"    current, then the totals:\n"
"\n"
"      stale    s3://b/m/a: changed: cached ETag \"9b2c...\" (5.0 MiB, modified\n"
"               2025-12-01T08:30:00Z), the backend's \"77e1...\" (6.0 MiB, modified\n"
"               2025-12-02T10:00:00Z)\n"
"      stale    s3://b/m/b: gone: the backend has no such object\n"
"      skipped  s3://b/m/c: no ETag kept (a format-1 pool after a restart, ...)\n"
"      skipped  s3://b/m/d: not uploaded yet\n"
"      5 objects: 1 current, 2 stale (1 changed, 1 gone), 1 without an ETag, 1 not uploaded yet, ...\n"
"\n"
"    (\"modified\": the Last-Modified kept with the object and the one the\n"
"    backend's HEAD gave, in UTC; left out when unknown).\n"
"\n"
"    Not checked, and never evicted: objects written through the cache and\n"
"    not uploaded yet (staged, dirty, syncing), objects being ingested, and\n"
"    objects without a kept ETag (a format-1 pool journals none, so after\n"
"    a restart it has none; an ingest from a posix backend sends none).\n"
"    On a posix backend the \"HEAD\" is a stat of ROOT/KEY and, at the\n"
"    cached size, a read of the file for its CRC-32C, the ETag its upload\n"
"    got.  A HEAD that fails otherwise (403, timeout, a URI no backend\n"
"    serves) is an error, named on stderr; the object is neither current\n"
"    nor stale.\n"
"\n"
"OPTIONS\n"
"    --evict\n"
"        Evict every stale object (HC_CMD_OBJ_EVICT), so that its next\n"
"        open ingests the backend's current version.  A pinned object or\n"
"        one held by a reader is not evicted: the refusal and its reason\n"
"        go to stderr (\"hcctl: URI: stale, not evicted: pinned (hcctl\n"
"        unpin first): ...\") and the object's line says refused.  Needs\n"
"        CAP_NET_ADMIN.\n"
"\n"
"    -P, --parallel N\n"
"        At most N HEADs at once, each worker with its own connections\n"
"        (1..64, default 8).\n"
"\n"
"    --config FILE\n"
"        hypercached's configuration (default /etc/hypercache/hypercache.conf).\n"
"\n"
"    --no-progress\n"
"        No progress line (\"verify: 12/40 objects, 1 stale\") on stderr,\n"
"        which is otherwise drawn when stderr is a terminal.\n"
"\n"
"    -j, --json\n"
"        Print one JSON object: {\"prefix\":P,\"objects\":[{\"uri\",\"result\",\n"
"        \"size\",\"etag\",\"last_modified\",\"backend_etag\",\"backend_size\",\n"
"        \"backend_last_modified\",\"reason\",\"errno\",\"evicted\",\n"
"        \"refusal\"},...],\"checked\",\"current\",\"stale\",\n"
"        \"changed\",\"resized\",\"gone\",\"no_etag\",\"not_uploaded\",\n"
"        \"ingesting\",\"errors\"} (with --evict also \"evicted\",\"refused\");\n"
"        every object is listed, result one of current, changed, resized,\n"
"        gone, no etag, not uploaded, ingesting, error; the\n"
"        *last_modified keys are ISO 8601 UTC or null when unknown; prefix\n"
"        is null without PREFIX.\n"
"\n"
HCCTL_HELP_OPT_TEXT
"\n"
"    Needs read access to /dev/hypercache-ctl (or CAP_NET_ADMIN) and to\n"
"    hypercached's configuration, and the backend's credentials.\n"
"\n"
"EXIT STATUS\n"
"    0  every object checked is current (objects not checked do not count)\n"
"    1  an object is stale (even if --evict evicted it), a HEAD failed, an\n"
"       eviction was refused, or the operation failed\n"
"    2  usage error: unknown option, missing or malformed argument\n"
"\n"
"EXAMPLES\n"
"    hcctl verify s3://models/llama/\n"
"    hcctl verify --evict --parallel 16 s3://models/\n",
},
{ .name = NULL }
};
