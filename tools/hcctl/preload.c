// SPDX-License-Identifier: GPL-2.0
/*
 * hcctl - preload and preload-batch: make objects cached ahead of use.
 * Every URI is LOCATEd as by 'get' (hcctl_obj_fetch(): AUTO_INGEST | WAIT, a
 * miss asks the helper and waits), by up to --parallel threads, each with
 * its own control fd; the kernel joins concurrent LOCATEs of one URI to
 * one ingest.  preload-batch lists the objects under a prefix first (a
 * posix backend's tree, or S3 ListObjectsV2) and, with --sharded, keeps
 * this node's share (shard.h).
 *
 * A preload is an operator's explicit admission (HC_LOCATE_F_EXPLICIT): it
 * does not compete in the policy's frequency duel, it displaces evictable
 * objects only, cold ones first, and fails with ENOSPC when pinned, held
 * and dirty objects leave no room.  --pin pins what it loads
 * (HC_LOCATE_F_PIN).
 */
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hypercache.h"
#include "hcctl.h"
#include "ctl.h"
#include "shard.h"
#include "config.h"
#include "uri.h"
#include "s3.h"
#include "util.h"
#include "opt.h"
#include "resolve.h"
#include "dataset.h"
#include "posix.h"

extern char **environ;

#define PL_PARALLEL_DEFAULT	4
#define PL_PARALLEL_MAX		64

enum pl_result {
	PL_PENDING,
	PL_HIT,		/* was cached already */
	PL_INGESTED,	/* fetched by this run (or one it joined) */
	PL_FAILED,
};

struct pl_item {
	char *uri;		/* NUL-terminated (URIs hold no NUL) */
	uint64_t listed_size;	/* from the listing, 0 if not known */
	enum pl_result result;
	uint64_t size;		/* the cached object's */
	struct hcctl_fetch_err err;
};

struct pl_list {
	struct pl_item *items;
	size_t n, cap;
};

struct pl_opts {
	unsigned int parallel;
	unsigned long timeout;
	bool progress;
	bool json;
	bool pin;
};

struct pl_run {
	struct pl_item *items;
	size_t n;
	const struct pl_opts *o;
	pthread_mutex_t lock;
	size_t next;		/* next item to take */
	/* totals, under lock */
	size_t done, hits, ingested, failed;
	uint64_t bytes, bytes_ingested, total_bytes;
	/* progress bar, under lock */
	bool bar;
	bool drawn;
	double start, last;
};

struct pl_worker {
	pthread_t tid;
	struct pl_run *run;
	int ctl;
};

/* --- the list of objects --------------------------------------------------- */

static int list_add(struct pl_list *l, const char *head, size_t hlen,
		    const char *key, size_t klen, uint64_t size)
{
	struct pl_item *it;
	char *uri;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;

		it = realloc(l->items, cap * sizeof(*it));
		if (!it)
			return -ENOMEM;
		l->items = it;
		l->cap = cap;
	}
	uri = malloc(hlen + klen + 1);
	if (!uri)
		return -ENOMEM;
	memcpy(uri, head, hlen);
	memcpy(uri + hlen, key, klen);
	uri[hlen + klen] = 0;
	it = &l->items[l->n++];
	memset(it, 0, sizeof(*it));
	it->uri = uri;
	it->listed_size = size;
	return 0;
}

static void list_free(struct pl_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->items[i].uri);
	free(l->items);
	memset(l, 0, sizeof(*l));
}

static int item_cmp(const void *a, const void *b)
{
	return strcmp(((const struct pl_item *)a)->uri,
		      ((const struct pl_item *)b)->uri);
}

/* --- the run --------------------------------------------------------------- */

static void bar_draw(struct pl_run *r, double t)
{
	char done[32], total[32];
	double el = t - r->start;
	double gbs = el > 0 ? (double)r->bytes / el / 1e9 : 0.0;
	double ops = el > 0 ? (double)r->done / el : 0.0;

	hcctl_fmt_size(done, sizeof(done), r->bytes);
	fprintf(stderr, "\r%zu/%zu objects  %s", r->done, r->n, done);
	if (r->total_bytes) {
		hcctl_fmt_size(total, sizeof(total), r->total_bytes);
		fprintf(stderr, " / %s", total);
	}
	fprintf(stderr, "  %.2f GB/s  %.1f objects/s", gbs, ops);
	if (r->failed)
		fprintf(stderr, "  %zu failed", r->failed);
	fputs("\033[K", stderr);
	fflush(stderr);
	r->drawn = true;
	r->last = t;
}

