#!/bin/sh
# Usage (guest, via /init; host side: scripts/bench-small.sh):
#   stage-bench-small.sh [n=N] [size=BYTES] [rounds=R] [seed=S]
#                        [data_offset=BYTES] [region=BYTES]
#
# A BENCHMARK (its smoke run is the test 97-bench/bench-small.sh).  Reads of
# N small objects of SIZE bytes (64 KiB by default) in random order, warm,
# through libhypercache (hc_bench_small: LOCATE with HOLD, O_DIRECT pread,
# RELEASE), on three peers that share the same three drives, in one boot.
# Each drive is cut into three regions of REGION bytes (dm-linear, one layer
# for every peer alike):
#   v1    region 0 of each drive: a format-1 pool (`hcctl pool create
#         --format 1`), one 4 MiB chunk per object; the debugfs check
#         counts no small object
#   v2    region 1: a format-2 pool (--format 2), every object in a slab
#         chunk at 4 KiB granularity; the check counts N small objects
#   ext4  region 2: the same bytes as N files of ext4 on md raid0 (4 MiB
#         chunks) of the three regions, each read open(O_DIRECT) + read +
#         close
# Setup (untimed): each peer's objects put, the pool stopped (ext4
# unmounted).  Then R rounds; in round r every peer in turn, the first one
# rotating from round to round (v1 v2 ext4, v2 ext4 v1, ...): the pool
# assembled (ext4 mounted), `hc_bench_small read N SIZE SEED 1 r` (a warm
# pass, then the timed pass in round r's permutation, the same for every
# peer; every byte of every read checked), the pool stopped (unmounted).
# So on a shared host every peer sees each part of the boot's load alike.
# A read of each pool's objects as those of another seed must fail at the
# first object (the check sees wrong bytes).  The pools must keep all N
# objects: none evicted.  The members' write cache is "write through" (as
# stage-bench-locate.sh: the puts' flushes would each cost the host an
# fdatasync; reads are not affected).  Lines: "hc: bench-small config ...",
# and per peer
#   hc: bench-small PEER round R ops=... ops_per_s=... MBps=... open_share=...
#   hc: bench-small PEER result ops=... ops_per_s=... MBps=... open_share=...
#   hc: bench-small PEER layout ... (the pool's or file system's figures)
. /hc/tests/lib.sh

n=10000 size=65536 rounds=3 seed=17 data_offset=64M region=0
for a in "$@"; do
	case "$a" in
	n=*) n=${a#n=} ;;
	size=*) size=${a#size=} ;;
	rounds=*) rounds=${a#rounds=} ;;
	seed=*) seed=${a#seed=} ;;
	data_offset=*) data_offset=${a#data_offset=} ;;
	region=*) region=${a#region=} ;;
	*) echo "stage-bench-small: unknown argument $a" >&2; exit 2 ;;
	esac
