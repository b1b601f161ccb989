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
	static const struct option opts[] = {
		{ "all",  no_argument,	     NULL, 'a' },
		{ "root", required_argument, NULL, 'r' },
		{ "json", no_argument,	     NULL, 'j' },
		{ "help", no_argument,	     NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *root = "/";
	unsigned int flags = 0;
	bool json = hcctl_opt_json;
	struct hc_drive *d;
	size_t n;
	int c, err;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":ar:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			flags |= HC_DISCOVER_ALL;
			break;
		case 'r':
			if (!optarg[0])
				return hcctl_usage_error(cmd, "empty --root");
			root = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			hcctl_print_help(cmd, stdout);
			return HC_EXIT_OK;
		default:
			return hcctl_getopt_error(cmd, c, optopt, argv, optind);
		}
	}
	for (c = optind; c < argc; c++)
		if (argv[c][0] != '/')
			return hcctl_usage_error(cmd,
				"invalid DEV '%s' (expected an absolute path such as /dev/nvme0n1)",
				argv[c]);
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
