// SPDX-License-Identifier: GPL-2.0
/*
 * hc_fuzz --seed N --secs S [--unpriv UID] [--members DEV,DEV,...]
 *         [--check-every K]
 *
 * A fuzzer of HyperCache's control surface: random sequences of every ioctl
 * of /dev/hypercache-ctl and /dev/hypercache0 and every netlink command of
 * the "hypercache" family, with random and boundary values (struct sizes,
 * flags, reserved fields, URIs and their lengths and pointers, extents
 * pointers and counts, object sizes near 0, the chunk size, the pool's
 * capacity and 2^64, request ids, raw writes through the fence).
 *
 * It runs two processes at once: this one, privileged, and (with --unpriv)
 * a child that drops to UID (no groups, no capabilities) before opening
 * anything.  Each draws from its own generator seeded from N, so a run is
 * replayed by giving the same seed (up to the interleaving of the two).
 * Both stop after S seconds.  A sequence is the operations done on one set
 * of open files (the files are closed, so what they held or staged is
 * released, and reopened every 20..200 operations).
 *
 * --members: the pool's members; the privileged process then also stops
 * and reassembles the pool now and then (and sends create/assemble
 * requests with bogus members often).  --check-every K: every K
 * operations the privileged process reads the kernel's consistency verdict
 * (/sys/kernel/debug/hypercache/check) and stops at the first one that is
 * not "ok" or "no pool".
 *
 * --trace: one line per call on stderr (unbuffered), to see the last
 * call before a hang.
 *
 * Every call gets 3 s (an alarm without SA_RESTART: a call still blocked
 * then fails with EINTR and is counted as cut; LOCATE with WAIT and
 * timeout 0 waits until the object is resolved, which may be never).
 *
 * Prints "hc_fuzz: seed=N" first and, per process, "hc_fuzz: ROLE:
 * seed=N ops=O sequences=Q cut=C secs=T" at the end (ROLE priv or unpriv).
 * Exit status 0, or 1 if a consistency check failed (the verdict is
 * printed), 2 on a usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/fs.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "hypercache.h"
#include "hypercache_netlink.h"

#define CHUNK		(4ULL << 20)
#define NR_URIS		8
#define MAX_MEMBERS	8

static uint64_t rng;
static const char *role = "priv";
static bool priv = true;
static char *members[MAX_MEMBERS];
static int nr_members;
static unsigned long check_every;
static unsigned long ops, seqs, cut;
static volatile sig_atomic_t alarmed;
static int ctl_fd = -1, disk_fd = -1;
static struct nl_sock *sk;
static int family;
static uint64_t seen_ids[16];
static unsigned int nr_seen;
static uint64_t capacity;
static char *bad_page;		/* PROT_NONE: a pointer the kernel must not follow */
static bool trace;		/* --trace: one line per call on stderr, unbuffered */

#define TRACE(...) do { if (trace) dprintf(2, __VA_ARGS__); } while (0)

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static bool chance(unsigned int pct)
{
	return below(100) < pct;
}

/* A boundary-heavy 64-bit value. */
static uint64_t val64(void)
{
	static const uint64_t b[] = {
		0, 1, 2, 511, 512, 4095, 4096, CHUNK - 1, CHUNK, CHUNK + 1,
		3 * CHUNK + 12345, 1ULL << 31, 1ULL << 32, (1ULL << 32) - 1,
		1ULL << 62, 1ULL << 63, UINT64_MAX - CHUNK, UINT64_MAX - 1,
		UINT64_MAX,
	};

	switch (below(4)) {
	case 0:
		return b[below(sizeof(b) / sizeof(b[0]))];
	case 1:
		return capacity + below(3) * CHUNK - CHUNK;
	case 2:
		return below(5 * CHUNK);
	default:
		return rnd();
	}
}

static uint32_t val32(void)
{
	static const uint32_t b[] = { 0, 1, 2, 63, 64, 65, 1023, 1024, 1025,
				      4096, 0x7fffffff, 0x80000000, UINT32_MAX };

	if (chance(60))
		return b[below(sizeof(b) / sizeof(b[0]))];
	return (uint32_t)rnd();
}

/* Flags: mostly the defined bits, sometimes anything. */
static uint32_t flags(uint32_t all)
{
	if (chance(80))
		return (uint32_t)rnd() & all;
	return (uint32_t)rnd();
}

