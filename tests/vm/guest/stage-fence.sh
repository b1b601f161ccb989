#!/bin/sh
# Usage (guest, via /init): stage-fence.sh
#
# Bounds and lifetimes of the object cache on a pool of three fresh 128 MiB
# drives (93 chunks of 4 MiB), booted with init_on_free=1 so that a read of
# freed memory answers zeros: the write fence belongs to the stager (another
# process, write-back by others and an unprivileged HC_STAGE_F_ANY_WRITER are
# refused), ABORT drains 64 in-flight io_uring writes before the chunks go
# to another object, COMMIT writes a buffered stage back (or fails with EIO
# when a write-back of its pages was refused or failed on a member, and only
# then: not for a page lost elsewhere), STAGE larger than the pool is EFBIG,
# a file's holds are bounded, and a pool stop races with openers of the
# device; libhypercache's C API (hc_libtest).
. /hc/tests/lib.sh

MiB=1048576
CHUNK=$((4 * MiB))
DEV=/dev/hypercache0
CTL=/dev/hypercache-ctl
members="$(hc_drive 0) $(hc_drive 1) $(hc_drive 2)"

jnum() {
	grep -o "\"$1\":[0-9]*" | head -n 1 | cut -d: -f2
}

st() {
	hcctl stats --json | jnum "$1"
}

sha() {
	sha256sum "$1" | cut -d' ' -f1
}

mkrand() {
	head -c "$2" /dev/urandom >"$1"
	[ "$(wc -c <"$1")" -eq "$2" ] || hc_fail "could not make $1"
}

# get_same URI FILE: the object reads back (O_DIRECT) byte-identical to FILE
get_same() {
	rm -f /tmp/get.out
	hcctl get --no-progress -o /tmp/get.out "$1" || hc_fail "get $1 failed"
	[ "$(sha /tmp/get.out)" = "$(sha "$2")" ] ||
		hc_fail "$1 does not read back as $2"
	rm -f /tmp/get.out
}

t_create() {
	hcctl pool create $members >/dev/null
	[ "$(hcctl status --json | jnum chunks)" -eq 93 ] || hc_fail "not 93 chunks"
}

# Only the stager writes its stage: another process's O_DIRECT write and a
# buffered write that only kernel write-back would carry fail with EIO;
# HC_STAGE_F_ANY_WRITER lets others in, and needs CAP_SYS_ADMIN.
t_owner() {
	mkrand /tmp/own $((CHUNK + 8192))
	hc_stage_hold --fill /tmp/own fence/own $((2 * CHUNK))
	soff=$(sed -n 1p /tmp/stage.out | cut -d' ' -f1)
	hc_expect_errno -m "I/O error|Input/output error" \
		dd if=/dev/zero of=$DEV bs=4k count=1 oflag=direct conv=notrunc \
		seek=$((soff / 4096 + 3))
	hc_expect_errno -m "I/O error|Input/output error" \
		dd if=/dev/zero of=$DEV bs=4k count=1 conv=notrunc,fsync \
		seek=$((soff / 4096 + 5))
	hc_stage_release	# aborts
	# the same, committed: the stager's own bytes, nobody else's
	hc_stage --clean --now --fill /tmp/own fence/own $((2 * CHUNK)) >/dev/null
	head -c $((2 * CHUNK)) /dev/zero >/tmp/own.full
	dd if=/tmp/own of=/tmp/own.full conv=notrunc 2>/dev/null
	get_same fence/own /tmp/own.full
	hcctl evict fence/own

	hc_stage_hold --any-writer fence/any $CHUNK
	soff=$(sed -n 1p /tmp/stage.out | cut -d' ' -f1)
	dd if=/dev/zero of=$DEV bs=4k count=1 oflag=direct conv=notrunc \
		seek=$((soff / 4096 + 3)) 2>/dev/null ||
		hc_fail "another writer refused by an any-writer stage"
	hc_stage_release
	mode=$(stat -c %a $CTL)
	chmod 666 $CTL
	rc=0
	out=$(hc_runas 65534 hc_stage --any-writer --now fence/any2 $CHUNK 2>&1) || rc=$?
	chmod "$mode" $CTL
	[ $rc -ne 0 ] && echo "$out" | grep -q "Operation not permitted" ||
		hc_fail "an unprivileged any-writer STAGE: $out"
	rm -f /tmp/own /tmp/own.full
}

