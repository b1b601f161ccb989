#!/bin/bash
# The reliability suite's slice for make check (stage-reliability.sh), in
# one boot: crash replay with dm-log-writes at every 16th flush/FUA point,
# the control-surface fuzzer for 45 s, and member faults under dm-error
# and dm-flakey.  make check-reliability runs the full matrices
# (scenarios r-logwrites, r-fuzz, r-faults).  The fuzzer's seed is fixed here (777), so
# that make check is repeatable; HC_FUZZ_SEED picks another, and r-fuzz
# draws a new one each run.
vm_images_sized 72 512 72 128 128 128
vm_boot reliability --args "every=16,fuzz_secs=45,seed=${HC_FUZZ_SEED:-777}" --timeout 900
