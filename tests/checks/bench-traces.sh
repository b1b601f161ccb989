#!/bin/bash
# The public-trace comparison cannot rot: scripts/bench-traces.sh --smoke
# (a generated trace in phases at two sizes, ours, LRU and ARC through
# hcsim, Caffeine through Debian's libcaffeine-java) must print every
# table row; it exits non-zero otherwise.  The values are not checked
# here: the full run's table is in Documentation/policy.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
exec scripts/bench-traces.sh --smoke
