#!/bin/bash
# Power loss during a write through the file system view
# (stage-fswrite.sh): QEMU is SIGKILLed while a file of the view is open
# half-written, after two others were closed; the next boot on the same
# drives finds the closed ones intact and nothing of the open one.
vm_images 3 256
log=$HC_ROOT/build/vm/logs/${VM_LABEL:+$VM_LABEL-}$VM_SCENARIO-crash1.log
vm_boot fswrite --args phase=crash1 --log "$log" --kill-on HC-CRASH-NOW --timeout 400
if ! grep -aq "HC-CRASH-NOW" "$log"; then
	vm_record "not ok" fsw-crash "no crash marker in phase 1"
elif ! grep -aq "hc: fs closed b" "$log"; then
	vm_record "not ok" fsw-crash "phase 1 closed no file"
else
	vm_boot fswrite --args phase=crash2 --timeout 400
fi
