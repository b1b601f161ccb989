// SPDX-License-Identifier: GPL-2.0
/*
 * hc_ioctl_abi DEV: the size/flags/reserved contract of every ioctl of
 * /dev/hypercacheN (uapi/hypercache.h), as the iommufd selftest checks it:
 * the version-1 size (HC_*_SIZE_VER1) → success; one byte less → EINVAL;
 * size + 1 with a junk byte → E2BIG; size + 1 with a zero byte → success;
 * an unknown flag → EOPNOTSUPP; a non-zero reserved field → EINVAL; an
 * unknown ioctl number → ENOTTY; a bad pointer → EFAULT.
 *
 * Built twice: hc_ioctl_abi against uapi/hypercache.h, and
 * hc_ioctl_abi_grown against a copy of it in which every ioctl struct has
 * one more field appended (tests/vm/prog/Makefile), as a binary built for
 * a later version would be: the same checks hold for it, its appended
 * field (zero) is accepted and never written, and its version-1 calls keep
 * working.
 *
 * hc_ioctl_abi --ctl [CTLDEV]: the same contract for every object ioctl of
 * /dev/hypercache-ctl (LOCATE, RELEASE, STAGE, COMMIT, ABORT, PIN, UNPIN,
 * EVICT, STAT), plus the URI rules (empty or with a NUL → EINVAL, longer
 * than HC_URI_MAX → E2BIG, a bad URI pointer → EFAULT) and the open-mode
 * rule (STAGE, COMMIT, ABORT on a read-only open → EBADF; LOCATE, RELEASE,
 * STAT work read-only), and the size bound of STAGE (larger than the
 * pool, or 2^64 - 1 bytes → EFBIG, nothing staged).  Needs a running pool
 * and CAP_SYS_ADMIN; it makes and removes its own 0-byte objects "abi/...".
 *
 * hc_ioctl_abi --holds URI: LOCATE|HOLD of the READY object URI on one
 * read-only file HC_HOLD_MAX times succeeds without the kernel's memory
 * growing per call, once more is EOVERFLOW; the object is unevictable
 * (EBUSY) until the file is closed, then EVICT works.
 *
 * hc_ioctl_abi --obj-holds URI MAX: the bound of the READY object URI's
 * holds by every file together (HC_OBJ_HOLDS_MAX, 2^30 in kmod/cache.h),
 * which the caller lowered to MAX (2 or more) with the module's test hook
 * obj_holds_max: MAX holds on two files succeed (the first file's further
 * holds lockless), then a further hold of the first file (its lockless
 * refusal, then the locked path's) and a first hold of a third file are
 * EOVERFLOW and take nothing (RELEASE on the third: ENOENT); one RELEASE
 * makes room for one hold again; the holders closed, EVICT works (no hold
 * leaked).
 *
 * Prints one line per check and exits 1 if any failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "hypercache.h"

#ifdef HC_ABI_GROWN
_Static_assert(sizeof(struct hc_locate) == HC_LOCATE_SIZE_VER1 + 8,
	       "the grown header appends one __u64");
#endif

static int failures;
static char failed[4096];	/* the failed checks, repeated at the end */

static void expect(const char *what, int ret, int want_errno)
{
	int got = ret ? errno : 0;

	if (got == want_errno) {
		printf("ok   %s: %s\n", what, got ? strerror(got) : "success");
	} else {
		char line[256];

		snprintf(line, sizeof(line), "FAIL %s: got %s, want %s\n", what,
			 got ? strerror(got) : "success",
			 want_errno ? strerror(want_errno) : "success");
		fputs(line, stdout);
		if (strlen(failed) + strlen(line) < sizeof(failed))
			strcat(failed, line);
		failures++;
	}
}

/* A failed check that is not an errno comparison. */
static void __attribute__((format(printf, 1, 2))) failf(const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	printf("FAIL %s\n", line);
	if (strlen(failed) + strlen(line) + 7 < sizeof(failed)) {
		strcat(failed, "FAIL ");
		strcat(failed, line);
		strcat(failed, "\n");
	}
	failures++;
}

