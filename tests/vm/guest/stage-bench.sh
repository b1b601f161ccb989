#!/bin/sh
# Usage (guest, via /init; host side: scripts/bench.sh):
#   stage-bench.sh [drives=N] [runtime=SECONDS] [size=MiB] [rounds=R]
#                  [warmup=SECONDS] [profile=1]
#
# A BENCHMARK (its smoke run, scripts/bench.sh --smoke, is the test
# 97-bench/bench.sh). In one boot, over the same N drives, one device after
# the other:
#   hypercache  /dev/hypercache0 from `hcctl pool create` (then pool stop)
#   md          md raid0, 4 MiB chunks, data at the pool's data offset
#   dm          dm-stripe, 4 MiB chunks, data at the pool's data offset
# All three have the pool's capacity (md/dm: at least it; the sizes are
# printed), stripe in the same member order with the same chunk size and
# data offset, so the same byte range maps to the same blocks of the same
# drives. The test region is an object: raw writes to /dev/hypercache0 are
# fenced outside staged objects, so the region (size MiB of random bytes
# in /tmp) is written with `hcctl put --clean` (STAGE, O_DIRECT writes of
# 4 MiB into its extents, COMMIT) and its place, one extent at byte offset
# X, is read back from `hcctl locate --json`. On md and dm the same range
# [X, X + size MiB) is written by fio (sequential 4 MiB O_DIRECT writes).
# Then the same two fio jobs read that range of each device:
#   seq4m   --rw=read     --bs=4m --iodepth=32 --direct=1 --ioengine=libaio
#   rand4k  --rw=randread --bs=4k --iodepth=32 --direct=1 --ioengine=libaio
#           --randrepeat=1
# both --time_based --runtime=R --gtod_reduce=1 --offset=X --size=size MiB.
# (gtod_reduce: the TCG guest's clocksource is the emulated HPET, every clock
# read is a trip into QEMU under its big lock; per-I/O latency timestamps made
# that the largest and noisiest cost of a run. No latency numbers therefore.) The whole round is
# repeated R times (default 2); the reported value is the MEAN over rounds.
#
# Console lines (printed outside hc_test, so they always show):
#   hc: bench-config ...                       drives, sizes, offsets
#   hc: bench-limits DEVICE key=value ...      its /sys/block/X/queue limits
#   hc: bench-round R DEVICE JOB bw_MiBps=X iops=Y members_avg_kb=Z
#       fio_usr=U% fio_sys=S% ctx=C
#   hc: bench DEVICE JOB bw_MiBps=X iops=Y     mean over the rounds
#   hc: bench ratio seq4m hypercache/md=R1 hypercache/dm=R2     (bandwidth)
#   hc: bench ratio rand4k hypercache/md=R3 hypercache/dm=R4    (IOPS)
# members_avg_kb is the average size of the reads the members completed
# during the job (from /proc/diskstats): how the device cut the I/O up.
# profile=1 (diagnosis only; needs perf in the initramfs: HC_EXTRA_BINS=perf,
# scripts/bench.sh --profile): each read job runs under `perf record -a -g -e
# cpu-clock` and the top kernel symbols are printed as "hc: bench-prof ..."
# lines; perf costs CPU, so such a run's numbers are not for comparison.
# Each device's setup+run and teardown are hc_test tests, so a failure is
# reported as "HCTEST not ok" and fails the boot.
. /hc/tests/lib.sh

drives=3 runtime=10 size=384 rounds=2 warmup=2 profile=0
for a in "$@"; do
	case "$a" in
	drives=*) drives=${a#drives=} ;;
	runtime=*) runtime=${a#runtime=} ;;
	size=*) size=${a#size=} ;;
	rounds=*) rounds=${a#rounds=} ;;
	warmup=*) warmup=${a#warmup=} ;;
	profile=*) profile=${a#profile=} ;;
	*) echo "stage-bench: unknown argument $a" >&2; exit 2 ;;
	esac
done

