// SPDX-License-Identifier: GPL-2.0
/*
 * hcctl - a member's on-disk headers: examine (print them, as mdadm
 * --examine does), the scan behind 'pool assemble --scan' (find the
 * members of a pool among the block devices by their superblocks) and
 * 'pool wipe' (zero a member's superblock and journal, as mdadm
 * --zero-superblock does).
 *
 * The superblock and journal headers are decoded with the module's own
 * codec (kmod/core/sb.c, jrec.c), so hcctl and the kernel cannot disagree
 * on what a valid member is.  Whether a device is a member of the running
 * pool is read from sysfs: the pool's disk is a holder of each member
 * (holders/hypercacheN), a link the kernel makes at assembly.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <linux/fs.h>

#include "sb.h"
#include "jrec.h"
#include "hcctl.h"
#include "member.h"
#include "opt.h"

/* --- reading a member ---------------------------------------------------- */

/* O_DIRECT buffers: aligned for any logical block size up to 4 KiB. */
static void *block_alloc(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, len))
		return NULL;
	memset(p, 0, len);
	return p;
}

/* "hypercache0" if the running pool's disk holds @rdev, else "". */
static void member_holder(dev_t rdev, char *out, size_t len)
{
	char dir[96];
	struct dirent *e;
	DIR *d;

	out[0] = '\0';
	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u/holders",
		 major(rdev), minor(rdev));
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, "hypercache", 10)) {
			snprintf(out, len, "%.*s", (int)len - 1, e->d_name);
			break;
		}
	closedir(d);
}

/* Whether anything at all holds @rdev (dm, md, the pool, ...). */
static bool has_holders(dev_t rdev)
{
	char dir[96];
	struct dirent *e;
	bool any = false;
	DIR *d;

	snprintf(dir, sizeof(dir), "/sys/dev/block/%u:%u/holders",
		 major(rdev), minor(rdev));
	d = opendir(dir);
	if (!d)
		return false;
	while (!any && (e = readdir(d)))
		any = e->d_name[0] != '.';
	closedir(d);
	return any;
}

/*
 * Decode the superblock and both journal headers of the member open at
 * @fd.  @m->path and @m->rdev are the caller's.  Fills @m->sb_err (0, or
 * the negative errno of hc_sb_decode() or of the read, with @m->sb_msg);
 * the journal fields only for a valid superblock.
 */
static void member_decode(int fd, struct hcctl_member *m)
{
	u64 half_off[2], half_size;
	void *blk;
	int i;

	m->sb_err = -ENOMEM;
	m->sb_msg = "out of memory";
	m->magic = false;
	m->jcurrent = -ENODATA;
	m->jerr[0] = m->jerr[1] = -ENODATA;
	if (ioctl(fd, BLKGETSIZE64, &m->bytes) < 0)
		m->bytes = 0;
	blk = block_alloc(HC_SB_SIZE);
	if (!blk)
		return;
	if (pread(fd, blk, HC_SB_SIZE, HC_SB_OFFSET) != HC_SB_SIZE) {
		m->sb_err = errno ? -errno : -EIO;
		m->sb_msg = "cannot read the superblock";
		goto out;
	}
	m->magic = !memcmp(((struct hc_sb_disk *)blk)->magic, HC_SB_MAGIC,
			   HC_SB_MAGIC_LEN);
	m->sb_err = hc_sb_decode(blk, &m->sb, &m->sb_msg);
	if (m->sb_err)
		goto out;
	if (hc_jrec_halves(m->sb.meta_offset, m->sb.data_offset, half_off,
			   &half_size)) {
		m->jcurrent = -EUCLEAN;
		goto out;
	}
	half_off[1] = half_off[0] + half_size;
	for (i = 0; i < 2; i++) {
		if (pread(fd, blk, HC_JHDR_SIZE, (off_t)half_off[i]) != HC_JHDR_SIZE)
			m->jerr[i] = errno ? -errno : -EIO;
		else
			/* as the module: a v2 half only in a v2 pool */
			m->jerr[i] = hc_jrec_hdr_decode_ver(blk, m->sb.pool_uuid,
				hc_sb_format(&m->sb) == 2 ?
				HC_JOURNAL_VERSION_V2 : HC_JOURNAL_VERSION,
				&m->jhdr[i]);
	}
	m->jcurrent = hc_jrec_current(&m->jhdr[0], m->jerr[0], &m->jhdr[1],
				      m->jerr[1]);
out:
	free(blk);
}