/* Exit status; the failed checks again, last, where a log tail shows them. */
static int summary(void)
{
	if (failures)
		printf("%d check(s) failed:\n%s", failures, failed);
	return failures ? 1 : 0;
}

static int ctl_main(const char *path);
static int holds_main(const char *uri);
static int obj_holds_main(const char *uri, int max);

/* Bytes [from, to) of @p are all zero. */
static int zero_range(const void *p, size_t from, size_t to)
{
	const unsigned char *b = p;

	for (; from < to; from++)
		if (b[from])
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	struct {
		struct hc_geometry g;
		unsigned char tail[8];
	} buf;
	int fd;

	if (argc >= 2 && !strcmp(argv[1], "--ctl"))
		return ctl_main(argc > 2 ? argv[2] : "/dev/" HC_CTL_NAME);
	if (argc == 3 && !strcmp(argv[1], "--holds"))
		return holds_main(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "--obj-holds"))
		return obj_holds_main(argv[2], atoi(argv[3]));
	if (argc != 2) {
		fprintf(stderr, "usage: hc_ioctl_abi DEV | --ctl [CTLDEV] | --holds URI | --obj-holds URI MAX\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 2;
	}

	memset(&buf, 0, sizeof(buf));
	buf.g.size = sizeof(buf.g);
	expect("geometry: exact size", ioctl(fd, HC_IOC_GEOMETRY, &buf), 0);
	if (buf.g.chunk_size != 4u << 20 || !buf.g.member_count ||
	    buf.g.capacity != buf.g.chunks * buf.g.chunk_size) {
		failf("geometry: implausible answer chunk=%u members=%u",
		      buf.g.chunk_size, buf.g.member_count);
	}

	if (!zero_range(&buf, HC_GEOMETRY_SIZE_VER1, sizeof(buf)))
		failf("geometry: wrote past the kernel's struct");

	memset(&buf, 0, sizeof(buf));
	buf.g.size = HC_GEOMETRY_SIZE_VER1;
	expect("geometry: version-1 size", ioctl(fd, HC_IOC_GEOMETRY, &buf), 0);
	if (buf.g.chunk_size != 4u << 20)
		failf("geometry: version-1 size: no answer");

	memset(&buf, 0, sizeof(buf));
	buf.g.size = HC_GEOMETRY_SIZE_VER1 - 1;
	expect("geometry: version-1 size - 1", ioctl(fd, HC_IOC_GEOMETRY, &buf),
	       EINVAL);

	memset(&buf, 0, sizeof(buf));
	buf.g.size = 0;
	expect("geometry: size 0", ioctl(fd, HC_IOC_GEOMETRY, &buf), EINVAL);

	memset(&buf, 0, sizeof(buf));
	buf.g.size = sizeof(buf.g) + 1;
	buf.tail[0] = 0xa5;
	expect("geometry: size + 1, junk", ioctl(fd, HC_IOC_GEOMETRY, &buf),
	       E2BIG);

	memset(&buf, 0, sizeof(buf));
	buf.g.size = sizeof(buf.g) + 1;
	expect("geometry: size + 1, zero", ioctl(fd, HC_IOC_GEOMETRY, &buf), 0);
	if (buf.tail[0] != 0) {
		failf("geometry: wrote past the kernel's struct");
	}

	memset(&buf, 0, sizeof(buf));
	buf.g.size = sizeof(buf.g);
	buf.g.flags = 1;
	expect("geometry: unknown flag", ioctl(fd, HC_IOC_GEOMETRY, &buf),
	       EOPNOTSUPP);

	memset(&buf, 0, sizeof(buf));
	buf.g.size = sizeof(buf.g);
	buf.g.reserved[1] = 1;
	expect("geometry: reserved non-zero", ioctl(fd, HC_IOC_GEOMETRY, &buf),
	       EINVAL);

	expect("geometry: bad pointer", ioctl(fd, HC_IOC_GEOMETRY, (void *)8),
	       EFAULT);
	expect("unknown ioctl", ioctl(fd, _IO(HC_IOCTL_MAGIC, 0x7f), &buf),
	       ENOTTY);

	close(fd);
	return summary();
}

