// SPDX-License-Identifier: GPL-2.0
/*
 * hcctl - inspect: which drives may become pool members, and why not.
 * The checks live in helper/lib/discover.c, shared with hypercached.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "discover.h"
#include "hcctl.h"
#include "opt.h"

static json_object *drive_json(const struct hc_drive *d)
{
	json_object *o = json_object_new_object();
	char dev[32];

	snprintf(dev, sizeof(dev), "%u:%u", d->major, d->minor);
	json_object_object_add(o, "device", json_object_new_string(d->path));
	json_object_object_add(o, "name", json_object_new_string(d->name));
	json_object_object_add(o, "dev", json_object_new_string(dev));
	json_object_object_add(o, "size", json_object_new_uint64(d->bytes));
	if (d->model[0])
		json_object_object_add(o, "model", json_object_new_string(d->model));
	if (d->serial[0])
		json_object_object_add(o, "serial",
				       json_object_new_string(d->serial));
	json_object_object_add(o, "verdict",
			       json_object_new_string(hc_discover_verdict_name(d->verdict)));
	json_object_object_add(o, "reason",
			       json_object_new_string(hc_discover_reason_name(d->reason)));
	if (d->detail[0])
		json_object_object_add(o, "detail",
				       json_object_new_string(d->detail));
	if (d->signature[0])
		json_object_object_add(o, "signature",
				       json_object_new_string(d->signature));
	return o;
}

static void print_drives(const struct hc_drive *d, size_t n, bool json)
{
	char size[32];
	size_t i;

	if (json) {
		json_object *arr = json_object_new_array();

		for (i = 0; i < n; i++)
			json_object_array_add(arr, drive_json(&d[i]));
		hcctl_json_print(arr, false);
		json_object_put(arr);
		return;
	}
	printf("%-16s %-8s %10s  %-28s %s\n", "DEVICE", "VERDICT", "SIZE",
	       "MODEL", "REASON");
	for (i = 0; i < n; i++) {
		hcctl_fmt_size(size, sizeof(size), d[i].bytes);
		printf("%-16s %-8s %10s  %-28s %s\n", d[i].path,
		       hc_discover_verdict_name(d[i].verdict), size,
		       d[i].model[0] ? d[i].model : "-",
		       d[i].detail[0] ? d[i].detail : "-");
	}
}

/* Judge each DEV named on the command line. */
static int inspect_devs(const char *root, int ndev, char **devs, bool json)
{
	struct hc_drive *d;
	int i, err, ret = HC_EXIT_OK;
	size_t n = 0;

	d = calloc((size_t)ndev, sizeof(*d));
	if (!d) {
		hcctl_err(NULL, "out of memory", ENOMEM);
		return HC_EXIT_FAIL;
	}
	for (i = 0; i < ndev; i++) {
		err = hc_discover_check(root, devs[i], &d[n]);
		if (err == -ENODEV) {
			hcctl_err(devs[i], "not a block device known to sysfs", 0);
			ret = HC_EXIT_FAIL;
		} else if (err) {
			hcctl_err(devs[i], "cannot inspect", -err);
			ret = HC_EXIT_FAIL;
		} else {
			n++;
		}
	}
	if (n || json)
		print_drives(d, n, json);
	free(d);
	return ret;
}

int hcctl_cmd_inspect(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	const char *root = "/";
	unsigned int flags;
	bool json, all = false;
	const struct hcctl_opt opts[] = {
		HCCTL_FLAG("all", 'a', &all),
		HCCTL_STRING("root", 'r', &root, NULL),
		HCCTL_OPT_END
	};
	struct hc_drive *d;
	size_t n;
	int err, i, optind;

	optind = hcctl_opt_parse(cmd, argc, argv, opts, &err);
	if (optind < 0)
		return err;
	json = hcctl_opt_json;
	flags = all ? HC_DISCOVER_ALL : 0;
	for (i = optind; i < argc; i++)
		if (argv[i][0] != '/')
			return hcctl_usage_error(cmd,
				"invalid DEV '%s' (expected an absolute path such as /dev/nvme0n1)",
				argv[i]);
	if (optind < argc) {
		if (flags & HC_DISCOVER_ALL)
			return hcctl_usage_error(cmd, "--all makes no sense with DEV operands");
		return inspect_devs(root, argc - optind, argv + optind, json);
	}

	err = hc_discover(root, flags, &d, &n);
	if (err) {
		hcctl_errf(cmd->name, -err, "cannot list block devices in %s%ssys/class/block",
			root, root[strlen(root) - 1] == '/' ? "" : "/");
		return HC_EXIT_FAIL;
	}
	if (!n && !json)
		fprintf(stderr, "hcctl: inspect: %s\n",
			flags & HC_DISCOVER_ALL ? "no NVMe, SCSI or virtio disks found" :
			"no NVMe namespaces found (--all adds sd* and vd* disks)");
	else
		print_drives(d, n, json);
	hc_discover_free(d);
	return HC_EXIT_OK;
}