static char uribuf[2048];

/* A URI: usually one of a few shared names, so operations collide. */
static uint32_t uri(uint64_t *ptr)
{
	uint32_t len;

	switch (below(10)) {
	case 0:
		*ptr = 0;
		return 1 + below(8);
	case 1:
		*ptr = (uintptr_t)bad_page;
		return 1 + below(64);
	case 2:
		len = (uint32_t)below(sizeof(uribuf));
		for (uint32_t i = 0; i < len; i++)
			uribuf[i] = (char)rnd();
		*ptr = (uintptr_t)uribuf;
		return chance(50) ? len : val32();
	case 3:
		len = snprintf(uribuf, sizeof(uribuf), "file:/nonexistent/%u",
			       (unsigned int)below(NR_URIS));
		*ptr = (uintptr_t)uribuf;
		return len;
	default:
		len = snprintf(uribuf, sizeof(uribuf), "fz/%u", (unsigned int)below(NR_URIS));
		*ptr = (uintptr_t)uribuf;
		return len;
	}
}

/* The size field of an ioctl struct of @n bytes. */
static uint32_t ssize(uint32_t n)
{
	switch (below(12)) {
	case 0: return 0;
	case 1: return n - 1;
	case 2: return n + 8;
	case 3: return (uint32_t)below(4 * n);
	case 4: return val32();
	default: return n;
	}
}

static union {
	struct hc_locate loc;
	struct hc_stage st;
	struct hc_commit cm;
	struct hc_obj_ref ref;
	struct hc_stats stats;
	struct hc_geometry geo;
	unsigned char raw[512];
} arg;
static struct hc_extent ext[HC_MAX_EXTENTS + 4];
static struct hc_chunk_loc lay[HC_MAX_EXTENTS + 4];

/* Fill the tail past the struct: zeros or junk (the E2BIG rule). */
static void tail(size_t n)
{
	if (chance(50))
		memset(arg.raw + n, 0, sizeof(arg.raw) - n);
	else
		for (size_t i = n; i < sizeof(arg.raw); i++)
			arg.raw[i] = (unsigned char)rnd();
}

static uint64_t extptr(void *good)
{
	switch (below(6)) {
	case 0: return 0;
	case 1: return (uintptr_t)bad_page;
	case 2: return rnd();
	default: return (uintptr_t)good;
	}
}

static void open_files(void)
{
	int mode = chance(50) ? O_RDWR : O_RDONLY;

	ctl_fd = open("/dev/" HC_CTL_NAME, mode);
	disk_fd = open("/dev/hypercache0", (chance(50) ? O_RDWR : O_RDONLY) |
		       (chance(50) ? O_DIRECT : 0));
	seqs++;
}

static void close_files(void)
{
	if (ctl_fd >= 0)
		close(ctl_fd);
	if (disk_fd >= 0)
		close(disk_fd);
	ctl_fd = disk_fd = -1;
}

/* A staged object's extents, kept to write into them and commit it. */
static struct {
	bool live;
	char uri[64];
	uint32_t uri_len;
	uint32_t nr;
	struct hc_extent ext[HC_MAX_EXTENTS];
} stage;

