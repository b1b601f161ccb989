// SPDX-License-Identifier: GPL-2.0
/*
 * hcctl - flush: SCR-style flush of a dataset (the cached objects under a
 * prefix) to its backend: marker, files through a window of writers,
 * summary, index, marker removed (Documentation/flush.md; the documents
 * and decisions are helper/lib/flushdoc.c's).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "hypercache.h"
#include "hypercache_format.h"
#include "hcctl.h"
#include "ctl.h"
#include "flushdoc.h"
#include "dataset.h"
#include "util.h"
#include "opt.h"

#define FL_PARALLEL_DEFAULT	4
#define FL_PARALLEL_MAX		64

struct fl_file {
	const char *uri;	/* the cached object's */
	const char *key;	/* relative to the prefix */
	uint64_t size;		/* as read */
	uint32_t crc;
	uint64_t generation;
	bool done;
	int err;
	char msg[DS_ERR_MAX];
};

struct fl_ctx {
	const char *prefix;
	char name[HCF_NAME_MAX + 1];
	struct ds_backend be;
	char *parent_key;	/* the parent's key in the backend (ends in '/') */
	char *ds_key;		/* the dataset's (ends in '/') */
	char *summary_key, *index_key, *marker_key;
	char lock_path[256], log_path[256], ixlock_path[256];
	unsigned int parallel;
	bool sync, json, progress, status;
	const char *cfg_path;
	/* the cached files */
	struct ds_obj *objs;
	size_t nobjs;
	struct fl_file *files;
	size_t nfiles;
	uint64_t total;
	/* the run */
	pthread_mutex_t lock;
	size_t next, ndone;
	uint64_t bytes_done;
	bool failed;
	bool bar, drawn;
	double start, last;
	unsigned long delay_ms;
};

struct fl_worker {
	pthread_t tid;
	struct fl_ctx *x;
	struct ds_client cl;
	struct ds_cache cache;
	bool open;
};

static enum hcf_step crash_step;

/* HC_FLUSH_CRASH_AFTER=k: die right after step k (tests). */
static void crash_point(enum hcf_step s)
{
	if (crash_step != HCF_STEP_START && s == crash_step) {
		fprintf(stderr, "hcctl: flush: HC_FLUSH_CRASH_AFTER=%d: crashing after step '%s'\n",
			(int)s, hcf_step_name(s));
		_exit(137);
	}
}

static char *cat(const char *a, const char *b)
{
	char *s;

	return asprintf(&s, "%s%s", a, b) < 0 ? NULL : s;
}

/* --- reading the backend's documents ---------------------------------- */

/* The parent's index (absent: empty).  Prints errors. */
static int read_index(struct fl_ctx *x, struct ds_client *cl,
		      struct hcf_index *ix)
{
	char err[DS_ERR_MAX] = "", *buf;
	size_t len;
	int ret;

	ret = ds_get_doc(cl, x->index_key, &buf, &len, err, sizeof(err));
	if (ret == -ENOENT)
		return hcf_index_decode("", 0, ix, NULL, 0);
	if (ret) {
		hcctl_errf(x->prefix, -ret, "cannot read the index %s%s%s",
			x->index_key, err[0] ? ": " : "", err);
		return ret;
	}
	ret = hcf_index_decode(buf, len, ix, err, sizeof(err));
	free(buf);
	if (ret)
		hcctl_errf(x->prefix, 0, "the index %s is damaged: %s", x->index_key, err);
	return ret;
}

static int write_index(struct fl_ctx *x, struct ds_client *cl,
		       const struct hcf_index *ix)
{
	char err[DS_ERR_MAX] = "", *text = hcf_index_encode(ix);
	int ret;

	if (!text)
		return -ENOMEM;
	ret = ds_put_doc(cl, x->index_key, text, strlen(text), err, sizeof(err));
	free(text);
	if (ret)
		hcctl_errf(x->prefix, -ret, "cannot write the index %s%s%s",
			x->index_key, err[0] ? ": " : "", err);
	return ret;
}

/* The dataset's summary, if present and valid (else *ok = false). */
static int read_summary(struct fl_ctx *x, struct ds_client *cl,
			struct hcf_summary *s, bool *ok)
{
	char err[DS_ERR_MAX] = "", *buf;
	size_t len;
	int ret;

	*ok = false;
	ret = ds_get_doc(cl, x->summary_key, &buf, &len, err, sizeof(err));
	if (ret == -ENOENT)
		return 0;
	if (ret) {
		hcctl_errf(x->prefix, -ret, "cannot read the summary %s%s%s",
			x->summary_key, err[0] ? ": " : "", err);
		return ret;
	}
	*ok = !hcf_summary_decode(buf, len, x->name, s, err, sizeof(err));
	free(buf);
	return 0;
}

