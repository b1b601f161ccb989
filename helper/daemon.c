// SPDX-License-Identifier: GPL-2.0
/*
 * hypercached: the user-space helper of the HyperCache kernel module.
 *
 *   hypercached [-f] [-c CONFIG]
 *
 * Loads the configuration (exit 2 on error), registers as the helper over
 * generic netlink and serves the kernel's INGEST requests, up to
 * max_objects_in_flight objects at once, their parts sharing the
 * ingest_concurrency transfer slots of each backend and buffer_budget
 * bytes of buffers (xsched.h; "ingest" below):
 *   s3://BUCKET/KEY                 the default S3 backend
 *   hypercache://NAME/BUCKET/KEY    S3 backend NAME
 *   hypercache://NAME/KEY           posix backend NAME: ROOT/KEY
 * An S3 object is read with a GET of its first bytes (up to FIRST_MAX;
 * the answer's headers give the size, the ETag and Last-Modified, as a
 * HEAD would: the whole of a small object in one request) or, when the
 * budget has no room for them or the backend cannot say, a HEAD; then
 * ranged GETs of the rest carrying If-Match, so an object replaced during
 * the ingest is never cached half old, half new.
 *
 * Write-back: a second thread registers as the egress helper on its own
 * socket and uploads the DIRTY objects the kernel sends (HC_CMD_EGRESS, in
 * commit order) one at a time with egress.h, on its own S3 clients; the
 * URI names the backend as above.  A failed upload is EGRESS_FAIL with a
 * RETRY_MS growing per object (Documentation/writeback.md).
 *
 * Runs in the foreground, logs to stderr (log.h: "<N>" priorities when
 * stderr is the journal, timestamps otherwise); SIGTERM or SIGINT stop both
 * threads (exit 0): an upload in progress is abandoned (a multipart upload
 * aborted) and the kernel gives it to the next egress helper; SIGHUP
 * reloads the configuration (reload_config()).  Under
 * systemd (Type=notify) it sends READY=1 once both channels are registered
 * (or the helper channel alone, on a module without write-back) and
 * STOPPING=1 when it stops.  --check-config loads the configuration, says
 * what is wrong with it (exit 2) or that it is fine (exit 0), and exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <time.h>
#include "channel.h"
#include "config.h"
#include "crc.h"
#include "egress.h"
#include "fill.h"
#include "metrics.h"
#include "place.h"
#include "log.h"
#include "posix.h"
#include "resolve.h"
#include "s3.h"
#include "uri.h"
#include "util.h"
#include "verdict.h"
#include "xsched.h"

_Static_assert((int)HC_REVALIDATE_NEVER == (int)HC_REVAL_NEVER &&
	       (int)HC_REVALIDATE_AFTER == (int)HC_REVAL_AFTER &&
	       (int)HC_REVALIDATE_ALWAYS == (int)HC_REVAL_ALWAYS &&
	       HC_REVALIDATE_AFTER_MAX == HC_REVAL_TTL_MAX &&
	       HCCTL_REVAL_NOT_MODIFIED == HCS3_NOT_MODIFIED,
	       "config.h, verdict.h and s3.h mirror the kernel's revalidation");

#ifndef HYPERCACHED_VERSION
#define HYPERCACHED_VERSION "0.1.0"
#endif
#define HC_DEV_PATH	"/dev/hypercache0"

static enum hc_log_level log_level = HC_LOG_INFO;
static bool log_journal;	/* stderr is the journal: "<N>" prefixes */
static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t reload_signal;	/* SIGHUP: reload_config() */

__attribute__((format(printf, 2, 3)))
static void hc_log(enum hc_log_level lvl, const char *fmt, ...)
{
	struct timespec now;
	char prefix[96];
	va_list ap;

	/* log_level changes on SIGHUP (main thread) while others log */
	if (lvl > __atomic_load_n(&log_level, __ATOMIC_RELAXED))
		return;
	clock_gettime(CLOCK_REALTIME, &now);
	hc_log_prefix(prefix, sizeof(prefix), log_journal, "hypercached", lvl,
		      &now);
	flockfile(stderr);	/* the ingest and egress threads both log */
	fputs(prefix, stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	funlockfile(stderr);
}

/*
 * The main loop waits in ppoll() with these signals unblocked; a thread
 * that does not block them (one a library started with its own mask) may
 * take one instead, so the handlers also wake the loop through the done
 * eventfd (write(2) is async-signal-safe; a spurious wake reaps nothing).
 * 80-hypercached's reload test once saw a SIGHUP that woke nothing.
 */
static void wake_main_loop(void);

static void on_signal(int sig)
{
	stop_signal = sig;
	wake_main_loop();
}

static void on_reload(int sig)
{
	(void)sig;
	reload_signal = 1;
	wake_main_loop();
}

static void usage(FILE *f)
{
	fprintf(f,
"Usage: hypercached [-f] [-c CONFIG] [--check-config]\n"
"\n"
"The HyperCache helper daemon: serves the kernel's ingest requests.\n"
"\n"
"Options:\n"
"  -c, --config CONFIG  configuration file (default " HC_CONFIG_PATH ")\n"
"      --check-config   load the configuration, report, and exit (0: valid)\n"
"  -f, --foreground     run in the foreground (the only mode)\n"
"  -h, --help           show this help\n"
"  -V, --version        show the version\n");
}

/* End request @r with errno @e (positive). */
/*
 * The request the dispatcher is handling, for the exporter (metrics.h): its
 * backend (NULL until resolved), for fail().  The dispatcher's.
 */
static const char *metrics_backend;

static void fail(struct hc_channel *ch, const struct hc_ingest_req *r, int e)
{
	int ret = hc_channel_fail(ch, r, e);

	if (metrics_backend)
		hc_metrics_note_ingest(metrics_backend, false, 0, 0, false);

	if (ret)
		hc_log(HC_LOG_WARN, "%s: FAIL %s: %s", r->uri, strerror(e),
		       strerror(-ret));
	else
		hc_log(HC_LOG_INFO, "%s: failed: %s", r->uri, strerror(e));
}

/* --- ingest: the dispatcher and the part workers ------------------------ */

/*
 * The main thread is the dispatcher: it alone reads the helper channel.
 * It reads the kernel's requests while transfers run (into @pending), and
 * while fewer than max_objects_in_flight objects are in flight it resolves
 * the next one, asks its backend for the size (HEAD), ALLOCs it and hands
 * it to the scheduler (xsched.h).  The part workers take parts from the
 * scheduler (any object's: a worker is a transfer slot of a backend, with
 * that slot's S3 client), fetch each into a buffer of its own length,
 * write it O_DIRECT into the extents, note its CRC-32C and end it; the
 * worker that ends an object's last part queues the object on @done,
 * waking the dispatcher, which FAILs it, or combines the parts' CRCs
 * (crc.h) and queues it for a DONE reporter (@report).  The kernel's DONE
 * journals the object with a flush of every member, which makes its
 * completed writes durable (no fdatasync of ours): the reporters send it
 * on the same channel, several at once (their journal records then go
 * together, with one flush), while the dispatcher goes on; each reported
 * object goes back to it (@reported) to end.
 */
/*
 * The HEAD workers: an object's HEAD (and, for a missing key, the GET of
 * its error document) runs in one of them, not in the dispatcher, so that
 * the dispatcher's ALLOCs never wait for the network and up to
 * this many HEADs run at once.
 */
#define HEAD_WORKERS_MAX	16

/*
 * The clients of one S3 backend: one per transfer slot, kept between
 * objects (their connections are reused), @ctl for the dispatcher's
 * requests (a re-HEAD after a change), and @hd[k] of HEAD worker k (made
 * by that worker, from @creds and @opts, when it first needs it).
 */
struct s3_backend {
	const struct hc_backend *b;
	struct hcs3 *c[HC_FILL_WORKERS_MAX];
	struct hcs3 *ctl;
	struct hcs3 *hd[HEAD_WORKERS_MAX];
	int hd_recv[HEAD_WORKERS_MAX];	/* hd[k]'s receive buffer's node (place.h) */
	struct hc_creds creds;
	struct hcs3_opts opts;
};

struct s3_src {
	struct s3_backend *s;
	const char *bucket;
	const char *key;
	struct hcs3_object obj;		/* size and ETag every part must match */
	/*
	 * The object's first @first_len bytes, fetched with its version
	 * (hcs3_get_first()) in a buffer of @first_res bytes of the budget
	 * (first_get()); NULL: none.  Parts read what they cover of it.
	 */
	char *first;
	size_t first_len;
	uint64_t first_res;
	int first_node;			/* its receive buffer's node (place.h) */
};

/*
 * The first GET's bytes: at most this many, and at most a part; all the
 * objects waiting on theirs hold at most half the buffer budget less a
 * part (first_get()), so that with write-back's half a part can always
 * run.
 */
#define FIRST_MAX	(1024 * 1024)
static uint64_t first_mem;	/* under ing.lock */

/*
 * First-GET buffers kept for the next objects: a new one per object cost
 * its page faults and zeroed pages, and its munmap an IPI to every CPU
 * (together about 8 % of the guest's samples at 1 MiB objects).  A kept
 * buffer stays reserved in the budget and counted in first_mem; at most
 * FIRST_KEEP of them, freed when the engine closes.  All are of
 * first_size() bytes: part_size changes only with a restart.  Under
 * ing.lock.
 */
#define FIRST_KEEP	16
static void *first_kept[FIRST_KEEP];
static unsigned int first_nkept;

struct ingest_obj {
	struct hc_xsched_obj so;
	struct hc_ingest_req r;
	struct hc_target t;		/* where r.uri lives */
	hc_fill_fetch_fn fetch;
	void *src;
	struct s3_src s3;
	int posix_fd;
	int (*refetch)(void *src, uint64_t size);
	bool restarted;			/* once, after a change mid-ingest */
	unsigned int slowdowns;		/* parts moved again after SlowDown */
	int dev_fd;			/* HC_DEV_PATH, O_DIRECT */
	double m_t0;			/* arrival, for the metrics */
	bool ttfb_seen;			/* its first part arrived */
	uint32_t *crc;			/* per part */
	bool placed;			/* @numa holds its pool's map */
	struct hc_numa_map numa;
	struct hc_place_tally tally;	/* where its parts were placed */
	char err[768];			/* the first part failure */
	int head_ret;			/* the HEAD's result */
	double t0;
	uint32_t crc_all;		/* moved: the object's CRC-32C */
	double secs;			/* moved: its transfer's seconds */
	int done_ret;			/* reported: DONE's result */
	struct ingest_obj *next;	/* in @pending, @heads, @headed, @done,
					 * @report or @reported */
};

struct head_worker;

/* DONE reporters: at most this many, and max_objects_in_flight */
#define REPORTERS_MAX	8

struct ingest_eng {
	pthread_mutex_t lock;		/* @s, @done, @stop */
	pthread_cond_t cv;		/* a part ended, an object came, stop */
	struct hc_xsched s;
	const struct hc_config *cfg;
	int done_fd;			/* eventfd: @done or @headed not empty */
	struct ingest_obj *done;
	struct ingest_obj *pending, *pending_tail;	/* not yet started */
	pthread_cond_t head_cv;		/* @heads not empty, or stop */
	struct ingest_obj *heads, *heads_tail;	/* for the HEAD workers */
	struct ingest_obj *headed;	/* HEAD done, for the dispatcher */
	unsigned int heading;		/* on @heads, in a HEAD, on @headed */
	unsigned int in_flight;		/* handed to the scheduler */
	struct head_worker *hw;		/* nr_head of them */
	unsigned int nr_head;
	bool stop;
	/*
	 * The DONE reporters (report_worker()): the kernel's DONE flushes the
	 * members and journals the object, so it is not the dispatcher's:
	 * several at once share the flushes and the journal's writes.
	 */
	struct hc_channel *ch;		/* theirs too; set before they start */
	pthread_cond_t report_cv;	/* @report not empty, or stop */
	struct ingest_obj *report;	/* moved, to be reported */
	struct ingest_obj *reported;	/* for the dispatcher to end */
	pthread_t rw[REPORTERS_MAX];
	unsigned int nr_report;
	/* the dispatcher's: the figures of the current busy period */
	double busy_since;
	uint64_t busy_bytes, busy_objects;
	double busy_alloc;	/* its waits in the kernel's ALLOC */
	double busy_done;	/* in DONEs; under @lock */
};

static struct ingest_eng ing = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.done_fd = -1,
};

