#!/bin/bash
# Usage: scripts/bench-egress.sh [OPTION...]
#
# The egress half of scripts/bench-speed.sh (--part egress), in one guest boot of
# its own; the options, the figures and the goals are bench-speed.sh's
# (--help there).  --smoke: the smoke sizes of bench-speed.sh.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ "${1:-}" = -h ] || [ "${1:-}" = --help ] && { sed -n '2,/^ROOT=/p' "$0" | sed '$d'; exit 0; }
HC_BENCH_NAME=bench-egress.sh exec "$ROOT/scripts/bench-speed.sh" --part egress "$@"