/* Account for one finished item; called with r->lock held. */
static void run_account(struct pl_run *r, const struct pl_item *it)
{
	double t;

	r->done++;
	switch (it->result) {
	case PL_HIT:
		r->hits++;
		r->bytes += it->size;
		break;
	case PL_INGESTED:
		r->ingested++;
		r->bytes += it->size;
		r->bytes_ingested += it->size;
		break;
	default:
		r->failed++;
	}
	if (!r->bar)
		return;
	t = hc_now();
	if (t - r->last >= 0.1 || r->done == r->n)
		bar_draw(r, t);
}

static void preload_one(struct pl_run *r, int ctl, struct pl_item *it)
{
	struct hc_locate peek, l;
	struct hcctl_uri uri = {
		.bytes = it->uri,
		.len = (uint32_t)strlen(it->uri),
	};
	bool was_hit;

	if (uri.len > HC_URI_MAX) {
		it->result = PL_FAILED;
		it->err.errnum = ENAMETOOLONG;
		snprintf(it->err.reason, sizeof(it->err.reason),
			 "URI too long: %u bytes (at most %u)", uri.len,
			 HC_URI_MAX);
		return;
	}
	/* A PEEK tells whether it was there; it counts for nothing. */
	was_hit = !hcctl_ctl_locate(ctl, &uri, HC_LOCATE_F_PEEK, NULL, 0, NULL, 0,
				 &peek) && peek.status == HC_LOCATE_HIT;
	if (hcctl_obj_fetch(ctl, &uri, HC_LOCATE_F_AUTO_INGEST | HC_LOCATE_F_WAIT |
			 HC_LOCATE_F_EXPLICIT | (r->o->pin ? HC_LOCATE_F_PIN : 0),
			 r->o->timeout, NULL, 0, &l, &it->err) < 0) {
		it->result = PL_FAILED;
		return;
	}
	it->size = l.obj_size;
	/* Evicted and fetched again in between: a new generation. */
	it->result = was_hit && peek.generation == l.generation ?
		     PL_HIT : PL_INGESTED;
}

static void *worker(void *arg)
{
	struct pl_worker *w = arg;
	struct pl_run *r = w->run;
	struct pl_item *it;

	for (;;) {
		pthread_mutex_lock(&r->lock);
		it = r->next < r->n ? &r->items[r->next++] : NULL;
		pthread_mutex_unlock(&r->lock);
		if (!it)
			break;
		preload_one(r, w->ctl, it);
		pthread_mutex_lock(&r->lock);
		run_account(r, it);
		pthread_mutex_unlock(&r->lock);
	}
	return NULL;
}

/* The summary: JSON object @o gets the figures; text on stdout otherwise. */
static void run_summary(const struct pl_run *r, double secs, json_object *o)
{
	double gbps = secs > 0 ? (double)r->bytes / secs / 1e9 : 0.0;
	double ops = secs > 0 ? (double)r->n / secs : 0.0;
	char size[32];
	size_t i;

	if (o) {
		json_object *arr = json_object_new_array();

		json_object_object_add(o, "objects", json_object_new_uint64(r->n));
		json_object_object_add(o, "bytes", json_object_new_uint64(r->bytes));
		json_object_object_add(o, "bytes_ingested",
				       json_object_new_uint64(r->bytes_ingested));
		json_object_object_add(o, "seconds", json_object_new_double(secs));
		json_object_object_add(o, "gb_per_s", json_object_new_double(gbps));
		json_object_object_add(o, "objects_per_s",
				       json_object_new_double(ops));
		json_object_object_add(o, "hits", json_object_new_uint64(r->hits));
		json_object_object_add(o, "ingested",
				       json_object_new_uint64(r->ingested));
		json_object_object_add(o, "failed", json_object_new_uint64(r->failed));
		for (i = 0; i < r->n; i++) {
			const struct pl_item *it = &r->items[i];
			json_object *f;
			char msg[256];

			if (it->result != PL_FAILED)
				continue;
			f = json_object_new_object();
			snprintf(msg, sizeof(msg), "%s%s%s", it->err.reason,
				 it->err.errnum ? ": " : "",
				 it->err.errnum ? strerror(it->err.errnum) : "");
			json_object_object_add(f, "uri", json_object_new_string(it->uri));
			json_object_object_add(f, "errno",
					       json_object_new_int(it->err.errnum));
			json_object_object_add(f, "error", json_object_new_string(msg));
			json_object_array_add(arr, f);
		}
		json_object_object_add(o, "failures", arr);
		return;
	}
	hcctl_fmt_size(size, sizeof(size), r->bytes);
	printf("preloaded %zu object%s, %s in %.2f s (%.2f GB/s, %.1f objects/s): %zu already cached, %zu ingested, %zu failed\n",
	       r->n, r->n == 1 ? "" : "s", size, secs, gbps, ops, r->hits,
	       r->ingested, r->failed);
}