/* The first GET's buffer size: at most FIRST_MAX, and at most a part. */
static uint64_t first_size(void)
{
	uint64_t part = ing.s.cfg.part_size;

	return part < FIRST_MAX ? part : FIRST_MAX;
}

/*
 * Put @o on the dispatcher's list @list (@e->done, @e->headed or
 * @e->reported) and wake it; under @e->lock.
 */
static void ingest_hand_back(struct ingest_eng *e, struct ingest_obj **list,
			     struct ingest_obj *o)
{
	uint64_t one = 1;

	o->next = *list;
	*list = o;
	if (write(e->done_fd, &one, sizeof(one)) != sizeof(one))
		hc_log(HC_LOG_WARN, "cannot wake the dispatcher");
}

static void wake_main_loop(void)
{
	uint64_t one = 1;
	int saved = errno;

	if (ing.done_fd >= 0 && write(ing.done_fd, &one, sizeof(one)) < 0) {
		/* EAGAIN: the counter is full, the loop is awake already */
	}
	errno = saved;
}

static void first_drop(struct s3_src *s);

static void ingest_obj_free(struct ingest_obj *o)
{
	first_drop(&o->s3);
	if (o->posix_fd >= 0)
		close(o->posix_fd);
	if (o->dev_fd >= 0)
		close(o->dev_fd);
	free(o->crc);
	free(o);
}

/*
 * A part that still got SlowDown (or 429) after the client's retries is
 * moved again later, its backend paused (xsched.h), up to this many times
 * per object; then the object fails.
 */
#define INGEST_SLOWDOWNS_MAX	16

/* A transfer that has to wait for the backend: the part is moved later. */
static bool slowdown_errno(int ret)
{
	return ret == -EAGAIN;
}

/*
 * The first GET's buffer when it holds all of part @p (an object of at
 * most FIRST_MAX, or parts no larger): the part is written and
 * checksummed from it, not from a copy in the worker's buffer (s3_fetch()
 * finds its bytes in place).  It is aligned for O_DIRECT and has room for
 * the part's zeroed tail; it lives until every part has ended
 * (ingest_finished()).
 */
static void *first_part_buf(const struct ingest_obj *o,
			    const struct hc_xsched_part *p)
{
	const struct s3_src *s = &o->s3;

	if (o->t.b->type != HC_BACKEND_S3 || !s->first || p->off ||
	    s->first_len != p->len || p->buf_len > s->first_res)
		return NULL;
	return s->first;
}

static void *part_worker(void *arg)
{
	struct ingest_eng *e = arg;
	void *keep = NULL;	/* the last part's buffer, while there is work */
	size_t keep_len = 0;
	char msg[768];

	pthread_setname_np(pthread_self(), "hc-part");
	/* its transfers on the NIC's node, libcurl's buffers there (place.h) */
	hc_place_net_thread(false);
	pthread_mutex_lock(&e->lock);
	while (!e->stop) {
		struct hc_xsched_part p;
		enum hc_xsched_outcome out = HC_XSCHED_OK;
		struct ingest_obj *o;
		struct hc_place_part pp;
		uint64_t wake, now = hc_now_ms(), retry_after = 0;
		void *buf = NULL;
		bool fin;
		int ret;

		ret = hc_xsched_next(&e->s, now, &p, &wake);
		if (ret) {
			/* idle: the buffer goes (the budget counts parts moving) */
			hc_place_buf_free(keep, keep_len);
			keep = NULL;
			keep_len = 0;
			if (ret == -EAGAIN && wake != UINT64_MAX) {
				struct timespec ts;

				clock_gettime(CLOCK_MONOTONIC, &ts);
				wake -= now;
				ts.tv_sec += wake / 1000;
				ts.tv_nsec += (long)(wake % 1000) * 1000000L;
				if (ts.tv_nsec >= 1000000000L) {
					ts.tv_sec++;
					ts.tv_nsec -= 1000000000L;
				}
				pthread_cond_timedwait(&e->cv, &e->lock, &ts);
			} else {
				pthread_cond_wait(&e->cv, &e->lock);
			}
			continue;
		}
		pthread_mutex_unlock(&e->lock);
		o = p.obj->arg;
		/*
		 * The buffer of the worker's last part if it is of this one's
		 * length (a new one per part cost a page fault and a zeroed
		 * page per 4 KiB: 4 % of the guest's CPU at 1 MiB objects);
		 * placed: a mapping of its own, bound per run (place.h), which
		 * discards what it held.  Not placing, a part the first GET
		 * brought whole needs none.
		 */
		buf = o->placed ? NULL : first_part_buf(o, &p);
		if (!buf && keep && keep_len != p.buf_len) {
			hc_place_buf_free(keep, keep_len);
			keep = NULL;
		}
		if (!buf && !keep) {
			keep = hc_place_buf(p.buf_len);
			keep_len = p.buf_len;
		}
		if (!buf)
			buf = keep;
		if (!buf) {
			ret = -ENOMEM;
			snprintf(msg, sizeof(msg), "out of memory for a part");
		} else {
			bool net = o->t.b->type == HC_BACKEND_S3;

			if (o->placed)
				hc_place_part(&o->numa, o->r.ext, o->r.nr_ext,
					      p.off, p.buf_len, buf, &pp);
			else
				pp = (struct hc_place_part){ .node = -1 };
			if (net)
				hc_place_net_begin(&pp);
			ret = o->fetch(o->src, p.slot, p.off, p.len, buf, msg,
				       sizeof(msg));
			if (net)
				hc_place_net_end(&pp, HC_PLACE_INGEST,
						 &o->tally);
		}
		if (!ret)
			hc_place_count(&pp, buf, HC_PLACE_INGEST, &o->tally);
		if (!ret) {
			memset((char *)buf + p.len, 0, p.buf_len - p.len);
			ret = hc_fill_write(o->dev_fd, HC_DEV_PATH, o->r.ext,
					    o->r.nr_ext, buf, p.off, p.buf_len,
					    msg, sizeof(msg));
		}
		if (!ret)
			o->crc[p.no] = hc_crc32c(buf, p.len);
		if (!ret && !__atomic_exchange_n(&o->ttfb_seen, true,
						 __ATOMIC_RELAXED))
			hc_metrics_note_ttfb(o->t.b->name, hc_now() - o->m_t0);
		if (ret && slowdown_errno(ret) &&
		    __atomic_add_fetch(&o->slowdowns, 1, __ATOMIC_RELAXED) <=
		    INGEST_SLOWDOWNS_MAX) {
			out = HC_XSCHED_SLOWDOWN;
			if (o->t.b->type == HC_BACKEND_S3)
				retry_after = hcs3_retry_after_ms(o->s3.s->c[p.slot]);
			hc_log(HC_LOG_WARN, "%s: part %llu: %s; backend %s "
			       "backs off%s", o->r.uri, (unsigned long long)p.no,
			       msg, o->t.b->name,
			       retry_after ? " as its Retry-After says" : "");
		} else if (ret) {
			out = HC_XSCHED_FAIL;
		}
		pthread_mutex_lock(&e->lock);
		if (out == HC_XSCHED_FAIL && !o->so.error)
			memcpy(o->err, msg, sizeof(o->err));
		fin = hc_xsched_end(&e->s, &p, out, ret, retry_after,
				    hc_now_ms());
		pthread_cond_broadcast(&e->cv);
		if (fin)
			ingest_hand_back(e, &e->done, o);
	}
	pthread_mutex_unlock(&e->lock);
	hc_place_buf_free(keep, keep_len);
	return NULL;
}

/* Hand @o (allocated, extents checked) to the scheduler. */
static void ingest_start(struct ingest_eng *e, struct ingest_obj *o)
{
	int ret;

	o->t0 = hc_now();
	o->so.size = o->r.size;
	o->so.backend = (unsigned int)(o->t.b - e->cfg->backends);
	o->so.arg = o;
	pthread_mutex_lock(&e->lock);
	ret = hc_xsched_add(&e->s, &o->so);
	if (ret == 1) {			/* nothing to move */
		ingest_hand_back(e, &e->done, o);
	}
	pthread_cond_broadcast(&e->cv);
	pthread_mutex_unlock(&e->lock);
	if (!e->in_flight++ && !e->busy_objects)
		e->busy_since = o->t0;
	hc_log(HC_LOG_DEBUG, "%s: started, %u object%s in flight", o->r.uri,
	       e->in_flight, e->in_flight == 1 ? "" : "s");
}

/*
 * Report @size and the version's @etag and Last-Modified @mtime (unless
 * the kernel allocated the request already, as it does for a request
 * re-sent after a helper died: then the size must not have changed), check
 * the extents and start the transfer; or FAIL.  @what names the source in
 * the log.  Frees @o unless started.
 */
static void ingest_fill(struct hc_channel *ch, const struct hc_config *cfg,
			struct ingest_obj *o, uint64_t size,
			const char *etag, int64_t mtime, const char *what)
{
	struct hc_ingest_req *r = &o->r;
	uint64_t nr_parts;
	char err[768];
	bool admitted;
	int ret;

	if (r->allocated) {
		if (r->size != size) {
			hc_log(HC_LOG_WARN, "%s: size changed (%llu, now %llu)",
			       r->uri, (unsigned long long)r->size,
			       (unsigned long long)size);
			fail(ch, r, ESTALE);
			goto out_free;
		}
	} else {
		double t = hc_now();

		ret = hc_channel_alloc(ch, r, size, etag, mtime, &admitted);
		ing.busy_alloc += hc_now() - t;
		if (ret) {
			hc_log(HC_LOG_WARN, "%s: ALLOC of %llu bytes: %s",
			       r->uri, (unsigned long long)size,
			       strerror(-ret));
			/*
			 * EFBIG (larger than the pool) and EINVAL leave the
			 * request as it was; every other refusal ended it in
			 * the kernel.  End it, so that its readers learn why
			 * now, not at their timeout.
			 */
			if (ret == -EFBIG || ret == -EINVAL)
				fail(ch, r, -ret);
			goto out_free;
		}
		if (!admitted) {
			hc_log(HC_LOG_INFO, "%s: not admitted", r->uri);
			goto out_free;
		}
	}
	hc_log(HC_LOG_DEBUG, "%s: %llu bytes in %u extents from %s", r->uri,
	       (unsigned long long)r->size, r->nr_ext, what);
	ret = hc_extents_check(r->ext, r->nr_ext, r->size, HC_FILL_BLOCK, err,
			       sizeof(err));
	if (ret) {
		hc_log(HC_LOG_ERROR, "%s: %s", r->uri, err);
		fail(ch, r, -ret);
		goto out_free;
	}
	o->dev_fd = open(HC_DEV_PATH, O_WRONLY | O_DIRECT | O_CLOEXEC);
	if (o->dev_fd < 0) {
		ret = -errno;
		hc_log(HC_LOG_ERROR, "%s: %s: %s", r->uri, HC_DEV_PATH,
		       strerror(-ret));
		fail(ch, r, -ret);
		goto out_free;
	}
	o->placed = r->has_pool && !hc_place_map(r->pool_uuid, &o->numa);
	nr_parts = (r->size + cfg->part_size - 1) / cfg->part_size;
	o->crc = calloc(nr_parts ? nr_parts : 1, sizeof(*o->crc));
	if (!o->crc) {
		hc_log(HC_LOG_ERROR, "%s: out of memory", r->uri);
		fail(ch, r, ENOMEM);
		goto out_free;
	}
	ingest_start(&ing, o);
	return;
out_free:
	ingest_obj_free(o);
}

