// SPDX-License-Identifier: GPL-2.0
/*
 * hcctl - pool commands: create, assemble, stop.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <linux/capability.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "discover.h"
#include "hypercache_format.h"
#include "hypercache_netlink.h"
#include "hcctl.h"
#include "member.h"
#include "opt.h"
#include "nl.h"
#include "scrape.h"

/*
 * Parse a byte count: decimal digits, optionally followed by K, M, G or T
 * (powers of 1024), optionally followed by "iB" or "B".
 */
static int parse_bytes(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (!isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (toupper((unsigned char)*end)) {
	case 'K': shift = 10; break;
	case 'M': shift = 20; break;
	case 'G': shift = 30; break;
	case 'T': shift = 40; break;
	}
	if (shift) {
		end++;
		if (!strcmp(end, "iB") || !strcmp(end, "B"))
			end += strlen(end);
	} else if (!strcmp(end, "B")) {
		end++;
	}
	if (*end)
		return -1;
	if (v > (UINT64_MAX >> shift))
		return -1;
	*out = (uint64_t)v << shift;
	return 0;
}

struct member_arg {
	char *arg;		/* as given: used in messages */
	char *path;		/* realpath(): sent to the kernel */
	dev_t rdev;
};

static void free_members(struct member_arg *m, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(m[i].path);
	free(m);
}

/* Resolve and check every DEV.  Prints the diagnostic on failure. */
static struct member_arg *resolve_members(int n, char **devs)
{
	struct member_arg *m;
	struct stat st;
	int i, j;

	m = calloc((size_t)n, sizeof(*m));
	if (!m) {
		hcctl_err(NULL, "out of memory", ENOMEM);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		m[i].arg = devs[i];
		m[i].path = realpath(devs[i], NULL);
		if (!m[i].path) {
			hcctl_err(devs[i], "cannot resolve path", errno);
			goto fail;
		}
		if (stat(m[i].path, &st) < 0) {
			hcctl_err(devs[i], "cannot stat", errno);
			goto fail;
		}
		if (!S_ISBLK(st.st_mode)) {
			hcctl_err(devs[i], "not a block device", 0);
			goto fail;
		}
		m[i].rdev = st.st_rdev;
		for (j = 0; j < i; j++) {
			if (m[j].rdev == m[i].rdev) {
				hcctl_errf(devs[i], 0, "given twice (same device as %s)",
					devs[j]);
				goto fail;
			}
		}
	}
	return m;
fail:
	free_members(m, n);
	return NULL;
}

/*
 * Refuse a device that is in use or carries data (see 'hcctl inspect'),
 * before the kernel writes anything.  @force overrides only what
 * hc_discover_forcible() allows (a signature, a failed probe, a device the
 * check cannot judge): never the root file system's disk, a mounted
 * device, swap or a device with holders, which are EBUSY with or without
 * it.  A HyperCache superblock is not a libblkid signature: the kernel
 * judges that one.
 */
static int check_members_safe(const struct member_arg *m, int n, bool force)
{
	struct hc_drive d;
	int i, err;

	for (i = 0; i < n; i++) {
		err = hc_discover_check("/", m[i].path, &d);
		if (err && force)
			continue;
		if (err) {
			hcctl_errf(m[i].arg, -err,
				"cannot check whether the device is in use (use --force to skip the check)");
			return -1;
		}
		if (d.verdict == HC_VERDICT_SAFE)
			continue;
		if (!hc_discover_forcible(&d)) {
			hcctl_errf(m[i].arg, EBUSY,
				   "device is in use: %s (--force does not override this)",
				   d.detail);
			return -1;
		}
		if (force)
			continue;
		hcctl_errf(m[i].arg, 0, "%s: %s (use --force to overwrite)",
			d.verdict == HC_VERDICT_UNKNOWN ? "cannot check" : "unsafe",
			d.detail);
		return -1;
	}
	return 0;
}

/*
 * Whether this process has CAP_SYS_ADMIN, which the kernel demands of a
 * pool create.  Asked before the device checks, so that an unprivileged
 * caller hears EPERM, not the verdict of a check it has no say over.  If
 * the question cannot be asked, the kernel judges.
 */
static bool has_sys_admin(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[_LINUX_CAPABILITY_U32S_3] = { 0 };

	if (syscall(SYS_capget, &h, d))
		return true;
	return d[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &
	       CAP_TO_MASK(CAP_SYS_ADMIN);
}

static int pool_reply(struct nl_msg *msg, void *arg)
{
	struct hcctl_pool_info *pool = arg;

	hcctl_pool_free(pool);
	return hcctl_pool_parse(msg, pool);
}

/* Shared by create and assemble. */
static int pool_start(const struct hcctl_cmd *cmd, uint8_t nlcmd, int ndev,
		      char **devs, uint32_t flags, bool has_offset,
		      uint64_t data_offset, bool json)
{
	struct hcctl_pool_info pool = { 0 };
	struct member_arg *m;
	struct hcctl_nl_span *spans = NULL;
	char **names = NULL;
	struct hcctl_nl nl = { 0 };
	struct hcctl_nl_err err;
	struct nl_msg *msg = NULL;
	struct nlattr *nest;
	size_t payload = 64;
	int i, ret = HC_EXIT_FAIL;

	m = resolve_members(ndev, devs);
	if (!m)
		return HC_EXIT_FAIL;
	if (nlcmd == HC_CMD_POOL_CREATE && !has_sys_admin()) {
		hcctl_err(cmd->name, "creating a pool needs CAP_SYS_ADMIN", EPERM);
		free_members(m, ndev);
		return HC_EXIT_FAIL;
	}
	if (nlcmd == HC_CMD_POOL_CREATE &&
	    check_members_safe(m, ndev, flags & HC_POOL_F_FORCE) < 0) {
		free_members(m, ndev);
		return HC_EXIT_FAIL;
	}
	spans = calloc((size_t)ndev, sizeof(*spans));
	names = calloc((size_t)ndev, sizeof(*names));
	if (!spans || !names) {
		hcctl_err(cmd->name, "out of memory", ENOMEM);
		goto out;
	}
	if (hcctl_nl_open(&nl, cmd->name) < 0)
		goto out;

	for (i = 0; i < ndev; i++)
		payload += NLA_HDRLEN * 2 + NLA_ALIGN(strlen(m[i].path) + 1);
	msg = hcctl_nl_request(&nl, nlcmd, payload);
	if (!msg)
		goto nomem;
	for (i = 0; i < ndev; i++) {
		nest = nla_nest_start(msg, HC_A_POOL_MEMBER | NLA_F_NESTED);
		if (!nest)
			goto nomem;
		spans[i].start = hcctl_nl_offset(msg, nest);
		if (nla_put_string(msg, HC_A_MEMBER_PATH, m[i].path) < 0)
			goto nomem;
		nla_nest_end(msg, nest);
		spans[i].end = spans[i].start + nest->nla_len;
		names[i] = m[i].arg;
	}
	if (flags && nla_put_u32(msg, HC_A_POOL_FLAGS, flags) < 0)
		goto nomem;
	if (has_offset && nla_put_u64(msg, HC_A_POOL_DATA_OFFSET, data_offset) < 0)
		goto nomem;

	ret = hcctl_nl_transact(&nl, msg, pool_reply, &pool, &err);
	msg = NULL;
	if (ret < 0) {
		hcctl_nl_report(cmd->name, &err, spans, names, (size_t)ndev);
		ret = HC_EXIT_FAIL;
		goto out;
	}
	hcctl_pool_output(&pool, json);
	ret = HC_EXIT_OK;
	goto out;
nomem:
	hcctl_err(cmd->name, "cannot build netlink request", ENOMEM);
	ret = HC_EXIT_FAIL;
out:
	if (msg)
		nlmsg_free(msg);
	hcctl_pool_free(&pool);
	hcctl_nl_close(&nl);
	free(spans);
	free(names);
	free_members(m, ndev);
	return ret;
}

/* --data-offset BYTES: sets has_offset too (the struct below). */
struct data_offset {
	uint64_t bytes;
	bool given;
};

static int data_offset_arg(const struct hcctl_cmd *cmd, const char *arg, void *dst)
{
	struct data_offset *d = dst;

	if (parse_bytes(arg, &d->bytes) < 0)
		return hcctl_usage_error(cmd,
			"invalid --data-offset '%s' (expected BYTES with optional K/M/G/T suffix)",
			arg);
	d->given = true;
	return 0;
}

int hcctl_cmd_pool_create(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	struct data_offset off = { 0 };
	unsigned int format = 1;
	bool force = false;
	const struct hcctl_opt opts[] = {
		HCCTL_FLAG("force", 'f', &force),
		HCCTL_UINT("format", 0, &format, 1, 2),
		/* -o is the output file elsewhere (get): deprecated here */
		{ .name = "data-offset", .key = 'o', .type = HCCTL_OPT_CALL,
		  .dst = &off, .fn = data_offset_arg, .key_deprecated = true },
		HCCTL_OPT_END
	};
	int rc, optind;

	optind = hcctl_opt_parse(cmd, argc, argv, opts, &rc);
	if (optind < 0)
		return rc;
	if (optind >= argc)
		return hcctl_usage_error(cmd, "missing DEV operand");
	if (argc - optind > HC_MAX_MEMBERS)
		return hcctl_usage_error(cmd, "too many devices: %d (at most %d)",
				      argc - optind, HC_MAX_MEMBERS);
	return pool_start(cmd, HC_CMD_POOL_CREATE, argc - optind, argv + optind,
			  (force ? HC_POOL_F_FORCE : 0) |
			  (format == 2 ? HC_POOL_F_FORMAT_V2 : 0),
			  off.given, off.bytes, hcctl_opt_json);
}

int hcctl_cmd_pool_assemble(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	bool json, force_empty = false, scan = false;
	const char *uuid = NULL;
	unsigned int timeout = 0;
	const struct hcctl_opt opts[] = {
		HCCTL_FLAG("force-empty-journal", 0, &force_empty),
		HCCTL_FLAG("scan", 's', &scan),
		HCCTL_STRING("uuid", 'u', &uuid, "UUID"),
		HCCTL_UINT("timeout", 't', &timeout, 0, 3600),
		HCCTL_OPT_END
	};
	int rc, optind = hcctl_opt_parse(cmd, argc, argv, opts, &rc);
	char **devs;
	int ndev;

	if (optind < 0)
		return rc;
	json = hcctl_opt_json;
	if (!scan && (uuid || timeout))
		return hcctl_usage_error(cmd, "--uuid and --timeout need --scan");
	if (scan) {
		if (optind < argc)
			return hcctl_usage_error(cmd,
				"--scan finds the members itself: unexpected DEV '%s'",
				argv[optind]);
		if (hcctl_member_scan(uuid, timeout, &devs, &ndev) < 0)
			return HC_EXIT_FAIL;
		rc = pool_start(cmd, HC_CMD_POOL_ASSEMBLE, ndev, devs,
				force_empty ? HC_POOL_F_FORCE_EMPTY_JOURNAL : 0,
				false, 0, json);
		hcctl_member_free_devs(devs, ndev);
		return rc;
	}
	if (optind >= argc)
		return hcctl_usage_error(cmd, "missing DEV operand (or --scan)");
	if (argc - optind > HC_MAX_MEMBERS)
		return hcctl_usage_error(cmd, "too many devices: %d (at most %d)",
				      argc - optind, HC_MAX_MEMBERS);
	return pool_start(cmd, HC_CMD_POOL_ASSEMBLE, argc - optind,
			  argv + optind,
			  force_empty ? HC_POOL_F_FORCE_EMPTY_JOURNAL : 0,
			  false, 0, json);
}

/*
 * Sends @cmd's request @nlcmd, which takes no arguments and no options but
 * --json, to the running pool.  Returns POOL_REQ_DONE when the kernel did
 * it, POOL_REQ_REFUSED with @err set when the kernel refused it (not
 * reported: the caller words the reason), or else the exit status the
 * command ends with (--help, a usage error, a failure to send: reported).
 */
#define POOL_REQ_DONE		(-1)
#define POOL_REQ_REFUSED	(-2)

static int pool_simple_request(const struct hcctl_cmd *cmd, int argc,
			       char **argv, int nlcmd,
			       struct hcctl_nl_err *err)
{
	struct hcctl_nl nl = { 0 };
	struct nl_msg *msg;
	int ret, optind = hcctl_opt_parse(cmd, argc, argv, NULL, &ret);

	if (optind < 0)
		return ret;
	if (optind < argc)
		return hcctl_usage_error(cmd, "unexpected argument '%s'",
				      argv[optind]);

	if (hcctl_nl_open(&nl, cmd->name) < 0)
		return HC_EXIT_FAIL;
	msg = hcctl_nl_request(&nl, nlcmd, 0);
	if (!msg) {
		hcctl_err(cmd->name, "cannot build netlink request", ENOMEM);
		hcctl_nl_close(&nl);
		return HC_EXIT_FAIL;
	}
	ret = hcctl_nl_transact(&nl, msg, NULL, NULL, err);
	hcctl_nl_close(&nl);
	return ret == 0 ? POOL_REQ_DONE : POOL_REQ_REFUSED;
}

int hcctl_cmd_pool_stop(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	struct hcctl_nl_err err;
	int ret = pool_simple_request(cmd, argc, argv, HC_CMD_POOL_STOP, &err);

	if (ret == POOL_REQ_DONE)
		return HC_EXIT_OK;
	if (ret != POOL_REQ_REFUSED)
		return ret;
	if (err.kernel && !err.msg[0]) {
		if (err.error == ENODEV) {
			hcctl_err(cmd->name, "no pool is running", 0);
			return HC_EXIT_FAIL;
		}
		if (err.error == EBUSY)
			snprintf(err.msg, sizeof(err.msg),
				 "/dev/hypercache0 is in use");
	}
	hcctl_nl_report(cmd->name, &err, NULL, NULL, 0);
	return HC_EXIT_FAIL;
}

int hcctl_cmd_pool_upgrade(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	struct hcctl_nl_err err;
	int ret = pool_simple_request(cmd, argc, argv, HC_CMD_POOL_UPGRADE,
				      &err);

	if (ret != POOL_REQ_DONE && ret != POOL_REQ_REFUSED)
		return ret;
	if (ret == POOL_REQ_DONE) {
		if (hcctl_opt_json) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "format_version",
					       json_object_new_int(2));
			hcctl_json_print(o, false);
			json_object_put(o);
		} else {
			printf("the pool is format v2 now\n");
		}
		return HC_EXIT_OK;
	}
	if (err.kernel && !err.msg[0] && err.error == ENODEV)
		snprintf(err.msg, sizeof(err.msg), "no pool is running");
	hcctl_nl_report(cmd->name, &err, NULL, NULL, 0);
	return HC_EXIT_FAIL;
}

