#!/bin/sh
# Usage (guest, via /init): stage-jmirror.sh [matrix=full]   (3 drives of 64 MiB)
#
# The journal is mirrored on every member, and replay uses the mirrors:
# for a place of the journal (a record in the middle of the log, the last
# record, header A, header B, both headers) damaged on one member only
# (member 0, the last member), assembly brings back every committed object,
# READY and DIRTY, byte-identical, warns in dmesg naming the member and the
# place, and `hcctl status` says journal degraded-but-complete.  The same
# place damaged on every member: assembly refuses, names every member's
# fault, and writes nothing; --force-empty-journal then starts an empty
# journal, loudly.  A bad sector (dm-error) under one member's current
# header is read from the others.
#
# Without arguments, a representative slice (make check); matrix=full runs
# every combination (make check-reliability).
. /hc/tests/lib.sh

matrix=slice
for a in "$@"; do
	case "$a" in
	matrix=*) matrix=${a#matrix=} ;;
	*) echo "stage-jmirror: unknown argument $a" >&2; exit 2 ;;
	esac
done

M="$(hc_drive 0) $(hc_drive 1) $(hc_drive 2)"
LAST=2

# name N: the kernel's name of drive N (as dmesg prints it)
name() {
	basename "$(readlink -f "$(hc_drive "$1")")"
}

# meta: checksums of every member's superblock and journal (the first
# 4 MiB: the data offset of these pools)
meta() {
	for d in $M; do
		dd if="$d" bs=1M count=4 iflag=direct 2>/dev/null | sha256sum
	done
}

# A pool whose current journal half is B (one reassembly compacted it),
# holding six objects: two DIRTY, three READY (one pinned), one empty,
# plus records after the compaction.  Saves the index in /tmp/before.
setup() {
	hcctl pool stop 2>/dev/null || true	# a failed test may leave it
	dmsetup remove hcbad 2>/dev/null || true
	hcctl pool create --force $M >/dev/null
	hc_pattern 11 9437185 >/tmp/m1
	hc_pattern 12 4194304 >/tmp/m2
	hc_pattern 13 1 >/tmp/m3
	hc_pattern 14 5000000 >/tmp/m4
	hc_pattern 15 3000000 >/tmp/m5
	: >/tmp/m6
	hcctl put --no-progress /tmp/m1 mir/dirty >/dev/null
	hcctl put --no-progress --clean /tmp/m2 mir/ready >/dev/null
	hcctl put --no-progress --clean /tmp/m3 mir/pinned >/dev/null
	hcctl pin mir/pinned
	hcctl pool stop
	hcctl pool assemble $M >/dev/null
	hcctl put --no-progress --clean /tmp/m4 mir/ready2 >/dev/null
	hcctl put --no-progress /tmp/m5 mir/dirty2 >/dev/null
	hcctl put --no-progress --clean /tmp/m6 mir/empty >/dev/null
	hcctl unpin mir/pinned
	hcctl pin mir/pinned
	hcctl ls --json >/tmp/before
	hcctl pool stop
	hc_jpoke show $(hc_drive 0) | grep -q '^half B' ||
		hc_fail "setup: half B is not current: $(hc_jpoke show $(hc_drive 0))"
}

