/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hcctl - the object cache control device /dev/hypercache-ctl and its
 * ioctls (uapi/hypercache.h).
 */
#ifndef HCCTL_CTL_H
#define HCCTL_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hypercache.h"

#define HC_CTL_PATH	"/dev/" HC_CTL_NAME
/* v1 has one pool per host; extents are offsets in this device. */
#define HC_DATA_PATH	"/dev/hypercache0"

/* A URI as given on the command line: opaque bytes, and a printable form. */
struct hcctl_uri {
	const char *bytes;
	uint32_t len;
	char *shown;		/* hcctl_uri_escape() of the bytes */
};

struct hcctl_cmd;

/*
 * Take the command-line word @arg as a URI (its bytes as given).  An empty
 * one or one longer than HC_URI_MAX is a usage error: returns HC_EXIT_USAGE
 * after printing it; HC_EXIT_FAIL if out of memory; else -1 (go on).
 */
int hcctl_uri_arg(const struct hcctl_cmd *cmd, const char *arg, struct hcctl_uri *uri);
void hcctl_uri_free(struct hcctl_uri *uri);

/*
 * A printable copy of @len URI bytes (malloc'd, NUL-terminated): printable
 * ASCII (0x20..0x7e) other than the backslash as it is, every other byte,
 * the backslash included, as \xNN (two lowercase hex digits).  NULL if out
 * of memory.
 */
char *hcctl_uri_escape(const void *bytes, size_t len);

/*
 * Open /dev/hypercache-ctl (read-write if @write, else read-only).  Returns
 * the fd, or -1 after printing a diagnostic naming @object.
 */
int hcctl_ctl_open(const char *object, bool write);
/* The message of hcctl_ctl_open() failing with errno @e. */
void hcctl_ctl_open_report(const char *object, bool write, int e);

/*
 * The ioctls.  Each fills in size (and the URI), issues the ioctl and
 * returns 0 or -errno.  Output fields are left in the caller's struct.
 */
int hcctl_ctl_locate(int fd, const struct hcctl_uri *uri, uint32_t flags,
		  struct hc_extent *ext, uint32_t max_ext,
		  struct hc_chunk_loc *layout, uint32_t max_layout,
		  struct hc_locate *out);
/* The same with HC_LOCATE_F_WAIT's timeout (milliseconds, 0 = no limit). */
int hcctl_ctl_locate_wait(int fd, const struct hcctl_uri *uri, uint32_t flags,
		       uint32_t timeout_ms, struct hc_extent *ext,
		       uint32_t max_ext, struct hc_locate *out);
int hcctl_ctl_release(int fd, const struct hcctl_uri *uri);
int hcctl_ctl_stage(int fd, const struct hcctl_uri *uri, uint32_t flags,
		 uint64_t obj_size, struct hc_extent *ext, uint32_t max_ext,
		 struct hc_stage *out);
int hcctl_ctl_commit(int fd, const struct hcctl_uri *uri, uint32_t flags,
		  uint32_t crc32c, struct hc_commit *out);
int hcctl_ctl_abort(int fd, const struct hcctl_uri *uri);
int hcctl_ctl_pin(int fd, const struct hcctl_uri *uri);
int hcctl_ctl_unpin(int fd, const struct hcctl_uri *uri);
int hcctl_ctl_evict(int fd, const struct hcctl_uri *uri);
int hcctl_ctl_stat(int fd, struct hc_stats *out);

/*
 * Report a failed ioctl @op ("LOCATE", ...) on stderr with the reason the
 * errno contract of uapi/hypercache.h gives to @err (a positive errno):
 *   hcctl: <object>: <reason>: <strerror>
 */
void hcctl_ctl_report(const char *object, const char *op, int err);
/* The reason hcctl_ctl_report() would print, into @buf. */
void hcctl_ctl_reason(const char *op, int err, char *buf, size_t len);

/* Why an object could not be fetched: hcctl_err(uri, reason, errnum). */
struct hcctl_fetch_err {
	int errnum;		/* a positive errno, or 0 */
	char reason[160];
};

/*
 * hcctl_obj_fetch() (object.c) - LOCATE @uri with @flags, as 'get' and
 * 'preload' do: with HC_LOCATE_F_AUTO_INGEST | HC_LOCATE_F_WAIT a miss
 * asks the helper to fetch the object and waits up to @timeout_s seconds
 * (0 = until interrupted).  Returns 0 when the status is HC_LOCATE_HIT
 * (@l filled, @ext too if not NULL), else -1 with why in @e; prints
 * nothing, so threads may call it.
 */
int hcctl_obj_fetch(int ctl, const struct hcctl_uri *uri, uint32_t flags,
		 unsigned long timeout_s, struct hc_extent *ext,
		 uint32_t max_ext, struct hc_locate *l, struct hcctl_fetch_err *e);

#endif /* HCCTL_CTL_H */
