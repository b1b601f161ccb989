// SPDX-License-Identifier: GPL-2.0
/*
 * hc_fsmap FILE REF: map all of FILE (a file of the hypercache file system
 * view) with mmap(MAP_SHARED, PROT_READ), close it, touch every page, print
 * "mapped" and wait.  On SIGUSR1 compare the mapping with REF (print
 * "same" or "differ at N"), unmap it and print "unmapped"; then wait for
 * SIGTERM.  Exit 0 after SIGTERM if the mapping was the same as REF, 1 if
 * it differed, 2 on errors.  The test evicts and overwrites around it: an
 * object mapped here must stay, and go once unmapped.
 *
 * hc_fsmap --tail FILE: map FILE to the end of its last page and check that
 * the bytes past its size are zero (exit 0; 1 if not, naming the first).
 *
 * hc_fsmap --odirect FILE OFFSET LEN: one pread of LEN bytes at OFFSET with
 * O_DIRECT into a page-aligned buffer (+1 byte if LEN is odd); prints the
 * bytes read, or the error and exits 1.
 *
 * hc_fsmap --pwrite FILE OFFSET LEN: create FILE (O_WRONLY | O_CREAT |
 * O_TRUNC), write LEN bytes of 'w' with one write() and then one pwrite()
 * of LEN bytes at OFFSET, close it; prints the errno of the first call
 * that fails and exits 1, or exits 0.  A file of the view is written front
 * to back: a pwrite elsewhere than the end is EINVAL.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static volatile sig_atomic_t got_usr1, got_term;

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		got_usr1 = 1;
	else
		got_term = 1;
}

/* Read all of @path into a new buffer of *@len bytes, or NULL. */
static unsigned char *slurp(const char *path, size_t *len)
{
	struct stat st;
	unsigned char *buf;
	size_t off = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		return NULL;
	*len = (size_t)st.st_size;
	buf = malloc(*len ? *len : 1);
	while (buf && off < *len) {
		n = read(fd, buf + off, *len - off);
		if (n <= 0) {
			free(buf);
			buf = NULL;
			break;
		}
		off += (size_t)n;
	}
	close(fd);
	return buf;
}

static int tail(const char *path)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *map;
	struct stat st;
	size_t len, i;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) || !st.st_size) {
		perror("hc_fsmap: open");
		return 2;
	}
	len = ((size_t)st.st_size + page - 1) / page * page;
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror("hc_fsmap: mmap");
		return 2;
	}
	for (i = (size_t)st.st_size; i < len; i++) {
		if (map[i]) {
			printf("byte %zu past the end is 0x%02x\n", i, map[i]);
			return 1;
		}
	}
	return 0;
}

static int odirect(const char *path, const char *off, const char *len)
{
	size_t n = strtoull(len, NULL, 0);
	unsigned char *buf;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_DIRECT);

	if (fd < 0 || posix_memalign((void **)&buf, 4096, n + 4096)) {
		perror("hc_fsmap: open");
		return 2;
	}
	r = pread(fd, buf + (n & 1), n, (off_t)strtoll(off, NULL, 0));
	if (r < 0) {
		perror("hc_fsmap: pread");
		return 1;
	}
	printf("%zd\n", r);
	return 0;
}

static int pwrite_at(const char *path, const char *off, const char *len)
{
	size_t n = strtoull(len, NULL, 0);
	char *buf = malloc(n ? n : 1);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || !buf) {
		perror("hc_fsmap: open");
		return 2;
	}
	memset(buf, 'w', n);
	if (write(fd, buf, n) != (ssize_t)n) {
		perror("hc_fsmap: write");
		return 1;
	}
	if (pwrite(fd, buf, n, (off_t)strtoll(off, NULL, 0)) != (ssize_t)n) {
		perror("hc_fsmap: pwrite");
		return 1;
	}
	if (close(fd)) {
		perror("hc_fsmap: close");
		return 1;
	}
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	volatile unsigned char sum = 0;
	unsigned char *map, *ref;
	struct sigaction sa;
	size_t len, rlen, i;
	struct stat st;
	sigset_t mask, old;
	int fd, rc = 0;

	if (argc == 5 && !strcmp(argv[1], "--odirect"))
		return odirect(argv[2], argv[3], argv[4]);
	if (argc == 3 && !strcmp(argv[1], "--tail"))
		return tail(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "--pwrite"))
		return pwrite_at(argv[2], argv[3], argv[4]);
	if (argc != 3) {
		fprintf(stderr, "usage: hc_fsmap FILE REF | --tail FILE\n");
		return 2;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	ref = slurp(argv[2], &rlen);
	fd = open(argv[1], O_RDONLY);
	if (!ref || fd < 0 || fstat(fd, &st) || !st.st_size) {
		perror("hc_fsmap: open");
		return 2;
	}
	len = (size_t)st.st_size;
	map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror("hc_fsmap: mmap");
		return 2;
	}
	close(fd);
	for (i = 0; i < len; i += 4096)
		sum += map[i];
	printf("mapped\n");
	fflush(stdout);

	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, &old);
	while (!got_usr1 && !got_term)
		sigsuspend(&old);
	if (got_usr1) {
		if (len != rlen) {
			printf("differ at size %zu != %zu\n", len, rlen);
			rc = 1;
		}
		for (i = 0; !rc && i < len; i++) {
			if (map[i] != ref[i]) {
				printf("differ at %zu\n", i);
				rc = 1;
			}
		}
		if (!rc)
			printf("same\n");
		munmap(map, len);
		printf("unmapped\n");
		fflush(stdout);
	}
	while (!got_term)
		sigsuspend(&old);
	free(ref);
	return rc;
}
