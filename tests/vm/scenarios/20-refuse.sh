#!/bin/bash
# Creates and assemblies that must be refused (stage-refuse.sh), on four
# fresh 64 MiB drives plus loop devices in the guest.
vm_images 4 64
vm_boot refuse
