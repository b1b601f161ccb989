#!/bin/bash
# Pools of 1, 2 and 3 members on fresh 128 MiB drives (stage-pool.sh).
for n in 1 2 3; do
	vm_images "$n" 128
	vm_boot pool --args drives=$n
done
