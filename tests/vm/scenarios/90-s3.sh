#!/bin/bash
# hypercached against the real S3 gateway (scripts/rgw.sh, started by
# tests/run-all.sh) through QEMU's user network (stage-s3.sh): sizes,
# one ingest for concurrent readers, ENOENT, EACCES, an object replaced
# mid-ingest, the helper killed mid-ingest, the gateway unreachable.
vm_images 3 512
vm_boot s3 --s3 --timeout 900
