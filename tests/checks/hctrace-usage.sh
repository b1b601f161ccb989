#!/bin/bash
# hctrace's option values are refused before it loads anything (exit 2,
# the value named): --top 0..64, --count >= 1, --interval 0.1..3600.
# Before, --top took strtoul()'s value cast to 32 bits: "4294967297" was
# 1 and "" was 0.  --help exits 0.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
make -s -C tools/hctrace >&2
fail=0
for a in "--top 4294967297" "--top -1" "--top ''" "--top 65" "--top 1x" \
	 "--count 0" "--count -1" "--count 1x" "--interval 0" "--interval 1x" \
	 "--interval nan"; do
	got=0
	err=$(eval tools/hctrace/hctrace "$a" 2>&1 >/dev/null) || got=$?
	if [ "$got" != 2 ] || ! grep -q "^hctrace: --" <<<"$err"; then
		echo "FAIL: hctrace $a: status $got: $err" >&2
		fail=1
	else
		echo "ok: hctrace $a: $err"
	fi
done
if tools/hctrace/hctrace --help | grep -q '^Usage: hctrace'; then
	echo "ok: hctrace --help"
else
	echo "FAIL: hctrace --help" >&2
	fail=1
fi
exit $fail
