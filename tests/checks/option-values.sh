#!/bin/bash
# Option values of hcfetch and hctrace are read whole, or refused before
# anything else (exit 2, the value named):
#   hcfetch --workers 1..64, --part bytes with an optional K, M or G
#     (before: "-w 1x" was 1 worker, "-p -1" wrapped to 2^64 - 1,
#     "-p 99999999999G" overflowed to a small size);
#   hctrace --top 0..64, --count >= 1, --interval 0.1..3600 seconds
#     (before: --top 4294967297 was 1 and --top '' was 0).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
make -s -C helper hcfetch >&2
make -s -C tools/hctrace >&2
err=$(mktemp)
trap 'rm -f "$err"' EXIT
fail=0

# check STATUS WANT CMD...: CMD exits with STATUS, WANT (grep -E) on stderr
check() {
	local status=$1 want=$2 got=0
	shift 2
	"$@" >/dev/null 2>"$err" || got=$?
	if [ "$got" != "$status" ] || ! grep -qE -- "$want" "$err"; then
		echo "FAIL: $*: status $got (want $status), stderr: $(head -2 "$err")" >&2
		fail=1
	else
		echo "ok: $*: $(head -1 "$err")"
	fi
}

fetch=(helper/hcfetch -c /nonexistent.conf)
for w in 1x -1 0 65 1K ''; do
	check 2 "^hcfetch: --workers: '$w' is not a number in 1\.\.64" "${fetch[@]}" -w "$w" s3://b/k
done
for p in -1 1x 99999999999999999999 99999999999G K ''; do
	check 2 "^hcfetch: --part: '$p' is not a size" "${fetch[@]}" -p "$p" s3://b/k
done
# valid values get as far as the configuration (exit 2 there: no such file)
for a in "-w 4" "-w 64" "-p 8M" "-p 1048576"; do
	# shellcheck disable=SC2086
	check 2 "/nonexistent.conf" "${fetch[@]}" $a s3://b/k
done

for t in 4294967297 -1 '' 65 1x; do
	check 2 "^hctrace: --top: 0\.\.64, got '$t'" tools/hctrace/hctrace --top "$t"
done
for c in 0 -1 1x; do
	check 2 "^hctrace: --count: a positive number, got '$c'" tools/hctrace/hctrace --count "$c"
done
for i in 0 1x nan; do
	check 2 "^hctrace: --interval: 0\.1\.\.3600 seconds, got '$i'" tools/hctrace/hctrace --interval "$i"
done
if tools/hctrace/hctrace --help | grep -q '^Usage: hctrace'; then
	echo "ok: hctrace --help"
else
	echo "FAIL: hctrace --help" >&2
	fail=1
fi
exit $fail
