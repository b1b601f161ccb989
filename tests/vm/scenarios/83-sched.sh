#!/bin/bash
# hypercached's scheduler against the real S3 gateway (stage-sched.sh): 16
# objects of 64 KiB to 1 MiB preloaded with max_objects_in_flight 16 and 1,
# each once and byte-equal; kill -9 with 16 objects in flight, restart.
# The 500-object matrix of 64 KiB to 4 MiB is r-sched (make
# check-reliability).
vm_images 3 512
vm_boot sched --s3 --args "n=16,max=1024,flights=16:1" --timeout 900
