// SPDX-License-Identifier: GPL-2.0
/*
 * hcctl - restore: bring the newest complete, verifiable dataset of a
 * parent prefix back into the cache, SCR's way: the index's current
 * dataset, else walking back to older complete ones; every file is read
 * from the backend and checked against the summary (size, CRC32) before
 * the dataset is taken, then preloaded (LOCATE AUTO_INGEST | WAIT: the
 * helper ingests it) and checked again as read back through the cache.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "hypercache.h"
#include "hcctl.h"
#include "ctl.h"
#include "flushdoc.h"
#include "dataset.h"
#include "util.h"
#include "opt.h"

struct rs_ctx {
	const char *parent;	/* the URI prefix, ends in '/' */
	struct ds_backend be;
	struct ds_client cl;
	const char *only;
	bool json, progress;
	unsigned long timeout;
	struct hcf_summary chosen;	/* the summary of the dataset taken */
	json_object *refused;		/* [{"dataset","reason"}] */
	char current[HCF_NAME_MAX + 1];
};

static char *cat3(const char *a, const char *b, const char *c)
{
	char *s;

	return asprintf(&s, "%s%s%s", a, b, c) < 0 ? NULL : s;
}

static void refuse(struct rs_ctx *x, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void refuse(struct rs_ctx *x, const char *name, const char *fmt, ...)
{
	json_object *o;
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(stderr, "hcctl: %s%s/: refused: %s\n", x->parent, name, buf);
	o = json_object_new_object();
	json_object_object_add(o, "dataset", json_object_new_string(name));
	json_object_object_add(o, "reason", json_object_new_string(buf));
	json_object_array_add(x->refused, o);
}

static int crc_chunk(const void *buf, size_t len, void *arg)
{
	uLong *crc = arg;

	*crc = crc32(*crc, buf, (uInt)len);
	return 0;
}

/* hcf_verify_fn: the summary parses, every file in the backend matches. */
static int verify(const struct hcf_entry *e, void *arg)
{
	struct rs_ctx *x = arg;
	struct hcf_summary s;
	char err[DS_ERR_MAX] = "", *key, *buf;
	uint64_t size;
	uLong crc;
	size_t len, i;
	int ret;

	key = cat3(x->be.key, e->name, "/" HCF_SUMMARY_KEY);
	if (!key)
		return -ENOMEM;
	ret = ds_get_doc(&x->cl, key, &buf, &len, err, sizeof(err));
	free(key);
	if (ret) {
		refuse(x, e->name, "cannot read its summary: %s%s%s",
		       strerror(-ret), err[0] ? ": " : "", err);
		return ret;
	}
	ret = hcf_summary_decode(buf, len, e->name, &s, err, sizeof(err));
	free(buf);
	if (ret) {
		refuse(x, e->name, "its summary is invalid: %s", err);
		return ret;
	}
	for (i = 0; i < s.nfiles; i++) {
		const struct hcf_file *f = &s.files[i];

		key = cat3(x->be.key, e->name, "/");
		buf = key ? cat3(key, f->key, "") : NULL;
		free(key);
		if (!buf) {
			ret = -ENOMEM;
			break;
		}
		crc = crc32(0L, Z_NULL, 0);
		err[0] = 0;
		ret = ds_read_file(&x->cl, buf, &size, crc_chunk, &crc, err,
				   sizeof(err));
		free(buf);
		if (ret) {
			refuse(x, e->name, "file %s: cannot read it: %s%s%s",
			       f->key, strerror(-ret), err[0] ? ": " : "", err);
			break;
		}
		if (size != f->size) {
			refuse(x, e->name, "file %s: %" PRIu64 " bytes, the summary says %" PRIu64,
			       f->key, size, f->size);
			ret = -EIO;
			break;
		}
		if ((uint32_t)crc != f->crc32) {
			refuse(x, e->name, "file %s: CRC32 0x%08x, the summary says 0x%08x",
			       f->key, (uint32_t)crc, f->crc32);
			ret = -EIO;
			break;
		}
	}
	if (ret) {
		hcf_summary_free(&s);
		return ret;
	}
	hcf_summary_free(&x->chosen);
	x->chosen = s;
	return 0;
}

/* Preload every file of the chosen dataset and check it read back. */
static int preload(struct rs_ctx *x, const char *name, uint64_t *bytes)
{
	struct ds_cache c;
	char err[DS_ERR_MAX] = "", *uri;
	uint64_t size, gen;
	uLong crc;
	size_t i;
	int ret, failed = 0, tries;

	*bytes = 0;
	ret = ds_cache_open(&c, err, sizeof(err));
	if (ret) {
		hcctl_err("restore", err, 0);
		return -1;
	}
	for (i = 0; i < x->chosen.nfiles; i++) {
		const struct hcf_file *f = &x->chosen.files[i];

		uri = cat3(x->parent, name, "/");
		if (uri) {
			char *u2 = cat3(uri, f->key, "");

			free(uri);
			uri = u2;
		}
		if (!uri) {
			hcctl_err(NULL, "out of memory", ENOMEM);
			failed++;
			break;
		}
		for (tries = 0; tries < 2; tries++) {
			crc = crc32(0L, Z_NULL, 0);
			err[0] = 0;
			ret = ds_cache_read(&c, uri, HC_LOCATE_F_AUTO_INGEST |
					    HC_LOCATE_F_WAIT, x->timeout, &size,
					    &gen, crc_chunk, &crc, err, sizeof(err));
			if (ret || (size == f->size && (uint32_t)crc == f->crc32))
				break;
			/* a stale copy in the cache: evict it, ingest again */
			if (tries || ds_cache_evict(&c, uri)) {
				snprintf(err, sizeof(err),
					 "the cached copy (%" PRIu64 " bytes, CRC32 0x%08x) differs from the dataset's (%" PRIu64 " bytes, CRC32 0x%08x) and cannot be evicted",
					 size, (uint32_t)crc, f->size, f->crc32);
				ret = -EIO;
				break;
			}
		}
		if (!ret && (size != f->size || (uint32_t)crc != f->crc32)) {
			snprintf(err, sizeof(err), "read back with CRC32 0x%08x, not 0x%08x",
				 (uint32_t)crc, f->crc32);
			ret = -EIO;
		}
		if (ret) {
			hcctl_errf(uri, 0, "not restored: %s", err);
			failed++;
		} else {
			*bytes += size;
		}
		free(uri);
	}
	ds_cache_close(&c);
	return failed ? -1 : 0;
}

/* --dataset NAME: one component. */
static int dataset_arg(const struct hcctl_cmd *cmd, const char *arg, void *dst)
{
	if (!arg[0] || strchr(arg, '/'))
		return hcctl_usage_error(cmd, "bad --dataset '%s'", arg);
	*(const char **)dst = arg;
	return 0;
}

int hcctl_cmd_restore(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	struct rs_ctx x = { .timeout = 300 };
	const char *cfg_path = HC_CONFIG_PATH;
	const struct hcctl_opt opts[] = {
		HCCTL_STRING("config", 0, &cfg_path, "FILE"),
		HCCTL_CALL("dataset", 0, &x.only, dataset_arg),
		HCCTL_ULONG("timeout", 0, &x.timeout, 0, 86400, "seconds"),
		HCCTL_OPT_END
	};
	struct hcf_index ix = { 0 };
	char err[DS_ERR_MAX] = "", *key = NULL, *buf = NULL;
	double t0 = hc_now(), secs;
	uint64_t bytes = 0;
	size_t len;
	long pick;
	int ret, rc = HC_EXIT_FAIL, optind;

	optind = hcctl_opt_parse(cmd, argc, argv, opts, &ret);
	if (optind < 0)
		return ret;
	x.json = hcctl_opt_json;
	if (optind >= argc)
		return hcctl_usage_error(cmd, "missing PARENT_PREFIX operand");
	if (optind + 1 < argc)
		return hcctl_usage_error(cmd, "unexpected argument '%s'", argv[optind + 1]);
	x.parent = argv[optind];
	if (!x.parent[0] || x.parent[strlen(x.parent) - 1] != '/')
		return hcctl_usage_error(cmd, "PARENT_PREFIX must end in '/'");

	x.refused = json_object_new_array();
	if (ds_backend_open(x.parent, cfg_path, &x.be) < 0)
		goto out;
	ret = ds_client_open(&x.be, &x.cl, err, sizeof(err));
	if (ret) {
		hcctl_errf(x.parent, -ret, "cannot reach the backend%s%s",
			err[0] ? ": " : "", err);
		goto out;
	}
	key = cat3(x.be.key, HCF_INDEX_KEY, "");
	if (!key) {
		hcctl_err(NULL, "out of memory", ENOMEM);
		goto out;
	}
	ret = ds_get_doc(&x.cl, key, &buf, &len, err, sizeof(err));
	if (ret == -ENOENT) {
		hcctl_errf(x.parent, 0, "no dataset was flushed here (no %s)", key);
		goto out;
	}
	if (ret) {
		hcctl_errf(x.parent, -ret, "cannot read the index %s%s%s", key,
			err[0] ? ": " : "", err);
		goto out;
	}
	if (hcf_index_decode(buf, len, &ix, err, sizeof(err))) {
		hcctl_errf(x.parent, 0, "the index %s is damaged: %s", key, err);
		goto out;
	}
	snprintf(x.current, sizeof(x.current), "%s", ix.current);
	pick = hcf_restore_choose(&ix, x.only, verify, &x);
	if (pick < 0) {
		if (x.only)
			hcctl_errf(x.parent, 0, "dataset '%s' is not complete or does not verify",
				x.only);
		else
			hcctl_errf(x.parent, 0, "no complete dataset verifies");
		goto out;
	}
	if (preload(&x, ix.v[pick].name, &bytes) < 0)
		goto out;
	secs = hc_now() - t0;
	if (x.json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "parent", json_object_new_string(x.parent));
		json_object_object_add(o, "dataset", json_object_new_string(ix.v[pick].name));
		json_object_object_add(o, "current", x.current[0] ?
				       json_object_new_string(x.current) : NULL);
		json_object_object_add(o, "fell_back", json_object_new_boolean(
			strcmp(x.current, ix.v[pick].name) != 0));
		json_object_object_add(o, "files", json_object_new_uint64(x.chosen.nfiles));
		json_object_object_add(o, "bytes", json_object_new_uint64(bytes));
		json_object_object_add(o, "seconds", json_object_new_double(secs));
		json_object_object_add(o, "refused", json_object_get(x.refused));
		hcctl_json_print(o, false);
		json_object_put(o);
	} else {
		printf("restored dataset %s of %s: %zu file%s, %" PRIu64 " bytes in %.2f s",
		       ix.v[pick].name, x.parent, x.chosen.nfiles,
		       x.chosen.nfiles == 1 ? "" : "s", bytes, secs);
		if (strcmp(x.current, ix.v[pick].name))
			printf(" (fell back from %s)", x.current[0] ? x.current : "none");
		putchar('\n');
	}
	rc = HC_EXIT_OK;
out:
	free(key);
	free(buf);
	hcf_index_free(&ix);
	hcf_summary_free(&x.chosen);
	json_object_put(x.refused);
	ds_client_close(&x.cl);
	ds_backend_close(&x.be);
	return rc;
}

