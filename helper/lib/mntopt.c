// SPDX-License-Identifier: GPL-2.0
/* The file system view's mount options: see mntopt.h. */
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>

#include "mntopt.h"

void hc_mntopt_init(struct hc_mntopt *o)
{
	memset(o, 0, sizeof(*o));
	o->mode = 0440;
}

static int why(char *err, size_t len, int e, const char *reason)
{
	if (err && len)
		snprintf(err, len, "%s", reason);
	return -e;
}

/* A user or group: a decimal number, or a name that exists. */
static int mnt_id(const char *s, bool group, unsigned long *id, char *err,
		  size_t len)
{
	struct passwd *pw;
	struct group *gr;
	char *end;

	if (!s || !*s)
		return why(err, len, EINVAL, group ? "a group name or number" :
			   "a user name or number");
	errno = 0;
	*id = strtoul(s, &end, 10);
	if (isdigit((unsigned char)s[0]) && !*end && !errno && *id < 0xffffffffUL)
		return 0;
	if (group) {
		gr = getgrnam(s);
		if (!gr)
			return why(err, len, ENOENT, "no such group");
		*id = gr->gr_gid;
	} else {
		pw = getpwnam(s);
		if (!pw)
			return why(err, len, ENOENT, "no such user");
		*id = pw->pw_uid;
	}
	return 0;
}

int hc_mntopt_set(struct hc_mntopt *o, const char *key, const char *val,
		  char *err, size_t errlen)
{
	unsigned long v;
	char *end;
	int e;

	if (!strcmp(key, "uid") || !strcmp(key, "gid")) {
		bool group = key[0] == 'g';

		e = mnt_id(val, group, &v, err, errlen);
		if (e)
			return e;
		if (group) {
			o->gid = v;
			o->gid_set = true;
		} else {
			o->uid = v;
		}
		return 1;
	}
	if (!strcmp(key, "mode")) {
		errno = 0;
		v = val ? strtoul(val, &end, 8) : 0;
		if (!val || !val[0] || *end || errno || v > 0777 || val[0] == '-')
			return why(err, errlen, EINVAL,
				   "octal permission bits, 0..0777");
		o->mode = v;
		return 1;
	}
	if (!strcmp(key, "ingest")) {
		if (!val || (strcmp(val, "on") && strcmp(val, "off")))
			return why(err, errlen, EINVAL, "on or off");
		o->ingest = !strcmp(val, "on");
		return 1;
	}
	if (!strcmp(key, "ingest_timeout")) {
		errno = 0;
		v = val && isdigit((unsigned char)val[0]) ? strtoul(val, &end, 10) : 0;
		if (!v || *end || errno || v > HC_MNT_TIMEOUT_MAX)
			return why(err, errlen, EINVAL, "1..3600 seconds");
		o->timeout = v;
		return 1;
	}
	return 0;
}

static const struct {
	const char *name;
	unsigned long set, clear;
} mnt_flags[] = {
	{ "ro", MS_RDONLY, 0 },		{ "rw", 0, MS_RDONLY },
	{ "nosuid", MS_NOSUID, 0 },	{ "suid", 0, MS_NOSUID },
	{ "nodev", MS_NODEV, 0 },	{ "dev", 0, MS_NODEV },
	{ "noexec", MS_NOEXEC, 0 },	{ "exec", 0, MS_NOEXEC },
	{ "sync", MS_SYNCHRONOUS, 0 },	{ "async", 0, MS_SYNCHRONOUS },
	{ "dirsync", MS_DIRSYNC, 0 },
	{ "noatime", MS_NOATIME, 0 },	{ "atime", 0, MS_NOATIME },
	{ "nodiratime", MS_NODIRATIME, 0 }, { "diratime", 0, MS_NODIRATIME },
	{ "relatime", MS_RELATIME, 0 },	{ "norelatime", 0, MS_RELATIME },
	{ "strictatime", MS_STRICTATIME, 0 },
	{ "silent", MS_SILENT, 0 },	{ "loud", 0, MS_SILENT },
	{ "remount", MS_REMOUNT, 0 },
};

/* mount(8)'s own options, which reach a helper and mean nothing to it. */
static bool mnt_ignored(const char *opt)
{
	static const char *const names[] = {
		"defaults", "auto", "noauto", "nofail", "user", "users",
		"nouser", "owner", "group", "_netdev",
	};
	size_t i;

	if (!strncmp(opt, "x-", 2) || !strncmp(opt, "comment=", 8))
		return true;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(opt, names[i]))
			return true;
	return false;
}

int hc_mntopt_parse(struct hc_mntopt *o, const char *list, bool sloppy,
		    char *bad, size_t badlen, char *err, size_t errlen)
{
	char *copy = strdup(list ? list : ""), *opt, *save = NULL, *val;
	int e = 0;
	size_t i;

	if (!copy)
		return why(err, errlen, ENOMEM, "out of memory");
	for (opt = strtok_r(copy, ",", &save); opt; opt = strtok_r(NULL, ",", &save)) {
		if (bad && badlen)
			snprintf(bad, badlen, "%s", opt);
		if (mnt_ignored(opt))
			continue;
		for (i = 0; i < sizeof(mnt_flags) / sizeof(mnt_flags[0]); i++)
			if (!strcmp(opt, mnt_flags[i].name))
				break;
		if (i < sizeof(mnt_flags) / sizeof(mnt_flags[0])) {
			o->flags = (o->flags & ~mnt_flags[i].clear) | mnt_flags[i].set;
			continue;
		}
		val = strchr(opt, '=');
		if (val)
			*val++ = '\0';
		e = hc_mntopt_set(o, opt, val, err, errlen);
		if (e < 0)
			break;
		if (!e && !sloppy) {
			e = why(err, errlen, EINVAL, "unknown option");
			break;
		}
		e = 0;
	}
	free(copy);
	if (!e && bad && badlen)
		bad[0] = '\0';
	return e;
}

int hc_mntopt_data(struct hc_mntopt *o, char *data, size_t len, char *err,
		   size_t errlen)
{
	struct group *gr;
	int n;

	if (o->timeout && !o->ingest)
		return why(err, errlen, EINVAL, "ingest_timeout needs ingest=on");
	if (!o->gid_set) {
		gr = getgrnam(HC_MNT_GROUP);
		o->gid = gr ? gr->gr_gid : 0;
	}
	n = snprintf(data, len, "uid=%lu,gid=%lu,mode=0%lo,ingest=%s", o->uid,
		     o->gid, o->mode, o->ingest ? "on" : "off");
	if (n >= 0 && (size_t)n < len && o->timeout)
		n += snprintf(data + n, len - (size_t)n, ",ingest_timeout=%lu",
			      o->timeout);
	if (n < 0 || (size_t)n >= len)
		return why(err, errlen, EINVAL, "options too long");
	return 0;
}
