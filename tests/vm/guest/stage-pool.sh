#!/bin/sh
# Usage (guest, via /init): stage-pool.sh drives=N
#
# A pool of N members on fresh drives: creation, geometry, striping in both
# directions, data integrity (fio), mmap, flush and discard fan-out, the
# busy and unload rules.
. /hc/tests/lib.sh

drives=3
for a in "$@"; do
	case "$a" in
	drives=*) drives=${a#drives=} ;;
	*) echo "stage-pool: unknown argument $a" >&2; exit 2 ;;
	esac
done

MiB=1048576
CHUNK=$((4 * MiB))
DEV=/dev/hypercache0
members=""
i=0
while [ $i -lt "$drives" ]; do
	members="$members $(hc_drive $i)"
	i=$((i + 1))
done

# json_num KEY: the pool-level numeric value of "KEY" in hcctl status --json
json_num() {
	hcctl status --json | sed 's/"members":.*//' |
		sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"
}

# diskstat NAME FIELD: a /proc/diskstats column (1-based, with major, minor
# and name first, so Documentation/admin-guide/iostats.rst's field 12,
# discards completed, is column 15 and field 16, flushes, is column 19)
diskstat() {
	awk -v n="$1" -v f="$2" '$3 == n { print $f }' /proc/diskstats
}

member_name() {
	basename "$(readlink -f "$(hc_drive "$1")")"
}

t_create() {
	hcctl pool create $members
	[ -b $DEV ] || hc_fail "$DEV missing"
	[ "$(json_num member_count)" -eq "$drives" ] || hc_fail "member_count"
	data_offset=$(json_num data_offset)
	[ "$data_offset" -eq $CHUNK ] || hc_fail "data offset $data_offset"
	chunks=$(json_num chunks)
	bytes=$(blockdev --getsize64 $DEV)
	[ "$bytes" -eq $((chunks * CHUNK)) ] || hc_fail "size $bytes != $chunks chunks"
	# 128 MiB members: 1 chunk of metadata, 31 of data each
	[ "$chunks" -eq $((drives * 31)) ] || hc_fail "chunks $chunks"
}

t_queue_limits() {
	q=/sys/block/hypercache0/queue
	[ "$(cat $q/minimum_io_size)" -eq $CHUNK ] || hc_fail "io_min $(cat $q/minimum_io_size)"
	[ "$(cat $q/optimal_io_size)" -eq $((CHUNK * drives)) ] || hc_fail "io_opt $(cat $q/optimal_io_size)"
	[ "$(cat $q/chunk_sectors)" -eq 8192 ] || hc_fail "chunk_sectors"
	[ "$(cat $q/write_cache)" = "write back" ] || hc_fail "write_cache: $(cat $q/write_cache)"
	[ "$(cat $q/fua)" = 1 ] || hc_fail "fua: $(cat $q/fua)"
	i=0
	while [ $i -lt "$drives" ]; do
		mq=/sys/block/$(member_name $i)/queue
		[ -e /sys/block/$(member_name $i)/holders/hypercache0 ] ||
			hc_fail "member $i has no holder link"
		# a piece split off by the pool is one request on its member
		for l in max_hw_sectors_kb max_segments max_segment_size; do
			[ "$(cat $q/$l)" -le "$(cat $mq/$l)" ] ||
				hc_fail "$l $(cat $q/$l) above member $i's $(cat $mq/$l)"
		done
		i=$((i + 1))
	done
}

t_ioctl_abi() {
	hc_ioctl_abi $DEV
	hc_ioctl_abi_grown $DEV
	hcctl geometry --json | grep -q "\"member_count\":$drives" || hc_fail "geometry"
}

# The write fence: without a staged object, no chunk takes writes; reads
# work everywhere.
t_fence_closed() {
	hc_expect_errno -m "I/O error|Input/output error" \
		dd if=/dev/zero of=$DEV bs=4k count=1 oflag=direct
	hc_expect_errno dd if=/dev/zero of=$DEV bs=1M count=1 seek=5 oflag=direct
	dd if=$DEV of=/dev/null bs=1M count=8 iflag=direct 2>/dev/null
}

# The raw-device tests below write anywhere, from other processes and from
# kernel write-back (mmap, ext4): stage one object covering the whole pool
# for any writer (it is aborted afterwards).
t_stage_whole() {
	hc_stage_hold --any-writer test/whole "$(blockdev --getsize64 $DEV)"
	cat /tmp/stage.out
	[ "$(sed -n 1p /tmp/stage.out)" = "0 $(blockdev --getsize64 $DEV)" ] ||
		hc_fail "the whole-pool stage is not one extent from 0"
}

