/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hcctl - declarative command-line options.  A command lists its options
 * in a table of struct hcctl_opt; hcctl_opt_parse() runs getopt_long() over
 * it and stores each value where the entry says, with the usage errors of
 * every command worded alike ("bad --parallel '0' (1..64)", "empty
 * --config FILE", getopt's own).  Every command also accepts -h/--help
 * (prints its manual) and -j/--json (sets hcctl_opt_json, as the global
 * --json before the verb does), so no table lists them.
 */
#ifndef HCCTL_OPT_H
#define HCCTL_OPT_H

#include <stdbool.h>
#include "hcctl.h"

enum hcctl_opt_type {
	HCCTL_OPT_FLAG,		/* bool *: set to true (false with .clear) */
	HCCTL_OPT_STRING,	/* const char **: the argument, not empty */
	HCCTL_OPT_UINT,		/* unsigned int *: decimal in [.min, .max] */
	HCCTL_OPT_ULONG,	/* unsigned long *: decimal in [.min, .max] */
	HCCTL_OPT_CALL,		/* .fn(cmd, arg, .dst): 0 or an exit status */
};

struct hcctl_opt {
	const char *name;	/* the long name, without "--" */
	int key;		/* its short letter, or 0 */
	enum hcctl_opt_type type;
	void *dst;
	unsigned long min, max;	/* UINT, ULONG */
	bool clear;		/* FLAG: store false ("--no-...") */
	const char *what;	/* STRING: what the argument is ("FILE") */
	const char *unit;	/* UINT, ULONG: said in the error ("seconds") */
	/* a deprecated spelling: still accepted, with a note on stderr */
	const char *deprecated_for;
	bool key_deprecated;	/* only the short letter is deprecated */
	int (*fn)(const struct hcctl_cmd *cmd, const char *arg, void *dst);
};

/* Table entries (designated, so that the omitted fields are zero). */
#define HCCTL_FLAG(n, k, d) \
	{ .name = (n), .key = (k), .type = HCCTL_OPT_FLAG, .dst = (d) }
#define HCCTL_NOFLAG(n, k, d) \
	{ .name = (n), .key = (k), .type = HCCTL_OPT_FLAG, .dst = (d), .clear = true }
#define HCCTL_STRING(n, k, d, w) \
	{ .name = (n), .key = (k), .type = HCCTL_OPT_STRING, .dst = (d), .what = (w) }
#define HCCTL_UINT(n, k, d, lo, hi) \
	{ .name = (n), .key = (k), .type = HCCTL_OPT_UINT, .dst = (d), \
	  .min = (lo), .max = (hi) }
#define HCCTL_ULONG(n, k, d, lo, hi, u) \
	{ .name = (n), .key = (k), .type = HCCTL_OPT_ULONG, .dst = (d), \
	  .min = (lo), .max = (hi), .unit = (u) }
#define HCCTL_CALL(n, k, d, f) \
	{ .name = (n), .key = (k), .type = HCCTL_OPT_CALL, .dst = (d), .fn = (f) }
#define HCCTL_OPT_END	{ .name = NULL }

/*
 * hcctl_opt_parse() - parse the options of @argv (argv[0] is the verb) by
 * @opts (ended by an entry whose name is NULL).  Returns the index of the
 * first operand; or -1 when the command must end now, with its exit
 * status in *@rc (0 after --help, HC_EXIT_USAGE after a usage error,
 * which is printed).
 */
int hcctl_opt_parse(const struct hcctl_cmd *cmd, int argc, char **argv,
		    const struct hcctl_opt *opts, int *rc);

#endif /* HCCTL_OPT_H */
