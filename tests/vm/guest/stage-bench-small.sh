#!/bin/sh
# Usage (guest, via /init; host side: scripts/bench-small.sh):
#   stage-bench-small.sh [n=N] [size=BYTES] [rounds=R] [seed=S]
#                        [data_offset=BYTES] [order=P1+P2+P3]
#
# A BENCHMARK (its smoke run is the test 97-bench/bench-small.sh).  Reads of
# N small objects of SIZE bytes (64 KiB by default) in random order, warm,
# through libhypercache (hc_bench_small: LOCATE with HOLD, O_DIRECT pread,
# RELEASE), on three peers built one after another on the same three
# drives, in one boot (in this order unless order= names another, e.g.
# order=v2+v1+ext4: on a shared host a peer's place in the boot matters):
#   v1    a format-1 pool (`hcctl pool create --format 1`): one 4 MiB chunk
#         per object; the debugfs check counts no small object
#   v2    a format-2 pool on the same drives (--force): every object in a
#         slab chunk at 4 KiB granularity; the check counts N small objects
#   ext4  the same bytes as N files of ext4 on md raid0 (4 MiB chunks) of
#         the same drives, each read open(O_DIRECT) + read + close
# Each: the objects put (untimed), then `hc_bench_small read` (a warm pass,
# then R timed passes in permutations from SEED; every byte of every read
# of every pass checked; and a read of the pool's objects as those of
# another seed must fail at the first object: the check sees a wrong
# byte).  The pools must hold all N objects: none evicted.
# The members' write cache is "write through" (as stage-bench-locate.sh:
# the puts' flushes would each cost the host an fdatasync; reads are not
# affected).  Lines: "hc: bench-small config ...", and per peer
#   hc: bench-small PEER round R ops=... ops_per_s=... MBps=... open_share=...
#   hc: bench-small PEER result ops=... ops_per_s=... MBps=... open_share=...
#   hc: bench-small PEER layout ... (the pool's or file system's figures)
. /hc/tests/lib.sh

n=10000 size=65536 rounds=3 seed=17 data_offset=64M order=v1+v2+ext4
for a in "$@"; do
	case "$a" in
	n=*) n=${a#n=} ;;
	size=*) size=${a#size=} ;;
	rounds=*) rounds=${a#rounds=} ;;
	seed=*) seed=${a#seed=} ;;
	data_offset=*) data_offset=${a#data_offset=} ;;
	order=*) order=${a#order=} ;;
	*) echo "stage-bench-small: unknown argument $a" >&2; exit 2 ;;
	esac
done
M="$(hc_drive 0) $(hc_drive 1) $(hc_drive 2)"
B=$HC_RUN/bs
X=/mnt/bsx
C=/sys/kernel/debug/hypercache/check
mkdir -p $B $X
[ -d /sys/kernel/debug/hypercache ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null

jget() {
	grep -o "\"$1\":[0-9]*" | head -n 1 | cut -d: -f2
}

# say PEER LINES-FILE: every line as "hc: bench-small PEER LINE"
say() {
	sed "s/^/hc: bench-small $1 /" "$2" >/dev/console
}

# run PEER CMD...: CMD's stdout to $B/PEER.out (and the console), or fail
run() {
	p=$1
	shift
	"$@" >$B/$p.out 2>$B/$p.err || { cat $B/$p.err; hc_fail "$p: $* failed"; }
	say "$p" $B/$p.out
	grep -q '^result ' $B/$p.out || hc_fail "$p: no result line"
}

write_through() {
	for d in 0 1 2; do
		q=/sys/block/$(basename "$(readlink -f "$(hc_drive $d)")")/queue
		echo "write through" >"$q/write_cache"
	done
}

# pool FORMAT: the pool of that format on the drives, N objects put and read
pool() {
	f=$1
	hcctl pool stop >/dev/null 2>&1 || true
	# shellcheck disable=SC2086
	hcctl pool create --force --format "$f" --data-offset "$data_offset" $M >/dev/null ||
		hc_fail "pool create --format $f failed"
	chunks=$(hcctl status --json | jget chunks)
	[ -n "$chunks" ] || hc_fail "no chunks in the status"
	[ "$f" = 2 ] || [ "$chunks" -ge "$n" ] ||
		hc_fail "v1: $chunks chunks: $n objects of one chunk each do not fit"
	hc_bench_small put "$n" "$size" "$seed" || hc_fail "v$f: put failed"
	hcctl stats --json >$B/stats
	[ "$(jget objects <$B/stats)" = "$n" ] && [ "$(jget evictions <$B/stats)" = 0 ] ||
		{ cat $B/stats; hc_fail "v$f: not $n objects, or evictions"; }
	small=$n
	[ "$f" = 2 ] || small=0
	cat $C >$B/check
	grep -q "^ok .* small=$small " $B/check || { cat $B/check; hc_fail "v$f: the check, with $small small objects"; }
	run v$f hc_bench_small read "$n" "$size" "$seed" "$rounds"
	# the check sees garbage: read as the objects of another seed, the
	# first object read differs
	if hc_bench_small read "$n" "$size" $((seed + 1)) 1 >/dev/null 2>$B/neg; then
		hc_fail "v$f: read as another seed's objects, and no byte differed"
	fi
	grep -q "object 0: other bytes" $B/neg || { cat $B/neg; hc_fail "v$f: not the first object that differed"; }
	used=$(hcctl stats --json | jget bytes_used)
	echo "layout chunks=$chunks bytes_used=$used $(sed -n 's/^ok //p' $B/check)" >$B/l
	say v$f $B/l
	hcctl pool stop >/dev/null || hc_fail "v$f: pool stop failed"
}

t_v1() {
	pool 1
}

t_v2() {
	pool 2
}

t_ext4() {
	hcctl pool stop >/dev/null 2>&1 || true
	mdadm --stop /dev/md0 >/dev/null 2>&1 || true
	# shellcheck disable=SC2086
	mdadm --create /dev/md0 --run --force --level=0 --raid-devices=3 \
		--chunk=4096 --metadata=1.2 $M >/dev/null 2>&1 || hc_fail "mdadm --create failed"
	# inodes for the files (not one per 16 KiB of the drives), a 64 MiB
	# journal: mke2fs then writes little of the large sparse drives
	/usr/sbin/mke2fs -q -F -t ext4 -N $((n + 4096)) -J size=64 \
		-E lazy_itable_init=0,lazy_journal_init=0 /dev/md0 || hc_fail "mke2fs failed"
	mount -t ext4 /dev/md0 $X || hc_fail "mount of ext4 failed"
	mkdir $X/d
	hc_bench_small put-files $X/d "$n" "$size" "$seed" || hc_fail "ext4: put-files failed"
	run ext4 hc_bench_small read-files $X/d "$n" "$size" "$seed" "$rounds"
	echo "layout $(df -k $X | awk 'NR == 2 { print "used_kib=" $3 }')" >$B/l
	say ext4 $B/l
	umount $X
	mdadm --stop /dev/md0 >/dev/null 2>&1
	# shellcheck disable=SC2086
	mdadm --zero-superblock $M 2>/dev/null || true
}

echo "hc: bench-small config n=$n size=$size rounds=$rounds seed=$seed data_offset=$data_offset order=$order" \
	"kernel=$(uname -r) clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)" \
	>/dev/console
write_through
for p in $(echo "$order" | tr + ' '); do
	case "$p" in
	v1 | v2 | ext4) hc_test bench-small-$p t_$p ;;
	*) echo "stage-bench-small: unknown peer $p" >&2; exit 2 ;;
	esac
done
