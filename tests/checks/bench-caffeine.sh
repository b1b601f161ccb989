#!/bin/bash
# The Caffeine comparison cannot rot: scripts/bench-caffeine.sh --smoke
# (the ai workload of 2000 steps at 1/2, the small Zipf trace, through
# hcsim and Debian's libcaffeine-java) must print every table row; it exits
# non-zero otherwise.  The values are not checked here: the full run's
# table is in Documentation/policy.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
exec scripts/bench-caffeine.sh --smoke