/* --- /dev/hypercache-ctl -------------------------------------------------- */

enum { OP_LOCATE, OP_RELEASE, OP_STAGE, OP_COMMIT, OP_ABORT, OP_PIN,
       OP_UNPIN, OP_EVICT, OP_STAT, NR_OPS };

#define NONE	((size_t)-1)

/* Where the common fields of one ioctl's struct are. */
static const struct ctl_op {
	const char *name;
	unsigned long cmd;
	size_t size;
	size_t ver1;		/* HC_*_SIZE_VER1 */
	size_t uri, uri_len;	/* NONE: no URI (STAT) */
	size_t reserved;	/* offset of the last reserved __u64 */
	size_t reserved0;	/* offset of a __u32 reserved0, or NONE */
	uint32_t bad_flag;	/* the lowest flag bit the kernel does not know */
	int writes;		/* writes results back: check the tail */
	int needs_write;	/* EBADF on a read-only open */
} ops[NR_OPS] = {
#define REF(op, c) { #op, c, sizeof(struct hc_obj_ref), HC_OBJ_REF_SIZE_VER1, \
	offsetof(struct hc_obj_ref, uri), offsetof(struct hc_obj_ref, uri_len), \
	offsetof(struct hc_obj_ref, reserved[1]), \
	offsetof(struct hc_obj_ref, reserved0), 1, 0, 0 }
	[OP_LOCATE] = { "locate", HC_IOC_LOCATE, sizeof(struct hc_locate),
		HC_LOCATE_SIZE_VER1,
		offsetof(struct hc_locate, uri),
		offsetof(struct hc_locate, uri_len),
		offsetof(struct hc_locate, reserved[1]),
		offsetof(struct hc_locate, reserved0),
		HC_LOCATE_F_ALL + 1, 1, 0 },
	[OP_RELEASE] = REF(release, HC_IOC_RELEASE),
	[OP_STAGE] = { "stage", HC_IOC_STAGE, sizeof(struct hc_stage),
		HC_STAGE_SIZE_VER1,
		offsetof(struct hc_stage, uri),
		offsetof(struct hc_stage, uri_len),
		offsetof(struct hc_stage, reserved[1]),
		offsetof(struct hc_stage, reserved0),
		HC_STAGE_F_ALL + 1, 1, 1 },
	[OP_COMMIT] = { "commit", HC_IOC_COMMIT, sizeof(struct hc_commit),
		HC_COMMIT_SIZE_VER1,
		offsetof(struct hc_commit, uri),
		offsetof(struct hc_commit, uri_len),
		offsetof(struct hc_commit, reserved[1]), NONE,
		HC_COMMIT_F_ALL + 1, 1, 1 },
	[OP_ABORT] = REF(abort, HC_IOC_ABORT),
	[OP_PIN] = REF(pin, HC_IOC_PIN),
	[OP_UNPIN] = REF(unpin, HC_IOC_UNPIN),
	[OP_EVICT] = REF(evict, HC_IOC_EVICT),
	[OP_STAT] = { "stat", HC_IOC_STAT, sizeof(struct hc_stats),
		HC_STATS_SIZE_VER1, NONE, NONE,
		offsetof(struct hc_stats, reserved[3]), NONE, 1, 1, 0 },
#undef REF
};

#define U_OBJ		"abi/obj"	/* READY, 0 bytes: LOCATE, RELEASE, PIN, UNPIN */
#define U_STAGE		"abi/stage"	/* STAGE makes it; aborted after */
#define U_COMMIT	"abi/commit"	/* staged before each COMMIT */
#define U_ABORT		"abi/abort"	/* staged before each ABORT */
#define U_EVICT		"abi/evict"	/* READY before each EVICT */

