#!/bin/bash
# Usage: scripts/bench.sh [--drives N] [--size-mb M] [--runtime S] [--rounds R]
#                         [--drive-mb D] [--kver K] [--no-build] [--timeout S]
#                         [--profile] [--smoke]
#
# Striping benchmark: /dev/hypercache0 against md raid0 and dm-stripe built
# over the same emulated NVMe drives, in ONE guest boot (QEMU/TCG), with the
# same fio jobs (sequential 4 MiB reads and random 4 KiB reads, O_DIRECT,
# libaio, iodepth 32) over the same byte range of each: on the pool, the
# extent of an object holding the test region (`hcctl put`; raw writes to
# /dev/hypercache0 are fenced), on md and dm the same range written by fio.
# See tests/vm/guest/stage-bench.sh for what the guest does and
# Documentation/benchmarks.md for results.
#
#   --drives N     drives (default 3)
#   --size-mb M    test region in MiB (default 384; at most the pool's
#                  capacity)
#   --runtime S    seconds per fio job (default 10)
#   --rounds R     the whole hypercache/md/dm round R times; the guest reports
#                  the mean (default 2)
#   --drive-mb D   size of each fresh raw image (default 512)
#   --kver K       guest kernel (default: $KVER or the newest installed 6.1)
#   --no-build     do not run `make modules-all tools test-progs` first
#   --timeout S    QEMU timeout (default 1800)
#   --warmup S     seconds of each warm-up read job (default 2)
#   --profile      diagnosis: put perf in the initramfs and profile every read
#                  job (perf record -a -e cpu-clock); prints "hc: bench-prof"
#                  lines. perf costs CPU: do not compare such a run's numbers.
#   --smoke        the smoke run of `make check` (tests/vm/scenarios/
#                  97-bench.sh): 3 x 64 MiB drives, 16 MiB, 1 s jobs, 1 round
#
# Images: build/bench/nvmeN.img (build/bench-smoke/ with --smoke; recreated
# every run). Serial log: build/bench/bench-<timestamp>.log. Prints the
# "hc: bench" lines and the ratios. Exit status: 0 if the boot passed and
# every figure line (the mean of each job on each device, both ratio lines
# with numbers) was printed, 1 otherwise.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

drives=3 size=384 runtime=10 rounds=2 drive_mb=512 build=1 timeout=1800 kver="" profile=0
warmup=2 smoke=""
while [ $# -gt 0 ]; do
	case "$1" in
	--drives) drives=$2; shift 2 ;;
	--size-mb) size=$2; shift 2 ;;
	--runtime) runtime=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--drive-mb) drive_mb=$2; shift 2 ;;
	--kver) kver=$2; shift 2 ;;
	--no-build) build=0; shift ;;
	--profile) profile=1; shift ;;
	--warmup) warmup=$2; shift 2 ;;
	--smoke) drives=3 drive_mb=64 size=16 runtime=1 rounds=1 warmup=1 timeout=600 smoke=-smoke; shift ;;
	--timeout) timeout=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
	*) echo "bench.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
for v in drives size runtime rounds drive_mb timeout warmup; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] || { echo "bench.sh: --${v/_/-} needs a positive integer" >&2; exit 2; }
done
# the pool keeps the first 4 MiB of each drive and uses whole 4 MiB chunks
if [ $((drives * (drive_mb / 4 - 1) * 4)) -lt "$size" ]; then
	echo "bench.sh: --size-mb $size exceeds $drives x ${drive_mb} MiB drives' capacity" >&2
	exit 2
fi

if [ $build = 1 ]; then
	make_args=()
	[ -n "$kver" ] && make_args+=(KVER="$kver")
	make "${make_args[@]}" modules-all tools test-progs >&2
fi

. "$ROOT/tests/vm/kernel.sh"
[ -n "$kver" ] && KVER=$kver
hc_kernel_select

# HC_BENCH_DIR: another directory for the images and logs (two runs at once)
out=${HC_BENCH_DIR:-$ROOT/build/bench$smoke}
mkdir -p "$out"
imgs=()
for ((i = 0; i < drives; i++)); do
	img=$out/nvme$i.img
	rm -f "$img"
	truncate -s "${drive_mb}M" "$img"
	imgs+=("$img")
done
log=$out/bench-$(date +%Y%m%d-%H%M%S).log

extra=""
if [ $profile = 1 ]; then
	export HC_EXTRA_BINS="${HC_EXTRA_BINS:+$HC_EXTRA_BINS }perf"
	extra=",profile=1"
fi
start=$SECONDS
rc=0
"$ROOT/tests/vm/boot.sh" --stage bench --kver "$HC_KVER" \
	--drives "$(IFS=,; echo "${imgs[*]}")" \
	--args "drives=$drives,runtime=$runtime,size=$size,rounds=$rounds,warmup=$warmup$extra" \
	--timeout "$timeout" --log "$log" >"$out/boot.out" 2>&1 || rc=$?
wall=$((SECONDS - start))

echo "== HyperCache striping benchmark =="
echo "date:    $(date -u +%Y-%m-%dT%H:%MZ)"
echo "kernel:  $HC_KVER (guest, QEMU/TCG)"
echo "drives:  $drives x ${drive_mb} MiB emulated NVMe (fresh raw images in ${out#$ROOT/}/)"
echo "jobs:    seq4m = read bs=4m, rand4k = randread bs=4k; O_DIRECT libaio iodepth=32, ${runtime}s each, over one object's ${size} MiB (the same range on md/dm); $rounds round(s), mean"
echo "log:     $log"
echo "wall:    ${wall}s for the boot"
echo
grep -a 'hc: bench' "$log" | tr -d '\r' | sed 's/^.*hc: bench/hc: bench/' |
	tee "$out/figures" || true
echo
echo "NOTE: under TCG the absolute numbers mean nothing (every instruction of guest"
echo "and emulated NVMe is emulated, the images sit in the host page cache); only"
echo "the ratios between devices measured in the same guest run count."

if [ $rc -ne 0 ]; then
	echo
	echo "bench.sh: the boot failed:"
	grep -a -E '^(boot.sh|HCTEST not ok|HCVM-)' "$out/boot.out" | head -n 20
	sed -n '/^----- last/,$p' "$out/boot.out" | tail -n 40
	exit 1
fi
missing=0
for dev in hypercache md dm; do
	for job in seq4m rand4k; do
		grep -Eq "^hc: bench $dev $job bw_MiBps=[0-9.]+ iops=[0-9]+ " "$out/figures" ||
			{ echo "bench.sh: no figure for $job on $dev" >&2; missing=1; }
	done
done
for job in seq4m rand4k; do
	grep -Eq "^hc: bench ratio $job hypercache/md=[0-9.]+ hypercache/dm=[0-9.]+$" "$out/figures" ||
		{ echo "bench.sh: no $job ratio was printed" >&2; missing=1; }
done
exit $missing
