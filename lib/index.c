// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * libhypercache: the object index as a client sees it: one object's state
 * (LOCATE with PEEK), the listing of every object (the generic-netlink
 * dump HC_CMD_OBJ_GET, authorised by the context's control descriptor),
 * EVICT, and waiting until an object is clean in the backend.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include "hypercache.h"			/* uapi */
#include "hypercache_netlink.h"		/* uapi */
#include "hypercache/hypercache.h"
#include "internal.h"

#define NL_BUF	(64 * 1024)

HCL_EXPORT int hc_ctx_info(struct hc_ctx *ctx, const void *uri, size_t uri_len,
			   struct hc_lib_info *info)
{
	struct hc_locate l;
	int e;

	e = hcl_check_uri(uri, uri_len, NULL, 0);
	if (e)
		return e;
	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	l.flags = HC_LOCATE_F_PEEK;
	l.uri = (uintptr_t)uri;
	l.uri_len = (uint32_t)uri_len;
	if (ioctl(ctx->ctl, HC_IOC_LOCATE, &l) < 0)
		return -errno;
	if (l.status == HC_LOCATE_MISS)
		return -ENOENT;
	memset(info, 0, sizeof(*info));
	info->uri = uri;
	info->uri_len = uri_len;
	info->state = l.state;
	info->flags = l.obj_flags;
	info->size = l.obj_size;
	info->generation = l.generation;
	return 0;
}

HCL_EXPORT int hc_ctx_evict(struct hc_ctx *ctx, const void *uri,
			    size_t uri_len)
{
	struct hc_obj_ref ref = { .size = sizeof(ref) };
	int e = hcl_check_uri(uri, uri_len, NULL, 0);

	if (e)
		return e;
	ref.uri = (uintptr_t)uri;
	ref.uri_len = (uint32_t)uri_len;
	return ioctl(ctx->ctl, HC_IOC_EVICT, &ref) < 0 ? -errno : 0;
}

HCL_EXPORT int hc_ctx_wait_clean(struct hc_ctx *ctx, const void *uri,
				 size_t uri_len, uint64_t generation,
				 uint32_t timeout_ms)
{
	struct timespec pause = { 0, 20 * 1000 * 1000 }, t0, t;
	struct hc_lib_info info;
	int e;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		e = hc_ctx_info(ctx, uri, uri_len, &info);
		if (e)
			return e;		/* -ENOENT: gone before the upload */
		if (info.generation != generation)
			return -ESTALE;		/* replaced meanwhile */
		if (info.state == HC_OBJ_READY)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (timeout_ms && (uint64_t)((t.tv_sec - t0.tv_sec) * 1000 +
					     (t.tv_nsec - t0.tv_nsec) / 1000000) >=
				  timeout_ms)
			return -ETIMEDOUT;
		nanosleep(&pause, NULL);
	}
}

static void put_attr(struct nlmsghdr *n, uint16_t type, const void *data,
		     uint16_t len)
{
	struct nlattr *a = (struct nlattr *)((char *)n + NLMSG_ALIGN(n->nlmsg_len));

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy((char *)a + NLA_HDRLEN, data, len);
	n->nlmsg_len = NLMSG_ALIGN(n->nlmsg_len) + NLA_ALIGN(a->nla_len);
}

/* One attribute of a request: nl_send() takes up to two. */
struct nl_attr_arg {
	uint16_t type;
	uint16_t len;
	const void *data;
};

/* A request's room: the headers, a URI and a u32 attribute. */
#define NL_REQ	(NLMSG_HDRLEN + GENL_HDRLEN + 2 * NLA_HDRLEN + \
		 NLA_ALIGN(HC_URI_MAX) + NLA_ALIGN(4))

static int nl_send(int fd, uint16_t type, uint16_t flags, uint8_t cmd,
		   uint8_t version, const struct nl_attr_arg *attrs,
		   unsigned int nr, uint32_t seq)
{
	char buf[NL_REQ] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct nlmsghdr *n = (struct nlmsghdr *)buf;
	struct genlmsghdr *g;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	unsigned int i;

	memset(buf, 0, sizeof(buf));
	n->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	n->nlmsg_type = type;
	n->nlmsg_flags = NLM_F_REQUEST | flags;
	n->nlmsg_seq = seq;
	g = NLMSG_DATA(n);
	g->cmd = cmd;
	g->version = version;
	for (i = 0; i < nr && i < 2; i++)
		put_attr(n, attrs[i].type, attrs[i].data, attrs[i].len);
	if (sendto(fd, buf, n->nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0)
		return -errno;
	return 0;
}

/* Call @fn for each attribute of a generic-netlink message. */
static void each_attr(struct nlmsghdr *n,
		      void (*fn)(void *arg, const struct nlattr *a), void *arg)
{
	char *p = (char *)NLMSG_DATA(n) + GENL_HDRLEN;
	char *end = (char *)n + n->nlmsg_len;

	while (p + NLA_HDRLEN <= end) {
		const struct nlattr *a = (const struct nlattr *)p;

		if (a->nla_len < NLA_HDRLEN || p + a->nla_len > end)
			break;
		fn(arg, a);
		p += NLA_ALIGN(a->nla_len);
	}
}

static void family_attr(void *arg, const struct nlattr *a)
{
	if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID &&
	    a->nla_len >= NLA_HDRLEN + 2)
		memcpy(arg, (const char *)a + NLA_HDRLEN, 2);
}

