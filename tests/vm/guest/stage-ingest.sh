#!/bin/sh
# Usage (guest, via /init): stage-ingest.sh   (3 fresh drives of 128 MiB)
#
# The kernel's helper channel, served by hc_fakehelper (a stand-in for
# hypercached that fetches "file:PATH" URIs from the guest's own files):
# a cold miss is ingested and becomes a hit, byte-identical; a missing
# file is ENOENT for the reader and caches nothing; one helper at a time;
# a helper killed in the middle of an ingest leaves the request to the
# next one, and the waiting reader gets its data.
. /hc/tests/lib.sh

M="$(hc_drive 0) $(hc_drive 1) $(hc_drive 2)"

start_helper() {
	: >/tmp/helper.out
	hc_fakehelper "$@" >/tmp/helper.out 2>&1 &
	echo $! >/tmp/helper.pid
	i=0
	while ! grep -q registered /tmp/helper.out; do
		i=$((i + 1))
		[ $i -lt 50 ] || { cat /tmp/helper.out; hc_fail "helper did not register"; }
		sleep 0.1
	done
}

# wait_allocated: until the stalling helper (start_helper --stall) has its
# request allocated
wait_allocated() {
	i=0
	while ! grep -q allocated /tmp/helper.out; do
		i=$((i + 1))
		[ $i -lt 100 ] || hc_fail "the stalling helper got no request"
		sleep 0.1
	done
}

# read_back_and_stop PATH: file:PATH reads back equal to PATH; then the
# helper and the pool stop
read_back_and_stop() {
	hcctl get --no-progress -o /tmp/got "file:$1"
	cmp "$1" /tmp/got || hc_fail "file:$1: data differs"
	stop_helper
	hcctl pool stop
}

stop_helper() {
	kill -9 "$(cat /tmp/helper.pid)" 2>/dev/null || true
	sleep 0.3
}

t_miss_ingest_hit() {
	hcctl pool create $M >/dev/null
	start_helper
	for n in 1 4194303 4194304 4194305 13000000; do
		hc_pattern $n $n >/tmp/src.$n
		out=$(hc_obj ingest 20000 file:/tmp/src.$n)
		echo "$out" | grep -q '^status=hit' || hc_fail "size $n: $out"
		hcctl get --no-progress -o /tmp/got file:/tmp/src.$n
		cmp /tmp/src.$n /tmp/got || hc_fail "size $n: data differs"
		hcctl locate --json file:/tmp/src.$n | grep -q '"state":"ready"' ||
			hc_fail "size $n: not ready"
	done
	# hcctl get itself: a cold miss through the helper, then warm
	hc_pattern 99 6000000 >/tmp/src.get
	hcctl get --no-progress --timeout 60 -o /tmp/got file:/tmp/src.get
	cmp /tmp/src.get /tmp/got || hc_fail "hcctl get of a cold object differs"
	# now a warm hit, no helper involved
	stop_helper
	hc_obj ingest 1000 file:/tmp/src.1 | grep -q '^status=hit' ||
		hc_fail "warm hit"
	hcctl get --no-progress --timeout 5 -o /tmp/got file:/tmp/src.get
	cmp /tmp/src.get /tmp/got || hc_fail "warm hcctl get differs"
	# no helper: a cold get or preload fails at once, saying why (they
	# used to wait out --timeout, then "not fetched within 30 s"); nothing
	# is left pending for the URI
	read -r t0 _ </proc/uptime
	hc_expect_errno -m "no ingest helper is registered" \
		hcctl get --no-progress --timeout 30 -o /tmp/got file:/tmp/src.4194304x
	hc_expect_errno -m "no ingest helper is registered" \
		hcctl preload --timeout 30 file:/tmp/src.4194304y
	read -r t1 _ </proc/uptime
	awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 10) }' ||
		hc_fail "the refusals took $t0 .. $t1 s (they waited for a helper)"
	hc_obj locate file:/tmp/src.4194304x | grep -q '^status=miss' ||
		hc_fail "the refused get left the URI indexed"
}

t_missing_key() {
	start_helper
	out=$(hc_obj ingest 20000 file:/tmp/does-not-exist) && hc_fail "no error: $out"
	echo "$out" | grep -q "No such file" || hc_fail "not ENOENT: $out"
	hc_expect_errno -m "No such file" \
		hcctl get --no-progress --timeout 20 file:/tmp/does-not-either
	hcctl ls --json | grep -q does-not-exist && hc_fail "a failed ingest stayed cached"
	stop_helper
}

