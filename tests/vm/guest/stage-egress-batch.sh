#!/bin/sh
# Usage (guest, via /init; 3 drives of 1 GiB, --s3; every object takes a whole chunk):
#   stage-egress-batch.sh bucket=B [phase=main]
#   eb-measure     N small DIRTY objects (1..64 KiB) uploaded by hypercached,
#                  once with egress_batch=N (every EGRESS_DONE waits for its
#                  own journal write) and once with egress_batch=Y (the
#                  READY records batched, group commit): journal flushes
#                  and wall time of each, printed as "# eb:" lines; batched
#                  must take fewer flushes than objects
#   eb-exactly-once  every object of both runs uploaded exactly once (one
#                  "uploaded" line each), READY, and SHA-256-equal in S3
#   stage-egress-batch.sh bucket=B phase=crash1
#       a fresh pool, N small DIRTY objects; once a third of them are
#       uploaded, "HC-CRASH-NOW" on the console: the host kills QEMU while
#       the uploads and their batched READY records stream
#   stage-egress-batch.sh bucket=B phase=crash2
#   eb-crash-none-lost  the same drives assembled: every object is there,
#                  READY (its record was durable) or DIRTY (it was not, or
#                  its upload had not finished); at least one of each kind
#   eb-crash-reupload  hypercached started: exactly the DIRTY ones are
#                  uploaded, once each, the READY ones not again, and every
#                  object is SHA-256-equal in S3
. /hc/tests/lib.sh

phase=main BUCKET=""
for a in "$@"; do
	case "$a" in
	phase=*) phase=${a#phase=} ;;
	bucket=*) BUCKET=${a#bucket=} ;;
	n=[1-9]*) EB_N=${a#n=} ;;
	nc=[1-9]*) EB_NC=${a#nc=} ;;
	*) echo "stage-egress-batch: unknown argument $a" >&2; exit 2 ;;
	esac
done
[ -n "$BUCKET" ] || BUCKET=hceb-$(cut -c1-8 /proc/sys/kernel/random/uuid)

