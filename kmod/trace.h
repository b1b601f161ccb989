/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's tracepoints (Documentation/tracing.md): events/hypercache/
 * in tracefs, and raw tracepoints for BPF (tools/hctrace).  Field names and
 * the TP_PROTO argument order are a stable interface: hctrace reads the
 * raw arguments by position, without BTF.  Arguments are scalars or a
 * pointer to URI bytes with their length, never internal structures.
 * Every event may fire in any context where its caller runs; none sleeps.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM hypercache

#if !defined(HC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define HC_TRACE_H

#include <linux/tracepoint.h>

/* At most this many URI bytes are copied into an event. */
#define HC_TRACE_URI_MAX	64

/* The events that name an object: its URI (a prefix) and one figure. */
DECLARE_EVENT_CLASS(hc_obj_class,
	TP_PROTO(const u8 *uri, u32 uri_len, u64 generation, u64 size),
	TP_ARGS(uri, uri_len, generation, size),
	TP_STRUCT__entry(
		__field(u64, generation)
		__field(u64, size)
		__field(u32, uri_len)
		__dynamic_array(u8, uri, min_t(u32, uri_len, HC_TRACE_URI_MAX))
	),
	TP_fast_assign(
		__entry->generation = generation;
		__entry->size = size;
		__entry->uri_len = uri_len;
		memcpy(__get_dynamic_array(uri), uri,
		       min_t(u32, uri_len, HC_TRACE_URI_MAX));
	),
	TP_printk("uri=%.*s uri_len=%u generation=%llu size=%llu",
		  (int)min_t(u32, __entry->uri_len, HC_TRACE_URI_MAX),
		  (const char *)__get_dynamic_array(uri), __entry->uri_len,
		  __entry->generation, __entry->size)
);

/* hc_ingest_request: an ingest request sent to the helper. */
DEFINE_EVENT(hc_obj_class, hc_ingest_request,
	TP_PROTO(const u8 *uri, u32 uri_len, u64 generation, u64 size),
	TP_ARGS(uri, uri_len, generation, size));
/* hc_egress_send: an object handed to the egress helper (now SYNCING). */
DEFINE_EVENT(hc_obj_class, hc_egress_send,
	TP_PROTO(const u8 *uri, u32 uri_len, u64 generation, u64 size),
	TP_ARGS(uri, uri_len, generation, size));
/* hc_evict: an object evicted (by the policy or EVICT). */
DEFINE_EVENT(hc_obj_class, hc_evict,
	TP_PROTO(const u8 *uri, u32 uri_len, u64 generation, u64 size),
	TP_ARGS(uri, uri_len, generation, size));
/* hc_stage: a STAGE succeeded (size: the object's). */
DEFINE_EVENT(hc_obj_class, hc_stage,
	TP_PROTO(const u8 *uri, u32 uri_len, u64 generation, u64 size),
	TP_ARGS(uri, uri_len, generation, size));
/* hc_commit: a COMMIT succeeded (generation: the committed one). */
DEFINE_EVENT(hc_obj_class, hc_commit,
	TP_PROTO(const u8 *uri, u32 uri_len, u64 generation, u64 size),
	TP_ARGS(uri, uri_len, generation, size));
/* hc_abort: a stage was aborted (ABORT, or its file closed). */
DEFINE_EVENT(hc_obj_class, hc_abort,
	TP_PROTO(const u8 *uri, u32 uri_len, u64 generation, u64 size),
	TP_ARGS(uri, uri_len, generation, size));

/*
 * hc_locate: a LOCATE ioctl answered.  status: HC_LOCATE_* (uapi/
 * hypercache.h), size: the object's (0 on a miss), ns: the ioctl's latency.
 */
TRACE_EVENT(hc_locate,
	TP_PROTO(const u8 *uri, u32 uri_len, u32 status, u64 size, u64 ns),
	TP_ARGS(uri, uri_len, status, size, ns),
	TP_STRUCT__entry(
		__field(u64, size)
		__field(u64, ns)
		__field(u32, status)
		__field(u32, uri_len)
		__dynamic_array(u8, uri, min_t(u32, uri_len, HC_TRACE_URI_MAX))
	),
	TP_fast_assign(
		__entry->size = size;
		__entry->ns = ns;
		__entry->status = status;
		__entry->uri_len = uri_len;
		memcpy(__get_dynamic_array(uri), uri,
		       min_t(u32, uri_len, HC_TRACE_URI_MAX));
	),
	TP_printk("uri=%.*s uri_len=%u status=%u size=%llu ns=%llu",
		  (int)min_t(u32, __entry->uri_len, HC_TRACE_URI_MAX),
		  (const char *)__get_dynamic_array(uri), __entry->uri_len,
		  __entry->status, __entry->size, __entry->ns)
);

