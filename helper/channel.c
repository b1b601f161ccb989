// SPDX-License-Identifier: GPL-2.0
/*
 * The helper channel over generic netlink (libnl-genl-3): see channel.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include "channel.h"
#include "util.h"

/*
 * A call waiting for its ack: the kernel answers each request in the
 * sender's sendmsg(), so its ack (and an ALLOC's reply, with the same
 * sequence number) is queued on the socket when the send returns.
 */
struct call {
	uint32_t seq;
	bool acked;
	int err;			/* the ack's, or -EIO */
	struct hc_ingest_req *reply;	/* where an ALLOC reply goes */
	bool got_reply, admitted;
	struct call *next;
};

/*
 * Several threads may call at once (hypercached's DONE reporters beside
 * its dispatcher).  Each sends its own request; one thread at a time
 * reads the socket (@reading: the reader's turn, a datagram at a time,
 * libnl peeks before it reads) and hands every ack to its call by
 * sequence number and every request to the queue.  The others wait on
 * @cv, or, in hc_channel_next(), on @evfd, which the reader pokes when it
 * gives the turn back.
 */
struct hc_channel {
	struct nl_sock *sk;
	int family;
	uint8_t req_cmd;	/* HC_CMD_INGEST or HC_CMD_EGRESS */
	pthread_mutex_t lock;	/* everything below */
	pthread_cond_t cv;	/* the reader's turn is free, or an ack came */
	int evfd;		/* eventfd, the same for hc_channel_next() */
	bool reading;
	uint32_t seq;		/* the last sequence number used */
	struct call *calls;	/* waiting for their ack */
	/* requests received, not yet handed out: a FIFO in a growing array */
	struct hc_ingest_req *q;
	size_t q_head, q_len, q_cap;
};

static struct nla_policy ing_policy[HC_A_ING_MAX + 1] = {
	[HC_A_ING_ID] = { .type = NLA_U64 },
	[HC_A_ING_URI] = { .type = NLA_UNSPEC },
	[HC_A_ING_SIZE] = { .type = NLA_U64 },
	[HC_A_ING_ADMITTED] = { .type = NLA_U8 },
	[HC_A_ING_EXTENT] = { .type = NLA_NESTED },
	[HC_A_ING_POOL_UUID] = { .type = NLA_UNSPEC },
};

static struct nla_policy rev_policy[HC_A_REV_MAX + 1] = {
	[HC_A_REV_ID] = { .type = NLA_U64 },
	[HC_A_REV_URI] = { .type = NLA_UNSPEC },
	[HC_A_REV_POOL_UUID] = { .type = NLA_UNSPEC },
	[HC_A_REV_SIZE] = { .type = NLA_U64 },
	[HC_A_REV_ETAG] = { .type = NLA_STRING },
	[HC_A_REV_LAST_MODIFIED] = { .type = NLA_U64 },
};

static struct nla_policy egress_policy[HC_A_EGRESS_MAX + 1] = {
	[HC_A_EGRESS_GENERATION] = { .type = NLA_U64 },
	[HC_A_EGRESS_URI] = { .type = NLA_UNSPEC },
	[HC_A_EGRESS_SIZE] = { .type = NLA_U64 },
	[HC_A_EGRESS_EXTENT] = { .type = NLA_NESTED },
	[HC_A_EGRESS_CRC32C] = { .type = NLA_U32 },
	[HC_A_EGRESS_POOL_UUID] = { .type = NLA_UNSPEC },
};

/*
 * A request's attributes, in the set of its channel: ingest (HC_A_ING_*)
 * or egress (HC_A_EGRESS_*).
 */
struct req_attrs {
	int id, uri, size, extent, crc32c, pool_uuid;
};

static const struct req_attrs ing_attrs = {
	HC_A_ING_ID, HC_A_ING_URI, HC_A_ING_SIZE, HC_A_ING_EXTENT, 0,
	HC_A_ING_POOL_UUID,
};

/* extent 0: a revalidation (enqueue() reads its own attributes) */
static const struct req_attrs rev_attrs = {
	HC_A_REV_ID, HC_A_REV_URI, HC_A_REV_SIZE, 0, 0, HC_A_REV_POOL_UUID,
};

