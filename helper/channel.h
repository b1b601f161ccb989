/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hypercached's side of the kernel's helper channel (generic netlink family
 * HC_GENL_NAME, Documentation/architecture.md "The helper channel"):
 *
 *   hc_channel_open()   connect, resolve the family, HC_CMD_HELPER_REGISTER
 *   hc_channel_next()   the next HC_CMD_INGEST request (queued in arrival
 *                       order; requests that arrive while we wait for an
 *                       ack are queued too)
 *   hc_channel_alloc()  HC_CMD_INGEST_ALLOC: size -> admitted + extents
 *   hc_channel_done()   HC_CMD_INGEST_DONE
 *   hc_channel_fail()   HC_CMD_INGEST_FAIL with a positive errno
 *
 * The egress channel is a second socket of the same family:
 *
 *   hc_channel_egress_open()    connect, resolve, HC_CMD_EGRESS_REGISTER
 *   hc_channel_next()   the next HC_CMD_EGRESS request (URI, ID = the
 *                       generation, SIZE, EXTENTs, CRC32C if the writer
 *                       gave one, the pool's UUID), in arrival order =
 *                       commit order
 *   hc_channel_egress_done()    HC_CMD_EGRESS_DONE with the backend's ETag
 *                               and Last-Modified
 *   hc_channel_egress_fail()    HC_CMD_EGRESS_FAIL with an errno and a RETRY_MS
 *
 * Every answer echoes the pool UUID that came with its request, so the
 * kernel refuses it (-ESTALE) once another pool runs.
 *
 * Calls may come from several threads at once (hypercached's DONE
 * reporters beside its dispatcher); hc_channel_next() from one.  Functions
 * return 0 or a negative errno (the kernel's ack error, or -EIO for a
 * broken socket).
 */
#ifndef HC_CHANNEL_H
#define HC_CHANNEL_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "hypercache.h"
#include "hypercache_netlink.h"
#include "hypercache_format.h"

struct hc_ingest_req {
	uint64_t id;
	char uri[HC_URI_MAX + 1];	/* NUL-terminated copy */
	size_t uri_len;
	bool allocated;			/* size and extents are valid */
	uint64_t size;
	uint32_t nr_ext;
	struct hc_extent ext[HC_MAX_EXTENTS];
	bool has_crc;			/* @crc32c came with the request */
	uint32_t crc32c;
	bool has_pool;			/* @pool_uuid came with the request */
	uint8_t pool_uuid[16];
	/*
	 * HC_CMD_REVALIDATE (on the ingest channel, in the same queue): is
	 * the cached version (@size, @etag if not "", @mtime if not 0)
	 * still the backend's?  Answered with hc_channel_reval_done().
	 */
	bool reval;
	char etag[128];
	int64_t mtime;
};

/* One revalidation rule for hc_channel_reval_rules() (kmod/core/reval.h). */
struct hc_channel_rule {
	const char *prefix;		/* a URI prefix, @len bytes */
	size_t len;
	unsigned int mode;		/* enum hc_reval_mode */
	unsigned int ttl;		/* s, HC_REVAL_AFTER only */
};

struct hc_channel;

/* hc_channel_open() - connect and register as the helper. */
int hc_channel_open(struct hc_channel **out, char *err, size_t errlen);

void hc_channel_close(struct hc_channel *ch);

/* hc_channel_egress_open() - connect and register as the egress helper. */
int hc_channel_egress_open(struct hc_channel **out, char *err, size_t errlen);

/*
 * hc_channel_egress_reregister() - HC_CMD_EGRESS_REGISTER again on the
 * registered channel: the kernel re-sends the uploads that failed for
 * good (a reload after the configuration was fixed).  0 or -errno.
 */
int hc_channel_egress_reregister(struct hc_channel *ch);

/*
 * hc_channel_next() - wait for the next request into @r.  The wait is a
 * ppoll() with @sigmask (NULL: the current mask), so a signal blocked
 * elsewhere and unblocked in @sigmask interrupts it: -EINTR.  So does
 * @wake_fd (-1: none) becoming readable (the caller drains it).
 */
int hc_channel_next(struct hc_channel *ch, struct hc_ingest_req *r,
		    const sigset_t *sigmask, int wake_fd);

/*
 * hc_channel_alloc() - report @size and the backend version being fetched
 * (@etag, may be NULL; Last-Modified @mtime in seconds since the epoch,
 * 0: unknown, as is a time outside 1..HC_LAST_MODIFIED_MAX) for request
 * @r.  Returns 0 with *@admitted set; when admitted, @r's size and extents
 * are filled in and @r->allocated is set.  Not admitted ends the request
 * in the kernel.
 */
int hc_channel_alloc(struct hc_channel *ch, struct hc_ingest_req *r,
		     uint64_t size, const char *etag, int64_t mtime,
		     bool *admitted);

/* hc_channel_done() - the data of @r is durable; its CRC-32C if @crc. */
int hc_channel_done(struct hc_channel *ch, const struct hc_ingest_req *r,
		    const uint32_t *crc);
int hc_channel_fail(struct hc_channel *ch, const struct hc_ingest_req *r,
		    int err_no);

/*
 * hc_channel_reval_rules() - HC_CMD_REVAL_RULES: the kernel revalidates
 * the URIs of these @nr rules (replacing any set before).  -EOPNOTSUPP
 * from a module without revalidation.
 */
int hc_channel_reval_rules(struct hc_channel *ch,
			   const struct hc_channel_rule *rules, unsigned int nr);

/*
 * hc_channel_reval_done() - the answer to revalidation @r: @result is an
 * enum hc_reval_result; @err_no (positive, 0: none) with HC_REVAL_FAILED.
 */
int hc_channel_reval_done(struct hc_channel *ch, const struct hc_ingest_req *r,
			  unsigned int result, int err_no);

/*
 * hc_channel_egress_done() - request @r is in the backend, which answered
 * @etag; @mtime: the new version's Last-Modified, as for hc_channel_alloc().
 */
int hc_channel_egress_done(struct hc_channel *ch, const struct hc_ingest_req *r,
			   const char *etag, int64_t mtime);
/*
 * hc_channel_egress_fail() - the upload of @r failed with @err_no (positive); the
 * kernel re-sends it after @retry_ms (0: the kernel's own backoff), or, if
 * @permanent, not until an egress helper registers again.  @msg (NULL: none;
 * at most HC_EGRESS_MESSAGE_MAX bytes) is kept with the object for 'hcctl ls
 * --dirty'.  A module that does not know PERMANENT and MESSAGE refuses them
 * (-EINVAL): the failure is then sent again without them.
 */
int hc_channel_egress_fail(struct hc_channel *ch, const struct hc_ingest_req *r,
			   int err_no, uint32_t retry_ms, bool permanent,
			   const char *msg);

/*
 * The running pool's geometry and members in stripe order, for NUMA
 * placement (helper/place.c): HC_CMD_POOL_GET on a socket of its own (the
 * channels' sockets carry the kernel's requests).
 */
struct hc_pool_members {
	uint8_t pool_uuid[16];
	uint32_t chunk_size;
	uint32_t member_count;
	char name[HC_MAX_MEMBERS][32];	/* kernel names, "" if not said */
};

/*
 * hc_channel_pool_members() - 0, or -ENODEV (no pool runs), -ENOENT (no
 * module), -ENOMEM, -EIO.
 */
int hc_channel_pool_members(struct hc_pool_members *out);

#endif /* HC_CHANNEL_H */
