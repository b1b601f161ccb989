#!/bin/bash
# make check-reliability: hypercached's scheduler with 500 objects of 64 KiB
# to 4 MiB preloaded with max_objects_in_flight 1, 4 and 16
# (stage-sched.sh), each ingested once and byte-equal to S3.
vm_images 3 2048
vm_boot sched --s3 --args "n=500,max=4096,flights=1:4:16,kill=0" --timeout 3600
