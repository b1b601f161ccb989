#!/bin/bash
# Usage: scripts/bench-fs.sh [--size-mb M] [--write-mb W] [--rounds R]
#                            [--opens N] [--kver K] [--no-build]
#                            [--timeout S] [--smoke]
#
# The file system view's benchmark (issue 11), in ONE guest boot (QEMU/TCG,
# multi-threaded unless HC_TCG_THREAD says otherwise), each figure against
# its peer on the same three emulated NVMe drives and the same bytes (see
# tests/vm/guest/stage-bench-fs.sh):
#   buffered  seq 4 MiB reads of an M-MiB file of the view ÷ the same file
#             on ext4 over md raid0 of the drives: ratio_buf_ext4 (>= 1.0)
#   direct    seq 4 MiB QD32 O_DIRECT on the file ÷ on its extent of
#             /dev/hypercache0: ratio_dio_dev (>= 0.97)
#   mmap      every word of the mapped file ÷ the mapped ext4 copy:
#             ratio_mmap_ext4 (>= 1.0)
#   open      open + fstat + close, time ÷ ext4's: ratio_open_ext4 (<= 2)
#   write     dd of W MiB to a new file of the view (durable at close),
#             time ÷ dd oflag=direct conv=fsync to md raid0:
#             ratio_write_md (<= 1.10)
#
#   --size-mb M   the read file (default 1024)
#   --write-mb W  the written file (default 256)
#   --rounds R    rounds (default 3); means
#   --opens N     open + fstat + close per round (default 20000)
#   --kver K      guest kernel (default: $KVER or the newest installed 6.1)
#   --no-build    do not run `make modules-all tools test-progs` first
#   --timeout S   QEMU timeout (default 2400)
#   --smoke       the smoke run of `make check` (97-bench): 8 MiB read,
#                 8 MiB written, 1 round, 200 opens
#
# Images: build/bench-fs/nvmeN.img, 3 x ((M + W) / 3 + 128) MiB of zeros,
# recreated every run (build/bench-fs-smoke/ with --smoke).  Exit status 0
# only if the boot passed and the result line with every ratio was printed.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

size=1024 write=256 rounds=3 opens=20000 build=1 timeout=2400 kver="" smoke=""
while [ $# -gt 0 ]; do
	case "$1" in
	--size-mb) size=$2; shift 2 ;;
	--write-mb) write=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--opens) opens=$2; shift 2 ;;
	--kver) kver=$2; shift 2 ;;
	--no-build) build=0; shift ;;
	--timeout) timeout=$2; shift 2 ;;
	--smoke) size=8 write=8 rounds=1 opens=200 timeout=900 smoke=-smoke; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
	*) echo "bench-fs.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
for v in size write rounds opens timeout; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] ||
		{ echo "bench-fs.sh: --$v needs a positive integer" >&2; exit 2; }
done
[ $build = 1 ] && make modules-all tools test-progs >&2

. "$ROOT/tests/vm/kernel.sh"
[ -n "$kver" ] && KVER=$kver
hc_kernel_select

# HC_BENCH_DIR: another directory for the images and logs (two runs at once)
out=${HC_BENCH_DIR:-$ROOT/build/bench-fs$smoke}
mkdir -p "$out"
drive=$(((size + write) / 3 + 128))
imgs=()
for i in 0 1 2; do
	img=$out/nvme$i.img
	rm -f "$img"
	# written out, not sparse: a first write into a hole costs the host an
	# allocation, which would burden whichever peer writes a region first
	dd if=/dev/zero of="$img" bs=1M count="$drive" status=none
	imgs+=("$img")
done
log=$out/bench-fs-$(date +%Y%m%d-%H%M%S).log
# the written file in the guest's tmpfs, and the page cache of the reads
mem=$((2048 + write))

start=$SECONDS
rc=0
HC_TCG_THREAD=${HC_TCG_THREAD:-multi} \
"$ROOT/tests/vm/boot.sh" --stage bench-fs --kver "$HC_KVER" \
	--drives "$(IFS=,; echo "${imgs[*]}")" --mem "$mem" \
	--args "size=$size,write=$write,rounds=$rounds,opens=$opens" \
	--timeout "$timeout" --log "$log" >"$out/boot.out" 2>&1 || rc=$?
wall=$((SECONDS - start))
rm -f "${imgs[@]}"

echo "== HyperCache file system view benchmark =="
echo "date:    $(date -u +%Y-%m-%dT%H:%MZ)"
echo "kernel:  $HC_KVER (guest, QEMU/TCG ${HC_TCG_THREAD:-multi}-threaded, 2 vCPUs)"
echo "drives:  3 x $drive MiB emulated NVMe; read file $size MiB, written $write MiB; $rounds round(s), mean"
echo "log:     $log"
echo "wall:    ${wall}s for the boot"
echo
grep -a 'hc: bench-fs' "$log" | tr -d '\r' | sed 's/^.*hc: bench-fs/hc: bench-fs/' |
	tee "$out/figures" || true
echo
echo "NOTE: under TCG the absolute numbers mean little; the ratios against the"
echo "peer measured in the same run do (buffered, mmap ÷ ext4 >= 1.0; O_DIRECT"
echo "÷ /dev/hypercache0 >= 0.97; open ÷ ext4 <= 2; write ÷ md raid0 <= 1.10)."

if [ $rc -ne 0 ]; then
	echo
	echo "bench-fs.sh: the boot failed:"
	grep -a -E '^(boot.sh|HCTEST not ok|HCVM-)' "$out/boot.out" | head -n 20
	sed -n '/^----- last/,$p' "$out/boot.out" | tail -n 40
	exit 1
fi
grep -Eq "^hc: bench-fs result .*ratio_buf_ext4=[0-9.]+ .*ratio_dio_dev=[0-9.]+ .*ratio_mmap_ext4=[0-9.]+ .*ratio_open_ext4=[0-9.]+ .*ratio_write_md=[0-9.]+$" \
	"$out/figures" || { echo "bench-fs.sh: no result line with every ratio" >&2; exit 1; }
