/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The parts of one object moved by several worker threads, as the fill
 * (ingest) and egress (write-back) engines do: each worker takes the next
 * part, checksums it (CRC-32C) on its own, beside the others, and hands
 * the part's CRC in; the object's CRC is the parts' CRCs folded in part
 * order (hc_crc32c_combine()) as they arrive.  The first failure stops
 * everyone and is the run's error, with its message.
 *
 * A part's CRC waits for nothing, except:
 * - the last part's, for every part before it (its caller wants the
 *   object's CRC: egress checks it before the last part goes out);
 * - a part more than HC_PARTS_AHEAD ahead of the first one not folded
 *   yet, for that one (what is kept ahead of the fold is bounded).
 * Neither can deadlock: parts are taken in order, so every part before
 * one that waits is with a worker that does not (or the run failed).
 *
 * All functions take @p->lock themselves; they may block (as above) but
 * never fail otherwise.  A caller may take @p->lock for counters of its own.
 */
#ifndef HC_PARTS_H
#define HC_PARTS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* parts' CRCs kept ahead of the fold (a power of two) */
#define HC_PARTS_AHEAD	64

struct hc_parts {
	pthread_mutex_t lock;
	pthread_cond_t turn;
	uint64_t nr;		/* parts in the object */
	uint64_t next;		/* the next part to take */
	uint64_t crc_part;	/* the first part not folded in @crc */
	uint32_t crc;		/* parts 0..@crc_part - 1, standard CRC-32C */
	int error;		/* the first failure, negative errno */
	char *err;		/* its message */
	size_t errlen;
	struct {		/* parts ahead of @crc_part, by part % AHEAD */
		uint64_t part;	/* which part, if @have */
		uint64_t len;
		uint32_t crc;
		int have;
	} ahead[HC_PARTS_AHEAD];
};

void hc_parts_init(struct hc_parts *p, uint64_t nr, char *err, size_t errlen);
void hc_parts_destroy(struct hc_parts *p);

/* hc_parts_take() - the next part to move; -1 when none is left or the run failed. */
int64_t hc_parts_take(struct hc_parts *p);

/* hc_parts_fail() - record the first failure (@ret, @msg) and wake everyone. */
void hc_parts_fail(struct hc_parts *p, int ret, const char *msg);

/*
 * hc_parts_crc() - checksum part @n's @len bytes at @buf (without the
 * lock) and fold them into the object's CRC in part order.  When @n is the
 * last part, it returns once every part is folded, with the object's
 * CRC-32C in *@crc; *@crc is not set for the other parts.  -ECANCELED if
 * the run failed before.  A zero-length part counts (a 0-byte object is
 * one part).
 */
int hc_parts_crc(struct hc_parts *p, uint64_t n, const void *buf, size_t len,
		 uint32_t *crc);

/* hc_parts_crc32c() - the CRC-32C of every part folded so far. */
static inline uint32_t hc_parts_crc32c(const struct hc_parts *p)
{
	return p->crc;
}

#endif /* HC_PARTS_H */
