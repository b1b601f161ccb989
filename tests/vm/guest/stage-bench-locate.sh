#!/bin/sh
# Usage (guest, via /init; host side: scripts/bench-locate.sh):
#   stage-bench-locate.sh [objects=N] [calls=N] [rounds=R]
#
# A BENCHMARK, not a test (no scenario runs it, so `make check` does not).
# Creates a pool on the three (large, sparse) drives and runs
# hc_bench_locate OBJECTS CALLS ROUNDS: index OBJECTS objects of 0 bytes,
# the kernel memory per object, then the mean latency of LOCATE (hit),
# LOCATE+HOLD+RELEASE and BLKGETSIZE64 ioctls, interleaved, best round.
# Every "key value" line of its output is printed as
#   hc: bench-locate KEY VALUE
. /hc/tests/lib.sh

objects=100000 calls=200000 rounds=5
for a in "$@"; do
	case "$a" in
	objects=*) objects=${a#objects=} ;;
	calls=*) calls=${a#calls=} ;;
	rounds=*) rounds=${a#rounds=} ;;
	*) echo "stage-bench-locate: unknown argument $a" >&2; exit 2 ;;
	esac
done

t_pool() {
	hcctl pool create "$(hc_drive 0)" "$(hc_drive 1)" "$(hc_drive 2)"
	chunks=$(hcctl status --json | grep -o '"chunks":[0-9]*' | head -n 1 | cut -d: -f2)
	[ "$chunks" -ge "$objects" ] ||
		hc_fail "$chunks chunks: the cache keeps at most one object per chunk"
}

t_bench() {
	hc_bench_locate "$objects" "$calls" "$rounds" >/tmp/bench.out
}

hc_test bench-locate-pool t_pool
hc_test bench-locate t_bench
if [ -f /tmp/bench.out ]; then
	echo "hc: bench-locate config objects=$objects calls=$calls rounds=$rounds" \
		"kernel=$(uname -r) chunks=$(hcctl status --json | grep -o '"chunks":[0-9]*' | head -n 1 | cut -d: -f2)"
	sed 's/^/hc: bench-locate /' /tmp/bench.out
fi
hcctl stats
hcctl pool stop || true