t_unstage() {
	hc_stage_release
	hc_expect_errno dd if=/dev/zero of=$DEV bs=4k count=1 oflag=direct
}

# A pattern written through the pool lands on member v mod N at member chunk
# v div N.  The write uses 3 MiB O_DIRECT blocks, so bios cross chunks.
t_stripe_forward() {
	nchunks=$((2 * drives + 1))
	dd if=/dev/urandom of=/tmp/fwd bs=$MiB count=$((nchunks * 4)) 2>/dev/null
	dd if=/tmp/fwd of=$DEV bs=3M oflag=direct conv=fsync 2>/dev/null
	v=0
	while [ $v -lt $nchunks ]; do
		m=$((v % drives)) c=$((v / drives))
		dd if=/tmp/fwd of=/tmp/want bs=4M skip=$v count=1 2>/dev/null
		dd if=$(hc_drive $m) of=/tmp/got bs=4M skip=$((1 + c)) count=1 \
			iflag=direct 2>/dev/null
		cmp -s /tmp/want /tmp/got ||
			hc_fail "chunk $v not at member $m chunk $c"
		v=$((v + 1))
	done
	rm -f /tmp/fwd /tmp/want /tmp/got
}

# And the reverse: a pattern written on a member is found through the pool.
t_stripe_reverse() {
	m=$((drives - 1)) c=2
	v=$((c * drives + m))
	dd if=/dev/urandom of=/tmp/rev bs=4M count=1 2>/dev/null
	dd if=/tmp/rev of=$(hc_drive $m) bs=4M seek=$((1 + c)) oflag=direct \
		conv=fsync 2>/dev/null
	dd if=$DEV of=/tmp/got bs=4M skip=$v count=1 iflag=direct 2>/dev/null
	cmp -s /tmp/rev /tmp/got || hc_fail "member $m chunk $c is not pool chunk $v"
	rm -f /tmp/rev /tmp/got
}

t_fio_verify() {
	fio --name=whole --filename=$DEV --rw=randwrite --bsrange=4k-1m \
		--direct=1 --ioengine=libaio --iodepth=16 --size=100% \
		--verify=crc32c --verify_fatal=1 --do_verify=1 --randrepeat=1 \
		--eta=never --minimal >/tmp/fio.out
	hc_log "fio crc32c verify over $(blockdev --getsize64 $DEV) bytes passed"
}

t_mmap() {
	dd if=/dev/urandom of=/tmp/mm bs=$MiB count=12 2>/dev/null
	dd if=/tmp/mm of=$DEV bs=$MiB seek=2 oflag=direct conv=fsync 2>/dev/null
	hc_mmapcmp $DEV $((2 * MiB)) /tmp/mm
	rm -f /tmp/mm
}

# An fsync of the pool device flushes every member.
t_flush_fanout() {
	i=0
	while [ $i -lt "$drives" ]; do
		eval before_$i=$(diskstat "$(member_name $i)" 19)
		i=$((i + 1))
	done
	dd if=/dev/zero of=$DEV bs=4k count=1 oflag=direct conv=fsync 2>/dev/null
	i=0
	while [ $i -lt "$drives" ]; do
		eval b=\$before_$i
		a=$(diskstat "$(member_name $i)" 19)
		[ "$a" -gt "$b" ] || hc_fail "member $i saw no flush ($b -> $a)"
		i=$((i + 1))
	done
}

# A discard of pool chunk v reaches member v mod N only.
t_discard() {
	v=$((drives + drives - 1))
	target=$((v % drives))
	i=0
	while [ $i -lt "$drives" ]; do
		eval before_$i=$(diskstat "$(member_name $i)" 15)
		i=$((i + 1))
	done
	blkdiscard -o $((v * CHUNK)) -l $CHUNK $DEV
	i=0
	while [ $i -lt "$drives" ]; do
		eval b=\$before_$i
		a=$(diskstat "$(member_name $i)" 15)
		if [ $i -eq $target ]; then
			[ "$a" -gt "$b" ] || hc_fail "member $i got no discard"
		else
			[ "$a" -eq "$b" ] || hc_fail "member $i got a stray discard"
		fi
		i=$((i + 1))
	done
}

