#!/bin/bash
# The benchmarks cannot rot: every VM benchmark script runs end to end in its
# smoke mode (tiny sizes, one round) and must print every figure line
# (scripts/bench*.sh --smoke exit 1 otherwise; the values are not checked).
# One test per script, each its own boot (they boot different stages with
# different drives):
#   bench.sh            hypercache vs md raid0 vs dm-stripe, the region put
#                       as an object
#   bench-locate.sh     LOCATE hits of 1-byte objects vs BLKGETSIZE64
#   bench-s3.sh         cold ingest vs curl, against the S3 gateway
#   bench-writeback.sh  put --sync vs a synchronous upload, same gateway
#   bench-client.sh     hcctl put vs dd to md raid0, the library's read vs
#                       fio (its smoke run leaves out the Python figures)
#   bench-fs.sh         the file system view vs ext4 on md raid0 (buffered,
#                       mmap, open), vs /dev/hypercache0 (O_DIRECT) and vs
#                       dd to md raid0 (a durable write)
#   bench-small.sh      reads of small objects (64 KiB) from a v1 pool vs a
#                       v2 pool vs files of ext4 on md raid0, every byte
#                       checked
#   bench-speed.sh      bench-ingest.sh and bench-egress.sh in one boot,
#                       after the drive engines (psync vs io_uring):
#                       preload-batch vs curl -Z, cold ingest vs curl to
#                       ext4 on md raid0, put --sync vs aws s3 cp / curl -T
# Single-threaded TCG, as every test (the scripts default to multi).  The
# host-only scripts/bench-fetch.sh is tests/checks/bench-fetch.sh.  The S3
# ones need the gateway that tests/run-all.sh starts: without it they fail.
# Output of each run: build/vm/logs/[LABEL-]97-bench-NAME.out.
bench_smoke() {
	local name=$1 out why
	out=$HC_ROOT/build/vm/logs/${VM_LABEL:+$VM_LABEL-}$VM_SCENARIO-${name%.sh}.out
	# images in this run's work tree: the kernels' suites run at once
	if HC_TCG_THREAD=single HC_BENCH_DIR=$VM_WORK/${name%.sh} "$HC_ROOT/scripts/$name" --smoke --no-build \
		${KVER:+--kver "$KVER"} >"$out" 2>&1; then
		vm_record ok "$name"
	else
		sed 's/^/#   /' "$out" | tail -n 25
		# the guest's first failed test, else the script's own complaint
		why=$(grep -a -m1 '^HCTEST not ok ' "$out" | sed 's/^HCTEST not ok //')
		[ -n "$why" ] || why=$(grep -a -m1 -E "^$name: " "$out" || tail -n 1 "$out")
		vm_record "not ok" "$name" "$why"
	fi
}

bench_smoke bench.sh
bench_smoke bench-locate.sh
bench_smoke bench-client.sh
bench_smoke bench-fs.sh
bench_smoke bench-small.sh
if "$HC_ROOT/scripts/rgw.sh" status >/dev/null 2>&1; then
	bench_smoke bench-s3.sh
	bench_smoke bench-writeback.sh
	bench_smoke bench-speed.sh
else
	vm_record "not ok" bench-s3.sh "no S3 gateway (scripts/rgw.sh start)"
	vm_record "not ok" bench-writeback.sh "no S3 gateway (scripts/rgw.sh start)"
	vm_record "not ok" bench-speed.sh "no S3 gateway (scripts/rgw.sh start)"
fi