/* --- the files to flush ----------------------------------------------- */

static int list_files(struct fl_ctx *x)
{
	size_t i, plen = strlen(x->prefix);

	ds_cache_list_free(x->objs, x->nobjs);
	free(x->files);
	x->files = NULL;
	x->nfiles = 0;
	x->total = 0;
	if (ds_cache_list("flush", x->prefix, &x->objs, &x->nobjs) < 0)
		return -1;
	x->files = calloc(x->nobjs ? x->nobjs : 1, sizeof(*x->files));
	if (!x->files) {
		hcctl_err(NULL, "out of memory", ENOMEM);
		return -1;
	}
	for (i = 0; i < x->nobjs; i++) {
		const struct ds_obj *o = &x->objs[i];
		const char *key = o->uri + plen;

		if (!strncmp(key, HCF_DIR, strlen(HCF_DIR)))
			continue;	/* our own documents */
		if (!hcf_key_ok(key)) {
			hcctl_errf(o->uri, 0, "not flushed: its key '%s' cannot be a file of the dataset",
				key);
			continue;
		}
		if (o->state != HC_OBJ_READY && o->state != HC_OBJ_DIRTY &&
		    o->state != HC_OBJ_SYNCING) {
			hcctl_errf(o->uri, 0, "not flushed: not valid yet (state %u)",
				o->state);
			continue;
		}
		x->files[x->nfiles].uri = o->uri;
		x->files[x->nfiles].key = key;
		x->files[x->nfiles].size = o->size;
		x->files[x->nfiles].generation = o->generation;
		x->total += o->size;
		x->nfiles++;
	}
	return 0;
}

/* The files as a summary (for comparing with the flushed one). */
static int cached_summary(struct fl_ctx *x, struct hcf_summary *s)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < x->nfiles; i++)
		if (hcf_summary_add(s, x->files[i].key, x->files[i].size, 0,
				    x->files[i].generation))
			return -ENOMEM;
	hcf_summary_sort(s);
	return 0;
}

/* Is there nothing to do?  1 yes, 0 no, -1 error (printed). */
static int already_flushed(struct fl_ctx *x, struct ds_client *cl)
{
	struct hcf_summary fl = { 0 }, ca = { 0 };
	struct hcf_index ix = { 0 };
	char err[DS_ERR_MAX] = "";
	bool ok;
	int marker, ret = -1;

	if (read_index(x, cl, &ix))
		return -1;
	marker = ds_exists(cl, x->marker_key, err, sizeof(err));
	if (marker < 0) {
		hcctl_errf(x->prefix, -marker, "cannot look for the marker %s%s%s",
			x->marker_key, err[0] ? ": " : "", err);
		goto out;
	}
	if (read_summary(x, cl, &fl, &ok))
		goto out;
	if (cached_summary(x, &ca)) {
		hcctl_err(NULL, "out of memory", ENOMEM);
		goto out;
	}
	ret = hcf_plan(&ix, x->name, marker, ok ? &fl : NULL, &ca) == HCF_PLAN_DONE;
out:
	hcf_summary_free(&fl);
	hcf_summary_free(&ca);
	hcf_index_free(&ix);
	return ret;
}

/* --- (b) the window of writers ---------------------------------------- */

struct copy_ctx {
	struct fl_ctx *x;
	struct fl_file *f;
	struct ds_writer *w;
	uLong crc;
	char *err;
	size_t errlen;
};

static void bar_draw(struct fl_ctx *x, double t)
{
	char done[32], total[32];
	double el = t - x->start;

	hcctl_fmt_size(done, sizeof(done), x->bytes_done);
	hcctl_fmt_size(total, sizeof(total), x->total);
	fprintf(stderr, "\r%zu/%zu files  %s / %s  %.1f MB/s\033[K", x->ndone,
		x->nfiles, done, total,
		el > 0 ? (double)x->bytes_done / el / 1e6 : 0.0);
	fflush(stderr);
	x->drawn = true;
	x->last = t;
}

static int copy_chunk(const void *buf, size_t len, void *arg)
{
	struct copy_ctx *c = arg;
	int ret;

	c->crc = crc32(c->crc, buf, (uInt)len);
	ret = ds_writer_write(c->w, buf, len, c->err, c->errlen);
	pthread_mutex_lock(&c->x->lock);
	c->x->bytes_done += len;
	if (c->x->bar && hc_now() - c->x->last >= 0.1)
		bar_draw(c->x, hc_now());
	pthread_mutex_unlock(&c->x->lock);
	return ret;
}

