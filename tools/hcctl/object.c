// SPDX-License-Identifier: GPL-2.0
/*
 * hcctl - object commands: put, get, locate (libhypercache: its writer,
 * reader and LOCATE, the one implementation of these paths) and evict,
 * pin, unpin (netlink).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "hypercache.h"
#include "hypercache/hypercache.h"
#include "hypercache_format.h"
#include "hypercache_netlink.h"
#include "hcctl.h"
#include "ctl.h"
#include "nl.h"
#include "util.h"
#include "opt.h"
#include "config.h"
#include "resolve.h"
#include "scrape.h"

#define IO_BUF_SIZE	(4U << 20)	/* bytes per O_DIRECT transfer */

/* --- names ----------------------------------------------------------------- */

const char *hcctl_obj_state_name(uint32_t state, char *buf, size_t len)
{
	switch (state) {
	case HC_OBJ_INGESTING:
		return "ingesting";
	case HC_OBJ_READY:
		return "ready";
	case HC_OBJ_STAGED:
		return "staged";
	case HC_OBJ_DIRTY:
		return "dirty";
	case HC_OBJ_SYNCING:
		return "syncing";
	}
	snprintf(buf, len, "state-%u", state);
	return buf;
}

/* "pinned,data-crc", "-" for none, unknown bits as "0xN". */
void hcctl_obj_flags_str(uint32_t flags, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	if (flags & HC_OBJ_F_PINNED)
		n += (size_t)snprintf(buf + n, len - n, "pinned");
	if ((flags & HC_OBJ_F_DATA_CRC) && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%sdata-crc", n ? "," : "");
	if ((flags & HC_OBJ_F_BAD) && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%sbad", n ? "," : "");
	if ((flags & ~(HC_OBJ_F_ALL | HC_OBJ_F_BAD)) && n < len)
		n += (size_t)snprintf(buf + n, len - n, "%s0x%x", n ? "," : "",
				      flags & ~(HC_OBJ_F_ALL | HC_OBJ_F_BAD));
	if (!n)
		snprintf(buf, len, "-");
}

static const char *locate_status_name(uint32_t status, char *buf, size_t len)
{
	switch (status) {
	case HC_LOCATE_HIT:
		return "hit";
	case HC_LOCATE_MISS:
		return "miss";
	case HC_LOCATE_PENDING:
		return "pending";
	case HC_LOCATE_NOT_ADMITTED:
		return "not-admitted";
	case HC_LOCATE_BAD:
		return "bad";
	}
	snprintf(buf, len, "status-%u", status);
	return buf;
}

json_object *hcctl_extents_json(const struct hc_extent *ext, uint32_t n)
{
	json_object *arr = json_object_new_array();
	uint32_t i;

	for (i = 0; i < n; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "offset",
				       json_object_new_uint64(ext[i].offset));
		json_object_object_add(e, "length",
				       json_object_new_uint64(ext[i].length));
		json_object_array_add(arr, e);
	}
	return arr;
}

/* The library's extents, as hcctl_extents_json() prints the kernel's. */
static json_object *lib_extents_json(const struct hc_lib_extent *ext,
				     uint32_t n)
{
	json_object *arr = json_object_new_array();
	uint32_t i;

	for (i = 0; i < n; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "offset",
				       json_object_new_uint64(ext[i].offset));
		json_object_object_add(e, "length",
				       json_object_new_uint64(ext[i].length));
		json_object_array_add(arr, e);
	}
	return arr;
}

/* --- progress -------------------------------------------------------------- */

struct progress {
	bool on;
	bool drawn;
	uint64_t drawn_done;	/* p->done when last drawn */
	uint64_t total;
	uint64_t done;
	double start;
	double last;
};

static void progress_init(struct progress *p, uint64_t total, bool enabled)
{
	memset(p, 0, sizeof(*p));
	p->on = enabled && isatty(STDERR_FILENO);
	p->total = total;
	p->start = p->last = hc_now();
}

static void progress_draw(struct progress *p, double t)
{
	char done[32], total[32];
	double el = t - p->start;
	double rate = el > 0 ? (double)p->done / el / (1024.0 * 1024.0) : 0.0;
	unsigned int pct = p->total ? (unsigned int)(p->done * 100 / p->total) : 100;

	hcctl_fmt_size(done, sizeof(done), p->done);
	hcctl_fmt_size(total, sizeof(total), p->total);
	fprintf(stderr, "\r%s / %s  %3u%%  %.1f MiB/s\033[K", done, total, pct,
		rate);
	fflush(stderr);
	p->drawn = true;
	p->drawn_done = p->done;
	p->last = t;
}

static void progress_add(struct progress *p, uint64_t n)
{
	double t;

	p->done += n;
	if (!p->on)
		return;
	t = hc_now();
	if (t - p->last >= 0.1 || p->done == p->total)
		progress_draw(p, t);
}

/* Finish the bar: the final figures and a newline (or just end the line). */
static void progress_end(struct progress *p, bool ok)
{
	if (!p->on)
		return;
	if (ok && !(p->drawn && p->drawn_done == p->done))
		progress_draw(p, hc_now());
	if (p->drawn)
		fputc('\n', stderr);
	p->on = false;
}

/* --- helpers --------------------------------------------------------------- */

/*
 * A libhypercache context on HC_CTL_PATH and HC_DATA_PATH, or NULL after
 * printing why: the control device's failures as every ioctl command says
 * them (hcctl_ctl_open_report()), the others with the library's message.
 */
static struct hc_ctx *lib_open(const char *object, bool write)
{
	struct hc_ctx *ctx;
	char err[512];
	int ret;

	ret = hc_ctx_open(&ctx, HC_CTL_PATH, HC_DATA_PATH, err, sizeof(err));
	if (ret == 0)
		return ctx;
	if (!strncmp(err, HC_CTL_PATH ":", strlen(HC_CTL_PATH ":")))
		hcctl_ctl_open_report(object, write, -ret);
	else
		fprintf(stderr, "hcctl: %s\n", err);
	return NULL;
}

/* A page-aligned buffer of IO_BUF_SIZE (O_DIRECT straight into it). */
static void *io_buf(void)
{
	void *buf;
	int e = posix_memalign(&buf, 4096, IO_BUF_SIZE);

	if (e) {
		hcctl_err(NULL, "cannot allocate the I/O buffer", e);
		return NULL;
	}
	return buf;
}

/*
 * The one URI operand at @argv[@first] of @argc: -1 and *@uri, or the exit
 * status of a usage error (hcctl_uri_arg()).
 */
static int one_uri(const struct hcctl_cmd *cmd, int argc, char **argv,
		   int first, struct hcctl_uri *uri)
{
	if (first >= argc)
		return hcctl_usage_error(cmd, "missing URI operand");
	if (first + 1 < argc)
		return hcctl_usage_error(cmd, "unexpected argument '%s'",
					 argv[first + 1]);
	return hcctl_uri_arg(cmd, argv[first], uri);
}

/* Options of commands that take one URI and no options of their own. */
static int parse_uri_only(const struct hcctl_cmd *cmd, int argc, char **argv,
			  struct hcctl_uri *uri)
{
	int rc, optind = hcctl_opt_parse(cmd, argc, argv, NULL, &rc);

	if (optind < 0)
		return rc;
	return one_uri(cmd, argc, argv, optind, uri);
}

/* --- put ------------------------------------------------------------------- */

struct put_args {
	const char *file;
	struct hcctl_uri uri;
	unsigned int create_flags;	/* HC_CREATE_* */
	unsigned int commit_flags;	/* HC_COMMIT_* */
	bool crc;			/* --crc: record the CRC-32C */
	bool progress;
	bool json;
	bool sync;		/* wait until the object is clean */
	unsigned long timeout;	/* seconds for --sync, 0 = no limit */
};

