// SPDX-License-Identifier: GPL-2.0
/*
 * The file system view's mount options (helper/lib/mntopt.c), shared by
 * hcctl mount and mount.hypercache: names and numbers, each value's
 * range, the generic flags, mount(8)'s own options ignored, unknown ones
 * refused unless sloppy, and the kernel's data string.  Uses the host's
 * "root" user and group (uid and gid 0).
 */
#include <errno.h>
#include <sys/mount.h>
#include "kselftest_harness.h"
#include "mntopt.h"

#define PARSE(o, list, sloppy) \
	hc_mntopt_parse(o, list, sloppy, bad, sizeof(bad), why, sizeof(why))

TEST(names_numbers_data)
{
	char data[HC_MNT_DATA_MAX], why[80], bad[64];
	struct hc_mntopt o;

	hc_mntopt_init(&o);
	ASSERT_EQ(0, PARSE(&o, "uid=root,gid=4242,mode=0444,ingest=on,ingest_timeout=7,nofail,x-systemd.automount,ro,noatime", false));
	EXPECT_EQ(0u, o.uid);
	EXPECT_EQ(4242u, o.gid);
	EXPECT_EQ(MS_RDONLY | MS_NOATIME, o.flags);
	ASSERT_EQ(0, hc_mntopt_data(&o, data, sizeof(data), why, sizeof(why)));
	EXPECT_STREQ("uid=0,gid=4242,mode=0444,ingest=on,ingest_timeout=7", data);
	/* rw after ro clears it; a group by name */
	hc_mntopt_init(&o);
	ASSERT_EQ(0, PARSE(&o, "ro,rw,gid=root,defaults", false));
	EXPECT_EQ(0u, o.flags);
	EXPECT_TRUE(o.gid_set);
	ASSERT_EQ(0, hc_mntopt_data(&o, data, sizeof(data), why, sizeof(why)));
	EXPECT_STREQ("uid=0,gid=0,mode=0440,ingest=off", data);
	/* an empty list: the defaults */
	hc_mntopt_init(&o);
	ASSERT_EQ(0, PARSE(&o, "", false));
	EXPECT_EQ(0440u, o.mode);
}

TEST(bad_values_name_the_option)
{
	static const struct {
		const char *list, *bad, *why;
		int err;
	} cases[] = {
		{ "gid=nosuchgroup-hc", "gid=nosuchgroup-hc", "no such group", -ENOENT },
		{ "mode=0440,uid=nosuchuser-hc", "uid=nosuchuser-hc", "no such user", -ENOENT },
		{ "gid=", "gid=", "a group name or number", -EINVAL },
		{ "gid", "gid", "a group name or number", -EINVAL },
		{ "mode=01777", "mode=01777", "octal permission bits, 0..0777", -EINVAL },
		{ "mode=8", "mode=8", "octal permission bits, 0..0777", -EINVAL },
		{ "mode=-1", "mode=-1", "octal permission bits, 0..0777", -EINVAL },
		{ "ingest=yes", "ingest=yes", "on or off", -EINVAL },
		{ "ingest_timeout=0", "ingest_timeout=0", "1..3600 seconds", -EINVAL },
		{ "ingest_timeout=3601", "ingest_timeout=3601", "1..3600 seconds", -EINVAL },
		{ "ingest_timeout=5s", "ingest_timeout=5s", "1..3600 seconds", -EINVAL },
		{ "ro,size=1G", "size=1G", "unknown option", -EINVAL },
	};
	char why[80], bad[64];
	struct hc_mntopt o;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		hc_mntopt_init(&o);
		EXPECT_EQ(cases[i].err, PARSE(&o, cases[i].list, false));
		EXPECT_STREQ(cases[i].bad, bad);
		EXPECT_STREQ(cases[i].why, why);
	}
}

TEST(sloppy_and_combinations)
{
	char data[HC_MNT_DATA_MAX], why[80], bad[64];
	struct hc_mntopt o;

	hc_mntopt_init(&o);
	ASSERT_EQ(0, PARSE(&o, "size=1G,gid=7", true));
	EXPECT_EQ(7u, o.gid);
	/* sloppy does not excuse a bad value of a known option */
	hc_mntopt_init(&o);
	EXPECT_EQ(-EINVAL, PARSE(&o, "mode=abc", true));
	/* ingest_timeout needs ingest=on */
	hc_mntopt_init(&o);
	ASSERT_EQ(0, PARSE(&o, "ingest_timeout=9", false));
	EXPECT_EQ(-EINVAL, hc_mntopt_data(&o, data, sizeof(data), why, sizeof(why)));
	EXPECT_STREQ("ingest_timeout needs ingest=on", why);
	/* hc_mntopt_set() of something else is 0: not one of the view's */
	hc_mntopt_init(&o);
	EXPECT_EQ(0, hc_mntopt_set(&o, "size", "1", why, sizeof(why)));
	EXPECT_EQ(1, hc_mntopt_set(&o, "uid", "12", why, sizeof(why)));
	EXPECT_EQ(12u, o.uid);
}

TEST_HARNESS_MAIN
