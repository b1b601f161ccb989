#!/bin/bash
# Power loss during a stream of puts (stage-crash.sh): QEMU is SIGKILLed
# while objects are being written and committed; the next boot must find
# every object whose COMMIT returned, byte-identical, and nothing else.
vm_images 3 128
log=$HC_ROOT/build/vm/logs/${VM_LABEL:+$VM_LABEL-}$VM_SCENARIO-phase1.log
vm_boot crash --args phase=1 --log "$log" --kill-on HC-CRASH-NOW
k=$(grep -ao 'hc: committed [0-9]*' "$log" | tail -n1 | awk '{print $3}')
if [ -n "$k" ]; then
	vm_boot crash --args "phase=2,committed=$k"
else
	vm_record "not ok" crash-recover "phase 1 committed nothing"
fi
