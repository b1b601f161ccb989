#!/bin/bash
# Usage: scripts/demo.sh [--drives N] [--size-mb M] [--kver K]
#
# The main job: start the S3 gateway on the host (scripts/rgw.sh: Ceph
# radosgw on loopback), put a 64 MiB "model" and 8 dataset shards there,
# boot Debian's kernel in a QEMU guest with N emulated NVMe drives (default
# 3 x 256 MiB) and, in the guest: create a HyperCache pool, start
# hypercached, show a cold miss, the ingest from S3 and a warm hit of the
# model through the kernel (SHA-256 equal to the host's copy), preload the
# shards, write a checkpoint back to S3 (hcctl put --sync: committed, then
# uploaded by hypercached, verified in S3), and show the layout, the objects,
# the counters and the pool.  The gateway is stopped afterwards unless it
# was already running.  Expects `make modules-all all test-progs` to have run
# (the top-level `make demo` does that and installs the packages first).
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

rgw_started=$("$ROOT/scripts/rgw.sh" up)
trap '[ -z "$rgw_started" ] || "$ROOT/scripts/rgw.sh" stop >/dev/null 2>&1 || true' EXIT
bucket=demo-models
"$ROOT/scripts/rgw.sh" mb "$bucket" >/dev/null 2>&1 || true
head -c $((64 << 20)) /dev/urandom >"$work/model.safetensors"
sha=$(sha256sum "$work/model.safetensors" | cut -d' ' -f1)
"$ROOT/scripts/rgw.sh" put "$work/model.safetensors" "s3://$bucket/llama/model.safetensors"
for i in 0 1 2 3 4 5 6 7; do
	head -c $((1 << 20)) /dev/urandom >"$work/shard"
	"$ROOT/scripts/rgw.sh" put "$work/shard" "s3://$bucket/data/shard_00$i"
done
rm -f "$work/shard" "$work/model.safetensors"
echo "demo: put s3://$bucket/llama/model.safetensors (64 MiB, SHA-256 $sha) and 8 shards"
imgs=()
for ((i = 0; i < drives; i++)); do
	rm -f "$work/nvme$i.img"
	truncate -s "${size}M" "$work/nvme$i.img"
	imgs+=("$work/nvme$i.img")
done
log=$work/demo.log
echo "demo: booting the guest with $drives emulated NVMe drives of $size MiB (log: $log)"
rc=0
"$ROOT/tests/vm/boot.sh" --stage demo --s3 --drives "$(IFS=,; echo "${imgs[*]}")" \
	--args "drives=$drives,bucket=$bucket,sha=$sha" --log "$log" --timeout 600 "${kver_opt[@]}" >/dev/null || rc=$?
# the guest's side of the demo, without kernel chatter
tr -d '\r' <"$log" | grep -a -v -e '^\[' -e '^HCVM' | sed -n '/^demo\$/,$p' |
	grep -a -v -e '^HCTEST' -e '^hc:'
if [ $rc -eq 0 ]; then
	echo "demo: passed"
else
	echo "demo: FAILED (see $log)"
fi
exit $rc
