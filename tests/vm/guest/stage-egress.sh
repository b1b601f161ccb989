#!/bin/sh
# Usage (guest, via /init):
#   stage-egress.sh phase=1       3 fresh drives of 128 MiB
#       the kernel's write-back (egress) channel, served by hc_fakeegress
#       (a stand-in for hypercached that copies each object to a directory):
#       DIRTY objects are uploaded in commit order and become READY; failed
#       uploads stay DIRTY and are retried; an egress helper killed -9
#       leaves its SYNCING objects to the next one, each uploaded once; one
#       egress helper at a time (beside the ingest helper); the dirty limit
#       blocks a STAGE, or fails it with EAGAIN (NOWAIT), until uploads
#       make room; a permanent failure is not retried, listed with its
#       error by ls --dirty, discarded only with evict --discard-dirty
#       (logged) and retried by a new registration; a pool stopped, and
#       the module unloaded, with uploads outstanding
#   stage-egress.sh phase=2       the same drives
#       put one object and upload it (READY), put three more DIRTY, then
#       print HC-EGRESS-KILL: the host kills QEMU there (power loss)
#   stage-egress.sh phase=3       the same drives
#       after assembly the three are DIRTY, the cleaned one READY; after a
#       pin of the first and another restart (the journal compacted) an
#       egress helper uploads the three, in commit order, and nothing else
. /hc/tests/lib.sh

phase=""
for a in "$@"; do
	case "$a" in
	phase=*) phase=${a#phase=} ;;
	*) echo "stage-egress: unknown argument $a" >&2; exit 2 ;;
	esac
done
M="$(hc_drive 0) $(hc_drive 1) $(hc_drive 2)"
LIMIT=/sys/module/hypercache/parameters/dirty_limit_mb

# stat KEY: one counter of hcctl stats --json ("dirty" is the state count)
stat() {
	hcctl stats --json | sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"
}

# state URI: the object's state
state() {
	hcctl locate --json "$1" | sed -n 's/.*"state":"\([a-z]*\)".*/\1/p'
}

# start_egress LOG [ARGS...]: run hc_fakeegress --out /tmp/out in the
# background until it has registered; its pid is in /tmp/egress.pid.  A
# helper a failed test left registered is stopped first, so one failure
# does not fail every later test with EBUSY.
start_egress() {
	_log=$1
	shift
	[ -f /tmp/egress.pid ] && kill -0 "$(cat /tmp/egress.pid)" 2>/dev/null &&
		stop_egress
	mkdir -p /tmp/out
	hc_fakeegress --out /tmp/out "$@" >"$_log" 2>&1 &
	echo $! >/tmp/egress.pid
	_i=0
	while ! grep -q registered "$_log"; do
		_i=$((_i + 1))
		[ $_i -lt 50 ] || { cat "$_log"; hc_fail "egress helper did not register"; }
		sleep 0.1
	done
}

stop_egress() {
	kill -9 "$(cat /tmp/egress.pid)" 2>/dev/null || true
	wait "$(cat /tmp/egress.pid)" 2>/dev/null || true
	sleep 0.3
}

# wait_line LOG PATTERN N SECONDS: until LOG has N lines matching PATTERN
wait_line() {
	_i=0
	while [ "$(grep -c "$2" "$1")" -lt "$3" ]; do
		_i=$((_i + 1))
		[ $_i -lt $(($4 * 10)) ] || { cat "$1"; hc_fail "no $3 x '$2' in $4 s"; }
		sleep 0.1
	done
}

# put_dirty URI SEED SIZE: put a pattern object, DIRTY
put_dirty() {
	hc_pattern "$2" "$3" >/tmp/src
	hcctl put --no-progress /tmp/src "$1" >/dev/null
}

# check_copy URI SEED SIZE: the uploaded copy has the pattern's bytes
check_copy() {
	_f=/tmp/out/$(echo "$1" | sed 's,/,%2F,g')
	hc_pattern "$2" "$3" | cmp - "$_f" || hc_fail "$1: the upload differs"
}

