#!/bin/sh
# Usage (guest, via /init; 3 drives of 512 MiB, --s3):
#   stage-writeback.sh bucket=B [phase=main]
#   wb-s3-sizes      put (DIRTY) -> hypercached uploads it (single PUT, or a
#                    multipart upload for the big one) -> READY; the gateway's
#                    copy (curl --aws-sigv4) is SHA-256-equal to the source,
#                    for 1 B, 4 MiB - 1, 4 MiB + 1 and 42 MiB (300 MiB with
#                    HC_FULL=1: make check-reliability)
#   wb-posix         the same into a posix backend (a directory): the file
#                    appears whole (never partial, no temporary left)
#   wb-sync          hcctl put --sync returns once the object is clean and
#                    prints the commit latency and the sync time
#   wb-gateway-down  the gateway unreachable while objects are dirty:
#                    uploads fail and are retried (egress_failed grows),
#                    the objects stay DIRTY, and go up when the link returns
#   stage-writeback.sh bucket=B phase=crash1
#       a fresh pool; a 40 MiB (HC_FULL: 100 MiB) DIRTY object; once its multipart upload has
#       sent 2 parts, "HC-CRASH-NOW" on the console: the host kills QEMU
#   stage-writeback.sh bucket=B phase=crash2
#   wb-crash-resume  the same drives assembled, hypercached started: the
#                    unfinished upload left by the crash is aborted, the
#                    object is uploaded exactly once more, verifies, and no
#                    unfinished multipart upload of its key remains
. /hc/tests/lib.sh

phase=main BUCKET=""
for a in "$@"; do
	case "$a" in
	phase=*) phase=${a#phase=} ;;
	bucket=*) BUCKET=${a#bucket=} ;;
	*) echo "stage-writeback: unknown argument $a" >&2; exit 2 ;;
	esac
done
[ -n "$BUCKET" ] || BUCKET=hcwb-$(cut -c1-8 /proc/sys/kernel/random/uuid)

