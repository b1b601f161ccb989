// SPDX-License-Identifier: GPL-2.0
/*
 * hc_fakeegress --out DIR [--fail K] [--errno E] [--retry-ms MS]
 *               [--permanent MSG] [--delay MS] [--exit-after N]
 *
 * A stand-in for the egress (write-back) side of hypercached, to test the
 * kernel's egress channel: it registers as the egress helper, and for every
 * HC_CMD_EGRESS reads the object's extents from /dev/hypercache0 (O_DIRECT)
 * into DIR/<URI escaped> (bytes other than [A-Za-z0-9._-] as %XX), then
 * answers EGRESS_DONE with the ETag "fake-GENERATION".
 *
 *   --fail K        answer the first K requests EGRESS_FAIL instead
 *   --errno E       the errno of those failures (default EIO)
 *   --retry-ms MS   send HC_A_EGRESS_RETRY_MS = MS with them
 *   --permanent MSG send HC_A_EGRESS_PERMANENT = 1 and HC_A_EGRESS_MESSAGE
 *                   = MSG with them (the kernel keeps MSG with the object)
 *   --delay MS      sleep MS milliseconds before each upload
 *   --exit-after N  exit 0 after answering N requests
 *
 * Prints "registered", then per request "egress URI gen=G size=S" when it
 * starts on it, and "done URI gen=G (ERR)" or "fail URI gen=G (ERR)" after
 * the kernel's answer (ERR is the kernel's errno, 0 on success).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "hypercache.h"
#include "hypercache_netlink.h"

#define MAX_REQ 1100

struct req {
	uint64_t gen;
	uint32_t uri_len;
	char uri[HC_URI_MAX + 1];
	uint64_t size;
	uint32_t nr_ext;
	struct hc_extent ext[HC_MAX_EXTENTS];
	bool has_pool;
	uint8_t pool_uuid[16];
};

static struct req *queue;
static int nq;
static bool acked;
static int ack_err;

static struct nla_policy egress_policy[HC_A_EGRESS_MAX + 1] = {
	[HC_A_EGRESS_GENERATION] = { .type = NLA_U64 },
	[HC_A_EGRESS_URI] = { .type = NLA_UNSPEC },
	[HC_A_EGRESS_SIZE] = { .type = NLA_U64 },
	[HC_A_EGRESS_EXTENT] = { .type = NLA_NESTED },
	[HC_A_EGRESS_CRC32C] = { .type = NLA_U32 },
	[HC_A_EGRESS_POOL_UUID] = { .type = NLA_UNSPEC },
};

static void parse_req(struct nlattr **tb, struct nlmsghdr *nlh, struct req *r)
{
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct nlattr *a;
	int rem;

	memset(r, 0, sizeof(*r));
	if (tb[HC_A_EGRESS_GENERATION])
		r->gen = nla_get_u64(tb[HC_A_EGRESS_GENERATION]);
	if (tb[HC_A_EGRESS_URI]) {
		r->uri_len = nla_len(tb[HC_A_EGRESS_URI]);
		if (r->uri_len > HC_URI_MAX)
			r->uri_len = HC_URI_MAX;
		memcpy(r->uri, nla_data(tb[HC_A_EGRESS_URI]), r->uri_len);
	}
	if (tb[HC_A_EGRESS_SIZE])
		r->size = nla_get_u64(tb[HC_A_EGRESS_SIZE]);
	if (tb[HC_A_EGRESS_POOL_UUID] &&
	    nla_len(tb[HC_A_EGRESS_POOL_UUID]) == 16) {
		r->has_pool = true;
		memcpy(r->pool_uuid, nla_data(tb[HC_A_EGRESS_POOL_UUID]), 16);
	}
	nla_for_each_attr(a, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0), rem) {
		struct nlattr *e[HC_A_EXT_MAX + 1];

		if (nla_type(a) != HC_A_EGRESS_EXTENT || r->nr_ext == HC_MAX_EXTENTS)
			continue;
		if (nla_parse_nested(e, HC_A_EXT_MAX, a, NULL) ||
		    !e[HC_A_EXT_OFFSET] || !e[HC_A_EXT_LENGTH])
			continue;
		r->ext[r->nr_ext].offset = nla_get_u64(e[HC_A_EXT_OFFSET]);
		r->ext[r->nr_ext].length = nla_get_u64(e[HC_A_EXT_LENGTH]);
		r->nr_ext++;
	}
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct nlattr *tb[HC_A_EGRESS_MAX + 1];

	(void)arg;
	if (genlmsg_parse(nlh, 0, tb, HC_A_EGRESS_MAX, egress_policy))
		return NL_SKIP;
	if (g->cmd == HC_CMD_EGRESS && nq < MAX_REQ)
		parse_req(tb, nlh, &queue[nq++]);
	return NL_OK;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	acked = true;
	return NL_STOP;
}

static int on_err(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	(void)nla;
	(void)arg;
	ack_err = e->error;
	acked = true;
	return NL_STOP;
}

static const char *permanent_msg;	/* --permanent MSG */

