#!/bin/bash
# The whole member-corruption matrix of stage-jmirror.sh: every place of
# the journal on member 0, on the last member, and on every member
# (make check-reliability).
vm_images 3 64
vm_boot jmirror --args matrix=full --timeout 1200
