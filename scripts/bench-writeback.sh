#!/bin/bash
# Usage: scripts/bench-writeback.sh [--size-mb M] [--rounds R] [--kver K] [--no-build]
#                                   [--smoke]
#
# Write-back versus a synchronous upload, in ONE guest boot (QEMU/TCG,
# multi-threaded) against the tests' S3 gateway (scripts/rgw.sh): a
# checkpoint of M MiB (default 256) is (1) uploaded with `curl -T` (the
# application would wait for this), (2) written through the cache with
# `hcctl put --sync`: the time until put returns (STAGE + write + COMMIT:
# the application may go on) and the time until hypercached's upload is
# acknowledged (egress).  R rounds (default 3); each figure and the median
# ratios.  The seed's claim to compare with: "GPUs unblocked in 350 ms for
# 250 MB".  --smoke is the smoke run of `make check` (tests/vm/scenarios/
# 97-bench.sh): 4 MiB, 1 round, in build/bench-writeback-smoke/.  Exit status
# 0 only if the boot passed and every figure line (the three of each round
# and the medians) was printed.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
size_mb=256 rounds=3 build=1 kver="" smoke=""
while [ $# -gt 0 ]; do
	case "$1" in
	--size-mb) size_mb=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--kver) kver=$2; shift 2 ;;
	--no-build) build=0; shift ;;
	--smoke) size_mb=4 rounds=1 smoke=-smoke; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
	*) echo "bench-writeback.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
for v in size_mb rounds; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] ||
		{ echo "bench-writeback.sh: --${v/_/-} needs a positive integer" >&2; exit 2; }
done
[ $build = 1 ] && make modules-all tools helper test-progs >&2
. "$ROOT/tests/vm/kernel.sh"
[ -n "$kver" ] && KVER=$kver
hc_kernel_select

started=$(scripts/rgw.sh up)
bucket=hcbenchwb
scripts/rgw.sh mb "$bucket" >/dev/null 2>&1 || true
# HC_BENCH_DIR: another directory for the images and logs (two runs at once)
out=${HC_BENCH_DIR:-$ROOT/build/bench-writeback$smoke}
mkdir -p "$out"
imgs=()
for i in 0 1 2; do
	rm -f "$out/nvme$i.img"
	truncate -s 1G "$out/nvme$i.img"
	imgs+=("$out/nvme$i.img")
done
log=$out/bench-writeback-$(date +%Y%m%d-%H%M%S).log
rc=0
HC_TCG_THREAD=${HC_TCG_THREAD:-multi} \
"$ROOT/tests/vm/boot.sh" --stage bench-writeback --kver "$HC_KVER" --s3 --verbose \
	--drives "$(IFS=,; echo "${imgs[*]}")" --mem 2048 \
	--args "bucket=$bucket,size_mb=$size_mb,rounds=$rounds" \
	--timeout 1800 --log "$log" >"$out/boot.out" 2>&1 || rc=$?
rm -f "${imgs[@]}"
for ((r = 0; r < rounds; r++)); do
	scripts/rgw.sh rm "s3://$bucket/curl-$r" >/dev/null 2>&1 || true
	scripts/rgw.sh rm "s3://$bucket/hc-$r" >/dev/null 2>&1 || true
done
[ -z "$started" ] || scripts/rgw.sh stop >/dev/null 2>&1 || true

echo "== write-back versus a synchronous upload =="
echo "date:    $(date -u +%Y-%m-%dT%H:%MZ)"
echo "kernel:  $HC_KVER (guest, QEMU/TCG ${HC_TCG_THREAD:-multi}-threaded, 2 vCPUs)"
echo "gateway: Ceph radosgw (memstore) on the host, via QEMU user networking"
echo "object:  $size_mb MiB, $rounds rounds; log: $log"
echo
grep -a 'hc: bench-writeback' "$log" | tr -d '\r' |
	sed 's/^.*hc: bench-writeback/hc: bench-writeback/' | tee "$out/figures" || true
awk '
	/ curl-sync-put / { c[n1++] = $4 }
	/ hc-put-returns / { p[n2++] = $4 }
	/ hc-egress / { e[n3++] = $4 }
	function med(a, n,   i, j, t) {
		for (i = 0; i < n; i++) for (j = i + 1; j < n; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
		return a[int(n / 2)]
	}
	END {
		if (!n1 || !n2 || !n3) exit 1
		mc = med(c, n1); mp = med(p, n2); me = med(e, n3)
		printf "median: curl sync upload %.3f s; hcctl put returns %.3f s (%.1fx sooner); egress %.3f s (%.2fx the sync upload time)\n",
			mc, mp, mc / mp, me, me / mc
	}' "$out/figures" || { echo "bench-writeback.sh: no figures (boot rc=$rc)"; tail -n 40 "$out/boot.out"; exit 1; }
missing=0
for name in curl-sync-put hc-put-returns hc-egress; do
	n=$(grep -Ec "^hc: bench-writeback $name [0-9.]+ s [0-9.]+ MB/s$" "$out/figures" || true)
	[ "$n" = "$rounds" ] ||
		{ echo "bench-writeback.sh: $n of $rounds figures for $name" >&2; missing=1; }
done
[ $rc = 0 ] || { echo "bench-writeback.sh: the boot failed (rc=$rc)" >&2; tail -n 40 "$out/boot.out"; exit 1; }
exit $missing
