#!/bin/sh
# Usage (guest, via /init): stage-journal.sh   (3 fresh drives of 64 MiB)
#
# The journal fills its half and compacts, more than once, and the index
# still comes back exactly after a restart; every committed generation
# survives.  Objects and their data survive a clean stop.
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

# Objects and their data survive a clean stop and reassembly: DIRTY,
# READY and pinned ones come back byte-identical in their state.
t_clean_restart() {
	hcctl pool create --force $M >/dev/null
	hc_pattern 1 9437185 >/tmp/o1
	hc_pattern 2 4194304 >/tmp/o2
	hc_pattern 3 1 >/tmp/o3
	hcctl put --no-progress /tmp/o1 keep/dirty >/dev/null
	hcctl put --no-progress --clean /tmp/o2 keep/ready >/dev/null
	hcctl put --no-progress --clean /tmp/o3 keep/pinned >/dev/null
	hcctl pin keep/pinned
	before=$(hcctl ls --json)
	hcctl pool stop
	hcctl pool assemble $M >/dev/null
	after=$(hcctl ls --json)
	[ "$before" = "$after" ] || hc_fail "index differs: $before / $after"
	for o in 1:dirty 2:ready 3:pinned; do
		hcctl get --no-progress -o /tmp/back keep/${o#*:}
		cmp /tmp/o${o%%:*} /tmp/back || hc_fail "keep/${o#*:} differs"
	done
	hcctl pool stop
}

hc_test journal-compaction t_churn
hc_test journal-clean-restart t_clean_restart
