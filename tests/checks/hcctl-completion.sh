#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The bash completion (dist/bash-completion/hcctl) against hcctl itself,
# verb by verb, without root or the module:
#   1. every option it offers for "hcctl VERB --" is one VERB accepts
#      (getopt does not answer "unrecognized option");
#   2. every option VERB's manual names in its SYNOPSIS and OPTIONS is
#      offered;
#   3. every long option of hcctl's option tables (tools/hcctl/*.c) is
#      offered by at least one verb; the global options without a verb.
# bash-completion's own helpers are shimmed when the package is absent.
#
#   tests/checks/hcctl-completion.sh      (expects tools/hcctl/hcctl built)
#
# Exit 0 if every check passes; prints each failure.

top=$(cd "$(dirname "$0")/../.." && pwd)
HCCTL=${HCCTL:-$top/tools/hcctl/hcctl}
COMP=${COMP:-$top/dist/bash-completion/hcctl}

if [ ! -x "$HCCTL" ]; then
	echo "hcctl-completion: $HCCTL not built (make -C tools/hcctl)" >&2
	exit 1
fi

if [ -r /usr/share/bash-completion/bash_completion ]; then
	# shellcheck disable=SC1091
	. /usr/share/bash-completion/bash_completion
fi
if ! declare -F _init_completion > /dev/null; then
	# the part of bash-completion's _init_completion that _hcctl uses
	_init_completion() {
		words=("${COMP_WORDS[@]}")
		cword=$COMP_CWORD
		cur=${COMP_WORDS[COMP_CWORD]}
		prev=${COMP_WORDS[COMP_CWORD - 1]}
	}
	_filedir() { :; }
fi
# shellcheck source=../../dist/bash-completion/hcctl
. "$COMP"

failed=0
passed=0
fail() {
	failed=$((failed + 1))
	echo "FAIL: $*"
}

# offered WORD... : the options _hcctl offers after "hcctl WORD... --"
offered() {
	COMP_WORDS=("$HCCTL" "$@" --)
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_hcctl
	printf '%s\n' "${COMPREPLY[@]}" | sort -u
}

# documented VERB... : the options of the verb's SYNOPSIS and OPTIONS
# sections (an OPTIONS entry is a line "    [-x, ]--name[ ARG]")
documented() {
	"$HCCTL" help "$@" 2> /dev/null | awk '
		/^[A-Z][A-Z ]*$/ { sec = $0; next }
		sec == "SYNOPSIS" {
			while (match($0, /--[a-z][a-z0-9-]*/)) {
				print substr($0, RSTART, RLENGTH)
				$0 = substr($0, RSTART + RLENGTH)
			}
		}
		sec == "OPTIONS" && /^    -/ {
			for (i = 1; i <= NF; i++) {
				w = $i
				sub(/,$/, "", w)
				sub(/=.*/, "", w)
				if (w ~ /^--[a-z][a-z0-9-]*$/)
					print w
			}
		}' | sort -u
}

# accepted VERB... OPT : whether getopt knows OPT for the verb.  "OPT=1
# --help" never runs the command: a flag is refused for its argument
# ("doesn't allow an argument"), an option with one takes "1" (or refuses
# it) and --help ends the parse.  evict, pin and unpin have a second form,
# --prefix PREFIX, with options of its own: either form will do.
accepted() {
	local opt=${*: -1} form
	local -a verb=("${@:1:$#-1}")

	for form in "" --prefix=p; do
		if ! "$HCCTL" "${verb[@]}" $form "$opt=1" --help 2>&1 > /dev/null |
			grep -q "unrecognized option"; then
			return 0
		fi
	done
	return 1
}

mapfile -t verbs < <(_hcctl_commands "$HCCTL")
if [ "${#verbs[@]}" -lt 20 ]; then
	fail "only ${#verbs[@]} commands read from hcctl --help"
fi

declare -A all_offered=()
for v in "${verbs[@]}"; do
	# shellcheck disable=SC2086
	set -- $v
	mapfile -t offer < <(offered "$@")
	mapfile -t doc < <(documented "$@")
	for o in "${offer[@]}"; do
		[ -n "$o" ] || continue
		all_offered[$o]=1
		if accepted "$@" "$o"; then
			passed=$((passed + 1))
		else
			fail "hcctl $v: completion offers $o, which hcctl $v does not accept"
		fi
	done
	for o in "${doc[@]}"; do
		[ -n "$o" ] || continue
		if printf '%s\n' "${offer[@]}" | grep -qxF -- "$o"; then
			passed=$((passed + 1))
		else
			fail "hcctl $v: $o is in its manual but not offered by the completion"
		fi
	done
	# -h/--help and -j/--json: every command (tools/hcctl/opt.h)
	for o in --help --json; do
		if printf '%s\n' "${offer[@]}" | grep -qxF -- "$o"; then
			passed=$((passed + 1))
		else
			fail "hcctl $v: $o not offered"
		fi
	done
done

# every option of the tables: offered where it is accepted
mapfile -t table < <(grep -ohE 'HCCTL_(FLAG|NOFLAG|STRING|UINT|ULONG|CALL)\("[a-z0-9-]+"' \
	"$top"/tools/hcctl/*.c | sed 's/.*("/--/; s/"$//' | sort -u)
if [ "${#table[@]}" -lt 20 ]; then
	fail "only ${#table[@]} options found in tools/hcctl/*.c"
fi
for o in "${table[@]}"; do
	if [ -n "${all_offered[$o]}" ]; then
		passed=$((passed + 1))
	else
		fail "$o (tools/hcctl option tables) is offered by no command"
	fi
done
for v in "${verbs[@]}"; do
	[ "$v" = help ] && continue	# its operands are command words
	# shellcheck disable=SC2086
	set -- $v
	mapfile -t offer < <(offered "$@")
	for o in "${table[@]}"; do
		printf '%s\n' "${offer[@]}" | grep -qxF -- "$o" && continue
		# getopt takes a unique abbreviation: --force for --force-empty-journal
		printf '%s\n' "${offer[@]}" | grep -q -- "^$o" && continue
		if accepted "$@" "$o"; then
			fail "hcctl $v accepts $o but the completion does not offer it"
		else
			passed=$((passed + 1))
		fi
	done
done

# the global options, before a verb
mapfile -t glob < <(offered)
for o in --json --help --version; do
	if printf '%s\n' "${glob[@]}" | grep -qxF -- "$o"; then
		passed=$((passed + 1))
	else
		fail "hcctl: global option $o not offered"
	fi
done
# a verb's words complete from the command list
COMP_WORDS=("$HCCTL" ev)
COMP_CWORD=1
COMPREPLY=()
_hcctl
if [ "${COMPREPLY[*]}" = evict ]; then
	passed=$((passed + 1))
else
	fail "hcctl ev<TAB>: got '${COMPREPLY[*]}', want evict"
fi

echo "hcctl-completion: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