/*
 * One attribute of an HC_CMD_OBJ_GET reply into @o (internal.h).  The URI
 * points into the message; the ETag is copied (at most HC_LIB_ETAG_MAX
 * bytes, up to its NUL) and NUL-terminated; attributes shorter than their
 * type are ignored.
 */
void hcl_obj_attr(struct hc_lib_object *o, const struct nlattr *a)
{
	const char *d = (const char *)a + NLA_HDRLEN;
	uint16_t len = (uint16_t)(a->nla_len - NLA_HDRLEN);
	const char *nul;

	switch (a->nla_type & NLA_TYPE_MASK) {
	case HC_A_OBJ_URI:
		o->uri = d;
		o->uri_len = len;
		break;
	case HC_A_OBJ_STATE:
		if (len >= 4)
			memcpy(&o->state, d, 4);
		break;
	case HC_A_OBJ_FLAGS:
		if (len >= 4)
			memcpy(&o->flags, d, 4);
		break;
	case HC_A_OBJ_SIZE:
		if (len >= 8)
			memcpy(&o->size, d, 8);
		break;
	case HC_A_OBJ_GENERATION:
		if (len >= 8)
			memcpy(&o->generation, d, 8);
		break;
	case HC_A_OBJ_CHUNKS:
		if (len >= 8)
			memcpy(&o->chunks, d, 8);
		break;
	case HC_A_OBJ_HOLDS:
		if (len >= 4)
			memcpy(&o->holds, d, 4);
		break;
	case HC_A_OBJ_ETAG:
		nul = memchr(d, 0, len);
		if (nul)
			len = (uint16_t)(nul - d);
		if (len > HC_LIB_ETAG_MAX)
			len = HC_LIB_ETAG_MAX;
		memcpy(o->etag, d, len);
		o->etag[len] = '\0';
		o->etag_len = len;
		break;
	case HC_A_OBJ_LAST_MODIFIED:
		if (len >= 8)
			memcpy(&o->last_modified, d, 8);
		break;
	}
}

static void obj_attr(void *arg, const struct nlattr *a)
{
	hcl_obj_attr(arg, a);
}

/*
 * Receive the replies to request @seq; each generic-netlink message goes
 * to @fn.  Return: 0 at NLMSG_DONE (dump) or after one reply (@dump
 * false), or a negative errno (NLMSG_ERROR).
 */
static int nl_recv(int fd, uint32_t seq, int dump, char *buf,
		   int (*fn)(void *arg, struct nlmsghdr *n), void *arg)
{
	for (;;) {
		ssize_t got = recv(fd, buf, NL_BUF, 0);
		struct nlmsghdr *n;
		int len, ret;

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		len = (int)got;
		for (n = (struct nlmsghdr *)buf; NLMSG_OK(n, len);
		     n = NLMSG_NEXT(n, len)) {
			if (n->nlmsg_seq != seq)
				continue;
			if (n->nlmsg_type == NLMSG_DONE)
				return 0;
			if (n->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(n);

				if (e->error)
					return e->error;
				if (!dump)
					return 0;
				continue;
			}
			ret = fn(arg, n);
			if (ret)
				return ret;
			if (!dump)
				return 0;
		}
	}
}

static int got_family(void *arg, struct nlmsghdr *n)
{
	each_attr(n, family_attr, arg);
	return 0;
}

/* A generic-netlink socket and HyperCache's family id, or an errno. */
static int nl_open(int *fdp, uint16_t *family, char *buf)
{
	struct nl_attr_arg name = {
		CTRL_ATTR_FAMILY_NAME, sizeof(HC_GENL_NAME), HC_GENL_NAME,
	};
	int fd, e;

	*family = 0;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	e = nl_send(fd, GENL_ID_CTRL, NLM_F_ACK, CTRL_CMD_GETFAMILY, 1, &name,
		    1, 1);
	if (!e)
		e = nl_recv(fd, 1, 0, buf, got_family, family);
	if (!e && !*family)
		e = -ENOENT;	/* the module is not loaded */
	if (e) {
		close(fd);
		return e;
	}
	*fdp = fd;
	return 0;
}

