#!/bin/bash
# Usage: scripts/bench-capacity.sh [--smoke]
#
# The capacity benchmark of format v2 (issue 17): cached bytes / pool
# capacity of format v1 (every object in whole 4 MiB chunks) against format
# v2 (objects below the small-object threshold in slab chunks at 4 KiB
# granularity), from `hcsim capacity` on the module's own allocators
# (kmod/core/alloc.c, kmod/core/slab.c).  The peer of every v2 figure is
# the v1 figure of the same workload and pool in the same run.
#   model    directories of a 70B-class model (4 x 4.63 GiB + 1.1 GiB
#            safetensors shards, 16 small JSON/text files), 64 GiB pool
#   dataset  100 KiB items, 4 GiB pool
#   demo     the demo's 1 MiB shards, 4 GiB pool
#   mixed    model directories, 100 KiB items and 1 MiB shards, 4 GiB pool
# Each run fills the pool, then three times deletes a random 30 % and
# refills (compacting the slab first).  Columns: workload, v1 ratio, v2
# ratio at the threshold HC_SMALL_THRESHOLD (default 2 MiB), v2 / v1.
# --smoke (make check, tests/checks/bench-capacity.sh): 1 GiB pools (model:
# 16 GiB), one churn round; exit status 0 only if every row was printed.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
smoke=""
while [ $# -gt 0 ]; do
	case "$1" in
	--smoke) smoke=1; shift ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
	*) echo "bench-capacity.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
threshold=${HC_SMALL_THRESHOLD:-2097152}
make -s -C tools/hcsim >/dev/null
hcsim=tools/hcsim/hcsim
churn=3 small=4 big=64
[ -n "$smoke" ] && churn=1 small=1 big=16

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }

printf '%-8s %10s %10s %8s\n' workload v1 v2 v2/v1
rows=0
for w in model dataset demo mixed; do
	gib=$small
	[ $w = model ] && gib=$big
	v1=$($hcsim capacity --workload $w --pool-gib $gib --threshold v1 --churn $churn | field ratio)
	v2=$($hcsim capacity --workload $w --pool-gib $gib --threshold "$threshold" --churn $churn --compact | field ratio)
	[ -n "$v1" ] && [ -n "$v2" ] || { echo "bench-capacity.sh: $w: hcsim printed no ratio" >&2; exit 1; }
	awk -v w=$w -v a="$v1" -v b="$v2" 'BEGIN { printf "%-8s %10s %10s %8.2f\n", w, a, b, b / a }'
	rows=$((rows + 1))
done
[ $rows = 4 ]
