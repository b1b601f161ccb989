// SPDX-License-Identifier: GPL-2.0
/*
 * hc_nlpoke: the netlink family as a hostile or confused peer would use it.
 *
 *   hc_nlpoke send CMD [TYPE:ATTR=VALUE]...
 *	one request of command number CMD with the given attributes (TYPE is
 *	u8, u32, u64, str or hex; ATTR a number); "nest:ATTR" opens a nested
 *	attribute that the argument "end" closes (at most 4 deep); prints
 *	"ok" (exit 0) or "error: strerror" (exit 1)
 *   hc_nlpoke bind PORT
 *	unshare a user and a network namespace, bind a generic netlink
 *	socket to PORT there and close it (the release notifier fires with
 *	that port); prints "bound PORT" (exit 0), or the failure (exit 2)
 *   hc_nlpoke stale-helper
 *	register as the ingest helper; print "first id=N" for the first
 *	HC_CMD_INGEST; read a line from stdin; print "second id=N" for the
 *	next one; then answer it with the *first* request's id: INGEST_ALLOC
 *	with the first pool's UUID ("stale-uuid: ..."), then without a UUID
 *	("stale-id: ..."), each "ok" or "error: strerror"
 *   hc_nlpoke slow REGISTER-CMD[+REGISTER-CMD] SECONDS
 *	register (10: as the ingest helper, 15: as the egress helper, 10+15:
 *	one socket as both) with the smallest receive buffer; read nothing
 *	until a line arrives on stdin; then read for SECONDS and print
 *	"received N" (N: the distinct request ids, attribute 2, of the
 *	INGEST and EGRESS requests that arrived) and "egress M" (those of
 *	EGRESS requests only)
 *   hc_nlpoke dump-objects [PREFIX]
 *	an HC_CMD_OBJ_GET dump (with a descriptor of /dev/hypercache-ctl),
 *	with PREFIX as HC_A_OBJ_PREFIX if given: prints the URI of each
 *	object the kernel sent, in the order sent, then "objects N" and
 *	"ok" (exit 0) or "error: strerror" (exit 1)
 *   hc_nlpoke alloc-helper SIZE...
 *	register as the ingest helper, wait for one INGEST request and
 *	answer INGEST_ALLOC with each SIZE in turn: "alloc SIZE: ok" or
 *	"alloc SIZE: error: strerror"
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <sys/socket.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include "hypercache_netlink.h"

static bool acked;
static int ack_err;

struct ing {
	bool got;
	uint64_t id;
	bool has_pool;
	uint8_t pool[16];
};

static struct ing last;

/* slow: the distinct request ids seen, of any request and of EGRESS */
struct idset {
	uint64_t id[4096];
	int n;
};

static struct idset seen, seen_egress;

static void note_id(struct idset *s, uint64_t id)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (s->id[i] == id)
			return;
	if (s->n < (int)(sizeof(s->id) / sizeof(s->id[0])))
		s->id[s->n++] = id;
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[HC_A_ING_MAX + 1];
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *g = nlmsg_data(nlh);

	(void)arg;
	if (g->cmd == HC_CMD_EGRESS &&
	    !genlmsg_parse(nlh, 0, tb, HC_A_ING_MAX, NULL) && tb[2]) {
		note_id(&seen, nla_get_u64(tb[2]));
		note_id(&seen_egress, nla_get_u64(tb[2]));
	}
	if (g->cmd != HC_CMD_INGEST ||
	    genlmsg_parse(nlh, 0, tb, HC_A_ING_MAX, NULL) || !tb[HC_A_ING_ID])
		return NL_OK;
	memset(&last, 0, sizeof(last));
	last.got = true;
	last.id = nla_get_u64(tb[HC_A_ING_ID]);
	note_id(&seen, last.id);
	if (tb[HC_A_ING_POOL_UUID] && nla_len(tb[HC_A_ING_POOL_UUID]) == 16) {
		last.has_pool = true;
		memcpy(last.pool, nla_data(tb[HC_A_ING_POOL_UUID]), 16);
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

static struct nl_sock *connect_family(int *family)
{
	struct nl_sock *sk = nl_socket_alloc();

	if (!sk || genl_connect(sk)) {
		fprintf(stderr, "hc_nlpoke: no generic netlink socket\n");
		exit(2);
	}
	*family = genl_ctrl_resolve(sk, HC_GENL_NAME);
	if (*family < 0) {
		fprintf(stderr, "hc_nlpoke: no family %s\n", HC_GENL_NAME);
		exit(2);
	}
	nl_socket_disable_seq_check(sk);
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_valid, NULL);
	nl_socket_modify_cb(sk, NL_CB_ACK, NL_CB_CUSTOM, on_ack, NULL);
	nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, on_err, NULL);
	return sk;
}