# 64 in-flight io_uring writes into stage A, ABORT at once, B over the
# same chunks by another process: B stays intact.
t_uring_abort() {
	used=$(st bytes_used)
	hc_uring_fence fence/uring || hc_fail "hc_uring_fence failed"
	[ "$(st bytes_used)" -eq $((used + 64 * CHUNK)) ] ||
		hc_fail "space: $(st bytes_used), want $((used + 64 * CHUNK))"
	[ "$(st staged)" -eq 0 ] || hc_fail "a stage was left"
	hc_check_cache "after the committed and aborted stages"
	hcctl evict fence/uring/b
}

# A buffered write into a stage, no fsync, then COMMIT: the object has it.
t_commit_buffered() {
	# A page lost elsewhere on the device no longer fails this COMMIT
	# (fence-commit-elsewhere).  The sync stays for another reason: the
	# device's page cache is one inode, and once its oldest dirty page
	# (an earlier test's refused write) has aged, the flusher writes all
	# its dirty pages back, this stage's too: refused and lost, and the
	# COMMIT then rightly fails with EIO.  A clean device keeps the
	# flusher away for the stage's few seconds.
	sync
	mkrand /tmp/buf $((3 * CHUNK - 12345))
	hc_stage --clean --now --fill-buffered /tmp/buf fence/buf \
		$((3 * CHUNK - 12345)) >/dev/null || hc_fail "buffered stage failed"
	get_same fence/buf /tmp/buf
	hcctl evict fence/buf
	rm -f /tmp/buf
}

# When someone else than the stager wrote a buffered stage back (sync(1)
# here, the flusher threads in general: refused by the fence, the page is
# lost), COMMIT says so with EIO instead of committing less.
t_commit_lost() {
	mkrand /tmp/lost $CHUNK
	hc_stage_hold --clean --fill-buffered /tmp/lost fence/lost $CHUNK
	sync
	hc_stage_release	# COMMIT
	grep -q "COMMIT: Input/output error" /tmp/stage.out ||
		{ cat /tmp/stage.out; hc_fail "COMMIT after a refused write-back did not fail with EIO"; }
	[ "$(hcctl locate --json fence/lost | grep -o '"status":"[a-z]*"')" = '"status":"miss"' ] ||
		hc_fail "the stage whose COMMIT failed was kept"
	hc_check_cache "after a failed COMMIT"
	rm -f /tmp/lost
}

# free_chunk_off: the device offset of the last chunk that no extent of
# /tmp/stage.out covers (the tests below run with no other object cached)
free_chunk_off() {
	k=92
	while [ $k -ge 0 ]; do
		o=$((k * CHUNK))
		grep -v ready /tmp/stage.out | awk -v o=$o \
			'$1 <= o && o < $1 + $2 { f = 1 } END { exit !f }' || break
		k=$((k - 1))
	done
	[ $k -ge 0 ] || hc_fail "no free chunk"
	echo $o
}

# A buffered write into chunks of nobody's stage is refused at write-back
# and lost; that is no concern of another stage open meanwhile: its COMMIT
# succeeds and the object reads back intact.  Once written back by the
# stray writer's fsync() of the whole device (EIO to it) under an O_DIRECT
# stage, once by its sync_file_range() of its own range (hc_dirty: EIO)
# under a buffered stage that COMMIT then writes back.  Before, COMMIT checked the
# device's one write-back error state, and any page lost anywhere on the
# device since the STAGE failed it with EIO (make check on 6.12:
# fence-commit-buffered, an earlier test's refused pages lost by the
# flusher during it).
t_commit_elsewhere() {
	[ "$(st objects)" -eq 0 ] || hc_fail "objects left: $(st objects)"
	mkrand /tmp/els $((2 * CHUNK - 12345))
	hc_stage_hold --clean --fill /tmp/els fence/els $((2 * CHUNK - 12345))
	off=$(free_chunk_off)
	hc_expect_errno -m "I/O error|Input/output error" \
		dd if=/dev/urandom of=$DEV bs=4k count=10 seek=$((off / 4096)) \
		conv=notrunc,fsync
	hc_stage_release	# COMMIT
	cat /tmp/stage.out
	grep -q "COMMIT" /tmp/stage.out &&
		hc_fail "COMMIT failed for pages lost outside its stage"
	get_same fence/els /tmp/els
	hcctl evict fence/els

	hc_stage_hold --clean --fill-buffered /tmp/els fence/els $((2 * CHUNK - 12345))
	off=$(free_chunk_off)
	hc_expect_errno -m "sync_file_range: Input/output error" \
		hc_dirty $off 40960
	hc_stage_release	# COMMIT: writes the stage's pages back
	cat /tmp/stage.out
	grep -q "COMMIT" /tmp/stage.out &&
		hc_fail "COMMIT of a buffered stage failed for pages lost outside it"
	get_same fence/els /tmp/els
	hcctl evict fence/els
	rm -f /tmp/els
}

