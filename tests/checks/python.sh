#!/bin/bash
# The Python package's host unit tests (python/tests, pytest with Debian's
# /usr/bin/python3: fsspec, torch, numpy): the URI rules, the fsspec layer
# against a fake of the library, the safetensors parser with hand-built
# and hostile headers, the zero-copy views.  No kernel needed.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec /usr/bin/python3 -m pytest -q -p no:cacheprovider python/tests