static int ctl_rw, ctl_ro;

static const char *op_uri(int op)
{
	switch (op) {
	case OP_STAGE:
		return U_STAGE;
	case OP_COMMIT:
		return U_COMMIT;
	case OP_ABORT:
		return U_ABORT;
	case OP_EVICT:
		return U_EVICT;
	default:
		return U_OBJ;
	}
}

static int ref(int fd, unsigned long cmd, const char *uri)
{
	struct hc_obj_ref r = {
		.size = sizeof(r), .uri = (uintptr_t)uri, .uri_len = strlen(uri),
	};

	return ioctl(fd, cmd, &r);
}

static int stage0(const char *uri)
{
	struct hc_stage st = {
		.size = sizeof(st), .uri = (uintptr_t)uri, .uri_len = strlen(uri),
	};

	return ioctl(ctl_rw, HC_IOC_STAGE, &st);
}

static int commit0(const char *uri)
{
	struct hc_commit cm = {
		.size = sizeof(cm), .flags = HC_COMMIT_F_CLEAN,
		.uri = (uintptr_t)uri, .uri_len = strlen(uri),
	};

	return ioctl(ctl_rw, HC_IOC_COMMIT, &cm);
}

static int hold(int fd, const char *uri)
{
	struct hc_locate l = {
		.size = sizeof(l), .flags = HC_LOCATE_F_HOLD,
		.uri = (uintptr_t)uri, .uri_len = strlen(uri),
	};

	if (ioctl(fd, HC_IOC_LOCATE, &l))
		return -1;
	return l.status == HC_LOCATE_HIT ? 0 : -1;
}

/* Make the object state the op's valid call expects (errors are fatal). */
static void setup(int op)
{
	int err = 0;

	switch (op) {
	case OP_RELEASE:
		err = hold(ctl_rw, U_OBJ);
		break;
	case OP_COMMIT:
	case OP_ABORT:
		ref(ctl_rw, HC_IOC_ABORT, op_uri(op));
		err = stage0(op_uri(op));
		break;
	case OP_EVICT:
		if (!stage0(U_EVICT))
			err = commit0(U_EVICT);
		else
			err = errno == EEXIST ? 0 : -1;
		break;
	}
	if (err) {
		failf("setup for %s: %s", ops[op].name, strerror(errno));
	}
}

/* Undo whatever a check may have left (errors ignored). */
static void teardown(int op)
{
	switch (op) {
	case OP_RELEASE:
		while (!ref(ctl_rw, HC_IOC_RELEASE, U_OBJ))
			;
		break;
	case OP_STAGE:
	case OP_ABORT:
		ref(ctl_rw, HC_IOC_ABORT, op_uri(op));
		break;
	case OP_COMMIT:
		ref(ctl_rw, HC_IOC_ABORT, U_COMMIT);
		ref(ctl_rw, HC_IOC_EVICT, U_COMMIT);
		break;
	case OP_PIN:
	case OP_UNPIN:
		ref(ctl_rw, HC_IOC_UNPIN, U_OBJ);
		break;
	}
}

static union {
	unsigned char b[4096 + 64];
	uint64_t align;
} arg;

/* A valid argument for @op, @size bytes, zero beyond the struct. */
static void fill(int op, uint32_t size, const char *uri, uint32_t uri_len)
{
	const struct ctl_op *o = &ops[op];
	uint64_t p = (uintptr_t)uri;

	memset(&arg, 0, sizeof(arg));
	memcpy(arg.b, &size, sizeof(size));
	if (o->uri != NONE) {
		memcpy(arg.b + o->uri, &p, sizeof(p));
		memcpy(arg.b + o->uri_len, &uri_len, sizeof(uri_len));
	}
	if (op == OP_COMMIT) {
		uint32_t f = HC_COMMIT_F_CLEAN;

		memcpy(arg.b + offsetof(struct hc_commit, flags), &f, sizeof(f));
	}
}

