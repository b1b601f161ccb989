#!/bin/bash
# make check-reliability: the index's memory per object, measured in the
# guest (stage-memory.sh): slab and vmalloc growth of an assembly of
# 100,000 objects (short and 64-byte URIs) and of 1,000,000 (HC_MEMORY_N
# overrides it), built from journal records (hc_jpoke objects) as r-scrape
# does; each object must take at most 256 bytes of slab.  About 3 minutes
# of guest time on a loaded host.
vm_images 1 65536
vm_boot memory --verbose --args "n=${HC_MEMORY_N:-1000000}" --timeout 1800
