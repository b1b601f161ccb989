#!/bin/bash
# Usage: scripts/vm-durations.sh [> tests/vm/durations]
#
# Prints tests/vm/durations from the last `tests/run-all.sh` run: for each
# scenario, the longest of its kernels' wall times (build/vm/run-SERIES/
# SCENARIO/exit, written by run-all.sh's queue), longest first.  The queue
# starts the longest scenarios first so that both cores end together.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
echo "# Guest seconds per scenario (the longest of its kernels), the order of"
echo "# tests/run-all.sh's queue (longest first); unknown scenarios count 60."
echo "# Regenerate after a run of the whole suite: scripts/vm-durations.sh."
for e in "$root"/build/vm/run-*/*/exit; do
	[ -s "$e" ] || continue
	read -r _ secs <"$e"
	echo "$(basename "$(dirname "$e")") $secs"
done | sort -k1,1 -k2,2nr | awk '$1 != last { print; last = $1 }' | sort -k2,2nr
