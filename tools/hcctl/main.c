// SPDX-License-Identifier: GPL-2.0
/*
 * hcctl - HyperCache control utility: command table, global options, help.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hypercache_netlink.h"
#include "hcctl.h"
#include "opt.h"
#include "suggest.h"

bool hcctl_opt_json;

static int cmd_help(const struct hcctl_cmd *cmd, int argc, char **argv);
static int cmd_version(const struct hcctl_cmd *cmd, int argc, char **argv);

/*
 * The commands: each file declares its group beside its handlers (as
 * nvme-cli's command groups do); the list and help follow this order.
 */
static const struct hcctl_cmd main_cmds[] = {
{
	.name = "help",
	.summary = "show help for hcctl or for one command",
	.synopsis = "[--json] [COMMAND...]",
	.handler = cmd_help,
	.help =
"DESCRIPTION\n"
"    Without arguments, list the commands.  With a command name (one or two\n"
"    words, e.g. 'hcctl help pool create'), show its manual.  The same text\n"
"    is shown by 'hcctl COMMAND --help'.  --json is accepted, as by every\n"
"    command, and changes nothing: the manual is text.\n",
},
{
	.name = "version",
	.summary = "show the version of hcctl",
	.synopsis = "[--json]",
	.handler = cmd_version,
	.help =
"DESCRIPTION\n"
"    Print the version of hcctl and of the netlink family it speaks.  Same as\n"
"    'hcctl --version'.\n"
"\n"
"OPTIONS\n"
"    -j, --json\n"
"        Print {\"version\":V,\"family\":F,\"family_version\":N}.\n"
"\n"
HCCTL_HELP_OPT_TEXT
"\n"
HCCTL_EXIT_STATUS_TEXT,
},
{ .name = NULL }
};

static const struct hcctl_cmd *const groups[] = {
	hcctl_pool_cmds, hcctl_inspect_cmds, hcctl_member_cmds, hcctl_status_cmds,
	hcctl_object_cmds, hcctl_preload_cmds, hcctl_flush_cmds,
	hcctl_restore_cmds, hcctl_cache_cmds, hcctl_verify_cmds, hcctl_bench_cmds,
	hcctl_mount_cmds,
	main_cmds,
};

/* Every command, in order: for (c = first(&g); c; c = next(&g, c)) */
static const struct hcctl_cmd *first_cmd(size_t *g)
{
	*g = 0;
	return groups[0][0].name ? &groups[0][0] : NULL;
}

static const struct hcctl_cmd *next_cmd(size_t *g, const struct hcctl_cmd *c)
{
	if ((++c)->name)
		return c;
	while (++*g < sizeof(groups) / sizeof(groups[0]))
		if (groups[*g][0].name)
			return &groups[*g][0];
	return NULL;
}

/* --- diagnostics --------------------------------------------------------- */

void hcctl_err_hint(const char *object, const char *reason, int errnum,
		 const char *hint)
{
	fputs("hcctl", stderr);
	if (object)
		fprintf(stderr, ": %s", object);
	if (reason)
		fprintf(stderr, ": %s", reason);
	if (errnum)
		fprintf(stderr, ": %s", strerror(errnum));
	if (hint)
		fprintf(stderr, " %s", hint);
	fputc('\n', stderr);
}

void hcctl_err(const char *object, const char *reason, int errnum)
{
	hcctl_err_hint(object, reason, errnum, NULL);
}

void hcctl_errf(const char *object, int errnum, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	hcctl_err(object, buf, errnum);
}

static void print_try(const struct hcctl_cmd *cmd)
{
	if (cmd) {
		fprintf(stderr, "Usage: hcctl %s%s%s\n", cmd->name,
			cmd->synopsis[0] ? " " : "", cmd->synopsis);
		fprintf(stderr, "Try 'hcctl %s --help' for more information.\n",
			cmd->name);
	} else {
		fputs("Try 'hcctl --help' for more information.\n", stderr);
	}
}

int hcctl_usage_error(const struct hcctl_cmd *cmd, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	hcctl_err(cmd ? cmd->name : NULL, buf, 0);
	print_try(cmd);
	return HC_EXIT_USAGE;
}

/* Turn getopt_long()'s ':' / '?' (with opterr = 0) into a usage error. */
int hcctl_getopt_error(const struct hcctl_cmd *cmd, int c, int optopt_, char **argv,
		    int optind_)
{
	const char *arg = optind_ > 0 ? argv[optind_ - 1] : "?";

	if (c == ':') {
		if (optopt_ && strncmp(arg, "--", 2) != 0)
			return hcctl_usage_error(cmd, "option requires an argument -- '%c'",
					      optopt_);
		return hcctl_usage_error(cmd, "option '%s' requires an argument", arg);
	}
	if (optopt_ && !strncmp(arg, "--", 2)) {
		/* a long flag given "=VALUE": glibc sets optopt to its val */
		const char *eq = strchr(arg, '=');

		return hcctl_usage_error(cmd, "option '%.*s' doesn't allow an argument",
					 eq ? (int)(eq - arg) : (int)strlen(arg), arg);
	}
	if (optopt_)
		return hcctl_usage_error(cmd, "invalid option -- '%c'", optopt_);
	return hcctl_usage_error(cmd, "unrecognized option '%s'", arg);
}