int hcctl_member_read(const char *path, struct hcctl_member *m)
{
	struct stat st;
	int fd;

	memset(m, 0, sizeof(*m));
	snprintf(m->path, sizeof(m->path), "%s", path);
	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode)) {
		close(fd);
		return -ENOTBLK;
	}
	m->rdev = st.st_rdev;
	member_holder(m->rdev, m->holder, sizeof(m->holder));
	member_decode(fd, m);
	close(fd);
	return 0;
}

/* The generation of a member: the epoch of its journal's current half. */
static bool member_generation(const struct hcctl_member *m, uint64_t *gen)
{
	if (m->sb_err || m->jcurrent < 0)
		return false;
	*gen = m->jhdr[m->jcurrent].epoch;
	return true;
}

static const char *member_state(const struct hcctl_member *m)
{
	if (m->sb_err)
		return m->magic ? "damaged" : "none";
	return m->holder[0] ? "active" : "inactive";
}

/* What a journal header is, in a word: "current", "valid", "absent", ... */
static const char *jhdr_word(const struct hcctl_member *m, int i)
{
	switch (m->jerr[i]) {
	case 0:
		return m->jcurrent == i ? "current" : "valid";
	case -ENODATA:
		return "absent";
	case -EBADMSG:
		return "torn";
	case -EOPNOTSUPP:
		return "newer-version";
	case -EUCLEAN:
		return "corrupt";
	default:
		return "unreadable";
	}
}

/* --- examine ------------------------------------------------------------- */

static json_object *jhdr_json(const struct hcctl_member *m, int i)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "state", json_object_new_string(jhdr_word(m, i)));
	if (!m->jerr[i]) {
		json_object_object_add(o, "epoch",
				       json_object_new_uint64(m->jhdr[i].epoch));
		json_object_object_add(o, "start_seq",
				       json_object_new_uint64(m->jhdr[i].start_seq));
		json_object_object_add(o, "half_size",
				       json_object_new_uint64(m->jhdr[i].half_size));
		json_object_object_add(o, "block_size",
				       json_object_new_int64(m->jhdr[i].block_size));
		json_object_object_add(o, "version",
				       json_object_new_int64(m->jhdr[i].version));
	}
	return o;
}

static json_object *member_json(const struct hcctl_member *m)
{
	json_object *o = json_object_new_object();
	char uuid[37];
	uint64_t gen;

	json_object_object_add(o, "device", json_object_new_string(m->path));
	json_object_object_add(o, "state", json_object_new_string(member_state(m)));
	if (m->holder[0])
		json_object_object_add(o, "pool_disk",
				       json_object_new_string(m->holder));
	if (m->sb_err) {
		json_object_object_add(o, "error", json_object_new_string(m->sb_msg));
		return o;
	}
	hcctl_fmt_uuid(uuid, m->sb.pool_uuid);
	json_object_object_add(o, "pool_uuid", json_object_new_string(uuid));
	hcctl_fmt_uuid(uuid, m->sb.member_uuid);
	json_object_object_add(o, "member_uuid", json_object_new_string(uuid));
	json_object_object_add(o, "member_index",
			       json_object_new_int64(m->sb.member_index));
	json_object_object_add(o, "member_count",
			       json_object_new_int64(m->sb.member_count));
	json_object_object_add(o, "format_version",
			       json_object_new_int64(hc_sb_format(&m->sb)));
	json_object_object_add(o, "chunk_size",
			       json_object_new_int64(m->sb.chunk_size));
	json_object_object_add(o, "member_bytes",
			       json_object_new_uint64(m->sb.member_bytes));
	json_object_object_add(o, "device_bytes", json_object_new_uint64(m->bytes));
	json_object_object_add(o, "data_offset",
			       json_object_new_uint64(m->sb.data_offset));
	json_object_object_add(o, "member_chunks",
			       json_object_new_uint64(m->sb.member_chunks));
	json_object_object_add(o, "ctime_ns", json_object_new_uint64(m->sb.ctime_ns));
	if (member_generation(m, &gen))
		json_object_object_add(o, "generation", json_object_new_uint64(gen));
	else
		json_object_object_add(o, "generation", NULL);
	json_object_object_add(o, "journal_a", jhdr_json(m, 0));
	json_object_object_add(o, "journal_b", jhdr_json(m, 1));
	return o;
}

