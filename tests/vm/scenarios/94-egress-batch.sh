#!/bin/bash
# Batched egress of small objects against the real S3 gateway
# (stage-egress-batch.sh): many small DIRTY objects uploaded with the
# EGRESS_DONE records written one by one and batched (group commit), the
# journal flushes and wall time of each; every object uploaded exactly once
# and SHA-256-equal in S3; then QEMU killed while the uploads and their
# batched records stream, and a second boot on the same drives: every
# object READY or DIRTY, never lost, and the DIRTY ones uploaded once more.
# HC_EB_N, HC_EB_NC: objects of the measured runs and of the crash phases
# (make check: 200 and 120; benchmarks.md's figures: 500 and 300)
sizes=${HC_EB_N:+,n=$HC_EB_N}${HC_EB_NC:+,nc=$HC_EB_NC}
bucket=hceb-$(head -c4 /dev/urandom | od -An -tx1 | tr -d ' \n')
vm_images 3 1024
vm_boot egress-batch --s3 --timeout 1800 --args "bucket=$bucket,phase=main$sizes"

vm_images 3 1024
log=$HC_ROOT/build/vm/logs/${VM_LABEL:+$VM_LABEL-}$VM_SCENARIO-crash1.log
vm_boot egress-batch --s3 --timeout 900 --args "bucket=$bucket,phase=crash1$sizes" \
	--log "$log" --kill-on HC-CRASH-NOW
if ! grep -aq "HC-CRASH-NOW" "$log"; then
	vm_record "not ok" eb-crash-mid-batch "no crash marker in phase 1"
else
	vm_record ok eb-crash-mid-batch
	vm_boot egress-batch --s3 --timeout 1200 --args "bucket=$bucket,phase=crash2$sizes"
fi
