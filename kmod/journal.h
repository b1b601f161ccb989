/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The object journal of a pool: writing records to every member's
 * metadata area, compaction, and replay at assembly.  The record format
 * and its rules are in jrec.h and Documentation/journal.md.
 *
 * Every function is called with the pool lock held and may sleep (it waits
 * for member I/O).
 */
#ifndef HC_JOURNAL_H
#define HC_JOURNAL_H

#include <linux/sizes.h>
#include "core/jrec.h"

struct hc_pool;
struct hc_obj;

/**
 * struct hc_journal - the journal of a running pool
 * @pool: its pool
 * @hdr: the current half's header
 * @cur: the current half, 0 (A) or 1 (B)
 * @half_off: byte offsets of the halves on every member
 * @half_size: bytes per half
 * @pos: where the next record goes in the current half
 * @rec: scratch record for appends
 * @crec: scratch record for compaction and replay
 * @buf: HC_JOURNAL_BUF bytes of scratch (vmalloc), page aligned
 * @hdrblk: one header block of scratch
 * @records: records appended since the pool started (statistics)
 * @compactions: compactions since the pool started
 * @broken: a write failed: every further change is refused with -EIO
 *	(until the pool is assembled again)
 */
struct hc_journal {
	struct hc_pool *pool;
	struct hc_jrec_hdr hdr;
	int cur;
	u64 half_off[2];
	u64 half_size;
	struct hc_jrec_pos pos;
	struct hc_jrec *rec;
	struct hc_jrec *crec;
	void *buf;
	void *hdrblk;
	u64 records;
	u64 compactions;
	bool broken;
};

#define HC_JOURNAL_BUF	SZ_1M

int hc_journal_create(struct hc_pool *pool);
int hc_journal_open(struct hc_pool *pool, const char **msg);
void hc_journal_destroy(struct hc_pool *pool);
int hc_journal_put(struct hc_journal *j, const struct hc_obj *obj, u32 state,
		   u32 flags);
int hc_journal_delete(struct hc_journal *j, const struct hc_obj *obj);

#endif /* HC_JOURNAL_H */