static void jhdr_print(const struct hcctl_member *m, int i, const char *label)
{
	if (m->jerr[i])
		printf("%16s : %s\n", label, jhdr_word(m, i));
	else
		printf("%16s : %s, epoch %" PRIu64 ", first seq %" PRIu64
		       ", %" PRIu64 " bytes\n", label, jhdr_word(m, i),
		       (uint64_t)m->jhdr[i].epoch, (uint64_t)m->jhdr[i].start_seq,
		       (uint64_t)m->jhdr[i].half_size);
}

static void member_print(const struct hcctl_member *m)
{
	char uuid[37], sz[32], when[64];
	time_t t;
	struct tm tm;
	uint64_t gen;

	printf("%s:\n", m->path);
	hcctl_fmt_uuid(uuid, m->sb.pool_uuid);
	printf("%16s : %s\n", "Pool UUID", uuid);
	hcctl_fmt_uuid(uuid, m->sb.member_uuid);
	printf("%16s : %s\n", "Member UUID", uuid);
	printf("%16s : %u of %u\n", "Member index", m->sb.member_index,
	       m->sb.member_count);
	printf("%16s : %u\n", "Format version", hc_sb_format(&m->sb));
	hcctl_fmt_size_exact(sz, sizeof(sz), m->sb.chunk_size);
	printf("%16s : %s\n", "Chunk size", sz);
	hcctl_fmt_size(sz, sizeof(sz), m->sb.member_bytes);
	printf("%16s : %s (%" PRIu64 " bytes)\n", "Member size", sz,
	       (uint64_t)m->sb.member_bytes);
	printf("%16s : %" PRIu64 "\n", "Data offset", (uint64_t)m->sb.data_offset);
	printf("%16s : %" PRIu64 "\n", "Member chunks",
	       (uint64_t)m->sb.member_chunks);
	t = (time_t)(m->sb.ctime_ns / 1000000000ULL);
	if (gmtime_r(&t, &tm) && strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm))
		printf("%16s : %s\n", "Created", when);
	if (member_generation(m, &gen))
		printf("%16s : %" PRIu64 "\n", "Generation", gen);
	else
		printf("%16s : - (%s)\n", "Generation",
		       m->jcurrent == -ENODATA ? "no journal header yet" :
		       "no current journal header");
	jhdr_print(m, 0, "Journal A");
	jhdr_print(m, 1, "Journal B");
	if (m->holder[0])
		printf("%16s : active (member of the running pool, /dev/%s)\n",
		       "State", m->holder);
	else
		printf("%16s : inactive (not part of a running pool)\n", "State");
}

static void member_export(const struct hcctl_member *m)
{
	char uuid[37];

	hcctl_fmt_uuid(uuid, m->sb.pool_uuid);
	printf("HC_POOL_UUID=%s\n", uuid);
	hcctl_fmt_uuid(uuid, m->sb.member_uuid);
	printf("HC_MEMBER_UUID=%s\n", uuid);
	printf("HC_MEMBER_INDEX=%u\n", m->sb.member_index);
	printf("HC_MEMBER_COUNT=%u\n", m->sb.member_count);
}

int hcctl_cmd_examine(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	bool json, export = false;
	const struct hcctl_opt opts[] = {
		HCCTL_FLAG("export", 0, &export),
		HCCTL_OPT_END
	};
	struct hcctl_member m;
	json_object *arr = NULL;
	int i, err, rc, optind, ret = HC_EXIT_OK;

	optind = hcctl_opt_parse(cmd, argc, argv, opts, &rc);
	if (optind < 0)
		return rc;
	json = hcctl_opt_json;
	if (optind >= argc)
		return hcctl_usage_error(cmd, "missing DEV operand");
	if (export && json)
		return hcctl_usage_error(cmd, "--export and --json exclude each other");
	if (export && argc - optind != 1)
		return hcctl_usage_error(cmd, "--export takes exactly one DEV");
	if (json)
		arr = json_object_new_array();
	for (i = optind; i < argc; i++) {
		err = hcctl_member_read(argv[i], &m);
		if (err) {
			if (!export)
				hcctl_err(argv[i], err == -ENOTBLK ?
					  "not a block device" : "cannot open", err == -ENOTBLK ? 0 : -err);
			ret = HC_EXIT_FAIL;
			continue;
		}
		if (m.sb_err)
			ret = HC_EXIT_FAIL;
		if (json) {
			json_object_array_add(arr, member_json(&m));
			continue;
		}
		if (m.sb_err) {
			if (!export)
				hcctl_err(argv[i], m.sb_msg, m.magic ? -m.sb_err : 0);
			continue;
		}
		if (export)
			member_export(&m);
		else
			member_print(&m);
	}
	if (json) {
		hcctl_json_print(arr, false);
		json_object_put(arr);
	}
	return ret;
}

