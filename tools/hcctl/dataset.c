// SPDX-License-Identifier: GPL-2.0
/*
 * hcctl - a dataset's backend and its cached objects (dataset.h), shared
 * by 'flush' and 'restore'.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/genl/genl.h>
#include <openssl/evp.h>

#include "hypercache.h"
#include "hypercache_netlink.h"
#include "hcctl.h"
#include "ctl.h"
#include "nl.h"
#include "s3.h"
#include "dataset.h"
#include "util.h"
#include "resolve.h"
#include "posix.h"
#include "extent.h"

extern char **environ;

#define DS_IO_SIZE	(4U << 20)	/* bytes per O_DIRECT read */
#define DS_PART_SIZE	(16U << 20)	/* S3: one PUT up to this, else parts of it */
#define DS_RUN_DIR	"/run/hypercache"

/* --- the backend ------------------------------------------------------ */

int ds_prefix_resolve(const char *prefix, const char *cfg_path,
		      struct hc_config *cfg, struct hc_target *t)
{
	char err[1024];
	int ret;

	ret = hc_config_load(cfg_path, cfg, err, sizeof(err));
	if (ret) {
		if (ret == -EINVAL)
			hcctl_err(NULL, err, 0);
		else
			hcctl_errf(cfg_path, -ret, "cannot load the configuration");
		return -1;
	}
	ret = hc_resolve(cfg, prefix, strlen(prefix), HC_RESOLVE_PREFIX, t, err,
			 sizeof(err));
	if (ret) {
		hcctl_errf(prefix, 0, ret == -EINVAL ? "bad prefix: %s" : "%s (%s)",
			   err, cfg_path);
		return -1;
	}
	return 0;
}

int ds_backend_open(const char *prefix, const char *cfg_path,
		    struct ds_backend *be)
{
	struct hc_target *t;
	int ret = -1;

	memset(be, 0, sizeof(*be));
	be->cfg = calloc(1, sizeof(*be->cfg));
	t = calloc(1, sizeof(*t));
	if (!be->cfg || !t) {
		hcctl_err(NULL, "out of memory", ENOMEM);
		goto out;
	}
	ret = ds_prefix_resolve(prefix, cfg_path, be->cfg, t);
	if (ret)
		goto out;
	be->b = t->b;
	memcpy(be->bucket, t->bucket, sizeof(be->bucket));
	be->key = strndup(t->key, t->key_len);
	ret = 0;
	if (!be->key) {
		hcctl_err(NULL, "out of memory", ENOMEM);
		ret = -1;
	}
out:
	free(t);
	if (ret)
		ds_backend_close(be);
	return ret;
}

void ds_backend_close(struct ds_backend *be)
{
	free(be->cfg);
	free(be->key);
	memset(be, 0, sizeof(*be));
}

int ds_client_open(const struct ds_backend *be, struct ds_client *c,
		   char *err, size_t errlen)
{
	struct hcs3_opts so = {
		.timeout_connect = be->cfg->timeout_connect,
		.timeout_request = be->cfg->timeout_request,
	};
	struct hc_creds *cr;
	int ret;

	memset(c, 0, sizeof(*c));
	c->be = be;
	if (be->b->type != HC_BACKEND_S3)
		return 0;
	cr = calloc(1, sizeof(*cr));
	if (!cr)
		return -ENOMEM;
	ret = hc_creds_lookup(be->b, environ, getenv("HOME"), cr, err, errlen);
	if (!ret)
		ret = hcs3_new(be->b, cr, &so, &c->s3, err, errlen);
	hc_creds_release(cr);
	free(cr);
	return ret;
}

void ds_client_close(struct ds_client *c)
{
	if (c->s3)
		hcs3_free(c->s3);
	c->s3 = NULL;
}

static bool is_s3(const struct ds_client *c)
{
	return c->be->b->type == HC_BACKEND_S3;
}

/*
 * ROOT/KEY of a posix backend, malloc'd, under the backend's containment
 * rule (posix.h); NULL with the errno in *@ret and a message in @err.
 */
static char *posix_path(const struct ds_client *c, const char *key, int *ret,
			char *err, size_t errlen)
{
	char path[PATH_MAX], *p;

	*ret = hc_posix_path(c->be->b, key, strlen(key), path, sizeof(path),
			     err, errlen);
	if (*ret)
		return NULL;
	p = strdup(path);
	if (!p)
		*ret = hc_seterr(err, errlen, -ENOMEM, "out of memory");
	return p;
}

