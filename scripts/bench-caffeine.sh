#!/bin/bash
# Usage: scripts/bench-caffeine.sh [--steps N] [--seed S] [--smoke]
#
# Our admission policy (kmod/core/policy.c, through tools/hcsim) beside
# Caffeine, the Java cache library whose W-TinyLFU it follows, on the same
# traces and capacities (Documentation/policy.md, "Caffeine"):
#   1. object level: hcsim's ai, inference and training workloads at 1/4,
#      1/2 and 3/4 of the distinct bytes read (capacity from hcsim's run);
#   2. the unit-size traces of scripts/bench-policy.sh (Zipf 0.9 with a
#      scan, its 1-16 chunk variant, a sliding working set).
# Caffeine is Debian's libcaffeine-java (2.6.2: W-TinyLFU with a fixed 1 %
# window; the hill climber came in 2.7, which Debian does not package),
# size-aware through a weigher in chunks, driven by
# tools/hcsim/caffeine/CaffeineSim.java (a miss puts the object, a write
# puts it without counting).  Its admission has a random jitter: each cell
# is the mean of 3 replays, with the byte hit ratio's range.  Both are
# measured in this run on the same trace files (build/bench-caffeine/).
# --smoke (make check, tests/checks/bench-caffeine.sh): 2000 steps, the ai
# workload at 1/2 and the small Zipf trace only (each JVM start costs
# seconds on a loaded host); exit status 0 only if every row printed.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
steps=20000 seed=1 smoke=""
while [ $# -gt 0 ]; do
	case "$1" in
	--steps) steps=$2; shift 2 ;;
	--seed) seed=$2; shift 2 ;;
	--smoke) steps=2000 smoke=-smoke; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
	*) echo "bench-caffeine.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
for v in steps seed; do
	[[ ${!v} =~ ^[1-9][0-9]*$ ]] ||
		{ echo "bench-caffeine.sh: --$v needs a positive integer" >&2; exit 2; }
done
. tools/hcsim/caffeine/caffeine.sh
make -s -C tools/hcsim >&2
sim=tools/hcsim/hcsim
dir=build/bench-caffeine$smoke
caffeine_build bench-caffeine.sh "$dir"
caf() { caffeine_sim "$@"; }
rows=0 want=0

# row NAME SIZE HCSIM_OUT CAFFEINE_LINE: one table row
row() {
	awk -v n="$1" -v f="$2" -v c="$4" '
		$1 == "ours" { oh = $4; ob = $5 }
		/^# capacity/ { cap = $3 }
		END { split(c, k, " ")
		      printf "| %s | %s | %s | %s / %s | %s / %s (%s-%s) | %+.2f |\n",
			n, f, cap, ob, oh, k[6], k[5], k[7], k[8], ob - k[6] }' "$3"
	rows=$((rows + 1))
}

echo "## ours and Caffeine $(basename "$(readlink -f "$caffeine_jar")" .jar) (hcsim, seed $seed, $steps steps)"
echo
echo "| trace | size | capacity (chunks) | ours, byte / request hit % | Caffeine, byte / request hit % (byte range of 3) | ours - Caffeine (bytes) |"
echo "|---|---|---|---|---|---|"
if [ -n "$smoke" ]; then fracs="0.5"; else fracs="0.25 0.5 0.75"; fi
if [ -n "$smoke" ]; then works="ai"; else works="ai inference training"; fi
for w in $works; do
	$sim --gen $w --seed "$seed" --set steps="$steps" > "$dir/$w.kv"
	caps=""
	for f in $fracs; do
		want=$((want + 1))
		$sim --fraction $f --policies ours "$dir/$w.kv" > "$dir/$w-$f.txt"
		caps+=${caps:+,}$(awk '/^# capacity/ { print $3 }' "$dir/$w-$f.txt")
	done
	caf kv "$caps" 4194304 "$dir/$w.kv" > "$dir/$w-caffeine.txt"
	i=0
	for f in $fracs; do
		i=$((i + 1))
		row "$w" "$f" "$dir/$w-$f.txt" "$(sed -n "${i}p" "$dir/$w-caffeine.txt")"
	done
done

if [ -n "$smoke" ]; then
	zn=10000 zr=100000 zs=2000 caps="100 500 2000" z16n=2000 z16r=20000 z16s=400 caps16="1G 4G 16G"
	sr=30000
else
	zn=100000 zr=1000000 zs=20000 caps="1000 5000 20000" z16n=20000 z16r=200000 z16s=4000 caps16="8G 40G 160G"
	sr=300000
fi
$sim --gen zipf --objects $zn --requests $zr --alpha 0.9 --scan $zs > "$dir/zipf.kv"
$sim --gen zipf --objects $z16n --requests $z16r --alpha 0.9 --scan $z16s --max-chunks 16 > "$dir/zipf16.kv"
python3 -c "import random; random.seed(5); [print(i//4 + random.randrange(2000), 1, 0, i) for i in range($sr)]" > "$dir/shift.arc"
unit() {	# name format unit capacities file
	local c units=""
	for c in $4; do
		want=$((want + 1))
		$sim --format "$2" --policies ours --capacity "$c" "$5" > "$dir/$1-$c.txt"
		units+=${units:+,}$(awk '/^# capacity/ { print $3 }' "$dir/$1-$c.txt")
	done
	caf "$2" "$units" "$3" "$5" > "$dir/$1-caffeine.txt"
	local i=0
	for c in $4; do
		i=$((i + 1))
		row "$1" "$c" "$dir/$1-$c.txt" "$(sed -n "${i}p" "$dir/$1-caffeine.txt")"
	done
}
unit zipf kv 4194304 "$caps" "$dir/zipf.kv"
if [ -z "$smoke" ]; then
	unit zipf16 kv 4194304 "$caps16" "$dir/zipf16.kv"
	unit shift arc 512 "1500" "$dir/shift.arc"
fi
echo
echo "Size: share of the distinct bytes read, or hcsim's --capacity for the unit-size traces."

if [ $rows != $want ] || grep -q '|  /\| / |' <(cat "$dir"/*.txt /dev/null); then
	echo "bench-caffeine.sh: $rows of $want rows" >&2
	exit 1
fi
