// SPDX-License-Identifier: GPL-2.0
/*
 * hcctl's S3 client, loaded on first use.
 *
 * The S3 client (helper/lib/s3.c and what only it needs: s3xml.c, sigv4.c,
 * retry.c, libcurl, libxml2) is built position-independent into the
 * private plugin hcctl-s3.so, so that the verbs that never talk to S3 (all
 * but dataset flush/restore to S3, preload-batch's S3 listing and bench
 * --s3-endpoint) do not load libcurl and libxml2 and their ~30 libraries
 * at every start.  hypercached links the same client statically.
 *
 * This file defines every hcs3_*() of s3.h as a trampoline into the
 * plugin, so the callers are those of the static client.  The plugin is
 * looked for at, in order:
 *   $HCCTL_S3_PLUGIN              when set and not empty (only there)
 *   DIR/hcctl-s3.so               DIR the directory of /proc/self/exe
 *                                 (the build tree, the guest's /hc/bin)
 *   HCCTL_S3_PLUGIN_DIR/hcctl-s3.so  the install path (PLUGINDIR)
 * and dlopen()ed RTLD_NOW | RTLD_LOCAL once per process, by the first call
 * (thread-safe).  When it cannot be loaded, every call that reports errors
 * fails with -ELIBACC and "S3 client plugin PATH cannot be loaded: REASON"
 * in @err (hcctl exits 1); calls without an error report are given a
 * client only the plugin can have made, and so do nothing for NULL.
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "s3.h"
#include "util.h"

#ifndef HCCTL_S3_PLUGIN_DIR
#define HCCTL_S3_PLUGIN_DIR "/usr/local/lib/hypercache"
#endif
#define S3LOAD_NAME "hcctl-s3.so"

/* Every function of s3.h: its pointer in the plugin is looked up by name. */
#define S3LOAD_SYMS(X) \
	X(hcs3_new) X(hcs3_free) X(hcs3_get_stats) X(hcs3_retry_after_ms) \
	X(hcs3_url) X(hcs3_head) X(hcs3_get_range) X(hcs3_list) X(hcs3_put) \
	X(hcs3_delete) X(hcs3_mpu_create) X(hcs3_mpu_part) \
	X(hcs3_mpu_complete) X(hcs3_mpu_abort) X(hcs3_mpu_list) \
	X(hc_creds_lookup) X(hc_creds_release)

static struct {
#define S3LOAD_MEMBER(name) __typeof__(name) *name;
	S3LOAD_SYMS(S3LOAD_MEMBER)
#undef S3LOAD_MEMBER
} s3ops;

static pthread_once_t s3load_once = PTHREAD_ONCE_INIT;
static int s3load_ret = -ELIBACC;	/* 0 once every symbol is resolved */
static char s3load_msg[PATH_MAX + 512];

/* The plugin's path (see the top of the file) into @buf. */
static void s3load_path(char *buf, size_t len)
{
	const char *env = getenv("HCCTL_S3_PLUGIN");
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;

	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			if ((size_t)snprintf(buf, len, "%s/%s", exe, S3LOAD_NAME) < len &&
			    access(buf, F_OK) == 0)
				return;
		}
	}
	snprintf(buf, len, "%s/%s", HCCTL_S3_PLUGIN_DIR, S3LOAD_NAME);
}

static void s3load_init(void)
{
	char path[PATH_MAX];
	const char *e;
	void *h, *p;

	s3load_path(path, sizeof(path));
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		e = dlerror();
		snprintf(s3load_msg, sizeof(s3load_msg),
			 "S3 client plugin %s cannot be loaded: %s", path,
			 e ? e : "unknown error");
		return;
	}
