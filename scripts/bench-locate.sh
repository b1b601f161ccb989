#!/bin/bash
# Usage: scripts/bench-locate.sh [--objects N] [--calls N] [--rounds R]
#                                [--drive-gb G] [--kver K] [--no-build]
#                                [--timeout S]
#
# Object index benchmark, in ONE guest boot (QEMU/TCG): index N objects of
# 0 bytes (STAGE + COMMIT --clean: no chunk, no data), report the kernel
# memory per indexed object (/proc/meminfo Slab and /proc/slabinfo deltas),
# then the mean latency of LOCATE ioctls of hits (without a hold, and
# LOCATE+HOLD followed by RELEASE) against BLKGETSIZE64 ioctls on
# /dev/hypercache0 measured in the same run, and their ratio (target: a
# LOCATE costs under 3x the trivial ioctl).  See
# tests/vm/guest/stage-bench-locate.sh and tests/vm/prog/hc_bench_locate.c.
#
#   --objects N    objects to index (default 100000)
#   --calls N      ioctls per measurement (default 200000)
#   --rounds R     interleaved rounds; the best round counts (default 5)
#   --drive-gb G   size of each of the 3 sparse images (default 136: the
#                  cache gives every object, even of 0 bytes, the policy
#                  weight of one chunk, so the pool needs at least N chunks)
#   --kver K       guest kernel (default: $KVER or the newest installed 6.1)
#   --no-build     do not run `make module tools test-progs` first
#   --timeout S    QEMU timeout (default 1200)
#
# Images: build/bench-locate/nvmeN.img (sparse, recreated every run; almost
# nothing is written to them).  Serial log: build/bench-locate/<ts>.log.
# This is not a test: `make check` does not run it.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

objects=100000 calls=200000 rounds=5 drive_gb=136 build=1 timeout=1200 kver=""
while [ $# -gt 0 ]; do
	case "$1" in
	--objects) objects=$2; shift 2 ;;
	--calls) calls=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--drive-gb) drive_gb=$2; shift 2 ;;
	--kver) kver=$2; shift 2 ;;
	--no-build) build=0; shift ;;
	--timeout) timeout=$2; shift 2 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
	*) echo "bench-locate.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
for v in objects calls rounds drive_gb timeout; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] ||
		{ echo "bench-locate.sh: --${v/_/-} needs a positive integer" >&2; exit 2; }
done

if [ $build = 1 ]; then
	make modules-all tools test-progs >&2
fi

. "$ROOT/tests/vm/kernel.sh"
[ -n "$kver" ] && KVER=$kver
hc_kernel_select

out=$ROOT/build/bench-locate
mkdir -p "$out"
imgs=()
for i in 0 1 2; do
	img=$out/nvme$i.img
	rm -f "$img"
	truncate -s "${drive_gb}G" "$img"
	imgs+=("$img")
done
log=$out/bench-locate-$(date +%Y%m%d-%H%M%S).log

start=$SECONDS
rc=0
"$ROOT/tests/vm/boot.sh" --stage bench-locate --kver "$HC_KVER" \
	--drives "$(IFS=,; echo "${imgs[*]}")" \
	--args "objects=$objects,calls=$calls,rounds=$rounds" \
	--timeout "$timeout" --log "$log" >"$out/boot.out" 2>&1 || rc=$?
wall=$((SECONDS - start))
rm -f "${imgs[@]}"

echo "== HyperCache object index benchmark =="
echo "date:    $(date -u +%Y-%m-%dT%H:%MZ)"
echo "kernel:  $HC_KVER (guest, QEMU/TCG)"
echo "pool:    3 x ${drive_gb} GiB sparse emulated NVMe"
echo "run:     $objects objects of 0 bytes; $calls ioctls per measurement, best of $rounds rounds"
echo "log:     $log"
echo "wall:    ${wall}s for the boot"
echo
grep -a 'hc: bench-locate' "$log" | sed 's/^.*hc: bench-locate/hc: bench-locate/' || true
echo
echo "NOTE: under TCG absolute times mean little; the ratio against BLKGETSIZE64"
echo "measured in the same run does."

if [ $rc -ne 0 ]; then
	echo
	echo "bench-locate.sh: the boot failed:"
	grep -a -E '^(boot.sh|HCTEST not ok|HCVM-)' "$out/boot.out" | head -n 20
	sed -n '/^----- last/,$p' "$out/boot.out" | tail -n 40
	exit 1
fi
grep -aq 'hc: bench-locate ratio_locate [0-9]' "$log" ||
	{ echo "bench-locate.sh: no ratio was printed" >&2; exit 1; }
exit 0
