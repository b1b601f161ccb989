# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
"""The package's copies of C constants are the headers' (in a source tree).

hypercache._lib mirrors libhypercache's flags and limits and
hypercache.uri the kernel's URI bound; a copy that drifts fails here, not
on a user's call (HC_URI_MAX was 4096 against the kernel's 1024).
"""
import os
import re

import pytest

from hypercache import _lib, uri

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
HEADERS = ["lib/include/hypercache/hypercache.h", "uapi/hypercache.h",
           "uapi/hypercache_format.h"]

# Python name -> C macro
PAIRS = {
    (_lib, "OPEN_WAIT"): "HC_OPEN_WAIT",
    (_lib, "OPEN_AUTO_INGEST"): "HC_OPEN_AUTO_INGEST",
    (_lib, "OPEN_PEEK"): "HC_OPEN_PEEK",
    (_lib, "CREATE_REPLACE"): "HC_CREATE_REPLACE",
    (_lib, "CREATE_NOWAIT"): "HC_CREATE_NOWAIT",
    (_lib, "COMMIT_CLEAN"): "HC_COMMIT_CLEAN",
    (_lib, "COMMIT_NO_CRC"): "HC_COMMIT_NO_CRC",
    (_lib, "ETAG_MAX"): "HC_LIB_ETAG_MAX",
    (_lib, "OBJ_F_PINNED"): "HC_OBJ_F_PINNED",
    (_lib, "OBJ_F_BAD"): "HC_OBJ_F_BAD",
    (_lib, "SIZE_UNKNOWN"): "HC_SIZE_UNKNOWN",
    (uri, "HC_URI_MAX"): "HC_URI_MAX",
}
STATES = {"ingesting": "HC_LIB_INGESTING", "ready": "HC_LIB_READY",
          "staged": "HC_LIB_STAGED", "dirty": "HC_LIB_DIRTY",
          "syncing": "HC_LIB_SYNCING"}


def _value(expr):
    """A define's value: N, 0xN, (1U << N) or UINT64_MAX."""
    expr = re.sub(r"/\*.*?\*/", "", expr).strip()
    if expr == "UINT64_MAX":
        return (1 << 64) - 1
    m = re.fullmatch(r"\(?\s*(\d+)U?\s*<<\s*(\d+)\s*\)?", expr)
    if m:
        return int(m.group(1)) << int(m.group(2))
    m = re.fullmatch(r"(0x[0-9a-fA-F]+|\d+)U?", expr)
    if m:
        return int(m.group(1), 0)
    return None


@pytest.fixture(scope="module")
def defines():
    found = {}
    for h in HEADERS:
        path = os.path.join(ROOT, h)
        if not os.path.exists(path):
            pytest.skip("not in a source tree: no " + h)
        with open(path) as f:
            for m in re.finditer(r"^#define\s+(HC_\w+)\s+(.+)$", f.read(),
                                 re.M):
                v = _value(m.group(2))
                if v is not None:
                    found.setdefault(m.group(1), v)
    return found


@pytest.mark.parametrize("mod,name", list(PAIRS), ids=[n for _, n in PAIRS])
def test_constant_is_the_headers(defines, mod, name):
    macro = PAIRS[(mod, name)]
    assert macro in defines, macro + " not found in " + ", ".join(HEADERS)
    assert getattr(mod, name) == defines[macro], \
        "%s.%s = %r, %s = %r" % (mod.__name__, name, getattr(mod, name),
                                 macro, defines[macro])


def test_state_names_are_the_headers(defines):
    for name, macro in STATES.items():
        assert _lib.STATE_NAMES[defines[macro]] == name
    assert len(_lib.STATE_NAMES) == len(STATES)
