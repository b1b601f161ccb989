#!/bin/sh
# Usage (guest, via /init): stage-discover.sh
#   (5 fresh drives: 0, 2, 3, 4 of 64 MiB, 1 of 320 MiB)
#
# Drive discovery (helper/lib/discover.c through hcctl inspect) on real devices:
#   discover-prepare        drive 0: ext4, drive 1: XFS, drive 2: ext4 mounted
#                           on /mnt/d2, drives 3 and 4: blank
#   discover-inspect-json   `hcctl inspect --json` lists the five namespaces:
#                           0 excluded/signature "carries an ext4 file system",
#                           1 excluded/signature "carries an XFS file system",
#                           2 excluded/mounted "is mounted on /mnt/d2",
#                           3 and 4 safe/none
#   discover-inspect-dev    the same verdicts for DEV operands given through
#                           the /dev/hc/driveN symlinks, and in the table
#   discover-create-refused `hcctl pool create` on the XFS drive, the mounted
#                           drive, or a blank drive with the XFS one: exit 1,
#                           "unsafe: <reason> (use --force to overwrite)", no
#                           pool, the first MiB of the XFS and the blank drive
#                           unchanged (SHA-256)
#   discover-create-force   with --force the XFS drive becomes a member; it is
#                           then excluded as members of the running pool
#                           (refused by pool create --force)
#   discover-force-refused  --force never overrides a mounted drive (nor the
#                           root disk, swap or holders: discover_test): EBUSY,
#                           --force not suggested, alone or after a blank
#                           drive, which stays unchanged; no pool, still mounted
. /hc/tests/lib.sh

D0=$(hc_drive 0) D1=$(hc_drive 1) D2=$(hc_drive 2) D3=$(hc_drive 3) D4=$(hc_drive 4)

# ns N: the kernel's name of drive N's namespace, e.g. /dev/nvme1n1
ns() { readlink -f "$(hc_drive "$1")"; }
# head_sha DEV: SHA-256 of the first MiB
head_sha() { dd if="$1" bs=1M count=1 iflag=direct 2>/dev/null | sha256sum | cut -d' ' -f1; }

# busybox sh prefers its own applets: the real mke2fs by its path.  Fixed
# UUIDs: generating one takes libuuid about 4 s in this guest.
U=5a3c0e1e-4d1b-4c8e-9a51-0123456789ab
t_prepare() {
	/usr/sbin/mke2fs -q -F -t ext4 -E nodiscard,hash_seed=$U -U $U "$D0"
	mkfs.xfs -q -K -m uuid=$U "$D1"
	/usr/sbin/mke2fs -q -F -t ext4 -E nodiscard,hash_seed=$U -U $U "$D2"
	modprobe ext4 2>/dev/null || true
	mkdir -p /mnt/d2
	mount -t ext4 "$D2" /mnt/d2
	head_sha "$D1" >/tmp/d1.sha
	head_sha "$D3" >/tmp/d3.sha
	for i in 0 1 2 3 4; do hc_log "drive $i is $(ns $i)"; done
}

# expect JSON N KEY:VALUE...: the object of drive N in file JSON has each
# "KEY":"VALUE" pair
expect() {
	_f=$1 _n=$2
	shift 2
	_o=$(grep -F "\"device\":\"$(ns "$_n")\"" "$_f") ||
		hc_fail "drive $_n ($(ns "$_n")) is not listed"
	for kv in "$@"; do
		echo "$_o" | grep -qF "\"${kv%%:*}\":\"${kv#*:}\"" ||
			hc_fail "drive $_n: no \"${kv%%:*}\":\"${kv#*:}\" in $_o"
	done
}

check_all() {
	expect "$1" 0 verdict:excluded reason:signature signature:ext4 \
		"detail:carries an ext4 file system"
	expect "$1" 1 verdict:excluded reason:signature signature:xfs \
		"detail:carries an XFS file system"
	expect "$1" 2 verdict:excluded reason:mounted "detail:is mounted on /mnt/d2"
	expect "$1" 3 verdict:safe reason:none
	expect "$1" 4 verdict:safe reason:none
	! grep -F "\"device\":\"$(ns 3)\"" "$1" | grep -q '"detail"' ||
		hc_fail "a safe drive has a detail"
}