/*
 * Preload @n items.  Adds the figures to @o (JSON) or prints them; every
 * failure goes to stderr.  Returns an exit status.
 */
static int run_preload(const struct hcctl_cmd *cmd, struct pl_item *items,
		       size_t n, const struct pl_opts *o, json_object *jo)
{
	struct pl_worker *w;
	struct pl_run r;
	unsigned int nw, i, started;
	size_t k;
	double secs;
	int ret, rc = HC_EXIT_FAIL;

	memset(&r, 0, sizeof(r));
	r.items = items;
	r.n = n;
	r.o = o;
	for (k = 0; k < n; k++)
		r.total_bytes += items[k].listed_size;
	pthread_mutex_init(&r.lock, NULL);
	nw = o->parallel < n ? o->parallel : (unsigned int)n;
	w = calloc(nw ? nw : 1, sizeof(*w));
	if (!w) {
		nw = 0;
		hcctl_err(NULL, "out of memory", ENOMEM);
		goto out;
	}
	for (i = 0; i < nw; i++)
		w[i].ctl = -1;
	/*
	 * Each thread its own fd: LOCATEs on one file would serialise.  Open
	 * for writing: an explicit admission needs it.
	 */
	for (i = 0; i < nw; i++) {
		w[i].ctl = hcctl_ctl_open(cmd->name, true);
		if (w[i].ctl < 0)
			goto out;
		w[i].run = &r;
	}
	r.bar = o->progress && n && isatty(STDERR_FILENO);
	r.start = r.last = hc_now();
	for (started = 0; started < nw; started++) {
		ret = pthread_create(&w[started].tid, NULL, worker, &w[started]);
		if (ret) {
			hcctl_err(NULL, "cannot start a thread", ret);
			break;	/* the threads started take every item */
		}
	}
	if (!started && n)
		worker(&w[0]);
	for (i = 0; i < started; i++)
		pthread_join(w[i].tid, NULL);
	secs = hc_now() - r.start;
	if (r.drawn) {
		bar_draw(&r, hc_now());
		fputc('\n', stderr);
	}
	for (k = 0; k < n; k++)
		if (items[k].result == PL_FAILED)
			hcctl_err(items[k].uri, items[k].err.reason,
			       items[k].err.errnum);
	run_summary(&r, secs, jo);
	rc = r.failed ? HC_EXIT_FAIL : HC_EXIT_OK;
out:
	if (w) {
		for (i = 0; i < nw; i++)
			if (w[i].ctl >= 0)
				close(w[i].ctl);
		free(w);
	}
	pthread_mutex_destroy(&r.lock);
	return rc;
}

/* --- options shared by both commands --------------------------------------- */

#define PL_COMMON_OPTS(o)							\
	HCCTL_UINT("parallel", 'P', &(o).parallel, 1, PL_PARALLEL_MAX),	\
	HCCTL_ULONG("timeout", 0, &(o).timeout, 0, 86400, "seconds"),	\
	HCCTL_NOFLAG("no-progress", 0, &(o).progress),			\
	HCCTL_FLAG("pin", 0, &(o).pin)

/*
 * The JSON document of a preload: printed only if the run got as far as
 * its summary (run_summary()'s "objects"); a run that could not start (no
 * control device) prints nothing on stdout, as every verb that fails
 * before its work, and says why on stderr.
 */
static void print_json(json_object *o)
{
	if (!o)
		return;
	if (json_object_object_get_ex(o, "objects", NULL) ||
	    json_object_object_get_ex(o, "uris", NULL))
		hcctl_json_print(o, false);
	json_object_put(o);
}

/* An option whose emptiness the command judges itself. */
static int any_string(const struct hcctl_cmd *cmd, const char *arg, void *dst)
{
	(void)cmd;
	*(const char **)dst = arg;
	return 0;
}

/* --- preload --------------------------------------------------------------- */

/*
 * Add the URIs of LISTFILE @path ("-": stdin) to @l: one a line, leading
 * and trailing blanks dropped, empty lines and lines starting with '#'
 * skipped.  A URI too long is a usage error naming the file and the line.
 * Returns -1, or an exit status.
 */