/* @after's counter @attr less @before's (0 if either lacks it) */
static uint64_t stat_delta(const struct hc_scrape_kernel *before,
			   const struct hc_scrape_kernel *after, int attr)
{
	if (!before->has[attr] || !after->has[attr] ||
	    after->v[attr] < before->v[attr])
		return 0;
	return after->v[attr] - before->v[attr];
}

int hcctl_cmd_pool_compact(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	struct hc_scrape_kernel *before, *after;
	uint64_t runs, moved, freed, copied;
	int ret, optind = hcctl_opt_parse(cmd, argc, argv, NULL, &ret);
	char sz[32];

	if (optind < 0)
		return ret;
	if (optind < argc)
		return hcctl_usage_error(cmd, "unexpected argument '%s'",
				      argv[optind]);
	before = calloc(1, sizeof(*before));
	after = calloc(1, sizeof(*after));
	if (!before || !after) {
		free(before);
		free(after);
		hcctl_err(cmd->name, "out of memory", ENOMEM);
		return HC_EXIT_FAIL;
	}
	ret = HC_EXIT_FAIL;
	if (hcctl_stats_get(cmd->name, before, false) < 0)
		goto out;
	if (!before->has[HC_A_STATS_SLAB_COMPACTIONS]) {
		hcctl_err(cmd->name, "the running module does not compact", EOPNOTSUPP);
		goto out;
	}
	if (!hcctl_opt_json && isatty(STDERR_FILENO))
		fprintf(stderr, "compacting the slab...\n");
	if (hcctl_stats_compact(cmd->name, after) < 0)
		goto out;
	runs = stat_delta(before, after, HC_A_STATS_SLAB_COMPACTIONS);
	moved = stat_delta(before, after, HC_A_STATS_SLAB_MOVED);
	freed = stat_delta(before, after, HC_A_STATS_SLAB_CHUNKS_FREED);
	copied = stat_delta(before, after, HC_A_STATS_SLAB_BYTES_COPIED);
	if (hcctl_opt_json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "runs", json_object_new_uint64(runs));
		json_object_object_add(o, "moved", json_object_new_uint64(moved));
		json_object_object_add(o, "chunks_freed",
				       json_object_new_uint64(freed));
		json_object_object_add(o, "bytes_copied",
				       json_object_new_uint64(copied));
		json_object_object_add(o, "bytes_used", json_object_new_uint64(
			after->v[HC_A_STATS_BYTES_USED]));
		json_object_object_add(o, "capacity", json_object_new_uint64(
			after->v[HC_A_STATS_CAPACITY]));
		hcctl_json_print(o, false);
		json_object_put(o);
	} else if (!moved && !freed) {
		printf("nothing to compact: no slab chunk is sparse enough\n");
	} else {
		hcctl_fmt_size(sz, sizeof(sz), copied);
		printf("moved %" PRIu64 " small objects (%s copied), freed %"
		       PRIu64 " slab chunks\n", moved, sz, freed);
	}
	ret = HC_EXIT_OK;
