#!/bin/bash
# The object cache (stage-objects.sh): put/get, placement, the write fence,
# eviction under pressure, ENOSPC, killed applications, the ioctl contract
# and permissions of /dev/hypercache-ctl, LOCATE with WAIT; on a pool of
# three fresh 64 MiB drives (45 chunks of 4 MiB: eviction pressure in half the puts of 128 MiB).
vm_images 3 64
vm_boot objects --timeout 400
