#!/bin/bash
# Usage: tests/run-all.sh [--unit-only | --vm-only]
#
# Engine of the top-level test command. Runs, in order:
#   (a) unit tests: `make -C tests/unit run` (kselftest TAP). Every "ok N ..."
#       line counts as a pass, "ok N ... # SKIP" as a skip, "not ok N ..." as
#       a failure; a failing make with no "not ok" line counts one failure.
#       Skipped with a message if tests/unit/Makefile does not exist yet.
#   (b) the VM suite, tests/vm/run.sh (its summary "P F"), once per
#       kernel that scripts/kernels.sh lists (6.1 and 6.12 when installed),
#       test names prefixed with the kernel series; up to HC_VM_JOBS
#       (default: the number of cores) kernels at once, each in its own
#       build/vm/run-SERIES, each log printed whole when its suite ends.
#       HC_VM_SCENARIOS (names, as tests/vm/run.sh takes them) runs only those.  Before it, the S3
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
	# Each guest is single-threaded TCG: one core per kernel's suite.  With
	# two or more cores the kernels' suites run at the same time, each with
	# its own VM_OUT (results, work trees); its log is printed when it ends.
	jobs=${HC_VM_JOBS:-$(nproc)}
	running=0
	for k in $kvers; do
		series=$(echo "$k" | cut -d. -f1,2)
		out=$ROOT/build/vm/run-$series
		rm -rf "$out"
		mkdir -p "$out"
		echo "# vm: tests/vm/run.sh on $k (log: build/test-logs/vm-$series.log)"
		(
			start=$SECONDS
			rc=0
			# shellcheck disable=SC2086 # a list of scenario names
			KVER=$k VM_LABEL=$series VM_OUT=$out "$ROOT/tests/vm/run.sh" ${HC_VM_SCENARIOS:-} \
				>"$LOGS/vm-$series.log" 2>&1 || rc=$?
			echo "$rc $((SECONDS - start))" >"$out/exit"
		) &
		running=$((running + 1))
		if [ "$running" -ge "$jobs" ]; then
			wait -n || true
			running=$((running - 1))
		fi
	done
	wait || true
	for k in $kvers; do
		series=$(echo "$k" | cut -d. -f1,2)
		out=$ROOT/build/vm/run-$series
		cat "$LOGS/vm-$series.log"
		rc=1 secs=0
		[ -s "$out/exit" ] && read -r rc secs <"$out/exit"
		if [ -s "$out/summary" ]; then
			read -r v_pass v_fail <"$out/summary"
		else
			echo "not ok $series/vm:run.sh: exited $rc without a summary"
			v_pass=0 v_fail=1
		fi
		echo "# vm $k: $v_pass passed, $v_fail failed in $secs s"
		pass=$((pass + v_pass)) fail=$((fail + v_fail))
	done
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
