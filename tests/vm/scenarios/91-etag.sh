#!/bin/bash
# The backend's ETag and Last-Modified in a pool of format v2
# (stage-etag.sh), against the real S3 gateway: after an ingest and after
# an upload `hcctl ls` shows S3's; they survive a restart and a power cut
# right after an upload (QEMU SIGKILLed, then a second boot on the same
# drives); a v1 pool keeps them in memory only.
vm_images 4 128
log=$HC_ROOT/build/vm/logs/${VM_LABEL:+$VM_LABEL-}$VM_SCENARIO-phase1.log
vm_boot etag --s3 --timeout 600 --args phase=1 --log "$log" --kill-on HC-CRASH-NOW
line=$(grep -ao 'hc: etags [0-9a-f:-]* bucket=[a-z0-9-]*' "$log" | tail -n1)
lms=$(grep -ao 'hc: lms [0-9TZ:/-]*' "$log" | tail -n1)
lms=${lms#hc: lms }
if [ -n "$line" ]; then
	etags=${line#hc: etags }
	etags=${etags%% *}
	bucket=${line##*bucket=}
	vm_boot etag --s3 --timeout 600 --args "phase=2,etags=$etags,lms=$lms,bucket=$bucket"
else
	vm_record "not ok" etag-powercut "phase 1 printed no ETags"
fi
