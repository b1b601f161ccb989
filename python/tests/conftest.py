# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))	# the package from the tree
sys.path.insert(0, HERE)

import pytest	# noqa: E402

from fake_lib import FakeLibrary	# noqa: E402
from hypercache import _lib	# noqa: E402


@pytest.fixture
def fake():
    lib = FakeLibrary()
    _lib.set_library(lib)
    yield lib
    _lib.set_library(None)