t_order() {
	hcctl pool create $M >/dev/null
	n=1
	for size in 1 4194303 4194305 777777 9000000; do
		put_dirty wb/a$n $n $size
		[ "$(state wb/a$n)" = dirty ] || hc_fail "wb/a$n: not dirty after put"
		n=$((n + 1))
	done
	[ "$(stat dirty)" = 5 ] || hc_fail "$(stat dirty) dirty objects, not 5"
	[ "$(hcctl ls --dirty --json | grep -o '"uri"' | wc -l)" = 5 ] ||
		hc_fail "ls --dirty does not list 5"
	want=$((1 + 4194303 + 4194305 + 777777 + 9000000))
	[ "$(stat dirty_bytes)" = $want ] || hc_fail "dirty_bytes $(stat dirty_bytes), not $want"
	hc_expect_errno -m "busy" hcctl evict wb/a1
	# a DIRTY object is not replaced (its upload would be lost)
	hc_pattern 99 1000 >/tmp/src
	hc_expect_errno -m "busy" hcctl put --no-progress --replace /tmp/src wb/a2
	[ "$(state wb/a2)" = dirty ] || hc_fail "wb/a2 $(state wb/a2) after a refused replace"
	start_egress /tmp/eg1.log
	hc_wait_clean 60
	n=1
	for size in 1 4194303 4194305 777777 9000000; do
		[ "$(state wb/a$n)" = ready ] || hc_fail "wb/a$n not ready"
		check_copy wb/a$n $n $size
		n=$((n + 1))
	done
	order=$(grep '^egress ' /tmp/eg1.log | awk '{print $2}' | tr '\n' ' ')
	[ "$order" = "wb/a1 wb/a2 wb/a3 wb/a4 wb/a5 " ] ||
		hc_fail "requests not in commit order: $order"
	[ "$(grep -c '^done .*(0)$' /tmp/eg1.log)" = 5 ] || hc_fail "not 5 uploads"
	[ "$(stat egress_done)" = 5 ] || hc_fail "egress_done $(stat egress_done)"
	[ "$(stat dirty_bytes)" = 0 ] || hc_fail "dirty_bytes $(stat dirty_bytes)"
	[ -z "$(hcctl ls --dirty --json | grep -o '"uri"')" ] || hc_fail "ls --dirty not empty"
	hcctl evict wb/a1		# clean: evictable again
	# a clean put is never queued
	hc_pattern 9 1000 >/tmp/src
	hcctl put --no-progress --clean /tmp/src wb/clean >/dev/null
	sleep 1
	grep -q wb/clean /tmp/eg1.log && hc_fail "a clean object was uploaded"
	stop_egress
}

t_retry() {
	failed0=$(stat egress_failed)
	put_dirty wb/b1 11 5000000
	put_dirty wb/b2 12 3000
	start_egress /tmp/eg2.log --fail 3 --retry-ms 4000
	wait_line /tmp/eg2.log '^fail ' 2 30
	# both failed, neither is due again for 4 s: DIRTY, in their place
	[ "$(state wb/b1)" = dirty ] || hc_fail "wb/b1 $(state wb/b1) after a failure"
	[ "$(state wb/b2)" = dirty ] || hc_fail "wb/b2 $(state wb/b2) after a failure"
	hc_wait_clean 60
	check_copy wb/b1 11 5000000
	check_copy wb/b2 12 3000
	[ $(($(stat egress_failed) - failed0)) = 3 ] ||
		hc_fail "egress_failed counted $(($(stat egress_failed) - failed0)), not 3"
	# the oldest first at every round: b1 b2 | b1 b2 | b1
	order=$(grep '^egress ' /tmp/eg2.log | awk '{print $2}' | tr '\n' ' ')
	[ "$order" = "wb/b1 wb/b2 wb/b1 wb/b2 wb/b1 " ] || hc_fail "order: $order"
	stop_egress
	# the default delay: 1 s, then 2 s
	put_dirty wb/b3 13 1000
	start_egress /tmp/eg3.log --fail 2
	hc_wait_clean 60
	t1=$(grep -c '^egress wb/b3' /tmp/eg3.log)
	[ "$t1" = 3 ] || hc_fail "wb/b3 sent $t1 times, not 3"
	check_copy wb/b3 13 1000
	hc_check_cache "after failed and retried uploads"
	stop_egress
}

