// SPDX-License-Identifier: GPL-2.0
/*
 * hcctl - mount, umount: the file system view of the running pool
 * (mount -t hypercache, Documentation/fs.md) with names resolved and the
 * kernel's refusals turned into sentences naming the reason.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hcctl.h"
#include "mntopt.h"
#include "opt.h"

#define MNT_DEFAULT	"/mnt/hypercache"
#define MNT_FSTYPE	HC_MNT_FSTYPE
#define MNT_MAX		8		/* mount points reported */

/* The mount points of the view (bind mounts included), from mountinfo. */
struct mnt_list {
	char *path[MNT_MAX];
	size_t n;
};

static void mnt_list_free(struct mnt_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->path[i]);
	l->n = 0;
}

/* mountinfo escapes ' ', '\t', '\n' and '\\' as \ooo: decode in place. */
static void mnt_unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

/*
 * The mount points whose file system type is "hypercache".  Return: 0, or
 * -errno when mountinfo cannot be read.
 */
static int mnt_find(struct mnt_list *l)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, *sep, *mp, *save;
	size_t cap = 0;
	int i;

	l->n = 0;
	if (!f)
		return -errno;
	while (getline(&line, &cap, f) > 0) {
		/* ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS...] - TYPE SRC SUPER */
		sep = strstr(line, " - ");
		if (!sep || strncmp(sep + 3, MNT_FSTYPE " ", strlen(MNT_FSTYPE) + 1))
			continue;
		mp = strtok_r(line, " ", &save);
		for (i = 0; i < 4 && mp; i++)
			mp = strtok_r(NULL, " ", &save);
		if (!mp || l->n == MNT_MAX)
			continue;
		mnt_unescape(mp);
		l->path[l->n] = strdup(mp);
		if (l->path[l->n])
			l->n++;
	}
	free(line);
	fclose(f);
	return 0;
}

/* Is the file system type registered (the module loaded)? */
static bool mnt_type_known(void)
{
	FILE *f = fopen("/proc/filesystems", "re");
	char line[128];
	bool found = false;

	if (!f)
		return true;	/* let mount(2) say */
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		found = !strcmp(line, "nodev\t" MNT_FSTYPE) || !strcmp(line, "\t" MNT_FSTYPE);
	}
	fclose(f);
	return found;
}

/* --- busy: which processes use the mount -------------------------------- */

/* Does /proc/PID use a file of the mount (device @dev, path @mp)? */
static bool mnt_pid_uses(const char *pid, dev_t dev, const char *mp)
{
	char path[600], line[4096];
	size_t mlen = strlen(mp);
	struct dirent *de;
	struct stat st;
	bool used = false;
	FILE *f;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%s/cwd", pid);
	if (!stat(path, &st) && st.st_dev == dev)
		return true;
	snprintf(path, sizeof(path), "/proc/%s/fd", pid);
	d = opendir(path);
	while (d && !used && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/fd/%s", pid, de->d_name);
		used = !stat(path, &st) && st.st_dev == dev;
	}
	if (d)
		closedir(d);
	if (used)
		return true;
	/* a mapping keeps its file (and its object) after close */
	snprintf(path, sizeof(path), "/proc/%s/maps", pid);
	f = fopen(path, "re");
	while (f && !used && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');

		used = p && !strncmp(p, mp, mlen) && p[mlen] == '/';
	}
	if (f)
		fclose(f);
	return used;
}

/* "PID (COMM), ..." of the processes using the mount, into @buf. */
static void mnt_users(const char *mp, char *buf, size_t len)
{
	char path[600], comm[64];
	struct dirent *de;
	size_t off = 0, shown = 0, more = 0;
	struct stat st;
	FILE *f;
	DIR *d;

	buf[0] = '\0';
	if (stat(mp, &st))
		return;
	d = opendir("/proc");
	while (d && (de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]) ||
		    !mnt_pid_uses(de->d_name, st.st_dev, mp))
			continue;
		if (shown == 5) {
			more++;
			continue;
		}
		comm[0] = '\0';
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		f = fopen(path, "re");
		if (f) {
			if (!fgets(comm, sizeof(comm), f))
				comm[0] = '\0';
			fclose(f);
		}
		comm[strcspn(comm, "\n")] = '\0';
		off += (size_t)snprintf(buf + off, len - off, "%s%s (%s)",
					shown ? ", " : "", de->d_name, comm);
		if (off >= len)
			break;
		shown++;
	}
	if (d)
		closedir(d);
	if (more && off < len)
		snprintf(buf + off, len - off, " and %zu more", more);
}

