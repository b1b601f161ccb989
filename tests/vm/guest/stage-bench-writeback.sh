#!/bin/sh
# Usage (guest, via /init; host side: scripts/bench-writeback.sh):
#   stage-bench-writeback.sh bucket=B size_mb=M [rounds=R]
#
# A BENCHMARK (its smoke run is the test 97-bench/bench-writeback.sh).  A
# checkpoint of M MiB (random) written to s3://B/ through the cache
# (hcctl put --sync: the time until put returns,
# i.e. STAGE + write + COMMIT, and the time until hypercached's upload is
# acknowledged) against a synchronous upload of the same bytes to the same
# gateway with curl; each as
#   hc: bench-writeback NAME SECONDS MB/s
. /hc/tests/lib.sh

rounds=3 size_mb=256
for a in "$@"; do
	case "$a" in
	bucket=*) bucket=${a#bucket=} ;;
	size_mb=*) size_mb=${a#size_mb=} ;;
	rounds=*) rounds=${a#rounds=} ;;
	*) echo "stage-bench-writeback: unknown argument $a" >&2; exit 2 ;;
	esac
done
EP=${HC_S3_ENDPOINT:-http://10.0.2.2:7480}
size=$((size_mb * 1048576))

now() { cut -d' ' -f1 /proc/uptime; }

s3curl() {
	curl -sS --fail --aws-sigv4 aws:amz:us-east-1:s3 --user RGWAK:RGWSECRET \
		-H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$@"
}

report() {
	awk -v n="$1" -v t="$2" -v s="$size" 'BEGIN {
		printf "hc: bench-writeback %s %.3f s %.1f MB/s\n", n, t, s / t / 1e6 }'
}

t_bench() {
	hcctl pool create "$(hc_drive 0)" "$(hc_drive 1)" "$(hc_drive 2)" >/dev/null
	cat >/tmp/hc.conf <<-EOT
	[hypercached]
	log_level = info
	default_backend = rgw

	[backend rgw]
	type = s3
	endpoint = $EP
	access_key = RGWAK
	secret_key = RGWSECRET
	EOT
	: >/tmp/hcd.out
	hypercached -c /tmp/hc.conf >/tmp/hcd.out 2>&1 &
	hcd=$!
	sleep 1
	head -c "$size" /dev/urandom >/tmp/ckpt
	r=0
	while [ $r -lt "$rounds" ]; do
		t0=$(now)
		s3curl -T /tmp/ckpt "$EP/$bucket/curl-$r" >/dev/null || hc_fail "curl PUT failed"
		report curl-sync-put "$(awk -v a="$t0" -v b="$(now)" 'BEGIN { print b - a }')"
		hcctl put --sync --no-progress --json /tmp/ckpt "s3://$bucket/hc-$r" >/tmp/put.json ||
			{ cat /tmp/put.json; tail /tmp/hcd.out; hc_fail "put --sync failed"; }
		c=$(sed -n 's/.*"commit_seconds": *\([0-9.e-]*\).*/\1/p' /tmp/put.json)
		s=$(sed -n 's/.*"sync_seconds": *\([0-9.e-]*\).*/\1/p' /tmp/put.json)
		[ -n "$c" ] && [ -n "$s" ] || { cat /tmp/put.json; hc_fail "no times in put --json"; }
		report hc-put-returns "$c"
		report hc-egress "$s"
		hcctl evict "s3://$bucket/hc-$r" >/dev/null
		r=$((r + 1))
	done
	grep "uploaded\|egress" /tmp/hcd.out | tail -n 3
	kill $hcd
	wait $hcd 2>/dev/null || true
	hcctl pool stop
}

hc_test bench-writeback t_bench
