/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hcctl - HyperCache control utility: declarations shared by all files.
 */
#ifndef HCCTL_H
#define HCCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#ifndef HCCTL_VERSION
#define HCCTL_VERSION "0.1.0"
#endif

/* Exit codes. */
#define HC_EXIT_OK	0
#define HC_EXIT_FAIL	1	/* the operation failed */
#define HC_EXIT_USAGE	2	/* bad command line */

struct hcctl_cmd;

typedef int (*hc_handler_t)(const struct hcctl_cmd *cmd, int argc, char **argv);

/*
 * One entry of the command table in main.c; it drives dispatch and help.
 * @name is one or two words ("status", "pool create").
 */
struct hcctl_cmd {
	const char *name;
	const char *summary;	/* one line for the command list */
	const char *synopsis;	/* after "hcctl <name> " */
	const char *help;	/* DESCRIPTION, OPTIONS, ... (man-page body) */
	hc_handler_t handler;
};

/* Global options (set by main.c before a handler runs). */
extern bool hc_opt_json;

/* main.c: diagnostics and help */
void hc_err(const char *object, const char *reason, int errnum);
void hc_err_hint(const char *object, const char *reason, int errnum,
		 const char *hint);
void hc_errf(const char *object, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int hc_usage_error(const struct hcctl_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int hc_getopt_error(const struct hcctl_cmd *cmd, int c, int optopt_, char **argv,
		    int optind_);
void hc_print_help(const struct hcctl_cmd *cmd, FILE *f);

/* status.c: description of a pool (POOL_GET reply / POOL_NTF) */
struct hc_member_info {
	uint32_t index;
	bool has_index;
	uint32_t dev;
	bool has_dev;
	char *name;
	uint8_t uuid[16];
	bool has_uuid;
	uint64_t bytes;
	bool has_bytes;
	uint64_t chunks;
	bool has_chunks;
	uint32_t journal_repaired;
	bool has_journal_repaired;
};

struct hc_pool_info {
	uint8_t uuid[16];
	bool has_uuid;
	uint32_t state;
	bool has_state;
	char *disk;
	uint32_t disk_dev;
	bool has_disk_dev;
	uint32_t format_version;
	bool has_format_version;
	uint32_t chunk_size;
	bool has_chunk_size;
	uint32_t member_count;
	bool has_member_count;
	uint64_t chunks;
	bool has_chunks;
	uint64_t capacity;
	bool has_capacity;
	uint64_t data_offset;
	bool has_data_offset;
	uint32_t journal;		/* enum hc_journal_state */
	bool has_journal;
	uint32_t journal_repaired;
	bool has_journal_repaired;
	struct hc_member_info *members;	/* sorted by index */
	size_t nmembers;
};

struct nl_msg;

int hc_pool_parse(struct nl_msg *msg, struct hc_pool_info *pool);
void hc_pool_free(struct hc_pool_info *pool);
json_object *hc_pool_json(const struct hc_pool_info *pool);
void hc_pool_print(const struct hc_pool_info *pool, FILE *f);
/* Print a pool as "status" does (text or {"pool":{...}}). */
void hc_pool_output(const struct hc_pool_info *pool, bool json);
void hc_json_print(json_object *obj, bool pretty);
/* HC_CMD_POOL_GET into @pool; 0, or -1 after printing a diagnostic. */
int hc_pool_get(const char *object, struct hc_pool_info *pool);
/*
 * Options of a command that takes only --json and --help: returns an exit
 * code to return at once, or -1 to go on (operands start at optind).
 */
int hc_parse_json_only(const struct hcctl_cmd *cmd, int argc, char **argv,
		       bool *json);

/* Formatting helpers (status.c) */
void hc_fmt_uuid(char out[37], const uint8_t uuid[16]);
void hc_fmt_size(char *out, size_t len, uint64_t bytes);
void hc_fmt_size_exact(char *out, size_t len, uint64_t bytes);
void hc_fmt_dev(char *out, size_t len, uint32_t dev);
const char *hc_state_name(uint32_t state, char *buf, size_t len);
const char *hc_journal_state_name(uint32_t state, char *buf, size_t len);

/* object.c: names and JSON of objects */
struct hc_extent;
const char *hc_obj_state_name(uint32_t state, char *buf, size_t len);
void hc_obj_flags_str(uint32_t flags, char *buf, size_t len);
json_object *hc_extents_json(const struct hc_extent *ext, uint32_t n);

/* Command handlers */
int hc_cmd_pool_create(const struct hcctl_cmd *cmd, int argc, char **argv);
int hc_cmd_pool_assemble(const struct hcctl_cmd *cmd, int argc, char **argv);
int hc_cmd_pool_stop(const struct hcctl_cmd *cmd, int argc, char **argv);
int hc_cmd_status(const struct hcctl_cmd *cmd, int argc, char **argv);
int hc_cmd_monitor(const struct hcctl_cmd *cmd, int argc, char **argv);
int hc_cmd_geometry(const struct hcctl_cmd *cmd, int argc, char **argv);
int hc_cmd_put(const struct hcctl_cmd *cmd, int argc, char **argv);
int hc_cmd_get(const struct hcctl_cmd *cmd, int argc, char **argv);
int hc_cmd_locate(const struct hcctl_cmd *cmd, int argc, char **argv);
int hc_cmd_evict(const struct hcctl_cmd *cmd, int argc, char **argv);
int hc_cmd_pin(const struct hcctl_cmd *cmd, int argc, char **argv);
int hc_cmd_unpin(const struct hcctl_cmd *cmd, int argc, char **argv);
int hc_cmd_ls(const struct hcctl_cmd *cmd, int argc, char **argv);
int hc_cmd_stats(const struct hcctl_cmd *cmd, int argc, char **argv);
int hc_cmd_inspect(const struct hcctl_cmd *cmd, int argc, char **argv);
int hc_cmd_preload(const struct hcctl_cmd *cmd, int argc, char **argv);
int hc_cmd_preload_batch(const struct hcctl_cmd *cmd, int argc, char **argv);
int hc_cmd_flush(const struct hcctl_cmd *cmd, int argc, char **argv);
int hc_cmd_restore(const struct hcctl_cmd *cmd, int argc, char **argv);

#endif /* HCCTL_H */
