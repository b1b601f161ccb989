/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The file system view's mount options (Documentation/fs.md, "Options"):
 * owner and group by name or number, the mode, ingest and its timeout,
 * checked and resolved (getpwnam/getgrnam: the kernel cannot look names
 * up) into the data string mount(2) takes.  One implementation for
 * `hcctl mount` (tools/hcctl/mount.c, --uid/--gid/...) and the mount
 * helper mount.hypercache(8) that mount(8) runs for an fstab line
 * (tools/mount.hypercache, -o uid=NAME,...).
 *
 * Errors are -EINVAL (or -ENOENT for a user or group that does not exist)
 * with the reason in @err ("no such group", "on or off", ...); each front
 * end names the option in its own spelling around it.
 */
#ifndef HC_MNTOPT_H
#define HC_MNTOPT_H

#include <stdbool.h>
#include <stddef.h>

#define HC_MNT_FSTYPE		"hypercache"
#define HC_MNT_GROUP		"hypercache"	/* the default group, when it exists */
#define HC_MNT_TIMEOUT_MAX	3600		/* the kernel's ingest_timeout= range */
#define HC_MNT_DATA_MAX		160

struct hc_mntopt {
	unsigned long uid, gid, mode;
	unsigned long timeout;		/* 0: the kernel's default (30 s) */
	bool gid_set;			/* else the hypercache group, or 0 */
	bool ingest;
	unsigned long flags;		/* MS_* of the generic options */
};

/* hc_mntopt_init() - the defaults: uid 0, the default group, 0440, ingest off. */
void hc_mntopt_init(struct hc_mntopt *o);

/*
 * hc_mntopt_set() - one of the view's own options: "uid", "gid" (a name
 * or a decimal number), "mode" (octal, at most 0777), "ingest" ("on" or
 * "off"), "ingest_timeout" (1..3600 seconds).  Return: 1 when set, 0 when
 * @key is not one of them, or a negative errno with the reason in @err.
 */
int hc_mntopt_set(struct hc_mntopt *o, const char *key, const char *val,
		  char *err, size_t errlen);

/*
 * hc_mntopt_parse() - a comma-separated -o list: the view's options
 * (KEY=VALUE), the generic ones into o->flags (ro, rw, nosuid, nodev,
 * noexec, sync, dirsync, noatime, nodiratime, relatime, strictatime,
 * remount and their opposites), and mount(8)'s own (defaults, auto,
 * noauto, nofail, user, users, nouser, owner, group, _netdev, x-*,
 * comment=*), which are ignored.  Anything else is -EINVAL ("unknown
 * option") unless @sloppy.  On error the option refused is copied into
 * @bad (may be NULL).  Return: 0 or a negative errno, the reason in @err.
 */
int hc_mntopt_parse(struct hc_mntopt *o, const char *list, bool sloppy,
		    char *bad, size_t badlen, char *err, size_t errlen);

/*
 * hc_mntopt_data() - check the combination (ingest_timeout needs
 * ingest=on), resolve the default group, and write the kernel's data
 * string ("uid=U,gid=G,mode=0M,ingest=on|off[,ingest_timeout=S]") into
 * @data.  Return: 0 or -EINVAL with the reason in @err.
 */
int hc_mntopt_data(struct hc_mntopt *o, char *data, size_t len, char *err,
		   size_t errlen);

#endif /* HC_MNTOPT_H */
