#!/bin/sh
# The S3 stages' shared helpers (sourced after lib.sh by stage-s3.sh and
# stage-sched.sh): the gateway ($HC_S3_ENDPOINT), a bucket of the boot's
# own, curl with SigV4, hypercached's configuration, start and stop, and
# waiting for a line of its log (/tmp/hcd.out).

M="$(hc_drive 0) $(hc_drive 1) $(hc_drive 2)"
EP=${HC_S3_ENDPOINT:-http://10.0.2.2:7480}
AK=${HC_S3_ACCESS_KEY:-RGWAK}
SK=${HC_S3_SECRET_KEY:-RGWSECRET}
BUCKET=hcs3-$(cat /proc/sys/kernel/random/uuid | cut -c1-8)

s3curl() {
	curl -sS --fail-with-body --aws-sigv4 aws:amz:us-east-1:s3 \
		--user "$AK:$SK" -H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$@"
}

# s3put FILE KEY
s3put() {
	s3curl -T "$1" "$EP/$BUCKET/$2" >/dev/null ||
		hc_fail "PUT $BUCKET/$2 failed"
}

# write_conf [KEY=VALUE...]: the [hypercached] section, KEY=VALUE replacing
# the test defaults
write_conf() {
	{
		echo "[hypercached]"
		for kv in log_level=debug default_backend=rgw ingest_concurrency=4 \
			part_size=4M retry_attempts=3 timeout_connect=3 \
			timeout_request=20 max_objects_in_flight=4; do
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
		echo "secret_key = ${HC_SECRET:-$SK}"
		# HC_BACKEND_KEYS="KEY=VALUE ...": more keys of [backend rgw]
		for kv in ${HC_BACKEND_KEYS:-}; do
			echo "${kv%%=*} = ${kv#*=}"
		done
	} >/tmp/hc.conf
}

# start_daemon N: start hypercached and wait for its N-th "registered" line
# in the log; $SLOW (ms) delays every part fetch (HC_TEST_FETCH_DELAY_MS) so
# that a test can act mid-ingest without racing it
start_daemon() {
	# one left running by a test that failed before its stop_daemon
	if [ -s /tmp/hcd.pid ] && kill -0 "$(cat /tmp/hcd.pid)" 2>/dev/null; then
		echo "start_daemon: stopping hypercached $(cat /tmp/hcd.pid), left running"
		stop_daemon
	fi
	rm -f /tmp/hcd.pid
	: >>/tmp/hcd.out	# exists before the first grep -c (else "bad number")
	HC_TEST_FETCH_DELAY_MS=${SLOW:-0} hypercached -c /tmp/hc.conf >>/tmp/hcd.out 2>&1 &
	echo $! >/tmp/hcd.pid
	i=0
	while [ "$(grep -c registered /tmp/hcd.out)" -lt "${1:-1}" ]; do
		i=$((i + 1))
		kill -0 "$(cat /tmp/hcd.pid)" 2>/dev/null ||
			{ cat /tmp/hcd.out; hc_fail "hypercached exited"; }
		[ $i -lt 50 ] || { cat /tmp/hcd.out; hc_fail "hypercached did not register"; }
		sleep 0.1
	done
}

stop_daemon() {
	hc_stop "$(cat /tmp/hcd.pid)" hypercached
}

# wait_log PATTERN: until the daemon logged it (<= 30 s)
wait_log() {
	i=0
	while ! grep -q "$1" /tmp/hcd.out; do
		i=$((i + 1))
		[ $i -lt 300 ] || { tail -n 30 /tmp/hcd.out; hc_fail "never logged: $1"; }
		sleep 0.1
	done
}

sha() {
	sha256sum "$1" | cut -d' ' -f1
}

