#!/bin/bash
# A pool survives a reboot and reassembles from its members in any order
# (stage-restart.sh): boot 1 creates it and writes data; boot 2 attaches the
# same images to the guest in another order and assembles them given in
# several orders, checking UUID, member indexes and data; then examine,
# assemble --scan and pool wipe, with a fourth, blank drive.
vm_images 4 64
log=$HC_ROOT/build/vm/logs/${VM_LABEL:+$VM_LABEL-}$VM_SCENARIO-phase1.log
if vm_boot restart --drives "${VM_IMAGES[0]},${VM_IMAGES[1]},${VM_IMAGES[2]}" \
	--args phase=1 --log "$log"; then
	line=$(grep -ao 'hc: restart uuid=[0-9a-f-]* sha=[0-9a-f]*' "$log" | head -n1)
	uuid=${line#*uuid=}
	uuid=${uuid%% *}
	sha=${line##*sha=}
	# phase-2 drive j is phase-1 drive order[j]
	drives="${VM_IMAGES[2]},${VM_IMAGES[0]},${VM_IMAGES[1]},${VM_IMAGES[3]}"
	vm_boot restart --drives "$drives" --args "phase=2,uuid=$uuid,sha=$sha,order=2:0:1"
else
	vm_record "not ok" restart-reassemble "phase 1 failed"
fi
