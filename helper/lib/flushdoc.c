// SPDX-License-Identifier: GPL-2.0
/*
 * SCR-style dataset flush: documents and decisions (flushdoc.h).  Pure.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "flushdoc.h"
#include "util.h"


static bool name_ok(const char *name, size_t len)
{
	if (!len || len > HCF_NAME_MAX || memchr(name, '/', len))
		return false;
	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return false;
	return !memchr(name, 0, len);
}

int hcf_split(const char *prefix, size_t *parent_len,
	      char name[HCF_NAME_MAX + 1], char *err, size_t errlen)
{
	size_t len = strlen(prefix), i;

	if (len < 2 || prefix[len - 1] != '/')
		return hc_seterr(err, errlen, -EINVAL,
			    "a dataset prefix ends in '/' (PARENT/NAME/)");
	for (i = len - 1; i > 0 && prefix[i - 1] != '/'; i--)
		;
	if (!i)
		return hc_seterr(err, errlen, -EINVAL, "a dataset prefix has a parent (PARENT/NAME/)");
	if (!name_ok(prefix + i, len - 1 - i))
		return hc_seterr(err, errlen, -EINVAL, "bad dataset name '%.*s'",
			    (int)(len - 1 - i), prefix + i);
	/* "s3://NAME/" has no parent: the parent must not end in "//" */
	if (i >= 2 && prefix[i - 2] == '/')
		return hc_seterr(err, errlen, -EINVAL, "a dataset prefix has a parent (PARENT/NAME/)");
	memcpy(name, prefix + i, len - 1 - i);
	name[len - 1 - i] = 0;
	*parent_len = i;
	return 0;
}

bool hcf_key_ok(const char *key)
{
	const char *p = key, *slash;
	size_t n;

	if (!key[0] || key[0] == '/' || !strncmp(key, HCF_DIR, strlen(HCF_DIR)))
		return false;
	for (;;) {
		slash = strchr(p, '/');
		n = slash ? (size_t)(slash - p) : strlen(p);
		if (!n || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		if (!slash)
			return true;
		p = slash + 1;
	}
}

/* --- summary ---------------------------------------------------------- */

int hcf_summary_add(struct hcf_summary *s, const char *key, uint64_t size,
		    uint32_t crc32, uint64_t generation)
{
	struct hcf_file *v;

	v = realloc(s->files, (s->nfiles + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->files = v;
	v = &s->files[s->nfiles];
	v->key = strdup(key);
	if (!v->key)
		return -ENOMEM;
	v->size = size;
	v->crc32 = crc32;
	v->generation = generation;
	s->nfiles++;
	s->bytes += size;
	return 0;
}

static int file_cmp(const void *a, const void *b)
{
	return strcmp(((const struct hcf_file *)a)->key,
		      ((const struct hcf_file *)b)->key);
}

void hcf_summary_sort(struct hcf_summary *s)
{
	if (s->nfiles)
		qsort(s->files, s->nfiles, sizeof(*s->files), file_cmp);
}

void hcf_summary_free(struct hcf_summary *s)
{
	size_t i;

	for (i = 0; i < s->nfiles; i++)
		free(s->files[i].key);
	free(s->files);
	memset(s, 0, sizeof(*s));
}

static json_object *time_json(int64_t t)
{
	char buf[32];
	struct tm tm;
	time_t tt = (time_t)t;

	if (!gmtime_r(&tt, &tm) ||
	    !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm))
		snprintf(buf, sizeof(buf), "%" PRId64, t);
	return json_object_new_string(buf);
}

static char *encode(json_object *o)
{
	const char *s;
	char *ret;

	if (!o)
		return NULL;
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
					   JSON_C_TO_STRING_NOSLASHESCAPE);
	ret = s ? malloc(strlen(s) + 2) : NULL;
	if (ret)
		sprintf(ret, "%s\n", s);
	json_object_put(o);
	return ret;
}

char *hcf_summary_encode(const struct hcf_summary *s)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array();
	size_t i;

	if (!o || !arr) {
		json_object_put(o);
		json_object_put(arr);
		return NULL;
	}
	json_object_object_add(o, "format", json_object_new_int(HCF_FORMAT));
	json_object_object_add(o, "dataset", json_object_new_string(s->name));
	json_object_object_add(o, "complete", json_object_new_boolean(s->complete));
	json_object_object_add(o, "time", time_json(s->time));
	json_object_object_add(o, "flushed_at", json_object_new_int64(s->time));
	json_object_object_add(o, "bytes", json_object_new_uint64(s->bytes));
	json_object_object_add(o, "file_count", json_object_new_uint64(s->nfiles));
	for (i = 0; i < s->nfiles; i++) {
		const struct hcf_file *f = &s->files[i];
		json_object *j = json_object_new_object();

		json_object_object_add(j, "key", json_object_new_string(f->key));
		json_object_object_add(j, "size", json_object_new_uint64(f->size));
		json_object_object_add(j, "crc32", json_object_new_uint64(f->crc32));
		json_object_object_add(j, "generation",
				       json_object_new_uint64(f->generation));
		json_object_array_add(arr, j);
	}
	json_object_object_add(o, "files", arr);
	return encode(o);
}

