// SPDX-License-Identifier: GPL-2.0
/*
 * hc_uring_fence URI: the write fence drains and owns (uapi/hypercache.h).
 *
 * 1. Stage a held filler so that exactly 64 chunks stay free, then stage
 *    A = URI/a over those 64 chunks.
 * 2. Queue 64 O_DIRECT writes of 4 MiB (pattern 0xa5) into A through
 *    io_uring: 32 at once, 32 linked behind a DELAY_MS timeout (they reach
 *    the block layer later, as a deep queue's tail does), then ABORT A at
 *    once.
 * 3. A child process stages B = URI/b (64 chunks: the same ones), writes
 *    its own pattern into every chunk (last chunk first), tells the parent,
 *    and COMMITs once the parent has reaped all 64 completions of A.
 * 4. B must have A's chunks, and read back byte-identical to what the
 *    child wrote: a write of A admitted before the ABORT was drained by it,
 *    and a later one was refused (the fence is closed, and B's belongs to
 *    another process).  A's writes end either successfully or with EIO.
 *
 * Prints what it did and "ok" or the first failure; exits 0 or 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "hypercache.h"

#define CHUNK		(4ULL << 20)
#define NR		64
#define DELAY_MS	2500

static const char *dev = "/dev/hypercache0";

static double now_ms(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec * 1e3 + tv.tv_usec / 1e3;
}

static void die(const char *what)
{
	fprintf(stderr, "hc_uring_fence: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int stage(int ctl, const char *uri, uint64_t size,
		 struct hc_extent *ext)
{
	struct hc_stage st = {
		.size = sizeof(st), .flags = HC_STAGE_F_REPLACE,
		.uri = (uintptr_t)uri, .uri_len = strlen(uri),
		.obj_size = size, .extents = (uintptr_t)ext,
		.max_extents = HC_MAX_EXTENTS,
	};

	if (ioctl(ctl, HC_IOC_STAGE, &st))
		return -1;
	return st.nr_extents;
}

/* Device offset of chunk @k of an object with extents @ext. */
static uint64_t chunk_off(const struct hc_extent *ext, int n, uint64_t k)
{
	for (int i = 0; i < n; i++) {
		if (k < ext[i].length / CHUNK)
			return ext[i].offset + k * CHUNK;
		k -= ext[i].length / CHUNK;
	}
	return UINT64_MAX;
}

static void pattern_b(char *buf, uint64_t k)
{
	for (uint64_t i = 0; i < CHUNK; i += 8) {
		uint64_t v = 0xb0b0000000000000ULL | k << 32 | i;

		memcpy(buf + i, &v, 8);
	}
}

/* The child: stage, write and (once told) commit B. */
static int child(const char *uri, int go, int written, int reaped)
{
	struct hc_extent ext[HC_MAX_EXTENTS];
	struct hc_commit cm = {
		.size = sizeof(cm), .flags = HC_COMMIT_F_CLEAN,
		.uri = (uintptr_t)uri, .uri_len = strlen(uri),
	};
	int ctl, fd, n;
	double t0;
	char *buf, c;

	if (read(go, &c, 1) != 1)
		die("child: pipe");
	ctl = open("/dev/" HC_CTL_NAME, O_RDWR);
	fd = open(dev, O_WRONLY | O_DIRECT);
	if (ctl < 0 || fd < 0 || posix_memalign((void **)&buf, 4096, CHUNK))
		die("child: open");
	n = stage(ctl, uri, NR * CHUNK, ext);
	if (n < 0)
		die("child: STAGE B");
	t0 = now_ms();
	for (int k = NR - 1; k >= 0; k--) {
		pattern_b(buf, k);
		if (pwrite(fd, buf, CHUNK, chunk_off(ext, n, k)) != (ssize_t)CHUNK)
			die("child: write B");
	}
	printf("child: B written in %.0f ms\n", now_ms() - t0);
	fflush(stdout);
	if (write(written, "w", 1) != 1 || read(reaped, &c, 1) != 1)
		die("child: pipe");
	if (fsync(fd) || ioctl(ctl, HC_IOC_COMMIT, &cm))
		die("child: COMMIT B");
	return 0;
}

