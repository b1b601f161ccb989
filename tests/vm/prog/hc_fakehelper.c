// SPDX-License-Identifier: GPL-2.0
/*
 * hc_fakehelper [--stall] [--once]: a stand-in for hypercached that serves
 * the kernel's helper channel from local files, to test the kernel side:
 * it registers, and for every INGEST request for a URI "file:PATH" it
 * reports the size of PATH (ALLOC), writes PATH into the extents the kernel
 * returns through /dev/hypercache0 (O_DIRECT, no fdatasync: the kernel's
 * DONE flushes, which r-logwrites checks) and reports DONE; a missing PATH is reported as FAIL ENOENT, any other URI as FAIL
 * EINVAL.  --stall: after an allocation, stop and wait to be killed (a
 * helper dying mid-ingest).  --once: exit after one request.  Prints one
 * line per request handled.
 */
#include <errno.h>
#include <fcntl.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "hypercache.h"
#include "hypercache_netlink.h"

#define MAX_REQ 64

struct req {
	uint64_t id;
	char uri[HC_URI_MAX + 1];
	bool allocated;
	uint64_t size;
	uint32_t nr_ext;
	struct hc_extent ext[HC_MAX_EXTENTS];
};

static struct req queue[MAX_REQ];
static int nq;
static struct req reply;	/* the last ALLOC reply */
static bool got_reply, acked;
static int ack_err;

static struct nla_policy ing_policy[HC_A_ING_MAX + 1] = {
	[HC_A_ING_ID] = { .type = NLA_U64 },
	[HC_A_ING_URI] = { .type = NLA_UNSPEC },
	[HC_A_ING_SIZE] = { .type = NLA_U64 },
	[HC_A_ING_ADMITTED] = { .type = NLA_U8 },
	[HC_A_ING_EXTENT] = { .type = NLA_NESTED },
};

