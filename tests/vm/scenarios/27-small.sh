#!/bin/bash
# Format v2's small objects in the slab (stage-small.sh): 10,000 objects of
# 1 B .. 1 MiB in a v2 pool of 288 chunks, byte-identical after a clean
# restart, evicted back to an empty pool; a v1 pool on the same drives full
# within 300; then a power cut (QEMU SIGKILLed) after 2,000 of a stream of
# puts: every committed object back, byte-identical, the slab consistent.
vm_images 3 448
vm_boot small --args phase=fill --timeout 1200 --verbose
vm_images 3 448
log=$HC_ROOT/build/vm/logs/${VM_LABEL:+$VM_LABEL-}$VM_SCENARIO-crash1.log
vm_boot small --args phase=crash1 --log "$log" --kill-on HC-CRASH-NOW --timeout 900
k=$(grep -ao 'hc: committed [0-9]*' "$log" | tail -n1 | awk '{print $3}')
if [ -n "$k" ]; then
	vm_boot small --args "phase=crash2,committed=$k" --timeout 900
else
	vm_record "not ok" crash-small-recover "phase 1 committed nothing"
fi
