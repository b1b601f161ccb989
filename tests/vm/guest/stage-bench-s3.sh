#!/bin/sh
# Usage (guest, via /init; host side: scripts/bench-s3.sh):
#   stage-bench-s3.sh bucket=B key=K size=BYTES sha=SHA256 [rounds=R]
#
# A BENCHMARK (its smoke run is the test 97-bench/bench-s3.sh).  With the
# gateway at $HC_S3_ENDPOINT holding s3://B/K: curl single stream, curl 8
# ranges in parallel, cold ingests through hypercached for several
# ingest_concurrency x part_size, and the warm read; each as
#   hc: bench-s3 NAME MB/s SECONDS ratio-to-curl-1
# then hcctl bench --s3-endpoint's four fetches of the same object
# (hcbench-direct-cold, -direct-warm, -cache-cold, -cache-warm: its own
# timing, the same line format, the ratio still to curl-1).
. /hc/tests/lib.sh

rounds=2
for a in "$@"; do
	case "$a" in
	bucket=*) bucket=${a#bucket=} ;;
	key=*) key=${a#key=} ;;
	size=*) size=${a#size=} ;;
	sha=*) sha=${a#sha=} ;;
	rounds=*) rounds=${a#rounds=} ;;
	*) echo "stage-bench-s3: unknown argument $a" >&2; exit 2 ;;
	esac
done
EP=${HC_S3_ENDPOINT:-http://10.0.2.2:7480}
URL=$EP/$bucket/$key
URI=s3://$bucket/$key

now() { cut -d' ' -f1 /proc/uptime; }

s3curl() {
	curl -sS --fail --aws-sigv4 aws:amz:us-east-1:s3 --user RGWAK:RGWSECRET \
		-H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' "$@"
}

# best NAME CMD...: run CMD $rounds times, keep the shortest
best() {
	name=$1
	shift
	b=""
	r=0
	while [ $r -lt "$rounds" ]; do
		t0=$(now)
		"$@" || hc_fail "$name: $* failed"
		t=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { print b - a }')
		if [ -z "$b" ] || awk -v t="$t" -v b="$b" 'BEGIN { exit !(t < b) }'; then b=$t; fi
		r=$((r + 1))
	done
	[ -n "$base" ] || base=$b
	awk -v n="$name" -v s="$size" -v t="$b" -v base="$base" 'BEGIN {
		printf "hc: bench-s3 %s %.1f MB/s %.2f s x%.2f\n", n, s / t / 1e6, t, base / t }' |
		tee /dev/kmsg
}

curl1() { s3curl -o /dev/null "$URL"; }

curl8() {
	part=$(((size + 7) / 8))
	i=0
	while [ $i -lt 8 ]; do
		a=$((i * part))
		z=$((a + part - 1))
		[ $z -lt "$size" ] || z=$((size - 1))
		s3curl -o /dev/null -H "Range: bytes=$a-$z" "$URL" &
		i=$((i + 1))
	done
	wait
}

conf() {
	cat >/tmp/hc.conf <<-EOT
	[hypercached]
	log_level = info
	default_backend = rgw
	ingest_concurrency = $1
	part_size = $2M

	[backend rgw]
	type = s3
	endpoint = $EP
	access_key = RGWAK
	secret_key = RGWSECRET
	EOT
}

# daemon W P: hypercached with W workers of P parts, once registered (a
# cold miss with no helper registered fails at once; the 1 s sleep here
# was a guess, too short on the KASAN kernel)
daemon() {
	[ -f /tmp/hcd.pid ] && { kill "$(cat /tmp/hcd.pid)"; sleep 0.5; }
	conf "$1" "$2"
	: >>/tmp/hcd.out	# exists before the loop's first grep -c
	n=$(grep -c 'registered as the helper ' /tmp/hcd.out || true)
	hypercached -c /tmp/hc.conf >>/tmp/hcd.out 2>&1 &
	echo $! >/tmp/hcd.pid
	i=0
	while [ "$(grep -c 'registered as the helper ' /tmp/hcd.out)" -le "${n:-0}" ]; do
		i=$((i + 1))
		kill -0 "$(cat /tmp/hcd.pid)" 2>/dev/null ||
			{ tail -n 20 /tmp/hcd.out; hc_fail "hypercached exited"; }
		[ $i -lt 300 ] || { tail -n 20 /tmp/hcd.out; hc_fail "hypercached did not register"; }
		sleep 0.1
	done
}

cold() {
	hcctl evict "$URI" >/dev/null 2>&1 || true
	hcctl preload --no-progress --timeout 1200 "$URI" >/dev/null
}

warm() { hcctl get --no-progress -o /dev/null "$URI"; }

# hcctl bench --s3-endpoint on the object (the daemon of the last W x P runs)
hcbench() {
	hcctl bench --s3-endpoint "$EP" --bucket "$bucket" --key "$key" --config /tmp/hc.conf \
		--iterations "$rounds" --keep --json >/tmp/hcbench.json ||
		hc_fail "hcctl bench --s3-endpoint failed: $(cat /tmp/hcbench.json)"
	grep -q "\"sha256\": *\"$sha\"" /tmp/hcbench.json || hc_fail "hcctl bench read another SHA-256"
	i=0
	for name in direct-cold direct-warm cache-cold cache-warm; do
		i=$((i + 1))
		t=$(grep -o '"seconds": *[0-9.e+-]*' /tmp/hcbench.json | sed -n "${i}s/.*: *//p")
		[ -n "$t" ] || hc_fail "no seconds for $name in $(cat /tmp/hcbench.json)"
		awk -v n="hcbench-$name" -v s="$size" -v t="$t" -v base="$base" 'BEGIN {
			printf "hc: bench-s3 %s %.1f MB/s %.2f s x%.2f\n", n, s / t / 1e6, t, base / t }' |
			tee /dev/kmsg
	done
}

t_bench() {
	hcctl pool create "$(hc_drive 0)" "$(hc_drive 1)" "$(hc_drive 2)" >/dev/null
	base=""
	best curl-1 curl1
	best curl-8 curl8
	for wp in 1x8 4x8 8x8 8x16 16x4; do
		daemon "${wp%x*}" "${wp#*x}"
		best "hc-$wp" cold
	done
	best warm warm
	hcbench
	got=$(hcctl get --no-progress "$URI" | sha256sum | cut -d' ' -f1)
	[ "$got" = "$sha" ] || hc_fail "SHA-256 differs"
	grep "ingested" /tmp/hcd.out | tail -n 3
	kill "$(cat /tmp/hcd.pid)"
	hcctl pool stop
}

hc_test bench-s3 t_bench
