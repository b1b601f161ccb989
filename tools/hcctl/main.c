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

bool hc_opt_json;

static int cmd_help(const struct hcctl_cmd *cmd, int argc, char **argv);
static int cmd_version(const struct hcctl_cmd *cmd, int argc, char **argv);

#define EXIT_STATUS_TEXT \
"EXIT STATUS\n" \
"    0  success\n" \
"    1  the operation failed (the reason is printed on stderr)\n" \
"    2  usage error: unknown option, missing or malformed argument\n"

static const struct hcctl_cmd commands[] = {
{
	.name = "pool create",
	.summary = "write new superblocks to block devices and start the pool",
	.synopsis = "[--force] [--data-offset BYTES] [--json] DEV...",
	.handler = hc_cmd_pool_create,
	.help =
"DESCRIPTION\n"
"    Create a new pool from the block devices DEV... and start it as\n"
"    /dev/hypercache0.  The kernel writes a superblock with a fresh pool UUID\n"
"    to every member.  The order of DEV... is the stripe order: chunk v of the\n"
"    pool lives on member v mod N, so the first DEV is member 0.\n"
"\n"
"    Every DEV is resolved with realpath(3) and must be a block device; the\n"
"    resolved path is what the kernel opens.  The same device must not be\n"
"    given twice.  At most 64 devices make up a pool.\n"
"\n"
"    On success the new pool is printed as by 'hcctl status'.  If the kernel\n"
"    rejects one member, the error names that DEV, e.g.\n"
"        hcctl: /dev/nvme1n1: member of a different pool: Cross-device link\n"
"\n"
"OPTIONS\n"
"    -f, --force\n"
"        Overwrite the superblock of a device that already belongs to a pool.\n"
"        Without it the kernel refuses such a device.\n"
"\n"
"    -o, --data-offset BYTES\n"
"        Byte offset of the data area on every member.  A decimal number,\n"
"        optionally followed by K, M, G or T (binary: 1K = 1024; \"KiB\" and\n"
"        \"KB\" spellings are accepted too).  The kernel rounds it up to the\n"
"        chunk size and to at least 1 MiB.  Default: chosen by the kernel.\n"
"\n"
"    -j, --json\n"
"        Print the pool as one JSON object (see 'hcctl help status').\n"
"\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
"    Needs CAP_NET_ADMIN.\n"
"\n"
EXIT_STATUS_TEXT
"\n"
"EXAMPLES\n"
"    hcctl pool create /dev/nvme0n1 /dev/nvme1n1 /dev/nvme2n1\n"
"    hcctl pool create --force --data-offset 8M /dev/nvme0n1 /dev/nvme1n1\n",
},
{
	.name = "pool assemble",
	.summary = "start an existing pool from its members",
	.synopsis = "[--json] DEV...",
	.handler = hc_cmd_pool_assemble,
	.help =
"DESCRIPTION\n"
"    Read the superblocks of the block devices DEV... and start the pool they\n"
"    describe as /dev/hypercache0.  The devices may be given in any order;\n"
"    the stripe order is taken from the superblocks.  All members of the pool\n"
"    must be given.  Each DEV is resolved and checked as for 'pool create'.\n"
"\n"
"    On success the pool is printed as by 'hcctl status'.  If the kernel\n"
"    rejects one member, the error names that DEV.\n"
"\n"
"OPTIONS\n"
"    -j, --json\n"
"        Print the pool as one JSON object (see 'hcctl help status').\n"
"\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
"    Needs CAP_NET_ADMIN.\n"
"\n"
EXIT_STATUS_TEXT
"\n"
"EXAMPLES\n"
"    hcctl pool assemble /dev/nvme2n1 /dev/nvme0n1 /dev/nvme1n1\n",
},
{
	.name = "pool stop",
	.summary = "stop the running pool",
	.synopsis = "",
	.handler = hc_cmd_pool_stop,
	.help =
"DESCRIPTION\n"
"    Stop the running pool and remove /dev/hypercache0.  The members keep\n"
"    their superblocks; 'hcctl pool assemble' starts the pool again.  Prints\n"
"    nothing on success.\n"
"\n"
"    Fails with \"Device or resource busy\" while /dev/hypercache0 is open,\n"
"    and with \"no pool is running\" if there is none.\n"
"\n"
"OPTIONS\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
"    Needs CAP_NET_ADMIN.\n"
"\n"
EXIT_STATUS_TEXT,
},
{
	.name = "status",
	.summary = "describe the running pool",
	.synopsis = "[--json]",
	.handler = hc_cmd_status,
	.help =
"DESCRIPTION\n"
"    Describe the running pool.  Text output:\n"
"\n"
"      pool UUID  STATE  /dev/DISK (MAJOR:MINOR)\n"
"        capacity SIZE (N chunks of SIZE), N members, format vN, data offset SIZE\n"
"        member INDEX  NAME  (MAJOR:MINOR)  uuid UUID  SIZE  N chunks\n"
"        ...\n"
"\n"
"    Sizes are shown in B/KiB/MiB/GiB/TiB.  With --json one object is\n"
"    printed, with raw numbers (bytes) and members sorted by index:\n"
"\n"
"      {\"pool\":{\"uuid\":\"...\",\"state\":\"running\",\"disk\":\"hypercache0\",\n"
"        \"dev\":\"252:0\",\"format_version\":1,\"chunk_size\":4194304,\n"
"        \"member_count\":3,\"chunks\":176,\"capacity\":738197504,\n"
"        \"data_offset\":4194304,\"members\":[{\"index\":0,\"name\":\"nvme0n1\",\n"
"        \"dev\":\"259:0\",\"uuid\":\"...\",\"bytes\":268435456,\"chunks\":58},...]}}\n"
"\n"
"    A key is left out if the kernel did not report the value.\n"
"\n"
"    If no pool is running, text mode prints \"no pool is running\" on stderr\n"
"    and exits 1; --json prints {\"pool\":null} and exits 0, so that scripts\n"
"    can probe.  Does not need privileges.\n"
"\n"
"OPTIONS\n"
"    -j, --json\n"
"        Print one JSON object.\n"
"\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
EXIT_STATUS_TEXT,
},
{
	.name = "monitor",
	.summary = "print pool events as they happen",
	.synopsis = "[--json] [--count N]",
	.handler = hc_cmd_monitor,
	.help =
"DESCRIPTION\n"
"    Listen on the \"events\" multicast group of the hypercache netlink family\n"
"    and print one line per event (a pool started or stopped):\n"
"\n"
"      pool UUID STATE DISK\n"
"\n"
"    With --json, each line is one JSON object shaped like the \"pool\" object\n"
"    of 'hcctl status --json' plus \"event\":\"pool\".  Output is flushed after\n"
"    every line.  Runs until SIGINT or SIGTERM (then exits 0).  Does not need\n"
"    privileges.\n"
"\n"
"OPTIONS\n"
"    -c, --count N\n"
"        Exit after N events.\n"
"\n"
"    -j, --json\n"
"        Print one JSON object per line.\n"
"\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
EXIT_STATUS_TEXT,
},
{
	.name = "geometry",
	.summary = "show the stripe geometry of a HyperCache device (ioctl)",
	.synopsis = "[--json] [DEV]",
	.handler = hc_cmd_geometry,
	.help =
"DESCRIPTION\n"
"    Open DEV (default /dev/hypercache0) read-only and query its geometry\n"
"    with the HC_IOC_GEOMETRY ioctl: pool UUID, chunk size, member count,\n"
"    chunks and capacity.  Chunk v of the device lives on member v mod\n"
"    member_count.  With --json:\n"
"\n"
"      {\"device\":\"/dev/hypercache0\",\"uuid\":\"...\",\"chunk_size\":4194304,\n"
"       \"member_count\":3,\"chunks\":176,\"capacity\":738197504}\n"
"\n"
"    Fails with \"not a HyperCache device\" on other files and with \"the pool\n"
"    has stopped\" if the pool behind an open device went away.\n"
"\n"
"OPTIONS\n"
"    -j, --json\n"
"        Print one JSON object.\n"
"\n"
"    -h, --help\n"
"        Show this help.\n"
"\n"
EXIT_STATUS_TEXT,
},
{
	.name = "help",
	.summary = "show help for hcctl or for one command",
	.synopsis = "[COMMAND...]",
	.handler = cmd_help,
	.help =
"DESCRIPTION\n"
"    Without arguments, list the commands.  With a command name (one or two\n"
"    words, e.g. 'hcctl help pool create'), show its manual.  The same text\n"
"    is shown by 'hcctl COMMAND --help'.\n",
},
{
	.name = "version",
	.summary = "show the version of hcctl",
	.synopsis = "",
	.handler = cmd_version,
	.help =
"DESCRIPTION\n"
"    Print the version of hcctl and of the netlink family it speaks.  Same as\n"
"    'hcctl --version'.\n",
},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

/* --- diagnostics --------------------------------------------------------- */

void hc_err_hint(const char *object, const char *reason, int errnum,
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

void hc_err(const char *object, const char *reason, int errnum)
{
	hc_err_hint(object, reason, errnum, NULL);
}

void hc_errf(const char *object, int errnum, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	hc_err(object, buf, errnum);
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

int hc_usage_error(const struct hcctl_cmd *cmd, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	hc_err(cmd ? cmd->name : NULL, buf, 0);
	print_try(cmd);
	return HC_EXIT_USAGE;
}

/* Turn getopt_long()'s ':' / '?' (with opterr = 0) into a usage error. */
int hc_getopt_error(const struct hcctl_cmd *cmd, int c, int optopt_, char **argv,
		    int optind_)
{
	const char *arg = optind_ > 0 ? argv[optind_ - 1] : "?";

	if (c == ':') {
		if (optopt_ && strncmp(arg, "--", 2) != 0)
			return hc_usage_error(cmd, "option requires an argument -- '%c'",
					      optopt_);
		return hc_usage_error(cmd, "option '%s' requires an argument", arg);
	}
	if (optopt_)
		return hc_usage_error(cmd, "invalid option -- '%c'", optopt_);
	return hc_usage_error(cmd, "unrecognized option '%s'", arg);
}

/* --- help ------------------------------------------------------------------ */

void hc_print_help(const struct hcctl_cmd *cmd, FILE *f)
{
	fprintf(f, "NAME\n    hcctl %s - %s\n\n", cmd->name, cmd->summary);
	fprintf(f, "SYNOPSIS\n    hcctl %s%s%s\n\n", cmd->name,
		cmd->synopsis[0] ? " " : "", cmd->synopsis);
	fputs(cmd->help, f);
}

static void print_command_list(FILE *f, const char *prefix)
{
	size_t i, plen = prefix ? strlen(prefix) : 0;

	for (i = 0; i < NCOMMANDS; i++) {
		if (prefix && (strncmp(commands[i].name, prefix, plen) != 0 ||
			       commands[i].name[plen] != ' '))
			continue;
		fprintf(f, "    %-15s %s\n", commands[i].name,
			commands[i].summary);
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
"    /dev/hypercache0.\n"
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
EXIT_STATUS_TEXT, f);
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
	size_t i, len = strlen(word);

	for (i = 0; i < NCOMMANDS; i++)
		if (!strncmp(commands[i].name, word, len) &&
		    commands[i].name[len] == ' ')
			return true;
	return false;
}

/*
 * Find the command named by the first one or two words of argv.  Sets
 * *nwords to the number of words used.
 */
static const struct hcctl_cmd *find_command(int argc, char **argv, int *nwords)
{
	size_t i, len;

	for (i = 0; i < NCOMMANDS; i++) {
		const char *name = commands[i].name;
		const char *sp = strchr(name, ' ');

		if (!sp) {
			if (argc >= 1 && !strcmp(argv[0], name)) {
				*nwords = 1;
				return &commands[i];
			}
			continue;
		}
		len = (size_t)(sp - name);
		if (argc >= 2 && strlen(argv[0]) == len &&
		    !strncmp(argv[0], name, len) && !strcmp(argv[1], sp + 1)) {
			*nwords = 2;
			return &commands[i];
		}
	}
	return NULL;
}

static int cmd_help(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	const struct hcctl_cmd *target;
	int nwords;

	/* argv[0] is "help" */
	argc--;
	argv++;
	if (argc > 0 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"))) {
		hc_print_help(cmd, stdout);
		return HC_EXIT_OK;
	}
	if (argc == 0) {
		print_main_help(stdout);
		return HC_EXIT_OK;
	}
	target = find_command(argc, argv, &nwords);
	if (target && nwords == argc) {
		hc_print_help(target, stdout);
		return HC_EXIT_OK;
	}
	if (argc == 1 && is_noun(argv[0])) {
		print_noun_help(stdout, argv[0]);
		return HC_EXIT_OK;
	}
	if (target)
		return hc_usage_error(cmd, "unexpected argument '%s'",
				      argv[nwords]);
	if (argc >= 2 && is_noun(argv[0]))
		return hc_usage_error(cmd, "unknown command '%s %s'",
				      argv[0], argv[1]);
	return hc_usage_error(cmd, "unknown command '%s'", argv[0]);
}

static void print_version(void)
{
	printf("hcctl %s (netlink family \"%s\" version %d)\n", HCCTL_VERSION,
	       HC_GENL_NAME, HC_GENL_VERSION);
}

static int cmd_version(const struct hcctl_cmd *cmd, int argc, char **argv)
{
	if (argc > 1) {
		if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
			hc_print_help(cmd, stdout);
			return HC_EXIT_OK;
		}
		return hc_usage_error(cmd, "unexpected argument '%s'", argv[1]);
	}
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

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:jhV", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			hc_opt_json = true;
			break;
		case 'h':
			print_main_help(stdout);
			return HC_EXIT_OK;
		case 'V':
			print_version();
			return HC_EXIT_OK;
		default:
			return hc_getopt_error(NULL, c, optopt, argv, optind);
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0) {
		hc_err(NULL, "no command given", 0);
		print_try(NULL);
		return HC_EXIT_USAGE;
	}

	cmd = find_command(argc, argv, &nwords);
	if (!cmd) {
		if (is_noun(argv[0])) {
			if (argc == 1) {
				hc_errf(argv[0], 0, "no command given");
				print_noun_help(stderr, argv[0]);
				return HC_EXIT_USAGE;
			}
			if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
			    !strcmp(argv[1], "help")) {
				print_noun_help(stdout, argv[0]);
				return HC_EXIT_OK;
			}
			hc_errf(argv[0], 0, "unknown command '%s'", argv[1]);
			print_noun_help(stderr, argv[0]);
			return HC_EXIT_USAGE;
		}
		hc_errf(NULL, 0, "unknown command '%s'", argv[0]);
		print_try(NULL);
		return HC_EXIT_USAGE;
	}

	/* Handlers see argv[0] = last command word, then their arguments. */
	optind = 0;
	ret = cmd->handler(cmd, argc - nwords + 1, argv + nwords - 1);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		hc_err(NULL, "write error on stdout", errno);
		return HC_EXIT_FAIL;
	}
	return ret;
}
