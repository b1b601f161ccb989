#!/bin/sh
# Usage (guest, via /init): stage-hypercached.sh   (3 fresh drives of 128 MiB)
#
# The real daemon, hypercached, with a posix backend: a cold
# hypercache://store/KEY is ingested from /tmp/store/KEY byte-identical and
# becomes ready; a missing key is ENOENT, a key with ".." EACCES, an s3://
# URI ENXIO (no S3 backend configured); a bad configuration stops
# it with exit 2 naming FILE:LINE; SIGTERM stops it cleanly (exit 0); a
# permanent upload failure (a read-only posix root) is not retried until a
# reload.
. /hc/tests/lib.sh

M="$(hc_drive 0) $(hc_drive 1) $(hc_drive 2)"

write_conf() {
	mkdir -p /tmp/store/models
	cat >/tmp/hc.conf <<-EOT
	[hypercached]
	log_level = debug

	[backend store]
	type = posix
	root = /tmp/store
	EOT
}

# start_daemon: hypercached in the background; its pid in /tmp/hcd.pid,
# its exit status (once it ends) in /tmp/hcd.rc.
start_daemon() {
	rm -f /tmp/hcd.pid /tmp/hcd.rc
	(
		: >/tmp/hcd.out
		hypercached -c /tmp/hc.conf >/tmp/hcd.out 2>&1 &
		echo $! >/tmp/hcd.pid
		rc=0
		wait $! || rc=$?
		echo $rc >/tmp/hcd.rc
	) &
	i=0
	while [ ! -s /tmp/hcd.pid ]; do sleep 0.05; done
	while ! grep -q registered /tmp/hcd.out; do
		i=$((i + 1))
		kill -0 "$(cat /tmp/hcd.pid)" 2>/dev/null ||
			{ cat /tmp/hcd.out; hc_fail "hypercached exited"; }
		[ $i -lt 50 ] || { cat /tmp/hcd.out; hc_fail "hypercached did not register"; }
		sleep 0.1
	done
}

t_get() {
	hcctl pool create $M >/dev/null
	write_conf
	start_daemon
	hc_pattern 42 9000000 >/tmp/store/models/a.bin
	hcctl get --no-progress --timeout 60 -o /tmp/got hypercache://store/models/a.bin ||
		{ cat /tmp/hcd.out; hc_fail "hcctl get failed"; }
	cmp /tmp/store/models/a.bin /tmp/got || hc_fail "data differs"
	hcctl locate --json hypercache://store/models/a.bin | grep -q '"state":"ready"' ||
		hc_fail "not ready: $(hcctl locate --json hypercache://store/models/a.bin)"
	grep -q "ingested 9000000 bytes" /tmp/hcd.out || { cat /tmp/hcd.out; hc_fail "no log line"; }
	# a warm hit, then a second object
	hcctl get --no-progress --timeout 5 -o /tmp/got hypercache://store/models/a.bin
	cmp /tmp/store/models/a.bin /tmp/got || hc_fail "warm get differs"
	hc_pattern 5 4097 >/tmp/store/b.bin
	hcctl get --no-progress --timeout 60 -o /tmp/got hypercache://store/b.bin
	cmp /tmp/store/b.bin /tmp/got || hc_fail "small object differs"
}

t_errors() {
	hc_expect_errno -m "No such file or directory" \
		hcctl get --no-progress --timeout 20 -o /tmp/got hypercache://store/models/missing.bin
	hc_expect_errno -m "Permission denied" \
		hcctl get --no-progress --timeout 20 -o /tmp/got hypercache://store/models/../../etc/passwd
	# no S3 backend is configured: s3:// has nowhere to go
	hc_expect_errno -m "No such device or address" \
		hcctl get --no-progress --timeout 20 -o /tmp/got s3://some-bucket/key
	grep -q "no \[backend s3\] in the configuration" /tmp/hcd.out ||
		{ cat /tmp/hcd.out; hc_fail "no S3 log line"; }
	hcctl ls --json | grep -q missing.bin && hc_fail "a failed ingest stayed cached"
	kill -0 "$(cat /tmp/hcd.pid)" || hc_fail "hypercached died"
}

