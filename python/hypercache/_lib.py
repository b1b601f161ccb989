# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
"""ctypes bindings over libhypercache (include/hypercache/hypercache.h).

The library is found by ``$HYPERCACHE_LIB`` (a path), else by its soname
``libhypercache.so.1``, else in the build tree (``build/lib/`` next to
``python/``), so the package works installed and from a checkout.  No
compiled extension: nothing needs a toolchain at import.

:class:`Library` is the interface the rest of the package uses (the unit
tests replace it with a fake of the same shape); one per process, opened
lazily, re-opened after a fork (a child must not share the parent's
holds and stages).
"""
import ctypes
import ctypes.util
import os
import threading

from .errors import error

__all__ = ["Library", "get", "set_library", "address_of", "OPEN_WAIT", "OPEN_AUTO_INGEST",
           "OPEN_PEEK", "STATE_NAMES"]

OPEN_WAIT = 1 << 0
OPEN_AUTO_INGEST = 1 << 1
OPEN_PEEK = 1 << 2
CREATE_REPLACE = 1 << 0
CREATE_NOWAIT = 1 << 1
COMMIT_CLEAN = 1 << 0
COMMIT_NO_CRC = 1 << 1
SIZE_UNKNOWN = (1 << 64) - 1
STATE_NAMES = {1: "ingesting", 2: "ready", 3: "staged", 4: "dirty",
               5: "syncing"}
# struct hc_lib_info.flags (uapi HC_OBJ_F_*)
OBJ_F_PINNED = 1 << 0
OBJ_F_BAD = 1 << 31

_c_size = ctypes.c_size_t
_c_u64 = ctypes.c_uint64
_c_u32 = ctypes.c_uint32
_vp = ctypes.c_void_p


class _Extent(ctypes.Structure):
    _fields_ = [("offset", _c_u64), ("length", _c_u64)]


class _Chunk(ctypes.Structure):
    _fields_ = [("member", _c_u32), ("member_offset", _c_u64),
                ("dev_offset", _c_u64), ("length", _c_u64)]


ETAG_MAX = 128	# HC_LIB_ETAG_MAX


class _Object(ctypes.Structure):
    """struct hc_lib_object (1.3): an object with its backend version."""
    _fields_ = [("uri", _vp), ("uri_len", _c_size), ("state", _c_u32),
                ("flags", _c_u32), ("size", _c_u64), ("generation", _c_u64),
                ("chunks", _c_u64), ("holds", _c_u32), ("etag_len", _c_u32),
                ("last_modified", _c_u64),
                ("etag", ctypes.c_char * (ETAG_MAX + 1))]


_LIST_OBJ_CB = ctypes.CFUNCTYPE(ctypes.c_int, _vp, ctypes.POINTER(_Object))


def _find():
    path = os.environ.get("HYPERCACHE_LIB")
    if path:
        return path
    here = os.path.dirname(os.path.abspath(__file__))
    tree = os.path.join(here, "..", "..", "build", "lib",
                        "libhypercache.so.1")
    try:
        ctypes.CDLL("libhypercache.so.1")
        return "libhypercache.so.1"
    except OSError:
        pass
    if os.path.exists(tree):
        return tree
    return ctypes.util.find_library("hypercache") or "libhypercache.so.1"


