#!/bin/bash
# Usage: tests/vm/run.sh [SCENARIO...]
#
# The VM test suite driver. Runs every tests/vm/scenarios/NN-name.sh (or only
# the ones named: a path, "NN-name", "NN-name.sh" or "name"), each sourced in
# its own subshell together with tests/vm/scenario-lib.sh. Prints one line
# per test ("ok scenario/test", "not ok scenario/test: why"), then
#   vm: P passed, F failed
# and writes "P F" to $VM_OUT/summary. Skipped tests ("# SKIP") are listed
# but counted in neither. Exit status 0 only if F = 0 and P > 0.
# Environment: KVER (guest kernel), VM_LABEL (prefix of test names), HC_KO,
# HC_BIN_DIRS (see boot.sh / mkinitramfs.sh), VM_OUT (the directory of this
# run's results, summary, boot-times and scenario work trees; default
# build/vm — two runs at once need two, as tests/run-all.sh gives them).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SCEN_DIR=$ROOT/tests/vm/scenarios
mkdir -p "$ROOT/build/vm/logs"
VM_OUT=${VM_OUT:-$ROOT/build/vm}
mkdir -p "$VM_OUT"
export VM_OUT

scenarios=()
if [ $# -eq 0 ]; then
	for f in "$SCEN_DIR"/[0-9]*.sh; do
		[ -f "$f" ] && scenarios+=("$f")
	done
else
	for a in "$@"; do
		f=""
		for cand in "$a" "$SCEN_DIR/$a" "$SCEN_DIR/$a.sh" "$SCEN_DIR"/[0-9]*-"$a".sh; do
			if [ -f "$cand" ]; then f=$cand; break; fi
		done
		if [ -z "$f" ]; then
			echo "run.sh: no scenario '$a' in $SCEN_DIR" >&2
			exit 2
		fi
		scenarios+=("$f")
	done
fi

export VM_RESULTS=$VM_OUT/results
: >"$VM_RESULTS"
: >"$VM_OUT/boot-times"
: >"$VM_OUT/test-times"

for f in "${scenarios[@]}"; do
	name=$(basename "$f" .sh)
	echo "# scenario $name"
	before=$(wc -l <"$VM_RESULTS")
	work=$VM_OUT/work/$name
	rm -rf "$work"
	set +e
	(
		set +e
		export VM_SCENARIO=$name VM_WORK=$work
		. "$ROOT/tests/vm/scenario-lib.sh"
		. "$f"
	)
	set -e
	after=$(wc -l <"$VM_RESULTS")
	if [ "$after" -eq "$before" ]; then
		echo "not ok ${VM_LABEL:+$VM_LABEL/}$name/scenario: recorded no results"
		echo "not ok|${VM_LABEL:+$VM_LABEL/}$name/scenario" >>"$VM_RESULTS"
	fi
	# keep the images of a failed scenario for inspection
	if ! tail -n +"$((before + 1))" "$VM_RESULTS" | grep -q '^not ok|'; then
		rm -rf "$work"
	fi
done

pass=$(grep -c '^ok|' "$VM_RESULTS" || true)
fail=$(grep -c '^not ok|' "$VM_RESULTS" || true)
skip=$(grep -c '^skip|' "$VM_RESULTS" || true)
[ "$skip" -gt 0 ] && echo "# vm: $skip skipped"
echo "$pass $fail" >"$VM_OUT/summary"
echo "vm: $pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
