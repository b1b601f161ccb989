#!/bin/bash
# make check-reliability: the whole file system view suite (stage-fs.sh
# full=1): 55-fs plus an object of several extents on a fragmented pool,
# fio (buffered and O_DIRECT, seq 4 MiB and rand 4 KiB, verified), a
# read-only stress (the host's stress-ng, --hostfs, beside verifying fio
# readers) and a listing of 3000 objects.
vm_images 3 128
vm_boot fs --args full=1 --hostfs --timeout 900