static int flush_file(struct fl_worker *w, struct fl_file *f)
{
	struct fl_ctx *x = w->x;
	struct copy_ctx c = { .x = x, .f = f, .err = f->msg,
			      .errlen = sizeof(f->msg) };
	uint64_t size, gen;
	char *key;
	int ret;

	key = cat(x->ds_key, f->key);
	if (!key)
		return -ENOMEM;
	c.crc = crc32(0L, Z_NULL, 0);
	ret = ds_writer_open(&w->cl, key, f->size, &c.w, f->msg, sizeof(f->msg));
	if (!ret) {
		ret = ds_cache_read(&w->cache, f->uri, 0, 0, &size, &gen,
				    copy_chunk, &c, f->msg, sizeof(f->msg));
		if (!ret && size != f->size) {
			snprintf(f->msg, sizeof(f->msg),
				 "changed while flushed (%" PRIu64 " bytes, listed %" PRIu64 ")",
				 size, f->size);
			ret = -ESTALE;
		}
		ret = ds_writer_close(c.w, !ret, f->msg, sizeof(f->msg)) ?: ret;
	}
	free(key);
	if (!ret) {
		f->crc = (uint32_t)c.crc;
		f->generation = gen;
	}
	if (x->delay_ms)
		usleep((useconds_t)x->delay_ms * 1000);
	return ret;
}

/* SCR's gate keeper: a failed writer makes the others stop early. */
static void *writer(void *arg)
{
	struct fl_worker *w = arg;
	struct fl_ctx *x = w->x;
	struct fl_file *f;

	for (;;) {
		pthread_mutex_lock(&x->lock);
		f = !x->failed && x->next < x->nfiles ? &x->files[x->next++] : NULL;
		pthread_mutex_unlock(&x->lock);
		if (!f)
			break;
		f->err = flush_file(w, f);
		pthread_mutex_lock(&x->lock);
		f->done = !f->err;
		x->ndone++;
		if (f->err)
			x->failed = true;
		if (x->bar)
			bar_draw(x, hc_now());
		pthread_mutex_unlock(&x->lock);
	}
	return NULL;
}

static int upload(struct fl_ctx *x)
{
	struct fl_worker *w;
	unsigned int nw, i, started = 0;
	char err[DS_ERR_MAX] = "";
	size_t k;
	int ret = -1;

	nw = x->parallel < x->nfiles ? x->parallel : (unsigned int)x->nfiles;
	if (!nw)
		return 0;
	w = calloc(nw, sizeof(*w));
	if (!w) {
		hcctl_err(NULL, "out of memory", ENOMEM);
		return -1;
	}
	for (i = 0; i < nw; i++) {
		w[i].x = x;
		w[i].cache.ctl = w[i].cache.dev = -1;
		ret = ds_client_open(&x->be, &w[i].cl, err, sizeof(err));
		if (ret) {
			hcctl_errf(x->prefix, -ret, "cannot reach the backend%s%s",
				err[0] ? ": " : "", err);
			goto out;
		}
		ret = ds_cache_open(&w[i].cache, err, sizeof(err));
		if (ret) {
			hcctl_err("flush", err, 0);
			goto out;
		}
		w[i].open = true;
	}
	for (i = 0; i < nw; i++) {
		if (pthread_create(&w[i].tid, NULL, writer, &w[i]))
			break;
		started++;
	}
	if (!started)
		writer(&w[0]);
	for (i = 0; i < started; i++)
		pthread_join(w[i].tid, NULL);
	if (x->drawn) {
		bar_draw(x, hc_now());
		fputc('\n', stderr);
	}
	ret = 0;
	for (k = 0; k < x->nfiles; k++) {
		if (!x->files[k].err)
			continue;
		hcctl_errf(x->files[k].uri, x->files[k].err, "not flushed: %s",
			x->files[k].msg);
		ret = -1;
	}
	if (!ret && x->ndone != x->nfiles)
		ret = -1;
out:
	for (i = 0; i < nw; i++) {
		ds_client_close(&w[i].cl);
		ds_cache_close(&w[i].cache);
	}
	free(w);
	return ret;
}

/* --- the flush -------------------------------------------------------- */

/* The parent's index is read, changed and written under this lock. */
static int lock_file(const char *path, int how)
{
	int fd;

	if (mkdir("/run/hypercache", 0755) < 0 && errno != EEXIST)
		return -errno;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	while (flock(fd, how) < 0) {
		if (errno == EINTR)
			continue;
		close(fd);
		return -errno;
	}
	return fd;
}