struct list_state {
	const char *prefix;
	size_t prefix_len;
	int (*fn)(void *arg, const struct hc_lib_object *obj);
	void *arg;
	int stopped;
};

static int got_obj(void *arg, struct nlmsghdr *n)
{
	struct list_state *s = arg;
	struct hc_lib_object o;

	if (s->stopped)
		return 0;	/* drain the rest of the dump */
	memset(&o, 0, sizeof(o));
	each_attr(n, obj_attr, &o);
	if (!o.uri || o.uri_len < s->prefix_len ||
	    memcmp(o.uri, s->prefix, s->prefix_len))
		return 0;
	if (s->fn(s->arg, &o))
		s->stopped = 1;
	return 0;
}

HCL_EXPORT int hc_ctx_list_objects(struct hc_ctx *ctx, const void *prefix,
				   size_t prefix_len,
				   int (*fn)(void *arg,
					     const struct hc_lib_object *obj),
				   void *arg)
{
	struct list_state s = {
		.prefix = prefix, .prefix_len = prefix_len, .fn = fn, .arg = arg,
	};
	uint32_t ctl = (uint32_t)ctx->ctl;
	/* the kernel sends only the prefix's objects; got_obj() checks too */
	struct nl_attr_arg attrs[2] = {
		{ HC_A_OBJ_CTL_FD, sizeof(ctl), &ctl },
		{ HC_A_OBJ_PREFIX, (uint16_t)prefix_len, prefix },
	};
	unsigned int nr = prefix_len && prefix_len <= HC_URI_MAX ? 2 : 1;
	uint16_t family;
	char *buf = malloc(NL_BUF);
	int fd, e;

	if (!buf)
		return -ENOMEM;
	e = nl_open(&fd, &family, buf);
	if (!e) {
		e = nl_send(fd, family, NLM_F_DUMP, HC_CMD_OBJ_GET,
			    HC_GENL_VERSION, attrs, nr, 2);
		if (!e)
			e = nl_recv(fd, 2, 1, buf, got_obj, &s);
		close(fd);
	}
	free(buf);
	return e;
}

/* hc_ctx_list() over hc_ctx_list_objects(): the fields of the 1.0 struct. */
struct info_fn {
	int (*fn)(void *arg, const struct hc_lib_info *info);
	void *arg;
};

static int info_of_obj(void *arg, const struct hc_lib_object *o)
{
	const struct info_fn *f = arg;
	struct hc_lib_info i = {
		.uri = o->uri, .uri_len = o->uri_len, .state = o->state,
		.flags = o->flags, .size = o->size, .generation = o->generation,
	};

	return f->fn(f->arg, &i);
}

HCL_EXPORT int hc_ctx_list(struct hc_ctx *ctx, const void *prefix,
			   size_t prefix_len,
			   int (*fn)(void *arg, const struct hc_lib_info *info),
			   void *arg)
{
	struct info_fn f = { fn, arg };

	return hc_ctx_list_objects(ctx, prefix, prefix_len, info_of_obj, &f);
}

static int got_one(void *arg, struct nlmsghdr *n)
{
	each_attr(n, obj_attr, arg);
	return 0;
}

HCL_EXPORT int hc_ctx_object_info(struct hc_ctx *ctx, const void *uri,
				  size_t uri_len, struct hc_lib_object *obj)
{
	uint32_t ctl = (uint32_t)ctx->ctl;
	struct nl_attr_arg attrs[2] = {
		{ HC_A_OBJ_URI, (uint16_t)uri_len, uri },
		{ HC_A_OBJ_CTL_FD, sizeof(ctl), &ctl },
	};
	uint16_t family;
	char *buf;
	int fd, e;

	memset(obj, 0, sizeof(*obj));
	e = hcl_check_uri(uri, uri_len, NULL, 0);
	if (e)
		return e;
	buf = malloc(NL_BUF);
	if (!buf)
		return -ENOMEM;
	e = nl_open(&fd, &family, buf);
	if (!e) {
		e = nl_send(fd, family, 0, HC_CMD_OBJ_GET, HC_GENL_VERSION,
			    attrs, 2, 2);
		if (!e)
			e = nl_recv(fd, 2, 0, buf, got_one, obj);
		close(fd);
	}
	if (!e && (obj->uri_len != uri_len || memcmp(obj->uri, uri, uri_len)))
		e = -EPROTO;	/* not the object asked for */
	/* the reply's URI is in @buf: point at the caller's bytes */
	obj->uri = e ? NULL : uri;
	if (e)
		memset(obj, 0, sizeof(*obj));
	free(buf);
	return e;
}
