/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/* libhypercache's internals shared by its files (not installed). */
#ifndef HCL_INTERNAL_H
#define HCL_INTERNAL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define HCL_DEFAULT_CTL		"/dev/" HC_CTL_NAME
#define HCL_DEFAULT_DEV		"/dev/hypercache0"
#define HCL_BOUNCE		(1U << 20)	/* bounce buffer per call */
#define HCL_ERR_MAX		256
#define HCL_EXPORT		__attribute__((visibility("default")))

/* The context: see hc_ctx_open(). */
struct hc_ctx {
	int ctl;		/* /dev/hypercache-ctl */
	int ctl_writable;
	int dev_direct;		/* /dev/hypercacheN, O_RDONLY | O_DIRECT */
	int dev_map;		/* the same, buffered (mmap) */
	int dev_write;		/* O_WRONLY | O_DIRECT, opened by the first writer */
	pthread_mutex_t lock;	/* dev_write */
	char *dev_path;
	uint32_t chunk_size;
	uint32_t members;
	unsigned int align;	/* logical block size, at least 512 */
	int dev_err;		/* the device could not be opened (EACCES): readers and writers fail with it */
};

struct nlattr;
struct hc_lib_object;

/* One attribute of an HC_CMD_OBJ_GET reply into @o (index.c). */
void hcl_obj_attr(struct hc_lib_object *o, const struct nlattr *a);

/* 0, or -EINVAL / -E2BIG (with a message in @err) as the kernel would. */
int hcl_check_uri(const void *uri, size_t len, char *err, size_t errlen);

#endif /* HCL_INTERNAL_H */
