#!/bin/sh
# Usage (guest, via /init; host side: scripts/bench-locate.sh):
#   stage-bench-locate.sh [counts=C1+C2+...] [calls=N] [batch=B]
#                         [threads=T] [data_offset=BYTES]
#                         [fill=journal|commit] [formats=F1+F2]
#
# A BENCHMARK (its smoke run is the test 97-bench/bench-locate.sh).
# Creates a pool on the three (large, sparse) drives, with the data offset
# given (the journal half must hold one record per object), checks that the
# pool has a chunk and the journal half a record for every object, and runs
# hc_bench_locate -t T C1,C2,... N B: the index grows to each count of
# 1-byte objects (one chunk each, in the policy), and at each count the
# latency of LOCATE hits against BLKGETSIZE64 with 1..T threads, in
# interleaved batches of B calls.  Every
# line of its output is printed as
#   hc: bench-locate LINE
# and the pool's geometry as "hc: bench-locate config ...".  The members'
# write cache is set to "write through" first (see t_pool).
#
# formats=1+2 (the default; 1 or 2 too) does all of it once per
# format, in that order, on the same drives: a pool created with `hcctl
# pool create --format F` (--force: the drives held the previous format's
# pool), each line of hc_bench_locate's then reading
#   hc: bench-locate TAG format=F ...
# A format-2 pool with fill=journal holds the same 1-byte objects in whole
# chunks (hc_jpoke writes v2 records without HC_OBJ_F_SUBCHUNK: the layout
# of a large object, which format 2 did not change); fill=commit would make
# them small objects in the slab, so it is refused with format 2.
. /hc/tests/lib.sh

counts=1000+100000 calls=200000 batch=1000 threads=2 data_offset=0 fill=journal formats=1+2
for a in "$@"; do
	case "$a" in
	counts=*) counts=${a#counts=} ;;
	calls=*) calls=${a#calls=} ;;
	batch=*) batch=${a#batch=} ;;
	threads=*) threads=${a#threads=} ;;
	data_offset=*) data_offset=${a#data_offset=} ;;
	fill=journal | fill=commit) fill=${a#fill=} ;;
	formats=*) formats=${a#formats=} ;;
	*) echo "stage-bench-locate: unknown argument $a" >&2; exit 2 ;;
	esac
done
counts=$(echo "$counts" | tr + ,)
max=${counts##*,}
formats=$(echo "$formats" | tr + ' ')
for f in $formats; do
	[ "$f" = 1 ] || [ "$f" = 2 ] || { echo "stage-bench-locate: format $f" >&2; exit 2; }
	[ "$f" = 1 ] || [ "$fill" = journal ] ||
		{ echo "stage-bench-locate: fill=commit makes small objects in a format-2 pool" >&2; exit 2; }
done

json_num() {
	hcctl status --json | sed 's/"members":.*//' |
		sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"
}

# t_pool FORMAT
t_pool() {
	# Tell the block layer the members have no volatile cache: it then
	# drops PREFLUSH/FUA, so a COMMIT's flushes and FUA journal writes
	# do not each cost the host an fdatasync of the image (7-12 ms per
	# object under a loaded host: hours for 1M objects).  LOCATE does no
	# I/O; only index_ns_per_object is affected.
	for d in 0 1 2; do
		q=/sys/block/$(basename "$(readlink -f "$(hc_drive $d)")")/queue
		echo "write through" >"$q/write_cache"
	done
	off=""
	[ "$data_offset" = 0 ] || off="--data-offset $data_offset"
	# shellcheck disable=SC2086
	hcctl pool create --force --format "$1" $off "$(hc_drive 0)" "$(hc_drive 1)" "$(hc_drive 2)"
	chunks=$(json_num chunks)
	doff=$(json_num data_offset)
	[ -n "$chunks" ] && [ -n "$doff" ] || hc_fail "no chunks/data_offset in status"
	# a half: (data_offset - 4 KiB superblock) / 2, down to 4 KiB; its
	# first 4 KiB are the header; one 512-byte record per 1-byte object
	half=$((((doff - 4096) / 2) / 4096 * 4096))
	records=$(((half - 4096) / 512))
	echo "chunks=$chunks data_offset=$doff journal_half=$half journal_records=$records" \
		>/tmp/geometry
	[ "$chunks" -ge "$max" ] ||
		hc_fail "$chunks chunks: $max objects of one chunk do not fit"
	[ "$records" -ge "$max" ] ||
		hc_fail "a journal half holds $records records: $max objects do not fit (larger data_offset)"
}

# stderr (progress, errors) live on the console and in /tmp/bench.err
t_bench() {
	{
		rc=0
		if [ "$fill" = journal ]; then
			hc_bench_locate -t "$threads" \
				-j "$(hc_drive 0) $(hc_drive 1) $(hc_drive 2)" \
				"$counts" "$calls" "$batch" 2>&1 >/tmp/bench.out || rc=$?
		else
			hc_bench_locate -t "$threads" "$counts" "$calls" "$batch" \
				2>&1 >/tmp/bench.out || rc=$?
		fi
		echo $rc >/tmp/bench.rc
	} | tee /tmp/bench.err >/dev/console
	[ "$(cat /tmp/bench.rc)" = 0 ] ||
		{ cat /tmp/bench.err; hc_fail "hc_bench_locate exited $(cat /tmp/bench.rc)"; }
}

for f in $formats; do
	rm -f /tmp/geometry /tmp/bench.out
	hc_test bench-locate-pool-v$f t_pool "$f"
	echo "hc: bench-locate config format=$f counts=$counts calls=$calls batch=$batch threads=$threads fill=$fill" \
		"kernel=$(uname -r) clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)" \
		"$(cat /tmp/geometry 2>/dev/null)"
	if [ -s /tmp/geometry ]; then
		hc_test bench-locate-v$f t_bench
		[ -f /tmp/bench.out ] &&
			sed "s/^\([a-z]*\) /\1 format=$f /; s/^/hc: bench-locate /" /tmp/bench.out
		hcctl stats
		hcctl pool stop || true
	fi
done
