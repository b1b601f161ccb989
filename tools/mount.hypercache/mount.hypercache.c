// SPDX-License-Identifier: GPL-2.0
/*
 * mount.hypercache - the mount helper of the file system view
 * (Documentation/mount.hypercache.rst): mount(8) runs
 * /sbin/mount.hypercache SPEC DIR [-sfnv] [-o OPTIONS] for an fstab line
 * or `mount -t hypercache`.  It resolves uid=NAME and gid=NAME (which the
 * kernel cannot look up), checks every option with hcctl mount's rules
 * (helper/lib/mntopt.c), and calls mount(2), saying why a mount is
 * refused.  Exit status as mount(8)'s: 0, 1 (usage or permissions),
 * 32 (the mount failed).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mntopt.h"

#define EX_USAGE	1	/* mount(8): incorrect invocation or permissions */
#define EX_FAIL		32	/* mount(8): mount failure */

static const char *prog = "mount.hypercache";

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s SPEC DIR [-sfnv] [-o OPTIONS]\n"
		"Mount the HyperCache pool's file system view on DIR (SPEC is ignored;\n"
		"'hypercache' by convention).  OPTIONS: uid=USER, gid=GROUP (names or\n"
		"numbers), mode=OCTAL, ingest=on|off, ingest_timeout=SECONDS, and the\n"
		"generic ro, rw, nosuid, nodev, noexec, noatime, ...\n"
		"  -s  sloppy: ignore options it does not know\n"
		"  -f  fake: check everything, do not mount\n"
		"  -n  do not write /etc/mtab (it never does)\n"
		"  -v  say what is mounted\n"
		"See mount.hypercache(8).\n", prog);
}

/* Why mount(2) refused, in words (hcctl mount's). */
static const char *refusal(int e)
{
	switch (e) {
	case ENODEV:
		return "no pool is running, or the hypercache module is not loaded";
	case EBUSY:
		return "the pool is already mounted (one mount per pool; bind-mount it), or the directory is busy";
	case EPERM:
		return "mounting needs CAP_SYS_ADMIN";
	case ENOENT:
		return "no such directory";
	case ENOTDIR:
		return "not a directory";
	default:
		return NULL;
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	bool sloppy = false, fake = false, verbose = false;
	char data[HC_MNT_DATA_MAX], why[80], bad[256];
	const char *opts = "", *spec, *dir, *r;
	struct hc_mntopt o;
	struct stat st;
	int c, e;

	while ((c = getopt_long(argc, argv, "sfnvo:t:N:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			sloppy = true;
			break;
		case 'f':
			fake = true;
			break;
		case 'n':
			break;
		case 'v':
			verbose = true;
			break;
		case 'o':
			opts = optarg;
			break;
		case 't':	/* mount(8) passes -t for TYPE.SUBTYPE */
			if (strcmp(optarg, HC_MNT_FSTYPE)) {
				fprintf(stderr, "%s: -t %s: only type %s\n", prog,
					optarg, HC_MNT_FSTYPE);
				return EX_USAGE;
			}
			break;
		case 'N':
			fprintf(stderr, "%s: -N %s: mount namespaces are not supported\n",
				prog, optarg);
			return EX_USAGE;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EX_USAGE;
		}
	}
	if (argc - optind != 2) {
		fprintf(stderr, "%s: %s\n", prog, argc - optind < 2 ?
			"SPEC and DIR are required" : "too many arguments");
		usage(stderr);
		return EX_USAGE;
	}
	spec = argv[optind];
	dir = argv[optind + 1];

	hc_mntopt_init(&o);
	e = hc_mntopt_parse(&o, opts, sloppy, bad, sizeof(bad), why, sizeof(why));
	if (e) {
		fprintf(stderr, "%s: %s: bad option '%s' (%s)\n", prog, dir, bad, why);
		return EX_USAGE;
	}
	if (hc_mntopt_data(&o, data, sizeof(data), why, sizeof(why))) {
		fprintf(stderr, "%s: %s: %s\n", prog, dir, why);
		return EX_USAGE;
	}
	e = stat(dir, &st) ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
	if (e) {
		r = refusal(e);
		fprintf(stderr, "%s: %s: cannot mount: %s\n", prog, dir,
			r ? r : strerror(e));
		return EX_FAIL;
	}
	if (!fake && mount(spec, dir, HC_MNT_FSTYPE, o.flags, data)) {
		e = errno;
		r = refusal(e);
		fprintf(stderr, "%s: %s: cannot mount the view (%s): %s\n", prog,
			dir, data, r ? r : strerror(e));
		return e == EPERM ? EX_USAGE : EX_FAIL;
	}
	if (verbose)
		printf("%s: %s %s on %s (%s%s)\n", prog, fake ? "would mount" : "mounted",
		       spec, dir, data, o.flags & MS_RDONLY ? ",ro" : "");
	return 0;
}