/* --- mount ---------------------------------------------------------------- */

struct mnt_args {
	const char *uid, *gid, *mode, *ingest;
	unsigned long timeout;
	bool ro;
};

int hcctl_cmd_mount(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	struct mnt_args a = { .ingest = "off" };
	const struct hcctl_opt opts[] = {
		HCCTL_STRING("uid", 'u', &a.uid, "USER"),
		HCCTL_STRING("gid", 'g', &a.gid, "GROUP"),
		HCCTL_STRING("mode", 'm', &a.mode, "MODE"),
		HCCTL_STRING("ingest", 'i', &a.ingest, "on|off"),
		HCCTL_ULONG("ingest-timeout", 't', &a.timeout, 1, HC_MNT_TIMEOUT_MAX, "seconds"),
		HCCTL_FLAG("ro", 'r', &a.ro),
		HCCTL_OPT_END
	};
	const struct {
		const char *key, *opt, *const *val;	/* *val: set by the parsing */
	} given[] = {
		{ "uid", "--uid", &a.uid }, { "gid", "--gid", &a.gid },
		{ "mode", "--mode", &a.mode }, { "ingest", "--ingest", &a.ingest },
	};
	struct mnt_list l = { .n = 0 };
	char data[HC_MNT_DATA_MAX], why[80], num[24];
	struct hc_mntopt o;
	const char *mp;
	bool made = false;
	struct stat st;
	int optind, rc, err;
	size_t i;

	optind = hcctl_opt_parse(cmd, argc, argv, opts, &rc);
	if (optind < 0)
		return rc;
	if (argc - optind > 1)
		return hcctl_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
	mp = optind < argc ? argv[optind] : MNT_DEFAULT;
	if (mp[0] != '/')
		return hcctl_usage_error(cmd, "MOUNTPOINT '%s' is not an absolute path", mp);
	/* the rules of mount.hypercache(8)'s -o, in helper/lib/mntopt.c */
	hc_mntopt_init(&o);
	for (i = 0; i < sizeof(given) / sizeof(given[0]); i++)
		if (*given[i].val &&
		    hc_mntopt_set(&o, given[i].key, *given[i].val, why, sizeof(why)) < 0)
			return hcctl_usage_error(cmd, "bad %s '%s' (%s)", given[i].opt,
						 *given[i].val, why);
	if (a.timeout) {
		snprintf(num, sizeof(num), "%lu", a.timeout);
		if (hc_mntopt_set(&o, "ingest_timeout", num, why, sizeof(why)) < 0)
			return hcctl_usage_error(cmd, "bad --ingest-timeout '%s' (%s)", num, why);
	}
	if (o.timeout && !o.ingest)
		return hcctl_usage_error(cmd, "--ingest-timeout needs --ingest on");
	if (hc_mntopt_data(&o, data, sizeof(data), why, sizeof(why)))
		return hcctl_usage_error(cmd, "%s", why);

	if (!mnt_type_known()) {
		hcctl_err(cmd->name, "the hypercache module is not loaded (modprobe hypercache)",
			  ENODEV);
		return HC_EXIT_FAIL;
	}
	err = mnt_find(&l);
	if (err) {
		hcctl_err("/proc/self/mountinfo", "cannot read", -err);
		return HC_EXIT_FAIL;
	}
	if (l.n) {
		hcctl_errf(cmd->name, EBUSY, "the pool is already mounted on %s (one mount per pool; 'hcctl umount' first, or bind-mount it)",
			   l.path[0]);
		mnt_list_free(&l);
		return HC_EXIT_FAIL;
	}
	if (stat(mp, &st)) {
		if (errno != ENOENT || mkdir(mp, 0755)) {
			hcctl_err(mp, "cannot create the mount point", errno);
			return HC_EXIT_FAIL;
		}
		made = true;
	} else if (!S_ISDIR(st.st_mode)) {
		hcctl_err(mp, "the mount point is not a directory", ENOTDIR);
		return HC_EXIT_FAIL;
	}

	if (mount("hypercache", mp, MNT_FSTYPE, a.ro ? MS_RDONLY : 0, data)) {
		err = errno;
		if (made)
			rmdir(mp);
		if (err == ENODEV)
			hcctl_err(cmd->name, "no pool is running (hcctl pool create or assemble first)",
				  err);
		else if (err == EBUSY)
			hcctl_errf(mp, err, "the pool is already mounted, or %s is busy", mp);
		else if (err == EPERM)
			hcctl_err(mp, "mounting needs CAP_SYS_ADMIN", err);
		else
			hcctl_errf(mp, err, "cannot mount the view (%s)", data);
		return HC_EXIT_FAIL;
	}
	if (hcctl_opt_json) {
		json_object *j = json_object_new_object();
		char m[8];

		snprintf(m, sizeof(m), "0%lo", o.mode);
		json_object_object_add(j, "mountpoint", json_object_new_string(mp));
		json_object_object_add(j, "uid", json_object_new_uint64(o.uid));
		json_object_object_add(j, "gid", json_object_new_uint64(o.gid));
		json_object_object_add(j, "mode", json_object_new_string(m));
		json_object_object_add(j, "ingest", json_object_new_boolean(o.ingest));
		json_object_object_add(j, "ingest_timeout",
				       json_object_new_uint64(o.timeout ? o.timeout : 30));
		json_object_object_add(j, "read_only", json_object_new_boolean(a.ro));
		json_object_object_add(j, "created", json_object_new_boolean(made));
		hcctl_json_print(j, false);
		json_object_put(j);
	} else {
		printf("mounted the pool's view on %s (%s%s)\n", mp, data, a.ro ? ",ro" : ",rw");
	}
	return HC_EXIT_OK;
}

