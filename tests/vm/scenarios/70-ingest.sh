#!/bin/bash
# The kernel's helper channel (stage-ingest.sh): ingest on a miss, errors,
# one helper at a time, a helper killed mid-ingest.
vm_images 3 128
vm_boot ingest
