#!/bin/bash
# The two oracles of hcsim on a trace small enough to count by hand
# (Documentation/policy.md, "The cold misses: oracle-cold").  One-chunk
# objects, a cache of 2 chunks; reads: a x4, b x3, c x1 (then b, a
# interleaved), d x2 (1 cold + 1):
#   oracle      keeps a (4 reads) and b (3): hits 7 of 10 requests;
#   oracle-cold keeps by reads after the first: a (3), b (2), not d (1):
#               a and b miss once each, so hits 5 of 10.
# A write ("w") is not a request: it changes neither count.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
make -s -C tools/hcsim >&2
t=$(mktemp)
trap 'rm -f "$t"' EXIT
M=4194304
for k in a b a c d a b w:e b a d; do
	case $k in
	w:*) echo "${k#w:} $M w" ;;
	*) echo "$k $M" ;;
	esac
done > "$t"
out=$(tools/hcsim/hcsim --policies oracle,oracle-cold --capacity 2 "$t")
echo "$out"
hits() { awk -v p="$1" '$1 == p { print $2 "/" $3 }' <<<"$out"; }
[ "$(hits oracle)" = "10/7" ] || { echo "oracle: $(hits oracle), want 10/7" >&2; exit 1; }
[ "$(hits oracle-cold)" = "10/5" ] || { echo "oracle-cold: $(hits oracle-cold), want 10/5" >&2; exit 1; }