M="$(hc_drive 0) $(hc_drive 1) $(hc_drive 2)"
EP=${HC_S3_ENDPOINT:-http://10.0.2.2:7480}
AK=${HC_S3_ACCESS_KEY:-RGWAK}
SK=${HC_S3_SECRET_KEY:-RGWSECRET}
P=/sys/module/hypercache/parameters
# make check's sizes; the benchmark's figures (benchmarks.md) are of n=500
# nc=300 (HC_EB_N / HC_EB_NC on the host), check-reliability's 2000 / 1000
N=${EB_N:-200}		# objects per measured run
NC=${EB_NC:-120}	# objects of the crash phases
[ "$HC_FULL" = 1 ] && [ -z "${EB_N:-}" ] && { N=2000; NC=1000; }

s3curl() {
	curl -sS --max-time 120 --fail-with-body --aws-sigv4 aws:amz:us-east-1:s3 \
		--user "$AK:$SK" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$@"
}

write_conf() {
	cat >/tmp/hc.conf <<EOF
[hypercached]
log_level = info
default_backend = rgw
max_objects_in_flight = 32
ingest_concurrency = 32
retry_attempts = 2
timeout_connect = 3
timeout_request = 30

[backend rgw]
type = s3
endpoint = $EP
access_key = $AK
secret_key = $SK
EOF
}

start_daemon() {
	: >/tmp/hcd.out
	hypercached -c /tmp/hc.conf >>/tmp/hcd.out 2>&1 &
	echo $! >/tmp/hcd.pid
	i=0
	while ! grep -q 'registered as the egress helper' /tmp/hcd.out; do
		i=$((i + 1))
		[ $i -lt 200 ] || { cat /tmp/hcd.out; hc_fail "hypercached did not register for egress"; }
		sleep 0.1
	done
}

stop_daemon() {
	hc_stop "$(cat /tmp/hcd.pid)" hypercached
}

# size_of I: object I's size, 1 B .. 64 KiB
size_of() {
	echo $(( (($1 * 7919) % 65536) + 1 ))
}

# put_many PREFIX COUNT: COUNT DIRTY objects s3://BUCKET/PREFIX/oI
put_many() {
	i=0
	while [ $i -lt "$2" ]; do
		hc_pattern "$i" "$(size_of $i)" >/tmp/src
		hcctl put --no-progress /tmp/src "s3://$BUCKET/$1/o$i" >/dev/null ||
			hc_fail "put $1/o$i failed"
		i=$((i + 1))
	done
	rm -f /tmp/src
}

# uploads_of PREFIX: how many "uploaded" lines each object of PREFIX has, as
# "COUNT URI" lines
uploads_of() {
	sed -n "s,.*\(s3://$BUCKET/$1/o[0-9]*\): uploaded [0-9]* bytes.*,\1,p" /tmp/hcd.out |
		sort | uniq -c
}

# states PREFIX: "STATE URI" of every cached object of PREFIX (one hcctl ls)
states() {
	hcctl ls "s3://$BUCKET/$1/" | awk 'NR > 1 { print $1, $NF }'
}

# check_s3 PREFIX COUNT: every object still cached READY (the pool holds
# fewer than both runs' objects: the later run evicts clean ones), and
# every one SHA-256-equal in S3 (one curl for all of them, as the TCG guest
# spawns processes slowly)
check_s3() {
	states "$1" >/tmp/states
	nr=$(awk '$1 == "ready"' /tmp/states | wc -l)
	[ "$nr" = "$(wc -l </tmp/states)" ] ||
		{ grep -v '^ready' /tmp/states | head -n 3; hc_fail "$1: cached objects that are not ready"; }
	hc_log "$1: $nr of $2 objects still cached, all ready"
	rm -rf /tmp/got.d /tmp/want.d
	mkdir -p /tmp/got.d /tmp/want.d
	i=0
	while [ $i -lt "$2" ]; do
		echo "url = \"$EP/$BUCKET/$1/o$i\""
		echo "output = \"/tmp/got.d/o$i\""
		hc_pattern "$i" "$(size_of $i)" >/tmp/want.d/o$i
		i=$((i + 1))
	done >/tmp/curl.cfg
	s3curl -Z --parallel-max 8 -K /tmp/curl.cfg || hc_fail "$1: the GETs failed"
	(cd /tmp/got.d && sha256sum o*) | sort >/tmp/got.sum
	(cd /tmp/want.d && sha256sum o*) | sort >/tmp/want.sum
	cmp -s /tmp/got.sum /tmp/want.sum ||
		{ diff /tmp/want.sum /tmp/got.sum | head -n 4; hc_fail "$1: the backend's copies differ"; }
	rm -rf /tmp/got.d /tmp/want.d
}

# run_one MODE PREFIX: N objects put DIRTY, then uploaded with
# egress_batch=MODE; prints the figures
run_one() {
	put_many "$2" $N
	echo "$1" >$P/egress_batch
	f0=$(hc_stat journal_flushes)
	r0=$(hc_stat journal_records)
	read -r t0 _ </proc/uptime
	start_daemon
	hc_wait_clean 900 /tmp/hcd.out
	read -r t1 _ </proc/uptime
	f1=$(hc_stat journal_flushes)
	r1=$(hc_stat journal_records)
	stop_daemon
	hc_log "eb: egress_batch=$1: $N objects, $((r1 - r0)) journal records," \
		"$((f1 - f0)) journal flushes," \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s" \
		"(daemon start to all clean)"
	echo "$((f1 - f0))" >/tmp/flushes.$1
}

t_measure() {
	hcctl pool create $M >/dev/null
	s3curl -X PUT "$EP/$BUCKET" >/dev/null || hc_fail "cannot create bucket $BUCKET at $EP"
	echo 64 >$P/egress_window
	write_conf
	run_one N unbatched
	cp /tmp/hcd.out /tmp/hcd.unbatched
	run_one Y batched
	cat /tmp/hcd.unbatched >>/tmp/hcd.out
	fu=$(cat /tmp/flushes.N)
	fb=$(cat /tmp/flushes.Y)
	# unbatched: one flush per object (a compaction adds a few)
	[ "$fu" -ge $N ] || hc_fail "unbatched: $fu flushes for $N objects"
	[ "$fb" -lt $N ] || hc_fail "batched: $fb flushes for $N objects, no fewer"
}

t_exactly_once() {
	for p in unbatched batched; do
		uploads_of $p >/tmp/up.$p
		n=$(wc -l </tmp/up.$p)
		[ "$n" = $N ] || hc_fail "$p: $n of $N objects uploaded"
		extra=$(awk '$1 != 1' /tmp/up.$p | head -n 3)
		[ -z "$extra" ] || hc_fail "$p: uploaded more than once: $extra"
		check_s3 $p $N
		hc_log "$p: $N objects uploaded once each, SHA-256-equal in S3"
	done
}

t_crash1() {
	hcctl pool create $M >/dev/null
	s3curl -X PUT "$EP/$BUCKET" >/dev/null 2>&1 || true
	echo 64 >$P/egress_window
	write_conf
	put_many crash $NC
	start_daemon
	i=0
	while [ "$(grep -c ': uploaded [0-9]* bytes' /tmp/hcd.out)" -lt $((NC / 3)) ]; do
		i=$((i + 1))
		[ $i -lt 6000 ] || { tail -n 20 /tmp/hcd.out; hc_fail "the uploads did not start"; }
		sleep 0.05
	done
	echo "HC-CRASH-NOW" >/dev/console
	sleep 600
	hc_fail "the host did not kill the guest"
}

t_crash_none_lost() {
	hcctl pool assemble $M >/dev/null
	states crash >/tmp/states
	ready=$(awk '$1 == "ready"' /tmp/states | wc -l)
	dirty=$(awk '$1 == "dirty"' /tmp/states | wc -l)
	awk '$1 == "dirty" { print $2 }' /tmp/states >/tmp/dirty.list
	hc_log "eb: after the crash: $ready ready, $dirty dirty of $NC"
	[ $((ready + dirty)) = $NC ] ||
		{ cat /tmp/states | head; hc_fail "$((ready + dirty)) of $NC objects ready or dirty after the crash (lost?)"; }
	[ $ready -ge 1 ] || hc_fail "no object is ready: the kill came before any upload was recorded"
	[ $dirty -ge 1 ] || hc_fail "no object is dirty: the uploads finished before the kill"
}

t_crash_reupload() {
	write_conf
	start_daemon
	hc_wait_clean 900 /tmp/hcd.out
	stop_daemon
	uploads_of crash >/tmp/up.crash
	awk '$1 != 1' /tmp/up.crash >/tmp/up.bad
	[ ! -s /tmp/up.bad ] || hc_fail "uploaded more than once: $(head -n 3 /tmp/up.bad)"
	awk '{ print $2 }' /tmp/up.crash | sort >/tmp/up.uris
	sort /tmp/dirty.list >/tmp/dirty.sorted
	cmp -s /tmp/up.uris /tmp/dirty.sorted ||
		{ diff /tmp/dirty.sorted /tmp/up.uris | head; hc_fail "the uploaded objects are not exactly the dirty ones"; }
	check_s3 crash $NC
	hc_log "eb: $(wc -l </tmp/up.uris) dirty objects uploaded once each; all $NC SHA-256-equal in S3"
}

case "$phase" in
main)
	hc_test eb-measure t_measure
	hc_test eb-exactly-once t_exactly_once
	grep "hc: eb:" "$HC_RUN"/log.eb-measure | sed 's/^/# /'
	hcctl pool stop
	;;
crash1)
	t_crash1
	;;
crash2)
	hc_test eb-crash-none-lost t_crash_none_lost
	hc_test eb-crash-reupload t_crash_reupload
	grep -h "hc: eb:" "$HC_RUN"/log.eb-crash-* | sed 's/^/# /'
	hcctl pool stop
	s3curl -X DELETE "$EP/$BUCKET" >/dev/null 2>&1 || true
	;;
*)
	echo "stage-egress-batch: unknown phase $phase" >&2
	exit 2
	;;
esac
