#!/bin/bash
# Usage: scripts/bench-ingest.sh [OPTION...]
#
# The ingest half of scripts/bench-speed.sh (--part ingest), in one guest boot of
# its own; the options, the figures and the goals are bench-speed.sh's
# (--help there).  --smoke: the smoke sizes of bench-speed.sh.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ "${1:-}" = -h ] || [ "${1:-}" = --help ] && { sed -n '2,/^ROOT=/p' "$0" | sed '$d'; exit 0; }
HC_BENCH_NAME=bench-ingest.sh exec "$ROOT/scripts/bench-speed.sh" --part ingest "$@"