int ds_get_doc(struct ds_client *c, const char *key, char **buf, size_t *len,
	       char *err, size_t errlen)
{
	struct hcs3_object o;
	char *p = NULL;
	struct stat st;
	size_t n = 0;
	int fd, ret;

	*buf = NULL;
	*len = 0;
	if (is_s3(c)) {
		ret = hcs3_head(c->s3, c->be->bucket, key, &o, err, errlen);
		if (ret)
			return ret;
		if (o.size > (64U << 20))
			return -EFBIG;
		p = malloc(o.size + 1);
		if (!p)
			return -ENOMEM;
		ret = o.size ? hcs3_get_range(c->s3, c->be->bucket, key, 0,
					      o.size, o.etag, p, err, errlen) : 0;
		if (ret) {
			free(p);
			return ret;
		}
		p[o.size] = 0;
		*buf = p;
		*len = o.size;
		return 0;
	}
	p = posix_path(c, key, &ret, err, errlen);
	if (!p)
		return ret;
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", p, strerror(errno));
		free(p);
		return ret;
	}
	free(p);
	if (fstat(fd, &st) < 0 || st.st_size > (64 << 20)) {
		close(fd);
		return -EFBIG;
	}
	p = malloc((size_t)st.st_size + 1);
	if (!p) {
		close(fd);
		return -ENOMEM;
	}
	ret = hc_read_full(fd, p, (size_t)st.st_size, &n);
	close(fd);
	if (ret) {
		free(p);
		return ret;
	}
	p[n] = 0;
	*buf = p;
	*len = n;
	return 0;
}

int ds_put_doc(struct ds_client *c, const char *key, const void *buf,
	       size_t len, char *err, size_t errlen)
{
	struct ds_writer *w;
	int ret;

	ret = ds_writer_open(c, key, len, &w, err, errlen);
	if (ret)
		return ret;
	ret = ds_writer_write(w, buf, len, err, errlen);
	return ds_writer_close(w, !ret, err, errlen) ?: ret;
}

int ds_delete(struct ds_client *c, const char *key, char *err, size_t errlen)
{
	char *p;
	int ret = 0;

	if (is_s3(c))
		return hcs3_delete(c->s3, c->be->bucket, key, err, errlen);
	p = posix_path(c, key, &ret, err, errlen);
	if (!p)
		return ret;
	ret = hc_posix_remove(p, err, errlen);
	free(p);
	return ret;
}

int ds_exists(struct ds_client *c, const char *key, char *err, size_t errlen)
{
	struct hcs3_object o;
	struct stat st;
	char *p;
	int ret;

	if (is_s3(c)) {
		ret = hcs3_head(c->s3, c->be->bucket, key, &o, err, errlen);
		return ret == -ENOENT ? 0 : ret ? ret : 1;
	}
	p = posix_path(c, key, &ret, err, errlen);
	if (!p)
		return ret;
	ret = stat(p, &st) == 0 ? 1 : errno == ENOENT ? 0 : -errno;
	free(p);
	return ret;
}

/* --- writer ----------------------------------------------------------- */

struct ds_writer {
	struct ds_client *c;
	char *key;
	uint64_t size, written;
	/* posix */
	struct hc_posix_file file;
	bool file_open;
	/* s3 */
	char *buf;
	size_t fill;
	bool mpu;
	char upload_id[HCS3_UPLOAD_ID_MAX + 1];
	char (*etags)[HCS3_ETAG_MAX + 1];
	unsigned int parts, nparts;
};

int ds_writer_open(struct ds_client *c, const char *key, uint64_t size,
		   struct ds_writer **out, char *err, size_t errlen)
{
	struct ds_writer *w = calloc(1, sizeof(*w));
	int ret = -ENOMEM;
	char *path;

	*out = NULL;
	if (!w)
		return -ENOMEM;
	w->c = c;
	w->size = size;
	w->key = strdup(key);
	if (!w->key)
		goto fail;
	if (is_s3(c)) {
		w->buf = malloc(size < DS_PART_SIZE ? (size ? size : 1) : DS_PART_SIZE);
		if (!w->buf)
			goto fail;
		if (size > DS_PART_SIZE) {
			w->nparts = (unsigned int)((size + DS_PART_SIZE - 1) / DS_PART_SIZE);
			w->etags = calloc(w->nparts, sizeof(*w->etags));
			if (!w->etags)
				goto fail;
			ret = hcs3_mpu_create(c->s3, c->be->bucket, key,
					      w->upload_id, err, errlen);
			if (ret)
				goto fail;
			w->mpu = true;
		}
		*out = w;
		return 0;
	}
	path = posix_path(c, key, &ret, err, errlen);
	if (!path)
		goto fail;
	ret = hc_posix_create(&w->file, path, err, errlen);
	free(path);
	if (ret)
		goto fail;
	w->file_open = true;
	*out = w;
	return 0;
fail:
	ds_writer_close(w, false, NULL, 0);
	return ret;
}