static void do_ioctl_ctl(void)
{
	unsigned long nr;
	uint64_t p;

	memset(&arg, 0, sizeof(arg));
	switch (below(11)) {
	case 0:
	case 1:
		arg.loc.size = ssize(sizeof(arg.loc));
		arg.loc.flags = flags(HC_LOCATE_F_ALL);
		arg.loc.uri_len = uri(&p);
		arg.loc.uri = p;
		/* 0 waits until the object is resolved: the alarm cuts it */
		arg.loc.timeout_ms = chance(98) ? 1 + (uint32_t)below(30) : 0;
		arg.loc.max_extents = chance(70) ? (uint32_t)below(HC_MAX_EXTENTS + 2) : val32();
		arg.loc.extents = extptr(ext);
		arg.loc.max_layout = chance(70) ? (uint32_t)below(HC_MAX_EXTENTS + 2) : val32();
		arg.loc.layout = extptr(lay);
		if (chance(10))
			arg.loc.reserved0 = (uint32_t)rnd();
		if (chance(10))
			arg.loc.reserved[below(2)] = rnd();
		tail(sizeof(arg.loc));
		nr = HC_IOC_LOCATE;
		break;
	case 2:
	case 3:
		arg.st.size = ssize(sizeof(arg.st));
		arg.st.flags = flags(HC_STAGE_F_ALL) | HC_STAGE_F_NOWAIT;
		arg.st.uri_len = uri(&p);
		arg.st.uri = p;
		arg.st.obj_size = chance(70) ? below(3 * CHUNK) : val64();
		arg.st.max_extents = chance(80) ? HC_MAX_EXTENTS : val32();
		arg.st.extents = extptr(ext);
		if (chance(10))
			arg.st.reserved0 = (uint32_t)rnd();
		if (chance(10))
			arg.st.reserved[below(2)] = rnd();
		tail(sizeof(arg.st));
		TRACE("%s %lu: STAGE size %u flags %#x obj_size %llu max_ext %u\n", role, ops,
		      arg.st.size, arg.st.flags, (unsigned long long)arg.st.obj_size,
		      arg.st.max_extents);
		if (ioctl(ctl_fd, HC_IOC_STAGE, &arg) == 0 && p == (uintptr_t)uribuf &&
		    arg.st.uri_len < sizeof(stage.uri) && arg.st.extents == (uintptr_t)ext &&
		    arg.st.nr_extents <= HC_MAX_EXTENTS) {
			stage.live = true;
			memcpy(stage.uri, uribuf, arg.st.uri_len);
			stage.uri_len = arg.st.uri_len;
			stage.nr = arg.st.nr_extents;
			memcpy(stage.ext, ext, stage.nr * sizeof(ext[0]));
		}
		return;
	case 4:
		arg.cm.size = ssize(sizeof(arg.cm));
		arg.cm.flags = flags(HC_COMMIT_F_ALL);
		if (stage.live && chance(70)) {
			arg.cm.uri = (uintptr_t)stage.uri;
			arg.cm.uri_len = stage.uri_len;
		} else {
			arg.cm.uri_len = uri(&p);
			arg.cm.uri = p;
		}
		arg.cm.crc32c = (uint32_t)rnd();
		arg.cm.generation = chance(50) ? 0 : val64();
		if (chance(10))
			arg.cm.reserved[below(2)] = rnd();
		tail(sizeof(arg.cm));
		nr = HC_IOC_COMMIT;
		break;
	case 5:
	case 6: {
		static const unsigned long refs[] = { HC_IOC_RELEASE, HC_IOC_ABORT,
			HC_IOC_PIN, HC_IOC_UNPIN, HC_IOC_EVICT };

		arg.ref.size = ssize(sizeof(arg.ref));
		arg.ref.flags = chance(80) ? 0 : (uint32_t)rnd();
		if (stage.live && chance(30)) {
			arg.ref.uri = (uintptr_t)stage.uri;
			arg.ref.uri_len = stage.uri_len;
		} else {
			arg.ref.uri_len = uri(&p);
			arg.ref.uri = p;
		}
		if (chance(10))
			arg.ref.reserved0 = (uint32_t)rnd();
		if (chance(10))
			arg.ref.reserved[below(2)] = rnd();
		tail(sizeof(arg.ref));
		nr = refs[below(5)];
		break;
	}
	case 7:
		arg.stats.size = ssize(sizeof(arg.stats));
		arg.stats.flags = chance(80) ? 0 : (uint32_t)rnd();
		tail(sizeof(arg.stats));
		nr = HC_IOC_STAT;
		break;
	case 8:
		/* a write into the staged extents (or anywhere): the fence */
		if (disk_fd >= 0) {
			static char buf[65536] __attribute__((aligned(4096)));
			uint64_t off;

			if (stage.live && stage.nr && chance(70))
				off = stage.ext[below(stage.nr)].offset +
				      below(CHUNK / 4096) * 4096;
			else
				off = below(capacity ? capacity / 4096 : 1) * 4096;
			memset(buf, (int)rnd(), sizeof(buf));
			TRACE("%s %lu: pwrite at %llu\n", role, ops, (unsigned long long)off);
			if (pwrite(disk_fd, buf, 4096 * (1 + below(16)), (off_t)off) < 0 && chance(10))
				(void)fdatasync(disk_fd);
		}
		return;
	case 9:
		/* a pointer the kernel must not follow as the argument */
		nr = HC_IOC_LOCATE + below(10);
		TRACE("%s %lu: ctl ioctl %#lx bad arg\n", role, ops, nr);
		(void)ioctl(ctl_fd, nr, chance(50) ? (void *)bad_page : NULL);
		return;
	default:
		/* unknown numbers around ours, with a plausible struct */
		memset(arg.raw, 0, sizeof(arg.raw));
		arg.ref.size = (uint32_t)below(sizeof(arg.raw));
		nr = _IO(HC_IOCTL_MAGIC, below(0x30));
		if (chance(30))
			nr = _IOWR(HC_IOCTL_MAGIC, below(0x30), struct hc_locate);
		break;
	}
	TRACE("%s %lu: ctl ioctl %#lx size %u\n", role, ops, nr, arg.ref.size);
	if (ioctl(ctl_fd, nr, &arg) == 0 && nr == HC_IOC_COMMIT &&
	    arg.cm.uri == (uintptr_t)stage.uri)
		stage.live = false;
}