static int list_file(const struct hcctl_cmd *cmd, const char *path,
		     struct pl_list *l)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	size_t cap = 0, lineno = 0, len;
	char *line = NULL, *s;
	ssize_t n;
	int rc = -1;

	if (!f) {
		hcctl_err(path, "cannot open the list file", errno);
		return HC_EXIT_FAIL;
	}
	while ((n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		s = line;
		len = (size_t)n;
		while (len && strchr(" \t\r\n", s[len - 1]))
			len--;
		while (len && (*s == ' ' || *s == '\t')) {
			s++;
			len--;
		}
		if (!len || *s == '#')
			continue;
		if (len > HC_URI_MAX || memchr(s, 0, len)) {
			rc = hcctl_usage_error(cmd, "%s:%zu: %s", path, lineno,
					       len > HC_URI_MAX ? "URI too long" :
					       "URI with a NUL byte");
			goto out;
		}
		if (list_add(l, "", 0, s, len, 0)) {
			hcctl_err(NULL, "out of memory", ENOMEM);
			rc = HC_EXIT_FAIL;
			goto out;
		}
	}
	if (ferror(f)) {
		hcctl_err(path, "cannot read the list file", errno);
		rc = HC_EXIT_FAIL;
	}
out:
	free(line);
	if (f != stdin)
		fclose(f);
	return rc;
}

int hcctl_cmd_preload(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	struct pl_opts o = { .parallel = PL_PARALLEL_DEFAULT, .timeout = 300,
			     .progress = true };
	const char *listfile = NULL;
	const struct hcctl_opt opts[] = {
		HCCTL_STRING("file", 'f', &listfile, "LISTFILE"),
		PL_COMMON_OPTS(o),
		HCCTL_OPT_END
	};
	struct pl_list l = { 0 };
	json_object *jo = NULL;
	int i, rc = -1, optind;
	struct hcctl_uri u;

	optind = hcctl_opt_parse(cmd, argc, argv, opts, &rc);
	if (optind < 0)
		return rc;
	o.json = hcctl_opt_json;
	if (optind >= argc && !listfile)
		return hcctl_usage_error(cmd, "missing URI operand (or -f LISTFILE)");
	/* Each URI as 'get' takes it: an empty or too long one is a usage error. */
	for (i = optind; i < argc; i++) {
		rc = hcctl_uri_arg(cmd, argv[i], &u);
		if (rc >= 0)
			return rc;
		hcctl_uri_free(&u);
	}
	for (i = optind; i < argc; i++) {
		if (list_add(&l, "", 0, argv[i], strlen(argv[i]), 0)) {
			hcctl_err(NULL, "out of memory", ENOMEM);
			rc = HC_EXIT_FAIL;
			goto out;
		}
	}
	if (listfile) {
		rc = list_file(cmd, listfile, &l);
		if (rc >= 0)
			goto out;
		if (!l.n) {
			hcctl_err(listfile, "the list file names no URI", 0);
			rc = HC_EXIT_FAIL;
			goto out;
		}
	}
	if (o.json)
		jo = json_object_new_object();
	rc = run_preload(cmd, l.items, l.n, &o, jo);
	if (jo)
		print_json(jo);
out:
	list_free(&l);
	return rc;
}

/* --- preload-batch: listing ------------------------------------------------ */

/*
 * The regular files under backend @b's ROOT whose key (path relative to
 * ROOT) starts with @prefix, as URIs @head + key.  Only the directory of
 * the prefix is walked, and subdirectories that cannot match are skipped.
 * Symbolic links are not followed.  An unreadable directory fails the
 * listing: a partial list would shard differently on another node.
 */