/*
 * Wait until generation @gen of the URI is clean (READY): hc_ctx_wait_clean().
 * Returns 0, or -1 after printing why (timed out, replaced, gone).
 */
static int put_wait_synced(struct hc_ctx *ctx, const struct put_args *a,
			   uint64_t gen)
{
	int ret;

	ret = hc_ctx_wait_clean(ctx, a->uri.bytes, a->uri.len, gen,
				(uint32_t)(a->timeout * 1000));
	switch (ret) {
	case 0:
		return 0;
	case -ENOENT:
		hcctl_errf(a->uri.shown, 0, "gone before it was uploaded");
		break;
	case -ESTALE:
		hcctl_errf(a->uri.shown, 0,
			   "replaced before generation %" PRIu64 " was uploaded",
			   gen);
		break;
	case -ETIMEDOUT:
		hcctl_errf(a->uri.shown, ETIMEDOUT,
			   "not uploaded after %lu s (it stays committed and is uploaded later)",
			   a->timeout);
		break;
	default:
		hcctl_ctl_report(a->uri.shown, "LOCATE", -ret);
	}
	return -1;
}

/*
 * A put's copy: the source's IO_BUF_SIZE pieces, claimed in order by
 * PUT_THREADS workers, each of which reads its piece and hands it to the
 * writer (hc_writer_pwrite(): O_DIRECT, then the piece's CRC-32C, folded in
 * order by the writer).  So pieces are written on several members at once,
 * and one worker's checksum runs while another's write is in flight; a
 * single loop left every member but one idle, and the CPU idle during each
 * write.  Measured against md raid0 (256 MiB, 3 members): benchmarks.md,
 * "Pieces in flight, the next tensor read ahead, images written out".
 */
#define PUT_THREADS	4

struct put_copy {
	const struct put_args *a;
	struct hc_writer *w;
	int in;
	uint64_t size;
	pthread_mutex_t lock;	/* the fields below */
	uint64_t next;		/* the next piece to claim */
	bool failed;		/* a worker failed (and said why): stop */
	struct progress prog;
};

/* Say once why the copy failed; the other workers stop at their next piece. */
static void put_copy_fail(struct put_copy *pc)
{
	pc->failed = true;
	progress_end(&pc->prog, false);
}

static void *put_copy_worker(void *arg)
{
	struct put_copy *pc = arg;
	void *buf = io_buf();
	uint64_t off;
	size_t n;
	ssize_t wr;
	struct stat sb;
	int ret;

	pthread_mutex_lock(&pc->lock);
	if (!buf)
		put_copy_fail(pc);	/* io_buf() said why */
	while (!pc->failed && pc->next < pc->size) {
		off = pc->next;
		n = pc->size - off < IO_BUF_SIZE ? (size_t)(pc->size - off) :
						   IO_BUF_SIZE;
		pc->next += n;
		pthread_mutex_unlock(&pc->lock);
		ret = hc_pread_full(pc->in, buf, n, off);
		if (!ret) {
			wr = hc_writer_pwrite(pc->w, buf, n, off);
			ret = wr == (ssize_t)n ? 0 : 1;
		}
		pthread_mutex_lock(&pc->lock);
		if (!ret) {
			progress_add(&pc->prog, n);
			continue;
		}
		if (pc->failed)
			break;		/* another worker said why already */
		put_copy_fail(pc);
		if (ret > 0)
			fprintf(stderr, "hcctl: %s\n", hc_writer_error(pc->w));
		else if (ret == -EIO && !fstat(pc->in, &sb) &&
			 (uint64_t)sb.st_size < off + n)
			hcctl_errf(pc->a->file, 0,
				"file shrank while being copied (%" PRIu64
				" bytes now, %" PRIu64 " at the start)",
				(uint64_t)sb.st_size, pc->size);
		else
			hcctl_err(pc->a->file, "read error", -ret);
	}
	pthread_mutex_unlock(&pc->lock);
	free(buf);
	return NULL;
}

/*
 * Copy @size bytes of @in into the writer (see struct put_copy); with
 * --crc the writer's CRC-32C is complete when this returns, so
 * hc_writer_crc32c() then costs nothing.  Return: 0 or -1 (said why).
 */
static int put_copy(const struct put_args *a, int in, struct hc_writer *w,
		    uint64_t size)
{
	struct put_copy pc = { .a = a, .w = w, .in = in, .size = size };
	pthread_t tid[PUT_THREADS];
	unsigned int i, nr = 0, want;
	char probe;
	int e;

	want = (unsigned int)((size + IO_BUF_SIZE - 1) / IO_BUF_SIZE);
	if (want > PUT_THREADS)
		want = PUT_THREADS;
	pthread_mutex_init(&pc.lock, NULL);
	progress_init(&pc.prog, size, a->progress);
	/* the first worker is this thread; the others its helpers */
	for (i = 1; i < want; i++) {
		e = pthread_create(&tid[nr], NULL, put_copy_worker, &pc);
		if (e)
			break;	/* fewer workers: slower, not wrong */
		nr++;
	}
	put_copy_worker(&pc);
	for (i = 0; i < nr; i++)
		pthread_join(tid[i], NULL);
	pthread_mutex_destroy(&pc.lock);
	if (pc.failed)
		return -1;
	progress_end(&pc.prog, true);
	e = pread(in, &probe, 1, (off_t)size);
	if (e > 0) {
		hcctl_errf(a->file, 0, "file grew while being copied (beyond %" PRIu64
			" bytes)", size);
		return -1;
	}
	return 0;
}

/* The writer's extents, malloc'd (for lib_extents_json()). */
static struct hc_lib_extent *put_extents(struct hc_writer *w, uint32_t *nr)
{
	struct hc_lib_extent *ext;
	uint32_t n = hc_writer_extents(w, NULL, 0);

	ext = calloc(n ? n : 1, sizeof(*ext));
	if (!ext) {
		hcctl_err(NULL, "out of memory", ENOMEM);
		return NULL;
	}
	*nr = hc_writer_extents(w, ext, n);
	return ext;
}