/* --- help ------------------------------------------------------------------ */

void hcctl_print_help(const struct hcctl_cmd *cmd, FILE *f)
{
	fprintf(f, "NAME\n    hcctl %s - %s\n\n", cmd->name, cmd->summary);
	fprintf(f, "SYNOPSIS\n    hcctl %s%s%s\n\n", cmd->name,
		cmd->synopsis[0] ? " " : "", cmd->synopsis);
	fputs(cmd->help, f);
}

static void print_command_list(FILE *f, const char *prefix)
{
	size_t g, plen = prefix ? strlen(prefix) : 0;
	const struct hcctl_cmd *c;

	for (c = first_cmd(&g); c; c = next_cmd(&g, c)) {
		if (prefix && (strncmp(c->name, prefix, plen) != 0 ||
			       c->name[plen] != ' '))
			continue;
		fprintf(f, "    %-15s %s\n", c->name, c->summary);
	}
}

static void print_main_help(FILE *f)
{
	fputs(
"NAME\n"
"    hcctl - control HyperCache pools\n"
"\n"
"SYNOPSIS\n"
"    hcctl [--json] COMMAND [OPTIONS] [ARGS...]\n"
"    hcctl help [COMMAND]\n"
"    hcctl --version\n"
"\n"
"DESCRIPTION\n"
"    hcctl talks to the hypercache kernel module over generic netlink (family\n"
"    \"hypercache\") to create, assemble, stop and describe the pool that\n"
"    stripes 4 MiB chunks over NVMe block devices and presents\n"
"    /dev/hypercache0, and through the ioctls of /dev/hypercache-ctl to put\n"
"    objects into its object cache, read them back and inspect them.\n"
"\n"
"COMMANDS\n", f);
	print_command_list(f, NULL);
	fputs(
"\n"
"GLOBAL OPTIONS\n"
"    -j, --json     print machine-readable JSON on stdout (where supported)\n"
"    -h, --help     show this help\n"
"    -V, --version  show the version\n"
"\n"
"    Run 'hcctl help COMMAND' or 'hcctl COMMAND --help' for a command's\n"
"    manual.\n"
"\n"
"DIAGNOSTICS\n"
"    Errors are printed on stderr as \"hcctl: OBJECT: REASON: ERROR\", where\n"
"    OBJECT is the command or the device concerned.\n"
"\n"
HCCTL_EXIT_STATUS_TEXT, f);
}

static void print_noun_help(FILE *f, const char *noun)
{
	fprintf(f, "Usage: hcctl %s COMMAND [OPTIONS] [ARGS...]\n\nCommands:\n",
		noun);
	print_command_list(f, noun);
	fprintf(f, "\nRun 'hcctl help %s COMMAND' for a command's manual.\n",
		noun);
}

static bool is_noun(const char *word)
{
	size_t g, len = strlen(word);
	const struct hcctl_cmd *c;

	for (c = first_cmd(&g); c; c = next_cmd(&g, c))
		if (!strncmp(c->name, word, len) && c->name[len] == ' ')
			return true;
	return false;
}

/*
 * " (did you mean 'WORD'?)" for the mistyped @word into @buf (@len bytes),
 * or "": the candidates are the commands' first words or, after @noun, the
 * second words of that noun's commands.
 */
static const char *did_you_mean(const char *noun, const char *word,
				char *buf, size_t len)
{
	char nouns[8][HCCTL_SUGGEST_MAX + 1];
	const char *cands[64], *s;
	const struct hcctl_cmd *c;
	size_t g, n = 0, nn = 0, wl, i;

	for (c = first_cmd(&g); c && n < 64; c = next_cmd(&g, c)) {
		const char *sp = strchr(c->name, ' ');

		wl = sp ? (size_t)(sp - c->name) : strlen(c->name);
		if (noun) {
			if (sp && wl == strlen(noun) && !strncmp(c->name, noun, wl))
				cands[n++] = sp + 1;
			continue;
		}
		if (!sp) {
			cands[n++] = c->name;
			continue;
		}
		/* a noun ("pool"): its first word, once */
		for (i = 0; i < nn; i++)
			if (strlen(nouns[i]) == wl && !strncmp(nouns[i], c->name, wl))
				break;
		if (i < nn || nn == 8 || wl > HCCTL_SUGGEST_MAX)
			continue;
		memcpy(nouns[nn], c->name, wl);
		nouns[nn][wl] = '\0';
		cands[n++] = nouns[nn++];
	}
	s = hcctl_suggest(word, cands, n);
	if (!s)
		buf[0] = '\0';
	else
		snprintf(buf, len, " (did you mean '%s'?)", s);
	return buf;
}