t_killed() {
	for n in 1 2 3 4; do
		put_dirty wb/c$n $((20 + n)) 4500000
	done
	start_egress /tmp/eg4.log --delay 3000
	wait_line /tmp/eg4.log '^egress wb/c1' 1 30
	[ "$(stat syncing)" = 4 ] || hc_fail "$(stat syncing) syncing, not 4"
	stop_egress			# kill -9 in the middle of an upload
	[ "$(stat syncing)" = 0 ] || hc_fail "still $(stat syncing) syncing"
	[ "$(stat dirty)" = 4 ] || hc_fail "$(stat dirty) dirty, not 4"
	start_egress /tmp/eg5.log
	hc_wait_clean 60
	for n in 1 2 3 4; do
		check_copy wb/c$n $((20 + n)) 4500000
		[ "$(cat /tmp/eg4.log /tmp/eg5.log | grep -c "^done wb/c$n .*(0)$")" = 1 ] ||
			hc_fail "wb/c$n not uploaded exactly once"
	done
	order=$(grep '^egress ' /tmp/eg5.log | awk '{print $2}' | tr '\n' ' ')
	[ "$order" = "wb/c1 wb/c2 wb/c3 wb/c4 " ] || hc_fail "order: $order"
	stop_egress
}

t_one_egress() {
	start_egress /tmp/eg6.log
	hc_expect_errno -m "busy" hc_fakeegress --out /tmp/out
	# the ingest helper registers separately
	: >/tmp/helper.out
	hc_fakehelper >/tmp/helper.out 2>&1 &
	hpid=$!
	_i=0
	while ! grep -q registered /tmp/helper.out; do
		_i=$((_i + 1))
		[ $_i -lt 50 ] || { cat /tmp/helper.out; hc_fail "ingest helper refused"; }
		sleep 0.1
	done
	kill -9 $hpid
	stop_egress
	# a plain user may not register
	hc_expect_errno -m "not permitted" hc_runas 65534 hc_fakeegress --out /tmp
}

t_dirty_limit() {
	[ "$(cat $LIMIT)" = 0 ] || hc_fail "default dirty_limit_mb $(cat $LIMIT)"
	echo 8 >$LIMIT
	[ "$(stat dirty_limit)" = 8388608 ] || hc_fail "dirty_limit $(stat dirty_limit)"
	put_dirty wb/d1 31 6000000	# nothing dirty: always admitted
	hc_pattern 32 4000000 >/tmp/src.d2
	: >/tmp/put.out
	hcctl put --no-progress /tmp/src.d2 wb/d2 >/tmp/put.out 2>&1 &
	put=$!
	sleep 2
	kill -0 $put 2>/dev/null || hc_fail "a put past the limit did not wait: $(cat /tmp/put.out)"
	hc_expect_errno -m "Resource temporarily unavailable" \
		hc_stage --nowait wb/d3 4000000
	hc_stage_hold wb/d4 1000000 && hc_stage_release	# fits: 6 + 1 <= 8 MB
	start_egress /tmp/eg7.log
	wait $put || hc_fail "the waiting put failed: $(cat /tmp/put.out)"
	hc_wait_clean 60
	check_copy wb/d1 31 6000000
	check_copy wb/d2 32 4000000
	# a signal ends the wait with EINTR
	stop_egress
	put_dirty wb/d5 33 6000000
	: >/tmp/st.out
	hc_stage wb/d6 4000000 >/tmp/st.out 2>&1 &
	st=$!
	sleep 1
	kill -0 $st 2>/dev/null || hc_fail "the stage did not wait"
	kill -INT $st
	wait $st && hc_fail "the interrupted stage succeeded"
	grep -q "Interrupted system call" /tmp/st.out || hc_fail "$(cat /tmp/st.out)"
	echo 0 >$LIMIT
	hc_stage_hold wb/d6 4000000 && hc_stage_release	# no limit
	start_egress /tmp/eg8.log
	hc_wait_clean 60
	stop_egress
}

