# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
"""The safetensors parser (hand-built files, hostile headers) and the
zero-copy load over the fake library's mapping."""
import ctypes
import errno
import json
import os
import re
import struct

import numpy as np
import pytest
import torch

from hypercache import safetensors as st


def build(entries, data, meta=None, raw_header=None, pad=0):
    """A .safetensors image: entries name -> (dtype, shape, [b, e])."""
    hdr = {k: {"dtype": d, "shape": s, "data_offsets": o}
           for k, (d, s, o) in entries.items()}
    if meta is not None:
        hdr["__metadata__"] = meta
    raw = raw_header if raw_header is not None else json.dumps(hdr).encode()
    raw += b" " * pad
    return struct.pack("<Q", len(raw)) + raw + data


def parse(img):
    return st.parse_header(img, len(img), "hypercache://m/t.safetensors")


def bad(img, what):
    with pytest.raises(OSError) as e:
        parse(img)
    assert e.value.errno == errno.EBADMSG
    assert e.value.filename == "hypercache://m/t.safetensors"
    assert what in e.value.strerror, e.value.strerror


def test_every_dtype():
    entries, data, pos = {}, b"", 0
    for i, (dt, (size, _, _)) in enumerate(sorted(st.DTYPES.items())):
        n = size * 6
        entries["t%02d_%s" % (i, dt)] = (dt, [2, 3], [pos, pos + n])
        pos += n
    data = bytes(i % 251 for i in range(pos))
    img = build(entries, data)
    start, tensors, meta = parse(img)
    assert meta == {}
    assert set(tensors) == set(entries)
    for k, (dt, shape, off) in entries.items():
        assert tensors[k] == (dt, (2, 3), start + off[0], start + off[1])
    # each dtype loads as torch (where torch has it) and numpy (likewise),
    # with exactly the bytes of its span
    lib = FakeMapLib(img)
    f_pt = st.safe_open("m/d.safetensors", lib=lib)
    f_np = st.safe_open("m/d.safetensors", framework="np", lib=lib)
    for k, (dt, shape, off) in entries.items():
        raw = data[off[0]:off[1]]
        if st.DTYPES[dt][1]:
            a = f_np.get_tensor(k)
            assert a.shape == (2, 3) and a.tobytes() == raw
        else:
            with pytest.raises(OSError):
                f_np.get_tensor(k)
        if getattr(torch, st.DTYPES[dt][2] or "-", None) is not None:
            t = f_pt.get_tensor(k)
            assert tuple(t.shape) == (2, 3)
            assert t.contiguous().view(torch.uint8).numpy().tobytes() == raw
        else:
            with pytest.raises(OSError) as e:
                f_pt.get_tensor(k)
            assert e.value.errno == errno.EOPNOTSUPP


def test_empty_tensors_and_metadata():
    img = build({"e": ("F32", [0, 4], [0, 0]), "s": ("I64", [], [0, 8]),
                 "z": ("U8", [0], [8, 8])}, b"\1" * 8, meta={"format": "pt"})
    start, t, meta = parse(img)
    assert meta == {"format": "pt"}
    assert t["e"][2] == t["e"][3] == start and t["s"][1] == ()


def test_empty_file_of_tensors():
    img = build({}, b"")
    assert parse(img)[1] == {}


@pytest.mark.parametrize("img,what", [
    (b"", "shorter than the 8-byte"),
    (b"\1\2\3", "shorter than the 8-byte"),
    (struct.pack("<Q", 1000) + b"{}", "larger than the object"),
    (struct.pack("<Q", 2**64 - 1) + b"{}", "larger than the object"),
    (struct.pack("<Q", 4) + b"nope", "not JSON"),
    (struct.pack("<Q", 2) + b"\xff\xfe", "not JSON"),
    (struct.pack("<Q", 2) + b"[]", "not an object"),
    (struct.pack("<Q", 4) + b'"x" ', "not an object"),
])
def test_hostile_framing(img, what):
    bad(img, what)


def test_header_over_limit(monkeypatch):
    monkeypatch.setattr(st, "HEADER_MAX", 10)
    bad(build({}, b"", pad=20), "over 10")


