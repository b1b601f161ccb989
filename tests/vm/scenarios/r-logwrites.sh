#!/bin/bash
# make check-reliability: crash replay with dm-log-writes at every flush
# and FUA entry of the log (stage-reliability.sh, part logwrites; about
# 260 points, 6-7 s each under TCG).
vm_images_sized 72 512 72 128 128 128
vm_boot reliability --args "parts=logwrites,every=1" --timeout 3600
