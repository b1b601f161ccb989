#!/bin/bash
# hcfetch's option values: --workers a decimal number in 1..64, --part
# decimal bytes with an optional K, M or G; anything else is refused with
# the value named, exit 2, before the configuration is read.  Before,
# "-w 1x" was 1 worker, "-p -1" wrapped to 2^64 - 1 and "-p 99999999999G"
# overflowed to a small size.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
make -s -C helper hcfetch >&2
fail=0
for a in "-w 1x" "-w -1" "-w 0" "-w 65" "-w 1K" "-w ''" "-p -1" "-p 1x" \
	 "-p 99999999999999999999" "-p 99999999999G" "-p K" "-p ''"; do
	got=0
	eval helper/hcfetch "$a" -c /nonexistent.conf s3://b/k 2>"${TMPDIR:-/tmp}/hcfetch-usage.$$" || got=$?
	err=$(cat "${TMPDIR:-/tmp}/hcfetch-usage.$$")
	if [ "$got" != 2 ] || ! grep -q "is not a" <<<"$err"; then
		echo "FAIL: hcfetch $a: status $got, stderr: $err" >&2
		fail=1
	else
		echo "ok: hcfetch $a: $err"
	fi
done
# valid values get as far as the configuration
for a in "-w 4" "-w 64" "-p 8M" "-p 1048576"; do
	got=0
	helper/hcfetch $a -c /nonexistent.conf s3://b/k 2>"${TMPDIR:-/tmp}/hcfetch-usage.$$" || got=$?
	err=$(cat "${TMPDIR:-/tmp}/hcfetch-usage.$$")
	if ! grep -q "/nonexistent.conf" <<<"$err"; then
		echo "FAIL: hcfetch $a: refused: $err" >&2
		fail=1
	else
		echo "ok: hcfetch $a: reaches the configuration"
	fi
done
rm -f "${TMPDIR:-/tmp}/hcfetch-usage.$$"
exit $fail
