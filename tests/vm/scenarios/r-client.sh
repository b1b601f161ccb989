#!/bin/bash
# The Python package against the real library and kernel (make
# check-reliability: minutes of Python under TCG)
# (stage-client.sh): the host's root read-only over virtio-9p (boot.sh
# --hostfs), its /usr/bin/python3 with Debian's fsspec, numpy and torch
# chrooted there; the S3 gateway (--s3) for the cold torch.load; three
# fresh 512 MiB drives (381 chunks of 4 MiB: the 1 GiB state dict).
vm_images 3 512
vm_boot client --hostfs --s3 --timeout 1800 --mem 3072