#define S3LOAD_RESOLVE(name)						\
	do {								\
		dlerror();						\
		p = dlsym(h, #name);					\
		if (!p) {						\
			e = dlerror();					\
			snprintf(s3load_msg, sizeof(s3load_msg),	\
				 "S3 client plugin %s cannot be loaded: no %s (%s)", \
				 path, #name, e ? e : "null symbol");	\
			memset(&s3ops, 0, sizeof(s3ops));		\
			dlclose(h);					\
			return;						\
		}							\
		memcpy(&s3ops.name, &p, sizeof(p));			\
	} while (0);
	S3LOAD_SYMS(S3LOAD_RESOLVE)
#undef S3LOAD_RESOLVE
	s3load_ret = 0;	/* the handle stays open until the process exits */
}

/* 0 with the plugin loaded, or -ELIBACC with the reason in @err. */
static int s3load(char *err, size_t errlen)
{
	pthread_once(&s3load_once, s3load_init);
	if (s3load_ret)
		return hc_seterr(err, errlen, s3load_ret, "%s", s3load_msg);
	return 0;
}

int hcs3_new(const struct hc_backend *b, const struct hc_creds *creds,
	     const struct hcs3_opts *opts, struct hcs3 **out,
	     char *err, size_t errlen)
{
	int ret = s3load(err, errlen);

	if (ret) {
		*out = NULL;
		return ret;
	}
	return s3ops.hcs3_new(b, creds, opts, out, err, errlen);
}

/* A non-NULL client was made by the plugin's hcs3_new(): it is loaded. */
void hcs3_free(struct hcs3 *c)
{
	if (c && !s3load(NULL, 0))
		s3ops.hcs3_free(c);
}

void hcs3_get_stats(const struct hcs3 *c, struct hcs3_stats *out)
{
	if (c && !s3load(NULL, 0))
		s3ops.hcs3_get_stats(c, out);
	else
		memset(out, 0, sizeof(*out));
}

uint64_t hcs3_retry_after_ms(const struct hcs3 *c)
{
	return c && !s3load(NULL, 0) ? s3ops.hcs3_retry_after_ms(c) : 0;
}

char *hcs3_url(const struct hcs3 *c, const char *bucket, const char *key)
{
	if (!c || s3load(NULL, 0)) {
		errno = ELIBACC;
		return NULL;
	}
	return s3ops.hcs3_url(c, bucket, key);
}

int hcs3_head(struct hcs3 *c, const char *bucket, const char *key,
	      struct hcs3_object *out, char *err, size_t errlen)
{
	return s3load(err, errlen) ? :
	       s3ops.hcs3_head(c, bucket, key, out, err, errlen);
}

int hcs3_get_range(struct hcs3 *c, const char *bucket, const char *key,
		   uint64_t off, size_t len, const char *if_match, void *buf,
		   char *err, size_t errlen)
{
	return s3load(err, errlen) ? :
	       s3ops.hcs3_get_range(c, bucket, key, off, len, if_match, buf,
				    err, errlen);
}

int hcs3_list(struct hcs3 *c, const char *bucket, const char *prefix,
	      s3xml_list_cb cb, void *arg, char *err, size_t errlen)
{
	return s3load(err, errlen) ? :
	       s3ops.hcs3_list(c, bucket, prefix, cb, arg, err, errlen);
}

int hcs3_put(struct hcs3 *c, const char *bucket, const char *key,
	     const void *buf, size_t len, char etag_out[HCS3_ETAG_MAX + 1],
	     char *err, size_t errlen)
{
	return s3load(err, errlen) ? :
	       s3ops.hcs3_put(c, bucket, key, buf, len, etag_out, err, errlen);
}

int hcs3_delete(struct hcs3 *c, const char *bucket, const char *key,
		char *err, size_t errlen)
{
	return s3load(err, errlen) ? :
	       s3ops.hcs3_delete(c, bucket, key, err, errlen);
}

int hcs3_mpu_create(struct hcs3 *c, const char *bucket, const char *key,
		    char upload_id[HCS3_UPLOAD_ID_MAX + 1],
		    char *err, size_t errlen)
{
	return s3load(err, errlen) ? :
	       s3ops.hcs3_mpu_create(c, bucket, key, upload_id, err, errlen);
}

int hcs3_mpu_part(struct hcs3 *c, const char *bucket, const char *key,
		  const char *upload_id, unsigned int part_no,
		  const void *buf, size_t len,
		  char etag_out[HCS3_ETAG_MAX + 1], char *err, size_t errlen)
{
	return s3load(err, errlen) ? :
	       s3ops.hcs3_mpu_part(c, bucket, key, upload_id, part_no, buf,
				   len, etag_out, err, errlen);
}

int hcs3_mpu_complete(struct hcs3 *c, const char *bucket, const char *key,
		      const char *upload_id, unsigned int nr_parts,
		      char (*const part_etags)[HCS3_ETAG_MAX + 1],
		      char etag_out[HCS3_ETAG_MAX + 1],
		      char *err, size_t errlen)
{
	return s3load(err, errlen) ? :
	       s3ops.hcs3_mpu_complete(c, bucket, key, upload_id, nr_parts,
				       part_etags, etag_out, err, errlen);
}

int hcs3_mpu_abort(struct hcs3 *c, const char *bucket, const char *key,
		   const char *upload_id, char *err, size_t errlen)
{
	return s3load(err, errlen) ? :
	       s3ops.hcs3_mpu_abort(c, bucket, key, upload_id, err, errlen);
}

int hcs3_mpu_list(struct hcs3 *c, const char *bucket, const char *prefix,
		  hcs3_mpu_cb cb, void *arg, char *err, size_t errlen)
{
	return s3load(err, errlen) ? :
	       s3ops.hcs3_mpu_list(c, bucket, prefix, cb, arg, err, errlen);
}

/* The credential chain (cred.h) lives in the plugin: it needs libcurl. */
int hc_creds_lookup(const struct hc_backend *b, char *const envp[],
		    const char *home, struct hc_creds *out,
		    char *err, size_t errlen)
{
	int ret = s3load(err, errlen);

	if (ret) {
		memset(out, 0, sizeof(*out));
		return ret;
	}
	return s3ops.hc_creds_lookup(b, envp, home, out, err, errlen);
}

/* A result with a provider was made by the plugin: it is loaded. */
void hc_creds_release(struct hc_creds *c)
{
	if (c->provider && !s3load(NULL, 0))
		s3ops.hc_creds_release(c);
	else
		explicit_bzero(c, sizeof(*c));
}