static int update_index(struct fl_ctx *x, struct ds_client *cl, bool publish,
			int64_t now, uint64_t bytes, uint64_t files)
{
	struct hcf_index ix = { 0 };
	int fd, ret;

	fd = lock_file(x->ixlock_path, LOCK_EX);
	if (fd < 0) {
		hcctl_err(x->ixlock_path, "cannot lock", -fd);
		return fd;
	}
	ret = read_index(x, cl, &ix);
	if (ret)
		goto out;
	if (publish) {
		ret = hcf_index_publish(&ix, x->name, now, bytes, files);
		if (!ret)
			ret = write_index(x, cl, &ix);
	} else if (hcf_index_unpublish(&ix, x->name)) {
		ret = write_index(x, cl, &ix);
	}
out:
	hcf_index_free(&ix);
	close(fd);
	return ret;
}

static int run_flush(struct fl_ctx *x)
{
	struct hcf_summary s = { 0 };
	struct ds_client cl;
	char err[DS_ERR_MAX] = "", host[256] = "", *doc;
	double t0 = hc_now(), secs;
	int64_t now;
	size_t i;
	int ret, rc = HC_EXIT_FAIL;

	ret = ds_client_open(&x->be, &cl, err, sizeof(err));
	if (ret) {
		hcctl_errf(x->prefix, -ret, "cannot reach the backend%s%s",
			err[0] ? ": " : "", err);
		return HC_EXIT_FAIL;
	}
	/* (a) the FLUSHING marker; a dataset flushed before is unpublished */
	gethostname(host, sizeof(host) - 1);
	doc = hcf_marker_encode(x->name, (int64_t)time(NULL), (long)getpid(), host);
	ret = doc ? ds_put_doc(&cl, x->marker_key, doc, strlen(doc), err,
			       sizeof(err)) : -ENOMEM;
	free(doc);
	if (ret) {
		hcctl_errf(x->prefix, -ret, "cannot write the marker %s%s%s",
			x->marker_key, err[0] ? ": " : "", err);
		goto out;
	}
	if (update_index(x, &cl, false, 0, 0, 0))
		goto out;
	ret = ds_delete(&cl, x->summary_key, err, sizeof(err));
	if (ret) {
		hcctl_errf(x->prefix, -ret, "cannot remove the old summary %s%s%s",
			x->summary_key, err[0] ? ": " : "", err);
		goto out;
	}
	crash_point(HCF_STEP_MARKED);

	/* (b) the files */
	x->bar = x->progress && !x->json && isatty(STDERR_FILENO);
	x->start = x->last = hc_now();
	if (upload(x))
		goto out;
	crash_point(HCF_STEP_UPLOADED);

	/* (c) the summary, after every file */
	now = (int64_t)time(NULL);
	snprintf(s.name, sizeof(s.name), "%s", x->name);
	s.complete = true;
	s.time = now;
	for (i = 0; i < x->nfiles; i++)
		if (hcf_summary_add(&s, x->files[i].key, x->files[i].size,
				    x->files[i].crc, x->files[i].generation)) {
			hcctl_err(NULL, "out of memory", ENOMEM);
			goto out;
		}
	hcf_summary_sort(&s);
	doc = hcf_summary_encode(&s);
	ret = doc ? ds_put_doc(&cl, x->summary_key, doc, strlen(doc), err,
			       sizeof(err)) : -ENOMEM;
	free(doc);
	if (ret) {
		hcctl_errf(x->prefix, -ret, "cannot write the summary %s%s%s",
			x->summary_key, err[0] ? ": " : "", err);
		goto out;
	}
	crash_point(HCF_STEP_SUMMARY);

	/* (d) the index names it current, older datasets kept */
	if (update_index(x, &cl, true, now, s.bytes, s.nfiles))
		goto out;
	crash_point(HCF_STEP_INDEXED);

	/* (e) the marker removed */
	ret = ds_delete(&cl, x->marker_key, err, sizeof(err));
	if (ret) {
		hcctl_errf(x->prefix, -ret, "cannot remove the marker %s%s%s",
			x->marker_key, err[0] ? ": " : "", err);
		goto out;
	}
	crash_point(HCF_STEP_DONE);

	secs = hc_now() - t0;
	if (x->json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "prefix", json_object_new_string(x->prefix));
		json_object_object_add(o, "dataset", json_object_new_string(x->name));
		json_object_object_add(o, "state", json_object_new_string("flushed"));
		json_object_object_add(o, "already", json_object_new_boolean(false));
		json_object_object_add(o, "files", json_object_new_uint64(s.nfiles));
		json_object_object_add(o, "bytes", json_object_new_uint64(s.bytes));
		json_object_object_add(o, "seconds", json_object_new_double(secs));
		json_object_object_add(o, "mb_per_s", json_object_new_double(
			secs > 0 ? (double)s.bytes / secs / 1e6 : 0.0));
		hcctl_json_print(o, false);
		json_object_put(o);
	} else {
		char size[32];

		hcctl_fmt_size(size, sizeof(size), s.bytes);
		printf("flushed %s: %zu file%s, %s (%" PRIu64 " bytes) in %.2f s (%.1f MB/s); current dataset of its parent\n",
		       x->prefix, s.nfiles, s.nfiles == 1 ? "" : "s", size,
		       s.bytes, secs, secs > 0 ? (double)s.bytes / secs / 1e6 : 0.0);
	}
	fflush(stdout);
	rc = HC_EXIT_OK;
