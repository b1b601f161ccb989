// SPDX-License-Identifier: GPL-2.0
/*
 * hypercache.ko: a striped, crash-safe cache tier on local NVMe drives.
 *
 * Init registers the block major and then the netlink family (which makes
 * the module reachable); exit undoes that in reverse and stops a running
 * pool in between.  The module cannot be unloaded while /dev/hypercache0 is
 * open (the disk's fops hold a module reference).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/rcupdate.h>
#include <net/genetlink.h>
#include "hypercache.h"
#include "../uapi/hypercache_netlink.h"

static int __init hc_init(void)
{
	int err;

	err = hc_cache_slab_init();
	if (err)
		return err;
	err = hc_disk_register();
	if (err)
		goto out_slab;
	err = hc_ctl_register();
	if (err)
		goto out_disk;
	err = hc_nl_register();
	if (err)
		goto out_ctl;
	err = hc_fs_register();
	if (err)
		goto out_nl;
	hc_debugfs_init();
	pr_info("loaded (format v%u, netlink family \"%s\" v%u)\n",
		HC_SB_VERSION, HC_GENL_NAME, HC_GENL_VERSION);
	return 0;

out_nl:
	hc_nl_unregister();
out_ctl:
	hc_ctl_unregister();
out_disk:
	hc_disk_unregister();
out_slab:
	hc_cache_slab_exit();
	return err;
}

static void __exit hc_exit(void)
{
	struct hc_pool_fail fail;

	hc_debugfs_exit();
	hc_fs_unregister();
	hc_nl_unregister();
	hc_pool_stop(true, &fail);	/* -ENODEV when none runs: fine */
	rcu_barrier();			/* objects freed after a grace period */
	hc_nl_egress_stop();
	hc_nl_ingest_stop();
	hc_ctl_unregister();
	hc_disk_unregister();
	hc_cache_slab_exit();	/* after rcu_barrier(): no object left */
}

module_init(hc_init);
module_exit(hc_exit);

MODULE_DESCRIPTION("HyperCache: striped NVMe cache tier for object storage");
MODULE_AUTHOR("The HyperCache authors");
MODULE_LICENSE("GPL");
MODULE_ALIAS_GENL_FAMILY(HC_GENL_NAME);
