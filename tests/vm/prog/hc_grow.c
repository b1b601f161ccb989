// SPDX-License-Identifier: GPL-2.0
/*
 * hc_grow [CTLDEV]: the growable stage (HC_STAGE_F_GROW, HC_IOC_GROW,
 * COMMIT with HC_COMMIT_F_SIZE) on a running pool with room for at least
 * 12 free chunks, as the stager and with CAP_SYS_ADMIN:
 *
 *  - a growable STAGE with a hint of 0 holds no chunk; GROW to 1 byte gives
 *    it one chunk, the write fence admits the stager there and refuses the
 *    chunk after it (EIO); GROW to 3 chunks + 1 byte gives it 4 chunks,
 *    one extent that continues the first (the stripe goes on: chunk i of
 *    the object on member (m0 + i) mod N), all writable; a smaller GROW
 *    changes nothing;
 *  - GROW's errors: a read-only open EBADF, another URI ENOENT, a fixed
 *    stage EINVAL, more than the pool EFBIG (unchanged), an unknown flag
 *    EOPNOTSUPP, reserved0 EINVAL;
 *  - COMMIT's: a growable stage without HC_COMMIT_F_SIZE EINVAL, a final
 *    size past what it holds EFBIG, HC_COMMIT_F_SIZE on a fixed stage or
 *    in a version-1 struct EINVAL, @obj_size without the flag EINVAL; the
 *    stage stays writable after each;
 *  - COMMIT with the final size 3 chunks + 12345: the object is READY with
 *    that size and 4 chunks, the bytes read back with O_DIRECT equal what
 *    was written, the pool's used bytes grew by exactly 4 chunks, and the
 *    chunk after it is refused (EIO);
 *  - two growable stages grown in turn get disjoint chunks, each reads
 *    back its own bytes; COMMIT with the final size 1 of a stage grown to
 *    5 chunks frees 4 of them; closing the control file with a grown stage
 *    frees all its chunks.
 *
 * Makes and evicts its own objects "grow/...", but leaves grow/b (READY,
 * 2 chunks + 7 bytes in 3 chunks) for the caller to check across a restart.  Prints one line per check
 * and exits 1 if any failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "hypercache.h"

static int failures;
static const char *ctl_path = "/dev/hypercache-ctl";
static uint64_t chunk;
static uint32_t members;
static int dev;
static char *buf;	/* 4 chunks, aligned */

static void check(const char *what, int ok)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	if (!ok)
		failures++;
}

/* ioctl() failing with @want (0: success). */
static void expect(const char *what, int ret, int want)
{
	int got = ret ? errno : 0;
	char line[256];

	snprintf(line, sizeof(line), "%s: got %s, want %s", what,
		 got ? strerror(got) : "success",
		 want ? strerror(want) : "success");
	check(line, got == want);
}

static int stage(int ctl, const char *uri, uint64_t size, uint32_t flags)
{
	struct hc_extent ext[HC_MAX_EXTENTS];
	struct hc_stage st = {
		.size = sizeof(st), .flags = flags | HC_STAGE_F_REPLACE,
		.uri = (uintptr_t)uri, .uri_len = strlen(uri),
		.obj_size = size, .extents = (uintptr_t)ext,
		.max_extents = HC_MAX_EXTENTS,
	};
	int ret = ioctl(ctl, HC_IOC_STAGE, &st);

	if (!ret && (flags & HC_STAGE_F_GROW) && size == 0 && st.nr_extents)
		check("a growable stage with hint 0 holds no chunk", 0);
	return ret;
}

static int grow(int ctl, const char *uri, uint64_t size, uint32_t flags,
		struct hc_grow *out, struct hc_extent *ext)
{
	struct hc_grow gr = {
		.size = sizeof(gr), .flags = flags,
		.uri = (uintptr_t)uri, .uri_len = strlen(uri),
		.obj_size = size, .extents = (uintptr_t)ext,
		.max_extents = ext ? HC_MAX_EXTENTS : 0,
	};
	int ret = ioctl(ctl, HC_IOC_GROW, &gr);

	if (out)
		*out = gr;
	return ret;
}

static int commit(int ctl, const char *uri, uint32_t size, uint32_t flags,
		  uint64_t obj_size)
{
	struct hc_commit cm = {
		.size = size, .flags = flags,
		.uri = (uintptr_t)uri, .uri_len = strlen(uri),
		.obj_size = obj_size,
	};

	return ioctl(ctl, HC_IOC_COMMIT, &cm);
}

static int ref(int ctl, unsigned long cmd, const char *uri)
{
	struct hc_obj_ref r = {
		.size = sizeof(r), .uri = (uintptr_t)uri, .uri_len = strlen(uri),
	};

	return ioctl(ctl, cmd, &r);
}