static int put_run(const struct hcctl_cmd *cmd, struct put_args *a)
{
	struct hc_lib_extent *ext = NULL;
	struct hc_writer *w = NULL;
	struct hc_ctx *ctx = NULL;
	struct stat sb;
	char err[512];
	uint64_t gen = 0;
	uint32_t crc = 0, next = 0;
	double t_stage, t_commit = 0, t_synced = 0;
	int in, ret, rc = HC_EXIT_FAIL;

	in = open(a->file, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		hcctl_err(a->file, "cannot open", errno);
		return HC_EXIT_FAIL;
	}
	if (fstat(in, &sb) < 0) {
		hcctl_err(a->file, "cannot stat", errno);
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		hcctl_err(a->file, "not a regular file", 0);
		goto out;
	}
	(void)posix_fadvise(in, 0, 0, POSIX_FADV_SEQUENTIAL);

	ctx = lib_open(cmd->name, true);
	if (!ctx)
		goto out;

	t_stage = hc_now();
	ret = hc_writer_create(ctx, a->uri.bytes, a->uri.len, (uint64_t)sb.st_size,
			       a->create_flags, &w, err, sizeof(err));
	if (ret == -EBADF) {
		/* the library opened the control device read-only */
		hcctl_ctl_open_report(cmd->name, true, EACCES);
		goto out;
	}
	if (ret < 0) {
		fprintf(stderr, "hcctl: %s\n", err);
		goto out;
	}
	if (put_copy(a, in, w, (uint64_t)sb.st_size) < 0)
		goto out;
	/* the writer's own CRC, which the commit records: computed once */
	if (a->crc && hc_writer_crc32c(w, &crc) < 0) {
		fprintf(stderr, "hcctl: %s\n", hc_writer_error(w));
		goto out;
	}
	ext = put_extents(w, &next);
	if (!ext)
		goto out;
	ret = hc_writer_commit(w, a->commit_flags, &gen);
	if (ret < 0) {
		fprintf(stderr, "hcctl: %s\n", hc_writer_error(w));
		goto out;
	}
	w = NULL;		/* freed by the commit */
	t_commit = hc_now();
	if (a->sync) {
		if (put_wait_synced(ctx, a, gen) < 0)
			goto out;
		t_synced = hc_now();
	}

	if (a->json) {
		json_object *o = json_object_new_object();
		char sbuf[32];

		json_object_object_add(o, "uri", json_object_new_string(a->uri.shown));
		json_object_object_add(o, "size",
				       json_object_new_uint64((uint64_t)sb.st_size));
		json_object_object_add(o, "generation",
				       json_object_new_uint64(gen));
		json_object_object_add(o, "state", json_object_new_string(
			hcctl_obj_state_name((a->commit_flags & HC_COMMIT_CLEAN) ||
					  a->sync ? HC_OBJ_READY : HC_OBJ_DIRTY,
					  sbuf, sizeof(sbuf))));
		json_object_object_add(o, "commit_seconds",
				       json_object_new_double(t_commit - t_stage));
		if (a->sync)
			json_object_object_add(o, "sync_seconds",
					       json_object_new_double(t_synced - t_commit));
		if (a->crc)
			json_object_object_add(o, "crc32c",
					       json_object_new_uint64(crc));
		json_object_object_add(o, "extents",
				       lib_extents_json(ext, next));
		hcctl_json_print(o, false);
		json_object_put(o);
	} else {
		printf("%s: %" PRIu64 " bytes in %u extent%s, generation %" PRIu64 "\n",
		       a->uri.shown, (uint64_t)sb.st_size, next,
		       next == 1 ? "" : "s", gen);
		if (a->sync)
			printf("committed in %.3f s, synced %.3f s later\n",
			       t_commit - t_stage, t_synced - t_commit);
	}
	rc = HC_EXIT_OK;
out:
	hc_writer_abort(w);	/* closing the context aborts too */
	hc_ctx_close(ctx);
	free(ext);
	close(in);
	return rc;
}

/*
 * A DIRTY object is uploaded to the backend its URI names: check, before
 * anything is staged, that the configuration @path has such a backend, so
 * a typo is refused now instead of becoming an upload that fails for
 * ever.  @explicit: given with --config, so it must exist and load; the
 * default file may be absent (no helper configured on this host: nothing
 * to check against) or unreadable (a user outside the hypercache group),
 * which is said and skipped.  Returns 0 to go on, HC_EXIT_FAIL after
 * printing why not.
 */
static int put_check_backend(const struct hcctl_uri *uri, const char *path,
			     bool explicit)
{
	struct hc_target t;
	struct hc_config *cfg;
	char err[512];
	int ret;

	cfg = calloc(1, sizeof(*cfg));
	if (!cfg) {
		hcctl_err("put", "out of memory", ENOMEM);
		return HC_EXIT_FAIL;
	}
	ret = hc_config_load(path, cfg, err, sizeof(err));
	if (ret && !explicit && (ret == -ENOENT || ret == -EACCES)) {
		if (ret == -EACCES)
			fprintf(stderr,
				"hcctl: put: %s: not readable, the URI's backend is not checked\n",
				path);
		free(cfg);
		return 0;
	}
	if (ret) {
		hcctl_errf("put", 0, "%s (the URI's backend cannot be checked; --clean stores it without an upload)",
			   err);
		free(cfg);
		return HC_EXIT_FAIL;
	}
	ret = hc_resolve(cfg, uri->bytes, uri->len, 0, &t, err, sizeof(err));
	free(cfg);
	if (ret) {
		hcctl_errf(uri->shown, 0,
			   "%s (%s): its upload could never succeed (--clean stores it without one)",
			   err, path);
		return HC_EXIT_FAIL;
	}
	return 0;
}

int hcctl_cmd_put(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	struct put_args a = { .progress = true, .timeout = 300 };
	bool clean = false, replace = false, crc = false;
	const char *cfg_path = NULL;
	const struct hcctl_opt opts[] = {
		HCCTL_FLAG("clean", 0, &clean),
		HCCTL_FLAG("replace", 0, &replace),
		HCCTL_FLAG("crc", 0, &crc),
		HCCTL_NOFLAG("no-progress", 0, &a.progress),
		HCCTL_FLAG("sync", 0, &a.sync),
		HCCTL_ULONG("timeout", 0, &a.timeout, 0, 86400, "seconds"),
		HCCTL_STRING("config", 0, &cfg_path, "FILE"),
		HCCTL_OPT_END
	};
	int ret, optind;

	optind = hcctl_opt_parse(cmd, argc, argv, opts, &ret);
	if (optind < 0)
		return ret;
	a.json = hcctl_opt_json;
	a.crc = crc;
	a.commit_flags = (clean ? HC_COMMIT_CLEAN : 0) | (crc ? 0 : HC_COMMIT_NO_CRC);
	/* Without --crc nothing is computed, as the writes come or after. */
	a.create_flags = (replace ? HC_CREATE_REPLACE : 0) |
			 (crc ? 0 : HC_CREATE_NO_CRC);
	if (optind >= argc)
		return hcctl_usage_error(cmd, "missing FILE operand");
	if (optind + 1 >= argc)
		return hcctl_usage_error(cmd, "missing URI operand");
	if (optind + 2 < argc)
		return hcctl_usage_error(cmd, "unexpected argument '%s'",
				      argv[optind + 2]);
	a.file = argv[optind];
	ret = hcctl_uri_arg(cmd, argv[optind + 1], &a.uri);
	if (ret >= 0)
		return ret;
	if (!clean) {
		ret = put_check_backend(&a.uri, cfg_path ? cfg_path : HC_CONFIG_PATH,
					cfg_path != NULL);
		if (ret) {
			hcctl_uri_free(&a.uri);
			return ret;
		}
	}
	ret = put_run(cmd, &a);
	hcctl_uri_free(&a.uri);
	return ret;
}

/* --- get ------------------------------------------------------------------- */

/* Say why a LOCATE did not find valid data. */
static void not_hit_reason(const struct hc_locate *l, struct hcctl_fetch_err *e)
{
	char buf[32];

	e->errnum = 0;
	switch (l->status) {
	case HC_LOCATE_MISS:
		snprintf(e->reason, sizeof(e->reason), "not cached");
		break;
	case HC_LOCATE_PENDING:
		snprintf(e->reason, sizeof(e->reason), "not yet valid (%s)",
			 hcctl_obj_state_name(l->state, buf, sizeof(buf)));
		break;
	case HC_LOCATE_NOT_ADMITTED:
		snprintf(e->reason, sizeof(e->reason),
			 "not cached (not admitted: read the backend directly)");
		break;
	case HC_LOCATE_BAD:
		snprintf(e->reason, sizeof(e->reason),
			 "bad: a read of its data failed on a member (evict or replace it)");
		break;
	default:
		snprintf(e->reason, sizeof(e->reason),
			 "unknown LOCATE status %u", l->status);
	}
}