static bool only_space(const char *p, size_t n)
{
	while (n--)
		if (!strchr(" \t\r\n", *p++) || !p[-1])
			return false;
	return true;
}

static json_object *parse(const char *text, size_t len, char *err,
			  size_t errlen)
{
	struct json_tokener *tok;
	json_object *o;

	if (len > INT32_MAX) {
		hc_seterr(err, errlen, -EINVAL, "document too large");
		return NULL;
	}
	tok = json_tokener_new();
	if (!tok) {
		hc_seterr(err, errlen, -ENOMEM, "out of memory");
		return NULL;
	}
	o = json_tokener_parse_ex(tok, text, (int)len);
	if (!o || json_tokener_get_error(tok) != json_tokener_success) {
		hc_seterr(err, errlen, -EINVAL, "not JSON: %s",
		     json_tokener_error_desc(json_tokener_get_error(tok)));
		json_object_put(o);
		o = NULL;
	} else if (!only_space(text + json_tokener_get_parse_end(tok),
			       len - json_tokener_get_parse_end(tok))) {
		hc_seterr(err, errlen, -EINVAL, "not JSON: trailing characters");
		json_object_put(o);
		o = NULL;
	} else if (!json_object_is_type(o, json_type_object)) {
		hc_seterr(err, errlen, -EINVAL, "not a JSON object");
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	return o;
}

/* An unsigned integer field (json-c keeps integers as int64/uint64). */
static int get_u64(json_object *o, const char *k, uint64_t max, uint64_t *v,
		   char *err, size_t errlen)
{
	json_object *j;
	int64_t s;

	if (!json_object_object_get_ex(o, k, &j) ||
	    !json_object_is_type(j, json_type_int))
		return hc_seterr(err, errlen, -EINVAL, "no integer \"%s\"", k);
	/* json-c clamps a uint64 above INT64_MAX to INT64_MAX here */
	s = json_object_get_int64(j);
	if (s < 0)
		return hc_seterr(err, errlen, -EINVAL, "\"%s\" is negative", k);
	*v = s == INT64_MAX ? json_object_get_uint64(j) : (uint64_t)s;
	if (*v > max)
		return hc_seterr(err, errlen, -EINVAL, "\"%s\" is out of range", k);
	return 0;
}

static int get_str(json_object *o, const char *k, const char **v, char *err,
		   size_t errlen)
{
	json_object *j;

	if (!json_object_object_get_ex(o, k, &j) ||
	    !json_object_is_type(j, json_type_string))
		return hc_seterr(err, errlen, -EINVAL, "no string \"%s\"", k);
	*v = json_object_get_string(j);
	return 0;
}

static int get_bool(json_object *o, const char *k, bool *v, char *err,
		    size_t errlen)
{
	json_object *j;

	if (!json_object_object_get_ex(o, k, &j) ||
	    !json_object_is_type(j, json_type_boolean))
		return hc_seterr(err, errlen, -EINVAL, "no boolean \"%s\"", k);
	*v = json_object_get_boolean(j);
	return 0;
}

static int check_format(json_object *o, char *err, size_t errlen)
{
	uint64_t f;
	int ret = get_u64(o, "format", UINT32_MAX, &f, err, errlen);

	if (ret)
		return ret;
	if (f != HCF_FORMAT)
		return hc_seterr(err, errlen, -EINVAL, "unknown format %" PRIu64, f);
	return 0;
}

int hcf_summary_decode(const char *text, size_t len, const char *name,
		       struct hcf_summary *out, char *err, size_t errlen)
{
	json_object *o, *arr, *f;
	const char *s, *key;
	uint64_t v, size, crc, gen, count, bytes;
	size_t i, n;
	int ret;

	memset(out, 0, sizeof(*out));
	o = parse(text, len, err, errlen);
	if (!o)
		return -EINVAL;
	ret = check_format(o, err, errlen);
	if (ret)
		goto out;
	ret = get_str(o, "dataset", &s, err, errlen);
	if (ret)
		goto out;
	if (!name_ok(s, strlen(s)) || (name && strcmp(s, name))) {
		ret = hc_seterr(err, errlen, -EINVAL, "the summary is of dataset '%s'%s%s",
			   s, name ? ", not " : "", name ? name : "");
		goto out;
	}
	strcpy(out->name, s);
	ret = get_bool(o, "complete", &out->complete, err, errlen);
	if (ret)
		goto out;
	if (!out->complete) {
		ret = hc_seterr(err, errlen, -EINVAL, "the summary says incomplete");
		goto out;
	}
	ret = get_str(o, "time", &s, err, errlen) ?:
	      get_u64(o, "flushed_at", INT64_MAX, &v, err, errlen) ?:
	      get_u64(o, "bytes", UINT64_MAX, &bytes, err, errlen) ?:
	      get_u64(o, "file_count", SIZE_MAX, &count, err, errlen);
	if (ret)
		goto out;
	out->time = (int64_t)v;
	if (!json_object_object_get_ex(o, "files", &arr) ||
	    !json_object_is_type(arr, json_type_array)) {
		ret = hc_seterr(err, errlen, -EINVAL, "no array \"files\"");
		goto out;
	}
	n = json_object_array_length(arr);
	for (i = 0; i < n; i++) {
		f = json_object_array_get_idx(arr, i);
		if (!json_object_is_type(f, json_type_object)) {
			ret = hc_seterr(err, errlen, -EINVAL, "files[%zu] is not an object", i);
			goto out;
		}
		ret = get_str(f, "key", &key, err, errlen) ?:
		      get_u64(f, "size", UINT64_MAX, &size, err, errlen) ?:
		      get_u64(f, "crc32", UINT32_MAX, &crc, err, errlen) ?:
		      get_u64(f, "generation", UINT64_MAX, &gen, err, errlen);
		if (ret)
			goto out;
		if (!hcf_key_ok(key)) {
			ret = hc_seterr(err, errlen, -EINVAL, "files[%zu]: bad key '%s'", i, key);
			goto out;
		}
		if (out->bytes + size < out->bytes) {
			ret = hc_seterr(err, errlen, -EINVAL, "the sizes overflow");
			goto out;
		}
		ret = hcf_summary_add(out, key, size, (uint32_t)crc, gen);
		if (ret) {
			hc_seterr(err, errlen, ret, "out of memory");
			goto out;
		}
	}
	hcf_summary_sort(out);
	for (i = 1; i < out->nfiles; i++)
		if (!strcmp(out->files[i - 1].key, out->files[i].key)) {
			ret = hc_seterr(err, errlen, -EINVAL, "file '%s' is listed twice",
				   out->files[i].key);
			goto out;
		}
	if (count != out->nfiles)
		ret = hc_seterr(err, errlen, -EINVAL, "file_count %" PRIu64 " but %zu files",
			   count, out->nfiles);
	else if (bytes != out->bytes)
		ret = hc_seterr(err, errlen, -EINVAL, "bytes %" PRIu64 " but the files hold %" PRIu64,
			   bytes, out->bytes);
out:
	json_object_put(o);
	if (ret)
		hcf_summary_free(out);
	return ret;
}

const struct hcf_file *hcf_summary_find(const struct hcf_summary *s,
					const char *key)
{
	struct hcf_file k = { .key = (char *)key };

	if (!s->nfiles)
		return NULL;
	return bsearch(&k, s->files, s->nfiles, sizeof(k), file_cmp);
}

bool hcf_summary_same_files(const struct hcf_summary *a,
			    const struct hcf_summary *b)
{
	size_t i;

	if (a->nfiles != b->nfiles)
		return false;
	for (i = 0; i < a->nfiles; i++)
		if (strcmp(a->files[i].key, b->files[i].key) ||
		    a->files[i].size != b->files[i].size ||
		    a->files[i].generation != b->files[i].generation)
			return false;
	return true;
}

/* --- index ------------------------------------------------------------ */

void hcf_index_free(struct hcf_index *ix)
{
	free(ix->v);
	memset(ix, 0, sizeof(*ix));
}

char *hcf_index_encode(const struct hcf_index *ix)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array();
	size_t i;

	if (!o || !arr) {
		json_object_put(o);
		json_object_put(arr);
		return NULL;
	}
	json_object_object_add(o, "format", json_object_new_int(HCF_FORMAT));
	json_object_object_add(o, "current", ix->current[0] ?
			       json_object_new_string(ix->current) : NULL);
	for (i = 0; i < ix->n; i++) {
		const struct hcf_entry *e = &ix->v[i];
		json_object *j = json_object_new_object();

		json_object_object_add(j, "name", json_object_new_string(e->name));
		json_object_object_add(j, "id", json_object_new_uint64(e->id));
		json_object_object_add(j, "complete", json_object_new_boolean(e->complete));
		json_object_object_add(j, "flushed_at", json_object_new_int64(e->flushed_at));
		json_object_object_add(j, "time", time_json(e->flushed_at));
		json_object_object_add(j, "bytes", json_object_new_uint64(e->bytes));
		json_object_object_add(j, "files", json_object_new_uint64(e->files));
		json_object_array_add(arr, j);
	}
	json_object_object_add(o, "datasets", arr);
	return encode(o);
}