# f_chunk URI I: "member member_offset" of chunk I of URI (staged too)
f_chunk() {
	hcctl locate --layout --json "$1" | tr '{' '\n' | grep "^\"chunk\":$2," |
		sed 's/.*"member":\([0-9]*\).*"member_offset":\([0-9]*\).*/\1 \2/'
}

# A buffered write into the stage whose write-back fails on its member
# (dm-error under the sectors of the stage's first chunk; the pool runs on
# dm-linear devices over its drives for this test): COMMIT fails with EIO
# and the object is not kept.  Only the fence's own count of lost writes
# tells it (the device's write-back error state is no longer looked at).
t_commit_member_error() {
	modprobe dm_mod 2>/dev/null || true
	hcctl pool stop >/dev/null || hc_fail "stop"
	for m in 0 1 2; do
		dmsetup create fw$m --table \
			"0 $(blockdev --getsz $(hc_drive $m)) linear $(hc_drive $m) 0" ||
			hc_fail "dmsetup create fw$m"
	done
	fw="/dev/mapper/fw0 /dev/mapper/fw1 /dev/mapper/fw2"
	hcctl pool assemble $fw >/dev/null || hc_fail "assemble on dm-linear"
	mkrand /tmp/werr $((2 * CHUNK))
	hc_stage_hold --clean --fill-buffered /tmp/werr fence/werr $((2 * CHUNK))
	set -- $(f_chunk fence/werr 0)
	m=${1:-0} s=$((${2:-0} / 512)) d=$(hc_drive ${1:-0})
	sz=$(blockdev --getsz $d)
	echo "fence/werr chunk 0 is on member $m at sector $s: dm-error there"
	dmsetup suspend fw$m
	dmsetup load fw$m --table "0 $s linear $d 0
$s 8192 error
$((s + 8192)) $((sz - s - 8192)) linear $d $((s + 8192))"
	dmsetup resume fw$m
	hc_stage_release	# COMMIT
	cat /tmp/stage.out
	dmsetup suspend fw$m
	dmsetup load fw$m --table "0 $sz linear $d 0"
	dmsetup resume fw$m
	state=$(hcctl locate --json fence/werr | grep -o '"status":"[a-z]*"')
	# the pool back on its drives before any verdict, so that a failure
	# here leaves the tests after it their pool
	hcctl pool stop >/dev/null || hc_fail "stop"
	for m in 0 1 2; do dmsetup remove fw$m; done
	hcctl pool assemble $members >/dev/null || hc_fail "assemble"
	[ -n "$2" ] || hc_fail "no layout of the stage"
	grep -q "COMMIT: Input/output error" /tmp/stage.out ||
		hc_fail "COMMIT after a member's write error did not fail with EIO"
	[ "$state" = '"status":"miss"' ] ||
		hc_fail "the stage whose COMMIT failed was kept: $state"
	[ "$(hcctl locate --json fence/werr | grep -o '"status":"[a-z]*"')" = '"status":"miss"' ] ||
		hc_fail "the stage whose COMMIT failed is back after assembly"
	rm -f /tmp/werr
}

# STAGE larger than the pool (or near 2^64, where the chunk count wrapped)
# is EFBIG and changes nothing.
t_efbig() {
	objects=$(st objects)
	used=$(st bytes_used)
	cap=$(st capacity)
	for size in 18446744073709551615 18446744073709547520 $((cap + 1)); do
		hc_expect_errno -m "File too large" hc_stage --now fence/big $size
	done
	[ "$(st objects)" -eq "$objects" ] || hc_fail "objects changed"
	[ "$(st bytes_used)" -eq "$used" ] || hc_fail "bytes used changed"
	[ "$(st dirty_bytes)" -eq 0 ] || hc_fail "dirty bytes $(st dirty_bytes)"
}

# HC_HOLD_MAX holds of one file, then EOVERFLOW; unevictable until closed.
t_holds() {
	mkrand /tmp/held 4096
	hcctl put --clean --no-progress /tmp/held fence/held >/dev/null
	hc_ioctl_abi --holds fence/held
	[ "$(st held)" -eq 0 ] || hc_fail "a hold was left"
	rm -f /tmp/held
}

