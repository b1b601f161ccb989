# SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
"""A fake of hypercache._lib.Library (same methods, same errors), in memory.

Objects are bytes per URI with a state and generation; a reader holds its
object (EVICT is EBUSY while held, as in the kernel); mmap hands out the
address of a ctypes copy that lives until munmap; a writer stages into a
bytearray and commits at the end of its furthest write (growable) or at
its fixed size.  ``fail`` maps method names to an errno to inject.
"""
import ctypes
import errno
import threading

from hypercache._lib import address_of
from hypercache.errors import error


class FakeReader:
    def __init__(self, lib, uri):
        self.lib = lib
        self.uri = uri
        obj = lib.objects[uri]
        self.data = obj["data"]
        self.size = len(self.data)
        self.generation = obj["generation"]
        obj["holds"] += 1
        self.maps = {}
        self.reads = []		# (offset, length) of every readinto
        self.ranges = []	# (offset, length) of every read_range
        self.addrs = []		# the buffer's address of each

    def readinto(self, buf, offset):
        mv = memoryview(buf).cast("B")
        self.reads.append((offset, len(mv)))
        self.addrs.append(address_of(mv))
        chunk = self.data[offset:offset + len(mv)]
        mv[:len(chunk)] = chunk
        return len(chunk)

    def read_range(self, buf, offset, threads=0):
        mv = memoryview(buf).cast("B")
        self.ranges.append((offset, len(mv)))
        chunk = self.data[offset:offset + len(mv)]
        mv[:len(chunk)] = chunk
        return len(chunk)

    def read_all(self, buf, threads=0):
        memoryview(buf).cast("B")[:self.size] = self.data

    def mmap(self):
        if not self.size:
            return 0, 0
        arr = (ctypes.c_char * self.size).from_buffer_copy(self.data)
        addr = ctypes.addressof(arr)
        self.maps[addr] = arr
        self.lib.mapped += 1
        return addr, self.size

    def munmap(self, addr):
        if self.maps.pop(addr, None) is not None:
            self.lib.mapped -= 1

    def close(self):
        if self.lib is not None:
            self.lib.objects[self.uri]["holds"] -= 1
            self.lib = None


class FakeWriter:
    def __init__(self, lib, uri, size):
        self.lib = lib
        self.uri = uri
        self.size = size
        self.buf = bytearray()
        self.writes = []
        self.addrs = []		# the buffer's address of each write
        self.lock = threading.Lock()	# the library's writers are thread-safe
        lib.writers.append(self)

    def pwrite(self, buf, offset):
        self.lib._check("pwrite", self.uri)
        if self.lib.pwrite_hook is not None:
            self.lib.pwrite_hook(self, offset, len(memoryview(buf).cast("B")))
        with self.lock:
            return self._pwrite(buf, offset)

    def _pwrite(self, buf, offset):
        mv = memoryview(buf).cast("B")
        self.addrs.append(address_of(mv))
        b = bytes(mv)
        if self.size is not None and offset + len(b) > self.size:
            raise error(errno.EFBIG, self.uri.decode())
        if len(self.buf) < offset + len(b):
            self.buf.extend(b"\0" * (offset + len(b) - len(self.buf)))
        self.buf[offset:offset + len(b)] = b
        self.writes.append((offset, len(b)))
        return len(b)

    def commit(self, clean=False, crc=True):
        self.lib._check("commit", self.uri)
        data = bytes(self.buf)
        if self.size is not None:
            data = data.ljust(self.size, b"\0")
        self.lib.gen += 1
        self.lib.objects[self.uri] = {
            "data": data, "generation": self.lib.gen, "holds": 0,
            "state": "ready" if clean else "dirty"}
        self.lib.staged.discard(self.uri)
        self.lib.commits.append(self.uri)
        return self.lib.gen

    def abort(self):
        self.lib.staged.discard(self.uri)


class FakeLibrary:
    chunk_size = 4 << 20

    def __init__(self):
        self.objects = {}
        self.staged = set()
        self.gen = 0
        self.mapped = 0
        self.commits = []
        self.opens = []
        self.writers = []
        self.fail = {}
        # called as hook(writer, offset, length) by each pwrite, outside the
        # writer's lock (on the write-behind threads): may block or raise
        self.pwrite_hook = None

    def _check(self, what, uri):
        if what in self.fail:
            raise error(self.fail[what], uri.decode(errors="replace"))

    def add(self, uri, data, state="ready", etag=None, last_modified=None):
        self.gen += 1
        self.objects[uri] = {"data": bytes(data), "generation": self.gen,
                             "holds": 0, "state": state, "etag": etag,
                             "last_modified": last_modified}

    def open(self, uri, flags=0, timeout_ms=0):
        self._check("open", uri)
        self.opens.append((uri, flags, timeout_ms))
        if uri not in self.objects:
            raise error(errno.ENOENT, uri.decode(errors="replace"))
        if self.objects[uri].get("bad"):
            # hc_reader_open() of HC_LOCATE_BAD: EIO, no hold taken
            raise error(errno.EIO, uri.decode(errors="replace"),
                        "%s: bad: a read of its data failed on a member "
                        "(evict or replace it)" % uri.decode())
        return FakeReader(self, uri)

    def create(self, uri, size=None, replace=True, nowait=False):
        self._check("create", uri)
        if uri in self.staged or (uri in self.objects and not replace):
            raise error(errno.EEXIST, uri.decode(errors="replace"))
        self.staged.add(uri)
        return FakeWriter(self, uri, size)

    def _info(self, uri):
        o = self.objects[uri]
        bad = o.get("bad", False)
        return {"uri": uri, "size": len(o["data"]), "state": o["state"],
                "generation": o["generation"],
                "flags": (1 << 31) if bad else 0, "bad": bad,
                "etag": o.get("etag"), "last_modified": o.get("last_modified")}

    def info(self, uri):
        if uri not in self.objects:
            raise error(errno.ENOENT, uri.decode(errors="replace"))
        return self._info(uri)

    def list(self, prefix=b""):
        return [self._info(u) for u in sorted(self.objects)
                if u.startswith(prefix)]

    def evict(self, uri):
        o = self.objects.get(uri)
        if o is None:
            raise error(errno.ENOENT, uri.decode(errors="replace"))
        if o["holds"] or o["state"] != "ready":
            raise error(errno.EBUSY, uri.decode(errors="replace"))
        del self.objects[uri]

    def wait_clean(self, uri, generation, timeout_ms=0):
        o = self.objects.get(uri)
        if o is None:
            raise error(errno.ENOENT, uri.decode())
        if o["generation"] != generation:
            raise error(errno.ESTALE, uri.decode())
        o["state"] = "ready"	# the fake helper uploads at once