/* Send a request and wait for its ack; return 0 or -errno. */
static int call(struct nl_sock *sk, int family, uint8_t cmd,
		const struct req *r, uint32_t err_no, int retry_ms)
{
	struct nl_msg *m = nlmsg_alloc();
	char etag[32];

	genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, NLM_F_ACK, cmd,
		    HC_GENL_VERSION);
	if (r) {
		nla_put_u64(m, HC_A_EGRESS_GENERATION, r->gen);
		nla_put(m, HC_A_EGRESS_URI, r->uri_len, r->uri);
		if (r->has_pool)
			nla_put(m, HC_A_EGRESS_POOL_UUID, 16, r->pool_uuid);
	}
	if (cmd == HC_CMD_EGRESS_DONE) {
		snprintf(etag, sizeof(etag), "fake-%llu",
			 (unsigned long long)r->gen);
		nla_put_string(m, HC_A_EGRESS_ETAG, etag);
	}
	if (err_no)
		nla_put_u32(m, HC_A_EGRESS_ERRNO, err_no);
	if (retry_ms >= 0)
		nla_put_u32(m, HC_A_EGRESS_RETRY_MS, retry_ms);
	if (cmd == HC_CMD_EGRESS_FAIL && permanent_msg) {
		nla_put_u8(m, HC_A_EGRESS_PERMANENT, 1);
		nla_put_string(m, HC_A_EGRESS_MESSAGE, permanent_msg);
	}
	acked = false;
	ack_err = 0;
	if (nl_send_auto(sk, m) < 0) {
		nlmsg_free(m);
		return -EIO;
	}
	nlmsg_free(m);
	while (!acked)
		if (nl_recvmsgs_default(sk) < 0 && !acked)
			return -EIO;
	return ack_err;
}

/* DIR/<URI with bytes other than [A-Za-z0-9._-] as %XX> */
static void out_path(const char *dir, const struct req *r, char *p, size_t n)
{
	size_t o = snprintf(p, n, "%s/", dir);

	for (uint32_t i = 0; i < r->uri_len && o + 4 < n; i++) {
		unsigned char c = r->uri[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-')
			p[o++] = c;
		else
			o += snprintf(p + o, n - o, "%%%02X", c);
	}
	p[o] = 0;
}

/* Copy @r's bytes from /dev/hypercache0 into @path. */
static int upload(const struct req *r, const char *path)
{
	size_t bs = 1 << 20;
	uint64_t done = 0;
	char tmp[PATH_MAX + 8];
	void *buf;
	int in, out, err = 0;

	snprintf(tmp, sizeof(tmp), "%s.part", path);
	in = open("/dev/hypercache0", O_RDONLY | O_DIRECT);
	if (in < 0)
		return -errno;
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0 || posix_memalign(&buf, 4096, bs)) {
		err = -errno;
		close(in);
		return err;
	}
	for (uint32_t i = 0; i < r->nr_ext && done < r->size && !err; i++) {
		for (uint64_t o = 0; o < r->ext[i].length && done < r->size;
		     o += bs) {
			uint64_t want = r->size - done;
			ssize_t got = pread(in, buf, bs, r->ext[i].offset + o);

			if (got <= 0) {
				err = got < 0 ? -errno : -EIO;
				break;
			}
			if (want > (uint64_t)got)
				want = got;
			if (write(out, buf, want) != (ssize_t)want) {
				err = -errno;
				break;
			}
			done += want;
		}
	}
	if (!err && done != r->size)
		err = -EIO;
	if (!err && fsync(out))
		err = -errno;
	close(in);
	close(out);
	free(buf);
	if (!err && rename(tmp, path))
		err = -errno;
	return err;
}