out:
	hcf_summary_free(&s);
	ds_client_close(&cl);
	return rc;
}

static void print_already(struct fl_ctx *x)
{
	if (x->json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "prefix", json_object_new_string(x->prefix));
		json_object_object_add(o, "dataset", json_object_new_string(x->name));
		json_object_object_add(o, "state", json_object_new_string("flushed"));
		json_object_object_add(o, "already", json_object_new_boolean(true));
		json_object_object_add(o, "files", json_object_new_uint64(x->nfiles));
		json_object_object_add(o, "bytes", json_object_new_uint64(x->total));
		hcctl_json_print(o, false);
		json_object_put(o);
	} else {
		printf("%s: already flushed (%zu files, %" PRIu64 " bytes)\n",
		       x->prefix, x->nfiles, x->total);
	}
	fflush(stdout);
}

/* Under the dataset's lock: check again, then flush. */
static int locked_flush(struct fl_ctx *x)
{
	struct ds_client cl;
	char err[DS_ERR_MAX] = "";
	int ret;

	if (list_files(x) < 0)
		return HC_EXIT_FAIL;
	if (!x->nfiles) {
		hcctl_err(x->prefix, "no cached objects under this prefix", 0);
		return HC_EXIT_FAIL;
	}
	ret = ds_client_open(&x->be, &cl, err, sizeof(err));
	if (ret) {
		hcctl_errf(x->prefix, -ret, "cannot reach the backend%s%s",
			err[0] ? ": " : "", err);
		return HC_EXIT_FAIL;
	}
	ret = already_flushed(x, &cl);
	ds_client_close(&cl);
	if (ret < 0)
		return HC_EXIT_FAIL;
	if (ret) {
		print_already(x);
		return HC_EXIT_OK;
	}
	return run_flush(x);
}

/* --- --status --------------------------------------------------------- */

static int do_status(struct fl_ctx *x)
{
	struct hcf_index ix = { 0 };
	const struct hcf_entry *e;
	struct ds_client cl;
	enum hcf_state st;
	char err[DS_ERR_MAX] = "";
	bool locked = false, current;
	int marker, fd, ret;

	ret = ds_client_open(&x->be, &cl, err, sizeof(err));
	if (ret) {
		hcctl_errf(x->prefix, -ret, "cannot reach the backend%s%s",
			err[0] ? ": " : "", err);
		return HC_EXIT_FAIL;
	}
	if (read_index(x, &cl, &ix)) {
		ds_client_close(&cl);
		return HC_EXIT_FAIL;
	}
	marker = ds_exists(&cl, x->marker_key, err, sizeof(err));
	ds_client_close(&cl);
	if (marker < 0) {
		hcctl_errf(x->prefix, -marker, "cannot look for the marker%s%s",
			err[0] ? ": " : "", err);
		hcf_index_free(&ix);
		return HC_EXIT_FAIL;
	}
	fd = open(x->lock_path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		locked = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
		close(fd);
	}
	st = hcf_state(&ix, x->name, marker, locked);
	e = hcf_index_find(&ix, x->name);
	current = !strcmp(ix.current, x->name);
	if (x->json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "prefix", json_object_new_string(x->prefix));
		json_object_object_add(o, "dataset", json_object_new_string(x->name));
		json_object_object_add(o, "state", json_object_new_string(hcf_state_name(st)));
		json_object_object_add(o, "marker", json_object_new_boolean(marker));
		json_object_object_add(o, "locked", json_object_new_boolean(locked));
		json_object_object_add(o, "current", json_object_new_boolean(current));
		json_object_object_add(o, "complete", json_object_new_boolean(e && e->complete));
		json_object_object_add(o, "files", json_object_new_uint64(e ? e->files : 0));
		json_object_object_add(o, "bytes", json_object_new_uint64(e ? e->bytes : 0));
		json_object_object_add(o, "flushed_at", json_object_new_int64(e ? e->flushed_at : 0));
		json_object_object_add(o, "log", json_object_new_string(x->log_path));
		hcctl_json_print(o, false);
		json_object_put(o);
	} else {
		printf("%s: %s", x->prefix, hcf_state_name(st));
		if (st == HCF_FLUSHED)
			printf(" (%s), %" PRIu64 " files, %" PRIu64 " bytes",
			       current ? "current" : "not current", e->files, e->bytes);
		else if (st == HCF_INTERRUPTED)
			printf(" (the FLUSHING marker is left and no flush runs: run 'hcctl flush %s' again)",
			       x->prefix);
		else if (st == HCF_FLUSHING)
			printf(" (log: %s)", x->log_path);
		putchar('\n');
	}
	hcf_index_free(&ix);
	return HC_EXIT_OK;
}

