#!/bin/bash
# Usage: scripts/bench-client.sh [--size-mb M] [--rounds R] [--kver K]
#                                [--no-build] [--timeout S] [--smoke]
#                                [--python SAVE,LOAD,ST] [--no-python]
#                                [--profile] [--repeat N]
#
# Client benchmark (issue 12), in ONE guest boot (QEMU/TCG, multi-threaded
# unless HC_TCG_THREAD says otherwise), each figure against its peer on
# the same three emulated NVMe drives and the same bytes (see
# tests/vm/guest/stage-bench-client.sh):
#   put   `hcctl put --clean` (libhypercache's writer, durable on return)
#         of M MiB against dd bs=4M oflag=direct conv=fsync of the same file
#         to md raid0 (4 MiB chunks): ratio_put_md (target <= 1.10);
#   read  libhypercache's hc_reader_read_all() and `hcctl get -o /dev/null`
#         against fio seq 4 MiB QD32 O_DIRECT over the object's extent of
#         /dev/hypercache0: ratio_lib_fio (target >= 0.95), ratio_get_fio.
#   python (in the same boot, the host's root over virtio-9p, --hostfs)
#         torch.save of SAVE MiB to hypercache:// (durable) against
#         torch.save to ext4 + fsync on md raid0 of the same drives
#         (ratio_save_ext4, target <= 1.10) and against boto3's upload of
#         the same bytes to the S3 gateway of scripts/rgw.sh
#         (ratio_boto3_save: what the training loop is spared); warm
#         torch.load of LOAD MiB against torch.load from that ext4
#         (ratio_load_ext4, speed, target >= 1.0); safetensors of ST MiB
#         loaded zero-copy, every page touched, against numpy reads of the
#         file from ext4 (ratio_st_numpy, speed, target >= 1.0).
#
#   --size-mb M   the object (default 256)
#   --rounds R    rounds, alternating the pool and md (default 3); means
#   --kver K      guest kernel (default: $KVER or the newest installed 6.1)
#   --no-build    do not run `make modules-all tools test-progs` first
#   --timeout S   QEMU timeout (default 1800)
#   --python S,L,ST  the Python figures' sizes in MiB (default 256,1024,256)
#   --repeat N    each Python step but boto3's N times in the boot, the
#                 median the figure (default 3: one run is at the host's mercy)
#   --no-python   only the C figures (no torch in the guest)
#   --profile     diagnosis: the Python phases under strace -c, cProfile and
#                 /proc/self/io per step ("hc: bench-client-prof" lines);
#                 such a run's seconds are not for comparison
#   --smoke       the smoke run of `make check` (97-bench): 8 MiB, 1 round,
#                 no Python (importing torch under TCG takes too long)
#
# Images: build/bench-client/nvmeN.img, 3 x (M / 3 + 64) MiB of zeros
# (more with the Python figures: their three files at once), recreated every
# run (build/bench-client-smoke/ with --smoke).  Exit status 0 only if the
# boot passed and the result line with every ratio was printed.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

size=256 rounds=3 build=1 timeout=1800 kver="" smoke="" py=256,1024,256 prof="" rep=3
while [ $# -gt 0 ]; do
	case "$1" in
	--size-mb) size=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--kver) kver=$2; shift 2 ;;
	--no-build) build=0; shift ;;
	--timeout) timeout=$2; shift 2 ;;
	--python) py=$2; shift 2 ;;
	--no-python) py=""; shift ;;
	--profile) prof=",prof=1"; shift ;;
	--repeat) rep=$2; shift 2 ;;
	--smoke) size=8 rounds=1 timeout=900 smoke=-smoke py=""; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
	*) echo "bench-client.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
for v in size rounds timeout rep; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] ||
		{ v=${v/size/size-mb}; echo "bench-client.sh: --${v/rep/repeat} needs a positive integer" >&2; exit 2; }
done
[ -z "$py" ] || [[ $py =~ ^[1-9][0-9]*,[1-9][0-9]*,[1-9][0-9]*$ ]] ||
	{ echo "bench-client.sh: --python needs SAVE,LOAD,ST (MiB, positive integers)" >&2; exit 2; }
