#!/bin/bash
# hypercached's NUMA placement against the real S3 gateway (stage-numa.sh):
# a guest of two nodes (boot.sh --numa: drives 0 and 2 behind node 0's
# PCIe expander bridge, 1 and 3 and the NIC behind node 1's), 4 MiB parts
# over a pool of the 4 drives: part workers and their buffers on the node
# of each part's member, HEAD workers on the NIC's, every object
# byte-equal to S3, an upload's buffers likewise, numa = off placing
# nothing; then a guest of one node, where nothing is placed or said.
vm_images 4 192
vm_boot numa --s3 --numa --timeout 600
vm_images 4 192
vm_boot numa --s3 --args "single=1" --timeout 400