out:
	free(before);
	free(after);
	return ret;
}

/* --- the command table (main.c lists the groups) ---------------------- */

const struct hcctl_cmd hcctl_pool_cmds[] = {
{
	.name = "pool create",
	.summary = "write new superblocks to block devices and start the pool",
	.synopsis = "[--force] [--data-offset BYTES] [--format 1|2] [--json] DEV...",
	.handler = hcctl_cmd_pool_create,
	.help =
"DESCRIPTION\n"
"    Create a new pool from the block devices DEV... and start it as\n"
"    /dev/hypercache0.  The kernel writes a superblock with a fresh pool UUID\n"
"    to every member.  The order of DEV... is the stripe order: chunk v of the\n"
"    pool lives on member v mod N, so the first DEV is member 0.\n"
"\n"
"    Every DEV is resolved with realpath(3) and must be a block device; the\n"
"    resolved path is what the kernel opens.  The same device must not be\n"
"    given twice.  At most 64 devices make up a pool.\n"
"\n"
"    On success the new pool is printed as by 'hcctl status'.  If the kernel\n"
"    rejects one member, the error names that DEV, e.g.\n"
"        hcctl: /dev/nvme1n1: member of a different pool: Cross-device link\n"
"\n"
"    Before asking the kernel, every DEV is checked as by 'hcctl inspect':\n"
"    a device that holds the root file system, is mounted, used as swap,\n"
"    has holders (dm, md, LVM, bcache) or carries a file system, RAID, LVM,\n"
"    LUKS or partition-table signature is refused, e.g.\n"
"        hcctl: /dev/nvme1n1: unsafe: carries an ext4 file system (use --force to overwrite)\n"
"    Blank devices (NVMe namespaces, loop devices, ...) pass.\n"
"\n"
"OPTIONS\n"
"    -f, --force\n"
"        Overwrite a device that carries a signature (or that the check\n"
"        cannot probe), and the superblock of a device that already\n"
"        belongs to a pool (without it the kernel refuses such a device).\n"
"        Never a device that holds the root file system (or is a partition\n"
"        or a member of its disk), is mounted, used as swap or has holders:\n"
"        those are refused with or without --force, e.g.\n"
"        hcctl: /dev/nvme0n1: device is in use: is mounted on /srv (--force\n"
"        does not override this): Device or resource busy\n"
"\n"
"    --data-offset BYTES\n"
"        Byte offset of the data area on every member.  A decimal number,\n"
"        optionally followed by K, M, G or T (binary: 1K = 1024; \"KiB\" and\n"
"        \"KB\" spellings are accepted too).  The kernel rounds it up to the\n"
"        chunk size and to at least 1 MiB.  Default: chosen by the kernel.\n"
"        -o BYTES is the deprecated spelling (-o is the output file of\n"
"        'hcctl get'), still accepted with a note on stderr.\n"
"\n"
"    --format 1|2\n"
"        The on-disk format (Documentation/on-disk-format.md).  1 (the\n"
"        default) is read by every module; 2 keeps the backend's ETag and\n"
"        size of every object in its journal ('hcctl ls -e'), and is\n"
"        refused by a module that knows only format 1 ('unknown\n"
"        incompatible feature': Operation not supported).  'hcctl status'\n"
"        shows the format of the running pool (\"format v2\").\n"
"\n"
"    -j, --json\n"
"        Print the pool as one JSON object (see 'hcctl help status').\n"
"\n"
HCCTL_HELP_OPT_TEXT
"\n"
"    Needs CAP_NET_ADMIN.\n"
"\n"
HCCTL_EXIT_STATUS_TEXT
"\n"
"EXAMPLES\n"
"    hcctl pool create /dev/nvme0n1 /dev/nvme1n1 /dev/nvme2n1\n"
"    hcctl pool create --force --data-offset 8M /dev/nvme0n1 /dev/nvme1n1\n"
"    hcctl pool create --format 2 /dev/nvme0n1 /dev/nvme1n1\n",
},
{
	.name = "pool assemble",
	.summary = "start an existing pool from its members",
	.synopsis = "[--force-empty-journal] [--json] DEV...\n"
		    "    hcctl pool assemble --scan [--uuid UUID] [--timeout S] [--force-empty-journal] [--json]",
	.handler = hcctl_cmd_pool_assemble,
	.help =
"DESCRIPTION\n"
"    Read the superblocks of the block devices DEV... and start the pool they\n"
"    describe as /dev/hypercache0.  The devices may be given in any order;\n"
"    the stripe order is taken from the superblocks.  All members of the pool\n"
"    must be given.  Each DEV is resolved and checked as for 'pool create'.\n"
"\n"
"    On success the pool is printed as by 'hcctl status'.  If the kernel\n"
"    rejects one member, the error names that DEV.\n"
"\n"
"    The object journal is mirrored on every member: a journal header or\n"
"    record that is damaged, missing or unreadable on one member is read\n"
"    from another, the kernel log names the member and the place, and the\n"
"    pool reports \"journal degraded-but-complete\" in 'hcctl status'.  When\n"
"    a header or record is damaged on every member that holds it, the\n"
"    assembly is refused (\"Structure needs cleaning\" or \"Input/output\n"
"    error\"), nothing is written, and dmesg says what each member holds.\n"
"\n"
"    With --scan no DEV is named: every block device of\n"
"    /sys/class/block is read for a HyperCache superblock (as by 'hcctl\n"
"    examine'; devices with holders other than the pool, such as the\n"
"    disks under a dm or md device, and the pool's own disk are skipped),\n"
"    and the pool whose members are all present is assembled.  Refused,\n"
"    and nothing assembled, naming what was found: when a member is\n"
"    missing (\"pool UUID: member 2 of 3 is missing (found /dev/nvme0n1\n"
"    as 0, /dev/nvme1n1 as 1)\": No such device), when a member index is\n"
"    found twice (a cloned member: File exists), when members of more\n"
"    than one pool are found and --uuid does not choose, when no member\n"
"    is found, and when the pool is already running (Device or resource\n"
"    busy).  The members found are listed on stderr.\n"
"\n"
"OPTIONS\n"
"    -s, --scan\n"
"        Find the members by their superblocks instead of naming them.\n"
"\n"
"    -u, --uuid UUID\n"
"        With --scan: assemble the pool with this UUID (needed when\n"
"        members of several pools are attached).\n"
"\n"
"    -t, --timeout S\n"
"        With --scan: while a member is missing, scan again every 0.5 s\n"
"        for up to S seconds (0..3600, default 0: once) before refusing;\n"
"        for boot, where members appear one after another.\n"
"\n"
"    --force-empty-journal\n"
"        If the journal cannot be read with certainty (the assembly would\n"
"        be refused as above), start an empty journal instead: every object\n"
"        the old journal recorded, DIRTY ones included, is forgotten and its\n"
"        chunks are free.  Logged in dmesg; 'hcctl status' then shows\n"
"        \"journal emptied\".  A journal that can be read is replayed as\n"
"        usual.\n"
"\n"
"    -j, --json\n"
"        Print the pool as one JSON object (see 'hcctl help status').\n"
"\n"
HCCTL_HELP_OPT_TEXT
"\n"
"    Needs CAP_NET_ADMIN.\n"
"\n"
HCCTL_EXIT_STATUS_TEXT
"\n"
"EXAMPLES\n"
"    hcctl pool assemble /dev/nvme2n1 /dev/nvme0n1 /dev/nvme1n1\n"
"    hcctl pool assemble --scan --timeout 90\n",
},
{
	.name = "pool stop",
	.summary = "stop the running pool",
	.synopsis = "[--json]",
	.handler = hcctl_cmd_pool_stop,
	.help =
"DESCRIPTION\n"
"    Stop the running pool and remove /dev/hypercache0.  The members keep\n"
"    their superblocks; 'hcctl pool assemble' starts the pool again.  Prints\n"
"    nothing on success.\n"
"\n"
"    Fails with \"Device or resource busy\" while /dev/hypercache0 is open,\n"
"    and with \"no pool is running\" if there is none.\n"
"\n"
"OPTIONS\n"
HCCTL_JSON_SILENT_TEXT
HCCTL_HELP_OPT_TEXT
"\n"
HCCTL_NEEDS_ADMIN_TEXT,
},
{
	.name = "pool upgrade",
	.summary = "upgrade the running pool from format v1 to v2, in place",
	.synopsis = "[--json]",
	.handler = hcctl_cmd_pool_upgrade,
	.help =
"DESCRIPTION\n"
"    Upgrade the running pool from on-disk format 1 to 2 in place\n"
"    (Documentation/on-disk-format.md, \"Upgrading a v1 pool\"): the\n"
"    superblocks, one member after another, then the journal rewritten as\n"
"    format 2.  No object data moves and every object stays; the pool keeps\n"
"    serving meanwhile (changes wait for the upgrade).  ONE WAY: a module\n"
"    that knows only format 1 refuses the pool afterwards.  A power cut at\n"
"    any point leaves a pool that assembles as format 1 (before the first\n"
"    superblock is written) or as format 2 with every object, and the\n"
"    assembly finishes the upgrade.  A format-1 pool never upgraded keeps\n"
"    working as format 1.  Prints \"the pool is format v2 now\".\n"
"\n"
"    Refused while objects are being ingested, staged or uploaded (\"objects\n"
"    are being ingested, staged or uploaded\": Device or resource busy):\n"
"    wait for them, then run it again.  \"the pool is already format v2\":\n"
"    Operation already in progress, if there is nothing to do.\n"
"\n"
"OPTIONS\n"
"    -j, --json\n"
"        Print {\"format_version\":2} on success.\n"
"\n"
HCCTL_HELP_OPT_TEXT
"\n"
HCCTL_NEEDS_ADMIN_TEXT,
},
{
	.name = "pool compact",
	.summary = "compact the slab of small objects now",
	.synopsis = "[--json]",
	.handler = hcctl_cmd_pool_compact,
	.help =
"DESCRIPTION\n"
"    Compact the running pool's slab now (HC_CMD_POOL_COMPACT): a format-2\n"
"    pool keeps objects smaller than a chunk in 4 KiB blocks of shared slab\n"
"    chunks, and evictions leave those chunks sparse.  The module moves the\n"
"    small objects out of chunks at most half used into fuller ones and\n"
"    gives the emptied chunks back to whole objects\n"
"    (Documentation/on-disk-format.md, \"Compaction in the module\").  It\n"
"    also does this by itself in the background (module parameter\n"
"    compact_interval_ms); this verb runs it at once and returns when it\n"
"    is done, after a background run under way.  Each object moved is\n"
"    copied, checked against its CRC-32C, written durably and journaled\n"
"    before its old blocks are given back: a power cut at any point loses\n"
"    nothing.  An object that is open or held is left where it is.\n"
"\n"
"    Prints \"moved N small objects (SIZE copied), freed N slab chunks\",\n"
"    or \"nothing to compact: no slab chunk is sparse enough\" (also for a\n"
"    format-1 pool, which has no slab).  'hcctl stats' shows the totals\n"
"    since assembly (the compaction line).\n"
"\n"
"    Fails with \"no pool is running\" (No such device), and with Device\n"
"    or resource busy while the pool is stopping.\n"
"\n"
"OPTIONS\n"
"    -j, --json\n"
"        Print what this run did and the pool's use after it:\n"
"\n"
"          {\"runs\":R,\"moved\":N,\"chunks_freed\":N,\"bytes_copied\":N,\n"
"           \"bytes_used\":N,\"capacity\":N}\n"
"\n"
"        (runs: 1; 0 when the pool has no slab chunk: format 1, or no\n"
"        small object yet.)\n"
"\n"
HCCTL_HELP_OPT_TEXT
"\n"
HCCTL_NEEDS_ADMIN_TEXT,
},
{ .name = NULL }
};
