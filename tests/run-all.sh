#!/bin/bash
# Usage: tests/run-all.sh [--unit-only | --vm-only]
#
# Engine of the top-level test command. Runs, in order:
#   (a) unit tests: `make -C tests/unit run` (kselftest TAP). Every "ok N ..."
#       line counts as a pass, "ok N ... # SKIP" as a skip, "not ok N ..." as
#       a failure; a failing make with no "not ok" line counts one failure.
#       Skipped with a message if tests/unit/Makefile does not exist yet.
#   (b) the VM suite: tests/vm/run.sh once per (kernel, scenario) for each
#       kernel that scripts/kernels.sh lists (6.1 and 6.12 when installed),
#       test names prefixed with the kernel series; a queue ordered longest
#       first (tests/vm/durations), HC_VM_JOBS (default: the number of
#       cores) guests at once, each run in build/vm/run-SERIES/SCENARIO;
#       every kernel's log printed whole at the end, in scenario order.
#       HC_VM_SCENARIOS (names, as tests/vm/run.sh takes them) runs only those;
#       HC_VM_ONCE scenarios run on the first kernel only (unless HC_VM_FULL=1).  Before it, the S3
#       gateway (scripts/rgw.sh start, once for all kernels; its exports,
#       HC_S3_ENDPOINT etc., are in the suites' environment); stopped at the
#       end unless it was already up.  A gateway that cannot start is the
#       failure "rgw:start" (and the scenarios that need it fail too).
#       HC_RGW=0 leaves the gateway out.
#   (c) every executable tests/checks/*.sh: one test each, exit 0 = pass.
#       They run before the gateway is stopped, so check:bench-fetch (the
#       smoke run of scripts/bench-fetch.sh) uses it; with no gateway up
#       (HC_RGW=0) it starts and stops one of its own.  The VM benchmarks' smoke runs are the
#       scenario 97-bench of (b).
# --unit-only runs only (a), --vm-only only (b). Logs go to build/test-logs/.
# The very last line of output is exactly "N passed, N failed". Exits
# non-zero if anything failed or if no test ran at all.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LOGS=$ROOT/build/test-logs
mkdir -p "$LOGS"

do_unit=1 do_vm=1 do_checks=1
case "${1:-}" in
"") ;;
--unit-only) do_vm=0 do_checks=0 ;;
--vm-only) do_unit=0 do_checks=0 ;;
*) sed -n '2,/^set -euo/p' "$0" | sed '$d' >&2; exit 2 ;;
esac

pass=0 fail=0 skip=0

# --- (a) unit tests -----------------------------------------------------------
if [ $do_unit = 1 ]; then
	if [ ! -f "$ROOT/tests/unit/Makefile" ]; then
		echo "# unit: tests/unit/Makefile does not exist yet, skipping"
	else
		if [ ! -s "$ROOT/build/kselftest/kselftest_harness.h" ]; then
			"$ROOT/scripts/kselftest-headers.sh" ||
				echo "# unit: could not extract the kselftest headers" >&2
		fi
		echo "# unit: make -C tests/unit run"
		rc=0
		make -C "$ROOT/tests/unit" run 2>&1 | tee "$LOGS/unit.log" || rc=$?
		# only the test programs' own TAP lines (column 0), not nested "# ok"
		u_skip=$(grep -Ec '^ok [0-9]+ .*# *SKIP' "$LOGS/unit.log" || true)
		u_ok=$(grep -Ec '^ok ' "$LOGS/unit.log" || true)
		u_fail=$(grep -Ec '^not ok ' "$LOGS/unit.log" || true)
		u_pass=$((u_ok - u_skip))
		if [ $rc -ne 0 ] && [ "$u_fail" -eq 0 ]; then
			echo "not ok unit:make: make -C tests/unit run exited $rc without a failing test"
			u_fail=1
		fi
		echo "# unit: $u_pass passed, $u_fail failed, $u_skip skipped"
		pass=$((pass + u_pass)) fail=$((fail + u_fail)) skip=$((skip + u_skip))
	fi
fi

# --- (b) VM suite, once per supported installed kernel -------------------------
rgw_stop=0
stop_rgw() {
	if [ $rgw_stop = 1 ]; then
		rgw_stop=0
		"$ROOT/scripts/rgw.sh" stop >>"$LOGS/rgw.log" 2>&1 ||
			echo "# rgw: stop failed (build/test-logs/rgw.log)" >&2
	fi
}
trap stop_rgw EXIT
trap 'kill $(jobs -p) 2>/dev/null; exit 130' INT TERM
if [ $do_vm = 1 ] && [ "${HC_RGW:-1}" != 0 ]; then
	if "$ROOT/scripts/rgw.sh" status >/dev/null 2>&1; then
		echo "# rgw: the S3 gateway is already up; using it (and leaving it up)"
	else
		echo "# rgw: scripts/rgw.sh start"
		if "$ROOT/scripts/rgw.sh" start >"$LOGS/rgw.log" 2>&1; then
			rgw_stop=1
			grep '^rgw.sh:' "$LOGS/rgw.log" | sed 's/^/# /'
		else
			why=$(grep -m1 '^rgw.sh: ' "$LOGS/rgw.log" | sed 's/^rgw.sh: //; s/^start failed: //')
			echo "not ok rgw:start: ${why:-scripts/rgw.sh start failed} (last lines of build/test-logs/rgw.log:)"
			tail -n 30 "$LOGS/rgw.log" | sed 's/^/#   /'
			fail=$((fail + 1))
		fi
	fi
	eval "$("$ROOT/scripts/rgw.sh" env)"