int hcf_index_decode(const char *text, size_t len, struct hcf_index *out,
		     char *err, size_t errlen)
{
	json_object *o, *arr, *j, *cur;
	const char *s;
	uint64_t v;
	size_t i, n;
	int ret;

	memset(out, 0, sizeof(*out));
	if (!len)
		return 0;
	o = parse(text, len, err, errlen);
	if (!o)
		return -EINVAL;
	ret = check_format(o, err, errlen);
	if (ret)
		goto out;
	if (!json_object_object_get_ex(o, "datasets", &arr) ||
	    !json_object_is_type(arr, json_type_array)) {
		ret = hc_seterr(err, errlen, -EINVAL, "no array \"datasets\"");
		goto out;
	}
	n = json_object_array_length(arr);
	out->v = calloc(n ? n : 1, sizeof(*out->v));
	if (!out->v) {
		ret = hc_seterr(err, errlen, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct hcf_entry *e = &out->v[i];

		j = json_object_array_get_idx(arr, i);
		if (!json_object_is_type(j, json_type_object)) {
			ret = hc_seterr(err, errlen, -EINVAL, "datasets[%zu] is not an object", i);
			goto out;
		}
		ret = get_str(j, "name", &s, err, errlen);
		if (ret)
			goto out;
		if (!name_ok(s, strlen(s)) || hcf_index_find(out, s)) {
			ret = hc_seterr(err, errlen, -EINVAL, "datasets[%zu]: bad or repeated name '%s'",
				   i, s);
			goto out;
		}
		ret = get_u64(j, "id", UINT64_MAX, &e->id, err, errlen) ?:
		      get_bool(j, "complete", &e->complete, err, errlen) ?:
		      get_u64(j, "flushed_at", INT64_MAX, &v, err, errlen) ?:
		      get_u64(j, "bytes", UINT64_MAX, &e->bytes, err, errlen) ?:
		      get_u64(j, "files", UINT64_MAX, &e->files, err, errlen);
		if (ret)
			goto out;
		e->flushed_at = (int64_t)v;
		strcpy(e->name, s);
		out->n++;
	}
	if (!json_object_object_get_ex(o, "current", &cur)) {
		ret = hc_seterr(err, errlen, -EINVAL, "no \"current\"");
		goto out;
	}
	if (cur) {
		if (!json_object_is_type(cur, json_type_string)) {
			ret = hc_seterr(err, errlen, -EINVAL, "\"current\" is not a string");
			goto out;
		}
		s = json_object_get_string(cur);
		if (!hcf_index_find(out, s)) {
			ret = hc_seterr(err, errlen, -EINVAL, "current dataset '%s' is not listed", s);
			goto out;
		}
		strcpy(out->current, s);
	}
out:
	json_object_put(o);
	if (ret)
		hcf_index_free(out);
	return ret;
}

struct hcf_entry *hcf_index_find(const struct hcf_index *ix, const char *name)
{
	size_t i;

	for (i = 0; i < ix->n; i++)
		if (!strcmp(ix->v[i].name, name))
			return &ix->v[i];
	return NULL;
}

static uint64_t max_id(const struct hcf_index *ix)
{
	uint64_t m = 0;
	size_t i;

	for (i = 0; i < ix->n; i++)
		if (ix->v[i].id > m)
			m = ix->v[i].id;
	return m;
}

int hcf_index_publish(struct hcf_index *ix, const char *name, int64_t now,
		      uint64_t bytes, uint64_t files)
{
	struct hcf_entry *e = hcf_index_find(ix, name);
	uint64_t id = max_id(ix) + 1;

	if (!name_ok(name, strlen(name)))
		return -EINVAL;
	if (!e) {
		e = realloc(ix->v, (ix->n + 1) * sizeof(*e));
		if (!e)
			return -ENOMEM;
		ix->v = e;
		e = &ix->v[ix->n++];
		memset(e, 0, sizeof(*e));
		strcpy(e->name, name);
	}
	e->id = id;
	e->complete = true;
	e->flushed_at = now;
	e->bytes = bytes;
	e->files = files;
	strcpy(ix->current, name);
	return 0;
}

bool hcf_index_unpublish(struct hcf_index *ix, const char *name)
{
	struct hcf_entry *e = hcf_index_find(ix, name), *best = NULL;
	size_t i;

	if (!e || (!e->complete && strcmp(ix->current, name)))
		return false;
	e->complete = false;
	if (strcmp(ix->current, name))
		return true;
	for (i = 0; i < ix->n; i++)
		if (ix->v[i].complete && (!best || ix->v[i].id > best->id))
			best = &ix->v[i];
	if (best)
		strcpy(ix->current, best->name);
	else
		ix->current[0] = 0;
	return true;
}

size_t hcf_restore_order(const struct hcf_index *ix, const char *only,
			 size_t *order)
{
	const struct hcf_entry *cur = NULL;
	uint64_t below = UINT64_MAX;
	size_t n = 0, i, best;
	bool found;

	if (only) {
		for (i = 0; i < ix->n; i++)
			if (!strcmp(ix->v[i].name, only) && ix->v[i].complete)
				order[n++] = i;
		return n;
	}
	if (ix->current[0])
		cur = hcf_index_find(ix, ix->current);
	if (cur) {
		below = cur->id;
		if (cur->complete)
			order[n++] = (size_t)(cur - ix->v);
	}
	/* then walk backwards: the complete ones below, largest id first */
	for (;;) {
		found = false;
		best = 0;
		for (i = 0; i < ix->n; i++) {
			if (!ix->v[i].complete || ix->v[i].id >= below)
				continue;
			if (!found || ix->v[i].id > ix->v[best].id)
				best = i;
			found = true;
		}
		if (!found)
			return n;
		order[n++] = best;
		below = ix->v[best].id;
	}
}

long hcf_restore_choose(const struct hcf_index *ix, const char *only,
			hcf_verify_fn verify, void *arg)
{
	size_t *order, n, i;
	long ret = -1;

	order = calloc(ix->n ? ix->n : 1, sizeof(*order));
	if (!order)
		return -1;
	n = hcf_restore_order(ix, only, order);
	for (i = 0; i < n; i++)
		if (!verify(&ix->v[order[i]], arg)) {
			ret = (long)order[i];
			break;
		}
	free(order);
	return ret;
}

/* --- marker, steps, plan ---------------------------------------------- */

char *hcf_marker_encode(const char *name, int64_t now, long pid,
			const char *host)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "format", json_object_new_int(HCF_FORMAT));
	json_object_object_add(o, "dataset", json_object_new_string(name));
	json_object_object_add(o, "started_at", json_object_new_int64(now));
	json_object_object_add(o, "time", time_json(now));
	json_object_object_add(o, "host", json_object_new_string(host ? host : ""));
	json_object_object_add(o, "pid", json_object_new_int64(pid));
	return encode(o);
}

