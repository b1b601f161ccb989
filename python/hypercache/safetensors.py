# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
"""Zero-copy .safetensors objects.

The format: 8 bytes of little-endian header length N, N bytes of a UTF-8
JSON object (tensor name -> {"dtype", "shape", "data_offsets": [begin,
end]}, and an optional "__metadata__" of strings), then the raw data; the
offsets count from the data's start.  :func:`parse_header` checks every
rule before anything is mapped: the header fits in the object (and in 100
MB), is a JSON object, every entry has exactly those keys with a known
dtype, a shape of non-negative integers and offsets whose span is the
shape's bytes, and the tensors tile the data exactly (sorted by offset,
no overlap, no hole, ending at the object's end), as the reference
implementation requires, so that no byte of the object means two things.

:func:`load_file` maps the whole object once and builds torch tensors (or
numpy arrays) that view the mapping: no byte is copied by the CPU, and the
mapping lives as long as any of them.  By default (``mapping="private"``)
the mapping is private anonymous memory on transparent huge pages, filled
with parallel O_DIRECT reads of whole chunks (the drives write straight
into the pages the tensors view: the whole object at once for
:func:`load_file`, a tensor's chunks at its :meth:`SafeOpen.get_tensor`;
the hold goes once every chunk is in; the memory is the process's own).
``mapping="device"`` maps the device's page cache instead
(libhypercache's multi-extent mmap: shared between processes and with
later loads, the hold kept with the mapping, the tensors read-only in
effect), with the pages of what is asked for read ahead at once
(MADV_WILLNEED, and the next tensor's too while they are asked for in the
file's order).  See :class:`_Mapping`.
"""
import ctypes
import errno
import json
import mmap
import struct
import threading
import warnings

from . import _lib
from .errors import error
from .uri import to_cache_uri

__all__ = ["parse_header", "load_file", "load", "safe_open", "save_file",
           "save", "DTYPES", "HEADER_MAX"]

HEADER_MAX = 100 * 1000 * 1000

# dtype -> (bytes per element, numpy dtype name or None, torch dtype name)
DTYPES = {
    "BOOL": (1, "bool", "bool"),
    "U8": (1, "uint8", "uint8"),
    "I8": (1, "int8", "int8"),
    "F8_E5M2": (1, None, "float8_e5m2"),
    "F8_E4M3": (1, None, "float8_e4m3fn"),
    "I16": (2, "int16", "int16"),
    "U16": (2, "uint16", None),
    "F16": (2, "float16", "float16"),
    "BF16": (2, None, "bfloat16"),
    "I32": (4, "int32", "int32"),
    "U32": (4, "uint32", None),
    "F32": (4, "float32", "float32"),
    "F64": (8, "float64", "float64"),
    "I64": (8, "int64", "int64"),
    "U64": (8, "uint64", None),
}


def _bad(name, why):
    return error(errno.EBADMSG, name, "not a valid safetensors object: " + why)


def parse_header(head, size, name=None):
    """Parse and check the header of a ``size``-byte object.

    ``head``: at least the object's first ``8 + N`` bytes (or all of them).
    Returns ``(data_start, tensors, metadata)`` with ``tensors`` a dict
    name -> (dtype, shape tuple, begin, end) in absolute object offsets.
    Raises OSError(EBADMSG) naming the object and the rule broken.
    """
    if size < 8 or len(head) < 8:
        raise _bad(name, "%d bytes: shorter than the 8-byte header length"
                   % size)
    (n,) = struct.unpack_from("<Q", head, 0)
    if n > size - 8:
        raise _bad(name, "header length %d larger than the object's %d "
                   "bytes after it" % (n, size - 8))
    if n > HEADER_MAX:
        raise _bad(name, "header length %d over %d" % (n, HEADER_MAX))
    if len(head) < 8 + n:
        raise ValueError("parse_header needs the first %d bytes" % (8 + n))
    raw = bytes(head[8:8 + n])
    try:
        hdr = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise _bad(name, "header is not JSON (%s)" % e) from None
    if not isinstance(hdr, dict):
        raise _bad(name, "header is JSON but not an object")
    meta = hdr.pop("__metadata__", None)
    if meta is not None and (not isinstance(meta, dict) or not all(
            isinstance(k, str) and isinstance(v, str)
            for k, v in meta.items())):
        raise _bad(name, "__metadata__ is not an object of strings")
    data_start = 8 + n
    data_len = size - data_start
    tensors = {}
    for key, t in hdr.items():
        if not isinstance(t, dict) or set(t) != {"dtype", "shape",
                                                 "data_offsets"}:
            raise _bad(name, "tensor %r: not {dtype, shape, data_offsets}"
                       % key)
        dt, shape, offs = t["dtype"], t["shape"], t["data_offsets"]
        if dt not in DTYPES:
            raise _bad(name, "tensor %r: unknown dtype %r" % (key, dt))
        if not isinstance(shape, list) or not all(
                type(d) is int and d >= 0 for d in shape):
            raise _bad(name, "tensor %r: shape %r" % (key, shape))
        if not isinstance(offs, list) or len(offs) != 2 or not all(
                type(o) is int for o in offs):
            raise _bad(name, "tensor %r: data_offsets %r" % (key, offs))
        begin, end = offs
        if not 0 <= begin <= end <= data_len:
            raise _bad(name, "tensor %r: data_offsets [%d, %d] outside the "
                       "%d data bytes" % (key, begin, end, data_len))
        numel = 1
        for d in shape:
            numel *= d
        if numel * DTYPES[dt][0] != end - begin:
            raise _bad(name, "tensor %r: %d bytes for shape %r of %s"
                       % (key, end - begin, shape, dt))
        tensors[key] = (dt, tuple(shape), data_start + begin,
                        data_start + end)
    pos = data_start
    for key, (_, _, begin, end) in sorted(tensors.items(),
                                          key=lambda kv: (kv[1][2],
                                                          kv[1][3])):
        if begin != pos:
            raise _bad(name, "tensor %r: %s at data offset %d (the tensors "
                       "must tile the data: no overlap, no hole)"
                       % (key, "overlaps" if begin < pos else "a hole",
                          begin - data_start))
        pos = end
    if pos != size:
        raise _bad(name, "%d bytes after the last tensor" % (size - pos))
    return data_start, tensors, (meta or {})