def _load():
    path = _find()
    try:
        so = ctypes.CDLL(path, use_errno=True)
    except OSError as e:
        raise ImportError("libhypercache not found (%s): install it or set "
                          "HYPERCACHE_LIB" % e) from e
    sig = {
        "hc_ctx_open": (ctypes.c_int, [ctypes.POINTER(_vp), ctypes.c_char_p,
                                       ctypes.c_char_p, ctypes.c_char_p,
                                       _c_size]),
        "hc_ctx_close": (None, [_vp]),
        "hc_ctx_chunk_size": (_c_u32, [_vp]),
        "hc_reader_open": (ctypes.c_int, [_vp, ctypes.c_char_p, _c_size,
                                          ctypes.c_uint, _c_u32,
                                          ctypes.POINTER(_vp),
                                          ctypes.c_char_p, _c_size]),
        "hc_reader_close": (None, [_vp]),
        "hc_reader_size": (_c_u64, [_vp]),
        "hc_reader_generation": (_c_u64, [_vp]),
        "hc_reader_extents": (ctypes.c_uint, [_vp, ctypes.POINTER(_Extent),
                                              ctypes.c_uint]),
        "hc_reader_layout": (ctypes.c_long, [_vp, ctypes.POINTER(_Chunk),
                                             ctypes.c_uint]),
        "hc_reader_pread": (ctypes.c_ssize_t, [_vp, _vp, _c_size, _c_u64]),
        "hc_reader_read_all": (ctypes.c_int, [_vp, _vp, ctypes.c_uint]),
        "hc_reader_read_range": (ctypes.c_ssize_t, [_vp, _vp, _c_size, _c_u64,
                                                    ctypes.c_uint]),
        "hc_reader_mmap": (ctypes.c_int, [_vp, ctypes.POINTER(_vp)]),
        "hc_reader_munmap": (None, [_vp, _vp]),
        "hc_reader_error": (ctypes.c_char_p, [_vp]),
        "hc_writer_create": (ctypes.c_int, [_vp, ctypes.c_char_p, _c_size,
                                            _c_u64, ctypes.c_uint,
                                            ctypes.POINTER(_vp),
                                            ctypes.c_char_p, _c_size]),
        "hc_writer_pwrite": (ctypes.c_ssize_t, [_vp, _vp, _c_size, _c_u64]),
        "hc_writer_commit": (ctypes.c_int, [_vp, ctypes.c_uint,
                                            ctypes.POINTER(_c_u64)]),
        "hc_writer_abort": (None, [_vp]),
        "hc_writer_error": (ctypes.c_char_p, [_vp]),
        "hc_ctx_evict": (ctypes.c_int, [_vp, ctypes.c_char_p, _c_size]),
        "hc_ctx_wait_clean": (ctypes.c_int, [_vp, ctypes.c_char_p, _c_size,
                                             _c_u64, _c_u32]),
        # 1.3
        "hc_ctx_object_info": (ctypes.c_int, [_vp, ctypes.c_char_p, _c_size,
                                              ctypes.POINTER(_Object)]),
        "hc_ctx_list_objects": (ctypes.c_int, [_vp, ctypes.c_char_p,
                                               _c_size, _LIST_OBJ_CB, _vp]),
    }
    for name, (res, args) in sig.items():
        f = getattr(so, name, None)
        if f is None:
            raise ImportError("%s has no %s: libhypercache 1.3 or later is "
                              "needed" % (path, name))
        f.restype = res
        f.argtypes = args
    return so


class _PyBuffer(ctypes.Structure):
    """CPython's Py_buffer (the buffer protocol's view)."""
    _fields_ = [("buf", _vp), ("obj", _vp), ("len", ctypes.c_ssize_t),
                ("itemsize", ctypes.c_ssize_t), ("readonly", ctypes.c_int),
                ("ndim", ctypes.c_int), ("format", ctypes.c_char_p),
                ("shape", _vp), ("strides", _vp), ("suboffsets", _vp),
                ("internal", _vp)]


def _readonly_address(mv):
    """The address of a contiguous read-only buffer (valid while ``mv``
    lives): PyObject_GetBuffer, which ctypes' from_buffer refuses."""
    view = _PyBuffer()
    get = ctypes.pythonapi.PyObject_GetBuffer
    get.argtypes = [ctypes.py_object, ctypes.POINTER(_PyBuffer), ctypes.c_int]
    release = ctypes.pythonapi.PyBuffer_Release
    release.argtypes = [ctypes.POINTER(_PyBuffer)]
    release.restype = None
    if get(mv, ctypes.byref(view), 0) != 0:	# PyBUF_SIMPLE
        raise BufferError("no simple buffer")
    try:
        return view.buf
    finally:
        release(ctypes.byref(view))


def _addr(buf):
    """Address and length of a writable or read-only buffer, no copy."""
    if isinstance(buf, bytes):
        keep = ctypes.c_char_p(buf)	# no copy: points into the bytes
        return ctypes.cast(keep, _vp).value, len(buf), (keep, buf)
    mv = memoryview(buf).cast("B")
    if mv.readonly:
        if not len(mv):
            return None, 0, mv
        return _readonly_address(mv), len(mv), mv	# no copy
    if not len(mv):
        return None, 0, mv
    arr = (ctypes.c_char * len(mv)).from_buffer(mv)
    return ctypes.addressof(arr), len(mv), arr


def address_of(buf):
    """The address of the first byte of a buffer (0 when it is empty)."""
    addr, _, keep = _addr(buf)
    del keep
    return addr or 0