/*
 * A miss that no helper can fetch.  The kernel keeps an ingest
 * request for a helper that registers within ingest_timeout_ms, so a
 * LOCATE|AUTO_INGEST|WAIT of an object that is neither cached nor being
 * fetched would wait out its whole timeout when none is registered; the
 * caller found it absent, and this asks STATS_GET whether an ingest helper
 * is registered.  None: fail at once (ENOTCONN, the file system view's
 * errno for the same case) with @e saying so.  Once one was seen it is not
 * asked again (a helper that goes away later makes the wait time out, as
 * before), and when the kernel cannot tell (netlink refused) the fetch goes
 * on.  Threads may call it.  Return: 0 (fetch), or -1 with @e filled.
 * Callers skip the absence test too once fetch_helper_seen is set.
 */
static bool fetch_helper_seen;	/* an ingest helper was registered once */

static int fetch_no_helper(struct hcctl_fetch_err *e)
{
	struct hc_scrape_kernel st;

	if (hcctl_stats_get("LOCATE", &st, true) < 0 ||
	    !st.has[HC_A_STATS_INGEST_HELPER])
		return 0;
	if (st.v[HC_A_STATS_INGEST_HELPER]) {
		__atomic_store_n(&fetch_helper_seen, true, __ATOMIC_RELAXED);
		return 0;
	}
	e->errnum = ENOTCONN;
	snprintf(e->reason, sizeof(e->reason),
		 "not cached, and no ingest helper is registered to fetch it (is hypercached running?)");
	return -1;
}

int hcctl_obj_fetch(int ctl, const struct hcctl_uri *uri, uint32_t flags,
		 unsigned long timeout_s, struct hc_extent *ext,
		 uint32_t max_ext, struct hc_locate *l, struct hcctl_fetch_err *e)
{
	int ret;

	if ((flags & HC_LOCATE_F_AUTO_INGEST) && (flags & HC_LOCATE_F_WAIT) &&
	    !__atomic_load_n(&fetch_helper_seen, __ATOMIC_RELAXED)) {
		/* absent, not even being fetched: can anyone fetch it? */
		ret = hcctl_ctl_locate(ctl, uri, HC_LOCATE_F_PEEK, NULL, 0,
				       NULL, 0, l);
		if (ret == 0 && l->status == HC_LOCATE_MISS &&
		    fetch_no_helper(e) < 0)
			return -1;
	}
	ret = hcctl_ctl_locate_wait(ctl, uri, flags, (uint32_t)(timeout_s * 1000),
				 ext, max_ext, l);
	if (ret == -ETIMEDOUT) {
		e->errnum = ETIMEDOUT;
		snprintf(e->reason, sizeof(e->reason),
			 "not fetched within %lu s (is the helper running?)",
			 timeout_s);
		return -1;
	}
	if (ret < 0) {
		e->errnum = -ret;
		hcctl_ctl_reason("LOCATE", -ret, e->reason, sizeof(e->reason));
		return -1;
	}
	if (l->status != HC_LOCATE_HIT) {
		not_hit_reason(l, e);
		return -1;
	}
	return 0;
}

/* Copy the reader's @size bytes to @out in IO_BUF_SIZE pieces. */
static int get_copy(struct hc_reader *r, void *buf, uint64_t size, int out,
		    const char *outname, bool progress)
{
	struct progress prog;
	uint64_t off = 0;
	size_t n;
	ssize_t got;
	int ret;

	progress_init(&prog, size, progress);
	while (off < size) {
		n = size - off < IO_BUF_SIZE ? (size_t)(size - off) : IO_BUF_SIZE;
		got = hc_reader_pread(r, buf, n, off);
		if (got != (ssize_t)n) {
			progress_end(&prog, false);
			if (got < 0)
				fprintf(stderr, "hcctl: %s\n", hc_reader_error(r));
			else
				hcctl_errf(outname, 0, "copied %" PRIu64 " of %"
					   PRIu64 " bytes", off + (uint64_t)got,
					   size);
			return -1;
		}
		ret = hc_write_full(out, buf, n);
		if (ret < 0) {
			progress_end(&prog, false);
			hcctl_err(outname, "write error", -ret);
			return -1;
		}
		off += n;
		progress_add(&prog, n);
	}
	progress_end(&prog, true);
	return 0;
}

