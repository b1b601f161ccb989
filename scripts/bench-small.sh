#!/bin/bash
# Usage: scripts/bench-small.sh [--objects N] [--size BYTES] [--rounds R]
#                               [--seed S] [--kver K] [--no-build]
#                               [--timeout S] [--smoke]
#
# The small-object read benchmark of format v2 (issue 17), in ONE guest boot
# (QEMU/TCG, multi-threaded unless HC_TCG_THREAD says otherwise): N objects
# of SIZE bytes read warm, one at a time, in random order, on three peers
# that share the same three emulated NVMe drives, each drive cut into three
# regions by dm-linear, one per peer (see tests/vm/guest/
# stage-bench-small.sh and tests/vm/prog/hc_bench_small.c):
#   v1    a pool created with `hcctl pool create --format 1`: one 4 MiB
#         chunk per object; a read is LOCATE + HOLD, one O_DIRECT pread of
#         the object from /dev/hypercache0, RELEASE (libhypercache's
#         hc_reader_open(), hc_reader_pread(), hc_reader_close())
#   v2    the same on a `--format 2` pool: the objects packed in slab chunks
#         at 4 KiB granularity
#   ext4  the same bytes as files of ext4 on md raid0 (4 MiB chunks) of the
#         drives: open(O_DIRECT) + read + close per object
# The objects are put once (untimed); then R rounds, in each of which
# every peer in turn (the first one rotating from round to round, so that
# on a shared host each sees the boot's changing load alike) is brought up
# (pool assembled, ext4 mounted), read once in index order untimed (warm),
# read once timed in the round's random order (the same permutation for
# every peer) and brought down.  Warm: the index (the pool's, replayed
# from its journal, or ext4's dentries and inodes) and the host's page
# cache of the drive images hold everything; O_DIRECT reads never use the
# guest's page cache.  Every read of every pass is checked byte for byte
# (outside the timed spans).  Figures: reads per second, MB/s (10^6
# bytes), and the share of the time spent in the open (LOCATE + HOLD;
# open(2) for ext4); ratios v2 ÷ v1 and each ÷ ext4, and per round.
#
#   --objects N   objects (default 10000)
#   --size BYTES  object size, a multiple of 4096 below 2 MiB (the
#                 small-object threshold; default 65536)
#   --rounds R    rounds, each its own permutation (default 6)
#   --seed S      the objects' bytes and the permutations (default 17)
#   --kver K      guest kernel (default: $KVER or the newest installed 6.1)
#   --no-build    do not run `make modules-all tools test-progs` first
#   --timeout S   QEMU timeout (default 900 s + 0.2 s per object + 0.02 s
#                 per object and round)
#   --smoke       the smoke run of `make check` (tests/vm/scenarios/
#                 97-bench.sh): 200 objects, 2 rounds
#
# The drives: 3 sparse images of three regions each; a region holds N + 64
# chunks of 4 MiB after the data offset over the 3 drives (v1 needs a chunk
# per object: 10,000 objects are 3 x 40 GiB of sparse images, of which
# about 3 x 250 MiB is written per peer).
# Images: build/bench-small/nvmeN.img (deleted afterwards); serial log:
# build/bench-small/<ts>.log (--smoke: build/bench-small-smoke/).  Exit
# status 0 only if the boot passed (every byte read back as written) and a
# result line was printed for every peer.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

n=10000 size=65536 rounds=6 seed=17 build=1 timeout="" kver="" smoke=""
while [ $# -gt 0 ]; do
	case "$1" in
	--objects) n=$2; shift 2 ;;
	--size) size=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--kver) kver=$2; shift 2 ;;
	--no-build) build=0; shift ;;
	--timeout) timeout=$2; shift 2 ;;
	--smoke) n=200 rounds=2 smoke=-smoke; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
	*) echo "bench-small.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
for v in n size rounds seed; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] ||
		{ echo "bench-small.sh: --$v needs a positive integer" >&2; exit 2; }
done
[ $((size % 4096)) = 0 ] && [ "$size" -lt $((2 << 20)) ] ||
	{ echo "bench-small.sh: --size is a multiple of 4096, below 2 MiB (the small-object threshold)" >&2; exit 2; }
[ -n "$timeout" ] || timeout=$((900 + n / 5 + n * rounds / 50))

# the data offset: a journal half of 64 MiB at least, and one 1 KiB per
# object (a put's records before a compaction); whole 4 MiB chunks
chunk=$((4 << 20))
half=$((4096 + (n + 64) * 1024))
[ $half -ge $((32 << 20)) ] || half=$((32 << 20))
data_offset=$((((2 * half + 4096) + chunk - 1) / chunk * chunk))
region=$((data_offset + ((n + 64) / 3 + 1) * chunk))
drive_bytes=$((3 * region))

