#!/bin/bash
# make check-reliability: member faults under dm-error and dm-flakey and a
# member removed from the PCI bus (stage-reliability.sh, part faults).  The
# same tests as in the make check slice, in a boot of their own.
vm_images_sized 72 512 72 128 128 128
vm_boot reliability --args "parts=faults" --timeout 900
