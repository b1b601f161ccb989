// SPDX-License-Identifier: GPL-2.0
/*
 * hcctl - generic netlink session with the "hypercache" family.
 *
 * libnl 3.7 neither enables nor parses extended acks: its error callback
 * only gets the struct nlmsgerr.  We set NETLINK_EXT_ACK/NETLINK_CAP_ACK on
 * the socket ourselves and parse the ack's TLVs with nla_parse().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <netlink/netlink.h>
#include <netlink/msg.h>
#include <netlink/attr.h>
#include <netlink/handlers.h>
#include <netlink/socket.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>

#include "hypercache_netlink.h"
#include "hcctl.h"
#include "ctl.h"
#include "nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

int hcctl_nl_open(struct hcctl_nl *nl, const char *object)
{
	int one = 1;
	int fd, ret;

	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		hcctl_err(object, "cannot allocate a netlink socket", ENOMEM);
		return -1;
	}
	ret = genl_connect(nl->sk);
	if (ret < 0) {
		hcctl_errf(object, 0, "cannot open a generic netlink socket: %s",
			nl_geterror(ret));
		goto fail;
	}
	fd = nl_socket_get_fd(nl->sk);
	/*
	 * Best effort: without them (kernels before 4.12) errors still
	 * arrive, only without a message and an offset.
	 */
	(void)setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	(void)setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	nl_socket_enable_msg_peek(nl->sk);

	ret = genl_ctrl_resolve(nl->sk, HC_GENL_NAME);
	if (ret == -NLE_OBJ_NOTFOUND) {
		hcctl_errf(object, 0, "hypercache module not loaded (genl family \"%s\" not found)",
			HC_GENL_NAME);
		goto fail;
	}
	if (ret < 0) {
		hcctl_errf(object, 0, "cannot resolve genl family \"%s\": %s",
			HC_GENL_NAME, nl_geterror(ret));
		goto fail;
	}
	nl->family = ret;
	return 0;
fail:
	nl_socket_free(nl->sk);
	nl->sk = NULL;
	return -1;
}

void hcctl_nl_close(struct hcctl_nl *nl)
{
	if (nl->sk)
		nl_socket_free(nl->sk);
	nl->sk = NULL;
}

struct nl_msg *hcctl_nl_request(struct hcctl_nl *nl, uint8_t cmd, size_t payload)
{
	struct nl_msg *msg;

	msg = nlmsg_alloc_size(NLMSG_HDRLEN + GENL_HDRLEN + payload + 256);
	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0, 0,
			 cmd, HC_GENL_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

int hcctl_nl_put_ctl_fd(struct nl_msg *msg, int attr)
{
	static int fd = -2;

	if (geteuid() == 0)
		return 0;	/* CAP_NET_ADMIN: needs none (older kernels know none) */
	if (fd == -2)
		fd = open(HC_CTL_PATH, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;	/* CAP_NET_ADMIN may still do */
	return nla_put_u32(msg, attr, (uint32_t)fd);
}

uint32_t hcctl_nl_offset(struct nl_msg *msg, const void *attr)
{
	return (uint32_t)((const char *)attr - (const char *)nlmsg_hdr(msg));
}

struct hcctl_transact {
	hc_nl_reply_cb reply;
	void *arg;
	struct hcctl_nl_err *err;
	bool done;
	bool interrupted;
	int reply_err;
};

/*
 * Parse the TLVs of an NLMSG_ERROR message (error or ack) into @err.
 * Layout: nlmsghdr | nlmsgerr (with the echoed request header) |
 * [request payload unless NLM_F_CAPPED] | TLVs (if NLM_F_ACK_TLVS).
 */
static void parse_tlvs_at(const struct nlmsghdr *nlh, size_t hlen,
			  struct hcctl_nl_err *err)
{
	static struct nla_policy policy[NLMSGERR_ATTR_MAX + 1] = {
		[NLMSGERR_ATTR_MSG]	  = { .type = NLA_STRING },
		[NLMSGERR_ATTR_OFFS]	  = { .type = NLA_U32 },
		[NLMSGERR_ATTR_MISS_TYPE] = { .type = NLA_U32 },
		[NLMSGERR_ATTR_MISS_NEST] = { .type = NLA_U32 },
	};
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];

	if (NLMSG_ALIGN(hlen) > (size_t)nlmsg_datalen(nlh))
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, nlmsg_attrdata(nlh, hlen),
		      nlmsg_attrlen(nlh, hlen), policy) < 0)
		return;

	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(err->msg, sizeof(err->msg), "%s",
			 nla_get_string(tb[NLMSGERR_ATTR_MSG]));
	if (tb[NLMSGERR_ATTR_OFFS]) {
		err->has_offs = true;
		err->offs = nla_get_u32(tb[NLMSGERR_ATTR_OFFS]);
	} else if (tb[NLMSGERR_ATTR_MISS_NEST]) {
		err->has_offs = true;
		err->offs = nla_get_u32(tb[NLMSGERR_ATTR_MISS_NEST]);
	}
	if (tb[NLMSGERR_ATTR_MISS_TYPE]) {
		err->has_miss_type = true;
		err->miss_type = nla_get_u32(tb[NLMSGERR_ATTR_MISS_TYPE]);
	}
}

