#!/bin/bash
# hcsim --inflight N: ours holds each object it admits (and keeps each one
# staged DIRTY) for the next N requests, as the module does during an
# ingest or an upload (Documentation/policy.md, "Objects in flight").  On
# a cache of 2 one-chunk objects, reads a b c c c c (or writes a b, then
# reads c c c c): while a and b are in flight c finds no evictable room
# (-ENOSPC, a miss that is not cached), so c's hits are 3 with no holds,
# 2 with N = 2, 1 with N = 3, 0 with N >= 4; LRU, which has no
# unevictable objects, ignores the option (3).  Bad values are refused.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
make -s -C tools/hcsim >&2
r=$(mktemp) w=$(mktemp)
trap 'rm -f "$r" "$w"' EXIT
M=4194304
printf "%s $M\n" a b c c c c > "$r"
printf "%s $M w\n" a b > "$w"
printf "%s $M\n" c c c c >> "$w"
hits() { # TRACE N POLICY: the policy's hits
	tools/hcsim/hcsim --inflight "$2" --policies "$3" --capacity 2 "$1" |
		awk -v p="$3" '$1 == p { print $3 }'
}
fail=0
for t in "$r" "$w"; do
	for want in 0:3 1:3 2:2 3:1 4:0 8:0; do
		n=${want%%:*} h=${want#*:}
		got=$(hits "$t" "$n" ours)
		echo "$([ "$t" = "$r" ] && echo reads || echo writes) --inflight $n: ours $got hits (want $h)"
		[ "$got" = "$h" ] || fail=1
	done
done
got=$(hits "$r" 4 LRU)
echo "--inflight 4: LRU $got hits (want 3)"
[ "$got" = 3 ] || fail=1
for bad in x -1 1000001 ""; do
	if tools/hcsim/hcsim --inflight "$bad" --capacity 2 "$r" >/dev/null 2>&1; then
		echo "--inflight '$bad' accepted" >&2
		fail=1
	fi
done
exit $fail