/* --- the command table (main.c lists the groups) ---------------------- */

const struct hcctl_cmd hcctl_restore_cmds[] = {
{
	.name = "restore",
	.summary = "preload the newest complete dataset of a parent prefix",
	.synopsis = "[--dataset NAME] [--timeout S] [--config FILE] [--json] PARENT_PREFIX",
	.handler = hcctl_cmd_restore,
	.help =
"DESCRIPTION\n"
"    Bring a flushed dataset of PARENT_PREFIX (a URI ending in '/') back\n"
"    into the cache, the way SCR restarts from a checkpoint: read\n"
"    PARENT_PREFIX.hypercache/index.json; try the current dataset, then\n"
"    the older complete ones, newest first, skipping incomplete ones.  A\n"
"    dataset is taken when its summary parses and every file it lists\n"
"    reads back from the backend with the summary's size and CRC32; a\n"
"    mismatch refuses that dataset with a message naming the file, e.g.\n"
"        hcctl: s3://b/ck/step-2/: refused: file rank0.pt: CRC32 0x1b2c..., the summary says 0x...\n"
"    and restore falls back to an older one, or fails if none is left.\n"
"\n"
"    The files of the dataset taken are then preloaded as by 'hcctl\n"
"    preload' (HC_IOC_LOCATE with AUTO_INGEST | WAIT: hypercached, running\n"
"    with the same configuration, ingests them) and read back through the\n"
"    cache to check their CRC32 again; a stale cached copy is evicted and\n"
"    ingested again.  Prints\n"
"\n"
"      restored dataset NAME of PARENT_PREFIX: N files, B bytes in S s\n"
"\n"
"    with \" (fell back from CURRENT)\" when it is not the current one.\n"
"\n"
"OPTIONS\n"
"    --dataset NAME\n"
"        Restore NAME only (no fallback).\n"
"\n"
"    --timeout SECONDS\n"
"        How long to wait for each ingest (default 300).\n"
"\n"
"    --config FILE\n"
"        hypercached's configuration (default /etc/hypercache/hypercache.conf).\n"
"\n"
"    -j, --json\n"
"        Print one JSON object: {\"parent\",\"dataset\",\"current\",\n"
"        \"fell_back\",\"files\",\"bytes\",\"seconds\",\"refused\":[{\"dataset\",\n"
"        \"reason\"}]}.\n"
"\n"
HCCTL_HELP_OPT_TEXT
"\n"
"    Needs hypercached running (for the ingest) and read access to\n"
"    /dev/hypercache-ctl and /dev/hypercache0.\n"
"\n"
HCCTL_EXIT_STATUS_TEXT
"\n"
"EXAMPLES\n"
"    hcctl restore s3://bkt/ckpt/run1/\n"
"    hcctl restore --dataset step-100 --json s3://bkt/ckpt/run1/\n",
},
{ .name = NULL }
};
