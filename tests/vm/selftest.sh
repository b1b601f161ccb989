#!/bin/bash
# Usage: tests/vm/selftest.sh
#
# Negative self-test of the VM harness (not part of the default suite; about
# a minute under TCG): boots stage-selftest.sh in each mode and checks that
# boot.sh's verdict is right: pass -> 0; a failing test, a dmesg WARNING, an
# RCU stall report, a kernel panic, a hang (timeout), a missing
# hypercache.ko (insmod) -> 1;
# --kill-on after passing tests -> 0.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
work=$ROOT/build/vm/work/selftest
mkdir -p "$work"
rm -f "$work/d0.img"
truncate -s 64M "$work/d0.img"

bad=0
check() { # check EXPECTED_RC DESCRIPTION GREP_PATTERN boot.sh-args...
	local want=$1 what=$2 pat=$3 rc=0
	shift 3
	"$ROOT/tests/vm/boot.sh" --stage selftest --drives "$work/d0.img" "$@" >"$work/out" 2>&1 || rc=$?
	if [ "$rc" != "$want" ]; then
		echo "not ok $what: boot.sh exited $rc, expected $want"
		sed 's/^/#   /' "$work/out"
		bad=$((bad + 1))
	elif [ -n "$pat" ] && ! grep -Eq "$pat" "$work/out"; then
		echo "not ok $what: output lacks /$pat/"
		sed 's/^/#   /' "$work/out"
		bad=$((bad + 1))
	else
		echo "ok $what ($(grep -o 'time=.*' "$work/out" | head -n1))"
	fi
}

check 0 pass 'HCTEST ok self-skip # SKIP nothing to do' --noload --args pass
check 1 failing-test 'HCTEST not ok self-false: some context' --noload --args fail
check 1 dmesg-warning 'dmesg is dirty' --noload --args warn
check 1 dmesg-rcu-stall 'HCVM-DMESG: .*self-detected stall' --noload --args stall
check 1 panic 'kernel panic' --noload --args panic
check 1 timeout 'timeout after 20s' --noload --args hang --timeout 20
check 0 kill-on-marker 'HCVM-KILLED' --noload --args marker --kill-on HC-MARKER
HC_KO=/nonexistent check 1 insmod 'HCTEST not ok insmod' --args pass

rm -rf "$work"
echo "selftest: $bad wrong verdict(s)"
[ $bad -eq 0 ]
