#!/bin/bash
# The guest's network path to the S3 gateway (scripts/rgw.sh, started by
# tests/run-all.sh) that the S3 ingest tests use: the host puts a random
# 5 MiB object and a 1-byte object into a fresh bucket; the guest (boot.sh
# --s3) fetches both with curl --aws-sigv4 from http://10.0.2.2:7480, SHA-256
# equal, and gets 403 SignatureDoesNotMatch with a wrong secret
# (stage-s3net.sh).  No gateway is a failure, not a skip.
RGW=$HC_ROOT/scripts/rgw.sh
if ! out=$("$RGW" status 2>&1); then
	vm_record "not ok" gateway "no S3 gateway: $out (scripts/rgw.sh start)"
	return 0
fi
vm_record ok gateway

mkdir -p "$VM_WORK"
bucket=hc-s3net-$(date +%s)-$$
big=data/random-5m.bin small=one-byte
head -c $((5 * 1024 * 1024)) /dev/urandom >"$VM_WORK/big"
printf 'x' >"$VM_WORK/small"
if ! out=$({ "$RGW" mb "$bucket" && "$RGW" put "$VM_WORK/big" "s3://$bucket/$big" &&
	"$RGW" put "$VM_WORK/small" "s3://$bucket/$small"; } 2>&1); then
	vm_record "not ok" host-put "$out"
	return 0
fi
vm_record ok host-put
sum() { sha256sum "$1" | cut -d' ' -f1; }

vm_images 1 16
vm_boot s3net --s3 --noload \
	--args "bucket=$bucket,big=$big,big_sha=$(sum "$VM_WORK/big"),small=$small,small_sha=$(sum "$VM_WORK/small")"

"$RGW" rm "s3://$bucket/$big" >/dev/null 2>&1
"$RGW" rm "s3://$bucket/$small" >/dev/null 2>&1
"$RGW" rb "$bucket" >/dev/null 2>&1
true