t_one_helper() {
	start_helper
	hc_expect_errno -m "busy|Device or resource busy|register" hc_fakehelper --once
	stop_helper
}

t_helper_killed() {
	hc_pattern 7 9000000 >/tmp/src.kill
	start_helper --stall
	hc_obj ingest 60000 file:/tmp/src.kill >/tmp/reader.out &
	reader=$!
	wait_allocated
	stop_helper			# kill -9 in the middle of the ingest
	kill -0 $reader 2>/dev/null || hc_fail "the reader gave up when the helper died"
	start_helper			# the next helper gets the request again
	wait $reader || true
	grep -q '^status=hit' /tmp/reader.out || hc_fail "reader: $(cat /tmp/reader.out)"
	hcctl get --no-progress -o /tmp/got file:/tmp/src.kill
	cmp /tmp/src.kill /tmp/got || hc_fail "data differs after the helper restart"
	hc_check_cache "after the adopted ingest"
	stop_helper
	hcctl pool stop
}

# fresh_pool: a new pool, whatever an earlier failed test left behind (a
# pool, a registered stand-in helper), so that one failure does not hide
# the next test's result
fresh_pool() {
	killall -9 hc_nlpoke hc_fakehelper hc_fakeegress 2>/dev/null || true
	sleep 0.3
	hcctl pool stop >/dev/null 2>&1 || true
	hcctl pool create --force $M >/dev/null
}