int hcctl_cmd_get(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	struct hc_reader *r = NULL;
	struct hc_ctx *ctx = NULL;
	struct hcctl_uri uri;
	const char *outname = NULL;
	char err[512];
	void *buf = NULL;
	unsigned long timeout = 300;
	unsigned int flags;
	bool progress = true, created = false, no_ingest = false;
	const struct hcctl_opt opts[] = {
		HCCTL_STRING("output", 'o', &outname, "FILE"),
		HCCTL_NOFLAG("no-progress", 0, &progress),
		HCCTL_FLAG("no-ingest", 0, &no_ingest),
		HCCTL_ULONG("timeout", 0, &timeout, 0, 86400, "seconds"),
		HCCTL_OPT_END
	};
	int ret, out = -1, rc = HC_EXIT_FAIL, optind;

	optind = hcctl_opt_parse(cmd, argc, argv, opts, &rc);
	if (optind < 0)
		return rc;
	/* A miss asks the helper to fetch the object, and waits for it. */
	flags = no_ingest ? 0 : HC_OPEN_AUTO_INGEST;
	ret = one_uri(cmd, argc, argv, optind, &uri);
	if (ret >= 0)
		return ret;

	ctx = lib_open(cmd->name, false);
	if (!ctx)
		goto out;
	if (flags & HC_OPEN_AUTO_INGEST) {
		struct hcctl_fetch_err fe;
		struct hc_lib_info info;

		if (hc_ctx_info(ctx, uri.bytes, uri.len, &info) == -ENOENT &&
		    fetch_no_helper(&fe) < 0) {
			hcctl_errf(uri.shown, fe.errnum, "%s", fe.reason);
			goto out;
		}
	}
	ret = hc_reader_open(ctx, uri.bytes, uri.len, flags,
			     (uint32_t)(timeout * 1000), &r, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "hcctl: %s\n", err);
		goto out;
	}
	buf = io_buf();
	if (!buf)
		goto out;

	if (outname) {
		out = open(outname, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (out >= 0)
			created = true;
		else if (errno == EEXIST)
			out = open(outname, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (out < 0) {
			hcctl_err(outname, "cannot open", errno);
			goto out;
		}
	} else {
		out = STDOUT_FILENO;
		outname = "stdout";
	}
	if (get_copy(r, buf, hc_reader_size(r), out, outname, progress) < 0)
		goto out;
	if (out != STDOUT_FILENO) {
		ret = close(out);
		out = -1;
		if (ret < 0) {
			hcctl_err(outname, "write error", errno);
			goto out;
		}
	}
	created = false;
	rc = HC_EXIT_OK;
out:
	hc_reader_close(r);	/* releases the hold */
	if (out >= 0 && out != STDOUT_FILENO)
		close(out);
	if (created && rc != HC_EXIT_OK)
		unlink(outname);	/* a partial file we made ourselves */
	free(buf);
	hc_ctx_close(ctx);
	hcctl_uri_free(&uri);
	return rc;
}

/* --- locate ---------------------------------------------------------------- */

/*
 * hc_ctx_locate(): up to HC_MAX_EXTENTS extents in @ext and, with @layout,
 * every chunk in a malloc'd *@chunks (the first call tells the size; again
 * if the object grew meanwhile).  Returns 0, or -1 after printing why.
 */
static int locate_lib(struct hc_ctx *ctx, const struct hcctl_uri *uri,
		      bool layout, struct hc_lib_location *loc,
		      struct hc_lib_extent *ext, struct hc_lib_chunk **chunks)
{
	struct hc_lib_chunk *tmp;
	uint32_t chunk = hc_ctx_chunk_size(ctx), max = 0;
	uint64_t want;
	char err[512];
	int tries, ret;

	*chunks = NULL;
	for (tries = 0;; tries++) {
		ret = hc_ctx_locate(ctx, uri->bytes, uri->len, loc, ext,
				    HC_MAX_EXTENTS, *chunks, max, err, sizeof(err));
		if (ret < 0) {
			fprintf(stderr, "hcctl: %s\n", err);
			break;
		}
		if (!layout || loc->status == HC_LIB_MISS ||
		    (*chunks && loc->nr_chunks <= max))
			return 0;
		if (tries == 8) {
			hcctl_err(uri->shown, "the object kept changing; try again", 0);
			break;
		}
		want = chunk ? loc->size / chunk + 1 : 1;
		if (want < loc->nr_chunks)
			want = loc->nr_chunks;
		if (want > UINT32_MAX / sizeof(**chunks) ||
		    !(tmp = realloc(*chunks, (size_t)want * sizeof(**chunks)))) {
			hcctl_err(NULL, "out of memory", ENOMEM);
			break;
		}
		*chunks = tmp;
		max = (uint32_t)want;
	}
	free(*chunks);
	*chunks = NULL;
	return -1;
}

static const char *member_name(const struct hcctl_pool_info *pool, uint32_t idx)
{
	size_t i;

	for (i = 0; i < pool->nmembers; i++)
		if (pool->members[i].has_index && pool->members[i].index == idx)
			return pool->members[i].name;
	return NULL;
}

static void locate_print_json(const struct hcctl_uri *uri,
			      const struct hc_lib_location *l,
			      const struct hc_lib_extent *ext,
			      const struct hc_lib_chunk *lay,
			      const struct hcctl_pool_info *pool)
{
	json_object *o = json_object_new_object();
	uint32_t i, n;
	char buf[32];

	json_object_object_add(o, "uri", json_object_new_string(uri->shown));
	json_object_object_add(o, "status", json_object_new_string(
		locate_status_name(l->status, buf, sizeof(buf))));
	if (l->status == HC_LIB_MISS)
		goto print;
	if (l->state)
		json_object_object_add(o, "state", json_object_new_string(
			hcctl_obj_state_name(l->state, buf, sizeof(buf))));
	json_object_object_add(o, "size", json_object_new_uint64(l->size));
	json_object_object_add(o, "generation",
			       json_object_new_uint64(l->generation));
	json_object_object_add(o, "flags", json_object_new_uint64(l->flags));
	json_object_object_add(o, "pinned", json_object_new_boolean(
		!!(l->flags & HC_OBJ_F_PINNED)));
	json_object_object_add(o, "bad", json_object_new_boolean(
		!!(l->flags & HC_OBJ_F_BAD)));
	n = l->nr_extents < HC_MAX_EXTENTS ? l->nr_extents : HC_MAX_EXTENTS;
	json_object_object_add(o, "extents", lib_extents_json(ext, n));
	if (lay) {
		json_object *arr = json_object_new_array();

		if (pool->has_chunk_size)
			json_object_object_add(o, "chunk_size",
				json_object_new_uint64(pool->chunk_size));
		for (i = 0; i < l->nr_chunks; i++) {
			json_object *c = json_object_new_object();
			const char *name = member_name(pool, lay[i].member);

			json_object_object_add(c, "chunk", json_object_new_uint64(i));
			json_object_object_add(c, "member",
					       json_object_new_uint64(lay[i].member));
			if (name)
				json_object_object_add(c, "device",
						       json_object_new_string(name));
			json_object_object_add(c, "member_offset",
				json_object_new_uint64(lay[i].member_offset));
			json_object_object_add(c, "dev_offset",
				json_object_new_uint64(lay[i].dev_offset));
			json_object_object_add(c, "length",
				json_object_new_uint64(lay[i].length));
			json_object_array_add(arr, c);
		}
		json_object_object_add(o, "layout", arr);
	}
print:
	hcctl_json_print(o, false);
	json_object_put(o);
}

static void locate_print_text(const struct hcctl_uri *uri,
			      const struct hc_lib_location *l,
			      const struct hc_lib_extent *ext,
			      const struct hc_lib_chunk *lay,
			      const struct hcctl_pool_info *pool)
{
	char buf[64], size[32];
	uint32_t i, n;
	int namew = 6;

	printf("uri         %s\n", uri->shown);
	printf("status      %s\n", locate_status_name(l->status, buf, sizeof(buf)));
	if (l->status == HC_LIB_MISS)
		return;
	printf("state       %s\n",
	       l->state ? hcctl_obj_state_name(l->state, buf, sizeof(buf)) : "-");
	hcctl_fmt_size(size, sizeof(size), l->size);
	printf("size        %s (%" PRIu64 " bytes)\n", size, (uint64_t)l->size);
	printf("generation  %" PRIu64 "\n", (uint64_t)l->generation);
	hcctl_obj_flags_str(l->flags, buf, sizeof(buf));
	printf("flags       %s\n", buf);
	printf("extents     %u\n", l->nr_extents);
	n = l->nr_extents < HC_MAX_EXTENTS ? l->nr_extents : HC_MAX_EXTENTS;
	if (n)
		printf("  %-18s  %s\n", "offset", "length");
	for (i = 0; i < n; i++)
		printf("  %-18" PRIu64 "  %" PRIu64 "\n", (uint64_t)ext[i].offset,
		       (uint64_t)ext[i].length);
	if (!lay)
		return;

	for (i = 0; i < l->nr_chunks; i++) {
		const char *name = member_name(pool, lay[i].member);
		int w = name ? (int)strlen(name) : 1;

		if (w > namew)
			namew = w;
	}
	if (pool->has_chunk_size) {
		hcctl_fmt_size_exact(size, sizeof(size), pool->chunk_size);
		printf("layout      %u chunk%s of %s\n", l->nr_chunks,
		       l->nr_chunks == 1 ? "" : "s", size);
	} else {
		printf("layout      %u chunk%s\n", l->nr_chunks,
		       l->nr_chunks == 1 ? "" : "s");
	}
	if (l->nr_chunks)
		printf("  %-6s  %-6s  %-*s  %-18s  %-18s  %s\n", "chunk", "member",
		       namew, "device", "member offset", "device offset",
		       "length");
	for (i = 0; i < l->nr_chunks; i++) {
		const char *name = member_name(pool, lay[i].member);

		printf("  %-6u  %-6u  %-*s  %-18" PRIu64 "  %-18" PRIu64 "  %" PRIu64 "\n",
		       i, lay[i].member, namew, name ? name : "?",
		       (uint64_t)lay[i].member_offset,
		       (uint64_t)lay[i].dev_offset, (uint64_t)lay[i].length);
	}
}

int hcctl_cmd_locate(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	struct hcctl_pool_info pool = { 0 };
	struct hc_lib_extent *ext = NULL;
	struct hc_lib_chunk *lay = NULL;
	struct hc_lib_location l;
	struct hcctl_uri uri;
	bool json, layout = false;
	const struct hcctl_opt opts[] = {
		HCCTL_FLAG("layout", 'l', &layout),
		HCCTL_OPT_END
	};
	struct hc_ctx *ctx = NULL;
	int ret, rc = HC_EXIT_FAIL, optind;

	optind = hcctl_opt_parse(cmd, argc, argv, opts, &rc);
	if (optind < 0)
		return rc;
	json = hcctl_opt_json;
	ret = one_uri(cmd, argc, argv, optind, &uri);
	if (ret >= 0)
		return ret;

	ext = calloc(HC_MAX_EXTENTS, sizeof(*ext));
	if (!ext) {
		hcctl_err(NULL, "out of memory", ENOMEM);
		goto out;
	}
	ctx = lib_open(cmd->name, false);
	if (!ctx)
		goto out;
	/* Member names (and the chunk size) come from the pool. */
	if (layout && hcctl_pool_get(cmd->name, &pool) < 0)
		goto out;
	if (locate_lib(ctx, &uri, layout, &l, ext, &lay) < 0)
		goto out;
	if (json)
		locate_print_json(&uri, &l, ext, lay, &pool);
	else
		locate_print_text(&uri, &l, ext, lay, &pool);
	rc = HC_EXIT_OK;
out:
	hcctl_pool_free(&pool);
	free(lay);
	free(ext);
	hc_ctx_close(ctx);
	hcctl_uri_free(&uri);
	return rc;
}

/* --- evict, pin, unpin (netlink) ------------------------------------------- */

/*
 * EVICT or PIN of @uri (freed here).  @pin: -1 for EVICT, else the
 * HC_A_OBJ_PINNED value; @discard: EVICT with HC_A_OBJ_DISCARD_DIRTY = 1.
 */
static int obj_nl_uri(const struct hcctl_cmd *cmd, struct hcctl_uri uri,
		      uint8_t nlcmd, int pin, bool discard)
{
	struct hcctl_nl nl = { 0 };
	struct hcctl_nl_err err;
	struct nl_msg *msg;
	int ret;

	if (hcctl_nl_open(&nl, cmd->name) < 0) {
		hcctl_uri_free(&uri);
		return HC_EXIT_FAIL;
	}
	msg = hcctl_nl_request(&nl, nlcmd, NLA_HDRLEN + NLA_ALIGN(uri.len) + 16);
	if (!msg || nla_put(msg, HC_A_OBJ_URI, (int)uri.len, uri.bytes) < 0 ||
	    (pin >= 0 && nla_put_u8(msg, HC_A_OBJ_PINNED, (uint8_t)pin) < 0) ||
	    (discard && nla_put_u8(msg, HC_A_OBJ_DISCARD_DIRTY, 1) < 0)) {
		if (msg)
			nlmsg_free(msg);
		hcctl_err(cmd->name, "cannot build netlink request", ENOMEM);
		hcctl_nl_close(&nl);
		hcctl_uri_free(&uri);
		return HC_EXIT_FAIL;
	}
	ret = hcctl_nl_transact(&nl, msg, NULL, NULL, &err);
	hcctl_nl_close(&nl);
	if (ret == 0) {
		hcctl_uri_free(&uri);
		return HC_EXIT_OK;
	}
	if (err.kernel && !err.msg[0]) {
		/* No ack message: say what the errno means for an object. */
		const char *why = NULL;

		switch (err.error) {
		case ENODEV:
			why = "no pool is running";
			break;
		case ENOENT:
			why = "not cached";
			break;
		case EBUSY:
			why = pin < 0 ?
			      "the object is busy (held, staged, ingesting, pinned, dirty or syncing)" :
			      "the object is busy";
			break;
		}
		if (why)
			snprintf(err.msg, sizeof(err.msg), "%s", why);
	}
	hcctl_nl_report(err.kernel ? uri.shown : cmd->name, &err, NULL, NULL, 0);
	if (err.kernel && err.error == EBUSY && nlcmd == HC_CMD_OBJ_EVICT &&
	    !discard && !strncmp(err.msg, "dirty", 5))
		fprintf(stderr, "hcctl: %s: 'hcctl ls --dirty' says why it is not "
			"uploaded; 'hcctl evict --discard-dirty' throws it away\n",
			uri.shown);
	hcctl_uri_free(&uri);
	return HC_EXIT_FAIL;
}

/* @pin: -1 for EVICT, else the HC_A_OBJ_PINNED value. */
static int obj_nl(const struct hcctl_cmd *cmd, int argc, char **argv,
		  uint8_t nlcmd, int pin)
{
	struct hcctl_uri uri;
	int ret;

	ret = parse_uri_only(cmd, argc, argv, &uri);
	if (ret >= 0)
		return ret;
	return obj_nl_uri(cmd, uri, nlcmd, pin, false);
}

/* Whether the command line names --prefix (the prefix form, in cache.c). */
bool hcctl_has_prefix_opt(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--prefix") ||
		    !strncmp(argv[i], "--prefix=", 9))
			return true;
	return false;
}

