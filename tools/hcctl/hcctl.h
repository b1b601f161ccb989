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

/* The end of every command's manual. */
#define HCCTL_EXIT_STATUS_TEXT \
"EXIT STATUS\n" \
"    0  success\n" \
"    1  the operation failed (the reason is printed on stderr)\n" \
"    2  usage error: unknown option, missing or malformed argument\n"

/* Pieces every manual has. */
#define HCCTL_HELP_OPT_TEXT \
"    -h, --help\n" \
"        Show this help.\n"
#define HCCTL_JSON_SILENT_TEXT \
"    -j, --json\n" \
"        Accepted, as by every command; it prints nothing.\n" \
"\n"
#define HCCTL_NEEDS_ADMIN_TEXT \
"    Needs CAP_NET_ADMIN.\n" \
"\n" \
HCCTL_EXIT_STATUS_TEXT

/*
 * The command groups, each beside its handlers, ended by an entry whose
 * name is NULL; main.c lists them in order.
 */
extern const struct hcctl_cmd hcctl_pool_cmds[], hcctl_inspect_cmds[],
	hcctl_status_cmds[], hcctl_object_cmds[], hcctl_preload_cmds[],
	hcctl_flush_cmds[], hcctl_restore_cmds[], hcctl_cache_cmds[],
	hcctl_bench_cmds[], hcctl_member_cmds[];
/* mount.c: mount, umount (the file system view) */
extern const struct hcctl_cmd hcctl_mount_cmds[];
/* verify.c: verify (the cached objects against their backend) */
extern const struct hcctl_cmd hcctl_verify_cmds[];

/* Global options (set by main.c before a handler runs). */
extern bool hcctl_opt_json;

/* main.c: diagnostics and help */
void hcctl_err(const char *object, const char *reason, int errnum);
void hcctl_err_hint(const char *object, const char *reason, int errnum,
		 const char *hint);