# A journaling file system on the pool: jbd2 commits with PREFLUSH|FUA
# writes, which take the pre-flush path (flush every member, then the data).
t_ext4_journal() {
	modprobe ext4
	/usr/sbin/mke2fs -q -F -t ext4 -E lazy_itable_init=0,lazy_journal_init=0 $DEV
	mkdir -p /mnt/pool
	mount -t ext4 -o barrier=1,commit=1 $DEV /mnt/pool
	i=0
	while [ $i -lt "$drives" ]; do
		eval before_$i=$(diskstat "$(member_name $i)" 19)
		i=$((i + 1))
	done
	dd if=/dev/urandom of=/tmp/f bs=1M count=6 2>/dev/null
	for n in 1 2 3 4; do
		cp /tmp/f /mnt/pool/f$n
		sync -f /mnt/pool/f$n 2>/dev/null || sync
	done
	umount /mnt/pool
	i=0
	while [ $i -lt "$drives" ]; do
		eval b=\$before_$i
		a=$(diskstat "$(member_name $i)" 19)
		[ "$a" -gt "$b" ] || hc_fail "member $i saw no flush from the journal"
		i=$((i + 1))
	done
	mount -t ext4 -o ro $DEV /mnt/pool
	for n in 1 2 3 4; do
		cmp /tmp/f /mnt/pool/f$n || hc_fail "f$n differs after remount"
	done
	umount /mnt/pool
	rm -f /tmp/f
}

# Pool administration needs CAP_NET_ADMIN; reading the status does not.
t_admin_perm() {
	hc_expect_errno -m "Operation not permitted" \
		hc_runas 65534 hcctl pool stop
	hc_expect_errno -m "Operation not permitted" \
		hc_runas 65534 hcctl pool create --force $members
	hc_expect_errno -m "Operation not permitted" \
		hc_runas 65534 hcctl pool assemble $members
	hc_runas 65534 hcctl status --json | grep -q '"state":"running"' ||
		hc_fail "an unprivileged user cannot read the status"
	[ -b $DEV ] || hc_fail "the pool went away"
}

t_stop_busy() {
	exec 3<$DEV
	hc_expect_errno -m "busy|in use" hcctl pool stop
	exec 3<&-
	hcctl pool stop
	[ ! -e $DEV ] || hc_fail "$DEV still there after stop"
	hc_expect_errno -m "no pool" hcctl status
	# the members are free again: the pool assembles from them
	hcctl pool assemble $members
}

# Pool start and stop are multicast on the "events" group.
t_events() {
	hcctl monitor --json --count 2 >/tmp/events &
	mon=$!
	sleep 1
	hcctl pool stop
	hcctl pool assemble $members
	i=0
	while kill -0 $mon 2>/dev/null && [ $i -lt 20 ]; do
		sleep 0.5
		i=$((i + 1))
	done
	kill $mon 2>/dev/null && hc_fail "monitor did not see two events"
	cat /tmp/events
	sed -n 1p /tmp/events | grep -q '"state":"stopped"' || hc_fail "first event is not the stop"
	sed -n 2p /tmp/events | grep -q '"state":"running"' || hc_fail "second event is not the start"
	grep -q "\"member_count\":$drives" /tmp/events || hc_fail "events lack the members"
}

# Unloading the module stops the running pool and releases the members.
t_unload() {
	rmmod hypercache
	[ ! -e $DEV ] || hc_fail "$DEV still there after rmmod"
	grep -q "^hypercache " /proc/modules && hc_fail "module still loaded"
	insmod /hc/hypercache.ko
	hcctl pool assemble $members
	hcctl pool stop
}

hc_test "create-n$drives" t_create
hc_test "queue-limits-n$drives" t_queue_limits
hc_test "ioctl-abi-n$drives" t_ioctl_abi
hc_test "fence-closed-n$drives" t_fence_closed
hc_test "stage-whole-n$drives" t_stage_whole
hc_test "stripe-forward-n$drives" t_stripe_forward
hc_test "stripe-reverse-n$drives" t_stripe_reverse
hc_test "mmap-n$drives" t_mmap
hc_test "flush-fanout-n$drives" t_flush_fanout
hc_test "discard-n$drives" t_discard
hc_test "fio-verify-n$drives" t_fio_verify
hc_test "ext4-journal-n$drives" t_ext4_journal
hc_test "unstage-n$drives" t_unstage
hc_test "admin-perm-n$drives" t_admin_perm
hc_test "stop-busy-n$drives" t_stop_busy
hc_test "events-n$drives" t_events
hc_test "unload-n$drives" t_unload