/* --- the command ------------------------------------------------------ */

static int setup(struct fl_ctx *x)
{
	char err[256], *m;
	size_t plen, klen = 0;
	int ret;

	if (hcf_split(x->prefix, &plen, x->name, err, sizeof(err))) {
		hcctl_errf(x->prefix, 0, "%s", err);
		return HC_EXIT_USAGE;
	}
	if (ds_backend_open(x->prefix, x->cfg_path, &x->be) < 0)
		return HC_EXIT_FAIL;
	klen = strlen(x->be.key);
	if (klen < strlen(x->name) + 1) {
		hcctl_errf(x->prefix, 0, "the dataset needs a parent in the backend (BUCKET/PARENT/NAME/)");
		return HC_EXIT_USAGE;
	}
	x->ds_key = strdup(x->be.key);
	x->parent_key = strndup(x->be.key, klen - strlen(x->name) - 1);
	if (!x->ds_key || !x->parent_key)
		goto nomem;
	x->summary_key = cat(x->ds_key, HCF_SUMMARY_KEY);
	x->index_key = cat(x->parent_key, HCF_INDEX_KEY);
	x->marker_key = cat(x->parent_key, HCF_MARKER_DIR);
	if (!x->summary_key || !x->index_key || !x->marker_key)
		goto nomem;
	m = cat(x->marker_key, x->name);
	if (!m)
		goto nomem;
	free(x->marker_key);
	x->marker_key = m;
	ret = ds_run_path(x->prefix, "lock", x->lock_path, sizeof(x->lock_path));
	if (!ret)
		ret = ds_run_path(x->prefix, "log", x->log_path, sizeof(x->log_path));
	if (!ret) {
		char *pp = strndup(x->prefix, plen);

		ret = pp ? ds_run_path(pp, "index.lock", x->ixlock_path,
				       sizeof(x->ixlock_path)) : -ENOMEM;
		free(pp);
	}
	if (ret) {
		hcctl_err(NULL, "cannot hash the prefix", -ret);
		return HC_EXIT_FAIL;
	}
	return -1;
nomem:
	hcctl_err(NULL, "out of memory", ENOMEM);
	return HC_EXIT_FAIL;
}

static void ctx_free(struct fl_ctx *x)
{
	ds_cache_list_free(x->objs, x->nobjs);
	free(x->files);
	free(x->ds_key);
	free(x->parent_key);
	free(x->summary_key);
	free(x->index_key);
	free(x->marker_key);
	ds_backend_close(&x->be);
	pthread_mutex_destroy(&x->lock);
}