static int s3_flush_part(struct ds_writer *w, char *err, size_t errlen)
{
	int ret;

	if (!w->mpu)
		return 0;
	ret = hcs3_mpu_part(w->c->s3, w->c->be->bucket, w->key, w->upload_id,
			    w->parts + 1, w->buf, w->fill, w->etags[w->parts],
			    err, errlen);
	if (ret)
		return ret;
	w->parts++;
	w->fill = 0;
	return 0;
}

int ds_writer_write(struct ds_writer *w, const void *buf, size_t len,
		    char *err, size_t errlen)
{
	const char *p = buf;
	size_t n, cap;
	int ret;

	if (w->written + len > w->size) {
		snprintf(err, errlen, "%s: more bytes than announced", w->key);
		return -EIO;
	}
	w->written += len;
	if (!is_s3(w->c)) {
		ret = hc_write_full(w->file.fd, p, len);
		if (ret)
			snprintf(err, errlen, "%s: write error: %s", w->file.tmp,
				 strerror(-ret));
		return ret;
	}
	cap = w->mpu ? DS_PART_SIZE : (size_t)w->size;
	while (len) {
		n = cap - w->fill < len ? cap - w->fill : len;
		memcpy(w->buf + w->fill, p, n);
		w->fill += n;
		p += n;
		len -= n;
		if (w->fill == cap && w->mpu) {
			ret = s3_flush_part(w, err, errlen);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int ds_writer_close(struct ds_writer *w, bool ok, char *err, size_t errlen)
{
	char e2[256];
	int ret = 0;

	if (!w)
		return 0;
	if (ok && w->written != w->size) {
		snprintf(err, errlen, "%s: %" PRIu64 " of %" PRIu64 " bytes written",
			 w->key, w->written, w->size);
		ok = false;
		ret = -EIO;
	}
	if (is_s3(w->c)) {
		if (ok && w->mpu) {
			if (w->fill)
				ret = s3_flush_part(w, err, errlen);
			if (!ret)
				ret = hcs3_mpu_complete(w->c->s3, w->c->be->bucket,
							w->key, w->upload_id,
							w->parts, w->etags, NULL,
							err, errlen);
		} else if (ok) {
			ret = hcs3_put(w->c->s3, w->c->be->bucket, w->key, w->buf,
				       w->fill, NULL, err, errlen);
		}
		if ((!ok || ret) && w->mpu)
			(void)hcs3_mpu_abort(w->c->s3, w->c->be->bucket, w->key,
					     w->upload_id, e2, sizeof(e2));
	} else if (w->file_open) {
		if (ok && !ret)
			ret = hc_posix_commit(&w->file, err, errlen);
		else
			hc_posix_abort(&w->file);
	}
	free(w->key);
	free(w->buf);
	free(w->etags);
	free(w);
	return ret;
}

int ds_read_file(struct ds_client *c, const char *key, uint64_t *size,
		 ds_chunk_fn cb, void *arg, char *err, size_t errlen)
{
	struct hcs3_object o;
	uint64_t off = 0;
	char *buf, *p;
	size_t n;
	int fd, ret = 0;

	*size = 0;
	buf = malloc(DS_PART_SIZE);
	if (!buf)
		return -ENOMEM;
	if (is_s3(c)) {
		ret = hcs3_head(c->s3, c->be->bucket, key, &o, err, errlen);
		while (!ret && off < o.size) {
			n = o.size - off < DS_PART_SIZE ? (size_t)(o.size - off) :
							   DS_PART_SIZE;
			ret = hcs3_get_range(c->s3, c->be->bucket, key, off, n,
					     o.etag, buf, err, errlen);
			if (!ret)
				ret = cb(buf, n, arg);
			off += n;
		}
		if (!ret)
			*size = o.size;
		free(buf);
		return ret;
	}
	p = posix_path(c, key, &ret, err, errlen);
	if (!p) {
		free(buf);
		return ret;
	}
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "%s: %s", p, strerror(errno));
	}
	while (!ret) {
		ret = hc_read_full(fd, buf, DS_PART_SIZE, &n);
		if (ret) {
			snprintf(err, errlen, "%s: read error: %s", p, strerror(-ret));
			break;
		}
		if (!n)
			break;
		off += n;
		ret = cb(buf, n, arg);
	}
	if (fd >= 0)
		close(fd);
	*size = off;
	free(p);
	free(buf);
	return ret;
}

/* --- the cache: listing ----------------------------------------------- */

struct list_ctx {
	const char *prefix;
	size_t plen;
	struct ds_obj *v;
	size_t n, cap;
	int err;
};

static int list_reply(struct nl_msg *msg, void *arg)
{
	static struct nla_policy pol[HC_A_OBJ_MAX + 1] = {
		[HC_A_OBJ_URI]	      = { .type = NLA_UNSPEC },
		[HC_A_OBJ_STATE]      = { .type = NLA_U32 },
		[HC_A_OBJ_SIZE]	      = { .type = NLA_U64 },
		[HC_A_OBJ_GENERATION] = { .type = NLA_U64 },
	};
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[HC_A_OBJ_MAX + 1];
	struct list_ctx *l = arg;
	struct ds_obj *o;
	int len;

	if (genlmsg_parse(nlh, 0, tb, HC_A_OBJ_MAX, pol) < 0 || !tb[HC_A_OBJ_URI])
		return NL_SKIP;
	len = nla_len(tb[HC_A_OBJ_URI]);
	if (len <= 0 || (size_t)len <= l->plen ||
	    memcmp(nla_data(tb[HC_A_OBJ_URI]), l->prefix, l->plen) ||
	    memchr(nla_data(tb[HC_A_OBJ_URI]), 0, (size_t)len))
		return NL_OK;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;

		o = realloc(l->v, cap * sizeof(*o));
		if (!o) {
			l->err = -ENOMEM;
			return NL_STOP;
		}
		l->v = o;
		l->cap = cap;
	}
	o = &l->v[l->n];
	memset(o, 0, sizeof(*o));
	o->uri = strndup(nla_data(tb[HC_A_OBJ_URI]), (size_t)len);
	if (!o->uri) {
		l->err = -ENOMEM;
		return NL_STOP;
	}
	if (tb[HC_A_OBJ_STATE])
		o->state = nla_get_u32(tb[HC_A_OBJ_STATE]);
	if (tb[HC_A_OBJ_SIZE])
		o->size = nla_get_u64(tb[HC_A_OBJ_SIZE]);
	if (tb[HC_A_OBJ_GENERATION])
		o->generation = nla_get_u64(tb[HC_A_OBJ_GENERATION]);
	l->n++;
	return NL_OK;
}

