/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parts of one object moved by several worker threads, as the fill
 * (ingest) and egress (write-back) engines do: each worker takes the next
 * part, the CRC-32C runs over the parts in order (a worker whose part is
 * not next waits for its turn), and the first failure stops everyone and
 * is the run's error, with its message.
 *
 * All functions take @p->lock themselves; they may block (the turn) but
 * never fail otherwise.  A caller may take @p->lock for counters of its own.
 */
#ifndef HC_PARTS_H
#define HC_PARTS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

struct hc_parts {
	pthread_mutex_t lock;
	pthread_cond_t turn;
	uint64_t nr;		/* parts in the object */
	uint64_t next;		/* the next part to take */
	uint64_t crc_part;	/* the part whose CRC comes next */
	uint32_t crc;		/* running, pre-inverted */
	int error;		/* the first failure, negative errno */
	char *err;		/* its message */
	size_t errlen;
};

void hc_parts_init(struct hc_parts *p, uint64_t nr, char *err, size_t errlen);
void hc_parts_destroy(struct hc_parts *p);

/* hc_parts_take() - the next part to move; -1 when none is left or the run failed. */
int64_t hc_parts_take(struct hc_parts *p);

/* hc_parts_fail() - record the first failure (@ret, @msg) and wake everyone. */
void hc_parts_fail(struct hc_parts *p, int ret, const char *msg);

/*
 * hc_parts_crc() - wait for part @n's turn, fold its @len bytes at @buf
 * into the CRC and pass the turn on.  The CRC-32C of parts 0..@n in *@crc
 * (final when @n is the last part).  -ECANCELED if the run failed first.
 */
int hc_parts_crc(struct hc_parts *p, uint64_t n, const void *buf, size_t len,
		 uint32_t *crc);

/* hc_parts_crc32c() - the CRC-32C of every part folded so far. */
static inline uint32_t hc_parts_crc32c(const struct hc_parts *p)
{
	return ~p->crc;
}

#endif /* HC_PARTS_H */