static void do_ioctl_disk(void)
{
	uint64_t v;

	if (disk_fd < 0)
		return;
	memset(&arg, 0, sizeof(arg));
	TRACE("%s %lu: disk op\n", role, ops);
	switch (below(4)) {
	case 0:
		arg.geo.size = ssize(sizeof(arg.geo));
		arg.geo.flags = chance(80) ? 0 : (uint32_t)rnd();
		if (chance(10))
			arg.geo.reserved[below(2)] = rnd();
		tail(sizeof(arg.geo));
		if (ioctl(disk_fd, HC_IOC_GEOMETRY, &arg) == 0 &&
		    arg.geo.size == sizeof(arg.geo))
			capacity = arg.geo.capacity;
		break;
	case 1:
		(void)ioctl(disk_fd, BLKGETSIZE64, &v);
		break;
	case 2:
		(void)ioctl(disk_fd, _IO(HC_IOCTL_MAGIC, below(0x20)),
			    chance(50) ? (void *)&arg : (void *)bad_page);
		break;
	default: {
		/* discard or zero-out of a random range: fenced like writes */
		uint64_t r[2] = { below(capacity / 4096 + 1) * 4096, (1 + below(8)) * 4096 };

		(void)ioctl(disk_fd, chance(50) ? BLKDISCARD : BLKZEROOUT, r);
		break;
	}
	}
}

/* --- netlink ------------------------------------------------------------ */

static int nl_done;

static int on_valid(struct nl_msg *msg, void *a)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct nlattr *tb[HC_A_ING_MAX + 1];

	(void)a;
	if ((g->cmd == HC_CMD_INGEST || g->cmd == HC_CMD_EGRESS ||
	     g->cmd == HC_CMD_REVALIDATE) &&
	    !genlmsg_parse(nlh, 0, tb, HC_A_ING_MAX, NULL) && tb[HC_A_ING_ID] &&
	    nla_len(tb[HC_A_ING_ID]) == 8)
		seen_ids[nr_seen++ % 16] = nla_get_u64(tb[HC_A_ING_ID]);
	return NL_OK;
}

static int on_stop(struct nl_msg *msg, void *a)
{
	(void)msg;
	(void)a;
	nl_done = 1;
	return NL_STOP;
}

static int on_err(struct sockaddr_nl *nla, struct nlmsgerr *e, void *a)
{
	(void)nla;
	(void)e;
	(void)a;
	nl_done = 1;
	return NL_STOP;
}