/* Send @m (consumed) and wait for the ack: 0 or -errno. */
static int transact(struct nl_sock *sk, struct nl_msg *m)
{
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

static int report(const char *what, int err)
{
	if (what)
		printf("%s: ", what);
	if (err)
		printf("error: %s\n", strerror(-err));
	else
		printf("ok\n");
	return err ? 1 : 0;
}

static int put_arg(struct nl_msg *m, const char *arg)
{
	char type[8], val[2100];
	unsigned int attr;
	uint8_t bin[1024];
	size_t i, n;

	if (sscanf(arg, "%7[a-z0-9]:%u=%2099s", type, &attr, val) != 3)
		return -1;
	if (!strcmp(type, "u8"))
		return nla_put_u8(m, attr, strtoul(val, NULL, 0));
	if (!strcmp(type, "u32"))
		return nla_put_u32(m, attr, strtoul(val, NULL, 0));
	if (!strcmp(type, "u64"))
		return nla_put_u64(m, attr, strtoull(val, NULL, 0));
	if (!strcmp(type, "str"))
		return nla_put_string(m, attr, val);
	if (!strcmp(type, "hex")) {
		n = strlen(val) / 2;
		if (n > sizeof(bin))
			return -1;
		for (i = 0; i < n; i++)
			if (sscanf(val + 2 * i, "%2hhx", &bin[i]) != 1)
				return -1;
		return nla_put(m, attr, (int)n, bin);
	}
	return -1;
}

static int cmd_send(int argc, char **argv)
{
	struct nl_msg *m = nlmsg_alloc();
	struct nlattr *nest[4];
	struct nl_sock *sk;
	int family, i, depth = 0;
	unsigned int attr;

	sk = connect_family(&family);
	genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, NLM_F_ACK,
		    (uint8_t)strtoul(argv[0], NULL, 0), HC_GENL_VERSION);
	for (i = 1; i < argc; i++) {
		if (sscanf(argv[i], "nest:%u", &attr) == 1 && depth < 4) {
			nest[depth] = nla_nest_start(m, attr);
			if (nest[depth++])
				continue;
		} else if (!strcmp(argv[i], "end") && depth) {
			nla_nest_end(m, nest[--depth]);
			continue;
		}
		if (put_arg(m, argv[i])) {
			fprintf(stderr, "hc_nlpoke: bad attribute '%s'\n", argv[i]);
			return 2;
		}
	}
	return report(NULL, transact(sk, m));
}

static int cmd_bind(const char *port)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNET)) {
		perror("hc_nlpoke: unshare(CLONE_NEWUSER | CLONE_NEWNET)");
		return 2;
	}
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0) {
		perror("hc_nlpoke: socket");
		return 2;
	}
	sa.nl_pid = strtoul(port, NULL, 0);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("hc_nlpoke: bind");
		return 2;
	}
	printf("bound %u\n", sa.nl_pid);
	close(fd);
	return 0;
}

static void wait_ingest(struct nl_sock *sk)
{
	last.got = false;
	while (!last.got)
		if (nl_recvmsgs_default(sk) < 0) {
			fprintf(stderr, "hc_nlpoke: receive failed\n");
			exit(2);
		}
}

static int alloc_with(struct nl_sock *sk, int family, const struct ing *r,
		      bool with_pool)
{
	struct nl_msg *m = nlmsg_alloc();

	genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, NLM_F_ACK,
		    HC_CMD_INGEST_ALLOC, HC_GENL_VERSION);
	nla_put_u64(m, HC_A_ING_ID, r->id);
	nla_put_u64(m, HC_A_ING_SIZE, 4096);
	if (with_pool && r->has_pool)
		nla_put(m, HC_A_ING_POOL_UUID, 16, r->pool);
	return transact(sk, m);
}

static int cmd_stale_helper(void)
{
	struct nl_sock *sk;
	struct nl_msg *m;
	struct ing first;
	char line[64];
	int family;

	sk = connect_family(&family);
	m = nlmsg_alloc();
	genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, NLM_F_ACK,
		    HC_CMD_HELPER_REGISTER, HC_GENL_VERSION);
	if (report("register", transact(sk, m)))
		return 1;
	fflush(stdout);
	wait_ingest(sk);
	first = last;
	printf("first id=%llu pool=%d\n", (unsigned long long)first.id,
	       first.has_pool);
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return 2;
	wait_ingest(sk);
	printf("second id=%llu\n", (unsigned long long)last.id);
	report("stale-uuid", alloc_with(sk, family, &first, true));
	report("stale-id", alloc_with(sk, family, &first, false));
	return 0;
}