class Reader:
    """An open object (LOCATE with HOLD): closing releases the hold."""

    def __init__(self, lib, handle, uri):
        self._lib = lib
        self._h = handle
        self.uri = uri
        self.size = lib.so.hc_reader_size(handle)
        self.generation = lib.so.hc_reader_generation(handle)

    def _fail(self, ret):
        msg = self._lib.so.hc_reader_error(self._h).decode(errors="replace")
        return error(ret, self.uri.decode(errors="replace"), msg)

    def extents(self):
        n = self._lib.so.hc_reader_extents(self._h, None, 0)
        arr = (_Extent * max(n, 1))()
        self._lib.so.hc_reader_extents(self._h, arr, n)
        return [(e.offset, e.length) for e in arr[:n]]

    def layout(self):
        n = self._lib.so.hc_reader_layout(self._h, None, 0)
        if n < 0:
            raise self._fail(n)
        arr = (_Chunk * max(n, 1))()
        n = self._lib.so.hc_reader_layout(self._h, arr, n)
        if n < 0:
            raise self._fail(n)
        return [dict(member=c.member, member_offset=c.member_offset,
                     dev_offset=c.dev_offset, length=c.length)
                for c in arr[:n]]

    def readinto(self, buf, offset):
        """Read into ``buf`` at object ``offset``; the bytes read."""
        addr, n, keep = _addr(buf)
        if not n:
            return 0
        ret = self._lib.so.hc_reader_pread(self._h, addr, n, offset)
        del keep
        if ret < 0:
            raise self._fail(ret)
        return ret

    def read_range(self, buf, offset, threads=0):
        """Read into ``buf`` at object ``offset`` with reads of a chunk
        each in flight (hc_reader_read_range); the bytes read."""
        addr, n, keep = _addr(buf)
        if not n:
            return 0
        ret = self._lib.so.hc_reader_read_range(self._h, addr, n, offset,
                                                threads)
        del keep
        if ret < 0:
            raise self._fail(ret)
        return ret

    def read_all(self, buf, threads=0):
        addr, n, keep = _addr(buf)
        if n < self.size:
            raise ValueError("buffer of %d bytes for %d" % (n, self.size))
        ret = self._lib.so.hc_reader_read_all(self._h, addr, threads)
        del keep
        if ret < 0:
            raise self._fail(ret)

    def mmap(self):
        """(address, size) of a read-only mapping of the whole object."""
        p = _vp()
        ret = self._lib.so.hc_reader_mmap(self._h, ctypes.byref(p))
        if ret < 0:
            raise self._fail(ret)
        return p.value or 0, self.size

    def munmap(self, addr):
        self._lib.so.hc_reader_munmap(self._h, addr or None)

    def close(self):
        if self._h:
            self._lib.so.hc_reader_close(self._h)
            self._h = None

    def __del__(self):
        self.close()


class Writer:
    """A stage: written, then committed (or aborted)."""

    def __init__(self, lib, handle, uri):
        self._lib = lib
        self._h = handle
        self.uri = uri

    def _fail(self, ret):
        msg = self._lib.so.hc_writer_error(self._h).decode(errors="replace")
        return error(ret, self.uri.decode(errors="replace"), msg)

    def pwrite(self, buf, offset):
        addr, n, keep = _addr(buf)
        if not n:
            return 0
        ret = self._lib.so.hc_writer_pwrite(self._h, addr, n, offset)
        del keep
        if ret < 0:
            raise self._fail(ret)
        return ret

    def commit(self, clean=False, crc=True):
        """Durable on the drives when this returns; the generation."""
        gen = _c_u64()
        flags = (COMMIT_CLEAN if clean else 0) | (0 if crc else COMMIT_NO_CRC)
        ret = self._lib.so.hc_writer_commit(self._h, flags, ctypes.byref(gen))
        if ret < 0:
            raise self._fail(ret)
        self._h = None
        return gen.value

    def abort(self):
        if self._h:
            self._lib.so.hc_writer_abort(self._h)
            self._h = None

    def __del__(self):
        self.abort()