# egress_window is validated when set (it was clamped silently when used)
t_window_param() {
	W=/sys/module/hypercache/parameters/egress_window
	[ "$(cat $W)" = 8 ] || hc_fail "default egress_window $(cat $W)"
	for v in 0 1025 -1 x; do
		if echo $v >$W 2>/dev/null; then
			echo 8 >$W
			hc_fail "egress_window=$v accepted"
		fi
	done
	[ "$(cat $W)" = 8 ] || hc_fail "egress_window changed to $(cat $W)"
	echo 1024 >$W || hc_fail "egress_window=1024 refused"
	echo 1 >$W || hc_fail "egress_window=1 refused"
	echo 8 >$W
}

# A request the helper could not take (its receive queue full) is sent
# again by itself, without waiting for another COMMIT, DONE or FAIL.  One
# socket registers as both helpers and reads nothing: ingest requests fill
# its queue, then the one DIRTY object's request cannot be delivered.
t_resend() {
	rm -f /tmp/go
	mkfifo /tmp/go
	: >/tmp/slow.out
	hc_nlpoke slow 10+15 6 </tmp/go >/tmp/slow.out 2>&1 &
	pid=$!
	exec 3>/tmp/go
	wait_line /tmp/slow.out '^register: ok' 2 10
	for n in 1 2 3 4 5 6 7 8; do
		hc_obj --ro ingest 1 file:/tmp/fill.$n >/dev/null 2>&1 || true
	done
	put_dirty wb/r1 61 1000
	sleep 2				# nothing else happens meanwhile
	echo go >&3
	exec 3>&-
	wait $pid || true
	cat /tmp/slow.out
	grep -q '^egress 1$' /tmp/slow.out ||
		hc_fail "the undelivered upload request was not sent again: $(cat /tmp/slow.out)"
	# the slow helper answered nothing: wb/r1 is DIRTY again
	start_egress /tmp/eg12.log
	hc_wait_clean 60
	check_copy wb/r1 61 1000
	stop_egress
}

