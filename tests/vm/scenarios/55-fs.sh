#!/bin/bash
# The file system view (stage-fs.sh): mount refusals and the stop rule,
# statfs, reads of every size through cat/cp/O_DIRECT/fio/mmap, the hold of
# a mapped file, hostile URIs, a large listing, permissions; on a pool of
# three fresh 128 MiB drives (93 chunks of 4 MiB).
vm_images 3 128
vm_boot fs --timeout 400
