// SPDX-License-Identifier: GPL-2.0
/*
 * hctrace's BPF programs: raw tracepoints of hypercache.ko (kmod/trace.h).
 * A raw tracepoint hands over the TP_PROTO arguments as an array of u64,
 * in order; the module's events take scalars and a URI pointer only (their
 * documented layout, Documentation/tracing.md), so nothing here needs the
 * module's BTF.  Built with clang -target bpf; bpftool gen skeleton makes
 * hctrace.skel.h of it.
 */
#include <linux/bpf.h>
#include <linux/types.h>
#include <bpf/bpf_helpers.h>
#include "hctrace.h"

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, HCT_MEMBERS * HCT_OPS);
	__type(key, __u32);
	__type(value, struct hct_io);
} io SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct hct_locate);
} locate SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hct_xfer);
} xfer SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps");

/* The kernel's bucket rule (kmod/core/hist.h): <= 2^i us. */
static __always_inline __u32 slot_of(__u64 ns)
{
	__u64 us = (ns + 999) / 1000;
	__u32 b;

	for (b = 0; b < HCT_SLOTS - 1; b++)
		if (us <= (1ULL << b))
			break;
	return b;
}

/* hc_member_io(u32 member, u32 op, u32 bytes, u64 ns, int err) */
SEC("raw_tp/hc_member_io")
int on_member_io(struct bpf_raw_tracepoint_args *ctx)
{
	__u32 member = (__u32)ctx->args[0], op = (__u32)ctx->args[1];
	__u64 bytes = (__u32)ctx->args[2], ns = ctx->args[3];
	int err = (int)ctx->args[4];
	struct hct_io *v;
	__u32 key, s;

	if (member >= HCT_MEMBERS || op >= HCT_OPS)
		return 0;
	key = member * HCT_OPS + op;
	v = bpf_map_lookup_elem(&io, &key);
	if (!v)
		return 0;
	s = slot_of(ns);
	__sync_fetch_and_add(&v->count, 1);
	__sync_fetch_and_add(&v->bytes, bytes);
	__sync_fetch_and_add(&v->ns, ns);
	if (err)
		__sync_fetch_and_add(&v->errors, 1);
	if (s < HCT_SLOTS)
		__sync_fetch_and_add(&v->slot[s], 1);
	return 0;
}

/* hc_locate(const u8 *uri, u32 uri_len, u32 status, u64 size, u64 ns) */
SEC("raw_tp/hc_locate")
int on_locate(struct bpf_raw_tracepoint_args *ctx)
{
	const void *uri = (const void *)ctx->args[0];
	__u32 len = (__u32)ctx->args[1], status = (__u32)ctx->args[2];
	__u64 ns = ctx->args[4];
	__u32 key = status == 1 ? 0 : 1;	/* HC_LOCATE_HIT is 1 */
	struct hct_locate_ev *e;
	struct hct_locate *v;
	__u32 s = slot_of(ns);
	__u64 n;

	v = bpf_map_lookup_elem(&locate, &key);
	if (v) {
		__sync_fetch_and_add(&v->count, 1);
		__sync_fetch_and_add(&v->ns, ns);
		if (s < HCT_SLOTS)
			__sync_fetch_and_add(&v->slot[s], 1);
	}
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e)
		return 0;	/* user space is behind: the lists are best effort */
	e->ns = ns;
	e->size = ctx->args[3];
	e->status = status;
	e->uri_len = len;
	n = len < HCT_URI ? len : HCT_URI;
	barrier_var(n);
	n &= 2 * HCT_URI - 1;	/* a bound the verifier sees: within e->uri */
	if (n && bpf_probe_read_kernel(e->uri, n, uri))
		e->uri_len = 0;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

static __always_inline void xfer_add(int egress, __u64 bytes)
{
	__u32 key = 0;
	struct hct_xfer *x = bpf_map_lookup_elem(&xfer, &key);

	if (!x)
		return;
	if (egress) {
		__sync_fetch_and_add(&x->egress_bytes, bytes);
		__sync_fetch_and_add(&x->egress_objects, 1);
	} else {
		__sync_fetch_and_add(&x->ingest_bytes, bytes);
		__sync_fetch_and_add(&x->ingest_objects, 1);
	}
}

/* hc_ingest_done / hc_egress_done(u64 generation, u64 size, int err) */
SEC("raw_tp/hc_ingest_done")
int on_ingest_done(struct bpf_raw_tracepoint_args *ctx)
{
	if (!(int)ctx->args[2])
		xfer_add(0, ctx->args[1]);
	return 0;
}

SEC("raw_tp/hc_egress_done")
int on_egress_done(struct bpf_raw_tracepoint_args *ctx)
{
	if (!(int)ctx->args[2])
		xfer_add(1, ctx->args[1]);
	return 0;
}
