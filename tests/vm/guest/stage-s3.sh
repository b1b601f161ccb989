#!/bin/sh
# Usage (guest, via /init): stage-s3.sh   (3 fresh drives of 512 MiB, --s3)
#
# hypercached against the real S3 gateway on the host (Ceph radosgw,
# $HC_S3_ENDPOINT, reached through QEMU's user network): objects are put
# there with curl (SigV4) from the guest, then read through the kernel:
#   s3-sizes           cold miss -> ingest -> warm hit, SHA-256 equal, for
#                      0 B, 1 B, 4 MiB - 1, 4 MiB, 4 MiB + 1 and 20 MiB + 1
#                      (100 MiB with HC_FULL=1: make check-reliability)
#   s3-one-ingest      four concurrent readers of one URI: one ingest
#   s3-bench           hcctl bench --s3-endpoint: an uploaded object and an
#                      existing one (--key) fetched directly and through
#                      the cache, cold and warm, SHA-256 equal, --json and
#                      text; one ingest; the uploaded key deleted and nothing
#                      left cached; --keep keeps it; an endpoint no backend
#                      has is refused; a cached chunk corrupted after the
#                      cold fetch fails the warm one loudly
#   s3-preload-sharded preload-batch of 25 objects listed from the gateway
#                      over 2 simulated nodes: each cached exactly once
#   s3-missing         a missing key is ENOENT, nothing cached
#   s3-wrong-secret    a wrong secret is EACCES, the S3 message logged,
#                      nothing cached
#   s3-overwritten     the object is replaced while it is ingested: what is
#                      served is wholly the old or wholly the new version
#   s3-helper-killed   hypercached killed -9 mid-ingest and restarted: the
#                      waiting reader gets its data
#   s3-gateway-down    the gateway becomes unreachable mid-ingest: retries,
#                      then a clear failure, the chunks freed
. /hc/tests/lib.sh

. /hc/tests/s3lib.sh

used_bytes() {
	hcctl stats --json | sed -n 's/.*"bytes_used": *\([0-9]*\).*/\1/p'
}

# get_check KEY FILE: read s3://BUCKET/KEY through the kernel, compare
get_check() {
	hcctl get --no-progress --timeout 300 -o /tmp/got "s3://$BUCKET/$1" ||
		{ tail -n 30 /tmp/hcd.out; hc_fail "get $1 failed"; }
	[ "$(sha /tmp/got)" = "$(sha "$2")" ] || hc_fail "$1: SHA-256 differs"
	rm -f /tmp/got
}

t_setup() {
	hcctl pool create $M >/dev/null
	s3curl -X PUT "$EP/$BUCKET" >/dev/null || hc_fail "cannot create bucket $BUCKET at $EP"
	write_conf
	: >/tmp/hcd.out
	start_daemon
}