class Library:
    """One context of libhypercache (the control device and the pool)."""

    def __init__(self, ctl=None, dev=None):
        self.so = _load()
        ctx = _vp()
        err = ctypes.create_string_buffer(512)
        ret = self.so.hc_ctx_open(ctypes.byref(ctx),
                                  ctl.encode() if ctl else None,
                                  dev.encode() if dev else None, err, 512)
        if ret < 0:
            raise error(ret, ctl or "/dev/hypercache-ctl",
                        err.value.decode(errors="replace"))
        self.ctx = ctx
        self.chunk_size = self.so.hc_ctx_chunk_size(ctx)

    def open(self, uri, flags=0, timeout_ms=0):
        h = _vp()
        err = ctypes.create_string_buffer(512)
        ret = self.so.hc_reader_open(self.ctx, uri, len(uri), flags,
                                     timeout_ms, ctypes.byref(h), err, 512)
        if ret < 0:
            raise error(ret, uri.decode(errors="replace"),
                        err.value.decode(errors="replace"))
        return Reader(self, h, uri)

    def create(self, uri, size=None, replace=True, nowait=False):
        h = _vp()
        err = ctypes.create_string_buffer(512)
        flags = (CREATE_REPLACE if replace else 0) | (
            CREATE_NOWAIT if nowait else 0)
        ret = self.so.hc_writer_create(
            self.ctx, uri, len(uri), SIZE_UNKNOWN if size is None else size,
            flags, ctypes.byref(h), err, 512)
        if ret < 0:
            raise error(ret, uri.decode(errors="replace"),
                        err.value.decode(errors="replace"))
        return Writer(self, h, uri)

    @staticmethod
    def _info(i, etag=None, last_modified=None):
        """The dict of one object: ``etag`` (str, as the backend sent it:
        S3's has its double quotes) and ``last_modified`` (seconds since
        the epoch, UTC) are None when the kernel does not know them."""
        return {"uri": ctypes.string_at(i.uri, i.uri_len), "size": i.size,
                "state": STATE_NAMES.get(i.state, str(i.state)),
                "generation": i.generation, "flags": i.flags,
                "bad": bool(i.flags & OBJ_F_BAD), "etag": etag,
                "last_modified": last_modified}

    @classmethod
    def _object(cls, o):
        etag = o.etag[:o.etag_len].decode(errors="replace") \
            if o.etag_len else None
        return cls._info(o, etag, o.last_modified or None)

    def info(self, uri):
        """One object (no hold) with its backend's ETag and Last-Modified
        (hc_ctx_object_info); ENOENT when it is not cached."""
        o = _Object()
        ret = self.so.hc_ctx_object_info(self.ctx, uri, len(uri),
                                         ctypes.byref(o))
        if ret < 0:
            raise error(ret, uri.decode(errors="replace"))
        return self._object(o)

    def list(self, prefix=b""):
        out = []

        def cb(_arg, p):
            out.append(self._object(p.contents))
            return 0

        ret = self.so.hc_ctx_list_objects(self.ctx, prefix or None,
                                          len(prefix), _LIST_OBJ_CB(cb), None)
        if ret < 0:
            raise error(ret, prefix.decode(errors="replace") or None,
                        "cannot list the cache")
        return out

    def evict(self, uri):
        ret = self.so.hc_ctx_evict(self.ctx, uri, len(uri))
        if ret < 0:
            raise error(ret, uri.decode(errors="replace"))

    def wait_clean(self, uri, generation, timeout_ms=0):
        ret = self.so.hc_ctx_wait_clean(self.ctx, uri, len(uri), generation,
                                        timeout_ms)
        if ret < 0:
            raise error(ret, uri.decode(errors="replace"),
                        "not uploaded: " + os.strerror(-ret))


_lock = threading.Lock()
_state = {"lib": None, "pid": None}


def set_library(lib):
    """Use ``lib`` (a Library or a fake of its shape) from now on."""
    with _lock:
        _state["lib"] = lib
        _state["pid"] = os.getpid() if lib is not None else None


def get():
    """This process's Library (a fork gets its own: holds are per open)."""
    with _lock:
        if _state["lib"] is None or (_state["pid"] != os.getpid() and
                                     isinstance(_state["lib"], Library)):
            _state["lib"] = Library()
            _state["pid"] = os.getpid()
        return _state["lib"]


def map_view(addr, size):
    """A read-only memoryview over ``size`` bytes mapped at ``addr``."""
    if not size:
        return memoryview(b"")
    arr = (ctypes.c_char * size).from_address(addr)
    return memoryview(arr).cast("B").toreadonly()