static void nl_open(void)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = 300000 };

	sk = nl_socket_alloc();
	if (!sk || genl_connect(sk)) {
		fprintf(stderr, "hc_fuzz: %s: no netlink socket\n", role);
		exit(2);
	}
	family = genl_ctrl_resolve(sk, HC_GENL_NAME);
	nl_socket_disable_seq_check(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_valid, NULL);
	nl_socket_modify_cb(sk, NL_CB_ACK, NL_CB_CUSTOM, on_stop, NULL);
	nl_socket_modify_cb(sk, NL_CB_FINISH, NL_CB_CUSTOM, on_stop, NULL);
	nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, on_err, NULL);
	setsockopt(nl_socket_get_fd(sk), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

static void put_uri(struct nl_msg *m, int type)
{
	uint64_t p;
	uint32_t len = uri(&p);

	if (p != (uintptr_t)uribuf || len > sizeof(uribuf))
		len = (uint32_t)below(4);
	nla_put(m, type, len, uribuf);
}

static void put_ext(struct nl_msg *m, int type)
{
	unsigned int n = (unsigned int)below(4);

	while (n--) {
		struct nlattr *e = nla_nest_start(m, type);

		if (!e)
			return;
		if (chance(90))
			nla_put_u64(m, HC_A_EXT_OFFSET, val64());
		if (chance(90))
			nla_put_u64(m, HC_A_EXT_LENGTH, val64());
		nla_nest_end(m, e);
	}
}

/*
 * HC_CMD_REVAL_RULES: rules in range (prefixes of the fuzz's own URIs, so
 * LOCATEs with HOLD find due objects) and out of it: empty or too long
 * prefixes, unknown modes, periods past HC_REVAL_TTL_MAX or given to a mode
 * without one, missing attributes, duplicates, more than
 * HC_REVAL_RULES_MAX rules.
 */
static void put_rules(struct nl_msg *m)
{
	static char big[1100];
	unsigned int n = chance(5) ? HC_REVAL_RULES_MAX + below(3) : below(4);

	memset(big, 'f', sizeof(big));
	while (n--) {
		struct nlattr *e = nla_nest_start(m, HC_A_REV_RULE);
		char pre[32];
		int len = snprintf(pre, sizeof(pre), "fz/%u", (unsigned int)below(12));

		if (!e)
			return;
		if (chance(5))
			nla_put(m, HC_A_REV_RULE_PREFIX, chance(50) ? 0 : (int)sizeof(big),
				big);
		else if (chance(95))
			nla_put(m, HC_A_REV_RULE_PREFIX, len, pre);
		if (chance(95))
			nla_put_u8(m, HC_A_REV_RULE_MODE, chance(90) ? below(3) :
				   (uint8_t)rnd());
		if (chance(70))
			nla_put_u32(m, HC_A_REV_RULE_TTL, chance(80) ? below(5) :
				    chance(50) ? HC_REVAL_TTL_MAX + 1 : val32());
		nla_nest_end(m, e);
	}
}

static void do_netlink(void)
{
	static const int cmds[] = {
		HC_CMD_POOL_CREATE, HC_CMD_POOL_ASSEMBLE, HC_CMD_POOL_STOP,
		HC_CMD_POOL_GET, HC_CMD_POOL_NTF, HC_CMD_OBJ_GET,
		HC_CMD_OBJ_EVICT, HC_CMD_OBJ_PIN, HC_CMD_STATS_GET,
		HC_CMD_HELPER_REGISTER, HC_CMD_INGEST, HC_CMD_INGEST_ALLOC,
		HC_CMD_INGEST_DONE, HC_CMD_INGEST_FAIL, HC_CMD_EGRESS_REGISTER,
		HC_CMD_EGRESS, HC_CMD_EGRESS_DONE, HC_CMD_EGRESS_FAIL,
		HC_CMD_REVAL_RULES, HC_CMD_REVALIDATE, HC_CMD_REVALIDATE_DONE,
		HC_CMD_REVALIDATE_DONE,
	};
	int cmd = cmds[below(sizeof(cmds) / sizeof(cmds[0]))], flagsn = 0, i;
	struct nl_msg *m;

	if (family <= 0)
		return;
	if (chance(3))
		cmd = (int)below(40);
	/* stopping the pool is rare and only done with a way back */
	if (cmd == HC_CMD_POOL_STOP && (!nr_members || !chance(5)))
		cmd = HC_CMD_POOL_GET;
	if (cmd == HC_CMD_OBJ_GET && chance(60))
		flagsn = NLM_F_DUMP;
	m = nlmsg_alloc();
	if (!m)
		return;
	genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, flagsn,
		    (uint8_t)cmd, HC_GENL_VERSION);
	switch (cmd) {
	case HC_CMD_POOL_CREATE:
	case HC_CMD_POOL_ASSEMBLE: {
		static const char *bogus[] = { "/dev/null", "/nonexistent", "",
			"/dev/hypercache0", "/dev/zero", "/dev/mem" };
		int n = (int)below(4);

		/* create never names the real members: it would format them */
		for (i = 0; i < n; i++) {
			struct nlattr *e = nla_nest_start(m, HC_A_POOL_MEMBER);
			const char *path = bogus[below(6)];

			if (cmd == HC_CMD_POOL_ASSEMBLE && nr_members && chance(60))
				path = members[i % nr_members];
			if (!e)
				break;
			if (chance(90))
				nla_put_string(m, HC_A_MEMBER_PATH, path);
			if (chance(10))
				nla_put_u32(m, HC_A_MEMBER_INDEX, val32());
			nla_nest_end(m, e);
		}
		if (chance(30))
			nla_put_u64(m, HC_A_POOL_DATA_OFFSET, val64());
		if (chance(30))
			nla_put_u32(m, HC_A_POOL_FLAGS, (uint32_t)rnd());
		break;
	}
	case HC_CMD_REVAL_RULES:
		put_rules(m);
		break;
	case HC_CMD_REVALIDATE_DONE:
		/* an answer to a request seen, or to none; results in and out of range */
		if (chance(90))
			nla_put_u64(m, HC_A_REV_ID, nr_seen && chance(80) ?
				    seen_ids[below(nr_seen < 16 ? nr_seen : 16)] : val64());
		if (chance(90))
			nla_put_u8(m, HC_A_REV_RESULT, chance(80) ? 1 + below(3) :
				   (uint8_t)rnd());
		if (chance(30))
			nla_put_u32(m, HC_A_REV_ERRNO, chance(50) ? val32() : EIO);
		if (chance(20))
			nla_put(m, HC_A_REV_POOL_UUID, chance(70) ? 16 : (int)below(20),
				uribuf);
		if (chance(10))
			nla_put_u64(m, HC_A_REV_SIZE, val64());	/* not a request's */
		break;
	case HC_CMD_OBJ_GET:
	case HC_CMD_OBJ_EVICT:
	case HC_CMD_OBJ_PIN:
		if (chance(80))
			put_uri(m, HC_A_OBJ_URI);
		if (chance(50))
			nla_put_u8(m, HC_A_OBJ_PINNED, (uint8_t)below(3));
		break;
	default:
		/* the helper channel's attributes */
		if (chance(85))
			nla_put_u64(m, HC_A_ING_ID, nr_seen && chance(70) ?
				    seen_ids[below(nr_seen < 16 ? nr_seen : 16)] : val64());
		if (chance(70))
			put_uri(m, HC_A_ING_URI);
		if (chance(50))
			nla_put_u64(m, HC_A_ING_SIZE, val64());
		if (chance(20))
			nla_put_string(m, HC_A_ING_ETAG, chance(50) ? "etag" : "");
		/* a Last-Modified in range, or past HC_LAST_MODIFIED_MAX */
		if (chance(20))
			nla_put_u64(m, cmd == HC_CMD_EGRESS_DONE ?
				    HC_A_EGRESS_LAST_MODIFIED : HC_A_ING_LAST_MODIFIED,
				    chance(70) ? rnd() % (HC_LAST_MODIFIED_MAX + 1) :
				    val64());
		if (chance(20))
			nla_put_u32(m, HC_A_ING_CRC32C, (uint32_t)rnd());
		if (chance(30))
			nla_put_u32(m, HC_A_ING_ERRNO, chance(50) ? val32() : EIO);
		if (chance(20))
			nla_put_u32(m, HC_A_ING_RETRY_MS, (uint32_t)below(100));
		if (chance(20))
			put_ext(m, HC_A_ING_EXTENT);
		break;
	}
	if (chance(5))
		nla_put_u64(m, (int)below(20), rnd());	/* an unknown attribute */
	nl_done = 0;
	TRACE("%s %lu: netlink cmd %d\n", role, ops, cmd);
	if (nl_send_auto(sk, m) >= 0)
		for (i = 0; i < 64 && !nl_done; i++)
			if (nl_recvmsgs_default(sk) < 0)
				break;
	nlmsg_free(m);
	if (cmd == HC_CMD_POOL_STOP && nr_members) {
		/* assemble it again (the pool may have refused to stop) */
		m = nlmsg_alloc();
		if (!m)
			return;
		genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, 0,
			    HC_CMD_POOL_ASSEMBLE, HC_GENL_VERSION);
		for (i = 0; i < nr_members; i++) {
			struct nlattr *e = nla_nest_start(m, HC_A_POOL_MEMBER);

			nla_put_string(m, HC_A_MEMBER_PATH, members[i]);
			nla_nest_end(m, e);
		}
		nl_done = 0;
		if (nl_send_auto(sk, m) >= 0)
			for (i = 0; i < 64 && !nl_done; i++)
				if (nl_recvmsgs_default(sk) < 0)
					break;
		nlmsg_free(m);
	}
	/* sometimes a new socket: a registered helper goes away */
	if (chance(5)) {
		nl_socket_free(sk);
		nl_open();
	}
}

