#!/bin/sh
# Usage (guest, via /init):
#   stage-restart.sh phase=1
#       create a pool on drives 0..2, write 40 MiB of random data through it,
#       print "hc: restart uuid=U sha=S" and stop (a clean shutdown)
#   stage-restart.sh phase=2 uuid=U sha=S order=A:B:C
#       the same images, attached in another order: assemble them given in
#       several orders; each time the pool has the same UUID, each member
#       keeps its index, and the data reads back.  Then, with a blank
#       fourth drive: `hcctl examine` of each member, `pool assemble
#       --scan` (complete, a member hidden, a cloned member, waiting for a
#       member that appears) and `pool wipe`
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
D0=$(hc_drive 0) D1=$(hc_drive 1) D2=$(hc_drive 2) D3=$(hc_drive 3)

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

# json_field JSON KEY: the first scalar value of "KEY" in JSON
json_field() {
	echo "$1" | grep -o "\"$2\":[^,}]*" | head -n1 | cut -d: -f2- | tr -d '"'
}

# old_index J: the member index of phase-2 drive J (phase-1 drive order[J])
old_index() {
	echo "$order" | cut -d: -f$(($1 + 1))
}

# examine_check J STATE: drive J's examine (JSON and text) names the pool,
# the member index it had in phase 1, 3 members, a generation and STATE
examine_check() {
	d=$(hc_drive "$1")
	j=$(hcctl examine --json "$d") || hc_fail "examine $d failed: $j"
	[ "$(json_field "$j" pool_uuid)" = "$uuid" ] || hc_fail "$d: pool_uuid in $j"
	[ "$(json_field "$j" member_index)" = "$(old_index "$1")" ] ||
		hc_fail "$d: member_index in $j, want $(old_index "$1")"
	[ "$(json_field "$j" member_count)" = 3 ] || hc_fail "$d: member_count in $j"
	[ "$(json_field "$j" state)" = "$2" ] || hc_fail "$d: state in $j, want $2"
	json_field "$j" generation | grep -Eq '^[1-9][0-9]*$' ||
		hc_fail "$d: generation in $j"
	t=$(hcctl examine "$d")
	echo "$t" | grep -q "Member index : $(old_index "$1") of 3" || hc_fail "$d: text: $t"
	echo "$t" | grep -q "Pool UUID : $uuid" || hc_fail "$d: text: $t"
	echo "$t" | grep -q "State : $2" || hc_fail "$d: text: $t"
	e=$(hcctl examine --export "$d")
	echo "$e" | grep -qx "HC_POOL_UUID=$uuid" || hc_fail "$d: export: $e"
	echo "$e" | grep -qx "HC_MEMBER_INDEX=$(old_index "$1")" || hc_fail "$d: export: $e"
}

# head_sha DEV: SHA-256 of the first 2 MiB (superblock, journal, more)
head_sha() {
	dd if="$1" bs=1M count=2 iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1
}

t_examine() {
	for j in 0 1 2; do
		examine_check $j inactive
	done
	hc_expect_errno -m "$D3: no HyperCache superblock" hcctl examine $D3
	# one bad DEV fails the command, the others are still printed
	if out=$(hcctl examine $D0 $D3 2>/dev/null); then
		hc_fail "examine of a blank drive exited 0"
	fi
	echo "$out" | grep -q "Pool UUID : $uuid" || hc_fail "examine D0 D3: $out"
	[ "$(hcctl examine --json $D3 2>/dev/null | tr -d ' ')" != "" ] ||
		hc_fail "examine --json of a blank drive printed nothing"
	hcctl examine --json $D3 2>/dev/null | grep -q '"state":"none"' ||
		hc_fail "examine --json D3: $(hcctl examine --json $D3 2>&1)"
	if hcctl examine --export $D3 >/tmp/exp 2>&1; then
		hc_fail "examine --export of a blank drive exited 0"
	fi
	[ ! -s /tmp/exp ] || hc_fail "examine --export of a blank drive printed $(cat /tmp/exp)"
}

# scan_check [data]: the pool assembled by --scan is the phase-1 pool,
# each member at its index (and, with "data", the data reads back: 40 MiB
# through TCG, so only once)
scan_check() {
	[ "$(pool_uuid)" = "$uuid" ] || hc_fail "uuid $(pool_uuid), want $uuid"
	j=0
	for old in $(echo "$order" | tr ':' ' '); do
		[ "$(member_dev "$old")" = "$(drive_dev $j)" ] ||
			hc_fail "member $old is $(member_dev "$old"), want drive $j"
		j=$((j + 1))
	done
	[ "${1:-}" != data ] || [ "$(data_sha)" = "$sha" ] || hc_fail "data changed"
}

t_scan() {
	hcctl pool assemble --scan
	scan_check data
	for j in 0 1 2; do
		examine_check $j active
	done
	hcctl examine --json $D0 | grep -q '"pool_disk":"hypercache0"' ||
		hc_fail "examine --json of an active member: $(hcctl examine --json $D0)"
	hc_expect_errno -m "pool $uuid is already running.*Device or resource busy" \
		hcctl pool assemble --scan
	# wipe refuses a member of the running pool, with --yes too
	before=$(head_sha $D1)
	hc_expect_errno -m "$D1: member of the running pool /dev/hypercache0.*busy" \
		hcctl pool wipe --yes $D1
	[ "$(head_sha $D1)" = "$before" ] || hc_fail "wipe of a running member wrote"
	hcctl pool stop
}