static void parse_req(struct nlattr **tb, struct nlmsghdr *nlh, struct req *r)
{
	struct genlmsghdr *g = nlmsg_data(nlh);
	struct nlattr *a;
	int rem, len;

	memset(r, 0, sizeof(*r));
	if (tb[HC_A_ING_ID])
		r->id = nla_get_u64(tb[HC_A_ING_ID]);
	if (tb[HC_A_ING_URI]) {
		len = nla_len(tb[HC_A_ING_URI]);
		memcpy(r->uri, nla_data(tb[HC_A_ING_URI]), len);
	}
	if (tb[HC_A_ING_SIZE]) {
		r->allocated = true;
		r->size = nla_get_u64(tb[HC_A_ING_SIZE]);
	}
	nla_for_each_attr(a, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0), rem) {
		struct nlattr *e[HC_A_EXT_MAX + 1];

		if (nla_type(a) != HC_A_ING_EXTENT || r->nr_ext == HC_MAX_EXTENTS)
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
	struct nlattr *tb[HC_A_ING_MAX + 1];

	(void)arg;
	if (genlmsg_parse(nlh, 0, tb, HC_A_ING_MAX, ing_policy))
		return NL_SKIP;
	if (g->cmd == HC_CMD_INGEST && nq < MAX_REQ) {
		parse_req(tb, nlh, &queue[nq++]);
	} else if (g->cmd == HC_CMD_INGEST_ALLOC) {
		parse_req(tb, nlh, &reply);
		reply.allocated = tb[HC_A_ING_ADMITTED] &&
				  nla_get_u8(tb[HC_A_ING_ADMITTED]);
		got_reply = true;
	}
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

/* Send a request and wait for its ack (and reply); return 0 or -errno. */
static int call(struct nl_sock *sk, int family, uint8_t cmd, uint64_t id,
		uint64_t size, int has_size, uint32_t err_no)
{
	struct nl_msg *m = nlmsg_alloc();

	genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, NLM_F_ACK, cmd,
		    HC_GENL_VERSION);
	if (cmd != HC_CMD_HELPER_REGISTER)
		nla_put_u64(m, HC_A_ING_ID, id);
	if (has_size)
		nla_put_u64(m, HC_A_ING_SIZE, size);
	if (err_no)
		nla_put_u32(m, HC_A_ING_ERRNO, err_no);
	acked = false;
	ack_err = 0;
	got_reply = false;
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

/* Write @path's bytes into @r's extents of /dev/hypercache0. */
static int fill(const struct req *r, const char *path)
{
	size_t bs = 1 << 20, n;
	uint64_t done = 0;
	void *buf;
	int in, out;

	in = open(path, O_RDONLY);
	out = open("/dev/hypercache0", O_WRONLY | O_DIRECT);
	if (in < 0 || out < 0 || posix_memalign(&buf, 4096, bs))
		return -errno;
	for (uint32_t i = 0; i < r->nr_ext && done < r->size; i++) {
		for (uint64_t o = 0; o < r->ext[i].length && done < r->size; o += n) {
			ssize_t got;

			n = bs;
			memset(buf, 0, bs);
			got = pread(in, buf, n, done);
			if (got <= 0)
				return -EIO;
			n = ((size_t)got + 4095) & ~(size_t)4095;
			if (pwrite(out, buf, n, r->ext[i].offset + o) != (ssize_t)n)
				return -errno;
			n = got;
			done += got;
		}
	}
	close(in);
	close(out);
	free(buf);
	return done == r->size ? 0 : -EIO;
}

int main(int argc, char **argv)
{
	bool stall = false, once = false;
	struct nl_sock *sk;
	int family, err;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--stall"))
			stall = true;
		else if (!strcmp(argv[i], "--once"))
			once = true;
	}
	sk = nl_socket_alloc();
	if (!sk || genl_connect(sk)) {
		fprintf(stderr, "hc_fakehelper: netlink\n");
		return 1;
	}
	family = genl_ctrl_resolve(sk, HC_GENL_NAME);
	if (family < 0) {
		fprintf(stderr, "hc_fakehelper: no hypercache family\n");
		return 1;
	}
	nl_socket_disable_seq_check(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_valid, NULL);
	nl_socket_modify_cb(sk, NL_CB_ACK, NL_CB_CUSTOM, on_ack, NULL);
	nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, on_err, NULL);
	err = call(sk, family, HC_CMD_HELPER_REGISTER, 0, 0, 0, 0);
	if (err) {
		fprintf(stderr, "hc_fakehelper: register: %s\n", strerror(-err));
		return 1;
	}
	printf("registered\n");
	fflush(stdout);

	for (;;) {
		while (!nq)
			nl_recvmsgs_default(sk);
		struct req r = queue[0];

		memmove(queue, queue + 1, --nq * sizeof(queue[0]));
		if (strncmp(r.uri, "file:", 5)) {
			err = call(sk, family, HC_CMD_INGEST_FAIL, r.id, 0, 0, EINVAL);
			printf("%s: not a file: URI (%d)\n", r.uri, err);
		} else {
			struct stat st;
			const char *path = r.uri + 5;

			if (stat(path, &st)) {
				err = call(sk, family, HC_CMD_INGEST_FAIL, r.id,
					   0, 0, errno);
				printf("%s: fail %d\n", r.uri, err);
				goto next;
			}
			if (!r.allocated) {
				err = call(sk, family, HC_CMD_INGEST_ALLOC, r.id,
					   st.st_size, 1, 0);
				if (err || !got_reply || !reply.allocated) {
					printf("%s: not allocated (%d, admitted %d)\n",
					       r.uri, err, got_reply && reply.allocated);
					goto next;
				}
				r.size = reply.size;
				r.nr_ext = reply.nr_ext;
				memcpy(r.ext, reply.ext, sizeof(r.ext));
			}
			printf("%s: allocated %llu bytes in %u extents\n", r.uri,
			       (unsigned long long)r.size, r.nr_ext);
			fflush(stdout);
			if (stall)
				for (;;)
					pause();
			err = fill(&r, path);
			if (err)
				err = call(sk, family, HC_CMD_INGEST_FAIL, r.id, 0,
					   0, -err);
			else
				err = call(sk, family, HC_CMD_INGEST_DONE, r.id, 0,
					   0, 0);
			printf("%s: done (%d)\n", r.uri, err);
		}
next:
		fflush(stdout);
		if (once)
			return 0;
	}
}