/* --- scan ---------------------------------------------------------------- */

/* /dev/NAME of a sysfs block device, from its uevent's DEVNAME. */
static int sysfs_devnode(const char *name, char *out, size_t len)
{
	char path[PATH_MAX], line[256];
	int ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/block/%s/uevent", name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "DEVNAME=", 8))
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(out, len, "/dev/%s", line + 8);
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

/*
 * Read the superblock of every block device in /sys/class/block except
 * the pool's own disks and empty devices.  A device with holders is
 * skipped unless the pool's disk is its holder: what is stacked on it (a
 * dm or md device) is the one that may carry a superblock, and reading
 * both would find a member twice.
 */
static int scan_all(struct hcctl_member **out, size_t *n)
{
	struct hcctl_member *v = NULL, *nv, m;
	char node[PATH_MAX];
	struct dirent *e;
	size_t cap = 0;
	DIR *d;

	*n = 0;
	d = opendir("/sys/class/block");
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strncmp(e->d_name, "hypercache", 10))
			continue;
		if (sysfs_devnode(e->d_name, node, sizeof(node)))
			continue;
		if (hcctl_member_read(node, &m) || !m.bytes || m.sb_err)
			continue;
		if (!m.holder[0] && has_holders(m.rdev))
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 16;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				closedir(d);
				free(v);
				return -ENOMEM;
			}
			v = nv;
		}
		v[(*n)++] = m;
	}
	closedir(d);
	*out = v;
	return 0;
}

static int parse_uuid(const char *s, uint8_t u[16])
{
	unsigned int i, j = 0;
	int hi = -1;

	for (i = 0; s[i]; i++) {
		int c = s[i], x;

		if (c == '-')
			continue;
		if (c >= '0' && c <= '9')
			x = c - '0';
		else if (c >= 'a' && c <= 'f')
			x = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			x = c - 'A' + 10;
		else
			return -EINVAL;
		if (j >= 16)
			return -EINVAL;
		if (hi < 0) {
			hi = x;
		} else {
			u[j++] = (uint8_t)(hi << 4 | x);
			hi = -1;
		}
	}
	return j == 16 && hi < 0 ? 0 : -EINVAL;
}

/*
 * Pick one pool among the scanned members and check it is complete.
 * Returns 0 with the pool's member paths in *@devs (in index order), or -1
 * after printing why not; with @quiet_missing, a missing member is -2 and
 * printed by the caller's last attempt only.
 */