static uint64_t used(int ctl)
{
	struct hc_stats st = { .size = sizeof(st) };

	if (ioctl(ctl, HC_IOC_STAT, &st)) {
		perror("hc_grow: STAT");
		exit(2);
	}
	return st.bytes_used;
}

/* LOCATE (PEEK) with the layout; -1 on error. */
static int locate(int ctl, const char *uri, struct hc_locate *l,
		  struct hc_chunk_loc *layout, uint32_t max)
{
	memset(l, 0, sizeof(*l));
	l->size = sizeof(*l);
	l->flags = HC_LOCATE_F_PEEK;
	l->uri = (uintptr_t)uri;
	l->uri_len = strlen(uri);
	l->layout = (uintptr_t)layout;
	l->max_layout = max;
	return ioctl(ctl, HC_IOC_LOCATE, l);
}

/* The byte at object offset @i of the object numbered @seed. */
static char pat(unsigned int seed, uint64_t i)
{
	return (char)((i * 2654435761u >> 13) + seed * 77 + (i >> 12));
}

static void fill(unsigned int seed, uint64_t len)
{
	uint64_t i;

	for (i = 0; i < len; i++)
		buf[i] = pat(seed, i);
}

/* O_DIRECT write of @len bytes of buf at device offset @off; 0 or errno. */
static int dwrite(uint64_t off, uint64_t len)
{
	ssize_t n = pwrite(dev, buf, len, off);

	return n == (ssize_t)len ? 0 : n < 0 ? errno : EIO;
}

/* Whether the object's bytes (layout @l, @size) are pattern @seed. */
static int readback(unsigned int seed, const struct hc_chunk_loc *l,
		    uint32_t nr, uint64_t size)
{
	uint64_t off = 0, i;
	uint32_t k;

	for (k = 0; k < nr; k++) {
		uint64_t len = (l[k].length + 4095) & ~4095ULL;

		if (pread(dev, buf, len, l[k].dev_offset) != (ssize_t)len)
			return 0;
		for (i = 0; i < l[k].length; i++)
			if (buf[i] != pat(seed, off + i))
				return 0;
		off += l[k].length;
	}
	return off == size;
}

