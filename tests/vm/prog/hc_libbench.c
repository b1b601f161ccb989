// SPDX-License-Identifier: GPL-2.0
/*
 * hc_libbench: the figures of scripts/bench-client.sh (guest side).
 *
 *   hc_libbench read URI [THREADS]
 *	hc_reader_open() (PEEK: no hit for the policy), hc_reader_read_all()
 *	of the whole object into a page-aligned buffer with THREADS readers
 *	(0, the default: the library's min(64, max(16, 4 x CPUs))), and
 *	prints "bytes=N seconds=S MiBps=M" for the read_all alone.
 *   hc_libbench time CMD [ARG...]
 *	runs CMD (its stdout to /dev/null) and prints "seconds=S" (the wall
 *	time from fork to its exit, CLOCK_MONOTONIC), exit status CMD's.
 *   hc_libbench mmap FILE
 *	maps all of FILE (MAP_SHARED, PROT_READ) and reads every 8-byte word
 *	of it in order, as a loader that mmaps a model does; prints
 *	"bytes=N seconds=S MiBps=M" (mmap to munmap).
 *   hc_libbench openstat FILE N
 *	N times open(O_RDONLY) + fstat + close of FILE; prints "ops=N
 *	seconds=S us_per_op=U".
 * (scripts/bench-fs.sh uses the last two.)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <hypercache/hypercache.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cmd_read(const char *uri, unsigned int threads)
{
	struct hc_reader *r;
	struct hc_ctx *ctx;
	char err[512];
	void *buf;
	uint64_t size;
	double t0, t;
	int e;

	e = hc_ctx_open(&ctx, NULL, NULL, err, sizeof(err));
	if (e) {
		fprintf(stderr, "hc_libbench: %s\n", err);
		return 1;
	}
	e = hc_reader_open(ctx, uri, strlen(uri), HC_OPEN_PEEK, 0, &r, err,
			   sizeof(err));
	if (e) {
		fprintf(stderr, "hc_libbench: %s\n", err);
		hc_ctx_close(ctx);
		return 1;
	}
	size = hc_reader_size(r);
	if (posix_memalign(&buf, 4096, size ? size : 1)) {
		fprintf(stderr, "hc_libbench: %s: out of memory\n", uri);
		return 1;
	}
	memset(buf, 0, size);	/* fault the pages in before the clock */
	t0 = now();
	e = hc_reader_read_all(r, buf, threads);
	t = now() - t0;
	if (e) {
		fprintf(stderr, "hc_libbench: %s\n", hc_reader_error(r));
		return 1;
	}
	printf("bytes=%llu seconds=%.6f MiBps=%.1f\n", (unsigned long long)size,
	       t, t > 0 ? (double)size / 1048576.0 / t : 0.0);
	free(buf);
	hc_reader_close(r);
	hc_ctx_close(ctx);
	return 0;
}

static int cmd_time(char **argv)
{
	double t0 = now();
	pid_t pid;
	int st, fd;

	pid = fork();
	if (pid < 0) {
		perror("hc_libbench: fork");
		return 1;
	}
	if (!pid) {
		fd = open("/dev/null", O_WRONLY);
		if (fd >= 0)
			dup2(fd, STDOUT_FILENO);
		execvp(argv[0], argv);
		fprintf(stderr, "hc_libbench: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0) {
		perror("hc_libbench: waitpid");
		return 1;
	}
	printf("seconds=%.6f\n", now() - t0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

static int cmd_mmap(const char *path)
{
	volatile uint64_t sink;
	const uint64_t *w;
	uint64_t sum = 0;
	struct stat st;
	size_t i, n;
	double t0, t;
	void *map;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st)) {
		perror("hc_libbench: open");
		return 1;
	}
	if (!st.st_size) {
		fprintf(stderr, "hc_libbench: %s is empty\n", path);
		return 1;
	}
	t0 = now();
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror("hc_libbench: mmap");
		return 1;
	}
	w = map;
	n = (size_t)st.st_size / sizeof(*w);
	for (i = 0; i < n; i++)
		sum += w[i];
	munmap(map, (size_t)st.st_size);
	t = now() - t0;
	sink = sum;
	(void)sink;
	close(fd);
	printf("bytes=%lld seconds=%.6f MiBps=%.1f\n", (long long)st.st_size, t,
	       t > 0 ? (double)st.st_size / 1048576.0 / t : 0.0);
	return 0;
}

static int cmd_openstat(const char *path, long n)
{
	struct stat st;
	double t0, t;
	long i;
	int fd;

	if (n <= 0) {
		fprintf(stderr, "hc_libbench: openstat needs N > 0\n");
		return 2;
	}
	t0 = now();
	for (i = 0; i < n; i++) {
		fd = open(path, O_RDONLY);
		if (fd < 0 || fstat(fd, &st)) {
			perror("hc_libbench: open");
			return 1;
		}
		close(fd);
	}
	t = now() - t0;
	printf("ops=%ld seconds=%.6f us_per_op=%.3f\n", n, t, t * 1e6 / (double)n);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "read"))
		return cmd_read(argv[2], argc > 3 ? (unsigned int)atoi(argv[3]) : 0);
	if (argc >= 3 && !strcmp(argv[1], "time"))
		return cmd_time(argv + 2);
	if (argc == 3 && !strcmp(argv[1], "mmap"))
		return cmd_mmap(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "openstat"))
		return cmd_openstat(argv[2], atol(argv[3]));
	fprintf(stderr, "usage: hc_libbench read URI [THREADS] | time CMD [ARG...] | mmap FILE | openstat FILE N\n");
	return 2;
}
