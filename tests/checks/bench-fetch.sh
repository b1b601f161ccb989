#!/bin/bash
# The host-side ingest benchmark cannot rot: scripts/bench-fetch.sh --smoke
# (an 8 MiB object, one round, against the S3 gateway) must run end to end
# and print every figure line; it exits non-zero otherwise.  The values are
# not checked.  tests/run-all.sh runs this while its gateway is up; run
# alone, the script starts a gateway of its own and stops it afterwards.
# The VM benchmarks' smoke runs are tests/vm/scenarios/97-bench.sh.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
make -s -C helper hcfetch >&2	# `make check` builds hypercached, not hcfetch
exec scripts/bench-fetch.sh --smoke --no-build
