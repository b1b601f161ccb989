#!/bin/bash
# Usage: scripts/bench-fetch.sh [--size-mb M] [--rounds R] [--no-build] [--smoke]
#
# The ingest path on the host, without the kernel: against the tests' S3
# gateway (scripts/rgw.sh, Ceph radosgw on loopback), one random object of
# M MiB (default 1024) is fetched into a file on the same disk, durably,
# by
#   curl-1      curl --aws-sigv4, one stream, then fsync (sync FILE)
#   curl-8      8 curl processes fetching 8 ranges into 8 files, then fsync
#   aws-cp      Debian's awscli v2 `aws s3 cp` (its own parallel ranges)
#   hcfetch-WxP helper/hcfetch: what hypercached does on a miss (HEAD, W
#               parallel ranged GETs of P MiB with If-Match, O_DIRECT writes,
#               fdatasync), for a grid of W x P
# Best of R rounds (default 3) in MB/s, with the ratio to curl-1.  This is
# how hypercached's defaults (ingest_concurrency, part_size) were chosen.
# Files: build/bench-fetch/ (deleted afterwards).  --smoke is the smoke run
# of `make check` (tests/checks/bench-fetch.sh): 8 MiB, 1 round, in
# build/bench-fetch-smoke/.  Exit status 0 only if every fetch worked, every
# figure line was printed and hcfetch's copy is SHA-256-equal.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
size_mb=1024 rounds=3 build=1 smoke=""
while [ $# -gt 0 ]; do
	case "$1" in
	--size-mb) size_mb=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	--no-build) build=0; shift ;;
	--smoke) size_mb=8 rounds=1 smoke=-smoke; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
	*) echo "bench-fetch.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
for v in size_mb rounds; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] ||
		{ echo "bench-fetch.sh: --${v/_/-} needs a positive integer" >&2; exit 2; }
done
[ $build = 1 ] && make -C helper >&2

started=$(scripts/rgw.sh up)
eval "$(scripts/rgw.sh env)"
out=$ROOT/build/bench-fetch$smoke
mkdir -p "$out"
bucket=hcbenchfetch key=obj-${size_mb}m
size=$((size_mb << 20))
cleanup() {
	scripts/rgw.sh rm "s3://$bucket/$key" >/dev/null 2>&1 || true
	rm -rf "$out"
	[ -z "$started" ] || scripts/rgw.sh stop >/dev/null 2>&1 || true
}
trap cleanup EXIT
scripts/rgw.sh mb "$bucket" >/dev/null 2>&1 || true
head -c "$size" /dev/urandom >"$out/src"
scripts/rgw.sh put "$out/src" "s3://$bucket/$key" >&2
sum=$(sha256sum <"$out/src" | cut -d' ' -f1)
rm -f "$out/src"
cat >"$out/hc.conf" <<EOC
[hypercached]
default_backend = rgw
[backend rgw]
type = s3
endpoint = $HC_S3_ENDPOINT
access_key = $AWS_ACCESS_KEY_ID
secret_key = $AWS_SECRET_ACCESS_KEY
EOC
URL=$HC_S3_ENDPOINT/$bucket/$key

s3curl() {
	curl -sS --fail --aws-sigv4 aws:amz:us-east-1:s3 \
		--user "$AWS_ACCESS_KEY_ID:$AWS_SECRET_ACCESS_KEY" \
		-H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$@"
}
curl1() { s3curl -o "$out/f" "$URL" && sync "$out/f"; }
curl8() {
	local part=$(((size + 7) / 8)) i a z
	for ((i = 0; i < 8; i++)); do
		a=$((i * part)) z=$(((i + 1) * part - 1))
		((z < size)) || z=$((size - 1))
		s3curl -o "$out/f$i" -H "Range: bytes=$a-$z" "$URL" &
	done
	wait
	sync "$out"/f?
}
awscp() { /usr/bin/aws --endpoint-url "$HC_S3_ENDPOINT" s3 cp --quiet "s3://$bucket/$key" "$out/f" && sync "$out/f"; }
hcf() { helper/hcfetch -c "$out/hc.conf" -w "$1" -p "$2M" -o "$out/f" "s3://$bucket/$key" >/dev/null; }

base=""
best() {
	local name=$1 b="" t t0 r
	shift
	for ((r = 0; r < rounds; r++)); do
		rm -f "$out"/f "$out"/f?
		t0=$EPOCHREALTIME
		"$@"
		t=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { print b - a }')
		if [ -z "$b" ] || awk -v t="$t" -v b="$b" 'BEGIN { exit !(t < b) }'; then b=$t; fi
	done
	[ -n "$base" ] || base=$b
	awk -v n="$name" -v s="$size" -v t="$b" -v base="$base" 'BEGIN {
		printf "%-14s %8.1f MB/s %7.2f s  x%.2f\n", n, s / t / 1e6, t, base / t }' |
		tee -a "$out/figures"
}

echo "== the ingest path on the host, without the kernel =="
echo "date:    $(date -u +%Y-%m-%dT%H:%MZ)"
echo "host:    $(nproc) CPUs, $(uname -r)"
echo "gateway: Ceph radosgw (memstore) at $HC_S3_ENDPOINT"
echo "object:  $size_mb MiB of random bytes; into a file on $(df --output=source "$ROOT" | tail -1), durably; best of $rounds"
echo
grid="1x8 2x8 4x8 8x8 16x8 8x4 8x16 8x32 4x64"
: >"$out/figures"
best curl-1 curl1
best curl-8 curl8
best aws-cp awscp
for wp in $grid; do
	best "hcfetch-$wp" hcf "${wp%x*}" "${wp#*x}"
done
got=$(sha256sum <"$out/f" | cut -d' ' -f1)
[ "$got" = "$sum" ] || { echo "bench-fetch.sh: hcfetch's copy differs" >&2; exit 1; }
echo "(hcfetch's last copy is SHA-256-equal to the source)"
missing=0
for name in curl-1 curl-8 aws-cp $(printf 'hcfetch-%s ' $grid); do
	grep -Eq "^$name +[0-9.]+ MB/s +[0-9.]+ s +x[0-9.]+$" "$out/figures" ||
		{ echo "bench-fetch.sh: no figure for $name" >&2; missing=1; }
done
exit $missing
