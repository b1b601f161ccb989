#!/bin/sh
# Usage (guest, via /init):
#   stage-small.sh phase=fill      (3 fresh drives of 448 MiB)
#   stage-small.sh phase=crash1 | phase=crash2 committed=K
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
	check_ok 0
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
*) echo "stage-small: phase=fill, crash1 or crash2" >&2; exit 2 ;;
esac