static const struct req_attrs egress_attrs = {
	HC_A_EGRESS_GENERATION, HC_A_EGRESS_URI, HC_A_EGRESS_SIZE,
	HC_A_EGRESS_EXTENT, HC_A_EGRESS_CRC32C, HC_A_EGRESS_POOL_UUID,
};

static void fail_calls(struct hc_channel *ch);

/*
 * Receive one datagram, by the thread with the reader's turn, @ch->lock
 * not held.  ENOBUFS (libnl: NLE_NOMEM) says the kernel could not queue a
 * message for us: a request, which it sends again by itself
 * (architecture.md, "The helper channel"), or an ack.  So every call
 * waiting fails (-EIO), as on any failed read; libnl's result.
 */
static int recv_one(struct hc_channel *ch)
{
	int ret = nl_recvmsgs_default(ch->sk);

	if (ret < 0) {
		pthread_mutex_lock(&ch->lock);
		fail_calls(ch);
		pthread_mutex_unlock(&ch->lock);
	}
	return ret;
}

/* The size and extents of a message (INGEST re-sent, or ALLOC reply). */
static void parse_extents(struct nlattr **tb, struct nlmsghdr *nlh,
			  const struct req_attrs *at, struct hc_ingest_req *r)
{
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct nlattr *a;
	int rem;

	r->nr_ext = 0;
	r->allocated = false;
	if (tb[at->size]) {
		r->allocated = true;
		r->size = nla_get_u64(tb[at->size]);
	}
	if (tb[at->pool_uuid] && nla_len(tb[at->pool_uuid]) == 16) {
		r->has_pool = true;
		memcpy(r->pool_uuid, nla_data(tb[at->pool_uuid]), 16);
	}
	nla_for_each_attr(a, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0), rem) {
		struct nlattr *e[HC_A_EXT_MAX + 1];

		if (nla_type(a) != at->extent || r->nr_ext == HC_MAX_EXTENTS)
			continue;
		if (nla_parse_nested(e, HC_A_EXT_MAX, a, NULL) ||
		    !e[HC_A_EXT_OFFSET] || !e[HC_A_EXT_LENGTH])
			continue;
		r->ext[r->nr_ext].offset = nla_get_u64(e[HC_A_EXT_OFFSET]);
		r->ext[r->nr_ext].length = nla_get_u64(e[HC_A_EXT_LENGTH]);
		r->nr_ext++;
	}
}

static int enqueue(struct hc_channel *ch, struct nlattr **tb,
		   struct nlmsghdr *nlh, const struct req_attrs *at)
{
	struct hc_ingest_req *r;
	size_t len;

	if (!tb[at->id] || !tb[at->uri] ||
	    (!at->extent && !tb[at->size]))	/* a revalidation has a size */
		return NL_SKIP;
	len = nla_len(tb[at->uri]);
	if (len == 0 || len > HC_URI_MAX)
		return NL_SKIP;
	if (ch->q_head + ch->q_len == ch->q_cap) {
		if (ch->q_head) {	/* compact first */
			memmove(ch->q, ch->q + ch->q_head,
				ch->q_len * sizeof(*ch->q));
			ch->q_head = 0;
		} else {
			size_t cap = ch->q_cap ? 2 * ch->q_cap : 16;
			void *p = realloc(ch->q, cap * sizeof(*ch->q));

			if (!p)
				return NL_SKIP;	/* re-sent on the next register */
			ch->q = p;
			ch->q_cap = cap;
		}
	}
	r = &ch->q[ch->q_head + ch->q_len];
	memset(r, 0, sizeof(*r));
	r->id = nla_get_u64(tb[at->id]);
	memcpy(r->uri, nla_data(tb[at->uri]), len);
	r->uri[len] = '\0';
	r->uri_len = len;
	if (!at->extent) {	/* HC_CMD_REVALIDATE */
		r->reval = true;
		r->size = nla_get_u64(tb[HC_A_REV_SIZE]);
		if (tb[HC_A_REV_POOL_UUID] &&
		    nla_len(tb[HC_A_REV_POOL_UUID]) == 16) {
			r->has_pool = true;
			memcpy(r->pool_uuid, nla_data(tb[HC_A_REV_POOL_UUID]),
			       16);
		}
		if (tb[HC_A_REV_ETAG])
			nla_strlcpy(r->etag, tb[HC_A_REV_ETAG],
				    sizeof(r->etag));
		if (tb[HC_A_REV_LAST_MODIFIED])
			r->mtime = (int64_t)nla_get_u64(tb[HC_A_REV_LAST_MODIFIED]);
		ch->q_len++;
		return NL_OK;
	}
	parse_extents(tb, nlh, at, r);
	if (at->crc32c && tb[at->crc32c]) {
		r->has_crc = true;
		r->crc32c = nla_get_u32(tb[at->crc32c]);
	}
	ch->q_len++;
	return NL_OK;
}