static void ingest_posix(struct hc_channel *ch, const struct hc_config *cfg,
			 struct ingest_obj *o)
{
	char path[HC_PATH_MAX + URI_KEY_MAX + 2], err[512];
	struct hc_ingest_req *r = &o->r;
	uint64_t size;
	int64_t mtime;
	int ret;

	ret = hc_posix_path(o->t.b, o->t.u.key, o->t.u.key_len, path,
			    sizeof(path), err, sizeof(err));
	if (!ret) {
		double t = hc_now();

		ret = hc_posix_open(path, &o->posix_fd, &size, &mtime, err,
				    sizeof(err));
		hc_metrics_note_head(o->t.b->name, hc_now() - t);
	}
	if (ret) {
		hc_log(HC_LOG_WARN, "%s: %s", r->uri, err);
		fail(ch, r, -ret);
		ingest_obj_free(o);
		return;
	}
	o->fetch = hc_posix_fetch;
	o->src = (void *)(intptr_t)o->posix_fd;
	ingest_fill(ch, cfg, o, size, NULL, mtime, path);
}


/* The ingest thread's; the egress thread has its own. */
static struct s3_backend s3_backends[HC_BACKENDS_MAX];

/*
 * The clients of S3 backend @b in @tab, made on first use; NULL with the
 * reason in @err and its negative errno in *@rc (the credential chain's:
 * -EACCES refused, -EIO/-ETIMEDOUT unreachable, ...; -ENOMEM).
 */
