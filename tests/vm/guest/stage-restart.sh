#!/bin/sh
# Usage (guest, via /init):
#   stage-restart.sh phase=1
#       create a pool on drives 0..2, write 40 MiB of random data through it,
#       print "hc: restart uuid=U sha=S" and stop (a clean shutdown)
#   stage-restart.sh phase=2 uuid=U sha=S order=A:B:C
#       the same images, attached in another order: assemble them given in
#       several orders; each time the pool has the same UUID, each member
#       keeps its index, and the data reads back
#
# Phase 1 creates the pool on drives 0, 1, 2, so member index i is phase-1
# drive i.  Phase 2 is told how the images were reordered: order=a:b:c gives
# the phase-1 drive number of each phase-2 drive.
. /hc/tests/lib.sh

MiB=1048576
DEV=/dev/hypercache0
phase="" uuid="" sha="" order=""
for a in "$@"; do
	case "$a" in
	phase=*) phase=${a#phase=} ;;
	uuid=*) uuid=${a#uuid=} ;;
	sha=*) sha=${a#sha=} ;;
	order=*) order=${a#order=} ;;
	*) echo "stage-restart: unknown argument $a" >&2; exit 2 ;;
	esac
done
D0=$(hc_drive 0) D1=$(hc_drive 1) D2=$(hc_drive 2)

pool_uuid() {
	hcctl status --json | sed -n 's/^{"pool":{"uuid":"\([0-9a-f-]*\)".*/\1/p'
}

# member_dev INDEX: "major:minor" of the member with that index
member_dev() {
	hcctl status --json | sed 's/.*"members":\[//' | tr '}' '\n' |
		sed -n "s/.*\"index\":$1,.*\"dev\":\"\([0-9:]*\)\".*/\1/p"
}

drive_dev() {
	d=$(readlink -f "$(hc_drive "$1")")
	printf '%d:%d\n' "0x$(stat -c %t "$d")" "0x$(stat -c %T "$d")"
}

data_sha() {
	dd if=$DEV bs=4M count=10 iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1
}

t_phase1() {
	hcctl pool create $D0 $D1 $D2
	# the write fence admits raw writes only to a staged object (from
	# another process than the stager: --any-writer)
	hc_stage_hold --any-writer test/whole "$(blockdev --getsize64 $DEV)"
	dd if=/dev/urandom of=$DEV bs=4M count=10 oflag=direct conv=fsync 2>/dev/null
	hc_stage_release
	# straight to the console: hc_test keeps a passing test's output
	echo "hc: restart uuid=$(pool_uuid) sha=$(data_sha)" >/dev/console
	hcctl pool stop
}

# assemble_check DEVS...: assemble from DEVS in that order and check
assemble_check() {
	hcctl pool assemble "$@"
	[ "$(pool_uuid)" = "$uuid" ] || hc_fail "uuid $(pool_uuid), want $uuid"
	# member index i was phase-1 drive i, which is now phase-2 drive j
	j=0
	for old in $(echo "$order" | tr ':' ' '); do
		want=$(drive_dev $j)
		got=$(member_dev "$old")
		[ "$got" = "$want" ] ||
			hc_fail "member $old is $got, want $want (drive $j)"
		j=$((j + 1))
	done
	[ "$(data_sha)" = "$sha" ] || hc_fail "data changed across the restart"
	hcctl pool stop
}

t_phase2() {
	assemble_check $D0 $D1 $D2
	assemble_check $D2 $D0 $D1
	assemble_check $D1 $D2 $D0
	assemble_check $D2 $D1 $D0
}

case "$phase" in
1) hc_test restart-write t_phase1 ;;
2) hc_test restart-reassemble t_phase2 ;;
*) echo "stage-restart: phase=1 or phase=2" >&2; exit 2 ;;
esac