# the Python round needs the gateway for boto3's peer
if [ -n "$py" ] && ! "$ROOT/scripts/rgw.sh" status >/dev/null 2>&1; then
	echo "bench-client.sh: the Python figures need the S3 gateway (scripts/rgw.sh start, or --no-python)" >&2
	exit 2
fi
[ $build = 1 ] && make modules-all tools test-progs >&2

. "$ROOT/tests/vm/kernel.sh"
[ -n "$kver" ] && KVER=$kver
hc_kernel_select

# HC_BENCH_DIR: another directory for the images and logs (two runs at once)
out=${HC_BENCH_DIR:-$ROOT/build/bench-client$smoke}
mkdir -p "$out"
# a third of the object per drive, the pool's first 4 MiB, and room; the
# Python round keeps its three files at once (and ext4 its metadata)
drive=$((size / 3 + 64))
if [ -n "$py" ]; then
	IFS=, read -r ps pl pt <<<"$py"
	[ $(((ps + pl + pt) / 3 + 128)) -gt $drive ] && drive=$(((ps + pl + pt) / 3 + 128))
	boot_py=(--hostfs --s3 --mem 3584)
	args_py=",py=${py//,/:}$prof,rep=$rep"
else
	boot_py=() args_py=""
fi
imgs=()
for i in 0 1 2; do
	img=$out/nvme$i.img
	rm -f "$img"
	# written out, not sparse (as bench-fs.sh's): a first write into a hole
	# costs the host an allocation, which burdened whichever peer wrote a
	# region first: the pool's first round, never md's (the same images)
	dd if=/dev/zero of="$img" bs=1M count="$drive" status=none
	imgs+=("$img")
done
log=$out/bench-client-$(date +%Y%m%d-%H%M%S).log

start=$SECONDS
load0=$(cut -d' ' -f1-3 /proc/loadavg)
rc=0
HC_TCG_THREAD=${HC_TCG_THREAD:-multi} \
"$ROOT/tests/vm/boot.sh" --stage bench-client --kver "$HC_KVER" \
	--drives "$(IFS=,; echo "${imgs[*]}")" \
	--args "size=$size,rounds=$rounds$args_py" "${boot_py[@]}" \
	--timeout "$timeout" --log "$log" >"$out/boot.out" 2>&1 || rc=$?
wall=$((SECONDS - start))
rm -f "${imgs[@]}"

echo "== HyperCache client benchmark =="
echo "date:    $(date -u +%Y-%m-%dT%H:%MZ)"
echo "kernel:  $HC_KVER (guest, QEMU/TCG ${HC_TCG_THREAD:-multi}-threaded, 2 vCPUs)"
echo "drives:  3 x $drive MiB emulated NVMe; object $size MiB; $rounds round(s), mean${py:+; Python S,L,ST $py MiB, median of $rep}"
echo "load:    host load average (1/5/15 min) $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo "log:     $log"
echo "wall:    ${wall}s for the boot"
echo
grep -a 'hc: bench-client' "$log" | tr -d '\r' | sed 's/^.*hc: bench-client/hc: bench-client/' |
	tee "$out/figures" || true
echo
echo "NOTE: under TCG the absolute numbers mean little; the ratios against the"
echo "peer measured in the same run do (put/md <= 1.10, lib/fio >= 0.95;"
echo "save/ext4 <= 1.10, load and safetensors against ext4 >= 1.0)."

if [ $rc -ne 0 ]; then
	echo
	echo "bench-client.sh: the boot failed:"
	grep -a -E '^(boot.sh|HCTEST not ok|HCVM-)' "$out/boot.out" | head -n 20
	sed -n '/^----- last/,$p' "$out/boot.out" | tail -n 40
	exit 1
fi
grep -Eq "^hc: bench-client result .*ratio_put_md=[0-9.]+ .*ratio_lib_fio=[0-9.]+ ratio_get_fio=[0-9.]+$" \
	"$out/figures" || { echo "bench-client.sh: no result line with every ratio" >&2; exit 1; }
[ -z "$py" ] || grep -Eq "^hc: bench-client python .*ratio_save_ext4=[0-9.]+ ratio_boto3_save=[0-9.]+ .*ratio_load_ext4=[0-9.]+ .*ratio_st_numpy=[0-9.]+$" \
	"$out/figures" || { echo "bench-client.sh: no Python line with every ratio" >&2; exit 1; }