static void check(int op, const char *what, int fd, int want)
{
	static unsigned char before[sizeof(arg.b)];
	char name[160];
	int ret, err;

	snprintf(name, sizeof(name), "%s: %s", ops[op].name, what);
	memcpy(before, arg.b, sizeof(before));
	ret = ioctl(fd, ops[op].cmd, &arg);
	err = errno;
	expect(name, ret, want);
	/* a refused argument is not written back (nor anything else) */
	if (want && memcmp(before, arg.b, sizeof(before))) {
		uint32_t size;

		memcpy(&size, arg.b, sizeof(size));
		failf("%s: the kernel wrote to the argument of a call that %s (size field now %u)",
		      name, ret ? "failed" : "should have failed", size);
	}
	errno = err;
	teardown(op);
}

/* The whole matrix for one ioctl. */
static void ctl_matrix(int op)
{
	const struct ctl_op *o = &ops[op];
	const char *uri = op_uri(op);
	static char nul_uri[] = "abi\0obj", long_uri[HC_URI_MAX + 2];
	uint32_t len = strlen(uri), v;

	memset(long_uri, 'a', HC_URI_MAX + 1);

	setup(op);
	fill(op, o->size, uri, len);
	check(op, "exact size", ctl_rw, 0);
	if (!zero_range(arg.b, o->ver1, sizeof(arg.b)))
		failf("%s: wrote past the kernel's struct (exact size)", o->name);

	setup(op);
	fill(op, o->ver1, uri, len);
	check(op, "version-1 size", ctl_rw, 0);

	setup(op);
	fill(op, o->ver1 - 1, uri, len);
	check(op, "version-1 size - 1", ctl_rw, EINVAL);

	setup(op);
	fill(op, 0, uri, len);
	check(op, "size 0", ctl_rw, EINVAL);

	setup(op);
	fill(op, o->size + 1, uri, len);
	arg.b[o->size] = 0xa5;
	check(op, "size + 1, junk", ctl_rw, E2BIG);

	setup(op);
	fill(op, o->size + 1, uri, len);
	check(op, "size + 1, zero", ctl_rw, 0);
	if (arg.b[o->size]) {
		failf("%s: wrote past the kernel's struct", o->name);
	}

	setup(op);
	fill(op, 4096, uri, len);
	check(op, "size 4096, zero tail", ctl_rw, 0);
	for (v = o->size; v < 4096 + 64; v++)
		if (arg.b[v]) {
			failf("%s: wrote past the kernel's struct (size 4096)",
			      o->name);
			break;
		}

	setup(op);
	fill(op, o->size, uri, len);
	memcpy(arg.b + 4, &o->bad_flag, sizeof(o->bad_flag));
	check(op, "unknown flag", ctl_rw, EOPNOTSUPP);

	setup(op);
	fill(op, o->size, uri, len);
	v = 0x80000000U;
	memcpy(arg.b + 4, &v, sizeof(v));
	check(op, "flag bit 31", ctl_rw, EOPNOTSUPP);

	setup(op);
	fill(op, o->size, uri, len);
	arg.b[o->reserved] = 1;
	check(op, "reserved non-zero", ctl_rw, EINVAL);

	if (o->reserved0 != NONE) {
		setup(op);
		fill(op, o->size, uri, len);
		arg.b[o->reserved0] = 1;
		check(op, "reserved0 non-zero", ctl_rw, EINVAL);
	}

	if (o->uri != NONE) {
		setup(op);
		fill(op, o->size, uri, 0);
		check(op, "empty URI", ctl_rw, EINVAL);

		setup(op);
		fill(op, o->size, nul_uri, sizeof(nul_uri) - 1);
		check(op, "URI with a NUL", ctl_rw, EINVAL);

		setup(op);
		fill(op, o->size, long_uri, HC_URI_MAX + 1);
		check(op, "URI of HC_URI_MAX + 1 bytes", ctl_rw, E2BIG);

		setup(op);
		fill(op, o->size, long_uri, 0xffffffffU);
		check(op, "URI of 4 GiB - 1 bytes", ctl_rw, E2BIG);

		setup(op);
		fill(op, o->size, (const char *)8, len);
		check(op, "bad URI pointer", ctl_rw, EFAULT);
	}

	setup(op);
	expect("bad pointer", ioctl(ctl_rw, o->cmd, (void *)8), EFAULT);
	teardown(op);

	setup(op);
	fill(op, o->size, uri, len);
	if (o->needs_write) {
		check(op, "read-only open", ctl_ro, EBADF);
	} else if (op == OP_RELEASE) {
		/* a hold of the read-only file, released by it */
		teardown(op);
		if (hold(ctl_ro, U_OBJ))
			failf("release: LOCATE+HOLD read-only: %s",
			      strerror(errno));
		check(op, "read-only open", ctl_ro, 0);
	} else if (op == OP_LOCATE || op == OP_STAT) {
		check(op, "read-only open", ctl_ro, 0);
	} else {
		teardown(op);
	}
}