MAPPINGS = ("private", "device")
MADV_WILLNEED = 3
_libc = None


def _willneed(addr, length):
    """madvise(MADV_WILLNEED) of the pages of [addr, addr + length): the
    kernel starts reading them into the page cache at once (no read-around
    past them) and returns; a touch then waits only for its own page."""
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t,
                                  ctypes.c_int]
    page = mmap.PAGESIZE
    start = addr & ~(page - 1)
    _libc.madvise(start, addr + length - start, MADV_WILLNEED)


HUGE = 2 << 20	# a PMD's span on x86-64 and arm64 (4 KiB pages)


def _anonymous(size):
    """Private anonymous memory for ``size`` bytes: the mmap and the offset
    in it where the bytes start, aligned to HUGE so that transparent huge
    pages back it (MADV_HUGEPAGE: one fault and one page per 2 MiB, no
    page table of 512 entries to fill; the slack before and after is
    never touched, so it costs no memory).  A shared anonymous mapping
    (mmap's default) would be shmem: 4 KiB pages put in a page cache of
    their own one by one."""
    mm = mmap.mmap(-1, size + HUGE, flags=mmap.MAP_PRIVATE)
    base = ctypes.addressof(ctypes.c_char.from_buffer(mm))
    off = -base % HUGE
    if hasattr(mm, "madvise") and hasattr(mmap, "MADV_HUGEPAGE"):
        try:
            mm.madvise(mmap.MADV_HUGEPAGE)
        except OSError:
            pass	# no THP in this kernel: 4 KiB pages, still correct
    return mm, off


class _Hold:
    """What the views of a mapping keep alive: the reader (the object's
    hold) and the device mapping, released with the last view.

    Nothing here points back at the views or at the :class:`_Mapping`, so
    plain reference counting frees it the moment the last tensor goes: a
    cycle (the views' array owning the mapping that owns the array) would
    keep the hold and the mapping until the garbage collector ran.
    """

    def __init__(self, reader):
        self.reader = reader
        self.addr = 0	# the device mapping to unmap, 0: none

    def release(self):
        r, self.reader = self.reader, None
        if r is not None:
            if self.addr:
                r.munmap(self.addr)
                self.addr = 0
            r.close()

    def __del__(self):
        self.release()


