#!/bin/bash
# hcctl preload and preload-batch against hypercached with a posix backend
# (stage-preload.sh): two simulated nodes preload disjoint halves of a
# sharded dataset, a third run finds everything cached, a missing key fails.
vm_images 3 128
vm_boot preload
