#!/bin/bash
# Revalidation against the real S3 gateway (stage-reval.sh): revalidate =
# on-open-after, always and never; an object replaced in S3 is ingested
# again on the first open after its TTL, an unchanged one is not fetched;
# a reader holding the old version keeps its bytes; no helper, no wait.
vm_images 3 128
vm_boot reval --s3 --timeout 600