static int list_posix(const struct hc_backend *b, const char *head,
		      const char *prefix, struct pl_list *out, char *err,
		      size_t errlen)
{
	size_t rlen = strlen(b->root), plen = strlen(prefix), klen, m;
	const char *slash = strrchr(prefix, '/');
	char *start, *paths[2];
	FTSENT *e;
	FTS *fts;
	int ret = 0;

	/* The directory walked is ROOT/DIR: DIR obeys the key rule (posix.h). */
	if (slash && slash > prefix) {
		ret = hc_posix_key_check(prefix, (size_t)(slash - prefix), err,
					 errlen);
		if (ret)
			return ret;
	}
	while (rlen > 1 && b->root[rlen - 1] == '/')
		rlen--;
	if (asprintf(&start, "%.*s/%.*s", (int)rlen, b->root,
		     slash ? (int)(slash - prefix) : 0, prefix) < 0)
		return -ENOMEM;
	if (!slash)
		start[rlen] = 0;	/* ROOT itself */
	paths[0] = start;
	paths[1] = NULL;
	fts = fts_open(paths, FTS_PHYSICAL | FTS_COMFOLLOW | FTS_NOCHDIR, NULL);
	if (!fts) {
		ret = -errno;
		snprintf(err, errlen, "%s: cannot list: %s", start, strerror(errno));
		free(start);
		return ret;
	}
	while ((e = fts_read(fts))) {
		const char *key = e->fts_path + rlen + 1;

		if (e->fts_level == 0 && (e->fts_info == FTS_NS ||
					  e->fts_info == FTS_DNR) &&
		    e->fts_errno == ENOENT)
			break;	/* the prefix's directory does not exist */
		switch (e->fts_info) {
		case FTS_D:
			if (e->fts_level == 0)
				break;
			/* "a/b" can only hold matches if it agrees with the prefix */
			klen = strlen(key);
			m = klen < plen ? klen : plen;
			if (strncmp(key, prefix, m) ||
			    (klen < plen && prefix[klen] != '/'))
				fts_set(fts, e, FTS_SKIP);
			break;
		case FTS_F:
			if (e->fts_level == 0 || strncmp(key, prefix, plen))
				break;
			ret = list_add(out, head, strlen(head), key, strlen(key),
				       (uint64_t)e->fts_statp->st_size);
			if (ret) {
				snprintf(err, errlen, "out of memory");
				goto out;
			}
			break;
		case FTS_DNR:
		case FTS_ERR:
		case FTS_NS:
			ret = -e->fts_errno;
			snprintf(err, errlen, "%s: cannot list: %s", e->fts_path,
				 strerror(e->fts_errno));
			goto out;
		case FTS_DC:
			break;	/* a loop: impossible without following links */
		default:
			break;	/* symbolic links, devices, sockets... */
		}
	}
	if (!e && errno) {
		ret = -errno;
		snprintf(err, errlen, "%s: cannot list: %s", start, strerror(errno));
	}
out:
	fts_close(fts);
	free(start);
	return ret;
}

struct s3_ctx {
	struct pl_list *out;
	const char *head;
};

static int s3_add(const struct s3xml_object *obj, void *arg)
{
	struct s3_ctx *c = arg;

	return list_add(c->out, c->head, strlen(c->head), obj->key,
			strlen(obj->key), obj->size);
}

static int list_s3(const struct hc_config *cfg, const struct hc_backend *b,
		   const char *head, const char *bucket, const char *prefix,
		   struct pl_list *out, char *err, size_t errlen)
{
	struct hcs3_opts so = {
		.timeout_connect = cfg->timeout_connect,
		.timeout_request = cfg->timeout_request,
	};
	struct s3_ctx ctx = { .out = out, .head = head };
	struct hc_creds *cr;
	struct hcs3 *c;
	int ret;

	cr = calloc(1, sizeof(*cr));
	if (!cr)
		return -ENOMEM;
	ret = hc_creds_lookup(b, environ, getenv("HOME"), cr, err, errlen);
	if (!ret)
		ret = hcs3_new(b, cr, &so, &c, err, errlen);
	hc_creds_release(cr);
	free(cr);
	if (ret)
		return ret;
	ret = hcs3_list(c, bucket, prefix, s3_add, &ctx, err, errlen);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	hcs3_free(c);
	return ret;
}

/*
 * List the objects under @prefix (a URI whose key is a prefix, possibly
 * empty) with the backends of @cfg_path.  Errors are printed.
 */
static int list_prefix(const char *prefix, const char *cfg_path,
		       struct pl_list *out)
{
	struct hc_config *cfg;
	struct hc_target *t;
	char err[1024], *head = NULL;
	int ret = -1;

	cfg = calloc(1, sizeof(*cfg));
	t = calloc(1, sizeof(*t));
	if (!cfg || !t) {
		hcctl_err(NULL, "out of memory", ENOMEM);
		goto out;
	}
	ret = ds_prefix_resolve(prefix, cfg_path, cfg, t);
	if (ret)
		goto out;
	ret = -1;
	/* The URIs are @head + key. */
	head = strndup(prefix, t->head_len);
	if (!head) {
		hcctl_err(NULL, "out of memory", ENOMEM);
		goto out;
	}
	if (t->b->type == HC_BACKEND_POSIX)
		ret = list_posix(t->b, head, t->key, out, err, sizeof(err));
	else
		ret = list_s3(cfg, t->b, head, t->bucket, t->key, out, err,
			      sizeof(err));
	if (ret) {
		hcctl_errf(prefix, -ret, "cannot list: %s", err);
		ret = -1;
		goto out;
	}
	qsort(out->items, out->n, sizeof(*out->items), item_cmp);
	ret = 0;
out:
	free(head);
	free(t);
	free(cfg);
	return ret;
}

/* --- preload-batch --------------------------------------------------------- */