@pytest.mark.parametrize("entries,data,what", [
    ({"a": ("F32", [2], [0, 8]), "b": ("F32", [2], [4, 12])}, b"\0" * 12,
     "overlaps"),
    ({"a": ("F32", [1], [0, 4]), "b": ("F32", [1], [8, 12])}, b"\0" * 12,
     "a hole"),
    ({"a": ("F32", [1], [4, 8])}, b"\0" * 8, "a hole"),
    ({"a": ("F32", [2], [0, 8])}, b"\0" * 12, "bytes after the last"),
    ({"a": ("F32", [4], [0, 16])}, b"\0" * 8, "outside the"),
    ({"a": ("F32", [1], [8, 4])}, b"\0" * 8, "outside the"),
    ({"a": ("F32", [1], [-4, 0])}, b"\0" * 8, "outside the"),
    ({"a": ("F32", [3], [0, 8])}, b"\0" * 8, "bytes for shape"),
    ({"a": ("F33", [2], [0, 8])}, b"\0" * 8, "unknown dtype"),
    ({"a": ("F32", [-2], [0, 8])}, b"\0" * 8, "shape"),
    ({"a": ("F32", [2.0], [0, 8])}, b"\0" * 8, "shape"),
    ({"a": ("F32", [True, 2], [0, 8])}, b"\0" * 8, "shape"),
    ({"a": ("F32", [2], [0])}, b"\0" * 8, "data_offsets"),
    ({"a": ("F32", [2], [0, "8"])}, b"\0" * 8, "data_offsets"),
])
def test_hostile_offsets(entries, data, what):
    bad(build(entries, data), what)


def test_hostile_entries():
    bad(build({}, b"", raw_header=b'{"a": 5}'), "not {dtype, shape")
    bad(build({}, b"", raw_header=json.dumps(
        {"a": {"dtype": "U8", "shape": [0], "data_offsets": [0, 0],
               "extra": 1}}).encode()), "not {dtype, shape")
    bad(build({}, b"", meta={"k": 5}), "__metadata__")
    bad(build({}, b"", meta=["x"]), "__metadata__")
    # a huge shape whose bytes do not match (no overflow to a small number)
    bad(build({"a": ("U8", [2**40, 2**40], [0, 8])}, b"\0" * 8),
        "bytes for shape")


class FakeMapLib:
    """Only what safetensors needs: open() with mmap() (the device mapping)
    and read_range() (the private one), chunks of ``chunk_size``."""

    def __init__(self, img, chunk_size=64):
        self.img = img
        self.chunk_size = chunk_size
        self.mapped = []
        self.ranges = []
        self.open_readers = 0

    def open(self, uri, flags=0, timeout_ms=0):
        lib = self
        lib.open_readers += 1

        class R:
            size = len(lib.img)
            uri = b"m/x"

            def mmap(self):
                self.arr = (ctypes.c_char * len(lib.img)).from_buffer_copy(
                    lib.img)
                lib.mapped.append(self)
                return ctypes.addressof(self.arr), len(lib.img)

            def munmap(self, addr):
                lib.mapped.remove(self)

            def read_range(self, buf, off, threads=0):
                mv = memoryview(buf).cast("B")
                lib.ranges.append((off, len(mv)))
                got = lib.img[off:off + len(mv)]
                mv[:len(got)] = got
                return len(got)

            def close(self):
                lib.open_readers -= 1

        return R()


def _src():
    return {"w": torch.arange(12, dtype=torch.float32).reshape(3, 4),
            "b": torch.tensor([1.5, -2.0], dtype=torch.bfloat16),
            "i": torch.arange(5, dtype=torch.int64),
            "m": torch.tensor([True, False, True]),
            "e": torch.empty(0, 3, dtype=torch.float16)}


@pytest.mark.parametrize("mapping", ["private", "device"])
def test_load_zero_copy_torch_and_numpy(mapping):
    src = _src()
    head, bufs = st.serialize(src, {"format": "pt"})
    img = head + b"".join(bytes(b) for b in bufs)
    assert (len(head) - 8) % 8 == 0
    lib = FakeMapLib(img)
    f = st.safe_open("m/x.safetensors", lib=lib, mapping=mapping)
    base, size = f._map.addr, f._map.size
    assert size == len(img)
    got = {k: f.get_tensor(k) for k in f.keys()}
    assert set(got) == set(src)
    for k in src:
        assert got[k].dtype == src[k].dtype and torch.equal(got[k], src[k])
    for k in ("w", "b", "i", "m"):
        ptr = got[k].data_ptr()
        assert base <= ptr < base + len(img), k	# views the mapping
    # numpy: the same bytes, no copy (except bf16: no numpy type)
    f = st.safe_open("m/x.safetensors", framework="np", lib=lib,
                     mapping=mapping)
    assert f.metadata() == {"format": "pt"}
    a = f.get_tensor("w")
    assert isinstance(a, np.ndarray) and a.shape == (3, 4)
    assert np.array_equal(a, src["w"].numpy())
    assert f._map.addr <= a.__array_interface__["data"][0] < \
        f._map.addr + len(img)
    with pytest.raises(OSError) as e:
        f.get_tensor("b")
    assert e.value.errno == errno.EOPNOTSUPP
    assert lib.mapped == [] if mapping == "private" else len(lib.mapped) == 2