static int ctl_main(const char *path)
{
	static char max_uri[HC_URI_MAX + 1];
	struct hc_locate l;
	int op;

	ctl_rw = open(path, O_RDWR);
	ctl_ro = open(path, O_RDONLY);
	if (ctl_rw < 0 || ctl_ro < 0) {
		perror(path);
		return 2;
	}
	/* leftovers of an earlier run, then the fixture */
	ref(ctl_rw, HC_IOC_ABORT, U_STAGE);
	ref(ctl_rw, HC_IOC_UNPIN, U_OBJ);
	ref(ctl_rw, HC_IOC_EVICT, U_OBJ);
	if (stage0(U_OBJ) || commit0(U_OBJ)) {
		failf("fixture %s: %s", U_OBJ, strerror(errno));
		return summary();
	}

	for (op = 0; op < NR_OPS; op++)
		ctl_matrix(op);

	/* exactly HC_URI_MAX bytes is a valid URI */
	memset(max_uri, 'm', HC_URI_MAX);
	fill(OP_STAGE, sizeof(struct hc_stage), max_uri, HC_URI_MAX);
	expect("stage: URI of HC_URI_MAX bytes", ioctl(ctl_rw, HC_IOC_STAGE, &arg), 0);
	fill(OP_LOCATE, sizeof(struct hc_locate), max_uri, HC_URI_MAX);
	expect("locate: URI of HC_URI_MAX bytes", ioctl(ctl_rw, HC_IOC_LOCATE, &arg), 0);
	memcpy(&l, arg.b, sizeof(l));
	if (l.status != HC_LOCATE_PENDING || l.state != HC_OBJ_STAGED)
		failf("locate: max URI: status %u state %u, want pending staged",
		      l.status, l.state);
	fill(OP_ABORT, sizeof(struct hc_obj_ref), max_uri, HC_URI_MAX);
	expect("abort: URI of HC_URI_MAX bytes", ioctl(ctl_rw, HC_IOC_ABORT, &arg), 0);

	/* the object ops on a URI nobody has */
	for (op = OP_RELEASE; op <= OP_EVICT; op++) {
		char what[64];

		if (op == OP_STAGE || op == OP_COMMIT)
			continue;
		snprintf(what, sizeof(what), "%s: not cached", ops[op].name);
		expect(what, ref(ctl_rw, ops[op].cmd, "abi/nothing"), ENOENT);
	}
	fill(OP_COMMIT, sizeof(struct hc_commit), "abi/nothing", 11);
	expect("commit: nothing staged", ioctl(ctl_rw, HC_IOC_COMMIT, &arg), ENOENT);
	/* RELEASE without a hold; ABORT of a committed object */
	expect("release: no hold", ref(ctl_rw, HC_IOC_RELEASE, U_OBJ), ENOENT);
	expect("abort: not staged by this file",
	       ref(ctl_rw, HC_IOC_ABORT, U_OBJ), ENOENT);
	/* STAGE of a cached URI without REPLACE */
	fill(OP_STAGE, sizeof(struct hc_stage), U_OBJ, strlen(U_OBJ));
	expect("stage: cached, no REPLACE", ioctl(ctl_rw, HC_IOC_STAGE, &arg), EEXIST);

	/* STAGE larger than the pool: EFBIG, nothing changes */
	{
		struct hc_stats before = { .size = sizeof(before) };
		struct hc_stats after = { .size = sizeof(after) };
		/* the first two wrap DIV_ROUND_UP to a handful of chunks */
		uint64_t sizes[4] = { UINT64_MAX, UINT64_MAX - 4095 };
		struct hc_stage st;
		int i;

		if (ioctl(ctl_rw, HC_IOC_STAT, &before))
			failf("stat: %s", strerror(errno));
		sizes[2] = before.capacity + 1;
		sizes[3] = before.capacity + (4 << 20);
		for (i = 0; i < 4; i++) {
			char what[96];

			fill(OP_STAGE, sizeof(struct hc_stage), U_STAGE,
			     strlen(U_STAGE));
			memcpy(&st, arg.b, sizeof(st));
			st.obj_size = sizes[i];
			memcpy(arg.b, &st, sizeof(st));
			snprintf(what, sizeof(what), "stage: %llu bytes (pool %llu)",
				 (unsigned long long)sizes[i],
				 (unsigned long long)before.capacity);
			expect(what, ioctl(ctl_rw, HC_IOC_STAGE, &arg), EFBIG);
			ref(ctl_rw, HC_IOC_ABORT, U_STAGE);
		}
		if (ioctl(ctl_rw, HC_IOC_STAT, &after))
			failf("stat: %s", strerror(errno));
		if (after.objects != before.objects ||
		    after.bytes_used != before.bytes_used ||
		    after.by_state[HC_OBJ_STAGED] != before.by_state[HC_OBJ_STAGED])
			failf("stage: EFBIG changed the cache: objects %llu -> %llu, used %llu -> %llu",
			      (unsigned long long)before.objects,
			      (unsigned long long)after.objects,
			      (unsigned long long)before.bytes_used,
			      (unsigned long long)after.bytes_used);
	}

	/* numbers the device does not know */
	memset(&arg, 0, sizeof(arg));
	expect("ctl: unknown ioctl 0x1a", ioctl(ctl_rw, _IO(HC_IOCTL_MAGIC, 0x1a), &arg), ENOTTY);
	expect("ctl: unknown ioctl 0x0f", ioctl(ctl_rw, _IO(HC_IOCTL_MAGIC, 0x0f), &arg), ENOTTY);
	expect("ctl: GEOMETRY is not a ctl ioctl",
	       ioctl(ctl_rw, HC_IOC_GEOMETRY, &arg), ENOTTY);
	expect("ctl: LOCATE with size bits in the number",
	       ioctl(ctl_rw, _IOWR(HC_IOCTL_MAGIC, 0x10, struct hc_locate), &arg),
	       ENOTTY);
	expect("ctl: other magic", ioctl(ctl_rw, _IO(0xCB, 0x10), &arg), ENOTTY);

	ref(ctl_rw, HC_IOC_EVICT, U_EVICT);
	if (ref(ctl_rw, HC_IOC_EVICT, U_OBJ))
		failf("cleanup: evict %s: %s", U_OBJ, strerror(errno));
	close(ctl_ro);
	close(ctl_rw);
	return summary();
}