int hcctl_cmd_preload_batch(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	struct pl_opts o = { .parallel = PL_PARALLEL_DEFAULT, .timeout = 300,
			     .progress = true };
	const char *prefix = NULL, *cfg_path = HC_CONFIG_PATH;
	const char *opt_count = NULL, *opt_index = NULL;
	bool sharded = false, list_only = false;
	const struct hcctl_opt opts[] = {
		HCCTL_CALL("prefix", 0, &prefix, any_string),
		HCCTL_FLAG("sharded", 0, &sharded),
		HCCTL_CALL("node-count", 0, &opt_count, any_string),
		HCCTL_CALL("node-index", 0, &opt_index, any_string),
		HCCTL_STRING("config", 0, &cfg_path, "FILE"),
		HCCTL_FLAG("list", 0, &list_only),
		PL_COMMON_OPTS(o),
		HCCTL_OPT_END
	};
	struct pl_list l = { 0 };
	struct hcctl_shard sh = { .count = 1, .index = 0 };
	json_object *jo = NULL;
	size_t listed, i;
	char err[256];
	double t_list;
	int rc = -1, optind;

	optind = hcctl_opt_parse(cmd, argc, argv, opts, &rc);
	if (optind < 0)
		return rc;
	o.json = hcctl_opt_json;
	if (optind < argc)
		return hcctl_usage_error(cmd, "unexpected argument '%s'",
				      argv[optind]);
	if (!prefix)
		return hcctl_usage_error(cmd, "missing --prefix URI_PREFIX");
	if (!prefix[0])
		return hcctl_usage_error(cmd, "empty --prefix");
	if ((opt_count || opt_index) && !sharded)
		return hcctl_usage_error(cmd, "--node-count and --node-index need --sharded");
	if (sharded && hcctl_shard_resolve(opt_count, opt_index, environ, &sh,
					err, sizeof(err))) {
		hcctl_errf(cmd->name, 0, "%s", err);
		return HC_EXIT_USAGE;
	}

	t_list = hc_now();
	if (list_prefix(prefix, cfg_path, &l) < 0) {
		rc = HC_EXIT_FAIL;
		goto out;
	}
	t_list = hc_now() - t_list;
	listed = l.n;
	if (!listed) {
		hcctl_err(prefix, "no objects under this prefix", 0);
		rc = HC_EXIT_FAIL;
		goto out;
	}
	/* Sorted by key: item i is node i mod N's. */
	if (sharded) {
		for (i = 0; i < l.n; i++)
			if (!hcctl_shard_mine(&sh, i))
				free(l.items[i].uri);
		l.n = hcctl_shard_select(l.items, l.n, sizeof(*l.items), &sh);
	}
	if (o.json) {
		jo = json_object_new_object();
		json_object_object_add(jo, "prefix", json_object_new_string(prefix));
		json_object_object_add(jo, "listed", json_object_new_uint64(listed));
		json_object_object_add(jo, "list_seconds",
				       json_object_new_double(t_list));
		if (sharded) {
			json_object_object_add(jo, "node_index",
					       json_object_new_uint64(sh.index));
			json_object_object_add(jo, "node_count",
					       json_object_new_uint64(sh.count));
			json_object_object_add(jo, "index_source",
					       json_object_new_string(sh.index_src));
			json_object_object_add(jo, "count_source",
					       json_object_new_string(sh.count_src));
		}
	}
	if (list_only) {
		if (jo) {
			json_object *arr = json_object_new_array();

			for (i = 0; i < l.n; i++)
				json_object_array_add(arr,
					json_object_new_string(l.items[i].uri));
			json_object_object_add(jo, "uris", arr);
			print_json(jo);
			jo = NULL;
		} else {
			for (i = 0; i < l.n; i++)
				printf("%s\n", l.items[i].uri);
		}
		rc = HC_EXIT_OK;
		goto out;
	}
	if (!jo && sharded)
		printf("%s: %zu listed, node %u of %u (%s, %s): %zu to preload\n",
		       prefix, listed, sh.index, sh.count, sh.index_src,
		       sh.count_src, l.n);
	rc = run_preload(cmd, l.items, l.n, &o, jo);
	if (jo) {
		print_json(jo);
		jo = NULL;
	}
out:
	if (jo)
		json_object_put(jo);
	list_free(&l);
	return rc;
}

/* --- the command table (main.c lists the groups) ---------------------- */