static void parse_ack_tlvs(const struct nlmsghdr *nlh, struct hcctl_nl_err *err)
{
	const struct nlmsgerr *e = nlmsg_data(nlh);
	size_t hlen = sizeof(*e);

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (e->msg.nlmsg_len < NLMSG_HDRLEN)
			return;
		hlen += e->msg.nlmsg_len - NLMSG_HDRLEN;
	}
	parse_tlvs_at(nlh, hlen, err);
}

static int transact_err(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct hcctl_transact *t = arg;
	/*
	 * libnl hands us nlmsg_data() of the NLMSG_ERROR message; its header
	 * sits right in front of it, and the ack TLVs follow the nlmsgerr.
	 */
	const struct nlmsghdr *nlh =
		(const struct nlmsghdr *)((const char *)e - NLMSG_HDRLEN);

	(void)nla;
	t->err->kernel = true;
	t->err->error = e->error < 0 ? -e->error : e->error;
	parse_ack_tlvs(nlh, t->err);
	t->done = true;
	return NL_STOP;
}

static int transact_ack(struct nl_msg *msg, void *arg)
{
	struct hcctl_transact *t = arg;
	struct hcctl_nl_err warn = { 0 };

	/* A successful ack may still carry a warning message. */
	parse_ack_tlvs(nlmsg_hdr(msg), &warn);
	if (warn.msg[0])
		fprintf(stderr, "hcctl: warning: %s\n", warn.msg);
	t->done = true;
	return NL_STOP;
}

/*
 * End of a dump.  Layout: nlmsghdr | int error | TLVs (if NLM_F_ACK_TLVS).
 * A dump that failed after its first message reports the error here.
 */
static int transact_finish(struct nl_msg *msg, void *arg)
{
	struct hcctl_transact *t = arg;
	const struct nlmsghdr *nlh = nlmsg_hdr(msg);
	int error;

	if (nlmsg_datalen(nlh) >= (int)sizeof(int)) {
		memcpy(&error, nlmsg_data(nlh), sizeof(error));
		if (error < 0) {
			t->err->kernel = true;
			t->err->error = -error;
			if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
				parse_tlvs_at(nlh, sizeof(int), t->err);
		}
	}
	t->done = true;
	return NL_STOP;
}

static int transact_dump_intr(struct nl_msg *msg, void *arg)
{
	struct hcctl_transact *t = arg;

	(void)msg;
	t->interrupted = true;
	return NL_OK;
}

static int transact_valid(struct nl_msg *msg, void *arg)
{
	struct hcctl_transact *t = arg;
	int ret;

	if (t->reply && !t->reply_err) {
		ret = t->reply(msg, t->arg);
		if (ret < 0)
			t->reply_err = -ret;
	}
	return NL_OK;
}