static int scan_pick(const struct hcctl_member *v, size_t n, const uint8_t *want,
		     char ***devs, int *ndev, bool quiet_missing)
{
	const struct hcctl_member *pool = NULL, *by_index[HC_MAX_MEMBERS] = { 0 };
	char uuid[37], found[1024];
	size_t i, j, npools = 0, len = 0;
	uint32_t k;

	for (i = 0; i < n; i++) {
		if (want && memcmp(v[i].sb.pool_uuid, want, 16))
			continue;
		for (j = 0; j < i; j++)
			if ((!want || !memcmp(v[j].sb.pool_uuid, want, 16)) &&
			    !memcmp(v[j].sb.pool_uuid, v[i].sb.pool_uuid, 16))
				break;
		if (j == i) {
			npools++;
			if (!pool)
				pool = &v[i];
		}
	}
	if (!pool) {
		if (quiet_missing)
			return -2;
		if (want) {
			hcctl_fmt_uuid(uuid, want);
			hcctl_errf("pool assemble", ENODEV,
				   "no member of pool %s found among the block devices", uuid);
		} else {
			hcctl_err("pool assemble",
				  "no HyperCache member found among the block devices", ENODEV);
		}
		return -1;
	}
	if (npools > 1) {
		len = 0;
		found[0] = '\0';
		for (i = 0; i < n && len < sizeof(found) - 40; i++) {
			for (j = 0; j < i; j++)
				if (!memcmp(v[j].sb.pool_uuid, v[i].sb.pool_uuid, 16))
					break;
			if (j < i)
				continue;
			hcctl_fmt_uuid(uuid, v[i].sb.pool_uuid);
			len += (size_t)snprintf(found + len, sizeof(found) - len, "%s%s",
						len ? ", " : "", uuid);
		}
		hcctl_errf("pool assemble", 0,
			   "members of %zu pools found (%s): choose one with --uuid",
			   npools, found);
		return -1;
	}
	hcctl_fmt_uuid(uuid, pool->sb.pool_uuid);
	for (i = 0; i < n; i++) {
		const struct hcctl_member *m = &v[i];

		if (memcmp(m->sb.pool_uuid, pool->sb.pool_uuid, 16))
			continue;
		if (m->holder[0]) {
			hcctl_errf("pool assemble", EBUSY,
				   "pool %s is already running (%s is a member of /dev/%s)",
				   uuid, m->path, m->holder);
			return -1;
		}
		if (m->sb.member_count != pool->sb.member_count) {
			hcctl_errf(m->path, EUCLEAN,
				   "member of pool %s says %u members, %s says %u",
				   uuid, m->sb.member_count, pool->path,
				   pool->sb.member_count);
			return -1;
		}
		k = m->sb.member_index;
		if (by_index[k]) {
			hcctl_errf(m->path, EEXIST,
				   "member %u of pool %s found twice (%s too): a cloned member? name the members with 'hcctl pool assemble DEV...'",
				   k, uuid, by_index[k]->path);
			return -1;
		}
		by_index[k] = m;
	}
	len = 0;
	found[0] = '\0';
	for (k = 0; k < pool->sb.member_count; k++)
		if (by_index[k] && len < sizeof(found) - 1)
			len += (size_t)snprintf(found + len, sizeof(found) - len,
						"%s%s as %u", len ? ", " : "",
						by_index[k]->path, k);
	for (k = 0; k < pool->sb.member_count; k++) {
		if (by_index[k])
			continue;
		if (quiet_missing)
			return -2;
		hcctl_errf("pool assemble", ENODEV,
			   "pool %s: member %u of %u is missing (found %s)",
			   uuid, k, pool->sb.member_count, found);
		return -1;
	}
	*devs = calloc(pool->sb.member_count, sizeof(**devs));
	if (!*devs) {
		hcctl_err("pool assemble", "out of memory", ENOMEM);
		return -1;
	}
	for (k = 0; k < pool->sb.member_count; k++) {
		(*devs)[k] = strdup(by_index[k]->path);
		if (!(*devs)[k]) {
			hcctl_member_free_devs(*devs, (int)k);
			hcctl_err("pool assemble", "out of memory", ENOMEM);
			return -1;
		}
	}
	*ndev = (int)pool->sb.member_count;
	fprintf(stderr, "hcctl: pool assemble: pool %s: %s\n", uuid, found);
	return 0;
}