t_bad_config() {
	printf '[hypercached]\nlog_level = info\nno_such_key = 1\n' >/tmp/bad.conf
	rc=0
	hypercached -c /tmp/bad.conf >/tmp/bad.out 2>&1 || rc=$?
	cat /tmp/bad.out
	[ $rc -eq 2 ] || hc_fail "exit status $rc, not 2"
	grep -q "/tmp/bad.conf:3:" /tmp/bad.out || hc_fail "no FILE:LINE"
	rc=0
	hypercached -c /tmp/nonexistent.conf >/tmp/bad.out 2>&1 || rc=$?
	[ $rc -eq 2 ] || hc_fail "missing config: exit status $rc, not 2"
}

# stop_daemon SIG: send SIG, expect exit status 0 within 2 s.
stop_daemon() {
	kill "-$1" "$(cat /tmp/hcd.pid)"
	i=0
	while [ ! -s /tmp/hcd.rc ]; do
		i=$((i + 1))
		[ $i -lt 20 ] || hc_fail "still running 2 s after SIG$1"
		sleep 0.1
	done
	rc=$(cat /tmp/hcd.rc)
	[ "$rc" -eq 0 ] || { cat /tmp/hcd.out; hc_fail "exit status $rc after SIG$1"; }
}

t_sigterm() {
	stop_daemon TERM
	grep -q "stopping" /tmp/hcd.out || { cat /tmp/hcd.out; hc_fail "no stop log line"; }
	# the channel is free again: a new daemon registers, SIGINT stops it
	start_daemon
	stop_daemon INT
	hcctl pool stop
}

hc_test hypercached-posix-get t_get
hc_test hypercached-errors t_errors
hc_test hypercached-bad-config t_bad_config
hc_test hypercached-sigterm t_sigterm

# Type=notify: READY=1 comes once both channels are registered (both log
# lines are written before it), from the main process, with its MAINPID and
# a STATUS; STOPPING=1 on SIGTERM.  hc_notify plays systemd's part.
t_notify() {
	hcctl pool create --force $M >/dev/null
	write_conf
	: >/tmp/notify.out
	: >/tmp/hcd.out
	hc_notify /tmp/notify.sock hypercached -c /tmp/hc.conf >/tmp/notify.out 2>/tmp/hcd.out &
	np=$!
	i=0
	while ! grep -q '^notify: READY=1$' /tmp/notify.out; do
		i=$((i + 1))
		kill -0 $np 2>/dev/null || { cat /tmp/notify.out /tmp/hcd.out; hc_fail "hypercached exited before READY=1"; }
		[ $i -lt 100 ] || { cat /tmp/notify.out /tmp/hcd.out; hc_fail "no READY=1 in 10 s"; }
		sleep 0.1
	done
	grep -q "registered as the helper" /tmp/hcd.out &&
		grep -q "registered as the egress helper" /tmp/hcd.out ||
		{ cat /tmp/hcd.out; hc_fail "READY=1 before both registrations"; }
	pid=$(sed -n 's/^pid: //p' /tmp/notify.out)
	grep -qx "notify: MAINPID=$pid" /tmp/notify.out || { cat /tmp/notify.out; hc_fail "no MAINPID=$pid"; }
	grep -qx "notify: STATUS=serving ingest and write-back" /tmp/notify.out ||
		{ cat /tmp/notify.out; hc_fail "no STATUS"; }
	grep -q '^notify(other' /tmp/notify.out && { cat /tmp/notify.out; hc_fail "a notification from another process"; }
	kill -TERM "$pid"
	rc=0
	wait $np || rc=$?
	[ $rc -eq 0 ] || { cat /tmp/notify.out /tmp/hcd.out; hc_fail "exit $rc after SIGTERM"; }
	grep -qx 'notify: STOPPING=1' /tmp/notify.out || { cat /tmp/notify.out; hc_fail "no STOPPING=1"; }
	hcctl pool stop
}
hc_test hypercached-notify t_notify

