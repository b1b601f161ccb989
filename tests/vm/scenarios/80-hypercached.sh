#!/bin/bash
# The daemon, hypercached, with a posix backend (stage-hypercached.sh):
# ingest on a miss, errors, a bad configuration, SIGTERM.
vm_images 3 128
vm_boot hypercached