const char *hcf_step_name(enum hcf_step s)
{
	static const char *const names[] = {
		[HCF_STEP_START] = "start",
		[HCF_STEP_MARKED] = "marker written",
		[HCF_STEP_UPLOADED] = "files uploaded",
		[HCF_STEP_SUMMARY] = "summary written",
		[HCF_STEP_INDEXED] = "index updated",
		[HCF_STEP_DONE] = "marker removed",
	};

	return s <= HCF_STEP_DONE ? names[s] : "?";
}

enum hcf_step hcf_step_next(enum hcf_step s)
{
	return s < HCF_STEP_DONE ? s + 1 : HCF_STEP_DONE;
}

enum hcf_step hcf_crash_after(const char *env)
{
	if (!env || !env[0] || env[1] || env[0] < '1' || env[0] > '5')
		return HCF_STEP_START;
	return (enum hcf_step)(env[0] - '0');
}

enum hcf_plan hcf_plan(const struct hcf_index *ix, const char *name,
		       bool marker, const struct hcf_summary *flushed,
		       const struct hcf_summary *cached)
{
	const struct hcf_entry *e = hcf_index_find(ix, name);

	if (marker || !e || !e->complete || !flushed || !cached)
		return HCF_PLAN_FLUSH;
	if (!hcf_summary_same_files(flushed, cached))
		return HCF_PLAN_FLUSH;
	return HCF_PLAN_DONE;
}

const char *hcf_state_name(enum hcf_state s)
{
	switch (s) {
	case HCF_NOT_FLUSHED:
		return "not flushed";
	case HCF_FLUSHING:
		return "flushing";
	case HCF_INTERRUPTED:
		return "interrupted";
	case HCF_FLUSHED:
		return "flushed";
	}
	return "?";
}

enum hcf_state hcf_state(const struct hcf_index *ix, const char *name,
			 bool marker, bool locked)
{
	const struct hcf_entry *e = hcf_index_find(ix, name);

	if (marker)
		return locked ? HCF_FLUSHING : HCF_INTERRUPTED;
	if (locked)
		return HCF_FLUSHING;
	if (e && e->complete)
		return HCF_FLUSHED;
	return HCF_NOT_FLUSHED;
}
