/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The file system view's namespace: URI <-> path (Documentation/fs.md).
 *
 * A URI SCHEME://REST is the path SCHEME/REST: the first "://" becomes one
 * "/", nothing else changes.  A directory is a URI prefix: the root is "",
 * a scheme directory "SCHEME://", any other "SCHEME://A/B/".  A URI is
 * shown only where every component on its path is a clean name
 * (hc_fspath_name_ok(); the scheme also hc_fspath_scheme_ok()), so no
 * path can leave the mount and distinct URIs give distinct paths.
 *
 * Pure code (core): never blocks, never allocates, takes no lock.
 */
#ifndef HC_FSPATH_H
#define HC_FSPATH_H

#include "core.h"

#define HC_FSPATH_NAME_MAX	255	/* a component's bytes (NAME_MAX) */
#define HC_FSPATH_URI_MAX	1024	/* a URI's bytes (HC_URI_MAX) */

bool hc_fspath_name_ok(const u8 *name, u32 len);
bool hc_fspath_scheme_ok(const u8 *name, u32 len);
int hc_fspath_child(const u8 *dir, u32 dlen, const u8 *name, u32 nlen,
		    bool is_dir, u8 *out, u32 cap);

/**
 * struct hc_fspath_ent - what one URI contributes to a directory listing
 * @name_off: offset in the URI of the entry's name
 * @name_len: its bytes
 * @is_dir: the name is a directory (the URI continues below it)
 * @skip_len: the next URI to look at is the first one greater than every
 *	URI of this entry: for a directory, the first one >= the URI's first
 *	@skip_len bytes with the last of them ('/') raised to '0'; for a
 *	file (@skip_len == 0), the first one > the URI
 */
struct hc_fspath_ent {
	u32 name_off;
	u32 name_len;
	bool is_dir;
	u32 skip_len;
};

int hc_fspath_entry(const u8 *dir, u32 dlen, const u8 *uri, u32 ulen,
		    struct hc_fspath_ent *ent);
u32 hc_fspath_skip_key(const u8 *uri, const struct hc_fspath_ent *ent,
		       u8 *key);

#endif /* HC_FSPATH_H */
