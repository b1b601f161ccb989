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

# A torn record at the end of the log is ignored, never trusted; a
# checksummed record that makes no sense refuses the assembly, and the
# members are left as they were.
t_torn_and_corrupt() {
	hcctl pool create --force $M >/dev/null
	hc_pattern 4 5000000 >/tmp/o4
	hcctl put --no-progress --clean /tmp/o4 keep/one >/dev/null
	hcctl pool stop
	hc_jpoke show $(hc_drive 0)
	hc_jpoke torn $M
	hcctl pool assemble $M >/dev/null
	hcctl ls --json | grep -q '"uri":"keep/one"' || hc_fail "keep/one lost"
	hcctl ls --json | grep -q 'poke/' && hc_fail "the torn record was trusted"
	hcctl get --no-progress -o /tmp/back keep/one
	cmp /tmp/o4 /tmp/back || hc_fail "keep/one differs"
	hcctl pool stop
	hc_jpoke bad-extent $M
	before=$(for d in $M; do dd if=$d bs=1M count=4 iflag=direct 2>/dev/null | sha256sum; done)
	hc_expect_errno -m "corrupt journal record.*Structure needs cleaning" \
		hcctl pool assemble $M
	after=$(for d in $M; do dd if=$d bs=1M count=4 iflag=direct 2>/dev/null | sha256sum; done)
	[ "$before" = "$after" ] || hc_fail "a refused assembly wrote to a member"
	[ ! -b /dev/hypercache0 ] || hc_fail "the pool started anyway"
}

hc_test journal-compaction t_churn
hc_test journal-clean-restart t_clean_restart
hc_test journal-torn-and-corrupt t_torn_and_corrupt
