#!/bin/sh
# Runs in the systemd guest (hc-guest-test.service), as root, after
# multi-user.target: sources the VM suite's test library
# (tests/vm/guest/lib.sh: hc_test, hc_fail, HCTEST lines), runs
# tests/vm/debian/stage-$HC_STAGE.sh from the host's tree (mounted
# read-only at /hc/tree), prints
#   HCVM-RESULT pass=P fail=F dmesg=clean|dirty
# and powers the guest off; hc-exit.shutdown, installed here as a
# systemd-shutdown hook, then ends QEMU with exit status 1.
# Kernel arguments: hc.stage=NAME, hc.args=A,B (the stage's $1 $2 ...),
# and lib.sh's own (hc.timeout_scale, hc.full).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
HC_TREE=/hc/tree
HC_STAGE="" HC_ARGS=""
for w in $(cat /proc/cmdline); do
	case $w in
	hc.stage=*) HC_STAGE=${w#hc.stage=} ;;
	hc.args=*) HC_ARGS=${w#hc.args=} ;;
	esac
done
export HC_TREE HC_STAGE
. "$HC_TREE/tests/vm/guest/lib.sh"
rm -f "$HC_RUN/pass" "$HC_RUN/fail" "$HC_RUN/skip"
dmesg_from=0	# the whole boot: the module was loaded by systemd-modules-load

# The emulated NVMe drives by QEMU serial (hc0, hc1, ...), as udev names them.
hc_drive() {
	echo "/dev/disk/by-id/nvme-QEMU_NVMe_Ctrl_hc$1"
}

# The boot's other jobs first: this unit is itself a job of the boot, so
# `systemctl is-system-running --wait` would wait for it (hc_boot_settled).
hc_boot_settled() {
	_i=0
	while systemctl list-jobs --no-legend | grep -v hc-guest-test | grep -q .; do
		_i=$((_i + 1))
		[ $_i -lt $((300 * HC_TIMEOUT_SCALE)) ] || { systemctl list-jobs; return 1; }
		sleep 1
	done
}
hc_boot_settled || echo "# the boot's jobs did not finish"

echo "HCVM-STAGE $HC_STAGE ($(uname -r), systemd $(systemctl --version | sed -n '1s/^systemd \([0-9]*\).*/\1/p'))"
f=$HC_TREE/tests/vm/debian/stage-$HC_STAGE.sh
if [ -f "$f" ]; then
	# shellcheck disable=SC2086
	set -- $(echo "$HC_ARGS" | tr ',' ' ')
	. "$f"
else
	hc_record_fail "stage:$HC_STAGE" "no stage $f"
fi

pass=$(wc -l <"$HC_RUN/pass" 2>/dev/null || echo 0)
fail=$(wc -l <"$HC_RUN/fail" 2>/dev/null || echo 0)
if hc_dmesg_bad "$((dmesg_from + 1))" >"$HC_RUN/dmesg-bad"; then
	dmesg_state=dirty
	sed 's/^/# dmesg: /' "$HC_RUN/dmesg-bad"
else
	dmesg_state=clean
fi
echo "HCVM-RESULT pass=$pass fail=$fail dmesg=$dmesg_state"
install -m 0755 "$HC_TREE/tests/vm/debian/hc-exit.shutdown" /usr/lib/systemd/system-shutdown/hc-exit.shutdown
systemctl poweroff --no-block