/* Every call waiting has failed (-EIO); under @ch->lock. */
static void fail_calls(struct hc_channel *ch)
{
	struct call *c;

	for (c = ch->calls; c; c = c->next)
		if (!c->acked) {
			c->err = -EIO;
			c->acked = true;
		}
}

/* The call waiting for the ack of @seq, or NULL; under @ch->lock. */
static struct call *call_find(struct hc_channel *ch, uint32_t seq)
{
	struct call *c;

	for (c = ch->calls; c && c->seq != seq; c = c->next)
		;
	return c;
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct hc_channel *ch = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *g = nlmsg_data(nlh);
	/* one array for both sets: the larger of the two */
	struct nlattr *tb[(int)HC_A_EGRESS_MAX > (int)HC_A_ING_MAX ?
			  HC_A_EGRESS_MAX + 1 : HC_A_ING_MAX + 1];
	struct call *c;
	int ret = NL_OK;

	if (g->cmd == HC_CMD_REVALIDATE) {
		if (ch->req_cmd != HC_CMD_INGEST ||
		    genlmsg_parse(nlh, 0, tb, HC_A_REV_MAX, rev_policy))
			return NL_SKIP;
		pthread_mutex_lock(&ch->lock);
		ret = enqueue(ch, tb, nlh, &rev_attrs);
		pthread_mutex_unlock(&ch->lock);
		return ret;
	}
	if (g->cmd == HC_CMD_EGRESS) {
		if (genlmsg_parse(nlh, 0, tb, HC_A_EGRESS_MAX, egress_policy))
			return NL_SKIP;
		if (g->cmd != ch->req_cmd)
			return NL_OK;
		pthread_mutex_lock(&ch->lock);
		ret = enqueue(ch, tb, nlh, &egress_attrs);
		pthread_mutex_unlock(&ch->lock);
		return ret;
	}
	if (genlmsg_parse(nlh, 0, tb, HC_A_ING_MAX, ing_policy))
		return NL_SKIP;
	pthread_mutex_lock(&ch->lock);
	if (g->cmd == ch->req_cmd) {
		ret = enqueue(ch, tb, nlh, &ing_attrs);
	} else if (g->cmd == HC_CMD_INGEST_ALLOC) {
		c = call_find(ch, nlh->nlmsg_seq);
		if (c && c->reply) {
			parse_extents(tb, nlh, &ing_attrs, c->reply);
			c->admitted = tb[HC_A_ING_ADMITTED] &&
				      nla_get_u8(tb[HC_A_ING_ADMITTED]);
			c->got_reply = true;
		}
	}
	pthread_mutex_unlock(&ch->lock);
	return ret;
}

/* The call of ack @seq has it, with @err; an unknown one is dropped. */
static void acked(struct hc_channel *ch, uint32_t seq, int err)
{
	struct call *c;

	pthread_mutex_lock(&ch->lock);
	c = call_find(ch, seq);
	if (c) {
		c->err = err;
		c->acked = true;
	}
	pthread_mutex_unlock(&ch->lock);
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	acked(arg, nlmsg_hdr(msg)->nlmsg_seq, 0);
	return NL_STOP;
}

static int on_err(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	(void)nla;
	acked(arg, e->msg.nlmsg_seq, e->error);
	return NL_STOP;
}