/* --- the command table (main.c lists the groups) ---------------------- */

const struct hcctl_cmd hcctl_inspect_cmds[] = {
{
	.name = "inspect",
	.summary = "list drives and whether they are safe to use as pool members",
	.synopsis = "[--all] [--root DIR] [--json] [DEV...]",
	.handler = hcctl_cmd_inspect,
	.help =
"DESCRIPTION\n"
"    Scan /sys/class/block for NVMe namespaces (nvmeXnY; partitions are\n"
"    never candidates) and judge each one, or judge the block devices\n"
"    DEV... given (any kind: loop, dm, partitions).  One line per device:\n"
"\n"
"      DEVICE           VERDICT        SIZE  MODEL                        REASON\n"
"      /dev/nvme0n1     excluded   1.8 TiB  Samsung SSD 990 PRO 2TB      holds the root file system (/ is on dm-0)\n"
"      /dev/nvme1n1     safe       3.5 TiB  SAMSUNG MZQL23T8HCLS-00A07   -\n"
"\n"
"    A device is excluded, with the first reason that applies, if\n"
"      - it holds the root file system: / is on it, on one of its\n"
"        partitions, or on a dm/md/LVM device built on them (slaves are\n"
"        followed), or it is a partition of such a disk;\n"
"      - it or one of its partitions is used as swap (/proc/swaps);\n"
"      - it or one of its partitions is mounted (/proc/self/mountinfo);\n"
"      - it is a member of the running HyperCache pool (its holder is\n"
"        hypercache0);\n"
"      - it or one of its partitions has holders (dm, md, LVM, bcache);\n"
"      - its size is 0;\n"
"      - libblkid finds a signature on it: a file system (ext4, XFS,\n"
"        Btrfs, ...), ZFS, swap, LUKS, LVM2, md RAID or bcache superblock,\n"
"        or a GPT or MBR partition table.\n"
"    Its verdict is unknown if it cannot be probed (no device node, no\n"
"    permission to read it), and safe otherwise.  A HyperCache superblock\n"
"    is not a signature here: 'pool create' leaves it to the kernel, which\n"
"    refuses such a device without --force.\n"
"\n"
"    'hcctl pool create' runs the same checks on every DEV and refuses a\n"
"    device that is not safe unless --force is given.  The exit status is 0\n"
"    whatever the verdicts are.  Reading signatures needs read access to\n"
"    the device nodes (root).\n"
"\n"
"OPTIONS\n"
"    -a, --all\n"
"        Also consider SCSI/SATA (sd*) and virtio (vd*) disks.\n"
"\n"
"    -r, --root DIR\n"
"        Read sysfs, /proc and /dev below DIR instead of / (a copy of\n"
"        another system's tree, or a test fixture).  A regular file\n"
"        DIR/dev/NAME is probed as the device NAME.\n"
"\n"
"    -j, --json\n"
"        Print one JSON array, one object per device, with raw numbers:\n"
"\n"
"          [{\"device\":\"/dev/nvme1n1\",\"name\":\"nvme1n1\",\"dev\":\"259:3\",\n"
"            \"size\":3840755982336,\"model\":\"...\",\"serial\":\"...\",\n"
"            \"verdict\":\"excluded\",\"reason\":\"signature\",\n"
"            \"detail\":\"carries an ext4 file system\",\"signature\":\"ext4\"}]\n"
"\n"
"        verdict: safe, excluded or unknown.  reason: none, root, swap,\n"
"        mounted, member, holders, empty, signature or probe.  model,\n"
"        serial, detail and signature are left out when empty.\n"
"\n"
HCCTL_HELP_OPT_TEXT
"\n"
HCCTL_EXIT_STATUS_TEXT
"\n"
"EXAMPLES\n"
"    hcctl inspect\n"
"    hcctl inspect --json | jq -r '.[] | select(.verdict == \"safe\") | .device'\n"
"    hcctl inspect /dev/nvme1n1 /dev/loop0\n",
},
{ .name = NULL }
};