t_sizes() {
	big=20971521 # 5 chunks and a byte; 100 MiB with HC_FULL=1
	[ "$HC_FULL" = 1 ] && big=104857600
	for n in 0 1 4194303 4194304 4194305 $big; do
		hc_pattern "$n" "$n" >/tmp/src
		s3put /tmp/src "sizes/o$n"
		get_check "sizes/o$n" /tmp/src
		hcctl locate --json "s3://$BUCKET/sizes/o$n" | grep -q '"state":"ready"' ||
			hc_fail "o$n: not ready after the ingest"
		grep -q "s3://$BUCKET/sizes/o$n: ingested $n bytes" /tmp/hcd.out ||
			{ tail -n 20 /tmp/hcd.out; hc_fail "o$n: no ingest log line"; }
		# the warm hit: no second ingest
		get_check "sizes/o$n" /tmp/src
		[ "$(grep -c "s3://$BUCKET/sizes/o$n: ingested" /tmp/hcd.out)" = 1 ] ||
			hc_fail "o$n: ingested twice"
		hc_log "size $n: ok"
	done
	rm -f /tmp/src
}

t_one_ingest() {
	hc_pattern 77 33554433 >/tmp/src
	s3put /tmp/src conc/o
	for i in 1 2 3 4; do
		hcctl get --no-progress --timeout 300 -o /tmp/got$i "s3://$BUCKET/conc/o" &
	done
	wait
	for i in 1 2 3 4; do
		[ "$(sha /tmp/got$i)" = "$(sha /tmp/src)" ] || hc_fail "reader $i: SHA-256 differs"
		rm -f /tmp/got$i
	done
	n=$(grep -c "s3://$BUCKET/conc/o: ingested" /tmp/hcd.out)
	[ "$n" = 1 ] || hc_fail "$n ingests, not 1"
	n=$(grep -c "request [0-9]*: s3://$BUCKET/conc/o" /tmp/hcd.out)
	[ "$n" = 1 ] || hc_fail "$n requests, not 1"
}

t_bench() {
	hcctl bench --s3-endpoint "$EP" --bucket "$BUCKET" --config /tmp/hc.conf \
		--size-mb 24 --iterations 2 --json >/tmp/bs.json 2>/tmp/bs.err ||
		{ cat /tmp/bs.err; tail -n 20 /tmp/hcd.out; hc_fail "bench --s3-endpoint failed"; }
	cat /tmp/bs.json
	grep -q '"parity": *true' /tmp/bs.json || hc_fail "no parity in the JSON"
	grep -q '"uploaded": *true' /tmp/bs.json || hc_fail "not uploaded"
	for f in '"s3 direct", *"temperature": *"cold"' '"s3 direct", *"temperature": *"warm"' \
		'"cache", *"temperature": *"cold"' '"cache", *"temperature": *"warm"'; do
		grep -q "\"path\": *$f, *\"seconds\": *[0-9.e-]*, *\"gbps\": *[0-9.e-]*, *\"ratio\": *[0-9.e-]*" /tmp/bs.json ||
			hc_fail "no fetch like $f"
	done
	key=$(sed -n 's/.*"key": *"\([^"]*\)".*/\1/p' /tmp/bs.json)
	case "$key" in hcctl-bench/*) ;; *) hc_fail "uploaded key '$key'" ;; esac
	[ "$(grep -c "s3://$BUCKET/$key: ingested\|rgw/$BUCKET/$key: ingested" /tmp/hcd.out)" = 1 ] ||
		{ grep "$key" /tmp/hcd.out; hc_fail "not one ingest of $key"; }
	code=$(s3curl -o /dev/null -w '%{http_code}' -I "$EP/$BUCKET/$key" 2>/dev/null || true)
	[ "$code" = 404 ] || hc_fail "the uploaded $key is still in the bucket (HEAD $code)"
	hcctl ls | grep -q hcctl-bench && hc_fail "the bench object stayed cached"
	# an existing object, text, kept
	hc_pattern 61 5000001 >/tmp/src
	s3put /tmp/src bench/o
	hcctl bench --s3-endpoint "$EP/" --bucket "$BUCKET" --key bench/o --config /tmp/hc.conf \
		--iterations 1 --keep --no-progress >/tmp/bs.txt 2>/tmp/bs.err ||
		{ cat /tmp/bs.err; hc_fail "bench --key failed"; }
	cat /tmp/bs.txt
	grep -q "^s3://$BUCKET/bench/o at $EP/ as hypercache://rgw/$BUCKET/bench/o: 5000001 bytes, 8 workers, SHA-256 $(sha /tmp/src)\$" /tmp/bs.txt ||
		hc_fail "no header line with the source's SHA-256"
	for r in 's3 direct *cold' 's3 direct *warm' 'cache *cold' 'cache *warm'; do
		grep -q "^$r *[0-9.]* *[0-9.]* *[0-9.]*x\$" /tmp/bs.txt || hc_fail "no row '$r'"
	done
	hcctl locate --json "hypercache://rgw/$BUCKET/bench/o" | grep -q '"state":"ready"' ||
		hc_fail "--keep did not keep it cached"
	hcctl evict "hypercache://rgw/$BUCKET/bench/o"
	rc=0
	hcctl bench --s3-endpoint http://10.0.2.2:1 --bucket "$BUCKET" --config /tmp/hc.conf \
		--size-mb 1 >/dev/null 2>/tmp/bs.err || rc=$?
	[ $rc = 1 ] && grep -q "http://10.0.2.2:1: no s3 backend of /tmp/hc.conf has this endpoint" /tmp/bs.err ||
		hc_fail "unknown endpoint: exit $rc, $(cat /tmp/bs.err)"
	# the cached copy corrupted behind the cache's back after the cold fetch
	cat >/tmp/corrupt.sh <<-'EOT'
	#!/bin/sh
	hcctl locate --layout --json "$HCCTL_BENCH_URI" >/tmp/lay.json || exit 1
	dev=$(grep -o '"device":"[^"]*"' /tmp/lay.json | sed -n '1s/.*:"\(.*\)"/\1/p')
	off=$(grep -o '"member_offset":[0-9]*' /tmp/lay.json | sed -n '1s/.*://p')
	head -c 4096 /dev/urandom >/tmp/junk
	dd if=/tmp/junk of=/dev/$dev bs=4096 seek=$((off / 4096 + 1)) count=1 \
		oflag=direct conv=notrunc 2>/dev/null
	EOT
	chmod +x /tmp/corrupt.sh
	rc=0
	HCCTL_TEST_BENCH_HOOK=/tmp/corrupt.sh hcctl bench --s3-endpoint "$EP" --bucket "$BUCKET" \
		--key bench/o --config /tmp/hc.conf --iterations 1 --no-progress >/tmp/bs.txt 2>/tmp/bs.err || rc=$?
	[ $rc = 1 ] && grep -q "cache warm fetch 1: SHA-256 MISMATCH: expected $(sha /tmp/src), read [0-9a-f]*: Input/output error" /tmp/bs.err ||
		hc_fail "corrupted cache: exit $rc, $(cat /tmp/bs.err /tmp/bs.txt)"
	hcctl ls | grep -q "bench/o" && hc_fail "the corrupted object stayed cached"
	rm -f /tmp/src
}

t_missing() {
	hc_expect_errno -m "No such file or directory" \
		hcctl get --no-progress --timeout 60 -o /tmp/got "s3://$BUCKET/no/such/key"
	grep -q "NoSuchKey" /tmp/hcd.out || { tail /tmp/hcd.out; hc_fail "no NoSuchKey logged"; }
	hcctl ls --json | grep -q "no/such/key" && hc_fail "a missing key is cached"
	return 0
}

t_wrong_secret() {
	hc_pattern 3 100000 >/tmp/src
	s3put /tmp/src secret/o
	stop_daemon
	HC_SECRET=not-the-secret write_conf
	start_daemon "$(($(grep -c registered /tmp/hcd.out) + 1))"
	hc_expect_errno -m "Permission denied" \
		hcctl get --no-progress --timeout 60 -o /tmp/got "s3://$BUCKET/secret/o"
	grep -q "SignatureDoesNotMatch" /tmp/hcd.out ||
		{ tail /tmp/hcd.out; hc_fail "no SignatureDoesNotMatch logged"; }
	hcctl ls --json | grep -q "secret/o" && hc_fail "cached with a wrong secret"
	stop_daemon
	write_conf
	start_daemon "$(($(grep -c registered /tmp/hcd.out) + 1))"
}

t_overwritten() {
	# one slow stream of 1 MiB parts, so the PUT lands mid-ingest
	stop_daemon
	write_conf ingest_concurrency=1 part_size=1M
	SLOW=30 start_daemon "$(($(grep -c registered /tmp/hcd.out) + 1))"
	hc_pattern 11 104857600 >/tmp/old
	hc_pattern 12 104857600 >/tmp/new
	s3put /tmp/old over/o
	s3put /tmp/new over/new
	: >/tmp/get.out
	hcctl get --no-progress --timeout 300 -o /tmp/got "s3://$BUCKET/over/o" >/tmp/get.out 2>&1 &
	gp=$!
	wait_log "s3://$BUCKET/over/o: 104857600 bytes in"
	# a server-side copy: the new version appears at once, mid-ingest
	s3curl -X PUT -H "x-amz-copy-source: /$BUCKET/over/new" \
		"$EP/$BUCKET/over/o" >/dev/null || hc_fail "server-side copy failed"
	rc=0
	wait $gp || rc=$?
	rm -f /tmp/old
	if [ $rc -eq 0 ]; then
		[ "$(sha /tmp/got)" = "$(sha /tmp/new)" ] ||
			hc_fail "served bytes are not the new version (mixed?)"
	fi
	# changed mid-ingest: detected (412 on If-Match), started over
	grep -q "over/o: changed during the ingest" /tmp/hcd.out ||
		{ tail -n 30 /tmp/hcd.out; hc_fail "the change was not detected (rc $rc)"; }
	# whatever is cached now is the new version, whole
	hcctl get --no-progress --timeout 300 -o /tmp/got "s3://$BUCKET/over/o"
	[ "$(sha /tmp/got)" = "$(sha /tmp/new)" ] || hc_fail "cached bytes are mixed"
	rm -f /tmp/got /tmp/new
	stop_daemon
	write_conf
	start_daemon "$(($(grep -c registered /tmp/hcd.out) + 1))"
}

t_helper_killed() {
	stop_daemon
	write_conf ingest_concurrency=1 part_size=1M
	SLOW=30 start_daemon "$(($(grep -c registered /tmp/hcd.out) + 1))"
	hc_pattern 21 104857600 >/tmp/src
	s3put /tmp/src killed/o
	: >/tmp/get.out
	hcctl get --no-progress --timeout 300 -o /tmp/got "s3://$BUCKET/killed/o" >/tmp/get.out 2>&1 &
	gp=$!
	wait_log "s3://$BUCKET/killed/o: 104857600 bytes in"
	sleep 0.5
	kill -9 "$(cat /tmp/hcd.pid)"
	sleep 0.5
	kill -0 $gp 2>/dev/null || { cat /tmp/get.out; hc_fail "the reader did not wait"; }
	write_conf
	start_daemon "$(($(grep -c registered /tmp/hcd.out) + 1))"
	wait $gp || { cat /tmp/get.out; hc_fail "the waiting reader failed"; }
	[ "$(sha /tmp/got)" = "$(sha /tmp/src)" ] || hc_fail "SHA-256 differs"
	grep -q "killed/o (allocated)" /tmp/hcd.out ||
		hc_fail "the new helper did not get the allocated request"
	rm -f /tmp/got /tmp/src
}

t_gateway_down() {
	stop_daemon
	write_conf ingest_concurrency=2 part_size=1M retry_attempts=3 \
		timeout_connect=2 timeout_request=4
	SLOW=30 start_daemon "$(($(grep -c registered /tmp/hcd.out) + 1))"
	before=$(used_bytes)
	hc_pattern 31 104857600 >/tmp/src
	s3put /tmp/src down/o
	t0=$(date +%s)
	: >/tmp/get.out
	hcctl get --no-progress --timeout 300 -o /tmp/got "s3://$BUCKET/down/o" >/tmp/get.out 2>&1 &
	gp=$!
	wait_log "s3://$BUCKET/down/o: 104857600 bytes in"
	ip link set eth0 down
	rc=0
	wait $gp || rc=$?
	ip link set eth0 up
	ip route add default via 10.0.2.2 2>/dev/null || true
	cat /tmp/get.out
	[ $rc -ne 0 ] || hc_fail "the read succeeded with the gateway unreachable"
	grep -q "attempt [2-9]" /tmp/hcd.out || { tail -n 30 /tmp/hcd.out; hc_fail "no retries logged"; }
	grep -q "down/o: failed" /tmp/hcd.out || { tail -n 30 /tmp/hcd.out; hc_fail "no failure logged"; }
	hc_log "failed after $(($(date +%s) - t0)) s"
	hcctl ls --json | grep -q "down/o" && hc_fail "the failed object stayed cached"
	[ "$(used_bytes)" = "$before" ] || hc_fail "chunks not freed ($before -> $(used_bytes) bytes)"
	# the gateway is back: the same object now ingests
	get_check down/o /tmp/src
	rm -f /tmp/src
}

# preload-batch over 2 simulated nodes, listing the gateway (pagination is
# covered by tests/unit/s3_test)
t_preload_sharded() {
	i=0
	while [ $i -lt 25 ]; do
		printf 'shard %04d\n' $i >/tmp/s
		s3curl -T /tmp/s "$EP/$BUCKET/ds/shard_$(printf %04d $i)" >/dev/null ||
			hc_fail "PUT shard $i"
		i=$((i + 1))
	done
	n=$(hcctl preload-batch --config /tmp/hc.conf --prefix "s3://$BUCKET/ds/shard_" --list | wc -l)
	[ "$n" = 25 ] || hc_fail "listed $n objects, not 25"
	for node in 0 1; do
		hcctl preload-batch --config /tmp/hc.conf --no-progress --json -P 8 \
			--prefix "s3://$BUCKET/ds/shard_" --sharded --node-count 2 \
			--node-index $node >/tmp/pl$node.json ||
			{ cat /tmp/pl$node.json; tail /tmp/hcd.out; hc_fail "node $node failed"; }
		cat /tmp/pl$node.json
	done
	grep -q '"objects": *13' /tmp/pl0.json || hc_fail "node 0 did not get 13 objects"
	grep -q '"objects": *12' /tmp/pl1.json || hc_fail "node 1 did not get 12 objects"
	grep -q '"hits": *0' /tmp/pl1.json || hc_fail "node 1 found objects of node 0"
	n=$(grep -c "s3://$BUCKET/ds/shard_[0-9]*: ingested" /tmp/hcd.out)
	[ "$n" = 25 ] || hc_fail "$n ingests, not 25"
	hcctl preload-batch --config /tmp/hc.conf --no-progress --json -P 8 \
		--prefix "s3://$BUCKET/ds/shard_" >/tmp/pl.json
	grep -q '"hits": *25' /tmp/pl.json || { cat /tmp/pl.json; hc_fail "not all 25 cached"; }
	hcctl get --no-progress "s3://$BUCKET/ds/shard_0017" | grep -qx "shard 0017" ||
		hc_fail "shard 0017 differs"
}

hc_test s3-setup t_setup
hc_test s3-sizes t_sizes
hc_test s3-one-ingest t_one_ingest
hc_test s3-bench t_bench
hc_test s3-preload-sharded t_preload_sharded
hc_test s3-missing t_missing
hc_test s3-wrong-secret t_wrong_secret
hc_test s3-overwritten t_overwritten
hc_test s3-helper-killed t_helper_killed
hc_test s3-gateway-down t_gateway_down
stop_daemon
hcctl pool stop