M="$(hc_drive 0) $(hc_drive 1) $(hc_drive 2)"
EP=${HC_S3_ENDPOINT:-http://10.0.2.2:7480}
AK=${HC_S3_ACCESS_KEY:-RGWAK}
SK=${HC_S3_SECRET_KEY:-RGWSECRET}
PROOT=/tmp/wbposix
# the big object is a multipart upload in both runs (8 MiB parts); the
# crash object's 5 MiB parts leave the kill mid-upload either way
if [ "$HC_FULL" = 1 ]; then
	BIG=314572800	# 300 MiB: 38 parts
	CRASH=104857600	# 100 MiB: 20 parts of 5 MiB
else
	BIG=44040192	# 42 MiB: 6 parts
	CRASH=41943040	# 40 MiB: 8 parts of 5 MiB
fi

s3curl() {
	curl -sS --max-time 300 --fail-with-body --aws-sigv4 aws:amz:us-east-1:s3 \
		--user "$AK:$SK" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$@"
}

# write_conf [KEY=VALUE...]: the [hypercached] section, KEY=VALUE replacing
# the test defaults; an s3 backend "rgw" (the default) and a posix "local"
write_conf() {
	{
		echo "[hypercached]"
		for kv in log_level=debug default_backend=rgw ingest_concurrency=4 \
			part_size=8M retry_attempts=2 timeout_connect=3 \
			timeout_request=30; do
			for o in "$@"; do
				[ "${o%%=*}" = "${kv%%=*}" ] && kv=$o
			done
			echo "${kv%%=*} = ${kv#*=}"
		done
		echo
		echo "[backend rgw]"
		echo "type = s3"
		echo "endpoint = $EP"
		echo "access_key = $AK"
		echo "secret_key = $SK"
		echo
		echo "[backend local]"
		echo "type = posix"
		echo "root = $PROOT"
	} >/tmp/hc.conf
}

# start_daemon [N] [--console]: until "registered as the egress helper" N times
start_daemon() {
	rm -f /tmp/hcd.pid
	: >>/tmp/hcd.out	# exists before the first grep -c (else "bad number")
	if [ "$2" = --console ]; then
		hypercached -c /tmp/hc.conf 2>&1 | tee -a /tmp/hcd.out >/dev/console &
		sleep 0.2
		echo $(pidof hypercached) >/tmp/hcd.pid
	else
		hypercached -c /tmp/hc.conf >>/tmp/hcd.out 2>&1 &
		echo $! >/tmp/hcd.pid
	fi
	i=0
	while [ "$(grep -c 'registered as the egress helper' /tmp/hcd.out)" -lt "${1:-1}" ]; do
		i=$((i + 1))
		[ $i -lt 100 ] || { cat /tmp/hcd.out; hc_fail "hypercached did not register for egress"; }
		sleep 0.1
	done
}

stop_daemon() {
	hc_stop "$(cat /tmp/hcd.pid)" hypercached
}

sha() {
	sha256sum "$1" | cut -d' ' -f1
}

state_of() {
	hcctl locate --json "$1" | sed -n 's/.*"state": *"\([a-z]*\)".*/\1/p'
}

# wait_ready URI [SECONDS]: until the object is READY (clean)
wait_ready() {
	i=0
	lim=$((${2:-300} * 10))
	while [ "$(state_of "$1")" != ready ]; do
		i=$((i + 1))
		[ $i -lt $lim ] || { tail -n 30 /tmp/hcd.out; hc_fail "$1: not clean after ${2:-300} s ($(state_of "$1"))"; }
		sleep 0.1
	done
}

# s3_check KEY FILE: the gateway's copy of BUCKET/KEY equals FILE; then
# delete it there (the gateway is shared and small: 3 GiB in RAM)
s3_check() {
	s3curl -o /tmp/got "$EP/$BUCKET/$1" || hc_fail "GET $BUCKET/$1 failed"
	[ "$(sha /tmp/got)" = "$(sha "$2")" ] || hc_fail "$1: the backend's copy differs"
	rm -f /tmp/got
	s3curl -X DELETE "$EP/$BUCKET/$1" >/dev/null || true
}

# unfinished KEY: how many unfinished multipart uploads of exactly KEY
unfinished() {
	# curl 7.88 signs the query as given: sorted, "uploads=" spelt out
	s3curl "$EP/$BUCKET?prefix=$(echo "$1" | sed 's,/,%2F,g')&uploads=" >/tmp/uploads.xml ||
		hc_fail "cannot list the multipart uploads"
	tr '<' '\n' </tmp/uploads.xml | grep -c "^Key>$1\$" || true
}

t_setup() {
	hcctl pool create $M >/dev/null
	s3curl -X PUT "$EP/$BUCKET" >/dev/null || hc_fail "cannot create bucket $BUCKET at $EP"
	mkdir -p $PROOT
	write_conf
	: >/tmp/hcd.out
	start_daemon
}

t_s3_sizes() {
	for n in 1 4194303 4194305 $BIG; do
		u=s3://$BUCKET/wb/o$n
		hc_pattern "$n" "$n" >/tmp/src
		hcctl put --no-progress --crc /tmp/src "$u" >/dev/null || hc_fail "put $n failed"
		wait_ready "$u"
		s3_check "wb/o$n" /tmp/src
		grep "$u: uploaded $n bytes" /tmp/hcd.out ||
			{ tail -n 20 /tmp/hcd.out; hc_fail "o$n: no upload log line"; }
		rm -f /tmp/src
		hc_log "s3 size $n: ok"
	done
	grep -q "s3://$BUCKET/wb/o$BIG: multipart upload" /tmp/hcd.out ||
		hc_fail "$BIG bytes was not a multipart upload"
	[ "$(unfinished wb/o$BIG)" = 0 ] || hc_fail "an unfinished multipart upload remains"
	[ "$(grep -c "s3://$BUCKET/wb/o[0-9]*: uploaded" /tmp/hcd.out)" = 4 ] ||
		hc_fail "not exactly 4 uploads"
}

t_posix() {
	for n in 1 4194303 4194305 $BIG; do
		u=hypercache://local/ckpt/run1/o$n
		f=$PROOT/ckpt/run1/o$n
		hc_pattern "$n" "$n" >/tmp/src
		# watch the target: absent or whole, never partial
		( while :; do
			[ -e "$f" ] && stat -c %s "$f"
			sleep 0.01
		  done ) >/tmp/sizes 2>/dev/null &
		wp=$!
		hcctl put --no-progress --crc /tmp/src "$u" >/dev/null || hc_fail "put $n failed"
		wait_ready "$u"
		kill $wp 2>/dev/null || true
		wait $wp 2>/dev/null || true
		[ "$(sha "$f")" = "$(sha /tmp/src)" ] || hc_fail "$f differs"
		bad=$(grep -v "^$n\$" /tmp/sizes | head -n1)
		[ -z "$bad" ] || hc_fail "$f was seen with $bad bytes (partial)"
		ls -a $PROOT/ckpt/run1 | grep -q hc-tmp && hc_fail "a temporary file is left"
		grep "$u: uploaded $n bytes" /tmp/hcd.out ||
			hc_fail "o$n: no upload log line"
		rm -f /tmp/src "$f"
		hc_log "posix size $n: ok"
	done
}

t_sync() {
	hc_pattern 5 20971520 >/tmp/src
	u=s3://$BUCKET/wb/sync
	hcctl put --no-progress --sync /tmp/src "$u" >/tmp/put.out ||
		{ cat /tmp/put.out; tail /tmp/hcd.out; hc_fail "put --sync failed"; }
	cat /tmp/put.out
	# returned only once clean
	[ "$(state_of "$u")" = ready ] || hc_fail "put --sync returned before the object was clean"
	grep -q "committed in [0-9.]* s, synced [0-9.]* s later" /tmp/put.out ||
		hc_fail "no commit/sync times printed"
	s3_check wb/sync /tmp/src
	hcctl put --no-progress --sync --json --replace /tmp/src "$u" >/tmp/put.json ||
		{ cat /tmp/put.json; hc_fail "put --sync --json failed"; }
	cat /tmp/put.json
	grep -q '"commit_seconds": *[0-9.]' /tmp/put.json || hc_fail "no commit_seconds"
	grep -q '"sync_seconds": *[0-9.]' /tmp/put.json || hc_fail "no sync_seconds"
	grep -q '"state": *"ready"' /tmp/put.json || hc_fail "state is not ready"
	s3_check wb/sync /tmp/src
	rm -f /tmp/src
}

t_gateway_down() {
	stop_daemon
	write_conf retry_attempts=2 timeout_connect=2 timeout_request=5
	start_daemon 2
	before=$(hc_stat egress_failed)
	ip link set eth0 down
	hc_pattern 41 1000000 >/tmp/src1
	hc_pattern 42 20971520 >/tmp/src2
	hcctl put --no-progress /tmp/src1 "s3://$BUCKET/down/o1" >/dev/null || hc_fail "put 1 failed"
	hcctl put --no-progress /tmp/src2 "s3://$BUCKET/down/o2" >/dev/null || hc_fail "put 2 failed"
	# failures, retried: several attempts, the objects stay dirty
	i=0
	while ! grep -q "down/o1: upload of generation [0-9]* failed.*attempt 3" /tmp/hcd.out; do
		i=$((i + 1))
		[ $i -lt 600 ] || { ip link set eth0 up; ip route add default via 10.0.2.2 2>/dev/null;
			tail -n 30 /tmp/hcd.out; hc_fail "no third failed attempt"; }
		sleep 0.1
	done
	after=$(hc_stat egress_failed)
	st1=$(state_of "s3://$BUCKET/down/o1")
	st2=$(state_of "s3://$BUCKET/down/o2")
	ip link set eth0 up
	ip route add default via 10.0.2.2 2>/dev/null || true
	hc_log "egress_failed $before -> $after; states $st1 $st2"
	[ -n "$after" ] && [ "$after" -gt "${before:-0}" ] || hc_fail "egress_failed did not grow"
	case "$st1" in dirty | syncing) ;; *) hc_fail "o1 is $st1 while the gateway is down" ;; esac
	case "$st2" in dirty | syncing) ;; *) hc_fail "o2 is $st2 while the gateway is down" ;; esac
	grep -q "retry in [0-9]* ms" /tmp/hcd.out || hc_fail "no retry delay logged"
	# the link is back: both go up
	wait_ready "s3://$BUCKET/down/o1" 180
	wait_ready "s3://$BUCKET/down/o2" 180
	s3_check down/o1 /tmp/src1
	s3_check down/o2 /tmp/src2
	rm -f /tmp/src1 /tmp/src2
}