void hcctl_errf(const char *object, int errnum, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int hcctl_usage_error(const struct hcctl_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int hcctl_getopt_error(const struct hcctl_cmd *cmd, int c, int optopt_, char **argv,
		    int optind_);
void hcctl_print_help(const struct hcctl_cmd *cmd, FILE *f);

/* status.c: description of a pool (POOL_GET reply / POOL_NTF) */
struct hcctl_member_info {
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

struct hcctl_pool_info {
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
	struct hcctl_member_info *members;	/* sorted by index */
	size_t nmembers;
};

struct nl_msg;

int hcctl_pool_parse(struct nl_msg *msg, struct hcctl_pool_info *pool);
void hcctl_pool_free(struct hcctl_pool_info *pool);
json_object *hcctl_pool_json(const struct hcctl_pool_info *pool);
void hcctl_pool_print(const struct hcctl_pool_info *pool, FILE *f);
/* Print a pool as "status" does (text or {"pool":{...}}). */
void hcctl_pool_output(const struct hcctl_pool_info *pool, bool json);
void hcctl_json_print(json_object *obj, bool pretty);
/* HC_CMD_POOL_GET into @pool; 0, or -1 after printing a diagnostic. */
int hcctl_pool_get(const char *object, struct hcctl_pool_info *pool);
/*
 * Options of a command that takes only --json and --help: returns an exit
 * code to return at once, or -1 to go on (operands start at optind).
 */
int hcctl_parse_json_only(const struct hcctl_cmd *cmd, int argc, char **argv,
		       bool *json);

/* Formatting helpers (status.c) */
void hcctl_fmt_uuid(char out[37], const uint8_t uuid[16]);
void hcctl_fmt_size(char *out, size_t len, uint64_t bytes);
void hcctl_fmt_size_exact(char *out, size_t len, uint64_t bytes);
void hcctl_fmt_dev(char *out, size_t len, uint32_t dev);
const char *hcctl_state_name(uint32_t state, char *buf, size_t len);
const char *hcctl_journal_state_name(uint32_t state, char *buf, size_t len);

/* object.c: names and JSON of objects */
struct hc_extent;
const char *hcctl_obj_state_name(uint32_t state, char *buf, size_t len);
void hcctl_obj_flags_str(uint32_t flags, char *buf, size_t len);
json_object *hcctl_extents_json(const struct hc_extent *ext, uint32_t n);
/* cache.c: a backend's Last-Modified (seconds) as ISO 8601 UTC, or null for 0 */
json_object *hcctl_time_json(uint64_t t);

/* Command handlers */
int hcctl_cmd_pool_create(const struct hcctl_cmd *cmd, int argc, char **argv);
int hcctl_cmd_pool_assemble(const struct hcctl_cmd *cmd, int argc, char **argv);
int hcctl_cmd_pool_stop(const struct hcctl_cmd *cmd, int argc, char **argv);
int hcctl_cmd_pool_upgrade(const struct hcctl_cmd *cmd, int argc, char **argv);
int hcctl_cmd_pool_compact(const struct hcctl_cmd *cmd, int argc, char **argv);
int hcctl_cmd_status(const struct hcctl_cmd *cmd, int argc, char **argv);
int hcctl_cmd_monitor(const struct hcctl_cmd *cmd, int argc, char **argv);
int hcctl_cmd_geometry(const struct hcctl_cmd *cmd, int argc, char **argv);
int hcctl_cmd_put(const struct hcctl_cmd *cmd, int argc, char **argv);
int hcctl_cmd_get(const struct hcctl_cmd *cmd, int argc, char **argv);
int hcctl_cmd_locate(const struct hcctl_cmd *cmd, int argc, char **argv);
int hcctl_cmd_evict(const struct hcctl_cmd *cmd, int argc, char **argv);
int hcctl_cmd_pin(const struct hcctl_cmd *cmd, int argc, char **argv);
int hcctl_cmd_unpin(const struct hcctl_cmd *cmd, int argc, char **argv);
int hcctl_cmd_ls(const struct hcctl_cmd *cmd, int argc, char **argv);
/* cache.c: evict, pin, unpin --prefix (an HCCTL_PREFIX_*) */
enum { HCCTL_PREFIX_EVICT, HCCTL_PREFIX_PIN, HCCTL_PREFIX_UNPIN };
int hcctl_prefix_cmd(const struct hcctl_cmd *cmd, int argc, char **argv,
		     int op);
bool hcctl_has_prefix_opt(int argc, char **argv);
/*
 * cache.c: what 'evict --discard-dirty' throws away: the object @uri is
 * looked up (HC_CMD_OBJ_GET) and, if DIRTY, described on stderr (size,
 * generation, the last upload error).  0 with @out filled (free
 * out->shown), or -1 after reporting why (not cached, no pool).
 */
struct hcctl_uri;
struct hcctl_discard {
	char *shown;
	bool dirty;
	uint64_t size, generation;
};
int hcctl_discard_describe(const char *who, const struct hcctl_uri *uri,
			   struct hcctl_discard *out);
int hcctl_cmd_stats(const struct hcctl_cmd *cmd, int argc, char **argv);
int hcctl_cmd_verify(const struct hcctl_cmd *cmd, int argc, char **argv);
int hcctl_cmd_bench(const struct hcctl_cmd *cmd, int argc, char **argv);
/* cache.c: one HC_CMD_STATS_GET (reported unless @quiet); 0 or -errno */
struct hc_scrape_kernel;
int hcctl_stats_get(const char *who, struct hc_scrape_kernel *s, bool quiet);
/* cache.c: one HC_CMD_POOL_COMPACT, the counters after it; 0 or -errno */
int hcctl_stats_compact(const char *who, struct hc_scrape_kernel *s);
const char *hcctl_stats_registered(const struct hc_scrape_kernel *s, int attr);
int hcctl_cmd_inspect(const struct hcctl_cmd *cmd, int argc, char **argv);
int hcctl_cmd_preload(const struct hcctl_cmd *cmd, int argc, char **argv);
int hcctl_cmd_preload_batch(const struct hcctl_cmd *cmd, int argc, char **argv);
int hcctl_cmd_flush(const struct hcctl_cmd *cmd, int argc, char **argv);
int hcctl_cmd_restore(const struct hcctl_cmd *cmd, int argc, char **argv);
int hcctl_cmd_examine(const struct hcctl_cmd *cmd, int argc, char **argv);
int hcctl_cmd_pool_wipe(const struct hcctl_cmd *cmd, int argc, char **argv);
int hcctl_cmd_mount(const struct hcctl_cmd *cmd, int argc, char **argv);
int hcctl_cmd_umount(const struct hcctl_cmd *cmd, int argc, char **argv);

#endif /* HCCTL_H */
