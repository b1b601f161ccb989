#!/bin/bash
# The object cache (stage-objects.sh): put/get, placement, the write fence,
# eviction under pressure, ENOSPC, killed applications, the ioctl contract
# and permissions of /dev/hypercache-ctl, LOCATE with WAIT; on a pool of
# three fresh 128 MiB drives (93 chunks of 4 MiB).
vm_images 3 128
vm_boot objects --timeout 400
