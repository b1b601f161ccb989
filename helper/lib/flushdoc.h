/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SCR-style dataset flush: the documents HyperCache keeps in the backend
 * beside a dataset, and the decisions of a flush and of a restore.  Pure:
 * no I/O, no clock (times are passed in), thread-safe; JSON with json-c.
 * Documentation/flush.md describes the layout and the procedure.
 *
 * A dataset is a URI prefix ending in '/', e.g. s3://bkt/ckpt/run1/step-100/;
 * its parent is s3://bkt/ckpt/run1/ and its name step-100.  In the backend:
 *
 *   PARENT/NAME/KEY                      the files (same keys as cached)
 *   PARENT/NAME/.hypercache/summary.json the summary, written after the files
 *   PARENT/.hypercache/index.json        the index of the parent's datasets
 *   PARENT/.hypercache/flushing/NAME     the FLUSHING marker
 *
 * Functions return 0 or a negative errno with a message in @err (may be
 * NULL; truncated to @errlen): -EINVAL for a document that does not parse
 * or misses a field, -ENOMEM.
 */
#ifndef HC_FLUSHDOC_H
#define HC_FLUSHDOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HCF_FORMAT		1
#define HCF_DIR			".hypercache/"	/* reserved key prefix */
#define HCF_SUMMARY_KEY		".hypercache/summary.json"	/* in NAME/ */
#define HCF_INDEX_KEY		".hypercache/index.json"	/* in PARENT/ */
#define HCF_MARKER_DIR		".hypercache/flushing/"		/* in PARENT/ */
#define HCF_NAME_MAX		255

/* One file of a dataset: its key relative to the dataset's prefix. */
struct hcf_file {
	char *key;
	uint64_t size;
	uint32_t crc32;		/* zlib's crc32() of the bytes */
	uint64_t generation;	/* the cached object's when it was flushed */
};

/* PREFIX/.hypercache/summary.json */
struct hcf_summary {
	char name[HCF_NAME_MAX + 1];
	int64_t time;		/* seconds since the epoch, when written */
	uint64_t bytes;
	bool complete;
	struct hcf_file *files;	/* sorted by key (hcf_summary_sort) */
	size_t nfiles;
};

/* One dataset of PARENT/.hypercache/index.json */
struct hcf_entry {
	char name[HCF_NAME_MAX + 1];
	uint64_t id;		/* order of flushes: a later flush, a larger id */
	bool complete;
	int64_t flushed_at;	/* seconds since the epoch; 0 if never */
	uint64_t bytes;
	uint64_t files;
};

struct hcf_index {
	char current[HCF_NAME_MAX + 1];	/* "" = none */
	struct hcf_entry *v;
	size_t n;
};

/*
 * hcf_split() - split dataset prefix @prefix ("...PARENT/NAME/") into the
 * parent's prefix (its length, in *parent_len) and NAME (copied to @name).
 * -EINVAL unless it ends in '/', has a parent and NAME is 1..HCF_NAME_MAX
 * bytes other than "." and "..".
 */
int hcf_split(const char *prefix, size_t *parent_len,
	      char name[HCF_NAME_MAX + 1], char *err, size_t errlen);

/* hcf_key_ok() - a file key relative to a dataset: not empty, no leading
 * '/', no "." or ".." component, no "//", not under .hypercache/. */
bool hcf_key_ok(const char *key);

/* --- the summary --- */
int hcf_summary_add(struct hcf_summary *s, const char *key, uint64_t size,
		    uint32_t crc32, uint64_t generation);
void hcf_summary_sort(struct hcf_summary *s);
void hcf_summary_free(struct hcf_summary *s);
/* A malloc'd JSON text (NUL-terminated), NULL if out of memory. */
char *hcf_summary_encode(const struct hcf_summary *s);
/*
 * Parse and validate: format, dataset name (must equal @name unless NULL),
 * complete: true, time, files (valid, unique keys, size, crc32 < 2^32),
 * bytes and file_count that agree with the files.  Anything else: -EINVAL.
 */
int hcf_summary_decode(const char *text, size_t len, const char *name,
		       struct hcf_summary *out, char *err, size_t errlen);
/* The file @key of @s, or NULL (@s sorted). */
const struct hcf_file *hcf_summary_find(const struct hcf_summary *s,
					const char *key);
