#!/bin/bash
# hcctl flush / restore, the SCR-style dataset flush (stage-flush.sh): with
# a posix backend, two flushes, a crash after each of the five steps and
# its rerun, --sync waiting for an asynchronous flush, restore falling back
# past a corrupt file and a damaged summary; then against the real S3
# gateway (scripts/rgw.sh), a flush + restore round trip and a crash.
vm_images 3 256
vm_boot flush --timeout 900
vm_images 3 256
vm_boot flush --s3 --timeout 900
