#!/bin/bash
# Write-back against the real S3 gateway (scripts/rgw.sh) and a posix
# backend (stage-writeback.sh): DIRTY objects uploaded by hypercached
# (single PUT and multipart), put --sync, the gateway unreachable while
# objects are dirty; then a crash mid multipart upload (QEMU SIGKILLed on a
# console marker) and a second boot on the same drives that finishes it.
bucket=hcwb-$(head -c4 /dev/urandom | od -An -tx1 | tr -d ' \n')
vm_images 3 512
vm_boot writeback --s3 --timeout 1500 --args "bucket=$bucket,phase=main"

vm_images 3 512
log=$HC_ROOT/build/vm/logs/${VM_LABEL:+$VM_LABEL-}$VM_SCENARIO-crash1.log
vm_boot writeback --s3 --timeout 600 --args "bucket=$bucket,phase=crash1" \
	--log "$log" --kill-on HC-CRASH-NOW
if ! grep -aq "HC-CRASH-NOW" "$log"; then
	vm_record "not ok" wb-crash-mid-upload "no crash marker in phase 1"
elif grep -aq "crash/o: uploaded" "$log"; then
	vm_record "not ok" wb-crash-mid-upload "the upload finished before the kill"
else
	vm_record ok wb-crash-mid-upload
	vm_boot writeback --s3 --timeout 900 --args "bucket=$bucket,phase=crash2"
fi