static int register_as(struct nl_sock *sk, int family, uint8_t cmd)
{
	struct nl_msg *m = nlmsg_alloc();

	genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, NLM_F_ACK, cmd,
		    HC_GENL_VERSION);
	return report("register", transact(sk, m));
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmd_slow(const char *reg, const char *secs)
{
	double end;
	struct nl_sock *sk;
	char line[64], *end_reg;
	int family;

	sk = connect_family(&family);
	/* the kernel doubles it and applies its minimum: one message fits */
	if (nl_socket_set_buffer_size(sk, 1, 0)) {
		fprintf(stderr, "hc_nlpoke: cannot shrink the receive buffer\n");
		return 2;
	}
	if (register_as(sk, family, (uint8_t)strtoul(reg, &end_reg, 0)))
		return 1;
	if (*end_reg == '+' &&
	    register_as(sk, family, (uint8_t)strtoul(end_reg + 1, NULL, 0)))
		return 1;
	if (!fgets(line, sizeof(line), stdin))
		return 2;
	end = now_s() + strtod(secs, NULL);
	while (now_s() < end) {
		struct pollfd p = { .fd = nl_socket_get_fd(sk), .events = POLLIN };

		if (poll(&p, 1, 100) > 0)
			nl_recvmsgs_default(sk);	/* ENOBUFS: go on */
	}
	printf("received %d\negress %d\n", seen.n, seen_egress.n);
	return 0;
}

static int cmd_alloc_helper(int argc, char **argv)
{
	struct nl_sock *sk;
	struct nl_msg *m;
	int family, i;

	sk = connect_family(&family);
	if (register_as(sk, family, HC_CMD_HELPER_REGISTER))
		return 1;
	wait_ingest(sk);
	for (i = 0; i < argc; i++) {
		m = nlmsg_alloc();
		genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, NLM_F_ACK,
			    HC_CMD_INGEST_ALLOC, HC_GENL_VERSION);
		nla_put_u64(m, HC_A_ING_ID, last.id);
		nla_put_u64(m, HC_A_ING_SIZE, strtoull(argv[i], NULL, 0));
		printf("alloc %s: ", argv[i]);
		report(NULL, transact(sk, m));
	}
	return 0;
}

static int dumped;

static int on_dump_obj(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[HC_A_OBJ_MAX + 1];

	(void)arg;
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, HC_A_OBJ_MAX, NULL) ||
	    !tb[HC_A_OBJ_URI])
		return NL_OK;
	printf("%.*s\n", nla_len(tb[HC_A_OBJ_URI]),
	       (const char *)nla_data(tb[HC_A_OBJ_URI]));
	dumped++;
	return NL_OK;
}

static int cmd_dump_objects(int argc, char **argv)
{
	struct nl_msg *m = nlmsg_alloc();
	struct nl_sock *sk;
	int family, ctl, err;

	sk = connect_family(&family);
	ctl = open("/dev/hypercache-ctl", O_RDONLY | O_CLOEXEC);
	if (ctl < 0) {
		perror("hc_nlpoke: /dev/hypercache-ctl");
		return 2;
	}
	nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_dump_obj, NULL);
	/* the dump's NLMSG_DONE ends it as an ack would */
	nl_socket_modify_cb(sk, NL_CB_FINISH, NL_CB_CUSTOM, on_ack, NULL);
	genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, NLM_F_DUMP,
		    HC_CMD_OBJ_GET, HC_GENL_VERSION);
	if (nla_put_u32(m, HC_A_OBJ_CTL_FD, (uint32_t)ctl) ||
	    (argc >= 1 &&
	     nla_put(m, HC_A_OBJ_PREFIX, (int)strlen(argv[0]), argv[0]))) {
		fprintf(stderr, "hc_nlpoke: the request does not fit\n");
		return 2;
	}
	err = transact(sk, m);
	printf("objects %d\n", dumped);
	close(ctl);
	return report(NULL, err);
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 3 && !strcmp(argv[1], "send"))
		return cmd_send(argc - 2, argv + 2);
	if (argc == 3 && !strcmp(argv[1], "bind"))
		return cmd_bind(argv[2]);
	if ((argc == 2 || argc == 3) && !strcmp(argv[1], "dump-objects"))
		return cmd_dump_objects(argc - 2, argv + 2);
	if (argc == 2 && !strcmp(argv[1], "stale-helper"))
		return cmd_stale_helper();
	if (argc == 4 && !strcmp(argv[1], "slow"))
		return cmd_slow(argv[2], argv[3]);
	if (argc >= 3 && !strcmp(argv[1], "alloc-helper"))
		return cmd_alloc_helper(argc - 2, argv + 2);
	fprintf(stderr, "usage: hc_nlpoke send CMD [TYPE:ATTR=VALUE]... | bind PORT | dump-objects [PREFIX] | stale-helper | slow REGISTER-CMD SECONDS | alloc-helper SIZE...\n");
	return 2;
}