MiB=1048576
CHUNK_SECTORS=8192 # 4 MiB
B=$HC_RUN/bench
mkdir -p $B
members=""
i=0
while [ $i -lt "$drives" ]; do
	members="$members $(hc_drive $i)"
	i=$((i + 1))
done

# say LINE: a result line on the console, whatever captures stdout
say() {
	echo "hc: $*" >/dev/console
	echo "hc: $*" >/dev/kmsg 2>/dev/null || true
}

json_num() {
	hcctl status --json | sed 's/"members":.*//' |
		sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"
}

member_names() {
	for m in $members; do basename "$(readlink -f "$m")"; done
}

# members_reads: "READS SECTORS" completed by all members so far
members_reads() {
	names=" $(member_names | tr '\n' ' ') "
	awk -v names="$names" 'index(names, " " $3 " ") { r += $4; s += $6 }
		END { printf "%d %d\n", r, s }' /proc/diskstats
}

# limits DEV: one line of its queue limits
limits() {
	# by major:minor: /dev/mapper/NAME is a node of its own, not a link
	# shellcheck disable=SC2046
	set -- $(stat -L -c '%t %T' "$1")
	q=/sys/dev/block/$((0x$1)):$((0x$2))/queue
	out=""
	for k in max_sectors_kb max_hw_sectors_kb max_segments max_segment_size \
		nr_requests chunk_sectors minimum_io_size optimal_io_size \
		logical_block_size scheduler rotational nomerges; do
		[ -r $q/$k ] && out="$out $k=$(tr ' ' '_' <$q/$k)"
	done
	echo "$out"
}

# fio_job NAME DEV ARGS...: run fio (terse v3) and leave "BW_KiBps IOPS" in
# $B/last, then fio's usr% sys% context-switches and the mean completion
# latency in usec (terse fields 88, 89, 90, 16): the read side (fields 7, 8)
# or, for NAME=precond, the write side (48, 49). Not in $(...): hc_fail must
# end the test.
fio_job() {
	_name=$1 _dev=$2
	shift 2
	_prof=""
	if [ "$profile" = 1 ] && [ "$_name" != precond ] && command -v perf >/dev/null; then
		_prof="perf record -q -a -g -e cpu-clock -F 499 -o $B/perf.$tag.$_name.data --"
	fi
	$_prof fio --name="$_name" --filename="$_dev" --direct=1 --ioengine=libaio \
		--iodepth=32 --offset="$region_off" --size=${size}M --eta=never --minimal \
		--terse-version=3 "$@" >$B/fio.$_name.out 2>&1 ||
		{ cat $B/fio.$_name.out; hc_fail "fio $_name on $_dev failed"; }
	_w=0
	[ "$_name" = precond ] && _w=1
	awk -F';' -v w=$_w '
		$1 == "3" && NF > 90 { if (w) { bw = $48; io = $49 } else { bw = $7; io = $8 }
			usr = $88; sys = $89; ctx = $90; clat = $16; ok = 1 }
		END { if (!ok) exit 1; sub(/%/, "", usr); sub(/%/, "", sys)
			printf "%s %s %s %s %s %s\n", bw, io, usr, sys, ctx, clat }' $B/fio.$_name.out >$B/last ||
		{ cat $B/fio.$_name.out; hc_fail "no terse line from fio $_name"; }
	[ "$(cut -d' ' -f1 $B/last)" -gt 0 ] ||
		{ cat $B/fio.$_name.out; hc_fail "fio $_name on $_dev moved no data"; }
}