/*
 * The helper channels' answers about request @generation (the ingest ID
 * or the egress generation): size for ALLOC (admitted or not) and DONE,
 * err (negative errno) for FAIL.
 */
DECLARE_EVENT_CLASS(hc_req_class,
	TP_PROTO(u64 generation, u64 size, int err),
	TP_ARGS(generation, size, err),
	TP_STRUCT__entry(
		__field(u64, generation)
		__field(u64, size)
		__field(int, err)
	),
	TP_fast_assign(
		__entry->generation = generation;
		__entry->size = size;
		__entry->err = err;
	),
	TP_printk("generation=%llu size=%llu err=%d", __entry->generation,
		  __entry->size, __entry->err)
);

/* hc_ingest_alloc: err 0 admitted, 1 not admitted, < 0 refused. */
DEFINE_EVENT(hc_req_class, hc_ingest_alloc,
	TP_PROTO(u64 generation, u64 size, int err),
	TP_ARGS(generation, size, err));
DEFINE_EVENT(hc_req_class, hc_ingest_done,
	TP_PROTO(u64 generation, u64 size, int err),
	TP_ARGS(generation, size, err));
DEFINE_EVENT(hc_req_class, hc_ingest_fail,
	TP_PROTO(u64 generation, u64 size, int err),
	TP_ARGS(generation, size, err));
DEFINE_EVENT(hc_req_class, hc_egress_done,
	TP_PROTO(u64 generation, u64 size, int err),
	TP_ARGS(generation, size, err));
DEFINE_EVENT(hc_req_class, hc_egress_fail,
	TP_PROTO(u64 generation, u64 size, int err),
	TP_ARGS(generation, size, err));

/* hc_journal_append: one record block written (bytes, the records so far). */
TRACE_EVENT(hc_journal_append,
	TP_PROTO(u32 bytes, u64 records, int err),
	TP_ARGS(bytes, records, err),
	TP_STRUCT__entry(
		__field(u64, records)
		__field(u32, bytes)
		__field(int, err)
	),
	TP_fast_assign(
		__entry->records = records;
		__entry->bytes = bytes;
		__entry->err = err;
	),
	TP_printk("bytes=%u records=%llu err=%d", __entry->bytes,
		  __entry->records, __entry->err)
);

/* hc_journal_compact: a compaction ended after ns. */
TRACE_EVENT(hc_journal_compact,
	TP_PROTO(u64 compactions, u64 ns, int err),
	TP_ARGS(compactions, ns, err),
	TP_STRUCT__entry(
		__field(u64, compactions)
		__field(u64, ns)
		__field(int, err)
	),
	TP_fast_assign(
		__entry->compactions = compactions;
		__entry->ns = ns;
		__entry->err = err;
	),
	TP_printk("compactions=%llu ns=%llu err=%d", __entry->compactions,
		  __entry->ns, __entry->err)
);

/*
 * hc_member_io: a bio /dev/hypercacheN sent to member @member completed
 * (any context, often interrupt).  op: REQ_OP_* (0 read, 1 write, ...),
 * bytes, ns: submission to completion, err: blk_status_to_errno().
 */
TRACE_EVENT(hc_member_io,
	TP_PROTO(u32 member, u32 op, u32 bytes, u64 ns, int err),
	TP_ARGS(member, op, bytes, ns, err),
	TP_STRUCT__entry(
		__field(u64, ns)
		__field(u32, member)
		__field(u32, op)
		__field(u32, bytes)
		__field(int, err)
	),
	TP_fast_assign(
		__entry->ns = ns;
		__entry->member = member;
		__entry->op = op;
		__entry->bytes = bytes;
		__entry->err = err;
	),
	TP_printk("member=%u op=%u bytes=%u ns=%llu err=%d", __entry->member,
		  __entry->op, __entry->bytes, __entry->ns, __entry->err)
);

/* hc_member_error: such a bio failed; sector: its start on the member. */
TRACE_EVENT(hc_member_error,
	TP_PROTO(u32 member, u32 op, u64 sector, int err),
	TP_ARGS(member, op, sector, err),
	TP_STRUCT__entry(
		__field(u64, sector)
		__field(u32, member)
		__field(u32, op)
		__field(int, err)
	),
	TP_fast_assign(
		__entry->sector = sector;
		__entry->member = member;
		__entry->op = op;
		__entry->err = err;
	),
	TP_printk("member=%u op=%u sector=%llu err=%d", __entry->member,
		  __entry->op, __entry->sector, __entry->err)
);

#endif /* HC_TRACE_H */

/* This part must be outside the include guard. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
