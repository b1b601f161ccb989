#!/bin/sh
# Usage (guest, via /init):
#   stage-small.sh phase=fill      (3 fresh drives of 448 MiB)
#   stage-small.sh phase=crash1 | phase=crash2 committed=K
#   stage-small.sh phase=compact | phase=ccrash1 | phase=ccrash2
#                                  (3 fresh drives of 160 MiB; ccrash2 the
#                                  drives ccrash1 left)
#
# Format v2's small objects (issue 17, the slab; on-disk-format.md, "Small
# objects"), with hc_small (tests/vm/prog/hc_small.c: 1 B .. 1 MiB,
# log-uniform sizes and bytes from a fixed seed, written and read through
# libhypercache):
#   small-fill         a v2 pool of 288 chunks (v1 would hold at most 288
#                      objects, each one chunk or more) takes 10,000
#                      objects (747 MiB), each byte-identical (O_DIRECT);
#                      the debugfs check is clean and counts 10,000 small
#                      objects; LOCATE --layout of one gives its exact
#                      4 KiB-aligned blocks in one chunk
#   small-restart      after a clean pool stop and assembly: every object
#                      byte-identical, the check clean with the same slab
#   small-evict        evicting 1/4 then 3/4 of the objects lowers the used
#                      bytes of `hcctl stats`, the rest still read back;
#                      evicting all frees every chunk (used=0, no slab chunk)
#   small-v1-full      a v1 pool on the same drives keeps at most one object
#                      a chunk (288) of 400 put
#   crash-small-stream (phase crash1) puts objects into a v2 pool, "hc:
#                      committed I" on the console after each: the host
#                      kills QEMU after 2,000 (a power cut mid-stream)
#   crash-small-recover (phase crash2) assembly: objects 0..K-1 all back
#                      byte-identical, K there whole or not at all, none
#                      after; the check clean; the pool takes 1,000 more
#   compact-free       (phase compact; the slab's compaction, module
#                      parameter compact_interval_ms 0: only the debugfs
#                      trigger) a v2 pool of 72 chunks takes 2,500 objects;
#                      evicting 3 in 4 leaves sparse slab chunks, and a
#                      120 MiB object is refused (no whole chunks); a write
#                      to /sys/kernel/debug/hypercache/compact moves the
#                      rest into fewer slab chunks (slab_chunks= drops, its
#                      counters say moved and chunks freed, and hcctl
#                      stats the same: slab_moved, ...), the debugfs
#                      check read in a loop meanwhile is ok every time,
#                      every object left is byte-identical, and the 120 MiB
#                      object fits and reads back
#   compact-held       an object held (LOCATE with HOLD, hc_obj hold) during
#                      the compaction is not moved (its extent the same,
#                      the move counted as skipped) and its blocks read
#                      through /dev/hypercache0 are its bytes; released,
#                      the next compaction ('hcctl pool compact --json',
#                      HC_CMD_POOL_COMPACT: refused to an unprivileged
#                      user, its counts those of debugfs) may move it,
#                      bytes intact
#   compact-auto       compact_interval_ms 100: evictions start a background
#                      compaction (its runs counter grows), the check ok;
#                      'hcctl pool compact' meanwhile waits for it, then
#                      runs; with no pool it says so
#   crash-compact-stop (phase ccrash1) the same sparse pool; the test hook
#                      compact_stop_after=20 stops a compaction after 20
#                      moves with the 21st object copied, not journaled;
#                      the host kills QEMU then (a power cut mid-compaction)
#   crash-compact-recover (phase ccrash2) assembly: every object
#                      byte-identical, the check clean (no block claimed
#                      twice), the moved objects where their records say;
#                      a full compaction then frees slab chunks, bytes
#                      still intact after a clean restart
# Every phase: no WARNING/BUG/Oops in dmesg.
. /hc/tests/lib.sh

phase="" committed=0
for a in "$@"; do
	case "$a" in
	phase=*) phase=${a#phase=} ;;
	committed=*) committed=${a#committed=} ;;
	*) echo "stage-small: unknown argument $a" >&2; exit 2 ;;
	esac
