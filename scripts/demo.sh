#!/bin/bash
# Usage: scripts/demo.sh [--drives N] [--size-mb M] [--kver K]
#
# The main job, for now: boot Debian's kernel in a QEMU guest with N
# emulated NVMe drives (default 3 × 256 MiB), create a HyperCache pool on
# them, store a 40 MiB "model" and a 9 MiB "checkpoint" as objects (hcctl
# put), read the model back (hcctl get), compare, and show its layout over
# the drives, the objects, the cache counters and `hcctl status`.  Expects `make all test-progs` to have run (the
# top-level `make demo` does that and installs the packages first).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
drives=3 size=256 kver_opt=()
while [ $# -gt 0 ]; do
	case "$1" in
	--drives) drives=$2; shift 2 ;;
	--size-mb) size=$2; shift 2 ;;
	--kver) kver_opt=(--kver "$2"); shift 2 ;;
	*) sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2 ;;
	esac
done

work=$ROOT/build/demo
mkdir -p "$work"
imgs=()
for ((i = 0; i < drives; i++)); do
	rm -f "$work/nvme$i.img"
	truncate -s "${size}M" "$work/nvme$i.img"
	imgs+=("$work/nvme$i.img")
done
log=$work/demo.log
echo "demo: booting the guest with $drives emulated NVMe drives of $size MiB (log: $log)"
rc=0
"$ROOT/tests/vm/boot.sh" --stage demo --drives "$(IFS=,; echo "${imgs[*]}")" \
	--args "drives=$drives" --log "$log" --timeout 600 "${kver_opt[@]}" >/dev/null || rc=$?
# the guest's side of the demo, without kernel chatter
tr -d '\r' <"$log" | grep -a -v -e '^\[' -e '^HCVM' | sed -n '/^demo\$/,$p' |
	grep -a -v -e '^HCTEST' -e '^hc:'
if [ $rc -eq 0 ]; then
	echo "demo: passed"
else
	echo "demo: FAILED (see $log)"
fi
exit $rc