/* What a call carries besides its command; NULL/0: left out. */
struct call_args {
	const struct hc_ingest_req *r;	/* id (or generation), pool UUID */
	bool uri;			/* egress: @r's URI too */
	const uint64_t *size;
	int err_no;
	const char *etag;
	int64_t mtime;			/* Last-Modified; sent if in range */
	const uint32_t *crc;
	const uint32_t *retry_ms;
	bool permanent;			/* egress fail */
	const char *msg;		/* egress fail, NULL: none */
	struct hc_ingest_req *reply;	/* ALLOC: its reply goes here, */
	bool *admitted;			/* and whether it was admitted */
};

/*
 * Whether Last-Modified @t can be sent: 1..HC_LAST_MODIFIED_MAX (the
 * kernel refuses more; a posix file may be older than 1970 or from the far
 * future, and is sent as unknown then).
 */
static bool mtime_ok(int64_t t)
{
	return t > 0 && (uint64_t)t <= HC_LAST_MODIFIED_MAX;
}

/* Put @a into @m in the attribute set of @cmd's channel. */
static int put_args(struct nl_msg *m, uint8_t cmd, const struct call_args *a)
{
	bool eg = cmd == HC_CMD_EGRESS_DONE || cmd == HC_CMD_EGRESS_FAIL;
	const struct hc_ingest_req *r = a->r;

	if (!r)
		return 0;	/* a registration */
	if (eg)
		return (a->uri && nla_put(m, HC_A_EGRESS_URI, (int)r->uri_len,
					  r->uri)) ||
		       nla_put_u64(m, HC_A_EGRESS_GENERATION, r->id) ||
		       (r->has_pool && nla_put(m, HC_A_EGRESS_POOL_UUID, 16,
					       r->pool_uuid)) ||
		       (a->retry_ms && nla_put_u32(m, HC_A_EGRESS_RETRY_MS,
						   *a->retry_ms)) ||
		       (a->err_no && nla_put_u32(m, HC_A_EGRESS_ERRNO,
						 a->err_no)) ||
		       (a->etag && *a->etag &&
			nla_put_string(m, HC_A_EGRESS_ETAG, a->etag)) ||
		       (mtime_ok(a->mtime) &&
			nla_put_u64(m, HC_A_EGRESS_LAST_MODIFIED,
				    (uint64_t)a->mtime)) ||
		       (a->permanent && nla_put_u8(m, HC_A_EGRESS_PERMANENT, 1)) ||
		       (a->msg && *a->msg &&
			nla_put_string(m, HC_A_EGRESS_MESSAGE, a->msg));
	return nla_put_u64(m, HC_A_ING_ID, r->id) ||
	       (r->has_pool && nla_put(m, HC_A_ING_POOL_UUID, 16,
				       r->pool_uuid)) ||
	       (a->size && nla_put_u64(m, HC_A_ING_SIZE, *a->size)) ||
	       (a->err_no && nla_put_u32(m, HC_A_ING_ERRNO, a->err_no)) ||
	       (a->etag && *a->etag &&
		nla_put_string(m, HC_A_ING_ETAG, a->etag)) ||
	       (mtime_ok(a->mtime) &&
		nla_put_u64(m, HC_A_ING_LAST_MODIFIED, (uint64_t)a->mtime)) ||
	       (a->crc && nla_put_u32(m, HC_A_ING_CRC32C, *a->crc));
}

/*
 * A message of @cmd asking for an ack, or NULL.  Its sequence number is
 * its own (never 0, libnl's "fill in"), from @ch->seq.
 */
static struct nl_msg *msg_new(struct hc_channel *ch, uint8_t cmd)
{
	struct nl_msg *m = nlmsg_alloc();
	uint32_t seq;

	pthread_mutex_lock(&ch->lock);
	if (!++ch->seq)
		ch->seq = 1;
	seq = ch->seq;
	pthread_mutex_unlock(&ch->lock);
	if (m && !genlmsg_put(m, NL_AUTO_PORT, seq, ch->family, 0,
			      NLM_F_ACK, cmd, HC_GENL_VERSION)) {
		nlmsg_free(m);
		return NULL;
	}
	return m;
}