# run_jobs TAG DEV ROUND: precondition (md, dm: fio writes the region; the
# pool's region was put as an object before), then the two jobs over
# [region_off, + size MiB); results in $B/res.ROUND.TAG.JOB as
# "bw_kibps iops members_avg_kb usr% sys% ctx clat_us" (clat_us is 0 under
# --gtod_reduce)
run_jobs() {
	tag=$1 dev=$2 r=$3
	if [ "$tag" != hypercache ]; then
		fio_job precond "$dev" --rw=write --bs=4m
		read -r bw _ <$B/last
		echo "precond r$r $tag: fio write of the region bw_MiBps=$((bw / 1024))" \
			>$B/precond.$r.$tag
	fi
	for job in seq4m rand4k; do
		case $job in
		seq4m) opts="--rw=read --bs=4m" ;;
		rand4k) opts="--rw=randread --bs=4k --randrepeat=1" ;;
		esac
		members_reads >$B/before
		read -r r0 s0 <$B/before
		# shellcheck disable=SC2086
		fio_job $job "$dev" $opts --time_based --runtime="$runtime" \
			--gtod_reduce=1
		read -r bw iops usr sys ctx clat <$B/last
		members_reads >$B/after
		read -r r1 s1 <$B/after
		avg=$(awk -v r=$((r1 - r0)) -v s=$((s1 - s0)) \
			'BEGIN { printf "%.1f", r ? s / 2 / r : 0 }')
		echo "$bw $iops $avg $usr $sys $ctx $clat" >$B/res.$r.$tag.$job
		if [ -s $B/perf.$tag.$job.data ]; then
			# inclusive ("children") time per symbol, call chains cut
			perf report -i $B/perf.$tag.$job.data --stdio --children \
				--sort sym -g none --percent-limit 1.5 2>/dev/null |
				grep -v '^#' | grep -v '^$' | head -n 60 >$B/prof.$r.$tag.$job
			rm -f $B/perf.$tag.$job.data
		fi
	done
}

wipe_heads() {
	# the first data_offset bytes of every drive: superblocks only (the
	# test region's data starts at data_offset and stays)
	for m in $members; do
		dd if=/dev/zero of="$m" bs=1M count=$((${data_offset:-4194304} / MiB)) \
			oflag=direct conv=notrunc 2>/dev/null
	done
}

# ---- hypercache -------------------------------------------------------------
t_hypercache() {
	r=$1
	# shellcheck disable=SC2086
	hcctl pool create --force $members >/dev/null
	[ -b /dev/hypercache0 ] || hc_fail "/dev/hypercache0 missing"
	cap=$(json_num capacity)
	off=$(json_num data_offset)
	[ -n "$cap" ] && [ -n "$off" ] || hc_fail "no capacity/data_offset in status"
	echo "$cap $off" >$B/geometry
	[ "$(blockdev --getsize64 /dev/hypercache0)" -eq "$cap" ] ||
		hc_fail "blockdev size != capacity $cap"
	limits /dev/hypercache0 >$B/limits.hypercache
	[ $((size * MiB)) -le "$cap" ] || hc_fail "size=${size} MiB > capacity $cap"
	put_region "$r"
	run_jobs hypercache /dev/hypercache0 "$r"
}

# put_region ROUND: the test region as one object (hcctl put of
# $B/region), its place from `hcctl locate --json` into $B/region_off
put_region() {
	t0=$(cut -d' ' -f1 /proc/uptime)
	hcctl put --clean --no-progress $B/region bench/region >/dev/null
	t1=$(cut -d' ' -f1 /proc/uptime)
	hcctl locate --json bench/region >$B/locate.json
	grep -q '"status":"hit"' $B/locate.json && grep -q '"state":"ready"' $B/locate.json ||
		{ cat $B/locate.json; hc_fail "bench/region is not a READY hit"; }
	[ "$(grep -o '"offset":' $B/locate.json | wc -l)" = 1 ] ||
		{ cat $B/locate.json; hc_fail "bench/region is not one extent"; }
	off=$(sed -n 's/.*"offset":\([0-9]*\).*/\1/p' $B/locate.json)
	len=$(sed -n 's/.*"length":\([0-9]*\).*/\1/p' $B/locate.json)
	[ -n "$off" ] && [ "$len" -ge $((size * MiB)) ] ||
		{ cat $B/locate.json; hc_fail "the extent does not hold ${size} MiB"; }
	if [ -s $B/region_off ] && [ "$(cat $B/region_off)" != "$off" ]; then
		hc_fail "bench/region moved from $(cat $B/region_off) to $off"
	fi
	echo "$off" >$B/region_off
	region_off=$off
	awk -v r="$1" -v s="$size" -v a="$t0" -v b="$t1" -v o="$off" 'BEGIN {
		printf "precond r%s hypercache: hcctl put of the region at offset %s bw_MiBps=%d\n",
			r, o, (b > a) ? s / (b - a) : 0 }' >$B/precond.$1.hypercache
}