/* 0: fine (or no pool, or no debugfs); 1: the kernel disagrees with itself */
static int check(void)
{
	char buf[4096];
	ssize_t n;
	int fd = open("/sys/kernel/debug/hypercache/check", O_RDONLY);

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	if (!strncmp(buf, "ok", 2) || !strncmp(buf, "no pool", 7))
		return 0;
	printf("hc_fuzz: %s: consistency check failed after %lu ops:\n%s", role, ops, buf);
	return 1;
}

static void on_alarm(int sig)
{
	(void)sig;
	alarmed = 1;
}

static int run(uint64_t seed, unsigned int secs)
{
	time_t end = time(NULL) + secs, start = time(NULL);
	unsigned long left = 0;
	int bad = 0;

	rng = seed ? seed : 0x9e3779b97f4a7c15ULL;
	nl_open();
	while (time(NULL) < end) {
		if (!left) {
			close_files();
			stage.live = false;
			open_files();
			left = 20 + below(180);
		}
		left--;
		ops++;
		/* a call that blocks for 3 s is cut short (EINTR) and counted */
		alarmed = 0;
		alarm(3);
		switch (below(10)) {
		case 0: case 1: case 2: case 3: case 4:
			if (ctl_fd >= 0)
				do_ioctl_ctl();
			break;
		case 5:
			do_ioctl_disk();
			break;
		default:
			do_netlink();
			break;
		}
		alarm(0);
		if (alarmed) {
			cut++;
			TRACE("%s %lu: cut by the alarm\n", role, ops);
		}
		if (priv && check_every && ops % check_every == 0 && check()) {
			bad = 1;
			break;
		}
	}
	close_files();
	nl_socket_free(sk);
	if (priv && !bad)
		bad = check();
	printf("hc_fuzz: %s: seed=%llu ops=%lu sequences=%lu cut=%lu secs=%ld%s\n", role,
	       (unsigned long long)seed, ops, seqs, cut, (long)(time(NULL) - start),
	       bad ? " FAILED" : "");
	fflush(stdout);
	return bad;
}