/*
 * Take the reader's turn for one datagram (libnl's callbacks hand out what
 * it holds: recv_one()), give it back and wake the waiters, also one in
 * hc_channel_next(); with @ch->lock held, which is dropped meanwhile.
 */
static void read_turn(struct hc_channel *ch)
{
	uint64_t one = 1;

	ch->reading = true;
	pthread_mutex_unlock(&ch->lock);
	recv_one(ch);
	pthread_mutex_lock(&ch->lock);
	ch->reading = false;
	pthread_cond_broadcast(&ch->cv);
	/* a full counter (it cannot be) would have a wake-up pending anyway */
	if (write(ch->evfd, &one, sizeof(one)) < 0)
		return;
}

static int send_wait(struct hc_channel *ch, struct nl_msg *m,
		     struct hc_ingest_req *reply, bool *admitted);

/* Send @cmd and wait for its ack (and, for ALLOC, its reply: @a->reply). */
static int call(struct hc_channel *ch, uint8_t cmd, const struct call_args *a)
{
	struct nl_msg *m = msg_new(ch, cmd);

	if (!m)
		return -ENOMEM;
	if (put_args(m, cmd, a)) {
		nlmsg_free(m);
		return -EMSGSIZE;
	}
	return send_wait(ch, m, a->reply, a->admitted);
}

/*
 * Send @m (consumed) and wait for its ack; an ALLOC's reply into @reply,
 * *@admitted (-EPROTO if none came).  Any thread.
 */
static int send_wait(struct hc_channel *ch, struct nl_msg *m,
		     struct hc_ingest_req *reply, bool *admitted)
{
	struct call c = { .seq = nlmsg_hdr(m)->nlmsg_seq, .reply = reply };
	struct call **pp;
	int ret;

	pthread_mutex_lock(&ch->lock);
	c.next = ch->calls;
	ch->calls = &c;
	pthread_mutex_unlock(&ch->lock);
	ret = nl_send_auto(ch->sk, m);
	nlmsg_free(m);
	pthread_mutex_lock(&ch->lock);
	if (ret < 0) {
		c.err = -EIO;
		c.acked = true;
	}
	while (!c.acked) {
		if (ch->reading)
			pthread_cond_wait(&ch->cv, &ch->lock);
		else
			read_turn(ch);
	}
	for (pp = &ch->calls; *pp != &c; pp = &(*pp)->next)
		;
	*pp = c.next;
	pthread_mutex_unlock(&ch->lock);
	if (!c.err && reply) {
		if (!c.got_reply)
			return -EPROTO;
		*admitted = c.admitted;
	}
	return c.err;
}

static int channel_open(struct hc_channel **out, uint8_t reg_cmd,
			uint8_t req_cmd, char *err, size_t errlen)
{
	struct hc_channel *ch = calloc(1, sizeof(*ch));
	int ret;

	if (!ch) {
		hc_seterr(err, errlen, 0, "out of memory");
		return -ENOMEM;
	}
	ch->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ch->evfd < 0) {
		ret = -errno;
		free(ch);
		hc_seterr(err, errlen, 0, "eventfd: %s", strerror(-ret));
		return ret;
	}
	pthread_mutex_init(&ch->lock, NULL);
	pthread_cond_init(&ch->cv, NULL);
	ch->sk = nl_socket_alloc();
	if (!ch->sk) {
		ret = -ENOMEM;
		hc_seterr(err, errlen, 0, "out of memory");
		goto fail_sk;
	}
	if (genl_connect(ch->sk)) {
		hc_seterr(err, errlen, 0, "cannot open a generic netlink socket");
		ret = -EIO;
		goto fail;
	}
	ch->family = genl_ctrl_resolve(ch->sk, HC_GENL_NAME);
	if (ch->family < 0) {
		hc_seterr(err, errlen, 0, "no generic netlink family \"%s\" "
		       "(is the hypercache module loaded?)", HC_GENL_NAME);
		ret = -ENOENT;
		goto fail;
	}
	nl_socket_disable_seq_check(ch->sk);
	nl_socket_enable_msg_peek(ch->sk);	/* replies of 64 extents */
	nl_socket_modify_cb(ch->sk, NL_CB_VALID, NL_CB_CUSTOM, on_valid, ch);
	nl_socket_modify_cb(ch->sk, NL_CB_ACK, NL_CB_CUSTOM, on_ack, ch);
	nl_socket_modify_err_cb(ch->sk, NL_CB_CUSTOM, on_err, ch);
	ch->req_cmd = req_cmd;
	ret = call(ch, reg_cmd, &(struct call_args){ 0 });
	if (ret) {
		bool eg = reg_cmd == HC_CMD_EGRESS_REGISTER;

		hc_seterr(err, errlen, 0, "cannot register as the %shelper: %s%s",
		       eg ? "egress " : "", strerror(-ret), ret == -EBUSY ?
		       (eg ? " (another egress helper is registered)" :
			" (another helper is registered)") : "");
		goto fail;
	}
	*out = ch;
	return 0;
