#!/bin/bash
# Usage: scripts/bench-traces.sh [--fractions LIST] [--no-caffeine] TRACE...
#        scripts/bench-traces.sh --smoke
#
# Our admission policy (kmod/core/policy.c, through tools/hcsim) beside
# LRU, ARC and Caffeine on public unit-size block traces, at cache sizes
# that are shares of each trace's distinct blocks (Documentation/policy.md,
# "Public block traces").  Issue 15's unit-size target: never more than 1
# point below the better of LRU and ARC, not below Caffeine on average.
#
# TRACE: hcsim's arc format, one request per line, "START COUNT ..." (the
# blocks START .. START + COUNT - 1, 512 bytes each), plain or compressed
# with zstd (NAME.zst).  The ARC paper's traces (OLTP, P1-P14, S1-S3, DS1:
# Megiddo and Modha, FAST '03) are in that format; libCacheSim's
# cloudPhysicsIO.csv converts with the awk line in policy.md.  None is in
# the tree: the recipes to fetch them are in policy.md.
#
# --fractions LIST  comma-separated shares of the distinct blocks
#                   (default 0.01,0.05,0.1,0.25,0.5)
# --no-caffeine     leave Caffeine out (it needs libcaffeine-java and javac)
# --smoke           (make check, tests/checks/bench-traces.sh) a generated
#                   trace of 60 000 requests in phases, two sizes, Caffeine
#                   included; exit status 0 only if every row printed
#
# Caffeine is Debian's libcaffeine-java 2.6.2 (W-TinyLFU, fixed 1 % window)
# through tools/hcsim/caffeine/CaffeineSim.java, the mean of 3 replays (its
# admission has a random jitter; the range is printed).  Every figure of a
# row comes from this run on the same trace file.  Work files:
# build/bench-traces/.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
fractions=0.01,0.05,0.1,0.25,0.5 caffeine=1 smoke=""
traces=()
while [ $# -gt 0 ]; do
	case "$1" in
	--fractions) fractions=$2; shift 2 ;;
	--no-caffeine) caffeine=""; shift ;;
	--smoke) smoke=-smoke; fractions=0.05,0.25; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
	-*) echo "bench-traces.sh: unknown option $1" >&2; exit 2 ;;
	*) traces+=("$(readlink -f "$1")"); shift ;;
	esac
done
[[ $fractions =~ ^(0?\.[0-9]+|1)(,(0?\.[0-9]+|1))*$ ]] ||
	{ echo "bench-traces.sh: --fractions needs shares in (0, 1], comma-separated: $fractions" >&2; exit 2; }
if [ -z "$smoke" ] && [ ${#traces[@]} = 0 ]; then
	echo "usage: scripts/bench-traces.sh [--fractions LIST] [--no-caffeine] TRACE... | --smoke" >&2
	exit 2
fi
for t in "${traces[@]}"; do
	[ -r "$t" ] || { echo "bench-traces.sh: cannot read trace $t" >&2; exit 2; }
done
cd "$ROOT"
. tools/hcsim/caffeine/caffeine.sh
make -s -C tools/hcsim >&2
sim=tools/hcsim/hcsim
dir=build/bench-traces$smoke
mkdir -p "$dir"
if [ -n "$caffeine" ]; then
	caffeine_build bench-traces.sh "$dir" ", or --no-caffeine"
fi

if [ -n "$smoke" ]; then
	# three phases of working sets around the cache's sizes, a scan between
	python3 -c '
import random
random.seed(7)
n = 0
for base, span, reqs in ((0, 3000, 20000), (50000, 100000, 3000), (10000, 6000, 20000), (0, 3000, 17000)):
    for _ in range(reqs):
        print(base + int(span * random.random() ** 3), 1, 0, n)
        n += 1
' > "$dir/phases.arc"
	traces=("$ROOT/$dir/phases.arc")
fi

read -r -a sizes <<<"${fractions//,/ }"
echo "## Public block traces: ours, LRU, ARC and Caffeine (hcsim, 512-byte blocks)"
echo
echo "| trace | size | capacity (blocks) | ours | LRU | ARC | Caffeine (range of 3) | ours - max(LRU, ARC) | ours - Caffeine |"
echo "|---|---|---|---|---|---|---|---|---|"
summary=""
for t in "${traces[@]}"; do
	name=$(basename "$t")
	name=${name%.zst}
	name=${name%.*}
	file=$t
	if [[ $t == *.zst ]]; then
		file=$dir/$name.arc
		[ "$file" -nt "$t" ] || zstd -dqf "$t" -o "$file"
	fi
	caps=""
	for f in "${sizes[@]}"; do
		$sim --format arc --policies ours,LRU,ARC --fraction "$f" "$file" > "$dir/$name-$f.txt"
		caps+=${caps:+,}$(awk '/^# capacity/ { print $3 }' "$dir/$name-$f.txt")
	done
	if [ -n "$caffeine" ]; then
		caffeine_sim arc "$caps" 512 "$file" > "$dir/$name-caffeine.txt"
	else
		: > "$dir/$name-caffeine.txt"
	fi
	got=$(wc -l < "$dir/$name-caffeine.txt")
	if [ -n "$caffeine" ] && [ "$got" != ${#sizes[@]} ]; then
		echo "bench-traces.sh: Caffeine printed $got of ${#sizes[@]} rows for $name" >&2
		exit 1
	fi
	i=0 trows=""
	for f in "${sizes[@]}"; do
		i=$((i + 1))
		r=$(awk -v n="$name" -v f="$f" -v c="$(sed -n "${i}p" "$dir/$name-caffeine.txt")" '
			/^# capacity/ { cap = $3 }
			$1 == "ours" { o = $4 } $1 == "LRU" { l = $4 } $1 == "ARC" { a = $4 }
			END {
				if (o == "" || l == "" || a == "") exit 1
				split(c, k, " ")
				best = l > a ? l : a
				caf = c == "" ? "-" : sprintf("%s (%s-%s)", k[6], k[7], k[8])
				dc = c == "" ? "-" : sprintf("%+.2f", o - k[6])
				printf "| %s | %s | %s | %s | %s | %s | %s | %s%+.2f%s | %s |\n",
					n, f, cap, o, l, a, caf,
					o - best < -1 ? "**" : "", o - best,
					o - best < -1 ? "**" : "", dc
			}' "$dir/$name-$f.txt") || { echo "bench-traces.sh: no result for $name at $f" >&2; exit 1; }
		echo "$r"
		trows+=$r$'\n'
	done
	# the means over the sizes: columns 5 (ours) and 8 (Caffeine, "-" without)
	summary+=$(printf '%s' "$trows" | awk -F'|' -v n="$name" '
		{ o += $5; c += $8; if ($8 ~ /^ *- *$/) noc = 1; k++ }
		END { printf "| %s | %.2f | %s |", n, o / k, noc ? "-" : sprintf("%.2f", c / k) }')
	summary+=$'\n'
done
echo
echo "Size: share of the trace's distinct blocks.  Hit % (= byte hit %); bold: more than 1 point below the better of LRU and ARC."
echo
echo "| trace | ours, mean over the sizes | Caffeine, mean over the sizes |"
echo "|---|---|---|"
printf '%s' "$summary"

