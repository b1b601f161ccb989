#!/bin/sh
# Usage (guest, via /init): stage-refuse.sh   (4 fresh drives of 64 MiB)
#
# Every way a create or an assembly must be refused, each with its errno
# and a message that names the device, and the rule that a member which
# fails validation is never written.
. /hc/tests/lib.sh

D0=$(hc_drive 0) D1=$(hc_drive 1) D2=$(hc_drive 2) D3=$(hc_drive 3)
SUM=/tmp/meta.sums

# metasum: checksums of the superblock and metadata area of every drive
metasum() {
	for d in $D0 $D1 $D2 $D3; do
		dd if=$d bs=1M count=4 iflag=direct 2>/dev/null | sha256sum
	done
}

# mkloop FILE SIZE_MB: a loop device over a fresh file; prints its path
mkloop() {
	rm -f "$1"
	dd if=/dev/zero of="$1" bs=1M count=0 seek="$2" 2>/dev/null
	_loop=$(losetup -f)
	losetup "$_loop" "$1"
	echo "$_loop"
}

t_setup() {
	# pool A: drives 0-2; pool B: drive 3 alone
	hcctl pool create $D0 $D1 $D2
	hcctl pool stop
	hcctl pool create $D3
	hcctl pool stop
	metasum >$SUM
	LOOP_BLANK=$(mkloop /tmp/blank.img 64)
	LOOP_CLONE=$(mkloop /tmp/clone.img 64)
	LOOP_SMALL=$(mkloop /tmp/small.img 6)
	echo "$LOOP_BLANK $LOOP_CLONE $LOOP_SMALL" >/tmp/loops
}

loops() {
	read -r LOOP_BLANK LOOP_CLONE LOOP_SMALL </tmp/loops
}

t_missing_member() {
	hc_expect_errno -m "member missing.*No such device" \
		hcctl pool assemble $D0 $D2
}

t_mixed_pools() {
	hc_expect_errno -m "$D3: member of a different pool" \
		hcctl pool assemble $D0 $D1 $D2 $D3
	hc_expect_errno -m "$D3: member of a different pool" \
		hcctl pool assemble $D0 $D3
}

t_foreign_member() {
	loops
	hc_expect_errno -m "$LOOP_BLANK: no HyperCache superblock.*Invalid argument" \
		hcctl pool assemble $D0 $D1 $D2 $LOOP_BLANK
}

t_duplicate_device() {
	hc_expect_errno -m "$D1.*given twice" \
		hcctl pool assemble $D0 $D1 $D1 $D2
}

# A byte-for-byte copy of member 1: same pool, same index.
t_duplicate_member() {
	loops
	dd if=$D1 of=$LOOP_CLONE bs=1M count=8 iflag=direct oflag=direct 2>/dev/null
	hc_expect_errno -m "$LOOP_CLONE: duplicate member.*File exists" \
		hcctl pool assemble $D0 $D1 $D2 $LOOP_CLONE
}

# A member that claims another member count than the rest.
t_wrong_member_count() {
	loops
	dd if=$D2 of=$LOOP_CLONE bs=1M count=8 iflag=direct oflag=direct 2>/dev/null
	hc_sbpoke $LOOP_CLONE count=4 index=3
	hc_expect_errno -m "$LOOP_CLONE: member disagrees with the pool's geometry.*Structure needs cleaning" \
		hcctl pool assemble $D0 $D1 $D2 $LOOP_CLONE
}

t_unknown_incompat() {
	dd if=$D2 of=/tmp/sb2 bs=4k count=1 iflag=direct 2>/dev/null
	hc_sbpoke $D2 incompat=0x8000000000000000
	hc_expect_errno -m "$D2: unknown incompatible feature.*(Operation not supported|Not supported)" \
		hcctl pool assemble $D0 $D1 $D2
	dd if=/tmp/sb2 of=$D2 bs=4k count=1 oflag=direct conv=fsync 2>/dev/null
}

