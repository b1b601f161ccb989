#!/bin/bash
# The backend's ETag in a pool of format v2 (stage-etag.sh), against the
# real S3 gateway: after an ingest and after an upload `hcctl ls` shows
# S3's ETag; it survives a restart and a power cut right after an upload
# (QEMU SIGKILLed, then a second boot on the same drives); a v1 pool keeps
# it in memory only.
vm_images 4 128
log=$HC_ROOT/build/vm/logs/${VM_LABEL:+$VM_LABEL-}$VM_SCENARIO-phase1.log
vm_boot etag --s3 --timeout 600 --args phase=1 --log "$log" --kill-on HC-CRASH-NOW
line=$(grep -ao 'hc: etags [0-9a-f:-]* bucket=[a-z0-9-]*' "$log" | tail -n1)
if [ -n "$line" ]; then
	etags=${line#hc: etags }
	etags=${etags%% *}
	bucket=${line##*bucket=}
	vm_boot etag --s3 --timeout 600 --args "phase=2,etags=$etags,bucket=$bucket"
else
	vm_record "not ok" etag-powercut "phase 1 printed no ETags"
fi