fail:
	nl_socket_free(ch->sk);
fail_sk:
	pthread_cond_destroy(&ch->cv);
	pthread_mutex_destroy(&ch->lock);
	close(ch->evfd);
	free(ch);
	return ret;
}

int hc_channel_open(struct hc_channel **out, char *err, size_t errlen)
{
	return channel_open(out, HC_CMD_HELPER_REGISTER, HC_CMD_INGEST, err,
			    errlen);
}

int hc_channel_egress_reregister(struct hc_channel *ch)
{
	return call(ch, HC_CMD_EGRESS_REGISTER, &(struct call_args){ 0 });
}

int hc_channel_egress_open(struct hc_channel **out, char *err, size_t errlen)
{
	return channel_open(out, HC_CMD_EGRESS_REGISTER, HC_CMD_EGRESS, err,
			    errlen);
}

void hc_channel_close(struct hc_channel *ch)
{
	if (!ch)
		return;
	nl_socket_free(ch->sk);	/* closes: the kernel unregisters us */
	pthread_cond_destroy(&ch->cv);
	pthread_mutex_destroy(&ch->lock);
	close(ch->evfd);
	free(ch->q);
	free(ch);
}

int hc_channel_next(struct hc_channel *ch, struct hc_ingest_req *r,
		    const sigset_t *sigmask, int wake_fd)
{
	int ret = 0;

	pthread_mutex_lock(&ch->lock);
	while (!ch->q_len) {
		/* the socket if the reader's turn is free, else its poke */
		struct pollfd pfd[2] = {
			{ .fd = ch->reading ? ch->evfd : nl_socket_get_fd(ch->sk),
			  .events = POLLIN },
			{ .fd = wake_fd, .events = POLLIN },
		};
		bool turn = !ch->reading;
		uint64_t n;

		if (turn)
			ch->reading = true;
		pthread_mutex_unlock(&ch->lock);
		if (ppoll(pfd, wake_fd >= 0 ? 2 : 1, NULL, sigmask) < 0)
			ret = errno == EINTR ? -EINTR : -errno;
		else if (wake_fd >= 0 && pfd[1].revents)
			ret = -EINTR;
		else if (turn && (pfd[0].revents & (POLLERR | POLLHUP | POLLNVAL)))
			ret = -EIO;
		else if (turn && recv_one(ch) < 0 && !ch->q_len)
			ret = -EIO;	/* ENOBUFS included: as before */
		else if (!turn && read(ch->evfd, &n, sizeof(n)) < 0 &&
			 errno != EAGAIN)
			ret = -errno;
		pthread_mutex_lock(&ch->lock);
		if (turn) {
			ch->reading = false;
			pthread_cond_broadcast(&ch->cv);
		}
		if (ret == -EIO && ch->q_len)
			ret = 0;
		if (ret)
			goto out;
	}
	*r = ch->q[ch->q_head];
	ch->q_head++;
	if (!--ch->q_len)
		ch->q_head = 0;
out:
	pthread_mutex_unlock(&ch->lock);
	return ret;
}