int main(int argc, char **argv)
{
	unsigned long long seed = 0;
	unsigned int secs = 30;
	long unpriv = -1;
	pid_t child = -1;
	int i, st, rc;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			seed = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--secs") && i + 1 < argc) {
			secs = (unsigned int)strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--unpriv") && i + 1 < argc) {
			unpriv = strtol(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--trace")) {
			trace = true;
		} else if (!strcmp(argv[i], "--check-every") && i + 1 < argc) {
			check_every = strtoul(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--members") && i + 1 < argc) {
			char *s = argv[++i], *t;

			while ((t = strsep(&s, ",")) && nr_members < MAX_MEMBERS)
				if (*t)
					members[nr_members++] = t;
		} else {
			fprintf(stderr, "usage: hc_fuzz --seed N --secs S [--unpriv UID] [--members DEV,...] [--check-every K] [--trace]\n");
			return 2;
		}
	}
	if (!seed) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (unsigned long long)ts.tv_nsec ^ (unsigned long long)ts.tv_sec << 20;
	}
	printf("hc_fuzz: seed=%llu secs=%u\n", seed, secs);
	fflush(stdout);
	bad_page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (bad_page == MAP_FAILED)
		return 2;
	signal(SIGPIPE, SIG_IGN);
	{
		struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */

		sigaction(SIGALRM, &sa, NULL);
	}
	if (unpriv >= 0) {
		child = fork();
		if (child == 0) {
			role = "unpriv";
			priv = false;
			if (setgroups(0, NULL) || setgid((gid_t)unpriv) || setuid((uid_t)unpriv)) {
				perror("hc_fuzz: dropping privileges");
				_exit(2);
			}
			nr_members = 0;
			_exit(run(seed ^ 0x5bd1e995ULL, secs));
		}
	}
	rc = run(seed, secs);
	if (child > 0) {
		if (waitpid(child, &st, 0) == child && (!WIFEXITED(st) || WEXITSTATUS(st)))
			rc = rc ? rc : 1;
	}
	return rc;
}
