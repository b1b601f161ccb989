#!/bin/bash
# The Python package against the real library and kernel (make
# check-reliability: minutes of Python under TCG)
# (stage-client.sh): the host's root read-only over virtio-9p (boot.sh
# --hostfs), its /usr/bin/python3 with Debian's fsspec, numpy and torch
# chrooted there; three fresh 128 MiB drives (93 chunks of 4 MiB).
vm_images 3 128
vm_boot client --hostfs --timeout 900 --mem 3072
