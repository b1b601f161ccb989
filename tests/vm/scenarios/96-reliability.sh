#!/bin/bash
# The reliability suite's slice for make check (stage-reliability.sh), in
# one boot: crash replay with dm-log-writes at every 33rd flush/FUA point
# (8 of the stream's 222, and its end), the control-surface fuzzer for
# 20 s, and member faults under dm-error, dm-flakey and dm-delay.  make check-reliability runs the full matrices
# (scenarios r-logwrites, r-fuzz, r-faults).  The fuzzer's seed is fixed here (777), so
# that make check is repeatable; HC_FUZZ_SEED picks another, and r-fuzz
# draws a new one each run.
vm_images_sized 72 512 72 128 128 128
vm_boot reliability --args "every=33,fuzz_secs=20,seed=${HC_FUZZ_SEED:-777}" --timeout 900