# The bound of an object's holds by every file together (HC_OBJ_HOLDS_MAX,
# 2^30, which real holds cannot reach here: lowered to 4 with the module's
# test hook obj_holds_max): the hold past it is EOVERFLOW, a lockless one as
# a locked one, and takes nothing.
t_obj_holds() {
	p=/sys/module/hypercache/parameters/obj_holds_max
	mkrand /tmp/oheld 4096
	hcctl put --clean --no-progress /tmp/oheld fence/oheld >/dev/null
	trap 'echo 0 >$p' EXIT
	echo 4 >$p
	hc_ioctl_abi --obj-holds fence/oheld 4
	echo 0 >$p
	trap - EXIT
	[ "$(st held)" -eq 0 ] || hc_fail "a hold was left"
	rm -f /tmp/oheld
}

# Stop and assemble the pool (12 times) while another process opens the device and
# asks for its geometry: every stop is refused while it is open, no open
# survives a stop, and no answer comes from a freed pool.
t_stop_race() {
	mkrand /tmp/race $CHUNK
	hcctl put --clean --no-progress /tmp/race fence/race >/dev/null
	# its budget: 600 s, stretched on slow guests (a KASAN run ran out)
	: >/tmp/race.out
	hc_openrace $((600 * HC_TIMEOUT_SCALE)) >/tmp/race.out 2>&1 &
	rpid=$!
	stops=0
	for i in 1 2 3 4 5 6 7 8 9 10 11 12; do
		n=0
		until hcctl pool stop >/dev/null 2>&1; do
			n=$((n + 1))
			[ $n -lt 400 ] || hc_fail "no stop succeeded in 400 tries"
			kill -0 $rpid 2>/dev/null || { cat /tmp/race.out; hc_fail "the opener died"; }
		done
		stops=$((stops + 1))
		hcctl pool assemble $members >/dev/null || hc_fail "assemble $i failed"
	done
	kill -0 $rpid 2>/dev/null || { cat /tmp/race.out; hc_fail "the opener died"; }
	kill -TERM $rpid
	wait $rpid || { cat /tmp/race.out; hc_fail "the opener saw a bad answer"; }
	hc_log "$stops stops and assemblies under the opener: $(cat /tmp/race.out)"
	get_same fence/race /tmp/race
	rm -f /tmp/race /tmp/race.out
}

# The growable stage (hc_grow: GROW under the fence, its errors, COMMIT
# with the final size freeing the tail); the trimmed object it leaves comes
# back from the journal after a stop with its size and bytes.
t_grow() {
	hc_grow || hc_fail "hc_grow failed"
	[ "$(hcctl locate --json grow/b | jnum size)" -eq $((2 * CHUNK + 7)) ] ||
		hc_fail "grow/b: not 2 chunks + 7 bytes"
	hcctl get --no-progress -o /tmp/growb grow/b || hc_fail "get grow/b"
	hcctl pool stop >/dev/null || hc_fail "stop"
	hcctl pool assemble $members >/dev/null || hc_fail "assemble"
	[ "$(hcctl locate --json grow/b | jnum size)" -eq $((2 * CHUNK + 7)) ] ||
		hc_fail "grow/b after the restart: not 2 chunks + 7 bytes"
	get_same grow/b /tmp/growb
	hc_check_cache "after a grown stage and its replay"
	hcctl evict grow/b >/dev/null || hc_fail "evict grow/b"
	rm -f /tmp/growb
}

# libhypercache's C API and its errors (hc_libtest, which says what).
t_capi() {
	hc_libtest >/tmp/libtest.out 2>&1 ||
		{ cat /tmp/libtest.out; hc_fail "hc_libtest failed: $(grep '^FAIL' /tmp/libtest.out | tr '\n' ' ')"; }
	rm -f /tmp/libtest.out
}

hc_test fence-create t_create
hc_test fence-owner t_owner
hc_test fence-uring-abort t_uring_abort
hc_test fence-commit-buffered t_commit_buffered
hc_test fence-commit-lost t_commit_lost
hc_test fence-commit-elsewhere t_commit_elsewhere
hc_test fence-commit-member-error t_commit_member_error
hc_test fence-efbig t_efbig
hc_test fence-holds t_holds
hc_test fence-obj-holds t_obj_holds
hc_test fence-stop-race t_stop_race
hc_test fence-grow t_grow
hc_test client-capi t_capi