int hc_channel_alloc(struct hc_channel *ch, struct hc_ingest_req *r,
		     uint64_t size, const char *etag, int64_t mtime,
		     bool *admitted)
{
	int ret;

	*admitted = false;
	ret = call(ch, HC_CMD_INGEST_ALLOC, &(struct call_args){
		.r = r, .size = &size, .etag = etag, .mtime = mtime,
		.reply = r, .admitted = admitted });
	if (ret)
		return ret;
	r->allocated = *admitted;
	if (*admitted && !r->size)
		r->size = size;
	return 0;
}

int hc_channel_done(struct hc_channel *ch, const struct hc_ingest_req *r,
		    const uint32_t *crc)
{
	return call(ch, HC_CMD_INGEST_DONE,
		    &(struct call_args){ .r = r, .crc = crc });
}

int hc_channel_fail(struct hc_channel *ch, const struct hc_ingest_req *r,
		    int err_no)
{
	return call(ch, HC_CMD_INGEST_FAIL, &(struct call_args){
		.r = r, .err_no = err_no > 0 ? err_no : EIO });
}

int hc_channel_reval_rules(struct hc_channel *ch,
			   const struct hc_channel_rule *rules, unsigned int nr)
{
	struct nl_msg *m = msg_new(ch, HC_CMD_REVAL_RULES);
	unsigned int i;

	if (!m)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		struct nlattr *n = nla_nest_start(m, HC_A_REV_RULE);

		if (!n || nla_put(m, HC_A_REV_RULE_PREFIX, (int)rules[i].len,
				  rules[i].prefix) ||
		    nla_put_u8(m, HC_A_REV_RULE_MODE, (uint8_t)rules[i].mode) ||
		    (rules[i].ttl &&
		     nla_put_u32(m, HC_A_REV_RULE_TTL, rules[i].ttl))) {
			nlmsg_free(m);
			return -EMSGSIZE;
		}
		nla_nest_end(m, n);
	}
	return send_wait(ch, m, NULL, NULL);
}

int hc_channel_reval_done(struct hc_channel *ch, const struct hc_ingest_req *r,
			  unsigned int result, int err_no)
{
	struct nl_msg *m = msg_new(ch, HC_CMD_REVALIDATE_DONE);

	if (!m)
		return -ENOMEM;
	if (nla_put_u64(m, HC_A_REV_ID, r->id) ||
	    nla_put_u8(m, HC_A_REV_RESULT, (uint8_t)result) ||
	    (r->has_pool && nla_put(m, HC_A_REV_POOL_UUID, 16, r->pool_uuid)) ||
	    (result == HC_REVAL_FAILED && err_no > 0 &&
	     nla_put_u32(m, HC_A_REV_ERRNO, (uint32_t)err_no))) {
		nlmsg_free(m);
		return -EMSGSIZE;
	}
	return send_wait(ch, m, NULL, NULL);
}

int hc_channel_egress_done(struct hc_channel *ch, const struct hc_ingest_req *r,
			   const char *etag, int64_t mtime)
{
	return call(ch, HC_CMD_EGRESS_DONE, &(struct call_args){
		.r = r, .uri = true, .etag = etag, .mtime = mtime });
}

int hc_channel_egress_fail(struct hc_channel *ch, const struct hc_ingest_req *r,
			   int err_no, uint32_t retry_ms, bool permanent,
			   const char *msg)
{
	struct call_args a = {
		.r = r, .uri = true, .err_no = err_no > 0 ? err_no : EIO,
		.retry_ms = retry_ms ? &retry_ms : NULL,
		.permanent = permanent, .msg = msg,
	};
	int ret = call(ch, HC_CMD_EGRESS_FAIL, &a);

	/* a module older than PERMANENT and MESSAGE refuses them: without */
	if (ret == -EINVAL && (permanent || (msg && *msg))) {
		a.permanent = false;
		a.msg = NULL;
		ret = call(ch, HC_CMD_EGRESS_FAIL, &a);
	}
	return ret;
}

/* --- the running pool's members (HC_CMD_POOL_GET) ---------------------- */

struct pool_reply {
	struct hc_pool_members *out;
	bool acked, got;
	int ack_err;
};