static int obj_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ds_obj *)a)->uri,
		      ((const struct ds_obj *)b)->uri);
}

int ds_cache_list(const char *object, const char *prefix, struct ds_obj **out,
		  size_t *n)
{
	struct list_ctx l = { .prefix = prefix, .plen = strlen(prefix) };
	struct hcctl_nl nl = { 0 };
	struct hcctl_nl_err err;
	struct nl_msg *msg;
	int ret = -1;

	*out = NULL;
	*n = 0;
	if (hcctl_nl_open(&nl, object) < 0)
		return -1;
	msg = hcctl_nl_request(&nl, HC_CMD_OBJ_GET, 0);
	if (msg && hcctl_nl_put_ctl_fd(msg, HC_A_OBJ_CTL_FD) < 0) {
		nlmsg_free(msg);
		msg = NULL;
	}
	if (!msg) {
		hcctl_err(object, "cannot build netlink request", ENOMEM);
		goto out;
	}
	ret = hcctl_nl_dump(&nl, msg, list_reply, &l, &err);
	if (ret < 0 || l.err) {
		if (l.err) {
			hcctl_err(object, "out of memory", ENOMEM);
		} else {
			if (err.kernel && err.error == ENODEV && !err.msg[0])
				snprintf(err.msg, sizeof(err.msg), "no pool is running");
			hcctl_nl_report(object, &err, NULL, NULL, 0);
		}
		ds_cache_list_free(l.v, l.n);
		ret = -1;
		goto out;
	}
	if (l.n)
		qsort(l.v, l.n, sizeof(*l.v), obj_cmp);
	*out = l.v;
	*n = l.n;
	ret = 0;
out:
	hcctl_nl_close(&nl);
	return ret;
}

void ds_cache_list_free(struct ds_obj *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i].uri);
	free(v);
}

/* --- the cache: reading ----------------------------------------------- */

