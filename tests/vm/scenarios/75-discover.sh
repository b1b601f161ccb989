#!/bin/bash
# Drive discovery in the guest (stage-discover.sh): of five drives, one
# carries ext4, one XFS, one a mounted ext4, two are blank; `hcctl inspect`
# excludes the first three, naming the signature or the mount, and accepts
# the blank ones; `hcctl pool create` refuses the XFS drive without --force
# and writes nothing to it.
vm_images 5 64
# mkfs.xfs refuses file systems below 300 MB (the image stays sparse)
truncate -s 320M "${VM_IMAGES[1]}"
vm_boot discover
