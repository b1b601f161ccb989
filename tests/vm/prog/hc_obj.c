// SPDX-License-Identifier: GPL-2.0
/*
 * hc_obj: single object ioctls on /dev/hypercache-ctl for the guest tests,
 * where hcctl has no command for them or hides the errno.
 *
 *   hc_obj [--ro] pin|unpin|evict|release|abort URI
 *	one HC_IOC_PIN/UNPIN/EVICT/RELEASE/ABORT; exit 0, or print
 *	"hc_obj: OP: URI: strerror" and exit 1
 *   hc_obj [--ro] locate|pin-locate URI
 *	LOCATE (no hold; pin-locate: with HC_LOCATE_F_PIN): prints
 *	"status=hit|miss|pending|not-admitted state=N size=N"
 *   hc_obj [--ro] hold URI
 *	LOCATE with HC_LOCATE_F_HOLD (must hit), print "held", then sleep
 *	until SIGTERM/SIGINT and RELEASE (SIGKILL: the kernel drops the hold)
 *   hc_obj [--ro] hold-again URI
 *	hold as above, print "held"; on SIGUSR1 one more LOCATE with
 *	HC_LOCATE_F_HOLD on the same file, timed: "again status=hit
 *	elapsed_ms=N" (or "again error=... elapsed_ms=N"); on SIGTERM/SIGINT
 *	RELEASE every hold taken and print "released N"
 *   hc_obj [--ro] wait TIMEOUT_MS URI
 *	LOCATE with HC_LOCATE_F_WAIT: prints "waiting" (once its clock
 *	runs), then "status=... elapsed_ms=N" or "error=ETIMEDOUT
 *	elapsed_ms=N" (exit 1)
 *   hc_obj [--ro] ingest TIMEOUT_MS URI
 *	the same with HC_LOCATE_F_AUTO_INGEST: a miss asks the helper
 *   hc_obj pin-ingest TIMEOUT_MS URI
 *	the same with HC_LOCATE_F_PIN too ('hcctl preload --pin')
 *   hc_obj [--ro] stat
 *	HC_IOC_STAT: one "key value" line per counter
 *   hc_obj stage-zero PREFIX COUNT [--clean]
 *	STAGE + COMMIT COUNT objects of 0 bytes named PREFIX%08u; prints
 *	how many were indexed and stops at the first error (exit 1)
 *
 * --ro opens the control device read-only.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include "hypercache.h"

static volatile sig_atomic_t done, again;

static void on_signal(int sig)
{
	(void)sig;
	done = 1;
}

static void on_usr1(int sig)
{
	(void)sig;
	again = 1;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static const char *status_name(uint32_t s)
{
	switch (s) {
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
	return "unknown";
}

static int ref_op(int fd, unsigned long cmd, const char *op, const char *uri)
{
	struct hc_obj_ref ref = {
		.size = sizeof(ref),
		.uri = (uintptr_t)uri,
		.uri_len = strlen(uri),
	};

	if (ioctl(fd, cmd, &ref)) {
		fprintf(stderr, "hc_obj: %s: %s: %s\n", op, uri, strerror(errno));
		return 1;
	}
	return 0;
}

static int locate(int fd, const char *uri, uint32_t flags, uint32_t timeout,
		  struct hc_locate *l)
{
	memset(l, 0, sizeof(*l));
	l->size = sizeof(*l);
	l->flags = flags;
	l->uri = (uintptr_t)uri;
	l->uri_len = strlen(uri);
	l->timeout_ms = timeout;
	return ioctl(fd, HC_IOC_LOCATE, l);
}

static int stage_zero(int fd, const char *prefix, unsigned int count,
		      int clean)
{
	char uri[256];
	unsigned int i;

	for (i = 0; i < count; i++) {
		struct hc_stage st = { .size = sizeof(st) };
		struct hc_commit cm = { .size = sizeof(cm) };
		int len = snprintf(uri, sizeof(uri), "%s%08u", prefix, i);

		st.uri = (uintptr_t)uri;
		st.uri_len = len;
		if (ioctl(fd, HC_IOC_STAGE, &st)) {
			printf("indexed %u\n", i);
			fprintf(stderr, "hc_obj: STAGE %s: %s\n", uri,
				strerror(errno));
			return 1;
		}
		cm.uri = (uintptr_t)uri;
		cm.uri_len = len;
		cm.flags = clean ? HC_COMMIT_F_CLEAN : 0;
		if (ioctl(fd, HC_IOC_COMMIT, &cm)) {
			printf("indexed %u\n", i);
			fprintf(stderr, "hc_obj: COMMIT %s: %s\n", uri,
				strerror(errno));
			return 1;
		}
	}
	printf("indexed %u\n", i);
	return 0;
}

int main(int argc, char **argv)
{
	const char *op, *uri;
	struct hc_locate l;
	int ro = 0, fd;

	if (argc > 1 && !strcmp(argv[1], "--ro")) {
		ro = 1;
		argv++, argc--;
	}
	if (argc < 2) {
		fprintf(stderr, "usage: hc_obj [--ro] OP [ARGS...]\n");
		return 2;
	}
	op = argv[1];
	fd = open("/dev/" HC_CTL_NAME, ro ? O_RDONLY : O_RDWR);
	if (fd < 0) {
		perror("/dev/" HC_CTL_NAME);
		return 1;
	}

	if (!strcmp(op, "stat") && argc == 2) {
		struct hc_stats s = { .size = sizeof(s) };

		if (ioctl(fd, HC_IOC_STAT, &s)) {
			fprintf(stderr, "hc_obj: stat: %s\n", strerror(errno));
			return 1;
		}
		printf("hits %llu\nmisses %llu\nadmissions %llu\n"
		       "rejections %llu\nevictions %llu\nobjects %llu\n"
		       "bytes_used %llu\ncapacity %llu\ningesting %llu\n"
		       "ready %llu\nstaged %llu\ndirty %llu\nsyncing %llu\n"
		       "pinned %llu\nheld %llu\n",
		       (unsigned long long)s.hits, (unsigned long long)s.misses,
		       (unsigned long long)s.admissions,
		       (unsigned long long)s.rejections,
		       (unsigned long long)s.evictions,
		       (unsigned long long)s.objects,
		       (unsigned long long)s.bytes_used,
		       (unsigned long long)s.capacity,
		       (unsigned long long)s.by_state[HC_OBJ_INGESTING],
		       (unsigned long long)s.by_state[HC_OBJ_READY],
		       (unsigned long long)s.by_state[HC_OBJ_STAGED],
		       (unsigned long long)s.by_state[HC_OBJ_DIRTY],
		       (unsigned long long)s.by_state[HC_OBJ_SYNCING],
		       (unsigned long long)s.pinned,
		       (unsigned long long)s.held);
		return 0;
	}
	if (!strcmp(op, "stage-zero") && (argc == 4 || argc == 5))
		return stage_zero(fd, argv[2], strtoul(argv[3], NULL, 0),
				  argc == 5 && !strcmp(argv[4], "--clean"));
	if ((!strcmp(op, "wait") || !strcmp(op, "ingest") ||
	     !strcmp(op, "pin-ingest")) && argc == 4) {
		double t0 = now_ms(), el;
		int ret;

		uri = argv[3];
		/* lets a test start the event it waits for only once the
		 * clock runs: "waiting" is printed after t0 was taken
		 */
		printf("waiting\n");
		fflush(stdout);
		ret = locate(fd, uri, HC_LOCATE_F_WAIT |
			     (strcmp(op, "wait") ? HC_LOCATE_F_AUTO_INGEST : 0) |
			     (!strcmp(op, "pin-ingest") ? HC_LOCATE_F_PIN : 0),
			     strtoul(argv[2], NULL, 0), &l);
		el = now_ms() - t0;
		if (ret) {
			printf("error=%s elapsed_ms=%.0f\n",
			       errno == ETIMEDOUT ? "ETIMEDOUT" :
			       strerror(errno), el);
			return 1;
		}
		printf("status=%s elapsed_ms=%.0f\n", status_name(l.status), el);
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: hc_obj [--ro] OP [ARGS...]\n");
		return 2;
	}
	uri = argv[2];
	if (!strcmp(op, "pin"))
		return ref_op(fd, HC_IOC_PIN, op, uri);
	if (!strcmp(op, "unpin"))
		return ref_op(fd, HC_IOC_UNPIN, op, uri);
	if (!strcmp(op, "evict"))
		return ref_op(fd, HC_IOC_EVICT, op, uri);
	if (!strcmp(op, "release"))
		return ref_op(fd, HC_IOC_RELEASE, op, uri);
	if (!strcmp(op, "abort"))
		return ref_op(fd, HC_IOC_ABORT, op, uri);
	if (!strcmp(op, "locate") || !strcmp(op, "pin-locate")) {
		if (locate(fd, uri, !strcmp(op, "pin-locate") ? HC_LOCATE_F_PIN : 0,
			   0, &l)) {
			fprintf(stderr, "hc_obj: locate: %s: %s\n", uri,
				strerror(errno));
			return 1;
		}
		printf("status=%s state=%u size=%llu\n", status_name(l.status),
		       l.state, (unsigned long long)l.obj_size);
		return 0;
	}
	if (!strcmp(op, "hold")) {
		if (locate(fd, uri, HC_LOCATE_F_HOLD, 0, &l)) {
			fprintf(stderr, "hc_obj: hold: %s: %s\n", uri,
				strerror(errno));
			return 1;
		}
		if (l.status != HC_LOCATE_HIT) {
			fprintf(stderr, "hc_obj: hold: %s: %s\n", uri,
				status_name(l.status));
			return 1;
		}
		signal(SIGTERM, on_signal);
		signal(SIGINT, on_signal);
		printf("held\n");
		fflush(stdout);
		while (!done)
			pause();
		return ref_op(fd, HC_IOC_RELEASE, "release", uri);
	}
	if (!strcmp(op, "hold-again")) {
		unsigned int held = 0;
		double t0;

		if (locate(fd, uri, HC_LOCATE_F_HOLD, 0, &l) ||
		    l.status != HC_LOCATE_HIT) {
			fprintf(stderr, "hc_obj: hold-again: %s: not held\n",
				uri);
			return 1;
		}
		held = 1;
		signal(SIGTERM, on_signal);
		signal(SIGINT, on_signal);
		signal(SIGUSR1, on_usr1);
		printf("held\n");
		fflush(stdout);
		while (!done) {
			pause();
			if (!again)
				continue;
			again = 0;
			t0 = now_ms();
			if (locate(fd, uri, HC_LOCATE_F_HOLD, 0, &l)) {
				printf("again error=%s elapsed_ms=%.0f\n",
				       strerror(errno), now_ms() - t0);
			} else {
				held += l.status == HC_LOCATE_HIT;
				printf("again status=%s elapsed_ms=%.0f\n",
				       status_name(l.status), now_ms() - t0);
			}
			fflush(stdout);
		}
		while (held && !ref_op(fd, HC_IOC_RELEASE, "release", uri))
			held--;
		printf("released %s\n", held ? "incompletely" : "all");
		return held ? 1 : 0;
	}
	fprintf(stderr, "hc_obj: unknown operation %s\n", op);
	return 2;
}