class _Mapping:
    """A held object's bytes in memory, unmapped when the last view goes.

    ``private`` (the default): private anonymous memory of the object's
    size on transparent huge pages (see :func:`_anonymous`), filled by
    whole chunks on first use with parallel O_DIRECT reads
    (hc_reader_read_range: the drives write straight into the pages the
    tensors view; no byte is copied by the CPU, nothing is read that is
    not asked for but the rest of a chunk); the hold is released once
    every chunk is in.  The memory is this process's, not shared.  It is
    the default because it costs the kernel one page and one fault per
    2 MiB, where the device's page cache costs an allocation, a page-cache
    insertion and a page-table entry per 4 KiB (6.1's block devices have
    no large folios): 0.25-0.45 s against 0.50-0.60 s for 256 MiB in one
    guest boot (benchmarks.md, "Huge pages for the safetensors load").
    ``device``: the device's page cache of the object's extents mapped
    (hc_reader_mmap); the pages of each range asked for are read ahead at
    once with MADV_WILLNEED (the whole object for load_file, a tensor's
    pages at its get_tensor), so nothing past them is read and a touch
    waits only for its page; the hold lives with the mapping.  Shared by every process
    that maps the object (say, the ranks of one node loading one model)
    and kept for later loads while the page cache holds it.
    """

    def __init__(self, lib, uri, mapping="private"):
        if mapping not in MAPPINGS:
            raise ValueError("mapping %r: one of %s" % (mapping, MAPPINGS))
        self._hold = _Hold(lib.open(uri, _lib.OPEN_AUTO_INGEST, 600 * 1000))
        self.size = self._hold.reader.size
        self.private = mapping == "private"
        self.addr = 0
        self._mm = None
        self._lock = threading.Lock()
        self.chunk = getattr(lib, "chunk_size", 0) or (4 << 20)
        self._missing = set()	# chunks not read yet (private)
        if not self.size:
            self.view = memoryview(b"")
            return
        if self.private:
            self._mm, off = _anonymous(self.size)
            self.array = (ctypes.c_char * self.size).from_buffer(self._mm,
                                                                 off)
            self.addr = ctypes.addressof(self.array)
            self._missing = set(range(-(-self.size // self.chunk)))
        else:
            self.addr, _ = self._hold.reader.mmap()
            self._hold.addr = self.addr
            self.array = (ctypes.c_char * self.size).from_address(self.addr)
        self.array.owner = self._hold	# views keep the hold alive
        self.view = memoryview(self.array).cast("B")

    def ensure(self, begin, end):
        """The bytes [begin, end) are in memory or on their way (device:
        MADV_WILLNEED of their pages; private: read the chunks that are
        not, in runs of consecutive chunks)."""
        if end <= begin or not self.size:
            return
        if not self.private:
            end = min(end, self.size)
            _willneed(self.addr + begin, end - begin)
            return
        with self._lock:
            ks = sorted(k for k in range(begin // self.chunk,
                                         -(-min(end, self.size) // self.chunk))
                        if k in self._missing)
            i = 0
            while i < len(ks):
                j = i
                while j + 1 < len(ks) and ks[j + 1] == ks[j] + 1:
                    j += 1
                off = ks[i] * self.chunk
                n = min((ks[j] + 1) * self.chunk, self.size) - off
                got = self._hold.reader.read_range(self.view[off:off + n],
                                                   off)
                if got != n:
                    raise error(errno.EIO, self._hold.reader.uri.decode(
                        errors="replace"), "short read of %d bytes at %d"
                        % (got, off))
                self._missing.difference_update(range(ks[i], ks[j] + 1))
                i = j + 1
            if not self._missing:
                self._hold.release()	# every byte in: the hold can go


class SafeOpen:
    """Lazy access by tensor name (``safe_open``-style)."""

    def __init__(self, path, framework="pt", lib=None, mapping="private"):
        if framework not in ("pt", "torch", "np", "numpy"):
            raise ValueError("framework %r: pt or np" % framework)
        self.framework = "np" if framework in ("np", "numpy") else "pt"
        self.path = path
        uri = to_cache_uri(path)
        self._map = m = _Mapping(lib or _lib.get(), uri, mapping)
        name = uri.decode(errors="replace")
        m.ensure(0, 8)
        if m.size >= 8:
            (n,) = struct.unpack_from("<Q", m.view, 0)
            m.ensure(8, 8 + min(n, HEADER_MAX, m.size - 8))
        self.data_start, self._tensors, self._meta = parse_header(
            m.view, m.size, name)
        # for _read_ahead(): each tensor's end by its begin; the first
        # tensor read (the data's start) counts as sequential
        self._by_begin = {b: e for (_, _, b, e) in self._tensors.values()
                          if e > b}
        self._last_end = self.data_start

    def _read_ahead(self, begin, end):
        """Sequential access (this tensor starts where the last one asked
        for ended): have the next tensor's bytes read too, as the kernel's
        readahead does for read(), so its reads are in flight while this
        one is used (device mapping only: a private one reads what it is
        asked for, whole chunks).  Access by name in any other order reads
        nothing it did not ask for."""
        seq = begin == self._last_end
        self._last_end = end
        if not seq or self._map.private:
            return
        nxt = self._by_begin.get(end)
        if nxt is not None:
            self._map.ensure(end, nxt)

    def load_all(self):
        """Have every tensor's bytes read now (device: MADV_WILLNEED of the
        whole mapping; private: one parallel read of the whole object, then
        the hold is released)."""
        self._map.ensure(0, self._map.size)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._map = None
        return False

    def keys(self):
        return sorted(self._tensors)

    def metadata(self):
        return dict(self._meta)

    def get_tensor(self, key):
        dt, shape, begin, end = self._tensors[key]
        self._map.ensure(begin, end)
        self._read_ahead(begin, end)
        if self.framework == "np":
            return _numpy_view(self._map, dt, shape, begin, end, key)
        return _torch_view(self._map, dt, shape, begin, end, key)


def _numpy_view(m, dt, shape, begin, end, key):
    import numpy as np

    np_name = DTYPES[dt][1]
    if np_name is None:
        raise error(errno.EOPNOTSUPP, key,
                    "dtype %s has no numpy type (load with torch)" % dt)
    count = (end - begin) // DTYPES[dt][0]
    a = np.frombuffer(m.array if m.size else b"", dtype=np_name,
                      count=count, offset=begin if count else 0)
    return a.reshape(shape)


def _torch_view(m, dt, shape, begin, end, key):
    import torch

    t_name = DTYPES[dt][2]
    t_dtype = getattr(torch, t_name, None) if t_name else None
    if t_dtype is None:
        raise error(errno.EOPNOTSUPP, key,
                    "dtype %s has no type in this torch" % dt)
    count = (end - begin) // DTYPES[dt][0]
    if not count:
        return torch.empty(shape, dtype=t_dtype)
    with warnings.catch_warnings():
        # The mapping is read-only; torch warns that it cannot enforce it.
        warnings.simplefilter("ignore", UserWarning)
        t = torch.frombuffer(m.array, dtype=t_dtype, count=count,
                             offset=begin)
    return t.reshape(shape)


def safe_open(path, framework="pt", lib=None, mapping="private"):
    """A :class:`SafeOpen` over the object at ``path``: each tensor's
    chunks are read when it is asked for (``mapping="private"``, the
    default), or its pages read ahead then (``"device"``)."""
    return SafeOpen(path, framework, lib, mapping)


def load_file(path, framework="pt", lib=None, mapping="private"):
    """Every tensor of the object, as views of one mapping (no copy); with
    the private mapping the whole object is read at once, in parallel."""
    f = SafeOpen(path, framework, lib, mapping)
    f.load_all()
    return {k: f.get_tensor(k) for k in f.keys()}


load = load_file


def _as_bytes(t):
    """(dtype name, shape, a contiguous buffer) of a torch tensor or array."""
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and isinstance(t, torch.Tensor):
        t = t.detach().to("cpu").contiguous()
        rev = {v[2]: k for k, v in DTYPES.items() if v[2]}
        name = str(t.dtype).replace("torch.", "")
        if name not in rev:
            raise error(errno.EOPNOTSUPP, None, "torch dtype %s" % name)
        if t.dtype == torch.bool:
            raw = t.view(torch.uint8)
        elif DTYPES[rev[name]][1] is None:
            raw = t.view(torch.uint8 if DTYPES[rev[name]][0] == 1 else
                         torch.int16)
        else:
            raw = t
        return rev[name], list(t.shape), memoryview(
            raw.numpy().reshape(-1)).cast("B")
    import numpy as np

    a = np.ascontiguousarray(t)
    rev = {v[1]: k for k, v in DTYPES.items() if v[1]}
    if a.dtype.name not in rev:
        raise error(errno.EOPNOTSUPP, None, "numpy dtype %s" % a.dtype)
    return rev[a.dtype.name], list(a.shape), memoryview(
        a.reshape(-1).view(np.uint8))


def serialize(tensors, metadata=None):
    """(header bytes, [buffers]) of a safetensors object."""
    hdr = {}
    bufs = []
    pos = 0
    for key in sorted(tensors):
        dt, shape, buf = _as_bytes(tensors[key])
        hdr[key] = {"dtype": dt, "shape": shape,
                    "data_offsets": [pos, pos + buf.nbytes]}
        pos += buf.nbytes
        bufs.append(buf)
    if metadata:
        hdr["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    raw = json.dumps(hdr, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)	# the data starts 8-byte aligned
    return struct.pack("<Q", len(raw)) + raw, bufs


def save_file(tensors, path, metadata=None, lib=None, clean=False):
    """Write a .safetensors object through one stage (durable on return)."""
    head, bufs = serialize(tensors, metadata)
    size = len(head) + sum(b.nbytes for b in bufs)
    w = (lib or _lib.get()).create(to_cache_uri(path), size=size)
    try:
        w.pwrite(head, 0)
        off = len(head)
        for b in bufs:
            if b.nbytes:
                w.pwrite(b, off)
            off += b.nbytes
        return w.commit(clean=clean)
    except BaseException:
        w.abort()
        raise


save = save_file
