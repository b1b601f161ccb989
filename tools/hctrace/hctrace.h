/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What hctrace's BPF programs (hctrace.bpf.c) and its user space
 * (hctrace.c) share: the map layouts.
 */
#ifndef HCTRACE_H
#define HCTRACE_H

#define HCT_MEMBERS	64
#define HCT_OPS		2	/* 0 read, 1 write (REQ_OP_READ, REQ_OP_WRITE) */
#define HCT_SLOTS	24	/* log2 microsecond buckets, as the kernel's */
#define HCT_URI		64	/* HC_TRACE_URI_MAX */

/* Per member and operation: bios, bytes, errors and a latency histogram. */
struct hct_io {
	unsigned long long count;
	unsigned long long bytes;
	unsigned long long errors;
	unsigned long long ns;
	unsigned long long slot[HCT_SLOTS];
};

/* Index 0: LOCATE hits, 1: every other LOCATE. */
struct hct_locate {
	unsigned long long count;
	unsigned long long ns;
	unsigned long long slot[HCT_SLOTS];
};

/* Bytes the helper channels completed (ingest DONE, egress DONE). */
struct hct_xfer {
	unsigned long long ingest_bytes, ingest_objects;
	unsigned long long egress_bytes, egress_objects;
};

/* One LOCATE, sent to user space for the slowest-objects list. */
struct hct_locate_ev {
	unsigned long long ns;
	unsigned long long size;
	unsigned int status;
	unsigned int uri_len;
	unsigned char uri[2 * HCT_URI];	/* HCT_URI used; room for the verifier's bound */
};

#endif /* HCTRACE_H */
