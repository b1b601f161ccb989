#!/bin/sh
# Usage (guest, via /init): stage-journal.sh   (3 fresh drives of 64 MiB)
#
# The journal fills its half and compacts, more than once, and the index
# still comes back exactly after a restart; every committed generation
# survives.  Objects and their data survive a clean stop.  A log that ends
# exactly at, one block before or one block after a half's end assembles;
# a full journal refuses new objects with ENOSPC and still takes deletions;
# a torn record is ignored only where a crash can explain it; two objects
# on one chunk refuse the assembly, naming both.
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

# A torn record at the end of the log on the member being written when
# the power failed (the others never got it) is ignored, never trusted; a
# checksummed record that makes no sense refuses the assembly, and the
# members are left as they were.
t_torn_and_corrupt() {
	hcctl pool create --force $M >/dev/null
	hc_pattern 4 5000000 >/tmp/o4
	hcctl put --no-progress --clean /tmp/o4 keep/one >/dev/null
	hcctl pool stop
	hc_jpoke show $(hc_drive 0)
	hc_jpoke torn $(hc_drive 0)
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

# fresh: a new pool on $M, whatever an earlier (failed) test left running
fresh() {
	hcctl pool stop 2>/dev/null || true
	hcctl pool create --force $M >/dev/null
}

# A torn record at the end of the log on every member is not what a crash
# leaves (records go to one member after another): refused, every member
# named, nothing written.
t_torn_everywhere() {
	fresh
	hc_pattern 4 5000000 >/tmp/o4
	hcctl put --no-progress --clean /tmp/o4 keep/one >/dev/null
	hcctl pool stop
	hc_jpoke torn $M
	before=$(for d in $M; do dd if=$d bs=1M count=4 iflag=direct 2>/dev/null | sha256sum; done)
	n=$(dmesg | wc -l)
	hc_expect_errno -m "damaged on every member.*Structure needs cleaning" \
		hcctl pool assemble $M
	after=$(for d in $M; do dd if=$d bs=1M count=4 iflag=direct 2>/dev/null | sha256sum; done)
	[ "$before" = "$after" ] || hc_fail "a refused assembly wrote to a member"
	[ "$(dmesg | tail -n +$((n + 1)) | grep -c 'journal record at offset .* is checksum mismatch')" -eq 3 ] ||
		hc_fail "not every member named: $(dmesg | tail -n +$((n + 1)))"
}

# Two journaled objects on one chunk: the assembly is refused cleanly (no
# kernel warning on the way out) and dmesg names both URIs.
t_collide() {
	fresh
	hc_pattern 7 5000000 >/tmp/o7
	hcctl put --no-progress --clean /tmp/o7 keep/first >/dev/null
	hcctl pool stop
	hc_jpoke collide $M
	n=$(dmesg | wc -l)
	hc_expect_errno -m "two journaled objects claim one chunk.*Structure needs cleaning" \
		hcctl pool assemble $M
	[ ! -b /dev/hypercache0 ] || hc_fail "the pool started anyway"
	dmesg | tail -n +$((n + 1)) | grep 'journaled objects' | grep 'poke/collide' |
		grep -q 'keep/first' || hc_fail "the colliding objects are not named: $(dmesg | tail -n +$((n + 1)))"
}

# xs N: N times the letter x (the padding hc_jfill gives URIs)
xs() {
	head -c "$1" /dev/zero | tr '\0' x
}

# field NAME: the value after NAME in the output of hc_jpoke show
field() {
	hc_jpoke show $(hc_drive 0) | tr ' ' '\n' | grep -A1 -x "$1" | tail -n 1
}

# The log ends exactly at the end of a half (and one block before it, and
# one block after: the record that does not fit compacts into the other
# half); the pool stops and assembles with every object, and appends after.
# Pin toggles of empty objects make records of 1, 2 and 3 blocks.
t_half_boundary() {
	for left in 0 1 -1; do
		fresh
		hc_pattern 5 5000000 >/tmp/o5
		hcctl put --no-progress /tmp/o5 edge/dirty >/dev/null
		hcctl put --no-progress --clean /tmp/o5 edge/ready >/dev/null
		hc_jfill new edge/three 1000 1 >/dev/null	# 3-block records
		hc_jfill new edge/two 600 1 >/dev/null		# 2 blocks
		hc_jfill new edge/one 40 1 >/dev/null		# 1 block
		three=edge/three0$(xs 989)
		two=edge/two0$(xs 591)
		one=edge/one0$(xs 31)
		bs=$(field block)
		room=$((($(field half_size) - $(field end)) / bs))
		fill=$((left < 0 ? room - 1 : room - left))
		hc_jfill pin "$three" $((fill / 3)) >/dev/null
		case $((fill % 3)) in
		1) hc_jfill pin "$one" 1 >/dev/null ;;
		2) hc_jfill pin "$two" 1 >/dev/null ;;
		esac
		want=$(($(field half_size) - (left != 0) * bs))
		[ "$(field end)" -eq "$want" ] ||
			hc_fail "left $left: the log ends at $(field end), not $want"
		if [ $left -lt 0 ]; then
			hc_jfill pin "$two" 1 >/dev/null	# 2 blocks, 1 left
			[ "$(field half)" = B ] || hc_fail "no compaction into half B"
		fi
		hcctl ls --json >/tmp/before
		hcctl pool stop
		hcctl pool assemble $M >/dev/null ||
			hc_fail "left $left: the pool does not assemble"
		hcctl ls --json >/tmp/after
		cmp -s /tmp/before /tmp/after || hc_fail "left $left: index differs"
		hcctl get --no-progress -o /tmp/back edge/dirty
		cmp /tmp/o5 /tmp/back || hc_fail "left $left: edge/dirty differs"
		hcctl put --no-progress --clean /tmp/o5 edge/after >/dev/null
		hcctl pool stop
		hcctl pool assemble $M >/dev/null
		hcctl ls --json | grep -q '"uri":"edge/after"' || hc_fail "edge/after lost"
		hcctl pool stop
	done
}