t_scan_missing() {
	# hide member 1: the phase-2 drive j with order[j] = 1
	for j in 0 1 2; do
		if [ "$(old_index $j)" = 1 ]; then
			hid=$(hc_drive $j)
		fi
	done
	sectors=$(blockdev --getsz "$hid")
	# a dm device over it at another offset: it has no superblock, and the
	# drive (now with a holder) is skipped by the scan
	dmsetup create hc-hide --table "0 $((sectors - 8)) linear $(readlink -f "$hid") 8"
	hc_expect_errno -m "pool $uuid: member 1 of 3 is missing \(found .* as 0, .* as 2\).*No such device" \
		hcctl pool assemble --scan
	! hcctl status >/dev/null 2>&1 || hc_fail "a pool is running after a refused scan"
	# --timeout waits: still refused after the timeout...
	t0=$(date +%s)
	hc_expect_errno -m "member 1 of 3 is missing" hcctl pool assemble --scan --timeout 2
	[ $(($(date +%s) - t0)) -ge 2 ] || hc_fail "--timeout 2 gave up early"
	# wipe refuses the claimed drive: O_EXCL
	before=$(head_sha "$hid")
	hc_expect_errno -m "$hid: device is in use.*busy" hcctl pool wipe --yes "$hid"
	[ "$(head_sha "$hid")" = "$before" ] || hc_fail "wipe of a claimed drive wrote"
	# ...and assembles once the member appears while it waits
	(sleep 2; dmsetup remove hc-hide) &
	hcctl pool assemble --scan --timeout 60
	wait
	scan_check
	hcctl pool stop
}

t_scan_clone() {
	# drive 3 gets a copy of drive 0's superblock and journal: two members
	# with the same index
	dd if=$D0 of=$D3 bs=1M count=2 oflag=direct conv=fsync 2>/dev/null
	hc_expect_errno -m "member $(old_index 0) of pool $uuid found twice.*File exists" \
		hcctl pool assemble --scan
	! hcctl status >/dev/null 2>&1 || hc_fail "a pool is running after a refused scan"
	# wipe: refused without --yes (nothing written), then done
	before=$(head_sha $D3)
	hc_expect_errno -m "$D3: would zero the superblock and journal of member $(old_index 0) of 3 of pool $uuid.*--yes" \
		hcctl pool wipe $D3
	[ "$(head_sha $D3)" = "$before" ] || hc_fail "wipe without --yes wrote"
	off=$(json_field "$(hcctl examine --json $D3)" data_offset)
	out=$(hcctl pool wipe --json --yes $D3)
	echo "$out" | grep -q "\"device\":\"$D3\"" || hc_fail "wipe --json: $out"
	[ "$(json_field "$out" bytes_zeroed)" = "$off" ] ||
		hc_fail "wipe --json: $out, want bytes_zeroed $off (the data offset)"
	[ "$(dd if=$D3 bs=1M count=1 iflag=direct 2>/dev/null | tr -d '\0' | wc -c)" = 0 ] ||
		hc_fail "wipe left non-zero bytes in the metadata area"
	hc_expect_errno -m "$D3: no HyperCache superblock" hcctl examine $D3
	hc_expect_errno -m "$D3: no HyperCache superblock \(nothing wiped\)" hcctl pool wipe --yes $D3
	hcctl pool assemble --scan
	scan_check
	hcctl pool stop
}

# --scan with members of two pools: --uuid chooses; a wiped member is gone
t_scan_two_pools() {
	hcctl pool create --force $D3
	other=$(pool_uuid)
	hcctl pool stop
	hc_expect_errno -m "members of 2 pools found .*$uuid.*choose one with --uuid|members of 2 pools found .*$other.*choose one with --uuid" \
		hcctl pool assemble --scan
	hcctl pool assemble --scan --uuid "$uuid"
	scan_check
	hcctl pool stop
	hcctl pool assemble --scan --uuid "$other"
	[ "$(pool_uuid)" = "$other" ] || hc_fail "--uuid $other assembled $(pool_uuid)"
	hcctl pool stop
	hcctl pool wipe --yes $D3
	hc_expect_errno -m "no member of pool $other found" hcctl pool assemble --scan --uuid "$other"
	hc_expect_errno -m "invalid --uuid" hcctl pool assemble --scan --uuid nonsense
}

case "$phase" in
1) hc_test restart-write t_phase1 ;;
2)
	hc_test restart-reassemble t_phase2
	hc_test restart-examine t_examine
	hc_test restart-scan t_scan
	hc_test restart-scan-missing t_scan_missing
	hc_test restart-scan-clone t_scan_clone
	hc_test restart-scan-two-pools t_scan_two_pools
	;;
*) echo "stage-restart: phase=1 or phase=2" >&2; exit 2 ;;
esac