# Format v2's bit beside an unknown one: refused, and the kernel log names
# the member and the unknown bits.
t_unknown_incompat_bits() {
	dd if=$D2 of=/tmp/sb2 bs=4k count=1 iflag=direct 2>/dev/null
	hc_sbpoke $D2 incompat=0x5
	rc=0
	( hc_expect_errno -m "$D2: unknown incompatible feature.*(Operation not supported|Not supported)" \
		hcctl pool assemble $D0 $D1 $D2 ) || rc=1
	dd if=/tmp/sb2 of=$D2 bs=4k count=1 oflag=direct conv=fsync 2>/dev/null
	[ $rc = 0 ] || hc_fail "not refused as an unknown incompatible feature"
	dev=$(readlink -f $D2)
	dmesg | grep -q "$dev: incompatible feature bits 0x4 are unknown to this module (it knows 0x1)" ||
		hc_fail "no kernel log line naming $dev and bits 0x4"
}

# jget KEY: the first numeric "KEY":N in stdin
jget() {
	grep -o "\"$1\":[0-9]*" | head -n 1 | cut -d: -f2
}

# A pool of format v2 (create --format 2): its superblocks carry the bit,
# its journal is v2, it says so, and its objects survive a restart; a
# member whose superblock loses the bit (a v1 pool with a v2 journal) is
# refused.  Then pool B is made again (format 1) and stays v1.
t_format_v2() {
	hcctl pool create --force --format 2 $D3 >/dev/null
	[ "$(hcctl status --json | jget format_version)" = 2 ] ||
		hc_fail "status does not say format 2: $(hcctl status --json)"
	hcctl status | grep -q "format v2" || hc_fail "status text: no 'format v2'"
	head -c 3000000 /dev/urandom >/tmp/v2obj
	hcctl put --clean --no-progress /tmp/v2obj v2/a >/dev/null
	hcctl pool stop
	hc_sbpoke $D3 show | grep -q "incompat=0x1" ||
		hc_fail "superblock: $(hc_sbpoke $D3 show)"
	hcctl examine --json $D3 >/tmp/v2.json
	[ "$(jget format_version </tmp/v2.json)" = 2 ] ||
		hc_fail "examine: $(cat /tmp/v2.json)"
	grep -q '"version":2' /tmp/v2.json || hc_fail "journal not v2: $(cat /tmp/v2.json)"
	hcctl pool assemble $D3 >/dev/null
	dmesg | grep -q "assembled pool .*format v2" || hc_fail "no 'format v2' in dmesg"
	rm -f /tmp/v2.out
	hcctl get --no-progress -o /tmp/v2.out v2/a
	cmp -s /tmp/v2.out /tmp/v2obj || hc_fail "v2/a changed across the restart"
	hcctl pool stop
	hc_sbpoke $D3 incompat=0
	hc_expect_errno -m "journal of a newer format version.*(Operation not supported|Not supported)" \
		hcctl pool assemble $D3
	hcctl pool create --force $D3 >/dev/null
	[ "$(hcctl status --json | jget format_version)" = 1 ] ||
		hc_fail "a pool made without --format is not v1"
	hcctl pool stop
	hc_sbpoke $D3 show | grep -q "incompat=0$" ||
		hc_fail "v1 superblock: $(hc_sbpoke $D3 show)"
	# the v2 pool's records are still on the drive after the new log's
	# header: stale (another log), they end it; they must not refuse it
	# as "a newer format version"
	hcctl pool assemble $D3 >/dev/null 2>/tmp/v1over.err ||
		hc_fail "a v1 pool created over a v2 pool's drive does not assemble: $(cat /tmp/v1over.err)"
	hcctl put --clean --no-progress /tmp/v2obj v1/a >/dev/null
	hcctl pool stop
	hcctl pool assemble $D3 >/dev/null
	rm -f /tmp/v2.out
	hcctl get --no-progress -o /tmp/v2.out v1/a
	cmp -s /tmp/v2.out /tmp/v2obj || hc_fail "v1/a changed across the restart"
	hcctl pool stop
	hc_expect_errno -m "format.*1.*2" hcctl pool create --force --format 3 $D3
}

t_newer_version() {
	hc_sbpoke $D1 version=2
	hc_expect_errno -m "$D1: unsupported superblock format version" \
		hcctl pool assemble $D0 $D1 $D2
	hc_sbpoke $D1 version=1
}