done
M="$(hc_drive 0) $(hc_drive 1) $(hc_drive 2)"
SEED=17
N=10000
C=/sys/kernel/debug/hypercache/check
[ -d /sys/kernel/debug/hypercache ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null

jget() {
	grep -o "\"$1\":[0-9]*" | head -n 1 | cut -d: -f2
}

# check_ok SMALL: the debugfs consistency check passes with SMALL small objects
check_ok() {
	cat $C >/tmp/check
	grep -q "^ok .* small=$1 " /tmp/check || { cat /tmp/check; hc_fail "check with $1 small objects"; }
}

no_bad_dmesg() {
	if hc_dmesg_bad; then
		hc_fail "the kernel log has warnings"
	fi
}

mkpool() {
	hcctl pool create --force --format 2 --data-offset 64M $M >/dev/null
}

P=/sys/module/hypercache/parameters
CP=/sys/kernel/debug/hypercache/compact
NC=2500		# small objects of the compaction tests (72-chunk pool)

# slab_chunks: the slab chunks of the last check_ok
slab_chunks() {
	grep -o ' slab_chunks=[0-9]*' /tmp/check | cut -d= -f2
}

# cstat NAME: a counter of the compaction (debugfs compact)
cstat() {
	tr ' ' '\n' <$CP | grep "^$1=" | cut -d= -f2
}

# a sparse slab: NC objects put, 3 in 4 evicted (the 3 mod 4 ones stay)
sparse_pool() {
	echo 0 >$P/compact_interval_ms
	mkpool
	hc_small put $SEED 0 $NC >/tmp/cput || hc_fail "put failed"
	for r in 0 1 2; do
		hc_small evict $r $NC 4 || hc_fail "evict $r mod 4 failed"
	done
	hc_small verify $SEED 3 $NC 4 >/tmp/cverify0 || hc_fail "verify before compaction"
	check_ok $((NC / 4))
	cat /tmp/check
}

# extent OFF LEN of URI (hcctl locate --layout): "OFF LEN"
extent_of() {
	hcctl locate --json --layout "$1" >/tmp/loc || return 1
	e=$(grep -o '"extents":\[{"offset":[0-9]*,"length":[0-9]*' /tmp/loc)
	echo "$e" | sed 's/.*"offset":\([0-9]*\).*"length":\([0-9]*\).*/\1 \2/'
}

t_compact_free() {
	sparse_pool
	slab0=$(slab_chunks)
	dd if=/dev/urandom of=/tmp/big bs=1M count=120 2>/dev/null
	hc_expect_errno hcctl put --clean /tmp/big big/0
	hc_log "sparse: $(cat /tmp/check); a 120 MiB object refused"
	# the hold of compact-held, taken before the compaction
	hc_obj hold small/3 >/tmp/hold &
	echo $! >/tmp/holder
	i=0
	while ! grep -q held /tmp/hold; do
		i=$((i + 1))
		[ $i -lt 100 ] || hc_fail "hc_obj hold did not hold"
		sleep 0.1
	done
	extent_of small/3 >/tmp/held0 || hc_fail "no extent of small/3"
	rm -f /tmp/cdone /tmp/checks
	(
		while [ ! -e /tmp/cdone ]; do
			head -n 1 $C >>/tmp/checks
		done
	) &
	looper=$!
	t0=$(cut -d' ' -f1 /proc/uptime)
	echo 1 >$CP || hc_fail "compaction failed"
	t1=$(cut -d' ' -f1 /proc/uptime)
	touch /tmp/cdone
	wait $looper
	n=$(wc -l </tmp/checks)
	bad=$(grep -vc '^ok ' /tmp/checks || true)
	[ "$bad" = 0 ] || { grep -v '^ok ' /tmp/checks | head; hc_fail "$bad of $n checks during the compaction failed"; }
	check_ok $((NC / 4))
	slab1=$(slab_chunks)
	hc_log "compaction: $(cat $CP) in $t0..$t1 s; slab chunks $slab0 -> $slab1; $n checks ok meanwhile"
	[ "$(cstat moved)" -gt 0 ] || hc_fail "nothing moved"
	[ "$slab1" -lt "$slab0" ] || hc_fail "no slab chunk freed"
	[ "$(cstat chunks_freed)" = $((slab0 - slab1)) ] || hc_fail "chunks_freed is not $((slab0 - slab1))"
	# the same counters in the stats reply (HC_A_STATS_SLAB_*)
	hcctl stats --json >/tmp/stats
	[ "$(jget slab_moved </tmp/stats)" = "$(cstat moved)" ] &&
		[ "$(jget slab_chunks_freed </tmp/stats)" = "$(cstat chunks_freed)" ] &&
		[ "$(jget slab_bytes_copied </tmp/stats)" = "$(cstat bytes_copied)" ] &&
		[ "$(jget slab_compactions </tmp/stats)" = "$(cstat runs)" ] ||
		{ cat /tmp/stats; hc_fail "hcctl stats disagrees with debugfs: $(cat $CP)"; }
	hcctl stats | grep "^compaction  1 runs: $(cstat moved) objects moved" ||
		{ hcctl stats; hc_fail "no compaction line in hcctl stats"; }
	hc_small verify $SEED 3 $NC 4 >/tmp/cverify1 || hc_fail "an object changed in the compaction"
	cmp -s /tmp/cverify0 /tmp/cverify1 || hc_fail "bytes differ"
	hcctl put --clean /tmp/big big/0 >/dev/null || hc_fail "the 120 MiB object still does not fit"
	hcctl get --no-progress -o /tmp/big.out big/0 >/dev/null || hc_fail "get big/0"
	cmp -s /tmp/big /tmp/big.out || hc_fail "big/0 reads back different"
	rm -f /tmp/big /tmp/big.out
	no_bad_dmesg
}

t_compact_held() {
	extent_of small/3 >/tmp/held1 || hc_fail "no extent of small/3"
	cmp -s /tmp/held0 /tmp/held1 || hc_fail "held small/3 moved: $(cat /tmp/held0) -> $(cat /tmp/held1)"
	[ "$(cstat skipped)" -gt 0 ] || hc_fail "no move skipped (the held object's)"
	read -r off len </tmp/held1
	size=$(hc_small size $SEED 3)
	dd if=/dev/hypercache0 of=/tmp/blocks bs=4096 skip=$((off / 4096)) count=$((len / 4096)) iflag=direct 2>/dev/null
	head -c "$size" /tmp/blocks >/tmp/held.bytes
	hcctl get --no-progress -o /tmp/want small/3 >/dev/null || hc_fail "get small/3"
	cmp -s /tmp/want /tmp/held.bytes || hc_fail "the held extent does not hold small/3's bytes"
	holder=$(cat /tmp/holder)
	kill "$holder"
	while kill -0 "$holder" 2>/dev/null; do sleep 0.1; done
	# the second through hcctl (HC_CMD_POOL_COMPACT): only root may
	hc_expect_errno -m "not permitted" hc_runas 65534 hc_nlpoke send 23
	moved0=$(cstat moved)
	freed0=$(cstat chunks_freed)
	hcctl pool compact --json >/tmp/pc || hc_fail "hcctl pool compact failed"
	cat /tmp/pc
	[ "$(jget moved </tmp/pc)" = $(($(cstat moved) - moved0)) ] &&
		[ "$(jget chunks_freed </tmp/pc)" = $(($(cstat chunks_freed) - freed0)) ] &&
		[ "$(jget runs </tmp/pc)" = 1 ] ||
		{ cat $CP; hc_fail "hcctl pool compact --json disagrees with debugfs"; }
	extent_of small/3 >/tmp/held2
	hc_log "small/3 held at $(cat /tmp/held1), after release $(cat /tmp/held2); $(cat $CP)"
	hc_small verify $SEED 3 $NC 4 >/tmp/cverify2 || hc_fail "an object changed in the second compaction"
	cmp -s /tmp/cverify0 /tmp/cverify2 || hc_fail "bytes differ"
	check_ok $((NC / 4))
	no_bad_dmesg
}

t_compact_auto() {
	runs=$(cstat runs)
	echo 100 >$P/compact_interval_ms
	hc_small evict 3 $NC 8 || hc_fail "evict failed"
	i=0
	while [ "$(cstat runs)" = "$runs" ]; do
		i=$((i + 1))
		[ $i -lt $((300 * HC_TIMEOUT_SCALE)) ] || hc_fail "no background compaction: $(cat $CP)"
		sleep 0.1
	done
	# hcctl waits for a background run under way (the debugfs trigger
	# would say EBUSY), then runs its own
	hcctl pool compact >/tmp/pc || hc_fail "hcctl pool compact during a background run failed"
	grep -Eq "^(moved [0-9]+ small objects \(.* copied\), freed [0-9]+ slab chunks|nothing to compact: no slab chunk is sparse enough)$" /tmp/pc ||
		{ cat /tmp/pc; hc_fail "hcctl pool compact said something else"; }
	hc_log "background: $(cat $CP); then hcctl: $(cat /tmp/pc)"
	check_ok $((NC / 8))
	hc_small verify $SEED 7 $NC 8 >/dev/null || hc_fail "an object changed in the background compaction"
	echo 10000 >$P/compact_interval_ms
	no_bad_dmesg
	hcctl pool stop
	hc_expect_errno -m "no pool is running" hcctl pool compact
}

t_ccrash1() {
	sparse_pool
	echo 20 >$P/compact_stop_after
	hc_expect_errno -m "" sh -c "echo 1 >$CP"
	grep -q "^runs=1 moved=20 " $CP || { cat $CP; hc_fail "the hook did not stop after 20 moves"; }
	check_ok $((NC / 4))
	cat /tmp/check
	hc_log "stopped: $(cat $CP)"
	sync
	echo "HC-CRASH-NOW" >/dev/console
	sleep 60
	hc_fail "the host did not kill the guest"
}

t_ccrash2() {
	echo 0 >$P/compact_interval_ms
	hcctl pool assemble $M >/dev/null || hc_fail "assemble failed"
	check_ok $((NC / 4))
	cat /tmp/check
	slab0=$(slab_chunks)
	hc_small verify $SEED 3 $NC 4 >/tmp/cverify1 || hc_fail "an object is lost or changed after the power cut"
	hc_small absent 0 $NC 4 || hc_fail "an evicted object is back"
	hcctl pool compact >/tmp/pc || hc_fail "compaction after the power cut failed"
	check_ok $((NC / 4))
	slab1=$(slab_chunks)
	hc_log "after the power cut: slab chunks $slab0, compacted to $slab1: $(cat $CP); hcctl: $(cat /tmp/pc)"
	[ "$slab1" -lt "$slab0" ] || hc_fail "no slab chunk freed"
	grep -q "^moved $(cstat moved) small objects (.* copied), freed $((slab0 - slab1)) slab chunks$" /tmp/pc ||
		{ cat /tmp/pc; hc_fail "hcctl pool compact did not say moved $(cstat moved), freed $((slab0 - slab1))"; }
	hcctl pool stop
	hcctl pool assemble $M >/dev/null || hc_fail "assemble after the compaction failed"
	check_ok $((NC / 4))
	[ "$(slab_chunks)" = "$slab1" ] || hc_fail "slab chunks $(slab_chunks) after restart, $slab1 before"
	hc_small verify $SEED 3 $NC 4 >/tmp/cverify2 || hc_fail "an object changed by the compaction"
	cmp -s /tmp/cverify1 /tmp/cverify2 || hc_fail "bytes differ"
	no_bad_dmesg
	hcctl pool stop
}

t_fill() {
	mkpool
	chunks=$(hcctl status --json | jget chunks)
	[ -n "$chunks" ] && [ "$chunks" -lt 300 ] || hc_fail "pool of $chunks chunks: not small"
	hc_log "v2 pool of $chunks chunks: v1 would hold at most $chunks objects"
	hc_small put $SEED 0 $N >/tmp/put || hc_fail "put failed"
	cat /tmp/put
	hcctl stats --json >/tmp/stats
	[ "$(jget objects </tmp/stats)" = $N ] || { cat /tmp/stats; hc_fail "not $N objects"; }
	hc_small verify $SEED 0 $N >/tmp/verify || hc_fail "verify failed"
	cmp -s /tmp/put /tmp/verify || hc_fail "bytes differ: $(cat /tmp/put /tmp/verify)"
	check_ok $N
	cat /tmp/check
	# the layout of one small object: its exact blocks, in one chunk
	hcctl locate --json --layout small/7 >/tmp/loc
	cat /tmp/loc
	size=$(hc_small size $SEED 7)
	e=$(grep -o '"extents":\[{"offset":[0-9]*,"length":[0-9]*' /tmp/loc)
	off=$(echo "$e" | sed 's/.*"offset":\([0-9]*\).*/\1/')
	len=$(echo "$e" | sed 's/.*"length":\([0-9]*\).*/\1/')
	[ -n "$off" ] && [ -n "$len" ] || hc_fail "no extent in $(cat /tmp/loc)"

	[ $((off % 4096)) = 0 ] || hc_fail "extent offset $off is not 4 KiB-aligned"
	[ "$len" = $(( (size + 4095) / 4096 * 4096 )) ] || hc_fail "extent of $len bytes for $size"
	[ $((off / 4194304)) = $(( (off + len - 1) / 4194304 )) ] || hc_fail "the extent crosses a chunk"
	used=$(hcctl stats --json | jget bytes_used)
	hc_log "10000 objects, $(cat /tmp/put), used $used bytes of the pool"
	no_bad_dmesg
	hcctl pool stop
}

t_restart() {
	hcctl pool assemble $M >/dev/null
	check_ok $N
	hc_small verify $SEED 0 $N >/tmp/verify2 || hc_fail "verify after restart failed"
	cmp -s /tmp/put /tmp/verify2 || hc_fail "bytes differ after restart"
	no_bad_dmesg
}

t_evict() {
	used0=$(hcctl stats --json | jget bytes_used)
	# one in four: blocks freed, hardly a whole slab chunk
	hc_small evict 0 $N 4 || hc_fail "evict one in four failed"
	check_ok $((N * 3 / 4))
	cat /tmp/check
	used1=$(hcctl stats --json | jget bytes_used)
	hc_small evict 1 $N 4 && hc_small evict 2 $N 4 || hc_fail "evict failed"
	check_ok $((N / 4))
	cat /tmp/check
	used2=$(hcctl stats --json | jget bytes_used)
	hc_log "bytes used: $used0 with $N objects, $used1 with 3/4, $used2 with 1/4"
	[ "$used2" -lt "$used0" ] || hc_fail "evicting 3/4 freed no chunk"
	hc_small verify $SEED 3 $N 4 >/dev/null || hc_fail "a kept object is lost or changed"
	hc_small absent 0 $N 4 && hc_small absent 1 $N 4 || hc_fail "an evicted object is still there"
	hc_small evict 3 $N 4 || hc_fail "evict the rest failed"
	# a background compaction the evictions started (compact_interval_ms)
	# holds its source chunks until it ends, then frees the empty ones:
	# give it up to 120 s (TCG)
	i=0
	while check_ok 0 && ! grep -q " used=0 .* slab_chunks=0 " /tmp/check &&
	      [ $i -lt 240 ]; do
		sleep 0.5
		i=$((i + 1))
	done
	grep -q " used=0 .* slab_chunks=0 " /tmp/check || { cat /tmp/check; hc_fail "chunks left"; }
	[ "$(hcctl stats --json | jget bytes_used)" = 0 ] || hc_fail "bytes used with no object"
	no_bad_dmesg
	hcctl pool stop
}

# a v1 pool on the same drives holds at most one object a chunk: after 400
# puts the policy has evicted all but as many as there are chunks
t_v1() {
	hcctl pool create --force --data-offset 64M $M >/dev/null
	chunks=$(hcctl status --json | jget chunks)
	hc_small put $SEED 0 400 >/tmp/put1 || hc_fail "v1 puts failed"
	n=$(hcctl stats --json | jget objects)
	hc_log "v1 pool of $chunks chunks: $n of 400 objects kept"
	[ "$n" -le "$chunks" ] || hc_fail "v1 holds $n objects in $chunks chunks"
	check_ok 0
	no_bad_dmesg
	hcctl pool stop
}

t_crash1() {
	mkpool
	(
		hc_small put $SEED 0 2000 /dev/console >/dev/null || exit 1
		echo "HC-CRASH-NOW" >/dev/console
		hc_small put $SEED 2000 $N /dev/console >/dev/null
	) &
	wait
	hc_fail "the host did not kill the guest"
}

t_crash2() {
	[ "$committed" -ge 1999 ] || hc_fail "phase 1 committed only $committed objects"
	hcctl pool assemble $M >/dev/null
	n=$(hcctl stats --json | jget objects)
	hc_log "committed $committed (0-based), $n objects back"
	hc_small verify $SEED 0 $((committed + 1)) || hc_fail "a committed object is lost or changed"
	k=$((committed + 1))
	if hc_small verify $SEED $k $((k + 1)) >/dev/null 2>&1; then
		k=$((k + 1))
	else
		hc_small absent $k $((k + 1)) || hc_fail "small/$k is back, not whole"
	fi
	hc_small absent $k $((k + 100)) || hc_fail "objects never committed are back"
	[ "$n" = "$k" ] || hc_fail "$n objects, want $k"
	check_ok $k
	hc_small put $SEED 20000 21000 >/dev/null || hc_fail "no room after the crash"
	hc_small verify $SEED 0 $k >/dev/null || hc_fail "objects changed by new puts"
	check_ok $((k + 1000))
	no_bad_dmesg
	hcctl pool stop
}

case "$phase" in
fill)
	hc_test small-fill t_fill
	hc_test small-restart t_restart
	hc_test small-evict t_evict
	hc_test small-v1-full t_v1
	;;
crash1) hc_test crash-small-stream t_crash1 ;;
crash2) hc_test crash-small-recover t_crash2 ;;
compact)
	hc_test compact-free t_compact_free
	hc_test compact-held t_compact_held
	hc_test compact-auto t_compact_auto
	;;
ccrash1) hc_test crash-compact-stop t_ccrash1 ;;
ccrash2) hc_test crash-compact-recover t_ccrash2 ;;
*) echo "stage-small: phase=fill, crash1, crash2, compact, ccrash1 or ccrash2" >&2; exit 2 ;;
esac