# objects: the number of objects in the index
objects() {
	hcctl stats --json | grep -o '"objects":[0-9]*' | cut -d: -f2
}

# A journal full of empty objects: STAGE gets ENOSPC (no chunk taken,
# nothing written), a deletion still has room and makes room; everything
# committed comes back.
t_journal_full() {
	fresh
	hc_pattern 6 4194304 >/tmp/o6
	hcctl put --no-progress --clean /tmp/o6 full/data >/dev/null
	used=$(hcctl stats --json | grep -o '"bytes_used":[0-9]*')
	if hc_jfill new full/ 1000 100000 >/tmp/fill; then
		hc_fail "100000 empty objects fit in the journal"
	fi
	cat /tmp/fill
	grep -qx "failed STAGE ENOSPC" /tmp/fill || hc_fail "not an ENOSPC at STAGE"
	n=$(sed -n 's/^created //p' /tmp/fill)
	[ "$(objects)" -eq $((n + 1)) ] || hc_fail "$(objects) objects, not $((n + 1))"
	hc_expect_errno -m "No space left on device" \
		hcctl put --no-progress --clean /tmp/o6 full/more
	[ "$(hcctl stats --json | grep -o '"bytes_used":[0-9]*')" = "$used" ] ||
		hc_fail "a chunk leaked: $(hcctl stats --json)"
	hcctl evict "full/0$(xs 994)"
	hc_jfill new again/ 1000 1 >/dev/null || hc_fail "no room after an eviction"
	hcctl pool stop
	hcctl pool assemble $M >/dev/null
	[ "$(objects)" -eq $((n + 1)) ] || hc_fail "$(objects) objects after assembly, not $((n + 1))"
	hcctl get --no-progress -o /tmp/back full/data
	cmp /tmp/o6 /tmp/back || hc_fail "full/data differs"
	hcctl pool stop
}

hc_test journal-compaction t_churn
hc_test journal-clean-restart t_clean_restart
hc_test journal-torn-and-corrupt t_torn_and_corrupt
hc_test journal-torn-everywhere t_torn_everywhere
hc_test journal-collide t_collide
hc_test journal-half-boundary t_half_boundary
hc_test journal-full t_journal_full
