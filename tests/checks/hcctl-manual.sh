#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# hcctl has two manuals: the long --help of each command (its table entry,
# beside its handler in tools/hcctl/) and Documentation/hcctl.rst.  This
# check keeps them one: every command --help lists has a section in
# hcctl.rst (a line starting ``hcctl COMMAND), and the long options of the
# command's --help (SYNOPSIS and OPTIONS) are exactly the long options its
# section names.  -h/--help and -j/--json, which every command takes, are
# left out of the comparison.
#
#   tests/checks/hcctl-manual.sh       (expects tools/hcctl/hcctl built)
set -uo pipefail
cd "$(dirname "$0")/../.."
HCCTL=${HCCTL:-tools/hcctl/hcctl}
rst=${HCCTL_RST:-Documentation/hcctl.rst}
if [ ! -x "$HCCTL" ]; then
	echo "hcctl-manual: $HCCTL not built (make -C tools/hcctl)" >&2
	exit 1
fi

# The command names, from the command list of 'hcctl --help'.
commands() {
	"$HCCTL" --help | awk '/^COMMANDS/ { on = 1; next } /^$/ { on = 0 }
		on { n = $1; if ($2 ~ /^[a-z]+$/ && $1 == "pool") n = n " " $2; print n }'
}

# help_opts CMD: long options of the command's --help, one a line, sorted.
help_opts() {
	"$HCCTL" help $1 | grep -o -- '--[a-z][a-z-]*' | grep -vx -- '--help\|--json' |
		sort -u
}

# heads CMD: whether the line is a section heading of CMD: a line of
# literals ending in ``, one of them ``hcctl CMD followed by a space or ``.
heads='
	function heads(l, cmd,   i) {
		if (l !~ /^``hcctl .*``$/)
			return 0
		i = index(l, "``" cmd)
		return i && (i == 1 || substr(l, i - 2, 2) == ", ") &&
		       substr(l, i + length(cmd) + 2, 1) ~ /[ `]/
	}'

# rst_opts CMD: long options named in CMD's section of hcctl.rst: from its
# heading to the next section title (a line of = or - under a title).
rst_opts() {
	awk -v cmd="hcctl $1" "$heads"'
		!on && heads($0, cmd) { on = 1 }
		on && /^(=+|-+|~+)$/ { exit }
		on { prev = $0; print }
	' "$rst" | sed '$d' | grep -o -- '--[a-z][a-z-]*' | grep -vx -- '--help\|--json' | sort -u
}

rc=0
n=0
for c in $(commands | tr ' ' '_'); do
	c=${c//_/ }
	n=$((n + 1))
	if ! awk -v cmd="hcctl $c" "$heads"' heads($0, cmd) { f = 1 } END { exit !f }' "$rst"; then
		echo "hcctl-manual: $rst has no section for 'hcctl $c'"
		rc=1
		continue
	fi
	d=$(diff <(help_opts "$c") <(rst_opts "$c"))
	if [ -n "$d" ]; then
		echo "hcctl-manual: 'hcctl $c': --help (<) and $rst (>) differ:"
		echo "$d" | grep '^[<>]' | sed 's/^/    /'
		rc=1
	fi
done
[ $rc = 0 ] && echo "hcctl-manual: $n commands, --help and $rst agree"
exit $rc
