# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
"""The ctypes bindings load the real library (when built) and map its
errors: every signature resolves, a missing device is FileNotFoundError."""
import ctypes
import os
import shutil
import subprocess

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


HEADER = os.path.join(os.path.dirname(__file__), "..", "..", "lib",
                      "include")


@pytest.mark.skipif(not os.path.exists(TREE) and
                    not os.environ.get("HYPERCACHE_LIB"),
                    reason="libhypercache is not built (make -C lib)")
def test_real_library_has_the_backend_version(monkeypatch):
    if not os.environ.get("HYPERCACHE_LIB"):
        monkeypatch.setenv("HYPERCACHE_LIB", TREE)
    so = _lib._load()
    assert so.hc_ctx_object_info.argtypes[-1] is not None
    assert so.hc_ctx_list_objects.restype is not None


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler")
def test_object_struct_matches_the_header(tmp_path):
    """ctypes' struct hc_lib_object has the header's size and offsets."""
    fields = [f for f, _ in _lib._Object._fields_]
    src = tmp_path / "probe.c"
    src.write_text(
        "#include <stdio.h>\n#include <stddef.h>\n"
        "#include <hypercache/hypercache.h>\n"
        "int main(void) {\n"
        "printf(\"%zu\\n\", sizeof(struct hc_lib_object));\n" +
        "".join("printf(\"%%zu\\n\", offsetof(struct hc_lib_object, %s));\n"
                % f for f in fields) + "return 0; }\n")
    exe = tmp_path / "probe"
    subprocess.run(["cc", "-I", HEADER, "-o", str(exe), str(src)],
                   check=True)
    got = [int(x) for x in subprocess.run(
        [str(exe)], check=True, capture_output=True,
        text=True).stdout.split()]
    assert got[0] == ctypes.sizeof(_lib._Object)
    assert got[1:] == [getattr(_lib._Object, f).offset for f in fields]


def test_address_of_a_read_only_view_is_the_buffer_itself():
    """A read-only memoryview (torch's write_record passes them) is passed
    to the library by its own address, not copied first."""
    b = bytearray(b"0123456789")
    assert _lib.address_of(memoryview(b).toreadonly()) == _lib.address_of(b)
    assert _lib.address_of(memoryview(b).toreadonly()[3:]) == \
        _lib.address_of(b) + 3
