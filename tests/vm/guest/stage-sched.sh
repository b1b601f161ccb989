#!/bin/sh
# Usage (guest, via /init): stage-sched.sh [n=N] [max=KIB] [flights=A:B:...]
#                                          [kill=0|1] [egress=0|1] [trace=0|1]
# (3 fresh drives, --s3)
#
# hypercached's scheduler against the real S3 gateway: many objects in
# flight at once (max_objects_in_flight), each byte-equal and ingested once.
#   sched-setup      the pool, a bucket, N objects (default 50) of 64 KiB
#                    to max KiB (default 4096), their SHA-256 noted
#   sched-flight-F   preload-batch of all N with max_objects_in_flight F
#                    (default flights 16:1): every object ingested exactly
#                    once and SHA-256-equal to what was put; at most F and,
#                    for F > 1, more than one object in flight at a time; the
#                    aggregate GB/s logged; then everything evicted
#   sched-egress     8 DIRTY objects of 6 MiB (2 parts each) committed
#                    before hypercached starts: uploaded concurrently, at
#                    most max_objects_in_flight (4) and more than one at a
#                    time, each once, SHA-256-equal in S3, no unfinished
#                    multipart upload left
#   sched-killed     kill -9 of hypercached with 16 objects in flight: after
#                    the restart every waiting reader gets its data, no
#                    object ingested twice, the allocated ones re-sent
. /hc/tests/lib.sh
. /hc/tests/s3lib.sh