int hcctl_member_scan(const char *uuid, unsigned int timeout_s, char ***devs,
		      int *ndev)
{
	uint8_t want[16];
	struct hcctl_member *v = NULL;
	struct timespec start, now;
	size_t n;
	int err, ret;

	if (uuid && parse_uuid(uuid, want)) {
		hcctl_errf("pool assemble", 0, "invalid --uuid '%s'", uuid);
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		err = scan_all(&v, &n);
		if (err) {
			hcctl_err("/sys/class/block", "cannot list block devices", -err);
			return -1;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		/*
		 * Members still appearing: wait while the timeout allows
		 * (whole seconds of tv_sec alone gave up up to 1 s early).
		 */
		ret = scan_pick(v, n, uuid ? want : NULL, devs, ndev,
				(now.tv_sec - start.tv_sec) * 1000000000LL +
				(now.tv_nsec - start.tv_nsec) <
				(long long)timeout_s * 1000000000LL);
		free(v);
		if (ret != -2)
			return ret;
		usleep(500 * 1000);
	}
}

void hcctl_member_free_devs(char **devs, int n)
{
	int i;

	if (!devs)
		return;
	for (i = 0; i < n; i++)
		free(devs[i]);
	free(devs);
}

/* --- wipe ---------------------------------------------------------------- */

/*
 * Zero [0, data_offset) of one member: its superblock and both journal
 * halves.  With a superblock that carries the magic but does not decode,
 * the first HC_DATA_OFFSET_MIN bytes (the smallest metadata area).
 */
static int wipe_one(const char *arg, bool yes, json_object *arr)
{
	struct hcctl_member m;
	char holder[32], uuid[37] = "unknown";
	uint64_t range[2];
	struct stat st;
	int fd, err;

	if (stat(arg, &st) < 0) {
		hcctl_err(arg, "cannot stat", errno);
		return -1;
	}
	if (!S_ISBLK(st.st_mode)) {
		hcctl_err(arg, "not a block device", 0);
		return -1;
	}
	member_holder(st.st_rdev, holder, sizeof(holder));
	if (holder[0]) {
		hcctl_errf(arg, EBUSY,
			   "member of the running pool /dev/%s (stop it first: hcctl pool stop)",
			   holder);
		return -1;
	}
	/* O_EXCL: fails with EBUSY while mounted or claimed by dm, md or a pool */
	fd = open(arg, O_RDWR | O_DIRECT | O_EXCL | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		hcctl_err(arg, err == EBUSY ? "device is in use (mounted or claimed)" :
			  "cannot open", err);
		return -1;
	}
	memset(&m, 0, sizeof(m));
	snprintf(m.path, sizeof(m.path), "%s", arg);
	m.rdev = st.st_rdev;
	member_decode(fd, &m);
	if (!m.magic) {
		hcctl_err(arg, m.sb_err == -EINVAL ? "no HyperCache superblock (nothing wiped)" :
			  m.sb_msg, m.sb_err == -EINVAL ? 0 : -m.sb_err);
		close(fd);
		return -1;
	}
	range[0] = 0;
	range[1] = m.sb_err ? HC_DATA_OFFSET_MIN : m.sb.data_offset;
	if (range[1] > m.bytes)
		range[1] = m.bytes;
	if (!m.sb_err)
		hcctl_fmt_uuid(uuid, m.sb.pool_uuid);
	if (!yes) {
		if (m.sb_err)
			hcctl_errf(arg, 0,
				   "would zero a damaged HyperCache superblock (%s) and the first %" PRIu64 " bytes: add --yes",
				   m.sb_msg, range[1]);
		else
			hcctl_errf(arg, 0,
				   "would zero the superblock and journal of member %u of %u of pool %s (its cached objects are lost): add --yes",
				   m.sb.member_index, m.sb.member_count, uuid);
		close(fd);
		return -1;
	}
	if (ioctl(fd, BLKZEROOUT, range) < 0 || fsync(fd) < 0) {
		hcctl_err(arg, "cannot zero the superblock and journal", errno);
		close(fd);
		return -1;
	}
	close(fd);
	if (arr) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "device", json_object_new_string(arg));
		json_object_object_add(o, "pool_uuid", m.sb_err ? NULL :
				       json_object_new_string(uuid));
		json_object_object_add(o, "member_index", m.sb_err ? NULL :
				       json_object_new_int64(m.sb.member_index));
		json_object_object_add(o, "bytes_zeroed", json_object_new_uint64(range[1]));
		json_object_array_add(arr, o);
	} else if (m.sb_err) {
		printf("%s: zeroed a damaged superblock and %" PRIu64 " bytes\n",
		       arg, range[1]);
	} else {
		printf("%s: zeroed the superblock and journal of member %u of pool %s (%" PRIu64 " bytes)\n",
		       arg, m.sb.member_index, uuid, range[1]);
	}
	return 0;
}

int hcctl_cmd_pool_wipe(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	bool yes = false;
	const struct hcctl_opt opts[] = {
		HCCTL_FLAG("yes", 'y', &yes),
		HCCTL_OPT_END
	};
	json_object *arr = NULL;
	int i, rc, optind, ret = HC_EXIT_OK;

	optind = hcctl_opt_parse(cmd, argc, argv, opts, &rc);
	if (optind < 0)
		return rc;
	if (optind >= argc)
		return hcctl_usage_error(cmd, "missing DEV operand");
	if (hcctl_opt_json)
		arr = json_object_new_array();
	for (i = optind; i < argc; i++)
		if (wipe_one(argv[i], yes, arr) < 0)
			ret = HC_EXIT_FAIL;
	if (arr) {
		hcctl_json_print(arr, false);
		json_object_put(arr);
	}
	return ret;
}

/* --- the command table (main.c lists the groups) ---------------------- */

