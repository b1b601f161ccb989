#!/bin/bash
# `hcctl pool upgrade` of a v1 pool to format v2 (stage-upgrade.sh): busy,
# stopped after each of its writes then assembled, online, v1 untouched.
vm_images 3 64
vm_boot upgrade
