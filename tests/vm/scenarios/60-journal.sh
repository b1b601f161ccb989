#!/bin/bash
# The journal compacts when a half fills, and the index survives restarts
# through several compactions (stage-journal.sh).
vm_images 3 64
vm_boot journal