int hcctl_cmd_flush(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	struct fl_ctx x = { .parallel = FL_PARALLEL_DEFAULT, .progress = true,
			    .cfg_path = HC_CONFIG_PATH };
	const struct hcctl_opt opts[] = {
		HCCTL_FLAG("sync", 0, &x.sync),
		HCCTL_UINT("parallel", 'P', &x.parallel, 1, FL_PARALLEL_MAX),
		{ .name = "width", .key = 'w', .type = HCCTL_OPT_UINT,
		  .dst = &x.parallel, .min = 1, .max = FL_PARALLEL_MAX,
		  .deprecated_for = "parallel" },
		HCCTL_STRING("config", 0, &x.cfg_path, "FILE"),
		HCCTL_FLAG("status", 0, &x.status),
		HCCTL_NOFLAG("no-progress", 0, &x.progress),
		HCCTL_OPT_END
	};
	const char *env;
	pid_t pid;
	int fd = -1, rc, optind;

	pthread_mutex_init(&x.lock, NULL);
	optind = hcctl_opt_parse(cmd, argc, argv, opts, &rc);
	if (optind < 0)
		goto out;
	x.json = hcctl_opt_json;
	if (optind >= argc) {
		rc = hcctl_usage_error(cmd, "missing PREFIX operand");
		goto out;
	}
	if (optind + 1 < argc) {
		rc = hcctl_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
		goto out;
	}
	x.prefix = argv[optind];
	if (!x.prefix[0]) {
		rc = hcctl_usage_error(cmd, "empty PREFIX");
		goto out;
	}
	if (x.status && x.sync) {
		rc = hcctl_usage_error(cmd, "--status makes no sense with --sync");
		goto out;
	}
	rc = setup(&x);
	if (rc >= 0)
		goto out;
	if (x.status) {
		rc = do_status(&x);
		goto out;
	}
	crash_step = hcf_crash_after(getenv("HC_FLUSH_CRASH_AFTER"));
	env = getenv("HC_FLUSH_DELAY_MS");
	if (env)
		x.delay_ms = strtoul(env, NULL, 10);

	/* Nothing to do: say so at once, without a lock. */
	if (list_files(&x) < 0) {
		rc = HC_EXIT_FAIL;
		goto out;
	}
	if (!x.nfiles) {
		hcctl_err(x.prefix, "no cached objects under this prefix", 0);
		rc = HC_EXIT_FAIL;
		goto out;
	}
	{
		struct ds_client cl;
		char err[DS_ERR_MAX] = "";
		int r = ds_client_open(&x.be, &cl, err, sizeof(err));

		if (r) {
			hcctl_errf(x.prefix, -r, "cannot reach the backend%s%s",
				err[0] ? ": " : "", err);
			rc = HC_EXIT_FAIL;
			goto out;
		}
		r = already_flushed(&x, &cl);
		ds_client_close(&cl);
		if (r < 0) {
			rc = HC_EXIT_FAIL;
			goto out;
		}
		if (r) {
			print_already(&x);
			rc = HC_EXIT_OK;
			goto out;
		}
	}

	fd = lock_file(x.lock_path, LOCK_EX | LOCK_NB);
	if (fd == -EWOULDBLOCK) {
		if (!x.sync) {
			printf("%s: a flush of this dataset is running (log: %s); see 'hcctl flush --status %s'\n",
			       x.prefix, x.log_path, x.prefix);
			rc = HC_EXIT_OK;
			goto out;
		}
		/* SCR: wait for the asynchronous flush, then check again */
		if (!x.json)
			fprintf(stderr, "hcctl: %s: waiting for the running flush of this dataset\n",
				x.prefix);
		fd = lock_file(x.lock_path, LOCK_EX);
	}
	if (fd < 0) {
		hcctl_err(x.lock_path, "cannot lock", -fd);
		rc = HC_EXIT_FAIL;
		goto out;
	}
	if (x.sync) {
		rc = locked_flush(&x);
		goto out;
	}

	/* asynchronous: the child keeps the lock (the same open file) */
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		hcctl_err(NULL, "cannot fork", errno);
		rc = HC_EXIT_FAIL;
		goto out;
	}
	if (pid > 0) {
		if (x.json) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "prefix", json_object_new_string(x.prefix));
			json_object_object_add(o, "dataset", json_object_new_string(x.name));
			json_object_object_add(o, "state", json_object_new_string("flushing"));
			json_object_object_add(o, "pid", json_object_new_int64(pid));
			json_object_object_add(o, "log", json_object_new_string(x.log_path));
			hcctl_json_print(o, false);
			json_object_put(o);
		} else {
			printf("%s: flushing in the background (pid %ld, log %s); see 'hcctl flush --status %s'\n",
			       x.prefix, (long)pid, x.log_path, x.prefix);
		}
		rc = HC_EXIT_OK;
		goto out;
	}
	setsid();
	{
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);
		int log = open(x.log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (null >= 0)
			dup2(null, STDIN_FILENO);
		if (log >= 0) {
			dup2(log, STDOUT_FILENO);
			dup2(log, STDERR_FILENO);
		}
	}
	x.progress = false;
	rc = locked_flush(&x);
	fflush(stdout);
	fflush(stderr);
	_exit(rc);
out:
	if (fd >= 0)
		close(fd);
	ctx_free(&x);
	return rc;
}

/* --- the command table (main.c lists the groups) ---------------------- */

