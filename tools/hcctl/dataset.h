/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hcctl - what 'flush' and 'restore' share: a dataset's backend (posix
 * tree or S3, from hypercached's configuration), its documents and files
 * there, and the cached objects under a prefix, read through the cache
 * (LOCATE + O_DIRECT reads of /dev/hypercache0).
 *
 * Functions return 0 or a negative errno with a message in @err.
 */
#ifndef HCCTL_DATASET_H
#define HCCTL_DATASET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "uri.h"

#define DS_ERR_MAX	512

/* The backend of a prefix URI. */
struct ds_backend {
	struct hc_config *cfg;
	const struct hc_backend *b;	/* in cfg */
	char bucket[URI_BUCKET_MAX + 1];	/* s3 only */
	char *key;		/* the prefix's key in the bucket (posix: under ROOT) */
};

/* One client of the backend: one per thread. */
struct ds_client {
	const struct ds_backend *be;
	struct hcs3 *s3;	/* s3 only */
};

struct hc_target;

/*
 * ds_prefix_resolve() - load @cfg from @cfg_path and resolve @prefix (a
 * URI whose key is a prefix) with it into @t (resolve.h).  0, or -1 with
 * the error printed naming the file or the prefix.
 */
int ds_prefix_resolve(const char *prefix, const char *cfg_path,
		      struct hc_config *cfg, struct hc_target *t);

/*
 * ds_backend_open() - the backend that serves @prefix (an s3:// or
 * hypercache:// URI ending in '/') in configuration file @cfg_path.
 * Prints the error naming @prefix.
 */
int ds_backend_open(const char *prefix, const char *cfg_path,
		    struct ds_backend *be);
void ds_backend_close(struct ds_backend *be);

int ds_client_open(const struct ds_backend *be, struct ds_client *c,
		   char *err, size_t errlen);
void ds_client_close(struct ds_client *c);

/* A whole (small) document at @key: malloc'd into *buf, -ENOENT if absent. */
int ds_get_doc(struct ds_client *c, const char *key, char **buf, size_t *len,
	       char *err, size_t errlen);
/* Write it atomically (posix: temp file, fsync, rename, fsync the dir). */
int ds_put_doc(struct ds_client *c, const char *key, const void *buf,
	       size_t len, char *err, size_t errlen);
/* Remove; an absent key is success. */
int ds_delete(struct ds_client *c, const char *key, char *err, size_t errlen);
/* 1 if @key exists, 0 if not, or -errno. */
int ds_exists(struct ds_client *c, const char *key, char *err, size_t errlen);

/* Streaming a file of known size to @key (posix: temp file + rename). */
struct ds_writer;
int ds_writer_open(struct ds_client *c, const char *key, uint64_t size,
		   struct ds_writer **w, char *err, size_t errlen);
int ds_writer_write(struct ds_writer *w, const void *buf, size_t len,
		    char *err, size_t errlen);
/* Commit (the object or file appears), or abort when @ok is false. */
int ds_writer_close(struct ds_writer *w, bool ok, char *err, size_t errlen);

/* Reading a file of the backend in pieces: @cb gets each in order. */
typedef int (*ds_chunk_fn)(const void *buf, size_t len, void *arg);
int ds_read_file(struct ds_client *c, const char *key, uint64_t *size,
		 ds_chunk_fn cb, void *arg, char *err, size_t errlen);

/* --- the cache --- */

struct ds_obj {
	char *uri;
	uint64_t size;
	uint64_t generation;
	uint32_t state;
};

/*
 * ds_cache_list() - the cached objects whose URI starts with @prefix
 * (HC_CMD_OBJ_GET dump), sorted by URI.  Prints errors naming @object.
 */
int ds_cache_list(const char *object, const char *prefix, struct ds_obj **out,
		  size_t *n);
void ds_cache_list_free(struct ds_obj *v, size_t n);

/* A reader of cached objects: its own control fd, device fd and buffer. */
struct ds_cache {
	int ctl;
	int dev;
	unsigned int lbs;
	void *buf;
};

int ds_cache_open(struct ds_cache *c, char *err, size_t errlen);
void ds_cache_close(struct ds_cache *c);
/*
 * ds_cache_read() - LOCATE @uri with HC_LOCATE_F_HOLD | @flags (waiting
 * up to @timeout_s with HC_LOCATE_F_WAIT), read its bytes with O_DIRECT
 * and give them to @cb in order, then RELEASE.  Its size and generation
 * in *size and *gen.
 */
int ds_cache_read(struct ds_cache *c, const char *uri, uint32_t flags,
		  unsigned long timeout_s, uint64_t *size, uint64_t *gen,
		  ds_chunk_fn cb, void *arg, char *err, size_t errlen);
/* Evict @uri from the cache (HC_IOC_EVICT). */
int ds_cache_evict(struct ds_cache *c, const char *uri);

/* --- misc --- */
/* /run/hypercache/flush-HASH.SUFFIX for @what (a prefix; HASH: the first
 * 64 bits of its SHA-256); the directory is made by whoever writes there. */
int ds_run_path(const char *what, const char *suffix, char *out, size_t len);

#endif /* HCCTL_DATASET_H */
