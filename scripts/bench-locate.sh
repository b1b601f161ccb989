#!/bin/bash
# Usage: scripts/bench-locate.sh [--counts C1,C2,...] [--calls N] [--batch B]
#                                [--threads T] [--kver K] [--no-build]
#                                [--timeout S] [--fill journal|commit]
#                                [--formats F,...] [--smoke]
#
# Object index benchmark, in ONE guest boot (QEMU/TCG, multi-threaded unless
# HC_TCG_THREAD says otherwise): the index grows to each count of objects of
# 1 byte (one chunk and one extent each: in the policy, so every hit updates
# the W-TinyLFU sketch and the LRU), and at each count hc_bench_locate
# reports the kernel memory per object and, with 1 and up to T threads, the
# mean latency of LOCATE hits (without arrays; with the extents array `hcctl
# get` passes; LOCATE+HOLD then RELEASE) against BLKGETSIZE64 ioctls on
# /dev/hypercache0 measured in the same run, and their ratios (target: a
# LOCATE hit costs at most 3x the no-op ioctl).  See
# tests/vm/guest/stage-bench-locate.sh and tests/vm/prog/hc_bench_locate.c.
#
#   --counts C,...  ascending object counts (default 1000,100000,1000000)
#   --calls N       ioctls of each kind per thread and count (default 200000)
#   --batch B       calls per batch: the kinds take turns batch by batch, and
#                   the least disturbed batch of a kind is its figure, the
#                   median batch beside it (default 1000)
#   --threads T     measure with 1..T threads (default 2)
#   --kver K        guest kernel (default: $KVER or the newest installed 6.1)
#   --fill F        how the index grows (default journal): "journal" appends
#                   the objects' records to the stopped pool's journal
#                   (hc_jpoke objects-1b) and assembles it, so every object
#                   is replayed and admitted to the policy as after a
#                   restart (about a minute for 1,000,000 under TCG);
#                   "commit" STAGEs and COMMITs each (2.5-3.7 ms each under
#                   TCG: an hour for 1,000,000).  The LOCATE figures do not
#                   depend on it; the indexing time and memory lines say
#                   which it was (fill=...)
#   --formats F,... the pool formats measured, in this order, each on a pool
#                   created with `hcctl pool create --format F` on the same
#                   drives in the same boot (default 1,2: format v2 against
#                   v1, issue 17).  In a v2 pool the objects have whole
#                   chunks too (v2 records without sub-chunk extents: the
#                   layout of a large object); --fill commit would make
#                   them small objects, so it takes --formats 1 only.
#                   2,1 measures v2 first (the order's share of a v2÷v1
#                   quotient: run both orders)
#   --no-build      do not run `make modules-all tools test-progs` first
#   --timeout S     QEMU timeout (default 900 s + 6 ms per object)
#   --smoke         the smoke run of `make check` (tests/vm/scenarios/
#                   97-bench.sh): counts 50,200, 2000 calls in batches of 500
#
# The pool: 3 sparse images sized for the largest count C: one 4 MiB chunk
# per object (1,000,000 objects: 3 x 1.27 TiB, 4 TB of chunks) and a data
# offset whose journal half holds a 512-byte record per object (980 MiB
# for 1,000,000).  Images: build/bench-locate/nvmeN.img (deleted
# afterwards; only the journal is ever written: 512 MiB per drive at 1M).
# Serial log: build/bench-locate/<ts>.log (--smoke: build/bench-locate-smoke/,
# so that a smoke run never touches a full run's images).
#
# Exit status 0 only if the boot passed and every figure line (a "result"
# and a "median" line for every format, count and thread number, a memory
# line for every format and count) was printed.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

counts=1000,100000,1000000 calls=200000 batch=1000 threads=2 build=1 timeout="" kver="" smoke="" fill=journal
formats=1,2
while [ $# -gt 0 ]; do
	case "$1" in
	--counts) counts=$2; shift 2 ;;
	--calls) calls=$2; shift 2 ;;
	--batch) batch=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	--kver) kver=$2; shift 2 ;;
	--no-build) build=0; shift ;;
	--timeout) timeout=$2; shift 2 ;;
	--fill) fill=$2; shift 2 ;;
	--formats) formats=$2; shift 2 ;;
	--smoke) counts=50,200 calls=2000 batch=500 smoke=-smoke; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
	*) echo "bench-locate.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