N=50 MAX_KIB=4096 FLIGHTS=16:1 KILL=1 TRACE=0 EGRESS=1
for a in "$@"; do
	case $a in
	n=*) N=${a#n=} ;;
	max=*) MAX_KIB=${a#max=} ;;
	flights=*) FLIGHTS=${a#flights=} ;;
	kill=*) KILL=${a#kill=} ;;
	trace=*) TRACE=${a#trace=} ;;
	egress=*) EGRESS=${a#egress=} ;;
	esac
done

# size I: 64 KiB to MAX_KIB, spread (the 4 KiB tails differ too)
obj_size() {
	echo $(( (($1 * 7919) % (MAX_KIB / 64 - 3) + 1) * 65536 + ($1 % 3) * 4096 + $1 % 5 ))
}

t_setup() {
	hcctl pool create $M >/dev/null
	s3curl -X PUT "$EP/$BUCKET" >/dev/null || hc_fail "cannot create bucket $BUCKET at $EP"
	i=0
	: >/tmp/sums
	while [ $i -lt "$N" ]; do
		hc_pattern $((i + 100)) "$(obj_size $i)" >/tmp/src
		s3put /tmp/src "many/o$(printf %04d $i)"
		echo "$(sha /tmp/src) o$(printf %04d $i)" >>/tmp/sums
		i=$((i + 1))
	done
	rm -f /tmp/src
	: >/tmp/hcd.out
}

# The most objects in flight at once that the log lines from line $1 show.
max_in_flight() {
	tail -n +"$1" /tmp/hcd.out |
		sed -n 's/.*: started, \([0-9]*\) objects* in flight/\1/p' |
		sort -n | tail -n 1
}

TR=/sys/kernel/tracing
trace_on() {
	[ -d $TR/events ] || mount -t tracefs nodev $TR || hc_fail "no tracefs"
	echo 8192 >$TR/buffer_size_kb
	: >$TR/trace
	for ev in hc_locate hc_ingest_request hc_ingest_alloc hc_ingest_done \
		hc_journal_append; do
		echo 1 >$TR/events/hypercache/$ev/enable
	done
	echo 1 >$TR/tracing_on
}

trace_off() {
	echo 0 >$TR/tracing_on
	echo 0 >$TR/events/hypercache/enable
	grep -v '^#' $TR/trace | sed 's/^/TRACE /'
}

# What starting a program costs here: hcctl (no work), curl, a listing.
startup_times() {
	for c in "hcctl --version" "curl --version" \
		"hcctl preload-batch --config /tmp/hc.conf --list --prefix s3://$BUCKET/many/o"; do
		a=$(cut -d" " -f1 /proc/uptime)
		$c >/dev/null
		b=$(cut -d" " -f1 /proc/uptime)
		hc_log "$(awk "BEGIN { printf \"%.2f s\", $b - $a }"): $c"
	done
}

# flight F: preload everything with max_objects_in_flight F
flight() {
	f=$1
	write_conf max_objects_in_flight="$f"
	start_daemon "$(($(grep -c registered /tmp/hcd.out) + 1))"
	from=$(($(wc -l </tmp/hcd.out) + 1))
	[ "$TRACE" = 0 ] || trace_on
	t0=$(cut -d" " -f1 /proc/uptime)
	hcctl preload-batch --config /tmp/hc.conf --no-progress --json -P 64 \
		--prefix "s3://$BUCKET/many/o" >/tmp/pl.json ||
		{ cat /tmp/pl.json; tail -n 30 /tmp/hcd.out; hc_fail "preload-batch failed"; }
	t1=$(cut -d" " -f1 /proc/uptime)
	[ "$TRACE" = 0 ] || { trace_off; head -c 600 /tmp/pl.json; echo; startup_times; }
	grep -q "\"objects\": *$N" /tmp/pl.json || { cat /tmp/pl.json; hc_fail "not $N objects"; }
	tail -n +"$from" /tmp/hcd.out >/tmp/run.log
	[ "$TRACE" = 0 ] || grep -v "part .*moved\|bytes in .* extents" /tmp/run.log | sed 's/^/HCD /'
	n=$(grep -c "s3://$BUCKET/many/o[0-9]*: ingested" /tmp/run.log)
	[ "$n" = "$N" ] || hc_fail "$n ingests, not $N"
	d=$(sed -n "s|.*s3://$BUCKET/many/\(o[0-9]*\): ingested.*|\1|p" /tmp/run.log | sort | uniq -d)
	[ -z "$d" ] || hc_fail "ingested twice: $d"
	m=$(max_in_flight "$from")
	[ -n "$m" ] && [ "$m" -le "$f" ] || hc_fail "$m objects in flight, limit $f"
	[ "$f" = 1 ] || [ "$m" -gt 1 ] || hc_fail "one object at a time with a limit of $f"
	grep ": ingested \|ingest: [0-9]* objects" /tmp/run.log | tail -n 8
	pl=$(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }")
	hc_log "max_objects_in_flight $f: $N objects in $pl s, at most $m at once"
	[ "$f" = 16 ] && curl_peer "$pl"
	while read -r sum key; do
		hcctl get --no-progress --no-ingest -o /tmp/got "s3://$BUCKET/many/$key" ||
			hc_fail "$key is not cached"
		[ "$(sha /tmp/got)" = "$sum" ] || hc_fail "$key: SHA-256 differs"
		hcctl evict "s3://$BUCKET/many/$key" >/dev/null || hc_fail "cannot evict $key"
	done </tmp/sums
	rm -f /tmp/got
	stop_daemon
}

# The peer, for the figure only: one curl fetching the same objects with
# 16 parallel transfers (curl -Z --parallel-max 16 -K LIST) into files.
curl_peer() {
	mkdir -p /tmp/cz
	while read -r sum key; do
		echo "url = \"$EP/$BUCKET/many/$key\""
		echo "output = \"/tmp/cz/$key\""
	done </tmp/sums >/tmp/curl.K
	t0=$(cut -d" " -f1 /proc/uptime)
	s3curl -Z --parallel-max 16 -K /tmp/curl.K || hc_fail "curl -Z failed"
	t1=$(cut -d" " -f1 /proc/uptime)
	rm -rf /tmp/cz
	hc_log "$(awk "BEGIN { c = $t1 - $t0; printf \"curl -Z --parallel-max 16: %.2f s; preload-batch / curl time: %.2f\", c, $1 / c }")"
}

t_killed() {
	write_conf max_objects_in_flight=16 ingest_concurrency=4 part_size=1M
	SLOW=300 start_daemon "$(($(grep -c registered /tmp/hcd.out) + 1))"
	i=0
	: >/tmp/ksums
	while [ $i -lt 16 ]; do
		hc_pattern $((i + 900)) $((4 * 1048576 + i * 4096 + 1)) >/tmp/src
		s3put /tmp/src "killed/k$i"
		echo "$(sha /tmp/src) k$i" >>/tmp/ksums
		i=$((i + 1))
	done
	rm -f /tmp/src
	from=$(($(wc -l </tmp/hcd.out) + 1))
	pids=""
	i=0
	while [ $i -lt 16 ]; do
		hcctl get --no-progress --timeout 300 -o /tmp/k$i "s3://$BUCKET/killed/k$i" \
			>/tmp/k$i.out 2>&1 &
		pids="$pids $!"
		i=$((i + 1))
	done
	# this run's line, not an earlier flight's
	i=0
	while ! tail -n +"$from" /tmp/hcd.out | grep -q "started, 16 objects in flight"; do
		i=$((i + 1))
		[ $i -lt 300 ] || { tail -n 30 /tmp/hcd.out; hc_fail "never 16 objects in flight"; }
		sleep 0.1
	done
	sleep 0.5
	kill -9 "$(cat /tmp/hcd.pid)"
	n=$(tail -n +"$from" /tmp/hcd.out | grep -c "s3://$BUCKET/killed/k[0-9]*: ingested" || true)
	[ "$n" -lt 16 ] || hc_fail "all 16 were done before the kill"
	write_conf max_objects_in_flight=16
	start_daemon "$(($(grep -c registered /tmp/hcd.out) + 1))"
	for p in $pids; do
		wait "$p" || { cat /tmp/k*.out; tail -n 30 /tmp/hcd.out; hc_fail "a waiting reader failed"; }
	done
	while read -r sum key; do
		[ "$(sha /tmp/$key)" = "$sum" ] || hc_fail "$key: SHA-256 differs"
		c=$(tail -n +"$from" /tmp/hcd.out | grep -c "s3://$BUCKET/killed/$key: ingested" || true)
		# DONE at most once; its log line may be lost with the daemon
		# killed between DONE and the line
		[ "$c" -le 1 ] || { tail -n +"$from" /tmp/hcd.out | grep -v "part .* uploaded" | tail -n 60; hc_fail "$key: ingested $c times"; }
		rm -f /tmp/$key /tmp/$key.out
	done </tmp/ksums
	tail -n +"$from" /tmp/hcd.out | grep -q "killed/k[0-9]* (allocated)" ||
		hc_fail "the new helper did not get the allocated requests"
	stop_daemon
}

# The most uploads in flight at once that the log lines from line $1 show.
max_uploads() {
	tail -n +"$1" /tmp/hcd.out |
		sed -n 's/.*: upload started, \([0-9]*\) objects* in flight/\1/p' |
		sort -n | tail -n 1
}

t_egress() {
	# committed together: all 8 DIRTY before an egress helper registers
	i=0
	: >/tmp/esums
	while [ $i -lt 8 ]; do
		hc_pattern $((i + 500)) $((6 * 1048576 + i * 4096 + i)) >/tmp/src
		hcctl put --no-progress --crc /tmp/src "s3://$BUCKET/ckpt/c$i" >/dev/null ||
			hc_fail "put c$i failed"
		echo "$(sha /tmp/src) c$i" >>/tmp/esums
		i=$((i + 1))
	done
	rm -f /tmp/src
	write_conf max_objects_in_flight=4 ingest_concurrency=4
	from=$(($(wc -l </tmp/hcd.out) + 1))
	start_daemon "$(($(grep -c registered /tmp/hcd.out) + 2))"
	i=0
	while [ "$(tail -n +"$from" /tmp/hcd.out | grep -c "s3://$BUCKET/ckpt/c[0-9]*: uploaded")" -lt 8 ]; do
		i=$((i + 1))
		[ $i -lt 3000 ] || { tail -n 40 /tmp/hcd.out; hc_fail "not all 8 uploaded in 300 s"; }
		sleep 0.1
	done
	tail -n +"$from" /tmp/hcd.out >/tmp/run.log
	grep ": uploaded " /tmp/run.log
	m=$(max_uploads "$from")
	[ -n "$m" ] && [ "$m" -le 4 ] || hc_fail "${m:-no} uploads in flight, limit 4"
	[ "$m" -gt 1 ] || hc_fail "one upload at a time with a limit of 4"
	while read -r sum key; do
		c=$(grep -c "s3://$BUCKET/ckpt/$key: uploaded" /tmp/run.log || true)
		[ "$c" = 1 ] || hc_fail "$key uploaded $c times"
		s3curl -o /tmp/got "$EP/$BUCKET/ckpt/$key" || hc_fail "GET ckpt/$key failed"
		[ "$(sha /tmp/got)" = "$sum" ] || hc_fail "$key: the backend's copy differs"
		s3curl "$EP/$BUCKET?prefix=ckpt%2F$key&uploads=" >/tmp/uploads.xml ||
			hc_fail "cannot list the multipart uploads"
		! tr '<' '\n' </tmp/uploads.xml | grep -q "^Key>ckpt/$key\$" ||
			hc_fail "$key: an unfinished multipart upload remains"
		s3curl -X DELETE "$EP/$BUCKET/ckpt/$key" >/dev/null || true
		hcctl evict "s3://$BUCKET/ckpt/$key" >/dev/null || hc_fail "cannot evict $key"
	done </tmp/esums
	rm -f /tmp/got /tmp/uploads.xml
	hc_log "egress: 8 uploads, at most $m at once"
	stop_daemon
}

hc_test sched-setup t_setup
[ "$EGRESS" = 0 ] || hc_test sched-egress t_egress
for f in $(echo "$FLIGHTS" | tr : ' '); do
	eval "t_flight_$f() { flight $f; }"
	hc_test "sched-flight-$f" "t_flight_$f"
done
[ "$KILL" = 0 ] || hc_test sched-killed t_killed