static struct s3_backend *s3_clients(struct s3_backend *tab,
				     const struct hc_config *cfg,
				     const struct hc_backend *b,
				     char *err, size_t errlen, int *rc)
{
	struct retry_policy *pol;
	struct hcs3_opts opts;
	struct hc_creds creds;
	struct s3_backend *s;
	unsigned int i;
	int ret;

	for (i = 0; i < HC_BACKENDS_MAX; i++) {
		s = &tab[i];
		if (s->b == b)
			return s;
		if (!s->b)
			break;
	}
	*rc = -ENOMEM;
	if (i == HC_BACKENDS_MAX) {
		snprintf(err, errlen, "too many S3 backends");
		return NULL;
	}
	ret = hc_creds_lookup(b, environ, getenv("HOME"), &creds, err, errlen);
	if (ret) {
		*rc = ret;
		return NULL;
	}
	pol = malloc(sizeof(*pol));
	if (!pol) {
		hc_creds_release(&creds);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	*pol = retry_policy_default;
	pol->max_attempts = cfg->retry_attempts;
	opts = (struct hcs3_opts){
		.timeout_connect = cfg->timeout_connect,
		.timeout_request = cfg->timeout_request,
		.retry = pol,
	};
	ret = hcs3_new(b, &creds, &opts, &s->ctl, err, errlen);
	if (ret) {
		*rc = ret;
		hc_creds_release(&creds);
		free(pol);
		return NULL;
	}
	s->creds = creds;
	s->opts = opts;
	for (i = 0; i < cfg->ingest_concurrency; i++) {
		ret = hcs3_new(b, &creds, &opts, &s->c[i], err, errlen);
		if (ret) {
			*rc = ret;
			while (i--)
				hcs3_free(s->c[i]);
			hcs3_free(s->ctl);
			hc_creds_release(&creds);
			free(pol);
			return NULL;
		}
		/* where libcurl's receive buffer is (place.h) */
		hcs3_set_recv_hook(s->c[i], hc_place_net_recv, NULL);
	}
	s->b = b;
	hc_log(HC_LOG_INFO, "backend %s: %u S3 clients, endpoint %s (from %s), region %s, credentials from %s%s%s",
	       b->name, cfg->ingest_concurrency, creds.endpoint,
	       hc_endpoint_source_name(creds.endpoint_source), creds.region,
	       hc_creds_source_name(creds.source),
	       creds.provider ? ", refreshed before they expire" : "",
	       creds.source == HC_CREDS_ANONYMOUS && !b->anonymous ?
	       " (none found: set anonymous = true to say so)" : "");
	return s;
}

/*
 * Tests only: HC_TEST_FETCH_DELAY_MS in the environment makes every S3 part
 * fetch wait that long first, so that a test can act mid-ingest (replace
 * the object, kill the daemon, cut the network) without racing it.
 */
static unsigned int test_fetch_delay_ms;

static int s3_fetch(void *src, unsigned int worker, uint64_t off, size_t len,
		    void *buf, char *err, size_t errlen)
{
	struct s3_src *s = src;
	size_t n = 0;

	if (test_fetch_delay_ms)
		usleep(test_fetch_delay_ms * 1000U);
	if (s->first && off < s->first_len) {
		/* what the first GET brought: no request for it */
		n = s->first_len - off < len ? s->first_len - off : len;
		if (buf != s->first + off)	/* not first_part_buf() */
			memcpy(buf, s->first + off, n);
		if (n == len) {
			/* its transfer was the first GET's */
			hc_place_net_recv_from(s->first_node);
			return 0;
		}
	}
	return hcs3_get_range(s->s->c[worker], s->bucket, s->key, off + n,
			      len - n, s->obj.etag, (char *)buf + n, err,
			      errlen);
}

/* The first GET's buffer: kept for the next object, or freed with its bytes. */
static void first_drop(struct s3_src *s)
{
	void *buf = s->first;

	if (!s->first_res)
		return;
	s->first = NULL;
	s->first_len = 0;
	pthread_mutex_lock(&ing.lock);
	if (buf && first_nkept < FIRST_KEEP) {
		first_kept[first_nkept++] = buf;
		buf = NULL;
	} else {
		hc_xsched_release(&ing.s, s->first_res);
		first_mem -= s->first_res;
		pthread_cond_broadcast(&ing.cv);	/* room for a part */
	}
	pthread_mutex_unlock(&ing.lock);
	free(buf);
	s->first_res = 0;
}

/* Free the kept buffers (the engine closes). */
static void first_keep_free(void)
{
	pthread_mutex_lock(&ing.lock);
	while (first_nkept) {
		free(first_kept[--first_nkept]);
		hc_xsched_release(&ing.s, first_size());
		first_mem -= first_size();
	}
	pthread_mutex_unlock(&ing.lock);
}

/*
 * The object's first bytes and its version in one GET, with client @c,
 * into a buffer taken from the budget if it has room now (never waiting
 * for it): 0 and @s->obj set, -ERANGE (or -ENOMEM) when the caller is to
 * HEAD instead, or the GET's error (@err).
 */
static int first_get(struct s3_src *s, struct hcs3 *c, int *recv,
		     char *err, size_t errlen)
{
	uint64_t part = ing.s.cfg.part_size, budget = ing.s.cfg.budget;
	uint64_t n = first_size();
	int ret = -ERANGE;
	void *mem;

	pthread_mutex_lock(&ing.lock);
	if (first_nkept) {
		s->first = first_kept[--first_nkept];
		s->first_res = n;
	} else if (budget / 2 > part && first_mem + n <= budget / 2 - part &&
		   !hc_xsched_reserve(&ing.s, n)) {
		first_mem += n;
		s->first_res = n;
	}
	pthread_mutex_unlock(&ing.lock);
	if (!s->first_res)
		return -ERANGE;
	/* aligned: a part it holds whole is written from it (O_DIRECT) */
	if (!s->first)
		s->first = posix_memalign(&mem, HC_FILL_BLOCK, n) ? NULL : mem;
	*recv = -2;
	if (s->first)
		ret = hcs3_get_first(c, s->bucket, s->key, n, s->first,
				     &s->first_len, &s->obj, err, errlen);
	s->first_node = *recv;
	if (ret)
		first_drop(s);
	return ret;
}

/* The object changed: fetch it again if it has kept its size. */
static int s3_refetch(void *src, uint64_t size)
{
	struct s3_src *s = src;
	char err[512];
	int ret;

	ret = hcs3_head(s->s->ctl, s->bucket, s->key, &s->obj, err,
			sizeof(err));
	if (ret)
		return ret;
	return s->obj.size == size ? 0 : -ESTALE;
}

/*
 * HEAD worker @k's request for @o's version (its own client of the
 * backend, made on first use): an ingest's first GET (first_get()), else
 * a HEAD; the result in @o->head_ret, the reason in @o->err.
 */
static void s3_head(struct ingest_obj *o, unsigned int k)
{
	struct s3_src *src = &o->s3;
	struct s3_backend *s = src->s;
	char *err = o->err;
	size_t errlen = sizeof(o->err);
	double t;
	int ret;

	if (!s->hd[k]) {
		ret = hcs3_new(s->b, &s->creds, &s->opts, &s->hd[k], err,
			       errlen);
		if (ret) {
			o->head_ret = ret;
			return;
		}
		/* where the first GET's receive buffer is (place.h) */
		hcs3_set_recv_hook(s->hd[k], hc_place_net_recv,
				   &s->hd_recv[k]);
	}
	t = hc_now();
	/* an ingest's first bytes come with its version, when they can */
	ret = o->r.reval ? -ERANGE : first_get(src, s->hd[k], &s->hd_recv[k], err,
					 errlen);
	if (ret == -ERANGE || ret == -ENOMEM) {
		/* a revalidation with a kept ETag asks If-None-Match: 304 if same */
		ret = hcs3_head_if(s->hd[k], src->bucket, src->key,
				   o->r.reval && o->r.etag[0] ? o->r.etag : NULL,
				   &src->obj, err, errlen);
	} else {
		/* the GET gave the version, or its error with S3's document */
		o->head_ret = ret;
		hc_metrics_note_head(o->t.b->name, hc_now() - t);
		return;
	}
	hc_metrics_note_head(o->t.b->name, hc_now() - t);
	if (ret == -ENOENT || ret == -EACCES) {
		/*
		 * A HEAD answer has no body, so no S3 error code: ask for one
		 * byte to get the error document (NoSuchKey, NoSuchBucket,
		 * SignatureDoesNotMatch, ...) for the log.
		 */
		char one[1], why[768];

		if (hcs3_get_range(s->hd[k], src->bucket, src->key, 0, 1,
				   NULL, one, why, sizeof(why)) == ret)
			memcpy(err, why, errlen);
	}
	o->head_ret = ret;
}

struct head_worker {
	struct ingest_eng *e;
	unsigned int id;
	pthread_t tid;
};

/* Take queued HEADs, one at a time; each result goes to the dispatcher. */
static void *head_worker(void *arg)
{
	struct head_worker *w = arg;
	struct ingest_eng *e = w->e;

	pthread_setname_np(pthread_self(), "hc-head");
	hc_place_net_thread(true);
	pthread_mutex_lock(&e->lock);
	while (!e->stop) {
		struct ingest_obj *o = e->heads;

		if (!o) {
			pthread_cond_wait(&e->head_cv, &e->lock);
			continue;
		}
		e->heads = o->next;
		if (!e->heads)
			e->heads_tail = NULL;
		pthread_mutex_unlock(&e->lock);
		s3_head(o, w->id);
		pthread_mutex_lock(&e->lock);
		ingest_hand_back(e, &e->headed, o);
	}
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

/* Queue @o for the HEAD workers (an ingest's HEAD or a revalidation's). */
static void heads_push(struct ingest_obj *o)
{
	pthread_mutex_lock(&ing.lock);
	ing.heading++;
	o->next = NULL;
	if (ing.heads_tail)
		ing.heads_tail->next = o;
	else
		ing.heads = o;
	ing.heads_tail = o;
	pthread_cond_signal(&ing.head_cv);
	pthread_mutex_unlock(&ing.lock);
}

/* Queue @o's HEAD for the HEAD workers (the dispatcher goes on). */
static void ingest_s3(struct hc_channel *ch, const struct hc_config *cfg,
		      struct ingest_obj *o)
{
	struct hc_ingest_req *r = &o->r;
	struct s3_src *src = &o->s3;
	char err[768];
	int rc;

	src->bucket = o->t.bucket;
	src->key = o->t.key;
	src->s = s3_clients(s3_backends, cfg, o->t.b, err, sizeof(err), &rc);
	if (!src->s) {
		hc_log(HC_LOG_ERROR, "%s: backend %s: %s", r->uri,
		       o->t.b->name, err);
		fail(ch, r, EACCES);
		ingest_obj_free(o);
		return;
	}
	heads_push(o);
}

static void reval_answer(struct hc_channel *ch, struct ingest_obj *o,
			 int ret, const char *etag, int64_t mtime,
			 uint64_t size, const char *why);

/* The dispatcher: @o's HEAD ended; ALLOC and start it, or FAIL. */
static void ingest_s3_headed(struct hc_channel *ch,
			     const struct hc_config *cfg, struct ingest_obj *o)
{
	char what[HC_URL_MAX + HC_NAME_MAX + HCS3_ETAG_MAX + 32];
	struct hc_ingest_req *r = &o->r;
	int ret = o->head_ret;

	if (r->reval) {
		reval_answer(ch, o, ret, o->s3.obj.etag, o->s3.obj.mtime,
			     o->s3.obj.size, o->err);
		return;
	}

	if (ret) {
		hc_log(ret == -ENOENT ? HC_LOG_INFO : HC_LOG_WARN, "%s: %s",
		       r->uri, o->err);
		metrics_backend = o->t.b->name;
		fail(ch, r, -ret);
		metrics_backend = NULL;
		ingest_obj_free(o);
		return;
	}
	o->err[0] = '\0';
	snprintf(what, sizeof(what), "%s (backend %s, ETag %s)",
		 o->s3.s->creds.endpoint, o->t.b->name, o->s3.obj.etag);
	o->fetch = s3_fetch;
	o->src = &o->s3;
	o->refetch = s3_refetch;
	metrics_backend = o->t.b->name;
	ingest_fill(ch, cfg, o, o->s3.obj.size, o->s3.obj.etag,
		    o->s3.obj.mtime, what);
	metrics_backend = NULL;
}

/*
 * Where @r's URI lives (resolve.h; Documentation/ingest.md, "Resolve the
 * URI"): 0, or a positive errno (logged).
 */
static int resolve(const struct hc_config *cfg, const struct hc_ingest_req *r,
		   struct hc_target *t)
{
	char err[512];
	int ret;

	ret = hc_resolve(cfg, r->uri, r->uri_len, 0, t, err, sizeof(err));
	if (ret)
		hc_log(HC_LOG_WARN, "%s: %s", r->uri, err);
	return -ret;
}

/* ---- revalidation (Documentation/ingest.md, "Revalidation") ---- */

/*
 * The kernel's revalidation rules from the configuration: one per backend
 * whose revalidate is not never, for its hypercache://NAME/ URIs, and for
 * s3:// too when it is the default backend (resolve.h).  A module without
 * revalidation is logged once and the daemon goes on.
 */
static void reval_send_rules(struct hc_channel *ch, const struct hc_config *cfg)
{
	static char prefix[2 * HC_BACKENDS_MAX][HC_NAME_MAX + 16];
	struct hc_channel_rule rule[2 * HC_BACKENDS_MAX];
	unsigned int i, n = 0;
	int ret;

	for (i = 0; i < cfg->nr_backends; i++) {
		const struct hc_backend *b = &cfg->backends[i];

		if (b->revalidate == HC_REVALIDATE_NEVER)
			continue;
		rule[n] = (struct hc_channel_rule){
			prefix[n], (size_t)snprintf(prefix[n], sizeof(prefix[n]),
						    "hypercache://%s/", b->name),
			b->revalidate, b->revalidate_after };
		n++;
		if (b->type == HC_BACKEND_S3 &&
		    !strcmp(cfg->default_backend, b->name)) {
			rule[n] = rule[n - 1];
			rule[n].prefix = "s3://";
			rule[n].len = strlen("s3://");
			n++;
		}
	}
	ret = hc_channel_reval_rules(ch, rule, n);
	if (ret == -EOPNOTSUPP && !n)
		return;		/* an older module, and nothing to ask of it */
	if (ret)
		hc_log(HC_LOG_ERROR, "revalidation rules not taken by the kernel: %s%s",
		       strerror(-ret), ret == -EOPNOTSUPP ?
		       " (the hypercache module does not revalidate): revalidate is ignored" : "");
	else if (n)
		hc_log(HC_LOG_INFO, "revalidation: %u rules", n);
}

/*
 * Answer revalidation @o from its check: @ret as hcctl_verdict_reval()
 * takes it, the backend's (@etag, @mtime, @size) when 0, @why when not.
 */
static void reval_answer(struct hc_channel *ch, struct ingest_obj *o,
			 int ret, const char *etag, int64_t mtime,
			 uint64_t size, const char *why)
{
	struct hc_ingest_req *r = &o->r;
	enum hcctl_verdict v;
	unsigned int result;
	int rc;

	v = hcctl_verdict_reval(r->etag, r->mtime, r->size, ret, etag, mtime,
				size);
	result = v == HCCTL_V_CURRENT ? HC_REVAL_UNCHANGED :
		 v == HCCTL_V_ERROR ? HC_REVAL_FAILED : HC_REVAL_CHANGED;
	if (result == HC_REVAL_FAILED)
		hc_log(HC_LOG_WARN, "%s: revalidation failed, the cached copy is served: %s",
		       r->uri, why && *why ? why : strerror(-ret));
	else
		hc_log(result == HC_REVAL_CHANGED ? HC_LOG_INFO : HC_LOG_DEBUG,
		       "%s: revalidated: %s%s", r->uri, hcctl_verdict_name(v),
		       result == HC_REVAL_CHANGED ? " (ingested again)" : "");
	rc = hc_channel_reval_done(ch, r, result,
				   ret < 0 ? -ret : 0);
	if (rc)
		hc_log(HC_LOG_WARN, "%s: REVALIDATE_DONE: %s", r->uri,
		       strerror(-rc));
	ingest_obj_free(o);
}

/*
 * Revalidation @o: a posix file is looked at here (its size and st_mtime);
 * an S3 object's (conditional) HEAD goes to the HEAD workers, as an
 * ingest's does, and is answered when it ends (ingest_s3_headed()).
 */
static void reval_start(struct hc_channel *ch, const struct hc_config *cfg,
			struct ingest_obj *o)
{
	char path[HC_PATH_MAX + URI_KEY_MAX + 2], err[768];
	struct hc_ingest_req *r = &o->r;
	uint64_t size = 0;
	int64_t mtime = 0;
	int ret, fd = -1;

	hc_log(HC_LOG_DEBUG, "revalidation %llu: %s",
	       (unsigned long long)r->id, r->uri);
	ret = -resolve(cfg, r, &o->t);
	if (ret) {
		reval_answer(ch, o, ret, NULL, 0, 0, "cannot resolve the URI");
		return;
	}
	if (o->t.b->type == HC_BACKEND_S3) {
		o->s3.bucket = o->t.bucket;
		o->s3.key = o->t.key;
		o->s3.s = s3_clients(s3_backends, cfg, o->t.b, err, sizeof(err),
				     &ret);
		if (!o->s3.s) {
			reval_answer(ch, o, -EACCES, NULL, 0, 0, err);
			return;
		}
		heads_push(o);
		return;
	}
	err[0] = '\0';
	ret = hc_posix_path(o->t.b, o->t.u.key, o->t.u.key_len, path,
			    sizeof(path), err, sizeof(err));
	if (!ret)
		ret = hc_posix_open(path, &fd, &size, &mtime, err, sizeof(err));
	if (fd >= 0)
		close(fd);
	reval_answer(ch, o, ret, NULL, mtime, size, err);
}

/* Start @o: resolve, then the backend's size and the kernel's ALLOC. */
static void handle(struct hc_channel *ch, const struct hc_config *cfg,
		   struct ingest_obj *o)
{
	struct hc_ingest_req *r = &o->r;
	int e;

	hc_log(HC_LOG_DEBUG, "request %llu: %s%s", (unsigned long long)r->id,
	       r->uri, r->allocated ? " (allocated)" : "");
	metrics_backend = NULL;
	e = resolve(cfg, r, &o->t);
	if (e) {
		fail(ch, r, e);
		ingest_obj_free(o);
		return;
	}
	metrics_backend = o->t.b->name;
	if (o->t.b->type == HC_BACKEND_POSIX)
		ingest_posix(ch, cfg, o);
	else
		ingest_s3(ch, cfg, o);
	metrics_backend = NULL;
}

/* Where @what's parts of @uri were placed (place.h), if any was. */
static void log_placement(const char *uri, const char *what,
			  const struct hc_place_tally *t)
{
	char recv[96] = "";

	if (!t->parts)
		return;
	if (t->net_pages)
		snprintf(recv, sizeof(recv), ", libcurl's receive buffer on "
			 "the NIC's node %llu of %llu",
			 (unsigned long long)t->net_local,
			 (unsigned long long)t->net_pages);
	hc_log(HC_LOG_INFO, "%s: numa: %s of %llu parts: buffer pages on "
	       "their member's node %llu of %llu, workers on the part's node "
	       "%llu of %llu, transfers on the NIC's node %llu of %llu%s",
	       uri, what, (unsigned long long)t->parts,
	       (unsigned long long)t->local, (unsigned long long)t->pages,
	       (unsigned long long)t->on_node, (unsigned long long)t->parts,
	       (unsigned long long)t->net_on, (unsigned long long)t->net,
	       recv);
}

/*
 * An object's transfer ended: DONE with the CRC of its parts, FAIL, or (the
 * object changed in the backend while we copied it: what is in the extents
 * may be half old, half new) start over once from the new version if it
 * has the same size; never report it done.
 */
static void ingest_finished(struct hc_channel *ch, struct ingest_eng *e,
			    struct ingest_obj *o)
{
	const struct hc_config *cfg = e->cfg;
	struct hc_ingest_req *r = &o->r;
	double secs = hc_now() - o->t0;
	uint64_t off;
	uint32_t crc = 0;
	int ret = o->so.error;

	first_drop(&o->s3);	/* every part ended; a restart GETs anew */
	if (ret == -ESTALE && o->refetch && !o->restarted) {
		hc_log(HC_LOG_WARN, "%s: changed during the ingest (%s); "
		       "starting over", r->uri, o->err);
		o->restarted = true;
		ret = o->refetch(o->src, r->size);
		if (!ret) {
			e->in_flight--;
			o->err[0] = '\0';
			ingest_start(e, o);
			return;
		}
		snprintf(o->err, sizeof(o->err), "changed during the ingest");
	}
	if (ret) {
		e->in_flight--;
		hc_log(HC_LOG_ERROR, "%s: %s", r->uri, o->err);
		metrics_backend = o->t.b->name;
		fail(ch, r, -ret);
		metrics_backend = NULL;
		ingest_obj_free(o);
		return;
	}
	for (off = 0; off < r->size; off += cfg->part_size) {
		uint64_t len = r->size - off < cfg->part_size ?
			       r->size - off : cfg->part_size;
		uint32_t c = o->crc[off / cfg->part_size];

		crc = off ? hc_crc32c_combine(crc, c, len) : c;
	}
	/* to a reporter; still in flight until reported (ingest_reported()) */
	o->crc_all = crc;
	o->secs = secs;
	pthread_mutex_lock(&e->lock);
	o->next = e->report;
	e->report = o;
	pthread_cond_signal(&e->report_cv);
	pthread_mutex_unlock(&e->lock);
}

/*
 * A DONE reporter: report the moved objects, one at a time, beside the
 * dispatcher and the other reporters (the channel takes calls from several
 * threads); each then goes back to the dispatcher (@reported).  Stops
 * once nothing is left to report after ingest_stop_threads().
 */
static void *report_worker(void *arg)
{
	struct ingest_eng *e = arg;

	pthread_setname_np(pthread_self(), "hc-done");
	pthread_mutex_lock(&e->lock);
	for (;;) {
		struct ingest_obj *o = e->report;
		struct hc_ingest_req *r;
		double t, secs;
		int ret;

		if (!o) {
			if (e->stop)
				break;
			pthread_cond_wait(&e->report_cv, &e->lock);
			continue;
		}
		e->report = o->next;
		pthread_mutex_unlock(&e->lock);
		r = &o->r;
		secs = o->secs;
		t = hc_now();
		ret = hc_channel_done(e->ch, r, &o->crc_all);
		t = hc_now() - t;
		hc_metrics_note_ingest(o->t.b->name, !ret, r->size,
				       hc_now() - o->m_t0, o->restarted);
		if (ret)
			hc_log(HC_LOG_WARN, "%s: DONE: %s", r->uri,
			       strerror(-ret));
		else
			hc_log(HC_LOG_INFO, "%s: ingested %llu bytes in %.3f s "
			       "(%.1f MB/s, %llu parts, crc32c %08x)", r->uri,
			       (unsigned long long)r->size, secs,
			       secs > 0 ? r->size / secs / 1e6 : 0.0,
			       (unsigned long long)o->so.nr_parts, o->crc_all);
		pthread_mutex_lock(&e->lock);
		o->done_ret = ret;
		e->busy_done += t;
		ingest_hand_back(e, &e->reported, o);
	}
	pthread_mutex_unlock(&e->lock);
	return NULL;
}

/* A reported object ends: out of flight, counted, freed. */
static void ingest_reported(struct ingest_eng *e, struct ingest_obj *o)
{
	e->in_flight--;
	if (!o->done_ret) {
		e->busy_bytes += o->r.size;
		e->busy_objects++;
		log_placement(o->r.uri, "ingest", &o->tally);
	}
	ingest_obj_free(o);
}

/* Report what finished; log the aggregate when the last one did. */
static void ingest_reap(struct hc_channel *ch, struct ingest_eng *e)
{
	struct ingest_obj *list, *headed, *reported, *o;
	uint64_t n;

	if (read(e->done_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		hc_log(HC_LOG_WARN, "done queue: %s", strerror(errno));
	pthread_mutex_lock(&e->lock);
	list = e->done;
	e->done = NULL;
	headed = e->headed;
	e->headed = NULL;
	reported = e->reported;
	e->reported = NULL;
	pthread_mutex_unlock(&e->lock);
	while (list) {
		o = list;
		list = o->next;
		ingest_finished(ch, e, o);
	}
	while (reported) {
		o = reported;
		reported = o->next;
		ingest_reported(e, o);
	}
	while (headed) {
		o = headed;
		headed = o->next;
		o->next = NULL;
		pthread_mutex_lock(&e->lock);
		e->heading--;
		pthread_mutex_unlock(&e->lock);
		ingest_s3_headed(ch, e->cfg, o);
	}
	if (!e->in_flight && !e->heading && !e->pending && e->busy_objects) {
		double secs = hc_now() - e->busy_since, done;

		pthread_mutex_lock(&e->lock);
		done = e->busy_done;
		e->busy_done = 0;
		pthread_mutex_unlock(&e->lock);
		hc_log(HC_LOG_INFO, "ingest: %llu objects, %llu bytes in %.3f s "
		       "(%.3f GB/s, %.1f objects/s); the kernel's ALLOC %.3f s, "
		       "DONE %.3f thread-s",
		       (unsigned long long)e->busy_objects,
		       (unsigned long long)e->busy_bytes, secs,
		       secs > 0 ? e->busy_bytes / secs / 1e9 : 0.0,
		       secs > 0 ? e->busy_objects / secs : 0.0,
		       e->busy_alloc, done);
		e->busy_objects = 0;
		e->busy_bytes = 0;
		e->busy_alloc = 0;
	}
}

/* Start pending requests while fewer than max_objects_in_flight run. */
static void ingest_admit(struct hc_channel *ch, struct ingest_eng *e)
{
	while (e->pending &&
	       e->in_flight + e->heading < e->cfg->max_objects_in_flight) {
		struct ingest_obj *o = e->pending;

		e->pending = o->next;
		if (!e->pending)
			e->pending_tail = NULL;
		o->next = NULL;
		handle(ch, e->cfg, o);
	}
}

/* The part workers: ingest_concurrency per backend, at most this many. */
#define PART_WORKERS_MAX	256

/* Stop and join the part workers (@tid, @nr) and the HEAD workers. */
static void ingest_stop_threads(struct ingest_eng *e, pthread_t *tid,
				unsigned int nr)
{
	pthread_mutex_lock(&e->lock);
	e->stop = true;
	pthread_cond_broadcast(&e->cv);
	pthread_cond_broadcast(&e->head_cv);
	pthread_cond_broadcast(&e->report_cv);
	pthread_mutex_unlock(&e->lock);
	while (nr--)
		pthread_join(tid[nr], NULL);
	while (e->nr_head--)
		pthread_join(e->hw[e->nr_head].tid, NULL);
	e->nr_head = 0;
	/* they report what was moved first */
	while (e->nr_report--)
		pthread_join(e->rw[e->nr_report], NULL);
	e->nr_report = 0;
}

static void ingest_free_list(struct ingest_obj *o)
{
	while (o) {
		struct ingest_obj *next = o->next;

		ingest_obj_free(o);
		o = next;
	}
}

static int ingest_open(struct ingest_eng *e, const struct hc_config *cfg,
		       pthread_t *tid, unsigned int *nr, char *err,
		       size_t errlen)
{
	struct hc_xsched_cfg sc = {
		.max_objects = cfg->max_objects_in_flight,
		.slots = cfg->ingest_concurrency,
		.part_size = cfg->part_size,
		.budget = cfg->buffer_budget,
	};
	unsigned int n = cfg->ingest_concurrency *
			 (cfg->nr_backends ? cfg->nr_backends : 1), nh;
	pthread_condattr_t ca;
	int ret;

	if (n > PART_WORKERS_MAX)
		n = PART_WORKERS_MAX;
	e->cfg = cfg;
	ret = hc_xsched_init(&e->s, &sc, err, errlen);
	first_mem = 0;	/* a new budget: nothing of it taken */
	if (ret)
		return ret;
	/* the workers' timed waits (a paused backend) count CLOCK_MONOTONIC */
	if (pthread_condattr_init(&ca) ||
	    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) ||
	    pthread_cond_init(&e->cv, &ca))
		return hc_seterr(err, errlen, -ENOMEM,
				 "cannot make a condition variable");
	pthread_condattr_destroy(&ca);
	if (pthread_cond_init(&e->head_cv, NULL) ||
	    pthread_cond_init(&e->report_cv, NULL))
		return hc_seterr(err, errlen, -ENOMEM,
				 "cannot make a condition variable");
	nh = cfg->max_objects_in_flight < HEAD_WORKERS_MAX ?
	     cfg->max_objects_in_flight : HEAD_WORKERS_MAX;
	e->hw = calloc(nh, sizeof(*e->hw));
	if (!e->hw)
		return hc_seterr(err, errlen, -ENOMEM, "out of memory");
	e->done_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (e->done_fd < 0) {
		ret = hc_seterr(err, errlen, -errno, "eventfd: %s",
				strerror(errno));
		goto out_hw;
	}
	for (*nr = 0; *nr < n; (*nr)++)
		if (pthread_create(&tid[*nr], NULL, part_worker, e))
			break;
	for (e->nr_head = 0; e->nr_head < nh; e->nr_head++) {
		struct head_worker *w = &e->hw[e->nr_head];

		w->e = e;
		w->id = e->nr_head;
		if (pthread_create(&w->tid, NULL, head_worker, w))
			break;
	}
	if (!*nr || !e->nr_head) {
		ret = hc_seterr(err, errlen, -EAGAIN,
				"cannot start the part and HEAD workers");
		goto out_threads;
	}
	return 0;
out_threads:
	ingest_stop_threads(e, tid, *nr);
	close(e->done_fd);
out_hw:
	free(e->hw);
	return ret;
}

/*
 * Start the DONE reporters, on the dispatcher's channel @ch: 0, or a
 * negative errno if none could start.
 */
static int ingest_start_reporters(struct ingest_eng *e, struct hc_channel *ch)
{
	unsigned int n = e->cfg->max_objects_in_flight < REPORTERS_MAX ?
			 e->cfg->max_objects_in_flight : REPORTERS_MAX;

	e->ch = ch;
	for (e->nr_report = 0; e->nr_report < n; e->nr_report++)
		if (pthread_create(&e->rw[e->nr_report], NULL, report_worker,
				   e))
			break;
	return e->nr_report ? 0 : -EAGAIN;
}

/*
 * Stop the workers (parts in flight are abandoned, and objects not yet
 * allocated dropped: the kernel re-sends both to the next helper; what
 * was moved is reported first).
 */
static void ingest_close(struct ingest_eng *e, pthread_t *tid,
			 unsigned int nr)
{
	ingest_stop_threads(e, tid, nr);
	ingest_free_list(e->pending);
	ingest_free_list(e->heads);
	ingest_free_list(e->headed);
	ingest_free_list(e->reported);
	e->pending = e->heads = e->headed = e->reported = NULL;
	first_keep_free();
	free(e->hw);
	close(e->done_fd);
}

/* --- write-back -------------------------------------------------------- */

/*
 * The backoff of a failing upload: the n-th consecutive failure of an
 * object is re-sent after ceil/2 + a full-jitter draw/2 of the retry
 * policy's backoff, ceil = min(60 s, 1 s * 2^(n-1)) ("equal jitter": never
 * sooner than half the ceiling).
 */
#define EGRESS_RETRY_BASE_MS	1000
#define EGRESS_RETRY_CAP_MS	60000
#define EGRESS_FAILS_MAX	256

struct egress_fails {
	uint64_t hash;		/* FNV-1a of the URI; 0 = free */
	unsigned int n;		/* consecutive failures */
	uint64_t used;		/* for replacing the oldest */
};

/*
 * The egress thread is the dispatcher of the egress channel: it alone uses
 * it.  It reads the kernel's requests (commit order) and queues them; up
 * to max_objects_in_flight egress workers each take the oldest queued one
 * and upload it with their own S3 clients, the parts of all of them
 * sharing each backend's ingest_concurrency transfer slots (hc_egress
 * slot_get/slot_put); a finished upload goes on @done and the dispatcher
 * sends EGRESS_DONE or EGRESS_FAIL as each one ends, in whatever order.
 */
struct egress_job {
	struct hc_ingest_req r;
	struct hc_target t;		/* where r.uri lives */
	int ret;			/* 0, or the upload's negative errno */
	char err[1024];			/* why, if @ret */
	struct hc_egress_result res;
	double secs;
	struct egress_job *next;	/* in @pending, @running or @done */
};

/* A transfer slot of backend @b (egress_slot_get's argument). */
struct egress_slot_arg {
	struct egress_ctx *x;
	unsigned int b;
};

struct egress_ctx {
	const struct hc_config *cfg;
	struct hc_channel *ch;
	int wake_fd;			/* eventfd: stop, or @done not empty */
	volatile int stop;
	atomic_int reregister;		/* a reload: register again */
	int error;			/* the channel broke */
	struct egress_fails fails[EGRESS_FAILS_MAX];	/* the dispatcher's */
	uint64_t tick;
	pthread_mutex_t lock;		/* what follows */
	pthread_cond_t cv;		/* a job, a slot, or stop */
	struct egress_job *pending, *pending_tail, *done;
	struct egress_job *running;	/* taken by a worker */
	unsigned int in_flight;		/* on @running */
	unsigned int slots_used[HC_BACKENDS_MAX];
	/* since the first upload of a busy period: its aggregate figures */
	double busy_since;
	uint64_t busy_bytes, busy_objects;
};

static uint64_t uri_hash(const struct hc_ingest_req *r)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < r->uri_len; i++)
		h = (h ^ (unsigned char)r->uri[i]) * 0x100000001b3ULL;
	return h ? h : 1;
}

static struct egress_fails *fails_find(struct egress_ctx *x,
				       const struct hc_ingest_req *r,
				       bool create)
{
	uint64_t h = uri_hash(r);
	struct egress_fails *old = &x->fails[0];

	for (unsigned int i = 0; i < EGRESS_FAILS_MAX; i++) {
		struct egress_fails *f = &x->fails[i];

		if (f->hash == h)
			return f;
		if (f->used < old->used)
			old = f;
	}
	if (!create)
		return NULL;
	*old = (struct egress_fails){ .hash = h };
	return old;
}

static uint32_t egress_backoff_ms(unsigned int n)
{
	const struct retry_policy pol = {
		.max_attempts = ~0U,
		.base_ms = EGRESS_RETRY_BASE_MS,
		.cap_ms = EGRESS_RETRY_CAP_MS,
		.budget_ms = UINT64_MAX,
	};
	struct retry_state st;
	uint64_t ceil = EGRESS_RETRY_BASE_MS, d = 0;

	for (unsigned int i = 1; i < n && ceil < EGRESS_RETRY_CAP_MS; i++)
		ceil *= 2;
	if (ceil > EGRESS_RETRY_CAP_MS)
		ceil = EGRESS_RETRY_CAP_MS;
	if (!retry_init(&st, &pol, NULL, NULL)) {
		st.attempts = n - 1;
		retry_next(&st, RETRY_OUT_TIMEOUT, 0, 0, &d);
	}
	if (d > ceil)
		d = ceil;
	return (uint32_t)(ceil / 2 + d / 2);
}

/*
 * Report a failed upload: a transient failure is retried after the
 * backoff; a permanent one (hc_egress_permanent(): a 403, a missing
 * bucket, a URI the backend refuses) is not, until the daemon registers
 * again (a restart or a reload): the kernel keeps the object DIRTY with
 * the errno and @why for 'hcctl ls --dirty'.
 */
static void egress_failed(struct egress_ctx *x, const struct hc_ingest_req *r,
			  int e, const char *why)
{
	struct egress_fails *f = fails_find(x, r, true);
	bool permanent = hc_egress_permanent(e);
	char msg[HC_EGRESS_MESSAGE_MAX + 1];
	uint32_t ms;
	int ret;

	f->n++;
	f->used = ++x->tick;
	ms = egress_backoff_ms(f->n);
	if (permanent)
		hc_log(HC_LOG_ERROR, "%s: upload of generation %llu failed "
		       "(%s%s%s), attempt %u; permanent: not retried until "
		       "hypercached is reloaded or restarted (hcctl ls --dirty; "
		       "hcctl evict --discard-dirty throws it away)", r->uri,
		       (unsigned long long)r->id, strerror(e), why ? ": " : "",
		       why ? why : "", f->n);
	else
		hc_log(HC_LOG_ERROR, "%s: upload of generation %llu failed "
		       "(%s%s%s), attempt %u; retry in %u ms", r->uri,
		       (unsigned long long)r->id, strerror(e), why ? ": " : "",
		       why ? why : "", f->n, ms);
	hc_egress_message(msg, sizeof(msg), e, why);
	ret = hc_channel_egress_fail(x->ch, r, e, ms, permanent, msg);
	if (ret)
		hc_log(HC_LOG_WARN, "%s: EGRESS_FAIL: %s", r->uri,
		       strerror(-ret));
}

static void egress_progress(void *arg, uint64_t part_no, uint64_t done,
			    uint64_t nr_parts)
{
	struct egress_job *j = arg;

	if (nr_parts > 1)
		hc_log(HC_LOG_DEBUG, "%s: part %llu uploaded (%llu/%llu)",
		       j->r.uri, (unsigned long long)part_no,
		       (unsigned long long)done, (unsigned long long)nr_parts);
}

/*
 * Wait for a transfer slot of the backend: at most ingest_concurrency
 * uploads (PUTs or parts) of one backend run at once, whichever objects
 * they belong to.  Sleeps; -ECANCELED when stopping.
 */
static int egress_slot_get(void *arg)
{
	struct egress_slot_arg *a = arg;
	struct egress_ctx *x = a->x;
	int ret = 0;

	pthread_mutex_lock(&x->lock);
	while (!x->stop && x->slots_used[a->b] >= x->cfg->ingest_concurrency)
		pthread_cond_wait(&x->cv, &x->lock);
	if (x->stop)
		ret = -ECANCELED;
	else
		x->slots_used[a->b]++;
	pthread_mutex_unlock(&x->lock);
	return ret;
}

static void egress_slot_put(void *arg)
{
	struct egress_slot_arg *a = arg;
	struct egress_ctx *x = a->x;

	pthread_mutex_lock(&x->lock);
	x->slots_used[a->b]--;
	pthread_cond_broadcast(&x->cv);
	pthread_mutex_unlock(&x->lock);
}

/*
 * Buffer memory of an upload, from the one buffer_budget that the ingest
 * scheduler's parts take theirs from (hc_xsched_reserve(), under the
 * ingest engine's lock), and at most half of it for all uploads together
 * (but always one buffer), so that write-back, which nobody waits for,
 * never holds the whole budget against a reader's ingest.  Waits for room
 * as an ingest part does, woken when a part or another upload's buffer
 * ends.  -ECANCELED when stopping, -EFBIG for a buffer above the budget.
 */
static uint64_t egress_mem;	/* under ing.lock */

static int egress_mem_get(void *arg, uint64_t bytes)
{
	struct egress_slot_arg *a = arg;
	int ret;

	pthread_mutex_lock(&ing.lock);
	for (;;) {
		ret = -EAGAIN;
		if (!egress_mem || egress_mem + bytes <= ing.s.cfg.budget / 2)
			ret = hc_xsched_reserve(&ing.s, bytes);
		if (ret != -EAGAIN || a->x->stop || ing.stop)
			break;
		pthread_cond_wait(&ing.cv, &ing.lock);
	}
	if (ret == -EAGAIN)
		ret = -ECANCELED;
	if (!ret)
		egress_mem += bytes;
	pthread_mutex_unlock(&ing.lock);
	return ret;
}

static void egress_mem_put(void *arg, uint64_t bytes)
{
	(void)arg;
	pthread_mutex_lock(&ing.lock);
	hc_xsched_release(&ing.s, bytes);
	egress_mem -= bytes;
	pthread_cond_broadcast(&ing.cv);
	pthread_mutex_unlock(&ing.lock);
}

/* An upload's placement (struct hc_egress.place): its pool's map. */
struct egress_place {
	const struct hc_ingest_req *r;
	struct hc_numa_map map;
	struct hc_place_tally tally;
};

/* the calling thread's part between the two calls of egress_place() */
static __thread struct hc_place_part egress_pp;

static void egress_place(void *arg, uint64_t off, uint64_t len, void *buf,
			 enum hc_egress_place_at at)
{
	struct egress_place *ep = arg;

	switch (at) {
	case HC_EGRESS_PLACE_READ:
		hc_place_part(&ep->map, ep->r->ext, ep->r->nr_ext, off,
			      (len + HC_EGRESS_BLOCK - 1) &
			      ~(uint64_t)(HC_EGRESS_BLOCK - 1), buf, &egress_pp);
		break;
	case HC_EGRESS_PLACE_FILLED:
		hc_place_count(&egress_pp, buf, HC_PLACE_EGRESS, &ep->tally);
		break;
	case HC_EGRESS_PLACE_SEND:
		hc_place_net_begin(&egress_pp);
		break;
	case HC_EGRESS_PLACE_SENT:
		hc_place_net_end(&egress_pp, HC_PLACE_EGRESS, &ep->tally);
		break;
	}
}

/*
 * Upload job @j with the worker's clients @s3 (a worker's own: never
 * shared between threads); the outcome in @j.  Logs what it does; the
 * dispatcher reports it (egress_report()).
 */
static void egress_upload(struct egress_ctx *x, struct s3_backend *s3,
			  struct egress_job *j)
{
	const struct hc_config *cfg = x->cfg;
	struct hc_ingest_req *r = &j->r;
	char path[HC_PATH_MAX + URI_KEY_MAX + 2];
	struct egress_slot_arg slot = { .x = x };
	struct hc_egress_plan plan;
	struct hc_egress e = {
		.size = r->size,
		.ext = r->ext,
		.nr_ext = r->nr_ext,
		.dev = HC_DEV_PATH,
		.part_size = cfg->part_size,
		.workers = cfg->ingest_concurrency,
		.crc = r->has_crc ? &r->crc32c : NULL,
		.stop = &x->stop,
		.progress = egress_progress,
		.progress_arg = j,
		.slot_get = egress_slot_get,
		.slot_put = egress_slot_put,
		.mem_get = egress_mem_get,
		.mem_put = egress_mem_put,
		.slot_arg = &slot,
	};
	struct egress_place ep = { .r = r };
	double t0 = hc_now();
	struct s3_backend *s;

	if (r->has_pool && !hc_place_map(r->pool_uuid, &ep.map)) {
		e.place = egress_place;
		e.place_arg = &ep;
	}
	hc_log(HC_LOG_DEBUG, "egress %s: generation %llu, %llu bytes in %u "
	       "extents%s", r->uri, (unsigned long long)r->id,
	       (unsigned long long)r->size, r->nr_ext,
	       r->has_crc ? ", with CRC-32C" : "");
	j->ret = -resolve(cfg, r, &j->t);
	if (j->ret) {
		snprintf(j->err, sizeof(j->err), "cannot resolve the URI");
		return;
	}
	slot.b = (unsigned int)(j->t.b - cfg->backends);
	if (j->t.b->type == HC_BACKEND_POSIX) {
		j->ret = hc_posix_path(j->t.b, j->t.u.key, j->t.u.key_len,
				       path, sizeof(path), j->err,
				       sizeof(j->err));
		if (!j->ret)
			j->ret = hc_egress_posix(&e, path, &j->res, j->err,
						 sizeof(j->err));
		j->secs = hc_now() - t0;
		if (!j->ret)
			log_placement(r->uri, "egress", &ep.tally);
		return;
	}
	s = s3_clients(s3, cfg, j->t.b, j->err, sizeof(j->err), &j->ret);
	if (!s)
		return;
	if (!hc_egress_plan(r->size, cfg->part_size, &plan) && plan.multipart) {
		/*
		 * sized for the uploads running now, not max_objects_in_flight
		 * of them: a lone upload gets all its part threads
		 */
		e.workers = hc_egress_workers(cfg->buffer_budget / 2,
					      plan.part_size,
					      __atomic_load_n(&x->in_flight,
							      __ATOMIC_RELAXED),
					      cfg->ingest_concurrency);
		hc_log(HC_LOG_INFO, "%s: multipart upload to %s/%s: %llu "
		       "parts of %llu bytes, %u at a time", r->uri,
		       j->t.bucket, j->t.key,
		       (unsigned long long)plan.nr_parts,
		       (unsigned long long)plan.part_size, e.workers);
	}
	j->ret = hc_egress_s3(&e, s->c, j->t.bucket, j->t.key, &j->res,
			      j->err, sizeof(j->err));
	if (j->res.aborted_leftovers)
		hc_log(HC_LOG_WARN, "%s: aborted %u unfinished multipart "
		       "upload%s of %s/%s left by an earlier run",
		       r->uri, j->res.aborted_leftovers,
		       j->res.aborted_leftovers == 1 ? "" : "s",
		       j->t.bucket, j->t.key);
	j->secs = hc_now() - t0;
	if (!j->ret)
		log_placement(r->uri, "egress", &ep.tally);
}

/* The dispatcher: EGRESS_DONE or EGRESS_FAIL for finished job @j. */
static void egress_report(struct egress_ctx *x, struct egress_job *j)
{
	const struct hc_ingest_req *r = &j->r;
	char when[HC_UTC_LEN];
	struct egress_fails *f;
	int ret;

	if (j->ret == -ECANCELED && x->stop) {
		hc_log(HC_LOG_INFO, "%s: upload stopped; the kernel re-sends "
		       "it to the next egress helper", r->uri);
		return;
	}
	if (j->ret) {
		if (j->t.b)
			hc_metrics_note_egress(j->t.b->name, false, 0, 0);
		egress_failed(x, r, -j->ret, j->err);
		return;
	}
	f = fails_find(x, r, false);
	if (f)
		f->hash = 0;
	if (j->res.mtime_err)
		hc_log(HC_LOG_WARN, "%s: uploaded, but its Last-Modified is "
		       "unknown: %s", r->uri, j->res.mtime_msg);
	ret = hc_channel_egress_done(x->ch, r, j->res.etag, j->res.mtime);
	if (ret == -ESTALE || ret == -ENOENT)
		hc_log(HC_LOG_INFO, "%s: uploaded generation %llu, but the "
		       "object was %s meanwhile", r->uri,
		       (unsigned long long)r->id,
		       ret == -ESTALE ? "replaced" : "removed");
	else if (ret)
		hc_log(HC_LOG_WARN, "%s: EGRESS_DONE: %s", r->uri,
		       strerror(-ret));
	hc_metrics_note_egress(j->t.b->name, !ret, r->size, j->secs);
	if (!ret) {
		pthread_mutex_lock(&x->lock);
		x->busy_bytes += r->size;
		x->busy_objects++;
		pthread_mutex_unlock(&x->lock);
	}
	hc_log(HC_LOG_INFO, "%s: uploaded %llu bytes in %.3f s (%.1f MB/s, "
	       "%llu part%s, ETag %s, Last-Modified %s)", r->uri,
	       (unsigned long long)r->size, j->res.seconds,
	       j->res.seconds > 0 ? r->size / j->res.seconds / 1e6 : 0.0,
	       (unsigned long long)j->res.parts, j->res.parts == 1 ? "" : "s",
	       j->res.etag, j->res.mtime ?
	       hc_fmt_utc(when, sizeof(when), j->res.mtime) : "unknown");
	if (j->t.b->type == HC_BACKEND_S3)
		hc_log(HC_LOG_INFO, "%s: upload thread-seconds: read %.3f, "
		       "crc %.3f, slot wait %.3f, digest %.3f, send %.3f, "
		       "head %.3f", r->uri, j->res.t.read, j->res.t.crc,
		       j->res.t.slot, j->res.t.digest, j->res.t.send,
		       j->res.t.head);
}

static bool same_uri(const struct hc_ingest_req *a,
		     const struct hc_ingest_req *b)
{
	return a->uri_len == b->uri_len && !memcmp(a->uri, b->uri, a->uri_len);
}

static void egress_unlink(struct egress_job **list, struct egress_job *j)
{
	while (*list && *list != j)
		list = &(*list)->next;
	if (*list)
		*list = j->next;
	j->next = NULL;
}

/*
 * The oldest queued job whose URI is not being uploaded (two generations
 * of one key never upload at once: the older could land last, and each
 * would abort the other's multipart upload as a leftover), moved to
 * @running; NULL if none.  With @lock held.
 */
static struct egress_job *egress_take(struct egress_ctx *x)
{
	struct egress_job *j, *r, *prev = NULL;

	for (j = x->pending; j; prev = j, j = j->next) {
		for (r = x->running; r; r = r->next)
			if (same_uri(&r->r, &j->r))
				break;
		if (!r)
			break;
	}
	if (!j)
		return NULL;
	if (prev)
		prev->next = j->next;
	else
		x->pending = j->next;
	if (x->pending_tail == j)
		x->pending_tail = prev;
	j->next = x->running;
	x->running = j;
	return j;
}

/*
 * An egress worker: takes the oldest job it may (egress_take()), uploads
 * it, queues it on @done and wakes the dispatcher; until stop.  Its S3
 * clients are its own.
 */
static void *egress_worker(void *arg)
{
	struct egress_ctx *x = arg;
	struct s3_backend *s3 = calloc(HC_BACKENDS_MAX, sizeof(*s3));
	uint64_t one = 1;

	pthread_setname_np(pthread_self(), "hc-upload");
	if (!s3) {
		hc_log(HC_LOG_ERROR, "egress worker: out of memory");
		return NULL;
	}
	pthread_mutex_lock(&x->lock);
	for (;;) {
		struct egress_job *j = NULL;

		while (!x->stop && !(j = egress_take(x)))
			pthread_cond_wait(&x->cv, &x->lock);
		if (x->stop)
			break;
		if (!x->in_flight++ && !x->busy_objects)
			x->busy_since = hc_now();
		hc_log(HC_LOG_DEBUG, "%s: upload started, %u object%s in flight",
		       j->r.uri, x->in_flight, x->in_flight == 1 ? "" : "s");
		pthread_mutex_unlock(&x->lock);
		egress_upload(x, s3, j);
		pthread_mutex_lock(&x->lock);
		x->in_flight--;
		egress_unlink(&x->running, j);
		pthread_cond_broadcast(&x->cv);
		j->next = x->done;
		x->done = j;
		if (write(x->wake_fd, &one, sizeof(one)) != sizeof(one))
			hc_log(HC_LOG_WARN, "cannot wake the egress thread");
	}
	pthread_mutex_unlock(&x->lock);
	free(s3);	/* the clients stay: the process ends */
	return NULL;
}

/* Report every finished upload (the dispatcher). */
static void egress_reap(struct egress_ctx *x)
{
	struct egress_job *list, *j;
	uint64_t n;

	if (read(x->wake_fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		hc_log(HC_LOG_WARN, "egress wake: %s", strerror(errno));
	pthread_mutex_lock(&x->lock);
	list = x->done;
	x->done = NULL;
	pthread_mutex_unlock(&x->lock);
	/* oldest first: the list is newest first */
	for (j = NULL; list; ) {
		struct egress_job *next = list->next;

		list->next = j;
		j = list;
		list = next;
	}
	while (j) {
		struct egress_job *next = j->next;

		egress_report(x, j);
		free(j);
		j = next;
	}
	/* the aggregate when the last upload of a busy period is reported */
	pthread_mutex_lock(&x->lock);
	if (!x->in_flight && !x->pending && !x->done && x->busy_objects) {
		double secs = hc_now() - x->busy_since;

		hc_log(HC_LOG_INFO, "egress: %llu objects, %llu bytes in %.3f s "
		       "(%.3f GB/s, %.1f objects/s)",
		       (unsigned long long)x->busy_objects,
		       (unsigned long long)x->busy_bytes, secs,
		       secs > 0 ? x->busy_bytes / secs / 1e9 : 0.0,
		       secs > 0 ? x->busy_objects / secs : 0.0);
		x->busy_objects = 0;
		x->busy_bytes = 0;
	}
	pthread_mutex_unlock(&x->lock);
}

static void egress_free_list(struct egress_job *j)
{
	while (j) {
		struct egress_job *next = j->next;

		free(j);
		j = next;
	}
}

static void *egress_thread(void *arg)
{
	struct egress_ctx *x = arg;
	unsigned int n = x->cfg->max_objects_in_flight, nr = 0;
	pthread_t *tid = calloc(n, sizeof(*tid));
	struct egress_job *j = NULL;
	int ret;

	for (; tid && nr < n; nr++)
		if (pthread_create(&tid[nr], NULL, egress_worker, x))
			break;
	if (!nr) {
		hc_log(HC_LOG_ERROR, "egress: cannot start the workers");
		x->error = 1;
		kill(getpid(), SIGTERM);
		free(tid);
		return NULL;
	}
	pthread_setname_np(pthread_self(), "hc-egress");
	while (!x->stop) {
		egress_reap(x);
		if (x->stop)	/* set before the wake that reap consumed */
			break;
		if (atomic_exchange(&x->reregister, 0)) {
			ret = hc_channel_egress_reregister(x->ch);
			if (ret)
				hc_log(HC_LOG_WARN, "egress channel: register again: %s",
				       strerror(-ret));
			else
				hc_log(HC_LOG_INFO, "egress channel registered again: "
				       "uploads that failed for good are retried");
		}
		if (!j)
			j = calloc(1, sizeof(*j));
		if (!j) {
			hc_log(HC_LOG_ERROR, "egress: out of memory");
			x->error = 1;
			kill(getpid(), SIGTERM);
			break;
		}
		ret = hc_channel_next(x->ch, &j->r, NULL, x->wake_fd);
		if (ret == -EINTR)
			continue;
		if (ret) {
			hc_log(HC_LOG_ERROR, "egress channel: %s",
			       strerror(-ret));
			x->error = 1;
			kill(getpid(), SIGTERM);
			break;
		}
		pthread_mutex_lock(&x->lock);
		if (x->pending_tail)
			x->pending_tail->next = j;
		else
			x->pending = j;
		x->pending_tail = j;
		pthread_cond_signal(&x->cv);
		pthread_mutex_unlock(&x->lock);
		j = NULL;
	}
	free(j);
	/* uploads in flight end with -ECANCELED: the kernel re-sends them */
	pthread_mutex_lock(&x->lock);
	x->stop = 1;
	pthread_cond_broadcast(&x->cv);
	pthread_mutex_unlock(&x->lock);
	/* and the uploads waiting for buffer memory (egress_mem_get()) */
	pthread_mutex_lock(&ing.lock);
	pthread_cond_broadcast(&ing.cv);
	pthread_mutex_unlock(&ing.lock);
	while (nr--)
		pthread_join(tid[nr], NULL);
	free(tid);
	egress_reap(x);
	egress_free_list(x->pending);
	x->pending = NULL;
	return NULL;
}

/*
 * A configuration that holds secret keys must not be readable by every
 * user: warn when @path is (the group may read it: the packages install
 * it 0640 root:hypercache, so hcctl can check URIs against it).
 */
static void warn_exposed_secrets(const char *path, const struct hc_config *cfg)
{
	unsigned int i, n = 0;
	struct stat st;

	for (i = 0; i < cfg->nr_backends; i++)
		if (cfg->backends[i].secret_key[0])
			n++;
	if (!n || stat(path, &st) || !(st.st_mode & S_IROTH))
		return;
	hc_log(HC_LOG_WARN,
	       "%s holds %u secret key%s and is readable by every user (mode %04o): chmod o-r it, or move the keys to a credentials file",
	       path, n, n == 1 ? "" : "s", st.st_mode & 07777);
}

/*
 * SIGHUP (systemctl reload): read @path again.  log_level and each
 * backend's revalidate change live (the kernel gets the revalidation rules
 * again, on @ch); each other setting that changed is named in the log and
 * keeps its running value until a restart (Documentation/hypercached.rst,
 * "Reloading"); a file that does not load is refused whole, the running
 * configuration kept, and the reason logged.  Called on the main thread
 * between requests: SIGHUP is blocked everywhere else.
 */
static void reload_config(const char *path, struct hc_config *cfg,
			  struct hc_channel *ch)
{
	static const char *const names[] = { "error", "warn", "info", "debug" };
	static struct hc_config next;
	char err[1024], keys[512];
	unsigned int n;

	sd_notify(0, "RELOADING=1");
	if (hc_config_load(path, &next, err, sizeof(err))) {
		hc_log(HC_LOG_ERROR,
		       "reload refused, still running with the previous configuration: %s",
		       err);
		goto out;
	}
	warn_exposed_secrets(path, &next);
	n = hc_config_restart_keys(cfg, &next, keys, sizeof(keys));
	hc_config_apply_live(cfg, &next);
	__atomic_store_n(&log_level, next.log_level, __ATOMIC_RELAXED);
	reval_send_rules(ch, cfg);	/* revalidate is live */
	if (n)
		hc_log(HC_LOG_WARN,
		       "reloaded %s: log_level %s applied; changed but needing a restart (systemctl restart hypercached), still running with the previous value%s: %s",
		       path, names[next.log_level], n == 1 ? "" : "s", keys);
	else
		hc_log(HC_LOG_INFO, "reloaded %s: log_level %s", path,
		       names[next.log_level]);
out:
	explicit_bzero(&next, sizeof(next));
	sd_notify(0, "READY=1");
}

int main(int argc, char **argv)
{
	enum { OPT_CHECK_CONFIG = 256 };
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", no_argument, NULL, OPT_CHECK_CONFIG },
		{ "foreground", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cfg_path = HC_CONFIG_PATH;
	static struct hc_config cfg;
	static struct hc_ingest_req req;
	static struct egress_ctx eg;
	static pthread_t part_tid[PART_WORKERS_MAX];
	unsigned int nr_part = 0;
	bool egress_on = false, check_only = false;
	pthread_t egress_tid;
	struct hc_channel *ch;
	struct sigaction sa;
	sigset_t block, orig;
	char err[1024];
	int c, ret;

	while ((c = getopt_long(argc, argv, "c:fhV", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			cfg_path = optarg;
			break;
		case 'f':
			break;
		case OPT_CHECK_CONFIG:
			check_only = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("hypercached %s\n", HYPERCACHED_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hypercached: unexpected argument '%s'\n",
			argv[optind]);
		usage(stderr);
		return 2;
	}
	log_journal = hc_log_detect(STDERR_FILENO, getenv("JOURNAL_STREAM"));
	ret = hc_config_load(cfg_path, &cfg, err, sizeof(err));
	if (ret) {
		hc_log(HC_LOG_ERROR, "%s", err);
		return 2;
	}
	warn_exposed_secrets(cfg_path, &cfg);
	if (check_only) {
		printf("%s: valid (%u backend%s)\n", cfg_path, cfg.nr_backends,
		       cfg.nr_backends == 1 ? "" : "s");
		return 0;
	}
	log_level = cfg.log_level;
	if (getenv("HC_TEST_FETCH_DELAY_MS"))
		test_fetch_delay_ms = (unsigned int)
			strtoul(getenv("HC_TEST_FETCH_DELAY_MS"), NULL, 10);

	/* SIGTERM/SIGINT (stop) and SIGHUP (reload) only interrupt the wait for the next request. */
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &orig);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigdelset(&orig, SIGTERM);
	sigdelset(&orig, SIGINT);
	sa.sa_handler = on_reload;
	sigaction(SIGHUP, &sa, NULL);
	sigdelset(&orig, SIGHUP);

	/* before the workers start: they place themselves per part */
	hc_place_init(cfg.numa, hc_log);
	ret = ingest_open(&ing, &cfg, part_tid, &nr_part, err, sizeof(err));
	if (ret) {
		hc_log(HC_LOG_ERROR, "%s", err);
		return 1;
	}
	ret = hc_channel_open(&ch, err, sizeof(err));
	if (ret) {
		hc_log(HC_LOG_ERROR, "%s", err);
		ingest_close(&ing, part_tid, nr_part);
		return 1;
	}
	if (ingest_start_reporters(&ing, ch)) {
		hc_log(HC_LOG_ERROR, "cannot start the DONE reporters");
		ingest_close(&ing, part_tid, nr_part);
		hc_channel_close(ch);
		return 1;
	}
	reval_send_rules(ch, &cfg);
	hc_log(HC_LOG_INFO, "registered as the helper (config %s, %u backends)",
	       cfg_path, cfg.nr_backends);
	/* Metrics are not worth refusing to fill the cache for: log, go on. */
	if (hc_metrics_start(&cfg, err, sizeof(err)))
		hc_log(HC_LOG_ERROR, "no metrics: %s", err);
	else
		hc_log(HC_LOG_INFO, "metrics on http://%s/metrics",
		       cfg.metrics_listen);

	/* The egress thread: its own socket, its own S3 clients. */
	eg.cfg = &cfg;
	pthread_mutex_init(&eg.lock, NULL);
	pthread_cond_init(&eg.cv, NULL);
	eg.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ret = eg.wake_fd < 0 ? -errno : hc_channel_egress_open(&eg.ch, err, sizeof(err));
	if (ret == -EBUSY || ret == -EPERM || ret == -EACCES) {
		hc_log(HC_LOG_ERROR, "%s", err);
		hc_channel_close(ch);
		return 1;
	}
	if (ret) {
		/* a module without write-back: serve ingest only */
		hc_log(HC_LOG_WARN, "write-back disabled: %s",
		       eg.wake_fd < 0 ? strerror(-ret) : err);
	} else if (pthread_create(&egress_tid, NULL, egress_thread, &eg)) {
		hc_log(HC_LOG_ERROR, "cannot start the egress thread");
		hc_channel_close(eg.ch);
		hc_channel_close(ch);
		return 1;
	} else {
		egress_on = true;
		hc_log(HC_LOG_INFO, "registered as the egress helper "
		       "(%u objects, %u parts per backend in flight)",
		       cfg.max_objects_in_flight, cfg.ingest_concurrency);
	}
	/* NOTIFY_SOCKET unset (not under systemd): does nothing */
	sd_notifyf(0, "READY=1\nSTATUS=serving ingest%s\nMAINPID=%ld",
		   egress_on ? " and write-back" : " (write-back disabled)",
		   (long)getpid());

	while (!stop_signal) {
		struct ingest_obj *o;

		if (reload_signal) {
			reload_signal = 0;
			reload_config(cfg_path, &cfg, ch);
			if (egress_on) {	/* retry what failed for good */
				uint64_t one = 1;

				atomic_store(&eg.reregister, 1);
				if (write(eg.wake_fd, &one, sizeof(one)) != sizeof(one))
					hc_log(HC_LOG_WARN, "cannot wake the egress thread");
			}
		}

		ingest_reap(ch, &ing);
		ingest_admit(ch, &ing);
		ret = hc_channel_next(ch, &req, &orig, ing.done_fd);
		if (ret == -EINTR)
			continue;
		if (ret) {
			hc_log(HC_LOG_ERROR, "helper channel: %s",
			       strerror(-ret));
			stop_signal = SIGTERM;
			eg.error = 1;
			break;
		}
		o = calloc(1, sizeof(*o));
		if (!o) {
			hc_log(HC_LOG_ERROR, "%s: out of memory", req.uri);
			fail(ch, &req, ENOMEM);
			continue;
		}
		o->r = req;
		o->posix_fd = -1;
		o->dev_fd = -1;
		o->m_t0 = hc_now();
		if (req.reval) {	/* a reader waits: not behind the ingests */
			reval_start(ch, &cfg, o);
			continue;
		}
		if (ing.pending_tail)
			ing.pending_tail->next = o;
		else
			ing.pending = o;
		ing.pending_tail = o;
	}
	ingest_close(&ing, part_tid, nr_part);
	hc_log(HC_LOG_INFO, "%s: stopping", strsignal(stop_signal));
	sd_notify(0, "STOPPING=1");
	if (egress_on) {
		uint64_t one = 1;

		eg.stop = 1;
		if (write(eg.wake_fd, &one, sizeof(one)) != sizeof(one))
			hc_log(HC_LOG_WARN, "cannot wake the egress thread");
		pthread_join(egress_tid, NULL);
		hc_channel_close(eg.ch);
	}
	if (eg.wake_fd >= 0)
		close(eg.wake_fd);
	hc_metrics_stop();
	hc_channel_close(ch);
	return eg.error ? 1 : 0;
}
