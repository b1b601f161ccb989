#!/bin/bash
# Usage: tests/vm/run.sh 00-harness
#
# Self-test of the VM harness, independent of hypercache.ko: three 128 MiB
# NVMe drives; the guest checks their sizes, a dd pattern round trip on
# drive 0 and an fio crc32c verify pass on drive 1 (stage-harness.sh).
vm_images 3 128
vm_boot harness --noload --args drives=3,size_mb=128,fio_mb=16