# INGEST_DONE: the helper does not flush (hc_fakehelper has no fdatasync),
# the kernel does.  In the block layer's trace, every member gets an empty
# flush after the object's last data write and before the first write of
# its READY record (a REQ_META write): the record is mirrored one member
# after another, and replay takes a record found on one member only
# (journal.md), so the data must be durable on all of them before the
# first copy.  The records' own PREFLUSH per member does not do that.
t_flush_before_ready() {
	fresh_pool
	start_helper
	TR=/sys/kernel/tracing
	[ -d $TR/events ] || mount -t tracefs nodev $TR || hc_fail "no tracefs"
	devs=""
	for d in $M; do
		b=$(hc_sysblock "$d")
		devs="$devs $(tr : , <$b/dev)"
		[ "$(cat $b/queue/write_cache)" = "write back" ] ||
			hc_fail "$d has no volatile write cache: no flush to see"
	done
	hc_pattern 7 13000000 >/tmp/src.flush
	: >$TR/trace
	echo 1 >$TR/events/block/block_bio_queue/enable
	echo 1 >$TR/tracing_on
	out=$(hc_obj ingest 20000 file:/tmp/src.flush)
	echo 0 >$TR/tracing_on
	echo 0 >$TR/events/block/block_bio_queue/enable
	echo "$out" | grep -q '^status=hit' || hc_fail "ingest: $out"
	# "block_bio_queue: MAJ,MIN RWBS SECTOR + NR [comm]", members only
	grep -o 'block_bio_queue: .*' $TR/trace |
		awk -v devs="$devs" 'BEGIN { n = split(devs, d, " "); for (i = 1; i <= n; i++) m[d[i]] = 1 }
			$2 in m { print $2, $3, $6 }' >/tmp/bios
	verdict=$(awk -v devs="$devs" '
		BEGIN { n = split(devs, d, " ") }
		# data: a write with sectors, not REQ_META
		$2 ~ /W/ && $2 !~ /M/ && $3 > 0 { last = NR; delete fl; meta = 0; next }
		!last { next }
		# an empty flush after the last data write
		$2 ~ /^F/ && $3 == 0 && !meta { fl[$1] = 1; next }
		$2 ~ /M/ && !meta { meta = NR
			for (i = 1; i <= n; i++) if (!(d[i] in fl)) miss = miss " " d[i] }
		END {
			if (!last) print "no data write"
			else if (!meta) print "no record written after the data"
			else if (miss != "") print "not flushed before the record:" miss
			else print "ok" }' /tmp/bios)
	[ "$verdict" = ok ] || { cat /tmp/bios; hc_fail "$verdict"; }
	read_back_and_stop /tmp/src.flush
}

# A reader waiting for its object's ingest sleeps until that object
# changes, not at every change of any object: while it waits (the helper
# stalls after the allocation), 40 puts of other objects (each a STAGE
# and a COMMIT) must not wake it (its voluntary context switches; a few
# may share its wait queue's bucket).  They woke it at every state change
# of every object: with preload-batch's 64 waiters, 64 wake-ups per change
# (benchmarks.md, "One wait queue per URI").
t_wait_own_object() {
	fresh_pool
	hc_pattern 3 5000000 >/tmp/src.wait
	start_helper --stall
	hc_obj ingest 120000 file:/tmp/src.wait >/tmp/reader.out &
	reader=$!
	wait_allocated
	sleep 0.5
	cs() { sed -n 's/^voluntary_ctxt_switches:[[:space:]]*//p' /proc/$reader/status; }
	c0=$(cs)
	head -c 4096 /dev/urandom >/tmp/other
	for n in $(seq 1 40); do
		hcctl put --clean --no-progress /tmp/other "file:/tmp/other.$n" >/dev/null ||
			hc_fail "put of other.$n failed"
	done
	c1=$(cs)
	hc_log "the waiting reader: $((c1 - c0)) wake-ups during 40 puts of other objects"
	alive=yes
	kill -0 $reader 2>/dev/null || alive=no
	stop_helper
	start_helper			# the next helper gets the request again
	wait $reader || true
	[ $alive = yes ] || hc_fail "the reader ended early: $(cat /tmp/reader.out)"
	grep -q '^status=hit' /tmp/reader.out || hc_fail "reader: $(cat /tmp/reader.out)"
	[ $((c1 - c0)) -le 5 ] || { stop_helper; hcctl pool stop
		hc_fail "the waiting reader woke $((c1 - c0)) times for 40 other objects' puts"; }
	read_back_and_stop /tmp/src.wait
}

# Each operation accepts its own request attributes only (one policy per
# operation): reply-only attributes are refused before the handler runs.
t_request_attrs() {
	fresh_pool
	# INGEST_DONE (13) with ADMITTED (6, reply-only): EINVAL, not the
	# handler's "not the registered helper"
	hc_expect_errno -m "Invalid argument" hc_nlpoke send 13 u64:2=1 u8:6=1
	hc_expect_errno -m "not permitted" hc_nlpoke send 13 u64:2=1
	# POOL_GET (4) with STATE (3), STATS_GET (9) with HITS (3)
	hc_expect_errno -m "Invalid argument" hc_nlpoke send 4 u32:3=1
	hc_nlpoke send 4 >/dev/null || hc_fail "a plain POOL_GET failed"
	hc_expect_errno -m "Invalid argument" hc_nlpoke send 9 u64:3=1
	# EGRESS_DONE (17) with SIZE (4) and ADMITTED (6)
	hc_expect_errno -m "Invalid argument" \
		hc_nlpoke send 17 u64:2=1 hex:3=6161 u64:4=1
	hc_expect_errno -m "Invalid argument" \
		hc_nlpoke send 17 u64:2=1 hex:3=6161 u8:6=1
	hc_expect_errno -m "not permitted" hc_nlpoke send 17 u64:2=1 hex:3=6161
	# HELPER_REGISTER (10) with anything
	hc_expect_errno -m "Invalid argument" hc_nlpoke send 10 u64:2=1
	hcctl pool stop
}

# Request ids are unique while the module is loaded: a helper that
# survives a pool stop and create cannot answer the new pool's request
# with the old pool's id (ids used to restart at 1 with every pool).
t_stale_id() {
	fresh_pool
	fifo_start /tmp/stale.out hc_nlpoke stale-helper
	hc_obj ingest 1 file:/tmp/stale.a >/dev/null 2>&1 || true
	i=0
	while ! grep -q "^first " /tmp/stale.out; do
		i=$((i + 1))
		[ $i -lt 50 ] || { cat /tmp/stale.out; hc_fail "no first request"; }
		sleep 0.1
	done
	hcctl pool stop
	hcctl pool create --force $M >/dev/null
	hc_obj ingest 1 file:/tmp/stale.b >/dev/null 2>&1 || true
	echo go >&3
	exec 3>&-
	wait $pid || hc_fail "stale-helper: $(cat /tmp/stale.out)"
	cat /tmp/stale.out
	grep -q "^stale-id: error: No such file" /tmp/stale.out ||
		hc_fail "the old pool's id was accepted: $(cat /tmp/stale.out)"
	grep -q "^first .* pool=1" /tmp/stale.out || hc_fail "no pool UUID in INGEST"
	grep -q "^stale-uuid: error: Stale" /tmp/stale.out ||
		hc_fail "another pool's UUID was accepted: $(cat /tmp/stale.out)"
	hcctl locate --json file:/tmp/stale.b | grep -q '"state":"ingesting"' ||
		hc_fail "file:/tmp/stale.b changed: $(hcctl locate --json file:/tmp/stale.b)"
	hcctl pool stop
}

# The helpers' registrations end only when *their* sockets close: an
# unprivileged user that binds the same port numbers in a user and network
# namespace of its own and closes them changes nothing.
t_helper_netns() {
	fresh_pool
	start_helper
	: >/tmp/egress.out
	hc_fakeegress --out /tmp >/tmp/egress.out 2>&1 &
	epid=$!
	i=0
	while ! grep -q registered /tmp/egress.out; do
		i=$((i + 1))
		[ $i -lt 50 ] || { cat /tmp/egress.out; hc_fail "egress helper did not register"; }
		sleep 0.1
	done
	port=$(dmesg | sed -n 's/.*hypercache: helper registered (port \([0-9]*\)).*/\1/p' | tail -n 1)
	eport=$(dmesg | sed -n 's/.*hypercache: egress helper registered (port \([0-9]*\)).*/\1/p' | tail -n 1)
	[ -n "$port" ] && [ -n "$eport" ] || hc_fail "no ports in dmesg"
	gone=$(dmesg | grep -c "went away" || true)
	hc_runas 65534 hc_nlpoke bind "$port" || hc_fail "cannot bind $port in a new namespace"
	hc_runas 65534 hc_nlpoke bind "$eport" || hc_fail "cannot bind $eport in a new namespace"
	sleep 0.3
	[ "$(dmesg | grep -c "went away" || true)" = "$gone" ] ||
		hc_fail "another namespace's socket ended a registration: $(dmesg | grep 'went away' | tail -n 2)"
	hc_expect_errno -m "busy" hc_fakehelper --once
	hc_expect_errno -m "busy" hc_fakeegress --out /tmp
	hc_pattern 11 5000 >/tmp/src.ns
	hc_obj ingest 20000 file:/tmp/src.ns | grep -q '^status=hit' ||
		hc_fail "the helper no longer serves"
	kill -9 $epid
	stop_helper
	hcctl pool stop
}

P=/sys/module/hypercache/parameters

# fifo_start LOG CMD...: run CMD with its stdin on the fifo /tmp/go (fd 3
# here) until LOG says "register: ok"; its pid is in $pid
fifo_start() {
	_log=$1
	shift
	rm -f /tmp/go
	mkfifo /tmp/go
	"$@" </tmp/go >"$_log" 2>&1 &
	pid=$!
	exec 3>/tmp/go
	_i=0
	while ! grep -q "register: ok" "$_log"; do
		_i=$((_i + 1))
		[ $_i -lt 50 ] || { cat "$_log"; hc_fail "$_log: no registration"; }
		sleep 0.1
	done
}

# A read-only opener cannot pile up INGESTING objects: max_ingests per
# pool (validated when set), EAGAIN past it; and a writer's STAGE with
# REPLACE takes over a pending ingest (it used to be EBUSY forever).
t_bound() {
	fresh_pool
	[ "$(cat $P/max_ingests)" = 1024 ] || hc_fail "default max_ingests $(cat $P/max_ingests)"
	for v in 0 65537 x; do
		if echo $v >$P/max_ingests 2>/dev/null; then
			hc_fail "max_ingests=$v accepted"
		fi
	done
	echo 4 >$P/max_ingests
	for n in 1 2 3 4; do
		out=$(hc_obj --ro ingest 1 file:/tmp/bound.$n) && hc_fail "bound.$n: $out"
		echo "$out" | grep -q ETIMEDOUT || hc_fail "bound.$n: $out"
	done
	out=$(hc_obj --ro ingest 1 file:/tmp/bound.5) && hc_fail "the 5th ingest: $out"
	echo "$out" | grep -q "Resource temporarily unavailable" || hc_fail "the 5th ingest: $out"
	hc_obj locate file:/tmp/bound.5 | grep -q '^status=miss' || hc_fail "bound.5 indexed"
	hc_obj locate file:/tmp/bound.4 | grep -q '^status=pending' || hc_fail "bound.4 not pending"
	hc_pattern 3 5000 >/tmp/bound.w
	hc_expect_errno -m "exists" hcctl put --clean --no-progress /tmp/bound.w file:/tmp/bound.1
	: >/tmp/bwait.out
	hc_obj wait 20000 file:/tmp/bound.1 >/tmp/bwait.out 2>&1 &
	wpid=$!
	sleep 0.5
	hcctl put --clean --replace --no-progress /tmp/bound.w file:/tmp/bound.1 >/dev/null ||
		hc_fail "REPLACE of a pending ingest failed"
	wait $wpid || true
	grep -q '^status=hit' /tmp/bwait.out || hc_fail "the waiting reader: $(cat /tmp/bwait.out)"
	hcctl get --no-progress -o /tmp/got file:/tmp/bound.1
	cmp /tmp/bound.w /tmp/got || hc_fail "the writer's data differs"
	# room again below the bound
	out=$(hc_obj --ro ingest 1 file:/tmp/bound.5) || true
	echo "$out" | grep -q ETIMEDOUT || hc_fail "bound.5 after the takeover: $out"
	echo 1024 >$P/max_ingests
	hcctl pool stop
}

# Without a helper a request ends after ingest_timeout_ms (EHOSTDOWN for
# its readers) instead of blocking its URI forever.
t_expire() {
	fresh_pool
	[ "$(cat $P/ingest_timeout_ms)" = 60000 ] || hc_fail "default ingest_timeout_ms"
	for v in 0 x; do
		if echo $v >$P/ingest_timeout_ms 2>/dev/null; then
			hc_fail "ingest_timeout_ms=$v accepted"
		fi
	done
	echo 1500 >$P/ingest_timeout_ms
	out=$(hc_obj --ro ingest 10000 file:/tmp/expire.a) && hc_fail "no error: $out"
	echo "$out"
	echo "$out" | grep -q "Host is down" || hc_fail "not EHOSTDOWN: $out"
	ms=${out##*elapsed_ms=}
	[ "$ms" -ge 1400 ] && [ "$ms" -lt 8000 ] || hc_fail "ended after $ms ms"
	hc_obj locate file:/tmp/expire.a | grep -q '^status=miss' || hc_fail "still indexed"
	hc_check_cache "after the expiry"
	echo 60000 >$P/ingest_timeout_ms
	hcctl pool stop
}

# A request the helper could not take (its receive queue full) is sent
# again (the result of the unicast used to be ignored: lost until the
# next registration).
t_resend() {
	fresh_pool
	fifo_start /tmp/slow.out hc_nlpoke slow 10 8
	for n in 1 2 3 4 5 6 7 8 9 10 11 12; do
		hc_obj --ro ingest 1 file:/tmp/resend.$n >/dev/null 2>&1 || true
	done
	echo go >&3
	exec 3>&-
	wait $pid || true
	cat /tmp/slow.out
	grep -q '^received 12$' /tmp/slow.out ||
		hc_fail "undelivered requests were not sent again: $(cat /tmp/slow.out)"
	hcctl pool stop
}

# INGEST_ALLOC of more than the pool holds, or near 2^64 (the chunk count
# wrapped to 0), is EFBIG and leaves the request as it was.
t_alloc_efbig() {
	fresh_pool
	cap=$(hcctl stats --json | sed -n 's/.*"capacity":\([0-9]*\).*/\1/p')
	[ -n "$cap" ] || hc_fail "no capacity"
	: >/tmp/alloc.out
	hc_nlpoke alloc-helper 18446744073709551615 $((cap + 1)) 4096 >/tmp/alloc.out 2>&1 &
	pid=$!
	i=0
	while ! grep -q "register: ok" /tmp/alloc.out; do
		i=$((i + 1))
		[ $i -lt 50 ] || { cat /tmp/alloc.out; hc_fail "no registration"; }
		sleep 0.1
	done
	hc_obj --ro ingest 1 file:/tmp/efbig >/dev/null 2>&1 || true
	wait $pid || true
	cat /tmp/alloc.out
	grep -q "^alloc 18446744073709551615: error: File too large" /tmp/alloc.out ||
		hc_fail "2^64 - 1 bytes: $(cat /tmp/alloc.out)"
	grep -q "^alloc $((cap + 1)): error: File too large" /tmp/alloc.out ||
		hc_fail "capacity + 1 bytes: $(cat /tmp/alloc.out)"
	grep -q "^alloc 4096: ok" /tmp/alloc.out ||
		hc_fail "the request did not survive: $(cat /tmp/alloc.out)"
	hcctl pool stop
}

hc_test ingest-miss-then-hit t_miss_ingest_hit
hc_test ingest-missing-key t_missing_key
hc_test ingest-one-helper t_one_helper
hc_test ingest-helper-killed t_helper_killed
hc_test ingest-request-attrs t_request_attrs
hc_test ingest-stale-id t_stale_id
hc_test ingest-helper-netns t_helper_netns
hc_test ingest-bound t_bound
hc_test ingest-expire t_expire
hc_test ingest-resend t_resend
hc_test ingest-alloc-efbig t_alloc_efbig
hc_test ingest-flush-before-ready t_flush_before_ready
hc_test ingest-wait-own-object t_wait_own_object