/*
 * The one-URI form of evict, pin and unpin given --yes (or -y), which only
 * the prefix form takes (its dry run is the default): a usage error that
 * says so, where getopt would say "unrecognized option".  Returns -1 when
 * there is none.
 */
static int yes_without_prefix(const struct hcctl_cmd *cmd, int argc,
			      char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--yes") || !strcmp(argv[i], "-y"))
			return hcctl_usage_error(cmd, "%s goes with --prefix PREFIX (the one-URI form acts at once)",
						 argv[i]);
	return -1;
}

/*
 * evict [--discard-dirty] URI.  --discard-dirty first says on stderr what
 * is thrown away (hcctl_discard_describe()), then asks the kernel, which
 * logs it; the outcome is said on stderr too.
 */
int hcctl_cmd_evict(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	bool discard = false;
	const struct hcctl_opt opts[] = {
		HCCTL_FLAG("discard-dirty", 0, &discard),
		HCCTL_OPT_END
	};
	struct hcctl_discard what;
	struct hcctl_uri uri;
	int ret, optind;

	if (hcctl_has_prefix_opt(argc, argv))
		return hcctl_prefix_cmd(cmd, argc, argv, HCCTL_PREFIX_EVICT);
	ret = yes_without_prefix(cmd, argc, argv);
	if (ret >= 0)
		return ret;
	optind = hcctl_opt_parse(cmd, argc, argv, opts, &ret);
	if (optind < 0)
		return ret;
	ret = one_uri(cmd, argc, argv, optind, &uri);
	if (ret >= 0)
		return ret;
	if (!discard)
		return obj_nl_uri(cmd, uri, HC_CMD_OBJ_EVICT, -1, false);
	if (hcctl_discard_describe(cmd->name, &uri, &what) < 0) {
		hcctl_uri_free(&uri);
		return HC_EXIT_FAIL;
	}
	ret = obj_nl_uri(cmd, uri, HC_CMD_OBJ_EVICT, -1, true);
	if (ret == HC_EXIT_OK && what.dirty)
		fprintf(stderr, "hcctl: evict: discarded %s (generation %" PRIu64
			", %" PRIu64 " bytes its backend never got); the kernel "
			"log records it\n", what.shown, what.generation, what.size);
	else if (ret == HC_EXIT_OK)
		fprintf(stderr, "hcctl: evict: %s was not dirty: evicted, nothing "
			"discarded\n", what.shown);
	free(what.shown);
	return ret;
}

int hcctl_cmd_pin(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	int ret;

	if (hcctl_has_prefix_opt(argc, argv))
		return hcctl_prefix_cmd(cmd, argc, argv, HCCTL_PREFIX_PIN);
	ret = yes_without_prefix(cmd, argc, argv);
	if (ret >= 0)
		return ret;
	return obj_nl(cmd, argc, argv, HC_CMD_OBJ_PIN, 1);
}

int hcctl_cmd_unpin(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	int ret;

	if (hcctl_has_prefix_opt(argc, argv))
		return hcctl_prefix_cmd(cmd, argc, argv, HCCTL_PREFIX_UNPIN);
	ret = yes_without_prefix(cmd, argc, argv);
	if (ret >= 0)
		return ret;
	return obj_nl(cmd, argc, argv, HC_CMD_OBJ_PIN, 0);
}

/* --- the command table (main.c lists the groups) ---------------------- */