# SIGHUP reloads the configuration (systemctl reload, ExecReload=): under
# hc_notify (systemd's part) each reload is RELOADING=1 then READY=1; a
# new log_level applies at once (debug lines appear, then stop); a changed
# backend is named as needing a restart and keeps serving from the old
# root; a configuration that does not load is refused naming FILE:LINE,
# the daemon keeps running and serving with the previous one.
t_reload() {
	hcctl pool create --force $M >/dev/null
	write_conf
	sed -i 's/^log_level = debug/log_level = info/' /tmp/hc.conf
	: >/tmp/notify.out
	: >/tmp/hcd.out
	hc_notify /tmp/notify.sock hypercached -c /tmp/hc.conf >/tmp/notify.out 2>/tmp/hcd.out &
	np=$!
	i=0
	while ! grep -q '^notify: READY=1$' /tmp/notify.out; do
		i=$((i + 1))
		kill -0 $np 2>/dev/null || { cat /tmp/notify.out /tmp/hcd.out; hc_fail "hypercached exited before READY=1"; }
		[ $i -lt 100 ] || { cat /tmp/notify.out /tmp/hcd.out; hc_fail "no READY=1 in 10 s"; }
		sleep 0.1
	done
	pid=$(sed -n 's/^pid: //p' /tmp/notify.out)
	hc_pattern 7 5000 >/tmp/store/r1.bin
	hcctl get --no-progress --timeout 60 -o /tmp/got hypercache://store/r1.bin
	grep -q 'debug' /tmp/hcd.out && { cat /tmp/hcd.out; hc_fail "debug lines at log_level info"; }

	# reload_wait N: the Nth READY=1 (the first was the start)
	reload_wait() {
		i=0
		while [ "$(grep -c '^notify: READY=1$' /tmp/notify.out)" -lt "$1" ]; do
			i=$((i + 1))
			kill -0 "$pid" 2>/dev/null || { cat /tmp/hcd.out; hc_fail "hypercached died on SIGHUP"; }
			[ $i -lt 100 ] || { cat /tmp/notify.out /tmp/hcd.out
				for t in /proc/$pid/task/*; do grep -H 'Sig\|State' $t/status; cat $t/wchan; echo; done
				hc_fail "no READY=1 after the reload"; }
			sleep 0.1
		done
	}

	# 1. log_level applies live
	sed -i 's/^log_level = info/log_level = debug/' /tmp/hc.conf
	kill -HUP "$pid"
	reload_wait 2
	[ "$(grep -c '^notify: RELOADING=1$' /tmp/notify.out)" = 1 ] ||
		{ cat /tmp/notify.out; hc_fail "no RELOADING=1"; }
	grep -q "reloaded /tmp/hc.conf: log_level debug" /tmp/hcd.out ||
		{ cat /tmp/hcd.out; hc_fail "no reload log line"; }
	hc_pattern 8 5000 >/tmp/store/r2.bin
	lines=$(wc -l </tmp/hcd.out)
	hcctl get --no-progress --timeout 60 -o /tmp/got hypercache://store/r2.bin
	cmp /tmp/store/r2.bin /tmp/got || hc_fail "r2 differs"
	tail -n +$((lines + 1)) /tmp/hcd.out | grep -q 'debug' ||
		{ cat /tmp/hcd.out; hc_fail "no debug line after log_level = debug was reloaded"; }

	# 2. a backend's root changed: named, needs a restart, old root serves
	mkdir -p /tmp/store2
	sed -i 's|^root = /tmp/store$|root = /tmp/store2|' /tmp/hc.conf
	kill -HUP "$pid"
	reload_wait 3
	grep -q "needing a restart (systemctl restart hypercached), still running with the previous value: \[backend store\] root" /tmp/hcd.out ||
		{ cat /tmp/hcd.out; hc_fail "no restart-needed line naming [backend store] root"; }
	hc_pattern 9 5000 >/tmp/store/r3.bin
	hcctl get --no-progress --timeout 60 -o /tmp/got hypercache://store/r3.bin
	cmp /tmp/store/r3.bin /tmp/got || hc_fail "r3 not served from the old root"

	# 3. a broken file: refused, named, the old configuration kept
	printf '[hypercached]\nlog_level = info\nbogus_key = 1\n' >/tmp/hc.conf
	kill -HUP "$pid"
	reload_wait 4
	grep -q "reload refused, still running with the previous configuration: /tmp/hc.conf:3:" /tmp/hcd.out ||
		{ cat /tmp/hcd.out; hc_fail "no refusal naming /tmp/hc.conf:3"; }
	hc_pattern 10 5000 >/tmp/store/r4.bin
	lines=$(wc -l </tmp/hcd.out)
	hcctl get --no-progress --timeout 60 -o /tmp/got hypercache://store/r4.bin
	cmp /tmp/store/r4.bin /tmp/got || hc_fail "r4 differs after a refused reload"
	# still at debug: the refused file's log_level = info was not applied
	tail -n +$((lines + 1)) /tmp/hcd.out | grep -q 'debug' ||
		{ cat /tmp/hcd.out; hc_fail "the refused file's log_level was applied"; }
	kill -TERM "$pid"
	rc=0
	wait $np || rc=$?
	[ $rc -eq 0 ] || { cat /tmp/notify.out /tmp/hcd.out; hc_fail "exit $rc after SIGTERM"; }
	hcctl pool stop
}
hc_test hypercached-reload t_reload

# The daemon's classification of a failed upload: a posix backend on a
# read-only file system (EROFS) is permanent: logged once, not retried,
# listed with the daemon's message by ls --dirty; once the file system is
# writable, a reload registers the egress channel again and the object is
# uploaded.
t_permanent() {
	hcctl pool create --force $M >/dev/null
	write_conf
	mkdir -p /tmp/ro
	mount -t tmpfs -o size=8m tmpfs /tmp/ro
	mount -o remount,ro /tmp/ro
	cat >>/tmp/hc.conf <<-EOT

	[backend ro]
	type = posix
	root = /tmp/ro
	EOT
	start_daemon
	pid=$(cat /tmp/hcd.pid)
	hc_pattern 81 7000 >/tmp/src
	hcctl put --no-progress /tmp/src hypercache://ro/k1 >/dev/null
	i=0
	while ! grep -q "permanent: not retried" /tmp/hcd.out; do
		i=$((i + 1))
		[ $i -lt 100 ] || { cat /tmp/hcd.out; hc_fail "no permanent failure logged"; }
		sleep 0.1
	done
	sleep 3		# a transient failure would be retried after 1 s
	n=$(grep -c "hypercache://ro/k1: upload of generation" /tmp/hcd.out)
	[ "$n" = 1 ] || { cat /tmp/hcd.out; hc_fail "$n upload attempts, not 1"; }
	hcctl ls --dirty | grep -q "upload failed 1 time, .*Read-only file system: .*; permanent" ||
		{ hcctl ls --dirty; hc_fail "ls --dirty does not show the daemon's error"; }
	mount -o remount,rw /tmp/ro
	kill -HUP "$pid"
	i=0
	while ! hcctl locate hypercache://ro/k1 | grep -q '^state *ready$'; do
		i=$((i + 1))
		[ $i -lt 100 ] || { cat /tmp/hcd.out; hc_fail "not uploaded after the reload"; }
		sleep 0.1
	done
	grep -q "egress channel registered again" /tmp/hcd.out || { cat /tmp/hcd.out; hc_fail "no re-registration line"; }
	cmp /tmp/src /tmp/ro/k1 || hc_fail "the upload differs"
	stop_daemon TERM
	umount /tmp/ro
	hcctl pool stop
}
hc_test hypercached-permanent t_permanent