done
B=$HC_RUN/bs
X=/mnt/bsx
C=/sys/kernel/debug/hypercache/check
mkdir -p $B $X
[ -d /sys/kernel/debug/hypercache ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# the regions' devices: /dev/mapper/bs<PEER><drive>
devs() {
	echo "/dev/mapper/bs${1}0 /dev/mapper/bs${1}1 /dev/mapper/bs${1}2"
}

jget() {
	grep -o "\"$1\":[0-9]*" | head -n 1 | cut -d: -f2
}

# say PEER FILE: every line of FILE as "hc: bench-small PEER LINE"
say() {
	sed "s/^/hc: bench-small $1 /" "$2" >/dev/console
}

t_regions() {
	modprobe dm_mod 2>/dev/null || true
	for d in 0 1 2; do
		q=/sys/block/$(basename "$(readlink -f "$(hc_drive $d)")")/queue
		echo "write through" >"$q/write_cache"
		sz=$(blockdev --getsz "$(hc_drive $d)")
		sec=$((region / 512))
		[ "$region" -gt 0 ] && [ $((3 * sec)) -le "$sz" ] ||
			hc_fail "drive $d: $sz sectors, not 3 regions of $sec"
		k=0
		for p in v1 v2 ext4; do
			dmsetup create bs$p$d --table "0 $sec linear $(hc_drive $d) $((k * sec))" ||
				hc_fail "dmsetup create bs$p$d"
			k=$((k + 1))
		done
	done
}

# setup_pool FORMAT: the pool of that format on its regions, N objects put
setup_pool() {
	f=$1
	# shellcheck disable=SC2046
	hcctl pool create --force --format "$f" --data-offset "$data_offset" $(devs v$f) >/dev/null ||
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

t_setup_v1() {
	setup_pool 1
}

t_setup_v2() {
	setup_pool 2
}

t_setup_ext4() {
	# shellcheck disable=SC2046
	mdadm --create /dev/md0 --run --force --level=0 --raid-devices=3 \
		--chunk=4096 --metadata=1.2 $(devs ext4) >/dev/null 2>&1 || hc_fail "mdadm --create failed"
	# inodes for the files (not one per 16 KiB of the regions), a 64 MiB
	# journal: mke2fs then writes little of the large sparse drives
	/usr/sbin/mke2fs -q -F -t ext4 -N $((n + 4096)) -J size=64 \
		-E lazy_itable_init=0,lazy_journal_init=0 /dev/md0 || hc_fail "mke2fs failed"
	mount -t ext4 /dev/md0 $X || hc_fail "mount of ext4 failed"
	mkdir $X/d
	hc_bench_small put-files $X/d "$n" "$size" "$seed" || hc_fail "ext4: put-files failed"
	echo "layout $(df -k $X | awk 'NR == 2 { print "used_kib=" $3 }')" >$B/l
	say ext4 $B/l
	umount $X
}

# t_round R PEER: PEER up, its warm pass and round R's timed pass, down
t_round() {
	r=$1 p=$2
	case $p in
	v1 | v2)
		# shellcheck disable=SC2046
		hcctl pool assemble $(devs "$p") >/dev/null || hc_fail "$p: assemble failed"
		set -- read ;;
	ext4)
		mount -t ext4 /dev/md0 $X || hc_fail "mount of ext4 failed"
		set -- read-files $X/d ;;
	esac
	hc_bench_small "$@" "$n" "$size" "$seed" 1 "$r" >$B/out 2>$B/err ||
		{ cat $B/err; hc_fail "$p: round $r: hc_bench_small $1 failed"; }
	case $p in
	v1 | v2)
		[ "$(hcctl stats --json | jget evictions)" = 0 ] || hc_fail "$p: evictions"
		hcctl pool stop >/dev/null || hc_fail "$p: pool stop failed" ;;
	ext4)
		umount $X ;;
	esac
	grep "^round $r " $B/out >$B/line || hc_fail "$p: no round line"
	say "$p" $B/line
	cat $B/line >>$B/rounds.$p
}

echo "hc: bench-small config n=$n size=$size rounds=$rounds seed=$seed data_offset=$data_offset region=$region" \
	"kernel=$(uname -r) clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)" \
	>/dev/console
hc_test bench-small-regions t_regions
hc_test bench-small-setup-v1 t_setup_v1
hc_test bench-small-setup-v2 t_setup_v2
hc_test bench-small-setup-ext4 t_setup_ext4
r=1
while [ "$r" -le "$rounds" ]; do
	case $(((r - 1) % 3)) in
	0) order="v1 v2 ext4" ;;
	1) order="v2 ext4 v1" ;;
	2) order="ext4 v1 v2" ;;
	esac
	for p in $order; do
		hc_test "bench-small-round-$r-$p" t_round "$r" "$p"
	done
	r=$((r + 1))
done
# each peer's result: over its rounds (their seconds and open seconds summed)
for p in v1 v2 ext4; do
	[ -s $B/rounds.$p ] || continue
	awk -v size="$size" '
		{ for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		  ops += v["ops"]; s += v["seconds"]; o += v["open_share"] * v["seconds"] }
		END { printf "result ops=%d seconds=%.3f ops_per_s=%.1f MBps=%.1f open_share=%.3f\n",
			ops, s, ops / s, ops * size / s / 1e6, o / s }' $B/rounds.$p >$B/result
	say $p $B/result
done
umount $X 2>/dev/null
mdadm --stop /dev/md0 >/dev/null 2>&1
hcctl pool stop >/dev/null 2>&1
for p in v1 v2 ext4; do
	for d in 0 1 2; do
		dmsetup remove bs$p$d 2>/dev/null
	done
done
true