const struct hcctl_cmd hcctl_preload_cmds[] = {
{
	.name = "preload",
	.summary = "make objects cached: fetch every URI that is not",
	.synopsis = "[--pin] [-f LISTFILE] [--parallel P] [--timeout SECONDS]\n"
		    "          [--no-progress] [--json] [URI...]",
	.handler = hcctl_cmd_preload,
	.help =
"DESCRIPTION\n"
"    Make sure every URI is cached, as 'hcctl get' would, without reading\n"
"    the data: HC_IOC_LOCATE with HC_LOCATE_F_AUTO_INGEST | HC_LOCATE_F_WAIT,\n"
"    so a miss asks the helper (hypercached) to fetch the object and waits\n"
"    for it.  A PEEK before tells whether the object was there already (it\n"
"    counts for neither the policy nor the counters).  Up to P URIs are in\n"
"    flight at once, each thread with its own /dev/hypercache-ctl fd; the\n"
"    kernel joins concurrent LOCATEs of one URI to one ingest.  The URIs\n"
"    are the operands and the lines of LISTFILE, in that order.\n"
"\n"
"    A preload is an explicit admission (HC_LOCATE_F_EXPLICIT): the\n"
"    operator said what to load, so it does not compete in the policy's\n"
"    frequency duel as an application's miss does.  Room is made from\n"
"    evictable objects only, cold ones first (seen at most once lately),\n"
"    then the least recently used; a pinned, held, dirty or syncing object\n"
"    is never displaced.  When those leave no room the URI fails with \"no\n"
"    room in the cache\" (ENOSPC) and nothing is evicted for it.  Once\n"
"    loaded, the object competes like any other; --pin keeps it.\n"
"\n"
"    At the end a summary goes to stdout:\n"
"\n"
"      preloaded 3 objects, 1.2 GiB in 4.10 s (0.31 GB/s, 0.7 objects/s): 1 already cached, 1 ingested, 1 failed\n"
"\n"
"    bytes are those of every object now cached (already cached or\n"
"    ingested); GB/s is bytes / seconds (10^9 bytes), objects/s the\n"
"    objects / seconds.  Every failure is printed on stderr after the\n"
"    summary's figures are known, in the order of the URIs, as 'hcctl get'\n"
"    prints it:\n"
"\n"
"      hcctl: hypercache://store/x: not cached: No such file or directory\n"
"\n"
"OPTIONS\n"
"    --pin\n"
"        Pin every object loaded (HC_LOCATE_F_PIN), and those cached\n"
"        already: the policy never evicts them ('hcctl unpin', 'hcctl unpin\n"
"        --prefix' let it again).  An object is pinned before its data is\n"
"        fetched, so nothing can evict it in between.  Needs CAP_SYS_ADMIN.\n"
"\n"
"    -f, --file LISTFILE\n"
"        Also preload the URIs of LISTFILE (- for stdin), one a line;\n"
"        blanks around a URI are dropped, empty lines and lines starting\n"
"        with # skipped.  A line too long for a URI is a usage error naming\n"
"        the file and the line; a file that names no URI is an error.\n"
"\n"
"    -P, --parallel P\n"
"        URIs in flight at once, 1..64 (default 4).\n"
"\n"
"    --timeout SECONDS\n"
"        How long to wait for each object's ingest (default 300; 0 waits\n"
"        until interrupted).\n"
"\n"
"    --no-progress\n"
"        No progress bar.  By default objects and bytes done are shown on\n"
"        stderr when stderr is a terminal.\n"
"\n"
"    -j, --json\n"
"        Print the summary as one JSON object:\n"
"\n"
"          {\"objects\":N,\"bytes\":B,\"bytes_ingested\":B,\"seconds\":S,\n"
"           \"gb_per_s\":R,\"objects_per_s\":O,\"hits\":H,\"ingested\":I,\"failed\":F,\n"
"           \"failures\":[{\"uri\":\"...\",\"errno\":E,\"error\":\"...\"},...]}\n"
"\n"
"        hits are the objects that were cached already; errno is 0 for a\n"
"        failure that has none (not admitted).\n"
"\n"
HCCTL_HELP_OPT_TEXT
"\n"
"    Needs write access to /dev/hypercache-ctl (an explicit admission), and\n"
"    CAP_SYS_ADMIN for --pin.\n"
"\n"
"EXIT STATUS\n"
"    0  every URI is cached\n"
"    1  at least one URI failed (each is printed on stderr), or nothing\n"
"       could be done\n"
"    2  usage error: unknown option, missing or malformed argument\n"
"\n"
"EXAMPLES\n"
"    hcctl preload s3://models/llama/config.json s3://models/llama/model.safetensors\n"
"    hcctl preload --parallel 8 --json -f shards.txt\n"
"    hcctl preload --pin s3://models/llama/model.safetensors\n",
},
{
	.name = "preload-batch",
	.summary = "preload every object under a prefix, or this node's share",
	.synopsis = "--prefix URI_PREFIX [--sharded [--node-count N] [--node-index I]]\n"
		    "          [--config FILE] [--list] [--pin] [--parallel P]\n"
		    "          [--timeout SECONDS] [--no-progress] [--json]",
	.handler = hcctl_cmd_preload_batch,
	.help =
"DESCRIPTION\n"
"    List the objects whose URI starts with URI_PREFIX and preload them as\n"
"    'hcctl preload' does.  The backends come from hypercached's\n"
"    configuration file:\n"
"\n"
"      hypercache://NAME/PREFIX of a posix backend\n"
"          the regular files under ROOT whose path relative to ROOT (the\n"
"          key) starts with PREFIX; only the prefix's directory is walked,\n"
"          symbolic links are not followed, an unreadable directory fails\n"
"          the listing.\n"
"      s3://BUCKET/PREFIX (the default_backend)\n"
"      hypercache://NAME/BUCKET/PREFIX of an s3 backend\n"
"          ListObjectsV2 of BUCKET under PREFIX, with the backend's\n"
"          credentials (config, AWS_* environment, shared credentials file).\n"
"          Needs an hcctl built with the S3 client (helper/lib/s3.c); without\n"
"          it the listing fails with \"Operation not supported\".\n"
"\n"
"    PREFIX may be empty (hypercache://NAME/ lists everything).  The objects\n"
"    are sorted by key (bytewise).  Listing nothing is an error.\n"
"\n"
"    With --sharded, the central controller's sharding: item i of the sorted\n"
"    list belongs to node i mod N, and only this node's items are preloaded,\n"
"    so N nodes that run the same command each cache a disjoint share and\n"
"    together all of it.  This node's index I and N come from the first of:\n"
"\n"
"      --node-index I          N from --node-count, else HC_NODE_COUNT\n"
"      SLURM_NODEID            N from --node-count, else SLURM_NNODES\n"
"      RANK                    N from --node-count, else WORLD_SIZE\n"
"      JOB_COMPLETION_INDEX    N from --node-count, else HC_NODE_COUNT\n"
"                              (a Kubernetes indexed Job)\n"
"\n"
"    An empty variable counts as unset.  A value that is not plain decimal,\n"
"    N = 0 or I >= N is refused naming its option or variable, e.g.\n"
"        hcctl: preload-batch: SLURM_NODEID 4 is not below SLURM_NNODES 4 (indexes count from 0)\n"
"    (with torchrun, RANK and WORLD_SIZE count processes: run it on every\n"
"    rank and each node caches the share of its ranks).\n"
"\n"
"    Before preloading, a sharded run prints on stdout\n"
"      PREFIX: L listed, node I of N (SOURCE, SOURCE): K to preload\n"
"    then the summary of 'hcctl preload'.\n"
"\n"
"OPTIONS\n"
"    --prefix URI_PREFIX\n"
"        What to list (required).\n"
"\n"
"    --sharded\n"
"        Preload only this node's share (above).\n"
"\n"
"    --node-count N, --node-index I\n"
"        The node count and this node's index (0..N-1); need --sharded.\n"
"\n"
"    --config FILE\n"
"        hypercached's configuration (default /etc/hypercache/hypercache.conf).\n"
"\n"
"    --list\n"
"        Print the URIs this node would preload, one per line (with --json:\n"
"        {...,\"uris\":[...]}), and do nothing else.\n"
"\n"
"    --pin, -P, --parallel P, --timeout SECONDS, --no-progress\n"
"        As for 'hcctl preload' (an explicit admission, pinned with --pin).\n"
"\n"
"    -j, --json\n"
"        Print one JSON object: the fields of 'hcctl preload --json' and\n"
"\n"
"          \"prefix\":\"...\",\"listed\":L\n"
"\n"
"        and with --sharded \"node_index\":I,\"node_count\":N,\n"
"        \"index_source\":\"...\",\"count_source\":\"...\".  objects counts\n"
"        this node's objects, listed all of them.\n"
"\n"
HCCTL_HELP_OPT_TEXT
"\n"
"    Needs write access to /dev/hypercache-ctl (CAP_SYS_ADMIN for --pin)\n"
"    and read access to the configuration.\n"
"\n"
"EXIT STATUS\n"
"    0  every object of this node's share is cached\n"
"    1  an object failed, the listing failed or listed nothing\n"
"    2  usage error, or bad --node-count/--node-index or variable\n"
"\n"
"EXAMPLES\n"
"    hcctl preload-batch --prefix s3://tokens/shard_ --sharded\n"
"    hcctl preload-batch --prefix hypercache://nfs/ds/shard_ --sharded \\\n"
"          --node-count 2 --node-index 0 --json\n"
"    JOB_COMPLETION_INDEX=3 HC_NODE_COUNT=8 hcctl preload-batch \\\n"
"          --prefix s3://tokens/ --sharded --list\n",
},
{ .name = NULL }
};
