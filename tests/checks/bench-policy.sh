#!/bin/bash
# The policy benchmark cannot rot: scripts/bench-policy.sh --smoke (hcsim's
# AI-node workloads of 2000 steps, small unit-size traces) must print every
# table row; it exits non-zero otherwise.  The values are not checked here:
# the targets are checked by tests/unit/policy_objects_test and the full
# run's tables are in Documentation/policy.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
exec scripts/bench-policy.sh --smoke
