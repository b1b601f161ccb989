#!/bin/bash
# The journal's mirrors repair one damaged member and refuse damage on all
# of them (stage-jmirror.sh; a slice of the matrix: r-jmirror-full.sh runs
# all of it in make check-reliability).
vm_images 3 64
vm_boot jmirror
