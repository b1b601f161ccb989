#!/bin/bash
# Usage: scripts/rst2man.sh SECTION VERSION < PAGE.rst > NAME.SECTION
#
# A manual page from one of Documentation/'s reStructuredText pages with
# docutils' rst2man (Debian python3-docutils); the page stays the one
# source (hcctl(8) is Documentation/hcctl.rst, hypercached(8)
# Documentation/hypercached.rst).  The page's title is "NAME - SUMMARY";
# this makes it the .TH header and the NAME line man(7) expects.
set -euo pipefail
[ $# -eq 2 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2; }
sec=$1 ver=$2
rst2man --halt=warning --no-generator --no-datestamp |
awk -v sec="$sec" -v ver="$ver" '
	/^\.TH / && !th {
		t = $0; sub(/^\.TH "/, "", t); sub(/ - .*/, "", t)
		printf ".TH \"%s\" \"%s\" \"\" \"HyperCache %s\" \"HyperCache\"\n", t, sec, ver
		th = 1; next
	}
	name == 1 { sub(/ - /, " \\- "); sub(/ \\- *$/, ""); name = 2 }
	/^\.SH NAME$/ && !name { name = 1 }
	{ print }
	END { if (!th || name != 2) { print "rst2man.sh: no \"NAME - SUMMARY\" title" > "/dev/stderr"; exit 1 } }'
