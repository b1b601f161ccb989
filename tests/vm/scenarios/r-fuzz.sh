#!/bin/bash
# make check-reliability: the control-surface fuzzer for HC_FUZZ_SECS
# (default 600) seconds, privileged and unprivileged at once
# (stage-reliability.sh, part fuzz).  HC_FUZZ_SEED replays a seed.
vm_images_sized 72 512 72 128 128 128
secs=${HC_FUZZ_SECS:-600}
vm_boot reliability --args "parts=fuzz,fuzz_secs=$secs,seed=${HC_FUZZ_SEED:-$RANDOM$RANDOM}" \
	--timeout $((secs + 600))