# A permanent failure (the helper says retrying cannot succeed) is not
# re-sent; the object stays DIRTY with its last error, listed by ls
# --dirty; evict refuses it without --discard-dirty and with it throws it
# away loudly (stderr, the kernel log, journaled); a new registration
# sends what failed for good once more.
t_permanent() {
	failed0=$(stat egress_failed)
	put_dirty wb/p1 71 5000
	put_dirty wb/p2 72 3000
	msg="S3 AccessDenied: Access Denied (HTTP 403, PUT http://gw/b/wb/p1)"
	start_egress /tmp/eg13.log --fail 2 --errno 13 --permanent "$msg"
	wait_line /tmp/eg13.log '^fail ' 2 30
	sleep 4		# transient: re-sent after 1 s, then 2 s
	[ "$(grep -c '^egress ' /tmp/eg13.log)" = 2 ] ||
		{ cat /tmp/eg13.log; hc_fail "a permanent failure was re-sent"; }
	[ $(($(stat egress_failed) - failed0)) = 2 ] ||
		hc_fail "egress_failed counted $(($(stat egress_failed) - failed0)), not 2"
	[ "$(state wb/p1)" = dirty ] || hc_fail "wb/p1 $(state wb/p1)"
	hc_check_cache "with uploads failed for good"
	hcctl ls --dirty >/tmp/ls.out
	cat /tmp/ls.out
	grep -q "^ *upload failed 1 time, last at 20[0-9-]* [0-9:]* UTC: Permission denied: $msg; permanent: not retried" /tmp/ls.out ||
		hc_fail "ls --dirty does not show the last error"
	hcctl ls --dirty --json | grep -q "\"upload_error\":{\"errno\":13,\"error\":\"Permission denied\",\"message\":\"$msg\",\"failures\":1,\"failed_at_ns\":[0-9]*,\"permanent\":true}" ||
		{ hcctl ls --dirty --json; hc_fail "ls --dirty --json: no upload_error"; }
	# refused without the option, which the refusal names
	hc_expect_errno -m "discard-dirty" hcctl evict wb/p1
	[ "$(state wb/p1)" = dirty ] || hc_fail "wb/p1 $(state wb/p1) after a refused evict"
	hc_expect_errno -m "unrecognized|unknown" hcctl evict --prefix wb/ --discard-dirty --yes
	hcctl evict --discard-dirty wb/p1 2>/tmp/discard.err ||
		{ cat /tmp/discard.err; hc_fail "evict --discard-dirty failed"; }
	cat /tmp/discard.err
	grep -q "discarding wb/p1: .* (5000 bytes), generation [0-9]*, dirty" /tmp/discard.err &&
		grep -q "wb/p1: upload failed 1 time" /tmp/discard.err &&
		grep -q "discarded wb/p1 (generation [0-9]*, 5000 bytes its backend never got)" /tmp/discard.err ||
		hc_fail "evict --discard-dirty did not say what it threw away"
	hcctl locate wb/p1 | grep -q '^status *miss$' || hc_fail "wb/p1: $(hcctl locate wb/p1)"
	dmesg | grep -q "discarded DIRTY object wb/p1 (generation [0-9]*, 5000 bytes, dirty for [0-9]* s, never uploaded; 1 failed uploads, last errno 13: $msg) at the request of hcctl\[[0-9]*\] uid 0" ||
		{ dmesg | tail -5; hc_fail "the kernel log does not record the discard"; }
	[ "$(stat dirty_bytes)" = 3000 ] || hc_fail "dirty_bytes $(stat dirty_bytes)"
	# a clean object with the option: evicted as usual
	hc_pattern 73 1000 >/tmp/src
	hcctl put --no-progress --clean /tmp/src wb/p3 >/dev/null
	hcctl evict --discard-dirty wb/p3 2>/tmp/discard.err
	grep -q "not dirty: evicted, nothing discarded" /tmp/discard.err || hc_fail "$(cat /tmp/discard.err)"
	# registering again retries wb/p2
	stop_egress
	[ "$(state wb/p2)" = dirty ] || hc_fail "wb/p2 $(state wb/p2)"
	start_egress /tmp/eg14.log
	hc_wait_clean 30
	check_copy wb/p2 72 3000
	hcctl ls --json | grep -q upload_error && hc_fail "an uploaded object keeps its error"
	hc_check_cache "after the discard and the upload"
	# the discard is journaled: wb/p1 does not come back
	hcctl pool stop
	hcctl pool assemble $M >/dev/null
	hcctl locate wb/p1 | grep -q '^status *miss$' || hc_fail "wb/p1: $(hcctl locate wb/p1)"
	stop_egress
}