t_hypercache_stop() {
	if [ -b /dev/hypercache0 ]; then hcctl pool stop; fi
}

# ---- md raid0 -----------------------------------------------------------------
md_dev() {
	d=$(readlink -f /dev/md/hcbench 2>/dev/null)
	if [ ! -b "$d" ]; then
		d=/dev/$(awk '/^md[0-9]+ : active/ { print $1; exit }' /proc/mdstat)
	fi
	echo "$d"
}

t_md() {
	r=$1
	region_off=$(cat $B/region_off)
	set -- $(cat $B/geometry)
	cap=$1 off=$2
	wipe_heads
	# shellcheck disable=SC2086
	mdadm --create /dev/md/hcbench --run --level=0 --chunk=4096 \
		--raid-devices="$drives" --force --metadata=1.2 \
		--data-offset=$((off / 1024))K $members 2>&1
	d=$(md_dev)
	[ -b "$d" ] || hc_fail "no md device ($d)"
	got=$(blockdev --getsize64 "$d")
	[ "$got" -ge "$cap" ] || hc_fail "md is $got bytes, smaller than the pool's $cap"
	doff=$(cat /sys/block/$(basename "$d")/md/rd0/offset 2>/dev/null || echo '?')
	echo "md=$d bytes=$got data_offset_sectors=$doff" >$B/size.md
	limits "$d" >$B/limits.md
	run_jobs md "$d" "$r"
}

t_md_stop() {
	d=$(md_dev)
	if [ -b "$d" ] && [ -e "/sys/block/$(basename "$d")/md/level" ]; then
		mdadm --stop "$d" 2>&1
	fi
	for m in $members; do mdadm --zero-superblock "$m" 2>/dev/null || true; done
}

# ---- dm-stripe ------------------------------------------------------------------
t_dm() {
	r=$1
	region_off=$(cat $B/region_off)
	set -- $(cat $B/geometry)
	cap=$1 off=$2
	sectors=$((cap / 512)) offs=$((off / 512))
	table="0 $sectors striped $drives $CHUNK_SECTORS"
	for m in $members; do table="$table $(readlink -f "$m") $offs"; done
	dmsetup create hcstripe --table "$table"
	d=/dev/mapper/hcstripe
	[ -b $d ] || hc_fail "no $d"
	got=$(blockdev --getsize64 $d)
	echo "dm=$(readlink -f $d) bytes=$got table='$table'" >$B/size.dm
	limits $d >$B/limits.dm
	run_jobs dm $d "$r"
}

t_dm_stop() {
	if dmsetup info hcstripe >/dev/null 2>&1; then dmsetup remove hcstripe; fi
}

# ---- the rounds ---------------------------------------------------------------
say "bench-config drives=$drives runtime=${runtime}s size=${size}MiB rounds=$rounds" \
	"members=$(echo $members | tr ' ' ',') kernel=$(uname -r)" \
	"drive_bytes=$(blockdev --getsize64 "$(hc_drive 0)")"