/* Same keys, sizes and generations (both sorted)? */
bool hcf_summary_same_files(const struct hcf_summary *a,
			    const struct hcf_summary *b);

/* --- the index --- */
void hcf_index_free(struct hcf_index *ix);
char *hcf_index_encode(const struct hcf_index *ix);
/* An absent index is an empty one: decode "" (len 0) gives no datasets. */
int hcf_index_decode(const char *text, size_t len, struct hcf_index *out,
		     char *err, size_t errlen);
struct hcf_entry *hcf_index_find(const struct hcf_index *ix, const char *name);
/*
 * hcf_index_publish() - step (d): NAME is complete (@bytes, @files,
 * flushed at @now) and current; it gets a new id, larger than all others.
 * Other entries are kept as they are.
 */
int hcf_index_publish(struct hcf_index *ix, const char *name, int64_t now,
		      uint64_t bytes, uint64_t files);
/*
 * hcf_index_unpublish() - before NAME is flushed again: mark it incomplete;
 * if it was current, the newest other complete dataset becomes current
 * ("" if none).  Returns true if the index changed.
 */
bool hcf_index_unpublish(struct hcf_index *ix, const char *name);

/*
 * hcf_restore_order() - the datasets to try, best first, SCR's way: the
 * current one if complete, then the complete ones with smaller ids, newest
 * first (without a current one: every complete one, newest first).  With
 * @only, just that dataset if it is complete.  Writes at most ix->n
 * indexes into @order; returns how many.
 */
size_t hcf_restore_order(const struct hcf_index *ix, const char *only,
			 size_t *order);
/*
 * hcf_restore_choose() - the first dataset of hcf_restore_order() for
 * which @verify returns 0 (its summary parses, its files verify); the
 * index of its entry, or -1.  @verify is told each refusal's reason.
 */
typedef int (*hcf_verify_fn)(const struct hcf_entry *e, void *arg);
long hcf_restore_choose(const struct hcf_index *ix, const char *only,
			hcf_verify_fn verify, void *arg);

/* --- the FLUSHING marker --- */
char *hcf_marker_encode(const char *name, int64_t now, long pid,
			const char *host);

/* --- a flush's steps --- */
enum hcf_step {
	HCF_STEP_START,		/* nothing done yet */
	HCF_STEP_MARKED,	/* (a) the marker written */
	HCF_STEP_UPLOADED,	/* (b) every file uploaded */
	HCF_STEP_SUMMARY,	/* (c) the summary written */
	HCF_STEP_INDEXED,	/* (d) the index names NAME current */
	HCF_STEP_DONE,		/* (e) the marker removed */
};
const char *hcf_step_name(enum hcf_step s);
/* The step after @s (DONE stays DONE). */
enum hcf_step hcf_step_next(enum hcf_step s);
/*
 * hcf_crash_after() - HC_FLUSH_CRASH_AFTER's value: the step after which a
 * test wants the flush to die (1..5 = a..e), HCF_STEP_START for none or a
 * value that is not 1..5.
 */
enum hcf_step hcf_crash_after(const char *env);

/*
 * What the backend says about dataset NAME, and what is to be done.
 * hcf_plan(): @ix the parent's index, @marker whether the marker exists,
 * @flushed the dataset's summary in the backend (NULL if absent or
 * invalid), @cached the files as they are in the cache now (sorted).
 *   HCF_PLAN_DONE   the index lists NAME complete, its summary has the
 *                   same files, no marker: nothing to do
 *   HCF_PLAN_FLUSH  flush (from step a; a leftover marker means redo)
 */
enum hcf_plan {
	HCF_PLAN_FLUSH,
	HCF_PLAN_DONE,
};
enum hcf_plan hcf_plan(const struct hcf_index *ix, const char *name,
		       bool marker, const struct hcf_summary *flushed,
		       const struct hcf_summary *cached);

/* The state 'hcctl flush --status' reports. */
enum hcf_state {
	HCF_NOT_FLUSHED,
	HCF_FLUSHING,		/* marker present, a flush holds the lock */
	HCF_INTERRUPTED,	/* marker present, nobody holds the lock */
	HCF_FLUSHED,		/* complete in the index, no marker */
};
const char *hcf_state_name(enum hcf_state s);
enum hcf_state hcf_state(const struct hcf_index *ix, const char *name,
			 bool marker, bool locked);

#endif /* HC_FLUSHDOC_H */
