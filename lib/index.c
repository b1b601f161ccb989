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

static int nl_send(int fd, uint16_t type, uint16_t flags, uint8_t cmd,
		   uint8_t version, uint16_t attr, const void *data,
		   uint16_t len, uint32_t seq)
{
	char buf[256] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct nlmsghdr *n = (struct nlmsghdr *)buf;
	struct genlmsghdr *g;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	memset(buf, 0, sizeof(buf));
	n->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	n->nlmsg_type = type;
	n->nlmsg_flags = NLM_F_REQUEST | flags;
	n->nlmsg_seq = seq;
	g = NLMSG_DATA(n);
	g->cmd = cmd;
	g->version = version;
	put_attr(n, attr, data, len);
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

static void obj_attr(void *arg, const struct nlattr *a)
{
	struct hc_lib_info *o = arg;
	const char *d = (const char *)a + NLA_HDRLEN;
	uint16_t len = (uint16_t)(a->nla_len - NLA_HDRLEN);

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
	}
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

struct list_state {
	const char *prefix;
	size_t prefix_len;
	int (*fn)(void *arg, const struct hc_lib_info *info);
	void *arg;
	int stopped;
};

static int got_obj(void *arg, struct nlmsghdr *n)
{
	struct list_state *s = arg;
	struct hc_lib_info o;

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

HCL_EXPORT int hc_ctx_list(struct hc_ctx *ctx, const void *prefix,
			   size_t prefix_len,
			   int (*fn)(void *arg, const struct hc_lib_info *info),
			   void *arg)
{
	struct list_state s = {
		.prefix = prefix, .prefix_len = prefix_len, .fn = fn, .arg = arg,
	};
	uint16_t family = 0;
	uint32_t ctl = (uint32_t)ctx->ctl;
	char *buf = malloc(NL_BUF);
	int fd, e;

	if (!buf)
		return -ENOMEM;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0) {
		e = -errno;
		goto out;
	}
	e = nl_send(fd, GENL_ID_CTRL, NLM_F_ACK, CTRL_CMD_GETFAMILY, 1,
		    CTRL_ATTR_FAMILY_NAME, HC_GENL_NAME, sizeof(HC_GENL_NAME), 1);
	if (!e)
		e = nl_recv(fd, 1, 0, buf, got_family, &family);
	if (!e && !family)
		e = -ENOENT;	/* the module is not loaded */
	if (!e)
		e = nl_send(fd, family, NLM_F_DUMP, HC_CMD_OBJ_GET,
			    HC_GENL_VERSION, HC_A_OBJ_CTL_FD, &ctl, sizeof(ctl),
			    2);
	if (!e)
		e = nl_recv(fd, 2, 1, buf, got_obj, &s);
	close(fd);
out:
	free(buf);
	return e;
}