const struct hcctl_cmd hcctl_flush_cmds[] = {
{
	.name = "flush",
	.summary = "flush a dataset (the cached objects under a prefix) to its backend",
	.synopsis = "[--sync] [-P|--parallel P] [--config FILE] [--no-progress] [--json] PREFIX\n"
"    hcctl flush --status [--config FILE] [--json] PREFIX",
	.handler = hcctl_cmd_flush,
	.help =
"DESCRIPTION\n"
"    Write the dataset PREFIX to its backend the way SCR flushes a\n"
"    checkpoint.  PREFIX is a URI ending in '/', PARENT/NAME/, e.g.\n"
"    s3://bkt/ckpt/run1/step-100/ (parent s3://bkt/ckpt/run1/, name\n"
"    step-100).  Its files are the cached objects whose URI starts with\n"
"    PREFIX (HC_CMD_OBJ_GET dump); each is read through the cache\n"
"    (HC_IOC_LOCATE with HC_LOCATE_F_HOLD, O_DIRECT reads of\n"
"    /dev/hypercache0) and written to the same key in the backend that\n"
"    hypercached's configuration gives the URI.  The steps:\n"
"\n"
"      (a) write the marker PARENT/.hypercache/flushing/NAME (a dataset\n"
"          flushed before is marked incomplete in the index first);\n"
"      (b) upload every file through a window of at most P writers, each\n"
"          with its own connection, computing its size and CRC32; a\n"
"          failed writer makes the others stop early;\n"
"      (c) write the summary PREFIX.hypercache/summary.json (the files,\n"
"          their sizes and CRC32s), after every file;\n"
"      (d) update PARENT/.hypercache/index.json: NAME complete and\n"
"          \"current\", the older datasets kept;\n"
"      (e) remove the marker.\n"
"\n"
"    A crash at any step leaves the old current dataset or the new one\n"
"    current, never one without its summary; running 'hcctl flush' again\n"
"    finishes it (a marker left behind means: redo).  See\n"
"    Documentation/flush.md.\n"
"\n"
"    A dataset that the index lists complete with the same files (keys,\n"
"    sizes and cache generations) is not flushed again: \"already\n"
"    flushed\", exit 0.  One flush of a dataset runs at a time: it holds\n"
"    flock(2) on /run/hypercache/flush-HASH.lock.\n"
"\n"
"    Without --sync the flush runs in the background: hcctl checks its\n"
"    arguments, takes the lock, forks, prints the child's pid and its log\n"
"    (/run/hypercache/flush-HASH.log) and exits 0; if a flush of the\n"
"    dataset is already running it says so and exits 0.  With --sync it\n"
"    runs in the foreground; if an asynchronous flush of the dataset is\n"
"    running it waits for it, then checks whether the dataset still needs\n"
"    flushing.  On success prints\n"
"\n"
"      flushed PREFIX: N files, SIZE (B bytes) in S s (R MB/s); ...\n"
"\n"
"    and draws a progress bar on stderr when it is a terminal.\n"
"\n"
"OPTIONS\n"
"    --sync\n"
"        Flush in the foreground (above).\n"
"\n"
"    -P, --parallel P\n"
"        At most P files are uploaded at once (1..64, default 4): the same\n"
"        option as preload's.  -w, --width W is the deprecated spelling,\n"
"        still accepted (with a note on stderr).\n"
"\n"
"    --config FILE\n"
"        hypercached's configuration (default /etc/hypercache/hypercache.conf).\n"
"\n"
"    --status\n"
"        Report the dataset's state and exit 0:\n"
"          not flushed   the index does not list it complete;\n"
"          flushing      the marker is present and a flush holds the lock;\n"
"          interrupted   the marker is present and no flush runs (run\n"
"                        'hcctl flush PREFIX' again);\n"
"          flushed       complete in the index (current or not), with its\n"
"                        file count and bytes.\n"
"\n"
"    --no-progress\n"
"        No progress bar.\n"
"\n"
"    -j, --json\n"
"        Print one JSON object: {\"prefix\",\"dataset\",\"state\",\"already\",\n"
"        \"files\",\"bytes\",\"seconds\",\"mb_per_s\"}; with --status\n"
"        {\"prefix\",\"dataset\",\"state\",\"marker\",\"locked\",\"current\",\n"
"        \"complete\",\"files\",\"bytes\",\"flushed_at\",\"log\"}.\n"
"\n"
HCCTL_HELP_OPT_TEXT
"\n"
"ENVIRONMENT\n"
"    HC_FLUSH_CRASH_AFTER=k  (tests) _exit(137) right after step k (1..5 =\n"
"                            a..e).\n"
"    HC_FLUSH_DELAY_MS=N     (tests) sleep N ms after each file.\n"
"\n"
"    Needs read access to /dev/hypercache-ctl and /dev/hypercache0, write\n"
"    access to /run/hypercache, and the backend's credentials (as\n"
"    hypercached finds them).\n"
"\n"
HCCTL_EXIT_STATUS_TEXT
"\n"
"EXAMPLES\n"
"    hcctl flush --sync --parallel 8 s3://bkt/ckpt/run1/step-100/\n"
"    hcctl flush --status s3://bkt/ckpt/run1/step-100/\n",
},
{ .name = NULL }
};