fi
if [ $do_vm = 1 ]; then
	kvers=$("$ROOT/scripts/kernels.sh")
	[ -n "$kvers" ] || { echo "not ok vm:kernels: no supported kernel installed"; fail=$((fail + 1)); }
	first_series=$(echo "$kvers" | head -n1 | cut -d. -f1,2)
	# The queue: one job per (kernel, scenario), longest first by
	# tests/vm/durations, so that the workers end together.  Each guest is
	# single-threaded TCG: HC_VM_JOBS (default: the number of cores) jobs
	# at once, of any kernel.  HC_VM_ONCE scenarios (hypercached against
	# the gateway: their kernel side is the other scenarios') run on the
	# first kernel only, unless HC_VM_FULL=1 (make check-reliability).
	once=" ${HC_VM_ONCE-62-jmirror 94-egress-batch 82-preload 83-sched 85-s3net 86-numa 90-s3 92-flush 95-writeback 97-bench 91-etag 25-upgrade 26-compat 57-fs-s3} "
	[ "${HC_VM_FULL:-0}" = 1 ] && once=" "
	if [ -n "${HC_VM_SCENARIOS:-}" ]; then
		names=$HC_VM_SCENARIOS
	else
		names=$(cd "$ROOT/tests/vm/scenarios" && ls [0-9]*.sh | sed 's/\.sh$//')
	fi
	queue=$ROOT/build/vm/queue
	mkdir -p "$ROOT/build/vm"
	: >"$queue.all"
	for k in $kvers; do
		series=$(echo "$k" | cut -d. -f1,2)
		out=$ROOT/build/vm/run-$series
		rm -rf "$out"
		mkdir -p "$out"
		: >"$out/order"
		for n in $names; do
			n=$(basename "$n" .sh)
			if [ "$series" != "$first_series" ] && [[ "$once" == *" $n "* ]]; then
				echo "# vm $series: $n runs on $first_series only (HC_VM_ONCE; all kernels in make check-reliability)"
				continue
			fi
			echo "$n" >>"$out/order"
			w=$(awk -v n="$n" '$1 == n { print $2 }' "$ROOT/tests/vm/durations" 2>/dev/null)
			echo "${w:-60} $series $k $n" >>"$queue.all"
		done
		# one initramfs per kernel, built before the guests that share it
		"$ROOT/tests/vm/mkinitramfs.sh" "$k" "$ROOT/build/vm/$k/initramfs.cpio" >>"$LOGS/vm-$series.log" 2>&1 ||
			echo "# vm $series: mkinitramfs failed (build/test-logs/vm-$series.log); its boots will say why"
	done
	sort -k1,1nr -s "$queue.all" | cut -d' ' -f2- >"$queue"
	echo "# vm: $(wc -l <"$queue") scenario runs on $(echo $kvers | wc -w) kernel(s), ${HC_VM_JOBS:-$(nproc)} at once"
	# next_job: pop the queue's first line (under its lock)
	next_job() {
		flock "$queue.lock" sh -c 'head -n1 "$1"; sed -i 1d "$1"' sh "$queue"
	}
	worker() {
		local job series k n out
		while job=$(next_job) && [ -n "$job" ]; do
			read -r series k n <<<"$job"
			out=$ROOT/build/vm/run-$series/$n
			mkdir -p "$out"
			local start=$SECONDS rc=0
			KVER=$k VM_LABEL=$series VM_OUT=$out "$ROOT/tests/vm/run.sh" "$n" \
				>"$out/log" 2>&1 || rc=$?
			echo "$rc $((SECONDS - start))" >"$out/exit"
		done
	}
	vm_start=$SECONDS
	for _ in $(seq "${HC_VM_JOBS:-$(nproc)}"); do
		worker &
	done
	wait || true
	for k in $kvers; do
		series=$(echo "$k" | cut -d. -f1,2)
		run=$ROOT/build/vm/run-$series
		v_pass=0 v_fail=0 secs=0
		: >"$run/boot-times"
		: >"$run/test-times"
		while read -r n; do
			out=$run/$n
			{ cat "$out/log" 2>/dev/null || true; } | tee -a "$LOGS/vm-$series.log"
			cat "$out/boot-times" >>"$run/boot-times" 2>/dev/null || true
			cat "$out/test-times" >>"$run/test-times" 2>/dev/null || true
			rc=1 t=0
			[ -s "$out/exit" ] && read -r rc t <"$out/exit"
			secs=$((secs + t))
			if [ -s "$out/summary" ]; then
				read -r p f <"$out/summary"
			else
				echo "not ok $series/$n/vm:run.sh: exited $rc without a summary"
				p=0 f=1
			fi
			v_pass=$((v_pass + p)) v_fail=$((v_fail + f))
		done <"$run/order"
		echo "$v_pass $v_fail" >"$run/summary"
		echo "# vm $k: $v_pass passed, $v_fail failed ($secs s of guest time)"
		pass=$((pass + v_pass)) fail=$((fail + v_fail))
	done
	echo "# vm: every kernel's suite in $((SECONDS - vm_start)) s"
fi

# --- (c) extra checks -----------------------------------------------------------
if [ $do_checks = 1 ]; then
	for c in "$ROOT"/tests/checks/*.sh; do
		[ -f "$c" ] && [ -x "$c" ] || continue
		name=$(basename "$c" .sh)
		if (cd "$ROOT" && "$c") >"$LOGS/check-$name.log" 2>&1; then
			echo "ok check:$name"
			pass=$((pass + 1))
		else
			echo "not ok check:$name (last lines of build/test-logs/check-$name.log:)"
			tail -n 30 "$LOGS/check-$name.log" | sed 's/^/#   /'
			fail=$((fail + 1))
		fi
	done
fi

[ "$skip" -gt 0 ] && echo "# $skip skipped"
if [ $((pass + fail)) -eq 0 ]; then
	echo "# no test ran"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ $((pass + fail)) -gt 0 ]