# Before anything: write every drive once in full (the fresh images are
# sparse files; the first writer would otherwise pay the host's block
# allocation) and run both jobs briefly on drive 0 (TCG translation warm-up).
# Not reported.
t_warmup() {
	for m in $members; do
		fio --name=fill --filename="$m" --rw=write --bs=4m --direct=1 \
			--ioengine=libaio --iodepth=32 --eta=never --minimal >/dev/null
	done
	d0=$(hc_drive 0)
	fio --name=w1 --filename="$d0" --rw=read --bs=4m --direct=1 --ioengine=libaio \
		--iodepth=32 --time_based --runtime="$warmup" --eta=never --minimal >/dev/null
	fio --name=w2 --filename="$d0" --rw=randread --bs=4k --direct=1 --ioengine=libaio \
		--iodepth=32 --time_based --runtime="$warmup" --eta=never --minimal >/dev/null
	# the test region's bytes, put as an object on the pool, written by
	# fio on md and dm
	head -c $((size * MiB)) /dev/urandom >$B/region
}
hc_test bench-warmup t_warmup

r=1
while [ $r -le "$rounds" ]; do
	hc_test "bench-hypercache-r$r" t_hypercache $r
	hc_test "bench-hypercache-stop-r$r" t_hypercache_stop
	if [ -s $B/geometry ] && [ -s $B/region_off ]; then
		set -- $(cat $B/geometry)
		data_offset=$2
		hc_test "bench-md-r$r" t_md $r
		hc_test "bench-md-stop-r$r" t_md_stop
		hc_test "bench-dm-r$r" t_dm $r
		hc_test "bench-dm-stop-r$r" t_dm_stop
	fi
	for tag in hypercache md dm; do
		for job in seq4m rand4k; do
			f=$B/res.$r.$tag.$job
			[ -s $f ] || continue
			set -- $(cat $f)
			say "bench-round $r $tag $job $(awk -v b="$1" -v i="$2" -v a="$3" \
				-v u="$4" -v s="$5" -v c="$6" -v l="$7" 'BEGIN {
				printf "bw_MiBps=%.1f iops=%.0f members_avg_kb=%s", b / 1024, i, a
				printf " fio_usr=%.1f%% fio_sys=%.1f%% ctx=%s", u, s, c }')"
		done
	done
	for f in $B/prof.$r.*; do
		[ -s "$f" ] || continue
		t=${f#$B/prof.$r.}
		sed "s/^/hc: bench-prof r$r ${t%.*} ${t#*.}: /" "$f" >/dev/console
	done
	r=$((r + 1))
done

if [ -s $B/geometry ]; then
	set -- $(cat $B/geometry)
	say "bench-size hypercache bytes=$1 data_offset=$2 (region read: ${size} MiB at offset $(cat $B/region_off 2>/dev/null))"
fi
for tag in md dm; do
	[ -s $B/size.$tag ] && say "bench-size $tag $(cat $B/size.$tag)"
done
for tag in hypercache md dm; do
	[ -s $B/limits.$tag ] && say "bench-limits $tag$(cat $B/limits.$tag)"
	for f in $B/precond.*.$tag; do [ -s "$f" ] && say "bench-$(cat "$f")"; done
done

# mean over the rounds that produced a result; "bw iops" per device and job
for tag in hypercache md dm; do
	for job in seq4m rand4k; do
		cat $B/res.*.$tag.$job 2>/dev/null |
			awk '{ b += $1; i += $2; n++ }
			END { if (n) printf "%.1f %.0f %d\n", b / n / 1024, i / n, n }' \
			>$B/mean.$tag.$job
		[ -s $B/mean.$tag.$job ] || continue
		set -- $(cat $B/mean.$tag.$job)
		say "bench $tag $job bw_MiBps=$1 iops=$2 (mean of $3 rounds)"
	done
done

ratio() {
	[ -s $B/mean.hypercache.$2 ] && [ -s $B/mean.$1.$2 ] || { echo "n/a"; return; }
	awk -v col="$3" 'NR == FNR { h = $col; next } { o = $col }
		END { if (o > 0) printf "%.2f", h / o; else print "n/a" }' \
		$B/mean.hypercache.$2 $B/mean.$1.$2
}
say "bench ratio seq4m hypercache/md=$(ratio md seq4m 1) hypercache/dm=$(ratio dm seq4m 1)"
say "bench ratio rand4k hypercache/md=$(ratio md rand4k 2) hypercache/dm=$(ratio dm rand4k 2)"