t_bad_checksum() {
	dd if=$D0 of=/tmp/sb0 bs=4k count=1 iflag=direct 2>/dev/null
	# flip one byte of the member count field
	printf '\007' | dd of=$D0 bs=1 seek=84 conv=notrunc 2>/dev/null
	sync
	echo 3 >/proc/sys/vm/drop_caches
	hc_expect_errno -m "$D0: superblock checksum mismatch.*Bad message" \
		hcctl pool assemble $D0 $D1 $D2
	dd if=/tmp/sb0 of=$D0 bs=4k count=1 oflag=direct conv=fsync 2>/dev/null
}

# Nothing above wrote to any member (the tests restored what they poked).
t_nothing_written() {
	metasum | cmp -s - $SUM || hc_fail "a refused assembly changed a member"
	hcctl pool assemble $D2 $D0 $D1
	hcctl pool stop
	# a successful assembly compacts the journal: new reference sums
	metasum >$SUM
}

t_create_existing() {
	hc_expect_errno -m "$D3: device already holds a HyperCache superblock.*File exists" \
		hcctl pool create $D3
	metasum | cmp -s - $SUM || hc_fail "a refused create changed a member"
}

t_create_too_small() {
	loops
	hc_expect_errno -m "too small.*No space left" hcctl pool create $LOOP_SMALL
}

t_claimed_by_dm() {
	sectors=$(blockdev --getsz $D3)
	dmsetup create hcclaim --table "0 $sectors linear $D3 0"
	hc_expect_errno -m "$D3: device is in use.*busy" hcctl pool create --force $D3
	dmsetup remove hcclaim
}

t_claimed_by_md() {
	mdadm --create /dev/md/hcclaim --run --level=0 --chunk=4096 \
		--raid-devices=1 --force $D3 >/dev/null 2>&1
	hc_expect_errno -m "$D3: device is in use.*busy" hcctl pool create --force $D3
	mdadm --stop /dev/md/hcclaim >/dev/null 2>&1
}

t_claimed_by_pool() {
	hcctl pool assemble $D0 $D1 $D2
	hc_expect_errno -m "already running.*busy" hcctl pool create --force $D3
	hc_expect_errno -m "busy" hcctl pool assemble $D0 $D1 $D2
	hcctl pool stop
}

t_mounted() {
	grep -q ext4 /proc/filesystems || modprobe ext4 2>/dev/null ||
		hc_skip "no ext4 in this guest"
	mke2fs -q -F $D3 >/dev/null 2>&1 || mke2fs -F $D3
	mkdir -p /mnt/hc
	mount -t ext4 $D3 /mnt/hc
	hc_expect_errno -m "$D3: device is in use.*busy" hcctl pool create --force $D3
	umount /mnt/hc
}

t_force_overwrites() {
	hcctl pool create --force $D3
	hcctl pool stop
	# pool A still assembles: only drive 3 was rewritten
	hcctl pool assemble $D1 $D2 $D0
	hcctl pool stop
}

hc_test refuse-setup t_setup
hc_test refuse-missing-member t_missing_member
hc_test refuse-mixed-pools t_mixed_pools
hc_test refuse-foreign-member t_foreign_member
hc_test refuse-duplicate-device t_duplicate_device
hc_test refuse-duplicate-member t_duplicate_member
hc_test refuse-wrong-member-count t_wrong_member_count
hc_test refuse-unknown-incompat t_unknown_incompat
hc_test refuse-unknown-incompat-bits t_unknown_incompat_bits
hc_test refuse-newer-version t_newer_version
hc_test refuse-bad-checksum t_bad_checksum
hc_test refuse-nothing-written t_nothing_written
hc_test refuse-create-existing t_create_existing
hc_test refuse-create-too-small t_create_too_small
hc_test refuse-claimed-by-dm t_claimed_by_dm
hc_test refuse-claimed-by-md t_claimed_by_md
hc_test refuse-claimed-by-pool t_claimed_by_pool
hc_test refuse-mounted t_mounted
hc_test refuse-force-overwrites t_force_overwrites
hc_test pool-format-v2 t_format_v2
