/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hcctl - generic netlink session with the "hypercache" family.
 */
#ifndef HCCTL_NL_H
#define HCCTL_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <netlink/genl/genl.h>

struct hcctl_nl {
	struct nl_sock *sk;
	int family;		/* generic netlink family id */
};

/*
 * Outcome of a request.  @error is a positive errno (0: success).  When the
 * kernel sent an error reply, @kernel is true and @msg / @offs carry the
 * extended ack, if any.  Otherwise the failure was local (socket, libnl).
 */
struct hcctl_nl_err {
	int error;
	bool kernel;
	char msg[256];		/* NLMSGERR_ATTR_MSG, "" if none */
	bool has_offs;
	uint32_t offs;		/* NLMSGERR_ATTR_OFFS: from the request's nlmsghdr */
	bool has_miss_type;
	uint32_t miss_type;	/* NLMSGERR_ATTR_MISS_TYPE */
	char local[128];	/* what failed locally (libnl's description) */
};

/* Byte range [start, end) of one attribute inside a request message. */
struct hcctl_nl_span {
	uint32_t start;
	uint32_t end;
};

/*
 * Open a socket, enable extended acks and resolve the family.  On failure,
 * print a diagnostic naming @object and return -1.
 */
int hcctl_nl_open(struct hcctl_nl *nl, const char *object);
void hcctl_nl_close(struct hcctl_nl *nl);

/* A new request for @cmd with room for about @payload bytes of attributes. */
struct nl_msg *hcctl_nl_request(struct hcctl_nl *nl, uint8_t cmd, size_t payload);

/*
 * Attach (as u32 attribute @attr) a descriptor of /dev/hypercache-ctl,
 * opened read-only once and kept open: without CAP_NET_ADMIN the kernel
 * lets only a caller that can open the control device read the index and
 * its counters (HC_A_OBJ_CTL_FD, HC_A_STATS_CTL_FD).  Attaches nothing for
 * root (CAP_NET_ADMIN suffices, and kernels before the attribute refuse
 * it) or if the device cannot be opened.  Returns 0 or a negative libnl
 * error.
 */
int hcctl_nl_put_ctl_fd(struct nl_msg *msg, int attr);

/* Offset of @attr from the start of @msg's nlmsghdr. */
uint32_t hcctl_nl_offset(struct nl_msg *msg, const void *attr);

typedef int (*hc_nl_reply_cb)(struct nl_msg *reply, void *arg);

/*
 * Send @msg (consumed) and wait for the kernel's answer.  Every reply
 * message is passed to @reply (may be NULL).  Returns 0 or -errno; in the
 * latter case @err describes the failure.
 */
int hcctl_nl_transact(struct hcctl_nl *nl, struct nl_msg *msg, hc_nl_reply_cb reply,
		   void *arg, struct hcctl_nl_err *err);

/*
 * As hcctl_nl_transact(), but as a dump request (NLM_F_DUMP): @reply gets every
 * message of the dump; an error the kernel reports in NLMSG_DONE fails it.
 */
int hcctl_nl_dump(struct hcctl_nl *nl, struct nl_msg *msg, hc_nl_reply_cb reply,
	       void *arg, struct hcctl_nl_err *err);

/*
 * Report a failed request on stderr as "hcctl: <object>: <reason>: <strerror>".
 * If the ack's offset falls inside spans[i], names[i] is the object.
 */
void hcctl_nl_report(const char *object, const struct hcctl_nl_err *err,
		  const struct hcctl_nl_span *spans, char *const *names,
		  size_t n);

/* Join multicast group @group of the family.  Prints on failure. */
int hcctl_nl_subscribe(struct hcctl_nl *nl, const char *group, const char *object);

#endif /* HCCTL_NL_H */