[ $build = 1 ] && make modules-all tools test-progs >&2

. "$ROOT/tests/vm/kernel.sh"
[ -n "$kver" ] && KVER=$kver
hc_kernel_select

# HC_BENCH_DIR: another directory for the images and logs (two runs at once)
out=${HC_BENCH_DIR:-$ROOT/build/bench-small$smoke}
mkdir -p "$out"
imgs=()
for i in 0 1 2; do
	img=$out/nvme$i.img
	rm -f "$img"
	truncate -s "$drive_bytes" "$img"
	imgs+=("$img")
done
log=$out/bench-small-$(date +%Y%m%d-%H%M%S).log

start=$SECONDS
load0=$(cut -d' ' -f1-3 /proc/loadavg)
rc=0
HC_TCG_THREAD=${HC_TCG_THREAD:-multi} \
"$ROOT/tests/vm/boot.sh" --stage bench-small --kver "$HC_KVER" \
	--drives "$(IFS=,; echo "${imgs[*]}")" \
	--args "n=$n,size=$size,rounds=$rounds,seed=$seed,data_offset=$data_offset,region=$region" \
	--timeout "$timeout" --log "$log" >"$out/boot.out" 2>&1 || rc=$?
wall=$((SECONDS - start))
rm -f "${imgs[@]}"

echo "== HyperCache small-object read benchmark =="
echo "date:    $(date -u +%Y-%m-%dT%H:%MZ)"
echo "kernel:  $HC_KVER (guest, QEMU/TCG ${HC_TCG_THREAD:-multi}-threaded, 2 vCPUs)"
echo "drives:  3 x $((drive_bytes >> 20)) MiB sparse emulated NVMe, 3 regions of $((region >> 20)) MiB each (v1, v2, ext4); pools' data offset $((data_offset >> 20)) MiB"
echo "run:     $n objects of $size bytes, warm, one at a time, random order (seed $seed), $rounds round(s), the peers taking turns"
echo "log:     $log"
echo "wall:    ${wall}s for the boot"
echo "load:    host load average $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end"
echo
grep -a 'hc: bench-small' "$log" | tr -d '\r' | sed 's/^.*hc: bench-small/hc: bench-small/' |
	tee "$out/figures" || true
echo
echo "peer  reads/s    MB/s  open share  ÷ ext4"
awk '$4 == "result" {
	for (i = 5; i <= NF; i++) { split($i, kv, "="); v[$3, kv[1]] = kv[2] }
	seen[$3] = 1 }
     END {
	e = v["ext4", "ops_per_s"]
	for (k = 1; k <= 3; k++) {
		p = k == 1 ? "v1" : k == 2 ? "v2" : "ext4"
		if (!seen[p])
			continue
		printf "%-4s  %7.1f  %6.1f  %10.3f  %6s\n", p, v[p, "ops_per_s"],
			v[p, "MBps"], v[p, "open_share"],
			e ? sprintf("%.3f", v[p, "ops_per_s"] / e) : "-"
	}
	if (seen["v1"] && seen["v2"])
		printf "v2 ÷ v1: %.3f (reads/s)\n", v["v2", "ops_per_s"] / v["v1", "ops_per_s"] }' \
	"$out/figures"
echo
echo "per round, reads/s:"
echo "round       v1       v2     ext4  v2÷v1"
awk '$4 == "round" { for (i = 6; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "ops_per_s") v[$5, $3] = kv[2] }
		     if ($5 > m) m = $5 }
     END { for (r = 1; r <= m; r++)
		printf "%5d  %7s  %7s  %7s  %5s\n", r, v[r, "v1"], v[r, "v2"], v[r, "ext4"],
			v[r, "v1"] && v[r, "v2"] ? sprintf("%.3f", v[r, "v2"] / v[r, "v1"]) : "-" }' "$out/figures"
echo
echo "NOTE: under TCG the absolute numbers mean little; the ratios of peers"
echo "measured in the same boot on the same drives do."

if [ $rc -ne 0 ]; then
	echo
	echo "bench-small.sh: the boot failed:"
	grep -a -E '^(boot.sh|HCTEST not ok|HCVM-)' "$out/boot.out" | head -n 20
	sed -n '/^----- last/,$p' "$out/boot.out" | tail -n 40
	exit 1
fi
missing=0
for p in v1 v2 ext4; do
	grep -Eq "^hc: bench-small $p result ops=$((n * rounds)) seconds=[0-9.]+ ops_per_s=[0-9.]+ MBps=[0-9.]+ open_share=[0-9.]+$" \
		"$out/figures" || { echo "bench-small.sh: no result line for $p" >&2; missing=1; }
done
exit $missing
