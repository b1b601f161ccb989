// SPDX-License-Identifier: GPL-2.0
/*
 * hcctl - pool commands: create, assemble, stop.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include "discover.h"
#include "hypercache_format.h"
#include "hypercache_netlink.h"
#include "hcctl.h"
#include "nl.h"

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
		hc_err(NULL, "out of memory", ENOMEM);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		m[i].arg = devs[i];
		m[i].path = realpath(devs[i], NULL);
		if (!m[i].path) {
			hc_err(devs[i], "cannot resolve path", errno);
			goto fail;
		}
		if (stat(m[i].path, &st) < 0) {
			hc_err(devs[i], "cannot stat", errno);
			goto fail;
		}
		if (!S_ISBLK(st.st_mode)) {
			hc_err(devs[i], "not a block device", 0);
			goto fail;
		}
		m[i].rdev = st.st_rdev;
		for (j = 0; j < i; j++) {
			if (m[j].rdev == m[i].rdev) {
				hc_errf(devs[i], 0, "given twice (same device as %s)",
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
 * before the kernel writes anything.  --force skips this.  A HyperCache
 * superblock is not a libblkid signature: the kernel judges that one.
 */
static int check_members_safe(const struct member_arg *m, int n)
{
	struct hc_drive d;
	int i, err;

	for (i = 0; i < n; i++) {
		err = hc_discover_check("/", m[i].path, &d);
		if (err) {
			hc_errf(m[i].arg, -err,
				"cannot check whether the device is in use (use --force to skip the check)");
			return -1;
		}
		if (d.verdict == HC_VERDICT_SAFE)
			continue;
		hc_errf(m[i].arg, 0, "%s: %s (use --force to overwrite)",
			d.verdict == HC_VERDICT_UNKNOWN ? "cannot check" : "unsafe",
			d.detail);
		return -1;
	}
	return 0;
}

static int pool_reply(struct nl_msg *msg, void *arg)
{
	struct hc_pool_info *pool = arg;

	hc_pool_free(pool);
	return hc_pool_parse(msg, pool);
}

/* Shared by create and assemble. */
static int pool_start(const struct hcctl_cmd *cmd, uint8_t nlcmd, int ndev,
		      char **devs, uint32_t flags, bool has_offset,
		      uint64_t data_offset, bool json)
{
	struct hc_pool_info pool = { 0 };
	struct member_arg *m;
	struct hc_nl_span *spans = NULL;
	char **names = NULL;
	struct hc_nl nl = { 0 };
	struct hc_nl_err err;
	struct nl_msg *msg = NULL;
	struct nlattr *nest;
	size_t payload = 64;
	int i, ret = HC_EXIT_FAIL;

	m = resolve_members(ndev, devs);
	if (!m)
		return HC_EXIT_FAIL;
	if (nlcmd == HC_CMD_POOL_CREATE && !(flags & HC_POOL_F_FORCE) &&
	    check_members_safe(m, ndev) < 0) {
		free_members(m, ndev);
		return HC_EXIT_FAIL;
	}
	spans = calloc((size_t)ndev, sizeof(*spans));
	names = calloc((size_t)ndev, sizeof(*names));
	if (!spans || !names) {
		hc_err(cmd->name, "out of memory", ENOMEM);
		goto out;
	}
	if (hc_nl_open(&nl, cmd->name) < 0)
		goto out;

	for (i = 0; i < ndev; i++)
		payload += NLA_HDRLEN * 2 + NLA_ALIGN(strlen(m[i].path) + 1);
	msg = hc_nl_request(&nl, nlcmd, payload);
	if (!msg)
		goto nomem;
	for (i = 0; i < ndev; i++) {
		nest = nla_nest_start(msg, HC_A_POOL_MEMBER | NLA_F_NESTED);
		if (!nest)
			goto nomem;
		spans[i].start = hc_nl_offset(msg, nest);
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

	ret = hc_nl_transact(&nl, msg, pool_reply, &pool, &err);
	msg = NULL;
	if (ret < 0) {
		hc_nl_report(cmd->name, &err, spans, names, (size_t)ndev);
		ret = HC_EXIT_FAIL;
		goto out;
	}
	hc_pool_output(&pool, json);
	ret = HC_EXIT_OK;
	goto out;
nomem:
	hc_err(cmd->name, "cannot build netlink request", ENOMEM);
	ret = HC_EXIT_FAIL;
out:
	if (msg)
		nlmsg_free(msg);
	hc_pool_free(&pool);
	hc_nl_close(&nl);
	free(spans);
	free(names);
	free_members(m, ndev);
	return ret;
}

int hc_cmd_pool_create(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "force",	 no_argument,	    NULL, 'f' },
		{ "data-offset", required_argument, NULL, 'o' },
		{ "json",	 no_argument,	    NULL, 'j' },
		{ "help",	 no_argument,	    NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	bool json = hc_opt_json, has_offset = false;
	uint64_t data_offset = 0;
	uint32_t flags = 0;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":fo:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			flags |= HC_POOL_F_FORCE;
			break;
		case 'o':
			if (parse_bytes(optarg, &data_offset) < 0)
				return hc_usage_error(cmd,
					"invalid --data-offset '%s' (expected BYTES with optional K/M/G/T suffix)",
					optarg);
			has_offset = true;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			hc_print_help(cmd, stdout);
			return HC_EXIT_OK;
		default:
			return hc_getopt_error(cmd, c, optopt, argv, optind);
		}
	}
	if (optind >= argc)
		return hc_usage_error(cmd, "missing DEV operand");
	if (argc - optind > HC_MAX_MEMBERS)
		return hc_usage_error(cmd, "too many devices: %d (at most %d)",
				      argc - optind, HC_MAX_MEMBERS);
	return pool_start(cmd, HC_CMD_POOL_CREATE, argc - optind, argv + optind,
			  flags, has_offset, data_offset, json);
}

