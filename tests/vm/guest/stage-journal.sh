#!/bin/sh
# Usage (guest, via /init): stage-journal.sh   (3 fresh drives of 64 MiB)
#
# The journal fills its half and compacts, more than once, and the index
# still comes back exactly after a restart; every committed generation
# survives.
. /hc/tests/lib.sh

M="$(hc_drive 0) $(hc_drive 1) $(hc_drive 2)"

t_churn() {
	hcctl pool create $M >/dev/null
	# 2500 rounds x (DELETE + OBJECT) records of 512 bytes: more than
	# twice what a 2 MiB journal half holds
	hc_churn 2500 10 5000000 >/tmp/gens
	[ "$(wc -l </tmp/gens)" -eq 10 ] || hc_fail "churn printed $(wc -l </tmp/gens) lines"
	hcctl ls | head -n 3
	hcctl pool stop
	hcctl pool assemble $M >/dev/null
	while read -r uri gen; do
		out=$(hcctl locate --json "$uri")
		echo "$out" | grep -q "\"generation\":$gen[,}]" ||
			hc_fail "$uri: not generation $gen after restart: $out"
		echo "$out" | grep -q '"state":"ready"' || hc_fail "$uri: not ready"
	done </tmp/gens
	[ "$(hcctl ls --json | tr '{' '\n' | grep -c '"uri":"churn/')" -eq 10 ] ||
		hc_fail "not exactly 10 objects after restart"
	# the chunks of the 2490 replaced versions are free again
	hcctl stats --json | grep -q "\"bytes_used\":$((10 * 2 * 4194304))" ||
		hc_fail "space leaked: $(hcctl stats --json)"
	hcctl pool stop
}

hc_test journal-compaction t_churn
