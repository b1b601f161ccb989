#!/bin/bash
# `dkms build` accepts dkms.conf and builds hypercache.ko for every installed
# kernel with headers (scripts/dkms-check.sh, in a private DKMS tree).
exec "$(dirname "$0")/../../scripts/dkms-check.sh"