const struct hcctl_cmd hcctl_member_cmds[] = {
{
	.name = "examine",
	.summary = "print the superblock and journal headers of pool members",
	.synopsis = "[--export] [--json] DEV...",
	.handler = hcctl_cmd_examine,
	.help =
"DESCRIPTION\n"
"    Read the HyperCache superblock and the two journal headers of each\n"
"    block device DEV and print them, as 'mdadm --examine' does: the pool\n"
"    UUID, the member's UUID, index and the pool's member count, the\n"
"    geometry (chunk size, data offset, chunks per member), the creation\n"
"    time, the generation (the epoch of the journal's current half: +1 at\n"
"    every compaction), each journal header's state (current, valid,\n"
"    absent, torn, corrupt, newer-version, unreadable) and the member's\n"
"    state: \"active\" while it is a member of the running pool (the pool's\n"
"    disk holds it), else \"inactive\".  Nothing is written.\n"
"\n"
"    A DEV without a valid superblock is reported on stderr with the\n"
"    reason (\"no HyperCache superblock\", \"superblock checksum mismatch\",\n"
"    ...) and makes the exit status 1; the other DEVs are still printed.\n"
"\n"
"OPTIONS\n"
"    --export\n"
"        Print KEY=VALUE lines for udev's IMPORT{program}: HC_POOL_UUID,\n"
"        HC_MEMBER_UUID, HC_MEMBER_INDEX, HC_MEMBER_COUNT.  One DEV only;\n"
"        a DEV that is not a member prints nothing and exits 1 silently.\n"
"\n"
"    -j, --json\n"
"        Print one JSON array, an object per DEV: device, state (active,\n"
"        inactive, damaged, none), pool_disk (while active), and for a\n"
"        valid superblock pool_uuid, member_uuid, member_index,\n"
"        member_count, format_version, chunk_size, member_bytes,\n"
"        device_bytes, data_offset, member_chunks, ctime_ns, generation\n"
"        (null without a current journal header), journal_a and journal_b\n"
"        ({state, epoch, start_seq, half_size, block_size}); otherwise\n"
"        error, the reason.\n"
"\n"
HCCTL_HELP_OPT_TEXT
"\n"
"    Needs read access to DEV (root, or the disk group).\n"
"\n"
HCCTL_EXIT_STATUS_TEXT
"\n"
"EXAMPLES\n"
"    hcctl examine /dev/nvme0n1\n"
"    hcctl examine --json /dev/nvme0n1 /dev/nvme1n1\n",
},
{
	.name = "pool wipe",
	.summary = "zero a member's superblock and journal",
	.synopsis = "[--yes] [--json] DEV...",
	.handler = hcctl_cmd_pool_wipe,
	.help =
"DESCRIPTION\n"
"    Zero the HyperCache superblock and object journal of each DEV, as\n"
"    'mdadm --zero-superblock' does: bytes 0 up to the member's data\n"
"    offset (BLKZEROOUT, then fsync).  The chunks' bytes are left as they\n"
"    are, but without a superblock and journal the device is no longer a\n"
"    member of any pool and its objects are lost.  A superblock that\n"
"    carries the magic but does not decode (a bad checksum, a newer\n"
"    version) is wiped too, with the first 1 MiB.\n"
"\n"
"    Refused, and nothing written:\n"
"      - a member of the running pool (\"member of the running pool\n"
"        /dev/hypercache0\": Device or resource busy; 'hcctl pool stop'\n"
"        first);\n"
"      - a device opened exclusively by anything else (mounted, claimed by\n"
"        dm or md): Device or resource busy;\n"
"      - a device without the HyperCache magic (\"no HyperCache\n"
"        superblock\"): its data is not ours to erase;\n"
"      - without --yes: the message says which pool and member would be\n"
"        wiped.\n"
"    With several DEVs each is judged alone; the exit status is 1 if any\n"
"    was refused.\n"
"\n"
"OPTIONS\n"
"    -y, --yes\n"
"        Do it: without this option nothing is written.\n"
"\n"
"    -j, --json\n"
"        Print one JSON array of the wiped devices: {device, pool_uuid,\n"
"        member_index, bytes_zeroed} (pool_uuid and member_index null for a\n"
"        damaged superblock).\n"
"\n"
HCCTL_HELP_OPT_TEXT
"\n"
"    Needs write access to DEV (root).\n"
"\n"
HCCTL_EXIT_STATUS_TEXT
"\n"
"EXAMPLES\n"
"    hcctl pool wipe --yes /dev/nvme3n1\n",
},
{ .name = NULL }
};
