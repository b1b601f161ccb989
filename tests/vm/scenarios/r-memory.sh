#!/bin/bash
# make check-reliability: the index's memory per object, measured in the
# guest (stage-memory.sh): slab and vmalloc growth of an assembly of
# 100,000 objects (short and 64-byte URIs) and of 1,000,000 (HC_MEMORY_N
# overrides it), built from journal records (hc_jpoke objects) as r-scrape
# does; each object must take at most 126 bytes of slab (181 with the
# 64-byte URIs).  About 3 minutes
# of guest time on a loaded host.  Then (stop-1m-1b) the assembly and the
# stop of a pool of N one-chunk objects on drive 1 (4 TiB of chunks and
# 1280 MiB of metadata, sparse: only the journal is written) must leave no
# RCU stall, soft lockup or hung task in dmesg.
vm_images_sized 65536 $((4 * 1024 * 1024 + 1280 + 64))
# HC_MEMORY_ONLY=TEST: that test alone (stage-memory.sh's only=)
vm_boot memory --verbose --args "n=${HC_MEMORY_N:-1000000}${HC_MEMORY_ONLY:+,only=$HC_MEMORY_ONLY}" --timeout 1800