def test_private_mapping_reads_chunks_when_asked():
    """safe_open reads the header's chunks; each get_tensor its own chunks,
    once; load_file the whole object in one read; the hold goes when every
    chunk is in."""
    src = {"a%d" % k: torch.full((100,), float(k)) for k in range(4)}
    head, bufs = st.serialize(src)
    img = head + b"".join(bytes(b) for b in bufs)
    lib = FakeMapLib(img, chunk_size=128)
    f = st.safe_open("m/p.safetensors", lib=lib, mapping="private")
    hdr_end = len(head)
    assert lib.ranges[0] == (0, 128)
    assert sum(n for _, n in lib.ranges) < hdr_end + 128 + 128
    before = len(lib.ranges)
    t = f.get_tensor("a2")
    assert torch.equal(t, src["a2"])
    new = lib.ranges[before:]
    _, _, b, e = f._tensors["a2"]
    assert all(o % 128 == 0 for o, _ in new)
    assert new[0][0] <= b and new[-1][0] + new[-1][1] >= e
    assert torch.equal(f.get_tensor("a2"), src["a2"])
    assert lib.ranges[before:] == new	# not read again
    assert lib.open_readers == 1	# held: chunks are missing
    f.load_all()
    assert lib.open_readers == 0	# every chunk in: the hold went
    seen = [o // 128 for o, n in lib.ranges for o in range(o, o + n, 128)]
    assert sorted(seen) == sorted(set(seen))	# each chunk read once
    assert all(torch.equal(f.get_tensor(k), src[k]) for k in src)
    lib2 = FakeMapLib(img, chunk_size=1 << 20)
    got = st.load_file("m/p.safetensors", lib=lib2, mapping="private")
    assert lib2.ranges == [(0, len(img))]	# one read of everything
    assert all(torch.equal(got[k], src[k]) for k in src)
    with pytest.raises(ValueError):
        st.safe_open("m/p.safetensors", lib=lib2, mapping="page-cache")


def _vma(addr):
    """The /proc/self/smaps entry of the mapping holding addr: (its header
    line, {field: value})."""
    head, fields = None, {}
    with open("/proc/self/smaps") as f:
        for ln in f:
            m = re.match(r"([0-9a-f]+)-([0-9a-f]+) ", ln)
            if m:
                if head is not None:
                    break
                if int(m.group(1), 16) <= addr < int(m.group(2), 16):
                    head = ln
            elif head is not None:
                k, _, v = ln.partition(":")
                fields[k] = v.strip()
    assert head is not None, "no mapping holds %#x" % addr
    return head, fields


def test_default_mapping_is_private_memory_on_huge_pages():
    """The default mapping is private anonymous memory (not shmem, which a
    shared anonymous mmap is: 4 KiB pages in a page cache of their own),
    its start aligned to 2 MiB and advised MADV_HUGEPAGE, so that a load
    takes one fault and one page per 2 MiB; the tensors view it."""
    src = {"w": torch.arange(3 << 20, dtype=torch.float32)}	# 12 MiB
    head, bufs = st.serialize(src)
    img = head + b"".join(bytes(b) for b in bufs)
    lib = FakeMapLib(img, chunk_size=4 << 20)
    f = st.safe_open("m/h.safetensors", lib=lib)
    assert f._map.private and lib.mapped == []	# read, not device-mapped
    assert f._map.addr % (2 << 20) == 0
    line, fields = _vma(f._map.addr)
    assert "/dev/zero" not in line and "SYSV" not in line	# not shmem
    assert line.split()[1].startswith("rw-p")	# private
    if os.path.exists("/sys/kernel/mm/transparent_hugepage/enabled"):
        assert "hg" in fields["VmFlags"].split()	# MADV_HUGEPAGE
    t = f.get_tensor("w")
    assert torch.equal(t, src["w"])
    assert f._map.addr <= t.data_ptr() < f._map.addr + len(img)


def _advised(monkeypatch, n):
    """n tensors a0.. in a device-mapped object whose MADV_WILLNEED calls
    are recorded: (src, image, the (addr, length) advised, lib, safe_open)."""
    src = {"a%d" % k: torch.full((100,), float(k)) for k in range(n)}
    head, bufs = st.serialize(src)
    img = head + b"".join(bytes(b) for b in bufs)
    asked = []
    monkeypatch.setattr(st, "_willneed", lambda a, n: asked.append((a, n)))
    lib = FakeMapLib(img)
    return src, img, asked, lib, st.safe_open("m/w.safetensors", lib=lib,
                                              mapping="device")


def test_device_mapping_reads_ahead_what_is_asked(monkeypatch):
    """The device mapping has the pages of each tensor read
    ahead at its get_tensor (MADV_WILLNEED of its range, nothing past it),
    and of the whole object for load_file; nothing is read with O_DIRECT."""
    src, img, asked, lib, f = _advised(monkeypatch, 3)
    base = f._map.addr
    del asked[:]
    t = f.get_tensor("a1")
    _, _, b, e = f._tensors["a1"]
    assert asked == [(base + b, e - b)] and torch.equal(t, src["a1"])
    assert lib.ranges == []
    del asked[:]
    got = st.load_file("m/w.safetensors", lib=lib, mapping="device")
    base = lib.mapped[-1].arr
    assert (ctypes.addressof(base), len(img)) in asked
    assert all(torch.equal(got[k], src[k]) for k in src)


def test_device_mapping_reads_the_next_tensor_in_file_order(monkeypatch):
    """Tensors asked for in the file's order: each get_tensor also has the
    next tensor's pages read ahead (its reads overlap the use of this one);
    a jump out of order reads only what it asks for, and the last tensor
    nothing past the object."""
    src, _, asked, lib, f = _advised(monkeypatch, 4)
    base = f._map.addr
    span = {k: f._tensors[k][2:] for k in src}

    def ranges(*keys):
        return [(base + span[k][0], span[k][1] - span[k][0]) for k in keys]
    del asked[:]
    assert torch.equal(f.get_tensor("a0"), src["a0"])	# the data's start
    assert asked == ranges("a0", "a1")
    del asked[:]
    assert torch.equal(f.get_tensor("a1"), src["a1"])
    assert asked == ranges("a1", "a2")
    del asked[:]
    f.get_tensor("a3")	# a jump: only what is asked for
    assert asked == ranges("a3")
    del asked[:]
    f.get_tensor("a0")	# back: not sequential either
    assert asked == ranges("a0")
    f.get_tensor("a1")
    f.get_tensor("a2")
    del asked[:]
    f.get_tensor("a3")	# the last: nothing past it
    assert asked == ranges("a3")
    assert lib.ranges == []


@pytest.mark.parametrize("mapping", ["private", "device"])
def test_mapping_lives_with_the_tensors(mapping):
    import gc
    import weakref

    img = st.serialize({"x": torch.ones(4)})
    img = img[0] + b"".join(bytes(b) for b in img[1])
    lib = FakeMapLib(img)
    f = st.safe_open("m/y.safetensors", lib=lib, mapping=mapping)
    ref = weakref.ref(f._map._hold)	# the mapping and the hold
    t = f.get_tensor("x")
    del f
    gc.collect()
    assert ref() is not None	# still mapped: the tensor views it
    if mapping == "device":
        assert len(lib.mapped) == 1
    assert torch.equal(t, torch.ones(4))
    del t
    gc.collect()
    assert ref() is None and lib.mapped == [] and lib.open_readers == 0


def test_save_file_round_trip(fake):
    src = {"a": torch.randn(7, 3), "n": np.arange(10, dtype=np.int16)}
    st.save_file({"a": src["a"]}, "hypercache://m/s.safetensors")
    obj = fake.objects[b"hypercache://m/s.safetensors"]["data"]
    start, t, _ = st.parse_header(obj, len(obj))
    assert t["a"][0] == "F32" and t["a"][1] == (7, 3)
    back = st.load_file("hypercache://m/s.safetensors")
    assert torch.equal(back["a"], src["a"])


@pytest.mark.parametrize("mapping", ["private", "device"])
def test_last_view_releases_without_gc(mapping):
    """The hold and the device mapping go with the last tensor, by
    reference counting alone: with the collector off, nothing waits for
    it (a cycle between the views' array and the mapping kept both)."""
    import gc

    src = {"w": torch.arange(64, dtype=torch.float32)}
    head, bufs = st.serialize(src)
    img = head + b"".join(bytes(b) for b in bufs)
    lib = FakeMapLib(img, chunk_size=4096)
    was = gc.isenabled()
    gc.disable()
    try:
        f = st.safe_open("m/r.safetensors", lib=lib, mapping=mapping)
        t = f.get_tensor("w")
        del f
        assert torch.equal(t, src["w"])	# the view outlives safe_open
        if mapping == "device":
            assert len(lib.mapped) == 1 and lib.open_readers == 1
        del t
        assert lib.mapped == [] and lib.open_readers == 0
        tensors = st.load_file("m/r.safetensors", lib=lib, mapping=mapping)
        assert torch.equal(tensors["w"], src["w"])
        del tensors
        assert lib.mapped == [] and lib.open_readers == 0
    finally:
        if was:
            gc.enable()