int ds_cache_open(struct ds_cache *c, char *err, size_t errlen)
{
	int bs = 0, e;

	memset(c, 0, sizeof(*c));
	c->dev = -1;
	c->ctl = open(HC_CTL_PATH, O_RDONLY | O_CLOEXEC);
	if (c->ctl < 0) {
		e = errno;
		snprintf(err, errlen, "%s: %s", HC_CTL_PATH,
			 e == ENOENT ? "hypercache module not loaded" : strerror(e));
		return -e;
	}
	c->dev = open(HC_DATA_PATH, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (c->dev < 0) {
		e = errno;
		snprintf(err, errlen, "%s: cannot open: %s", HC_DATA_PATH,
			 strerror(e));
		ds_cache_close(c);
		return -e;
	}
	if (ioctl(c->dev, BLKSSZGET, &bs) < 0 || bs <= 0 || (bs & (bs - 1)) ||
	    DS_IO_SIZE % (unsigned int)bs) {
		snprintf(err, errlen, "%s: cannot get the logical block size",
			 HC_DATA_PATH);
		ds_cache_close(c);
		return -EINVAL;
	}
	c->lbs = (unsigned int)bs;
	e = posix_memalign(&c->buf, c->lbs > 4096 ? c->lbs : 4096, DS_IO_SIZE);
	if (e) {
		c->buf = NULL;
		snprintf(err, errlen, "out of memory");
		ds_cache_close(c);
		return -e;
	}
	return 0;
}

void ds_cache_close(struct ds_cache *c)
{
	if (c->ctl >= 0)
		close(c->ctl);
	if (c->dev >= 0)
		close(c->dev);
	free(c->buf);
	c->ctl = c->dev = -1;
	c->buf = NULL;
}

int ds_cache_read(struct ds_cache *c, const char *uri, uint32_t flags,
		  unsigned long timeout_s, uint64_t *size, uint64_t *gen,
		  ds_chunk_fn cb, void *arg, char *err, size_t errlen)
{
	struct hcctl_uri u = { .bytes = uri, .len = (uint32_t)strlen(uri) };
	struct hcctl_fetch_err fe;
	struct hc_extent *ext;
	struct hc_locate l;
	uint64_t left, off, elen;
	size_t n;
	uint32_t i;
	int ret = 0;

	ext = calloc(HC_MAX_EXTENTS, sizeof(*ext));
	if (!ext)
		return -ENOMEM;
	if (hcctl_obj_fetch(c->ctl, &u, HC_LOCATE_F_HOLD | flags, timeout_s, ext,
			 HC_MAX_EXTENTS, &l, &fe) < 0) {
		snprintf(err, errlen, "%s%s%s", fe.reason, fe.errnum ? ": " : "",
			 fe.errnum ? strerror(fe.errnum) : "");
		free(ext);
		return fe.errnum ? -fe.errnum : -ENOENT;
	}
	*size = l.obj_size;
	*gen = l.generation;
	left = l.obj_size;
	if (hc_extents_check(ext, l.nr_extents, l.obj_size, c->lbs, err, errlen))
		ret = -EIO;
	for (i = 0; i < l.nr_extents && left && !ret; i++) {
		off = ext[i].offset;
		elen = ext[i].length < left ? ext[i].length : left;
		while (elen && !ret) {
			n = elen < DS_IO_SIZE ? (size_t)elen : DS_IO_SIZE;
			ret = hc_pread_full(c->dev, c->buf,
					(n + c->lbs - 1) / c->lbs * c->lbs, off);
			if (ret) {
				snprintf(err, errlen, "%s: read error at offset %" PRIu64 ": %s",
					 HC_DATA_PATH, off, strerror(-ret));
				break;
			}
			ret = cb(c->buf, n, arg);	/* says why itself */
			if (ret)
				break;
			off += n;
			elen -= n;
			left -= n;
		}
	}
	(void)hcctl_ctl_release(c->ctl, &u);
	free(ext);
	return ret;
}

int ds_cache_evict(struct ds_cache *c, const char *uri)
{
	struct hcctl_uri u = { .bytes = uri, .len = (uint32_t)strlen(uri) };

	return hcctl_ctl_evict(c->ctl, &u);
}

/* --- misc ------------------------------------------------------------- */

int ds_run_path(const char *what, const char *suffix, char *out, size_t len)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	char hex[17];
	int i;

	if (!EVP_Digest(what, strlen(what), md, &mdlen, EVP_sha256(), NULL))
		return -EIO;
	for (i = 0; i < 8; i++)
		sprintf(hex + 2 * i, "%02x", md[i]);
	snprintf(out, len, DS_RUN_DIR "/flush-%s.%s", hex, suffix);
	return 0;
}
