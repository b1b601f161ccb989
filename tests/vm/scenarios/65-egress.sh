#!/bin/bash
# The kernel's write-back channel (stage-egress.sh): uploads in commit
# order, failures and retries, an egress helper killed mid-upload, one at a
# time, the dirty limit, a pool stopped with uploads outstanding; then
# power loss with DIRTY objects (QEMU SIGKILLed) and their upload after the
# next assembly.
vm_images 3 128
vm_boot egress --args phase=1
vm_boot egress --args phase=2 --kill-on HC-EGRESS-KILL
vm_boot egress --args phase=3