/* --- umount --------------------------------------------------------------- */

int hcctl_cmd_umount(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	bool lazy = false;
	const struct hcctl_opt opts[] = {
		HCCTL_FLAG("lazy", 'l', &lazy),
		HCCTL_OPT_END
	};
	struct mnt_list l = { .n = 0 };
	char users[512], real[4096];
	const char *mp = NULL;
	int optind, rc, err;
	size_t i;

	optind = hcctl_opt_parse(cmd, argc, argv, opts, &rc);
	if (optind < 0)
		return rc;
	if (argc - optind > 1)
		return hcctl_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
	err = mnt_find(&l);
	if (err) {
		hcctl_err("/proc/self/mountinfo", "cannot read", -err);
		return HC_EXIT_FAIL;
	}
	if (optind < argc) {
		if (!realpath(argv[optind], real)) {
			hcctl_err(argv[optind], "no such mount point", errno);
			mnt_list_free(&l);
			return HC_EXIT_FAIL;
		}
		for (i = 0; i < l.n && !mp; i++)
			if (!strcmp(l.path[i], real))
				mp = real;
		if (!mp) {
			hcctl_err(argv[optind], "not a mount of the HyperCache view", EINVAL);
			mnt_list_free(&l);
			return HC_EXIT_FAIL;
		}
	} else if (!l.n) {
		hcctl_err(cmd->name, "the pool's view is not mounted", EINVAL);
		return HC_EXIT_FAIL;
	} else if (l.n > 1) {
		hcctl_errf(cmd->name, 0, "the view is mounted on %s and %zu more place(s): name the MOUNTPOINT",
			   l.path[0], l.n - 1);
		mnt_list_free(&l);
		return HC_EXIT_USAGE;
	} else {
		snprintf(real, sizeof(real), "%s", l.path[0]);
		mp = real;
	}
	mnt_list_free(&l);

	if (umount2(mp, lazy ? MNT_DETACH : 0)) {
		err = errno;
		if (err == EBUSY) {
			mnt_users(mp, users, sizeof(users));
			hcctl_errf(mp, err, "files of the view are open or mapped%s%s (close them, or --lazy)",
				   users[0] ? " by " : "", users);
		} else if (err == EPERM) {
			hcctl_err(mp, "unmounting needs CAP_SYS_ADMIN", err);
		} else {
			hcctl_err(mp, "cannot unmount", err);
		}
		return HC_EXIT_FAIL;
	}
	if (hcctl_opt_json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "mountpoint", json_object_new_string(mp));
		json_object_object_add(o, "lazy", json_object_new_boolean(lazy));
		hcctl_json_print(o, false);
		json_object_put(o);
	} else {
		printf("unmounted %s%s\n", mp, lazy ? " (lazily: open files keep it until closed)" : "");
	}
	return HC_EXIT_OK;
}