/*
 * Find the command named by the first one or two words of argv.  Sets
 * *nwords to the number of words used.
 */
static const struct hcctl_cmd *find_command(int argc, char **argv, int *nwords)
{
	const struct hcctl_cmd *c;
	size_t g, len;

	for (c = first_cmd(&g); c; c = next_cmd(&g, c)) {
		const char *sp = strchr(c->name, ' ');

		if (!sp) {
			if (argc >= 1 && !strcmp(argv[0], c->name)) {
				*nwords = 1;
				return c;
			}
			continue;
		}
		len = (size_t)(sp - c->name);
		if (argc >= 2 && strlen(argv[0]) == len &&
		    !strncmp(argv[0], c->name, len) && !strcmp(argv[1], sp + 1)) {
			*nwords = 2;
			return c;
		}
	}
	return NULL;
}

static int cmd_help(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	const struct hcctl_cmd *target;
	int nwords;

	/* argv[0] is "help"; --json changes nothing here (accepted as by every verb) */
	argc--;
	argv++;
	while (argc > 0 && (!strcmp(argv[0], "--json") || !strcmp(argv[0], "-j"))) {
		argc--;
		argv++;
	}
	if (argc > 0 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
		hcctl_print_help(cmd, stdout);
		return HC_EXIT_OK;
	}
	if (argc == 0) {
		print_main_help(stdout);
		return HC_EXIT_OK;
	}
	target = find_command(argc, argv, &nwords);
	if (target && nwords == argc) {
		hcctl_print_help(target, stdout);
		return HC_EXIT_OK;
	}
	if (argc == 1 && is_noun(argv[0])) {
		print_noun_help(stdout, argv[0]);
		return HC_EXIT_OK;
	}
	if (target)
		return hcctl_usage_error(cmd, "unexpected argument '%s'",
				      argv[nwords]);
	if (argc >= 2 && is_noun(argv[0]))
		return hcctl_usage_error(cmd, "unknown command '%s %s'",
				      argv[0], argv[1]);
	return hcctl_usage_error(cmd, "unknown command '%s'", argv[0]);
}

static void print_version(void)
{
	printf("hcctl %s (netlink family \"%s\" version %d)\n", HCCTL_VERSION,
	       HC_GENL_NAME, HC_GENL_VERSION);
}

static int cmd_version(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	int rc, first = hcctl_opt_parse(cmd, argc, argv, NULL, &rc);

	if (first < 0)
		return rc;
	if (first < argc)
		return hcctl_usage_error(cmd, "unexpected argument '%s'", argv[first]);
	if (hcctl_opt_json)
		printf("{\"version\":\"%s\",\"family\":\"%s\",\"family_version\":%d}\n",
		       HCCTL_VERSION, HC_GENL_NAME, HC_GENL_VERSION);
	else
		print_version();
	return HC_EXIT_OK;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json",    no_argument, NULL, 'j' },
		{ "help",    no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const struct hcctl_cmd *cmd;
	int c, nwords, ret;
	char hint[96];

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:jhV", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			hcctl_opt_json = true;
			break;
		case 'h':
			print_main_help(stdout);
			return HC_EXIT_OK;
		case 'V':
			print_version();
			return HC_EXIT_OK;
		default:
			return hcctl_getopt_error(NULL, c, optopt, argv, optind);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		hcctl_err(NULL, "no command given", 0);
		print_try(NULL);
		return HC_EXIT_USAGE;
	}

	cmd = find_command(argc, argv, &nwords);
	if (!cmd) {
		if (is_noun(argv[0])) {
			if (argc == 1) {
				hcctl_errf(argv[0], 0, "no command given");
				print_noun_help(stderr, argv[0]);
				return HC_EXIT_USAGE;
			}
			if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
			    !strcmp(argv[1], "help")) {
				print_noun_help(stdout, argv[0]);
				return HC_EXIT_OK;
			}
			hcctl_errf(argv[0], 0, "unknown command '%s'%s", argv[1],
				   did_you_mean(argv[0], argv[1], hint, sizeof(hint)));
			print_noun_help(stderr, argv[0]);
			return HC_EXIT_USAGE;
		}
		hcctl_errf(NULL, 0, "unknown command '%s'%s", argv[0],
			   did_you_mean(NULL, argv[0], hint, sizeof(hint)));
		print_try(NULL);
		return HC_EXIT_USAGE;
	}

	/* Handlers see argv[0] = last command word, then their arguments. */
	optind = 0;
	ret = cmd->handler(cmd, argc - nwords + 1, argv + nwords - 1);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		hcctl_err(NULL, "write error on stdout", errno);
		return HC_EXIT_FAIL;
	}
	return ret;
}