int hc_cmd_pool_assemble(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "force-empty-journal", no_argument, NULL, 'E' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	bool json = hc_opt_json;
	uint32_t flags = 0;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":jh", opts, NULL)) != -1) {
		switch (c) {
		case 'E':
			flags |= HC_POOL_F_FORCE_EMPTY_JOURNAL;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			hc_print_help(cmd, stdout);
			return HC_EXIT_OK;
		default:
			return hc_getopt_error(cmd, c, optopt, argv, optind);
		}
	}
	if (optind >= argc)
		return hc_usage_error(cmd, "missing DEV operand");
	if (argc - optind > HC_MAX_MEMBERS)
		return hc_usage_error(cmd, "too many devices: %d (at most %d)",
				      argc - optind, HC_MAX_MEMBERS);
	return pool_start(cmd, HC_CMD_POOL_ASSEMBLE, argc - optind,
			  argv + optind, flags, false, 0, json);
}

int hc_cmd_pool_stop(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct hc_nl nl = { 0 };
	struct hc_nl_err err;
	struct nl_msg *msg;
	int c, ret;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			hc_print_help(cmd, stdout);
			return HC_EXIT_OK;
		default:
			return hc_getopt_error(cmd, c, optopt, argv, optind);
		}
	}
	if (optind < argc)
		return hc_usage_error(cmd, "unexpected argument '%s'",
				      argv[optind]);

	if (hc_nl_open(&nl, cmd->name) < 0)
		return HC_EXIT_FAIL;
	msg = hc_nl_request(&nl, HC_CMD_POOL_STOP, 0);
	if (!msg) {
		hc_err(cmd->name, "cannot build netlink request", ENOMEM);
		hc_nl_close(&nl);
		return HC_EXIT_FAIL;
	}
	ret = hc_nl_transact(&nl, msg, NULL, NULL, &err);
	hc_nl_close(&nl);
	if (ret == 0)
		return HC_EXIT_OK;
	if (err.kernel && !err.msg[0]) {
		if (err.error == ENODEV) {
			hc_err(cmd->name, "no pool is running", 0);
			return HC_EXIT_FAIL;
		}
		if (err.error == EBUSY)
			snprintf(err.msg, sizeof(err.msg),
				 "/dev/hypercache0 is in use");
	}
	hc_nl_report(cmd->name, &err, NULL, NULL, 0);
	return HC_EXIT_FAIL;
}
