#!/bin/bash
# Usage: scripts/bench-s3.sh [--size-mb M] [--rounds R] [--kver K] [--no-build]
#                            [--timeout S] [--smoke]
#
# Cold ingest versus plain S3 clients, in ONE guest boot (QEMU/TCG) against
# the same gateway (scripts/rgw.sh: Ceph radosgw on the host, reached as
# 10.0.2.2:7480 through QEMU's user network).  The host puts one random
# object of M MiB (default 1024); then, in the guest (stage-bench-s3.sh):
#   curl-1      curl --aws-sigv4 of the whole object to /dev/null (1 stream)
#   curl-8      the same curl fetching 8 ranges in parallel
#   hc-WxP      cold ingest through HyperCache (hcctl locate on a miss:
#               HEAD, admission, W parallel ranged GETs of P MiB written
#               O_DIRECT into the extents, fdatasync, READY), for several
#               W x P, the object evicted before each
#   warm        hcctl get of the cached object from /dev/hypercache0
#               (O_DIRECT) to /dev/null
#   hcbench-*   hcctl bench --s3-endpoint's four fetches (direct-cold,
#               direct-warm, cache-cold, cache-warm: Documentation/
#               benchmarks.md), its own timings, ratio still to curl-1
# Each figure is the best of --rounds (default 2) in MB/s, with its ratio to
# curl-1 measured in the same boot.  On the host, for reference: `aws s3 cp`
# of the same object to /dev/null (Debian's awscli v2).
#
# --smoke is the smoke run of `make check` (tests/vm/scenarios/97-bench.sh):
# a 4 MiB object, 1 round, in build/bench-s3-smoke/.
#
# Images: build/bench-s3/nvmeN.img (sparse, deleted afterwards).  Exit
# status 0 only if the boot passed and every figure line (each client, each
# W x P, the warm read, the host's aws-s3-cp) was printed.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

size_mb=1024 build=1 timeout=1800 kver="" rounds=2 smoke=""
while [ $# -gt 0 ]; do
	case "$1" in
	--size-mb) size_mb=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--kver) kver=$2; shift 2 ;;
	--no-build) build=0; shift ;;
	--timeout) timeout=$2; shift 2 ;;
	--smoke) size_mb=4 rounds=1 timeout=600 smoke=-smoke; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
	*) echo "bench-s3.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
for v in size_mb timeout rounds; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] ||
		{ echo "bench-s3.sh: --${v/_/-} needs a positive integer" >&2; exit 2; }
done

[ $build = 1 ] && make modules-all tools helper test-progs >&2

. "$ROOT/tests/vm/kernel.sh"
[ -n "$kver" ] && KVER=$kver
hc_kernel_select

scripts/rgw.sh start >&2
eval "$(scripts/rgw.sh env)"
# HC_BENCH_DIR: another directory for the images and logs (two runs at once)
out=${HC_BENCH_DIR:-$ROOT/build/bench-s3$smoke}
mkdir -p "$out"
bucket=hcbench
# A key of this run's own: two runs on one machine share the gateway.
key=obj-${size_mb}m-$$-$RANDOM
scripts/rgw.sh mb "$bucket" >/dev/null 2>&1 || true
head -c "$((size_mb << 20))" /dev/urandom >"$out/obj"
sha=$(sha256sum "$out/obj" | cut -d' ' -f1)
scripts/rgw.sh put "$out/obj" "s3://$bucket/$key" >&2

# host reference: aws s3 cp to /dev/null (best of $rounds)
aws_best=""
for ((i = 0; i < rounds; i++)); do
	t0=$EPOCHREALTIME
	/usr/bin/aws --endpoint-url "$HC_S3_ENDPOINT" s3 cp "s3://$bucket/$key" - >/dev/null
	t=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')
	if [ -z "$aws_best" ] || awk -v t="$t" -v b="$aws_best" 'BEGIN { exit !(t < b) }'; then
		aws_best=$t
	fi
done
rm -f "$out/obj"

imgs=()
for i in 0 1 2; do
	img=$out/nvme$i.img
	rm -f "$img"
	truncate -s $(((size_mb / 3 + 256) << 20)) "$img"
	imgs+=("$img")
done
log=$out/bench-s3-$(date +%Y%m%d-%H%M%S).log
rc=0
# Multi-threaded TCG: the guest's two vCPUs on two host threads, as the
# guest is CPU-bound under emulation (tests run single-threaded TCG).
HC_TCG_THREAD=${HC_TCG_THREAD:-multi} \
"$ROOT/tests/vm/boot.sh" --stage bench-s3 --kver "$HC_KVER" --s3 --verbose \
	--drives "$(IFS=,; echo "${imgs[*]}")" \
	--args "bucket=$bucket,key=$key,size=$((size_mb << 20)),sha=$sha,rounds=$rounds" \
	--timeout "$timeout" --log "$log" >"$out/boot.out" 2>&1 || rc=$?
rm -f "${imgs[@]}"
scripts/rgw.sh rm "s3://$bucket/$key" >/dev/null 2>&1 || true

echo "== HyperCache cold ingest versus S3 clients =="
echo "date:    $(date -u +%Y-%m-%dT%H:%MZ)"
echo "kernel:  $HC_KVER (guest, QEMU/TCG ${HC_TCG_THREAD:-multi}-threaded, 2 vCPUs, user-mode network)"
echo "gateway: Ceph radosgw (memstore) on the host, $HC_S3_ENDPOINT"
echo "object:  $size_mb MiB of random bytes, best of $rounds rounds"
echo "log:     $log"
echo
grep -a 'hc: bench-s3' "$log" | tr -d '\r' | sed 's/^.*hc: bench-s3/hc: bench-s3/' |
	tee "$out/figures" || true
awk -v m="$size_mb" -v t="$aws_best" 'BEGIN {
	printf "host: aws-s3-cp %.1f MB/s (%.2f s; outside the guest, not comparable to TCG figures)\n",
		m * 1.048576 / t, t }' | tee -a "$out/figures"
if [ $rc -ne 0 ]; then
	echo
	echo "bench-s3.sh: the boot failed:"
	grep -a -E '^(boot.sh|HCTEST not ok|HCVM-)' "$out/boot.out" | head -n 20
	sed -n '/^----- last/,$p' "$out/boot.out" | tail -n 40
	exit 1
fi
missing=0
for name in curl-1 curl-8 hc-1x8 hc-4x8 hc-8x8 hc-8x16 hc-16x4 warm \
	hcbench-direct-cold hcbench-direct-warm hcbench-cache-cold hcbench-cache-warm; do
	grep -Eq "^hc: bench-s3 $name [0-9.]+ MB/s [0-9.]+ s x[0-9.]+$" "$out/figures" ||
		{ echo "bench-s3.sh: no figure for $name" >&2; missing=1; }
done
grep -Eq '^host: aws-s3-cp [0-9.]+ MB/s' "$out/figures" ||
	{ echo "bench-s3.sh: no figure for aws-s3-cp" >&2; missing=1; }
exit $missing
