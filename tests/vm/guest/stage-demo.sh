#!/bin/sh
# Usage (guest, via /init): stage-demo.sh drives=N bucket=B sha=SHA256
#
# The README's demo, with the real S3 gateway on the host ($HC_S3_ENDPOINT,
# boot.sh --s3; scripts/demo.sh put s3://B/llama/model.safetensors and
# s3://B/data/shard_000..007 there): create a pool on the emulated NVMe
# drives, start hypercached, show a cold miss, the ingest and a warm hit of
# the model through the kernel (SHA-256 equal to the host's), preload the
# dataset shards, store a checkpoint with hcctl put --sync (written back to
# S3 by hypercached, verified there), and show the layout, the objects, the
# counters and the pool.
. /hc/tests/lib.sh

drives=3 bucket=models sha=""
for a in "$@"; do
	case "$a" in
	drives=*) drives=${a#drives=} ;;
	bucket=*) bucket=${a#bucket=} ;;
	sha=*) sha=${a#sha=} ;;
	esac
done
members=""
i=0
while [ $i -lt "$drives" ]; do
	members="$members $(hc_drive $i)"
	i=$((i + 1))
done
MODEL=s3://$bucket/llama/model.safetensors

say() {
	echo "demo\$ $*" >/dev/console
	"$@" >/dev/console 2>&1
}

now() { cut -d' ' -f1 /proc/uptime; }

# timed LABEL CMD...: run CMD, print how long it took
timed() {
	label=$1
	shift
	t0=$(now)
	say "$@" || return 1
	awk -v a="$t0" -v b="$(now)" -v l="$label" \
		'BEGIN { printf "demo: %s took %.2f s\n", l, b - a }' >/dev/console
}

t_demo() {
	say hcctl pool create $members
	cat >/tmp/hypercache.conf <<-EOT
	[hypercached]
	default_backend = rgw

	[backend rgw]
	type = s3
	endpoint = ${HC_S3_ENDPOINT:-http://10.0.2.2:7480}
	access_key = ${AWS_ACCESS_KEY_ID:-RGWAK}
	secret_key = ${AWS_SECRET_ACCESS_KEY:-RGWSECRET}
	EOT
	echo "demo\$ hypercached -c /tmp/hypercache.conf &" >/dev/console
	: >/tmp/hcd.out
	hypercached -c /tmp/hypercache.conf >/tmp/hcd.out 2>&1 &
	hcd=$!
	i=0
	while ! grep -q registered /tmp/hcd.out; do
		i=$((i + 1))
		[ $i -lt 50 ] || { cat /tmp/hcd.out; hc_fail "hypercached did not register"; }
		sleep 0.1
	done
	cat /tmp/hcd.out >/dev/console

	echo "demo: 1. the model is not cached yet" >/dev/console
	say hcctl get --no-ingest -o /dev/null "$MODEL" && hc_fail "cached already?"
	echo "demo: 2. a cold read: the kernel asks hypercached, which fetches it from S3" >/dev/console
	timed "the cold read (miss + ingest + read)" \
		hcctl get --no-progress -o /tmp/back.safetensors "$MODEL" ||
		hc_fail "cold get failed"
	grep "ingested" /tmp/hcd.out >/dev/console
	got=$(sha256sum /tmp/back.safetensors | cut -d' ' -f1)
	echo "demo: SHA-256 $got (host: $sha)" >/dev/console
	[ "$got" = "$sha" ] || hc_fail "the model differs from the one in S3"
	rm -f /tmp/back.safetensors
	echo "demo: 3. a warm read: served from /dev/hypercache0" >/dev/console
	timed "the warm read (hit)" \
		hcctl get --no-progress -o /tmp/back.safetensors "$MODEL"
	rm -f /tmp/back.safetensors
	say hcctl locate --layout "$MODEL"

	echo "demo: 4. preload a dataset's shards (this node is 0 of 1)" >/dev/console
	say hcctl preload-batch --config /tmp/hypercache.conf --no-progress \
		--prefix "s3://$bucket/data/shard_" --sharded --node-count 1 --node-index 0

	echo "demo: 5. a checkpoint written through the cache: put returns once it is" >/dev/console
	echo "demo:    durable on the drives; hypercached uploads it in the background" >/dev/console
	dd if=/dev/urandom of=/tmp/ckpt.pt bs=1M count=64 2>/dev/null
	say hcctl put --sync --no-progress /tmp/ckpt.pt "s3://$bucket/ckpt/run1/step-100.pt" ||
		hc_fail "put --sync failed"
	grep "uploaded\|egress" /tmp/hcd.out | tail -n 2 >/dev/console
	got=$(curl -sS --fail --aws-sigv4 aws:amz:us-east-1:s3 \
		--user "${AWS_ACCESS_KEY_ID:-RGWAK}:${AWS_SECRET_ACCESS_KEY:-RGWSECRET}" \
		-H 'x-amz-content-sha256: UNSIGNED-PAYLOAD' \
		"${HC_S3_ENDPOINT:-http://10.0.2.2:7480}/$bucket/ckpt/run1/step-100.pt" |
		sha256sum | cut -d' ' -f1)
	[ "$got" = "$(sha256sum /tmp/ckpt.pt | cut -d' ' -f1)" ] ||
		hc_fail "the uploaded checkpoint differs"
	echo "demo: the checkpoint in S3 is SHA-256-equal to the one written" >/dev/console
	say hcctl ls
	say hcctl stats
	say hcctl status
	kill "$hcd"
	wait "$hcd" 2>/dev/null || true
	say hcctl pool stop
}

hc_test demo t_demo