/* --- holds ---------------------------------------------------------------- */

/* Slab memory of the kernel in KiB (/proc/meminfo). */
static long slab_kib(void)
{
	char line[128];
	long v = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Slab: %ld kB", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

static int holds_main(const char *uri)
{
	struct hc_stats st = { .size = sizeof(st) };
	long slab0, slab1;
	int ro, rw, i;

	ro = open("/dev/" HC_CTL_NAME, O_RDONLY);
	rw = open("/dev/" HC_CTL_NAME, O_RDWR);
	if (ro < 0 || rw < 0) {
		perror("/dev/" HC_CTL_NAME);
		return 2;
	}
	if (hold(ro, uri)) {
		failf("the first LOCATE|HOLD of %s: %s", uri, strerror(errno));
		return summary();
	}
	slab0 = slab_kib();
	for (i = 1; i < HC_HOLD_MAX; i++)
		if (hold(ro, uri)) {
			failf("LOCATE|HOLD number %d: %s", i + 1, strerror(errno));
			return summary();
		}
	slab1 = slab_kib();
	printf("%d holds; slab %ld -> %ld KiB\n", HC_HOLD_MAX, slab0, slab1);
	/* one 32-byte entry per call would be 2 MiB */
	if (slab1 - slab0 > 1024)
		failf("the kernel's slab grew by %ld KiB over %d holds",
		      slab1 - slab0, HC_HOLD_MAX);
	expect("LOCATE|HOLD beyond HC_HOLD_MAX", hold(ro, uri), EOVERFLOW);
	expect("EVICT of the held object", ref(rw, HC_IOC_EVICT, uri), EBUSY);
	if (ioctl(rw, HC_IOC_STAT, &st) || st.held != 1)
		failf("STAT: held %llu, want 1", (unsigned long long)st.held);
	expect("RELEASE of one hold", ref(ro, HC_IOC_RELEASE, uri), 0);
	expect("LOCATE|HOLD again after a RELEASE", hold(ro, uri), 0);
	expect("EVICT while held", ref(rw, HC_IOC_EVICT, uri), EBUSY);
	close(ro);
	expect("EVICT after the holder closed", ref(rw, HC_IOC_EVICT, uri), 0);
	close(rw);
	return summary();
}

/*
 * The object's holds by every file together stop at @max (the caller set
 * the obj_holds_max test hook to it).
 */
static int obj_holds_main(const char *uri, int max)
{
	struct hc_stats st = { .size = sizeof(st) };
	int a, b, c, rw, i;

	if (max < 2) {
		fprintf(stderr, "hc_ioctl_abi: --obj-holds needs MAX >= 2\n");
		return 2;
	}
	a = open("/dev/" HC_CTL_NAME, O_RDONLY);
	b = open("/dev/" HC_CTL_NAME, O_RDONLY);
	c = open("/dev/" HC_CTL_NAME, O_RDONLY);
	rw = open("/dev/" HC_CTL_NAME, O_RDWR);
	if (a < 0 || b < 0 || c < 0 || rw < 0) {
		perror("/dev/" HC_CTL_NAME);
		return 2;
	}
	/* the first hold takes the pool lock, the next ones are lockless */
	for (i = 0; i < max - 1; i++)
		if (hold(a, uri)) {
			failf("LOCATE|HOLD number %d of the first file: %s",
			      i + 1, strerror(errno));
			return summary();
		}
	expect("the last hold below the bound, a second file's first",
	       hold(b, uri), 0);
	expect("a further hold of the first file at the bound",
	       hold(a, uri), EOVERFLOW);
	expect("a first hold of a third file at the bound",
	       hold(c, uri), EOVERFLOW);
	expect("RELEASE on the third file: it took no hold",
	       ref(c, HC_IOC_RELEASE, uri), ENOENT);
	if (ioctl(rw, HC_IOC_STAT, &st) || st.held != 1)
		failf("STAT: held %llu, want 1", (unsigned long long)st.held);
	expect("RELEASE of the second file's hold",
	       ref(b, HC_IOC_RELEASE, uri), 0);
	expect("a hold of the third file below the bound again",
	       hold(c, uri), 0);
	expect("a further hold of the third file at the bound",
	       hold(c, uri), EOVERFLOW);
	expect("EVICT while held", ref(rw, HC_IOC_EVICT, uri), EBUSY);
	close(a);
	close(b);
	close(c);
	/* a refused hold that had counted would keep the object held */
	expect("EVICT after the holders closed", ref(rw, HC_IOC_EVICT, uri), 0);
	close(rw);
	return summary();
}