int main(int argc, char **argv)
{
	int fail = 0, err_no = EIO, retry_ms = -1, delay_ms = 0;
	int exit_after = -1, answered = 0, family, err;
	const char *dir = NULL;
	struct nl_sock *sk;

	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--out") && v)
			dir = v;
		else if (!strcmp(argv[i], "--fail") && v)
			fail = atoi(v);
		else if (!strcmp(argv[i], "--errno") && v)
			err_no = atoi(v);
		else if (!strcmp(argv[i], "--retry-ms") && v)
			retry_ms = atoi(v);
		else if (!strcmp(argv[i], "--permanent") && v)
			permanent_msg = v;
		else if (!strcmp(argv[i], "--delay") && v)
			delay_ms = atoi(v);
		else if (!strcmp(argv[i], "--exit-after") && v)
			exit_after = atoi(v);
		else {
			fprintf(stderr, "usage: hc_fakeegress --out DIR [--fail K] [--errno E] [--retry-ms MS] [--permanent MSG] [--delay MS] [--exit-after N]\n");
			return 2;
		}
		i++;
	}
	if (!dir) {
		fprintf(stderr, "hc_fakeegress: --out DIR is needed\n");
		return 2;
	}
	queue = calloc(MAX_REQ, sizeof(*queue));
	sk = nl_socket_alloc();
	if (!queue || !sk || genl_connect(sk)) {
		fprintf(stderr, "hc_fakeegress: netlink\n");
		return 1;
	}
	family = genl_ctrl_resolve(sk, HC_GENL_NAME);
	if (family < 0) {
		fprintf(stderr, "hc_fakeegress: no hypercache family\n");
		return 1;
	}
	nl_socket_set_buffer_size(sk, 4 << 20, 0);
	nl_socket_disable_seq_check(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_valid, NULL);
	nl_socket_modify_cb(sk, NL_CB_ACK, NL_CB_CUSTOM, on_ack, NULL);
	nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, on_err, NULL);
	err = call(sk, family, HC_CMD_EGRESS_REGISTER, NULL, 0, -1);
	if (err) {
		fprintf(stderr, "hc_fakeegress: register: %s\n", strerror(-err));
		return 1;
	}
	printf("registered\n");
	fflush(stdout);

	while (exit_after < 0 || answered < exit_after) {
		char path[PATH_MAX];
		struct req r;

		while (!nq)
			nl_recvmsgs_default(sk);
		r = queue[0];
		memmove(queue, queue + 1, --nq * sizeof(queue[0]));
		printf("egress %s gen=%llu size=%llu\n", r.uri,
		       (unsigned long long)r.gen, (unsigned long long)r.size);
		fflush(stdout);
		if (delay_ms) {
			struct timespec ts = {
				.tv_sec = delay_ms / 1000,
				.tv_nsec = (delay_ms % 1000) * 1000000L,
			};

			nanosleep(&ts, NULL);
		}
		if (fail > 0) {
			fail--;
			err = call(sk, family, HC_CMD_EGRESS_FAIL, &r, err_no,
				   retry_ms);
			printf("fail %s gen=%llu (%d)\n", r.uri,
			       (unsigned long long)r.gen, -err);
		} else {
			out_path(dir, &r, path, sizeof(path));
			err = upload(&r, path);
			if (err) {
				printf("upload %s: %s\n", path, strerror(-err));
				err = call(sk, family, HC_CMD_EGRESS_FAIL, &r,
					   -err, -1);
				printf("fail %s gen=%llu (%d)\n", r.uri,
				       (unsigned long long)r.gen, -err);
			} else {
				err = call(sk, family, HC_CMD_EGRESS_DONE, &r,
					   0, -1);
				printf("done %s gen=%llu (%d)\n", r.uri,
				       (unsigned long long)r.gen, -err);
			}
		}
		fflush(stdout);
		answered++;
	}
	return 0;
}
