#!/bin/bash
# make check-reliability: scripts/bench-locate.sh at its full sizes, in one
# boot of its own (multi-threaded TCG, 2 vCPUs, as the script's figures are
# taken): 1-byte objects (one extent each, in the policy) at 1,000, 100,000
# and 1,000,000, grown through journal records and assemblies (--fill
# journal), LOCATE hits, LOCATE with extents and HOLD + RELEASE against
# BLKGETSIZE64 with 1 and 2 threads, on a format-1 and then a format-2
# pool of the same drives (--formats 1,2).  The test passes when the boot passed
# (every object READY, no eviction, every LOCATE a hit with one extent) and
# every figure line was printed; the ratios are reported, not judged (a
# shared host's noise decides them: Documentation/benchmarks.md).  97-bench
# runs the --smoke slice in make check.  The figures: build/vm/logs/
# [LABEL-]r-bench-locate.out.  The timeout: the script's own for 1M (6900 s
# per format, two formats) times HC_TIMEOUT_SCALE.  HC_BENCH_LOCATE_ARGS: more options for the
# script (`--counts 1000,100000`, say; `--smoke` checks this wrapper).
out=$HC_ROOT/build/vm/logs/${VM_LABEL:+$VM_LABEL-}$VM_SCENARIO.out
# shellcheck disable=SC2086 # HC_BENCH_LOCATE_ARGS: words
if HC_BENCH_DIR=$VM_WORK/bench-locate "$HC_ROOT/scripts/bench-locate.sh" --no-build \
	${KVER:+--kver "$KVER"} ${HC_BENCH_LOCATE_ARGS:-} \
	--timeout $((2 * 6900 * ${HC_TIMEOUT_SCALE:-1})) >"$out" 2>&1; then
	vm_record ok bench-locate-full
	sed -n '/^least disturbed/,/^$/p' "$out" | sed 's/^/# /'
else
	sed 's/^/#   /' "$out" | tail -n 25
	why=$(grep -a -m1 '^HCTEST not ok ' "$out" | sed 's/^HCTEST not ok //')
	[ -n "$why" ] || why=$(grep -a -m1 -E '^bench-locate.sh: ' "$out" || tail -n 1 "$out")
	vm_record "not ok" bench-locate-full "$why"
fi
