# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
"""The ctypes bindings load the real library (when built) and map its
errors: every signature resolves, a missing device is FileNotFoundError."""
import os

import pytest

from hypercache import _lib

TREE = os.path.join(os.path.dirname(__file__), "..", "..", "build", "lib",
                    "libhypercache.so.1")


@pytest.mark.skipif(not os.path.exists(TREE) and
                    not os.environ.get("HYPERCACHE_LIB"),
                    reason="libhypercache is not built (make -C lib)")
def test_real_library_errors(monkeypatch):
    if not os.environ.get("HYPERCACHE_LIB"):
        monkeypatch.setenv("HYPERCACHE_LIB", TREE)
    so = _lib._load()
    assert so.hc_reader_pread.restype is not None
    with pytest.raises(FileNotFoundError) as e:
        _lib.Library(ctl="/dev/no-such-hypercache-ctl")
    assert e.value.filename == "/dev/no-such-hypercache-ctl"
    assert "cannot open" in e.value.strerror