/* The --json form and the options that evict, pin and unpin share. */
#define HCCTL_PREFIX_VERB_TEXT \
"    --json prints {\"prefix\":P,\"dry_run\":B,\"objects\":[{\"uri\":U,\n" \
"    \"size\":N,\"result\":R,\"reason\":S,\"errno\":E},...],\"done\" (or\n" \
"    \"would_do\"):N,\"bytes\":N,\"refused\":N,\"skipped\":N}.  The exit\n" \
"    status is 1 if any object was (or would be) refused.\n" \
"\n" \
"OPTIONS\n" \
"    --prefix PREFIX\n" \
"        Act on every object under PREFIX (non-empty) rather than on URI.\n" \
"\n" \
"    -y, --yes\n" \
"        With --prefix: do it (without: the dry run).\n" \
"\n" \
"    -j, --json\n" \
"        Without --prefix accepted, as by every command; it prints nothing.\n" \
"        With --prefix, the JSON above.\n" \
"\n"

const struct hcctl_cmd hcctl_object_cmds[] = {
{
	.name = "put",
	.summary = "write a file into the cache as an object",
	.synopsis = "[--clean] [--replace] [--crc] [--sync [--timeout S]]\n"
		    "          [--no-progress] [--config FILE] [--json] FILE URI",
	.handler = hcctl_cmd_put,
	.help =
"DESCRIPTION\n"
"    Store the regular file FILE in the object cache under URI, with\n"
"    libhypercache's writer (libhypercache(3)):\n"
"\n"
"    1. HC_IOC_STAGE on /dev/hypercache-ctl allocates chunks for the file's\n"
"       size and returns them as at most 64 extents of /dev/hypercache0;\n"
"    2. FILE is copied into those extents with O_DIRECT writes of up to\n"
"       4 MiB (the last partial block through an aligned bounce block; the\n"
"       object keeps the file's exact size);\n"
"    3. HC_IOC_COMMIT flushes every member once and makes the object\n"
"       durable: DIRTY (not yet in the backend), or READY with --clean.\n"
"\n"
"    If anything fails after the stage, hcctl aborts it (HC_IOC_ABORT); the\n"
"    kernel also aborts it when hcctl exits or is killed.  FILE must not\n"
"    change while it is copied (a file that shrinks or grows is an error).\n"
"\n"
"    URI is taken as the bytes given: 1 to 1024 bytes.  On success prints\n"
"\n"
"      URI: N bytes in K extents, generation G\n"
"\n"
"    With --json:\n"
"\n"
"      {\"uri\":\"...\",\"size\":N,\"generation\":G,\"state\":\"dirty\",\n"
"       \"crc32c\":C,\"commit_seconds\":T,\"sync_seconds\":U,\n"
"       \"extents\":[{\"offset\":O,\"length\":L},...]}\n"
"\n"
"    (\"crc32c\" only with --crc, \"sync_seconds\" only with --sync).  URIs\n"
"    are printed with bytes outside printable ASCII, and the backslash,\n"
"    escaped as \\xNN.\n"
"\n"
"    With --sync, put then waits until hypercached has uploaded the object\n"
"    and the kernel marked it clean (READY), polling LOCATE with PEEK every\n"
"    20 ms, and prints a second line\n"
"\n"
"      committed in T s, synced U s later\n"
"\n"
"    T is the commit latency (STAGE issued to COMMIT returned: what a\n"
"    writer waits for), U the write-back time after it.\n"
"\n"
"OPTIONS\n"
"    --clean\n"
"        The backend already holds this data: commit the object READY\n"
"        (HC_COMMIT_F_CLEAN) instead of DIRTY, so it is never uploaded.\n"
"\n"
"    --replace\n"
"        If URI is cached, replace it (HC_STAGE_F_REPLACE).  Without it an\n"
"        existing object is an error (\"already cached\").  An object that is\n"
"        held, pinned, dirty or being synced cannot be replaced (EBUSY).\n"
"\n"
"    --crc\n"
"        Compute the CRC-32C (Castagnoli) of the file's bytes while copying\n"
"        and give it to the kernel with the commit (HC_COMMIT_F_CRC).\n"
"\n"
"    --sync\n"
"        After the commit, wait until the object is in the backend (clean).\n"
"        Fails if it is replaced or removed meanwhile, or on the timeout.\n"
"\n"
"    --timeout S\n"
"        With --sync, give up after S seconds (default 300; 0 waits for\n"
"        ever).  The object stays committed and is uploaded later.\n"
"\n"
"    --no-progress\n"
"        No progress bar.  The bar (bytes, percent, MiB/s) is drawn on\n"
"        stderr only when stderr is a terminal.\n"
"\n"
"    --config FILE\n"
"        hypercached's configuration (default /etc/hypercache/hypercache.conf).\n"
"        Without --clean the object will be uploaded, so before staging the\n"
"        URI must name a backend of it (s3:// the default backend,\n"
"        hypercache://NAME/... backend NAME), e.g.\n"
"        hcctl: hypercache://nfs2/a: no [backend nfs2] in the configuration\n"
"        (/etc/hypercache/hypercache.conf): its upload could never succeed\n"
"        (--clean stores it without one)\n"
"        The default file may be missing (nothing is checked) or unreadable\n"
"        (said, and not checked); a FILE given must load.\n"
"\n"
"    -j, --json\n"
"        Print one JSON object.\n"
"\n"
HCCTL_HELP_OPT_TEXT
"\n"
"    Needs write access to /dev/hypercache-ctl and /dev/hypercache0.\n"
"\n"
HCCTL_EXIT_STATUS_TEXT
"\n"
"EXAMPLES\n"
"    hcctl put --clean --crc model.safetensors s3://models/llama/model.safetensors\n",
},
{
	.name = "get",
	.summary = "read an object from the cache",
	.synopsis = "[-o FILE] [--no-progress] [--no-ingest] [--timeout S] [--json] URI",
	.handler = hcctl_cmd_get,
	.help =
"DESCRIPTION\n"
"    Read the object URI from the cache and write its bytes to stdout, or to\n"
"    FILE with -o, with libhypercache's reader (libhypercache(3)).\n"
"    HC_IOC_LOCATE with HC_LOCATE_F_HOLD finds the object and\n"
"    holds it (it cannot be evicted or replaced while held); its extents are\n"
"    read from /dev/hypercache0 with O_DIRECT reads of up to 4 MiB, exactly\n"
"    the object's size is written, and the hold is dropped (HC_IOC_RELEASE;\n"
"    also when hcctl exits).\n"
"\n"
"    On a miss the kernel asks the helper to fetch the object from its\n"
"    backend (HC_LOCATE_F_AUTO_INGEST) and hcctl waits for it\n"
"    (HC_LOCATE_F_WAIT) up to --timeout seconds.  The helper's error (for\n"
"    example \"No such file or directory\" for a missing key) is reported.\n"
"    With no ingest helper registered (hypercached not running) a miss\n"
"    fails at once (ENOTCONN) instead of waiting out the timeout.\n"
"\n"
"    Fails with \"not cached\" if URI is not in the cache and --no-ingest\n"
"    is given, or if the cache did not admit it (read the backend directly\n"
"    then); with \"not yet valid\" while it is staged; with \"bad\" (EIO) if a\n"
"    read of its data failed on a member before.  A FILE that hcctl\n"
"    created is removed if the copy fails.\n"
"\n"
"OPTIONS\n"
"    -o, --output FILE\n"
"        Write to FILE (created, or truncated if it exists) instead of\n"
"        stdout.\n"
"\n"
"    --no-progress\n"
"        No progress bar.  The bar is drawn on stderr only when stderr is a\n"
"        terminal.\n"
"\n"
"    --no-ingest\n"
"        Read only what is cached: a miss fails at once.\n"
"\n"
"    --timeout SECONDS\n"
"        How long to wait for an ingest (default 300; 0 waits until\n"
"        interrupted).\n"
"\n"
"    -j, --json\n"
"        Accepted, as by every command; the output is the\n"
"        object's bytes.\n"
"\n"
HCCTL_HELP_OPT_TEXT
"\n"
"    Needs read access to /dev/hypercache-ctl and /dev/hypercache0.\n"
"\n"
HCCTL_EXIT_STATUS_TEXT
"\n"
"EXAMPLES\n"
"    hcctl get -o /tmp/model.bin s3://models/llama/model.safetensors\n"
"    hcctl get s3://datasets/shard-0001.tar | tar -x\n",
},
{
	.name = "locate",
	.summary = "show where an object is cached",
	.synopsis = "[--layout] [--json] URI",
	.handler = hcctl_cmd_locate,
	.help =
"DESCRIPTION\n"
"    Look up URI with HC_IOC_LOCATE (PEEK, without a hold: libhypercache's\n"
"    hc_ctx_locate()) and print:\n"
"\n"
"      uri         URI\n"
"      status      hit | miss | pending | not-admitted | bad\n"
"      state       ingesting | ready | staged | dirty | syncing\n"
"      size        SIZE (N bytes)\n"
"      generation  G\n"
"      flags       pinned,data-crc (or -)\n"
"      extents     K\n"
"        offset              length\n"
"        OFFSET              LENGTH      (bytes in /dev/hypercache0)\n"
"\n"
"    On a miss only uri and status are printed.  The exit status is 0\n"
"    whatever the status is.\n"
"\n"
"OPTIONS\n"
"    -l, --layout\n"
"        Also print where every chunk of the object lives:\n"
"\n"
"          layout      N chunks of 4 MiB\n"
"            chunk  member  device   member offset  device offset  length\n"
"\n"
"        chunk is the object's chunk index, member the member index and\n"
"        device its block device (from 'hcctl status'), member offset the\n"
"        byte offset on that device, device offset the byte offset in\n"
"        /dev/hypercache0, length the object's bytes in the chunk.\n"
"\n"
"    -j, --json\n"
"        Print one JSON object:\n"
"\n"
"          {\"uri\":\"...\",\"status\":\"hit\",\"state\":\"ready\",\"size\":N,\n"
"           \"generation\":G,\"flags\":F,\"pinned\":false,\n"
"           \"extents\":[{\"offset\":O,\"length\":L},...],\n"
"           \"chunk_size\":4194304,\"layout\":[{\"chunk\":0,\"member\":1,\n"
"           \"device\":\"nvme1n1\",\"member_offset\":M,\"dev_offset\":D,\n"
"           \"length\":L},...]}\n"
"\n"
"        (chunk_size and layout only with --layout; on a miss only uri and\n"
"        status).\n"
"\n"
HCCTL_HELP_OPT_TEXT
"\n"
"    Needs read access to /dev/hypercache-ctl.\n"
"\n"
HCCTL_EXIT_STATUS_TEXT,
},
{
	.name = "evict",
	.summary = "remove an object (or every object under a prefix) from the cache",
	.synopsis = "[--discard-dirty] [--json] URI\n"
		    "    hcctl evict --prefix PREFIX [--yes] [--json]",
	.handler = hcctl_cmd_evict,
	.help =
"DESCRIPTION\n"
"    Evict the object URI (HC_CMD_OBJ_EVICT): its chunks become free.  Only\n"
"    an idle, clean, unpinned object can be evicted; one that is held,\n"
"    staged, ingesting, pinned, dirty or being synced fails with \"Device or\n"
"    resource busy\" (a dirty object's data is never thrown away without\n"
"    --discard-dirty).  Prints nothing on success.\n"
"\n"
"    --discard-dirty\n"
"        Evict URI even if it is dirty: committed but not in its backend\n"
"        yet, typically because its upload failed for good ('hcctl ls\n"
"        --dirty' shows the last error).  Its data is lost: nothing else\n"
"        has it.  hcctl first prints on stderr what is thrown away (size,\n"
"        generation, the last upload error), then the outcome; the kernel\n"
"        log records the discard with the requesting process and user.\n"
"        Still refused (EBUSY) while the object is being uploaded, held or\n"
"        pinned.  One URI at a time: not with --prefix.  An object that is\n"
"        not dirty is evicted as without the option.\n"
"\n"
"    With --prefix PREFIX instead of URI, every cached object whose URI\n"
"    starts with the bytes of PREFIX: without --yes a dry run lists them,\n"
"    one a line (ACTION URI, ACTION 'refused' with the reason the kernel\n"
"    will give, or 'skip' when there is nothing to do), and changes\n"
"    nothing; with --yes each is done in turn, each refusal printed on\n"
"    stderr naming the object and the reason.  Both end with a summary:\n"
"\n"
"      evicted N objects (SIZE), R refused, S with nothing to do\n"
"\n"
HCCTL_PREFIX_VERB_TEXT
HCCTL_HELP_OPT_TEXT
"\n"
HCCTL_NEEDS_ADMIN_TEXT,
},
{
	.name = "pin",
	.summary = "keep an object (or every object under a prefix) in the cache",
	.synopsis = "[--json] URI\n"
		    "    hcctl pin --prefix PREFIX [--yes] [--json]",
	.handler = hcctl_cmd_pin,
	.help =
"DESCRIPTION\n"
"    Pin the object URI (HC_CMD_OBJ_PIN with pinned = 1): the policy never\n"
"    evicts a pinned object, and 'hcctl evict' refuses it.  Pinning a pinned\n"
"    object is not an error.  Prints nothing on success.  To pin objects\n"
"    as they are fetched, see 'hcctl preload'.\n"
"\n"
"    With --prefix PREFIX instead of URI, every cached object whose URI\n"
"    starts with the bytes of PREFIX: without --yes a dry run lists them,\n"
"    one a line (ACTION URI, ACTION 'refused' with the reason the kernel\n"
"    will give, or 'skip' when there is nothing to do), and changes\n"
"    nothing; with --yes each is done in turn, each refusal printed on\n"
"    stderr naming the object and the reason.  Both end with a summary:\n"
"\n"
"      pinned N objects (SIZE), R refused, S with nothing to do\n"
"\n"
HCCTL_PREFIX_VERB_TEXT
HCCTL_HELP_OPT_TEXT
"\n"
HCCTL_NEEDS_ADMIN_TEXT,
},
{
	.name = "unpin",
	.summary = "let the policy evict an object (or those under a prefix) again",
	.synopsis = "[--json] URI\n"
		    "    hcctl unpin --prefix PREFIX [--yes] [--json]",
	.handler = hcctl_cmd_unpin,
	.help =
"DESCRIPTION\n"
"    Clear the pin of the object URI (HC_CMD_OBJ_PIN with pinned = 0).\n"
"    Prints nothing on success.  The object competes for its place again\n"
"    from the most recently used end of its region of the policy, as if\n"
"    just read (its old place is not kept while it is pinned).\n"
"\n"
"    With --prefix PREFIX instead of URI, every cached object whose URI\n"
"    starts with the bytes of PREFIX: without --yes a dry run lists them,\n"
"    one a line (ACTION URI, ACTION 'refused' with the reason the kernel\n"
"    will give, or 'skip' when there is nothing to do), and changes\n"
"    nothing; with --yes each is done in turn, each refusal printed on\n"
"    stderr naming the object and the reason.  Both end with a summary:\n"
"\n"
"      unpinned N objects (SIZE), R refused, S with nothing to do\n"
"\n"
HCCTL_PREFIX_VERB_TEXT
HCCTL_HELP_OPT_TEXT
"\n"
HCCTL_NEEDS_ADMIN_TEXT,
},
{ .name = NULL }
};