t_inspect_json() {
	hcctl inspect --json >/tmp/inspect.json
	cat /tmp/inspect.json
	# one object per line (no nested objects)
	tr '}' '\n' </tmp/inspect.json | grep '"device"' >/tmp/inspect.lines
	n=$(wc -l </tmp/inspect.lines)
	[ "$n" -eq 5 ] || hc_fail "$n drives listed, expected 5"
	check_all /tmp/inspect.lines
}

t_inspect_dev() {
	hcctl inspect --json "$D0" "$D1" "$D2" "$D3" "$D4" >/tmp/inspect2.json
	cat /tmp/inspect2.json
	tr '}' '\n' </tmp/inspect2.json | grep '"device"' >/tmp/inspect2.lines
	check_all /tmp/inspect2.lines
	hcctl inspect >/tmp/inspect.txt
	cat /tmp/inspect.txt
	grep -q "^$(ns 1) *excluded .*carries an XFS file system$" /tmp/inspect.txt ||
		hc_fail "the table does not name XFS"
	grep -q "^$(ns 2) *excluded .*is mounted on /mnt/d2$" /tmp/inspect.txt ||
		hc_fail "the table does not name the mount"
	grep -q "^$(ns 3) *safe " /tmp/inspect.txt || hc_fail "the table does not accept drive 3"
}

# refused RE DEV...: pool create exits 1 with a message matching RE
refused() {
	_re=$1
	shift
	rc=0
	hcctl pool create "$@" >/tmp/create.out 2>&1 || rc=$?
	cat /tmp/create.out
	[ $rc -eq 1 ] || hc_fail "pool create $*: exit status $rc, expected 1"
	grep -Eq "$_re" /tmp/create.out || hc_fail "pool create $*: message does not match /$_re/"
}

t_create_refused() {
	refused "^hcctl: $D1: unsafe: carries an XFS file system \(use --force to overwrite\)$" "$D1"
	refused "^hcctl: $D2: device is in use: is mounted on /mnt/d2 \(--force does not override this\): Device or resource busy$" "$D2"
	refused "^hcctl: $D1: unsafe: carries an XFS file system" "$D3" "$D1"
	[ ! -e /dev/hypercache0 ] || hc_fail "a pool exists"
	[ "$(head_sha "$D1")" = "$(cat /tmp/d1.sha)" ] || hc_fail "the XFS drive's first MiB changed"
	[ "$(head_sha "$D3")" = "$(cat /tmp/d3.sha)" ] || hc_fail "the blank drive's first MiB changed"
	hcctl inspect --json "$D1" | grep -q '"signature":"xfs"' || hc_fail "XFS is gone"
}

t_create_force() {
	hcctl pool create --force "$D1" "$D3"
	hcctl inspect --json "$D1" "$D3" >/tmp/inspect3.json
	cat /tmp/inspect3.json
	[ "$(grep -o '"verdict":"excluded","reason":"member"' /tmp/inspect3.json | wc -l)" -eq 2 ] ||
		hc_fail "the members are not excluded as members"
	grep -q '"detail":"is a member of the running HyperCache pool (hypercache0)"' /tmp/inspect3.json ||
		hc_fail "the pool is not named"
	# and never offered to a new pool, not even with --force
	refused "^hcctl: $D1: device is in use: is a member of the running HyperCache pool \(hypercache0\) \(--force does not override this\)" --force "$D1"
	hcctl pool stop
}

t_cleanup() {
	umount /mnt/d2
}

hc_test discover-prepare t_prepare
hc_test discover-inspect-json t_inspect_json
hc_test discover-inspect-dev t_inspect_dev
hc_test discover-create-refused t_create_refused
hc_test discover-create-force t_create_force
t_force_refused() {
	head_sha "$D4" >/tmp/d4.sha
	re="^hcctl: $D2: device is in use: is mounted on /mnt/d2 \(--force does not override this\): Device or resource busy$"
	refused "$re" --force "$D2"
	refused "$re" --force "$D4" "$D2"
	! grep -q "use --force" /tmp/create.out || hc_fail "--force is suggested for a mounted drive"
	[ ! -e /dev/hypercache0 ] || hc_fail "a pool exists"
	grep -q " /mnt/d2 " /proc/mounts || hc_fail "/mnt/d2 is no longer mounted"
	[ "$(head_sha "$D4")" = "$(cat /tmp/d4.sha)" ] || hc_fail "the blank drive's first MiB changed"
}
hc_test discover-force-refused t_force_refused
hc_test discover-cleanup t_cleanup