int main(int argc, char **argv)
{
	struct hc_chunk_loc lay[8], lay2[8];
	struct hc_extent ext[HC_MAX_EXTENTS];
	struct hc_geometry geo = { .size = sizeof(geo) };
	struct hc_locate l, l2;
	struct hc_grow gr;
	uint64_t base, off0, u0;
	int ctl, ro, ctl2;
	uint32_t k;
	int ok;

	if (argc > 1)
		ctl_path = argv[1];
	ctl = open(ctl_path, O_RDWR);
	ro = open(ctl_path, O_RDONLY);
	dev = open("/dev/hypercache0", O_RDWR | O_DIRECT);
	if (ctl < 0 || ro < 0 || dev < 0 || ioctl(dev, HC_IOC_GEOMETRY, &geo)) {
		perror("hc_grow: open");
		return 2;
	}
	chunk = geo.chunk_size;
	members = geo.member_count;
	if (posix_memalign((void **)&buf, 4096, 5 * chunk))
		return 2;

	/* Grow from nothing, chunk by chunk, under the fence. */
	u0 = used(ctl);
	expect("STAGE growable, hint 0", stage(ctl, "grow/a", 0, HC_STAGE_F_GROW), 0);
	check("hint 0: no chunk used", used(ctl) == u0);
	expect("GROW to 1 byte", grow(ctl, "grow/a", 1, 0, &gr, ext), 0);
	check("GROW to 1 byte: one extent of one chunk, capacity one chunk",
	      gr.nr_extents == 1 && ext[0].length == chunk &&
	      gr.capacity == chunk);
	off0 = ext[0].offset;
	fill(1, 4 * chunk);
	expect("the stager writes the grown chunk", dwrite(off0, chunk) ? -1 : 0, 0);
	if (off0 + chunk < geo.capacity) {
		errno = dwrite(off0 + chunk, 4096);
		expect("the chunk after the stage is refused", errno ? -1 : 0, EIO);
	}
	expect("GROW to 3 chunks + 1", grow(ctl, "grow/a", 3 * chunk + 1, 0, &gr, ext), 0);
	check("GROW to 3 chunks + 1: capacity 4 chunks", gr.capacity == 4 * chunk);
	check("the new chunks continue the extent (one extent)",
	      gr.nr_extents == 1 && ext[0].offset == off0 &&
	      ext[0].length == 4 * chunk);
	expect("the stager writes all 4 chunks",
	       dwrite(off0, 4 * chunk) ? -1 : 0, 0);
	expect("a smaller GROW", grow(ctl, "grow/a", chunk, 0, &gr, NULL), 0);
	check("a smaller GROW changes nothing", gr.capacity == 4 * chunk &&
	      gr.nr_extents == 1 && used(ctl) == u0 + 4 * chunk);
	if (!locate(ctl, "grow/a", &l, lay, 8)) {
		ok = l.status == HC_LOCATE_PENDING && l.obj_size == 4 * chunk &&
		     l.nr_layout == 4;
		for (k = 1; k < 4 && k < l.nr_layout; k++)
			ok = ok && lay[k].member == (lay[0].member + k) % members;
		check("LOCATE: PENDING, 4 chunks, chunk i on member m0 + i", ok);
	} else {
		check("LOCATE of the stage", 0);
	}

	/* GROW's errors leave the stage as it was. */
	expect("GROW on a read-only open", grow(ro, "grow/a", 5 * chunk, 0, NULL, NULL), EBADF);
	expect("GROW of another URI", grow(ctl, "grow/none", chunk, 0, NULL, NULL), ENOENT);
	expect("STAGE fixed", stage(ctl, "grow/fixed", chunk, 0), 0);
	expect("GROW of a fixed stage", grow(ctl, "grow/fixed", 2 * chunk, 0, NULL, NULL), EINVAL);
	expect("GROW larger than the pool",
	       grow(ctl, "grow/a", geo.capacity + 1, 0, NULL, NULL), EFBIG);
	expect("GROW to 2^64 - 1", grow(ctl, "grow/a", UINT64_MAX, 0, NULL, NULL), EFBIG);
	expect("GROW with an unknown flag",
	       grow(ctl, "grow/a", chunk, HC_GROW_F_ALL + 1, NULL, NULL), EOPNOTSUPP);
	{
		struct hc_grow bad = {
			.size = sizeof(bad), .uri = (uintptr_t)"grow/a",
			.uri_len = 6, .obj_size = chunk, .reserved0 = 1,
		};

		expect("GROW with reserved0", ioctl(ctl, HC_IOC_GROW, &bad), EINVAL);
		bad.reserved0 = 0;
		bad.size = HC_GROW_SIZE_VER1 - 1;
		expect("GROW shorter than version 1", ioctl(ctl, HC_IOC_GROW, &bad), EINVAL);
	}
	check("after the errors: still 4 chunks, 4 + 1 used",
	      !grow(ctl, "grow/a", 0, 0, &gr, NULL) && gr.capacity == 4 * chunk &&
	      used(ctl) == u0 + 5 * chunk);

	/* COMMIT's errors leave it STAGED and writable. */
	expect("COMMIT a growable stage without its size",
	       commit(ctl, "grow/a", sizeof(struct hc_commit), 0, 0), EINVAL);
	expect("COMMIT with a size past what it holds",
	       commit(ctl, "grow/a", sizeof(struct hc_commit), HC_COMMIT_F_SIZE,
		      4 * chunk + 1), EFBIG);
	expect("COMMIT_F_SIZE in a version-1 struct",
	       commit(ctl, "grow/a", HC_COMMIT_SIZE_VER1, HC_COMMIT_F_SIZE, 0), EINVAL);
	expect("COMMIT_F_SIZE on a fixed stage",
	       commit(ctl, "grow/fixed", sizeof(struct hc_commit), HC_COMMIT_F_SIZE,
		      chunk), EINVAL);
	expect("COMMIT with obj_size but no flag",
	       commit(ctl, "grow/fixed", sizeof(struct hc_commit), 0, chunk), EINVAL);
	expect("ABORT the fixed stage", ref(ctl, HC_IOC_ABORT, "grow/fixed"), 0);
	expect("still writable after the refused COMMITs",
	       dwrite(off0, 4 * chunk) ? -1 : 0, 0);

	/* COMMIT with the final size. */
	expect("COMMIT with the final size 3 chunks + 12345",
	       commit(ctl, "grow/a", sizeof(struct hc_commit),
		      HC_COMMIT_F_SIZE | HC_COMMIT_F_CLEAN, 3 * chunk + 12345), 0);
	ok = !locate(ctl, "grow/a", &l, lay, 8) && l.status == HC_LOCATE_HIT &&
	     l.state == HC_OBJ_READY && l.obj_size == 3 * chunk + 12345 &&
	     l.nr_layout == 4 && l.nr_extents == 1;
	check("committed: READY, 3 chunks + 12345 bytes, 4 chunks, 1 extent", ok);
	check("committed: used bytes grew by exactly 4 chunks",
	      used(ctl) == u0 + 4 * chunk);
	check("committed: the bytes read back", ok &&
	      readback(1, lay, l.nr_layout, l.obj_size));
	fill(1, chunk);
	errno = dwrite(off0, 4096);
	expect("committed: the fence refuses its first chunk", errno ? -1 : 0, EIO);

	/* Trim: a stage grown to 5 chunks commits 1 byte. */
	base = used(ctl);
	expect("STAGE growable grow/t", stage(ctl, "grow/t", 5 * chunk, HC_STAGE_F_GROW), 0);
	check("hint 5 chunks: 5 chunks used", used(ctl) == base + 5 * chunk);
	expect("COMMIT grow/t with the final size 1",
	       commit(ctl, "grow/t", sizeof(struct hc_commit),
		      HC_COMMIT_F_SIZE | HC_COMMIT_F_CLEAN, 1), 0);
	check("grow/t: 4 of its 5 chunks freed", used(ctl) == base + chunk);
	ok = !locate(ctl, "grow/t", &l, lay, 8) && l.state == HC_OBJ_READY &&
	     l.obj_size == 1 && l.nr_layout == 1;
	check("grow/t: READY, 1 byte, 1 chunk", ok);
	if (ok) {
		errno = dwrite(lay[0].dev_offset + chunk, 4096);
		/* The freed chunk may belong to nothing: refused either way. */
		expect("a chunk grow/t gave back is refused", errno ? -1 : 0, EIO);
	}

	/* Two growable stages grown in turn. */
	base = used(ctl);
	expect("STAGE growable grow/b", stage(ctl, "grow/b", 1, HC_STAGE_F_GROW), 0);
	expect("STAGE growable grow/c", stage(ctl, "grow/c", 1, HC_STAGE_F_GROW), 0);
	expect("GROW grow/b to 3 chunks", grow(ctl, "grow/b", 3 * chunk, 0, NULL, NULL), 0);
	expect("GROW grow/c to 2 chunks", grow(ctl, "grow/c", 2 * chunk, 0, NULL, NULL), 0);
	ok = !locate(ctl, "grow/b", &l, lay, 8) && l.nr_layout == 3 &&
	     !locate(ctl, "grow/c", &l2, lay2, 8) && l2.nr_layout == 2;
	for (k = 0; ok && k < 3; k++) {
		uint32_t j;

		for (j = 0; j < 2; j++)
			ok = ok && lay[k].dev_offset != lay2[j].dev_offset;
	}
	check("grow/b and grow/c hold disjoint chunks", ok);
	if (ok) {
		for (k = 0; k < 3; k++) {
			fill(2, 3 * chunk);
			memmove(buf, buf + k * chunk, chunk);
			ok = ok && !dwrite(lay[k].dev_offset, chunk);
		}
		for (k = 0; k < 2; k++) {
			fill(3, 2 * chunk);
			memmove(buf, buf + k * chunk, chunk);
			ok = ok && !dwrite(lay2[k].dev_offset, chunk);
		}
		check("each writes its own chunks", ok);
	}
	expect("COMMIT grow/b at 2 chunks + 7",
	       commit(ctl, "grow/b", sizeof(struct hc_commit),
		      HC_COMMIT_F_SIZE | HC_COMMIT_F_CLEAN, 2 * chunk + 7), 0);
	expect("COMMIT grow/c at 2 chunks",
	       commit(ctl, "grow/c", sizeof(struct hc_commit),
		      HC_COMMIT_F_SIZE | HC_COMMIT_F_CLEAN, 2 * chunk), 0);
	check("grow/b reads back its bytes",
	      !locate(ctl, "grow/b", &l, lay, 8) &&
	      readback(2, lay, l.nr_layout, 2 * chunk + 7));
	check("grow/c reads back its bytes",
	      !locate(ctl, "grow/c", &l, lay, 8) &&
	      readback(3, lay, l.nr_layout, 2 * chunk));
	check("grow/b and grow/c use 5 chunks", used(ctl) == base + 5 * chunk);

	/* A grown stage whose file closes frees everything. */
	base = used(ctl);
	ctl2 = open(ctl_path, O_RDWR);
	expect("STAGE growable on a second file",
	       stage(ctl2, "grow/d", 0, HC_STAGE_F_GROW), 0);
	expect("GROW it to 6 chunks", grow(ctl2, "grow/d", 6 * chunk, 0, NULL, NULL), 0);
	check("6 chunks used", used(ctl) == base + 6 * chunk);
	close(ctl2);
	check("closed: its chunks are free again", used(ctl) == base);
	check("closed: no object left",
	      !locate(ctl, "grow/d", &l, NULL, 0) && l.status == HC_LOCATE_MISS);

	expect("EVICT grow/a", ref(ctl, HC_IOC_EVICT, "grow/a"), 0);
	expect("EVICT grow/t", ref(ctl, HC_IOC_EVICT, "grow/t"), 0);
	expect("EVICT grow/c", ref(ctl, HC_IOC_EVICT, "grow/c"), 0);
	check("all but grow/b evicted: used bytes as before + 3 chunks",
	      used(ctl) == u0 + 3 * chunk);
	printf("%d failed\n", failures);
	return failures ? 1 : 0;
}