# every object is back, in its state, byte-identical
check_back() {
	hcctl ls --json >/tmp/after
	cmp -s /tmp/before /tmp/after ||
		hc_fail "index differs: $(cat /tmp/before) / $(cat /tmp/after)"
	for o in 1:dirty 2:ready 3:pinned 4:ready2 5:dirty2 6:empty; do
		hcctl get --no-progress -o /tmp/back mir/${o#*:}
		cmp /tmp/m${o%%:*} /tmp/back || hc_fail "mir/${o#*:} differs"
	done
	[ "$(hcctl ls --json | grep -o '"state":"dirty"' | wc -l)" -eq 2 ] ||
		hc_fail "not two DIRTY objects"
}

# one WHERE N: damage WHERE on drive N only; assembly repairs it from the
# other members, says so, and the next assembly finds every copy agreeing
one() {
	setup
	hc_jpoke corrupt-$1 $(hc_drive $2)
	n=$(dmesg | wc -l)
	hcctl pool assemble $M >/dev/null
	check_back
	dmesg | tail -n +$((n + 1)) >/tmp/dmesg
	grep -q "member $(name $2): journal .* is checksum mismatch (torn or corrupt); using the copy of member" /tmp/dmesg ||
		hc_fail "no warning naming $(name $2): $(cat /tmp/dmesg)"
	grep -q "replayed degraded but complete" /tmp/dmesg ||
		hc_fail "no degraded-replay summary: $(cat /tmp/dmesg)"
	hcctl status --json | grep -q '"journal":"degraded"' ||
		hc_fail "status: not degraded: $(hcctl status --json)"
	hcctl status | grep -q "journal degraded-but-complete" ||
		hc_fail "status text: $(hcctl status)"
	hcctl status | grep "$(name $2)" | grep -q "journal: [0-9]* bad block" ||
		hc_fail "status does not name $(name $2): $(hcctl status)"
	# the compaction rewrote every member: the next assembly is clean
	hcctl pool stop
	hcctl pool assemble $M >/dev/null
	hcctl status --json | grep -q '"journal":"complete"' ||
		hc_fail "not complete after a compaction: $(hcctl status --json)"
	check_back
	hcctl pool stop
}

# all WHERE: damage WHERE on every member: refused, every member named,
# nothing written, the pool not started
all() {
	setup
	hc_jpoke corrupt-$1 $M
	before=$(meta)
	n=$(dmesg | wc -l)
	hc_expect_errno -m "Structure needs cleaning" hcctl pool assemble $M
	after=$(meta)
	[ "$before" = "$after" ] || hc_fail "a refused assembly wrote to a member"
	[ ! -b /dev/hypercache0 ] || hc_fail "the pool started anyway"
	dmesg | tail -n +$((n + 1)) >/tmp/dmesg
	for i in 0 1 2; do
		grep -q "member $(name $i): journal .*checksum mismatch" /tmp/dmesg ||
			hc_fail "$(name $i) not named: $(cat /tmp/dmesg)"
	done
}

t_record_mid_0() { one mid 0; }
t_record_mid_last() { one mid $LAST; }
t_record_last_0() { one last 0; }
t_record_last_last() { one last $LAST; }
t_hdr_a_0() { one hdr-a 0; }
t_hdr_a_last() { one hdr-a $LAST; }
t_hdr_b_0() { one hdr-b 0; }
t_hdr_b_last() { one hdr-b $LAST; }
t_hdrs_0() { one hdrs 0; }
t_hdrs_last() { one hdrs $LAST; }
t_all_mid() { all mid; }
t_all_last() { all last; }
t_all_hdr_a() { all hdr-a; }
t_all_hdr_b() { all hdr-b; }

# Both headers damaged everywhere: refused; --force-empty-journal starts an
# empty journal (loudly), the index is empty, and it assembles normally
# afterwards.
t_all_hdrs_then_force() {
	all hdrs
	hc_expect_errno -m "no member has a usable journal header" hcctl pool assemble $M
	n=$(dmesg | wc -l)
	hcctl pool assemble --force-empty-journal $M >/dev/null
	dmesg | tail -n +$((n + 1)) | grep -q "starting an EMPTY journal" ||
		hc_fail "the forced empty journal was not logged"
	hcctl status --json | grep -q '"journal":"emptied"' ||
		hc_fail "status: $(hcctl status --json)"
	[ "$(hcctl ls --json | grep -c '"uri"')" -eq 0 ] || hc_fail "objects left"
	hcctl put --no-progress --clean /tmp/m3 mir/after >/dev/null
	hcctl pool stop
	hcctl pool assemble $M >/dev/null
	hcctl ls --json | grep -q '"uri":"mir/after"' || hc_fail "mir/after lost"
	hcctl status --json | grep -q '"journal":"complete"' ||
		hc_fail "status: $(hcctl status --json)"
	hcctl pool stop
}

# A bad sector under member 0's current header (header B, through a
# dm-linear + dm-error table): the others' copy is used.
t_bad_sector_hdr() {
	setup
	set -- $(hc_jpoke show $(hc_drive 0))
	half=${12}
	d=$(hc_drive 0)
	sz=$(blockdev --getsz "$d")
	s=$(((4096 + half) / 512))
	printf '0 %s linear %s 0\n%s 8 error\n%s %s linear %s %s\n' \
		$s "$d" $s $((s + 8)) $((sz - s - 8)) "$d" $((s + 8)) |
		dmsetup create hcbad
	n=$(dmesg | wc -l)
	hcctl pool assemble /dev/mapper/hcbad $(hc_drive 1) $(hc_drive 2) >/dev/null
	check_back
	dmesg | tail -n +$((n + 1)) >/tmp/dmesg
	bad=dm-$(dmsetup info -c --noheadings -o minor hcbad | tr -d ' ')
	grep -q "member $bad: journal header at offset 0 of half B .* is unreadable; using the copy of member" /tmp/dmesg ||
		hc_fail "no warning naming $bad: $(cat /tmp/dmesg)"
	hcctl status --json | grep -q '"journal":"degraded"' ||
		hc_fail "status: $(hcctl status --json)"
	hcctl pool stop
	dmsetup remove hcbad
}

hc_test jmirror-record-mid-member0 t_record_mid_0
hc_test jmirror-record-last-lastmember t_record_last_last
hc_test jmirror-header-b-member0 t_hdr_b_0
hc_test jmirror-headers-lastmember t_hdrs_last
hc_test jmirror-record-mid-everywhere t_all_mid
hc_test jmirror-headers-everywhere-force t_all_hdrs_then_force
hc_test jmirror-bad-sector-header t_bad_sector_hdr
if [ "$matrix" = full ]; then
	hc_test jmirror-record-mid-lastmember t_record_mid_last
	hc_test jmirror-record-last-member0 t_record_last_0
	hc_test jmirror-header-a-member0 t_hdr_a_0
	hc_test jmirror-header-a-lastmember t_hdr_a_last
	hc_test jmirror-header-b-lastmember t_hdr_b_last
	hc_test jmirror-headers-member0 t_hdrs_0
	hc_test jmirror-record-last-everywhere t_all_last
	hc_test jmirror-header-a-everywhere t_all_hdr_a
	hc_test jmirror-header-b-everywhere t_all_hdr_b
fi