t_stop_outstanding() {
	start_egress /tmp/eg9.log --delay 4000
	put_dirty wb/f1 41 2000000
	wait_line /tmp/eg9.log '^egress wb/f1' 1 30
	[ "$(state wb/f1)" = syncing ] || hc_fail "wb/f1 $(state wb/f1)"
	hc_expect_errno -m "busy" hcctl evict wb/f1
	hc_expect_errno -m "being uploaded" hcctl evict --discard-dirty wb/f1
	hc_expect_errno -m "busy" hc_stage wb/f1 1000
	hcctl pool stop			# with an upload outstanding
	wait_line /tmp/eg9.log '^fail wb/f1\|^done wb/f1' 1 30
	grep -q '^done wb/f1 .*(0)$' /tmp/eg9.log && hc_fail "DONE accepted without a pool"
	hcctl pool assemble $M >/dev/null
	[ "$(state wb/f1)" = syncing ] || [ "$(state wb/f1)" = dirty ] ||
		hc_fail "wb/f1 $(state wb/f1) after assembly"
	hc_wait_clean 60			# re-sent to the registered helper
	check_copy wb/f1 41 2000000
	# the module is unloaded with an egress helper registered and an
	# upload outstanding (stage end)
	put_dirty wb/f2 42 1000
	_i=0
	while [ "$(state wb/f2)" != syncing ]; do
		_i=$((_i + 1))
		[ $_i -lt 300 ] || hc_fail "wb/f2 was not sent"
		sleep 0.1
	done
}

t_crash_put() {
	hcctl pool assemble $M >/dev/null
	put_dirty wb/e0 50 3000000
	start_egress /tmp/eg10.log
	hc_wait_clean 60
	stop_egress
	for n in 1 2 3; do
		put_dirty wb/e$n $((50 + n)) $((n * 1500000))
	done
	[ "$(stat dirty)" = 3 ] || hc_fail "$(stat dirty) dirty, not 3"
	echo HC-EGRESS-KILL >/dev/console
	sleep 60
	hc_fail "the host did not kill the guest"
}

t_crash_recover() {
	hcctl pool assemble $M >/dev/null
	[ "$(state wb/e0)" = ready ] || hc_fail "the cleaned wb/e0 is $(state wb/e0)"
	for n in 1 2 3; do
		[ "$(state wb/e$n)" = dirty ] || hc_fail "wb/e$n $(state wb/e$n) after the crash"
	done
	[ "$(stat dirty)" = 3 ] || hc_fail "$(stat dirty) dirty, not 3"
	# commit order survives a pin (a newer record of the same dirty
	# generation) and the compaction of every assembly
	hcctl pin wb/e1
	hcctl pool stop
	hcctl pool assemble $M >/dev/null
	hcctl unpin wb/e1
	start_egress /tmp/eg11.log
	hc_wait_clean 60
	order=$(grep '^egress ' /tmp/eg11.log | awk '{print $2}' | tr '\n' ' ')
	[ "$order" = "wb/e1 wb/e2 wb/e3 " ] || hc_fail "after the crash: $order"
	for n in 1 2 3; do
		check_copy wb/e$n $((50 + n)) $((n * 1500000))
	done
	hc_check_cache "after the replayed uploads"
	stop_egress
	# a clean restart keeps READY objects READY
	hcctl pool stop
	hcctl pool assemble $M >/dev/null
	[ "$(stat dirty)" = 0 ] || hc_fail "dirty objects after a clean restart"
	[ "$(state wb/e3)" = ready ] || hc_fail "wb/e3 $(state wb/e3)"
	hcctl pool stop
}

case "$phase" in
1)
	hc_test egress-commit-order t_order
	hc_test egress-retry t_retry
	hc_test egress-helper-killed t_killed
	hc_test egress-one-helper t_one_egress
	hc_test egress-dirty-limit t_dirty_limit
	hc_test egress-window-param t_window_param
	hc_test egress-resend t_resend
	hc_test egress-permanent t_permanent
	hc_test egress-stop-outstanding t_stop_outstanding
	;;
2) hc_test egress-crash-put t_crash_put ;;
3) hc_test egress-crash-recover t_crash_recover ;;
*) echo "stage-egress: phase=1, 2 or 3" >&2; exit 2 ;;
esac