for v in calls batch threads; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] ||
		{ echo "bench-locate.sh: --$v needs a positive integer" >&2; exit 2; }
done
[ "$fill" = journal ] || [ "$fill" = commit ] ||
	{ echo "bench-locate.sh: --fill is journal or commit" >&2; exit 2; }
[[ $formats =~ ^(1|2|1,2|2,1)$ ]] ||
	{ echo "bench-locate.sh: --formats is 1, 2, 1,2 or 2,1" >&2; exit 2; }
[ "$fill" = journal ] || [ "$formats" = 1 ] ||
	{ echo "bench-locate.sh: --fill commit makes small objects in a v2 pool: --formats 1" >&2; exit 2; }
[ "$batch" -le "$calls" ] || { echo "bench-locate.sh: --batch is larger than --calls" >&2; exit 2; }
[[ $counts =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] ||
	{ echo "bench-locate.sh: --counts needs positive integers, comma-separated" >&2; exit 2; }
max=${counts##*,}
nf=$(( ${#formats} / 2 + 1 ))
[ -n "$timeout" ] || timeout=$(((900 + max * 6 / 1000) * nf))

# one 512-byte journal record per object (and 64 to spare) in a half:
# half = (data_offset - 4 KiB) / 2 rounded down to 4 KiB, its first 4 KiB
# the header; the data offset is a whole number of 4 MiB chunks
chunk=$((4 << 20))
half=$((4096 + (max + 64) * 512 + 4095))
data_offset=$((((2 * half + 4096) + chunk - 1) / chunk * chunk))
drive_bytes=$((data_offset + ((max + 2) / 3 + 1) * chunk))

if [ $build = 1 ]; then
	make modules-all tools test-progs >&2
fi

. "$ROOT/tests/vm/kernel.sh"
[ -n "$kver" ] && KVER=$kver
hc_kernel_select

# HC_BENCH_DIR: another directory for the images and logs (two runs at once)
out=${HC_BENCH_DIR:-$ROOT/build/bench-locate$smoke}
mkdir -p "$out"
imgs=()
for i in 0 1 2; do
	img=$out/nvme$i.img
	rm -f "$img"
	truncate -s "$drive_bytes" "$img"
	imgs+=("$img")
done
log=$out/bench-locate-$(date +%Y%m%d-%H%M%S).log

start=$SECONDS
load0=$(cut -d' ' -f1-3 /proc/loadavg)
rc=0
HC_TCG_THREAD=${HC_TCG_THREAD:-multi} \
"$ROOT/tests/vm/boot.sh" --stage bench-locate --kver "$HC_KVER" \
	--drives "$(IFS=,; echo "${imgs[*]}")" \
	--args "counts=${counts//,/+},calls=$calls,batch=$batch,threads=$threads,data_offset=$data_offset,fill=$fill,formats=${formats//,/+}" \
	--timeout "$timeout" --log "$log" >"$out/boot.out" 2>&1 || rc=$?
wall=$((SECONDS - start))
rm -f "${imgs[@]}"

echo "== HyperCache object index benchmark =="
echo "date:    $(date -u +%Y-%m-%dT%H:%MZ)"
echo "kernel:  $HC_KVER (guest, QEMU/TCG ${HC_TCG_THREAD:-multi}-threaded, 2 vCPUs)"
echo "pool:    3 x $((drive_bytes >> 20)) MiB sparse emulated NVMe, data offset $((data_offset >> 20)) MiB"
echo "run:     pool formats $formats; objects of 1 byte (one chunk each, filled by $fill) up to $counts; $calls ioctls of each kind per thread, 1..$threads threads, batches of $batch (least disturbed batch, and median)"
echo "log:     $log"
echo "wall:    ${wall}s for the boot"
echo "load:    host load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo
grep -a 'hc: bench-locate' "$log" | tr -d '\r' | sed 's/^.*hc: bench-locate/hc: bench-locate/' |
	tee "$out/figures" || true
echo
echo "least disturbed batch (median batch's ratio in brackets), ns per call:"
echo "format  objects  threads  BLKGETSIZE64  LOCATE  ratio          LOCATE+extents  ratio          HOLD+RELEASE  ratio"
awk '$3 == "result" || $3 == "median" {
	for (i = 4; i <= NF; i++) { split($i, kv, "="); v[$3, kv[1]] = kv[2] }
	if ($3 != "median")
		next
	printf "v%-5s  %7s  %7s  %9s ns  %6s  %5s (%5s)  %11s ns  %5s (%5s)  %9s ns  %5s (%5s)\n",
		v["result", "format"], v["result", "objects"], v["result", "threads"],
		v["result", "getsize_ns"], v["result", "locate_ns"],
		v["result", "ratio_locate"], v["median", "ratio_locate"],
		v["result", "extents_ns"], v["result", "ratio_extents"],
		v["median", "ratio_extents"], v["result", "hold_pair_ns"],
		v["result", "ratio_hold_pair"], v["median", "ratio_hold_pair"] }' "$out/figures"
if [ ${#formats} = 3 ]; then
	echo
	echo "format v2 against v1 (least disturbed batch): the v2 ÷ v1 quotient of each ratio to BLKGETSIZE64"
	echo "objects  threads  LOCATE v1  v2     v2÷v1  LOCATE+extents v1  v2     v2÷v1  HOLD+RELEASE v1  v2     v2÷v1"
	awk '$3 == "result" {
		for (i = 4; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		k = v["objects"] " " v["threads"]
		if (!(k in seen)) { seen[k] = 1; order[++n] = k }
		for (q in v) r[v["format"], k, q] = v[q] }
	END {
		for (j = 1; j <= n; j++) {
			k = order[j]; split(k, ot, " ")
			if (r[1, k, "ratio_locate"] == "" || r[2, k, "ratio_locate"] == "")
				continue
			printf "%7s  %7s  %9s  %5s  %5.2f  %17s  %5s  %5.2f  %15s  %5s  %5.2f\n", ot[1], ot[2],
				r[1, k, "ratio_locate"], r[2, k, "ratio_locate"],
				r[2, k, "ratio_locate"] / r[1, k, "ratio_locate"],
				r[1, k, "ratio_extents"], r[2, k, "ratio_extents"],
				r[2, k, "ratio_extents"] / r[1, k, "ratio_extents"],
				r[1, k, "ratio_hold_pair"], r[2, k, "ratio_hold_pair"],
				r[2, k, "ratio_hold_pair"] / r[1, k, "ratio_hold_pair"] } }' "$out/figures"
fi
echo
echo "NOTE: under TCG absolute times mean little; the ratio against BLKGETSIZE64"
echo "measured in the same run does (target: LOCATE hit <= 3x)."

if [ $rc -ne 0 ]; then
	echo
	echo "bench-locate.sh: the boot failed:"
	grep -a -E '^(boot.sh|HCTEST not ok|HCVM-)' "$out/boot.out" | head -n 20
	sed -n '/^----- last/,$p' "$out/boot.out" | tail -n 40
	exit 1
fi
missing=0
for f in ${formats//,/ }; do
	for c in ${counts//,/ }; do
		grep -q "^hc: bench-locate indexed format=$f objects=$c .*slabinfo_bytes_per_object=[-0-9]" "$out/figures" ||
			{ echo "bench-locate.sh: no memory figure for format $f, $c objects" >&2; missing=1; }
		for ((t = 1; t <= threads; t++)); do
			for tag in result median; do
				grep -Eq "^hc: bench-locate $tag format=$f objects=$c threads=$t .*ratio_locate=[0-9.]+ ratio_extents=[0-9.]+ ratio_hold_pair=[0-9.]+$" \
					"$out/figures" ||
					{ echo "bench-locate.sh: no $tag line for format $f, $c objects, $t threads" >&2; missing=1; }
			done
		done
	done
done
exit $missing
