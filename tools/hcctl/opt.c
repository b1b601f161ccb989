// SPDX-License-Identifier: GPL-2.0
/*
 * hcctl - declarative command-line options: see opt.h.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opt.h"

#define OPT_MAX		32
#define OPT_KEY_BASE	0x100	/* long-only options: OPT_KEY_BASE + index */

/* A decimal number in [min, max]: no sign, no suffix. */
static int opt_number(const char *arg, unsigned long min, unsigned long max,
		      unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(arg, &end, 10);
	if (errno || end == arg || *end || arg[0] == '-' || arg[0] == '+' ||
	    *v < min || *v > max)
		return -EINVAL;
	return 0;
}

/* Store @arg for entry @o (given as its short letter if @by_key); 0 or an exit status. */
static int opt_store(const struct hcctl_cmd *cmd, const struct hcctl_opt *o,
		     bool by_key, const char *arg)
{
	unsigned long v;

	if (o->key_deprecated && by_key)
		fprintf(stderr, "hcctl: %s: -%c is deprecated, use --%s\n",
			cmd->name, o->key, o->name);
	if (o->deprecated_for)
		fprintf(stderr, "hcctl: %s: --%s is deprecated, use --%s\n",
			cmd->name, o->name, o->deprecated_for);
	switch (o->type) {
	case HCCTL_OPT_FLAG:
		*(bool *)o->dst = !o->clear;
		return 0;
	case HCCTL_OPT_STRING:
		if (!arg[0])
			return hcctl_usage_error(cmd, "empty --%s%s%s", o->name,
						 o->what ? " " : "",
						 o->what ? o->what : "");
		*(const char **)o->dst = arg;
		return 0;
	case HCCTL_OPT_UINT:
	case HCCTL_OPT_ULONG:
		if (opt_number(arg, o->min, o->max, &v))
			return hcctl_usage_error(cmd, "bad --%s '%s' (%s%s%lu..%lu)",
						 o->name, arg,
						 o->unit ? o->unit : "",
						 o->unit ? ", " : "", o->min,
						 o->max);
		if (o->type == HCCTL_OPT_UINT)
			*(unsigned int *)o->dst = (unsigned int)v;
		else
			*(unsigned long *)o->dst = v;
		return 0;
	case HCCTL_OPT_CALL:
		return o->fn(cmd, arg, o->dst);
	}
	return hcctl_usage_error(cmd, "--%s: bad option table", o->name);
}

int hcctl_opt_parse(const struct hcctl_cmd *cmd, int argc, char **argv,
		    const struct hcctl_opt *opts, int *rc)
{
	struct option lo[OPT_MAX + 3];
	char so[3 * OPT_MAX + 8] = ":jh";
	size_t n, i, sl = 3;
	int c, ret;

	for (n = 0; opts && opts[n].name; n++)
		;
	if (n > OPT_MAX) {
		*rc = hcctl_usage_error(cmd, "too many options");
		return -1;
	}
	for (i = 0; i < n; i++) {
		bool arg = opts[i].type != HCCTL_OPT_FLAG;

		lo[i] = (struct option){ opts[i].name,
					 arg ? required_argument : no_argument,
					 NULL, (int)(OPT_KEY_BASE + i) };
		if (opts[i].key) {
			so[sl++] = (char)opts[i].key;
			if (arg)
				so[sl++] = ':';
		}
	}
	lo[n] = (struct option){ "json", no_argument, NULL, 'j' };
	lo[n + 1] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[n + 2] = (struct option){ NULL, 0, NULL, 0 };
	so[sl] = '\0';

	opterr = 0;
	while ((c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		const struct hcctl_opt *o = NULL;

		if (c == 'h') {
			hcctl_print_help(cmd, stdout);
			*rc = HC_EXIT_OK;
			return -1;
		}
		if (c == 'j') {
			hcctl_opt_json = true;
			continue;
		}
		if (c >= OPT_KEY_BASE && c < OPT_KEY_BASE + (int)n)
			o = &opts[c - OPT_KEY_BASE];
		for (i = 0; !o && c != ':' && c != '?' && i < n; i++)
			if (opts[i].key == c)
				o = &opts[i];
		if (!o) {
			*rc = hcctl_getopt_error(cmd, c, optopt, argv, optind);
			return -1;
		}
		ret = opt_store(cmd, o, c < OPT_KEY_BASE, optarg);
		if (ret) {
			*rc = ret;
			return -1;
		}
	}
	return optind;
}
