#!/bin/bash
# The capacity benchmark cannot rot: scripts/bench-capacity.sh --smoke
# (hcsim capacity on 1 GiB pools, 16 GiB for the model directory) must
# print every row, and format v2 must hold at least as much as v1 on every
# workload and over 30 times as much of the 100 KiB dataset (v1: 2.4 %).
# The full run's table is in Documentation/on-disk-format.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
out=$(scripts/bench-capacity.sh --smoke)
echo "$out"
awk 'NR > 1 { if ($4 < 1.0) { print "bench-capacity: " $1 ": v2 holds less than v1" > "/dev/stderr"; bad = 1 }
	      if ($1 == "dataset" && $4 < 30) { print "bench-capacity: dataset: v2/v1 " $4 " < 30" > "/dev/stderr"; bad = 1 }
	      n++ }
     END { if (n != 4) { print "bench-capacity: " n " rows, want 4" > "/dev/stderr"; bad = 1 } exit bad }' <<<"$out"
