#!/bin/bash
# Checkpoints through the file system view at size, written back to the
# real S3 gateway (scripts/rgw.sh, started by tests/run-all.sh;
# stage-fswrite.sh): 300 MiB by dd and by the host's Python (boot.sh
# --hostfs), DIRTY, uploaded, SHA-256-equal in the gateway.
bucket=hcfw-$(head -c4 /dev/urandom | od -An -tx1 | tr -d ' \n')
vm_images 3 512
vm_boot fswrite --s3 --hostfs --timeout 1500 --args "bucket=$bucket,phase=main"
