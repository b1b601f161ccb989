// SPDX-License-Identifier: GPL-2.0
/*
 * URI <-> path of the file system view (see fspath.h).
 */
#include "fspath.h"

static const u8 hc_fspath_sep[] = "://";

/**
 * hc_fspath_name_ok - may @name be one component of a path?
 * @name: bytes
 * @len: their number
 *
 * Return: true for 1..HC_FSPATH_NAME_MAX bytes without '/' or NUL that are
 * not "." or "..".  Any other byte (control, non-UTF-8) is kept as it is,
 * as on any Linux file system.
 */
bool hc_fspath_name_ok(const u8 *name, u32 len)
{
	u32 i;

	if (!len || len > HC_FSPATH_NAME_MAX)
		return false;
	if (name[0] == '.' && (len == 1 || (len == 2 && name[1] == '.')))
		return false;
	for (i = 0; i < len; i++)
		if (name[i] == '/' || name[i] == '\0')
			return false;
	return true;
}

/**
 * hc_fspath_scheme_ok - is @name a URI scheme (RFC 3986: ALPHA *( ALPHA /
 * DIGIT / "+" / "-" / "." ))?
 * @name: bytes
 * @len: their number
 *
 * Return: true if so and it is a valid name (so "." and ".." are not).
 */
bool hc_fspath_scheme_ok(const u8 *name, u32 len)
{
	u32 i;

	if (!hc_fspath_name_ok(name, len))
		return false;
	for (i = 0; i < len; i++) {
		u8 ch = name[i] | 0x20;		/* lower case for letters */
		bool alpha = ch >= 'a' && ch <= 'z';

		if (alpha)
			continue;
		if (!i)
			return false;
		if (!(name[i] >= '0' && name[i] <= '9') && name[i] != '+' &&
		    name[i] != '-' && name[i] != '.')
			return false;
	}
	return true;
}

/**
 * hc_fspath_child - the URI of a name in a directory
 * @dir: the directory's URI prefix ("" for the root)
 * @dlen: its bytes
 * @name: the name (a path component)
 * @nlen: its bytes
 * @is_dir: build the child directory's prefix, not a file's URI
 * @out: the result (not NUL-terminated)
 * @cap: bytes available at @out
 *
 * Return: the result's length; -ENOENT if @name cannot be in @dir (not a
 * clean name, not a scheme in the root, a file in the root); -ENAMETOOLONG
 * if the result is longer than @cap or than a URI may be.
 */
int hc_fspath_child(const u8 *dir, u32 dlen, const u8 *name, u32 nlen,
		    bool is_dir, u8 *out, u32 cap)
{
	u32 sep = dlen ? (is_dir ? 1 : 0) : 3;
	u64 len = (u64)dlen + nlen + sep;

	if (!hc_fspath_name_ok(name, nlen))
		return -ENOENT;
	if (!dlen && (!is_dir || !hc_fspath_scheme_ok(name, nlen)))
		return -ENOENT;
	if (len > cap || len > HC_FSPATH_URI_MAX)
		return -ENAMETOOLONG;
	if (dlen)
		memcpy(out, dir, dlen);
	memcpy(out + dlen, name, nlen);
	memcpy(out + dlen + nlen, dlen ? (const u8 *)"/" : hc_fspath_sep, sep);
	return (int)len;
}

/* The first @c in @s[from, len), or len. */
static u32 hc_fspath_find(const u8 *s, u32 from, u32 len, u8 c)
{
	while (from < len && s[from] != c)
		from++;
	return from;
}

/**
 * hc_fspath_entry - the entry a URI gives the listing of a directory
 * @dir: the directory's URI prefix ("" for the root)
 * @dlen: its bytes
 * @uri: a URI that starts with @dir
 * @ulen: its bytes
 * @ent: filled in every case, so that the caller can skip the entry
 *
 * Return: 0 if the entry is shown (a clean name; in the root a scheme
 * followed by "://"); -EINVAL if it is not shown (@ent still says how to
 * skip what lies below it).
 */
int hc_fspath_entry(const u8 *dir, u32 dlen, const u8 *uri, u32 ulen,
		    struct hc_fspath_ent *ent)
{
	u32 end;

	ent->name_off = dlen;
	ent->is_dir = false;
	ent->skip_len = 0;
	if (ulen < dlen || (dlen && memcmp(uri, dir, dlen))) {
		ent->name_len = 0;
		return -EINVAL;
	}
	if (!dlen) {
		/* The root: SCHEME:// only (a URI without one is hidden). */
		end = hc_fspath_find(uri, 0, ulen, ':');
		ent->name_len = end;
		if (ulen - end < 3 || memcmp(uri + end, hc_fspath_sep, 3))
			return -EINVAL;
		ent->is_dir = true;
		ent->skip_len = end + 3;
		return hc_fspath_scheme_ok(uri, end) ? 0 : -EINVAL;
	}
	end = hc_fspath_find(uri, dlen, ulen, '/');
	ent->name_len = end - dlen;
	if (end < ulen) {
		ent->is_dir = true;
		ent->skip_len = end + 1;
	}
	return hc_fspath_name_ok(uri + dlen, end - dlen) ? 0 : -EINVAL;
}

/**
 * hc_fspath_skip_key - where a listing goes on after an entry
 * @uri: the URI hc_fspath_entry() was given
 * @ent: what it returned
 * @key: at least @ent->skip_len bytes
 *
 * Return: the length of the key written to @key: the first URI >= it comes
 * next.  0: none is written, the first URI > @uri comes next.
 */
u32 hc_fspath_skip_key(const u8 *uri, const struct hc_fspath_ent *ent,
		       u8 *key)
{
	if (!ent->skip_len)
		return 0;
	memcpy(key, uri, ent->skip_len);
	key[ent->skip_len - 1] = '0';	/* '/' + 1: past the subtree */
	return ent->skip_len;
}