static int transact(struct hcctl_nl *nl, struct nl_msg *msg, hc_nl_reply_cb reply,
		    void *arg, struct hcctl_nl_err *err, bool dump)
{
	struct hcctl_transact t = { .reply = reply, .arg = arg, .err = err };
	struct nl_cb *cb;
	int ret;

	memset(err, 0, sizeof(*err));
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		err->error = ENOMEM;
		return -ENOMEM;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, transact_valid, &t);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, transact_ack, &t);
	nl_cb_err(cb, NL_CB_CUSTOM, transact_err, &t);
	if (dump) {
		nlmsg_hdr(msg)->nlmsg_flags |= NLM_F_DUMP;
		nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, transact_finish, &t);
		nl_cb_set(cb, NL_CB_DUMP_INTR, NL_CB_CUSTOM, transact_dump_intr,
			  &t);
	}

	ret = nl_send_auto(nl->sk, msg);
	nlmsg_free(msg);
	if (ret < 0) {
		snprintf(err->local, sizeof(err->local),
			 "cannot send request: %s", nl_geterror(ret));
		err->error = EIO;
		goto out;
	}
	while (!t.done) {
		ret = nl_recvmsgs(nl->sk, cb);
		if (ret < 0 && !t.done) {
			snprintf(err->local, sizeof(err->local),
				 "cannot receive reply: %s", nl_geterror(ret));
			err->error = EIO;
			goto out;
		}
	}
	if (!err->error && t.reply_err) {
		snprintf(err->local, sizeof(err->local),
			 "malformed reply from the kernel");
		err->error = t.reply_err;
	}
	if (!err->error && t.interrupted)
		fprintf(stderr,
			"hcctl: warning: the list changed while it was read; it may be inconsistent\n");
out:
	nl_cb_put(cb);
	return err->error ? -err->error : 0;
}

int hcctl_nl_transact(struct hcctl_nl *nl, struct nl_msg *msg, hc_nl_reply_cb reply,
		   void *arg, struct hcctl_nl_err *err)
{
	return transact(nl, msg, reply, arg, err, false);
}

int hcctl_nl_dump(struct hcctl_nl *nl, struct nl_msg *msg, hc_nl_reply_cb reply,
	       void *arg, struct hcctl_nl_err *err)
{
	return transact(nl, msg, reply, arg, err, true);
}

void hcctl_nl_report(const char *object, const struct hcctl_nl_err *err,
		  const struct hcctl_nl_span *spans, char *const *names,
		  size_t n)
{
	char buf[64];
	const char *reason = NULL;
	size_t i;

	if (err->kernel && err->has_offs) {
		for (i = 0; i < n; i++) {
			if (err->offs >= spans[i].start &&
			    err->offs < spans[i].end) {
				object = names[i];
				break;
			}
		}
	}
	if (err->msg[0]) {
		reason = err->msg;
	} else if (err->local[0]) {
		reason = err->local;
	} else if (err->has_miss_type) {
		snprintf(buf, sizeof(buf), "missing attribute %u",
			 err->miss_type);
		reason = buf;
	}
	hcctl_err_hint(object, reason, err->error,
		    err->error == EPERM ?
		    "(needs CAP_NET_ADMIN; run as root)" : NULL);
}

int hcctl_nl_subscribe(struct hcctl_nl *nl, const char *group, const char *object)
{
	int grp, ret;

	grp = genl_ctrl_resolve_grp(nl->sk, HC_GENL_NAME, group);
	if (grp < 0) {
		hcctl_errf(object, 0,
			"multicast group \"%s\" of genl family \"%s\" not found: %s",
			group, HC_GENL_NAME, nl_geterror(grp));
		return -1;
	}
	ret = nl_socket_add_membership(nl->sk, grp);
	if (ret < 0) {
		hcctl_errf(object, 0, "cannot join multicast group \"%s\": %s",
			group, nl_geterror(ret));
		return -1;
	}
	return 0;
}