static int pool_on_valid(struct nl_msg *msg, void *arg)
{
	static struct nla_policy pol[HC_A_POOL_MAX + 1] = {
		[HC_A_POOL_UUID] = { .type = NLA_UNSPEC },
		[HC_A_POOL_CHUNK_SIZE] = { .type = NLA_U32 },
		[HC_A_POOL_MEMBER_COUNT] = { .type = NLA_U32 },
		[HC_A_POOL_MEMBER] = { .type = NLA_NESTED },
	};
	static struct nla_policy mpol[HC_A_MEMBER_MAX + 1] = {
		[HC_A_MEMBER_INDEX] = { .type = NLA_U32 },
		[HC_A_MEMBER_NAME] = { .type = NLA_STRING },
	};
	struct pool_reply *pr = arg;
	struct hc_pool_members *out = pr->out;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[HC_A_POOL_MAX + 1], *a;
	int rem;

	if (genlmsg_parse(nlh, 0, tb, HC_A_POOL_MAX, pol) ||
	    !tb[HC_A_POOL_UUID] || nla_len(tb[HC_A_POOL_UUID]) != 16 ||
	    !tb[HC_A_POOL_CHUNK_SIZE] || !tb[HC_A_POOL_MEMBER_COUNT])
		return NL_SKIP;
	memcpy(out->pool_uuid, nla_data(tb[HC_A_POOL_UUID]), 16);
	out->chunk_size = nla_get_u32(tb[HC_A_POOL_CHUNK_SIZE]);
	out->member_count = nla_get_u32(tb[HC_A_POOL_MEMBER_COUNT]);
	if (!out->member_count || out->member_count > HC_MAX_MEMBERS)
		return NL_SKIP;
	nla_for_each_attr(a, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		struct nlattr *mb[HC_A_MEMBER_MAX + 1];
		uint32_t i;

		if (nla_type(a) != HC_A_POOL_MEMBER ||
		    nla_parse_nested(mb, HC_A_MEMBER_MAX, a, mpol) ||
		    !mb[HC_A_MEMBER_INDEX] || !mb[HC_A_MEMBER_NAME])
			continue;
		i = nla_get_u32(mb[HC_A_MEMBER_INDEX]);
		if (i < out->member_count)
			snprintf(out->name[i], sizeof(out->name[i]), "%s",
				 nla_get_string(mb[HC_A_MEMBER_NAME]));
	}
	pr->got = true;
	return NL_OK;
}

static int pool_on_ack(struct nl_msg *msg, void *arg)
{
	struct pool_reply *pr = arg;

	(void)msg;
	pr->acked = true;
	return NL_STOP;
}

static int pool_on_err(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct pool_reply *pr = arg;

	(void)nla;
	pr->ack_err = e->error;
	pr->acked = true;
	return NL_STOP;
}

int hc_channel_pool_members(struct hc_pool_members *out)
{
	struct pool_reply pr = { .out = out };
	struct nl_sock *sk = nl_socket_alloc();
	struct nl_msg *m = NULL;
	int family, ret = -EIO;

	memset(out, 0, sizeof(*out));
	if (!sk)
		return -ENOMEM;
	if (genl_connect(sk))
		goto out;
	family = genl_ctrl_resolve(sk, HC_GENL_NAME);
	if (family < 0) {
		ret = -ENOENT;
		goto out;
	}
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, pool_on_valid, &pr);
	nl_socket_modify_cb(sk, NL_CB_ACK, NL_CB_CUSTOM, pool_on_ack, &pr);
	nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, pool_on_err, &pr);
	m = nlmsg_alloc();
	if (!m) {
		ret = -ENOMEM;
		goto out;
	}
	if (!genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, NLM_F_ACK,
			 HC_CMD_POOL_GET, HC_GENL_VERSION)) {
		ret = -EMSGSIZE;
		goto out;
	}
	if (nl_send_auto(sk, m) < 0)
		goto out;
	while (!pr.acked)
		if (nl_recvmsgs_default(sk) < 0 && !pr.acked)
			goto out;
	ret = pr.ack_err ? pr.ack_err : pr.got ? 0 : -EIO;
out:
	nlmsg_free(m);
	nl_socket_free(sk);
	return ret;
}