/* --- the command table (main.c lists the groups) ---------------------- */

const struct hcctl_cmd hcctl_mount_cmds[] = {
{
	.name = "mount",
	.summary = "mount the running pool's file system view",
	.synopsis = "[--uid USER] [--gid GROUP] [--mode MODE] [--ingest on|off] [--ingest-timeout S] [--ro] [--json] [MOUNTPOINT]",
	.handler = hcctl_cmd_mount,
	.help =
"DESCRIPTION\n"
"    Mount the file system view of the running pool (mount -t hypercache,\n"
"    Documentation/fs.md) on MOUNTPOINT, /mnt/hypercache by default, which\n"
"    is created (0755) when it does not exist.  Users and groups may be\n"
"    given by name; without --gid the files belong to the group\n"
"    'hypercache' when it exists (else root), so that only root and that\n"
"    group can read them with the default mode 0440.\n"
"\n"
"    Refused, with the reason named, when the module is not loaded or no\n"
"    pool is running (ENODEV), when the pool is already mounted (EBUSY,\n"
"    naming where: one mount per pool; a bind mount of it is fine), when\n"
"    MOUNTPOINT is not a directory (ENOTDIR), and without CAP_SYS_ADMIN\n"
"    (EPERM).  The pool cannot stop while it is mounted.\n"
"\n"
"OPTIONS\n"
"    -u, --uid USER\n"
"        Owner of every file and directory (name or number; default root).\n"
"\n"
"    -g, --gid GROUP\n"
"        Group of every file and directory (name or number; default the\n"
"        group 'hypercache' if it exists, else root).\n"
"\n"
"    -m, --mode MODE\n"
"        Octal permission bits of the files, at most 0777 (default 0440);\n"
"        directories get x wherever r is set.\n"
"\n"
"    -i, --ingest on|off\n"
"        on: opening a path that is not cached asks the ingest helper to\n"
"        fetch it, and waits (default off: ENOENT).\n"
"\n"
"    -t, --ingest-timeout S\n"
"        With --ingest on, how long such an open waits, 1..3600 seconds\n"
"        (default 30).\n"
"\n"
"    -r, --ro\n"
"        Read-only: every create, write, unlink is EROFS.\n"
"\n"
"    -j, --json\n"
"        Print {\"mountpoint\":P,\"uid\":U,\"gid\":G,\"mode\":\"0440\",\n"
"        \"ingest\":false,\"ingest_timeout\":30,\"read_only\":false,\n"
"        \"created\":false} (created: the mount point was made).\n"
"\n"
HCCTL_HELP_OPT_TEXT
"\n"
HCCTL_EXIT_STATUS_TEXT
"\n"
"EXAMPLES\n"
"    hcctl mount\n"
"    hcctl mount --gid training --ingest on /mnt/models\n"
"    # /etc/fstab (names through mount.hypercache(8), which mount runs)\n"
"    hypercache  /mnt/hypercache  hypercache  gid=hypercache,nofail  0 0\n",
},
{
	.name = "umount",
	.summary = "unmount the pool's file system view",
	.synopsis = "[--lazy] [--json] [MOUNTPOINT]",
	.handler = hcctl_cmd_umount,
	.help =
"DESCRIPTION\n"
"    Unmount the pool's file system view: the mount at MOUNTPOINT (which\n"
"    must be one), or without it the only one there is.  While files of\n"
"    the view are open or mapped the unmount is refused (EBUSY) and the\n"
"    processes holding them are named (PID and command, from /proc).  A\n"
"    MOUNTPOINT that is not a mount of the view is EINVAL; with the view\n"
"    mounted in several places (bind mounts), MOUNTPOINT is required.\n"
"\n"
"OPTIONS\n"
"    -l, --lazy\n"
"        Detach the mount now (MNT_DETACH); it goes when its last open\n"
"        file is closed, and the pool can stop only then.\n"
"\n"
"    -j, --json\n"
"        Print {\"mountpoint\":P,\"lazy\":false}.\n"
"\n"
HCCTL_HELP_OPT_TEXT
"\n"
HCCTL_EXIT_STATUS_TEXT,
},
{ .name = NULL }
};
