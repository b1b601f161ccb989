#!/bin/sh
# Usage (guest, via /init): stage-selftest.sh MODE
#
# Deliberately misbehaving stage used by tests/vm/selftest.sh to check that
# the harness notices each kind of failure. MODE is one of:
#   pass    two passing tests (one uses hc_expect_errno), one skipped
#   fail    one passing and one failing test
#   warn    passes, but puts a "WARNING:" line into dmesg
#   stall   passes, but puts an RCU stall report's first line into dmesg
#   panic   crashes the kernel (sysrq c)
#   hang    never finishes (the host's --timeout must fire)
#   marker  prints HC-MARKER, then waits for the host to SIGKILL QEMU
. /hc/tests/lib.sh

t_true() { hc_log "fine"; }
t_errno() {
	hc_expect_errno -m 'No such file' cat /nonexistent
	hc_expect_errno false
}
t_false() {
	echo "some context"
	false
	echo "not reached"
}
t_skip() { hc_skip "nothing to do"; }

case "${1:-pass}" in
pass)
	hc_test self-true t_true
	hc_test self-errno t_errno
	hc_test self-skip t_skip
	;;
fail)
	hc_test self-true t_true
	hc_test self-false t_false
	;;
warn)
	hc_test self-true t_true
	echo "WARNING: injected by stage-selftest" >/dev/kmsg
	;;
stall)
	hc_test self-true t_true
	echo "rcu: INFO: rcu_preempt self-detected stall on CPU" >/dev/kmsg
	;;
panic)
	echo 1 >/proc/sys/kernel/sysrq
	echo c >/proc/sysrq-trigger
	;;
hang)
	sleep 100000
	;;
marker)
	hc_test self-true t_true
	echo HC-MARKER
	sleep 100000
	;;
esac
