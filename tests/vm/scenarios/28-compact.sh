#!/bin/bash
# The slab's compaction (stage-small.sh, phases compact, ccrash1, ccrash2):
# 2,500 small objects in a v2 pool of 72 chunks, 3 in 4 evicted; the
# debugfs trigger frees slab chunks with the check ok throughout, a held
# object stays put, a 120 MiB object refused before fits after, a
# background run follows evictions; then a compaction stopped after 20
# moves (compact_stop_after) and a power cut (QEMU SIGKILLed): every object
# byte-identical after assembly, the check clean.
vm_images 3 160
vm_boot small --args phase=compact --timeout 900 --verbose
vm_images 3 160
log=$HC_ROOT/build/vm/logs/${VM_LABEL:+$VM_LABEL-}$VM_SCENARIO-ccrash1.log
vm_boot small --args phase=ccrash1 --log "$log" --kill-on HC-CRASH-NOW --timeout 900
if grep -aq 'HC-CRASH-NOW' "$log"; then
	vm_boot small --args phase=ccrash2 --timeout 900 --verbose
else
	vm_record "not ok" crash-compact-recover "phase ccrash1 did not reach the power cut"
fi