int main(int argc, char **argv)
{
	struct hc_extent ea[HC_MAX_EXTENTS], eb[HC_MAX_EXTENTS];
	struct __kernel_timespec ts = { .tv_sec = DELAY_MS / 1000,
					.tv_nsec = (DELAY_MS % 1000) * 1000000L };
	char a_uri[256], b_uri[256], f_uri[256], c;
	int go[2], written[2], reaped[2];
	int ctl, fd, na, nb, ok = 0, eio = 0, other = 0, status;
	struct hc_stats stats = { .size = sizeof(stats) };
	struct hc_obj_ref ref = { .size = sizeof(ref) };
	struct io_uring ring;
	uint64_t free_chunks;
	char *buf, *back;
	pid_t pid;

	if (argc != 2) {
		fprintf(stderr, "usage: hc_uring_fence URI\n");
		return 2;
	}
	snprintf(a_uri, sizeof(a_uri), "%s/a", argv[1]);
	snprintf(b_uri, sizeof(b_uri), "%s/b", argv[1]);
	snprintf(f_uri, sizeof(f_uri), "%s/filler", argv[1]);
	if (pipe(go) || pipe(written) || pipe(reaped))
		die("pipe");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid)
		return child(b_uri, go[0], written[1], reaped[0]);

	ctl = open("/dev/" HC_CTL_NAME, O_RDWR);
	fd = open(dev, O_WRONLY | O_DIRECT);
	if (ctl < 0 || fd < 0 || posix_memalign((void **)&buf, 4096, CHUNK) ||
	    posix_memalign((void **)&back, 4096, CHUNK))
		die("open");
	if (ioctl(ctl, HC_IOC_STAT, &stats))
		die("STAT");
	free_chunks = (stats.capacity - stats.bytes_used) / CHUNK;
	if (free_chunks < NR) {
		fprintf(stderr, "hc_uring_fence: only %llu chunks free\n",
			(unsigned long long)free_chunks);
		return 1;
	}
	if (free_chunks > NR && stage(ctl, f_uri, (free_chunks - NR) * CHUNK,
				      ea) < 0)
		die("STAGE filler");
	na = stage(ctl, a_uri, NR * CHUNK, ea);
	if (na < 0)
		die("STAGE A");

	memset(buf, 0xa5, CHUNK);
	if (io_uring_queue_init(2 * NR, &ring, 0))
		die("io_uring_queue_init");
	for (int k = 0; k < NR; k++) {
		struct io_uring_sqe *sqe;

		if (k >= NR / 2) {
			sqe = io_uring_get_sqe(&ring);
			io_uring_prep_timeout(sqe, &ts, 0,
					      IORING_TIMEOUT_ETIME_SUCCESS);
			sqe->flags |= IOSQE_IO_LINK;
			sqe->user_data = 0;
		}
		sqe = io_uring_get_sqe(&ring);
		io_uring_prep_write(sqe, fd, buf, CHUNK, chunk_off(ea, na, k));
		sqe->user_data = k + 1;
	}
	if (io_uring_submit(&ring) != NR + NR / 2)
		die("io_uring_submit");
	ref.uri = (uintptr_t)a_uri;
	ref.uri_len = strlen(a_uri);
	if (ioctl(ctl, HC_IOC_ABORT, &ref))
		die("ABORT A");
	printf("A: 64 writes queued, aborted\n");
	fflush(stdout);

	if (write(go[1], "g", 1) != 1 || read(written[0], &c, 1) != 1)
		die("pipe");
	for (int i = 0; i < NR + NR / 2; i++) {
		struct io_uring_cqe *cqe;

		if (io_uring_wait_cqe(&ring, &cqe))
			die("io_uring_wait_cqe");
		if (cqe->user_data) {
			if (cqe->res == (int)CHUNK)
				ok++;
			else if (cqe->res == -EIO)
				eio++;
			else
				other++;
		}
		io_uring_cqe_seen(&ring, cqe);
	}
	printf("A: %d writes succeeded, %d failed with EIO, %d otherwise\n",
	       ok, eio, other);
	if (write(reaped[1], "r", 1) != 1 || waitpid(pid, &status, 0) != pid)
		die("child");
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "hc_uring_fence: the child failed\n");
		return 1;
	}
	if (other) {
		fprintf(stderr, "hc_uring_fence: A's writes ended with another error than EIO\n");
		return 1;
	}

	/* B has A's chunks and holds the child's bytes, chunk by chunk. */
	{
		struct hc_locate l = {
			.size = sizeof(l), .uri = (uintptr_t)b_uri,
			.uri_len = strlen(b_uri), .extents = (uintptr_t)eb,
			.max_extents = HC_MAX_EXTENTS,
		};

		if (ioctl(ctl, HC_IOC_LOCATE, &l) || l.status != HC_LOCATE_HIT)
			die("LOCATE B");
		nb = l.nr_extents;
	}
	close(fd);
	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0)
		die(dev);
	for (int k = 0; k < NR; k++) {
		if (chunk_off(ea, na, k) != chunk_off(eb, nb, k)) {
			fprintf(stderr, "hc_uring_fence: chunk %d of B is not A's\n", k);
			return 1;
		}
		pattern_b(buf, k);
		if (pread(fd, back, CHUNK, chunk_off(eb, nb, k)) != (ssize_t)CHUNK)
			die("read B");
		if (memcmp(buf, back, CHUNK)) {
			fprintf(stderr, "hc_uring_fence: chunk %d of B was overwritten (first byte 0x%02x)\n",
				k, (unsigned char)back[0]);
			return 1;
		}
	}
	printf("ok: B's 64 chunks are A's and intact\n");
	return 0;
}