t_crash1() {
	hcctl pool create $M >/dev/null
	# the main phase made it; again in case the gateway was reset meanwhile
	s3curl -X PUT "$EP/$BUCKET" >/dev/null 2>&1 || true
	mkdir -p $PROOT
	# one part at a time, 5 MiB parts: 8 (HC_FULL: 20), so the kill lands mid-upload
	write_conf ingest_concurrency=1 part_size=5M
	: >/tmp/hcd.out
	start_daemon 1 --console
	hc_pattern 95 $CRASH >/tmp/src
	hcctl put --no-progress --crc /tmp/src "s3://$BUCKET/crash/o" >/dev/null || hc_fail "put failed"
	rm -f /tmp/src
	i=0
	while ! grep -q "crash/o: part [0-9]* uploaded (2/" /tmp/hcd.out; do
		i=$((i + 1))
		[ $i -lt 1200 ] || { tail -n 20 /tmp/hcd.out; hc_fail "the upload did not start"; }
		sleep 0.05
	done
	echo "HC-CRASH-NOW" >/dev/console
	sleep 600
	hc_fail "the host did not kill the guest"
}

t_crash2() {
	u=s3://$BUCKET/crash/o
	hcctl pool assemble $M >/dev/null
	st=$(state_of "$u")
	[ "$st" = dirty ] || hc_fail "after the crash the object is '$st', not dirty"
	n=$(unfinished crash/o)
	hc_log "unfinished uploads of crash/o after the crash: $n"
	[ "$n" -ge 1 ] || hc_fail "the crash left no unfinished upload (the upload finished before the kill?)"
	mkdir -p $PROOT
	write_conf ingest_concurrency=4 part_size=8M
	: >/tmp/hcd.out
	start_daemon
	wait_ready "$u"
	grep -q "crash/o: aborted $n unfinished multipart upload" /tmp/hcd.out ||
		{ tail -n 20 /tmp/hcd.out; hc_fail "the leftover upload was not aborted"; }
	[ "$(grep -c "$u: uploaded $CRASH bytes" /tmp/hcd.out)" = 1 ] ||
		hc_fail "not uploaded exactly once"
	hc_pattern 95 $CRASH >/tmp/src
	s3_check crash/o /tmp/src
	rm -f /tmp/src
	[ "$(unfinished crash/o)" = 0 ] || hc_fail "an unfinished upload of crash/o remains"
	stop_daemon
	grep "crash/o: uploaded\|crash/o: aborted" /tmp/hcd.out >/dev/console
	s3curl -X DELETE "$EP/$BUCKET" >/dev/null || true
}

case "$phase" in
main)
	hc_test wb-setup t_setup
	hc_test wb-s3-sizes t_s3_sizes
	hc_test wb-posix t_posix
	hc_test wb-sync t_sync
	hc_test wb-gateway-down t_gateway_down
	grep "uploaded [0-9]* bytes" /tmp/hcd.out | sed 's/^/# /'
	cat /tmp/put.out /tmp/put.json 2>/dev/null | sed 's/^/# /'
	stop_daemon
	hcctl pool stop
	;;
crash1)
	t_crash1
	;;
crash2)
	hc_test wb-crash-resume t_crash2
	hcctl pool stop
	;;
*)
	echo "stage-writeback: unknown phase $phase" >&2
	exit 2
	;;
esac
